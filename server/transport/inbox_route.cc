#include "server/transport/inbox_route.h"

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "melee/v1/envelope.pb.h"
#include "proto/codec/checks.h"
#include "proto/codec/json.h"

namespace melee::server {
namespace {

namespace http = boost::beast::http;
namespace v1 = melee::v1;

// The answers of every seat's match, gathered from their strands; the last one responds.
struct Gathering {
  std::mutex mutex;
  v1::Inbox inbox;
  size_t pending = 0;
  unsigned version = 11;
  bool keep_alive = true;
  std::function<void(HttpResponse)> respond;

  void Done(size_t index, v1::InboxEntry entry) {
    std::unique_lock lock(mutex);
    *inbox.mutable_entries(static_cast<int>(index)) = std::move(entry);
    if (--pending != 0) return;
    HttpRequest shape;
    shape.version(version);
    shape.keep_alive(keep_alive);
    const std::string body = proto::ToJson(inbox, proto::JsonStyle::kReport) + "\n";
    lock.unlock();
    respond(JsonResponse(shape, http::status::ok, body));
  }
};

v1::InboxEntry Failed(const std::string& match_id, std::string why) {
  v1::InboxEntry entry;
  entry.set_match_id(match_id);
  entry.set_error(std::move(why));
  return entry;
}

}  // namespace

void AnswerInbox(const HttpRequest& request, ServerContext& context,
                 std::function<void(HttpResponse)> respond) {
  if (request.method() != http::verb::post) {
    HttpResponse response = HttpError(
        request, http::status::method_not_allowed, v1::ERROR_CODE_NOT_SUPPORTED,
        "/api/inbox answers POST only (a melee.v1.InboxRequest: {\"seats\": [{\"match_id\", "
        "\"token\", \"after_seq\"}]})");
    response.set(http::field::allow, "POST");
    return respond(std::move(response));
  }
  v1::InboxRequest asked;
  if (std::string problem = proto::FromJson(request.body(), asked); !problem.empty()) {
    return respond(HttpError(request, http::status::bad_request, v1::ERROR_CODE_MALFORMED_FRAME,
                             "/api/inbox: not a melee.v1.InboxRequest: " + problem));
  }
  if (asked.seats().empty() || asked.seats_size() > kInboxMaxSeats) {
    return respond(HttpError(request, http::status::bad_request, v1::ERROR_CODE_MALFORMED_FRAME,
                             "/api/inbox: seats: give 1 to " + std::to_string(kInboxMaxSeats) +
                                 " seats, not " + std::to_string(asked.seats_size())));
  }
  auto gathering = std::make_shared<Gathering>();
  gathering->version = request.version();
  gathering->keep_alive = request.keep_alive();
  gathering->respond = std::move(respond);
  gathering->pending = static_cast<size_t>(asked.seats_size());
  for (int i = 0; i < asked.seats_size(); ++i) gathering->inbox.add_entries();
  for (int i = 0; i < asked.seats_size(); ++i) {
    const v1::InboxSeat& seat = asked.seats(i);
    const auto index = static_cast<size_t>(i);
    const std::shared_ptr<Match> match = context.matches.Find(seat.match_id());
    if (!match) {
      gathering->Done(index, Failed(seat.match_id(), "no match " +
                                                         proto::checks::Quoted(seat.match_id()) +
                                                         " on this server"));
      continue;
    }
    std::optional<engine::Viewer> viewer = match->Authenticate(seat.token());
    if (!viewer && match->IsSpectatorKey(seat.token())) viewer = engine::Viewer::kSpectator;
    if (!viewer) {
      gathering->Done(index, Failed(seat.match_id(), "the token is not a seat token, spectator "
                                                     "key or director token of match " +
                                                         seat.match_id()));
      continue;
    }
    match->Look(*viewer, seat.after_seq(), kInboxMaxEvents,
                [gathering, index, id = seat.match_id()](engine::Result<v1::InboxEntry> entry) {
                  gathering->Done(index, entry ? std::move(*entry)
                                               : Failed(id, engine::Describe(entry.error())));
                });
  }
}

}  // namespace melee::server
