#include "proto/codec/frame.h"

#include <gtest/gtest.h>

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
