#include "server/transport/tournament_routes.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "melee/v1/tournament.pb.h"
#include "persistence/fair_play.h"
#include "proto/codec/checks.h"
#include "proto/codec/json.h"
#include "server/fair_play/pooled_audit.h"
#include "server/hosts.h"

namespace melee::server {
namespace {

namespace http = boost::beast::http;
namespace v1 = melee::v1;

constexpr std::string_view kTournaments = "/api/tournaments";
constexpr std::string_view kMatches = "/api/matches/";
constexpr std::string_view kAudit = "/audit";
constexpr std::string_view kResult = "/result";

std::string ToJson(const google::protobuf::Message& message) {
  return proto::ToJson(message, proto::JsonStyle::kReport) + "\n";
}

HttpResponse MethodNotAllowed(const HttpRequest& request, const std::string& what,
                              const char* allowed) {
  HttpResponse response = HttpError(request, http::status::method_not_allowed,
                                    v1::ERROR_CODE_NOT_SUPPORTED, what);
  response.set(http::field::allow, allowed);
  return response;
}

// The HTTP status of a refusal's error code.
http::status StatusOf(v1::ErrorCode code) {
  switch (code) {
    case v1::ERROR_CODE_UNAUTHENTICATED:
      return http::status::unauthorized;
    case v1::ERROR_CODE_PERMISSION_DENIED:
      return http::status::forbidden;
    case v1::ERROR_CODE_NOT_FOUND:
      return http::status::not_found;
    case v1::ERROR_CODE_UNAVAILABLE:
      return http::status::service_unavailable;
    case v1::ERROR_CODE_STALE:
      return http::status::conflict;
    default:
      return http::status::bad_request;
  }
}

// POST /api/tournaments.
void CreateTournament(const HttpRequest& request, const std::string& address,
                      ServerContext& context, std::function<void(HttpResponse)> respond) {
  if (request.method() != http::verb::post) {
    return respond(MethodNotAllowed(
        request, "/api/tournaments answers POST only (a melee.v1.CreateTournament)", "POST"));
  }
  long retry_after = 0;
  if (auto refused = LimitMatchCreation(context, address, &retry_after)) {
    HttpResponse response = HttpError(request, http::status::too_many_requests,
                                      v1::ERROR_CODE_RATE_LIMITED, std::move(*refused));
    response.set(http::field::retry_after, std::to_string(retry_after));
    return respond(std::move(response));
  }
  v1::CreateTournament asked;
  if (!request.body().empty()) {
    if (std::string problem = proto::FromJson(request.body(), asked); !problem.empty()) {
      return respond(HttpError(request, http::status::bad_request, v1::ERROR_CODE_MALFORMED_FRAME,
                               "/api/tournaments: not a melee.v1.CreateTournament: " + problem));
    }
  }
  context.matches.tournaments().Create(
      asked.title(), [shape = ResponseShape{request.version(), request.keep_alive()}, respond = std::move(respond)](
                         engine::Result<v1::TournamentCreated> created) {
        if (!created) {
          return respond(HttpError(shape.Request(), http::status::bad_request,
                                   v1::ERROR_CODE_RULE_VIOLATION,
                                   engine::Describe(created.error())));
        }
        respond(JsonResponse(shape.Request(), http::status::created, ToJson(*created)));
      });
}

// The tournament `id` when the request's bearer token is its director token; else the refusal.
std::optional<Tournament> Authorized(const HttpRequest& request, const std::string& id,
                                     ServerContext& context, HttpResponse& refusal) {
  const std::string token = BearerToken(request);
  switch (context.matches.tournaments().Check(id, token)) {
    case TournamentAccess::kNoSuchTournament:
      refusal = HttpError(request, http::status::not_found, v1::ERROR_CODE_NOT_FOUND,
                          "no tournament " + proto::checks::Quoted(id) + " on this server");
      return std::nullopt;
    case TournamentAccess::kRefused:
      refusal = token.empty()
                    ? HttpError(request, http::status::unauthorized,
                                v1::ERROR_CODE_UNAUTHENTICATED,
                                "tournament " + id +
                                    " needs \"Authorization: Bearer <its director token>\"")
                    : HttpError(request, http::status::forbidden, v1::ERROR_CODE_PERMISSION_DENIED,
                                "the token is not the director token of tournament " + id);
      return std::nullopt;
    case TournamentAccess::kGranted:
      break;
  }
  return context.matches.tournaments().Find(id);
}

// Answers once every match has answered; `T` is what each one gives.
template <class T>
struct Gathering {
  std::mutex mutex;
  std::vector<T> answers;
  size_t pending = 0;
  std::function<void(std::vector<T>)> finish;

  void Done(size_t index, T answer) {
    std::unique_lock lock(mutex);
    answers[index] = std::move(answer);
    if (--pending != 0) return;
    lock.unlock();
    finish(std::move(answers));
  }
};

template <class T>
std::shared_ptr<Gathering<T>> Gather(size_t count, std::function<void(std::vector<T>)> finish) {
  auto gathering = std::make_shared<Gathering<T>>();
  gathering->answers.resize(count);
  gathering->pending = count;
  gathering->finish = std::move(finish);
  return gathering;
}

v1::TournamentMatch Listed(const Match& match, engine::Result<v1::InboxEntry> looked) {
  v1::TournamentMatch listed;
  listed.set_match_id(match.id());
  listed.set_created_unix_ms(match.opened_unix_ms());
  if (!looked) {
    listed.set_error(engine::Describe(looked.error()));
    return listed;
  }
  const v1::MatchView& view = looked->view();
  listed.set_title(view.settings().title());
  listed.set_ruleset(view.settings().ruleset());
  listed.set_side_a_name(view.settings().side_a_name());
  listed.set_side_b_name(view.settings().side_b_name());
  listed.set_stage(view.stage());
  *listed.mutable_waiting_for() = view.waiting_for();
  listed.set_ended(view.stage() == v1::STAGE_ENDED && view.waiting_for().empty());
  listed.set_seq(view.seq());
  *listed.mutable_results() = view.results();
  return listed;
}

// GET /api/tournaments/{id}.
void ListTournament(const HttpRequest& request, const Tournament& tournament,
                    ServerContext& context, std::function<void(HttpResponse)> respond) {
  const std::vector<std::shared_ptr<Match>> matches = context.matches.InTournament(tournament);
  auto answer = std::make_shared<v1::Tournament>();
  answer->set_tournament_id(tournament.id);
  answer->set_title(tournament.title);
  if (matches.empty()) return respond(JsonResponse(request, http::status::ok, ToJson(*answer)));
  auto gathering = Gather<v1::TournamentMatch>(
      matches.size(), [answer, shape = ResponseShape{request.version(), request.keep_alive()},
                       respond = std::move(respond)](std::vector<v1::TournamentMatch> listed) {
        for (v1::TournamentMatch& match : listed) *answer->add_matches() = std::move(match);
        respond(JsonResponse(shape.Request(), http::status::ok, ToJson(*answer)));
      });
  for (size_t i = 0; i < matches.size(); ++i) {
    // The director's view; no events (the list says where each match stands, not its story).
    matches[i]->Look(engine::Viewer::kDirector, UINT64_MAX, 0,
                     [gathering, i, match = matches[i]](engine::Result<v1::InboxEntry> looked) {
                       gathering->Done(i, Listed(*match, std::move(looked)));
                     });
  }
}

// GET /api/tournaments/{id}/audit: every match's director file, audited and pooled. Each match
// is audited on its own strand as its file is written.
void AuditTournament(const HttpRequest& request, const Tournament& tournament,
                     ServerContext& context, std::function<void(HttpResponse)> respond) {
  const std::vector<std::shared_ptr<Match>> matches = context.matches.InTournament(tournament);
  using Audited = std::optional<engine::Result<MatchAudit>>;
  auto gathering = Gather<Audited>(
      matches.size(), [id = tournament.id, shape = ResponseShape{request.version(), request.keep_alive()},
                       respond = std::move(respond)](std::vector<Audited> audited) {
        std::vector<MatchAudit> audits;
        for (Audited& each : audited) {
          if (!each || !*each) {
            return respond(HttpError(shape.Request(), http::status::service_unavailable,
                                     v1::ERROR_CODE_UNAVAILABLE,
                                     "a match of the tournament could not be audited: " +
                                         (each ? engine::Describe(each->error())
                                               : std::string("no answer"))));
          }
          audits.push_back(std::move(**each));
        }
        respond(JsonResponse(shape.Request(), http::status::ok, ToJson(PoolAudits(id, audits))));
      });
  if (matches.empty()) return gathering->finish({});
  for (size_t i = 0; i < matches.size(); ++i) {
    matches[i]->Export(engine::Viewer::kDirector,
                       [gathering, i](engine::Result<melee::storage::v1::MatchFile> file) {
                         if (!file) return gathering->Done(i, tl::unexpected(file.error()));
                         gathering->Done(i, AuditMatch(*file, BuiltinHosts()));
                       });
  }
}

// POST /api/matches/{id}/result.
void RecordResult(const HttpRequest& request, const std::string& match_id,
                  ServerContext& context, std::function<void(HttpResponse)> respond) {
  if (request.method() != http::verb::post) {
    return respond(MethodNotAllowed(
        request, "/api/matches/{id}/result answers POST only (a melee.v1.RecordResult)", "POST"));
  }
  const std::shared_ptr<Match> match = context.matches.Find(match_id);
  if (!match) {
    return respond(HttpError(request, http::status::not_found, v1::ERROR_CODE_NOT_FOUND,
                             "no match " + proto::checks::Quoted(match_id) + " on this server"));
  }
  const std::optional<engine::Viewer> viewer = match->Authenticate(BearerToken(request));
  if (!viewer) {
    return respond(HttpError(request, http::status::unauthorized, v1::ERROR_CODE_UNAUTHENTICATED,
                             "a result needs \"Authorization: Bearer <token>\" with a seat token "
                             "or a director token of match " + match_id));
  }
  v1::ClientMessage message;
  if (std::string problem = proto::FromJson(request.body(), *message.mutable_record_result());
      !problem.empty()) {
    return respond(HttpError(request, http::status::bad_request, v1::ERROR_CODE_MALFORMED_FRAME,
                             "not a melee.v1.RecordResult: " + problem));
  }
  if (message.record_result().match_id().empty()) {
    message.mutable_record_result()->set_match_id(match_id);
  }
  // An Idempotency-Key makes a retry get the first answer; without one each call is new.
  const std::string key(request["Idempotency-Key"]);
  message.set_command_id(key.empty() ? "http-result-" + persistence::BytesToHex(
                                                            persistence::RandomBytes(8))
                                     : key);
  match->Execute(*viewer, std::move(message),
                 [shape = ResponseShape{request.version(), request.keep_alive()}, respond = std::move(respond)](
                     std::vector<MessagePtr> answers) {
                   for (const MessagePtr& sent : answers) {
                     const v1::ServerMessage* answer = &sent->message();
                     if (answer->has_error()) {
                       return respond(HttpError(shape.Request(), StatusOf(answer->error().code()),
                                                answer->error().code(),
                                                answer->error().message()));
                     }
                     if (answer->has_ack()) {
                       return respond(
                           JsonResponse(shape.Request(), http::status::ok, ToJson(answer->ack())));
                     }
                   }
                   respond(HttpError(shape.Request(), http::status::internal_server_error,
                                     v1::ERROR_CODE_INTERNAL, "the match gave no answer"));
                 });
}

}  // namespace

bool HandleTournamentRequest(const HttpRequest& request, const std::string& path,
                             const std::string& address, ServerContext& context,
                             std::function<void(HttpResponse)>& respond) {
  if (path.starts_with(kMatches) && path.ends_with(kResult) &&
      path.size() > kMatches.size() + kResult.size()) {
    const std::string match_id =
        path.substr(kMatches.size(), path.size() - kMatches.size() - kResult.size());
    if (match_id.find('/') != std::string::npos) return false;
    context.metrics.http_requests.Increment();
    RecordResult(request, match_id, context, std::move(respond));
    return true;
  }
  if (path == kTournaments) {
    context.metrics.http_requests.Increment();
    CreateTournament(request, address, context, std::move(respond));
    return true;
  }
  if (!path.starts_with(std::string(kTournaments) + "/")) return false;
  context.metrics.http_requests.Increment();
  std::string id = path.substr(kTournaments.size() + 1);
  const bool audit = id.ends_with(kAudit);
  if (audit) id.resize(id.size() - kAudit.size());
  if (id.empty() || id.find('/') != std::string::npos) {
    respond(HttpError(request, http::status::not_found, v1::ERROR_CODE_NOT_FOUND,
                      "no such endpoint: " + path +
                          " (try /api/tournaments/{id} or /api/tournaments/{id}/audit)"));
    return true;
  }
  if (request.method() != http::verb::get) {
    respond(MethodNotAllowed(request, path + " answers GET only", "GET"));
    return true;
  }
  HttpResponse refusal;
  const std::optional<Tournament> tournament = Authorized(request, id, context, refusal);
  if (!tournament) {
    respond(std::move(refusal));
    return true;
  }
  if (audit) {
    AuditTournament(request, *tournament, context, std::move(respond));
  } else {
    ListTournament(request, *tournament, context, std::move(respond));
  }
  return true;
}

}  // namespace melee::server
