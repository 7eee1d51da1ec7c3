// Chain of Command close combats (rule 17) played over real WebSockets against a real server on
// loopback with its SQLite file: set-up, both declarations sealed and revealed together, the
// server's dice, odd-hit placements sealed and revealed together, deadlines, refusals naming the
// rule, secrecy, a restart in the middle of a combat, and a director's export that verifies.

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "proto/codec/frame.h"
#include "server/clock.h"
#include "server/fair_play/audit.h"
#include "server/fair_play/verify.h"
#include "server/matches.h"
#include "server/transport/server.h"
#include "tests/testing/coc_commands.h"
#include "tests/testing/fair_play_match.h"
#include "tests/testing/match_client.h"
#include "tests/testing/match_frames.h"
#include "tests/testing/scripted_faces.h"
#include "tests/testing/seal_guesser.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"

namespace melee::coc_match {
namespace {

namespace v1 = melee::v1;
namespace cocpb = melee::coc::v1;
using testing::AllBytes;
using testing::Confirm;
using testing::MatchClient;
using testing::ScriptedFaces;
using testing::coc::GermanPart;
using testing::coc::SealCocDeclare;
using testing::coc::SealPlace;
using testing::coc::SovietPart;

const cocpb::ViewedUnit* Unit(const v1::MatchView& view, const std::string& id) {
  for (const cocpb::ViewedUnit& unit : view.coc().units()) {
    if (unit.unit().id() == id) return &unit;
  }
  return nullptr;
}

std::vector<int> Repeat(int face, int count) { return std::vector<int>(static_cast<size_t>(count), face); }

std::vector<int> Concat(std::initializer_list<std::vector<int>> parts) {
  std::vector<int> all;
  for (const std::vector<int>& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

class CocMatchTest : public ::testing::Test {
 protected:
  CocMatchTest() : server_({}, Hooks(), dir_.path() / "data") {}

  server::ServerHooks Hooks() {
    server::ServerHooks hooks;
    hooks.clock = clock_;
    hooks.dice = faces_.Source();
    return hooks;
  }

  void Seat(uint32_t declaration_deadline_seconds = 0,
            proto::FrameKind kind = proto::FrameKind::kBinary) {
    a_ = MatchClient::Connect(server_.ws_url(), kind);
    b_ = MatchClient::Connect(server_.ws_url(), kind);
    spectator_ = MatchClient::Connect(server_.ws_url(), kind);
    ASSERT_TRUE(a_ && b_ && spectator_);
    v1::MatchSettings settings;
    settings.set_ruleset("coc");
    settings.set_declaration_deadline_seconds(declaration_deadline_seconds);
    created_ = a_->Create(settings);
    ASSERT_FALSE(created_.match_id().empty());
    ASSERT_TRUE(a_->Join(created_.match_id(), created_.side_a_token()).has_joined());
    ASSERT_TRUE(b_->Join(created_.match_id(), created_.side_b_token()).has_joined());
    ASSERT_TRUE(spectator_->Join(created_.match_id(), created_.spectator_key(), 0, true)
                    .has_joined());
  }

  // Both sides enter rule 17's "In action" and confirm: the Close Combat is set up.
  void EnterAndConfirm(bool two_teams = false) {
    ASSERT_TRUE(a_->Act(SovietPart(two_teams)).has_ack());
    const v1::ServerMessage entered = b_->Act(GermanPart());
    ASSERT_TRUE(entered.has_ack()) << entered.DebugString();
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    ASSERT_TRUE(a_->Act(Confirm()).has_ack());
    ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
    ASSERT_TRUE(b_->Act(Confirm()).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    ASSERT_EQ(a_->view().stage(), v1::STAGE_PLAYING);
    ASSERT_EQ(a_->view().coc().phase(), cocpb::PHASE_DECLARE);
  }

  // Both seal (the Germans first); the Soviets roll 3 Kills and a Shock, the Germans nothing.
  void SealBoth() {
    ASSERT_TRUE(b_->Act(SealCocDeclare()).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    faces_.Push(Concat({{6, 6, 6, 5, 1, 1, 1, 1}, Repeat(1, 13)}));
    const v1::ServerMessage ack = a_->Act(SealCocDeclare(/*advance=*/true));
    ASSERT_TRUE(ack.has_ack()) << ack.DebugString();
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

// CoC-T1 over the wire: 8 Soviet Combat Dice against 13 German (17.3), the server's dice, the
// Germans place their odd Kill and Shock, Defeated by Four with an active Leader: they Break.
TEST_F(CocMatchTest, PlaysTheInActionExampleEndToEnd) {
  Seat();
  EnterAndConfirm();
  SealBoth();
  const v1::MatchView& rolled = b_->view();
  ASSERT_EQ(rolled.coc().phase(), cocpb::PHASE_PLACE) << rolled.DebugString();
  EXPECT_EQ(rolled.coc().report().side_a().pool().dice(), 8);
  EXPECT_EQ(rolled.coc().report().side_b().pool().dice(), 13);
  EXPECT_EQ(rolled.coc().report().side_b().odd_kills(), 1);
  EXPECT_EQ(rolled.coc().report().side_b().odd_shock(), 1);
  ASSERT_EQ(rolled.waiting_for_size(), 1);
  // The prompt says what the seat owes.
  EXPECT_EQ(rolled.waiting_for(0),
            "side_b: seal the placement of odd hits (17.4.1) — 1 odd Kill and 1 odd Shock on its "
            "own fighting Teams, no Team twice in a list");

  // Both odd hits on one Team is fine (one Kill, one Shock); two odd Kills are not owed.
  const v1::ServerMessage refused = b_->Act(SealPlace({"german_lmg", "german_rifles"}, {"german_lmg"}));
  ASSERT_TRUE(refused.has_error());
  EXPECT_EQ(refused.error().rule_ref(), "17.4.1");

  faces_.Push({2, 4});  // the Leader's Team lost a figure: no hit on him; Force Morale 4
  ASSERT_TRUE(b_->Act(SealPlace({"german_rifles"}, {"german_lmg"})).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  ASSERT_TRUE(spectator_->WaitForSeq(b_->last_seq()));
  for (MatchClient* client : {a_.get(), b_.get(), spectator_.get()}) {
    const v1::MatchView& view = client->view();
    EXPECT_EQ(view.stage(), v1::STAGE_ENDED);
    EXPECT_EQ(view.coc().phase(), cocpb::PHASE_ENDED);
    ASSERT_EQ(view.coc().outcomes_size(), 1);
    EXPECT_EQ(view.coc().outcomes(0).kind(), cocpb::OUTCOME_KIND_BROKEN);
    EXPECT_EQ(view.coc().outcomes(0).winner(), v1::SEAT_SIDE_A);
    const cocpb::ViewedUnit* germans = Unit(view, "german_squad");
    ASSERT_NE(germans, nullptr);
    EXPECT_TRUE(germans->broken());
    EXPECT_EQ(germans->unit().teams(0).figures(), 2);
    EXPECT_EQ(germans->unit().teams(0).shock(), 4);
    EXPECT_EQ(germans->unit().teams(1).figures(), 3);
    EXPECT_EQ(germans->unit().teams(1).shock(), 3);
    bool placement_revealed = false;
    int dice = 0;
    for (const v1::MatchEvent& event : client->events()) {
      if (event.has_declarations_revealed() &&
          event.declarations_revealed().side_b().coc().has_place()) {
        placement_revealed = true;
        EXPECT_EQ(event.declarations_revealed().side_b().coc().place().odd_kills(0),
                  "german_rifles");
      }
      dice += event.coc().dice_size();
    }
    EXPECT_TRUE(placement_revealed);
    EXPECT_EQ(dice, 8 + 13 + 2);
    const std::vector<v1::MatchEvent> events = client->events();
    ASSERT_GE(events.size(), 2u);
    EXPECT_TRUE(events[events.size() - 2].has_match_ended());
    EXPECT_TRUE(events.back().has_head_signed());
  }
}

// Until both have sealed, nothing of a declaration or a placement reaches the other side or a
// spectator.
TEST_F(CocMatchTest, DeclarationsAndPlacementsStaySecretUntilBothAreSealed) {
  Seat(0, proto::FrameKind::kText);
  EnterAndConfirm(/*two_teams=*/true);
  const v1::ClientMessage declare = SealCocDeclare(/*advance=*/true);
  ASSERT_TRUE(a_->Act(declare).has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  ASSERT_TRUE(spectator_->WaitForSeq(a_->last_seq()));
  // The dictionary attack: every declaration A could have sealed.
  std::vector<v1::Declaration> declarations;
  for (const bool advance : {false, true}) {
    for (const bool decline : {false, true}) {
      for (const std::vector<std::string>& support :
           {std::vector<std::string>{}, std::vector<std::string>{"soviet_jl"}}) {
        declarations.push_back(
            SealCocDeclare(advance, decline, support).seal_declaration().declaration());
      }
    }
  }
  for (MatchClient* other : {b_.get(), spectator_.get()}) {
    EXPECT_TRUE(testing::NoCandidateConfirmed(*other, declarations,
                                              declare.seal_declaration().declaration()));
    EXPECT_EQ(AllBytes(*other).find("\"advance\":true"), std::string::npos);
    EXPECT_FALSE(other->view().coc().has_side_a_declaration());
    EXPECT_TRUE(other->view().coc().side_a_sealed());
  }
  // One Kill each way: each side owes its odd Kill (two Teams each).
  faces_.Push(Concat({{6}, Repeat(1, 7), {6}, Repeat(1, 12)}));
  ASSERT_TRUE(b_->Act(SealCocDeclare()).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  ASSERT_EQ(a_->view().coc().phase(), cocpb::PHASE_PLACE);
  ASSERT_EQ(a_->view().waiting_for_size(), 2);

  const v1::ClientMessage place = SealPlace({"german_rifles"}, {});
  ASSERT_TRUE(b_->Act(place).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  ASSERT_TRUE(spectator_->WaitForSeq(b_->last_seq()));
  // The dictionary attack: every placement of odd Kills and Shock on B's Teams.
  std::vector<v1::Declaration> placements;
  const std::vector<std::string> teams = {"german_lmg", "german_rifles"};
  for (unsigned kills = 0; kills < 4; ++kills) {
    for (unsigned shock = 0; shock < 4; ++shock) {
      std::vector<std::string> k;
      std::vector<std::string> sh;
      for (size_t t = 0; t < teams.size(); ++t) {
        if (kills & (1u << t)) k.push_back(teams[t]);
        if (shock & (1u << t)) sh.push_back(teams[t]);
      }
      placements.push_back(SealPlace(k, sh).seal_declaration().declaration());
    }
  }
  for (MatchClient* other : {a_.get(), spectator_.get()}) {
    EXPECT_TRUE(testing::NoCandidateConfirmed(*other, placements,
                                              place.seal_declaration().declaration()));
    EXPECT_EQ(AllBytes(*other).find("\"odd_kills\":[\"german_rifles\"]"), std::string::npos);
    EXPECT_FALSE(other->view().coc().has_side_b_placement());
  }
  EXPECT_TRUE(b_->view().coc().has_side_b_placement());
  // A round-1 draw: round 2 (no cover, arcs or movement now) is drawn too, and both retire.
  faces_.Push(Repeat(1, 60));
  ASSERT_TRUE(a_->Act(SealPlace({"soviet_b"}, {})).has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  EXPECT_NE(AllBytes(*b_).find("\"odd_kills\":[\"soviet_b\"]"), std::string::npos);
  EXPECT_EQ(b_->view().stage(), v1::STAGE_ENDED);
  ASSERT_EQ(b_->view().coc().outcomes_size(), 2);
  EXPECT_EQ(b_->view().coc().outcomes(1).kind(), cocpb::OUTCOME_KIND_RETIRE);
}

// Refusals name the rule; nothing is applied.
TEST_F(CocMatchTest, IllegalCommandsAreRefusedNamingTheRule) {
  Seat();
  // Set-up parts must agree on the shared facts and hold only the seat's own units.
  ASSERT_TRUE(a_->Act(SovietPart()).has_ack());
  v1::ClientMessage other_floor = GermanPart();
  other_floor.mutable_submit_setup()->mutable_coc()->set_position(
      cocpb::POSITION_BUILDING_OTHER_FLOOR);
  v1::ServerMessage refused = b_->Act(other_floor);
  ASSERT_TRUE(refused.has_error());
  EXPECT_NE(refused.error().message().find("submit_setup.coc.position"), std::string::npos)
      << refused.error().message();
  v1::ClientMessage foreign = GermanPart();
  foreign.mutable_submit_setup()->mutable_coc()->mutable_units(0)->set_side(v1::SEAT_SIDE_A);
  refused = b_->Act(foreign);
  ASSERT_TRUE(refused.has_error());
  EXPECT_NE(refused.error().message().find(".side: side_b enters only its own units"),
            std::string::npos);
  ASSERT_TRUE(b_->Act(GermanPart()).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  ASSERT_TRUE(a_->Act(Confirm()).has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  ASSERT_TRUE(b_->Act(Confirm()).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));

  const uint64_t seq = a_->last_seq();
  refused = a_->Act(SealCocDeclare(false, /*decline=*/true));
  ASSERT_TRUE(refused.has_error());
  EXPECT_EQ(refused.error().rule_ref(), "17.1");  // nothing but the farmhouse wall: automatic
  refused = b_->Act(SealCocDeclare(false, false, {"nobody"}));
  EXPECT_EQ(refused.error().rule_ref(), "17.2");
  refused = b_->Act(SealPlace({"german_lmg"}, {}));
  EXPECT_EQ(refused.error().rule_ref(), "17.4.1");  // no odd hits yet
  v1::ClientMessage choice;
  choice.mutable_make_choice();
  refused = a_->Act(choice);
  ASSERT_TRUE(refused.has_error());
  EXPECT_EQ(refused.error().rule_ref(), "17.4.1");
  v1::ClientMessage announce;
  announce.mutable_announce();
  EXPECT_TRUE(a_->Act(announce).has_error());
  EXPECT_EQ(a_->last_seq(), seq);
}

// A seat that lets its placement deadline pass gets the default placement, marked by_default.
TEST_F(CocMatchTest, APlacementDeadlineTakesTheDefaultPlacement) {
  Seat(120);
  EnterAndConfirm();
  SealBoth();
  ASSERT_EQ(b_->view().coc().phase(), cocpb::PHASE_PLACE);
  EXPECT_EQ(b_->view().deadline_unix_ms(), clock_->NowUnixMs() + 120'000);
  faces_.Push({2, 4});
  const uint64_t before = a_->last_seq();
  clock_->Advance(std::chrono::milliseconds(121'000));
  server_.server().matches().CheckDeadlines();
  ASSERT_TRUE(a_->WaitForSeq(before + 1));
  for (int i = 0; i < 20 && a_->view().stage() != v1::STAGE_ENDED; ++i) {
    ASSERT_TRUE(a_->WaitForSeq(a_->last_seq() + 1));
  }
  EXPECT_EQ(a_->view().stage(), v1::STAGE_ENDED);
  bool by_default = false;
  for (const v1::MatchEvent& event : a_->events()) by_default = by_default || event.by_default();
  EXPECT_TRUE(by_default);
  // The default places the odd Kill on the first Team, german_lmg.
  EXPECT_EQ(Unit(a_->view(), "german_squad")->unit().teams(0).figures(), 1);
}

// The server stops in the middle of a combat (one side sealed); on restart the match is recovered
// from its log and the combat finishes with nothing lost or doubled.
TEST(CocRestartTest, ACloseCombatSurvivesARestart) {
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
    settings.set_ruleset("coc");
    created = a->Create(settings);
    ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
    ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
    ASSERT_TRUE(a->Act(SovietPart()).has_ack());
    ASSERT_TRUE(b->Act(GermanPart()).has_ack());
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    ASSERT_TRUE(a->Act(Confirm()).has_ack());
    ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
    ASSERT_TRUE(b->Act(Confirm()).has_ack());
    ASSERT_TRUE(b->Act(SealCocDeclare()).has_ack());
    seq = b->last_seq();
  }
  testing::TestServer server({}, hooks, dir.path() / "data");
  auto a = MatchClient::Connect(server.ws_url());
  auto b = MatchClient::Connect(server.ws_url());
  ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
  ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token(), seq).has_joined());
  EXPECT_EQ(a->last_seq(), seq);
  EXPECT_TRUE(b->view().coc().has_side_b_declaration()) << "B's sealed declaration survived";
  faces.Push(Concat({{6, 6, 6, 5, 1, 1, 1, 1}, Repeat(1, 13), {2, 4}}));
  ASSERT_TRUE(a->Act(SealCocDeclare(true)).has_ack());
  ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
  ASSERT_TRUE(b->Act(SealPlace({"german_rifles"}, {"german_lmg"})).has_ack());
  ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
  EXPECT_EQ(a->view().stage(), v1::STAGE_ENDED);
  EXPECT_EQ(a->view().coc().outcomes(0).kind(), cocpb::OUTCOME_KIND_BROKEN);
}

// With the server's committed dice, a played Close Combat exports to a match file that verifies
// (every die derived again from its seed, the engine replay of every coc command, the head
// signatures) and that the director's audit reads.
TEST(CocFairPlayTest, APlayedCloseCombatExportsToAFileThatVerifies) {
  auto clock = std::make_shared<server::ManualClock>();
  server::ServerHooks hooks;
  hooks.clock = clock;
  testing::TestServer server({}, hooks);
  auto a = MatchClient::Connect(server.ws_url());
  auto b = MatchClient::Connect(server.ws_url());
  v1::MatchSettings settings;
  settings.set_ruleset("coc");
  settings.set_declaration_deadline_seconds(60);
  const v1::MatchCreated created = a->Create(settings);
  ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
  ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
  ASSERT_TRUE(a->Act(SovietPart(/*two_teams=*/true)).has_ack());
  ASSERT_TRUE(b->Act(GermanPart()).has_ack());
  ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
  ASSERT_TRUE(a->Act(Confirm()).has_ack());
  ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
  ASSERT_TRUE(b->Act(Confirm()).has_ack());
  ASSERT_TRUE(b->Act(SealCocDeclare()).has_ack());
  ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
  ASSERT_TRUE(a->Act(SealCocDeclare(true)).has_ack());
  // Whatever the dice give, each placement owed is taken by default at its deadline.
  for (int step = 0; step < 10 && a->view().stage() != v1::STAGE_ENDED; ++step) {
    const uint64_t before = a->last_seq();
    clock->Advance(std::chrono::milliseconds(61'000));
    server.server().matches().CheckDeadlines();
    ASSERT_TRUE(a->WaitForSeq(before + 1));
    for (int i = 0; i < 20 && !a->view().coc().side_a_owes() && !a->view().coc().side_b_owes() &&
                    a->view().stage() != v1::STAGE_ENDED;
         ++i) {
      ASSERT_TRUE(a->WaitForSeq(a->last_seq() + 1));
    }
  }
  ASSERT_EQ(a->view().stage(), v1::STAGE_ENDED);
  const auto file = testing::ExportOver(server.port(), created.match_id(),
                                        created.director_token());
  const server::VerifyReport report = server::VerifyMatchFile(file, server::BuiltinHosts());
  EXPECT_TRUE(report.ok) << report.Describe();
  EXPECT_TRUE(report.replayed);
  EXPECT_GE(report.dice, 8u);
  auto audit = server::AuditMatch(file, server::BuiltinHosts());
  ASSERT_TRUE(audit.has_value()) << engine::Describe(audit.error());
  std::ostringstream text;
  server::WriteAuditText(*audit, text);
  EXPECT_NE(text.str().find("close_combat set up: side_a attacks with soviet_smg"),
            std::string::npos)
      << text.str();
  EXPECT_EQ(text.str().find("cannot read"), std::string::npos) << text.str();
}

}  // namespace
}  // namespace melee::coc_match
