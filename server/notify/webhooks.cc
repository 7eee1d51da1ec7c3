// Webhook registration and the outbox rows of notices: see webhooks.h.

#include "server/notify/webhooks.h"

#include <cstdio>
#include <ctime>

#include "persistence/fair_play.h"
#include "server/notify/webhook_url.h"

namespace melee::server::notify {
namespace {

constexpr size_t kSecretBytes = 32;
constexpr size_t kDeliveryIdBytes = 16;

// Returns `text` as a JSON string literal.
std::string Quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Returns `unix_ms` as an RFC 3339 UTC time ("2026-11-25T21:00:00Z").
std::string Rfc3339(int64_t unix_ms) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// Returns the human sentence of `notice`.
std::string Sentence(const MatchNotices& notices, const SeatNotice& notice) {
  const std::string seat(engine::Name(notice.seat));
  const std::string by = notice.deadline_unix_ms != 0
                             ? " by " + Rfc3339(notice.deadline_unix_ms)
                             : std::string();
  const std::string now = notice.waiting_for.empty()
                              ? std::string()
                              : " The match waits for " + notice.waiting_for + by + ".";
  switch (notice.kind) {
    case SeatNotice::Kind::kYourTurn:
      return "Match " + notices.match_id + ": it is " + seat + "'s turn (" + notice.awaited +
             ")." + now;
    case SeatNotice::Kind::kDefaultTaken:
      return "Match " + notices.match_id + ": the deadline passed and the rules default was "
             "taken for " + seat + "." + now;
    case SeatNotice::Kind::kEnded:
      return "Match " + notices.match_id + ": " +
             (notice.waiting_for.empty() ? "the close combat is over"
                                         : "the match is over: " + notice.waiting_for) +
             " (event " + std::to_string(notices.last_seq) + ").";
    case SeatNotice::Kind::kReminder:
      return "Match " + notices.match_id + ": a reminder: " + seat + "'s time for its " +
             notice.awaited + " runs out at " + Rfc3339(notice.deadline_unix_ms) + "." + now;
  }
  return {};
}

}  // namespace

std::string NoticeBody(const std::string& delivery_id, const MatchNotices& notices,
                       const SeatNotice& notice) {
  std::string body = "{\"delivery_id\":" + Quoted(delivery_id) +
                     ",\"match_id\":" + Quoted(notices.match_id) +
                     ",\"seat\":" + Quoted(engine::Name(notice.seat)) +
                     ",\"kind\":" + Quoted(Name(notice.kind)) +
                     ",\"awaited\":" + Quoted(notice.awaited) +
                     ",\"waiting_for\":" + Quoted(notice.waiting_for) +
                     ",\"deadline_unix_ms\":" + std::to_string(notice.deadline_unix_ms);
  if (notice.deadline_unix_ms != 0) {
    body += ",\"deadline\":" + Quoted(Rfc3339(notice.deadline_unix_ms));
  }
  body += ",\"last_seq\":" + std::to_string(notices.last_seq) +
          ",\"recorded_unix_ms\":" + std::to_string(notices.recorded_unix_ms) +
          ",\"text\":" + Quoted(Sentence(notices, notice)) + "}";
  return body;
}

Webhooks::Webhooks(persistence::NotificationStore* store) : store_(store) {}

persistence::StoreResult<void> Webhooks::Load() {
  if (store_ == nullptr) return {};
  auto webhooks = store_->Webhooks();
  if (!webhooks) return tl::unexpected(webhooks.error());
  std::unique_lock lock(mutex_);
  cache_.clear();
  for (persistence::Webhook& webhook : *webhooks) {
    Key key{webhook.match_id, webhook.seat};
    cache_[std::move(key)] = std::move(webhook);
  }
  return {};
}

tl::expected<std::string, RegistrationError> Webhooks::Register(const std::string& match_id,
                                                                engine::Seat seat,
                                                                const std::string& url) {
  if (std::optional<std::string> problem = WebhookUrlProblem(url)) {
    return tl::unexpected(RegistrationError{.invalid = true, .message = std::move(*problem)});
  }
  if (store_ == nullptr) {
    return tl::unexpected(RegistrationError{
        .invalid = false, .message = "this server's store keeps no notifications"});
  }
  persistence::Webhook webhook{.match_id = match_id,
                               .seat = std::string(engine::Name(seat)),
                               .url = url,
                               .secret = persistence::BytesToHex(
                                   persistence::RandomBytes(kSecretBytes))};
  if (auto stored = store_->SetWebhook(webhook); !stored) {
    return tl::unexpected(RegistrationError{.invalid = false, .message = stored.error().message});
  }
  std::string secret = webhook.secret;
  std::unique_lock lock(mutex_);
  cache_[Key{match_id, webhook.seat}] = std::move(webhook);
  return secret;
}

tl::expected<void, RegistrationError> Webhooks::Remove(const std::string& match_id,
                                                       engine::Seat seat) {
  if (store_ == nullptr) return {};
  const std::string name(engine::Name(seat));
  if (auto removed = store_->RemoveWebhook(match_id, name); !removed) {
    return tl::unexpected(RegistrationError{.invalid = false, .message = removed.error().message});
  }
  std::unique_lock lock(mutex_);
  cache_.erase(Key{match_id, name});
  return {};
}

std::optional<persistence::Webhook> Webhooks::Find(const std::string& match_id,
                                                   const std::string& seat) const {
  std::shared_lock lock(mutex_);
  const auto it = cache_.find(Key{match_id, seat});
  if (it == cache_.end()) return std::nullopt;
  return it->second;
}

void Webhooks::OnCommitted(std::function<void()> wake) {
  std::unique_lock lock(mutex_);
  wake_ = std::move(wake);
}

bool Webhooks::Wants(std::string_view match_id, engine::Seat seat) const {
  std::shared_lock lock(mutex_);
  return cache_.contains(Key{std::string(match_id), std::string(engine::Name(seat))});
}

std::vector<persistence::OutboxNotice> Webhooks::Outbox(const MatchNotices& notices) {
  std::vector<persistence::OutboxNotice> rows;
  for (const SeatNotice& notice : notices.notices) {
    if (!Wants(notices.match_id, notice.seat)) continue;
    const std::string delivery_id =
        persistence::BytesToHex(persistence::RandomBytes(kDeliveryIdBytes));
    rows.push_back(persistence::OutboxNotice{
        .delivery_id = delivery_id,
        .match_id = notices.match_id,
        .seat = std::string(engine::Name(notice.seat)),
        .body = NoticeBody(delivery_id, notices, notice),
        .created_unix_ms = notices.recorded_unix_ms,
        .attempts = 0,
        .next_attempt_unix_ms = 0});
  }
  return rows;
}

void Webhooks::Committed() {
  // Under the lock: once OnCommitted(nullptr) returns, no wake-up is still running.
  std::shared_lock lock(mutex_);
  if (wake_) wake_();
}

}  // namespace melee::server::notify
