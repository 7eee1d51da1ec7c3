#include "engine/asl/model.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace melee::engine::asl {
namespace {

constexpr size_t kMaxUnits = 64;
constexpr size_t kMaxIdBytes = 32;
constexpr int kMaxFirepower = 99;

// Parses one named option value from `values` into `out` via `table`; unknown values fail.
template <class T>
Result<void> ParseChoice(const std::map<std::string, std::string>& values, const std::string& key,
                         std::initializer_list<std::pair<std::string_view, T>> table, T& out) {
  auto it = values.find(key);
  if (it == values.end()) return {};
  std::string allowed;
  for (const auto& [name, value] : table) {
    if (it->second == name) {
      out = value;
      return {};
    }
    allowed += allowed.empty() ? "" : " | ";
    allowed += name;
  }
  return Reject("",
                "option " + key + ": '" + it->second.substr(0, 32) + "' is not one of " + allowed);
}

}  // namespace

bool IsMmc(UnitKind kind) {
  switch (kind) {
    case UnitKind::kSquad:
    case UnitKind::kHalfSquad:
    case UnitKind::kCrew:
      return true;
    case UnitKind::kLeader:
    case UnitKind::kHero:
    case UnitKind::kOtherSmc:
    case UnitKind::kDummy:
    case UnitKind::kVehicle:
      return false;
  }
  return false;
}

bool IsSmc(UnitKind kind) {
  switch (kind) {
    case UnitKind::kLeader:
    case UnitKind::kHero:
    case UnitKind::kOtherSmc:
      return true;
    case UnitKind::kSquad:
    case UnitKind::kHalfSquad:
    case UnitKind::kCrew:
    case UnitKind::kDummy:
    case UnitKind::kVehicle:
      return false;
  }
  return false;
}

std::string_view Name(UnitKind kind) {
  switch (kind) {
    case UnitKind::kSquad:
      return "squad";
    case UnitKind::kHalfSquad:
      return "half_squad";
    case UnitKind::kCrew:
      return "crew";
    case UnitKind::kLeader:
      return "leader";
    case UnitKind::kHero:
      return "hero";
    case UnitKind::kOtherSmc:
      return "other_smc";
    case UnitKind::kDummy:
      return "dummy";
    case UnitKind::kVehicle:
      return "vehicle";
  }
  return "?";
}

std::string_view Name(Armor armor) {
  switch (armor) {
    case Armor::kClosedTop:
      return "closed_top";
    case Armor::kOpenTopped:
      return "open_topped";
    case Armor::kPartiallyArmored:
      return "partially_armored";
    case Armor::kUnarmored:
      return "unarmored";
  }
  return "?";
}

std::string_view Name(Movement movement) {
  switch (movement) {
    case Movement::kStopped:
      return "stopped";
    case Movement::kMotion:
      return "motion";
    case Movement::kNonStopped:
      return "non_stopped";
  }
  return "?";
}

std::string_view Name(Weapon weapon) {
  switch (weapon) {
    case kCmg:
      return "cmg";
    case kRmg:
      return "rmg";
    case kAamg:
      return "aamg";
    case kSn:
      return "sn";
  }
  return "?";
}

uint8_t WeaponBits(const std::vector<std::string>& names) {
  uint8_t bits = 0;
  for (const std::string& name : names) {
    if (std::optional<Weapon> weapon = ParseWeapon(name)) bits |= *weapon;
  }
  return bits;
}

std::optional<Weapon> ParseWeapon(std::string_view name) {
  for (Weapon weapon : {kCmg, kRmg, kAamg, kSn}) {
    if (Name(weapon) == name) return weapon;
  }
  return std::nullopt;
}

std::string_view Name(Nationality nationality) {
  switch (nationality) {
    case Nationality::kOther:
      return "other";
    case Nationality::kGerman:
      return "german";
    case Nationality::kAmerican:
      return "american";
    case Nationality::kBritish:
      return "british";
    case Nationality::kRussian:
      return "russian";
    case Nationality::kItalian:
      return "italian";
    case Nationality::kFinnish:
      return "finnish";
    case Nationality::kJapanese:
      return "japanese";
    case Nationality::kChinese:
      return "chinese";
  }
  return "?";
}

int CcStrength(const Unit& unit) {
  // A11.14: a SMC has an inherent CC FP of one; A11.16: a broken MMC defends with its full FP.
  // A vehicle's CC FP is its weapons' (A11.62), never a strength of its own.
  if (IsVehicle(unit)) return 0;
  return IsSmc(unit.kind) ? 1 : unit.firepower;
}

int HalfSquadFirepower(const Unit& unit) {
  // A HS always has some FP: a 1-FP squad (never printed) still leaves a 1-FP HS.
  return unit.reduced_firepower >= 1 ? unit.reduced_firepower : std::max(1, unit.firepower / 2);
}

bool IsStealthy(const Unit& unit) {
  // A11.17: Gurkhas, Finns, Heroes, Commandos and Partisans are always Stealthy.
  return unit.stealthy || unit.gurkha || unit.commando || unit.partisan ||
         unit.kind == UnitKind::kHero || unit.nationality == Nationality::kFinnish;
}

bool IsLax(const Unit& unit) {
  // A11.18: all Inexperienced Personnel are Lax.
  return unit.lax || unit.inexperienced;
}

std::optional<IftResult> ParseIftResult(std::string_view text) {
  using Kind = IftResult::Kind;
  auto digit = [](char c) -> std::optional<int> {
    if (c < '1' || c > '9') return std::nullopt;
    return c - '0';
  };
  if (text == "ne") return IftResult{Kind::kNoEffect, 0};
  if (text == "ptc") return IftResult{Kind::kPtc, 0};
  if (text == "nmc") return IftResult{Kind::kMc, 0};
  if (text.size() == 3 && text.substr(1) == "mc" && digit(text[0])) {
    return IftResult{Kind::kMc, *digit(text[0])};
  }
  if (text.size() == 3 && text.substr(0, 2) == "k/" && digit(text[2])) {
    return IftResult{Kind::kCasualty, *digit(text[2])};
  }
  if (text.size() == 4 && text.substr(1) == "kia" && digit(text[0])) {
    return IftResult{Kind::kKia, *digit(text[0])};
  }
  return std::nullopt;
}

Result<Options> ParseOptions(const MatchOptions& match_options) {
  Options options;
  const auto& values = match_options.values;
  if (match_options.variant == "deluxe") options.optional_hth = OptionalHth::kDeluxe;
  if (auto r = ParseChoice<DeclarationOrder>(values, "declaration_order",
                                             {{"sealed", DeclarationOrder::kSealed},
                                              {"attacker_first", DeclarationOrder::kAttackerFirst}},
                                             options.declaration_order);
      !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = ParseChoice<OptionalHth>(values, "optional_hth",
                                        {{"none", OptionalHth::kNone},
                                         {"deluxe", OptionalHth::kDeluxe},
                                         {"red_barricades", OptionalHth::kRedBarricades}},
                                        options.optional_hth);
      !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = ParseChoice<bool>(values, "sw_destruction", {{"le", true}, {"lt", false}},
                                 options.sw_destruction_inclusive);
      !r) {
    return tl::unexpected(r.error());
  }
  if (auto r =
          ParseChoice<bool>(values, "above_ten_to_one", {{"column", true}, {"ten_to_one", false}},
                            options.above_ten_to_one_column);
      !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = ParseChoice<bool>(values, "leader_creation_finns_japanese",
                                 {{"excluded", true}, {"included", false}},
                                 options.leader_creation_excludes_finns_japanese);
      !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = ParseChoice<int>(
          values, "dare_death_non_hth_drm",
          {{"-3", -3}, {"-2", -2}, {"-1", -1}, {"0", 0}, {"1", 1}, {"2", 2}, {"3", 3}},
          options.dare_death_non_hth_drm);
      !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = ParseChoice<bool>(values, "burning_wreck", {{"le", true}, {"lt", false}},
                                 options.burning_inclusive);
      !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = ParseChoice<bool>(values, "escort_drm_when_bu",
                                 {{"void", false}, {"applies", true}}, options.escort_drm_when_bu);
      !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = ParseChoice<bool>(values, "melee_withdrawal", {{"allowed", true}, {"none", false}},
                                 options.melee_withdrawal);
      !r) {
    return tl::unexpected(r.error());
  }
  if (auto it = values.find("sn_ift"); it != values.end()) {
    std::array<IftResult, 11> column;
    size_t count = 0;
    std::string_view rest = it->second;
    while (!rest.empty() || count == 0) {
      const size_t comma = rest.find(',');
      const std::optional<IftResult> item = ParseIftResult(rest.substr(0, comma));
      if (count >= column.size() || !item) {
        return Reject("", "option sn_ift: give 11 IFT results for DR 2..12, each Nkia, k/N, Nmc, "
                          "nmc, ptc or ne");
      }
      column[count++] = *item;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    if (count != column.size()) {
      return Reject("", "option sn_ift: give 11 IFT results for DR 2..12");
    }
    options.sn_ift = column;
    options.sn_ift_from_option = true;
  }
  static const std::set<std::string, std::less<>> kKnown = {"burning_wreck",
                                                            "escort_drm_when_bu",
                                                            "melee_withdrawal",
                                                            "sn_ift",
                                                            "declaration_order",
                                                            "optional_hth",
                                                            "sw_destruction",
                                                            "above_ten_to_one",
                                                            "leader_creation_finns_japanese",
                                                            "dare_death_non_hth_drm"};
  for (const auto& [key, value] : values) {
    if (!kKnown.contains(key)) {
      return Reject("", "unknown asl option '" + key.substr(0, 32) +
                            "' (known: declaration_order, optional_hth, sw_destruction, "
                            "above_ten_to_one, leader_creation_finns_japanese, "
                            "dare_death_non_hth_drm, burning_wreck, escort_drm_when_bu, "
                            "melee_withdrawal, sn_ift)");
    }
  }
  return options;
}

Result<void> ValidateSituation(const Situation& situation) {
  if (situation.units.size() > kMaxUnits) {
    return Reject("", "a Location holds at most " + std::to_string(kMaxUnits) + " units");
  }
  std::map<std::string_view, const Unit*> by_id;
  std::array<bool, 2> side_present = {false, false};
  for (const Unit& unit : situation.units) {
    if (unit.id.empty() || unit.id.size() > kMaxIdBytes) {
      return Reject("", "unit ids must be 1.." + std::to_string(kMaxIdBytes) + " bytes");
    }
    if (!by_id.emplace(unit.id, &unit).second) {
      return Reject("", "unit id " + unit.id + " is used twice");
    }
    if (unit.firepower < 0 || unit.firepower > kMaxFirepower || unit.reduced_firepower < -1 ||
        unit.reduced_firepower == 0 || unit.reduced_firepower > kMaxFirepower) {
      return Reject("",
                    "unit " + unit.id + ": firepower must be 0.." + std::to_string(kMaxFirepower));
    }
    if (unit.morale < 1 || unit.morale > 12) {
      return Reject("", "unit " + unit.id + ": morale must be 1..12");
    }
    if (unit.leadership < -5 || unit.leadership > 3) {
      return Reject("", "unit " + unit.id + ": leadership must be -5..3");
    }
    if (unit.wounds < 0 || unit.wounds > 1) {
      return Reject("A17.11", "unit " + unit.id + ": a SMC carries at most one wound");
    }
    if (unit.bpv < 0 || unit.bpv > 999) {
      return Reject("", "unit " + unit.id + ": bpv must be 0..999");
    }
    if (unit.support_weapons.size() > 8) {
      return Reject("", "unit " + unit.id + ": at most 8 support weapons");
    }
    if (unit.presence != Presence::kPresent) {
      return Reject("", "unit " + unit.id + ": only units present in the Location take part");
    }
    if (unit.kind != UnitKind::kLeader && unit.leadership != 0) {
      return Reject("A11.141", "unit " + unit.id + ": only a leader has a leadership DRM");
    }
    if (IsMmc(unit.kind) && unit.firepower == 0) {
      return Reject("", "unit " + unit.id + ": an MMC needs its printed firepower");
    }
    if (unit.kind == UnitKind::kDummy && !unit.concealed) {
      return Reject("A11.19", "unit " + unit.id + ": a Dummy is always under a \"?\"");
    }
    if (IsVehicle(unit)) {
      const VehicleFacts& v = unit.vehicle;
      if (unit.broken || unit.pinned || unit.cx || unit.concealed || unit.berserk ||
          unit.firepower != 0 || !unit.stacked_on.empty() || !unit.support_weapons.empty() ||
          unit.street_fighting != StreetFighting::kNone || unit.atmm || IsPrc(unit)) {
        return Reject("A11.5", "vehicle " + unit.id +
                                   ": a vehicle has no FP, Personnel status, SW or stacking of "
                                   "its own (give its MG FP, crew status and movement; a "
                                   "concealed vehicle is not supported)");
      }
      for (int fp : {v.cmg, v.rmg, v.aamg}) {
        if (fp < 0 || fp > kMaxFirepower) {
          return Reject("A11.62", "vehicle " + unit.id + ": MG FP must be 0..99");
        }
      }
      if (v.sn_usage < 0 || v.sn_usage > 12) {
        return Reject("A11.622", "vehicle " + unit.id + ": the sN Usage Number must be 0..12");
      }
      if (v.malfunctioned > (kCmg | kRmg | kAamg | kSn)) {
        return Reject("", "vehicle " + unit.id + ": unknown malfunctioned weapon bits");
      }
      if (v.unarmed && (v.cmg || v.rmg || v.aamg || v.bmg || v.sn_usage)) {
        return Reject("A11.52", "vehicle " + unit.id + " is unarmed but lists MG armament");
      }
    } else if (unit.vehicle != VehicleFacts{}) {
      return Reject("A11.5", "unit " + unit.id + " is not a vehicle but has vehicle facts");
    }
    if (unit.street_fighting != StreetFighting::kNone && !IsMmc(unit.kind) && !IsSmc(unit.kind)) {
      return Reject("A11.8", "unit " + unit.id + ": only Infantry Street Fight");
    }
    if (unit.kind != UnitKind::kDummy) side_present[unit.owner == Seat::kSideA ? 0 : 1] = true;
  }
  for (const Unit& unit : situation.units) {
    if (!IsPrc(unit)) continue;
    if (!unit.rider_of.empty() && !unit.passenger_of.empty()) {
      return Reject("A11.611", "unit " + unit.id + " cannot be both a Rider and a Passenger");
    }
    if (!IsMmc(unit.kind) && !IsSmc(unit.kind)) {
      return Reject("A11.611", "unit " + unit.id + ": only Personnel ride in or on a vehicle");
    }
    const std::string& carrier = unit.rider_of.empty() ? unit.passenger_of : unit.rider_of;
    auto it = by_id.find(carrier);
    if (it == by_id.end() || !IsVehicle(*it->second) || it->second->owner != unit.owner) {
      return Reject("A11.611", "unit " + unit.id + " rides " + carrier +
                                   ", which is not a friendly vehicle in the Location");
    }
    if (unit.concealed) {
      return Reject("A11.611", "PRC " + unit.id + " cannot be concealed apart from its vehicle");
    }
  }
  for (const Unit& unit : situation.units) {
    if (unit.stacked_on.empty()) continue;
    if (!IsSmc(unit.kind)) {
      return Reject("A11.14", "unit " + unit.id + ": only a SMC is stacked on an MMC");
    }
    auto it = by_id.find(unit.stacked_on);
    if (it == by_id.end() || !IsMmc(it->second->kind) || it->second->owner != unit.owner) {
      return Reject("A11.14", "SMC " + unit.id + " is stacked on " + unit.stacked_on +
                                  ", which is not a friendly MMC in the Location");
    }
    // A11.14: a Known SMC never defends with a concealed unit, or vice versa.
    if (unit.concealed != it->second->concealed) {
      return Reject("A11.14", "SMC " + unit.id + " and " + unit.stacked_on +
                                  " defend together, so both or neither must be concealed");
    }
  }
  if (!side_present[0] || !side_present[1]) {
    return Reject("A11.1", "CC needs real units of both sides in the Location");
  }
  for (int excess : situation.location.excess_squads) {
    if (excess < 0 || excess > 9) return Reject("A5.131", "excess squads must be 0..9");
  }
  return {};
}

}  // namespace melee::engine::asl
