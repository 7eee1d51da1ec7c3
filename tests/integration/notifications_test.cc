// Webhook notices (docs/notifications.md) against a real server on loopback and a real HTTP
// receiver: registration over HTTP (malformed URLs refused), signed notices with delivery ids,
// one notice per change of turn, a receiver that is down for a while, a server stopped between
// the commit and the delivery, and the URL and secret never leaving the server.

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <set>

#include "persistence/fair_play.h"
#include "server/clock.h"
#include "tests/testing/http_get.h"
#include "tests/testing/match_client.h"
#include "tests/testing/match_frames.h"
#include "tests/testing/scripted_faces.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"
#include "tests/testing/vv_commands.h"
#include "tests/testing/webhook_receiver.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
namespace http = boost::beast::http;
using testing::Confirm;
using testing::HttpGet;
using testing::MatchClient;
using testing::WebhookReceiver;
using testing::vv::AmericanPart;
using testing::vv::GermanPart;
using testing::vv::SealDeclare;
using testing::vv::VvUse;

// Returns the hex HMAC-SHA256 of `body` keyed by `secret`, as a receiver computes it.
std::string Hmac(const std::string& secret, const std::string& body) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), mac, &length);
  return persistence::BytesToHex(std::string_view(reinterpret_cast<const char*>(mac), length));
}

google::protobuf::Struct Json(const std::string& text) {
  google::protobuf::Struct parsed;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(text, &parsed).ok()) << text;
  return parsed;
}

std::string Field(const google::protobuf::Struct& json, const std::string& key) {
  const auto it = json.fields().find(key);
  if (it == json.fields().end()) return {};
  if (it->second.has_number_value()) {
    return std::to_string(static_cast<int64_t>(it->second.number_value()));
  }
  return it->second.string_value();
}

// PUT (or DELETE) /api/matches/{id}/notifications with `token`.
testing::HttpResult Register(uint16_t port, const std::string& match_id, const std::string& token,
                             const std::string& url, http::verb verb = http::verb::put) {
  return HttpGet(port, "/api/matches/" + match_id + "/notifications", verb,
                 verb == http::verb::put ? "{\"webhook_url\": \"" + url + "\"}" : std::string(),
                 {{"Authorization", "Bearer " + token}});
}

class NotificationsTest : public ::testing::Test {
 protected:
  // A server on `dir_` (delivering webhooks when `deliver`), retrying quickly.
  std::unique_ptr<testing::TestServer> StartServer(bool deliver = true) {
    server::ServerConfig config;
    config.deliver_webhooks = deliver;
    config.webhook_first_retry_ms = 100;
    config.webhook_max_retry_ms = 400;
    server::ServerHooks hooks;
    hooks.clock = clock_;
    hooks.dice = faces_.Source();
    return std::make_unique<testing::TestServer>(config, std::move(hooks), dir_.path() / "data");
  }

  // Creates a pc-edition vv match (an assault ends once both have sealed) and seats both sides
  // and a spectator.
  void Seat(testing::TestServer& server, uint32_t declaration_deadline_seconds = 0) {
    a_ = MatchClient::Connect(server.ws_url());
    b_ = MatchClient::Connect(server.ws_url());
    spectator_ = MatchClient::Connect(server.ws_url());
    ASSERT_TRUE(a_ && b_ && spectator_);
    v1::MatchSettings settings;
    settings.set_ruleset("vv");
    settings.set_variant("pc");
    settings.set_declaration_deadline_seconds(declaration_deadline_seconds);
    created_ = a_->Create(settings);
    ASSERT_FALSE(created_.match_id().empty());
    ASSERT_TRUE(a_->Join(created_.match_id(), created_.side_a_token()).has_joined());
    ASSERT_TRUE(b_->Join(created_.match_id(), created_.side_b_token()).has_joined());
    ASSERT_TRUE(spectator_->Join(created_.match_id(), created_.spectator_key(), 0, true)
                    .has_joined());
  }

  // Registers side A's webhook at `url`; returns its secret.
  std::string RegisterA(uint16_t port, const std::string& url) {
    const testing::HttpResult answer = Register(port, created_.match_id(),
                                                created_.side_a_token(), url);
    EXPECT_EQ(answer.status, 200) << answer.body << answer.error;
    const std::string secret = Field(Json(answer.body), "secret");
    EXPECT_EQ(secret.size(), 64u) << answer.body;
    return secret;
  }

  void EnterAndConfirm() {
    ASSERT_TRUE(a_->Act(GermanPart()).has_ack());
    ASSERT_TRUE(b_->Act(AmericanPart()).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    ASSERT_TRUE(a_->Act(Confirm()).has_ack());
    ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
    ASSERT_TRUE(b_->Act(Confirm()).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  }

  void SealBoth() {
    ASSERT_TRUE(b_->Act(SealDeclare({}, "", {VvUse("US-HS", "LMG", false)})).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    faces_.Push({3, 4});
    ASSERT_TRUE(a_->Act(SealDeclare({"G1", "G2", "G3", "Schmidt"}, "", {VvUse("G1", "", true)}))
                    .has_ack());
    acknowledged_ = std::chrono::steady_clock::now();
    ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
    ASSERT_TRUE(spectator_->WaitForSeq(a_->last_seq()));
  }

  // Checks that `requests` are signed with `secret`, carry their delivery id in header and body,
  // and have distinct ids; returns their kinds in order.
  static std::vector<std::string> CheckSigned(const std::vector<WebhookReceiver::Request>& requests,
                                              const std::string& secret) {
    std::vector<std::string> kinds;
    std::set<std::string> ids;
    for (const WebhookReceiver::Request& request : requests) {
      EXPECT_EQ(request.signature, "sha256=" + Hmac(secret, request.body));
      EXPECT_EQ(request.content_type, "application/json");
      const google::protobuf::Struct body = Json(request.body);
      EXPECT_EQ(Field(body, "delivery_id"), request.delivery);
      EXPECT_EQ(request.delivery.size(), 32u);
      EXPECT_TRUE(ids.insert(request.delivery).second) << "delivered twice: " << request.body;
      EXPECT_EQ(Field(body, "seat"), "side_a");
      EXPECT_FALSE(Field(body, "text").empty());
      kinds.push_back(Field(body, "kind"));
    }
    return kinds;
  }

  std::shared_ptr<server::ManualClock> clock_ = std::make_shared<server::ManualClock>();
  testing::ScriptedFaces faces_;
  testing::TempDir dir_;
  std::unique_ptr<MatchClient> a_;
  std::unique_ptr<MatchClient> b_;
  std::unique_ptr<MatchClient> spectator_;
  v1::MatchCreated created_;
  std::chrono::steady_clock::time_point acknowledged_;  // when A's last seal was answered
};

TEST_F(NotificationsTest, MalformedUrlsAreRefusedNamingTheProblem) {
  auto server = StartServer();
  Seat(*server);
  const std::string id = created_.match_id();
  const std::string token = created_.side_a_token();
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"ftp://example.com/hook", "scheme"},
      {"not a url", "not an absolute URL"},
      {"http:///hook", "no host"},
      {"https://user:pw@example.com/hook", "credentials"},
      {"https://example.com/" + std::string(3000, 'x'), "bytes long"},
      {"", "empty"},
  };
  for (const auto& [url, problem] : refused) {
    const testing::HttpResult answer = Register(server->port(), id, token, url);
    EXPECT_EQ(answer.status, 400) << url;
    EXPECT_NE(answer.body.find(problem), std::string::npos) << url << ": " << answer.body;
  }
  // Only a seat registers: a wrong token, or the spectator key, is refused.
  EXPECT_EQ(Register(server->port(), id, "nope", "https://example.com/h").status, 401);
  EXPECT_EQ(Register(server->port(), id, created_.spectator_key(), "https://example.com/h").status,
            401);
  EXPECT_EQ(Register(server->port(), id, created_.director_token(), "https://example.com/h").status,
            403);
  EXPECT_EQ(Register(server->port(), "no-such-match", token, "https://example.com/h").status, 404);
  EXPECT_EQ(Register(server->port(), id, token, "https://example.com/h").status, 200);
  EXPECT_EQ(Register(server->port(), id, token, "", http::verb::delete_).status, 200);
}

// A seat is told once per change: its turn to declare, then the assault's end; each notice is
// signed with its secret and carries its delivery id. Neither the other seat, nor a spectator,
// nor any match file sees the URL or the secret.
TEST_F(NotificationsTest, SignedNoticesOnePerChangeAndNothingLeaks) {
  WebhookReceiver receiver;
  auto server = StartServer();
  Seat(*server);
  const std::string url = receiver.url() + "?seat=a-private-path";
  const std::string secret = RegisterA(server->port(), url);
  EnterAndConfirm();
  SealBoth();
  const std::vector<WebhookReceiver::Request> requests = receiver.WaitFor(2);
  ASSERT_EQ(requests.size(), 2u);
  // Measured: from the client holding the last command's answer to the receiver holding the
  // notice it caused (negative: the notice came first).
  RecordProperty("ack_to_notice_us",
                 static_cast<int>(std::chrono::duration_cast<std::chrono::microseconds>(
                                      requests[1].arrived - acknowledged_)
                                      .count()));
  EXPECT_EQ(CheckSigned(requests, secret), (std::vector<std::string>{"your_turn", "ended"}));
  const google::protobuf::Struct turn = Json(requests[0].body);
  EXPECT_EQ(Field(turn, "awaited"), "declaration");
  EXPECT_EQ(Field(turn, "match_id"), created_.match_id());
  EXPECT_EQ(Field(Json(requests[1].body), "last_seq"), std::to_string(a_->last_seq()));
  EXPECT_EQ(requests[0].target, "/hook?seat=a-private-path");

  // The leak test: every frame B and the spectator received, and every export.
  for (const std::string& bytes : {testing::AllBytes(*b_), testing::AllBytes(*spectator_),
                                   testing::AllBytes(*a_)}) {
    EXPECT_EQ(bytes.find("a-private-path"), std::string::npos);
    EXPECT_EQ(bytes.find(secret), std::string::npos);
  }
  for (const std::string& token :
       {created_.side_a_token(), created_.side_b_token(), created_.director_token()}) {
    const testing::HttpResult file =
        HttpGet(server->port(), "/api/matches/" + created_.match_id() + "/export",
                http::verb::get, {}, {{"Authorization", "Bearer " + token}});
    ASSERT_EQ(file.status, 200) << file.body;
    EXPECT_EQ(file.body.find("a-private-path"), std::string::npos);
    EXPECT_EQ(file.body.find(secret), std::string::npos);
  }
  // Delivered: nothing pending, in /metrics.
  const std::string metrics = HttpGet(server->port(), "/metrics").body;
  EXPECT_NE(metrics.find("melee_webhooks_delivered_total 2"), std::string::npos) << metrics;
}

// A default taken at a deadline is a notice of its own.
TEST_F(NotificationsTest, ADefaultTakenAtADeadlineIsNoticed) {
  WebhookReceiver receiver;
  auto server = StartServer();
  Seat(*server, 120);
  const std::string secret = RegisterA(server->port(), receiver.url());
  EnterAndConfirm();
  ASSERT_TRUE(b_->Act(SealDeclare({}, "", {VvUse("US-HS", "LMG", false)})).has_ack());
  faces_.Push({3, 4});
  clock_->Advance(std::chrono::milliseconds(121'000));
  const std::vector<WebhookReceiver::Request> requests = receiver.WaitFor(2);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(CheckSigned(requests, secret),
            (std::vector<std::string>{"your_turn", "default_taken"}));
  EXPECT_NE(Field(Json(requests[0].body), "deadline_unix_ms"), "0");
}

// A receiver that is down (refusing, then answering 503) gets every notice once it is back.
TEST_F(NotificationsTest, AReceiverDownForAWhileGetsEveryNoticeLater) {
  WebhookReceiver receiver;
  const uint16_t port = receiver.port();
  receiver.Stop();
  auto server = StartServer();
  Seat(*server);
  const std::string secret = RegisterA(server->port(), receiver.url());
  EnterAndConfirm();
  SealBoth();
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // a few refused attempts
  receiver.set_status(503);
  receiver.Start(port);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // a few failed attempts
  const std::string metrics = HttpGet(server->port(), "/metrics").body;
  EXPECT_NE(metrics.find("melee_webhooks_pending 2"), std::string::npos) << metrics;
  EXPECT_EQ(metrics.find("melee_webhook_attempts_failed_total 0"), std::string::npos) << metrics;
  receiver.set_status(200);
  const std::vector<WebhookReceiver::Request> requests = receiver.WaitFor(2);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(CheckSigned(requests, secret), (std::vector<std::string>{"your_turn", "ended"}));
}

// Notices committed by a server that stopped before delivering them are delivered by the next
// server on the same data directory, with the same delivery ids.
TEST_F(NotificationsTest, NoticesCommittedBeforeAStopAreDeliveredAfterRestart) {
  WebhookReceiver receiver;
  std::string secret;
  {
    auto server = StartServer(/*deliver=*/false);
    Seat(*server);
    secret = RegisterA(server->port(), receiver.url());
    EnterAndConfirm();
    SealBoth();
    a_.reset();
    b_.reset();
    spectator_.reset();
  }
  EXPECT_TRUE(receiver.requests().empty());
  auto server = StartServer();
  const std::vector<WebhookReceiver::Request> requests = receiver.WaitFor(2);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(CheckSigned(requests, secret), (std::vector<std::string>{"your_turn", "ended"}));
}

}  // namespace
}  // namespace melee
