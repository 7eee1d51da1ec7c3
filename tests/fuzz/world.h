#pragma once

// A melee-server without sockets, for the fuzz targets that go through the dispatcher and the
// HTTP routes: the same parts Server holds (server/transport/server.h), built the same way, over
// a private in-memory SQLite store, with matches on an io_context the caller runs, a manual clock
// and seeded dice (so that one input always does the same thing).
//
// Not thread-safe: one thread calls everything, and runs the io_context inside RunUntil.

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "engine/core/check.h"
#include "engine/core/registry.h"
#include "melee/v1/envelope.pb.h"
#include "persistence/sqlite_event_store.h"
#include "server/clock.h"
#include "server/matches.h"
#include "server/metrics.h"
#include "server/net.h"
#include "server/notify/emails.h"
#include "server/notify/webhooks.h"
#include "server/transport/config.h"
#include "server/transport/connections.h"
#include "server/transport/context.h"
#include "server/transport/dispatcher.h"
#include "server/transport/rate_limiter.h"

namespace melee::fuzz {

// A created match and its secrets, as MatchCreated gave them.
struct CreatedMatch {
  std::string match_id;
  std::string side_a_token;
  std::string side_b_token;
  std::string director_token;
  std::string spectator_key;
};

// One answer the server owes, which may come on another thread (a store callback). Held by a
// shared_ptr in the callback, so that an answer given twice is caught, not written to freed memory.
template <class T>
class Awaited {
 public:
  void Set(T value) {
    std::lock_guard lock(mutex_);
    MELEE_CHECK_MSG(!value_.has_value(), "an answer is given exactly once");
    value_.emplace(std::move(value));
  }
  bool ready() const {
    std::lock_guard lock(mutex_);
    return value_.has_value();
  }
  // Requires ready().
  T Take() {
    std::lock_guard lock(mutex_);
    return std::move(*value_);
  }

 private:
  mutable std::mutex mutex_;
  std::optional<T> value_;
};

class World {
 public:
  // `seeded_dice`: every command's dice come from a SplitMix64 seeded by its place in the input
  // (BeginInput), so an input replays exactly; such dice are not committed, so `melee verify`
  // refuses the match's file. Without: the server's committed dice, as in production.
  explicit World(bool seeded_dice = true);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Runs the matches' handlers until `done()` holds. Every answer the server owes comes within
  // a few seconds (the store is in memory); one that never comes is a bug, and aborts.
  void RunUntil(const std::function<bool()>& done);

  // Starts one input: the dice of its commands are drawn again from the first seed, so an input
  // rolls the same whatever ran before it.
  void BeginInput() { dice_draws_ = 0; }

  // Hands `message` to the dispatcher for `connection` and returns its answers, once they came.
  std::vector<melee::v1::ServerMessage> Dispatch(const melee::v1::ClientMessage& message,
                                                 server::ConnectionState& connection);

  // Creates a match of `ruleset` with its default settings; aborts when the server refuses
  // (a bug: these settings are valid).
  CreatedMatch CreateMatch(const std::string& ruleset);

  server::ServerContext& context() { return context_; }
  const server::Dispatcher& dispatcher() const { return dispatcher_; }
  server::Matches& matches() { return matches_; }

 private:
  // Declaration order follows Server's: the io_context goes before the matches and the
  // dispatcher but after what their handlers touch.
  server::ServerConfig config_;
  std::shared_ptr<persistence::SqliteEventStore> store_;
  engine::Registry registry_;
  server::ManualClock clock_;
  std::shared_ptr<const persistence::ServerSecrets> secrets_;
  std::shared_ptr<server::Lifeline> lifeline_ = std::make_shared<server::Lifeline>();
  server::Metrics metrics_;
  std::shared_ptr<server::notify::Webhooks> webhooks_;
  std::shared_ptr<server::notify::Emails> emails_;
  server::AddressRateLimiter match_creations_;
  server::Connections connections_;
  server::ServerContext context_;
  asio::io_context ioc_;
  server::Matches matches_;
  server::Dispatcher dispatcher_;
  uint64_t dice_draws_ = 0;  // commands resolved since BeginInput (each one's dice seed)
};

// Returns the one World of this process, made on first use and made anew after `inputs_per_world`
// calls (the matches of earlier inputs are dropped, so memory stays flat over a long run). An
// input works on matches it creates itself, so what an earlier input left changes nothing.
World& SharedWorld(int inputs_per_world = 256);

}  // namespace melee::fuzz
