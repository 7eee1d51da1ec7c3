#pragma once

// "duel": a test-only ruleset small enough to read in one go, used to test the Ruleset contract.
//
// D1  Each side secretly declares how many dice (1..6) it rolls this round.
// D2  A side cannot declare twice in one round.
// D3  When both sides have declared, each rolls its dice; each side scores the sum of its dice.
// D4  A side sees its own declaration and whether the opponent has declared, never the number.
//     The director sees both; a spectator sees neither number.

#include <array>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/core/dice.h"
#include "engine/core/result.h"
#include "engine/core/ruleset.h"

namespace melee::engine::testing {

struct DuelRules {
  struct State {
    std::array<std::optional<int>, 2> declared;  // Indexed by Seat.
    std::array<int, 2> score = {0, 0};
    int round = 1;
    friend bool operator==(const State&, const State&) = default;
  };
  struct Command {
    int dice = 0;
  };
  struct Declared {
    Seat seat = Seat::kSideA;
    int dice = 0;
    friend bool operator==(const Declared&, const Declared&) = default;
  };
  struct Rolled {
    std::vector<DieRoll> rolls;  // D3: every die, side A's first.
    std::array<int, 2> gained = {0, 0};
    friend bool operator==(const Rolled&, const Rolled&) = default;
  };
  using Event = std::variant<Declared, Rolled>;
  struct View {
    std::array<std::optional<int>, 2> declared;
    std::array<bool, 2> sealed = {false, false};
    std::array<int, 2> score = {0, 0};
    int round = 1;
    friend bool operator==(const View&, const View&) = default;
  };

  static constexpr std::string_view kId = "duel";
  static constexpr std::string_view kVersion = "1";

  static size_t Index(Seat seat) { return seat == Seat::kSideA ? 0 : 1; }

  std::vector<std::string_view> Variants() const { return {"standard"}; }

  Result<State> NewState(const MatchOptions& options) const {
    if (!options.variant.empty() && options.variant != "standard") {
      return Reject("", "duel has no variant '" + options.variant + "'");
    }
    return State{};
  }

  Result<std::vector<Event>> Decide(const State& state, Seat seat, const Command& command,
                                    Dice& dice) const {
    if (command.dice < 1 || command.dice > 6) return Reject("D1", "declare between 1 and 6 dice");
    if (state.declared[Index(seat)].has_value()) return Reject("D2", "already declared");
    std::vector<Event> events = {Declared{seat, command.dice}};
    const auto& other = state.declared[Index(Opponent(seat))];
    if (other.has_value()) {
      std::array<int, 2> count = {0, 0};
      count[Index(seat)] = command.dice;
      count[Index(Opponent(seat))] = *other;
      Rolled rolled;
      for (size_t side = 0; side < 2; ++side) {
        for (int value : dice.RollDice(count[side], side == 0 ? "D3 side A" : "D3 side B")) {
          rolled.gained[side] += value;
        }
      }
      rolled.rolls = dice.rolls();  // The record of this resolution, kept in the event.
      events.emplace_back(std::move(rolled));
    }
    return events;
  }

  void Apply(State& state, const Event& event) const {
    if (const auto* declared = std::get_if<Declared>(&event)) {
      state.declared[Index(declared->seat)] = declared->dice;
      return;
    }
    const auto& rolled = std::get<Rolled>(event);
    for (size_t side = 0; side < 2; ++side) state.score[side] += rolled.gained[side];
    state.declared = {};
    ++state.round;
  }

  View MakeView(const State& state, Viewer viewer) const {
    View view;
    view.score = state.score;
    view.round = state.round;
    for (size_t side = 0; side < 2; ++side) view.sealed[side] = state.declared[side].has_value();
    if (viewer == Viewer::kDirector || viewer == Viewer::kSideA)
      view.declared[0] = state.declared[0];
    if (viewer == Viewer::kDirector || viewer == Viewer::kSideB)
      view.declared[1] = state.declared[1];
    return view;
  }
};

static_assert(RulesDefinition<DuelRules>);

}  // namespace melee::engine::testing
