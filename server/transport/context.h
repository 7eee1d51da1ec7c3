#pragma once

// What every session of one server shares. Owned by Server; outlives every session.

#include <memory>

#include "persistence/event_store.h"
#include "persistence/fair_play.h"
#include "server/matches.h"
#include "server/metrics.h"
#include "server/notify/emails.h"
#include "server/notify/webhooks.h"
#include "server/transport/config.h"
#include "server/transport/connections.h"
#include "server/transport/dispatcher.h"
#include "server/transport/rate_limiter.h"

namespace melee::server {

struct ServerContext {
  const ServerConfig& config;
  Metrics& metrics;
  Connections& connections;
  const Dispatcher& dispatcher;
  persistence::EventStore& store;
  Matches& matches;
  const persistence::ServerSecrets& secrets;
  AddressRateLimiter& match_creations;  // per client address
  notify::Webhooks& webhooks;           // the seats' webhooks (docs/notifications.md)
  notify::Emails& emails;               // the seats' mail addresses (docs/notifications.md)
};

}  // namespace melee::server
