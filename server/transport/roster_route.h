#pragma once

// POST /api/rosters/read: reads a side's units from a roster in counter notation, the ruleset's
// SideSetup JSON or a situation file, exactly as `melee submit --setup` does
// (proto::ReadSideSetup), and answers the SubmitSetup to send. It needs no token and touches no
// match: the web page uses it to show a player's units as counters before they are entered.

#include <functional>

#include "server/transport/context.h"
#include "server/transport/http_routes.h"

namespace melee::server {

// The most a roster may hold.
inline constexpr size_t kRosterMaxBytes = 64 * 1024;

void AnswerRosterRead(const HttpRequest& request, std::function<void(HttpResponse)> respond);

}  // namespace melee::server
