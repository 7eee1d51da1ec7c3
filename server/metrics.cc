#include "server/metrics.h"

#include <prometheus/text_serializer.h>

namespace melee::server {
namespace {

prometheus::Family<prometheus::Counter>& CounterFamily(prometheus::Registry& registry,
                                                       const std::string& name,
                                                       const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

prometheus::Histogram::BucketBoundaries LatencyBuckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0};
}

}  // namespace

Metrics::Metrics()
    : http_requests(CounterFamily(*registry_, "melee_http_requests_total",
                                  "HTTP requests served (WebSocket upgrades included)")
                        .Add({})),
      connections_accepted(
          CounterFamily(*registry_, "melee_connections_accepted_total", "TCP connections accepted")
              .Add({})),
      connections_refused(CounterFamily(*registry_, "melee_connections_refused_total",
                                        "TCP connections refused by the connection limits")
                              .Add({})),
      websocket_open(prometheus::BuildGauge()
                         .Name("melee_websocket_connections")
                         .Help("WebSocket connections open now")
                         .Register(*registry_)
                         .Add({})),
      messages_received(CounterFamily(*registry_, "melee_ws_messages_received_total",
                                      "WebSocket messages received")
                            .Add({})),
      messages_sent(
          CounterFamily(*registry_, "melee_ws_messages_sent_total", "WebSocket messages sent")
              .Add({})),
      bytes_received(CounterFamily(*registry_, "melee_ws_bytes_received_total",
                                   "WebSocket payload bytes received")
                         .Add({})),
      slow_readers_closed(CounterFamily(*registry_, "melee_slow_readers_closed_total",
                                        "WebSocket clients closed for not reading their messages")
                              .Add({})),
      match_creations_limited(CounterFamily(*registry_, "melee_match_creations_rate_limited_total",
                                            "Match creations refused by the per-address limit "
                                            "(--match-creations-per-minute)")
                                  .Add({})),
      matches_open(prometheus::BuildGauge()
                       .Name("melee_matches")
                       .Help("Matches held in memory (created or recovered)")
                       .Register(*registry_)
                       .Add({})),
      matches_dormant(prometheus::BuildGauge()
                          .Name("melee_matches_dormant")
                          .Help("Matches in the store owing nothing, not loaded yet: each is "
                                "loaded and replayed when first asked for")
                          .Register(*registry_)
                          .Add({})),
      matches_unrecovered(prometheus::BuildGauge()
                              .Name("melee_matches_unrecovered")
                              .Help("Matches in the store that could not be recovered "
                                    "(not served; GET /healthz names them)")
                              .Register(*registry_)
                              .Add({})),
      matches_unloaded(CounterFamily(*registry_, "melee_matches_unloaded_total",
                                     "Matches unloaded after --unload-idle-seconds unused "
                                     "(dormant again: loaded when next asked for)")
                           .Add({})),
      commands_answered_again(
          CounterFamily(*registry_, "melee_commands_answered_again_total",
                        "Match commands sent again with an id already applied (their answer was "
                        "lost with a connection): answered as the first time, not applied again")
              .Add({})),
      store_failed_appends(
          CounterFamily(*registry_, "melee_store_failed_appends_total",
                        "Appends the event store refused (disk full, I/O error, read-only file, "
                        "damaged log); nothing of them was acknowledged")
              .Add({})),
      store_transactions(
          CounterFamily(*registry_, "melee_store_transactions_total",
                        "Transactions the event store committed, each one fsync: a group commit "
                        "writes every append waiting in one")
              .Add({})),
      command_ack_seconds(prometheus::BuildHistogram()
                              .Name("melee_command_ack_seconds")
                              .Help("Match command received to answered (decided, durable, sent)")
                              .Register(*registry_)
                              .Add({}, LatencyBuckets())),
      store_append_seconds(prometheus::BuildHistogram()
                               .Name("melee_store_append_seconds")
                               .Help("Event store append to durable commit")
                               .Register(*registry_)
                               .Add({}, LatencyBuckets())),
      webhooks_pending(prometheus::BuildGauge()
                           .Name("melee_webhooks_pending")
                           .Help("Webhook notices in the outbox, not delivered yet")
                           .Register(*registry_)
                           .Add({})),
      webhooks_oldest_pending_seconds(
          prometheus::BuildGauge()
              .Name("melee_webhooks_oldest_pending_seconds")
              .Help("Age of the oldest webhook notice not delivered yet (0: none)")
              .Register(*registry_)
              .Add({})),
      webhooks_delivered(CounterFamily(*registry_, "melee_webhooks_delivered_total",
                                       "Webhook notices delivered (answered 2xx)")
                             .Add({})),
      webhook_attempts_failed(CounterFamily(*registry_, "melee_webhook_attempts_failed_total",
                                            "Webhook delivery attempts that failed (retried)")
                                  .Add({})),
      emails_pending(prometheus::BuildGauge()
                         .Name("melee_emails_pending")
                         .Help("Email notices in the outbox, not mailed yet")
                         .Register(*registry_)
                         .Add({})),
      emails_oldest_pending_seconds(
          prometheus::BuildGauge()
              .Name("melee_emails_oldest_pending_seconds")
              .Help("Age of the oldest email notice not mailed yet (0: none)")
              .Register(*registry_)
              .Add({})),
      emails_delivered(CounterFamily(*registry_, "melee_emails_delivered_total",
                                     "Notification mails the SMTP relay accepted")
                           .Add({})),
      email_attempts_failed(CounterFamily(*registry_, "melee_email_attempts_failed_total",
                                          "Mail delivery attempts that failed (retried)")
                                .Add({})),
      errors_(CounterFamily(*registry_, "melee_errors_total",
                            "Frames and commands refused, by error code")),
      commands_(CounterFamily(*registry_, "melee_commands_total",
                              "WebSocket commands received, by command")),
      tls_failures_(CounterFamily(*registry_, "melee_tls_handshake_failures_total",
                                  "TLS handshakes that failed, by OpenSSL's reason (http_request: "
                                  "plain HTTP on the TLS port; unsupported_protocol: TLS 1.0 or "
                                  "1.1; tlsv1_alert_unknown_ca: the client does not trust the "
                                  "certificate; timeout; closed)")) {}

std::string Metrics::Render() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

void Metrics::CountError(const std::string& code) { errors_.Add({{"code", code}}).Increment(); }

void Metrics::CountTlsHandshakeFailure(const std::string& reason) {
  tls_failures_.Add({{"reason", reason}}).Increment();
}

void Metrics::SyncStoreWrites(uint64_t failed_appends, uint64_t transactions) {
  std::lock_guard lock(sync_mutex_);
  if (failed_appends > synced_failed_appends_) {
    store_failed_appends.Increment(static_cast<double>(failed_appends - synced_failed_appends_));
    synced_failed_appends_ = failed_appends;
  }
  if (transactions > synced_transactions_) {
    store_transactions.Increment(static_cast<double>(transactions - synced_transactions_));
    synced_transactions_ = transactions;
  }
}

void Metrics::CountCommand(int number, const std::string& name) {
  if (number < 0 || number >= kCachedCommands) {
    commands_.Add({{"command", name}}).Increment();
    return;
  }
  std::atomic<prometheus::Counter*>& cached = command_counters_[static_cast<size_t>(number)];
  prometheus::Counter* counter = cached.load(std::memory_order_acquire);
  if (counter == nullptr) {
    // Two threads may both get here: Family::Add gives both the same counter.
    counter = &commands_.Add({{"command", name}});
    cached.store(counter, std::memory_order_release);
  }
  counter->Increment();
}

}  // namespace melee::server
