#include "engine/asl/preview.h"

#include <algorithm>

#include "engine/asl/rules.h"
#include "engine/asl/vehicle.h"

namespace melee::engine::asl {
namespace {

constexpr size_t kMaxPreviewTargets = 12;

// Accumulates one attack's exact outcome probabilities.
class Tally {
 public:
  Tally(std::span<const Unit> units, std::span<const uint16_t> targets, bool capture,
        OutcomeTable& table)
      : units_(units), targets_(targets), capture_(capture), table_(table) {}

  // Adds the outcomes of Original DR `total` under `plan`, which happens with `weight`.
  void Add(const AttackPlan& plan, int total, const Rational& weight) {
    const int common = Total(plan.common);
    std::vector<size_t> partial;
    bool all_killed = true;
    for (size_t t = 0; t < targets_.size(); ++t) {
      const int final_dr = total + common + Total(plan.per_target[t]);
      if (final_dr < plan.kill_number) {
        (capture_ ? table_.targets[t].captured : table_.targets[t].eliminated) += weight;
      } else if (final_dr == plan.kill_number) {
        partial.push_back(t);
      } else {
        table_.targets[t].no_effect += weight;
        all_killed = false;
      }
    }
    if (partial.empty()) {
      if (all_killed) table_.all_eliminated += weight;
      return;
    }
    const auto n = static_cast<int64_t>(partial.size());
    if (capture_) {
      // A20.22: the defender picks one of the set; counted as each equally likely.
      for (size_t t : partial) {
        table_.targets[t].captured += weight * Rational(1, n);
        table_.targets[t].no_effect += weight * Rational(n - 1, n);
      }
      if (all_killed && n == 1) table_.all_eliminated += weight;
      return;
    }
    // A.9: each unit of the set is selected when its dr is the highest (ties all): probability
    // sum over v of (1/6) (v/6)^(n-1); all of them when every dr is equal: 1/6^(n-1).
    Rational selected = 0;
    for (int64_t v = 1; v <= 6; ++v) {
      Rational term(1, 6);
      for (int64_t k = 1; k < n; ++k) term *= Rational(v, 6);
      selected += term;
    }
    Rational all_selected = 1;
    for (int64_t k = 1; k < n; ++k) all_selected *= Rational(1, 6);
    Rational all_removed = all_selected;
    for (size_t t : partial) {
      const Unit& unit = units_[targets_[t]];
      TargetOdds& odds = table_.targets[t];
      odds.no_effect += weight * (Rational(1) - selected);
      const Rational hit = weight * selected;
      switch (unit.kind) {
        case UnitKind::kSquad:
          odds.reduced += hit;
          all_removed = 0;
          break;
        case UnitKind::kHalfSquad:
        case UnitKind::kCrew:
        case UnitKind::kDummy:
          odds.eliminated += hit;
          break;
        case UnitKind::kLeader:
        case UnitKind::kHero:
        case UnitKind::kOtherSmc: {
          int mortal = 0;
          for (int dr = 1; dr <= 6; ++dr) mortal += IsMortalWound(dr, unit.wounds) ? 1 : 0;
          odds.eliminated += hit * Rational(mortal, 6);
          odds.wounded += hit * Rational(6 - mortal, 6);
          all_removed *= Rational(mortal, 6);
          break;
        }
        case UnitKind::kVehicle:  // Attacks on vehicles are tallied by PreviewOnVehicle.
          break;
      }
    }
    if (all_killed) table_.all_eliminated += weight * all_removed;
  }

 private:
  std::span<const Unit> units_;
  std::span<const uint16_t> targets_;
  bool capture_;
  OutcomeTable& table_;
};

// A11.5 / A11.501 / C13.7: the exact odds of an Infantry attack on `vehicle`.
OutcomeTable PreviewOnVehicle(const State& state, const std::vector<uint16_t>& attackers,
                              uint16_t vehicle, const AttackOrder& order,
                              const AttackContext& context) {
  std::optional<uint16_t> atmm_unit;
  for (uint16_t i : attackers) {
    if (!order.atmm.empty() && state.units[i].id == order.atmm) atmm_unit = i;
  }
  const AttackPlan shown = PlanAttackOnVehicle(state.units, attackers, vehicle, order, context,
                                               false);
  OutcomeTable table;
  table.vs_vehicle = true;
  table.kill_number = shown.kill_number;
  table.drms = shown.common;
  if (shown.director) table.director = state.units[*shown.director].id;
  TargetOdds odds;
  odds.unit = state.units[vehicle].id;
  odds.final_dr_offset = Total(shown.common);
  const VehicleFacts& v = state.units[vehicle].vehicle;
  table.original_two = Rational(1, 36);
  table.original_twelve = Rational(1, 36);
  if (!v.abandoned && !v.shocked && !v.stunned) table.crew_small_arms = Rational(1, 36);
  // Each ATMM dr (or none) gives its own plan: success -3, a 6 pins the unit (CCV -1).
  const int atmm_rolls = atmm_unit ? 6 : 1;
  for (int atmm_dr = 1; atmm_dr <= atmm_rolls; ++atmm_dr) {
    const Rational atmm_weight(1, atmm_rolls);
    std::vector<Unit> units = state.units;
    bool success = false;
    if (atmm_unit) {
      const int final_dr = atmm_dr + Total(AtmmDrms(units[*atmm_unit], units[vehicle]));
      const AtmmResult result = AtmmResultOf(final_dr);
      success = result == AtmmResult::kSuccess;
      if (success) table.atmm_success += atmm_weight;
      if (result == AtmmResult::kPinned) units[*atmm_unit].pinned = true;
    }
    const AttackPlan plan =
        PlanAttackOnVehicle(units, attackers, vehicle, order, context, success);
    for (int total = 2; total <= 12; ++total) {
      const Rational weight = atmm_weight * Rational(6 - std::abs(total - 7), 36);
      const VehicleResult base = VehicleResultOf(total + Total(plan.common), plan.kill_number,
                                                 state.options.burning_inclusive);
      for (int kill_dr = 1; kill_dr <= (total == 2 ? 6 : 1); ++kill_dr) {
        const Rational branch = total == 2 ? weight * Rational(1, 6) : weight;
        const VehicleResult result =
            total == 2 ? std::max(base, UnlikelyKillResult(kill_dr)) : base;
        switch (result) {
          case VehicleResult::kNoEffect:
            odds.no_effect += branch;
            break;
          case VehicleResult::kImmobilized:
            odds.immobilized += branch;
            break;
          case VehicleResult::kEliminated:
            odds.eliminated += branch;
            table.all_eliminated += branch;
            break;
          case VehicleResult::kBurning:
            odds.burning += branch;
            table.all_eliminated += branch;
            break;
        }
      }
    }
  }
  table.targets.push_back(std::move(odds));
  return table;
}

}  // namespace

Result<OutcomeTable> Preview(const State& state, Seat seat, const AttackOrder& order) {
  if (state.phase != Phase::kDeclare) {
    return Reject("", "a preview needs the Location at designation (after both announcements)");
  }
  // Exact odds of a Random Selection among n units need 6^n in 64 bits.
  if (order.targets.size() > kMaxPreviewTargets) {
    return Reject("", "not supported: a preview of an attack on more than " +
                          std::to_string(kMaxPreviewTargets) +
                          " units (its exact odds do not fit in 64 bits); declare it to play it");
  }
  Seal seal;
  seal.attacks.push_back(order);
  if (Result<void> legal = ValidateDeclaration(state, seat, seal); !legal) {
    return tl::unexpected(legal.error());
  }
  auto indices = [&](const std::vector<std::string>& ids) {
    std::vector<uint16_t> out;
    for (const std::string& id : ids) {
      for (size_t i = 0; i < state.units.size(); ++i) {
        if (state.units[i].id == id) out.push_back(static_cast<uint16_t>(i));
      }
    }
    return out;
  };
  const std::vector<uint16_t> attackers = indices(order.attackers);
  const std::vector<uint16_t> targets = indices(order.targets);
  const AttackContext context{.hth = state.hth,
                              .ambusher = state.ambusher,
                              .excess_squads = state.location.excess_squads,
                              .options = &state.options,
                              .withdrawing = &state.withdrawing,
                              .strength = {}};
  if (IsVehicle(state.units[attackers[0]]) && IsCloseDefense(order)) {
    // A11.622: the IFT result of each Original DR up to the Usage Number; above it, no effect.
    OutcomeTable table;
    table.close_defense = true;
    table.attack_strength = Rational(16);
    table.original_two = Rational(1, 36);
    table.original_twelve = Rational(1, 36);
    const int usage = state.units[attackers[0]].vehicle.sn_usage;
    for (int total = 2; total <= 12; ++total) {
      const Rational weight(6 - std::abs(total - 7), 36);
      const std::string result = total <= usage ? Name(state.options.sn_ift[total - 2]) : "NE";
      auto it = std::find_if(table.ift_results.begin(), table.ift_results.end(),
                             [&](const auto& entry) { return entry.first == result; });
      if (it == table.ift_results.end()) {
        table.ift_results.emplace_back(result, weight);
      } else {
        it->second += weight;
      }
    }
    return table;
  }
  if (!targets.empty() && IsVehicle(state.units[targets[0]])) {
    return PreviewOnVehicle(state, attackers, targets[0], order, context);
  }
  const bool by_vehicle = IsVehicle(state.units[attackers[0]]);
  const uint8_t weapons = WeaponBits(order.weapons);
  const AttackPlan plan =
      by_vehicle ? PlanVehicleFire(state.units, attackers[0], weapons, targets, order, context)
                 : PlanAttack(state.units, attackers, targets, order, context);

  OutcomeTable table;
  table.attack_strength = plan.attack_strength;
  table.defence_strength = plan.defence_strength;
  table.column = plan.column;
  table.kill_number = plan.kill_number;
  table.drms = plan.common;
  table.halvings = plan.halvings;
  if (plan.director) table.director = state.units[*plan.director].id;
  for (size_t t = 0; t < targets.size(); ++t) {
    TargetOdds odds;
    odds.unit = state.units[targets[t]].id;
    odds.final_dr_offset = Total(plan.common) + Total(plan.per_target[t]);
    table.targets.push_back(std::move(odds));
  }
  table.original_two = Rational(1, 36);
  table.original_twelve = Rational(1, 36);

  Tally tally(state.units, targets, order.capture, table);
  const std::optional<CreationCheck> check =
      by_vehicle ? std::nullopt
                 : LeaderCreationCheck(state.units, attackers, plan.column, state.options);
  for (int colored = 1; colored <= 6; ++colored) {
    for (int white = 1; white <= 6; ++white) {
      const int total = colored + white;
      const Rational weight(1, 36);
      if (total != 2 || !check) {
        tally.Add(plan, total, weight);
        continue;
      }
      // A18.12: on an Original 2 the attack is re-figured with the leader it may create.
      for (int dr = 1; dr <= 6; ++dr) {
        const Rational branch = weight * Rational(1, 6);
        const std::string_view rank = CreatedLeader(dr + Total(check->drms));
        if (rank.empty()) {
          tally.Add(plan, total, branch);
          continue;
        }
        table.leader_created += branch;
        std::vector<Unit> units = state.units;
        const Unit& mmc = state.units[check->base];
        units.push_back(CreatedLeaderUnit(state.units, mmc, mmc, rank));
        std::vector<uint16_t> refigured = attackers;
        refigured.push_back(static_cast<uint16_t>(units.size() - 1));
        AttackOrder with_leader = order;
        if (plan.director) {
          with_leader.director = state.units[*plan.director].id;
        } else {
          with_leader.director = units.back().id;
          with_leader.decline_leadership = false;
        }
        tally.Add(PlanAttack(units, refigured, targets, with_leader, context), total, branch);
      }
    }
  }
  return table;
}

}  // namespace melee::engine::asl
