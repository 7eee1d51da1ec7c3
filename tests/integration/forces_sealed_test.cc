// Forces that persist in coc and vv (docs/forces.md), over a real server on loopback with its
// SQLite file, scripted dice and the C++ SDK: a Chain of Command Section and Squad fight two
// contacts (rule 17's "In action", then again in the orchard) with their Kills, Shock, Leaders and
// Force Morale carried, unit updates between them, a restart in the middle; a V&V close assault
// (rule 15's example, failed) and the next one on the same hex with the half squads it left, a
// restart in the middle; and a PC assault whose assaulters take the hex and assault on from it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/testing/coc_commands.h"
#include "tests/testing/forces_commands.h"
#include "tests/testing/match_client.h"
#include "tests/testing/match_frames.h"
#include "tests/testing/scripted_faces.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"
#include "tests/testing/vv_commands.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
namespace cocpb = melee::coc::v1;
namespace vvpb = melee::vv::v1;
using ::testing::HasSubstr;
using testing::Confirm;
using testing::InForce;
using testing::MatchClient;
using testing::Updates;
using testing::ScriptedFaces;

const cocpb::ViewedUnit* InContact(const v1::MatchView& view, const std::string& id) {
  for (const cocpb::ViewedUnit& unit : view.coc().units()) {
    if (unit.unit().id() == id) return &unit;
  }
  return nullptr;
}

const vvpb::ViewedUnit* InAssault(const v1::MatchView& view, const std::string& id) {
  for (const vvpb::ViewedUnit& unit : view.vv().units()) {
    if (unit.unit().id() == id) return &unit;
  }
  return nullptr;
}

v1::UnitUpdate Update(const std::string& unit, v1::UpdateKind kind, int value = 0,
                      const std::string& location = "") {
  v1::UnitUpdate update;
  update.set_unit(unit);
  update.set_kind(kind);
  update.set_value(value);
  update.set_location(location);
  return update;
}

std::vector<int> Faces(std::initializer_list<std::vector<int>> parts) {
  std::vector<int> all;
  for (const std::vector<int>& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

std::vector<int> Ones(int count) { return std::vector<int>(static_cast<size_t>(count), 1); }

// Both forces and Force Morale as a view shows them, for comparing across a restart.
std::string ForcesOf(const v1::MatchView& view) {
  v1::MatchView forces;
  *forces.mutable_side_a_force() = view.side_a_force();
  *forces.mutable_side_b_force() = view.side_b_force();
  if (view.has_side_a_force_morale()) forces.set_side_a_force_morale(view.side_a_force_morale());
  if (view.has_side_b_force_morale()) forces.set_side_b_force_morale(view.side_b_force_morale());
  return forces.ShortDebugString();
}

class SealedForcesTest : public ::testing::Test {
 protected:
  SealedForcesTest() { hooks_.dice = faces_.Source(); }

  void Start() {
    server_ = std::make_unique<testing::TestServer>(server::ServerConfig{}, hooks_,
                                                    dir_.path() / "data");
  }

  void Create(const std::string& ruleset, const std::string& variant = "") {
    auto creator = MatchClient::Connect(server_->ws_url());
    v1::MatchSettings settings;
    settings.set_ruleset(ruleset);
    settings.set_variant(variant);
    created_ = creator->Create(settings);
    ASSERT_FALSE(created_.match_id().empty());
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

  // Stops the server and starts it again on the same data: the match comes back from its log.
  void Restart() {
    const uint64_t seen = a_->last_seq();
    const std::string before = ForcesOf(a_->view());
    a_.reset();
    b_.reset();
    spectator_.reset();
    server_.reset();
    Start();
    ASSERT_NO_FATAL_FAILURE(JoinAll());
    EXPECT_EQ(a_->last_seq(), seen);
    EXPECT_EQ(ForcesOf(a_->view()), before) << "the forces are folded again from the log";
  }

  // Acts and expects a refusal naming `rule` with `words` in its message.
  void Refused(MatchClient& by, v1::ClientMessage message, const std::string& rule,
               const std::string& words) {
    const uint64_t before = by.last_seq();
    const v1::ServerMessage answer = by.Act(std::move(message));
    ASSERT_TRUE(answer.has_error()) << answer.ShortDebugString();
    EXPECT_EQ(answer.error().rule_ref(), rule) << answer.error().message();
    EXPECT_THAT(answer.error().message(), HasSubstr(words));
    EXPECT_EQ(by.last_seq(), before) << "nothing is applied";
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

// Chain of Command rule 17: the Section and the Squad of "In action" fight in the farmhouse, then
// again in the orchard. Kills stay dead, Shock and Force Morale carry, a Team is never entered
// again, and the unit updates between the contacts are checked and carried through a restart.
TEST_F(SealedForcesTest, CocKillsShockAndForceMoraleCarryIntoTheNextContact) {
  Start();
  ASSERT_NO_FATAL_FAILURE(Create("coc"));
  ASSERT_NO_FATAL_FAILURE(JoinAll());

  // Contact 1, the farmhouse (17.3 "In action"): 8 Soviet Combat Dice against 13.
  v1::ClientMessage soviets = testing::coc::SovietPart();
  soviets.mutable_submit_setup()->mutable_coc()->set_location("farmhouse");
  ASSERT_TRUE(a_->Act(soviets).has_ack());
  ASSERT_TRUE(b_->Act(testing::coc::GermanPart()).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_TRUE(b_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_TRUE(b_->Act(testing::coc::SealCocDeclare()).has_ack());
  Sync();
  // The Soviets roll three 6s (Kills) and a 5 (Shock); the Germans roll nothing.
  faces_.Push(Faces({{6, 6, 6, 5, 1, 1, 1, 1}, Ones(13)}));
  ASSERT_TRUE(a_->Act(testing::coc::SealCocDeclare(/*advance=*/true)).has_ack());
  Sync();
  // 17.4.1: the Germans place the odd Kill and Shock. The Leader with the LMG Team is not hit
  // (d6 2; placeholder table, C.7); Defeated by Four with an active Leader, the Squad Breaks
  // (17.5) and takes a Force Morale test: a 1 drops it from 9 to 8 (placeholder table, C.7).
  faces_.Push({2, 1});
  ASSERT_TRUE(b_->Act(testing::coc::SealPlace({"german_rifles"}, {"german_lmg"})).has_ack());
  Sync();
  for (MatchClient* client : {a_.get(), b_.get(), spectator_.get()}) {
    const v1::MatchView& view = client->view();
    ASSERT_EQ(view.stage(), v1::STAGE_ENDED);
    EXPECT_EQ(view.side_a_force_morale(), 9);
    EXPECT_EQ(view.side_b_force_morale(), 8) << "Force Morale as the contact left it";
    const v1::ForceUnit* germans = InForce(view, "german_squad");
    ASSERT_NE(germans, nullptr);
    EXPECT_EQ(germans->fate(), v1::FORCE_FATE_PRESENT);
    EXPECT_EQ(germans->location(), "") << "17.5: Broken, it fled 18\" from the farmhouse";
    EXPECT_TRUE(germans->coc().broken());
    EXPECT_EQ(germans->coc().teams(0).figures(), 2);  // 3 less the even Kill
    EXPECT_EQ(germans->coc().teams(0).shock(), 4);    // the odd Shock and 3 for Breaking
    EXPECT_EQ(germans->coc().teams(1).figures(), 3);  // 5 less the even and the odd Kill
    EXPECT_EQ(germans->coc().teams(1).shock(), 3);
    EXPECT_EQ(germans->coc().leaders(0).status(), cocpb::LEADER_STATUS_WOUNDED);
    EXPECT_THAT(germans->last_change(), HasSubstr("in CC in farmhouse"));
    EXPECT_EQ(InForce(view, "soviet_smg")->location(), "farmhouse") << "17.5: it advanced";
    EXPECT_EQ(InForce(view, "soviet_smg")->coc().role(), cocpb::ROLE_UNSPECIFIED)
        << "a role is each contact's";
  }

  // Between the contacts, each side reports what fire did on its own table. Refusals first.
  Refused(*b_, Updates({Update("german_squad", v1::UPDATE_KIND_KILL, 1)}), "17.4.1",
          "has 2 Teams: name the Team the Kill falls on");
  Refused(*b_, Updates({Update("german_squad", v1::UPDATE_KIND_PIN)}), "17.3",
          "Pinned while its Shock exceeds its figures");
  Refused(*a_, Updates({Update("german_lmg", v1::UPDATE_KIND_SHOCK, 1)}), "",
          "a side reports only its own units");
  Refused(*a_, Updates({Update("soviet_smg", v1::UPDATE_KIND_RALLY)}), "17.5", "is not Broken");
  // The Germans lose a rifleman to fire, rally (17.5) shedding 2 Shock from the LMG Team, and
  // move into the orchard; the Soviets take 2 Shock, follow them, and their Force Morale falls to
  // 7 (a Force Morale test of their own table).
  ASSERT_TRUE(b_->Act(Updates({Update("german_rifles", v1::UPDATE_KIND_KILL, 1),
                               Update("german_squad", v1::UPDATE_KIND_RALLY),
                               Update("german_lmg", v1::UPDATE_KIND_SHOCK, -2),
                               Update("german_squad", v1::UPDATE_KIND_MOVE, 0, "orchard")}))
                  .has_ack());
  ASSERT_TRUE(a_->Act(Updates({Update("soviet_team", v1::UPDATE_KIND_SHOCK, 2),
                               Update("soviet_smg", v1::UPDATE_KIND_MOVE, 0, "orchard"),
                               Update("", v1::UPDATE_KIND_FORCE_MORALE, 7)}))
                  .has_ack());
  Sync();
  EXPECT_EQ(spectator_->view().side_a_force_morale(), 7);
  const v1::MatchEvent shown = spectator_->events().back();
  ASSERT_TRUE(shown.has_units_updated());
  EXPECT_EQ(shown.units_updated().updates(2).kind(), v1::UPDATE_KIND_FORCE_MORALE)
      << "nothing of a coc force is concealed";

  // A unit, a Team or a Leader the match holds is never entered again.
  v1::ClientMessage again = testing::coc::GermanPart();
  Refused(*b_, again, "", "'german_squad' is already in the match");
  again.mutable_submit_setup()->mutable_coc()->mutable_units(0)->set_id("new_squad");
  Refused(*b_, again, "", "'german_lmg' (of german_squad) is already in the match");
  v1::UnitUpdate enter = Update("new_squad", v1::UPDATE_KIND_ENTER, 0, "wood");
  *enter.mutable_coc() = again.submit_setup().coc().units(0);
  Refused(*b_, Updates({enter}), "", "'german_lmg' is already in the match");
  v1::ClientMessage morale;
  morale.mutable_submit_setup()->mutable_coc()->set_force_morale(9);
  Refused(*b_, morale, "", "side_b's Force Morale is 8 as the match carries it");

  // A restart between the updates and the next contact: the forces come back from the log.
  ASSERT_NO_FATAL_FAILURE(Restart());
  EXPECT_EQ(InForce(a_->view(), "german_squad")->location(), "orchard");

  // Contact 2, the orchard: the Soviets attack again, two D6 of visible movement; nobody enters
  // a Unit or a Force Morale: both come from the forces, the Germans defending (17.2).
  v1::ClientMessage orchard;
  cocpb::SideSetup& part = *orchard.mutable_submit_setup()->mutable_coc();
  part.set_location("orchard");
  part.set_attacker(v1::SEAT_SIDE_A);
  cocpb::InContact& approach = *part.add_in_contact();
  approach.set_unit("soviet_smg");
  approach.set_movement_dice(2);
  ASSERT_TRUE(a_->Act(orchard).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Confirm()).has_ack());
  Sync();
  const v1::ServerMessage confirmed = b_->Act(Confirm());
  ASSERT_TRUE(confirmed.has_ack()) << "B's Units all come from its force: "
                                   << confirmed.ShortDebugString();
  Sync();
  const v1::MatchView& contact = b_->view();
  ASSERT_EQ(contact.stage(), v1::STAGE_PLAYING);
  EXPECT_EQ(contact.coc().situation().location(), "orchard");
  bool described = false;
  for (const v1::MatchEvent& event : b_->events()) {
    described = described || event.coc().text().starts_with("close_combat set up in orchard: "
                                                             "side_a attacks with soviet_smg");
  }
  EXPECT_TRUE(described);
  EXPECT_EQ(contact.coc().side_a_force_morale(), 7);
  EXPECT_EQ(contact.coc().side_b_force_morale(), 8);
  ASSERT_NE(InContact(contact, "german_squad"), nullptr);
  const cocpb::Unit& germans = InContact(contact, "german_squad")->unit();
  EXPECT_EQ(germans.role(), cocpb::ROLE_DEFENDER);
  EXPECT_EQ(germans.teams(0).figures(), 2) << "killed figures stay dead";
  EXPECT_EQ(germans.teams(1).figures(), 2);
  EXPECT_EQ(germans.teams(0).shock(), 2);
  EXPECT_EQ(germans.teams(1).shock(), 3);
  EXPECT_FALSE(germans.broken());
  const cocpb::Unit& section = InContact(contact, "soviet_smg")->unit();
  EXPECT_EQ(section.role(), cocpb::ROLE_ATTACKER);
  EXPECT_EQ(section.teams(0).shock(), 2);
  EXPECT_EQ(section.movement_dice(), 2);
  Refused(*b_, Updates({Update("german_rifles", v1::UPDATE_KIND_SHOCK, 1)}), "17.2",
          "is in the close combat being played in orchard");
  Refused(*a_, Updates({Update("", v1::UPDATE_KIND_FORCE_MORALE, 6)}), "17.2",
          "the side's own values change only through it");

  // 17.3 with what carried: the Soviets 7 figures + 2 Orders - 1 for 2 Shock + 8 SMGs = 16; the
  // Germans 4 figures + 1 Order (wounded Leader) + 2 for the movement dice - 2 for 5 Shock = 5.
  ASSERT_TRUE(b_->Act(testing::coc::SealCocDeclare()).has_ack());
  Sync();
  // Four Kills, two on each German Team: both wiped out (17.5). Two d6 for the Leader with the
  // LMG Team miss; the Force Morale test for a Unit wiped out rolls 1: 8 -> 7.
  faces_.Push(Faces({{6, 6, 6, 6}, Ones(12), Ones(5), {2, 2}, {1}}));
  ASSERT_TRUE(a_->Act(testing::coc::SealCocDeclare(/*advance=*/true)).has_ack());
  Sync();
  const v1::MatchView& after = a_->view();
  ASSERT_EQ(after.stage(), v1::STAGE_ENDED) << after.ShortDebugString();
  cocpb::RoundReport rolled;
  for (const v1::MatchEvent& event : a_->events()) {
    if (event.coc().kind() == cocpb::EVENT_KIND_ROUND_ROLLED) rolled = event.coc().report();
  }
  EXPECT_EQ(rolled.side_a().pool().dice(), 16);
  EXPECT_EQ(rolled.side_b().pool().dice(), 5);
  EXPECT_EQ(after.coc().outcomes(0).kind(), cocpb::OUTCOME_KIND_WIPED_OUT);
  EXPECT_EQ(after.side_b_force_morale(), 7);
  EXPECT_EQ(after.side_a_force_morale(), 7);
  EXPECT_EQ(InForce(after, "german_squad")->fate(), v1::FORCE_FATE_ELIMINATED);
  EXPECT_EQ(InForce(after, "soviet_smg")->location(), "orchard");
  Refused(*b_, Updates({Update("german_squad", v1::UPDATE_KIND_MOVE, 0, "wood")}), "",
          "never returns");
  Refused(*b_, testing::coc::GermanPart(), "", "never returns");
}

// V&V rule 15: the Close Assault Example fails (15.8); the Americans hold C1 with a squad
// reduced to a half squad (14.61), and next turn the Germans assault C1 again from B1 with what
// they have left. Nothing is entered again; an eliminated unit never returns; a restart in the
// middle of the second assault loses nothing.
TEST_F(SealedForcesTest, VvAReducedSquadStaysAHalfSquadInTheNextAssault) {
  Start();
  ASSERT_NO_FATAL_FAILURE(Create("vv", "board"));
  ASSERT_NO_FATAL_FAILURE(JoinAll());
  ASSERT_TRUE(a_->Act(testing::vv::GermanPart()).has_ack());
  ASSERT_TRUE(b_->Act(testing::vv::AmericanPart()).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_TRUE(b_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_TRUE(b_->Act(testing::vv::SealDeclare({}, "Coleman",
                                               {testing::vv::VvUse("US-HS", "LMG", false)}))
                  .has_ack());
  Sync();
  // 15.6: 13 APFP against 11, 1-1, Kill Number 6 - 1 (Coleman) = 5; DR 11 - 2 = 9 fails by 4.
  faces_.Push({6, 5});
  ASSERT_TRUE(a_->Act(testing::vv::SealDeclare({"G1", "G2", "G3", "Schmidt"}, "Schmidt",
                                               {testing::vv::VvUse("G1", "", true)}))
                  .has_ack());
  Sync();
  // 15.8: the Germans take 4 + 3 + 3 = 10 CP, the Americans 4 (one per assaulting unit).
  ASSERT_EQ(b_->view().vv().report().assaulter_cp(), 10);
  ASSERT_TRUE(b_->Act(testing::vv::SealAllocation({{"US-SQ", vvpb::CP_ACTION_KIND_REDUCE},
                                                   {"US-HS", vvpb::CP_ACTION_KIND_PIN},
                                                   {"Coleman", vvpb::CP_ACTION_KIND_PIN}}))
                  .has_ack());
  ASSERT_TRUE(a_->Act(testing::vv::SealAllocation({{"G1", vvpb::CP_ACTION_KIND_ELIMINATE},
                                                   {"G2", vvpb::CP_ACTION_KIND_REDUCE},
                                                   {"G3", vvpb::CP_ACTION_KIND_PIN},
                                                   {"Schmidt", vvpb::CP_ACTION_KIND_PIN}}))
                  .has_ack());
  Sync();
  for (MatchClient* client : {a_.get(), b_.get(), spectator_.get()}) {
    const v1::MatchView& view = client->view();
    ASSERT_EQ(view.stage(), v1::STAGE_ENDED);
    EXPECT_EQ(InForce(view, "G1")->fate(), v1::FORCE_FATE_ELIMINATED);
    const v1::ForceUnit* g2 = InForce(view, "G2");
    EXPECT_EQ(g2->vv().kind(), vvpb::UNIT_KIND_HALF_SQUAD) << "14.61";
    EXPECT_EQ(g2->vv().apfp(), 2);
    EXPECT_EQ(g2->location(), "B1") << "the assault failed: it stays in its source hex";
    const v1::ForceUnit* squad = InForce(view, "US-SQ");
    EXPECT_EQ(squad->vv().kind(), vvpb::UNIT_KIND_HALF_SQUAD);
    EXPECT_EQ(squad->vv().casualty_rating(), 2);
    EXPECT_EQ(squad->location(), "C1");
    EXPECT_TRUE(InForce(view, "G3")->vv().pinned());
    EXPECT_TRUE(InForce(view, "Coleman")->vv().pinned());
  }

  // Next turn: the pins end (14.8), a fresh squad comes up to B1. Refusals name the rule.
  Refused(*a_, Updates({Update("G2", v1::UPDATE_KIND_REDUCE)}), "14.61",
          "only a squad is reduced");
  Refused(*a_, Updates({Update("G3", v1::UPDATE_KIND_REDUCE)}), "14.62",
          "a pinned unit cannot be reduced");
  Refused(*b_, Updates({Update("US-SQ", v1::UPDATE_KIND_BREAK)}), "14.7",
          "V&V units do not break");
  Refused(*a_, Updates({Update("G1", v1::UPDATE_KIND_UNPIN)}), "", "never returns");
  v1::UnitUpdate reinforcement = Update("G4", v1::UPDATE_KIND_ENTER, 0, "B1");
  *reinforcement.mutable_vv() = testing::vv::VvSquad("G4", v1::SEAT_SIDE_A, 4, 5, 2, 2);
  ASSERT_TRUE(a_->Act(Updates({Update("G3", v1::UPDATE_KIND_UNPIN),
                               Update("Schmidt", v1::UPDATE_KIND_UNPIN), reinforcement}))
                  .has_ack());
  ASSERT_TRUE(b_->Act(Updates({Update("US-HS", v1::UPDATE_KIND_UNPIN),
                               Update("Coleman", v1::UPDATE_KIND_UNPIN)}))
                  .has_ack());
  Sync();
  v1::ClientMessage again = testing::vv::GermanPart();
  Refused(*a_, again, "", "'G1' was eliminated");
  again.mutable_submit_setup()->mutable_vv()->mutable_units()->DeleteSubrange(0, 1);
  Refused(*a_, again, "", "'G2' is already in the match");

  // The second assault on C1 from B1: A names the hexes, nobody enters a unit.
  v1::ClientMessage hexes;
  vvpb::SideSetup& part = *hexes.mutable_submit_setup()->mutable_vv();
  part.set_attacker(v1::SEAT_SIDE_A);
  part.set_source_hex("B1");
  part.mutable_target()->set_name("C1");
  part.mutable_target()->set_terrain_cover(3);
  ASSERT_TRUE(a_->Act(hexes).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_TRUE(b_->Act(Confirm()).has_ack()) << "B's units in C1 all come from its force";
  Sync();
  const v1::MatchView& assault = a_->view();
  ASSERT_EQ(assault.stage(), v1::STAGE_PLAYING);
  EXPECT_EQ(assault.vv().units_size(), 7);
  EXPECT_EQ(InAssault(assault, "G1"), nullptr) << "an eliminated unit never returns";
  ASSERT_NE(InAssault(assault, "G2"), nullptr);
  EXPECT_EQ(InAssault(assault, "G2")->unit().kind(), vvpb::UNIT_KIND_HALF_SQUAD)
      << "14.61: a reduced squad stays a half squad";
  EXPECT_EQ(InAssault(assault, "US-SQ")->unit().kind(), vvpb::UNIT_KIND_HALF_SQUAD);
  EXPECT_TRUE(InAssault(assault, "US-SQ")->in_target());
  EXPECT_FALSE(InAssault(assault, "US-HS")->unit().pinned());
  Refused(*b_, Updates({Update("US-HS", v1::UPDATE_KIND_PIN)}), "15.1",
          "is in the close combat being played in C1");
  ASSERT_TRUE(b_->Act(testing::vv::SealDeclare({}, "Coleman",
                                               {testing::vv::VvUse("US-HS", "LMG", false)}))
                  .has_ack());
  Sync();

  // A restart with B sealed.
  ASSERT_NO_FATAL_FAILURE(Restart());

  // 15.6: 2 + 4 + 4 + 1 = 11 APFP against 2 + 2 + 3 (LMG) + 1 = 8: 1-1, Kill Number 6 - 1 = 5;
  // DR 3 - 1 (Schmidt) = 2 succeeds (15.7). The Germans take C1 and 3 + 3 CP (15.8).
  faces_.Push({1, 2});
  ASSERT_TRUE(
      a_->Act(testing::vv::SealDeclare({"G2", "G3", "G4", "Schmidt"}, "Schmidt")).has_ack());
  Sync();
  EXPECT_EQ(a_->view().vv().report().assault_apfp(), 11);
  EXPECT_EQ(a_->view().vv().report().defence_apfp(), 8);
  EXPECT_EQ(a_->view().vv().report().kill_number(), 5);
  ASSERT_EQ(a_->view().vv().report().assaulter_cp(), 6);
  ASSERT_TRUE(a_->Act(testing::vv::SealAllocation({{"G3", vvpb::CP_ACTION_KIND_ELIMINATE},
                                                   {"G4", vvpb::CP_ACTION_KIND_PIN}}))
                  .has_ack());
  Sync();
  const v1::MatchView& taken = b_->view();
  ASSERT_EQ(taken.stage(), v1::STAGE_ENDED);
  for (const char* id : {"US-SQ", "US-HS", "Coleman", "G3"}) {
    EXPECT_EQ(InForce(taken, id)->fate(), v1::FORCE_FATE_ELIMINATED) << id;
  }
  for (const char* id : {"G2", "G4", "Schmidt"}) {
    EXPECT_EQ(InForce(taken, id)->location(), "C1") << id << ": 15.8, it took the hex";
  }
  EXPECT_TRUE(InForce(taken, "G4")->vv().pinned());
  Refused(*b_, Updates({Update("US-SQ", v1::UPDATE_KIND_MOVE, 0, "D1")}), "", "never returns");
}

// V&V PC: only pinned units in the target hex are eliminated at once and the assaulters take it
// (15.9); their next assault comes from that hex, and they join it from their force.
TEST_F(SealedForcesTest, VvPcAssaultersThatTookAHexAssaultOnFromIt) {
  Start();
  ASSERT_NO_FATAL_FAILURE(Create("vv", "pc"));
  ASSERT_NO_FATAL_FAILURE(JoinAll());
  v1::ClientMessage germans;
  vvpb::SideSetup& a = *germans.mutable_submit_setup()->mutable_vv();
  a.set_attacker(v1::SEAT_SIDE_A);
  a.set_source_hex("B1");
  a.mutable_target()->set_name("C1");
  a.mutable_target()->set_terrain_cover(3);
  *a.add_units() = testing::vv::VvSquad("G1", v1::SEAT_SIDE_A, 4, 5, 2, 2);
  ASSERT_TRUE(a_->Act(germans).has_ack());
  v1::ClientMessage americans;
  vvpb::Unit pinned = testing::vv::VvSquad("US1", v1::SEAT_SIDE_B, 5, 4, 2, 2);
  pinned.set_pinned(true);
  *americans.mutable_submit_setup()->mutable_vv()->add_units() = pinned;
  ASSERT_TRUE(b_->Act(americans).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_TRUE(b_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(testing::vv::SealDeclare({"G1"}, "")).has_ack());
  Sync();
  ASSERT_EQ(a_->view().stage(), v1::STAGE_ENDED) << a_->view().ShortDebugString();
  EXPECT_EQ(InForce(a_->view(), "US1")->fate(), v1::FORCE_FATE_ELIMINATED) << "15.9";
  EXPECT_EQ(InForce(a_->view(), "G1")->location(), "C1") << "15.9: the assaulters take the hex";

  // The next assault, on D1 from C1: G1 joins it from its force.
  v1::ClientMessage next;
  vvpb::SideSetup& hexes = *next.mutable_submit_setup()->mutable_vv();
  hexes.set_attacker(v1::SEAT_SIDE_A);
  hexes.set_source_hex("C1");
  hexes.mutable_target()->set_name("D1");
  ASSERT_TRUE(a_->Act(next).has_ack());
  v1::ClientMessage defenders;
  *defenders.mutable_submit_setup()->mutable_vv()->add_units() =
      testing::vv::VvSquad("US2", v1::SEAT_SIDE_B, 5, 4, 2, 2);
  ASSERT_TRUE(b_->Act(defenders).has_ack());
  Sync();
  ASSERT_TRUE(a_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_TRUE(b_->Act(Confirm()).has_ack());
  Sync();
  ASSERT_EQ(b_->view().stage(), v1::STAGE_PLAYING);
  ASSERT_NE(InAssault(b_->view(), "G1"), nullptr);
  EXPECT_FALSE(InAssault(b_->view(), "G1")->in_target());
  EXPECT_EQ(b_->view().vv().source_hex(), "C1");
}

}  // namespace
}  // namespace melee
