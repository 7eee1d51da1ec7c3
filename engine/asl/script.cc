#include "engine/asl/script.h"

#include <algorithm>
#include <string>

namespace melee::engine::asl {
namespace {

// Runs one command, folds its events, then answers every choice it leaves pending from the
// script (or with the rules default).
class Player {
 public:
  Player(const AslRules& rules, const Script& script, Dice& dice, Played& played)
      : rules_(rules), script_(script), dice_(dice), played_(played) {}

  Result<void> Run(Seat seat, const Command& command, const std::string& what) {
    Result<std::vector<Event>> events = rules_.Decide(played_.final_state, seat, command, dice_);
    if (!events) {
      RuleError error = events.error();
      error.message = what + ": " + error.message;
      return tl::unexpected(std::move(error));
    }
    for (Event& event : *events) {
      played_.states.push_back(played_.final_state);
      rules_.Apply(played_.final_state, event);
      played_.events.push_back(std::move(event));
    }
    return AnswerChoices();
  }

 private:
  Result<void> AnswerChoices() {
    while (played_.final_state.phase == Phase::kChoice) {
      const PendingChoice choice = *played_.final_state.pending;
      Choose answer{.choice_id = choice.id, .selected = {}};
      auto& cursor = cursors_[static_cast<size_t>(choice.kind)];
      while (cursor < script_.choices.size() && script_.choices[cursor].kind != choice.kind) {
        ++cursor;
      }
      if (cursor < script_.choices.size()) {
        answer.selected = script_.choices[cursor++].selected;
      } else if (choice.kind == ChoiceKind::kCaptureSelection) {
        answer.selected = {std::string(UnitId(played_.final_state, choice.options.front()))};
        played_.defaults.push_back("choice " + std::to_string(choice.id) +
                                   ": no scripted answer; the defender gives up " +
                                   answer.selected.front() + " (first of the set)");
      } else {
        played_.defaults.push_back("choice " + std::to_string(choice.id) +
                                   ": no scripted answer; nobody withdraws");
      }
      Result<std::vector<Event>> events =
          rules_.Decide(played_.final_state, choice.seat, answer, dice_);
      if (!events) {
        RuleError error = events.error();
        error.message = "answer to choice " + std::to_string(choice.id) + ": " + error.message;
        return tl::unexpected(std::move(error));
      }
      for (Event& event : *events) {
        played_.states.push_back(played_.final_state);
        rules_.Apply(played_.final_state, event);
        played_.events.push_back(std::move(event));
      }
    }
    return {};
  }

  const AslRules& rules_;
  const Script& script_;
  Dice& dice_;
  Played& played_;
  std::array<size_t, 3> cursors_ = {0, 0, 0};
};

}  // namespace

Result<Played> Play(const AslRules& rules, const Script& script, Dice& dice) {
  Result<State> initial = rules.NewState(script.options);
  if (!initial) return tl::unexpected(initial.error());
  Played played{.final_state = std::move(*initial), .states = {}, .events = {}, .defaults = {}};
  Player player(rules, script, dice, played);
  const Seat attacker = script.situation.attacker;
  const Seat defender = Opponent(attacker);
  if (auto r = player.Run(attacker, SetUp{script.situation}, "set-up"); !r) {
    return tl::unexpected(r.error());
  }
  for (Seat seat : {attacker, defender}) {
    const size_t s = seat == Seat::kSideA ? 0 : 1;
    if (auto r = player.Run(seat, script.announce[s], std::string(Name(seat)) + " announcement");
        !r) {
      return tl::unexpected(r.error());
    }
  }
  const State& state = played.final_state;
  std::vector<std::pair<Seat, Seal>> declarations = script.declarations;
  if (!state.sequential) {
    // One declaration per side; the ATTACKER's first (it matters for attacker_first order).
    std::stable_sort(declarations.begin(), declarations.end(), [&](const auto& a, const auto& b) {
      return a.first == attacker && b.first != attacker;
    });
    for (Seat seat : {attacker, defender}) {
      const bool listed = std::any_of(declarations.begin(), declarations.end(),
                                      [&](const auto& d) { return d.first == seat; });
      if (!listed) declarations.push_back({seat, Seal{}});
    }
  }
  for (size_t d = 0; d < declarations.size(); ++d) {
    const auto& [seat, seal] = declarations[d];
    const std::string what =
        "declaration " + std::to_string(d + 1) + " (" + std::string(Name(seat)) + ")";
    // Sequential CC: the side to act passes until it is this declaration's side's turn.
    while (state.sequential && state.phase == Phase::kDeclare && state.to_act != seat) {
      if (auto r = player.Run(state.to_act, Seal{}, what + ", pass"); !r) {
        return tl::unexpected(r.error());
      }
    }
    if (state.phase == Phase::kEnded) {
      return Reject("A11.3", what + ": the CCPh in this Location is already over");
    }
    if (auto r = player.Run(seat, seal, what); !r) return tl::unexpected(r.error());
  }
  while (state.phase == Phase::kDeclare) {
    if (auto r = player.Run(state.to_act, Seal{}, "pass"); !r) return tl::unexpected(r.error());
  }
  return played;
}

}  // namespace melee::engine::asl
