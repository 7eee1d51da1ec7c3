#include "server/transport/roster_route.h"

#include <string>
#include <utility>

#include "melee/v1/envelope.pb.h"
#include "proto/codec/errors.h"
#include "proto/codec/json.h"
#include "proto/codec/notation.h"

namespace melee::server {
namespace {

namespace http = boost::beast::http;
namespace v1 = melee::v1;

}  // namespace

void AnswerRosterRead(const HttpRequest& request, std::function<void(HttpResponse)> respond) {
  if (request.method() != http::verb::post) {
    HttpResponse response = HttpError(
        request, http::status::method_not_allowed, v1::ERROR_CODE_NOT_SUPPORTED,
        "/api/rosters/read answers POST only (a melee.v1.RosterRequest: {\"ruleset\", \"seat\", "
        "\"text\"})");
    response.set(http::field::allow, "POST");
    return respond(std::move(response));
  }
  v1::RosterRequest asked;
  if (std::string problem = proto::FromJson(request.body(), asked); !problem.empty()) {
    return respond(HttpError(request, http::status::bad_request, v1::ERROR_CODE_MALFORMED_FRAME,
                             "/api/rosters/read: not a melee.v1.RosterRequest: " + problem));
  }
  if (asked.text().size() > kRosterMaxBytes) {
    return respond(HttpError(request, http::status::payload_too_large,
                             v1::ERROR_CODE_MESSAGE_TOO_LARGE,
                             "/api/rosters/read: text: at most " +
                                 std::to_string(kRosterMaxBytes) + " bytes"));
  }
  if (asked.seat() != v1::SEAT_SIDE_A && asked.seat() != v1::SEAT_SIDE_B) {
    return respond(HttpError(request, http::status::bad_request, v1::ERROR_CODE_MALFORMED_FRAME,
                             "/api/rosters/read: seat: SEAT_SIDE_A or SEAT_SIDE_B"));
  }
  const std::string source = asked.source().empty() ? "roster" : asked.source().substr(0, 64);
  auto setup = proto::ReadSideSetup(asked.ruleset(), asked.text(), asked.seat(), source);
  if (!setup) {
    return respond(JsonResponse(
        request, http::status::unprocessable_entity,
        proto::ToJson(proto::ToWireError(setup.error(), ""), proto::JsonStyle::kReport) + "\n"));
  }
  respond(JsonResponse(request, http::status::ok,
                       proto::ToJson(*setup, proto::JsonStyle::kReport) + "\n"));
}

}  // namespace melee::server
