#pragma once

// The asl ruleset: ASL chapter A11 Close Combat between Infantry (part 1), event-sourced.
// Adapted to the engine's Ruleset by TypedRuleset<AslRules>; see protocol.h for the flow.

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/asl/protocol.h"
#include "engine/core/dice.h"
#include "engine/core/result.h"
#include "engine/core/ruleset.h"

namespace melee::engine::asl {

// Stateless and pure; thread-safe to share.
struct AslRules {
  using State = asl::State;
  using Command = asl::Command;
  using Event = asl::Event;
  using View = asl::View;

  static constexpr std::string_view kId = "asl";
  static constexpr std::string_view kVersion = "a11-2";

  // "standard" (the ASL rulebook), "deluxe" (DASL: optional HtH by the ATTACKER, J2.31).
  std::vector<std::string_view> Variants() const;
  Result<State> NewState(const MatchOptions& options) const;
  Result<std::vector<Event>> Decide(const State& state, Seat seat, const Command& command,
                                    Dice& dice) const;
  void Apply(State& state, const Event& event) const;
  View MakeView(const State& state, Viewer viewer) const;
};

// The sealed declarations `viewer` may see in `state` (View::declarations): its own side's, and
// each one once it is public (revealed, or never secret: sequential CC, the ATTACKER's in
// attacker-first order). The director sees a sealed declaration only once it is revealed.
// Shared with the state, not copied: a view and each viewer's rendering of a seal ask for it.
std::array<SharedValue<Seal>, 2> DeclarationsShown(const State& state, Viewer viewer);

// The units of `queued`, an attack in `state.queue`, by index into `state.units`: the attackers
// and the targets. Valid until the next event is folded into `state`.
inline std::span<const uint16_t> QueuedAttackers(const State& state, const QueuedAttack& queued) {
  return std::span<const uint16_t>(state.queued_units)
      .subspan(queued.attackers.first, queued.attackers.count);
}
inline std::span<const uint16_t> QueuedTargets(const State& state, const QueuedAttack& queued) {
  return std::span<const uint16_t>(state.queued_units)
      .subspan(queued.targets.first, queued.targets.count);
}

// Returns the RuleError `seal` from `seat` would meet in `state` (A11.12, A11.14, A11.16, A11.2,
// A20.2, A11.41), or nothing when it is legal there. Rolls no dice.
Result<void> ValidateDeclaration(const State& state, Seat seat, const Seal& seal);

// Whether `seat` has anything it could announce in `state` at the start of the CCPh: a unit in a
// Melee that may try to Withdraw (A11.2) or is broken (A11.16), a SMC that may attack alone
// (A11.14), or, for the ATTACKER, HtH CC to declare (J2.31). A side that has none announces
// nothing; the server takes that announcement for it where a Melee goes on by itself.
bool CanAnnounce(const State& state, Seat seat);

// Returns the asl ruleset for the registry.
std::unique_ptr<const Ruleset> MakeAslRuleset();

// Returns a readable account of `event` in `state` (the state before the event), one or more
// lines, e.g. "A11.11 side_a attacks R1, R2 with G1, L1: 5:8 -> 1-2, Kill # 4 ...".
std::string DescribeEvent(const State& state, const Event& event);

// Returns the id of the unit at `index` in `state`, or "?" when out of range.
std::string_view UnitId(const State& state, size_t index);

// Returns the id of the unit at `index` as `event` names it: a unit of `before` (the state the
// event is applied to) or one the event itself creates (a created leader, a split HS); "?" else.
std::string_view UnitId(const State& before, const Event& event, size_t index);

}  // namespace melee::engine::asl
