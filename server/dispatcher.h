#pragma once

// Turns one decoded ClientMessage into the answers for its connection. Transport-free, so it is
// tested without sockets. Thread-safe: const, shares only immutable data.

#include <vector>

#include "engine/core/registry.h"
#include "melee/v1/envelope.pb.h"

namespace melee::server {

// What the server remembers about one connection between its messages.
struct ConnectionState {
  bool greeted = false;  // a Hello was answered
  unsigned protocol_version = 0;
};

class Dispatcher {
 public:
  // `registry` lists the rulesets this build plays; it must outlive the Dispatcher.
  Dispatcher(const melee::engine::Registry& registry, std::size_t max_message_bytes);

  // Handles one command and returns the answers, in order. Refusals are Error messages
  // carrying the command's id.
  std::vector<melee::v1::ServerMessage> Handle(const melee::v1::ClientMessage& message,
                                               ConnectionState& connection) const;

 private:
  melee::v1::ServerMessage HandleHello(const melee::v1::ClientMessage& message,
                                       ConnectionState& connection) const;

  const melee::engine::Registry& registry_;
  std::size_t max_message_bytes_;
};

}  // namespace melee::server
