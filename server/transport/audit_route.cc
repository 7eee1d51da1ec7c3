#include "server/transport/audit_route.h"

#include <memory>
#include <utility>

#include "melee/v1/envelope.pb.h"
#include "melee/v1/tournament.pb.h"
#include "proto/codec/json.h"
#include "server/fair_play/audit.h"
#include "server/fair_play/audit_report.h"
#include "server/hosts.h"

namespace melee::server {
namespace {

namespace http = boost::beast::http;
namespace v1 = melee::v1;

constexpr std::string_view kSuffix = "/audit";

// Audits the director's export of the match (on the match's strand, as the file is written).
HttpResponse Audited(const ResponseShape& shape, engine::Result<melee::storage::v1::MatchFile> file) {
  if (!file) {
    return HttpError(shape.Request(), http::status::service_unavailable, v1::ERROR_CODE_UNAVAILABLE,
                     "the match's file could not be written: " + engine::Describe(file.error()));
  }
  engine::Result<MatchAudit> audit = AuditMatch(*file, BuiltinHosts());
  if (!audit) {
    return HttpError(shape.Request(), http::status::service_unavailable, v1::ERROR_CODE_UNAVAILABLE,
                     "the match could not be audited: " + engine::Describe(audit.error()));
  }
  return JsonResponse(shape.Request(), http::status::ok,
                      proto::ToJson(AuditReport(*audit), proto::JsonStyle::kReport) + "\n");
}

}  // namespace

std::optional<std::string> AuditMatchId(std::string_view path) {
  return MatchIdUnder(path, kSuffix);
}

void AnswerAudit(const HttpRequest& request, const std::string& match_id, ServerContext& context,
                 std::function<void(HttpResponse)> respond) {
  if (request.method() != http::verb::get) {
    HttpResponse response =
        HttpError(request, http::status::method_not_allowed, v1::ERROR_CODE_NOT_SUPPORTED,
                  "/api/matches/{id}/audit answers GET only (with the director's token)");
    response.set(http::field::allow, "GET");
    return respond(std::move(response));
  }
  auto found = FindMatch(request, match_id, context);
  if (!found) return respond(std::move(found.error()));
  const std::shared_ptr<Match>& match = *found;
  const std::string token = BearerToken(request);
  const std::optional<engine::Viewer> viewer = match->Authenticate(token);
  if (viewer == engine::Viewer::kSideA || viewer == engine::Viewer::kSideB ||
      match->IsSpectatorKey(token)) {
    return respond(HttpError(
        request, http::status::forbidden, v1::ERROR_CODE_PERMISSION_DENIED,
        std::string("the audit is the director's: it shows both seats' dice, response times and "
                    "connections; ") +
            (viewer
                 ? "a seat's token exports only its own file (/api/matches/" + match_id + "/export)"
                 : std::string("the spectator key only watches the match")) +
            ". The audit needs the director token of match " + match_id));
  }
  if (viewer != engine::Viewer::kDirector) {
    return respond(
        HttpError(request, http::status::unauthorized, v1::ERROR_CODE_UNAUTHENTICATED,
                  "the audit needs \"Authorization: Bearer <director token>\" of match " +
                      match_id + " (or of its tournament)"));
  }
  match->Export(engine::Viewer::kDirector,
                [shape = ResponseShape{request.version(), request.keep_alive()},
                 respond = std::move(respond)](engine::Result<melee::storage::v1::MatchFile> file) {
                  respond(Audited(shape, std::move(file)));
                });
}

}  // namespace melee::server
