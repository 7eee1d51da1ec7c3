#pragma once

// Delivers the outbox's notices to the seats' webhooks (docs/notifications.md), on a thread of
// its own, so that a slow or dead receiver never holds up a match: a JSON POST per notice with
//   X-Melee-Delivery: <delivery id>
//   X-Melee-Signature: sha256=<hex HMAC-SHA256 of the body, keyed by the seat's secret>
// through libcurl. A 2xx answer removes the notice; anything else (refused, timed out, 4xx, 5xx)
// is retried later with exponential backoff (capped). At least once: a notice may arrive twice,
// receivers de-duplicate on the delivery id.
//
// Thread-safe: Wake() and Stop() from any thread.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "persistence/notification_store.h"
#include "server/metrics.h"
#include "server/notify/webhooks.h"

namespace melee::server::notify {

struct DeliveryOptions {
  int64_t first_retry_ms = 1000;   // after the first failure; doubled after each one
  int64_t max_retry_ms = 300000;   // the cap of the backoff
  int64_t timeout_ms = 5000;       // one POST, connection included
  int64_t poll_ms = 1000;          // how often the outbox is read when nothing wakes it
  size_t batch = 32;               // notices read at once
};

// Returns "sha256=" and the hex HMAC-SHA256 of `body` keyed by `secret` (its bytes as given).
std::string Signature(const std::string& secret, const std::string& body);

class WebhookDelivery {
 public:
  // `store`, `webhooks` and `metrics` must outlive this.
  WebhookDelivery(persistence::NotificationStore& store, const Webhooks& webhooks,
                  Metrics& metrics, DeliveryOptions options);
  // Stops (see Stop).
  ~WebhookDelivery();
  WebhookDelivery(const WebhookDelivery&) = delete;
  WebhookDelivery& operator=(const WebhookDelivery&) = delete;

  // Starts the delivery thread.
  void Start();
  // Reads the outbox now (new notices are durable).
  void Wake();
  // Ends the thread after the POST in flight (at most timeout_ms); what is left stays in the
  // outbox for the next start. Idempotent.
  void Stop();

 private:
  void Loop();
  // Posts one notice; returns "" on a 2xx answer, else why it failed.
  std::string Post(const persistence::Webhook& webhook, const persistence::OutboxNotice& notice);
  void Deliver(const persistence::OutboxNotice& notice);
  void UpdateGauges();

  persistence::NotificationStore& store_;
  const Webhooks& webhooks_;
  Metrics& metrics_;
  const DeliveryOptions options_;
  std::mutex mutex_;
  std::condition_variable wake_cv_;
  bool woken_ = false;     // guarded by mutex_
  bool stopping_ = false;  // guarded by mutex_
  int64_t next_retry_unix_ms_ = 0;  // delivery thread only: the earliest retry of this round
  std::thread thread_;
};

}  // namespace melee::server::notify
