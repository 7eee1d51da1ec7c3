#include "engine/asl/preview.h"

#include <algorithm>

#include "engine/asl/rules.h"

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
  const AttackPlan plan = PlanAttack(state.units, attackers, targets, order, context);

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
      LeaderCreationCheck(state.units, attackers, plan.column, state.options);
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
