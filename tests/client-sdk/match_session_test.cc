// MatchSession: two SDK clients play a whole ASL close combat against a real server; one of them
// drops its connection in the middle and resumes from its last seq without loss or duplication.

#include "client-sdk/match_session.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "melee/asl/v1/asl.pb.h"
#include "tests/testing/asl_commands.h"
#include "tests/testing/scripted_faces.h"
#include "tests/testing/test_server.h"

namespace melee::client {
namespace {

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;

v1::ClientMessage Units(v1::Seat owner, const std::string& id, int firepower, bool location) {
  return testing::EnterUnits({testing::Squad(id, owner, firepower)}, location);
}

// ConfirmSetup, or announce nothing.
v1::ClientMessage Simple(bool confirm) {
  return confirm ? testing::Confirm() : testing::AnnounceNothing();
}

// One attack; the session fills the entropy in.
using testing::Declare;

// Waits until `session` holds event `seq`.
void CatchUp(MatchSession& session, uint64_t seq) {
  while (session.last_seq() < seq) {
    auto got = session.WaitForEvent(std::chrono::seconds(5));
    ASSERT_TRUE(got.has_value()) << got.error().message;
    ASSERT_TRUE(*got) << "no event " << seq;
  }
}

std::vector<uint64_t> Seqs(const MatchSession& session) {
  std::vector<uint64_t> seqs;
  for (const v1::MatchEvent& event : session.events()) seqs.push_back(event.seq());
  return seqs;
}

TEST(MatchSessionTest, TwoClientsPlayACloseCombatAcrossADroppedConnection) {
  testing::ScriptedFaces faces(4);
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  testing::TestServer server({}, hooks);

  auto creator = SyncClient::Connect(server.ws_url());
  ASSERT_TRUE(creator.has_value());
  v1::ClientMessage create;
  create.mutable_create_match()->mutable_settings()->set_ruleset("asl");
  const v1::MatchCreated created = (*creator)->Call(create)->match_created();

  auto a = MatchSession::Join(server.ws_url(), created.match_id(), created.side_a_token());
  auto b = MatchSession::Join(server.ws_url(), created.match_id(), created.side_b_token());
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ((*a)->seat(), v1::SEAT_SIDE_A);
  EXPECT_EQ((*b)->last_seq(), 1u) << "the join brings every event so far";

  ASSERT_TRUE((*a)->Act(Units(v1::SEAT_SIDE_A, "G1", 6, true))->has_ack());
  CatchUp(**b, (*a)->last_seq());
  ASSERT_TRUE((*b)->Act(Units(v1::SEAT_SIDE_B, "R1", 4, false))->has_ack());
  CatchUp(**a, (*b)->last_seq());
  ASSERT_TRUE((*a)->Act(Simple(true))->has_ack());
  CatchUp(**b, (*a)->last_seq());
  ASSERT_TRUE((*b)->Act(Simple(true))->has_ack());
  CatchUp(**a, (*b)->last_seq());
  EXPECT_EQ((*a)->view().stage(), v1::STAGE_PLAYING);
  ASSERT_TRUE((*a)->Act(Simple(false))->has_ack());
  CatchUp(**b, (*a)->last_seq());

  // B drops its connection; A acts meanwhile.
  const uint64_t b_seen = (*b)->last_seq();
  const std::vector<uint64_t> b_before = Seqs(**b);
  ASSERT_TRUE((*b)->Close().has_value());
  b->reset();
  // A cannot declare before B announces; A's declaration waits. B comes back first.
  JoinOptions resume;
  resume.after_seq = b_seen;
  auto b2 = MatchSession::Join(server.ws_url(), created.match_id(), created.side_b_token(), resume);
  ASSERT_TRUE(b2.has_value()) << b2.error().message;
  EXPECT_TRUE((*b2)->events().empty()) << "nothing was missed yet";
  ASSERT_TRUE((*b2)->Act(Simple(false))->has_ack());
  CatchUp(**a, (*b2)->last_seq());

  // B seals, then drops again before A seals; the resolution happens while B is away.
  const v1::ServerMessage sealed = *(*b2)->Act(Declare("R1", "G1"));
  ASSERT_TRUE(sealed.has_ack());
  EXPECT_EQ(sealed.ack().receipt().size(), 32u) << "a SHA-256 receipt";
  const uint64_t b2_seen = (*b2)->last_seq();
  ASSERT_TRUE((*b2)->Close().has_value());
  b2->reset();
  faces.Push({1, 2, 5, 6});  // A's DR 3 eliminates R1 (no Melee follows); B's DR 11 misses
  CatchUp(**a, b2_seen);
  ASSERT_TRUE((*a)->Act(Declare("G1", "R1"))->has_ack());
  EXPECT_EQ((*a)->view().stage(), v1::STAGE_ENDED);

  resume.after_seq = b2_seen;
  auto b3 = MatchSession::Join(server.ws_url(), created.match_id(), created.side_b_token(), resume);
  ASSERT_TRUE(b3.has_value()) << b3.error().message;
  // Exactly what B missed: every seq after the one it saw, once, in order.
  std::vector<uint64_t> expected;
  for (uint64_t seq = b2_seen + 1; seq <= (*a)->last_seq(); ++seq) expected.push_back(seq);
  EXPECT_EQ(Seqs(**b3), expected);
  EXPECT_EQ((*b3)->view().stage(), v1::STAGE_ENDED);
  EXPECT_EQ((*b3)->view().seq(), (*a)->last_seq());
  bool revealed = false;
  for (const v1::MatchEvent& event : (*b3)->events()) {
    if (event.has_declarations_revealed()) revealed = true;
  }
  EXPECT_TRUE(revealed);
  ASSERT_FALSE(b_before.empty());
  EXPECT_EQ(b_before.back(), b_seen);
}

TEST(MatchSessionTest, AWrongTokenIsARefusalNotATransportFailure) {
  testing::TestServer server;
  auto creator = SyncClient::Connect(server.ws_url());
  ASSERT_TRUE(creator.has_value());
  v1::ClientMessage create;
  create.mutable_create_match()->mutable_settings()->set_ruleset("asl");
  const v1::MatchCreated created = (*creator)->Call(create)->match_created();
  auto session = MatchSession::Join(server.ws_url(), created.match_id(), "forged");
  ASSERT_FALSE(session.has_value());
  EXPECT_TRUE(session.error().refused);
  EXPECT_NE(session.error().message.find("token"), std::string::npos) << session.error().message;
}

}  // namespace
}  // namespace melee::client
