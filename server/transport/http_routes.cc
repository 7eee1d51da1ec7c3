#include "server/transport/http_routes.h"

#include <google/protobuf/util/json_util.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "melee/v1/envelope.pb.h"
#include "proto/codec/checks.h"
#include "proto/codec/errors.h"
#include "proto/codec/json.h"
#include "server/match_file.h"
#include "server/transport/audit_route.h"
#include "server/transport/inbox_route.h"
#include "server/transport/preview_route.h"
#include "server/transport/replay_route.h"
#include "server/transport/roster_route.h"
#include "server/transport/notification_routes.h"
#include "server/transport/static_files.h"
#include "server/transport/tournament_routes.h"
#include "server/version.h"

namespace melee::server {
namespace http = boost::beast::http;

std::string BearerToken(const HttpRequest& request) {
  const std::string_view header = request[http::field::authorization];
  constexpr std::string_view kBearer = "Bearer ";
  if (header.size() <= kBearer.size() || header.substr(0, kBearer.size()) != kBearer) return {};
  return std::string(header.substr(kBearer.size()));
}

namespace {

std::string ToJson(const google::protobuf::Message& message) {
  return melee::proto::ToJson(message, melee::proto::JsonStyle::kReport) + "\n";
}

HttpResponse MakeResponse(const HttpRequest& request, http::status status, std::string content_type,
                          std::string body) {
  HttpResponse response{status, request.version()};
  response.set(http::field::server, std::string(kServerName) + "/" + kServerVersion);
  response.set(http::field::content_type, content_type);
  response.set(http::field::cache_control, "no-store");
  response.keep_alive(request.keep_alive());
  response.body() = std::move(body);
  response.prepare_payload();
  return response;
}

// Matches named one by one in /healthz; more are counted.
constexpr size_t kMaxNamedUnrecovered = 20;

// GET /healthz: 200 "ok", or 503 "degraded" with every reason, so that a load balancer stops
// sending players to a server that cannot hold their matches: the store does not answer, its
// writes fail (and a probe write still fails), or matches in it could not be recovered.
HttpResponse Health(const HttpRequest& request, ServerContext& context) {
  melee::v1::HealthReport report;
  report.set_server_name(kServerName);
  report.set_server_version(kServerVersion);
  report.set_open_connections(context.connections.open());
  auto ping = context.store.Ping();
  std::string store = "ok";
  if (!ping) {
    store = ping.error().message;
    report.add_reasons("the store does not answer: " + ping.error().message);
  } else if (persistence::WriteHealth writes = context.store.Writes(); writes.failing) {
    if (auto probed = context.store.ProbeWrite(); !probed) {
      store = probed.error().message;
      report.add_reasons("writes to the store fail: " + probed.error().message);
    }
  }
  report.set_store(store);
  if (std::optional<std::string> error = context.matches.RecoveryError()) {
    report.add_reasons(*error);
  }
  const std::vector<Matches::NotRecovered> lost = context.matches.NotRecoveredMatches();
  for (size_t i = 0; i < lost.size() && i < kMaxNamedUnrecovered; ++i) {
    report.add_reasons("match " + lost[i].match_id + " could not be recovered: " + lost[i].reason);
  }
  if (lost.size() > kMaxNamedUnrecovered) {
    report.add_reasons("and " + std::to_string(lost.size() - kMaxNamedUnrecovered) +
                       " more matches could not be recovered");
  }
  const bool ok = report.reasons().empty();
  report.set_status(ok ? "ok" : "degraded");
  return MakeResponse(request, ok ? http::status::ok : http::status::service_unavailable,
                      "application/json", ToJson(report));
}

// POST /api/matches: the body is a melee.v1.MatchSettings in JSON; the answer (201) is the
// MatchCreated with the seat tokens, shown this once. A match in a tournament of this server
// needs "Authorization: Bearer <the tournament's director token>" (else 403). An Idempotency-Key header makes a retry
// get the first answer (it is the command_id); the same key with another body is answered 422
// (Matches::Create says how long a key is remembered).
void CreateMatch(const HttpRequest& request, const std::string& address, ServerContext& context,
                 std::function<void(HttpResponse)> respond) {
  if (request.method() != http::verb::post) {
    HttpResponse response =
        HttpError(request, http::status::method_not_allowed, melee::v1::ERROR_CODE_NOT_SUPPORTED,
                  "/api/matches answers POST only (a MatchSettings in JSON)");
    response.set(http::field::allow, "POST");
    return respond(std::move(response));
  }
  long retry_after = 0;
  if (auto refused = LimitMatchCreation(context, address, &retry_after)) {
    HttpResponse response = HttpError(request, http::status::too_many_requests,
                                      melee::v1::ERROR_CODE_RATE_LIMITED, std::move(*refused));
    response.set(http::field::retry_after, std::to_string(retry_after));
    return respond(std::move(response));
  }
  melee::v1::MatchSettings settings;
  google::protobuf::util::JsonParseOptions options;
  const auto parsed = google::protobuf::util::JsonStringToMessage(request.body(), &settings, options);
  if (!parsed.ok()) {
    return respond(HttpError(request, http::status::bad_request,
                             melee::v1::ERROR_CODE_MALFORMED_FRAME,
                             "the body is not a MatchSettings in JSON: " +
                                 std::string(parsed.message())));
  }
  const std::string key(request["Idempotency-Key"]);
  context.matches.Create(
      settings, key.empty() ? "http" : key, key,
      [request_version = request.version(), keep_alive = request.keep_alive(),
       respond = std::move(respond)](melee::v1::ServerMessage answer) {
        HttpRequest shape;
        shape.version(request_version);
        shape.keep_alive(keep_alive);
        if (answer.has_error()) {
          const auto code = answer.error().code();
          const http::status status =
              code == melee::v1::ERROR_CODE_UNAVAILABLE ? http::status::service_unavailable
              : code == melee::v1::ERROR_CODE_IDEMPOTENCY_KEY_REUSED
                  ? http::status::unprocessable_entity
              : code == melee::v1::ERROR_CODE_PERMISSION_DENIED ? http::status::forbidden
              : code == melee::v1::ERROR_CODE_NOT_FOUND         ? http::status::not_found
                                                                : http::status::bad_request;
          return respond(MakeResponse(shape, status, "application/json", ToJson(answer.error())));
        }
        respond(MakeResponse(shape, http::status::created, "application/json",
                             ToJson(answer.match_created())));
      },
      BearerToken(request));
}

HttpResponse ServerKeyResponse(const HttpRequest& request, ServerContext& context) {
  melee::v1::ServerKey key;
  key.set_algorithm("Ed25519");
  key.set_public_key(context.secrets.public_key());
  key.set_public_key_hex(persistence::BytesToHex(context.secrets.public_key()));
  key.set_public_key_pem(persistence::PublicKeyPem(context.secrets.public_key()));
  key.set_fingerprint(persistence::KeyFingerprint(context.secrets.public_key()));
  return MakeResponse(request, http::status::ok, "application/json", ToJson(key));
}

// GET /api/matches/{id}/export with "Authorization: Bearer <seat or director token>": the match
// file as that seat may have it (the director's is complete).
void ExportMatch(const HttpRequest& request, const std::string& match_id, ServerContext& context,
                 std::function<void(HttpResponse)> respond) {
  if (request.method() != http::verb::get) {
    HttpResponse response = HttpError(request, http::status::method_not_allowed,
                                      melee::v1::ERROR_CODE_NOT_SUPPORTED, "export answers GET only");
    response.set(http::field::allow, "GET");
    return respond(std::move(response));
  }
  auto found = FindMatch(request, match_id, context);
  if (!found) return respond(std::move(found.error()));
  const std::shared_ptr<Match>& match = *found;
  const std::optional<engine::Viewer> viewer = match->Authenticate(BearerToken(request));
  if (!viewer) {
    return respond(HttpError(request, http::status::unauthorized,
                             melee::v1::ERROR_CODE_UNAUTHENTICATED,
                             "export needs \"Authorization: Bearer <token>\" with a seat or "
                             "director token of match " + match_id));
  }
  match->Export(*viewer, [shape = ResponseShape{request.version(), request.keep_alive()},
                          respond = std::move(respond)](
                             engine::Result<melee::storage::v1::MatchFile> file) {
    if (!file) {
      return respond(HttpError(shape.Request(), http::status::service_unavailable,
                               melee::v1::ERROR_CODE_UNAVAILABLE, engine::Describe(file.error())));
    }
    HttpResponse response = MakeResponse(shape.Request(), http::status::ok, "application/json",
                                         MatchFileJson(*file));
    response.set(http::field::content_disposition,
                 "attachment; filename=\"" + file->match_id() + "-" + file->exported_for() +
                     ".melee.json\"");
    respond(std::move(response));
  });
}

// POST /api/matches/import: the body is a match file; it is verified, then served read-only.
void ImportMatch(const HttpRequest& request, ServerContext& context,
                 std::function<void(HttpResponse)> respond) {
  if (request.method() != http::verb::post) {
    HttpResponse response = HttpError(request, http::status::method_not_allowed,
                                      melee::v1::ERROR_CODE_NOT_SUPPORTED,
                                      "/api/matches/import answers POST only (a match file)");
    response.set(http::field::allow, "POST");
    return respond(std::move(response));
  }
  auto file = ParseMatchFile(request.body());
  if (!file) {
    return respond(HttpError(request, http::status::bad_request,
                             melee::v1::ERROR_CODE_MALFORMED_FRAME, engine::Describe(file.error())));
  }
  const std::string match_id = file->match_id();
  context.matches.Import(
      std::move(*file), [match_id, shape = ResponseShape{request.version(), request.keep_alive()},
                         respond = std::move(respond)](engine::Result<std::string> summary) {
        if (!summary) {
          return respond(HttpError(shape.Request(), http::status::unprocessable_entity,
                                   melee::v1::ERROR_CODE_NOT_VERIFIED,
                                   engine::Describe(summary.error())));
        }
        melee::v1::ImportReport report;
        report.set_match_id(match_id);
        report.set_summary(*summary);
        respond(MakeResponse(shape.Request(), http::status::created, "application/json",
                             ToJson(report)));
      });
}

HttpResponse HandleSimpleRequest(const HttpRequest& request, ServerContext& context) {
  context.metrics.http_requests.Increment();
  const std::string target(request.target());
  const std::string path = target.substr(0, target.find('?'));
  if (path == "/healthz" || path == "/metrics" || path == "/api/server-key") {
    if (request.method() != http::verb::get) {
      HttpResponse response =
          HttpError(request, http::status::method_not_allowed, melee::v1::ERROR_CODE_NOT_SUPPORTED,
                    path + " answers GET only");
      response.set(http::field::allow, "GET");
      return response;
    }
    if (path == "/healthz") return Health(request, context);
    if (path == "/api/server-key") return ServerKeyResponse(request, context);
    const persistence::WriteHealth writes = context.store.Writes();
    context.metrics.SyncStoreWrites(writes.failed_appends, writes.transactions);
    return MakeResponse(request, http::status::ok, "text/plain; version=0.0.4; charset=utf-8",
                        context.metrics.Render());
  }
  if (path == kWebSocketPath) {
    return HttpError(request, http::status::upgrade_required, melee::v1::ERROR_CODE_MALFORMED_FRAME,
                     std::string(kWebSocketPath) + " is the WebSocket endpoint: send an Upgrade");
  }
  return HttpError(
      request, http::status::not_found, melee::v1::ERROR_CODE_NOT_FOUND,
      "no such endpoint: " + path + " (try / for the web client, /healthz, /metrics, " +
          "/api/matches, /api/tournaments, /api/server-key or " + kWebSocketPath + ")");
}

// The methods `path` answers, for an Allow header; empty for an unknown path.
std::string AllowedMethods(std::string_view path) {
  constexpr std::string_view kMatches = "/api/matches/";
  constexpr std::string_view kExport = "/export";
  if (path == "/api/matches" || path == "/api/matches/import" || path == "/api/inbox" ||
      path == "/api/rosters/read" || PreviewMatchId(path) || path == "/api/tournaments" ||
      (path.starts_with(kMatches) && path.ends_with("/result"))) {
    return "POST";
  }
  if (path == "/healthz" || path == "/metrics" || path == "/api/server-key" ||
      path == kWebSocketPath || path.starts_with("/api/tournaments/") || AuditMatchId(path) ||
      ReplayMatchId(path) ||
      (path.size() > kMatches.size() + kExport.size() && path.starts_with(kMatches) &&
       path.ends_with(kExport))) {
    return "GET";
  }
  return {};
}

// Whether `path` may be one of the web client's files: every path but the API's, /healthz,
// /metrics and the WebSocket's, which keep their own answers.
bool IsWebClientPath(std::string_view path) {
  return !(path == "/api" || path.starts_with("/api/") || path == "/healthz" ||
           path == "/metrics" || path == kWebSocketPath);
}

}  // namespace

HttpResponse HttpError(const HttpRequest& request, http::status status, melee::v1::ErrorCode code,
                       std::string message) {
  return MakeResponse(request, status, "application/json",
                      ToJson(melee::proto::MakeError(code, std::move(message))));
}

std::optional<std::string> LimitMatchCreation(ServerContext& context, const std::string& address,
                                              long* retry_after) {
  if (context.match_creations.TryTake(address, std::chrono::steady_clock::now(), retry_after)) {
    return std::nullopt;
  }
  context.metrics.match_creations_limited.Increment();
  context.metrics.CountError(melee::v1::ErrorCode_Name(melee::v1::ERROR_CODE_RATE_LIMITED));
  char rate[32];
  std::snprintf(rate, sizeof rate, "%g", context.match_creations.per_minute());
  return "more than " + std::string(rate) + " matches a minute from " + address +
         " (--match-creations-per-minute); nothing was created: try again in " +
         std::to_string(*retry_after) + " s";
}

std::optional<std::string> MatchIdUnder(std::string_view path, std::string_view suffix) {
  constexpr std::string_view kMatches = "/api/matches/";
  if (path.size() <= kMatches.size() + suffix.size() || !path.starts_with(kMatches) ||
      !path.ends_with(suffix)) {
    return std::nullopt;
  }
  const std::string_view id =
      path.substr(kMatches.size(), path.size() - kMatches.size() - suffix.size());
  if (id.find('/') != std::string_view::npos) return std::nullopt;
  return std::string(id);
}

tl::expected<std::shared_ptr<Match>, HttpResponse> FindMatch(const HttpRequest& request,
                                                             const std::string& match_id,
                                                             ServerContext& context) {
  if (std::shared_ptr<Match> match = context.matches.Find(match_id)) return match;
  if (std::optional<std::string> why = context.matches.UnavailableMessage(match_id)) {
    return tl::unexpected(HttpError(request, http::status::service_unavailable,
                                    melee::v1::ERROR_CODE_UNAVAILABLE, *why));
  }
  return tl::unexpected(HttpError(request, http::status::not_found,
                                  melee::v1::ERROR_CODE_NOT_FOUND,
                                  "no match " + proto::checks::Quoted(match_id) +
                                      " on this server"));
}

HttpResponse JsonResponse(const HttpRequest& request, http::status status, std::string body) {
  return MakeResponse(request, status, "application/json", std::move(body));
}

void HandleHttpRequest(const HttpRequest& request, const std::string& address,
                       ServerContext& context, std::function<void(HttpResponse)> respond) {
  const std::string target(request.target());
  const std::string path = target.substr(0, target.find('?'));
  if (request.method() == http::verb::unknown) {
    // RFC 9110 9.1: a method the server does not recognize is 501; 405 is for a known one the
    // path does not answer.
    context.metrics.http_requests.Increment();
    const std::string allowed = AllowedMethods(path);
    HttpResponse response = HttpError(
        request, http::status::not_implemented, melee::v1::ERROR_CODE_NOT_SUPPORTED,
        "method " + proto::checks::Quoted(request.method_string()) +
            " is not implemented: this server answers GET and POST" +
            (allowed.empty() ? std::string() : " (" + path + ": " + allowed + ")"));
    if (!allowed.empty()) response.set(http::field::allow, allowed);
    return respond(std::move(response));
  }
  if (path == "/api/matches") {
    context.metrics.http_requests.Increment();
    return CreateMatch(request, address, context, std::move(respond));
  }
  if (path == "/api/matches/import") {
    context.metrics.http_requests.Increment();
    return ImportMatch(request, context, std::move(respond));
  }
  if (path == "/api/inbox") {
    context.metrics.http_requests.Increment();
    return AnswerInbox(request, context, std::move(respond));
  }
  if (path == "/api/rosters/read") {
    context.metrics.http_requests.Increment();
    return AnswerRosterRead(request, std::move(respond));
  }
  constexpr std::string_view kMatches = "/api/matches/";
  constexpr std::string_view kExport = "/export";
  if (path.size() > kMatches.size() + kExport.size() && path.starts_with(kMatches) &&
      path.ends_with(kExport)) {
    context.metrics.http_requests.Increment();
    const std::string match_id =
        path.substr(kMatches.size(), path.size() - kMatches.size() - kExport.size());
    return ExportMatch(request, match_id, context, std::move(respond));
  }
  if (std::optional<std::string> match_id = PreviewMatchId(path)) {
    context.metrics.http_requests.Increment();
    return AnswerPreview(request, *match_id, context, std::move(respond));
  }
  if (std::optional<std::string> match_id = AuditMatchId(path)) {
    context.metrics.http_requests.Increment();
    return AnswerAudit(request, *match_id, context, std::move(respond));
  }
  if (std::optional<std::string> match_id = ReplayMatchId(path)) {
    context.metrics.http_requests.Increment();
    return AnswerReplay(request, *match_id, context, std::move(respond));
  }
  if (HandleTournamentRequest(request, path, address, context, respond)) return;
  if (std::optional<std::string> match_id = NotificationsMatchId(path)) {
    context.metrics.http_requests.Increment();
    return respond(HandleNotifications(request, *match_id, context));
  }
  if ((request.method() == http::verb::get || request.method() == http::verb::head) &&
      IsWebClientPath(path)) {
    if (std::optional<HttpResponse> file =
            ServeStaticFile(request, path, context.config.web_root)) {
      context.metrics.http_requests.Increment();
      return respond(std::move(*file));
    }
  }
  respond(HandleSimpleRequest(request, context));
}

}  // namespace melee::server
