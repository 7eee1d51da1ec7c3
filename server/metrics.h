#pragma once

// Server metrics, exposed at GET /metrics in the Prometheus text format (prometheus-cpp).
// Thread-safe: counters and gauges are atomic; Render() may run on any thread.

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace melee::server {

class Metrics {
  // Declared first on purpose: the metric references below are created in it.
  std::shared_ptr<prometheus::Registry> registry_ = std::make_shared<prometheus::Registry>();

 public:
  Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // Returns every metric in the Prometheus text exposition format.
  std::string Render() const;

  // Counts one refused frame or command under its error code label, e.g.
  // "ERROR_CODE_MALFORMED_FRAME" (the melee.v1.ErrorCode name).
  void CountError(const std::string& code);
  // Counts one failed TLS handshake under its reason, e.g. "http_request"
  // (server/transport/tls_failure.h).
  void CountTlsHandshakeFailure(const std::string& reason);
  // Counts one decoded command under its name, e.g. "seal_declaration". `number`, its field
  // number in melee.v1.ClientMessage, keys a cache of the counters: a command counted before
  // costs an atomic load and an increment, not a lookup of its labels under the family's lock.
  void CountCommand(int number, const std::string& name);
  // Brings store_failed_appends and store_transactions up to the store's own counts
  // (WriteHealth).
  void SyncStoreWrites(uint64_t failed_appends, uint64_t transactions);

  prometheus::Counter& http_requests;
  prometheus::Counter& connections_accepted;
  prometheus::Counter& connections_refused;
  prometheus::Gauge& websocket_open;
  prometheus::Counter& messages_received;
  prometheus::Counter& messages_sent;
  prometheus::Counter& bytes_received;
  prometheus::Counter& slow_readers_closed;
  prometheus::Counter& match_creations_limited;
  prometheus::Gauge& matches_open;
  prometheus::Gauge& matches_dormant;
  prometheus::Gauge& matches_unrecovered;
  prometheus::Counter& matches_unloaded;
  prometheus::Counter& commands_answered_again;
  prometheus::Counter& store_failed_appends;
  prometheus::Counter& store_transactions;
  prometheus::Histogram& command_ack_seconds;
  prometheus::Histogram& store_append_seconds;
  // Webhook notices (docs/notifications.md).
  prometheus::Gauge& webhooks_pending;
  prometheus::Gauge& webhooks_oldest_pending_seconds;
  prometheus::Counter& webhooks_delivered;
  prometheus::Counter& webhook_attempts_failed;
  // Email notices (docs/notifications.md).
  prometheus::Gauge& emails_pending;
  prometheus::Gauge& emails_oldest_pending_seconds;
  prometheus::Counter& emails_delivered;
  prometheus::Counter& email_attempts_failed;

 private:
  prometheus::Family<prometheus::Counter>& errors_;
  prometheus::Family<prometheus::Counter>& commands_;
  static constexpr int kCachedCommands = 128;  // field numbers 0..127
  std::array<std::atomic<prometheus::Counter*>, kCachedCommands> command_counters_{};
  prometheus::Family<prometheus::Counter>& tls_failures_;
  std::mutex sync_mutex_;
  uint64_t synced_failed_appends_ = 0;  // guarded by sync_mutex_
  uint64_t synced_transactions_ = 0;    // guarded by sync_mutex_
};

}  // namespace melee::server
