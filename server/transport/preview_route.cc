#include "server/transport/preview_route.h"

#include <memory>
#include <utility>

#include "melee/v1/envelope.pb.h"
#include "proto/codec/coc.h"
#include "proto/codec/errors.h"
#include "proto/codec/json.h"
#include "proto/codec/view_preview.h"

namespace melee::server {
namespace {

namespace http = boost::beast::http;
namespace v1 = melee::v1;

constexpr std::string_view kSuffix = "/preview";

// Most a preview request may carry: an attack order names at most a few dozen units.
constexpr size_t kMaxBodyBytes = 16 * 1024;

// A refusal by the rules: 422 with the wire Error, its rule_ref set.
HttpResponse Refused(const ResponseShape& shape, const engine::RuleError& error) {
  return JsonResponse(shape.Request(), http::status::unprocessable_entity,
                      proto::ToJson(proto::ToWireError(error, ""), proto::JsonStyle::kReport) + "\n");
}

// Works the preview out from `view` (on the match's strand: the view is the seat's own).
HttpResponse Preview(const ResponseShape& shape, const v1::MatchView& view,
                     const melee::asl::v1::AttackOrder& order) {
  const std::string& ruleset = view.settings().ruleset();
  if (ruleset == "asl") {
    if (!view.has_asl()) {
      return Refused(shape, engine::RuleError{"A11.12", "the close combat is not set up yet: "
                                                        "there is nothing to preview"});
    }
    auto table = proto::AslPreviewFromView(view.asl(), view.seat(), order);
    if (!table) return Refused(shape, table.error());
    return JsonResponse(shape.Request(), http::status::ok,
                        proto::ToJson(*table, proto::JsonStyle::kReport) + "\n");
  }
  if (ruleset == "coc") {
    auto round = proto::CocFirstRoundFromView(view);
    if (!round) return Refused(shape, round.error());
    return JsonResponse(
        shape.Request(), http::status::ok,
        proto::ToJson(proto::CocPreviewToProto(round->preview), proto::JsonStyle::kReport) + "\n");
  }
  return HttpError(shape.Request(), http::status::not_implemented, v1::ERROR_CODE_NOT_SUPPORTED,
                   "not supported: a preview of a " + ruleset +
                       " close assault (its odds need both sides' sealed allocations; "
                       "`melee rules preview --ruleset vv` previews a situation file)");
}

}  // namespace

std::optional<std::string> PreviewMatchId(std::string_view path) {
  return MatchIdUnder(path, kSuffix);
}

void AnswerPreview(const HttpRequest& request, const std::string& match_id,
                   ServerContext& context, std::function<void(HttpResponse)> respond) {
  if (request.method() != http::verb::post) {
    HttpResponse response = HttpError(
        request, http::status::method_not_allowed, v1::ERROR_CODE_NOT_SUPPORTED,
        "preview answers POST only (asl: a melee.asl.v1.AttackOrder, e.g. "
        "{\"attackers\": [\"G1\"], \"targets\": [\"R1\"]})");
    response.set(http::field::allow, "POST");
    return respond(std::move(response));
  }
  auto found = FindMatch(request, match_id, context);
  if (!found) return respond(std::move(found.error()));
  const std::shared_ptr<Match>& match = *found;
  const std::optional<engine::Viewer> viewer = match->Authenticate(BearerToken(request));
  if (viewer != engine::Viewer::kSideA && viewer != engine::Viewer::kSideB) {
    return respond(HttpError(
        request, viewer ? http::status::forbidden : http::status::unauthorized,
        viewer ? v1::ERROR_CODE_PERMISSION_DENIED : v1::ERROR_CODE_UNAUTHENTICATED,
        viewer ? "a preview is for a seat that declares: the director's token declares nothing"
               : "preview needs \"Authorization: Bearer <seat token>\" of match " + match_id));
  }
  melee::asl::v1::AttackOrder order;
  const std::string& body = request.body();
  if (body.size() > kMaxBodyBytes) {
    return respond(HttpError(request, http::status::payload_too_large,
                             v1::ERROR_CODE_MALFORMED_FRAME,
                             "preview: the body is over " + std::to_string(kMaxBodyBytes) +
                                 " bytes"));
  }
  if (body.find_first_not_of(" \t\r\n") != std::string::npos) {
    if (std::string problem = proto::FromJson(body, order); !problem.empty()) {
      return respond(HttpError(request, http::status::bad_request, v1::ERROR_CODE_MALFORMED_FRAME,
                               "preview: not a melee.asl.v1.AttackOrder: " + problem));
    }
  }
  match->CurrentView(*viewer, [shape = ResponseShape{request.version(), request.keep_alive()},
                               order = std::move(order),
                               respond = std::move(respond)](v1::MatchView view) {
    respond(Preview(shape, view, order));
  });
}

}  // namespace melee::server
