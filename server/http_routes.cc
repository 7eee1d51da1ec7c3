#include "server/http_routes.h"

#include <string>

#include "melee/v1/envelope.pb.h"
#include "proto/codec/errors.h"
#include "proto/codec/json.h"
#include "server/version.h"

namespace melee::server {
namespace {

namespace http = boost::beast::http;

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

HttpResponse Health(const HttpRequest& request, ServerContext& context) {
  melee::v1::HealthReport report;
  report.set_server_name(kServerName);
  report.set_server_version(kServerVersion);
  report.set_open_connections(context.connections.open());
  auto ping = context.store.Ping();
  report.set_store(ping ? "ok" : ping.error().message);
  report.set_status(ping ? "ok" : "degraded");
  return MakeResponse(request, ping ? http::status::ok : http::status::service_unavailable,
                      "application/json", ToJson(report));
}

}  // namespace

HttpResponse HttpError(const HttpRequest& request, http::status status, melee::v1::ErrorCode code,
                       std::string message) {
  return MakeResponse(request, status, "application/json",
                      ToJson(melee::proto::MakeError(code, std::move(message))));
}

HttpResponse HandleHttpRequest(const HttpRequest& request, ServerContext& context) {
  context.metrics.http_requests.Increment();
  const std::string target(request.target());
  const std::string path = target.substr(0, target.find('?'));
  if (path == "/healthz" || path == "/metrics") {
    if (request.method() != http::verb::get) {
      HttpResponse response =
          HttpError(request, http::status::method_not_allowed, melee::v1::ERROR_CODE_NOT_SUPPORTED,
                    path + " answers GET only");
      response.set(http::field::allow, "GET");
      return response;
    }
    if (path == "/healthz") return Health(request, context);
    return MakeResponse(request, http::status::ok, "text/plain; version=0.0.4; charset=utf-8",
                        context.metrics.Render());
  }
  if (path == kWebSocketPath) {
    return HttpError(request, http::status::upgrade_required, melee::v1::ERROR_CODE_MALFORMED_FRAME,
                     std::string(kWebSocketPath) + " is the WebSocket endpoint: send an Upgrade");
  }
  return HttpError(
      request, http::status::not_found, melee::v1::ERROR_CODE_NOT_FOUND,
      "no such endpoint: " + path + " (try /healthz, /metrics or " + kWebSocketPath + ")");
}

}  // namespace melee::server
