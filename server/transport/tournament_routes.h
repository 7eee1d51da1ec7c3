#pragma once

// The HTTP endpoints of tournaments and results (docs/tournaments.md):
//   POST /api/tournaments                  {"title": "..."} -> the id and the director token, once
//   GET  /api/tournaments/{id}             its matches: names, whose turn, results
//   GET  /api/tournaments/{id}/audit       the pooled audit of every match (melee.v1.PooledAudit)
//   POST /api/matches/{id}/result          a melee.v1.RecordResult
// The GETs need "Authorization: Bearer <the tournament's director token>"; a result needs a seat
// token, the match's director token or its tournament's.

#include <functional>
#include <string>

#include "server/transport/context.h"
#include "server/transport/http_routes.h"

namespace melee::server {

// Answers `request` when `path` is one of the endpoints above and returns true; else false.
bool HandleTournamentRequest(const HttpRequest& request, const std::string& path,
                             const std::string& address, ServerContext& context,
                             std::function<void(HttpResponse)>& respond);

}  // namespace melee::server
