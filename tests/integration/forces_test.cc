// Forces that persist (docs/forces.md), over a real server on loopback with its SQLite file and
// the C++ SDK: a Melee played through three CCPhs without a unit entered twice, a restart in the
// middle, the carry-over rules (A7.302 a HS stays a HS, A11.19 a unit that lost "?" does not get
// it back, an eliminated unit never returns, A17.2 a wounded leader keeps its ML), unit updates
// between close combats with their checks, and what the opponent and a spectator may see of them.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "proto/codec/frame.h"
#include "server/fair_play/audit.h"
#include "server/fair_play/verify.h"
#include "server/hosts.h"
#include "tests/testing/asl_commands.h"
#include "tests/testing/fair_play_match.h"
#include "tests/testing/forces_commands.h"
#include "tests/testing/match_client.h"
#include "tests/testing/match_frames.h"
#include "tests/testing/scripted_faces.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
namespace storage = melee::storage::v1;
namespace aslpb = melee::asl::v1;
using ::testing::HasSubstr;
using testing::AllBytes;
using testing::AnnounceNothing;
using testing::Confirm;
using testing::EnterUnits;
using testing::InForce;
using testing::MatchClient;
using testing::Updates;
using testing::ScriptedFaces;
using testing::Seal;
using testing::Squad;

// The unit `id` of the close combat a view shows, or null.
const aslpb::ViewedUnit* InCombat(const v1::MatchView& view, const std::string& id) {
  for (const aslpb::ViewedUnit& unit : view.asl().units()) {
    if (unit.unit().id() == id) return &unit;
  }
  return nullptr;
}

v1::UnitUpdate Update(const std::string& unit, v1::UpdateKind kind,
                      const std::string& location = "", const std::string& rule = "") {
  v1::UnitUpdate update;
  update.set_unit(unit);
  update.set_kind(kind);
  update.set_location(location);
  update.set_rule(rule);
  return update;
}

// Side A's 8-1 leader `id`, stacked on `on`.
aslpb::Unit Leader81(const std::string& id, const std::string& on) {
  aslpb::Unit leader;
  leader.set_id(id);
  leader.set_owner(v1::SEAT_SIDE_A);
  leader.set_kind(aslpb::UNIT_KIND_LEADER);
  leader.set_morale(8);
  leader.set_leadership(-1);
  leader.set_name("8-1");
  leader.set_stacked_on(on);
  return leader;
}

class ForcesTest : public ::testing::Test {
 protected:
  ForcesTest() { hooks_.dice = faces_.Source(); }

  void Start() { server_ = std::make_unique<testing::TestServer>(
                     server::ServerConfig{}, hooks_, dir_.path() / "data"); }

  // Starts the server, creates an asl match and seats both sides and a spectator.
  void StartAslMatch(const std::map<std::string, std::string>& options = {}) {
    Start();
    auto creator = MatchClient::Connect(server_->ws_url());
    v1::MatchSettings settings;
    settings.set_ruleset("asl");
    for (const auto& [name, value] : options) (*settings.mutable_options())[name] = value;
    created_ = creator->Create(settings);
    ASSERT_NO_FATAL_FAILURE(JoinAll());
  }

  // Joins (or rejoins) both seats and a spectator.
  void JoinAll() {
    a_ = MatchClient::Connect(server_->ws_url());
    b_ = MatchClient::Connect(server_->ws_url());
    spectator_ = MatchClient::Connect(server_->ws_url());
    ASSERT_TRUE(a_ && b_ && spectator_);
    ASSERT_TRUE(a_->Join(created_.match_id(), created_.side_a_token()).has_joined());
    ASSERT_TRUE(b_->Join(created_.match_id(), created_.side_b_token()).has_joined());
    ASSERT_TRUE(
        spectator_->Join(created_.match_id(), created_.spectator_key(), 0, true).has_joined());
  }

  void Sync() {
    const uint64_t seq = std::max(a_->last_seq(), b_->last_seq());
    for (MatchClient* client : {a_.get(), b_.get(), spectator_.get()}) {
      ASSERT_TRUE(client->WaitForSeq(seq));
    }
  }

  // Stops the server and starts it again on the same data; joins both seats and a spectator again.
  void Restart() {
    a_.reset();
    b_.reset();
    spectator_.reset();
    server_.reset();
    Start();
    ASSERT_NO_FATAL_FAILURE(JoinAll());
  }

  // Both announce nothing, ATTACKER first.
  void Announce(MatchClient& attacker, MatchClient& defender) {
    Sync();
    ASSERT_TRUE(attacker.Act(AnnounceNothing()).has_ack());
    Sync();
    ASSERT_TRUE(defender.Act(AnnounceNothing()).has_ack());
    Sync();
  }

  // B's R1 and A's G1 attack each other and both miss (DR 11 at 1-1): the Melee goes on into
  // CCPh 2 (A11.15). `before`: the last event before A's seal.
  void BothMissIntoCcph2(uint64_t& before) {
    faces_.Push({5, 6, 5, 6});
    ASSERT_TRUE(b_->Act(Seal({{{"R1"}, {"G1"}}})).has_ack());
    Sync();
    before = a_->last_seq();
    ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
    ASSERT_NO_FATAL_FAILURE(WaitForCcph(2));
  }

  // Waits until every client sees CCPh `ccph` under way.
  void WaitForCcph(uint32_t ccph) {
    for (MatchClient* client : {a_.get(), b_.get(), spectator_.get()}) {
      ASSERT_TRUE(client->WaitForView(
          [ccph](const v1::MatchView& view) { return view.ccph() == ccph; }));
    }
    Sync();
  }

  testing::TempDir dir_;
  ScriptedFaces faces_;
  server::ServerHooks hooks_;
  std::unique_ptr<testing::TestServer> server_;
  std::unique_ptr<MatchClient> a_;
  std::unique_ptr<MatchClient> b_;
  std::unique_ptr<MatchClient> spectator_;
  v1::MatchCreated created_;
};

// A Melee in G3 through three CCPhs: entered once, carried on by the server with the other side
// attacking each time, a restart between the second and third, each unit's state carried.
TEST_F(ForcesTest, AMeleeGoesOnThroughThreeCcphsWithoutAUnitEnteredTwice) {
  ASSERT_NO_FATAL_FAILURE(StartAslMatch());
  // CCPh 1: G1 (a 4-6-7) and L1 (an 8-1 leader on it) of side A attack into G3; side B holds it
  // with R1 (a 4-4-7) and R2, a concealed 4-4-7 only B (and the director) may know.
  const aslpb::Unit leader = Leader81("L1", "G1");
  ASSERT_TRUE(
      a_->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 4, "4-6-7"), leader}, true)).has_ack());
  aslpb::Unit hidden = Squad("R2", v1::SEAT_SIDE_B, 4, "SECRET-447");
  hidden.set_concealed(true);
  ASSERT_TRUE(
      b_->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7"), hidden}, false)).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_TRUE(b_->Act(Confirm()).has_ack());
  EXPECT_EQ(a_->view().ccph(), 1u);
  ASSERT_NO_FATAL_FAILURE(Announce(*a_, *b_));
  // A's G1 and L1 attack R1 at 1-1, Kill # 5, the leader's -1 DRM: DR 6, Final DR 5 reduces it
  // (A7.302); B's R1 misses G1 (DR 11).
  faces_.Push({2, 4, 5, 6});
  const v1::ServerMessage b_seal = b_->Act(Seal({{{"R1"}, {"G1", "L1"}}}));
  ASSERT_TRUE(b_seal.has_ack()) << b_seal.ShortDebugString();
  Sync();
  const v1::ServerMessage ack = a_->Act(Seal({{{"G1", "L1"}, {"R1"}}}));
  ASSERT_TRUE(ack.has_ack()) << ack.ShortDebugString();
  ASSERT_NO_FATAL_FAILURE(WaitForCcph(2));

  // CCPh 2 began by itself: B attacks, nothing was entered again, R1 is the HS it became.
  const v1::MatchView& view2 = b_->view();
  EXPECT_EQ(view2.stage(), v1::STAGE_PLAYING);
  EXPECT_EQ(view2.asl().attacker(), v1::SEAT_SIDE_B);
  EXPECT_TRUE(view2.asl().location().melee());
  ASSERT_NE(InCombat(view2, "R1"), nullptr);
  const aslpb::Unit& r1 = InCombat(view2, "R1")->unit();
  EXPECT_EQ(r1.kind(), aslpb::UNIT_KIND_HALF_SQUAD) << "A7.302: a HS stays a HS";
  EXPECT_EQ(r1.firepower(), 2);
  EXPECT_EQ(InForce(view2, "R1")->asl().kind(), aslpb::UNIT_KIND_HALF_SQUAD);
  EXPECT_THAT(InForce(view2, "R1")->last_change(), HasSubstr("in CC in G3"));
  // R2 kept its "?": A and the spectator see a "?" in the force and in the close combat.
  for (MatchClient* other : {a_.get(), spectator_.get()}) {
    ASSERT_NE(InForce(other->view(), "R2"), nullptr);
    EXPECT_TRUE(InForce(other->view(), "R2")->hidden());
    EXPECT_FALSE(InForce(other->view(), "R2")->has_asl());
    EXPECT_TRUE(InCombat(other->view(), "R2")->hidden());
  }
  EXPECT_EQ(AllBytes(*a_).find("SECRET-447"), std::string::npos);
  EXPECT_EQ(AllBytes(*spectator_).find("SECRET-447"), std::string::npos);

  ASSERT_NO_FATAL_FAILURE(Announce(*b_, *a_));
  // CCPh 2: B's R2 attacks out of concealment and loses its "?" (A11.19); A's attack misses.
  faces_.Push({5, 6, 5, 6});  // the ATTACKER (B) first: DR 11, then A's DR 11
  ASSERT_TRUE(b_->Act(Seal({{{"R2"}, {"G1", "L1"}}})).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R2"}}})).has_ack());
  ASSERT_NO_FATAL_FAILURE(WaitForCcph(3));
  EXPECT_FALSE(InForce(a_->view(), "R2")->hidden()) << "R2 attacked: it is Known now";
  EXPECT_FALSE(InCombat(a_->view(), "R2")->hidden());
  EXPECT_FALSE(InCombat(b_->view(), "R2")->unit().concealed())
      << "A11.19: a unit that lost its \"?\" does not get it back in the next CCPh";
  EXPECT_EQ(a_->view().asl().attacker(), v1::SEAT_SIDE_A);

  // A restart in the middle: the forces, the CCPh and the close combat under way come back.
  const uint64_t seen = a_->last_seq();
  ASSERT_NO_FATAL_FAILURE(Restart());
  EXPECT_EQ(a_->last_seq(), seen);
  EXPECT_EQ(a_->view().ccph(), 3u);
  EXPECT_EQ(InForce(a_->view(), "R1")->asl().kind(), aslpb::UNIT_KIND_HALF_SQUAD);
  EXPECT_TRUE(InForce(spectator_->view(), "R2") != nullptr &&
              !InForce(spectator_->view(), "R2")->hidden());

  // CCPh 3: A's G1 and L1 kill both (DR 3); B's attack misses. The Melee is over.
  ASSERT_NO_FATAL_FAILURE(Announce(*a_, *b_));
  faces_.Push({1, 2, 5, 6});
  ASSERT_TRUE(b_->Act(Seal({{{"R1", "R2"}, {"G1", "L1"}}})).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Seal({{{"G1", "L1"}, {"R1", "R2"}}})).has_ack());
  Sync();
  EXPECT_EQ(a_->view().stage(), v1::STAGE_ENDED);
  EXPECT_EQ(a_->view().ccph(), 3u);
  for (const char* id : {"R1", "R2"}) {
    EXPECT_EQ(InForce(a_->view(), id)->fate(), v1::FORCE_FATE_ELIMINATED) << id;
  }
  EXPECT_EQ(InForce(a_->view(), "G1")->fate(), v1::FORCE_FATE_PRESENT);
  EXPECT_EQ(InForce(a_->view(), "G1")->location(), "G3");

  // An eliminated unit never returns, by set-up or by update.
  const v1::ServerMessage back = b_->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4)}, false));
  EXPECT_THAT(back.error().message(), HasSubstr("never returns"));
  const v1::ServerMessage moved = b_->Act(Updates({Update("R2", v1::UPDATE_KIND_MOVE, "H4")}));
  EXPECT_THAT(moved.error().message(), HasSubstr("never returns"));
}

// Protocol 2 (Hello.protocol_version 2): a view leaves out the settings and forces when they are
// what the last view to that connection held (MatchView.forces_as_before), and carries them again
// once they change. Beside protocol 1 connections of the same viewers, over a Melee that goes on
// (the forces change at its end): with the forces of the view before, each protocol 2 view is the
// protocol 1 view, and the spectator's shows R2 only as a "?".
TEST_F(ForcesTest, ProtocolTwoViewsLeaveOutTheForcesTheConnectionHolds) {
  ASSERT_NO_FATAL_FAILURE(StartAslMatch());
  auto a2 = MatchClient::Connect(server_->ws_url());
  auto spectator2 = MatchClient::Connect(server_->ws_url());
  ASSERT_TRUE(a2 && spectator2);
  ASSERT_EQ(a2->Hello(2).hello().protocol_version(), 2u);
  ASSERT_EQ(spectator2->Hello(2).hello().protocol_version(), 2u);
  ASSERT_TRUE(a2->Join(created_.match_id(), created_.side_a_token()).has_joined());
  ASSERT_TRUE(
      spectator2->Join(created_.match_id(), created_.spectator_key(), 0, true).has_joined());
  // Each protocol 2 view, with the forces of the one before, is its protocol 1 twin's view.
  const auto same_views = [&] {
    Sync();
    for (auto [two, one] :
         {std::pair{a2.get(), a_.get()}, std::pair{spectator2.get(), spectator_.get()}}) {
      ASSERT_TRUE(two->WaitForSeq(one->last_seq()));
      v1::MatchView merged = two->view();
      merged.clear_forces_as_before();
      EXPECT_EQ(proto::SerializeDeterministic(merged), proto::SerializeDeterministic(one->view()))
          << "protocol 2: " << merged.ShortDebugString()
          << "\nprotocol 1: " << one->view().ShortDebugString();
    }
  };

  aslpb::Unit hidden = Squad("R2", v1::SEAT_SIDE_B, 4, "SECRET-447");
  hidden.set_concealed(true);
  ASSERT_TRUE(a_->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 4, "4-6-7")}, true)).has_ack());
  ASSERT_TRUE(
      b_->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7"), hidden}, false)).has_ack());
  ASSERT_NO_FATAL_FAILURE(same_views());
  ASSERT_TRUE(a_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_TRUE(b_->Act(Confirm()).has_ack());
  ASSERT_NO_FATAL_FAILURE(same_views());
  ASSERT_NO_FATAL_FAILURE(Announce(*a_, *b_));
  ASSERT_NO_FATAL_FAILURE(same_views());
  // G1 reduces R1 to a HS (Final DR 5 at 1-1, Kill # 5: A7.302), R1 misses (DR 11): the Melee
  // goes on, and the forces change (R1 is a HS now).
  faces_.Push({1, 4, 5, 6});
  ASSERT_TRUE(b_->Act(Seal({{{"R1"}, {"G1"}}})).has_ack());
  ASSERT_NO_FATAL_FAILURE(same_views());
  ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  ASSERT_NO_FATAL_FAILURE(WaitForCcph(2));
  for (MatchClient* client : {a2.get(), spectator2.get()}) {
    ASSERT_TRUE(client->WaitForView([](const v1::MatchView& view) { return view.ccph() == 2; }));
  }
  ASSERT_NO_FATAL_FAILURE(same_views());
  EXPECT_EQ(InForce(a2->view(), "R1")->asl().kind(), aslpb::UNIT_KIND_HALF_SQUAD);

  for (MatchClient* two : {a2.get(), spectator2.get()}) {
    int without = 0;
    int with_after_joined = 0;
    bool joined = false;
    for (const v1::ServerMessage& message : two->received()) {
      if (message.has_joined()) {
        EXPECT_FALSE(message.joined().view().forces_as_before()) << "a Joined's view is whole";
        joined = true;
      }
      if (!message.has_view()) continue;
      const v1::MatchView& view = message.view();
      if (view.forces_as_before()) {
        ++without;
        EXPECT_FALSE(view.has_settings());
        EXPECT_EQ(view.side_a_force_size(), 0);
        EXPECT_EQ(view.side_b_force_size(), 0);
      } else if (joined) {
        ++with_after_joined;
        EXPECT_GT(view.side_b_force_size(), 0);
      }
    }
    EXPECT_GT(without, 5) << "most views leave the forces out";
    EXPECT_GT(with_after_joined, 0) << "the view after the forces changed carries them";
  }
  // A protocol 1 connection never gets a view without its forces.
  for (MatchClient* one : {a_.get(), b_.get(), spectator_.get()}) {
    for (const v1::ServerMessage& message : one->received()) {
      EXPECT_FALSE(message.has_view() && message.view().forces_as_before());
    }
  }
  EXPECT_EQ(AllBytes(*spectator2).find("SECRET-447"), std::string::npos);
  EXPECT_EQ(AllBytes(*a2).find("SECRET-447"), std::string::npos);
}

// A Melee goes on with announcements asked only of a side that can announce something (A11.2):
// B's only unit is berserk, so it cannot try to Withdraw; the server announces nothing for it, and
// only A, whose squad may withdraw, is asked.
TEST_F(ForcesTest, AMeleeGoingOnAsksAnnouncementsOnlyOfASideThatCanAnnounce) {
  ASSERT_NO_FATAL_FAILURE(StartAslMatch());
  ASSERT_TRUE(a_->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 4, "4-6-7")}, true)).has_ack());
  aslpb::Unit berserk = Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7");
  berserk.set_berserk(true);
  ASSERT_TRUE(b_->Act(EnterUnits({berserk}, false)).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_TRUE(b_->Act(Confirm()).has_ack());
  // The first CCPh: nobody is in Melee yet, so both announce (nothing), as the rules ask.
  ASSERT_NO_FATAL_FAILURE(Announce(*a_, *b_));
  uint64_t before_ccph2 = 0;
  ASSERT_NO_FATAL_FAILURE(BothMissIntoCcph2(before_ccph2));
  for (MatchClient* client : {a_.get(), b_.get(), spectator_.get()}) {
    ASSERT_TRUE(client->WaitForView([](const v1::MatchView& view) {
      return view.asl().phase() == aslpb::PHASE_ANNOUNCE && view.asl().to_act() == v1::SEAT_SIDE_A;
    })) << client->view().ShortDebugString();
  }
  const v1::MatchView& view = a_->view();
  EXPECT_EQ(view.asl().attacker(), v1::SEAT_SIDE_B);
  ASSERT_EQ(view.waiting_for_size(), 1);
  EXPECT_THAT(view.waiting_for(0), HasSubstr("side_a"));
  // B's announcement of nothing is in the log, made for it in the batch that began the CCPh.
  bool announced_for_b = false;
  for (const v1::MatchEvent& event : a_->events()) {
    if (event.has_asl() && event.asl().kind() == aslpb::EVENT_KIND_ANNOUNCED &&
        event.asl().seat() == v1::SEAT_SIDE_B && event.seq() > before_ccph2) {
      announced_for_b = true;
    }
  }
  EXPECT_TRUE(announced_for_b);
  const v1::ServerMessage again = b_->Act(AnnounceNothing());
  ASSERT_TRUE(again.has_error());
  EXPECT_EQ(again.error().rule_ref(), "A11.2");
  // A announces (nothing); designation follows at once.
  ASSERT_TRUE(a_->Act(AnnounceNothing()).has_ack());
  Sync();
  EXPECT_EQ(b_->view().asl().phase(), aslpb::PHASE_DECLARE);
}

// Counts the asl announcements `client` saw after event `after`, each of nothing.
int AnnouncementsOfNothingAfter(const MatchClient& client, uint64_t after) {
  int announced = 0;
  for (const v1::MatchEvent& event : client.events()) {
    if (event.seq() > after && event.has_asl() &&
        event.asl().kind() == aslpb::EVENT_KIND_ANNOUNCED) {
      EXPECT_EQ(event.asl().announce().withdraw_size(), 0) << event.ShortDebugString();
      ++announced;
    }
  }
  return announced;
}

// The scenario special rule "no voluntary Withdrawal from Melee" (asl option melee_withdrawal =
// none, agreed at creation): no side has anything to announce here (A11.2: neither may withdraw;
// A11.14, J2.31: no SMC, no HtH), so the first close combat and the Melee that goes on into the
// next CCPh start at the declarations, both sides' announcements of nothing made for them in the
// batch that began each; through a restart too.
TEST_F(ForcesTest, UnderTheNoWithdrawalSsrAMeleeGoesOnStraightToTheDeclarations) {
  ASSERT_NO_FATAL_FAILURE(StartAslMatch({{"melee_withdrawal", "none"}}));
  EXPECT_EQ(a_->view().settings().options().at("melee_withdrawal"), "none")
      << "the SSR is public: every seat sees what was agreed";
  ASSERT_TRUE(a_->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 4, "4-6-7")}, true)).has_ack());
  ASSERT_TRUE(b_->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7")}, false)).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Confirm()).has_ack());
  Sync();
  const uint64_t before_ccph1 = a_->last_seq();
  ASSERT_TRUE(b_->Act(Confirm()).has_ack());
  Sync();
  for (MatchClient* client : {a_.get(), b_.get(), spectator_.get()}) {
    EXPECT_EQ(client->view().asl().phase(), aslpb::PHASE_DECLARE)
        << client->view().ShortDebugString();
  }
  EXPECT_EQ(AnnouncementsOfNothingAfter(*spectator_, before_ccph1), 2);
  uint64_t before_ccph2 = 0;
  ASSERT_NO_FATAL_FAILURE(BothMissIntoCcph2(before_ccph2));
  for (MatchClient* client : {a_.get(), b_.get(), spectator_.get()}) {
    ASSERT_TRUE(client->WaitForView([](const v1::MatchView& view) {
      return view.asl().phase() == aslpb::PHASE_DECLARE;
    })) << client->view().ShortDebugString();
  }
  EXPECT_EQ(a_->view().asl().attacker(), v1::SEAT_SIDE_B);
  EXPECT_EQ(AnnouncementsOfNothingAfter(*spectator_, before_ccph2), 2)
      << "each side's announcement of nothing is in the log";
  const v1::ServerMessage withdraw = b_->Act(AnnounceNothing());
  ASSERT_TRUE(withdraw.has_error());
  EXPECT_EQ(withdraw.error().rule_ref(), "A11.2") << "the announcements are over in this CCPh";

  // A restart: the match comes back at the declarations of CCPh 2, and plays on.
  ASSERT_NO_FATAL_FAILURE(Restart());
  EXPECT_EQ(a_->view().ccph(), 2u);
  EXPECT_EQ(a_->view().asl().phase(), aslpb::PHASE_DECLARE);
  faces_.Push({5, 6, 5, 6});
  ASSERT_TRUE(b_->Act(Seal({{{"R1"}, {"G1"}}})).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  ASSERT_NO_FATAL_FAILURE(WaitForCcph(3));
  ASSERT_TRUE(a_->WaitForView(
      [](const v1::MatchView& view) { return view.asl().phase() == aslpb::PHASE_DECLARE; }));
  EXPECT_EQ(a_->view().asl().attacker(), v1::SEAT_SIDE_A);
}

// Under the same SSR a side that can still announce something is asked: side A's 8-1 leader may
// attack alone (A11.14), side B has nothing to announce and is not asked after A's announcement.
TEST_F(ForcesTest, UnderTheNoWithdrawalSsrASideWithASmcIsStillAsked) {
  ASSERT_NO_FATAL_FAILURE(StartAslMatch({{"melee_withdrawal", "none"}}));
  const aslpb::Unit leader = Leader81("L1", "G1");
  ASSERT_TRUE(
      a_->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 4, "4-6-7"), leader}, true)).has_ack());
  ASSERT_TRUE(b_->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7")}, false)).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_TRUE(b_->Act(Confirm()).has_ack());
  Sync();
  EXPECT_EQ(b_->view().asl().phase(), aslpb::PHASE_ANNOUNCE);
  EXPECT_EQ(b_->view().asl().to_act(), v1::SEAT_SIDE_A) << "A11.14: L1 may attack alone";
  const uint64_t before = a_->last_seq();
  ASSERT_TRUE(a_->Act(AnnounceNothing()).has_ack());
  Sync();
  for (MatchClient* client : {a_.get(), b_.get(), spectator_.get()}) {
    EXPECT_EQ(client->view().asl().phase(), aslpb::PHASE_DECLARE)
        << client->view().ShortDebugString();
  }
  EXPECT_EQ(AnnouncementsOfNothingAfter(*spectator_, before), 2)
      << "A's announcement, and B's made for it in the same batch";
}

// No leak under the SSR: a side with a concealed unit is asked to announce even when it has
// nothing it could announce, so the other side cannot tell from "not asked" what its "?" is not
// (a SMC, a unit able to withdraw); its announcement shows nothing of the "?".
TEST_F(ForcesTest, UnderTheNoWithdrawalSsrAConcealedSideIsStillAsked) {
  ASSERT_NO_FATAL_FAILURE(StartAslMatch({{"melee_withdrawal", "none"}}));
  ASSERT_TRUE(a_->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 4, "4-6-7")}, true)).has_ack());
  aslpb::Unit hidden = Squad("R1", v1::SEAT_SIDE_B, 4, "SECRET-447");
  hidden.set_concealed(true);
  ASSERT_TRUE(b_->Act(EnterUnits({hidden}, false)).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_TRUE(b_->Act(Confirm()).has_ack());
  Sync();
  EXPECT_EQ(a_->view().asl().phase(), aslpb::PHASE_ANNOUNCE);
  EXPECT_EQ(a_->view().asl().to_act(), v1::SEAT_SIDE_B)
      << "A has nothing to announce and is not asked; B, concealed, is";
  ASSERT_TRUE(b_->Act(AnnounceNothing()).has_ack());
  Sync();
  EXPECT_EQ(a_->view().asl().phase(), aslpb::PHASE_DECLARE);
  EXPECT_EQ(AllBytes(*a_).find("SECRET-447"), std::string::npos);
  EXPECT_EQ(AllBytes(*spectator_).find("SECRET-447"), std::string::npos);
}

// Unit updates between close combats: each is checked, logged, shown to the opponent as the
// rules allow ("?" for a concealed unit), carried into the next close combat and through a
// restart.
TEST_F(ForcesTest, UnitUpdatesAreCheckedShownAsTheRulesAllowAndCarried) {
  ASSERT_NO_FATAL_FAILURE(StartAslMatch());
  auto director = MatchClient::Connect(server_->ws_url());
  ASSERT_TRUE(director->Join(created_.match_id(), created_.director_token(), 0, true).has_joined());

  // Before any close combat: A enters a 6-4-7 and an 8-1 leader in H4; B a concealed squad.
  v1::UnitUpdate g1 = Update("G1", v1::UPDATE_KIND_ENTER, "H4");
  *g1.mutable_asl() = Squad("G1", v1::SEAT_SIDE_A, 6, "6-4-7");
  v1::UnitUpdate l1 = Update("L1", v1::UPDATE_KIND_ENTER, "H4");
  l1.mutable_asl()->set_kind(aslpb::UNIT_KIND_LEADER);
  l1.mutable_asl()->set_morale(8);
  l1.mutable_asl()->set_leadership(-1);
  l1.mutable_asl()->set_name("8-1");
  ASSERT_TRUE(a_->Act(Updates({g1, l1})).has_ack());
  v1::UnitUpdate r3 = Update("R3", v1::UPDATE_KIND_ENTER, "J5");
  *r3.mutable_asl() = Squad("R3", v1::SEAT_SIDE_B, 4, "SECRET-R3");
  r3.mutable_asl()->set_concealed(true);
  r3.set_note("moved up through the orchard");
  const v1::ServerMessage entered = b_->Act(Updates({r3}));
  ASSERT_TRUE(entered.has_ack()) << entered.ShortDebugString();
  Sync();
  ASSERT_TRUE(director->WaitForSeq(b_->last_seq()));

  // What the others see of B's update: a "?" entered J5, nothing more.
  for (MatchClient* other : {a_.get(), spectator_.get()}) {
    const v1::MatchEvent event = other->events().back();
    ASSERT_TRUE(event.has_units_updated()) << event.ShortDebugString();
    const v1::UnitUpdate& shown = event.units_updated().updates(0);
    EXPECT_TRUE(shown.hidden());
    EXPECT_EQ(shown.kind(), v1::UPDATE_KIND_ENTER);
    EXPECT_EQ(shown.location(), "J5");
    EXPECT_FALSE(shown.has_asl());
    EXPECT_TRUE(shown.note().empty());
    EXPECT_EQ(AllBytes(*other).find("SECRET-R3"), std::string::npos);
    EXPECT_EQ(AllBytes(*other).find("orchard"), std::string::npos);
  }
  EXPECT_NE(AllBytes(*director).find("SECRET-R3"), std::string::npos) << "the director sees it";
  EXPECT_EQ(b_->events().back().units_updated().updates(0).asl().name(), "SECRET-R3");

  // Every check, with the rule where there is one.
  struct Refused {
    MatchClient* by;
    v1::UnitUpdate update;
    std::string rule;
    std::string words;
  };
  v1::UnitUpdate recombine = Update("G1", v1::UPDATE_KIND_RECOMBINE);
  recombine.set_with("L1");
  const std::vector<Refused> refused = {
      {a_.get(), Update("R3", v1::UPDATE_KIND_BREAK), "", "a side reports only its own units"},
      {a_.get(), Update("G9", v1::UPDATE_KIND_BREAK), "", "no unit 'G9'"},
      {a_.get(), Update("G1", v1::UPDATE_KIND_CONCEAL), "A12.1", "name it"},
      {a_.get(), Update("G1", v1::UPDATE_KIND_RALLY), "A10.6", "is not broken"},
      {a_.get(), recombine, "A1.32", "only as a rule allows"},
      {b_.get(), Update("R3", v1::UPDATE_KIND_CONCEAL, "", "A12.122"), "A12.1", "concealed already"},
      {a_.get(), Update("G1", v1::UPDATE_KIND_SHOCK), "", "coc's"},
      {a_.get(), Update("G1", v1::UPDATE_KIND_UNSPECIFIED), "", "kind: required"},
      {b_.get(), Update("R3", v1::UPDATE_KIND_ENTER, "J5"), "", "already in the match"},
  };
  for (const Refused& case_ : refused) {
    const v1::ServerMessage answer = case_.by->Act(Updates({case_.update}));
    ASSERT_TRUE(answer.has_error()) << case_.update.ShortDebugString();
    EXPECT_EQ(answer.error().rule_ref(), case_.rule) << answer.error().message();
    EXPECT_THAT(answer.error().message(), HasSubstr(case_.words));
  }
  // All or none: a good update before a bad one is not applied either.
  const uint64_t before = a_->last_seq();
  EXPECT_TRUE(a_->Act(Updates({Update("G1", v1::UPDATE_KIND_PIN),
                               Update("G1", v1::UPDATE_KIND_RALLY)}))
                  .has_error());
  EXPECT_EQ(a_->last_seq(), before);
  EXPECT_FALSE(InForce(a_->view(), "G1")->asl().pinned());

  // Fire results on A's board: G1 is Reduced to a HS (A7.302), L1 wounded (A17.2: ML 7, and its
  // modifier worsens to 0), then G1 regains "?" by the rule A names.
  ASSERT_TRUE(a_->Act(Updates({Update("G1", v1::UPDATE_KIND_REDUCE),
                               Update("L1", v1::UPDATE_KIND_REDUCE),
                               Update("G1", v1::UPDATE_KIND_CONCEAL, "", "A12.122")}))
                  .has_ack());
  Sync();
  const v1::ForceUnit reduced = *InForce(a_->view(), "G1");
  EXPECT_EQ(reduced.asl().kind(), aslpb::UNIT_KIND_HALF_SQUAD);
  EXPECT_EQ(reduced.asl().firepower(), 3);
  EXPECT_TRUE(reduced.asl().concealed());
  EXPECT_EQ(InForce(a_->view(), "L1")->asl().morale(), 7);
  EXPECT_EQ(InForce(a_->view(), "L1")->asl().leadership(), 0);
  // B sees G1's Casualty Reduction only as a "?" changing (G1 is concealed after the updates);
  // L1's wound it sees.
  const v1::UnitsUpdated seen_by_b = b_->events().back().units_updated();
  ASSERT_EQ(seen_by_b.updates_size(), 3);
  EXPECT_TRUE(seen_by_b.updates(0).hidden());
  EXPECT_EQ(seen_by_b.updates(0).kind(), v1::UPDATE_KIND_UNSPECIFIED);
  EXPECT_EQ(seen_by_b.updates(1).kind(), v1::UPDATE_KIND_REDUCE);
  EXPECT_FALSE(seen_by_b.updates(1).hidden());
  EXPECT_TRUE(InForce(b_->view(), "G1")->hidden());

  // Both move into J5 and the close combat there takes every carried unit with its state.
  ASSERT_TRUE(a_->Act(Updates({Update("G1", v1::UPDATE_KIND_MOVE, "J5"),
                               Update("L1", v1::UPDATE_KIND_MOVE, "J5")}))
                  .has_ack());
  Sync();
  // A restart between the updates and the set-up: the forces are rebuilt from the log.
  a_.reset();
  b_.reset();
  spectator_.reset();
  director.reset();
  server_.reset();
  Start();
  ASSERT_NO_FATAL_FAILURE(JoinAll());
  EXPECT_EQ(InForce(a_->view(), "G1")->location(), "J5");
  EXPECT_TRUE(InForce(b_->view(), "G1")->hidden());
  v1::ClientMessage part;
  part.mutable_submit_setup()->mutable_asl()->mutable_location()->set_name("J5");
  part.mutable_submit_setup()->mutable_asl()->set_attacker(v1::SEAT_SIDE_A);
  ASSERT_TRUE(a_->Act(part).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_TRUE(b_->Act(Confirm()).has_ack()) << "B's units all come from its force";
  Sync();
  ASSERT_EQ(a_->view().stage(), v1::STAGE_PLAYING);
  EXPECT_EQ(a_->view().asl().units_size(), 3);
  EXPECT_EQ(InCombat(b_->view(), "L1")->unit().morale(), 7) << "A17.2: the wounded ML carries";
  EXPECT_TRUE(InCombat(b_->view(), "G1")->hidden()) << "G1's regained \"?\"";
  EXPECT_TRUE(InCombat(a_->view(), "R3")->hidden());
  EXPECT_EQ(AllBytes(*a_).find("SECRET-R3"), std::string::npos);
  // While it is played, its units change only through CC.
  const v1::ServerMessage busy = b_->Act(Updates({Update("R3", v1::UPDATE_KIND_MOVE, "K6")}));
  EXPECT_EQ(busy.error().rule_ref(), "A11.15");
}

}  // namespace
}  // namespace melee

namespace melee {
namespace {

// The unit updates in match files (docs/fair-play.md): the director's file verifies by replay
// (the forces are folded again and every update checked again); a seat's file carries the other
// side's update of a concealed unit only as its hash, and still verifies.
TEST(ForcesFileTest, UnitUpdatesVerifyInTheDirectorsFileAndAreRedactedForTheOpponent) {
  testing::TestServer server;  // the server's own committed dice
  auto a = MatchClient::Connect(server.ws_url());
  auto b = MatchClient::Connect(server.ws_url());
  v1::MatchSettings settings;
  settings.set_ruleset("asl");
  const v1::MatchCreated created = a->Create(settings);
  ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
  ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
  v1::UnitUpdate g1 = Update("G1", v1::UPDATE_KIND_ENTER, "H4");
  *g1.mutable_asl() = Squad("G1", v1::SEAT_SIDE_A, 6, "6-4-7");
  g1.mutable_asl()->set_concealed(true);
  ASSERT_TRUE(a->Act(Updates({g1})).has_ack());
  ASSERT_TRUE(a->Act(Updates({Update("G1", v1::UPDATE_KIND_PIN)})).has_ack());
  v1::UnitUpdate r1 = Update("R1", v1::UPDATE_KIND_ENTER, "J5");
  *r1.mutable_asl() = Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7");
  ASSERT_TRUE(b->Act(Updates({r1})).has_ack());
  ASSERT_TRUE(b->WaitForSeq(a->last_seq()));

  const storage::MatchFile director =
      testing::ExportOver(server.port(), created.match_id(), created.director_token());
  const server::VerifyReport all =
      server::VerifyMatchFile(director, server::BuiltinHosts(), director.server_public_key());
  EXPECT_TRUE(all.ok) << all.Describe();
  EXPECT_TRUE(all.replayed) << all.Describe();
  const storage::MatchFile for_b =
      testing::ExportOver(server.port(), created.match_id(), created.side_b_token());
  size_t redacted = 0;
  for (const storage::FileEvent& event : for_b.events()) {
    if (!event.redacted()) continue;
    ++redacted;
    EXPECT_EQ(event.redacted_kind(), "units_updated");
    EXPECT_EQ(event.redacted_seat(), storage::SEAT_SIDE_A);
  }
  EXPECT_EQ(redacted, 2u) << "both of A's updates of its concealed G1";
  const server::VerifyReport mine =
      server::VerifyMatchFile(for_b, server::BuiltinHosts(), for_b.server_public_key());
  EXPECT_TRUE(mine.ok) << mine.Describe();
  EXPECT_EQ(mine.redacted, 2u);

  // The director's audit lists every update in full, with who reported it.
  auto audit = server::AuditMatch(director, server::BuiltinHosts());
  ASSERT_TRUE(audit.has_value());
  std::vector<std::string> updates;
  for (const server::TimelineEntry& entry : audit->timeline) {
    if (entry.what.find("reported unit updates") != std::string::npos) {
      updates.push_back(entry.who + ": " + entry.what);
    }
  }
  EXPECT_THAT(updates, ::testing::ElementsAre(
                           "side_a: side_a reported unit updates: G1 entered H4",
                           "side_a: side_a reported unit updates: G1 pinned",
                           "side_b: side_b reported unit updates: R1 entered J5"));
}

}  // namespace
}  // namespace melee
