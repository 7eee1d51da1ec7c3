// Micro-benchmarks of the vv ruleset: one whole close assault, the exact preview, the engine's
// own Casualty Point allocation (the pc edition and deadline defaults).
// Run: build/bench/engine_bench --benchmark_filter=Vv --benchmark_min_time=1

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "engine/vv/rules.h"

namespace melee::engine::vv {
namespace {

Unit Counter(std::string id, Seat owner, UnitKind kind, int apfp, int cr, int lm = 0) {
  Unit unit;
  unit.id = std::move(id);
  unit.owner = owner;
  unit.kind = kind;
  unit.apfp = apfp;
  unit.casualty_rating = cr;
  unit.leadership = lm;
  if (kind == UnitKind::kSquad) {
    unit.reduced_apfp = apfp / 2;
    unit.reduced_casualty_rating = 2;
  }
  return unit;
}

// Rule 15's Close Assault Example (VV-T1).
Script Example() {
  Script script;
  script.situation.target.name = "C1";
  script.situation.target.terrain_cover = 3;
  Unit half = Counter("US-HS", Seat::kSideB, UnitKind::kHalfSquad, 2, 2);
  half.weapons = {SupportWeapon{.id = "LMG", .name = "", .apfp = 3, .heavy = false,
                                .machine_gun = true}};
  script.situation.units = {Counter("G1", Seat::kSideA, UnitKind::kSquad, 4, 5),
                            Counter("G2", Seat::kSideA, UnitKind::kSquad, 4, 5),
                            Counter("G3", Seat::kSideA, UnitKind::kSquad, 4, 5),
                            Counter("Schmidt", Seat::kSideA, UnitKind::kLeader, 1, 1, 1),
                            half,
                            Counter("US-SQ", Seat::kSideB, UnitKind::kSquad, 5, 4),
                            Counter("Coleman", Seat::kSideB, UnitKind::kLeader, 1, 1, 1)};
  script.situation.expendables[0].grenades = 1;
  script.declarations[0] = Declare{.group = {"G1", "G2", "G3", "Schmidt"}, .leader = "Schmidt",
                                   .uses = {UnitUse{.unit = "G1", .weapon = "", .grenades = true,
                                                    .satchel = false}}};
  script.declarations[1] = Declare{.group = {}, .leader = "Coleman",
                                   .uses = {UnitUse{.unit = "US-HS", .weapon = "LMG",
                                                    .grenades = false, .satchel = false}}};
  return script;
}

// The whole assault: set-up, both seals, reveal, the DR, the engine's allocations of both sides
// after a failure (DR 11: 10 and 4 Casualty Points), every event built and applied.
void BM_VvPlayFailedAssaultWithAllocations(benchmark::State& state) {
  const Script script = Example();
  const VvRules rules;
  for (auto _ : state) {
    ScriptedDice dice({5, 6});
    auto played = Play(rules, script, dice);
    benchmark::DoNotOptimize(played);
  }
}
BENCHMARK(BM_VvPlayFailedAssaultWithAllocations);

State SetUpState(const Script& script) {
  const VvRules rules;
  State state = *rules.NewState({});
  ScriptedDice none({});
  auto events = rules.Decide(state, Seat::kSideA, SetUp{script.situation}, none);
  for (const Event& event : *events) rules.Apply(state, event);
  return state;
}

void BM_VvPreview(benchmark::State& state) {
  const Script script = Example();
  const State set_up = SetUpState(script);
  for (auto _ : state) {
    auto preview = PreviewAssault(set_up, script.declarations[0], script.declarations[1]);
    benchmark::DoNotOptimize(preview);
  }
}
BENCHMARK(BM_VvPreview);

// The search for the cheapest legal allocation of 10 CP over the four German units.
void BM_VvAutoAllocation(benchmark::State& state) {
  const Script script = Example();
  const VvRules rules;
  State waiting = SetUpState(script);
  ScriptedDice dice({5, 6});
  for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
    auto events = rules.Decide(waiting, seat, script.declarations[seat == Seat::kSideA ? 0 : 1],
                               dice);
    for (const Event& event : *events) rules.Apply(waiting, event);
  }
  for (auto _ : state) {
    Allocation allocation = AutoAllocation(waiting, Seat::kSideA);
    benchmark::DoNotOptimize(allocation);
  }
}
BENCHMARK(BM_VvAutoAllocation);

}  // namespace
}  // namespace melee::engine::vv
