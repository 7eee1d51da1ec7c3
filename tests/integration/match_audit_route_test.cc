// GET /api/matches/{id}/audit over a real server on loopback, after a match played with its
// committed dice: the director's report is the audit (AuditMatch) of the director's own export,
// every die counted here from that file; the report holds no token; a seat's or the spectator's
// token is refused 403 naming why, no or an unknown token 401, an unknown match 404, another
// method 405 with its Allow header.

#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "melee/asl/v1/asl.pb.h"
#include "melee/storage/v1/events.pb.h"
#include "melee/v1/tournament.pb.h"
#include "proto/codec/json.h"
#include "server/fair_play/audit.h"
#include "server/fair_play/audit_report.h"
#include "tests/testing/fair_play_match.h"
#include "tests/testing/http_get.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
namespace storage = melee::storage::v1;
namespace aslpb = melee::asl::v1;
using ::testing::HasSubstr;
using testing::MatchClient;

testing::HttpResult Audit(uint16_t port, const std::string& match_id, const std::string& token,
                          http::verb verb = http::verb::get) {
  std::vector<std::pair<std::string, std::string>> headers;
  if (!token.empty()) headers.emplace_back("Authorization", "Bearer " + token);
  testing::HttpResult result =
      testing::HttpGet(port, "/api/matches/" + match_id + "/audit", verb, {}, headers);
  EXPECT_TRUE(result.error.empty()) << result.error;
  return result;
}

// The message of the melee.v1.Error in `body`.
std::string ErrorMessage(const std::string& body) {
  v1::Error error;
  EXPECT_EQ(proto::FromJson(body, error), "") << body;
  return error.message();
}

// Every die of each side (0: side A, 1: side B) counted from the file's events, per face.
std::array<std::vector<uint64_t>, 2> FacesOf(const storage::MatchFile& file) {
  std::array<std::vector<uint64_t>, 2> faces{std::vector<uint64_t>(6, 0),
                                             std::vector<uint64_t>(6, 0)};
  for (const storage::FileEvent& event : file.events()) {
    storage::StoredEvent stored;
    EXPECT_TRUE(stored.ParseFromString(event.payload()));
    if (!stored.has_ruleset_event()) continue;
    aslpb::AslEvent asl;
    EXPECT_TRUE(asl.ParseFromString(stored.ruleset_event().event()));
    if (asl.seat() != v1::SEAT_SIDE_A && asl.seat() != v1::SEAT_SIDE_B) continue;
    for (const v1::DieRoll& die : asl.dice()) {
      ++faces[asl.seat() == v1::SEAT_SIDE_A ? 0 : 1][static_cast<size_t>(die.value() - 1)];
    }
  }
  return faces;
}

std::vector<uint64_t> Counts(const v1::PooledDiceTest& test) {
  return {test.counts().begin(), test.counts().end()};
}

class MatchAuditRouteTest : public ::testing::Test {
 protected:
  // An asl match between "Alice" and "Bob": two close combats with the server's committed dice,
  // both players agreeing that side A won; side B opened a second connection and closed it.
  void Play() {
    a_ = MatchClient::Connect(server_.ws_url());
    b_ = MatchClient::Connect(server_.ws_url());
    ASSERT_TRUE(a_ && b_);
    v1::MatchSettings settings;
    settings.set_ruleset("asl");
    settings.set_title("Alice v Bob");
    settings.set_side_a_name("Alice");
    settings.set_side_b_name("Bob");
    created_ = a_->Create(settings);
    ASSERT_TRUE(a_->Join(created_.match_id(), created_.side_a_token()).has_joined());
    ASSERT_TRUE(b_->Join(created_.match_id(), created_.side_b_token()).has_joined());
    testing::OrderLocations(*a_, *b_, {"G3", "H4"});
    testing::PlayCommittedCombat(*a_, *b_, "G3");
    testing::PlayCommittedCombat(*a_, *b_, "H4", std::string(16, 'c'), std::string(8, 'd'));
    for (MatchClient* client : {a_.get(), b_.get()}) {
      ASSERT_TRUE(client->WaitForSeq(std::max(a_->last_seq(), b_->last_seq())));
      v1::ClientMessage result;
      result.set_command_id("result");
      result.mutable_record_result()->set_outcome(v1::RESULT_OUTCOME_SIDE_A_WON);
      ASSERT_TRUE(client->Act(result).has_ack());
    }
    auto again = MatchClient::Connect(server_.ws_url());
    ASSERT_TRUE(again && again->Join(created_.match_id(), created_.side_b_token()).has_joined());
    ASSERT_TRUE(again->client().Close().has_value());
    // The clean close is journalled once the server has seen it.
    for (int i = 0; i < 500; ++i) {
      const storage::MatchFile file = Export();
      for (const storage::SessionRecord& record : file.sessions()) {
        if (record.left_unix_ms() != 0) return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL() << "side B's second connection was never journalled as closed";
  }

  storage::MatchFile Export() {
    return testing::ExportOver(server_.port(), created_.match_id(), created_.director_token());
  }

  testing::TestServer server_;
  std::unique_ptr<MatchClient> a_;
  std::unique_ptr<MatchClient> b_;
  v1::MatchCreated created_;
};

TEST_F(MatchAuditRouteTest, TheDirectorsReportIsTheAuditOfTheDirectorsFile) {
  ASSERT_NO_FATAL_FAILURE(Play());
  const storage::MatchFile file = Export();
  const testing::HttpResult answer =
      Audit(server_.port(), created_.match_id(), created_.director_token());
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_THAT(answer.content_type, HasSubstr("application/json"));
  EXPECT_EQ(answer.Header("Cache-Control"), "no-store");
  v1::MatchAuditReport report;
  ASSERT_EQ(proto::FromJson(answer.body, report), "") << answer.body;

  // Exactly the audit of the director's file, computed here.
  const auto audit = server::AuditMatch(file, server::BuiltinHosts());
  ASSERT_TRUE(audit.has_value()) << engine::Describe(audit.error());
  google::protobuf::util::MessageDifferencer differ;
  std::string differences;
  differ.ReportDifferencesToString(&differences);
  differ.set_float_comparison(google::protobuf::util::MessageDifferencer::APPROXIMATE);
  EXPECT_TRUE(differ.Compare(server::AuditReport(*audit), report)) << differences;

  // And its figures, read against the file and the MatchAudit one by one.
  EXPECT_TRUE(report.verified()) << report.verification();
  EXPECT_TRUE(audit->verification.ok);
  EXPECT_EQ(report.failure(), "");
  EXPECT_THAT(report.verification(), ::testing::StartsWith("OK"));
  EXPECT_EQ(report.key_fingerprint(), audit->verification.key_fingerprint);
  EXPECT_EQ(report.match_id(), created_.match_id());
  EXPECT_EQ(report.ruleset(), audit->ruleset);
  EXPECT_EQ(report.exported_for(), "director");
  EXPECT_EQ(report.side_a_name(), "Alice");
  EXPECT_EQ(report.side_b_name(), "Bob");
  EXPECT_EQ(report.first_attacker(), "side_a");
  ASSERT_GE(report.results_size(), 1);
  EXPECT_EQ(report.results(0).combat(), 0u);
  EXPECT_EQ(report.results(0).decided(), v1::RESULT_OUTCOME_SIDE_A_WON);

  const std::array<std::vector<uint64_t>, 2> faces = FacesOf(file);
  ASSERT_EQ(report.dice_size(), 4);
  const std::array<const char*, 4> players = {"side_a", "side_b", "nobody", "the whole match"};
  for (int b = 0; b < 4; ++b) {
    const v1::AuditDice& dice = report.dice(b);
    const server::PlayerDice& expected = audit->dice[static_cast<size_t>(b)];
    EXPECT_EQ(dice.player(), players[static_cast<size_t>(b)]);
    ASSERT_EQ(dice.by_purpose_size(), static_cast<int>(expected.by_purpose.size()));
    for (int t = 0; t < dice.by_purpose_size(); ++t) {
      const v1::PooledDiceTest& test = dice.by_purpose(t);
      const server::DiceTest& want = expected.by_purpose[static_cast<size_t>(t)];
      EXPECT_EQ(test.purpose(), want.label);
      EXPECT_EQ(Counts(test), want.counts) << test.purpose();
      uint64_t sum = 0;
      for (uint64_t count : test.counts()) sum += count;
      EXPECT_EQ(sum, test.rolls()) << test.purpose();
      EXPECT_EQ(test.expected_size(), test.counts_size());
      EXPECT_NEAR(test.chi_square(), want.chi_square, 1e-9);
      EXPECT_NEAR(test.p_value(), want.p_value, 1e-12);
      // A match's handful of dice is too few to judge (Cochran's rule).
      EXPECT_FALSE(test.judged());
      EXPECT_EQ(test.verdict(), "too few dice to judge");
    }
    EXPECT_EQ(Counts(dice.all_dice()), expected.all_dice.counts);
  }
  EXPECT_EQ(Counts(report.dice(0).all_dice()), faces[0]);
  EXPECT_EQ(Counts(report.dice(1).all_dice()), faces[1]);
  EXPECT_GT(report.dice(3).all_dice().rolls(), 0u);
  EXPECT_EQ(report.dice(3).all_dice().rolls(), report.dice(0).all_dice().rolls() +
                                                   report.dice(1).all_dice().rolls() +
                                                   report.dice(2).all_dice().rolls());

  ASSERT_EQ(report.timing_size(), 2);
  for (int s = 0; s < 2; ++s) {
    const v1::AuditSeatTiming& timing = report.timing(s);
    const server::SeatTiming& want = audit->timing[static_cast<size_t>(s)];
    EXPECT_EQ(timing.seat(), s == 0 ? "side_a" : "side_b");
    ASSERT_EQ(timing.responses_size(), static_cast<int>(want.responses.size()));
    EXPECT_GT(timing.responses_size(), 0);
    for (int r = 0; r < timing.responses_size(); ++r) {
      EXPECT_EQ(timing.responses(r).seq(), want.responses[static_cast<size_t>(r)].seq);
      EXPECT_EQ(timing.responses(r).waited_ms(), want.responses[static_cast<size_t>(r)].waited_ms);
    }
    EXPECT_EQ(timing.median_ms(), want.median_ms);
    EXPECT_EQ(timing.max_ms(), want.max_ms);
    EXPECT_EQ(timing.missed_deadlines_size(), 0);
  }
  ASSERT_EQ(report.sessions_size(), 3);
  EXPECT_EQ(report.sessions(0).sessions(), 1u);
  EXPECT_EQ(report.sessions(1).sessions(), 2u);
  EXPECT_EQ(report.sessions(1).closed(), 1u) << "a clean close is not a disconnect";
  EXPECT_EQ(report.sessions(1).disconnects_size(), 0);
  EXPECT_EQ(report.sessions(2).seat(), "director");

  ASSERT_EQ(report.timeline_size(), file.events_size());
  for (int i = 0; i < file.events_size(); ++i) {
    EXPECT_EQ(report.timeline(i).seq(), file.events(i).seq());
    EXPECT_EQ(report.timeline(i).unix_ms(), file.events(i).recorded_unix_ms());
  }
  EXPECT_EQ(report.aslpr_csv(), server::AslprCsvHeader() + "\r\n" +
                                    server::AslprCsvRow(*audit, server::AslprFields{}) + "\r\n");
  EXPECT_THAT(report.aslpr_csv(), HasSubstr(",Alice,Attacker,,Win,Bob,Defender,,Loss,"));
  EXPECT_THAT(report.aslpr_csv(), HasSubstr("," + created_.match_id() + "\r\n"));

  // No token, key or seed secret is in the report.
  for (const std::string& secret : {created_.side_a_token(), created_.side_b_token(),
                                    created_.director_token(), created_.spectator_key()}) {
    EXPECT_EQ(answer.body.find(secret), std::string::npos);
  }
}

TEST_F(MatchAuditRouteTest, OnlyTheDirectorMayAudit) {
  ASSERT_NO_FATAL_FAILURE(Play());
  const std::string& id = created_.match_id();
  for (const std::string& seat : {created_.side_a_token(), created_.side_b_token()}) {
    const testing::HttpResult refused = Audit(server_.port(), id, seat);
    EXPECT_EQ(refused.status, 403) << refused.body;
    EXPECT_THAT(ErrorMessage(refused.body), HasSubstr("the audit is the director's"));
    EXPECT_THAT(ErrorMessage(refused.body), HasSubstr("a seat's token exports only its own file"));
    EXPECT_THAT(refused.body, HasSubstr("ERROR_CODE_PERMISSION_DENIED"));
  }
  const testing::HttpResult spectator = Audit(server_.port(), id, created_.spectator_key());
  EXPECT_EQ(spectator.status, 403) << spectator.body;
  EXPECT_THAT(ErrorMessage(spectator.body), HasSubstr("the spectator key only watches"));

  const testing::HttpResult none = Audit(server_.port(), id, "");
  EXPECT_EQ(none.status, 401) << none.body;
  EXPECT_THAT(ErrorMessage(none.body),
              HasSubstr("needs \"Authorization: Bearer <director token>\""));
  EXPECT_EQ(Audit(server_.port(), id, std::string(64, 'f')).status, 401);
  // Another match's director token opens nothing here.
  const v1::MatchCreated other = a_->Create([] {
    v1::MatchSettings settings;
    settings.set_ruleset("asl");
    return settings;
  }());
  EXPECT_EQ(Audit(server_.port(), id, other.director_token()).status, 401);
  EXPECT_EQ(Audit(server_.port(), other.match_id(), created_.director_token()).status, 401);

  const testing::HttpResult unknown =
      Audit(server_.port(), "no-such-match", created_.director_token());
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  EXPECT_THAT(ErrorMessage(unknown.body), HasSubstr("no match \"no-such-match\""));

  const testing::HttpResult posted =
      Audit(server_.port(), id, created_.director_token(), http::verb::post);
  EXPECT_EQ(posted.status, 405) << posted.body;
  EXPECT_EQ(posted.Header("Allow"), "GET");
  EXPECT_THAT(ErrorMessage(posted.body), HasSubstr("answers GET only"));
  const testing::HttpResult raw = testing::RawHttp(
      server_.port(),
      "BREW /api/matches/" + id + "/audit HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(raw.status, 501) << raw.body;
  EXPECT_THAT(raw.body, HasSubstr("Allow: GET\r\n")) << "AllowedMethods knows the audit";

  // An empty director audit of a match with nothing played yet still answers.
  const testing::HttpResult fresh = Audit(server_.port(), other.match_id(), other.director_token());
  ASSERT_EQ(fresh.status, 200) << fresh.body;
  v1::MatchAuditReport report;
  ASSERT_EQ(proto::FromJson(fresh.body, report), "");
  EXPECT_TRUE(report.verified()) << report.verification();
  EXPECT_EQ(report.dice(3).all_dice().rolls(), 0u);
}

}  // namespace
}  // namespace melee
