#pragma once

// melee-server: one HTTP + WebSocket listener, its sessions and the shared state behind them.
//
// Lifecycle: construct, Start() (binds; returns the port), Run() on the caller's thread (and
// config.threads - 1 more), Stop() from any thread. Run() returns once every connection has
// closed or a grace period has passed.

#include <atomic>
#include <functional>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <tl/expected.hpp>
#include <vector>

#include "engine/core/registry.h"
#include "persistence/event_store.h"
#include "server/clock.h"
#include "server/matches.h"
#include "server/metrics.h"
#include "server/net.h"
#include "server/notify/emails.h"
#include "server/notify/mail_delivery.h"
#include "server/notify/webhook_delivery.h"
#include "server/notify/webhooks.h"
#include "server/transport/config.h"
#include "server/transport/connections.h"
#include "server/transport/context.h"
#include "server/transport/dispatcher.h"
#include "server/transport/hooks.h"

#include <boost/asio/ssl.hpp>

namespace melee::server {

class Server {
 public:
  // `store` is shared with the caller; `registry` lists the rulesets served.
  Server(ServerConfig config, std::shared_ptr<persistence::EventStore> store,
         melee::engine::Registry registry, ServerHooks hooks = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Recovers every match from the store, binds the listening socket and starts accepting. Returns the bound port (useful with
  // port 0), or a message naming the address that could not be bound.
  tl::expected<uint16_t, std::string> Start();

  // Runs the server until Stop() completes, on this thread and config.threads - 1 others.
  void Run();

  // Stops accepting, closes every WebSocket with 1001 "going away", then ends Run().
  // Thread-safe and idempotent.
  void Stop();

  // Calls Stop() on SIGINT or SIGTERM. Call before Run().
  void StopOnSignals();

  const Metrics& metrics() const { return metrics_; }
  Matches& matches() { return matches_; }

 private:
  void DoAccept();
  void OnAccept(error_code ec, StrandSocket socket);
  // Answers a connection a limit refused (`refusal` says which) with a 503, or its GET /healthz,
  // then closes it.
  void Refuse(StrandSocket socket, const std::string& address, const std::string& refusal);
  void ScheduleDeadlineSweep();
  // With a relay (--smtp-url), starts the delivery thread of mails; `port`: the one listened on
  // (for the links' default public URL).
  tl::expected<void, std::string> StartMailDelivery(uint16_t port);

  // Declaration order is destruction order, reversed: the io_context goes before the matches
  // and the dispatcher but after what its pending handlers' owners (sessions) still touch when
  // they are destroyed with it: metrics, connections and the context.
  ServerConfig config_;
  std::shared_ptr<persistence::EventStore> store_;
  melee::engine::Registry registry_;
  std::shared_ptr<const Clock> clock_;
  std::shared_ptr<const persistence::ServerSecrets> secrets_;  // key and dice secret
  std::shared_ptr<Lifeline> lifeline_ = std::make_shared<Lifeline>();
  Metrics metrics_;
  // Notifications (docs/notifications.md): the seats' webhooks and mail addresses, and their
  // delivery threads.
  std::shared_ptr<notify::Webhooks> webhooks_;
  std::shared_ptr<notify::Emails> emails_;
  std::unique_ptr<notify::WebhookDelivery> delivery_;
  std::unique_ptr<notify::MailDelivery> mail_delivery_;
  AddressRateLimiter match_creations_;
  Connections connections_;
  ServerContext context_;  // refers to matches_ and dispatcher_, declared (and built) below
  asio::io_context ioc_;
  Matches matches_;
  Dispatcher dispatcher_;

  tcp::acceptor acceptor_;
  asio::signal_set signals_;
  asio::steady_timer grace_timer_;
  asio::steady_timer deadline_timer_;
  std::unique_ptr<asio::ssl::context> tls_;  // set when a certificate is configured
  std::atomic<bool> stopping_{false};
};

}  // namespace melee::server
