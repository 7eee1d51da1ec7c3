// fuzz_frame: WebSocket frames through DecodeClientMessage and the dispatcher of an in-process
// server (tests/fuzz/world.h) whose matches are real, on an in-memory SQLite store.
//
// Input layout (tests/fuzz/seeds.cc writes the seeds in it):
//   byte 0        the ruleset of the match the input plays in: 0 asl, 1 coc, 2 vv, 3 none (only
//                 connection commands then); other values modulo 4
//   then frames   each: a header byte (bits 0-2: the connection, 0 side_a, 1 side_b, 2 the
//                 director, 3 a spectator, 4-7 a connection that has joined nothing; bit 7: a
//                 text frame (the JSON mapping), else binary (protobuf)), a length (2 bytes,
//                 little-endian) and that many bytes (fewer for the last frame when the input
//                 ends)
// Connections 0-3 have joined the match before the first frame, with its real tokens. In a
// decoded command, a string field of the command that is exactly "@match", "@a", "@b", "@d" or
// "@s" is replaced by the match id, side A's, side B's or the director's token, or the spectator
// key: the seeds name them so, since the real ones are random.
//
// What must hold: no crash, no sanitizer report; a decoded binary command is the parsed one with
// its unknown fields discarded; every command is answered exactly once (World);
// every message the server sends (answers and live events) encodes to both frame kinds and
// decodes back to the same message.

#include <array>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/check.h"
#include "proto/codec/frame.h"
#include "server/match.h"
#include "tests/fuzz/targets.h"
#include "tests/fuzz/world.h"

namespace melee::fuzz {
namespace {

namespace v1 = melee::v1;

constexpr std::array<const char*, 3> kRulesets = {"asl", "coc", "vv"};
constexpr size_t kConnections = 8;
constexpr size_t kJoinedConnections = 4;

// Checks that `sent` survives both frame encodings unchanged: what a client decodes from the
// frames the sessions send is what the server meant.
void CheckRoundTrip(const server::Outbound& sent) {
  const v1::ServerMessage& message = sent.message();
  const std::string bytes = proto::SerializeDeterministic(message);
  for (proto::FrameKind kind : {proto::FrameKind::kBinary, proto::FrameKind::kText}) {
    const std::string& frame = *sent.Frame(kind);
    auto back = proto::DecodeServerMessage(frame, kind);
    if (!back || proto::SerializeDeterministic(*back) != bytes) {
      std::cerr << "sent (" << (kind == proto::FrameKind::kText ? "text" : "binary") << " frame):\n"
                << message.DebugString() << "frame:\n"
                << frame << "\nread back:\n"
                << (back ? back->DebugString() : back.error().message) << "\n";
    }
    MELEE_CHECK_MSG(back.has_value(), "a server message decodes from the frame it was sent in");
    MELEE_CHECK_MSG(proto::SerializeDeterministic(*back) == bytes,
                    "a server message decodes to the message it was");
  }
}

// A connection's live events, checked as they arrive.
class CheckingSubscriber final : public server::Subscriber {
 public:
  void Deliver(std::vector<server::MessagePtr> messages) override {
    for (const auto& message : messages) CheckRoundTrip(*message);
  }
};

// Replaces the placeholders in the string fields of `message`'s command (see the top).
void FillPlaceholders(v1::ClientMessage& message, const std::map<std::string, std::string>& real) {
  const auto* field = v1::ClientMessage::descriptor()->FindFieldByNumber(message.command_case());
  if (field == nullptr || field->message_type() == nullptr) return;
  google::protobuf::Message* command = message.GetReflection()->MutableMessage(&message, field);
  const google::protobuf::Descriptor* type = command->GetDescriptor();
  const google::protobuf::Reflection* reflection = command->GetReflection();
  for (int i = 0; i < type->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* string_field = type->field(i);
    if (string_field->type() != google::protobuf::FieldDescriptor::TYPE_STRING ||
        string_field->is_repeated()) {
      continue;
    }
    const auto found = real.find(reflection->GetString(*command, string_field));
    if (found != real.end()) reflection->SetString(command, string_field, found->second);
  }
}

// Joins `connection` to the match as `viewer`, as a client would.
void Join(World& world, const CreatedMatch& match, size_t index,
          server::ConnectionState& connection) {
  v1::ClientMessage join;
  join.set_command_id("fuzz-join");
  const std::array<std::string, 2> seat_tokens = {match.side_a_token, match.side_b_token};
  if (index < 2) {
    join.mutable_join_seat()->set_match_id(match.match_id);
    join.mutable_join_seat()->set_seat_token(seat_tokens[index]);
  } else {
    join.mutable_spectate()->set_match_id(match.match_id);
    join.mutable_spectate()->set_spectator_key(index == 2 ? match.director_token
                                                          : match.spectator_key);
  }
  for (const v1::ServerMessage& answer : world.Dispatch(join, connection)) {
    MELEE_CHECK_MSG(!answer.has_error(), "a seat joins with its own token");
  }
}

}  // namespace

Reached FuzzFrame(std::string_view input) {
  Reached reached;
  if (input.empty()) return reached;
  World& world = SharedWorld();
  const size_t ruleset = static_cast<uint8_t>(input[0]) % 4;
  input.remove_prefix(1);

  std::array<server::ConnectionState, kConnections> connections;
  std::array<std::shared_ptr<CheckingSubscriber>, kConnections> subscribers;
  for (size_t i = 0; i < kConnections; ++i) {
    subscribers[i] = std::make_shared<CheckingSubscriber>();
    connections[i].subscriber = subscribers[i];
  }
  std::map<std::string, std::string> placeholders;
  if (ruleset < kRulesets.size()) {
    const CreatedMatch match = world.CreateMatch(kRulesets[ruleset]);
    placeholders = {{"@match", match.match_id},
                    {"@a", match.side_a_token},
                    {"@b", match.side_b_token},
                    {"@d", match.director_token},
                    {"@s", match.spectator_key}};
    for (size_t i = 0; i < kJoinedConnections; ++i) Join(world, match, i, connections[i]);
  }

  while (input.size() >= 3) {
    const auto header = static_cast<uint8_t>(input[0]);
    const size_t length = static_cast<uint8_t>(input[1]) | (static_cast<uint8_t>(input[2]) << 8);
    input.remove_prefix(3);
    const std::string_view frame = input.substr(0, length);
    input.remove_prefix(frame.size());
    const proto::FrameKind kind =
        (header & 0x80) != 0 ? proto::FrameKind::kText : proto::FrameKind::kBinary;
    auto decoded = proto::DecodeClientMessage(frame, kind);
    if (!decoded) continue;
    ++reached.parsed;
    if (kind == proto::FrameKind::kBinary) {
      // The decoder drops exactly the fields protobuf kept as unknown, at every depth.
      v1::ClientMessage discarded;
      MELEE_CHECK(discarded.ParseFromArray(frame.data(), static_cast<int>(frame.size())));
      discarded.DiscardUnknownFields();
      MELEE_CHECK_MSG(
          proto::SerializeDeterministic(*decoded) == proto::SerializeDeterministic(discarded),
          "a decoded command holds no field this protocol does not know");
    }
    FillPlaceholders(*decoded, placeholders);
    const std::vector<v1::ServerMessage> answers =
        world.Dispatch(*decoded, connections[header & 0x07]);
    bool refused = false;
    for (const v1::ServerMessage& answer : answers) {
      CheckRoundTrip(server::Outbound(answer));
      refused = refused || answer.has_error();
    }
    if (!refused) ++reached.accepted;
  }
  return reached;
}

}  // namespace melee::fuzz
