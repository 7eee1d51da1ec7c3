#include "engine/vv/rules.h"

#include <algorithm>
#include <set>
#include <type_traits>
#include <utility>

#include "engine/core/check.h"
#include "engine/vv/internal.h"

namespace melee::engine::vv {
namespace internal {

std::optional<uint16_t> FindUnit(const State& state, std::string_view id) {
  for (size_t i = 0; i < state.units.size(); ++i) {
    if (state.units[i].id == id) return static_cast<uint16_t>(i);
  }
  return std::nullopt;
}

namespace {

std::vector<uint16_t> Defenders(const State& state, bool pinned) {
  std::vector<uint16_t> out;
  const Seat defender = Opponent(state.situation.attacker);
  for (size_t i = 0; i < state.units.size(); ++i) {
    const Unit& unit = state.units[i];
    if (unit.owner == defender && !state.eliminated[i] && state.in_target[i] &&
        unit.pinned == pinned) {
      out.push_back(static_cast<uint16_t>(i));
    }
  }
  return out;
}

}  // namespace

std::vector<uint16_t> UnpinnedDefenders(const State& state) { return Defenders(state, false); }
std::vector<uint16_t> PinnedDefenders(const State& state) { return Defenders(state, true); }

std::vector<uint16_t> PassengersOf(const State& state, uint16_t unit) {
  std::vector<uint16_t> out;
  for (size_t i = 0; i < state.units.size(); ++i) {
    if (!state.eliminated[i] && state.units[i].carrier == state.units[unit].id) {
      out.push_back(static_cast<uint16_t>(i));
    }
  }
  return out;
}

std::vector<uint16_t> Receivers(const State& state, Seat seat) {
  std::vector<uint16_t> out;
  if (seat == state.situation.attacker) {
    if (!state.declared[SeatIndex(seat)]) return out;
    for (const std::string& id : state.declared[SeatIndex(seat)]->group) {
      const auto unit = FindUnit(state, id);
      if (unit && !state.eliminated[*unit]) out.push_back(*unit);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  for (size_t i = 0; i < state.units.size(); ++i) {
    const Unit& unit = state.units[i];
    if (unit.owner != seat || state.eliminated[i] || !state.in_target[i]) continue;
    if (unit.kind == UnitKind::kGun && !unit.carrier.empty()) continue;  // 14.65
    out.push_back(static_cast<uint16_t>(i));
  }
  return out;
}

Contribution ContributionOf(const State& state, uint16_t index, const UnitUse* use) {
  const Unit& unit = state.units[index];
  Contribution c{.unit = index, .apfp = 0, .how = ""};
  switch (unit.kind) {
    case UnitKind::kAfv:
      c.apfp = unit.apfp;
      c.how = std::to_string(unit.apfp) + " MG";
      if (unit.main_gun_apfp > 0) c.how += " (main Gun's " + std::to_string(unit.main_gun_apfp) + " not used, 15.4)";
      return c;
    case UnitKind::kVehicle:
      if (unit.apfp > 0) {
        c.apfp = unit.apfp;
        c.how = std::to_string(unit.apfp) + " MG (15.4)";
      } else {
        c.apfp = 2;
        c.how = "2: unarmed vehicle (15.5)";
      }
      return c;
    case UnitKind::kGun:
      if (unit.carrier.empty()) {
        c.apfp = 2;
        c.how = "2: Gun (15.5)";
      } else {
        c.how = "0: transported Gun (15.5)";
      }
      return c;
    case UnitKind::kSquad:
    case UnitKind::kHalfSquad:
    case UnitKind::kLeader:
      break;
  }
  const int inherent = unit.valorous ? unit.apfp * 2 : unit.apfp;
  std::string inherent_how = std::to_string(unit.apfp) + " inherent";
  if (unit.valorous) inherent_how += " x2 valor (16.3)";
  const SupportWeapon* weapon = nullptr;
  if (use != nullptr && !use->weapon.empty()) {
    for (const SupportWeapon& w : unit.weapons) {
      if (w.id == use->weapon) weapon = &w;
    }
  }
  if (weapon == nullptr) {
    c.apfp = inherent;
    c.how = inherent_how;
  } else {
    const bool weapon_only = (unit.kind == UnitKind::kLeader) ||
                             (unit.kind == UnitKind::kHalfSquad && weapon->heavy);
    const std::string weapon_how = std::to_string(weapon->apfp) + " " + weapon->id;
    if (weapon_only) {
      c.apfp = weapon->apfp;
      c.how = weapon_how + " (weapon APFP only, 12.3)";
    } else {
      c.apfp = inherent + weapon->apfp;
      c.how = inherent_how + " + " + weapon_how;
    }
  }
  if (use != nullptr && use->satchel) {
    const int satchel = state.expendables[SeatIndex(unit.owner)].satchel_apfp;
    c.apfp += satchel;
    c.how += " + " + std::to_string(satchel) + " Satchel Charge (12.53)";
  }
  return c;
}

std::vector<Modifier> CoverParts(const State& state) {
  const TargetHex& hex = state.situation.target;
  std::vector<Modifier> parts;
  const auto add = [&](std::string rule, std::string what, int value) {
    if (value != 0) parts.push_back(Modifier{std::move(rule), std::move(what), value});
  };
  add("15.8", "cover of " + hex.name, hex.terrain_cover);
  add("15.8", "hexside crossed", hex.hexside_cover);
  if (state.options.cp_count_fortification) {
    add("15.8 (VV-AMB-5)", "fortification", hex.fortification_cover);
  }
  if (state.options.cp_count_hindrance) add("15.8 (VV-AMB-5)", "hindrance", hex.hindrance_cover);
  return parts;
}

int Sum(const std::vector<Modifier>& parts) {
  int total = 0;
  for (const Modifier& part : parts) total += part.value;
  return total;
}

std::vector<Modifier> AssaulterCpParts(const State& state, int margin) {
  std::vector<Modifier> parts;
  if (margin > 0) parts.push_back(Modifier{"15.8", "failed by", margin});
  for (Modifier& part : CoverParts(state)) parts.push_back(std::move(part));
  const int defenders = static_cast<int>(UnpinnedDefenders(state).size());
  if (defenders > 0) {
    parts.push_back(Modifier{"15.8 (VV-AMB-4)", "1 per defending unit", defenders});
  }
  if (state.situation.uphill_levels > 0) {
    parts.push_back(Modifier{"15.81", "uphill levels", state.situation.uphill_levels});
  }
  return parts;
}

std::optional<uint16_t> LeaderOf(const State& state, Seat seat, const Declare& declare) {
  if (state.options.edition == Edition::kBoard) {
    if (declare.leader.empty()) return std::nullopt;
    return FindUnit(state, declare.leader);
  }
  // pc: the best leader of the assaulting units / of the defending hex.
  std::vector<uint16_t> eligible;
  if (seat == state.situation.attacker) {
    for (const std::string& id : declare.group) {
      if (auto unit = FindUnit(state, id)) eligible.push_back(*unit);
    }
    std::sort(eligible.begin(), eligible.end());
  } else {
    eligible = UnpinnedDefenders(state);
  }
  std::optional<uint16_t> best;
  for (uint16_t unit : eligible) {
    const Unit& u = state.units[unit];
    if (u.kind != UnitKind::kLeader || u.leadership <= 0) continue;
    if (!best || u.leadership > state.units[*best].leadership) best = unit;
  }
  return best;
}

Assessment Assess(const State& state, const Declare& assaulter, const Declare& defender) {
  Assessment a;
  const Seat attacker = state.situation.attacker;
  const auto use_of = [](const Declare& declare, const std::string& id) -> const UnitUse* {
    for (const UnitUse& use : declare.uses) {
      if (use.unit == id) return &use;
    }
    return nullptr;
  };
  std::vector<uint16_t> group;
  for (const std::string& id : assaulter.group) {
    if (auto unit = FindUnit(state, id)) group.push_back(*unit);
  }
  std::sort(group.begin(), group.end());
  for (uint16_t unit : group) {
    a.assault.push_back(ContributionOf(state, unit, use_of(assaulter, state.units[unit].id)));
    a.assault_apfp += a.assault.back().apfp;
  }
  for (uint16_t unit : UnpinnedDefenders(state)) {
    a.defence.push_back(ContributionOf(state, unit, use_of(defender, state.units[unit].id)));
    a.defence_apfp += a.defence.back().apfp;
  }
  if (a.defence_apfp == 0) {
    a.odds = vv::Odds::k4to1;
    a.notes.push_back("15.6: the defenders have no APFP: resolved at 4-1");
  } else {
    a.odds = OddsOf(std::max(a.assault_apfp, 1), a.defence_apfp);
  }
  a.printed_kill_number = KillNumber(a.odds);
  const bool pc = state.options.edition == Edition::kPc;
  const std::string leader_rule = pc ? "15.3 (pc: best leader)" : "15.3";
  if (auto leader = LeaderOf(state, Opponent(attacker), defender)) {
    const Unit& u = state.units[*leader];
    a.leaders.push_back(*leader);
    a.kill_number_modifiers.push_back(Modifier{leader_rule, "leader " + u.id, -u.leadership});
  }
  const auto grenades = [](const Declare& declare) {
    return static_cast<int>(std::count_if(declare.uses.begin(), declare.uses.end(),
                                          [](const UnitUse& use) { return use.grenades; }));
  };
  if (const int g = grenades(defender); g > 0) {
    a.kill_number_modifiers.push_back(Modifier{"12.52", "defending Grenades", -g});
  }
  a.kill_number = a.printed_kill_number + Sum(a.kill_number_modifiers);
  if (auto leader = LeaderOf(state, attacker, assaulter)) {
    const Unit& u = state.units[*leader];
    a.leaders.push_back(*leader);
    a.dr_modifiers.push_back(Modifier{leader_rule, "leader " + u.id, -u.leadership});
  }
  if (const int g = grenades(assaulter); g > 0) {
    a.dr_modifiers.push_back(Modifier{"12.52", "Grenades", -g});
  }
  return a;
}

}  // namespace internal

namespace {

using internal::FindUnit;
using internal::SeatIndex;

// Checks one UnitUse of `seat` (15.2, 12.3, 12.52, 12.53, 15.4).
Result<void> CheckUse(const State& state, Seat seat, bool assaulting, const UnitUse& use,
                      const std::string& field) {
  const auto index = FindUnit(state, use.unit);
  if (!index) return Reject("", field + ".unit: no unit '" + use.unit + "'");
  const Unit& unit = state.units[*index];
  if (unit.owner != seat) return Reject("", field + ".unit: '" + use.unit + "' is not yours");
  if (!IsInfantry(unit.kind)) {
    if (!use.weapon.empty() || use.grenades || use.satchel) {
      return Reject("15.2", field + ": only infantry use support weapons, Grenades and Satchel "
                                    "Charges ('" + use.unit + "' is a " +
                                    std::string(Name(unit.kind)) + ")");
    }
    return {};
  }
  if (!use.weapon.empty()) {
    const auto weapon = std::find_if(unit.weapons.begin(), unit.weapons.end(),
                                     [&](const SupportWeapon& w) { return w.id == use.weapon; });
    if (weapon == unit.weapons.end()) {
      return Reject("12.3", field + ".weapon: '" + use.unit + "' carries no '" + use.weapon + "'");
    }
    const bool restricted = assaulting || !unit.carrier.empty();
    if (restricted && (weapon->heavy || !weapon->machine_gun)) {
      return Reject(assaulting ? "15.2" : "15.4",
                    field + ".weapon: " + std::string(assaulting ? "assaulting units" : "passengers") +
                        " may only use Light (L) machine guns, Grenades and Satchel Charges ('" +
                        use.weapon + "' is " + (weapon->heavy ? "Heavy (H)" : "not a machine gun") +
                        ")");
    }
    if (use.satchel) {
      return Reject("12.53", field + ": a unit using a Satchel Charge may not fire a support weapon");
    }
  }
  return {};
}

}  // namespace

Result<void> ValidateDeclaration(const State& state, Seat seat, const Declare& declare) {
  if (state.phase != Phase::kDeclare) {
    return Reject("", state.phase == Phase::kSetUp ? "the close assault is not set up yet"
                                                   : "declarations are over");
  }
  if (!state.owes[SeatIndex(seat)]) {
    return Reject("15.9", std::string(Name(seat)) +
                              " has nothing to declare: every defending unit is pinned");
  }
  if (state.declared[SeatIndex(seat)]) {
    return Reject("", std::string(Name(seat)) + " has already sealed its declaration");
  }
  const bool assaulting = seat == state.situation.attacker;
  std::set<std::string> group;
  if (assaulting) {
    for (size_t i = 0; i < declare.group.size(); ++i) {
      const std::string& id = declare.group[i];
      const std::string field = "declare.group[" + std::to_string(i) + "]";
      const auto index = FindUnit(state, id);
      if (!index) return Reject("", field + ": no unit '" + id + "'");
      const Unit& unit = state.units[*index];
      if (unit.owner != seat) return Reject("15.1", field + ": '" + id + "' is not yours");
      if (!IsInfantry(unit.kind)) {
        return Reject("15.1", field + ": only infantry units close assault ('" + id + "' is a " +
                                  std::string(Name(unit.kind)) + ")");
      }
      if (unit.advanced) {
        return Reject("15.1", field + ": '" + id +
                                  "' advanced this phase; only units that did not advance may "
                                  "close assault");
      }
      if (unit.pinned) {
        return Reject("14.7", field + ": '" + id + "' is pinned and unable to perform any action");
      }
      if (!unit.carrier.empty()) {
        return Reject("15.1", field + ": '" + id + "' is a passenger of '" + unit.carrier +
                                  "'; infantry assault from the hex, not from a vehicle");
      }
      if (!group.insert(id).second) return Reject("", field + ": '" + id + "' is named twice");
    }
  } else if (!declare.group.empty()) {
    return Reject("15.1", "declare.group: every unit in the target hex defends; the defender "
                          "names no group");
  }
  if (!declare.leader.empty()) {
    if (state.options.edition == Edition::kPc) {
      return Reject("15.3", "declare.leader: in the pc edition the best leader of each side is "
                            "chosen automatically; leave it empty");
    }
    const auto index = FindUnit(state, declare.leader);
    if (!index) return Reject("", "declare.leader: no unit '" + declare.leader + "'");
    const Unit& unit = state.units[*index];
    if (unit.owner != seat) return Reject("15.3", "declare.leader: '" + declare.leader + "' is not yours");
    if (unit.kind != UnitKind::kLeader) {
      return Reject("15.3", "declare.leader: '" + declare.leader + "' is not a leader");
    }
    if (assaulting && !group.contains(declare.leader)) {
      return Reject("15.3", "declare.leader: '" + declare.leader +
                                "' is not in the assault group (SPEC-NOTES B.3 step 8 default)");
    }
    if (!assaulting && (unit.pinned || !state.in_target[*index])) {
      return Reject("15.9", "declare.leader: '" + declare.leader +
                                "' is pinned and eliminated before the odds are calculated");
    }
  }
  int grenades = 0;
  int satchels = 0;
  std::set<std::string> used;
  for (size_t i = 0; i < declare.uses.size(); ++i) {
    const UnitUse& use = declare.uses[i];
    const std::string field = "declare.uses[" + std::to_string(i) + "]";
    if (!used.insert(use.unit).second) {
      return Reject("12.3", field + ".unit: '" + use.unit +
                                "' is named twice (a unit fires one support weapon, and uses one "
                                "Grenades counter and one Satchel Charge per attack)");
    }
    if (assaulting && !group.contains(use.unit)) {
      return Reject("15.1", field + ".unit: '" + use.unit + "' is not in the assault group");
    }
    if (auto ok = CheckUse(state, seat, assaulting, use, field); !ok) return ok;
    if (!assaulting) {
      const auto index = FindUnit(state, use.unit);
      if (state.units[*index].pinned) {
        return Reject("15.9", field + ".unit: '" + use.unit +
                                  "' is pinned and eliminated before the odds are calculated");
      }
    }
    grenades += use.grenades ? 1 : 0;
    satchels += use.satchel ? 1 : 0;
  }
  const Expendables& pool = state.expendables[SeatIndex(seat)];
  if (grenades > pool.grenades) {
    return Reject("12.5", "declare.uses: " + std::to_string(grenades) + " Grenades counters used, " +
                              std::string(Name(seat)) + " has " + std::to_string(pool.grenades));
  }
  if (grenades > state.options.grenades_per_assault_max) {
    return Reject("12.52", "declare.uses: " + std::to_string(grenades) +
                               " Grenades counters used; this match allows " +
                               std::to_string(state.options.grenades_per_assault_max) +
                               " per side per close assault (option grenades_per_assault_max, "
                               "VV-AMB-3)");
  }
  if (satchels > pool.satchel_charges) {
    return Reject("12.5", "declare.uses: " + std::to_string(satchels) + " Satchel Charges used, " +
                              std::string(Name(seat)) + " has " +
                              std::to_string(pool.satchel_charges));
  }
  if (assaulting && !group.empty()) {
    int apfp = 0;
    for (const std::string& id : group) {
      const UnitUse* use = nullptr;
      for (const UnitUse& u : declare.uses) {
        if (u.unit == id) use = &u;
      }
      apfp += internal::ContributionOf(state, *FindUnit(state, id), use).apfp;
    }
    if (apfp == 0) return Reject("15.6", "declare.group: the assault group has no APFP");
  }
  return {};
}

Declare DefaultDeclaration(const State& state, Seat seat) {
  Declare declare;
  if (seat == state.situation.attacker) return declare;  // the assault is called off
  std::optional<uint16_t> best_leader;
  for (uint16_t unit : internal::UnpinnedDefenders(state)) {
    const Unit& u = state.units[unit];
    if (u.kind == UnitKind::kLeader && u.leadership > 0 &&
        (!best_leader || u.leadership > state.units[*best_leader].leadership)) {
      best_leader = unit;
    }
    if (!IsInfantry(u.kind)) continue;
    int best = internal::ContributionOf(state, unit, nullptr).apfp;
    std::string weapon;
    for (const SupportWeapon& w : u.weapons) {
      const UnitUse use{.unit = u.id, .weapon = w.id, .grenades = false, .satchel = false};
      if (!CheckUse(state, seat, false, use, "")) continue;
      const int apfp = internal::ContributionOf(state, unit, &use).apfp;
      if (apfp > best) {
        best = apfp;
        weapon = w.id;
      }
    }
    if (!weapon.empty()) {
      declare.uses.push_back(UnitUse{.unit = u.id, .weapon = weapon, .grenades = false,
                                     .satchel = false});
    }
  }
  if (best_leader && state.options.edition == Edition::kBoard) {
    declare.leader = state.units[*best_leader].id;
  }
  return declare;
}

std::string_view UnitId(const State& state, size_t index) {
  return index < state.units.size() ? std::string_view(state.units[index].id) : "?";
}

std::string_view Name(CpActionKind kind) {
  switch (kind) {
    case CpActionKind::kIgnore:
      return "ignore";
    case CpActionKind::kPin:
      return "pin";
    case CpActionKind::kReduce:
      return "reduce";
    case CpActionKind::kReduceAndPin:
      return "reduce_and_pin";
    case CpActionKind::kEliminate:
      return "eliminate";
    case CpActionKind::kSurvivalRoll:
      return "survival_roll";
    case CpActionKind::kImmobilization:
      return "immobilization";
  }
  return "?";
}

std::unique_ptr<const Ruleset> MakeVvRuleset() {
  return std::make_unique<TypedRuleset<VvRules>>();
}

}  // namespace melee::engine::vv
