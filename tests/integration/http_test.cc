// The plain HTTP endpoints of a real server on loopback.

#include <gtest/gtest.h>

#include "client-sdk/sync_client.h"
#include "tests/testing/http_get.h"
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

}  // namespace
}  // namespace melee
