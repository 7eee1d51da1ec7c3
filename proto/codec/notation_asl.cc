// asl counters (docs/counter-notation.md): one unit from its counter notation, and a unit
// back into it.

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "proto/codec/asl.h"
#include "proto/codec/checks.h"
#include "proto/codec/notation.h"
#include "proto/codec/notation_detail.h"

namespace melee::proto {
namespace {

namespace aslpb = melee::asl::v1;
namespace cocpb = melee::coc::v1;
namespace vvpb = melee::vv::v1;
namespace v1 = melee::v1;

using namespace notation_detail;  // NOLINT(google-build-using-namespace): the notation's words

// ---- asl ----------------------------------------------------------------------------------------

constexpr std::string_view kAslCounterHelp =
    " is not a counter: expected FP-range-ML like 4-6-7, or a leader's ML-leadership like 8-1";

struct AslFlag {
  std::string_view word;
  std::string_view alias;
  void (aslpb::Unit::*set)(bool);
  bool (aslpb::Unit::*get)() const;
};

// Class and status words, in the order AslNotationOf writes them.
constexpr AslFlag kAslFlags[] = {
    {"inexperienced", "green", &aslpb::Unit::set_inexperienced, &aslpb::Unit::inexperienced},
    {"assault-engineer", "assault-engineers", &aslpb::Unit::set_assault_engineer,
     &aslpb::Unit::assault_engineer},
    {"stealthy", "", &aslpb::Unit::set_stealthy, &aslpb::Unit::stealthy},
    {"lax", "", &aslpb::Unit::set_lax, &aslpb::Unit::lax},
    {"commando", "commandos", &aslpb::Unit::set_commando, &aslpb::Unit::commando},
    {"gurkha", "gurkhas", &aslpb::Unit::set_gurkha, &aslpb::Unit::gurkha},
    {"partisan", "partisans", &aslpb::Unit::set_partisan, &aslpb::Unit::partisan},
    {"dare-death", "", &aslpb::Unit::set_dare_death, &aslpb::Unit::dare_death},
    {"fanatic", "", &aslpb::Unit::set_fanatic, &aslpb::Unit::fanatic},
    {"broken", "", &aslpb::Unit::set_broken, &aslpb::Unit::broken},
    {"pinned", "", &aslpb::Unit::set_pinned, &aslpb::Unit::pinned},
    {"cx", "", &aslpb::Unit::set_cx, &aslpb::Unit::cx},
    {"ti", "", &aslpb::Unit::set_ti, &aslpb::Unit::ti},
    {"guarding", "", &aslpb::Unit::set_guarding, &aslpb::Unit::guarding},
    {"berserk", "", &aslpb::Unit::set_berserk, &aslpb::Unit::berserk},
    {"disrupted", "", &aslpb::Unit::set_disrupted, &aslpb::Unit::disrupted},
    {"in-wire", "wire", &aslpb::Unit::set_in_wire, &aslpb::Unit::in_wire},
    {"on-crest", "crest", &aslpb::Unit::set_on_crest, &aslpb::Unit::on_crest},
    {"in-bank-or-panji", "panji", &aslpb::Unit::set_in_bank_or_panji,
     &aslpb::Unit::in_bank_or_panji},
    {"advanced", "", &aslpb::Unit::set_advanced, &aslpb::Unit::advanced},
    {"atmm", "", &aslpb::Unit::set_atmm, &aslpb::Unit::atmm},
};

struct AslVehicleFlag {
  std::string_view word;
  void (aslpb::Vehicle::*set)(bool);
  bool (aslpb::Vehicle::*get)() const;
};

constexpr AslVehicleFlag kAslVehicleFlags[] = {
    {"ce", &aslpb::Vehicle::set_crew_exposed, &aslpb::Vehicle::crew_exposed},
    {"abandoned", &aslpb::Vehicle::set_abandoned, &aslpb::Vehicle::abandoned},
    {"shocked", &aslpb::Vehicle::set_shocked, &aslpb::Vehicle::shocked},
    {"stunned", &aslpb::Vehicle::set_stunned, &aslpb::Vehicle::stunned},
    {"immobile", &aslpb::Vehicle::set_immobile, &aslpb::Vehicle::immobile},
    {"unarmed", &aslpb::Vehicle::set_unarmed, &aslpb::Vehicle::unarmed},
    {"bmg", &aslpb::Vehicle::set_bmg, &aslpb::Vehicle::bmg},
    {"cmg-vca", &aslpb::Vehicle::set_cmg_vca_only, &aslpb::Vehicle::cmg_vca_only},
};

constexpr std::pair<std::string_view, aslpb::Nationality> kNationalities[] = {
    {"german", aslpb::NATIONALITY_GERMAN},     {"american", aslpb::NATIONALITY_AMERICAN},
    {"british", aslpb::NATIONALITY_BRITISH},   {"russian", aslpb::NATIONALITY_RUSSIAN},
    {"italian", aslpb::NATIONALITY_ITALIAN},   {"finnish", aslpb::NATIONALITY_FINNISH},
    {"japanese", aslpb::NATIONALITY_JAPANESE}, {"chinese", aslpb::NATIONALITY_CHINESE},
    {"other", aslpb::NATIONALITY_OTHER},       {"soviet", aslpb::NATIONALITY_RUSSIAN},
    {"us", aslpb::NATIONALITY_AMERICAN},       {"finn", aslpb::NATIONALITY_FINNISH},
};

std::optional<aslpb::Nationality> NationalityOf(std::string_view word) {
  for (const auto& [name, value] : kNationalities) {
    if (word == name) return value;
  }
  return std::nullopt;
}

std::string_view NationalityWord(aslpb::Nationality nationality) {
  for (const auto& [name, value] : kNationalities) {
    if (value == nationality) return name;
  }
  return "";
}

constexpr std::pair<std::string_view, aslpb::UnitKind> kAslKinds[] = {
    {"squad", aslpb::UNIT_KIND_SQUAD},           {"hs", aslpb::UNIT_KIND_HALF_SQUAD},
    {"half-squad", aslpb::UNIT_KIND_HALF_SQUAD}, {"crew", aslpb::UNIT_KIND_CREW},
    {"leader", aslpb::UNIT_KIND_LEADER},         {"hero", aslpb::UNIT_KIND_HERO},
    {"smc", aslpb::UNIT_KIND_OTHER_SMC},         {"dummy", aslpb::UNIT_KIND_DUMMY},
    {"vehicle", aslpb::UNIT_KIND_VEHICLE},
};

constexpr std::pair<std::string_view, aslpb::Armor> kArmors[] = {
    {"ct", aslpb::ARMOR_CLOSED_TOP},
    {"ot", aslpb::ARMOR_OPEN_TOPPED},
    {"partially-armored", aslpb::ARMOR_PARTIALLY_ARMORED},
    {"unarmored", aslpb::ARMOR_UNARMORED},
};

constexpr std::pair<std::string_view, aslpb::Movement> kMovements[] = {
    {"stopped", aslpb::MOVEMENT_STOPPED},
    {"motion", aslpb::MOVEMENT_MOTION},
    {"non-stopped", aslpb::MOVEMENT_NON_STOPPED},
};

// Every word the asl notation knows (a vehicle's bare name must not be one).
bool IsAslKeyword(std::string_view word) {
  for (const AslFlag& flag : kAslFlags) {
    if (word == flag.word || (!flag.alias.empty() && word == flag.alias)) return true;
  }
  for (const AslVehicleFlag& flag : kAslVehicleFlags) {
    if (word == flag.word) return true;
  }
  for (const auto& [name, value] : kAslKinds) {
    if (word == name) return true;
  }
  for (const auto& [name, value] : kArmors) {
    if (word == name) return true;
  }
  for (const auto& [name, value] : kMovements) {
    if (word == name) return true;
  }
  static const std::set<std::string_view> kOthers = {
      "of",        "on",      "with",    "rider",    "passenger", "concealed",
      "?",         "wounded", "assault", "elite",    "bu",        "street-fighting",
      "conscript", "crest",   "bank",    "engineer", "engineers"};
  return NationalityOf(word).has_value() || kOthers.contains(word) ||
         word.find('=') != std::string_view::npos;
}

// An ASL half squad's FP when its squad's HS side is not given (A7.302: FP / 2, at least 1).
int HalfOf(int firepower) { return std::max(1, firepower / 2); }

// The words an asl unit is made of, before they become a Unit.
struct AslWords {
  std::optional<Printed> printed;
  std::optional<LeaderCounter> leader;
  std::string counter_text;
  std::optional<aslpb::UnitKind> kind;
  bool half_squad_of = false;
  std::optional<int> hs_fp;
  bool wounded = false;
  std::string label;
  std::vector<std::string> unknown;
};

Result<void> ReadWeapons(const std::vector<Token>& tokens, size_t& i, aslpb::Unit& unit) {
  // with LMG[, MMG ...]
  for (;;) {
    if (i + 1 >= tokens.size()) return Reject("", "'with' needs a support weapon, e.g. with LMG");
    const Token& weapon = tokens[++i];
    if (weapon.separator || weapon.quoted) {
      return Reject("", "'with' needs a support weapon, e.g. with LMG, not " + Shown(weapon.text));
    }
    if (auto ok = checks::CheckText(weapon.text, Shown(weapon.text), 32); !ok) {
      return tl::unexpected(ok.error());
    }
    unit.add_support_weapons(weapon.text);
    if (i + 1 < tokens.size() && tokens[i + 1].text == ",") {
      ++i;
      continue;
    }
    return {};
  }
}

Result<aslpb::Unit> AslUnit(std::string_view id, v1::Seat owner, std::string_view notation) {
  auto tokens = Tokenize(notation, ",");
  if (!tokens) return tl::unexpected(tokens.error());
  if (tokens->empty()) {
    return Reject("",
                  "no counter: write FP-range-ML like 4-6-7, a leader's ML-leadership like "
                  "8-1, dummy or vehicle");
  }
  aslpb::Unit unit;
  unit.set_id(std::string(id));
  unit.set_owner(owner);
  AslWords words;
  aslpb::Vehicle vehicle;
  bool vehicle_words = false;
  std::optional<std::string> personnel_word;
  const std::vector<Token>& t = *tokens;
  for (size_t i = 0; i < t.size(); ++i) {
    const Token& token = t[i];
    const std::string& w = token.word;
    const auto personnel = [&] {
      if (!personnel_word) personnel_word = token.text;
    };
    if (token.quoted) {
      if (!words.label.empty()) return Reject("", "two names: " + Shown(token.text));
      words.label = token.text;
      if (words.label.empty()) return Reject("", "an empty name \"\"");
      continue;
    }
    if (token.separator) return Reject("", "a ',' belongs in a list of support weapons");
    if (StartsWithDigit(w)) {
      if (words.printed || words.leader) return Reject("", "two counters: " + Shown(token.text));
      if (auto printed = ParsePrinted(w)) {
        if (auto ok = InRange(token, "FP", printed->first, 0, 99); !ok)
          return tl::unexpected(ok.error());
        if (auto ok = InRange(token, "range", printed->range, -1, 99); !ok)
          return tl::unexpected(ok.error());
        if (auto ok = InRange(token, "ML", printed->last, 1, 12); !ok)
          return tl::unexpected(ok.error());
        if (printed->has_back) {
          if (auto ok = InRange(token, "the HS's FP", printed->back_first, 1, 99); !ok) {
            return tl::unexpected(ok.error());
          }
        }
        words.printed = printed;
        words.counter_text = printed->range < 0 ? "" : printed->Front();
        continue;
      }
      if (auto leader = ParseLeaderCounter(w)) {
        if (leader->morale < 1 || leader->morale > 12 || leader->leadership < -5 ||
            leader->leadership > 3) {
          return Reject("", Shown(token.text) + std::string(kAslCounterHelp) +
                                " leader (ML 1..12, leadership -5..+3)");
        }
        words.leader = leader;
        words.counter_text = LeaderText(leader->morale, leader->leadership);
        continue;
      }
      return Reject("", Shown(token.text) + std::string(kAslCounterHelp));
    }
    if (w == "of") {
      if (words.kind != aslpb::UNIT_KIND_HALF_SQUAD || i == 0 || t[i - 1].word == "of") {
        return Reject("", "'of' follows HS, rider or passenger (HS of 4-6-7, rider of T1)");
      }
      words.half_squad_of = true;
      continue;
    }
    bool matched = false;
    for (const auto& [name, kind] : kAslKinds) {
      if (w == name) {
        if (words.kind && *words.kind != kind) {
          return Reject("", "two kinds of unit: " + Shown(token.text));
        }
        words.kind = kind;
        matched = true;
      }
    }
    if (matched) continue;
    if (auto nationality = NationalityOf(w)) {
      if (unit.nationality() != aslpb::NATIONALITY_UNSPECIFIED) {
        return Reject("", "two nationalities: " + Shown(token.text));
      }
      unit.set_nationality(*nationality);
      continue;
    }
    for (const AslFlag& flag : kAslFlags) {
      if (w == flag.word || (!flag.alias.empty() && w == flag.alias)) {
        (unit.*flag.set)(true);
        matched = true;
      }
    }
    if (w == "conscript" || w == "bank") {
      if (w == "bank") {
        unit.set_in_bank_or_panji(true);
      } else {
        unit.set_inexperienced(true);
      }
      matched = true;
    }
    if (matched) {
      personnel();
      continue;
    }
    if (w == "assault") {
      if (i + 1 >= t.size() || (t[i + 1].word != "engineer" && t[i + 1].word != "engineers")) {
        return Reject("", "'assault' is followed by engineers (assault engineers)");
      }
      unit.set_assault_engineer(true);
      personnel();
      ++i;
      continue;
    }
    if (w == "engineer" || w == "engineers") {
      unit.set_assault_engineer(true);
      personnel();
      continue;
    }
    if (w == "elite") {
      return Reject("",
                    "'elite': the CC rules have no elite class; an elite squad's printed "
                    "FP-range-ML (e.g. 4-6-8) says it all");
    }
    if (w == "concealed" || w == "?") {
      unit.set_concealed(true);
      continue;
    }
    if (w == "wounded") {
      words.wounded = true;
      personnel();
      continue;
    }
    if (w == "with" || (w.size() > 1 && w[0] == '+')) {
      if (w == "with") {
        if (auto ok = ReadWeapons(t, i, unit); !ok) return tl::unexpected(ok.error());
      } else {
        unit.add_support_weapons(token.text.substr(1));
      }
      personnel();
      continue;
    }
    if (w == "on" || w == "rider" || w == "passenger") {
      size_t at = i + 1;
      if (w != "on" && at < t.size() && t[at].word == "of") ++at;
      if (at >= t.size()) return Reject("", Shown(token.text) + " needs a unit id, e.g. on G1");
      if (auto ok = CheckWordId(t[at], "'" + w + "'"); !ok) return tl::unexpected(ok.error());
      std::string* target = w == "on"      ? unit.mutable_stacked_on()
                            : w == "rider" ? unit.mutable_rider_of()
                                           : unit.mutable_passenger_of();
      if (!target->empty()) return Reject("", "'" + w + "' is given twice");
      *target = t[at].text;
      personnel();
      i = at;
      continue;
    }
    if (w == "street-fighting") {
      unit.set_street_fighting(aslpb::STREET_FIGHTING_FROM_BUILDING);
      personnel();
      continue;
    }
    if (w == "bu") {
      vehicle_words = true;
      continue;
    }
    for (const auto& [name, armor] : kArmors) {
      if (w == name || (w == "open-topped" && armor == aslpb::ARMOR_OPEN_TOPPED) ||
          (w == "closed-top" && armor == aslpb::ARMOR_CLOSED_TOP) ||
          (w == "pa" && armor == aslpb::ARMOR_PARTIALLY_ARMORED)) {
        vehicle.set_armor(armor);
        matched = true;
      }
    }
    for (const auto& [name, movement] : kMovements) {
      if (w == name) {
        vehicle.set_movement(movement);
        matched = true;
      }
    }
    for (const AslVehicleFlag& flag : kAslVehicleFlags) {
      if (w == flag.word) {
        (vehicle.*flag.set)(true);
        matched = true;
      }
    }
    if (matched) {
      vehicle_words = true;
      continue;
    }
    if (auto pair = KeyValue(token)) {
      const auto& [key, value] = *pair;
      if (key == "bpv") {
        auto n = KeyNumber(token, value, 0, 999);
        if (!n) return tl::unexpected(n.error());
        unit.set_bpv(*n);
      } else if (key == "hs-fp") {
        auto n = KeyNumber(token, value, 1, 99);
        if (!n) return tl::unexpected(n.error());
        words.hs_fp = *n;
      } else if (key == "street-fighting") {
        const std::string where = Lower(value);
        if (where != "building" && where != "obstacle") {
          return Reject("A11.8", Shown(token.text) +
                                     ": street-fighting=building or street-fighting=obstacle");
        }
        unit.set_street_fighting(where == "building" ? aslpb::STREET_FIGHTING_FROM_BUILDING
                                                     : aslpb::STREET_FIGHTING_IN_OBSTACLE);
        personnel();
      } else if (key == "cmg" || key == "rmg" || key == "aamg") {
        auto n = KeyNumber(token, value, 0, 99);
        if (!n) return tl::unexpected(n.error());
        if (key == "cmg") {
          vehicle.set_cmg(*n);
        } else if (key == "rmg") {
          vehicle.set_rmg(*n);
        } else {
          vehicle.set_aamg(*n);
        }
        vehicle_words = true;
      } else if (key == "sn") {
        auto n = KeyNumber(token, value, 1, 12);
        if (!n) return tl::unexpected(n.error());
        vehicle.set_sn_usage(*n);
        vehicle_words = true;
      } else if (key == "malfunctioned") {
        std::string_view rest = value;
        while (!rest.empty()) {
          const std::string item = Lower(rest.substr(0, rest.find(',')));
          if (item != "cmg" && item != "rmg" && item != "aamg" && item != "sn") {
            return Reject("", Shown(token.text) +
                                  ": malfunctioned weapons are cmg, rmg, aamg "
                                  "or sn, separated by commas");
          }
          vehicle.add_malfunctioned(item);
          rest.remove_prefix(std::min(rest.size(), item.size() + 1));
        }
        vehicle_words = true;
      } else {
        return Reject("", Unknown(token, "asl"));
      }
      continue;
    }
    words.unknown.push_back(token.text);
  }

  // The kind, from the counter and the kind word.
  const bool is_vehicle = words.kind == aslpb::UNIT_KIND_VEHICLE;
  if (!words.unknown.empty() && !(is_vehicle && words.unknown.size() == 1 && words.label.empty())) {
    Token shown;
    shown.text = words.unknown.front();
    return Reject("", Unknown(shown, "asl"));
  }
  if (is_vehicle || words.kind == aslpb::UNIT_KIND_DUMMY) {
    if (words.printed || words.leader) {
      return Reject("", "a " + std::string(is_vehicle ? "vehicle" : "dummy") +
                            " has no FP-range-ML counter: " + Shown(words.counter_text));
    }
    if (is_vehicle && personnel_word) {
      return Reject("A11.5", "a vehicle has no Personnel status, class, SW or stacking: " +
                                 Shown(*personnel_word));
    }
    if (unit.concealed() && is_vehicle) {
      return Reject("A11.5", "a concealed vehicle is not supported");
    }
  } else if (vehicle_words) {
    return Reject("",
                  "vehicle words (CE, motion, cmg=...) are for a vehicle: write "
                  "vehicle NAME ...");
  }
  if (words.half_squad_of && !words.printed) {
    return Reject("", "HS of needs the squad's counter, e.g. HS of 4-6-7");
  }
  aslpb::UnitKind kind;
  if (words.leader) {
    // Two numbers alone are too easily a squad's counter mistyped: a leader says so.
    if (!words.kind) {
      return Reject("", Shown(words.counter_text) + std::string(kAslCounterHelp) + " leader");
    }
    if (*words.kind != aslpb::UNIT_KIND_LEADER) {
      return Reject("", Shown(words.counter_text) +
                            " is a leader's ML-leadership; FP-range-ML "
                            "like 4-6-7 is the counter of other units");
    }
    kind = aslpb::UNIT_KIND_LEADER;
  } else if (words.printed) {
    if (words.kind == aslpb::UNIT_KIND_LEADER) {
      return Reject(
          "", "a leader's counter is ML-leadership like 8-1, not " + Shown(words.printed->Front()));
    }
    kind = words.kind.value_or(aslpb::UNIT_KIND_SQUAD);
  } else if (words.kind == aslpb::UNIT_KIND_DUMMY || is_vehicle) {
    kind = *words.kind;
  } else {
    return Reject("",
                  "no counter: write FP-range-ML like 4-6-7, a leader's ML-leadership like "
                  "8-1, dummy or vehicle");
  }
  unit.set_kind(kind);
  if (words.half_squad_of && (!words.printed || kind != aslpb::UNIT_KIND_HALF_SQUAD)) {
    return Reject("", "HS of needs the squad's counter, e.g. HS of 4-6-7");
  }
  if (words.printed && words.printed->has_back &&
      (kind != aslpb::UNIT_KIND_SQUAD && !words.half_squad_of)) {
    return Reject("", Shown(words.counter_text) + ": only a squad has a HS side (4-6-7/2-4-7)");
  }
  if (words.hs_fp && kind != aslpb::UNIT_KIND_SQUAD && !words.half_squad_of) {
    return Reject("", "hs-fp= is the FP of a squad's HS (4-6-7 hs-fp=2, HS of 4-6-7 hs-fp=2)");
  }

  if (words.printed) {
    const Printed& p = *words.printed;
    unit.set_morale(p.last);
    if (words.half_squad_of) {
      // A squad Reduced to a HS (A7.302): its HS side's FP, or FP / 2.
      const int half = words.hs_fp ? *words.hs_fp : p.has_back ? p.back_first : HalfOf(p.first);
      unit.set_firepower(half);
    } else {
      unit.set_firepower(p.first);
      if (kind == aslpb::UNIT_KIND_SQUAD) {
        const int half = words.hs_fp ? *words.hs_fp : p.has_back ? p.back_first : HalfOf(p.first);
        if (half != HalfOf(p.first)) unit.set_reduced_firepower(half);
      }
    }
    if (p.range < 0 && p.has_back) {
      return Reject("", Shown(words.counter_text) + ": give the range of a counter with a HS side");
    }
  }
  if (words.leader) {
    unit.set_morale(words.leader->morale);
    unit.set_leadership(words.leader->leadership);
  }
  if (words.wounded) {
    if (kind != aslpb::UNIT_KIND_LEADER && kind != aslpb::UNIT_KIND_HERO &&
        kind != aslpb::UNIT_KIND_OTHER_SMC) {
      return Reject("A17.11", "'wounded': only a SMC is wounded; an MMC is Reduced (A7.302)");
    }
    unit.set_wounds(1);
    if (kind == aslpb::UNIT_KIND_LEADER) {
      // A17.11: the counter is as printed; a wounded leader's ML is one less and his modifier
      // one worse.
      if (unit.morale() <= 1 || unit.leadership() >= 3) {
        return Reject("A17.11", Shown(words.counter_text) + " wounded would leave ML " +
                                    std::to_string(unit.morale() - 1) + ", leadership " +
                                    std::to_string(unit.leadership() + 1));
      }
      unit.set_morale(unit.morale() - 1);
      unit.set_leadership(unit.leadership() + 1);
    }
  }
  if (kind == aslpb::UNIT_KIND_DUMMY) unit.set_concealed(true);
  if (is_vehicle) {
    *unit.mutable_vehicle() = vehicle;
    unit.set_name(words.label.empty() && !words.unknown.empty() ? words.unknown.front()
                                                                : words.label);
  } else {
    unit.set_name(Label(words.counter_text, words.label));
  }
  if (!unit.stacked_on().empty() && kind != aslpb::UNIT_KIND_LEADER &&
      kind != aslpb::UNIT_KIND_HERO && kind != aslpb::UNIT_KIND_OTHER_SMC) {
    return Reject("A11.14", "'on " + unit.stacked_on() +
                                "': only a SMC is stacked on an MMC (A11.14); write the SMC's "
                                "line with on <MMC id>");
  }
  if (auto checked = UnitFromProto(unit, std::string(id)); !checked) {
    return tl::unexpected(checked.error());
  }
  return unit;
}

// Splits an asl unit's name into its printed counter and the rest.
struct AslName {
  std::optional<Printed> printed;
  std::optional<LeaderCounter> leader;
  std::string label;
};

AslName SplitAslName(const std::string& name) {
  AslName out;
  auto [first, rest] = FirstWord(name);
  if (auto printed = ParsePrinted(first); printed && !printed->has_back && printed->range >= 0) {
    out.printed = printed;
    out.label = rest;
  } else if (auto leader = ParseLeaderCounter(first)) {
    out.leader = leader;
    out.label = rest;
  } else {
    out.label = name;
  }
  return out;
}

std::string AslNotation(const aslpb::Unit& unit) {
  std::vector<std::string> parts;
  const int morale = unit.has_morale() ? unit.morale() : 7;
  AslName name = SplitAslName(unit.name());
  switch (unit.kind()) {
    case aslpb::UNIT_KIND_VEHICLE: {
      parts.push_back("vehicle");
      const std::string label = unit.name();
      const bool bare = !label.empty() && label.find_first_of(" \t\",=") == std::string::npos &&
                        !StartsWithDigit(label) && label[0] != '+' && !IsAslKeyword(Lower(label));
      parts.push_back(label.empty() ? "" : bare ? label : Quoted(label));
      name.label.clear();
      break;
    }
    case aslpb::UNIT_KIND_DUMMY:
      parts.push_back("dummy");
      if (name.printed || name.leader) name.label = unit.name();
      break;
    case aslpb::UNIT_KIND_LEADER: {
      const int wound = unit.wounds() > 0 ? 1 : 0;
      parts.push_back(LeaderText(morale + wound, unit.leadership() - wound) + " leader");
      if (name.printed) name.label = unit.name();
      break;
    }
    default: {
      const int fp = unit.firepower();
      const bool reduced = unit.kind() == aslpb::UNIT_KIND_HALF_SQUAD && name.printed &&
                           name.printed->first != fp && name.printed->last == morale;
      if (reduced) {
        parts.push_back("HS of " + name.printed->Front());
        if (fp != HalfOf(name.printed->first)) parts.push_back("hs-fp=" + std::to_string(fp));
      } else {
        if (name.printed && name.printed->first == fp && name.printed->last == morale) {
          parts.push_back(name.printed->Front());
        } else {
          parts.push_back(std::to_string(fp) + "-?-" + std::to_string(morale));
          name.label = unit.name();
        }
        switch (unit.kind()) {
          case aslpb::UNIT_KIND_HALF_SQUAD:
            parts.push_back("HS");
            break;
          case aslpb::UNIT_KIND_CREW:
            parts.push_back("crew");
            break;
          case aslpb::UNIT_KIND_HERO:
            parts.push_back("hero");
            break;
          case aslpb::UNIT_KIND_OTHER_SMC:
            parts.push_back("smc");
            break;
          default:
            break;
        }
        if (unit.kind() == aslpb::UNIT_KIND_SQUAD && unit.has_reduced_firepower()) {
          parts.push_back("hs-fp=" + std::to_string(unit.reduced_firepower()));
        }
      }
      if (name.leader) name.label = unit.name();
      break;
    }
  }
  // NATIONALITY_OTHER plays as none (the engine's views give it to every unit without one).
  if (unit.nationality() != aslpb::NATIONALITY_OTHER) {
    parts.push_back(std::string(NationalityWord(unit.nationality())));
  }
  for (const AslFlag& flag : kAslFlags) {
    if ((unit.*flag.get)()) parts.push_back(std::string(flag.word));
  }
  if (unit.wounds() > 0) parts.push_back("wounded");
  if (unit.street_fighting() == aslpb::STREET_FIGHTING_FROM_BUILDING) {
    parts.push_back("street-fighting");
  } else if (unit.street_fighting() == aslpb::STREET_FIGHTING_IN_OBSTACLE) {
    parts.push_back("street-fighting=obstacle");
  }
  if (unit.concealed() && unit.kind() != aslpb::UNIT_KIND_DUMMY) parts.push_back("concealed");
  if (unit.bpv() != 0) parts.push_back("bpv=" + std::to_string(unit.bpv()));
  if (!unit.support_weapons().empty()) {
    std::vector<std::string> weapons(unit.support_weapons().begin(), unit.support_weapons().end());
    parts.push_back("with " + Join(weapons, ", "));
  }
  if (!unit.stacked_on().empty()) parts.push_back("on " + unit.stacked_on());
  if (!unit.rider_of().empty()) parts.push_back("rider of " + unit.rider_of());
  if (!unit.passenger_of().empty()) parts.push_back("passenger of " + unit.passenger_of());
  if (unit.kind() == aslpb::UNIT_KIND_VEHICLE) {
    const aslpb::Vehicle& v = unit.vehicle();
    for (const auto& [word, armor] : kArmors) {
      if (armor == v.armor() && armor != aslpb::ARMOR_CLOSED_TOP)
        parts.push_back(std::string(word));
    }
    for (const auto& [word, movement] : kMovements) {
      if (movement == v.movement() && movement != aslpb::MOVEMENT_STOPPED) {
        parts.push_back(std::string(word));
      }
    }
    for (const AslVehicleFlag& flag : kAslVehicleFlags) {
      if ((v.*flag.get)()) parts.push_back(std::string(flag.word));
    }
    if (v.cmg() != 0) parts.push_back("cmg=" + std::to_string(v.cmg()));
    if (v.rmg() != 0) parts.push_back("rmg=" + std::to_string(v.rmg()));
    if (v.aamg() != 0) parts.push_back("aamg=" + std::to_string(v.aamg()));
    if (v.sn_usage() != 0) parts.push_back("sn=" + std::to_string(v.sn_usage()));
    if (!v.malfunctioned().empty()) {
      std::vector<std::string> weapons(v.malfunctioned().begin(), v.malfunctioned().end());
      parts.push_back("malfunctioned=" + Join(weapons, ","));
    }
  }
  if (!name.label.empty()) parts.push_back(Quoted(name.label));
  return Join(parts);
}


}  // namespace

Result<aslpb::Unit> AslUnitFromNotation(std::string_view id, v1::Seat owner,
                                        std::string_view notation) {
  return AslUnit(id, owner, notation);
}

std::string AslNotationOf(const aslpb::Unit& unit) { return AslNotation(unit); }

std::optional<aslpb::Nationality> notation_detail::AslNationality(std::string_view word) {
  return NationalityOf(word);
}


}  // namespace melee::proto
