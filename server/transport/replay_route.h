#pragma once

// GET /api/matches/{id}/replay?at=<k> with "Authorization: Bearer <token>": the MatchView the
// token's viewer had right after event k, for the web page's replay scrubber
// (docs/web-client.md). A seat token, the director token (or its tournament's) or the spectator
// key opens it, each as its own viewer.
//
// The view is made by the code that makes live views (Match::ViewAt: the log replayed up to
// event k, then rendered for the viewer), so a replay shows a viewer what the rules let it see
// at that moment and nothing more: the other side's sealed declaration stays sealed until its
// reveal, a concealed unit stays "?" for whoever it is concealed from. Live connections are no
// part of the log, so a replayed view's `connections` are 0.
//
// Answers: 200 with the melee.v1.MatchView in JSON; 400 when `at` is missing or not an event
// number; 401 without a token of the match; 404 for an unknown match or an event beyond its
// last; 405 for a method other than GET; 503 when the log cannot be read or replayed.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "server/transport/context.h"
#include "server/transport/http_routes.h"

namespace melee::server {

// The match id of a replay path ("/api/matches/{id}/replay"), if `path` is one.
std::optional<std::string> ReplayMatchId(std::string_view path);

void AnswerReplay(const HttpRequest& request, const std::string& match_id, ServerContext& context,
                  std::function<void(HttpResponse)> respond);

}  // namespace melee::server
