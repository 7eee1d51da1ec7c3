// Micro-benchmarks of the engine core: dice, Rational arithmetic and the TypedRuleset adapter.
// Run: build/bench/engine_bench --benchmark_min_time=0.2

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/engine.h"

namespace melee::engine {
namespace {

void BM_FairD6SplitMix64(benchmark::State& state) {
  SplitMix64 source(1);
  for (auto _ : state) benchmark::DoNotOptimize(FairD6(source));
}
BENCHMARK(BM_FairD6SplitMix64);

void BM_SourceDiceRollTwoDice(benchmark::State& state) {
  SplitMix64 source(2);
  SourceDice dice(source);
  for (auto _ : state) {
    benchmark::DoNotOptimize(dice.RollTwoDice("A11.11 CC DR"));
    if (dice.rolls().size() >= 1024) dice.TakeRolls();  // Amortised: keeps the record bounded.
  }
}
BENCHMARK(BM_SourceDiceRollTwoDice);

void BM_ScriptedDiceRollTwoDice(benchmark::State& state) {
  // One resolution's worth of dice: a fresh ScriptedDice per 8 DRs, as a ruleset would see.
  const std::vector<int> script = {1, 6, 2, 5, 3, 4, 4, 3, 5, 2, 6, 1, 1, 1, 6, 6};
  for (auto _ : state) {
    ScriptedDice dice(script);
    for (int i = 0; i < 8; ++i) benchmark::DoNotOptimize(dice.RollTwoDice("A11.11 CC DR"));
    benchmark::DoNotOptimize(dice.TakeRolls());
  }
  state.SetItemsProcessed(state.iterations() * 8);
}
BENCHMARK(BM_ScriptedDiceRollTwoDice);

void BM_RationalAddChain(benchmark::State& state) {
  for (auto _ : state) {
    Rational sum;
    for (int64_t i = 1; i <= 16; ++i) sum += Rational(1, i % 4 + 1);  // Harmonic-ish FP totals.
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * 16);
}
BENCHMARK(BM_RationalAddChain);

void BM_RationalMulHalfChain(benchmark::State& state) {
  int64_t start = 12;
  benchmark::DoNotOptimize(start);
  for (auto _ : state) {
    Rational fp(start, 1);
    for (int i = 0; i < 8; ++i) fp = (fp * Rational(3, 2)).Half();
    benchmark::DoNotOptimize(fp);
  }
  state.SetItemsProcessed(state.iterations() * 16);
}
BENCHMARK(BM_RationalMulHalfChain);

void BM_RationalOddsCompare(benchmark::State& state) {
  // Odds attack:defence against the V&V-style columns 1:1 .. 6:1.
  const Rational columns[] = {1, 2, 3, 4, 5, 6};
  int64_t attack = 7;
  for (auto _ : state) {
    const Rational odds(attack, 3);
    int column = 0;
    for (const Rational& c : columns) column += odds >= c ? 1 : 0;
    benchmark::DoNotOptimize(column);
    attack = attack % 20 + 1;
  }
}
BENCHMARK(BM_RationalOddsCompare);

// A trivial ruleset: each command rolls one DR and adds it to a running total.
struct TallyRules {
  struct State {
    int64_t total = 0;
  };
  struct Command {};
  struct Event {
    TwoDice dr;
  };
  struct View {
    int64_t total = 0;
  };
  static constexpr std::string_view kId = "tally";
  static constexpr std::string_view kVersion = "1";
  std::vector<std::string_view> Variants() const { return {}; }
  Result<State> NewState(const MatchOptions&) const { return State{}; }
  Result<std::vector<Event>> Decide(const State&, Seat, const Command&, Dice& dice) const {
    return std::vector<Event>{Event{dice.RollTwoDice("tally DR")}};
  }
  void Apply(State& state, const Event& event) const { state.total += event.dr.Total(); }
  View MakeView(const State& state, Viewer) const { return View{state.total}; }
};

void BM_TypedRulesetDecideApply(benchmark::State& state) {
  const TypedRuleset<TallyRules> rules;
  AnyState match = rules.NewState({}).value();
  const AnyCommand command(TallyRules::Command{});
  SplitMix64 source(3);
  for (auto _ : state) {
    SourceDice dice(source);
    auto events = rules.Decide(match, Seat::kSideA, command, dice);
    for (const AnyEvent& event : *events) rules.Apply(match, event);
  }
  benchmark::DoNotOptimize(match.As<TallyRules::State>()->total);
}
BENCHMARK(BM_TypedRulesetDecideApply);

}  // namespace
}  // namespace melee::engine
