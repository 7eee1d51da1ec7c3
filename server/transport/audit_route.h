#pragma once

// GET /api/matches/{id}/audit with "Authorization: Bearer <director token>" (the match's or its
// tournament's): the director's audit of the match, a melee.v1.MatchAuditReport in JSON, worked
// out by AuditMatch (server/fair_play/audit.h) from the director's export, as `melee audit`
// works it out from the file. The director's audit page draws it (docs/web-client.md).
//
// It is the director's alone: it holds both seats' dice and response times, and a seat's or the
// spectator's token is refused 403 naming why; no or an unknown token 401; an unknown match
// 404; another method 405 (Allow: GET).

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "server/transport/context.h"
#include "server/transport/http_routes.h"

namespace melee::server {

// The match id of an audit path ("/api/matches/{id}/audit"), if `path` is one.
std::optional<std::string> AuditMatchId(std::string_view path);

void AnswerAudit(const HttpRequest& request, const std::string& match_id, ServerContext& context,
                 std::function<void(HttpResponse)> respond);

}  // namespace melee::server
