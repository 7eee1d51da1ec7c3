#include "server/transport/replay_route.h"

#include <cstdint>
#include <memory>
#include <utility>

#include "melee/v1/envelope.pb.h"
#include "proto/codec/checks.h"
#include "proto/codec/json.h"

namespace melee::server {
namespace {

namespace http = boost::beast::http;
namespace v1 = melee::v1;

constexpr std::string_view kSuffix = "/replay";

// The longest event number `at` may spell (UINT64_MAX has 20 digits).
constexpr size_t kMaxDigits = 19;

// The event number in the query's `at`, or why there is none.
struct At {
  uint64_t seq = 0;
  std::string problem;
};

At ParseAt(std::string_view target) {
  const size_t question = target.find('?');
  const std::string_view query =
      question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
  std::optional<std::string_view> value;
  size_t start = 0;
  while (start <= query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    const std::string_view pair = query.substr(start, end - start);
    if (pair == "at" || pair.starts_with("at=")) {
      if (value) return {0, "replay: `at` is given twice: give one event number"};
      value = pair.size() > 2 ? pair.substr(3) : std::string_view();
    }
    start = end + 1;
  }
  if (!value) {
    return {0,
            "replay needs the event number: GET /api/matches/{id}/replay?at=<k>, "
            "k from 1 to the match's last event"};
  }
  if (value->empty() || value->size() > kMaxDigits ||
      value->find_first_not_of("0123456789") != std::string_view::npos) {
    return {0, "replay: `at` must be an event number (1, 2, ...), not " +
                   proto::checks::Quoted(*value)};
  }
  uint64_t seq = 0;
  for (char digit : *value) seq = seq * 10 + static_cast<uint64_t>(digit - '0');
  if (seq == 0) return {0, "replay: `at` must be 1 or more: events are numbered from 1"};
  return {seq, ""};
}

}  // namespace

std::optional<std::string> ReplayMatchId(std::string_view path) {
  return MatchIdUnder(path, kSuffix);
}

void AnswerReplay(const HttpRequest& request, const std::string& match_id, ServerContext& context,
                  std::function<void(HttpResponse)> respond) {
  if (request.method() != http::verb::get) {
    HttpResponse response =
        HttpError(request, http::status::method_not_allowed, v1::ERROR_CODE_NOT_SUPPORTED,
                  "replay answers GET only (GET /api/matches/{id}/replay?at=<k>)");
    response.set(http::field::allow, "GET");
    return respond(std::move(response));
  }
  auto found = FindMatch(request, match_id, context);
  if (!found) return respond(std::move(found.error()));
  const std::shared_ptr<Match>& match = *found;
  const std::string token = BearerToken(request);
  std::optional<engine::Viewer> viewer = match->Authenticate(token);
  if (!viewer && !token.empty() && match->IsSpectatorKey(token)) {
    viewer = engine::Viewer::kSpectator;
  }
  if (!viewer) {
    return respond(HttpError(request, http::status::unauthorized, v1::ERROR_CODE_UNAUTHENTICATED,
                             "replay needs \"Authorization: Bearer <token>\" with a seat token, "
                             "the director token or the spectator key of match " +
                                 match_id));
  }
  const At at = ParseAt(request.target());
  if (!at.problem.empty()) {
    return respond(
        HttpError(request, http::status::bad_request, v1::ERROR_CODE_MALFORMED_FRAME, at.problem));
  }
  match->ViewAt(*viewer, at.seq,
                [shape = ResponseShape{request.version(), request.keep_alive()}, at = at.seq,
                 respond = std::move(respond)](uint64_t last, engine::Result<v1::MatchView> view) {
                  if (at > last) {
                    return respond(HttpError(shape.Request(), http::status::not_found,
                                             v1::ERROR_CODE_NOT_FOUND,
                                             "replay: no event " + std::to_string(at) +
                                                 " yet: the match's events "
                                                 "are 1.." +
                                                 std::to_string(last)));
                  }
                  if (!view) {
                    return respond(HttpError(shape.Request(), http::status::service_unavailable,
                                             v1::ERROR_CODE_UNAVAILABLE,
                                             "replay: " + engine::Describe(view.error())));
                  }
                  respond(JsonResponse(shape.Request(), http::status::ok,
                                       proto::ToJson(*view, proto::JsonStyle::kReport) + "\n"));
                });
}

}  // namespace melee::server
