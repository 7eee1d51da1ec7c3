#pragma once

// The plain HTTP endpoints beside the WebSocket: GET /healthz, GET /metrics, and
// POST /api/matches (create a match, for scripts and play-by-email), and the web client's files
// at / (static_files.h) for every other GET or HEAD.
// Errors are the JSON mapping of melee.v1.Error, like every other refusal.

#include <boost/beast/http.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "server/transport/context.h"

namespace melee::server {

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;

// The WebSocket endpoint's path.
inline constexpr const char* kWebSocketPath = "/ws";

// Answers one plain HTTP request from the client at `address` (WebSocket upgrades are handled by
// the session). `respond` runs exactly once, possibly later and on another thread (a new match
// answers once it is durable).
void HandleHttpRequest(const HttpRequest& request, const std::string& address,
                       ServerContext& context, std::function<void(HttpResponse)> respond);

// Takes a match creation from `address` out of its per-address budget; when the budget is spent,
// counts the refusal in the metrics and returns its message, with the seconds to wait in
// `*retry_after`.
std::optional<std::string> LimitMatchCreation(ServerContext& context, const std::string& address,
                                              long* retry_after);

// Returns the bearer token of a request ("Authorization: Bearer <token>"), or empty.
std::string BearerToken(const HttpRequest& request);

// Builds a response with a JSON body (not cached).
HttpResponse JsonResponse(const HttpRequest& request, boost::beast::http::status status,
                          std::string body);

// The parts of a request that an answer given later (once the request object is gone) needs.
struct ResponseShape {
  unsigned version;
  bool keep_alive;
  HttpRequest Request() const {
    HttpRequest shape;
    shape.version(version);
    shape.keep_alive(keep_alive);
    return shape;
  }
};

// The match id of a path "/api/matches/{id}<suffix>" (an id without '/'), or nothing.
std::optional<std::string> MatchIdUnder(std::string_view path, std::string_view suffix);

// The match `match_id` names, or the answer that says why there is none: 503 with the reason for
// a match in the store that could not be recovered, else 404.
tl::expected<std::shared_ptr<Match>, HttpResponse> FindMatch(const HttpRequest& request,
                                                             const std::string& match_id,
                                                             ServerContext& context);

// Builds an error response whose body is a melee.v1.Error in JSON.
HttpResponse HttpError(const HttpRequest& request, boost::beast::http::status status,
                       melee::v1::ErrorCode code, std::string message);

}  // namespace melee::server
