#pragma once

// melee-server: one HTTP + WebSocket listener, its sessions and the shared state behind them.
//
// Lifecycle: construct, Start() (binds; returns the port), Run() on the caller's thread (and
// config.threads - 1 more), Stop() from any thread. Run() returns once every connection has
// closed or a grace period has passed.

#include <cstdint>
#include <memory>
#include <string>
#include <tl/expected.hpp>

#include "engine/core/registry.h"
#include "persistence/event_store.h"
#include "server/transport/config.h"
#include "server/transport/hooks.h"

// The sockets, sessions, io_context and the parts behind them are Server::Impl's, in
// server.cc: a program that starts a server (melee-server's main.cc, the tests) does not read
// Asio's and Beast's headers (docs/architecture.md, "Build time").

namespace melee::server {

class Matches;
class Metrics;

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

  // (server/metrics.h and server/matches.h declare them.)
  const Metrics& metrics() const;
  Matches& matches();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace melee::server
