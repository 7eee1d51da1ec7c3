#pragma once

// The coc ruleset: Chain of Command rule 17 Close Combat, Tank Over-Runs and Ramming,
// event-sourced. Adapted to the engine's Ruleset by TypedRuleset<CocRules>; see protocol.h for
// the flow.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/dice.h"
#include "engine/core/result.h"
#include "engine/core/ruleset.h"
#include "engine/coc/protocol.h"

namespace melee::engine::coc {

// Stateless and pure; thread-safe to share.
struct CocRules {
  using State = coc::State;
  using Command = coc::Command;
  using Event = coc::Event;
  using View = coc::View;

  static constexpr std::string_view kId = "coc";
  static constexpr std::string_view kVersion = "coc17-1";

  // "2e" (the rulebook the seed text comes from, SPEC-NOTES C).
  std::vector<std::string_view> Variants() const;
  Result<State> NewState(const MatchOptions& options) const;
  Result<std::vector<Event>> Decide(const State& state, Seat seat, const Command& command,
                                    Dice& dice) const;
  void Apply(State& state, const Event& event) const;
  View MakeView(const State& state, Viewer viewer) const;
};

// Returns the RuleError `declare` from `seat` meets in `state` (17.1, 17.2), or nothing.
Result<void> ValidateDeclaration(const State& state, Seat seat, const Declare& declare);
// Returns the RuleError `place` from `seat` meets in `state` (17.4.1), or nothing.
Result<void> ValidatePlacement(const State& state, Seat seat, const Place& place);

// The declaration the engine takes for `seat` when its deadline passes [DEFAULT - NOT FROM
// RULES]: the attacker fights when it must and declines when it may, all its Units together;
// the defender's Units that can give Supporting Fire give it; nobody advances.
Declare DefaultDeclaration(const State& state, Seat seat);
// The placement the engine takes for `seat` [DEFAULT - NOT FROM RULES]: the odd hits go to the
// first fighting Teams in set-up order.
Place DefaultPlacement(const State& state, Seat seat);

// The Combat Dice of `seat` for round `round` of the combat of `attackers` (17.3), every row in
// the printed order with the running total rounded down.
Pool CombatDice(const State& state, Seat seat, const std::vector<uint16_t>& attackers,
                const std::vector<uint16_t>& supporters, int round);

// Returns the coc ruleset for the registry.
std::unique_ptr<const Ruleset> MakeCocRuleset();

// Returns a readable account of `event` decided in `state`.
std::string DescribeEvent(const State& state, const Event& event);

// Returns "unit/team", or "?" when out of range.
std::string TeamName(const State& state, TeamRef team);
std::string_view UnitId(const State& state, size_t index);

// ---- preview --------------------------------------------------------------------------------

// An exact probability: `count` of the 3^dice equally likely outcomes of a pool where each die
// hits on 5-6 (1/3), as a reduced fraction.
struct Chance {
  std::string exact;  // "13/27"
  // The same in hundredths of a percent, rounded half up (for display: 4815 is 48.15%).
  int64_t hundredths_percent = 0;
  friend bool operator==(const Chance&, const Chance&) = default;
};

// The exact distribution of one round of Close Combat between two pools (never sampled).
struct Preview {
  int attacker_dice = 0;
  int defender_dice = 0;
  std::optional<Seat> overwhelmed;  // 17.3.1: no roll
  // margin[k] for k = -defender_dice .. attacker_dice: P(attacker hits - defender hits = k).
  int lowest_margin = 0;
  std::vector<Chance> margin;
  Chance attacker_wins;
  Chance draw;
  Chance defender_wins;
  std::array<Pool, 2> pools;  // By Seat, when computed from a state
  friend bool operator==(const Preview&, const Preview&) = default;
};

// Largest total of dice the preview enumerates (3^80 outcomes fit in 128 bits).
inline constexpr int kMaxPreviewDice = 80;

// Returns the exact margin distribution of `attacker_dice` against `defender_dice`; there
// `overwhelmed` is kSideA for the attacker's pool and kSideB for the defender's.
Result<Preview> PreviewPools(int attacker_dice, int defender_dice);
// Returns the preview of the first round of the first combat the two declarations make in
// `state` (set up, before the reveal), or the RuleError either declaration meets.
Result<Preview> PreviewCombat(const State& state, const Declare& attacker,
                              const Declare& defender);

// ---- script ---------------------------------------------------------------------------------

// One contact played from start to end: the `melee rules` CLI, the tests and the benchmarks use
// it; the server plays the same commands one by one. Placements owed are DefaultPlacement, and
// Played::defaults says so, unless `placements` holds one for that seat (used in order).
struct Script {
  MatchOptions options;
  Situation situation;
  std::array<Declare, 2> declarations;  // By Seat.
  std::array<std::vector<Place>, 2> placements;
};

struct Played {
  State final_state;
  std::vector<State> states;  // states[i] is the state before events[i].
  std::vector<Event> events;
  std::vector<std::string> defaults;
};

// Plays `script` with `dice` to the end, or returns the first RuleError a command met.
Result<Played> Play(const CocRules& rules, const Script& script, Dice& dice);

}  // namespace melee::engine::coc
