#pragma once

// Helpers shared by the coc rules, resolver and preview code. Not part of the engine's API.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/coc/rules.h"

namespace melee::engine::coc::internal {

inline size_t SeatIndex(Seat seat) { return seat == Seat::kSideA ? 0 : 1; }

// Returns the index of the unit named `id`, or nothing.
std::optional<uint16_t> FindUnit(const State& state, std::string_view id);

// The defending Unit (its index); a set-up close combat has exactly one.
uint16_t DefenderUnit(const State& state);
// The attacking Units in set-up order.
std::vector<uint16_t> AttackingUnits(const State& state);

// The Units of `seat` fighting in combat `combat` (not the supporting ones), still in play.
std::vector<uint16_t> FightingUnits(const State& state, Seat seat, int combat);
// Their Teams with figures left, in set-up order: where hits go (17.4.1).
std::vector<TeamRef> FightingTeams(const State& state, Seat seat, int combat);

// An event of `kind` by `seat`, to be filled in.
Event MakeEvent(EventKind kind, Seat seat);
// Moves the dice rolled since the last event into `event`, applies it to `state` and appends it
// to `events`: how Decide builds the events it returns on a working copy of the state.
void Emit(const CocRules& rules, State& state, Dice& dice, std::vector<Event>& events,
          Event event);

// Folds one effect into `state` (Apply, and the resolver's working state).
void ApplyEffect(State& state, const Effect& effect);

// The events that follow a reveal, a placement or a round: the next rounds and combats until a
// side owes a placement or the contact ends. Applies each event to `state` as it goes and
// appends it to `events`.
void Advance(const CocRules& rules, State& state, Dice& dice, std::vector<Event>& events);

// The events of an over-run (17.7, 17.7.1) or a ramming (17.8) just set up.
void ResolveVehicleContact(const CocRules& rules, State& state, Dice& dice,
                           std::vector<Event>& events);

// "[DEFAULT - NOT FROM RULES]" and where it comes from, for notes.
inline constexpr std::string_view kPlaceholder = "[DEFAULT - NOT FROM RULES]";

}  // namespace melee::engine::coc::internal
