// The outbox survives SIGKILL (docs/notifications.md): a real melee-server commits notices its
// receiver cannot take yet, is killed with SIGKILL, and the next melee-server on the same data
// directory delivers them, signed, with their delivery ids.

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <set>

#include "tests/testing/http_get.h"
#include "tests/testing/match_client.h"
#include "tests/testing/match_frames.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/vv_commands.h"
#include "tests/testing/webhook_receiver.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
namespace http = boost::beast::http;
using std::chrono::seconds;
using testing::vv::SealDeclare;
using testing::vv::VvUse;

TEST(NotificationsProcessTest, NoticesCommittedBeforeSigkillAreDeliveredAfterRestart) {
  testing::TempDir dir;
  const std::string data = (dir.path() / "data").string();
  const std::vector<std::string> argv = {MELEE_SERVER_BINARY, "--port", "0", "--data-dir", data};
  testing::WebhookReceiver receiver;
  const uint16_t receiver_port = receiver.port();
  receiver.Stop();  // down: every attempt is refused until the restart
  std::string secret;
  {
    testing::Subprocess server(argv);
    const uint16_t port = testing::ServerPort(server);
    ASSERT_NE(port, 0) << server.output();
    const std::string url = "ws://127.0.0.1:" + std::to_string(port) + "/ws";
    auto a = testing::MatchClient::Connect(url);
    auto b = testing::MatchClient::Connect(url);
    ASSERT_TRUE(a && b);
    v1::MatchSettings settings;
    settings.set_ruleset("vv");
    settings.set_variant("pc");
    const v1::MatchCreated created = a->Create(settings);
    ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
    ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
    const testing::HttpResult registered = testing::HttpGet(
        port, "/api/matches/" + created.match_id() + "/notifications", http::verb::put,
        "{\"webhook_url\": \"" + receiver.url() + "\"}",
        {{"Authorization", "Bearer " + created.side_a_token()}});
    ASSERT_EQ(registered.status, 200) << registered.body;
    google::protobuf::Struct answer;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(registered.body, &answer).ok());
    secret = answer.fields().at("secret").string_value();
    ASSERT_TRUE(a->Act(testing::vv::GermanPart()).has_ack());
    ASSERT_TRUE(b->Act(testing::vv::AmericanPart()).has_ack());
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    ASSERT_TRUE(a->Act(testing::Confirm()).has_ack());
    ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
    ASSERT_TRUE(b->Act(testing::Confirm()).has_ack());
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    ASSERT_TRUE(b->Act(SealDeclare({}, "", {VvUse("US-HS", "LMG", false)})).has_ack());
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    // Acknowledged: the notice of its end is durable in the outbox with the events.
    ASSERT_TRUE(a->Act(SealDeclare({"G1", "G2", "G3", "Schmidt"}, "", {VvUse("G1", "", true)}))
                    .has_ack());
    server.SignalAndWait(SIGKILL, seconds(10));
  }
  EXPECT_TRUE(receiver.requests().empty());
  receiver.Start(receiver_port);
  testing::Subprocess server(argv);
  ASSERT_NE(testing::ServerPort(server), 0) << server.output();
  // The first notice failed once or twice before the kill: its retry waits out its backoff.
  const std::vector<testing::WebhookReceiver::Request> requests =
      receiver.WaitFor(2, std::chrono::seconds(20));
  ASSERT_EQ(requests.size(), 2u) << server.output();
  std::set<std::string> kinds;
  for (const auto& request : requests) {
    google::protobuf::Struct body;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(request.body, &body).ok());
    EXPECT_EQ(body.fields().at("delivery_id").string_value(), request.delivery);
    kinds.insert(body.fields().at("kind").string_value());
    EXPECT_EQ(request.signature.substr(0, 7), "sha256=");
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"your_turn", "ended"}));
  EXPECT_EQ(server.SignalAndWait(SIGTERM, seconds(10)), 0) << server.output();
}

}  // namespace
}  // namespace melee
