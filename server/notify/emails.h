#pragma once

// The seats' mail addresses (docs/notifications.md): registration (a checked address, an optional
// digest), a cache of who wants mail, and the NoticeSink that turns a match's notices into email
// outbox rows (the notice's JSON, as a webhook gets it: the mail is written from it when it is
// sent). The addresses, and the seat tokens kept with them for the mails' links, live in the
// store's `emails` table only: never in the log, a view, a frame or a match file.
//
// Thread-safe.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>

#include <tl/expected.hpp>

#include "persistence/notification_store.h"
#include "server/notices.h"
#include "server/notify/webhooks.h"

namespace melee::server::notify {

// The longest digest window accepted: a week.
inline constexpr uint32_t kMaxDigestMinutes = 7 * 24 * 60;

class Emails final : public NoticeSink {
 public:
  // `store` (null: the store keeps no notifications) must outlive this. `sends_mail`: whether
  // this server has a relay (--smtp-url); without one every registration is refused.
  Emails(persistence::NotificationStore* store, bool sends_mail);

  // Reads every registered address from the store into the cache.
  persistence::StoreResult<void> Load();

  // Registers (or replaces) the mail address of `seat` in `match_id`, with the `token` the seat
  // registered with (the mails carry its link and seat file). `digest_minutes`: 0 for a mail per
  // notice, else at most one mail per that many minutes.
  tl::expected<void, RegistrationError> Register(const std::string& match_id, engine::Seat seat,
                                                 const std::string& address,
                                                 uint32_t digest_minutes,
                                                 const std::string& token);
  // Removes the address of `seat`, and the mails still waiting for it.
  tl::expected<void, RegistrationError> Remove(const std::string& match_id, engine::Seat seat);

  // Returns the registration of `seat` ("side_a", "side_b") in `match_id`, if any.
  std::optional<persistence::EmailRegistration> Find(const std::string& match_id,
                                                     const std::string& seat) const;
  // Records, durably, that a mail telling of events up to `seq` went to the seat at `unix_ms`.
  persistence::StoreResult<void> Sent(const std::string& match_id, const std::string& seat,
                                      int64_t unix_ms, uint64_t seq);

  // Sets what runs when new mails are durable (the delivery's wake-up); once it returns, the
  // previous one no longer runs. `wake` must not call back into this.
  void OnCommitted(std::function<void()> wake);

  bool Wants(std::string_view match_id, engine::Seat seat) const override;
  std::vector<persistence::OutboxNotice> Outbox(const MatchNotices& notices) override;
  void Committed() override;

 private:
  using Key = std::pair<std::string, std::string>;  // match id, seat name
  persistence::NotificationStore* const store_;
  const bool sends_mail_;
  mutable std::shared_mutex mutex_;
  std::map<Key, persistence::EmailRegistration, std::less<>> cache_;  // guarded by mutex_
  std::function<void()> wake_;                                        // guarded by mutex_
};

}  // namespace melee::server::notify
