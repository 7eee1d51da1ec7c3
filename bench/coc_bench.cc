// Micro-benchmarks of the coc ruleset: one whole Close Combat (rule 17's "In action", to the
// end, with the engine's placements), the 17.3 dice table, the exact preview of a round.
// Run: build/bench/engine_bench --benchmark_filter=Coc --benchmark_min_time=1

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "engine/coc/rules.h"

namespace melee::engine::coc {
namespace {

Team MakeTeam(std::string id, int figures, int smgs = 0, int lmgs = 0) {
  Team team;
  team.id = std::move(id);
  team.figures = figures;
  team.smgs = smgs;
  team.lmgs = lmgs;
  return team;
}

Leader Junior(std::string id, LeaderStatus status, bool smg, std::string team = "") {
  Leader leader;
  leader.id = std::move(id);
  leader.status = status;
  leader.smg = smg;
  leader.team = std::move(team);
  return leader;
}

// Rule 17's "In action" (CoC-T1).
Script InAction() {
  Script script;
  Unit soviet;
  soviet.id = "soviet_smg";
  soviet.side = Seat::kSideA;
  soviet.role = Role::kAttacker;
  soviet.teams = {MakeTeam("soviet_team", 7, 7)};
  soviet.leaders = {Junior("soviet_jl", LeaderStatus::kActive, true)};
  soviet.movement_dice = 1;
  soviet.through_arcs = {"german_lmg"};
  Unit german;
  german.id = "german_squad";
  german.side = Seat::kSideB;
  german.role = Role::kDefender;
  german.teams = {MakeTeam("german_lmg", 3, 0, 1), MakeTeam("german_rifles", 5)};
  german.leaders = {Junior("german_jl", LeaderStatus::kWounded, false, "german_lmg")};
  script.situation.attacker = Seat::kSideA;
  script.situation.position = Position::kBuildingFromOutside;
  script.situation.force_morale = {9, 9};
  script.situation.units = {soviet, german};
  return script;
}

// The whole contact: set-up, both seals, reveal, every round to the end with the engine's
// placements of odd hits, every event built and applied.
void BM_CocPlayInAction(benchmark::State& state) {
  const Script script = InAction();
  const CocRules rules;
  uint64_t seed = 0;
  for (auto _ : state) {
    SplitMix64 bits(++seed);
    SourceDice dice(bits);
    auto played = Play(rules, script, dice);
    benchmark::DoNotOptimize(played);
  }
}
BENCHMARK(BM_CocPlayInAction);

// One side's 17.3 table, row by row.
void BM_CocCombatDice(benchmark::State& state) {
  const Script script = InAction();
  const CocRules rules;
  State set_up = *rules.NewState({});
  ScriptedDice none({});
  const auto events = rules.Decide(set_up, Seat::kSideA, SetUp{script.situation}, none);
  for (const Event& event : *events) rules.Apply(set_up, event);
  for (auto _ : state) {
    Pool pool = CombatDice(set_up, Seat::kSideB, {0}, {}, 1);
    benchmark::DoNotOptimize(pool);
  }
}
BENCHMARK(BM_CocCombatDice);

// The exact margin distribution of `range(0)` dice against as many (computed, not sampled).
void BM_CocPreviewPools(benchmark::State& state) {
  const int dice = static_cast<int>(state.range(0));
  for (auto _ : state) {
    auto preview = PreviewPools(dice, dice);
    benchmark::DoNotOptimize(preview);
  }
}
BENCHMARK(BM_CocPreviewPools)->Arg(13)->Arg(40);

}  // namespace
}  // namespace melee::engine::coc
