// The webhook registration endpoint: see notification_routes.h.

#include "server/transport/notification_routes.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <tl/expected.hpp>

#include "server/notify/webhook_url.h"
#include "server/version.h"

namespace melee::server {
namespace {

namespace http = boost::beast::http;

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

HttpResponse BadRequest(const HttpRequest& request, const std::string& message) {
  return HttpError(request, http::status::bad_request, melee::v1::ERROR_CODE_MALFORMED_FRAME,
                   message);
}

HttpResponse Refused(const HttpRequest& request, const notify::RegistrationError& error) {
  return error.invalid ? BadRequest(request, error.message)
                       : HttpError(request, http::status::service_unavailable,
                                   melee::v1::ERROR_CODE_UNAVAILABLE, error.message);
}

// Returns the channel a DELETE names (?channel=webhook or ?channel=email); "" for both.
tl::expected<std::string, std::string> ChannelOf(const HttpRequest& request) {
  const std::string_view target(request.target().data(), request.target().size());
  const size_t query = target.find('?');
  if (query == std::string_view::npos) return std::string();
  const std::string_view parameters = target.substr(query + 1);
  for (const std::string_view channel : {"webhook", "email"}) {
    if (parameters == "channel=" + std::string(channel)) return std::string(channel);
  }
  return tl::unexpected("the query must be ?channel=webhook or ?channel=email (none: remove both), "
                        "not ?" + std::string(parameters));
}

// DELETE: removes the seat's webhook, its mail address, or both, with what waits for them.
HttpResponse Remove(const HttpRequest& request, const std::string& match_id, engine::Seat seat,
                    ServerContext& context, google::protobuf::Struct& answer) {
  auto channel = ChannelOf(request);
  if (!channel) return BadRequest(request, channel.error());
  if (*channel != "email") {
    if (auto removed = context.webhooks.Remove(match_id, seat); !removed) {
      return Refused(request, removed.error());
    }
    Set(answer, "webhook_url", "");
  }
  if (*channel != "webhook") {
    if (auto removed = context.emails.Remove(match_id, seat); !removed) {
      return Refused(request, removed.error());
    }
    Set(answer, "email", "");
  }
  return JsonResponse(request, answer);
}

// The PUT body's fields, checked.
struct Registration {
  std::optional<std::string> webhook_url;
  std::optional<std::string> email;
  uint32_t digest_minutes = 0;
};

tl::expected<Registration, std::string> ParseRegistration(const std::string& body) {
  const std::string shape =
      "the body must be a JSON object with \"webhook_url\": \"https://...\" and/or \"email\": "
      "\"name@example.org\" (with \"digest_minutes\": N for at most one mail per N minutes)";
  google::protobuf::Struct object;
  const auto parsed = google::protobuf::util::JsonStringToMessage(body, &object);
  if (!parsed.ok()) return tl::unexpected(shape + " (" + std::string(parsed.message()) + ")");
  Registration registration;
  for (const auto& [key, value] : object.fields()) {
    if (key == "webhook_url" && value.has_string_value()) {
      registration.webhook_url = value.string_value();
    } else if (key == "email" && value.has_string_value()) {
      registration.email = value.string_value();
    } else if (key == "digest_minutes") {
      const double minutes = value.number_value();
      if (!value.has_number_value() || !(minutes >= 0 && minutes <= notify::kMaxDigestMinutes) ||
          minutes != static_cast<double>(static_cast<uint32_t>(minutes))) {
        return tl::unexpected("digest_minutes must be a whole number of minutes from 0 (a mail "
                              "per notice) to " + std::to_string(notify::kMaxDigestMinutes) +
                              " (a week)");
      }
      registration.digest_minutes = static_cast<uint32_t>(minutes);
    } else {
      return tl::unexpected(shape + ": \"" + key + "\" is not one of them, or not a " +
                            (key == "digest_minutes" ? "number" : "string"));
    }
  }
  if (!registration.webhook_url && !registration.email) return tl::unexpected(shape);
  if (object.fields().count("digest_minutes") != 0 && !registration.email) {
    return tl::unexpected(std::string("digest_minutes goes with an \"email\""));
  }
  return registration;
}

// PUT: registers (or changes) the seat's webhook and/or mail address. Both are checked before
// either is stored.
HttpResponse Register(const HttpRequest& request, const std::string& match_id, engine::Seat seat,
                      const std::string& token, ServerContext& context,
                      google::protobuf::Struct& answer) {
  auto registration = ParseRegistration(request.body());
  if (!registration) return BadRequest(request, registration.error());
  if (registration->webhook_url) {
    if (auto problem = notify::WebhookUrlProblem(*registration->webhook_url)) {
      return BadRequest(request, *problem);
    }
  }
  if (registration->email) {
    if (auto registered = context.emails.Register(match_id, seat, *registration->email,
                                                  registration->digest_minutes, token);
        !registered) {
      return Refused(request, registered.error());
    }
    Set(answer, "email", *registration->email);
    (*answer.mutable_fields())["digest_minutes"].set_number_value(registration->digest_minutes);
    Set(answer, "mail",
        "mails go to this address only, and carry this seat's web link and seat file (its "
        "token): DELETE ?channel=email stops them");
  }
  if (registration->webhook_url) {
    auto secret = context.webhooks.Register(match_id, seat, *registration->webhook_url);
    if (!secret) return Refused(request, secret.error());
    Set(answer, "webhook_url", *registration->webhook_url);
    Set(answer, "secret", std::move(*secret));
    Set(answer, "signature",
        "X-Melee-Signature: sha256=<hex HMAC-SHA256 of the body, keyed by the secret>; this "
        "secret is not shown again (PUT again for a new one)");
  }
  return JsonResponse(request, answer);
}

}  // namespace

std::optional<std::string> NotificationsMatchId(std::string_view path) {
  return MatchIdUnder(path, kSuffix);
}

HttpResponse HandleNotifications(const HttpRequest& request, const std::string& match_id,
                                 ServerContext& context) {
  const bool put = request.method() == http::verb::put;
  if (!put && request.method() != http::verb::delete_) {
    HttpResponse response = HttpError(request, http::status::method_not_allowed,
                                      melee::v1::ERROR_CODE_NOT_SUPPORTED,
                                      "notifications answer PUT (register or change a webhook "
                                      "or a mail address) and DELETE (remove them)");
    response.set(http::field::allow, "PUT, DELETE");
    return response;
  }
  auto found = FindMatch(request, match_id, context);
  if (!found) return std::move(found.error());
  const std::shared_ptr<Match>& match = *found;
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
  if (!put) return Remove(request, match_id, seat, context, answer);
  return Register(request, match_id, seat, token, context, answer);
}

}  // namespace melee::server
