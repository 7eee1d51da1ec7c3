// Mail registration and the email outbox rows of notices: see emails.h.

#include "server/notify/emails.h"

#include <algorithm>

#include "persistence/fair_play.h"
#include "server/notify/email_address.h"

namespace melee::server::notify {
namespace {

constexpr size_t kDeliveryIdBytes = 16;

}  // namespace

Emails::Emails(persistence::NotificationStore* store, bool sends_mail)
    : store_(store), sends_mail_(sends_mail) {}

persistence::StoreResult<void> Emails::Load() {
  if (store_ == nullptr) return {};
  auto emails = store_->Emails();
  if (!emails) return tl::unexpected(emails.error());
  std::unique_lock lock(mutex_);
  cache_.clear();
  for (persistence::EmailRegistration& email : *emails) {
    Key key{email.match_id, email.seat};
    cache_[std::move(key)] = std::move(email);
  }
  return {};
}

tl::expected<void, RegistrationError> Emails::Register(const std::string& match_id,
                                                       engine::Seat seat,
                                                       const std::string& address,
                                                       uint32_t digest_minutes,
                                                       const std::string& token) {
  if (!sends_mail_) {
    return tl::unexpected(RegistrationError{
        .invalid = true, .message = "this server sends no mail: start it with --smtp-url"});
  }
  if (std::optional<std::string> problem = EmailAddressProblem(address)) {
    return tl::unexpected(RegistrationError{.invalid = true, .message = std::move(*problem)});
  }
  if (digest_minutes > kMaxDigestMinutes) {
    return tl::unexpected(RegistrationError{
        .invalid = true,
        .message = "digest_minutes is " + std::to_string(digest_minutes) + "; at most " +
                   std::to_string(kMaxDigestMinutes) + " (a week) are accepted"});
  }
  if (store_ == nullptr) {
    return tl::unexpected(RegistrationError{
        .invalid = false, .message = "this server's store keeps no notifications"});
  }
  const std::string name(engine::Name(seat));
  persistence::EmailRegistration email{.match_id = match_id,
                                       .seat = name,
                                       .address = address,
                                       .digest_minutes = digest_minutes,
                                       .token = token};
  if (auto stored = store_->SetEmail(email); !stored) {
    return tl::unexpected(RegistrationError{.invalid = false, .message = stored.error().message});
  }
  std::unique_lock lock(mutex_);
  if (auto it = cache_.find(Key{match_id, name}); it != cache_.end()) {
    // A change of address keeps the record of the last mail (the digest's window, the events
    // already told of).
    email.last_mailed_unix_ms = it->second.last_mailed_unix_ms;
    email.last_mailed_seq = it->second.last_mailed_seq;
  }
  cache_[Key{match_id, name}] = std::move(email);
  return {};
}

tl::expected<void, RegistrationError> Emails::Remove(const std::string& match_id,
                                                     engine::Seat seat) {
  if (store_ == nullptr) return {};
  const std::string name(engine::Name(seat));
  if (auto removed = store_->RemoveEmail(match_id, name); !removed) {
    return tl::unexpected(RegistrationError{.invalid = false, .message = removed.error().message});
  }
  std::unique_lock lock(mutex_);
  cache_.erase(Key{match_id, name});
  return {};
}

std::optional<persistence::EmailRegistration> Emails::Find(const std::string& match_id,
                                                           const std::string& seat) const {
  std::shared_lock lock(mutex_);
  const auto it = cache_.find(Key{match_id, seat});
  if (it == cache_.end()) return std::nullopt;
  return it->second;
}

persistence::StoreResult<void> Emails::Sent(const std::string& match_id, const std::string& seat,
                                            int64_t unix_ms, uint64_t seq) {
  if (store_ == nullptr) return {};
  if (auto stored = store_->EmailSent(match_id, seat, unix_ms, seq); !stored) return stored;
  std::unique_lock lock(mutex_);
  if (auto it = cache_.find(Key{match_id, seat}); it != cache_.end()) {
    it->second.last_mailed_unix_ms = unix_ms;
    it->second.last_mailed_seq = std::max(it->second.last_mailed_seq, seq);
  }
  return {};
}

void Emails::OnCommitted(std::function<void()> wake) {
  std::unique_lock lock(mutex_);
  wake_ = std::move(wake);
}

bool Emails::Wants(std::string_view match_id, engine::Seat seat) const {
  std::shared_lock lock(mutex_);
  return cache_.contains(Key{std::string(match_id), std::string(engine::Name(seat))});
}

std::vector<persistence::OutboxNotice> Emails::Outbox(const MatchNotices& notices) {
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
        .channel = persistence::kEmailChannel,
        .created_unix_ms = notices.recorded_unix_ms,
        .attempts = 0,
        .next_attempt_unix_ms = 0});
  }
  return rows;
}

void Emails::Committed() {
  // Under the lock: once OnCommitted(nullptr) returns, no wake-up is still running.
  std::shared_lock lock(mutex_);
  if (wake_) wake_();
}

}  // namespace melee::server::notify
