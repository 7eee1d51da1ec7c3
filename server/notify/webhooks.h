#pragma once

// The seats' webhooks (docs/notifications.md): registration (checked URL, a fresh signing
// secret), a cache of who wants notices, and the NoticeSink that turns a match's notices into
// outbox rows with their JSON bodies. The URLs and secrets live in the store's `webhooks` table
// only: never in the log, a view or a match file.
//
// Thread-safe.

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>

#include <tl/expected.hpp>

#include "persistence/notification_store.h"
#include "server/notices.h"

namespace melee::server::notify {

// Why a registration was refused; `invalid`: the request's fault (a bad URL), else the server's.
struct RegistrationError {
  bool invalid = true;
  std::string message;
};

class Webhooks final : public NoticeSink {
 public:
  // `store` (null: the store keeps no notifications, and registrations are refused) must outlive
  // this.
  explicit Webhooks(persistence::NotificationStore* store);

  // Reads every registered webhook from the store into the cache.
  persistence::StoreResult<void> Load();

  // Registers (or replaces) the webhook of `seat` in `match_id`; returns its new secret, which
  // signs every notice from now on and is not shown again.
  tl::expected<std::string, RegistrationError> Register(const std::string& match_id,
                                                        engine::Seat seat, const std::string& url);
  // Removes the webhook of `seat`, and the notices still waiting for it.
  tl::expected<void, RegistrationError> Remove(const std::string& match_id, engine::Seat seat);

  // Returns the webhook of `seat` ("side_a", "side_b") in `match_id`, if registered.
  std::optional<persistence::Webhook> Find(const std::string& match_id,
                                           const std::string& seat) const;

  // Sets what runs when new notices are durable (the delivery's wake-up); once it returns, the
  // previous one no longer runs. `wake` must not call back into this.
  void OnCommitted(std::function<void()> wake);

  bool Wants(std::string_view match_id, engine::Seat seat) const override;
  std::vector<persistence::OutboxNotice> Outbox(const MatchNotices& notices) override;
  void Committed() override;

 private:
  using Key = std::pair<std::string, std::string>;  // match id, seat name
  persistence::NotificationStore* const store_;
  mutable std::shared_mutex mutex_;
  std::map<Key, persistence::Webhook, std::less<>> cache_;  // guarded by mutex_
  std::function<void()> wake_;                              // guarded by mutex_
};

// Returns the JSON body of `notice` for `seat`, with `delivery_id` (docs/notifications.md).
std::string NoticeBody(const std::string& delivery_id, const MatchNotices& notices,
                       const SeatNotice& notice);

}  // namespace melee::server::notify
