#pragma once

// Turns one decoded ClientMessage into the answers for its connection: connection commands
// (Hello, Ping) at once, match commands through the match they name. Transport-free, so it is
// tested without sockets. Thread-safe: const; per-connection state lives in ConnectionState.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/registry.h"
#include "melee/v1/envelope.pb.h"
#include "server/match.h"

namespace melee::server {

class Matches;

// What the server remembers about one connection between its messages. Touched only on the
// connection's strand.
struct ConnectionState {
  bool greeted = false;  // a Hello was answered
  unsigned protocol_version = 0;
  // The seat this connection follows (after JoinSeat or Spectate) and how it receives events.
  std::shared_ptr<Match> match;
  std::optional<engine::Viewer> viewer;
  std::weak_ptr<Subscriber> subscriber;
};

class Dispatcher {
 public:
  // `registry` lists the rulesets this build plays; `matches` holds the matches. Both must
  // outlive the Dispatcher; `matches` may be null (connection commands only).
  Dispatcher(const melee::engine::Registry& registry, std::size_t max_message_bytes,
             Matches* matches = nullptr);

  // Handles one command. `reply` receives its answers exactly once (refusals are Error messages
  // carrying the command's id), possibly later and on another thread.
  void Handle(const melee::v1::ClientMessage& message, ConnectionState& connection,
              Reply reply) const;

  // The synchronous subset (connection commands), returning the answers (tests).
  std::vector<melee::v1::ServerMessage> Handle(const melee::v1::ClientMessage& message,
                                               ConnectionState& connection) const;

 private:
  melee::v1::ServerMessage HandleHello(const melee::v1::ClientMessage& message,
                                       ConnectionState& connection) const;
  void HandleJoin(const melee::v1::ClientMessage& message, ConnectionState& connection,
                  Reply reply) const;

  const melee::engine::Registry& registry_;
  std::size_t max_message_bytes_;
  Matches* matches_;
};

}  // namespace melee::server
