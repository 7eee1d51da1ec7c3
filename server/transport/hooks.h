#pragma once

// What tests inject into a server (Server's constructor): the clock and the dice. Its own header
// so that a test can start a server without compiling Asio and Beast (tests/testing/test_server.h).

#include <cstddef>
#include <functional>
#include <memory>

#include "engine/core/dice.h"
#include "server/clock.h"

namespace melee::server {

struct ServerHooks {
  std::shared_ptr<const Clock> clock;  // null: the system clock
  // null: the committed seed chain (docs/fair-play.md). Scripted dice are not committed.
  std::function<std::unique_ptr<engine::BitSource>()> dice;
  size_t recent_events = 48;  // rendered events a match keeps for quick resumes
};

}  // namespace melee::server
