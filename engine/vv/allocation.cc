// Casualty Points: checking a player's allocation (14.61-14.65, 15.10, VV-AMB-12) and making one
// (the pc edition and deadline defaults, VV-AMB-13).

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "engine/vv/internal.h"
#include "engine/vv/rules.h"

namespace melee::engine::vv {
namespace {

using internal::FindUnit;
using internal::SeatIndex;

constexpr int kUncapped = 1000;  // what an AFV without the 3-CP cap can absorb
constexpr int kLeaderWorth = 100;
constexpr size_t kMaxSearchNodes = 20000;  // ~20 ms at most; then Greedy()

bool CanIgnore(const Unit& unit) {
  return (IsInfantry(unit.kind) && unit.valorous) ||
         (unit.kind == UnitKind::kGun && unit.gun_shield_faces_assault && !unit.pinned);
}

// The infantry passengers of `vehicle` not acted on themselves in `allocation`.
int UntouchedPassengerCr(const State& state, uint16_t vehicle, const Allocation& allocation) {
  int total = 0;
  for (uint16_t passenger : internal::PassengersOf(state, vehicle)) {
    const Unit& p = state.units[passenger];
    if (!IsInfantry(p.kind)) continue;
    const bool acted = std::any_of(allocation.actions.begin(), allocation.actions.end(),
                                   [&](const CpAction& a) { return a.unit == p.id; });
    if (!acted) total += p.casualty_rating;
  }
  return total;
}

int ValueOf(const State& state, const CpAction& action, const Allocation& allocation) {
  const auto index = FindUnit(state, action.unit);
  if (!index) return 0;
  const Unit& unit = state.units[*index];
  switch (action.kind) {
    case CpActionKind::kIgnore:
    case CpActionKind::kPin:
      return 1;
    case CpActionKind::kReduce:
      return unit.casualty_rating - unit.reduced_casualty_rating;
    case CpActionKind::kReduceAndPin:
      return unit.casualty_rating - unit.reduced_casualty_rating + 1;
    case CpActionKind::kEliminate:
      if (IsInfantry(unit.kind)) return unit.casualty_rating;
      // 14.64: more CP than its CR eliminate a Gun or unarmored vehicle; a pinned one is
      // eliminated at its CR; its passengers' CR is added to the total fulfilled.
      return unit.casualty_rating + (unit.pinned ? 0 : 1) +
             UntouchedPassengerCr(state, *index, allocation);
    case CpActionKind::kSurvivalRoll:
    case CpActionKind::kImmobilization:
      return action.points;
  }
  return 0;
}

std::string Describe(const CpAction& action) {
  std::string text = std::string(Name(action.kind)) + " " + action.unit;
  if (action.points > 0) text += " (" + std::to_string(action.points) + " CP)";
  return text;
}

}  // namespace

int Fulfilled(const State& state, const Allocation& allocation) {
  int total = 0;
  for (const CpAction& action : allocation.actions) total += ValueOf(state, action, allocation);
  return total;
}

int Absorbable(const State& state, Seat seat) {
  int total = 0;
  bool ignore = false;
  for (uint16_t index : internal::Receivers(state, seat)) {
    const Unit& unit = state.units[index];
    ignore = ignore || CanIgnore(unit);
    switch (unit.kind) {
      case UnitKind::kSquad:
      case UnitKind::kHalfSquad:
      case UnitKind::kLeader:
        total += unit.casualty_rating;
        break;
      case UnitKind::kGun:
      case UnitKind::kVehicle:
        total += unit.casualty_rating + (unit.pinned ? 0 : 1);
        break;
      case UnitKind::kAfv:
        if (!unit.immobile) total += state.options.afv_cp_cap ? 3 : kUncapped;
        break;
    }
  }
  return total + (ignore ? 1 : 0);
}

namespace {

// ValidateAllocation without the phase: the rules of one allocation of state.cp[seat].
Result<void> CheckAllocation(const State& state, Seat seat, const Allocation& allocation) {
  const size_t me = SeatIndex(seat);
  const std::vector<uint16_t> receivers = internal::Receivers(state, seat);
  const bool assaulting = seat == state.situation.attacker;
  std::map<std::string, int> acted;  // non-ignore actions per unit
  std::optional<std::string> ignored;
  std::set<std::string> eliminated;
  for (size_t i = 0; i < allocation.actions.size(); ++i) {
    const CpAction& action = allocation.actions[i];
    const std::string field = "allocation.actions[" + std::to_string(i) + "]";
    const auto index = FindUnit(state, action.unit);
    if (!index || std::find(receivers.begin(), receivers.end(), *index) == receivers.end()) {
      return Reject("14.61", field + ".unit: '" + action.unit + "' cannot take these Casualty "
                                 "Points (" +
                                 (assaulting ? "not a surviving unit of the assault group"
                                             : "not a defending unit left in the hex") + ")");
    }
    const Unit& unit = state.units[*index];
    const bool passenger = !unit.carrier.empty();
    const bool takes_points = action.kind == CpActionKind::kSurvivalRoll ||
                              action.kind == CpActionKind::kImmobilization;
    if (!takes_points && action.points != 0) {
      return Reject("", field + ".points: only survival_roll and immobilization take points");
    }
    const auto refuse = [&](std::string rule, std::string why) {
      return Reject(std::move(rule), field + ": " + Describe(action) + ": " + std::move(why));
    };
    switch (action.kind) {
      case CpActionKind::kIgnore:
        if (!CanIgnore(unit)) {
          return refuse("14.63", "only a valorous infantry unit or a Gun whose Gun Shield faces "
                                 "the assault ignores the first Casualty Point");
        }
        if (ignored) return refuse("14.63", "only the first Casualty Point is ignored");
        ignored = unit.id;
        continue;
      case CpActionKind::kPin:
        if (unit.pinned) return refuse("14.62", "it is already pinned: it can only be eliminated");
        if (passenger) return refuse("14.65", "passengers may not be pinned, only reduced or eliminated");
        if (unit.kind == UnitKind::kAfv) {
          return refuse("15.10", "Casualty Points go to an AFV as an immobilization roll");
        }
        break;
      case CpActionKind::kReduce:
      case CpActionKind::kReduceAndPin:
        if (unit.kind != UnitKind::kSquad) return refuse("14.61", "only a squad is reduced");
        if (unit.pinned) return refuse("14.62", "pinned units may not be reduced");
        if (action.kind == CpActionKind::kReduceAndPin && passenger) {
          return refuse("14.65", "passengers may not be pinned, only reduced or eliminated");
        }
        break;
      case CpActionKind::kEliminate:
        if (unit.kind == UnitKind::kAfv) {
          return refuse("15.10", "Casualty Points go to an AFV as an immobilization roll");
        }
        eliminated.insert(unit.id);
        break;
      case CpActionKind::kSurvivalRoll:
        if (unit.kind != UnitKind::kGun && unit.kind != UnitKind::kVehicle) {
          return refuse("14.64", "only a Gun or an unarmored vehicle makes a survival roll");
        }
        if (unit.pinned) {
          return refuse("14.64", "a pinned vehicle or Gun makes no survival roll: it is "
                                 "eliminated at its Casualty Rating");
        }
        if (action.points < 2 || action.points > unit.casualty_rating) {
          return refuse("14.64", "a survival roll takes 2 up to its Casualty Rating (" +
                                     std::to_string(unit.casualty_rating) +
                                     ") points; 1 pins it, more eliminate it");
        }
        break;
      case CpActionKind::kImmobilization: {
        if (unit.kind != UnitKind::kAfv) return refuse("15.10", "only an AFV is immobilized");
        if (unit.immobile) return refuse("15.10", "it is already Immobile");
        const int cap = state.options.afv_cp_cap ? 3 : kUncapped;
        if (action.points < 1 || action.points > cap) {
          return refuse("15.10", "an AFV takes 1 to " + std::to_string(cap) +
                                     " Casualty Points (option afv_cp_cap)");
        }
        break;
      }
    }
    if (++acted[unit.id] > 1) {
      return refuse("14.61", "a unit is pinned, reduced (and then pinned), or eliminated: one "
                             "action per unit (a unit may never be pinned and then eliminated)");
    }
  }
  const int cp = state.cp[me];
  if (ignored && cp > 1 && !acted.contains(*ignored)) {
    return Reject("14.63", "allocation: after its first Casualty Point is ignored, the next must "
                           "go to '" + *ignored + "' (pin, reduce or eliminate) before any other "
                           "unit");
  }
  // 14.62: unpinned units absorb Casualty Points before pinned ones.
  bool touches_pinned = false;
  for (const CpAction& action : allocation.actions) {
    touches_pinned = touches_pinned || state.units[*FindUnit(state, action.unit)].pinned;
  }
  if (touches_pinned) {
    for (uint16_t index : receivers) {
      const Unit& unit = state.units[index];
      if (!unit.pinned && unit.kind != UnitKind::kAfv && !eliminated.contains(unit.id)) {
        return Reject("14.62", "allocation: Casualty Points go to unpinned units ('" + unit.id +
                                   "') before pinned ones");
      }
    }
  }
  const int target = std::min(cp, Absorbable(state, seat));
  const int fulfilled = Fulfilled(state, allocation);
  if (fulfilled < target) {
    return Reject("14.61", "allocation: fulfils " + std::to_string(fulfilled) + " of the " +
                               std::to_string(target) +
                               " Casualty Points; pin, reduce or eliminate units until they are "
                               "equalled or exceeded");
  }
  // VV-AMB-12: stop once the total is equalled or exceeded.
  for (const CpAction& action : allocation.actions) {
    const int value = ValueOf(state, action, allocation);
    if (fulfilled - value >= target) {
      return Reject("14.61", "allocation: the Casualty Points are fulfilled without " +
                                 Describe(action) +
                                 "; stop once they are equalled or exceeded (VV-AMB-12)");
    }
    const bool extra_point =
        action.kind == CpActionKind::kReduceAndPin ||
        (action.kind == CpActionKind::kSurvivalRoll && action.points > 2) ||
        (action.kind == CpActionKind::kImmobilization && action.points > 1);
    if (extra_point && fulfilled - 1 >= target) {
      return Reject("14.61", "allocation: " + Describe(action) + " gives more than the " +
                                 std::to_string(target) +
                                 " Casualty Points need (VV-AMB-12)");
    }
  }
  // Who moves into a hex that holds fewer units than the group (20.5).
  if (!allocation.occupy.empty()) {
    if (!assaulting) return Reject("15.8", "allocation.occupy: only the assaulter moves in");
    const int capacity = state.situation.target.capacity;
    if (capacity == 0) {
      return Reject("15.8", "allocation.occupy: " + state.situation.target.name +
                                " has no capacity limit; every surviving assaulter moves in");
    }
    std::set<std::string> movers;
    for (const std::string& id : allocation.occupy) {
      const auto index = FindUnit(state, id);
      if (!index || std::find(receivers.begin(), receivers.end(), *index) == receivers.end() ||
          eliminated.contains(id)) {
        return Reject("15.8", "allocation.occupy: '" + id + "' is not a surviving assaulter");
      }
      if (!movers.insert(id).second) return Reject("", "allocation.occupy: '" + id + "' twice");
    }
    const size_t survivors = receivers.size() - eliminated.size();
    const size_t expected = std::min(survivors, static_cast<size_t>(capacity));
    if (movers.size() != expected) {
      return Reject("20.5", "allocation.occupy: name " + std::to_string(expected) +
                                " surviving assaulters (the hex holds " + std::to_string(capacity) +
                                ")");
    }
  }
  return {};
}

}  // namespace

Result<void> ValidateAllocation(const State& state, Seat seat, const Allocation& allocation) {
  if (state.phase != Phase::kAllocate) {
    return Reject("14.61", "no Casualty Points are waiting to be applied");
  }
  const size_t me = SeatIndex(seat);
  if (!state.owes[me]) {
    return Reject("14.61", state.allocated[me]
                               ? std::string(Name(seat)) + " has already sealed its allocation"
                               : std::string(Name(seat)) + " suffers no Casualty Points");
  }
  return CheckAllocation(state, seat, allocation);
}

namespace {

int Worth(const Unit& unit) {
  int weapons = 0;
  for (const SupportWeapon& weapon : unit.weapons) weapons = std::max(weapons, weapon.apfp);
  int worth = unit.apfp + weapons;
  if (unit.kind == UnitKind::kAfv) worth += unit.main_gun_apfp;
  if (unit.kind == UnitKind::kVehicle || unit.kind == UnitKind::kGun) worth = std::max(worth, 2);
  if (unit.kind == UnitKind::kLeader) worth += kLeaderWorth;
  return worth;
}

int CostOf(const Unit& unit, const CpAction& action) {
  const int worth = Worth(unit);
  switch (action.kind) {
    case CpActionKind::kIgnore:
      return 0;
    case CpActionKind::kPin:
      return worth;
    case CpActionKind::kReduce:
      return 3 * (unit.apfp - unit.reduced_apfp) + 1;
    case CpActionKind::kReduceAndPin:
      return 3 * (unit.apfp - unit.reduced_apfp) + 1 + (worth - unit.apfp + unit.reduced_apfp);
    case CpActionKind::kEliminate:
      return 4 * worth + 4;
    case CpActionKind::kSurvivalRoll:
    case CpActionKind::kImmobilization:
      return 2 * worth + action.points;
  }
  return 0;
}

// The actions one unit may take in an allocation, cheapest idea first; the search tries each.
std::vector<CpAction> OptionsFor(const State& state, const Unit& unit) {
  std::vector<CpAction> options;
  const auto add = [&](CpActionKind kind, int points) {
    options.push_back(CpAction{.unit = unit.id, .kind = kind, .points = points});
  };
  const bool passenger = !unit.carrier.empty();
  switch (unit.kind) {
    case UnitKind::kSquad:
      if (!unit.pinned) {
        if (!passenger) add(CpActionKind::kPin, 0);
        add(CpActionKind::kReduce, 0);
        if (!passenger) add(CpActionKind::kReduceAndPin, 0);
      }
      add(CpActionKind::kEliminate, 0);
      break;
    case UnitKind::kHalfSquad:
    case UnitKind::kLeader:
      if (!unit.pinned && !passenger) add(CpActionKind::kPin, 0);
      add(CpActionKind::kEliminate, 0);
      break;
    case UnitKind::kGun:
    case UnitKind::kVehicle:
      if (!unit.pinned) {
        add(CpActionKind::kPin, 0);
        for (int points = 2; points <= unit.casualty_rating; ++points) {
          add(CpActionKind::kSurvivalRoll, points);
        }
      }
      add(CpActionKind::kEliminate, 0);
      break;
    case UnitKind::kAfv:
      if (!unit.immobile) {
        const int cap = state.options.afv_cp_cap ? 3 : std::max(1, state.cp[0] + state.cp[1]);
        for (int points = 1; points <= cap; ++points) add(CpActionKind::kImmobilization, points);
      }
      break;
  }
  return options;
}

class Search {
 public:
  Search(const State& state, Seat seat) : state_(state), seat_(seat) {
    for (uint16_t index : internal::Receivers(state, seat)) {
      units_.push_back(index);
      options_.push_back(OptionsFor(state, state.units[index]));
    }
    target_ = std::min(state.cp[SeatIndex(seat)], Absorbable(state, seat));
  }

  Allocation Run() {
    nodes_ = 0;
    // A valorous unit (or a facing Gun Shield) ignores the first CP for free (14.63).
    for (uint16_t index : units_) {
      if (CanIgnore(state_.units[index])) {
        current_.actions.push_back(
            CpAction{.unit = state_.units[index].id, .kind = CpActionKind::kIgnore, .points = 0});
        break;
      }
    }
    Visit(0, 0);
    if (best_) return *best_;
    current_.actions.clear();
    nodes_ = 0;
    Visit(0, 0);  // without the ignore, in case it made no legal allocation
    return best_ ? *best_ : Greedy();
  }

  // When the search gives up (a very large stack): eliminate the least valuable units in turn
  // (an AFV takes what it can), then drop every action the total does not need.
  Allocation Greedy() const {
    std::vector<uint16_t> order = units_;
    std::stable_sort(order.begin(), order.end(), [&](uint16_t a, uint16_t b) {
      return Worth(state_.units[a]) < Worth(state_.units[b]);
    });
    Allocation allocation;
    for (uint16_t index : order) {
      const int need = target_ - Fulfilled(state_, allocation);
      if (need <= 0) break;
      const Unit& unit = state_.units[index];
      if (unit.kind == UnitKind::kAfv) {
        if (unit.immobile) continue;
        const int cap = state_.options.afv_cp_cap ? 3 : need;
        allocation.actions.push_back(CpAction{.unit = unit.id,
                                              .kind = CpActionKind::kImmobilization,
                                              .points = std::min(need, cap)});
      } else {
        allocation.actions.push_back(
            CpAction{.unit = unit.id, .kind = CpActionKind::kEliminate, .points = 0});
      }
    }
    for (size_t i = 0; i < allocation.actions.size();) {
      Allocation without = allocation;
      without.actions.erase(without.actions.begin() + static_cast<std::ptrdiff_t>(i));
      if (Fulfilled(state_, without) >= target_) {
        allocation = std::move(without);
      } else {
        ++i;
      }
    }
    return allocation;
  }

 private:
  void Visit(size_t next, int cost) {
    if (++nodes_ > kMaxSearchNodes || cost >= best_cost_) return;
    const int fulfilled = Fulfilled(state_, current_);
    if (fulfilled >= target_ || next == units_.size()) {
      if (CheckAllocation(state_, seat_, current_)) {
        best_ = current_;
        best_cost_ = cost;
      }
      return;
    }
    for (const CpAction& option : options_[next]) {
      current_.actions.push_back(option);
      Visit(next + 1, cost + CostOf(state_.units[units_[next]], option));
      current_.actions.pop_back();
    }
    Visit(next + 1, cost);
  }

  const State& state_;
  Seat seat_;
  std::vector<uint16_t> units_;
  std::vector<std::vector<CpAction>> options_;
  int target_ = 0;
  Allocation current_;
  std::optional<Allocation> best_;
  int best_cost_ = std::numeric_limits<int>::max();
  size_t nodes_ = 0;
};

}  // namespace

Allocation AutoAllocation(const State& state, Seat seat) { return Search(state, seat).Run(); }

}  // namespace melee::engine::vv
