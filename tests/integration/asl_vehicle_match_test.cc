// A close combat with a vehicle (A11.5-A11.8) played over real WebSockets against a real server
// on loopback with its SQLite file: the PAATC at set-up, the A11.31 alternating single attacks
// (the non-vehicular side first), the sN attack with its Morale Checks, refusals naming the rule,
// a restart mid-combat, and the director's export verifying.

#include <gtest/gtest.h>

#include "proto/codec/frame.h"
#include "server/clock.h"
#include "tests/testing/asl_commands.h"
#include "tests/testing/match_client.h"
#include "tests/testing/match_frames.h"
#include "tests/testing/scripted_faces.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;
using testing::AnnounceNothing;
using testing::Confirm;
using testing::EnterUnits;
using testing::MatchClient;
using testing::ScriptedFaces;
using testing::Squad;

// A BU, stationary PzIVJ: a 5 FP CMG, a BMG, and an sN with Usage Number 7.
aslpb::Unit PzIvj() {
  aslpb::Unit tank;
  tank.set_id("T1");
  tank.set_owner(v1::SEAT_SIDE_B);
  tank.set_kind(aslpb::UNIT_KIND_VEHICLE);
  tank.set_name("PzIVJ");
  tank.mutable_vehicle()->set_cmg(5);
  tank.mutable_vehicle()->set_bmg(true);
  tank.mutable_vehicle()->set_sn_usage(7);
  return tank;
}

// One attack of side A's Infantry on the tank.
v1::ClientMessage AttackTank(const std::string& squad) {
  v1::ClientMessage message;
  v1::SealDeclaration& seal = *message.mutable_seal_declaration();
  seal.set_client_entropy(std::string(32, 'e'));
  aslpb::AttackOrder* order = seal.mutable_declaration()->mutable_asl()->add_attacks();
  order->add_attackers(squad);
  order->add_targets("T1");
  return message;
}

// The tank's attack with `weapon` on `targets`.
v1::ClientMessage TankFires(const std::string& weapon, std::vector<std::string> targets = {}) {
  v1::ClientMessage message;
  v1::SealDeclaration& seal = *message.mutable_seal_declaration();
  seal.set_client_entropy(std::string(32, 'e'));
  aslpb::AttackOrder* order = seal.mutable_declaration()->mutable_asl()->add_attacks();
  order->add_attackers("T1");
  order->add_weapons(weapon);
  for (const std::string& target : targets) order->add_targets(target);
  return message;
}

class AslVehicleMatchTest : public ::testing::Test {
 protected:
  AslVehicleMatchTest() { Start(); }

  void Start() {
    server::ServerHooks hooks;
    hooks.clock = clock_;
    hooks.dice = faces_.Source();
    server_ = std::make_unique<testing::TestServer>(server::ServerConfig{}, hooks,
                                                    dir_.path() / "data");
  }

  void Seat() {
    a_ = MatchClient::Connect(server_->ws_url());
    b_ = MatchClient::Connect(server_->ws_url());
    ASSERT_TRUE(a_ && b_);
    v1::MatchSettings settings;
    settings.set_ruleset("asl");
    created_ = a_->Create(settings);
    ASSERT_FALSE(created_.match_id().empty());
    ASSERT_TRUE(a_->Join(created_.match_id(), created_.side_a_token()).has_joined());
    ASSERT_TRUE(b_->Join(created_.match_id(), created_.side_b_token()).has_joined());
  }

  // Side A (the ATTACKER, Russians) advanced two 4-4-7 onto side B's PzIVJ. Their PAATC DRs 7
  // and 6 pass (ML 7) at set-up; both announce nothing. A is to make the first single attack.
  void SetUpAndAnnounce() {
    aslpb::Unit r1 = Squad("R1", v1::SEAT_SIDE_A, 4, "4-4-7");
    aslpb::Unit r2 = Squad("R2", v1::SEAT_SIDE_A, 4, "4-4-7");
    r1.set_advanced(true);
    r2.set_advanced(true);
    ASSERT_TRUE(a_->Act(EnterUnits({r1, r2}, true)).has_ack());
    const v1::ServerMessage entered = b_->Act(EnterUnits({PzIvj()}, false));
    ASSERT_TRUE(entered.has_ack()) << entered.DebugString();
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    ASSERT_TRUE(a_->Act(Confirm()).has_ack());
    ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
    faces_.Push({3, 4, 3, 3});  // the PAATC DRs
    ASSERT_TRUE(b_->Act(Confirm()).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    ASSERT_TRUE(a_->Act(AnnounceNothing()).has_ack());
    ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
    ASSERT_TRUE(b_->Act(AnnounceNothing()).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    const aslpb::AslView& view = a_->view().asl();
    ASSERT_EQ(view.phase(), aslpb::PHASE_DECLARE);
    EXPECT_TRUE(view.sequential());
    EXPECT_TRUE(view.alternating());
    EXPECT_EQ(view.to_act(), v1::SEAT_SIDE_A) << "A11.31: the non-vehicular side attacks first";
  }

  std::shared_ptr<server::ManualClock> clock_ = std::make_shared<server::ManualClock>();
  ScriptedFaces faces_;
  testing::TempDir dir_;
  std::unique_ptr<testing::TestServer> server_;
  std::unique_ptr<MatchClient> a_;
  std::unique_ptr<MatchClient> b_;
  v1::MatchCreated created_;
};

// Returns the asl reports of the resolved attacks `client` has seen, in order.
std::vector<aslpb::AttackReport> Attacks(const MatchClient& client) {
  std::vector<aslpb::AttackReport> attacks;
  for (const v1::MatchEvent& event : client.events()) {
    if (event.asl().kind() == aslpb::EVENT_KIND_ATTACK_RESOLVED) {
      attacks.push_back(event.asl().attack());
    }
  }
  return attacks;
}

TEST_F(AslVehicleMatchTest, PlaysAlternatingAttacksWithTheSnToTheEnd) {
  Seat();
  SetUpAndAnnounce();
  bool paatc = false;
  for (const v1::MatchEvent& event : a_->events()) {
    if (event.asl().kind() == aslpb::EVENT_KIND_PAATC_TAKEN) {
      paatc = true;
      EXPECT_EQ(event.asl().checks_size(), 2);
    }
  }
  EXPECT_TRUE(paatc) << "A11.6: the server rolls the PAATC of the units that advanced";

  // Not B's turn; and A declares one attack at a time.
  v1::ServerMessage refused = b_->Act(TankFires("cmg", {"R1"}));
  ASSERT_TRUE(refused.has_error());
  EXPECT_EQ(refused.error().rule_ref(), "A11.3");
  v1::ClientMessage two = AttackTank("R1");
  *two.mutable_seal_declaration()->mutable_declaration()->mutable_asl()->add_attacks() =
      two.seal_declaration().declaration().asl().attacks(0);
  two.mutable_seal_declaration()->mutable_declaration()->mutable_asl()->mutable_attacks(1)
      ->set_attackers(0, "R2");
  refused = a_->Act(two);
  ASSERT_TRUE(refused.has_error());
  EXPECT_EQ(refused.error().rule_ref(), "A11.31");

  faces_.Push({3, 4});  // R1's CC DR 7 vs CCV 5: no effect
  ASSERT_TRUE(a_->Act(AttackTank("R1")).has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  EXPECT_EQ(b_->view().asl().to_act(), v1::SEAT_SIDE_B);

  // The sN may not be combined; fired alone: IFT DR 7 <= 7, a 2MC on both squads (4 and 3).
  refused = b_->Act(TankFires("sn", {"R1"}));
  ASSERT_TRUE(refused.has_error());
  EXPECT_EQ(refused.error().rule_ref(), "A11.622");
  faces_.Push({3, 4, 2, 2, 1, 2});
  ASSERT_TRUE(b_->Act(TankFires("sn")).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  EXPECT_EQ(a_->view().asl().to_act(), v1::SEAT_SIDE_A);

  faces_.Push({1, 3});  // R2's CC DR 4 < CCV 5: the tank is eliminated (4 > 5/2: a wreck)
  ASSERT_TRUE(a_->Act(AttackTank("R2")).has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  for (MatchClient* client : {a_.get(), b_.get()}) {
    EXPECT_EQ(client->view().stage(), v1::STAGE_ENDED);
    const std::vector<aslpb::AttackReport> attacks = Attacks(*client);
    ASSERT_EQ(attacks.size(), 3u);
    EXPECT_TRUE(attacks[0].vs_vehicle());
    EXPECT_EQ(attacks[0].kill_number(), 5);
    EXPECT_EQ(attacks[0].results(0).outcome(), aslpb::OUTCOME_NO_EFFECT);
    ASSERT_TRUE(attacks[1].has_close_defense());
    EXPECT_EQ(attacks[1].close_defense().ift(), "2MC");
    EXPECT_EQ(attacks[1].close_defense().checks_size(), 2);
    EXPECT_EQ(attacks[2].results(0).outcome(), aslpb::OUTCOME_ELIMINATED);
  }
  bool tank_gone = false;
  for (const aslpb::ViewedUnit& unit : a_->view().asl().units()) {
    if (unit.unit().id() == "T1") tank_gone = unit.presence() == aslpb::PRESENCE_ELIMINATED;
  }
  EXPECT_TRUE(tank_gone);
}

TEST_F(AslVehicleMatchTest, ARestartMidCombatLosesNothing) {
  Seat();
  SetUpAndAnnounce();
  faces_.Push({3, 4});
  ASSERT_TRUE(a_->Act(AttackTank("R1")).has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  const uint64_t seq = b_->last_seq();
  a_.reset();
  b_.reset();
  server_.reset();
  Start();
  a_ = MatchClient::Connect(server_->ws_url());
  b_ = MatchClient::Connect(server_->ws_url());
  ASSERT_TRUE(a_ && b_);
  ASSERT_TRUE(a_->Join(created_.match_id(), created_.side_a_token(), seq).has_joined());
  ASSERT_TRUE(b_->Join(created_.match_id(), created_.side_b_token(), seq).has_joined());
  EXPECT_EQ(b_->view().asl().to_act(), v1::SEAT_SIDE_B);
  EXPECT_TRUE(b_->view().asl().alternating());
  // B's CMG vs R1 at 1-1: DR 8, no effect; then A's R2: DR 9 vs CCV 5, nothing; both are done.
  faces_.Push({4, 4});
  ASSERT_TRUE(b_->Act(TankFires("cmg", {"R1"})).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  faces_.Push({4, 5});
  ASSERT_TRUE(a_->Act(AttackTank("R2")).has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  ASSERT_EQ(b_->view().asl().to_act(), v1::SEAT_SIDE_B);
  // The tank may still use its sN (provoked) or pass; it passes.
  v1::ClientMessage pass;
  pass.mutable_seal_declaration()->set_client_entropy(std::string(32, 'e'));
  pass.mutable_seal_declaration()->mutable_declaration()->mutable_asl();
  ASSERT_TRUE(b_->Act(pass).has_ack());
  // A11.7: the tank holds the Russians in Melee, which goes on into the next CCPh (A11.15).
  ASSERT_TRUE(a_->WaitForView([](const v1::MatchView& view) { return view.ccph() == 2; }));
  bool held = false;
  for (const v1::MatchEvent& event : a_->events()) {
    if (event.has_match_ended()) held = event.asl().melee();
  }
  EXPECT_TRUE(held) << "A11.7: the tank holds the Russians in Melee";
  EXPECT_TRUE(a_->view().asl().location().melee());
  EXPECT_EQ(Attacks(*a_).size(), 2u) << "the two attacks after the resumed seq, once each";
}

}  // namespace
}  // namespace melee
