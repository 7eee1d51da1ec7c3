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

}  // namespace
}  // namespace melee::proto
