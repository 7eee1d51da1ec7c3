#pragma once

// POST /api/inbox: for a set of seat tokens at once, which matches wait for the player, by
// when, and what happened since the player last looked (docs/inbox.md). The tokens travel in
// the body, never in a URL. Each seat is answered on its own: an unknown match or a wrong token
// is an error in its entry, not a failure of the whole request.

#include <functional>

#include "server/transport/context.h"
#include "server/transport/http_routes.h"

namespace melee::server {

// At most this many seats per request, and this many events per entry.
inline constexpr int kInboxMaxSeats = 100;
inline constexpr size_t kInboxMaxEvents = 20;

void AnswerInbox(const HttpRequest& request, ServerContext& context,
                 std::function<void(HttpResponse)> respond);

}  // namespace melee::server
