#pragma once

// A notice waiting in the outbox (persistence/notification_store.h); an AppendBatch carries the
// notices its events cause, written in the same transaction.

#include <cstdint>
#include <string>

namespace melee::persistence {

// One notice in the outbox: `body` is the JSON POSTed, fixed when the notice is made, so every
// retry sends the same bytes.
struct OutboxNotice {
  std::string delivery_id;
  std::string match_id;
  std::string seat;
  std::string body;
  int64_t created_unix_ms = 0;
  uint32_t attempts = 0;              // failed attempts so far
  int64_t next_attempt_unix_ms = 0;  // not before this
};

}  // namespace melee::persistence
