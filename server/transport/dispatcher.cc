#include "server/transport/dispatcher.h"

#include <optional>
#include <string>

#include "proto/codec/checks.h"
#include "proto/codec/errors.h"
#include "server/matches.h"
#include "server/version.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;
using engine::Viewer;

v1::ServerMessage ErrorReply(v1::ErrorCode code, std::string message,
                             const std::string& command_id) {
  v1::ServerMessage reply;
  reply.set_command_id(command_id);
  *reply.mutable_error() = melee::proto::MakeError(code, std::move(message), command_id);
  return reply;
}

// The name of a command as it appears in the protocol (the oneof field name).
std::string CommandName(const v1::ClientMessage& message) {
  const auto* field = v1::ClientMessage::descriptor()->FindFieldByNumber(message.command_case());
  return field != nullptr ? field->name() : "unknown";
}

// The match_id a command names (every match command has one), or empty.
std::string MatchIdOf(const v1::ClientMessage& message) {
  const auto* field = v1::ClientMessage::descriptor()->FindFieldByNumber(message.command_case());
  if (field == nullptr || field->message_type() == nullptr) return {};
  const google::protobuf::Message& command =
      message.GetReflection()->GetMessage(message, field);
  const auto* match_id = command.GetDescriptor()->FindFieldByName("match_id");
  if (match_id == nullptr || match_id->type() != google::protobuf::FieldDescriptor::TYPE_STRING ||
      match_id->is_repeated()) {
    return {};
  }
  return command.GetReflection()->GetString(command, match_id);
}

// The views a connection's protocol version asks for.
Match::Views ViewsOf(const ConnectionState& connection) {
  return connection.protocol_version >= 2 ? Match::Views::kForcesWhenChanged : Match::Views::kWhole;
}

void ReplyWith(const Reply& reply, v1::ServerMessage message) {
  reply({MakeMessage(std::move(message))});
}

}  // namespace

Dispatcher::Dispatcher(const melee::engine::Registry& registry, std::size_t max_message_bytes,
                       Matches* matches)
    : registry_(registry), max_message_bytes_(max_message_bytes), matches_(matches) {}

std::vector<v1::ServerMessage> Dispatcher::Handle(const v1::ClientMessage& message,
                                                  ConnectionState& connection) const {
  std::vector<v1::ServerMessage> answers;
  Handle(message, connection, [&answers](std::vector<MessagePtr> replies) {
    for (const MessagePtr& reply : replies) answers.push_back(reply->message());
  });
  return answers;
}

void Dispatcher::Handle(const v1::ClientMessage& message, ConnectionState& connection,
                        Reply reply) const {
  const std::string& id = message.command_id();
  if (id.empty()) {
    return ReplyWith(reply, ErrorReply(v1::ERROR_CODE_MISSING_COMMAND_ID,
                                       "command '" + CommandName(message) +
                                           "' has no command_id; every command needs a "
                                           "client-chosen id",
                                       id));
  }
  switch (message.command_case()) {
    case v1::ClientMessage::kHello:
      return ReplyWith(reply, HandleHello(message, connection));
    case v1::ClientMessage::kPing: {
      v1::ServerMessage pong;
      pong.set_command_id(id);
      pong.mutable_pong()->set_nonce(message.ping().nonce());
      return ReplyWith(reply, std::move(pong));
    }
    case v1::ClientMessage::kCreateMatch:
    case v1::ClientMessage::kJoinSeat:
    case v1::ClientMessage::kSpectate:
    case v1::ClientMessage::kResume:
    case v1::ClientMessage::kSubmitSetup:
    case v1::ClientMessage::kConfirmSetup:
    case v1::ClientMessage::kAnnounce:
    case v1::ClientMessage::kSealDeclaration:
    case v1::ClientMessage::kMakeChoice:
    case v1::ClientMessage::kFlagForDirector:
    case v1::ClientMessage::kOrderLocations:
    case v1::ClientMessage::kUpdateUnits:
    case v1::ClientMessage::kRecordResult:
    case v1::ClientMessage::kTakeVacation:
      if (matches_ == nullptr) {
        return ReplyWith(reply, ErrorReply(v1::ERROR_CODE_NOT_SUPPORTED,
                                           "not supported: '" + CommandName(message) +
                                               "' — this server does not host matches",
                                           id));
      }
      if (message.has_create_match()) {
        return matches_->Create(
            message.create_match().settings(), id, /*idempotency_key=*/"",
            [reply](v1::ServerMessage answer) { ReplyWith(reply, std::move(answer)); },
            message.create_match().tournament_token());
      }
      if (message.has_join_seat() || message.has_spectate() || message.has_resume()) {
        return HandleJoin(message, connection, std::move(reply));
      }
      if (!connection.match || !connection.viewer) {
        if (auto why = matches_->UnavailableMessage(MatchIdOf(message))) {
          return ReplyWith(reply, ErrorReply(v1::ERROR_CODE_UNAVAILABLE, *why, id));
        }
        return ReplyWith(reply, ErrorReply(v1::ERROR_CODE_UNAUTHENTICATED,
                                           "'" + CommandName(message) +
                                               "' needs a seat: send JoinSeat with the seat "
                                               "token first",
                                           id));
      }
      return connection.match->Execute(*connection.viewer, message, std::move(reply),
                                       connection.subscriber);
    case v1::ClientMessage::COMMAND_NOT_SET:
      break;
  }
  ReplyWith(reply, ErrorReply(v1::ERROR_CODE_UNKNOWN_MESSAGE,
                              "ClientMessage carries no command this protocol knows", id));
}

void Dispatcher::HandleJoin(const v1::ClientMessage& message, ConnectionState& connection,
                            Reply reply) const {
  const std::string& id = message.command_id();
  if (message.has_resume()) {
    if (auto why = matches_->UnavailableMessage(message.resume().match_id())) {
      return ReplyWith(reply, ErrorReply(v1::ERROR_CODE_UNAVAILABLE, *why, id));
    }
    if (!connection.match || connection.match->id() != message.resume().match_id()) {
      return ReplyWith(reply,
                       ErrorReply(v1::ERROR_CODE_UNAUTHENTICATED,
                                  "resume: this connection has not joined match " +
                                      proto::checks::Quoted(message.resume().match_id()) +
                                      "; send JoinSeat first",
                                  id));
    }
    return connection.match->Attach(connection.subscriber, *connection.viewer,
                                    message.resume().after_seq(), id, std::move(reply),
                                    ViewsOf(connection));
  }
  const std::string& match_id =
      message.has_join_seat() ? message.join_seat().match_id() : message.spectate().match_id();
  std::shared_ptr<Match> match = matches_->Find(match_id);
  if (!match) {
    if (std::optional<std::string> why = matches_->UnavailableMessage(match_id)) {
      return ReplyWith(reply, ErrorReply(v1::ERROR_CODE_UNAVAILABLE, *why, id));
    }
    return ReplyWith(reply, ErrorReply(v1::ERROR_CODE_NOT_FOUND,
                                       "no match " + proto::checks::Quoted(match_id) +
                                           " on this server",
                                       id));
  }
  std::optional<Viewer> viewer;
  uint64_t after_seq = 0;
  if (message.has_join_seat()) {
    viewer = match->Authenticate(message.join_seat().seat_token());
    after_seq = message.join_seat().after_seq();
    if (!viewer) {
      return ReplyWith(reply, ErrorReply(v1::ERROR_CODE_UNAUTHENTICATED,
                                         "join_seat: the seat token does not open a seat of "
                                         "match " +
                                             match_id,
                                         id));
    }
  } else {
    after_seq = message.spectate().after_seq();
    const std::string& key = message.spectate().spectator_key();
    if (match->IsSpectatorKey(key)) {
      viewer = Viewer::kSpectator;
    } else if (match->Authenticate(key) == Viewer::kDirector) {
      viewer = Viewer::kDirector;
    } else {
      return ReplyWith(reply, ErrorReply(v1::ERROR_CODE_UNAUTHENTICATED,
                                         "spectate: the key is neither the spectator key nor "
                                         "the director token of match " +
                                             match_id,
                                         id));
    }
  }
  if (connection.match && (connection.match != match || connection.viewer != viewer)) {
    return ReplyWith(reply, ErrorReply(v1::ERROR_CODE_PERMISSION_DENIED,
                                       "this connection already follows match " +
                                           connection.match->id() + " as " +
                                           std::string(engine::Name(*connection.viewer)) +
                                           "; open another connection for another seat",
                                       id));
  }
  connection.match = match;
  connection.viewer = viewer;
  match->Attach(connection.subscriber, *viewer, after_seq, id, std::move(reply),
                ViewsOf(connection));
}

v1::ServerMessage Dispatcher::HandleHello(const v1::ClientMessage& message,
                                          ConnectionState& connection) const {
  const v1::Hello& hello = message.hello();
  const unsigned wanted = hello.protocol_version() == 0 ? 1 : hello.protocol_version();
  if (wanted < kMinProtocolVersion || wanted > kProtocolVersion) {
    return ErrorReply(
        v1::ERROR_CODE_PROTOCOL_MISMATCH,
        "protocol version " + std::to_string(wanted) + " is not served; this server speaks " +
            std::to_string(kMinProtocolVersion) + ".." + std::to_string(kProtocolVersion),
        message.command_id());
  }
  connection.greeted = true;
  connection.protocol_version = wanted;

  v1::ServerMessage reply;
  reply.set_command_id(message.command_id());
  v1::HelloReply& out = *reply.mutable_hello();
  out.set_server_name(kServerName);
  out.set_server_version(kServerVersion);
  out.set_protocol_version(wanted);
  out.set_min_protocol_version(kMinProtocolVersion);
  out.set_max_protocol_version(kProtocolVersion);
  out.set_max_message_bytes(static_cast<uint32_t>(max_message_bytes_));
  for (std::string_view ruleset_id : registry_.Ids()) {
    auto ruleset = registry_.Find(ruleset_id);
    if (!ruleset) continue;
    v1::RulesetInfo& info = *out.add_rulesets();
    info.set_id(std::string((*ruleset)->id()));
    info.set_version(std::string((*ruleset)->version()));
    for (std::string_view variant : (*ruleset)->variants()) info.add_variants(std::string(variant));
  }
  return reply;
}

}  // namespace melee::server
