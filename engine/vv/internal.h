#pragma once

// Helpers shared by the vv rules, allocation and preview code. Not part of the engine's API.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/vv/protocol.h"

namespace melee::engine::vv::internal {

inline size_t SeatIndex(Seat seat) { return seat == Seat::kSideA ? 0 : 1; }

// Returns the index of the unit named `id`, or nothing.
std::optional<uint16_t> FindUnit(const State& state, std::string_view id);

// The defender's units that are present in the target hex and not pinned (pinned ones are
// eliminated first, 15.9), in unit order.
std::vector<uint16_t> UnpinnedDefenders(const State& state);
// The defender's units present in the target hex and pinned.
std::vector<uint16_t> PinnedDefenders(const State& state);

// The units of `seat` that Casualty Points may go to now: the assault group (assaulter) or the
// defenders (not a transported Gun, 14.65), present, in unit order.
std::vector<uint16_t> Receivers(const State& state, Seat seat);

// The passengers (and transported Guns) of vehicle `unit` that are still present.
std::vector<uint16_t> PassengersOf(const State& state, uint16_t unit);

// How `unit` counts in the assault with `use` (nullptr: nothing besides itself) for its side,
// whose pool gives the Satchel Charge's APFP (12.3, 12.53, 15.4, 15.5, 16.3).
Contribution ContributionOf(const State& state, uint16_t unit, const UnitUse* use);

// The cover modifier of the hex assaulted as 15.8 counts it (VV-AMB-5), with its parts.
std::vector<Modifier> CoverParts(const State& state);

// The leader whose Leadership Modifier `seat` uses: the declared one (board) or the best of the
// eligible ones (pc, first on ties); nothing when none.
std::optional<uint16_t> LeaderOf(const State& state, Seat seat, const Declare& declare);

// The totals, odds and modifiers of the assault the two declarations make, before the DR.
struct Assessment {
  std::vector<Contribution> assault;
  std::vector<Contribution> defence;
  int assault_apfp = 0;
  int defence_apfp = 0;
  vv::Odds odds = vv::Odds::k1to1;
  int printed_kill_number = 0;
  std::vector<Modifier> kill_number_modifiers;
  int kill_number = 0;
  std::vector<Modifier> dr_modifiers;
  std::vector<uint16_t> leaders;
  std::vector<std::string> notes;
};
Assessment Assess(const State& state, const Declare& assaulter, const Declare& defender);

// Casualty Points the assaulter suffers for `margin` (0 on a success), with their parts (15.8,
// 15.81).
std::vector<Modifier> AssaulterCpParts(const State& state, int margin);
int Sum(const std::vector<Modifier>& parts);

}  // namespace melee::engine::vv::internal
