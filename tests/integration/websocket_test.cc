// The WebSocket endpoint against real clients on loopback: the C++ SDK's SyncClient.

#include <gtest/gtest.h>

#include "client-sdk/sync_client.h"
#include "server/transport/server.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
using client::SyncClient;
using proto::FrameKind;

std::unique_ptr<SyncClient> Connect(const testing::TestServer& server,
                                    FrameKind kind = FrameKind::kBinary) {
  auto client = SyncClient::Connect(server.ws_url(), kind);
  EXPECT_TRUE(client.has_value()) << client.error().message;
  return client ? std::move(*client) : nullptr;
}

v1::ClientMessage Hello() {
  v1::ClientMessage message;
  message.mutable_hello()->set_protocol_version(1);
  message.mutable_hello()->set_client_name("integration-test");
  return message;
}

// Sends a ping on `client` and checks the pong: the connection still serves.
void ExpectServes(SyncClient& client, uint64_t nonce) {
  v1::ClientMessage ping;
  ping.mutable_ping()->set_nonce(nonce);
  auto reply = client.Call(ping);
  ASSERT_TRUE(reply.has_value()) << reply.error().message;
  ASSERT_TRUE(reply->has_pong()) << reply->DebugString();
  EXPECT_EQ(reply->pong().nonce(), nonce);
}

TEST(WebSocketTest, HelloOverBinaryFrames) {
  testing::TestServer server;
  auto client = Connect(server);
  ASSERT_NE(client, nullptr);
  auto reply = client->Call(Hello());
  ASSERT_TRUE(reply.has_value()) << reply.error().message;
  ASSERT_TRUE(reply->has_hello()) << reply->DebugString();
  EXPECT_EQ(reply->hello().server_name(), "melee-server");
  EXPECT_EQ(reply->hello().protocol_version(), 1u);
  EXPECT_EQ(reply->hello().max_message_bytes(), 64u * 1024u);
}

TEST(WebSocketTest, HelloOverTextFramesIsAnsweredInJson) {
  testing::TestServer server;
  auto client = Connect(server, FrameKind::kText);
  ASSERT_NE(client, nullptr);
  // The SDK decodes whichever kind arrives; check the raw frame kind through a JSON request.
  ASSERT_TRUE(client->SendRaw(R"({"command_id":"j1","hello":{"client_name":"json"}})", true));
  auto reply = client->Receive();
  ASSERT_TRUE(reply.has_value()) << reply.error().message;
  ASSERT_TRUE(reply->has_hello());
  EXPECT_EQ(reply->command_id(), "j1");
}

// Sends `frame` raw on `client` and returns the Error it is answered with (empty on failure).
v1::Error ExpectError(SyncClient& client, const std::string& frame, bool text, v1::ErrorCode code) {
  EXPECT_TRUE(client.SendRaw(frame, text).has_value());
  auto reply = client.Receive();
  EXPECT_TRUE(reply.has_value()) << (reply ? "" : reply.error().message);
  if (!reply) return {};
  EXPECT_TRUE(reply->has_error()) << reply->DebugString();
  EXPECT_EQ(reply->error().code(), code) << reply->error().message();
  return reply->error();
}

TEST(WebSocketTest, MalformedOversizedAndUnknownFramesGetErrorsAndServiceGoesOn) {
  testing::TestServer server;
  auto bad = Connect(server);
  auto bystander = Connect(server);
  ASSERT_NE(bad, nullptr);
  ASSERT_NE(bystander, nullptr);

  const v1::Error malformed = ExpectError(*bad, std::string("\xff\xff\xff\xff\x0f", 5), false,
                                          v1::ERROR_CODE_MALFORMED_FRAME);
  EXPECT_NE(malformed.message().find("not a valid ClientMessage"), std::string::npos);

  ExpectError(*bad, "{not json", true, v1::ERROR_CODE_MALFORMED_FRAME);

  // Over the 64 KiB message limit, under the hard limit.
  const v1::Error oversized =
      ExpectError(*bad, std::string(100 * 1024, 'x'), false, v1::ERROR_CODE_MESSAGE_TOO_LARGE);
  EXPECT_NE(oversized.message().find("102400 bytes"), std::string::npos) << oversized.message();

  // A command field from a newer protocol (field 99).
  const v1::Error unknown =
      ExpectError(*bad, std::string("\x0a\x02u1", 4) + std::string("\x98\x06\x01", 3), false,
                  v1::ERROR_CODE_UNKNOWN_MESSAGE);
  EXPECT_NE(unknown.message().find("99"), std::string::npos);

  // The misbehaving connection and the other one are both still served.
  ExpectServes(*bad, 1);
  ExpectServes(*bystander, 2);
}

TEST(WebSocketTest, FrameOverTheHardLimitClosesWith1009AndOthersGoOn) {
  // Small limits, so the whole oversized frame fits in the socket buffers: the client's write
  // completes before the server refuses it, and the client then reads the close frame.
  server::ServerConfig config;
  config.max_message_bytes = 1024;
  config.hard_max_message_bytes = 4096;
  testing::TestServer server(config);
  auto bad = Connect(server);
  auto bystander = Connect(server);
  ASSERT_NE(bad, nullptr);
  ASSERT_NE(bystander, nullptr);
  auto sent = bad->SendRaw(std::string(16 * 1024, 'x'), false);
  ASSERT_TRUE(sent.has_value()) << sent.error().message;
  auto closed = bad->Receive();
  ASSERT_FALSE(closed.has_value());
  ASSERT_TRUE(closed.error().close_code.has_value()) << closed.error().message;
  EXPECT_EQ(*closed.error().close_code, 1009);
  ExpectServes(*bystander, 3);
}

TEST(WebSocketTest, FloodIsRateLimitedWithErrors) {
  server::ServerConfig config;
  config.messages_per_second = 1;
  config.message_burst = 5;
  testing::TestServer server(config);
  auto client = Connect(server);
  ASSERT_NE(client, nullptr);
  v1::ClientMessage ping;
  ping.set_command_id("flood");
  ping.mutable_ping();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(client->Send(ping));
  int pongs = 0;
  int limited = 0;
  for (int i = 0; i < 20; ++i) {
    auto reply = client->Receive();
    ASSERT_TRUE(reply.has_value()) << reply.error().message;
    if (reply->has_pong()) ++pongs;
    if (reply->has_error() && reply->error().code() == v1::ERROR_CODE_RATE_LIMITED) ++limited;
  }
  EXPECT_GE(pongs, 5);
  EXPECT_GE(limited, 10);
  EXPECT_EQ(pongs + limited, 20);
}

TEST(WebSocketTest, StopClosesClientsWithGoingAway) {
  testing::TestServer server;
  auto client = Connect(server);
  ASSERT_NE(client, nullptr);
  ExpectServes(*client, 4);
  server.server().Stop();  // returns at once; the close handshake needs this client's answer
  auto closed = client->Receive();
  ASSERT_FALSE(closed.has_value());
  ASSERT_TRUE(closed.error().close_code.has_value()) << closed.error().message;
  EXPECT_EQ(*closed.error().close_code, 1001);
  EXPECT_EQ(closed.error().close_reason, "server shutting down");
}

TEST(WebSocketTest, WrongPathIsRefused) {
  testing::TestServer server;
  auto client = SyncClient::Connect("ws://127.0.0.1:" + std::to_string(server.port()) + "/nope");
  ASSERT_FALSE(client.has_value());
  EXPECT_NE(client.error().message.find("handshake"), std::string::npos) << client.error().message;
}

}  // namespace
}  // namespace melee
