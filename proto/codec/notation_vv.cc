// Valor & Victory counters (docs/counter-notation.md): one unit from its counter notation, and a unit
// back into it.

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "proto/codec/checks.h"
#include "proto/codec/vv.h"
#include "proto/codec/notation.h"
#include "proto/codec/notation_detail.h"

namespace melee::proto {
namespace {

namespace aslpb = melee::asl::v1;
namespace cocpb = melee::coc::v1;
namespace vvpb = melee::vv::v1;
namespace v1 = melee::v1;

using namespace notation_detail;  // NOLINT(google-build-using-namespace): the notation's words

// ---- vv -----------------------------------------------------------------------------------------

constexpr std::string_view kVvCounterHelp =
    " is not a counter: expected APFP-range-CR like 4-6-5 (a squad may add its half-squad side: "
    "4-6-5/2-6-2)";

struct VvFlag {
  std::string_view word;
  void (vvpb::Unit::*set)(bool);
  bool (vvpb::Unit::*get)() const;
};

constexpr VvFlag kVvFlags[] = {
    {"valorous", &vvpb::Unit::set_valorous, &vvpb::Unit::valorous},
    {"pinned", &vvpb::Unit::set_pinned, &vvpb::Unit::pinned},
    {"advanced", &vvpb::Unit::set_advanced, &vvpb::Unit::advanced},
    {"immobile", &vvpb::Unit::set_immobile, &vvpb::Unit::immobile},
    {"gun-shield", &vvpb::Unit::set_gun_shield_faces_assault,
     &vvpb::Unit::gun_shield_faces_assault},
};

constexpr std::pair<std::string_view, vvpb::UnitKind> kVvKinds[] = {
    {"squad", vvpb::UNIT_KIND_SQUAD},           {"hs", vvpb::UNIT_KIND_HALF_SQUAD},
    {"half-squad", vvpb::UNIT_KIND_HALF_SQUAD}, {"leader", vvpb::UNIT_KIND_LEADER},
    {"hero", vvpb::UNIT_KIND_LEADER},           {"afv", vvpb::UNIT_KIND_AFV},
    {"vehicle", vvpb::UNIT_KIND_VEHICLE},       {"gun", vvpb::UNIT_KIND_GUN},
};

bool IsVvKeyword(std::string_view word) {
  for (const VvFlag& flag : kVvFlags) {
    if (word == flag.word) return true;
  }
  for (const auto& [name, kind] : kVvKinds) {
    if (word == name) return true;
  }
  return word == "of" || word == "on" || word == "with" || word == "mg" || word == "l" ||
         word == "h" || word == "(l)" || word == "(h)" || word.find('=') != std::string_view::npos;
}

// A V&V half squad's values when its squad's back is not given: APFP and CR halved, rounded
// down (every counter of rule 15's example: 4-6-5 and 5-6-4 reduce to 2-6-2).
int VvHalf(int value) { return value / 2; }

// The Leadership Modifier as V&V prints it: "(-1)" or "-1"; nothing when `word` is not one.
std::optional<int> VvModifier(std::string_view word, bool& positive) {
  if (word.size() >= 2 && word.front() == '(' && word.back() == ')') {
    word = word.substr(1, word.size() - 2);
  }
  if (word.size() < 2 || (word[0] != '-' && word[0] != '+')) return std::nullopt;
  positive = word[0] == '+';
  return Number(word.substr(1));
}

// "with LMG 3-6 (L) [mg] ["M1919A6"]": one support weapon.
Result<vvpb::SupportWeapon> VvWeapon(const std::vector<Token>& t, size_t& i) {
  vvpb::SupportWeapon weapon;
  if (i + 1 >= t.size()) return Reject("", "'with' needs a weapon, e.g. with LMG 3-6 (L)");
  if (auto ok = CheckWordId(t[++i], "'with'"); !ok) return tl::unexpected(ok.error());
  weapon.set_id(t[i].text);
  const std::string id = Lower(weapon.id());
  // 15.2: the ids of machine guns say what they are.
  weapon.set_machine_gun(id == "lmg" || id == "mmg" || id == "hmg" || id == "mg");
  std::string label;
  std::string printed;
  bool valued = false;
  while (i + 1 < t.size()) {
    const Token& next = t[i + 1];
    if (next.quoted && label.empty()) {
      label = next.text;
    } else if (!valued && StartsWithDigit(next.word)) {
      const size_t dash = next.word.find('-');
      const auto apfp = Number(next.word.substr(0, dash));
      const auto range =
          dash == std::string::npos ? std::optional<int>(0) : Number(next.word.substr(dash + 1));
      if (!apfp || !range) {
        return Reject("", Shown(next.text) + " is not a weapon's APFP-range like 3-6");
      }
      if (auto ok = InRange(next, "APFP", *apfp, 0, 99); !ok) return tl::unexpected(ok.error());
      weapon.set_apfp(*apfp);
      if (dash != std::string::npos) printed = next.text;
      valued = true;
    } else if (next.word == "(l)" || next.word == "l" || next.word == "(h)" || next.word == "h") {
      weapon.set_heavy(next.word.find('h') != std::string::npos);
    } else if (next.word == "mg") {
      weapon.set_machine_gun(true);
    } else {
      break;
    }
    ++i;
  }
  if (!valued) {
    return Reject("", "with " + weapon.id() + ": give its APFP-range as printed, e.g. with " +
                          weapon.id() + " 3-6 (L)");
  }
  if (!printed.empty()) printed += weapon.heavy() ? " (H)" : " (L)";
  weapon.set_name(Label(label, printed));
  return weapon;
}

Result<vvpb::Unit> VvUnit(std::string_view id, v1::Seat owner, std::string_view notation) {
  auto tokens = Tokenize(notation, "");
  if (!tokens) return tl::unexpected(tokens.error());
  vvpb::Unit unit;
  unit.set_id(std::string(id));
  unit.set_owner(owner);
  const std::vector<Token>& t = *tokens;
  std::optional<Printed> printed;
  std::string printed_text;
  std::optional<vvpb::UnitKind> kind;
  bool hero = false;
  bool half_squad_of = false;
  std::optional<int> modifier;
  std::optional<int> apfp;
  std::optional<int> cr;
  std::string label;
  std::vector<std::string> unknown;
  for (size_t i = 0; i < t.size(); ++i) {
    const Token& token = t[i];
    const std::string& w = token.word;
    if (token.quoted) {
      if (!label.empty()) return Reject("", "two names: " + Shown(token.text));
      label = token.text;
      if (label.empty()) return Reject("", "an empty name \"\"");
      continue;
    }
    if (StartsWithDigit(w)) {
      if (printed) return Reject("", "two counters: " + Shown(token.text));
      printed = ParsePrinted(w);
      if (!printed) return Reject("", Shown(token.text) + std::string(kVvCounterHelp));
      if (auto ok = InRange(token, "APFP", printed->first, 0, 99); !ok) {
        return tl::unexpected(ok.error());
      }
      if (auto ok = InRange(token, "CR", printed->last, 0, 20); !ok) {
        return tl::unexpected(ok.error());
      }
      if (printed->has_back) {
        if (auto ok = InRange(token, "the half squad's APFP", printed->back_first, 0, 99); !ok) {
          return tl::unexpected(ok.error());
        }
        if (auto ok = InRange(token, "the half squad's CR", printed->back_last, 0, 20); !ok) {
          return tl::unexpected(ok.error());
        }
      }
      printed_text = printed->range < 0 ? "" : printed->Front();
      continue;
    }
    bool positive = false;
    if (auto lm = VvModifier(w, positive)) {
      if (positive) {
        return Reject("15.3", Shown(token.text) +
                                  ": a V&V Leadership Modifier is subtracted, "
                                  "e.g. (-1) (VV-AMB-2)");
      }
      if (modifier) return Reject("", "two Leadership Modifiers: " + Shown(token.text));
      if (auto ok = InRange(token, "the Leadership Modifier", *lm, 0, 3, "15.3"); !ok) {
        return tl::unexpected(ok.error());
      }
      modifier = *lm;
      continue;
    }
    if (w == "of") {
      if (kind != vvpb::UNIT_KIND_HALF_SQUAD) return Reject("", "'of' follows hs (hs of 4-6-5)");
      half_squad_of = true;
      continue;
    }
    bool matched = false;
    for (const auto& [name, value] : kVvKinds) {
      if (w == name) {
        if (kind && *kind != value) return Reject("", "two kinds of unit: " + Shown(token.text));
        kind = value;
        hero = hero || w == "hero";
        matched = true;
      }
    }
    for (const VvFlag& flag : kVvFlags) {
      if (w == flag.word) {
        (unit.*flag.set)(true);
        matched = true;
      }
    }
    if (matched) continue;
    if (w == "on") {
      if (i + 1 >= t.size()) return Reject("", "'on' needs the vehicle's id, e.g. on T1");
      if (auto ok = CheckWordId(t[++i], "'on'"); !ok) return tl::unexpected(ok.error());
      unit.set_carrier(t[i].text);
      continue;
    }
    if (w == "with") {
      auto weapon = VvWeapon(t, i);
      if (!weapon) return tl::unexpected(weapon.error());
      *unit.add_weapons() = std::move(*weapon);
      continue;
    }
    if (auto pair = KeyValue(token)) {
      const auto& [key, value] = *pair;
      if (key == "apfp" || key == "mg") {
        auto n = KeyNumber(token, value, 0, 99);
        if (!n) return tl::unexpected(n.error());
        apfp = *n;
      } else if (key == "cr") {
        auto n = KeyNumber(token, value, 0, 20);
        if (!n) return tl::unexpected(n.error());
        cr = *n;
      } else if (key == "main-gun") {
        auto n = KeyNumber(token, value, 0, 99);
        if (!n) return tl::unexpected(n.error());
        unit.set_main_gun_apfp(*n);
      } else {
        return Reject("", Unknown(token, "vv"));
      }
      continue;
    }
    unknown.push_back(token.text);
  }
  if (!kind) {
    if (!printed) {
      return Reject("",
                    "no counter: write APFP-range-CR like 4-6-5 (squad, hs, leader) or "
                    "afv, vehicle or gun with mg=, cr=");
    }
    kind = modifier ? vvpb::UNIT_KIND_LEADER : vvpb::UNIT_KIND_SQUAD;
  }
  const bool infantry = *kind == vvpb::UNIT_KIND_SQUAD || *kind == vvpb::UNIT_KIND_HALF_SQUAD ||
                        *kind == vvpb::UNIT_KIND_LEADER;
  if (!unknown.empty() && !(!infantry && unknown.size() == 1 && label.empty())) {
    Token shown;
    shown.text = unknown.front();
    return Reject("", Unknown(shown, "vv"));
  }
  unit.set_kind(*kind);
  if (infantry && !printed) {
    return Reject("", "a " + std::string(*kind == vvpb::UNIT_KIND_LEADER ? "leader" : "squad") +
                          " needs its counter: APFP-range-CR like 4-6-5");
  }
  if (modifier && *kind != vvpb::UNIT_KIND_LEADER) {
    return Reject("15.3", "only a leader has a Leadership Modifier");
  }
  if (half_squad_of && !printed) return Reject("", "hs of needs the squad's counter: hs of 4-6-5");
  if (printed && printed->has_back && *kind != vvpb::UNIT_KIND_SQUAD && !half_squad_of) {
    return Reject("", Shown(printed->Front()) + ": only a squad has a half-squad side");
  }
  if (unit.valorous() && !infantry) {
    return Reject("16.1", "'valorous': valor applies to infantry units only");
  }
  if (unit.gun_shield_faces_assault() && *kind != vvpb::UNIT_KIND_GUN) {
    return Reject("14.63", "'gun-shield': only a Gun has a Gun Shield");
  }
  if (unit.immobile() && *kind != vvpb::UNIT_KIND_AFV) {
    return Reject("15.10", "'immobile': only an AFV is marked Immobile");
  }
  if (!unit.weapons().empty() &&
      (*kind == vvpb::UNIT_KIND_AFV || *kind == vvpb::UNIT_KIND_VEHICLE)) {
    return Reject("15.4", "a vehicle carries no support weapon: its machine guns are its mg=");
  }
  for (const vvpb::SupportWeapon& weapon : unit.weapons()) {
    if (weapon.heavy() && *kind == vvpb::UNIT_KIND_LEADER) {
      return Reject("12.3", "a leader cannot use a Heavy (H) weapon (" + weapon.id() + ")");
    }
  }
  if (printed) {
    unit.set_apfp(printed->first);
    unit.set_casualty_rating(printed->last);
  }
  if (apfp) unit.set_apfp(*apfp);
  if (cr) unit.set_casualty_rating(*cr);
  if (*kind == vvpb::UNIT_KIND_SQUAD || half_squad_of) {
    const int half_apfp = printed->has_back ? printed->back_first : VvHalf(printed->first);
    const int half_cr = printed->has_back ? printed->back_last : VvHalf(printed->last);
    if (half_squad_of) {
      unit.set_apfp(half_apfp);
      unit.set_casualty_rating(half_cr);
    } else {
      if (half_cr < 1 || half_cr >= unit.casualty_rating()) {
        return Reject("14.61",
                      "a squad reduces to a half squad with a CR from 1 to less than "
                      "its own: give its half-squad side, e.g. " +
                          printed->Front() + "/2-6-2");
      }
      unit.set_reduced_apfp(half_apfp);
      unit.set_reduced_casualty_rating(half_cr);
    }
  }
  if (*kind == vvpb::UNIT_KIND_LEADER) {
    unit.set_leadership(modifier.value_or(0));
    if (hero) unit.set_valorous(true);
  }
  if (infantry) {
    std::string counter = printed_text;
    if (modifier && !counter.empty()) counter += " (-" + std::to_string(*modifier) + ")";
    unit.set_name(Label(counter, label));
  } else {
    unit.set_name(label.empty() && !unknown.empty() ? unknown.front() : label);
  }
  if (auto checked = VvUnitFromProto(unit, std::string(id)); !checked) {
    return tl::unexpected(checked.error());
  }
  return unit;
}

// A vv name split into its printed counter, its Leadership Modifier and the rest.
struct VvName {
  std::optional<Printed> printed;
  std::string label;
};

VvName SplitVvName(const std::string& name) {
  VvName out;
  auto [first, rest] = FirstWord(name);
  auto printed = ParsePrinted(first);
  if (!printed || printed->has_back || printed->range < 0) {
    out.label = name;
    return out;
  }
  out.printed = printed;
  auto [second, after] = FirstWord(rest);
  bool positive = false;
  out.label = VvModifier(second, positive) ? after : rest;
  return out;
}

std::string VvWeaponNotation(const vvpb::SupportWeapon& weapon) {
  std::vector<std::string> parts = {"with", weapon.id()};
  std::string label = weapon.name();
  std::string printed = std::to_string(weapon.apfp());
  // The name ends with the printed "3-6 (L)" when the notation wrote it.
  const std::string tail = weapon.heavy() ? " (H)" : " (L)";
  if (label.size() >= tail.size() &&
      label.compare(label.size() - tail.size(), tail.size(), tail) == 0) {
    const std::string head = label.substr(0, label.size() - tail.size());
    const size_t space = head.rfind(' ');
    const std::string value = space == std::string::npos ? head : head.substr(space + 1);
    const size_t dash = value.find('-');
    if (dash != std::string::npos && Number(value.substr(0, dash)) == weapon.apfp() &&
        Number(value.substr(dash + 1))) {
      printed = value;
      label = space == std::string::npos ? "" : head.substr(0, space);
    }
  }
  parts.push_back(printed);
  parts.push_back(weapon.heavy() ? "(H)" : "(L)");
  const std::string id = Lower(weapon.id());
  const bool implied = id == "lmg" || id == "mmg" || id == "hmg" || id == "mg";
  if (weapon.machine_gun() && !implied) parts.push_back("mg");
  if (!label.empty()) parts.push_back(Quoted(label));
  return Join(parts);
}

std::string VvNotation(const vvpb::Unit& unit) {
  std::vector<std::string> parts;
  VvName name = SplitVvName(unit.name());
  const auto counter = [&](int apfp, int cr) {
    if (name.printed && name.printed->first == apfp && name.printed->last == cr) {
      return name.printed->Front();
    }
    name.label = unit.name();
    return std::to_string(apfp) + "-?-" + std::to_string(cr);
  };
  bool valorous_said = false;
  switch (unit.kind()) {
    case vvpb::UNIT_KIND_SQUAD: {
      std::string text = counter(unit.apfp(), unit.casualty_rating());
      if (unit.reduced_apfp() != VvHalf(unit.apfp()) ||
          unit.reduced_casualty_rating() != VvHalf(unit.casualty_rating())) {
        const int range = name.printed && name.label != unit.name() ? name.printed->range : -1;
        text += "/" + std::to_string(unit.reduced_apfp()) + "-" +
                (range < 0 ? "?" : std::to_string(range)) + "-" +
                std::to_string(unit.reduced_casualty_rating());
      }
      parts = {text, "squad"};
      break;
    }
    case vvpb::UNIT_KIND_HALF_SQUAD:
      if (name.printed &&
          (name.printed->first != unit.apfp() || name.printed->last != unit.casualty_rating())) {
        std::string text = "hs of " + name.printed->Front();
        if (unit.apfp() != VvHalf(name.printed->first) ||
            unit.casualty_rating() != VvHalf(name.printed->last)) {
          text += "/" + std::to_string(unit.apfp()) + "-" + std::to_string(name.printed->range) +
                  "-" + std::to_string(unit.casualty_rating());
        }
        parts = {text};
      } else {
        parts = {counter(unit.apfp(), unit.casualty_rating()), "hs"};
      }
      break;
    case vvpb::UNIT_KIND_LEADER:
      parts = {counter(unit.apfp(), unit.casualty_rating()),
               unit.leadership() > 0 ? "(-" + std::to_string(unit.leadership()) + ")" : "",
               unit.valorous() ? "hero" : "leader"};
      valorous_said = unit.valorous();
      break;
    default: {
      const std::string_view word = unit.kind() == vvpb::UNIT_KIND_AFV       ? "afv"
                                    : unit.kind() == vvpb::UNIT_KIND_VEHICLE ? "vehicle"
                                                                             : "gun";
      parts.push_back(std::string(word));
      const std::string& label = unit.name();
      const bool bare = !label.empty() && label.find_first_of(" \t\",=()") == std::string::npos &&
                        !StartsWithDigit(label) && label[0] != '-' && label[0] != '+' &&
                        !IsVvKeyword(Lower(label));
      parts.push_back(label.empty() ? "" : bare ? label : Quoted(label));
      name.label.clear();
      if (unit.kind() == vvpb::UNIT_KIND_GUN) {
        if (unit.apfp() != 0) parts.push_back("apfp=" + std::to_string(unit.apfp()));
      } else {
        parts.push_back("mg=" + std::to_string(unit.apfp()));
      }
      if (unit.main_gun_apfp() != 0) {
        parts.push_back("main-gun=" + std::to_string(unit.main_gun_apfp()));
      }
      parts.push_back("cr=" + std::to_string(unit.casualty_rating()));
      break;
    }
  }
  // The unit's name comes before its weapons: a name after a weapon is the weapon's.
  if (!name.label.empty()) parts.push_back(Quoted(name.label));
  for (const VvFlag& flag : kVvFlags) {
    if ((unit.*flag.get)() && !(valorous_said && flag.word == "valorous")) {
      parts.push_back(std::string(flag.word));
    }
  }
  if (!unit.carrier().empty()) parts.push_back("on " + unit.carrier());
  for (const vvpb::SupportWeapon& weapon : unit.weapons())
    parts.push_back(VvWeaponNotation(weapon));
  return Join(parts);
}


}  // namespace

Result<vvpb::Unit> VvUnitFromNotation(std::string_view id, v1::Seat owner,
                                      std::string_view notation) {
  return VvUnit(id, owner, notation);
}

std::string VvNotationOf(const vvpb::Unit& unit) { return VvNotation(unit); }


}  // namespace melee::proto
