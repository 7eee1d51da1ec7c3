#pragma once

// Plays a whole CC Location from a script: the situation, each side's announcements and
// declarations, and the answers to the choices the rules offer. The `melee rules resolve` CLI,
// the tests and the benchmarks use it; the server plays the same commands one by one.

#include <array>
#include <optional>
#include <vector>

#include "engine/asl/protocol.h"
#include "engine/asl/rules.h"
#include "engine/core/dice.h"
#include "engine/core/result.h"
#include "engine/core/ruleset.h"

namespace melee::engine::asl {

// A scripted answer to a choice of `kind`: a standing order used, in order, by the first choice
// of that kind that offers any of the `selected` units (only the offered ones are selected).
struct ScriptedChoice {
  ChoiceKind kind = ChoiceKind::kInfiltration;
  std::vector<std::string> selected;
};

struct Script {
  MatchOptions options;
  Situation situation;
  std::array<Announce, 2> announce;  // By Seat.
  // Declarations in the order they are submitted. Simultaneous CC: one per side (the engine
  // takes the ATTACKER's first when the order matters). Sequential CC: each turn of the side to
  // act, in order; a side with no declaration left passes. With a vehicle (A11.31) each is one
  // attack, listed in the order they are made; a side whose turn it is and whose next listed
  // declaration is not next passes for good.
  std::vector<std::pair<Seat, Seal>> declarations;
  // Answers to choices; a choice with no scripted answer takes its rules default (decline the
  // withdrawal; the first unit of a capture partial set), and the event says so.
  std::vector<ScriptedChoice> choices;
};

struct Played {
  State final_state;
  std::vector<State> states;  // states[i] is the state before events[i].
  std::vector<Event> events;
  std::vector<std::string> defaults;  // Choices answered by default, for the report.
};

// Plays `script` with `dice` to the end of the CCPh, or returns the first RuleError a command
// met (with the command named in the message).
Result<Played> Play(const AslRules& rules, const Script& script, Dice& dice);

}  // namespace melee::engine::asl
