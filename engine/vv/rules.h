#pragma once

// The vv ruleset: Valor & Victory rule 15 Close Assaults, board and pc editions, event-sourced.
// Adapted to the engine's Ruleset by TypedRuleset<VvRules>; see protocol.h for the flow.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/dice.h"
#include "engine/core/rational.h"
#include "engine/core/result.h"
#include "engine/core/ruleset.h"
#include "engine/vv/protocol.h"

namespace melee::engine::vv {

// Stateless and pure; thread-safe to share.
struct VvRules {
  using State = vv::State;
  using Command = vv::Command;
  using Event = vv::Event;
  using View = vv::View;

  static constexpr std::string_view kId = "vv";
  static constexpr std::string_view kVersion = "vv15-2";

  // "board" (Standard Game Rules), "pc" (the PC game).
  std::vector<std::string_view> Variants() const;
  Result<State> NewState(const MatchOptions& options) const;
  Result<std::vector<Event>> Decide(const State& state, Seat seat, const Command& command,
                                    Dice& dice) const;
  void Apply(State& state, const Event& event) const;
  View MakeView(const State& state, Viewer viewer) const;
};

// Returns the RuleError `declare` from `seat` meets in `state` (15.1, 15.2, 15.3, 12.3, 12.52,
// 12.53, 14.7), or nothing when it is legal. Rolls no dice.
Result<void> ValidateDeclaration(const State& state, Seat seat, const Declare& declare);

// Returns the RuleError `allocation` from `seat` meets in `state` (14.61-14.65, 15.10,
// VV-AMB-12), or nothing when it is legal. Rolls no dice.
Result<void> ValidateAllocation(const State& state, Seat seat, const Allocation& allocation);

// The Casualty Points `allocation` fulfils before any die (the fulfilment 14.61 counts), and the
// most the units it may touch can fulfil.
int Fulfilled(const State& state, const Allocation& allocation);
int Absorbable(const State& state, Seat seat);

// Returns the allocation the engine makes for `seat` in `state`: the pc edition always, the board
// edition when a deadline passes. [DEFAULT - NOT FROM RULES] VV-AMB-13: the legal allocation that
// costs the least, where a unit's worth is its APFP with its SW (a leader's +100, so leaders go
// last), pinning costs its worth, reducing 3x the APFP lost, eliminating 4x its worth, a survival
// or immobilization roll 2x; ties go to the first in unit order. Legal by ValidateAllocation.
Allocation AutoAllocation(const State& state, Seat seat);

// Returns the declaration the engine takes for `seat` when its deadline passes: the assaulter
// calls the assault off; the defender uses its best leader and, on each infantry unit, the
// weapon adding the most APFP (no Grenades or Satchel Charges: single use, 12.5).
Declare DefaultDeclaration(const State& state, Seat seat);

// Returns the vv ruleset for the registry.
std::unique_ptr<const Ruleset> MakeVvRuleset();

// Returns a readable account of `event` decided in `state`, e.g.
// "15.6 13 vs 11 -> 1-1, Kill # 6 -1 (15.3 Coleman) = 5; DR 7 -1 -1 = 5 <= 5: the assault
// succeeds".
std::string DescribeEvent(const State& state, const Event& event);

// Returns the id of the unit at `index`, or "?" when out of range.
std::string_view UnitId(const State& state, size_t index);

// ---- preview --------------------------------------------------------------------------------

// The exact odds of one declared assault, by enumerating the 36 DR (never sampled).
struct Preview {
  int assault_apfp = 0;
  int defence_apfp = 0;
  Odds odds = Odds::k1to1;
  int kill_number = 0;   // after the defender's modifiers
  int dr_modifier = 0;   // the sum of the assaulter's DR modifiers
  bool automatic = false;  // 15.9: nothing but pinned defenders
  Rational success;
  // P(assaulter suffers k Casualty Points), k = 0.., and the defender's (failure only).
  std::vector<Rational> assaulter_cp;
  std::vector<Rational> defender_cp;
  Rational valor_check;  // natural 2 (VV-AMB-8)
  Rational sniper;       // natural 12 (VV-AMB-8)
  friend bool operator==(const Preview&, const Preview&) = default;
};

// Returns the preview of the assault the two declarations describe in `state` (set up, before
// the reveal), or the RuleError either declaration meets.
Result<Preview> PreviewAssault(const State& state, const Declare& assaulter,
                               const Declare& defender);

// ---- script ---------------------------------------------------------------------------------

// One close assault played from start to end: the `melee rules` CLI, the tests and the
// benchmarks use it; the server plays the same commands one by one.
struct Script {
  MatchOptions options;
  Situation situation;
  std::array<Declare, 2> declarations;  // By Seat.
  // By Seat; a side that owes Casualty Points with no allocation here gets AutoAllocation, and
  // Played::defaults says so.
  std::array<std::optional<Allocation>, 2> allocations;
};

struct Played {
  State final_state;
  std::vector<State> states;  // states[i] is the state before events[i].
  std::vector<Event> events;
  std::vector<std::string> defaults;
};

// Plays `script` with `dice` to the end, or returns the first RuleError a command met.
Result<Played> Play(const VvRules& rules, const Script& script, Dice& dice);

}  // namespace melee::engine::vv
