#include "server/dispatcher.h"

#include <string>

#include "proto/codec/errors.h"
#include "server/version.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;

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

}  // namespace

Dispatcher::Dispatcher(const melee::engine::Registry& registry, std::size_t max_message_bytes)
    : registry_(registry), max_message_bytes_(max_message_bytes) {}

std::vector<v1::ServerMessage> Dispatcher::Handle(const v1::ClientMessage& message,
                                                  ConnectionState& connection) const {
  const std::string& id = message.command_id();
  if (id.empty()) {
    return {ErrorReply(v1::ERROR_CODE_MISSING_COMMAND_ID,
                       "command '" + CommandName(message) +
                           "' has no command_id; every command needs a client-chosen id",
                       id)};
  }
  switch (message.command_case()) {
    case v1::ClientMessage::kHello:
      return {HandleHello(message, connection)};
    case v1::ClientMessage::kPing: {
      v1::ServerMessage reply;
      reply.set_command_id(id);
      reply.mutable_pong()->set_nonce(message.ping().nonce());
      return {reply};
    }
    case v1::ClientMessage::kCreateMatch:
    case v1::ClientMessage::kJoinSeat:
    case v1::ClientMessage::kSpectate:
    case v1::ClientMessage::kResume:
    case v1::ClientMessage::kSealDeclaration:
    case v1::ClientMessage::kMakeChoice:
      return {ErrorReply(v1::ERROR_CODE_NOT_SUPPORTED,
                         "not supported: '" + CommandName(message) +
                             "' — this server build does not host matches yet",
                         id)};
    case v1::ClientMessage::COMMAND_NOT_SET:
      break;
  }
  return {ErrorReply(v1::ERROR_CODE_UNKNOWN_MESSAGE,
                     "ClientMessage carries no command this protocol knows", id)};
}

v1::ServerMessage Dispatcher::HandleHello(const v1::ClientMessage& message,
                                          ConnectionState& connection) const {
  const v1::Hello& hello = message.hello();
  const unsigned wanted =
      hello.protocol_version() == 0 ? kProtocolVersion : hello.protocol_version();
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
