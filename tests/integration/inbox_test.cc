// POST /api/inbox over a real server: for a set of seat tokens, which matches wait for the
// player, the events since its mark as its seat may see them, and an error per entry for an
// unknown match or a wrong token. The opponent's concealed unit never shows in it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "melee/v1/envelope.pb.h"
#include "proto/codec/json.h"
#include "tests/testing/asl_commands.h"
#include "tests/testing/http_get.h"
#include "tests/testing/match_client.h"
#include "tests/testing/match_frames.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
using ::testing::HasSubstr;
using testing::Confirm;
using testing::EnterUnits;
using testing::MatchClient;
using testing::Squad;

v1::InboxSeat Asked(const std::string& match_id, const std::string& token, uint64_t after) {
  v1::InboxSeat seat;
  seat.set_match_id(match_id);
  seat.set_token(token);
  seat.set_after_seq(after);
  return seat;
}

class InboxTest : public ::testing::Test {
 protected:
  v1::Inbox Ask(const std::vector<v1::InboxSeat>& seats, std::string* raw = nullptr) {
    v1::InboxRequest request;
    for (const v1::InboxSeat& seat : seats) *request.add_seats() = seat;
    const testing::HttpResult answer = testing::HttpGet(
        server_.port(), "/api/inbox", http::verb::post, proto::ToJson(request));
    EXPECT_EQ(answer.status, 200) << answer.error << answer.body;
    v1::Inbox inbox;
    EXPECT_EQ(proto::FromJson(answer.body, inbox), "") << answer.body;
    if (raw != nullptr) *raw = answer.body;
    return inbox;
  }

  testing::TestServer server_;
};

TEST_F(InboxTest, SaysWhichMatchesWaitForThePlayerAndWhatHappenedSince) {
  auto a = MatchClient::Connect(server_.ws_url());
  auto b = MatchClient::Connect(server_.ws_url());
  v1::MatchSettings settings;
  settings.set_ruleset("asl");
  const v1::MatchCreated first = a->Create(settings);
  const v1::MatchCreated second = a->Create(settings);
  ASSERT_TRUE(a->Join(first.match_id(), first.side_a_token()).has_joined());
  ASSERT_TRUE(b->Join(first.match_id(), first.side_b_token()).has_joined());
  // In the first match both have entered units and B has confirmed: A owes its confirmation.
  // B's R2 is concealed: its name must not reach A.
  ASSERT_TRUE(a->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 4, "4-6-7")}, true)).has_ack());
  asl::v1::Unit hidden = Squad("R2", v1::SEAT_SIDE_B, 4, "SECRET-447");
  hidden.set_concealed(true);
  ASSERT_TRUE(b->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7"), hidden}, false))
                  .has_ack());
  ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
  const uint64_t a_saw = a->last_seq();
  ASSERT_TRUE(b->Act(Confirm()).has_ack());

  std::string raw;
  const v1::Inbox inbox =
      Ask({Asked(first.match_id(), first.side_a_token(), a_saw),
           Asked(first.match_id(), first.side_b_token(), b->last_seq()),
           Asked(second.match_id(), second.side_b_token(), 0),
           Asked(first.match_id(), "not-a-token", 0), Asked("m-none", "x", 0)},
          &raw);
  ASSERT_EQ(inbox.entries_size(), 5);
  const v1::InboxEntry& mine = inbox.entries(0);
  EXPECT_EQ(mine.match_id(), first.match_id());
  EXPECT_EQ(mine.seat(), v1::SEAT_SIDE_A);
  EXPECT_TRUE(mine.your_turn());
  EXPECT_THAT(mine.view().waiting_for(0), HasSubstr("side_a: confirm the set-up"));
  ASSERT_EQ(mine.new_events(), 1u);
  ASSERT_EQ(mine.events_size(), 1);
  EXPECT_TRUE(mine.events(0).has_setup_confirmed()) << mine.events(0).ShortDebugString();
  EXPECT_FALSE(inbox.entries(1).your_turn()) << "B confirmed and waits for A";
  EXPECT_EQ(inbox.entries(1).new_events(), 0u);
  EXPECT_TRUE(inbox.entries(2).your_turn()) << "nobody has entered units in the second match";
  EXPECT_EQ(inbox.entries(2).new_events(), 1u) << "the match opened";
  EXPECT_THAT(inbox.entries(3).error(), HasSubstr("the token is not a seat token"));
  EXPECT_THAT(inbox.entries(4).error(), HasSubstr("no match \"m-none\""));
  // A's entries never name B's concealed unit, not even from the start of the log.
  const v1::Inbox from_start = Ask({Asked(first.match_id(), first.side_a_token(), 0)}, &raw);
  EXPECT_EQ(from_start.entries(0).new_events(), b->last_seq());
  EXPECT_EQ(raw.find("SECRET-447"), std::string::npos) << raw;
}

TEST_F(InboxTest, RefusesWhatIsNotAnInboxRequest) {
  const testing::HttpResult get = testing::HttpGet(server_.port(), "/api/inbox");
  EXPECT_EQ(get.status, 405);
  EXPECT_THAT(get.body, HasSubstr("answers POST only"));
  const testing::HttpResult garbage =
      testing::HttpGet(server_.port(), "/api/inbox", http::verb::post, "{\"seat\": 1}");
  EXPECT_EQ(garbage.status, 400);
  EXPECT_THAT(garbage.body, HasSubstr("not a melee.v1.InboxRequest"));
  const testing::HttpResult empty =
      testing::HttpGet(server_.port(), "/api/inbox", http::verb::post, "{\"seats\": []}");
  EXPECT_EQ(empty.status, 400);
  EXPECT_THAT(empty.body, HasSubstr("give 1 to 100 seats"));
}

}  // namespace
}  // namespace melee
