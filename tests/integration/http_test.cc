// The plain HTTP endpoints of a real server on loopback.

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

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

TEST(HttpTest, PlainGetOnTheWebSocketPathAsksForAnUpgrade) {
  testing::TestServer server;
  const auto result = testing::HttpGet(server.port(), "/ws");
  EXPECT_EQ(result.status, 426);
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
