// Micro-benchmarks of the asl ruleset (issue 3 targets: resolve <= 2 us, preview <= 50 us).
// Run: build/bench/engine_bench --benchmark_filter=Asl --benchmark_min_time=0.5

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "engine/asl/preview.h"
#include "engine/asl/rules.h"
#include "engine/asl/script.h"

namespace melee::engine::asl {
namespace {

Unit Counter(std::string id, Seat owner, UnitKind kind, int firepower, std::string stacked_on) {
  Unit unit;
  unit.id = std::move(id);
  unit.owner = owner;
  unit.kind = kind;
  unit.firepower = firepower;
  unit.morale = kind == UnitKind::kLeader ? 8 : 7;
  unit.leadership = kind == UnitKind::kLeader ? -1 : 0;
  unit.stacked_on = std::move(stacked_on);
  return unit;
}

AttackOrder Order(std::vector<std::string> attackers, std::vector<std::string> targets) {
  AttackOrder order;
  order.attackers = std::move(attackers);
  order.targets = std::move(targets);
  return order;
}

// A typical Location: three squads and a leader a side, first round of CC.
State TypicalLocation() {
  Situation situation;
  situation.units = {
      Counter("G1", Seat::kSideA, UnitKind::kSquad, 4, ""),
      Counter("G2", Seat::kSideA, UnitKind::kSquad, 4, ""),
      Counter("G3", Seat::kSideA, UnitKind::kSquad, 6, ""),
      Counter("GL", Seat::kSideA, UnitKind::kLeader, 0, "G1"),
      Counter("R1", Seat::kSideB, UnitKind::kSquad, 4, ""),
      Counter("R2", Seat::kSideB, UnitKind::kSquad, 4, ""),
      Counter("R3", Seat::kSideB, UnitKind::kSquad, 5, ""),
      Counter("RL", Seat::kSideB, UnitKind::kLeader, 0, "R1"),
  };
  const AslRules rules;
  State state = *rules.NewState({});
  ScriptedDice none({});
  for (const auto& [seat, command] : std::vector<std::pair<Seat, Command>>{
           {Seat::kSideA, SetUp{situation}},
           {Seat::kSideA, Announce{}},
           {Seat::kSideB, Announce{}},
       }) {
    const auto events = rules.Decide(state, seat, command, none);
    for (const Event& event : *events) rules.Apply(state, event);
  }
  Seal attacker;
  attacker.attacks = {Order({"G1", "GL"}, {"R1", "RL"}), Order({"G2"}, {"R2"}),
                      Order({"G3"}, {"R3"})};
  const auto sealed = rules.Decide(state, Seat::kSideA, attacker, none);
  for (const Event& event : *sealed) rules.Apply(state, event);
  return state;
}

// The DEFENDER's seal resolves the whole Location: 3 ATTACKER attacks and 2 DEFENDER attacks,
// every die drawn from SplitMix64 through FairD6, every event built.
void BM_AslResolveTypicalLocation(benchmark::State& bench) {
  const AslRules rules;
  const State state = TypicalLocation();
  Seal defender;
  defender.attacks = {Order({"R1", "RL", "R2"}, {"G1", "GL"}), Order({"R3"}, {"G2", "G3"})};
  // The command is built once, as the server decodes it once: passing the Seal itself would
  // time a copy of it into a Command on every iteration.
  const Command command = defender;
  SplitMix64 source(1);
  for (auto _ : bench) {
    SourceDice dice(source);
    auto events = rules.Decide(state, Seat::kSideB, command, dice);
    benchmark::DoNotOptimize(events);
  }
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_AslResolveTypicalLocation);
// The same for a fixed number of iterations, so that an instruction count under callgrind is
// the same work from run to run (docs/benchmarks.md, step 22): --benchmark_filter=Typical.*/iter
BENCHMARK(BM_AslResolveTypicalLocation)->Iterations(2000);

// The arithmetic of one attack alone (strengths, odds column, Kill #, every DRM): the part of a
// resolution that is rules, without the events that record it.
void BM_AslPlanAttack(benchmark::State& bench) {
  const State state = TypicalLocation();
  const std::vector<uint16_t> attackers = {0, 3, 1};
  const std::vector<uint16_t> targets = {4, 7, 5};
  const AttackOrder order = Order({"G1", "GL", "G2"}, {"R1", "RL", "R2"});
  const AttackContext context{.hth = false,
                              .ambusher = std::nullopt,
                              .excess_squads = {0, 0},
                              .options = &state.options,
                              .withdrawing = &state.withdrawing,
                              .strength = {}};
  for (auto _ : bench) {
    auto plan = PlanAttack(state.units, attackers, targets, order, context);
    benchmark::DoNotOptimize(plan);
  }
}
BENCHMARK(BM_AslPlanAttack);

// The outcome table of the ATTACKER's main attack (squad + leader vs squad + leader).
void BM_AslPreview(benchmark::State& bench) {
  const State state = TypicalLocation();
  State open = state;
  open.sealed[0].reset();  // Preview before sealing.
  const AttackOrder order = Order({"G1", "GL", "G2"}, {"R1", "RL", "R2"});
  for (auto _ : bench) {
    auto table = Preview(open, Seat::kSideA, order);
    benchmark::DoNotOptimize(table);
  }
}
BENCHMARK(BM_AslPreview);

// The 11.622 EX: three 4-4-7 and an 8-1 (the ATTACKER, advancing) against a BU PzIVJ with an sN.
Script VehicleExample() {
  Script script;
  Unit leader = Counter("L", Seat::kSideA, UnitKind::kLeader, 0, "A");
  script.situation.units = {Counter("A", Seat::kSideA, UnitKind::kSquad, 4, ""), leader,
                            Counter("B", Seat::kSideA, UnitKind::kSquad, 4, ""),
                            Counter("C", Seat::kSideA, UnitKind::kSquad, 4, "")};
  for (Unit& unit : script.situation.units) unit.advanced = true;
  Unit tank;
  tank.id = "T";
  tank.owner = Seat::kSideB;
  tank.kind = UnitKind::kVehicle;
  tank.vehicle.cmg = 5;
  tank.vehicle.bmg = true;
  tank.vehicle.sn_usage = 7;
  script.situation.units.push_back(tank);
  auto one = [](AttackOrder order) {
    Seal seal;
    seal.attacks = {std::move(order)};
    return seal;
  };
  AttackOrder sn = Order({"T"}, {});
  sn.weapons = {"sn"};
  AttackOrder cmg = Order({"T"}, {"A", "L", "B", "C"});
  cmg.weapons = {"cmg"};
  script.declarations = {{Seat::kSideA, one(Order({"A", "L"}, {"T"}))},
                         {Seat::kSideB, one(sn)},
                         {Seat::kSideA, one(Order({"B"}, {"T"}))},
                         {Seat::kSideB, one(cmg)}};
  return script;
}

// The whole 11.622 EX with fair dice: set-up with its PAATC, announcements, four alternating
// single attacks (A11.31) incl. the sN and its Morale Checks, every event built and applied.
void BM_AslVehicleExampleWhole(benchmark::State& bench) {
  const AslRules rules;
  const Script script = VehicleExample();
  SplitMix64 source(1);
  for (auto _ : bench) {
    SourceDice dice(source);
    auto played = Play(rules, script, dice);
    benchmark::DoNotOptimize(played);
  }
}
BENCHMARK(BM_AslVehicleExampleWhole);

// The exact outcome table of an attack on a vehicle with an ATMM check: 6 ATMM drs x 36 DR x the
// Unlikely Kill dr.
void BM_AslPreviewAttackOnVehicle(benchmark::State& bench) {
  const AslRules rules;
  Script script = VehicleExample();
  for (Unit& unit : script.situation.units) unit.atmm = unit.kind == UnitKind::kSquad;
  script.declarations.clear();
  ScriptedDice paatc({4, 3, 4, 3, 4, 3});
  State state = *rules.NewState({});
  for (const auto& [seat, command] : std::vector<std::pair<Seat, Command>>{
           {Seat::kSideA, SetUp{script.situation}},
           {Seat::kSideA, Announce{}},
           {Seat::kSideB, Announce{}},
       }) {
    const auto events = rules.Decide(state, seat, command, paatc);
    for (const Event& event : *events) rules.Apply(state, event);
  }
  AttackOrder order = Order({"A", "L"}, {"T"});
  order.atmm = "A";
  for (auto _ : bench) {
    auto table = Preview(state, Seat::kSideA, order);
    benchmark::DoNotOptimize(table);
  }
}
BENCHMARK(BM_AslPreviewAttackOnVehicle);

}  // namespace
}  // namespace melee::engine::asl
