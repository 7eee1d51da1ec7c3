#include "server/transport/dispatcher.h"

#include <gtest/gtest.h>

#include "server/version.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;

class DispatcherTest : public ::testing::Test {
 protected:
  std::vector<v1::ServerMessage> Handle(v1::ClientMessage message) {
    return dispatcher_.Handle(message, connection_);
  }

  melee::engine::Registry registry_ = melee::engine::BuiltinRegistry();
  Dispatcher dispatcher_{registry_, 4096};
  ConnectionState connection_;
};

TEST_F(DispatcherTest, HelloAnswersVersionsAndLimits) {
  v1::ClientMessage hello;
  hello.set_command_id("h1");
  hello.mutable_hello()->set_protocol_version(1);
  const auto replies = Handle(hello);
  ASSERT_EQ(replies.size(), 1u);
  ASSERT_TRUE(replies[0].has_hello());
  EXPECT_EQ(replies[0].command_id(), "h1");
  EXPECT_EQ(replies[0].hello().server_name(), kServerName);
  EXPECT_EQ(replies[0].hello().server_version(), kServerVersion);
  EXPECT_EQ(replies[0].hello().protocol_version(), 1u) << "the version the client asked for";
  EXPECT_EQ(replies[0].hello().max_protocol_version(), kProtocolVersion);
  EXPECT_EQ(replies[0].hello().min_protocol_version(), 1u);
  EXPECT_EQ(replies[0].hello().max_message_bytes(), 4096u);
  EXPECT_EQ(static_cast<std::size_t>(replies[0].hello().rulesets_size()), registry_.Ids().size());
  EXPECT_TRUE(connection_.greeted);
}

TEST_F(DispatcherTest, HelloWithoutVersionMeansVersionOne) {
  v1::ClientMessage hello;
  hello.set_command_id("h1");
  hello.mutable_hello();
  const auto replies = Handle(hello);
  ASSERT_TRUE(replies[0].has_hello());
  EXPECT_EQ(connection_.protocol_version, 1u);
}

TEST_F(DispatcherTest, HelloMayAskForVersionTwo) {
  v1::ClientMessage hello;
  hello.set_command_id("h1");
  hello.mutable_hello()->set_protocol_version(2);
  const auto replies = Handle(hello);
  ASSERT_TRUE(replies[0].has_hello());
  EXPECT_EQ(replies[0].hello().protocol_version(), 2u);
  EXPECT_EQ(connection_.protocol_version, 2u);
}

TEST_F(DispatcherTest, FutureProtocolIsRefused) {
  v1::ClientMessage hello;
  hello.set_command_id("h2");
  hello.mutable_hello()->set_protocol_version(7);
  const auto replies = Handle(hello);
  ASSERT_TRUE(replies[0].has_error());
  EXPECT_EQ(replies[0].error().code(), v1::ERROR_CODE_PROTOCOL_MISMATCH);
  EXPECT_EQ(replies[0].error().command_id(), "h2");
  EXPECT_FALSE(connection_.greeted);
}

TEST_F(DispatcherTest, CommandWithoutIdIsRefused) {
  v1::ClientMessage ping;
  ping.mutable_ping()->set_nonce(3);
  const auto replies = Handle(ping);
  ASSERT_TRUE(replies[0].has_error());
  EXPECT_EQ(replies[0].error().code(), v1::ERROR_CODE_MISSING_COMMAND_ID);
  EXPECT_NE(replies[0].error().message().find("ping"), std::string::npos);
}

TEST_F(DispatcherTest, PingIsAnsweredWithItsNonce) {
  v1::ClientMessage ping;
  ping.set_command_id("p");
  ping.mutable_ping()->set_nonce(42);
  const auto replies = Handle(ping);
  ASSERT_TRUE(replies[0].has_pong());
  EXPECT_EQ(replies[0].pong().nonce(), 42u);
}

TEST_F(DispatcherTest, MatchCommandsSayNotSupportedByName) {
  v1::ClientMessage create;
  create.set_command_id("m");
  create.mutable_create_match()->mutable_settings()->set_ruleset("asl");
  const auto replies = Handle(create);
  ASSERT_TRUE(replies[0].has_error());
  EXPECT_EQ(replies[0].error().code(), v1::ERROR_CODE_NOT_SUPPORTED);
  EXPECT_NE(replies[0].error().message().find("create_match"), std::string::npos);
}

}  // namespace
}  // namespace melee::server
