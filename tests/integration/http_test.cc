// The plain HTTP endpoints of a real server on loopback.

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "client-sdk/sync_client.h"
#include "tests/testing/http_get.h"
#include "tests/testing/match_client.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

TEST(HttpTest, HealthzReportsOkWithTheStore) {
  testing::TestServer server;
  const auto result = testing::HttpGet(server.port(), "/healthz");
  ASSERT_TRUE(result.error.empty()) << result.error;
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.content_type, "application/json");
  EXPECT_NE(result.body.find("\"status\":\"ok\""), std::string::npos) << result.body;
  EXPECT_NE(result.body.find("\"store\":\"ok\""), std::string::npos) << result.body;
}

TEST(HttpTest, MetricsAreInPrometheusTextFormat) {
  testing::TestServer server;
  {
    auto client = client::SyncClient::Connect(server.ws_url());
    ASSERT_TRUE(client.has_value());
    ASSERT_TRUE((*client)->SendRaw("garbage", true));
    ASSERT_TRUE((*client)->Receive().has_value());
  }
  const auto result = testing::HttpGet(server.port(), "/metrics");
  ASSERT_TRUE(result.error.empty()) << result.error;
  EXPECT_EQ(result.status, 200);
  EXPECT_NE(result.content_type.find("text/plain"), std::string::npos);
  EXPECT_NE(result.body.find("# TYPE melee_ws_messages_received_total counter"), std::string::npos)
      << result.body;
  EXPECT_NE(result.body.find("melee_errors_total{code=\"ERROR_CODE_MALFORMED_FRAME\"} 1"),
            std::string::npos)
      << result.body;
}

// Each decoded command is counted under its name, from two connections (the counters are cached
// by field number: the first count and the later ones land on the same series).
TEST(HttpTest, MetricsCountEachCommandByItsName) {
  testing::TestServer server;
  for (int connection = 0; connection < 2; ++connection) {
    auto client = testing::MatchClient::Connect(server.ws_url());
    for (int i = 0; i < 3; ++i) {
      melee::v1::ClientMessage ping;
      ping.set_command_id("p" + std::to_string(i));
      ping.mutable_ping()->set_nonce(static_cast<uint64_t>(i));
      ASSERT_TRUE(client->Call(ping).has_pong());
    }
    melee::v1::ClientMessage create;
    create.set_command_id("c");
    create.mutable_create_match()->mutable_settings()->set_ruleset("asl");
    ASSERT_TRUE(client->Call(create).has_match_created());
  }
  const auto metrics = testing::HttpGet(server.port(), "/metrics");
  EXPECT_NE(metrics.body.find("melee_commands_total{command=\"ping\"} 6\n"), std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("melee_commands_total{command=\"create_match\"} 2\n"),
            std::string::npos)
      << metrics.body;
}

TEST(HttpTest, UnknownPathIs404WithAnErrorBody) {
  testing::TestServer server;
  const auto result = testing::HttpGet(server.port(), "/nope");
  EXPECT_EQ(result.status, 404);
  EXPECT_NE(result.body.find("no such endpoint: /nope"), std::string::npos) << result.body;
}

TEST(HttpTest, WrongMethodIs405) {
  testing::TestServer server;
  const auto result = testing::HttpGet(server.port(), "/healthz", http::verb::post);
  EXPECT_EQ(result.status, 405);
}

// A request the server cannot take still gets an HTTP answer before the connection closes.
TEST(HttpTest, OversizedHeadersGet431AndTheConnectionClosesCleanly) {
  testing::TestServer server;
  const auto result = testing::RawHttp(
      server.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: " +
                         std::string(64 * 1024, 'x') + "\r\nConnection: close\r\n\r\n");
  ASSERT_TRUE(result.error.empty()) << result.error;
  EXPECT_EQ(result.status, 431) << result.body.substr(0, 200);
  EXPECT_NE(result.body.find("header fields exceed 16384 bytes"), std::string::npos)
      << result.body;
}

TEST(HttpTest, AGarbageRequestLineGets400) {
  testing::TestServer server;
  const auto result = testing::RawHttp(server.port(), "HELLO THERE\r\n\r\n");
  EXPECT_TRUE(result.error.empty()) << result.error;
  EXPECT_EQ(result.status, 400) << result.body;
  EXPECT_NE(result.body.find("not an HTTP/1.1 request"), std::string::npos) << result.body;
  EXPECT_NE(result.body.find("ERROR_CODE_MALFORMED_FRAME"), std::string::npos) << result.body;
}

TEST(HttpTest, AnUnknownMethodGets501WithAllowWhereThePathIsKnown) {
  testing::TestServer server;
  const auto known = testing::RawHttp(
      server.port(), "BREW /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(known.status, 501) << known.body;
  EXPECT_NE(known.body.find("Allow: GET\r\n"), std::string::npos) << known.body;
  EXPECT_NE(known.body.find("method \\\"BREW\\\" is not implemented"), std::string::npos)
      << known.body;
  const auto unknown = testing::RawHttp(
      server.port(), "BREW /teapot HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(unknown.status, 501) << unknown.body;
  EXPECT_EQ(unknown.body.find("Allow:"), std::string::npos) << unknown.body;
  // A known method the path does not answer stays 405 with Allow.
  const auto post = testing::RawHttp(
      server.port(),
      "DELETE /api/matches HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(post.status, 405) << post.body;
  EXPECT_NE(post.body.find("Allow: POST\r\n"), std::string::npos) << post.body;
}

TEST(HttpTest, PlainGetOnTheWebSocketPathAsksForAnUpgrade) {
  testing::TestServer server;
  const auto result = testing::HttpGet(server.port(), "/ws");
  EXPECT_EQ(result.status, 426);
}

// Over --max-connections-per-address a client gets a 503 that names the limit, not a silent
// close, and a load balancer's GET /healthz is still answered.
TEST(HttpTest, OverTheConnectionLimitA503NamesItAndHealthzStillAnswers) {
  server::ServerConfig config;
  config.max_connections_per_address = 2;
  testing::TestServer server(config);
  auto first = client::SyncClient::Connect(server.ws_url());
  auto second = client::SyncClient::Connect(server.ws_url());
  ASSERT_TRUE(first.has_value() && second.has_value());
  const auto refused = testing::HttpGet(server.port(), "/api/matches", http::verb::post,
                                        R"({"ruleset": "asl"})");
  ASSERT_TRUE(refused.error.empty()) << refused.error;
  EXPECT_EQ(refused.status, 503);
  EXPECT_NE(refused.body.find("ERROR_CODE_UNAVAILABLE"), std::string::npos) << refused.body;
  EXPECT_NE(refused.body.find("2 connections from 127.0.0.1 are open, the limit per address "
                              "(--max-connections-per-address)"),
            std::string::npos)
      << refused.body;
  const auto health = testing::HttpGet(server.port(), "/healthz");
  ASSERT_TRUE(health.error.empty()) << health.error;
  EXPECT_EQ(health.status, 200) << health.body;
  EXPECT_NE(health.body.find("\"status\":\"ok\""), std::string::npos) << health.body;
  first->reset();
  second->reset();
  // The refusals were counted; with the connections closed, the metrics are served again.
  testing::HttpResult metrics;
  for (int attempt = 0; attempt < 50 && metrics.status != 200; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    metrics = testing::HttpGet(server.port(), "/metrics");
  }
  const std::string counter = "\nmelee_connections_refused_total ";
  const auto at = metrics.body.find(counter);
  ASSERT_NE(at, std::string::npos) << metrics.body;
  EXPECT_GE(std::stoi(metrics.body.substr(at + counter.size())), 2) << metrics.body;
}

// Creating matches costs CPU and a durable write: one address gets --match-creation-burst at
// once, then --match-creations-per-minute, over HTTP (429 with Retry-After) and the WebSocket.
TEST(HttpTest, MatchCreationsAreLimitedPerAddress) {
  server::ServerConfig config;
  config.match_creations_per_minute = 1;
  config.match_creation_burst = 2;
  testing::TestServer server(config);
  const std::string settings = R"({"ruleset": "asl"})";
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(testing::HttpGet(server.port(), "/api/matches", http::verb::post, settings).status,
              201);
  }
  const auto limited = testing::RawHttp(
      server.port(), "POST /api/matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Content-Length: " + std::to_string(settings.size()) +
                         "\r\nConnection: close\r\n\r\n" + settings);
  EXPECT_EQ(limited.status, 429) << limited.body;
  const auto at = limited.body.find("Retry-After: ");
  ASSERT_NE(at, std::string::npos) << limited.body;
  const int seconds = std::stoi(limited.body.substr(at + 13));
  EXPECT_GE(seconds, 59);
  EXPECT_LE(seconds, 61);
  EXPECT_NE(limited.body.find("ERROR_CODE_RATE_LIMITED"), std::string::npos) << limited.body;
  EXPECT_NE(limited.body.find("more than 1 matches a minute from 127.0.0.1 "
                              "(--match-creations-per-minute); nothing was created"),
            std::string::npos)
      << limited.body;
  // The WebSocket's CreateMatch draws on the same budget.
  auto client = testing::MatchClient::Connect(server.ws_url());
  melee::v1::ClientMessage create;
  create.set_command_id("c1");
  create.mutable_create_match()->mutable_settings()->set_ruleset("asl");
  const melee::v1::ServerMessage refused = client->Call(create);
  EXPECT_EQ(refused.error().code(), melee::v1::ERROR_CODE_RATE_LIMITED) << refused.DebugString();
  EXPECT_EQ(refused.command_id(), "c1");
  const auto metrics = testing::HttpGet(server.port(), "/metrics");
  EXPECT_NE(metrics.body.find("\nmelee_match_creations_rate_limited_total 2\n"), std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("\nmelee_matches 2\n"), std::string::npos) << metrics.body;
}

// POST /api/matches creates a match for a script or a PBEM player: 201 with the seat tokens,
// which then open their seats over the WebSocket. An Idempotency-Key makes a retry safe.
TEST(HttpTest, PostApiMatchesCreatesAMatch) {
  testing::TestServer server;
  const std::string settings = R"({"ruleset": "asl", "declaration_order": "DECLARATION_ORDER_SEALED",
                                   "title": "by email"})";
  const auto created = testing::HttpGet(server.port(), "/api/matches", http::verb::post, settings,
                                        {{"Idempotency-Key", "k-1"}});
  ASSERT_EQ(created.status, 201) << created.error << created.body;
  melee::v1::MatchCreated match;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(created.body, &match).ok());
  EXPECT_EQ(match.side_a_token().size(), 64u);
  EXPECT_NE(match.side_a_token(), match.side_b_token());
  EXPECT_EQ(match.ruleset().id(), "asl");
  const auto again = testing::HttpGet(server.port(), "/api/matches", http::verb::post, settings,
                                      {{"Idempotency-Key", "k-1"}});
  EXPECT_EQ(again.body, created.body) << "the retry gets the first answer";
  const auto other = testing::HttpGet(server.port(), "/api/matches", http::verb::post, settings);
  EXPECT_NE(other.body, created.body);

  // The same key with another body creates nothing (draft-ietf-httpapi-idempotency-key-header
  // answers 422), and the first creation stands.
  const auto reused = testing::HttpGet(server.port(), "/api/matches", http::verb::post,
                                       R"({"ruleset": "vv"})", {{"Idempotency-Key", "k-1"}});
  EXPECT_EQ(reused.status, 422) << reused.body;
  EXPECT_NE(reused.body.find("ERROR_CODE_IDEMPOTENCY_KEY_REUSED"), std::string::npos)
      << reused.body;
  EXPECT_NE(reused.body.find("Idempotency-Key was used before"), std::string::npos) << reused.body;
  const auto metrics = testing::HttpGet(server.port(), "/metrics");
  EXPECT_NE(metrics.body.find("\nmelee_matches 2\n"), std::string::npos)
      << "k-1 and the keyless one only:\n" << metrics.body;
  EXPECT_EQ(testing::HttpGet(server.port(), "/api/matches", http::verb::post, settings,
                             {{"Idempotency-Key", "k-1"}})
                .body,
            created.body);

  auto client = testing::MatchClient::Connect(server.ws_url());
  const melee::v1::ServerMessage joined = client->Join(match.match_id(), match.side_b_token());
  ASSERT_TRUE(joined.has_joined()) << joined.DebugString();
  EXPECT_EQ(joined.joined().view().settings().title(), "by email");

  const auto bad = testing::HttpGet(server.port(), "/api/matches", http::verb::post, "{oops");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("ERROR_CODE_MALFORMED_FRAME"), std::string::npos) << bad.body;
  const auto unsupported = testing::HttpGet(server.port(), "/api/matches", http::verb::post,
                                            R"({"ruleset": "chess"})");
  EXPECT_EQ(unsupported.status, 400);
  EXPECT_NE(unsupported.body.find("not supported"), std::string::npos) << unsupported.body;
  EXPECT_EQ(testing::HttpGet(server.port(), "/api/matches").status, 405);
}

}  // namespace
}  // namespace melee
