#pragma once

// What the store keeps for notifications (docs/notifications.md), beside the event log and never
// in it: each seat's webhook (URL and signing secret) and mail address, and the outbox of notices
// not delivered yet, each for one channel (webhook or email). A notice enters the outbox in the same transaction as the events that cause it
// (AppendBatch::notices), so a notice is never lost once its events are durable; it leaves the
// outbox when its receiver answered 2xx (at-least-once: a crash between the answer and the
// delete sends it again, with the same delivery id).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "persistence/event_store.h"
#include "persistence/outbox_notice.h"

namespace melee::persistence {

// A seat's webhook. `seat` is "side_a" or "side_b".
struct Webhook {
  std::string match_id;
  std::string seat;
  std::string url;
  std::string secret;  // the HMAC-SHA256 key, as handed to the seat once
};

// A seat's mail registration. The seat's token is kept with the address so that the mail can
// carry the seat's link and seat file (docs/notifications.md): both leave with DELETE.
struct EmailRegistration {
  std::string match_id;
  std::string seat;
  std::string address;
  uint32_t digest_minutes = 0;  // 0: a mail per notice; N: at most one mail per N minutes
  std::string token;            // the seat token the seat registered with
  int64_t last_mailed_unix_ms = 0;  // the last mail sent to it (0: none yet)
  uint64_t last_mailed_seq = 0;     // the last event that mail told of
};

// How many notices wait, and since when.
struct OutboxStats {
  uint64_t pending = 0;
  int64_t oldest_created_unix_ms = 0;  // 0 when none
};

// Thread-safe: every method may be called from any thread.
class NotificationStore {
 public:
  virtual ~NotificationStore() = default;

  // Registers or replaces the webhook of (match_id, seat) durably.
  virtual StoreResult<void> SetWebhook(const Webhook& webhook) = 0;
  // Removes the webhook of (match_id, seat) and the webhook notices still waiting for it.
  virtual StoreResult<void> RemoveWebhook(const std::string& match_id,
                                          const std::string& seat) = 0;
  // Returns every registered webhook.
  virtual StoreResult<std::vector<Webhook>> Webhooks() = 0;

  // Registers or replaces the mail address of (match_id, seat) durably; keeps the record of the
  // last mail sent when the seat had an address already.
  virtual StoreResult<void> SetEmail(const EmailRegistration& email) = 0;
  // Removes the mail address of (match_id, seat) and the mails still waiting for it.
  virtual StoreResult<void> RemoveEmail(const std::string& match_id, const std::string& seat) = 0;
  // Returns every registered mail address.
  virtual StoreResult<std::vector<EmailRegistration>> Emails() = 0;
  // Records that a mail telling of events up to `seq` went to (match_id, seat) at `unix_ms`.
  virtual StoreResult<void> EmailSent(const std::string& match_id, const std::string& seat,
                                      int64_t unix_ms, uint64_t seq) = 0;

  // Returns up to `limit` notices of `channel` whose next attempt is due at `now_unix_ms`,
  // oldest first.
  virtual StoreResult<std::vector<OutboxNotice>> DueNotices(const std::string& channel,
                                                            int64_t now_unix_ms,
                                                            size_t limit) = 0;
  // Returns every notice of `channel` waiting for (match_id, seat), due or not, oldest first.
  virtual StoreResult<std::vector<OutboxNotice>> SeatNotices(const std::string& channel,
                                                             const std::string& match_id,
                                                             const std::string& seat) = 0;
  // Removes a delivered notice.
  virtual StoreResult<void> NoticeDelivered(const std::string& delivery_id) = 0;
  // Records a failed attempt: the count of attempts, when to try next, and why it failed.
  virtual StoreResult<void> NoticeFailed(const std::string& delivery_id, uint32_t attempts,
                                         int64_t next_attempt_unix_ms,
                                         const std::string& error) = 0;
  // Returns how many notices of `channel` wait and its oldest one's time.
  virtual StoreResult<OutboxStats> Outbox(const std::string& channel) = 0;
};

}  // namespace melee::persistence
