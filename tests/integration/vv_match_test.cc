// V&V close assaults (rule 15) played over real WebSockets against a real server on loopback
// with its SQLite file: set-up, both declarations sealed and revealed together, the server's
// dice, Casualty Point allocations sealed and revealed together, deadlines, refusals naming the
// rule, secrecy, and a restart in the middle of an assault.

#include <gtest/gtest.h>

#include <sstream>

#include "proto/codec/frame.h"
#include "server/clock.h"
#include "server/fair_play/audit.h"
#include "server/fair_play/verify.h"
#include "server/matches.h"
#include "server/transport/server.h"
#include "tests/testing/fair_play_match.h"
#include "tests/testing/match_client.h"
#include "tests/testing/match_frames.h"
#include "tests/testing/scripted_faces.h"
#include "tests/testing/seal_guesser.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"
#include "tests/testing/vv_commands.h"

namespace melee::vv_match {
namespace {

namespace v1 = melee::v1;
namespace vvpb = melee::vv::v1;
using testing::AllBytes;
using testing::Confirm;
using testing::MatchClient;
using testing::ScriptedFaces;
using testing::vv::AmericanPart;
using testing::vv::GermanPart;
using testing::vv::SealAllocation;
using testing::vv::SealDeclare;
using testing::vv::VvSquad;
using testing::vv::VvUse;

const vvpb::ViewedUnit* Unit(const v1::MatchView& view, const std::string& id) {
  for (const vvpb::ViewedUnit& unit : view.vv().units()) {
    if (unit.unit().id() == id) return &unit;
  }
  return nullptr;
}

class VvMatchTest : public ::testing::Test {
 protected:
  VvMatchTest() : server_({}, Hooks(), dir_.path() / "data") {}

  server::ServerHooks Hooks() {
    server::ServerHooks hooks;
    hooks.clock = clock_;
    hooks.dice = faces_.Source();
    return hooks;
  }

  void Seat(const std::string& variant = "board", uint32_t declaration_deadline_seconds = 0,
            proto::FrameKind kind = proto::FrameKind::kBinary) {
    a_ = MatchClient::Connect(server_.ws_url(), kind);
    b_ = MatchClient::Connect(server_.ws_url(), kind);
    spectator_ = MatchClient::Connect(server_.ws_url(), kind);
    ASSERT_TRUE(a_ && b_ && spectator_);
    v1::MatchSettings settings;
    settings.set_ruleset("vv");
    settings.set_variant(variant);
    settings.set_declaration_deadline_seconds(declaration_deadline_seconds);
    created_ = a_->Create(settings);
    ASSERT_FALSE(created_.match_id().empty());
    ASSERT_TRUE(a_->Join(created_.match_id(), created_.side_a_token()).has_joined());
    ASSERT_TRUE(b_->Join(created_.match_id(), created_.side_b_token()).has_joined());
    ASSERT_TRUE(spectator_->Join(created_.match_id(), created_.spectator_key(), 0, true)
                    .has_joined());
  }

  // Both sides enter the 15 Close Assault Example and confirm: the assault is set up.
  void EnterAndConfirm() {
    ASSERT_TRUE(a_->Act(GermanPart()).has_ack());
    const v1::ServerMessage entered = b_->Act(AmericanPart());
    ASSERT_TRUE(entered.has_ack()) << entered.DebugString();
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    ASSERT_TRUE(a_->Act(Confirm()).has_ack());
    ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
    ASSERT_TRUE(b_->Act(Confirm()).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    ASSERT_EQ(a_->view().stage(), v1::STAGE_PLAYING);
    ASSERT_EQ(a_->view().vv().phase(), vvpb::PHASE_DECLARE);
  }

  void SealBoth() {
    const v1::ServerMessage b_ack =
        b_->Act(SealDeclare({}, "Coleman", {VvUse("US-HS", "LMG", false)}));
    ASSERT_TRUE(b_ack.has_ack()) << b_ack.DebugString();
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    faces_.Push({3, 4});  // DR 7
    const v1::ServerMessage a_ack = a_->Act(
        SealDeclare({"G1", "G2", "G3", "Schmidt"}, "Schmidt", {VvUse("G1", "", true)}));
    ASSERT_TRUE(a_ack.has_ack()) << a_ack.DebugString();
    ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  }

  std::shared_ptr<server::ManualClock> clock_ = std::make_shared<server::ManualClock>();
  ScriptedFaces faces_;
  testing::TempDir dir_;
  testing::TestServer server_;
  std::unique_ptr<MatchClient> a_;
  std::unique_ptr<MatchClient> b_;
  std::unique_ptr<MatchClient> spectator_;
  v1::MatchCreated created_;
};

// VV-T1 over the wire: both declarations sealed, revealed together, resolved with the server's
// dice; the Germans then seal how they take their 6 Casualty Points.
TEST_F(VvMatchTest, PlaysTheCloseAssaultExampleEndToEnd) {
  Seat();
  EnterAndConfirm();
  SealBoth();
  const v1::MatchView& after_roll = a_->view();
  ASSERT_EQ(after_roll.vv().phase(), vvpb::PHASE_ALLOCATE) << after_roll.DebugString();
  EXPECT_EQ(after_roll.vv().report().assault_apfp(), 13);
  EXPECT_EQ(after_roll.vv().report().defence_apfp(), 11);
  EXPECT_EQ(after_roll.vv().report().kill_number(), 5);
  EXPECT_EQ(after_roll.vv().report().final_dr(), 5);
  EXPECT_TRUE(after_roll.vv().report().success());
  EXPECT_EQ(after_roll.vv().report().assaulter_cp(), 6);
  ASSERT_EQ(after_roll.waiting_for_size(), 1);
  // The prompt says what the seat owes.
  EXPECT_EQ(after_roll.waiting_for(0),
            "side_a: seal a Casualty Point allocation (14.61) — 6 Casualty Points, no more than "
            "they need (14.61)");

  // An allocation that does not reach the total is refused, naming the rule.
  const v1::ServerMessage short_of = a_->Act(SealAllocation(
      {{"G1", vvpb::CP_ACTION_KIND_PIN}, {"G2", vvpb::CP_ACTION_KIND_PIN},
       {"G3", vvpb::CP_ACTION_KIND_PIN}}));
  ASSERT_TRUE(short_of.has_error());
  EXPECT_EQ(short_of.error().rule_ref(), "14.61");
  EXPECT_NE(short_of.error().message().find("fulfils 3 of the 6"), std::string::npos);

  ASSERT_TRUE(a_->Act(SealAllocation({{"G1", vvpb::CP_ACTION_KIND_ELIMINATE},
                                      {"G2", vvpb::CP_ACTION_KIND_PIN}}))
                  .has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  ASSERT_TRUE(spectator_->WaitForSeq(a_->last_seq()));
  for (MatchClient* client : {a_.get(), b_.get(), spectator_.get()}) {
    const v1::MatchView& view = client->view();
    EXPECT_EQ(view.stage(), v1::STAGE_ENDED);
    EXPECT_EQ(view.vv().phase(), vvpb::PHASE_ENDED);
    ASSERT_NE(Unit(view, "G1"), nullptr);
    EXPECT_TRUE(Unit(view, "G1")->eliminated());
    EXPECT_TRUE(Unit(view, "G2")->unit().pinned());
    EXPECT_TRUE(Unit(view, "G3")->in_target());
    EXPECT_TRUE(Unit(view, "Coleman")->eliminated());
    bool revealed = false;
    int dice = 0;
    for (const v1::MatchEvent& event : client->events()) {
      if (event.has_declarations_revealed() && event.declarations_revealed().side_b().vv().has_declare()) {
        revealed = true;
        EXPECT_EQ(event.declarations_revealed().side_a().vv().declare().leader(), "Schmidt");
        EXPECT_EQ(event.declarations_revealed().side_b().vv().declare().leader(), "Coleman");
      }
      dice += event.vv().dice_size();
    }
    EXPECT_TRUE(revealed);
    EXPECT_EQ(dice, 2);
    const std::vector<v1::MatchEvent> events = client->events();
    ASSERT_GE(events.size(), 2u);
    EXPECT_TRUE(events[events.size() - 2].has_match_ended());
    EXPECT_TRUE(events.back().has_head_signed());
  }
}

// Until both have sealed, nothing of a declaration reaches the other side or a spectator; after
// a failed assault, each side's allocation stays secret until the other has sealed too.
TEST_F(VvMatchTest, DeclarationsAndAllocationsStaySecretUntilBothAreSealed) {
  Seat();
  EnterAndConfirm();
  const v1::ClientMessage declare = SealDeclare({}, "Coleman", {VvUse("US-HS", "LMG", false)});
  ASSERT_TRUE(b_->Act(declare).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  ASSERT_TRUE(spectator_->WaitForSeq(b_->last_seq()));
  // The dictionary attack: every leader and set of weapon uses B could have declared.
  std::vector<v1::Declaration> declarations;
  const std::vector<vvpb::UnitUse> uses = {VvUse("US-HS", "LMG", false), VvUse("US-SQ", "", true),
                                           VvUse("US-HS", "", true), VvUse("US-SQ", "BAR", false)};
  for (const std::string leader : {"", "Coleman"}) {
    for (unsigned mask = 0; mask < (1u << uses.size()); ++mask) {
      std::vector<vvpb::UnitUse> chosen;
      for (size_t k = 0; k < uses.size(); ++k) {
        if (mask & (1u << k)) chosen.push_back(uses[k]);
      }
      declarations.push_back(SealDeclare({}, leader, chosen).seal_declaration().declaration());
    }
  }
  for (MatchClient* other : {a_.get(), spectator_.get()}) {
    EXPECT_TRUE(testing::NoCandidateConfirmed(*other, declarations,
                                              declare.seal_declaration().declaration()));
    const std::string bytes = AllBytes(*other);
    EXPECT_EQ(bytes.find("\"leader\":\"Coleman\""), std::string::npos);
    EXPECT_EQ(bytes.find("\"weapon\":\"LMG\""), std::string::npos);
    EXPECT_TRUE(other->events().back().has_declaration_sealed());
  }
  faces_.Push({6, 5});  // DR 11 - 2 = 9 > 5: fails by 4
  ASSERT_TRUE(a_->Act(SealDeclare({"G1", "G2", "G3", "Schmidt"}, "Schmidt",
                                  {VvUse("G1", "", true)}))
                  .has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  EXPECT_FALSE(b_->view().vv().report().success());
  EXPECT_EQ(b_->view().vv().report().assaulter_cp(), 10);  // 4 + 3 building + 3 units
  EXPECT_EQ(b_->view().vv().report().defender_cp(), 4);    // 1 per assaulting unit
  ASSERT_EQ(b_->view().waiting_for_size(), 2);

  // B allocates 4: reduce the 5-6-4 (2), pin the half squad (1) and Coleman (1).
  const v1::ClientMessage allocation = SealAllocation({{"US-SQ", vvpb::CP_ACTION_KIND_REDUCE},
                                                       {"US-HS", vvpb::CP_ACTION_KIND_PIN},
                                                       {"Coleman", vvpb::CP_ACTION_KIND_PIN}});
  ASSERT_TRUE(b_->Act(allocation).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  // The dictionary attack: every action (or none) for each of B's units.
  std::vector<v1::Declaration> allocations;
  const std::vector<std::string> units = {"US-SQ", "US-HS", "Coleman"};
  const std::vector<vvpb::CpActionKind> kinds = {
      vvpb::CP_ACTION_KIND_UNSPECIFIED, vvpb::CP_ACTION_KIND_PIN, vvpb::CP_ACTION_KIND_REDUCE,
      vvpb::CP_ACTION_KIND_ELIMINATE};
  for (unsigned code = 0; code < 64; ++code) {
    std::vector<std::pair<std::string, vvpb::CpActionKind>> actions;
    for (size_t u = 0; u < units.size(); ++u) {
      const vvpb::CpActionKind kind = kinds[(code >> (2 * u)) & 3];
      if (kind != vvpb::CP_ACTION_KIND_UNSPECIFIED) actions.emplace_back(units[u], kind);
    }
    allocations.push_back(SealAllocation(actions).seal_declaration().declaration());
  }
  EXPECT_TRUE(testing::NoCandidateConfirmed(*a_, allocations,
                                            allocation.seal_declaration().declaration()));
  EXPECT_EQ(AllBytes(*a_).find("CP_ACTION_KIND_REDUCE"), std::string::npos);
  EXPECT_FALSE(a_->view().vv().has_side_b_allocation());
  EXPECT_TRUE(b_->view().vv().has_side_b_allocation());
  // A: 10 CP: eliminate G1 (5), reduce G2 (3), pin G3 and Schmidt (1 + 1).
  ASSERT_TRUE(a_->Act(SealAllocation({{"G1", vvpb::CP_ACTION_KIND_ELIMINATE},
                                      {"G2", vvpb::CP_ACTION_KIND_REDUCE},
                                      {"G3", vvpb::CP_ACTION_KIND_PIN},
                                      {"Schmidt", vvpb::CP_ACTION_KIND_PIN}}))
                  .has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  EXPECT_EQ(b_->view().stage(), v1::STAGE_ENDED);
  EXPECT_EQ(Unit(b_->view(), "US-SQ")->unit().kind(), vvpb::UNIT_KIND_HALF_SQUAD);
  EXPECT_EQ(Unit(a_->view(), "G2")->unit().kind(), vvpb::UNIT_KIND_HALF_SQUAD);
  EXPECT_FALSE(Unit(a_->view(), "G3")->in_target());  // the Americans hold C1
}

// Refusals name the rule; nothing is applied.
TEST_F(VvMatchTest, IllegalCommandsAreRefusedNamingTheRule) {
  Seat();
  EnterAndConfirm();
  const uint64_t seq = a_->last_seq();
  v1::ClientMessage announce;
  announce.mutable_announce();
  EXPECT_TRUE(a_->Act(announce).has_error());
  // 15.3: a leader outside the group; 15.2 via a weapon the unit lacks (12.3).
  v1::ServerMessage refused = a_->Act(SealDeclare({"G1", "G2"}, "Schmidt"));
  ASSERT_TRUE(refused.has_error());
  EXPECT_EQ(refused.error().rule_ref(), "15.3");
  refused = a_->Act(SealDeclare({"G1"}, "", {VvUse("G1", "MG42", false)}));
  EXPECT_EQ(refused.error().rule_ref(), "12.3");
  refused = b_->Act(SealDeclare({"US-SQ"}, ""));
  EXPECT_EQ(refused.error().rule_ref(), "15.1");  // the defender names no group
  refused = b_->Act(SealAllocation({{"US-SQ", vvpb::CP_ACTION_KIND_PIN}}));
  EXPECT_EQ(refused.error().rule_ref(), "14.61");  // no Casualty Points are owed yet
  EXPECT_EQ(a_->last_seq(), seq);

  // A set-up part with a unit of the other side is refused too.
  v1::ClientMessage foreign = GermanPart();
  *foreign.mutable_submit_setup()->mutable_vv()->add_units() =
      VvSquad("X", v1::SEAT_SIDE_B, 4, 5, 2, 2);
  refused = a_->Act(foreign);
  ASSERT_TRUE(refused.has_error());
}

// pc edition: the server picks the best leaders and applies both sides' Casualty Points itself.
TEST_F(VvMatchTest, ThePcEditionResolvesWithoutAllocations) {
  Seat("pc");
  EnterAndConfirm();
  ASSERT_TRUE(b_->Act(SealDeclare({}, "", {VvUse("US-HS", "LMG", false)})).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  faces_.Push({3, 4});
  ASSERT_TRUE(a_->Act(SealDeclare({"G1", "G2", "G3", "Schmidt"}, "", {VvUse("G1", "", true)}))
                  .has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  EXPECT_EQ(b_->view().stage(), v1::STAGE_ENDED);
  EXPECT_EQ(b_->view().vv().report().kill_number(), 5);
  EXPECT_EQ(b_->view().vv().report().final_dr(), 5);
}

// A seat that lets its allocation deadline pass gets the engine's allocation, marked by_default.
TEST_F(VvMatchTest, AnAllocationDeadlineTakesTheEnginesAllocation) {
  Seat("board", 120);
  EnterAndConfirm();
  SealBoth();
  ASSERT_EQ(a_->view().vv().phase(), vvpb::PHASE_ALLOCATE);
  EXPECT_EQ(a_->view().deadline_unix_ms(), clock_->NowUnixMs() + 120'000);
  const uint64_t before = a_->last_seq();
  clock_->Advance(std::chrono::milliseconds(121'000));
  server_.server().matches().CheckDeadlines();
  ASSERT_TRUE(a_->WaitForSeq(before + 1));
  ASSERT_TRUE(a_->WaitForSeq(a_->view().seq()));
  EXPECT_EQ(a_->view().stage(), v1::STAGE_ENDED);
  bool by_default = false;
  for (const v1::MatchEvent& event : a_->events()) by_default = by_default || event.by_default();
  EXPECT_TRUE(by_default);
}

// The server stops in the middle of an assault (one side sealed); on restart the match is
// recovered from its log and the assault finishes with nothing lost or doubled.
TEST(VvRestartTest, AnAssaultSurvivesARestart) {
  testing::TempDir dir;
  ScriptedFaces faces;
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  v1::MatchCreated created;
  uint64_t seq = 0;
  {
    testing::TestServer server({}, hooks, dir.path() / "data");
    auto a = MatchClient::Connect(server.ws_url());
    auto b = MatchClient::Connect(server.ws_url());
    v1::MatchSettings settings;
    settings.set_ruleset("vv");
    created = a->Create(settings);
    ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
    ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
    ASSERT_TRUE(a->Act(GermanPart()).has_ack());
    ASSERT_TRUE(b->Act(AmericanPart()).has_ack());
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    ASSERT_TRUE(a->Act(Confirm()).has_ack());
    ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
    ASSERT_TRUE(b->Act(Confirm()).has_ack());
    ASSERT_TRUE(b->Act(SealDeclare({}, "Coleman", {VvUse("US-HS", "LMG", false)})).has_ack());
    seq = b->last_seq();
  }
  testing::TestServer server({}, hooks, dir.path() / "data");
  auto a = MatchClient::Connect(server.ws_url());
  auto b = MatchClient::Connect(server.ws_url());
  ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
  ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token(), seq).has_joined());
  EXPECT_EQ(a->last_seq(), seq);
  EXPECT_TRUE(b->view().vv().has_side_b_declaration()) << "B's sealed declaration survived";
  faces.Push({3, 4});
  ASSERT_TRUE(a->Act(SealDeclare({"G1", "G2", "G3", "Schmidt"}, "Schmidt",
                                 {VvUse("G1", "", true)}))
                  .has_ack());
  ASSERT_TRUE(a->Act(SealAllocation({{"G1", vvpb::CP_ACTION_KIND_ELIMINATE},
                                     {"G2", vvpb::CP_ACTION_KIND_PIN}}))
                  .has_ack());
  ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
  EXPECT_EQ(b->view().stage(), v1::STAGE_ENDED);
}

// With the server's committed dice (no scripted faces), a played close assault exports to a match
// file that verifies: every die derived again from its seed, the engine replay of every vv
// command, the head signatures (docs/fair-play.md).
TEST(VvFairPlayTest, APlayedAssaultExportsToAFileThatVerifies) {
  auto clock = std::make_shared<server::ManualClock>();
  server::ServerHooks hooks;
  hooks.clock = clock;
  testing::TestServer server({}, hooks);
  auto a = MatchClient::Connect(server.ws_url());
  auto b = MatchClient::Connect(server.ws_url());
  v1::MatchSettings settings;
  settings.set_ruleset("vv");
  settings.set_declaration_deadline_seconds(60);
  const v1::MatchCreated created = a->Create(settings);
  ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
  ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
  ASSERT_TRUE(a->Act(GermanPart()).has_ack());
  ASSERT_TRUE(b->Act(AmericanPart()).has_ack());
  ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
  ASSERT_TRUE(a->Act(Confirm()).has_ack());
  ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
  ASSERT_TRUE(b->Act(Confirm()).has_ack());
  ASSERT_TRUE(b->Act(SealDeclare({}, "Coleman", {VvUse("US-HS", "LMG", false)})).has_ack());
  ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
  ASSERT_TRUE(a->Act(SealDeclare({"G1", "G2", "G3", "Schmidt"}, "Schmidt",
                                 {VvUse("G1", "", true)}))
                  .has_ack());
  if (a->view().stage() != v1::STAGE_ENDED) {
    // Whatever the dice gave, the allocations owed are taken by default at the deadline.
    const uint64_t before = a->last_seq();
    clock->Advance(std::chrono::milliseconds(61'000));
    server.server().matches().CheckDeadlines();
    ASSERT_TRUE(a->WaitForSeq(before + 1));
    // Each seat's default is its own command: wait for the last of them.
    for (int i = 0; i < 20 && a->view().stage() != v1::STAGE_ENDED; ++i) {
      ASSERT_TRUE(a->WaitForSeq(a->last_seq() + 1));
    }
  }
  ASSERT_EQ(a->view().stage(), v1::STAGE_ENDED);
  const auto file = testing::ExportOver(server.port(), created.match_id(),
                                        created.director_token());
  const server::VerifyReport report = server::VerifyMatchFile(file, server::BuiltinHosts());
  EXPECT_TRUE(report.ok) << report.Describe();
  EXPECT_TRUE(report.replayed);
  EXPECT_GE(report.dice, 2u);
  // The director's audit reads the vv log: the timeline says what each event was.
  auto audit = server::AuditMatch(file, server::BuiltinHosts());
  ASSERT_TRUE(audit.has_value()) << engine::Describe(audit.error());
  std::ostringstream text;
  server::WriteAuditText(*audit, text);
  EXPECT_NE(text.str().find("15.1 side_a close assaults C1 from B1"), std::string::npos)
      << text.str();
  EXPECT_EQ(text.str().find("cannot read"), std::string::npos) << text.str();
}

}  // namespace
}  // namespace melee::vv_match
