#include "engine/vv/model.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <set>
#include <utility>

#include "engine/core/check.h"

namespace melee::engine::vv {
namespace {

constexpr int kMaxApfp = 99;
constexpr int kMaxCasualtyRating = 20;
constexpr int kMaxLeadership = 3;
constexpr int kMaxCover = 9;
constexpr int kMaxUphillLevels = 4;
constexpr int kMaxGrenadesPerAssault = 16;
constexpr size_t kMaxUnits = 64;

Result<bool> ParseBool(const std::string& key, const std::string& value) {
  if (value == "true") return true;
  if (value == "false") return false;
  return Reject("", "option " + key + ": '" + value + "' is not true or false");
}

Result<void> InRange(const std::string& field, int value, int low, int high) {
  if (value < low || value > high) {
    return Reject("", field + ": " + std::to_string(value) + " is not in " + std::to_string(low) +
                          ".." + std::to_string(high));
  }
  return {};
}

}  // namespace

std::string_view Name(Edition edition) { return edition == Edition::kBoard ? "board" : "pc"; }

std::string_view Name(UnitKind kind) {
  switch (kind) {
    case UnitKind::kSquad:
      return "squad";
    case UnitKind::kHalfSquad:
      return "half_squad";
    case UnitKind::kLeader:
      return "leader";
    case UnitKind::kAfv:
      return "afv";
    case UnitKind::kVehicle:
      return "vehicle";
    case UnitKind::kGun:
      return "gun";
  }
  return "?";
}

bool IsInfantry(UnitKind kind) {
  return kind == UnitKind::kSquad || kind == UnitKind::kHalfSquad || kind == UnitKind::kLeader;
}

Result<Options> ParseOptions(const MatchOptions& match) {
  Options options;
  if (match.variant.empty() || match.variant == "board") {
    options.edition = Edition::kBoard;
  } else if (match.variant == "pc") {
    options.edition = Edition::kPc;
    options.one_assault_per_hex = false;  // VV-AMB-9: the PC text has no such limit
    options.afv_cp_cap = false;           // 15.10: the PC text has no 3-CP cap
  } else {
    return Reject("", "unknown vv variant '" + match.variant + "' (known: board, pc)");
  }
  for (const auto& [key, value] : match.values) {
    if (key == "declaration_order") {
      // Rule 15 names no order; both sides' choices are made at the same moment, so they are
      // sealed and revealed together.
      if (value == "sealed") continue;
      return Reject("15.6", "declaration_order '" + value +
                                "' is not supported for vv: both sides' declarations and "
                                "allocations are sealed and revealed together");
    }
    if (key == "grenades_per_assault_max") {
      int parsed = -1;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
      if (error != std::errc() || end != value.data() + value.size() || parsed < 0 ||
          parsed > kMaxGrenadesPerAssault) {
        return Reject("", "option grenades_per_assault_max: '" + value + "' is not 0..16");
      }
      options.grenades_per_assault_max = parsed;
      continue;
    }
    const std::array<std::pair<std::string_view, bool*>, 7> flags = {{
        {"cp_count_fortification", &options.cp_count_fortification},
        {"cp_count_hindrance", &options.cp_count_hindrance},
        {"advance_after_failed_wipeout", &options.advance_after_failed_wipeout},
        {"valor_check", &options.valor_check},
        {"sniper_check", &options.sniper_check},
        {"one_assault_per_hex", &options.one_assault_per_hex},
        {"afv_cp_cap", &options.afv_cp_cap},
    }};
    const auto flag = std::find_if(flags.begin(), flags.end(),
                                   [&key = key](const auto& entry) { return entry.first == key; });
    if (flag == flags.end()) {
      return Reject("", "unknown vv option '" + key +
                            "' (known: declaration_order, grenades_per_assault_max, "
                            "cp_count_fortification, "
                            "cp_count_hindrance, advance_after_failed_wipeout, valor_check, "
                            "sniper_check, one_assault_per_hex, afv_cp_cap)");
    }
    auto parsed = ParseBool(key, value);
    if (!parsed) return tl::unexpected(parsed.error());
    *flag->second = *parsed;
  }
  return options;
}

Result<void> ValidateSituation(const Situation& situation) {
  if (situation.units.size() > kMaxUnits) {
    return Reject("", "situation.units: at most " + std::to_string(kMaxUnits) + " units");
  }
  const TargetHex& hex = situation.target;
  for (const auto& [field, value] :
       {std::pair<std::string, int>{"target.terrain_cover", hex.terrain_cover},
        {"target.hexside_cover", hex.hexside_cover},
        {"target.fortification_cover", hex.fortification_cover},
        {"target.hindrance_cover", hex.hindrance_cover},
        {"target.capacity", hex.capacity}}) {
    if (auto ok = InRange("situation." + field, value, 0, kMaxCover); !ok) return ok;
  }
  if (auto ok = InRange("situation.uphill_levels", situation.uphill_levels, 0, kMaxUphillLevels);
      !ok) {
    return ok;
  }
  for (size_t side = 0; side < 2; ++side) {
    const Expendables& pool = situation.expendables[side];
    const std::string field = std::string("situation.expendables[") +
                              std::string(Name(side == 0 ? Seat::kSideA : Seat::kSideB)) + "]";
    if (auto ok = InRange(field + ".grenades", pool.grenades, 0, kMaxApfp); !ok) return ok;
    if (auto ok = InRange(field + ".satchel_charges", pool.satchel_charges, 0, kMaxApfp); !ok) {
      return ok;
    }
    if (auto ok = InRange(field + ".satchel_apfp", pool.satchel_apfp, 0, kMaxApfp); !ok) return ok;
  }
  std::set<std::string> ids;
  std::array<int, 2> per_side = {0, 0};
  for (size_t i = 0; i < situation.units.size(); ++i) {
    const Unit& unit = situation.units[i];
    const std::string field = "situation.units[" + std::to_string(i) + "]";
    if (unit.id.empty()) return Reject("", field + ".id: required");
    if (!ids.insert(unit.id).second) {
      return Reject("", field + ".id: '" + unit.id + "' is used twice");
    }
    ++per_side[unit.owner == Seat::kSideA ? 0 : 1];
    if (auto ok = InRange(field + ".apfp", unit.apfp, 0, kMaxApfp); !ok) return ok;
    if (auto ok = InRange(field + ".main_gun_apfp", unit.main_gun_apfp, 0, kMaxApfp); !ok) return ok;
    if (auto ok = InRange(field + ".casualty_rating", unit.casualty_rating, 0, kMaxCasualtyRating);
        !ok) {
      return ok;
    }
    if (auto ok = InRange(field + ".leadership", unit.leadership, 0, kMaxLeadership); !ok) return ok;
    if (unit.leadership != 0 && unit.kind != UnitKind::kLeader) {
      return Reject("15.3", field + ".leadership: only a leader has a Leadership Modifier");
    }
    if (unit.kind == UnitKind::kSquad) {
      if (auto ok = InRange(field + ".reduced_apfp", unit.reduced_apfp, 0, kMaxApfp); !ok) return ok;
      if (unit.reduced_casualty_rating < 1 ||
          unit.reduced_casualty_rating >= unit.casualty_rating) {
        return Reject("14.61", field +
                                   ".reduced_casualty_rating: a squad reduces to a half squad "
                                   "with a Casualty Rating from 1 to less than its own");
      }
    }
    if (unit.valorous && !IsInfantry(unit.kind)) {
      return Reject("16.1", field + ".valorous: valor applies to infantry units only");
    }
    if (unit.gun_shield_faces_assault && unit.kind != UnitKind::kGun) {
      return Reject("14.63", field + ".gun_shield_faces_assault: only a Gun has a Gun Shield");
    }
    if (unit.immobile && unit.kind != UnitKind::kAfv) {
      return Reject("15.10", field + ".immobile: only an AFV is marked Immobile here");
    }
    if ((unit.kind == UnitKind::kAfv || unit.kind == UnitKind::kVehicle) && !unit.weapons.empty()) {
      return Reject("15.4", field + ".weapons: a vehicle's machine guns are its apfp");
    }
    if (unit.kind == UnitKind::kLeader) {
      for (const SupportWeapon& weapon : unit.weapons) {
        if (weapon.heavy) {
          return Reject("12.3", field + ".weapons: a leader cannot use a Heavy (H) weapon (" +
                                    weapon.id + ")");
        }
      }
    }
    std::set<std::string> weapon_ids;
    for (size_t w = 0; w < unit.weapons.size(); ++w) {
      const SupportWeapon& weapon = unit.weapons[w];
      const std::string weapon_field = field + ".weapons[" + std::to_string(w) + "]";
      if (weapon.id.empty()) return Reject("", weapon_field + ".id: required");
      if (!weapon_ids.insert(weapon.id).second) {
        return Reject("", weapon_field + ".id: '" + weapon.id + "' is used twice");
      }
      if (auto ok = InRange(weapon_field + ".apfp", weapon.apfp, 0, kMaxApfp); !ok) return ok;
    }
  }
  for (size_t i = 0; i < situation.units.size(); ++i) {
    const Unit& unit = situation.units[i];
    if (unit.carrier.empty()) continue;
    const std::string field = "situation.units[" + std::to_string(i) + "].carrier";
    const auto carrier =
        std::find_if(situation.units.begin(), situation.units.end(),
                     [&](const Unit& other) { return other.id == unit.carrier; });
    if (carrier == situation.units.end()) {
      return Reject("", field + ": no unit '" + unit.carrier + "'");
    }
    if (carrier->kind != UnitKind::kAfv && carrier->kind != UnitKind::kVehicle) {
      return Reject("8", field + ": '" + unit.carrier + "' is not a vehicle");
    }
    if (carrier->owner != unit.owner) {
      return Reject("8", field + ": '" + unit.carrier + "' belongs to the other side");
    }
    if (!IsInfantry(unit.kind) && unit.kind != UnitKind::kGun) {
      return Reject("8", field + ": only infantry and Guns are carried");
    }
  }
  if (per_side[situation.attacker == Seat::kSideA ? 0 : 1] == 0) {
    return Reject("15.1", "situation.units: the assaulting side has no unit in the source hex");
  }
  if (per_side[situation.attacker == Seat::kSideA ? 1 : 0] == 0) {
    return Reject("15.1", "situation.units: a close assault is made against an enemy-occupied "
                          "hex; the defender has no unit in it");
  }
  return {};
}

std::string_view Name(Odds odds) {
  static constexpr std::array<std::string_view, 7> kNames = {"1-4", "1-3", "1-2", "1-1",
                                                             "2-1", "3-1", "4-1"};
  return kNames[static_cast<size_t>(odds)];
}

Odds OddsOf(int assault_apfp, int defence_apfp) {
  MELEE_CHECK(assault_apfp > 0 && defence_apfp > 0);
  if (assault_apfp >= defence_apfp) {
    const int n = std::min(assault_apfp / defence_apfp, 4);
    return static_cast<Odds>(static_cast<int>(Odds::k1to1) + n - 1);
  }
  const int m = std::min(defence_apfp / assault_apfp, 4);
  return static_cast<Odds>(static_cast<int>(Odds::k1to1) - (m - 1));
}

int KillNumber(Odds odds) {
  static constexpr std::array<int, 7> kKill = {3, 4, 5, 6, 8, 9, 10};
  return kKill[static_cast<size_t>(odds)];
}

}  // namespace melee::engine::vv
