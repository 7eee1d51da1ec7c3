#include "server/metrics.h"

#include <prometheus/text_serializer.h>

namespace melee::server {
namespace {

prometheus::Family<prometheus::Counter>& CounterFamily(prometheus::Registry& registry,
                                                       const std::string& name,
                                                       const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
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
      errors_(CounterFamily(*registry_, "melee_errors_total",
                            "Frames and commands refused, by error code")) {}

std::string Metrics::Render() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

void Metrics::CountError(const std::string& code) { errors_.Add({{"code", code}}).Increment(); }

}  // namespace melee::server
