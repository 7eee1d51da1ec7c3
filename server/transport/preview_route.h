#pragma once

// POST /api/matches/{id}/preview with "Authorization: Bearer <seat token>": the exact outcome
// preview of what the seat is drafting, worked out from the seat's own view and nothing else
// (proto/codec/view_preview.h), so it tells the seat nothing its view does not. The web page
// asks it while a player picks attackers and targets (docs/web-client.md).
//
//   asl: the body is a melee.asl.v1.AttackOrder ({"attackers": ["G1"], "targets": ["R1"]});
//        the answer a melee.asl.v1.OutcomeTable, or 422 with the rule the attack breaks.
//   coc: no body (or {}); the answer the first round's melee.coc.v1.PreviewTable.
//   vv:  501: not built (the preview needs both sides' sealed allocations).

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "server/transport/context.h"
#include "server/transport/http_routes.h"

namespace melee::server {

// The match id of a preview path ("/api/matches/{id}/preview"), if `path` is one.
std::optional<std::string> PreviewMatchId(std::string_view path);

void AnswerPreview(const HttpRequest& request, const std::string& match_id,
                   ServerContext& context, std::function<void(HttpResponse)> respond);

}  // namespace melee::server
