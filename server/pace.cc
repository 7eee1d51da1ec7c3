#include "server/pace.h"

#include <algorithm>
#include <ctime>
#include <set>

namespace melee::server {
namespace {

namespace v1 = melee::v1;
using engine::Reject;

constexpr uint32_t kHour = 3600;
constexpr uint32_t kDay = 24 * kHour;

v1::Pace MakePace(std::string preset, uint32_t declaration, uint32_t choice, uint32_t bank,
                  uint32_t vacation_days, std::initializer_list<uint32_t> reminders) {
  v1::Pace pace;
  pace.set_preset(std::move(preset));
  pace.set_declaration_seconds(declaration);
  pace.set_choice_seconds(choice);
  pace.set_bank_seconds(bank);
  pace.set_vacation_days(vacation_days);
  pace.set_on_expiry(v1::ON_EXPIRY_DEFAULT);
  for (uint32_t seconds : reminders) pace.add_reminder_seconds(seconds);
  return pace;
}

std::string Seconds(uint32_t seconds) { return std::to_string(seconds) + " s"; }

engine::Result<void> CheckStep(std::string_view field, uint32_t seconds) {
  if (seconds < kMinStepSeconds || seconds > kMaxStepSeconds) {
    return Reject("", "settings.pace." + std::string(field) + ": " + Seconds(seconds) +
                          " is out of bounds (" + Seconds(kMinStepSeconds) + " to " +
                          Seconds(kMaxStepSeconds) + ", 30 days)");
  }
  return {};
}

}  // namespace

engine::Result<v1::Pace> PresetPace(std::string_view preset) {
  // live: a game at one sitting; daily and weekly: correspondence play, a move a day or a week.
  if (preset == "live") return MakePace("live", 120, 60, 300, 0, {60});
  if (preset == "daily") return MakePace("daily", kDay, kDay, 3 * kDay, 14, {kDay, kHour});
  if (preset == "weekly") {
    return MakePace("weekly", 7 * kDay, 3 * kDay, 7 * kDay, 30, {2 * kDay, 6 * kHour});
  }
  return Reject("", "settings.pace.preset: '" + std::string(preset) +
                        "' is not a pace; the presets are live, daily and weekly (or leave it "
                        "empty and give the times)");
}

engine::Result<void> ResolvePace(v1::MatchSettings& settings) {
  if (!settings.has_pace()) return {};
  if (settings.choice_deadline_seconds() != 0 || settings.declaration_deadline_seconds() != 0) {
    return Reject("", "settings: a match with a pace takes its step times from the pace; leave "
                      "choice_deadline_seconds and declaration_deadline_seconds at 0");
  }
  const v1::Pace asked = settings.pace();
  v1::Pace pace;
  if (!asked.preset().empty()) {
    auto preset = PresetPace(asked.preset());
    if (!preset) return tl::unexpected(preset.error());
    pace = std::move(*preset);
  } else {
    pace.set_on_expiry(v1::ON_EXPIRY_DEFAULT);
    if (asked.declaration_seconds() == 0 || asked.choice_seconds() == 0) {
      return Reject("", "settings.pace: without a preset, give declaration_seconds and "
                        "choice_seconds (or a preset: live, daily, weekly)");
    }
  }
  if (asked.declaration_seconds() != 0) pace.set_declaration_seconds(asked.declaration_seconds());
  if (asked.choice_seconds() != 0) pace.set_choice_seconds(asked.choice_seconds());
  if (asked.bank_seconds() != 0) pace.set_bank_seconds(asked.bank_seconds());
  if (asked.vacation_days() != 0) pace.set_vacation_days(asked.vacation_days());
  if (asked.on_expiry() != v1::ON_EXPIRY_UNSPECIFIED) pace.set_on_expiry(asked.on_expiry());
  if (asked.reminder_seconds_size() != 0) *pace.mutable_reminder_seconds() =
      asked.reminder_seconds();
  if (auto ok = CheckStep("declaration_seconds", pace.declaration_seconds()); !ok) return ok;
  if (auto ok = CheckStep("choice_seconds", pace.choice_seconds()); !ok) return ok;
  if (pace.bank_seconds() > kMaxBankSeconds) {
    return Reject("", "settings.pace.bank_seconds: " + Seconds(pace.bank_seconds()) +
                          " is more than the most, " + Seconds(kMaxBankSeconds) + " (60 days)");
  }
  if (pace.vacation_days() > kMaxVacationDays) {
    return Reject("", "settings.pace.vacation_days: " + std::to_string(pace.vacation_days()) +
                          " is more than the most, " + std::to_string(kMaxVacationDays));
  }
  if (!v1::OnExpiry_IsValid(pace.on_expiry())) {
    return Reject("", "settings.pace.on_expiry: " + std::to_string(pace.on_expiry()) +
                          " is not ON_EXPIRY_DEFAULT (1) or ON_EXPIRY_LOSS (2)");
  }
  if (pace.reminder_seconds_size() > kMaxReminders) {
    return Reject("", "settings.pace.reminder_seconds: at most " + std::to_string(kMaxReminders) +
                          " reminders");
  }
  std::set<uint32_t, std::greater<>> reminders;
  for (uint32_t seconds : pace.reminder_seconds()) {
    if (seconds == 0 || seconds > kMaxStepSeconds + kMaxBankSeconds) {
      return Reject("", "settings.pace.reminder_seconds: " + Seconds(seconds) +
                            " is out of bounds (1 s to 90 days before the deadline)");
    }
    if (!reminders.insert(seconds).second) {
      return Reject("", "settings.pace.reminder_seconds: " + Seconds(seconds) + " twice");
    }
  }
  pace.clear_reminder_seconds();
  for (uint32_t seconds : reminders) pace.add_reminder_seconds(seconds);
  *settings.mutable_pace() = std::move(pace);
  return {};
}

std::string_view ExpiryAction(const v1::Pace& pace) {
  return pace.on_expiry() == v1::ON_EXPIRY_LOSS ? "match_lost" : "default_taken";
}

}  // namespace melee::server

namespace melee::server {

std::string UtcTime(int64_t unix_ms) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace melee::server
