#include "proto/codec/frame.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/reflection.h>
#include <google/protobuf/stubs/logging.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

namespace melee::proto {
namespace {

namespace v1 = melee::v1;

v1::ClientMessage HelloMessage() {
  v1::ClientMessage message;
  message.set_command_id("c1");
  message.mutable_hello()->set_protocol_version(1);
  message.mutable_hello()->set_client_name("test");
  return message;
}

TEST(FrameTest, BinaryRoundTrip) {
  const std::string bytes = EncodeClientMessage(HelloMessage(), FrameKind::kBinary);
  auto decoded = DecodeClientMessage(bytes, FrameKind::kBinary);
  ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
  EXPECT_EQ(decoded->command_id(), "c1");
  EXPECT_EQ(decoded->hello().client_name(), "test");
}

TEST(FrameTest, JsonRoundTripUsesProtoFieldNames) {
  const std::string json = EncodeClientMessage(HelloMessage(), FrameKind::kText);
  EXPECT_NE(json.find("\"command_id\":\"c1\""), std::string::npos) << json;
  auto decoded = DecodeClientMessage(json, FrameKind::kText);
  ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
  EXPECT_EQ(decoded->hello().protocol_version(), 1u);
}

TEST(FrameTest, JsonAcceptsLowerCamelCaseToo) {
  auto decoded =
      DecodeClientMessage(R"({"commandId":"x","hello":{"clientName":"py"}})", FrameKind::kText);
  ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
  EXPECT_EQ(decoded->hello().client_name(), "py");
}

TEST(FrameTest, GarbageBinaryIsMalformed) {
  auto decoded = DecodeClientMessage(std::string("\xff\xff\xff\xff\x0f", 5), FrameKind::kBinary);
  ASSERT_FALSE(decoded.has_value());
  EXPECT_EQ(decoded.error().code, v1::ERROR_CODE_MALFORMED_FRAME);
  EXPECT_NE(decoded.error().message.find("not a valid ClientMessage"), std::string::npos);
}

TEST(FrameTest, BrokenJsonIsMalformed) {
  auto decoded = DecodeClientMessage("{\"hello\": ", FrameKind::kText);
  ASSERT_FALSE(decoded.has_value());
  EXPECT_EQ(decoded.error().code, v1::ERROR_CODE_MALFORMED_FRAME);
  EXPECT_NE(decoded.error().message.find("JSON"), std::string::npos);
}

TEST(FrameTest, JsonWithWrongTypeIsMalformed) {
  auto decoded = DecodeClientMessage(R"({"command_id":"1","hello":{"protocol_version":"abc"}})",
                                     FrameKind::kText);
  ASSERT_FALSE(decoded.has_value());
  EXPECT_EQ(decoded.error().code, v1::ERROR_CODE_MALFORMED_FRAME);
}

TEST(FrameTest, BinaryWithOnlyAnUnknownFieldIsUnknownMessage) {
  // Field 99, varint 1: a command from a newer protocol.
  const std::string bytes = std::string("\x0a\x01x", 3) + std::string("\x98\x06\x01", 3);
  auto decoded = DecodeClientMessage(bytes, FrameKind::kBinary);
  ASSERT_FALSE(decoded.has_value());
  EXPECT_EQ(decoded.error().code, v1::ERROR_CODE_UNKNOWN_MESSAGE);
  EXPECT_NE(decoded.error().message.find("99"), std::string::npos) << decoded.error().message;
}

// Found by fuzz_frame (tests/fuzz/regressions/frame/): a set-up part carrying fields the server
// does not know was stored and relayed to the other seats with them, unchecked and unmasked.
TEST(FrameTest, BinaryDropsUnknownFieldsInsideACommand) {
  v1::ClientMessage message;
  message.set_command_id("s1");
  message.mutable_submit_setup()->mutable_coc()->set_force_morale(9);
  // Field 99 of the coc set-up part, a string: unknown to this protocol.
  message.mutable_submit_setup()->mutable_coc()->GetReflection()
      ->MutableUnknownFields(message.mutable_submit_setup()->mutable_coc())
      ->AddLengthDelimited(99, "hidden");
  auto decoded = DecodeClientMessage(message.SerializeAsString(), FrameKind::kBinary);
  ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
  EXPECT_EQ(decoded->submit_setup().coc().force_morale(), 9);
  EXPECT_TRUE(decoded->submit_setup().coc().GetReflection()
                  ->GetUnknownFields(decoded->submit_setup().coc())
                  .empty());
  EXPECT_EQ(decoded->SerializeAsString().find("hidden"), std::string::npos);
}

// A known field on a wire type its type does not have is kept by protobuf's parser as an unknown
// field: dropped as one.
TEST(FrameTest, BinaryDropsAKnownFieldOnAnotherWireType) {
  v1::ClientMessage message = HelloMessage();
  const int client_name =
      v1::Hello::descriptor()->FindFieldByName("client_name")->number();  // a string
  message.mutable_hello()
      ->GetReflection()
      ->MutableUnknownFields(message.mutable_hello())
      ->AddVarint(client_name, 7);
  auto decoded = DecodeClientMessage(message.SerializeAsString(), FrameKind::kBinary);
  ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
  EXPECT_EQ(decoded->hello().client_name(), "test");
  EXPECT_TRUE(decoded->hello().GetReflection()->GetUnknownFields(decoded->hello()).empty());
}

// ---- decoding drops exactly what DiscardUnknownFields drops, whatever the bytes
// -------------------

namespace pb = google::protobuf;

// Sets `field` (adds a value, when repeated) to a small value derived from `n`.
void SetScalar(pb::Message& message, const pb::FieldDescriptor* field, uint32_t n) {
  const pb::Reflection& r = *message.GetReflection();
  const bool add = field->is_repeated();
  const auto v = 1 + n % 3;
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
      add ? r.AddInt32(&message, field, v) : r.SetInt32(&message, field, v);
      break;
    case pb::FieldDescriptor::CPPTYPE_INT64:
      add ? r.AddInt64(&message, field, v) : r.SetInt64(&message, field, v);
      break;
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      add ? r.AddUInt32(&message, field, v) : r.SetUInt32(&message, field, v);
      break;
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      add ? r.AddUInt64(&message, field, v) : r.SetUInt64(&message, field, v);
      break;
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
      add ? r.AddDouble(&message, field, v) : r.SetDouble(&message, field, v);
      break;
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
      add ? r.AddFloat(&message, field, v) : r.SetFloat(&message, field, v);
      break;
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      add ? r.AddBool(&message, field, true) : r.SetBool(&message, field, true);
      break;
    case pb::FieldDescriptor::CPPTYPE_ENUM: {
      const pb::EnumDescriptor& values = *field->enum_type();
      const int e = values.value(static_cast<int>(n % values.value_count()))->number();
      add ? r.AddEnumValue(&message, field, e) : r.SetEnumValue(&message, field, e);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_STRING: {
      const std::string text = "v" + std::to_string(n % 1000);
      add ? r.AddString(&message, field, text) : r.SetString(&message, field, text);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      break;
  }
}

// Sets every field of `message` (in each oneof, the one `pick` names at the top, else the
// first), submessages down to depth 4, repeated fields with two values.
void Fill(pb::Message& message, std::mt19937& random, int depth, int pick = 0) {
  const pb::Descriptor& type = *message.GetDescriptor();
  const pb::Reflection& reflection = *message.GetReflection();
  for (int i = 0; i < type.field_count(); ++i) {
    const pb::FieldDescriptor* field = type.field(i);
    if (const pb::OneofDescriptor* oneof = field->real_containing_oneof()) {
      const int chosen = depth == 0 ? pick % oneof->field_count() : 0;
      if (oneof->field(chosen) != field) continue;
    }
    const bool message_typed = field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE;
    if (message_typed && depth >= 4) continue;
    for (int k = 0; k < (field->is_repeated() ? 2 : 1); ++k) {
      if (!message_typed) {
        SetScalar(message, field, static_cast<uint32_t>(random()));
      } else {
        Fill(field->is_repeated() ? *reflection.AddMessage(&message, field)
                                  : *reflection.MutableMessage(&message, field),
             random, depth + 1);
      }
    }
  }
}

// Whether `message` or any message in it holds an unknown field.
bool HoldsUnknownFields(const pb::Message& message) {
  const pb::Reflection& reflection = *message.GetReflection();
  if (!reflection.GetUnknownFields(message).empty()) return true;
  std::vector<const pb::FieldDescriptor*> fields;
  reflection.ListFields(message, &fields);
  for (const pb::FieldDescriptor* field : fields) {
    if (field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      for (int i = 0; i < reflection.FieldSize(message, field); ++i) {
        if (HoldsUnknownFields(reflection.GetRepeatedMessage(message, field, i))) return true;
      }
    } else if (HoldsUnknownFields(reflection.GetMessage(message, field))) {
      return true;
    }
  }
  return false;
}

// The decoder reads a command's bytes once to see whether protobuf kept anything unknown, and
// walks the message (DiscardUnknownFields) only then. Every command, filled, then its bytes
// mutated thousands of times (a byte changed, a byte inserted, a random field appended): whenever
// they parse, the decoded command is exactly the parsed one with its unknown fields discarded,
// and holds none.
TEST(FrameTest, BinaryDecodingDropsWhatDiscardUnknownFieldsDropsWhateverTheBytes) {
  std::mt19937 random(20261128);
  const pb::LogSilencer quiet;  // mutated strings that are not UTF-8 would each log an error
  const pb::OneofDescriptor& commands =
      *v1::ClientMessage::descriptor()->FindOneofByName("command");
  int parsed = 0;
  int with_unknown = 0;
  for (int c = 0; c < commands.field_count(); ++c) {
    v1::ClientMessage filled;
    Fill(filled, random, 0, c);
    ASSERT_EQ(filled.command_case(), commands.field(c)->number()) << commands.field(c)->name();
    const std::string original = SerializeDeterministic(filled);
    for (int round = 0; round < 3000; ++round) {
      std::string bytes = original;
      const int mutations = 1 + static_cast<int>(random() % 3);
      for (int m = 0; m < mutations; ++m) {
        const size_t at = random() % bytes.size();
        switch (random() % 3) {
          case 0:
            bytes[at] = static_cast<char>(random());
            break;
          case 1:
            bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                         static_cast<char>(random()));
            break;
          default:  // a field numbered 1..15 or 16+, of a random wire type, holding 1
            bytes += std::string{static_cast<char>(random() % 128), 1};
        }
      }
      v1::ClientMessage expected;
      if (!expected.ParseFromString(bytes)) continue;
      if (expected.command_case() == v1::ClientMessage::COMMAND_NOT_SET) continue;
      ++parsed;
      if (HoldsUnknownFields(expected)) ++with_unknown;
      expected.DiscardUnknownFields();
      auto decoded = DecodeClientMessage(bytes, FrameKind::kBinary);
      ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
      EXPECT_FALSE(HoldsUnknownFields(*decoded)) << commands.field(c)->name();
      ASSERT_EQ(SerializeDeterministic(*decoded), SerializeDeterministic(expected))
          << commands.field(c)->name() << ", round " << round;
    }
  }
  // Both ways through the decoder were taken many times.
  EXPECT_GT(with_unknown, 1000) << parsed;
  EXPECT_GT(parsed - with_unknown, 1000) << parsed;
}

// The log's bytes: equal to protobuf's own deterministic serialization (map entries sorted,
// whatever order they were inserted in), for messages from empty to many times the size a
// StringOutputStream starts with.
TEST(FrameTest, SerializeDeterministicIsProtobufsDeterministicSerialization) {
  const auto reference = [](const google::protobuf::MessageLite& message) {
    std::string bytes;
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
    coded.Trim();
    return std::string(bytes.data(), static_cast<size_t>(coded.ByteCount()));
  };
  EXPECT_EQ(SerializeDeterministic(v1::ClientMessage()), "");
  for (int entries : {1, 3, 40, 2000}) {
    v1::ClientMessage forward;
    v1::ClientMessage backward;
    forward.set_command_id("c" + std::to_string(entries));
    backward.set_command_id(forward.command_id());
    auto& a = *forward.mutable_create_match()->mutable_settings()->mutable_options();
    auto& b = *backward.mutable_create_match()->mutable_settings()->mutable_options();
    for (int i = 0; i < entries; ++i) {
      a["option_" + std::to_string(i)] = std::string(static_cast<size_t>(i % 37), 'x');
    }
    for (int i = entries - 1; i >= 0; --i) {
      b["option_" + std::to_string(i)] = std::string(static_cast<size_t>(i % 37), 'x');
    }
    const std::string bytes = SerializeDeterministic(forward);
    EXPECT_EQ(bytes, reference(forward)) << entries << " entries";
    EXPECT_EQ(bytes, SerializeDeterministic(backward)) << entries << " entries";
    EXPECT_EQ(bytes.size(), forward.ByteSizeLong());
    v1::ClientMessage back;
    ASSERT_TRUE(back.ParseFromString(bytes));
    EXPECT_EQ(back.create_match().settings().options().size(), static_cast<size_t>(entries));
  }
}

// A message with a submessage given as bytes (a logged event spliced into a MatchEvent): the
// deterministic bytes of the message with that submessage set, whatever the sizes (lengths of
// one to three varint bytes), and parsed back to the same message.
TEST(FrameTest, SerializeDeterministicWithASubmessagesBytesIsTheMessageWithIt) {
  for (size_t text : {size_t{0}, size_t{5}, size_t{200}, size_t{20000}}) {
    v1::MatchEvent around;
    around.set_match_id("m-1");
    around.set_seq(7);
    around.mutable_declaration_sealed()->set_seat(v1::SEAT_SIDE_B);
    melee::asl::v1::AslEvent asl;
    asl.set_text(std::string(text, 'y'));
    const std::string bytes = SerializeDeterministic(asl);
    v1::MatchEvent whole = around;
    *whole.mutable_asl() = asl;
    const std::string spliced =
        SerializeDeterministicWith(around, v1::MatchEvent::kAslFieldNumber, bytes);
    EXPECT_EQ(spliced, SerializeDeterministic(whole)) << text << " bytes of text";
    v1::MatchEvent back;
    ASSERT_TRUE(back.ParseFromString(spliced));
    EXPECT_EQ(back.asl().text().size(), text);
    EXPECT_EQ(back.declaration_sealed().seat(), v1::SEAT_SIDE_B);
  }
  EXPECT_EQ(SerializeDeterministicWith(v1::MatchEvent(), v1::MatchEvent::kAslFieldNumber, ""),
            LengthDelimited(v1::MatchEvent::kAslFieldNumber, ""));
}

TEST(FrameTest, JsonWithAnUnknownCommandIsUnknownMessage) {
  auto decoded =
      DecodeClientMessage(R"({"command_id":"1","launch_missiles":{}})", FrameKind::kText);
  ASSERT_FALSE(decoded.has_value());
  EXPECT_EQ(decoded.error().code, v1::ERROR_CODE_UNKNOWN_MESSAGE);
  EXPECT_NE(decoded.error().message.find("launch_missiles"), std::string::npos)
      << decoded.error().message;
}

TEST(FrameTest, EmptyEnvelopeIsUnknownMessage) {
  auto decoded = DecodeClientMessage("", FrameKind::kBinary);
  ASSERT_FALSE(decoded.has_value());
  EXPECT_EQ(decoded.error().code, v1::ERROR_CODE_UNKNOWN_MESSAGE);
}

TEST(FrameTest, ServerMessageRoundTripInBothKinds) {
  v1::ServerMessage message;
  message.set_command_id("c9");
  message.mutable_error()->set_code(v1::ERROR_CODE_RULE_VIOLATION);
  message.mutable_error()->set_rule_ref("A11.16");
  for (FrameKind kind : {FrameKind::kBinary, FrameKind::kText}) {
    auto decoded = DecodeServerMessage(EncodeServerMessage(message, kind), kind);
    ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
    EXPECT_EQ(decoded->error().rule_ref(), "A11.16");
    EXPECT_EQ(decoded->error().code(), v1::ERROR_CODE_RULE_VIOLATION);
  }
}

// How the server sends a view (Match::RenderView): the changing fields serialized, the kept
// parts' bytes appended, the whole wrapped as ServerMessage.view. A client parses one view.
TEST(FrameTest, ConcatenatedViewPartsWrappedAsAFieldParseAsOneServerMessage) {
  v1::MatchView changing;
  changing.set_match_id("m-1");
  changing.set_seq(42);
  changing.add_waiting_for("side B: seal its declaration");
  v1::MatchView kept;
  kept.mutable_settings()->set_ruleset("asl");
  kept.add_side_a_force()->set_id("A1");
  kept.add_side_a_force()->set_id("A2");
  kept.add_side_b_force()->set_id("B1");
  const std::string bytes =
      LengthDelimited(v1::ServerMessage::kViewFieldNumber,
                      changing.SerializeAsString() + kept.SerializeAsString());
  v1::ServerMessage whole;
  *whole.mutable_view() = changing;
  whole.mutable_view()->MergeFrom(kept);
  for (FrameKind kind : {FrameKind::kBinary, FrameKind::kText}) {
    // The text frame is encoded from the tree the bytes parse to (Outbound::FromBinary).
    const std::string frame =
        kind == FrameKind::kBinary
            ? bytes
            : EncodeServerMessage(*DecodeServerMessage(bytes, FrameKind::kBinary), kind);
    auto decoded = DecodeServerMessage(frame, kind);
    ASSERT_TRUE(decoded.has_value()) << decoded.error().message;
    EXPECT_EQ(SerializeDeterministic(*decoded), SerializeDeterministic(whole));
    EXPECT_EQ(decoded->view().side_a_force_size(), 2);
    EXPECT_EQ(decoded->view().settings().ruleset(), "asl");
  }
  // A long view: the length takes more than one byte.
  const std::string long_bytes(300, 'x');
  const std::string wrapped = LengthDelimited(7, long_bytes);
  EXPECT_EQ(wrapped.size(), 1 + 2 + long_bytes.size());
}

}  // namespace
}  // namespace melee::proto
