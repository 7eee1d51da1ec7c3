#pragma once

// A match's pace (docs/clocks.md): the presets, and the check that turns what a creator asked
// for into the pace the match stores (a preset resolved into its values, so that the log says
// exactly what the clocks were and a later change of a preset never touches a running match).

#include <string>
#include <string_view>

#include "engine/core/result.h"
#include "melee/v1/match.pb.h"

namespace melee::server {

// The pace limits a creator may ask for.
inline constexpr uint32_t kMinStepSeconds = 10;
inline constexpr uint32_t kMaxStepSeconds = 30 * 86400;
inline constexpr uint32_t kMaxBankSeconds = 60 * 86400;
inline constexpr uint32_t kMaxVacationDays = 90;
inline constexpr int kMaxReminders = 4;

// Returns the pace a preset ("live", "daily", "weekly") sets, or an error naming the presets.
engine::Result<melee::v1::Pace> PresetPace(std::string_view preset);

// Resolves `settings.pace` in place when it is set: the preset's values under the fields given
// explicitly, on_expiry spelled out, reminders largest first. Refuses, naming the field, a pace
// out of bounds, or one beside the per-match deadlines it replaces. Settings without a pace are
// left alone (they play as before paces existed).
engine::Result<void> ResolvePace(melee::v1::MatchSettings& settings);

// Returns "default_taken" or "match_lost": what a pace does when a seat's time runs out.
std::string_view ExpiryAction(const melee::v1::Pace& pace);

}  // namespace melee::server

namespace melee::server {

// Returns `unix_ms` as "2026-11-25T21:00:00Z".
std::string UtcTime(int64_t unix_ms);

}  // namespace melee::server
