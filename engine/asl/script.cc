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
      // The next scripted answer of this kind that names any of the offered units; only the
      // offered units of it are selected (a standing order: "withdraw G1 if it may").
      auto& cursor = cursors_[static_cast<size_t>(choice.kind)];
      std::vector<std::string> offered;
      for (size_t c = cursor; c < script_.choices.size() && offered.empty(); ++c) {
        if (script_.choices[c].kind != choice.kind) continue;
        for (const std::string& id : script_.choices[c].selected) {
          for (uint16_t option : choice.options) {
            if (UnitId(played_.final_state, option) == id) offered.push_back(id);
          }
        }
        if (!offered.empty()) cursor = c + 1;
      }
      if (choice.kind == ChoiceKind::kCaptureSelection && offered.size() > 1) offered.resize(1);
      if (!offered.empty()) {
        answer.selected = std::move(offered);
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

// A11.3: in sequential CC a unit eliminated (or gone) before it attacks forfeits its attack, and
// a target that is gone cannot be attacked: a script declared in advance loses those parts.
void ForfeitLostAttacks(const State& state, const std::string& what, Seal& seal,
                        std::vector<std::string>& defaults) {
  auto present = [&](const std::string& id) {
    for (const Unit& unit : state.units) {
      if (unit.id == id) return IsPresent(unit);
    }
    return true;  // Unknown ids are left for the rules to refuse.
  };
  std::vector<AttackOrder> kept;
  for (size_t k = 0; k < seal.attacks.size(); ++k) {
    AttackOrder order = seal.attacks[k];
    const bool attackers_here =
        std::all_of(order.attackers.begin(), order.attackers.end(), present);
    // A11.622: the sN names no targets; it attacks every unarmored unit in the Location.
    const bool close_defense = IsCloseDefense(order);
    std::erase_if(order.targets, [&](const std::string& id) { return !present(id); });
    if (!attackers_here || (order.targets.empty() && !close_defense)) {
      defaults.push_back(what + ", attack " + std::to_string(k + 1) + ": forfeited [A11.3] (" +
                         (attackers_here ? "every target is gone" : "an attacker is gone") + ")");
      continue;
    }
    kept.push_back(std::move(order));
  }
  seal.attacks = std::move(kept);
}

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
  if (state.alternating) {
    // A11.31: single attacks alternate; the script lists them in the order they are made.
  } else if (state.sequential && state.to_act != attacker) {
    // A11.32: the ambusher resolves all its attacks first.
    std::stable_sort(declarations.begin(), declarations.end(), [&](const auto& a, const auto& b) {
      return a.first == state.to_act && b.first != state.to_act;
    });
  } else if (state.sequential) {
    std::stable_sort(declarations.begin(), declarations.end(), [&](const auto& a, const auto& b) {
      return a.first == attacker && b.first != attacker;
    });
  }
  for (size_t d = 0; d < declarations.size(); ++d) {
    const Seat seat = declarations[d].first;
    Seal seal = declarations[d].second;
    const std::string what =
        "declaration " + std::to_string(d + 1) + " (" + std::string(Name(seat)) + ")";
    // Sequential CC: the side to act passes until it is this declaration's side's turn.
    while (state.sequential && state.phase == Phase::kDeclare && state.to_act != seat) {
      if (auto r = player.Run(state.to_act, Seal{}, what + ", pass"); !r) {
        return tl::unexpected(r.error());
      }
    }
    if (state.phase == Phase::kEnded && state.sequential) {
      // A11.3: nothing of this side can attack any more (eliminated or without targets).
      played.defaults.push_back(what + ": forfeited [A11.3] (the CC is over)");
      continue;
    }
    if (state.phase == Phase::kEnded) {
      return Reject("A11.3", what + ": the CCPh in this Location is already over");
    }
    if (state.sequential) ForfeitLostAttacks(state, what, seal, played.defaults);
    if (state.sequential && seal.attacks.empty() && seal.ambush_withdraw.empty()) continue;
    if (auto r = player.Run(seat, seal, what); !r) return tl::unexpected(r.error());
  }
  while (state.phase == Phase::kDeclare) {
    if (auto r = player.Run(state.to_act, Seal{}, "pass"); !r) return tl::unexpected(r.error());
  }
  return played;
}

}  // namespace melee::engine::asl
