#pragma once

// A notice waiting in the outbox (persistence/notification_store.h); an AppendBatch carries the
// notices its events cause, written in the same transaction.

#include <cstdint>
#include <string>

namespace melee::persistence {

// The channels a notice travels by: a row of the outbox is delivered by one of them.
inline constexpr const char* kWebhookChannel = "webhook";
inline constexpr const char* kEmailChannel = "email";

// One notice in the outbox: `body` is the notice's JSON (docs/notifications.md), fixed when the
// notice is made: a webhook POSTs these very bytes on every retry, a mail is written from them.
struct OutboxNotice {
  std::string delivery_id;
  std::string match_id;
  std::string seat;
  std::string body;
  std::string channel = kWebhookChannel;  // kWebhookChannel or kEmailChannel
  int64_t created_unix_ms = 0;
  uint32_t attempts = 0;              // failed attempts so far
  int64_t next_attempt_unix_ms = 0;  // not before this
};

}  // namespace melee::persistence
