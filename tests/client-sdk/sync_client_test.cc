#include "client-sdk/sync_client.h"

#include <gtest/gtest.h>

#include "tests/testing/test_server.h"

namespace melee::client {
namespace {

TEST(SyncClientTest, RefusesAnUnsupportedScheme) {
  auto client = SyncClient::Connect("http://127.0.0.1:1/ws");
  ASSERT_FALSE(client.has_value());
  EXPECT_NE(client.error().message.find("not supported: scheme 'http'"), std::string::npos)
      << client.error().message;
}

TEST(SyncClientTest, RefusesSomethingThatIsNotAUrl) {
  auto client = SyncClient::Connect("::::");
  ASSERT_FALSE(client.has_value());
  EXPECT_NE(client.error().message.find("not a URL"), std::string::npos);
}

TEST(SyncClientTest, ReportsAConnectionRefused) {
  auto client = SyncClient::Connect("ws://127.0.0.1:1/ws");
  ASSERT_FALSE(client.has_value());
  EXPECT_NE(client.error().message.find("cannot connect"), std::string::npos)
      << client.error().message;
}

TEST(SyncClientTest, CallNumbersCommandsAndMatchesTheAnswer) {
  testing::TestServer server;
  auto client = SyncClient::Connect(server.ws_url());
  ASSERT_TRUE(client.has_value()) << client.error().message;
  std::string prefix;
  for (uint64_t nonce = 1; nonce <= 3; ++nonce) {
    melee::v1::ClientMessage ping;
    ping.mutable_ping()->set_nonce(nonce);
    auto reply = (*client)->Call(ping);
    ASSERT_TRUE(reply.has_value()) << reply.error().message;
    // "<8 random hex digits>-<n>": unique per client, so ids never repeat across reconnects.
    ASSERT_EQ(reply->command_id().size(), 10u) << reply->command_id();
    if (nonce == 1) prefix = reply->command_id().substr(0, 9);
    EXPECT_EQ(reply->command_id(), prefix + std::to_string(nonce));
    EXPECT_EQ(reply->pong().nonce(), nonce);
  }
  auto other = SyncClient::Connect(server.ws_url());
  ASSERT_TRUE(other.has_value());
  melee::v1::ClientMessage ping;
  ping.mutable_ping();
  EXPECT_NE((*other)->Call(ping)->command_id().substr(0, 9), prefix) << "another client";
  EXPECT_TRUE((*client)->Close().has_value());
}

TEST(SyncClientTest, ReceiveTimesOutWhenNothingComes) {
  testing::TestServer server;
  auto client = SyncClient::Connect(server.ws_url());
  ASSERT_TRUE(client.has_value());
  auto nothing = (*client)->Receive(std::chrono::milliseconds(50));
  ASSERT_FALSE(nothing.has_value());
  EXPECT_NE(nothing.error().message.find("timed out"), std::string::npos);
  // The connection is still usable after a timeout.
  melee::v1::ClientMessage ping;
  ping.mutable_ping()->set_nonce(9);
  auto reply = (*client)->Call(ping);
  ASSERT_TRUE(reply.has_value()) << reply.error().message;
  EXPECT_EQ(reply->pong().nonce(), 9u);
}

}  // namespace
}  // namespace melee::client
