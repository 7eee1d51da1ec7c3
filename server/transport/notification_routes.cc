// The webhook registration endpoint: see notification_routes.h.

#include "server/transport/notification_routes.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "proto/codec/checks.h"
#include "server/version.h"

namespace melee::server {
namespace {

namespace http = boost::beast::http;

constexpr std::string_view kPrefix = "/api/matches/";
constexpr std::string_view kSuffix = "/notifications";

HttpResponse JsonResponse(const HttpRequest& request, const google::protobuf::Struct& answer) {
  std::string body;
  if (!google::protobuf::util::MessageToJsonString(answer, &body).ok()) body = "{}";
  HttpResponse response{http::status::ok, request.version()};
  response.set(http::field::server, std::string(kServerName) + "/" + kServerVersion);
  response.set(http::field::content_type, "application/json");
  response.set(http::field::cache_control, "no-store");
  response.keep_alive(request.keep_alive());
  response.body() = body + "\n";
  response.prepare_payload();
  return response;
}

void Set(google::protobuf::Struct& answer, const std::string& key, std::string value) {
  (*answer.mutable_fields())[key].set_string_value(std::move(value));
}

}  // namespace

std::optional<std::string> NotificationsMatchId(std::string_view path) {
  if (path.size() <= kPrefix.size() + kSuffix.size() || !path.starts_with(kPrefix) ||
      !path.ends_with(kSuffix)) {
    return std::nullopt;
  }
  std::string match_id(path.substr(kPrefix.size(), path.size() - kPrefix.size() - kSuffix.size()));
  if (match_id.find('/') != std::string::npos) return std::nullopt;
  return match_id;
}

HttpResponse HandleNotifications(const HttpRequest& request, const std::string& match_id,
                                 ServerContext& context) {
  const bool put = request.method() == http::verb::put;
  if (!put && request.method() != http::verb::delete_) {
    HttpResponse response = HttpError(request, http::status::method_not_allowed,
                                      melee::v1::ERROR_CODE_NOT_SUPPORTED,
                                      "notifications answer PUT (register or change a webhook) "
                                      "and DELETE (remove it)");
    response.set(http::field::allow, "PUT, DELETE");
    return response;
  }
  const std::shared_ptr<Match> match = context.matches.Find(match_id);
  if (!match) {
    return HttpError(request, http::status::not_found, melee::v1::ERROR_CODE_NOT_FOUND,
                     "no match " + proto::checks::Quoted(match_id) + " on this server");
  }
  const std::string_view header = request[http::field::authorization];
  constexpr std::string_view kBearer = "Bearer ";
  const std::string token = header.starts_with(kBearer)
                                ? std::string(header.substr(kBearer.size()))
                                : std::string();
  const std::optional<engine::Viewer> viewer = match->Authenticate(token);
  if (!viewer) {
    return HttpError(request, http::status::unauthorized, melee::v1::ERROR_CODE_UNAUTHENTICATED,
                     "notifications need \"Authorization: Bearer <seat token>\" with a seat "
                     "token of match " + match_id);
  }
  if (*viewer != engine::Viewer::kSideA && *viewer != engine::Viewer::kSideB) {
    return HttpError(request, http::status::forbidden, melee::v1::ERROR_CODE_PERMISSION_DENIED,
                     std::string(engine::Name(*viewer)) +
                         " follows the match but has no turn to be told of: use a seat token");
  }
  const engine::Seat seat =
      *viewer == engine::Viewer::kSideA ? engine::Seat::kSideA : engine::Seat::kSideB;
  google::protobuf::Struct answer;
  Set(answer, "match_id", match_id);
  Set(answer, "seat", std::string(engine::Name(seat)));
  if (!put) {
    if (auto removed = context.webhooks.Remove(match_id, seat); !removed) {
      return HttpError(request, http::status::service_unavailable,
                       melee::v1::ERROR_CODE_UNAVAILABLE, removed.error().message);
    }
    Set(answer, "webhook_url", "");
    return JsonResponse(request, answer);
  }
  google::protobuf::Struct body;
  google::protobuf::util::JsonParseOptions options;
  const auto parsed = google::protobuf::util::JsonStringToMessage(request.body(), &body, options);
  const auto url = body.fields().find("webhook_url");
  if (!parsed.ok() || url == body.fields().end() || !url->second.has_string_value()) {
    return HttpError(request, http::status::bad_request, melee::v1::ERROR_CODE_MALFORMED_FRAME,
                     "the body must be a JSON object {\"webhook_url\": \"https://...\"}" +
                         (parsed.ok() ? std::string()
                                      : " (" + std::string(parsed.message()) + ")"));
  }
  auto secret = context.webhooks.Register(match_id, seat, url->second.string_value());
  if (!secret) {
    return secret.error().invalid
               ? HttpError(request, http::status::bad_request,
                           melee::v1::ERROR_CODE_MALFORMED_FRAME, secret.error().message)
               : HttpError(request, http::status::service_unavailable,
                           melee::v1::ERROR_CODE_UNAVAILABLE, secret.error().message);
  }
  Set(answer, "webhook_url", url->second.string_value());
  Set(answer, "secret", std::move(*secret));
  Set(answer, "signature",
      "X-Melee-Signature: sha256=<hex HMAC-SHA256 of the body, keyed by the secret>; this "
      "secret is not shown again (PUT again for a new one)");
  return JsonResponse(request, answer);
}

}  // namespace melee::server
