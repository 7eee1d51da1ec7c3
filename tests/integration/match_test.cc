// Matches played over real WebSockets against a real server on loopback with its SQLite file:
// set-up, announcements, sealed declarations in both orders, resolution with the server's dice,
// choices and their deadlines, per-seat views (nothing secret leaks), retries, resume, restart,
// and every bad input with its documented error.

#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "proto/codec/frame.h"
#include "server/clock.h"
#include "server/matches.h"
#include "server/metrics.h"
#include "server/transport/server.h"
#include "tests/testing/asl_commands.h"
#include "tests/testing/http_get.h"
#include "tests/testing/match_client.h"
#include "tests/testing/match_frames.h"
#include "tests/testing/scripted_faces.h"
#include "tests/testing/seal_guesser.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;
using testing::AllBytes;
using testing::MatchClient;
using testing::AnnounceNothing;
using testing::Confirm;
using testing::EnterUnits;
using testing::ScriptedFaces;
using testing::Seal;
using testing::Squad;

std::string Sha256(const std::string& bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
}

// Creates an asl match on `server` and seats a (side A) and b (side B).
void SeatTwoPlayers(testing::TestServer& server, std::unique_ptr<MatchClient>& a,
                    std::unique_ptr<MatchClient>& b, v1::MatchCreated& created) {
  a = MatchClient::Connect(server.ws_url());
  b = MatchClient::Connect(server.ws_url());
  ASSERT_TRUE(a && b);
  v1::MatchSettings settings;
  settings.set_ruleset("asl");
  created = a->Create(settings);
  ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
  ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
}

v1::ClientMessage OrderLocations(std::vector<std::string> locations) {
  v1::ClientMessage message;
  for (std::string& name : locations) message.mutable_order_locations()->add_locations(name);
  return message;
}

// A's part of a set-up in `location` (G-<location>), with A as the ATTACKER.
v1::ClientMessage EnterUnitsAt(const std::string& location) {
  v1::ClientMessage message =
      EnterUnits({Squad("G-" + location, v1::SEAT_SIDE_A, 6, "6-4-7")}, true);
  message.mutable_submit_setup()->mutable_asl()->mutable_location()->set_name(location);
  return message;
}

// Plays one close combat in `location` to its end: G-<location> (A, the ATTACKER) against
// R-<location> (B), which A eliminates (no Melee follows).
void PlayCombat(MatchClient& a, MatchClient& b, ScriptedFaces& faces,
                const std::string& location) {
  const std::string g = "G-" + location;
  const std::string r = "R-" + location;
  ASSERT_TRUE(a.Act(EnterUnitsAt(location)).has_ack());
  ASSERT_TRUE(b.Act(EnterUnits({Squad(r, v1::SEAT_SIDE_B, 4, "4-4-7")}, false)).has_ack());
  for (MatchClient* client : {&a, &b}) {
    ASSERT_TRUE(client->WaitForSeq(std::max(a.last_seq(), b.last_seq())));
    ASSERT_TRUE(client->Act(Confirm()).has_ack());
  }
  for (MatchClient* client : {&a, &b}) {
    ASSERT_TRUE(client->WaitForSeq(std::max(a.last_seq(), b.last_seq())));
    ASSERT_TRUE(client->Act(AnnounceNothing()).has_ack());
  }
  ASSERT_TRUE(b.WaitForSeq(a.last_seq()));
  ASSERT_TRUE(b.Act(Seal({{{r}, {g}}})).has_ack());
  faces.Push({1, 2, 5, 6});  // A's DR 3 eliminates; B's DR 11 does nothing
  ASSERT_TRUE(a.WaitForSeq(b.last_seq()));
  ASSERT_TRUE(a.Act(Seal({{{g}, {r}}})).has_ack());
  ASSERT_TRUE(b.WaitForSeq(a.last_seq()));
  ASSERT_EQ(b.view().stage(), v1::STAGE_ENDED);
  ASSERT_EQ(b.view().asl().location().name(), location);
}

std::vector<std::string> Names(const google::protobuf::RepeatedPtrField<std::string>& names) {
  return {names.begin(), names.end()};
}

class MatchTest : public ::testing::Test {
 protected:
  // Keeps only 3 recent events by default, so that joins and resumes from further back are
  // served by replaying the log (the path a long match takes).
  explicit MatchTest(size_t recent_events = 3) : server_({}, Hooks(recent_events)) {}

  server::ServerHooks Hooks(size_t recent_events) {
    server::ServerHooks hooks;
    hooks.clock = clock_;
    hooks.dice = faces_.Source();
    hooks.recent_events = recent_events;
    return hooks;
  }

  // Creates a match and seats two players; side A is the ATTACKER.
  void Seat(v1::DeclarationOrder order = v1::DECLARATION_ORDER_SEALED,
            proto::FrameKind kind = proto::FrameKind::kBinary,
            uint32_t declaration_deadline_seconds = 0) {
    a_ = MatchClient::Connect(server_.ws_url(), kind);
    b_ = MatchClient::Connect(server_.ws_url(), kind);
    ASSERT_TRUE(a_ && b_);
    v1::MatchSettings settings;
    settings.set_ruleset("asl");
    settings.set_declaration_order(order);
    settings.set_choice_deadline_seconds(60);
    settings.set_declaration_deadline_seconds(declaration_deadline_seconds);
    created_ = a_->Create(settings);
    ASSERT_FALSE(created_.match_id().empty());
    ASSERT_TRUE(a_->Join(created_.match_id(), created_.side_a_token()).has_joined());
    ASSERT_TRUE(b_->Join(created_.match_id(), created_.side_b_token()).has_joined());
    EXPECT_EQ(a_->view().stage(), v1::STAGE_SETUP);
  }

  // Both sides enter their units and confirm: the close combat starts (A owes its announcement).
  void EnterAndConfirm() {
    ASSERT_TRUE(a_->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 6, "6-4-7")}, true)).has_ack());
    ASSERT_TRUE(b_->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7")}, false)).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    ASSERT_TRUE(a_->Act(Confirm()).has_ack());
    ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
    ASSERT_TRUE(b_->Act(Confirm()).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  }

  // Runs the server's deadline sweep at the clock's time, then a round trip through the server
  // for each client, so that whatever the sweep caused has arrived.
  void SweepDeadlines() {
    server_.server().matches().CheckDeadlines();
    v1::ClientMessage ping;
    ping.mutable_ping()->set_nonce(1);
    for (MatchClient* client : {a_.get(), b_.get()}) client->Call(ping);
  }

  // Both sides enter their units, confirm, and announce: the Location is at designation.
  // Side A: G1 (6 FP). Side B: R1 (4 FP) and R2, a concealed 4-4-7 only B may know.
  void SetUpAndAnnounce() {
    ASSERT_TRUE(a_->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 6, "6-4-7")}, true)).has_ack());
    aslpb::Unit hidden = Squad("R2", v1::SEAT_SIDE_B, 4, "SECRET-447");
    hidden.set_concealed(true);
    ASSERT_TRUE(
        b_->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7"), hidden}, false)).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    ASSERT_TRUE(a_->Act(Confirm()).has_ack());
    ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
    ASSERT_TRUE(b_->Act(Confirm()).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    EXPECT_EQ(a_->view().stage(), v1::STAGE_PLAYING);
    ASSERT_TRUE(a_->Act(AnnounceNothing()).has_ack());
    ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
    ASSERT_TRUE(b_->Act(AnnounceNothing()).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    ASSERT_EQ(a_->view().asl().phase(), aslpb::PHASE_DECLARE);
  }

  std::shared_ptr<server::ManualClock> clock_ = std::make_shared<server::ManualClock>();
  ScriptedFaces faces_;
  testing::TestServer server_;
  std::unique_ptr<MatchClient> a_;
  std::unique_ptr<MatchClient> b_;
  v1::MatchCreated created_;
};

// design.md "The way one declaration travels": a whole A11 close combat, sealed (the default).
TEST_F(MatchTest, PlaysACompleteSealedCloseCombatOverBinaryFrames) {
  Seat();
  SetUpAndAnnounce();
  const v1::ClientMessage b_seal = Seal({{{"R1"}, {"G1"}}});
  const v1::ServerMessage b_ack = b_->Act(b_seal);
  ASSERT_TRUE(b_ack.has_ack()) << b_ack.DebugString();
  // Seal scheme 2: the receipt commits to the sealed bytes with a secret 32-byte nonce.
  const std::string sealed =
      proto::SerializeDeterministic(b_seal.seal_declaration().declaration());
  EXPECT_EQ(b_ack.ack().sealed(), sealed);
  ASSERT_EQ(b_ack.ack().seal_nonce().size(), 32u);
  EXPECT_EQ(b_ack.ack().receipt(), Sha256("melee/v2/seal|" + b_ack.ack().seal_nonce() + sealed))
      << "the receipt is SHA-256(\"melee/v2/seal|\" || nonce || sealed bytes)";
  EXPECT_NE(b_ack.ack().receipt(), Sha256(sealed)) << "not the guessable unsalted hash";
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  ASSERT_TRUE(a_->events().back().has_declaration_sealed());
  EXPECT_EQ(a_->events().back().declaration_sealed().receipt(), b_ack.ack().receipt());
  EXPECT_FALSE(a_->events().back().declaration_sealed().has_opening())
      << "the opponent cannot open the commitment before the reveal";
  ASSERT_TRUE(b_->WaitForSeq(b_ack.ack().seq()));
  EXPECT_EQ(b_->events().back().declaration_sealed().opening().nonce(), b_ack.ack().seal_nonce())
      << "the sealer's own event carries its opening";

  faces_.Push({3, 4, 4, 3});  // A's CC DR 3+4 = 7, then B's 4+3 = 7: no 2/12, no choice
  ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  for (MatchClient* client : {a_.get(), b_.get()}) {
    // Both squads survive: they are locked in Melee (A11.15), which the server carries on into
    // the next CCPh by itself, with B (the next Player Turn's ATTACKER) attacking.
    ASSERT_TRUE(client->WaitForView([](const v1::MatchView& view) { return view.ccph() == 2; }));
    EXPECT_EQ(client->view().stage(), v1::STAGE_PLAYING);
    EXPECT_EQ(client->view().asl().phase(), aslpb::PHASE_ANNOUNCE);
    EXPECT_TRUE(client->view().asl().melee());
    EXPECT_EQ(client->view().asl().attacker(), v1::SEAT_SIDE_B);
    int resolved = 0;
    bool revealed = false;
    for (const v1::MatchEvent& event : client->events()) {
      if (event.asl().kind() == aslpb::EVENT_KIND_ATTACK_RESOLVED) ++resolved;
      if (event.has_declarations_revealed()) {
        revealed = true;
        EXPECT_EQ(event.declarations_revealed().side_a().asl().attacks(0).targets(0), "R1");
        EXPECT_EQ(event.declarations_revealed().side_b().asl().attacks(0).targets(0), "G1");
        // The reveal opens both commitments for every viewer.
        ASSERT_EQ(event.declarations_revealed().openings_size(), 2);
        for (const v1::SealOpening& opening : event.declarations_revealed().openings()) {
          EXPECT_EQ(opening.receipt(),
                    Sha256("melee/v2/seal|" + opening.nonce() + opening.sealed()));
          if (opening.seat() == v1::SEAT_SIDE_B) {
            EXPECT_EQ(opening.receipt(), b_ack.ack().receipt());
            EXPECT_EQ(opening.sealed(), sealed);
          }
        }
      }
    }
    EXPECT_EQ(resolved, 2) << "A11.12: the ATTACKER's attack, then the DEFENDER's";
    EXPECT_TRUE(revealed);
    // The close combat ends, and the server signs the head of the log (docs/fair-play.md);
    // then the next CCPh's close combat is set up from the carried units.
    const std::vector<v1::MatchEvent> events = client->events();
    size_t ended = 0;
    for (size_t i = 0; i < events.size(); ++i) {
      if (events[i].has_match_ended()) ended = i;
    }
    ASSERT_GT(ended, 0u);
    ASSERT_LT(ended + 2, events.size());
    EXPECT_TRUE(events[ended].asl().melee()) << "A11.15: a Melee marker is placed";
    ASSERT_TRUE(events[ended + 1].has_head_signed());
    EXPECT_EQ(events[ended + 1].head_signed().seq(), events[ended].seq());
    EXPECT_EQ(events[ended + 1].head_signed().signature().size(), 64u);
    const aslpb::AslEvent& set_up = events[ended + 2].asl();
    EXPECT_EQ(set_up.kind(), aslpb::EVENT_KIND_SET_UP);
    EXPECT_TRUE(set_up.situation().location().melee());
    EXPECT_EQ(set_up.situation().attacker(), v1::SEAT_SIDE_B);
    EXPECT_EQ(set_up.situation().units_size(), 3) << "G1, R1 and the concealed R2 carry over";
  }
  EXPECT_EQ(a_->last_seq(), b_->last_seq());
}

// A ruleset event's frame is the bytes its rendering was kept as when it was planned, then the
// fields the commit adds (the stamp, the receipt, the seals' openings), which protobuf merges
// (Match::RenderShown). A follower on text frames, whose JSON is made from those bytes parsed,
// gets exactly the events a binary follower of the same viewer parses; and each seat's events,
// resumed from the log on a new connection, are the ones it was sent live.
TEST_F(MatchTest, EveryFollowerOfAViewerGetsTheSameEventsLiveAsTextOrResumed) {
  Seat();
  auto a_text = MatchClient::Connect(server_.ws_url(), proto::FrameKind::kText);
  auto director = MatchClient::Connect(server_.ws_url());
  auto director_text = MatchClient::Connect(server_.ws_url(), proto::FrameKind::kText);
  ASSERT_TRUE(a_text && director && director_text);
  ASSERT_TRUE(a_text->Join(created_.match_id(), created_.side_a_token()).has_joined());
  ASSERT_TRUE(director->Join(created_.match_id(), created_.director_token(), 0, true).has_joined());
  ASSERT_TRUE(
      director_text->Join(created_.match_id(), created_.director_token(), 0, true).has_joined());
  SetUpAndAnnounce();
  ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  faces_.Push({3, 4, 4, 3});
  ASSERT_TRUE(b_->Act(Seal({{{"R1"}, {"G1"}}})).has_ack());
  const auto next_ccph = [](const v1::MatchView& view) { return view.ccph() == 2; };
  for (MatchClient* client :
       {a_.get(), b_.get(), a_text.get(), director.get(), director_text.get()}) {
    ASSERT_TRUE(client->WaitForView(next_ccph));
  }
  const auto same_events = [](const MatchClient& one, const MatchClient& other) {
    const std::vector<v1::MatchEvent> first = one.events();
    const std::vector<v1::MatchEvent> second = other.events();
    ASSERT_EQ(first.size(), second.size());
    for (size_t i = 0; i < first.size(); ++i) {
      EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(first[i], second[i]))
          << "event " << first[i].seq() << ":\n" << first[i].DebugString() << "against\n"
          << second[i].DebugString();
    }
  };
  same_events(*a_, *a_text);
  same_events(*director, *director_text);
  // What the commit adds is there: the stamp on every event, a seal's receipt, its opening for
  // the sealer, both openings at the reveal. (These dice are scripted, so no step is revealed.)
  bool sealed = false;
  bool revealed = false;
  for (const v1::MatchEvent& event : a_->events()) {
    EXPECT_EQ(event.match_id(), created_.match_id());
    if (event.has_declaration_sealed() && event.declaration_sealed().seat() == v1::SEAT_SIDE_A) {
      sealed = true;
      EXPECT_EQ(event.declaration_sealed().receipt().size(), 32u);
      EXPECT_TRUE(event.declaration_sealed().has_opening());
    }
    if (event.has_declarations_revealed()) {
      revealed = true;
      EXPECT_EQ(event.declarations_revealed().openings_size(), 2);
    }
  }
  EXPECT_TRUE(sealed);
  EXPECT_TRUE(revealed);
  // Resumed from the log (the server keeps only 3 recent events here): the same events.
  for (auto* seat : {&a_, &b_}) {
    auto again = MatchClient::Connect(server_.ws_url());
    ASSERT_TRUE(again);
    const std::string& token =
        seat == &a_ ? created_.side_a_token() : created_.side_b_token();
    ASSERT_TRUE(again->Join(created_.match_id(), token).has_joined());
    ASSERT_TRUE(again->WaitForSeq((*seat)->last_seq()));
    same_events(**seat, *again);
  }
}

// The opponent's dictionary attack (seal scheme 2): B seals an attack that includes its
// concealed R2; A lists every declaration B could have made in this Location and tries each
// against everything it received before the reveal. None matches.
TEST_F(MatchTest, NoDeclarationCanBeTestedAgainstWhatTheOpponentReceived) {
  Seat();
  SetUpAndAnnounce();
  const v1::ClientMessage b_seal = Seal({{{"R1", "R2"}, {"G1"}}});
  ASSERT_TRUE(b_->Act(b_seal).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  std::vector<v1::Declaration> candidates;
  using Attacks = std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>;
  for (const Attacks& attacks :
       {Attacks{}, Attacks{{{"R1"}, {"G1"}}}, Attacks{{{"R2"}, {"G1"}}},
        Attacks{{{"R1", "R2"}, {"G1"}}}, Attacks{{{"R2", "R1"}, {"G1"}}},
        Attacks{{{"R1"}, {"G1"}}, {{"R2"}, {"G1"}}}, Attacks{{{"R2"}, {"G1"}}, {{"R1"}, {"G1"}}}}) {
    candidates.push_back(Seal(attacks).seal_declaration().declaration());
  }
  EXPECT_TRUE(testing::NoCandidateConfirmed(*a_, candidates,
                                            b_seal.seal_declaration().declaration()));
}

// A11.12 as written (declaration_order = attacker_first): the DEFENDER designates after seeing
// the ATTACKER's attacks.
TEST_F(MatchTest, AttackerFirstOrderShowsTheAttackersDeclarationToTheDefender) {
  Seat(v1::DECLARATION_ORDER_ATTACKER_FIRST);
  SetUpAndAnnounce();
  const v1::ServerMessage early = b_->Act(Seal({{{"R1"}, {"G1"}}}));
  ASSERT_TRUE(early.has_error());
  EXPECT_EQ(early.error().code(), v1::ERROR_CODE_RULE_VIOLATION);
  EXPECT_EQ(early.error().rule_ref(), "A11.12");
  ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  ASSERT_TRUE(b_->view().asl().has_side_a_declaration());
  EXPECT_EQ(b_->view().asl().side_a_declaration().attacks(0).targets(0), "R1");
  faces_.Push({3, 4, 4, 3});
  ASSERT_TRUE(b_->Act(Seal({{{"R1"}, {"G1"}}})).has_ack());
  // Both survive: the Melee goes on into the next CCPh (A11.15).
  ASSERT_TRUE(a_->WaitForView([](const v1::MatchView& view) { return view.ccph() == 2; }));
  EXPECT_EQ(a_->view().stage(), v1::STAGE_PLAYING);
}

// A11.15: the seal that ends a close combat whose Melee goes on is written in one append with
// the start of the next close combat, and both reach the seats together: a round costs one
// transaction, not two.
TEST_F(MatchTest, AMeleeThatGoesOnIsAppendedWithTheSealThatEndedTheCloseCombat) {
  Seat();
  SetUpAndAnnounce();
  ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  const uint64_t sealed_at = a_->last_seq();
  ASSERT_TRUE(b_->WaitForSeq(sealed_at));
  const auto appends = [this] {
    return server_.server().metrics().store_append_seconds.Collect().histogram.sample_count;
  };
  const uint64_t before = appends();
  faces_.Push({3, 4, 4, 3});  // DR 7 both ways: both survive, the Melee goes on
  const v1::ServerMessage ended = b_->Act(Seal({{{"R1"}, {"G1"}}}));
  ASSERT_TRUE(ended.has_ack());
  for (MatchClient* seat : {a_.get(), b_.get()}) {
    ASSERT_TRUE(seat->WaitForView([](const v1::MatchView& view) { return view.ccph() == 2; }));
    EXPECT_EQ(seat->view().stage(), v1::STAGE_PLAYING);
  }
  EXPECT_EQ(appends() - before, 1u);
  // The log is as it was: the close combat's events and the head's signature, then the next
  // close combat's, in order.
  std::vector<uint64_t> seqs;
  bool signed_head = false;
  for (const v1::ServerMessage& message : a_->received()) {
    if (!message.has_event() || message.event().seq() <= sealed_at) continue;
    seqs.push_back(message.event().seq());
    signed_head = signed_head || message.event().has_head_signed();
  }
  ASSERT_FALSE(seqs.empty());
  for (size_t i = 1; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], seqs[i - 1] + 1);
  EXPECT_TRUE(signed_head);
  // The seal's answer names its own last event; the next close combat's come after it.
  EXPECT_GT(seqs.back(), ended.ack().seq());
  EXPECT_EQ(a_->last_seq(), seqs.back());
}

// The leak test: while one side has sealed, nothing of its declaration reaches the other side,
// a spectator or the director; a concealed unit's identity never reaches the other side or a
// spectator (the director sees it).
TEST_F(MatchTest, SealedDeclarationsAndConcealedUnitsNeverLeak) {
  Seat();
  auto spectator = MatchClient::Connect(server_.ws_url());
  auto director = MatchClient::Connect(server_.ws_url());
  ASSERT_TRUE(spectator->Join(created_.match_id(), created_.spectator_key(), 0, true).has_joined());
  ASSERT_TRUE(director->Join(created_.match_id(), created_.director_token(), 0, true).has_joined());
  EXPECT_EQ(director->view().seat(), v1::SEAT_DIRECTOR);
  SetUpAndAnnounce();

  // A seals an attack naming a director field nobody else may see before the reveal.
  v1::ClientMessage a_seal = Seal({{{"G1"}, {"R1"}}});
  a_seal.mutable_seal_declaration()->mutable_declaration()->mutable_asl()->mutable_attacks(0)
      ->set_capture(true);
  ASSERT_TRUE(a_->Act(a_seal).has_ack());
  const uint64_t sealed_at = a_->last_seq();
  for (MatchClient* other : {b_.get(), spectator.get(), director.get()}) {
    ASSERT_TRUE(other->WaitForSeq(sealed_at));
    for (const v1::ServerMessage& message : other->received()) {
      EXPECT_FALSE(message.event().asl().has_seal()) << message.DebugString();
      EXPECT_FALSE(message.view().asl().has_side_a_declaration());
      EXPECT_FALSE(message.joined().view().asl().has_side_a_declaration());
      EXPECT_EQ(message.event().asl().text().find("R1"), std::string::npos)
          << "the sealed attack's target in an event text: " << message.DebugString();
    }
    EXPECT_TRUE(other->view().asl().side_a_sealed()) << "others see only that A sealed";
  }
  ASSERT_TRUE(a_->view().asl().has_side_a_declaration()) << "A sees its own declaration";
  EXPECT_TRUE(a_->view().asl().side_a_declaration().attacks(0).capture());

  // What A may know of R2 at designation: a "?" that shows its Strength Factor (A11.19).
  bool found = false;
  for (const aslpb::ViewedUnit& unit : a_->view().asl().units()) {
    if (unit.unit().id() != "R2") continue;
    found = true;
    EXPECT_TRUE(unit.hidden());
    EXPECT_EQ(unit.unit().kind(), aslpb::UNIT_KIND_UNSPECIFIED);
    EXPECT_EQ(unit.unit().firepower(), 4);
  }
  EXPECT_TRUE(found);

  faces_.Push({5, 6, 5, 6});  // DR 11 each: no effect, R2 keeps its concealment
  ASSERT_TRUE(b_->Act(Seal({{{"R1"}, {"G1"}}})).has_ack());
  // The Melee goes on into the next CCPh with R2 still concealed: the carried force and the new
  // set-up show A and the spectator only a "?".
  for (MatchClient* client : {a_.get(), b_.get(), spectator.get(), director.get()}) {
    ASSERT_TRUE(client->WaitForView([](const v1::MatchView& view) { return view.ccph() == 2; }));
  }
  EXPECT_EQ(AllBytes(*a_).find("SECRET-447"), std::string::npos) << "the concealed unit's name";
  EXPECT_EQ(AllBytes(*spectator).find("SECRET-447"), std::string::npos);
  EXPECT_NE(AllBytes(*director).find("SECRET-447"), std::string::npos) << "the director sees it";
  EXPECT_NE(AllBytes(*b_).find("SECRET-447"), std::string::npos) << "its owner sees it";
  for (MatchClient* other : {a_.get(), spectator.get()}) {
    found = false;
    for (const v1::ForceUnit& unit : other->view().side_b_force()) {
      if (unit.id() != "R2") continue;
      found = true;
      EXPECT_TRUE(unit.hidden());
      EXPECT_FALSE(unit.has_asl());
      EXPECT_EQ(unit.location(), "G3");
    }
    EXPECT_TRUE(found);
  }
  for (const v1::ForceUnit& unit : b_->view().side_b_force()) {
    if (unit.id() == "R2") {
      EXPECT_TRUE(unit.asl().concealed() && !unit.hidden());
    }
  }
  // After the reveal everybody sees both declarations.
  for (MatchClient* client : {director.get(), b_.get()}) {
    found = false;
    for (const v1::MatchEvent& event : client->events()) {
      if (!event.has_declarations_revealed()) continue;
      found = true;
      EXPECT_TRUE(event.declarations_revealed().side_a().asl().attacks(0).capture());
    }
    EXPECT_TRUE(found);
  }
}

// A match that keeps its last 48 events (the server's default): a join from seq 0 is served from
// the recent-event cache, which keeps each viewer's rendering serialized, one copy for viewers
// who saw the same bytes.
class MatchFromRecentEventsTest : public MatchTest {
 protected:
  MatchFromRecentEventsTest() : MatchTest(48) {}
};

// The leak test of the recent-event cache: late joiners each get their own rendering of every
// event, and only the sealer gets the opening of its seal (nonce and sealed bytes).
TEST_F(MatchFromRecentEventsTest, LateJoinersGetOnlyWhatTheirSeatMaySee) {
  Seat();
  SetUpAndAnnounce();
  ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  const uint64_t sealed_at = a_->last_seq();
  ASSERT_LT(sealed_at, 48u) << "every event is still in the cache";

  auto a2 = MatchClient::Connect(server_.ws_url());
  auto b2 = MatchClient::Connect(server_.ws_url());
  auto spectator = MatchClient::Connect(server_.ws_url());
  auto director = MatchClient::Connect(server_.ws_url());
  ASSERT_TRUE(a2 && b2 && spectator && director);
  ASSERT_TRUE(a2->Join(created_.match_id(), created_.side_a_token(), 0).has_joined());
  ASSERT_TRUE(b2->Join(created_.match_id(), created_.side_b_token(), 0).has_joined());
  ASSERT_TRUE(spectator->Join(created_.match_id(), created_.spectator_key(), 0, true).has_joined());
  ASSERT_TRUE(director->Join(created_.match_id(), created_.director_token(), 0, true).has_joined());
  const auto seal_event = [&](MatchClient& client) -> std::optional<v1::MatchEvent> {
    for (const v1::MatchEvent& event : client.events()) {
      if (event.seq() == sealed_at) return event;
    }
    return std::nullopt;
  };
  for (MatchClient* client : {a2.get(), b2.get(), spectator.get(), director.get()}) {
    ASSERT_TRUE(client->WaitForSeq(sealed_at));
    ASSERT_EQ(client->events().size(), sealed_at) << "every event from seq 1";
    ASSERT_TRUE(seal_event(*client).has_value());
    EXPECT_TRUE(seal_event(*client)->has_declaration_sealed());
  }
  // The sealer's own rendering opens its commitment; nobody else's does.
  EXPECT_TRUE(seal_event(*a2)->declaration_sealed().has_opening());
  for (MatchClient* other : {b2.get(), spectator.get(), director.get()}) {
    EXPECT_FALSE(seal_event(*other)->declaration_sealed().has_opening());
    EXPECT_FALSE(other->view().asl().has_side_a_declaration());
    for (const v1::MatchEvent& event : other->events()) {
      EXPECT_FALSE(event.asl().has_seal()) << event.DebugString();
      EXPECT_EQ(event.asl().text().find("R1"), std::string::npos) << event.DebugString();
    }
  }
  // The concealed unit: its owner and the director see its name; side A and a spectator do not.
  EXPECT_EQ(AllBytes(*a2).find("SECRET-447"), std::string::npos);
  EXPECT_EQ(AllBytes(*spectator).find("SECRET-447"), std::string::npos);
  EXPECT_NE(AllBytes(*b2).find("SECRET-447"), std::string::npos);
  EXPECT_NE(AllBytes(*director).find("SECRET-447"), std::string::npos);
  // And what each late joiner got is what the seat following from the start got.
  for (const v1::MatchEvent& event : a_->events()) {
    if (event.seq() > sealed_at) continue;
    EXPECT_EQ(event.SerializeAsString(), a2->events()[event.seq() - 1].SerializeAsString())
        << "event " << event.seq();
  }
  for (const v1::MatchEvent& event : b_->events()) {
    if (event.seq() > sealed_at) continue;
    EXPECT_EQ(event.SerializeAsString(), b2->events()[event.seq() - 1].SerializeAsString())
        << "event " << event.seq();
  }
}

// Every command has a command_id: a retry gets the first answer and is never applied twice.
TEST_F(MatchTest, ARetriedCommandIsAnsweredAgainAndNeverAppliedTwice) {
  Seat();
  SetUpAndAnnounce();
  v1::ClientMessage seal = Seal({{{"R1"}, {"G1"}}});
  seal.set_command_id("b-seal-1");
  const v1::ServerMessage first = b_->Act(seal);
  ASSERT_TRUE(first.has_ack());
  const uint64_t seq = b_->last_seq();
  const v1::ServerMessage retry = b_->Act(seal);
  ASSERT_TRUE(retry.has_ack());
  EXPECT_EQ(retry.ack().seq(), first.ack().seq());
  EXPECT_EQ(retry.ack().receipt(), first.ack().receipt());
  EXPECT_EQ(b_->last_seq(), seq) << "no new event";
  // The same id with other content is still the same command: the first answer.
  v1::ClientMessage other = Seal({});
  other.set_command_id("b-seal-1");
  EXPECT_EQ(b_->Act(other).ack().seq(), first.ack().seq());
  // The other seat's command with the same id is a command of its own, and never gets the first
  // seat's answer: a seal's nonce and sealed bytes are that seat's until the reveal.
  faces_.Push({3, 4, 4, 3});
  v1::ClientMessage a_seal = Seal({{{"G1"}, {"R1"}}});
  a_seal.set_command_id("b-seal-1");
  const v1::ServerMessage a_answer = a_->Act(a_seal);
  ASSERT_TRUE(a_answer.has_ack()) << a_answer.DebugString();
  EXPECT_GT(a_answer.ack().seq(), first.ack().seq()) << "applied: A's own command";
  EXPECT_NE(a_answer.ack().receipt(), first.ack().receipt());
  EXPECT_NE(a_answer.ack().seal_nonce(), first.ack().seal_nonce());
  EXPECT_NE(a_answer.ack().sealed(), first.ack().sealed());
  // And B's retry still gets B's first answer.
  const v1::ServerMessage b_again = b_->Act(seal);
  EXPECT_EQ(b_again.ack().seq(), first.ack().seq());
  EXPECT_EQ(b_again.ack().seal_nonce(), first.ack().seal_nonce());
  EXPECT_EQ(b_again.ack().sealed(), first.ack().sealed());
}

// A client that reconnects sends its last seq and receives exactly what it missed.
TEST_F(MatchTest, AReconnectingClientResumesWithExactlyWhatItMissed) {
  Seat();
  SetUpAndAnnounce();
  const uint64_t b_saw = b_->last_seq();
  b_.reset();  // B drops
  faces_.Push({3, 4, 4, 3});
  ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  b_ = MatchClient::Connect(server_.ws_url());
  const v1::ServerMessage joined = b_->Join(created_.match_id(), created_.side_b_token(), b_saw);
  ASSERT_TRUE(joined.has_joined());
  ASSERT_EQ(b_->events().size(), a_->last_seq() - b_saw) << "exactly the missed events";
  EXPECT_EQ(b_->events().front().seq(), b_saw + 1);
  EXPECT_EQ(b_->view().seq(), a_->last_seq());
  ASSERT_TRUE(b_->Act(Seal({{{"R1"}, {"G1"}}})).has_ack());
  ASSERT_TRUE(a_->WaitForView([](const v1::MatchView& view) { return view.ccph() == 2; }));
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  EXPECT_EQ(a_->view().stage(), v1::STAGE_PLAYING) << "the Melee went on (A11.15)";
  // Resume on the same connection: nothing after the last seq, just the view.
  v1::ClientMessage resume;
  resume.mutable_resume()->set_match_id(created_.match_id());
  resume.mutable_resume()->set_after_seq(b_->last_seq());
  const size_t before = b_->events().size();
  ASSERT_TRUE(b_->Call(resume).has_joined());
  EXPECT_EQ(b_->events().size(), before);
}

// A choice waits for its seat until the deadline, then the rules default is taken. The clock is
// moved by hand: the test never sleeps.
TEST_F(MatchTest, AChoiceDeadlineTakesTheRulesDefault) {
  Seat();
  SetUpAndAnnounce();
  ASSERT_TRUE(b_->Act(Seal({})).has_ack());
  faces_.Push({1, 1});  // A's Original 2: A11.22 Infiltration, G1 may withdraw
  ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  ASSERT_EQ(a_->view().asl().phase(), aslpb::PHASE_CHOICE);
  const v1::MatchEvent requested = a_->events().back();
  ASSERT_TRUE(requested.has_choice_requested()) << requested.DebugString();
  EXPECT_EQ(requested.choice_requested().rule_ref(), "A11.22");
  EXPECT_EQ(requested.choice_requested().seat(), v1::SEAT_SIDE_A);
  EXPECT_EQ(requested.choice_requested().deadline_unix_ms(), clock_->NowUnixMs() + 60'000);
  EXPECT_FALSE(b_->view().asl().has_pending()) << "the choice is A's";

  clock_->Advance(std::chrono::seconds(59));
  server_.server().matches().CheckDeadlines();
  v1::ClientMessage ping;
  ping.mutable_ping()->set_nonce(1);
  a_->Call(ping);  // a round trip through the server
  EXPECT_EQ(a_->view().asl().phase(), aslpb::PHASE_CHOICE) << "not yet";

  clock_->Advance(std::chrono::seconds(2));
  server_.server().matches().CheckDeadlines();
  ASSERT_TRUE(a_->WaitForSeq(a_->last_seq() + 1));
  ASSERT_TRUE(a_->WaitForSeq(a_->view().seq()));
  bool defaulted = false;
  for (const v1::MatchEvent& event : a_->events()) {
    if (event.asl().kind() == aslpb::EVENT_KIND_CHOICE_MADE) {
      defaulted = true;
      EXPECT_EQ(event.asl().selected_size(), 0) << "the default: nobody withdraws";
    }
  }
  EXPECT_TRUE(defaulted);
  EXPECT_NE(a_->view().asl().phase(), aslpb::PHASE_CHOICE);
}

// Announcements and declarations have a deadline when the match sets one (here 120 s): each
// seat that still owes one when it passes gets the rules default — announce nothing, declare
// no attack (A11.12: not every unit has to attack) — marked as such for every viewer.
TEST_F(MatchTest, ADeclarationDeadlineTakesTheRulesDefaultForEachSeatThatOwes) {
  Seat(v1::DECLARATION_ORDER_SEALED, proto::FrameKind::kBinary, 120);
  EnterAndConfirm();
  ASSERT_EQ(a_->view().asl().phase(), aslpb::PHASE_ANNOUNCE);
  EXPECT_EQ(a_->view().deadline_unix_ms(), clock_->NowUnixMs() + 120'000)
      << "the ATTACKER's announcement is due 120 s after the close combat started";

  clock_->Advance(std::chrono::seconds(119));
  const uint64_t before = a_->last_seq();
  SweepDeadlines();
  EXPECT_EQ(a_->last_seq(), before) << "not yet";

  clock_->Advance(std::chrono::seconds(2));
  server_.server().matches().CheckDeadlines();
  ASSERT_TRUE(b_->WaitForSeq(before + 1));
  ASSERT_TRUE(b_->WaitForSeq(b_->view().seq()));
  const v1::MatchEvent announced = b_->events().back();
  EXPECT_EQ(announced.asl().kind(), aslpb::EVENT_KIND_ANNOUNCED);
  EXPECT_TRUE(announced.by_default()) << announced.DebugString();
  // The DEFENDER's announcement is a new step: its own 120 s start now.
  EXPECT_EQ(b_->view().deadline_unix_ms(), clock_->NowUnixMs() + 120'000);
  ASSERT_TRUE(b_->Act(AnnounceNothing()).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  ASSERT_EQ(a_->view().asl().phase(), aslpb::PHASE_DECLARE);
  const int64_t declarations_due = clock_->NowUnixMs() + 120'000;
  EXPECT_EQ(a_->view().deadline_unix_ms(), declarations_due);

  // B seals in time; that does not restart A's clock (both owe in the same step).
  clock_->Advance(std::chrono::seconds(30));
  ASSERT_TRUE(b_->Act(Seal({{{"R1"}, {"G1"}}})).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  EXPECT_EQ(a_->view().deadline_unix_ms(), declarations_due);

  faces_.Push({4, 3});  // B's CC DR 7 (A declared nothing)
  clock_->Advance(std::chrono::seconds(91));
  server_.server().matches().CheckDeadlines();
  // Both survive (B's DR 7 is no kill): the Melee goes on into the next CCPh, whose ATTACKER (B)
  // owes its announcement with 120 s of its own.
  ASSERT_TRUE(a_->WaitForView([](const v1::MatchView& view) { return view.ccph() == 2; }));
  EXPECT_EQ(a_->view().stage(), v1::STAGE_PLAYING);
  EXPECT_EQ(a_->view().asl().to_act(), v1::SEAT_SIDE_B);
  EXPECT_EQ(a_->view().deadline_unix_ms(), clock_->NowUnixMs() + 120'000);
  bool a_sealed_by_default = false;
  bool revealed = false;
  for (const v1::MatchEvent& event : a_->events()) {
    if (event.has_declaration_sealed() && event.declaration_sealed().seat() == v1::SEAT_SIDE_A) {
      a_sealed_by_default = event.by_default();
    }
    if (event.has_declarations_revealed()) {
      revealed = true;
      EXPECT_EQ(event.declarations_revealed().side_a().asl().attacks_size(), 0);
      EXPECT_EQ(event.declarations_revealed().side_b().asl().attacks_size(), 1);
    }
  }
  EXPECT_TRUE(a_sealed_by_default);
  EXPECT_TRUE(revealed);
}

// With no deadline in the match's settings and none on the server (the default), a seat that
// does not declare holds the match, however long it takes (play by email).
TEST_F(MatchTest, WithoutADeclarationDeadlineTheMatchWaitsForTheSeat) {
  Seat();
  SetUpAndAnnounce();
  EXPECT_EQ(a_->view().deadline_unix_ms(), 0);
  const uint64_t before = a_->last_seq();
  clock_->Advance(std::chrono::hours(24 * 30));
  SweepDeadlines();
  EXPECT_EQ(a_->last_seq(), before);
  EXPECT_EQ(a_->view().asl().phase(), aslpb::PHASE_DECLARE);
}

// attacker_first (A11.12 as written): the DEFENDER designates after seeing the ATTACKER's
// attacks, so its time starts only then.
TEST_F(MatchTest, UnderAttackerFirstTheDefendersTimeStartsWithTheAttackersDeclaration) {
  Seat(v1::DECLARATION_ORDER_ATTACKER_FIRST, proto::FrameKind::kBinary, 100);
  SetUpAndAnnounce();
  EXPECT_EQ(a_->view().deadline_unix_ms(), clock_->NowUnixMs() + 100'000);
  clock_->Advance(std::chrono::seconds(50));
  ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  EXPECT_EQ(b_->view().deadline_unix_ms(), clock_->NowUnixMs() + 100'000);

  faces_.Push({3, 4});  // A's CC DR 7
  clock_->Advance(std::chrono::seconds(101));
  server_.server().matches().CheckDeadlines();
  ASSERT_TRUE(b_->WaitForView([](const v1::MatchView& view) { return view.ccph() == 2; }));
  bool b_by_default = false;
  for (const v1::MatchEvent& event : b_->events()) {
    if (event.has_declaration_sealed() && event.declaration_sealed().seat() == v1::SEAT_SIDE_B) {
      b_by_default = event.by_default();
    }
  }
  EXPECT_TRUE(b_by_default);
}

// The bad-input suite: each refusal has its documented code and names the problem; nothing
// is applied.
TEST_F(MatchTest, BadCommandsGetTheirDocumentedErrors) {
  Seat();
  auto stranger = MatchClient::Connect(server_.ws_url());
  // A forged token, a token of another match, an unknown match.
  EXPECT_EQ(stranger->Join(created_.match_id(), std::string(64, 'f')).error().code(),
            v1::ERROR_CODE_UNAUTHENTICATED);
  v1::MatchSettings settings;
  settings.set_ruleset("asl");
  const v1::MatchCreated other = stranger->Create(settings);
  EXPECT_EQ(stranger->Join(created_.match_id(), other.side_a_token()).error().code(),
            v1::ERROR_CODE_UNAUTHENTICATED);
  EXPECT_EQ(stranger->Join("m-nope", created_.side_a_token()).error().code(),
            v1::ERROR_CODE_NOT_FOUND);
  // A match command before joining.
  const v1::ServerMessage unjoined = stranger->Act(Confirm());
  EXPECT_EQ(unjoined.error().code(), v1::ERROR_CODE_UNAUTHENTICATED);
  // Unsupported ruleset and invalid options.
  v1::ClientMessage create;
  create.mutable_create_match()->mutable_settings()->set_ruleset("chess");
  EXPECT_EQ(stranger->Call(create).error().code(), v1::ERROR_CODE_NOT_SUPPORTED);
  create.mutable_create_match()->mutable_settings()->set_ruleset("asl");
  (*create.mutable_create_match()->mutable_settings()->mutable_options())["bogus"] = "1";
  const v1::ServerMessage bad_option = stranger->Call(create);
  EXPECT_EQ(bad_option.error().code(), v1::ERROR_CODE_RULE_VIOLATION);
  EXPECT_NE(bad_option.error().message().find("bogus"), std::string::npos);

  // A seat entering the other side's units: "a command for the other seat".
  const v1::ServerMessage foreign = a_->Act(EnterUnits({Squad("R9", v1::SEAT_SIDE_B, 4, "")}, true));
  EXPECT_EQ(foreign.error().code(), v1::ERROR_CODE_RULE_VIOLATION);
  EXPECT_NE(foreign.error().message().find("submit_setup.asl.units[0].owner"), std::string::npos)
      << foreign.error().message();
  // A spectator may not act; a command for another match.
  auto spectator = MatchClient::Connect(server_.ws_url());
  ASSERT_TRUE(spectator->Join(created_.match_id(), created_.spectator_key(), 0, true).has_joined());
  EXPECT_EQ(spectator->Act(Confirm()).error().code(), v1::ERROR_CODE_PERMISSION_DENIED);
  v1::ClientMessage elsewhere = Confirm();
  elsewhere.mutable_confirm_setup()->set_match_id(other.match_id());
  EXPECT_EQ(a_->Act(elsewhere).error().code(), v1::ERROR_CODE_PERMISSION_DENIED);
  // Playing before the set-up is done.
  EXPECT_EQ(a_->Act(AnnounceNothing()).error().code(), v1::ERROR_CODE_RULE_VIOLATION);

  SetUpAndAnnounce();
  // A rule error names the rule: a unit attacking twice (A11.12).
  const v1::ServerMessage twice = a_->Act(Seal({{{"G1"}, {"R1"}}, {{"G1"}, {"R1"}}}));
  EXPECT_EQ(twice.error().code(), v1::ERROR_CODE_RULE_VIOLATION);
  EXPECT_FALSE(twice.error().rule_ref().empty());
  // A stale command: B sets expected_seq before an event that changed the match for it.
  v1::ClientMessage stale = Seal({{{"R1"}, {"G1"}}});
  stale.mutable_seal_declaration()->set_expected_seq(2);
  EXPECT_EQ(b_->Act(stale).error().code(), v1::ERROR_CODE_STALE);
  v1::ClientMessage future = Seal({{{"R1"}, {"G1"}}});
  future.mutable_seal_declaration()->set_expected_seq(9999);
  EXPECT_EQ(b_->Act(future).error().code(), v1::ERROR_CODE_STALE);
  // The other side sealing does not make a command stale.
  ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  v1::ClientMessage after_a = Seal({{{"R1"}, {"G1"}}});
  after_a.mutable_seal_declaration()->set_expected_seq(a_->last_seq() - 1);
  ASSERT_TRUE(b_->Act(after_a).has_ack());
  // A declaration after the reveal: the Melee went on, and the next CCPh starts with its
  // announcements.
  ASSERT_TRUE(a_->WaitForView([](const v1::MatchView& view) { return view.ccph() == 2; }));
  const v1::ServerMessage late = a_->Act(Seal({}));
  EXPECT_EQ(late.error().code(), v1::ERROR_CODE_RULE_VIOLATION);
  EXPECT_EQ(late.error().rule_ref(), "A11.12") << late.error().message();
}

// An over-long match id comes back in an error cut to its first 32 bytes, as unit ids do.
TEST_F(MatchTest, AnOverLongMatchIdIsCutInItsError) {
  Seat();
  const std::string long_id(10000, 'x');
  const std::string cut = "\"" + std::string(32, 'x') + "...\"";
  auto stranger = MatchClient::Connect(server_.ws_url());
  EXPECT_EQ(stranger->Join(long_id, created_.side_a_token()).error().message(),
            "no match " + cut + " on this server");
  v1::ClientMessage resume;
  resume.mutable_resume()->set_match_id(long_id);
  EXPECT_EQ(stranger->Call(resume).error().message(),
            "resume: this connection has not joined match " + cut + "; send JoinSeat first");
  v1::ClientMessage elsewhere = Confirm();
  elsewhere.mutable_confirm_setup()->set_match_id(long_id);
  EXPECT_EQ(a_->Act(elsewhere).error().message(),
            "this connection is joined to match " + created_.match_id() + ", not " + cut);
  const auto exported = testing::HttpGet(server_.port(), "/api/matches/" + long_id + "/export");
  EXPECT_EQ(exported.status, 404);
  EXPECT_NE(exported.body.find("no match \\" + cut.substr(0, cut.size() - 1) + "\\\""),
            std::string::npos)
      << exported.body;
  EXPECT_LT(exported.body.size(), 300u) << exported.body;
}

// The view's to_act names the seat waiting_for names: after the ATTACKER seals, the DEFENDER.
TEST_F(MatchTest, ToActAndWaitingForNameTheSameSeat) {
  Seat();
  SetUpAndAnnounce();
  EXPECT_EQ(b_->view().asl().to_act(), v1::SEAT_SIDE_A);
  EXPECT_THAT(b_->view().waiting_for(),
              ::testing::ElementsAre("side_a: seal a declaration", "side_b: seal a declaration"));
  ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  for (MatchClient* client : {a_.get(), b_.get()}) {
    EXPECT_THAT(client->view().waiting_for(), ::testing::ElementsAre("side_b: seal a declaration"));
    EXPECT_EQ(client->view().asl().to_act(), v1::SEAT_SIDE_B) << client->view().DebugString();
  }
}

// Either player can flag an event for the director with a comment: the director and the
// flagging seat read the comment, the others see that the event was flagged.
TEST_F(MatchTest, APlayerFlagsAnEventForTheDirector) {
  Seat();
  auto director = MatchClient::Connect(server_.ws_url());
  ASSERT_TRUE(director->Join(created_.match_id(), created_.director_token(), 0, true).has_joined());
  SetUpAndAnnounce();
  v1::ClientMessage flag;
  flag.mutable_flag_for_director()->set_seq(2);
  flag.mutable_flag_for_director()->set_comment("G1 was broken at the end of my last turn");
  ASSERT_TRUE(b_->Act(flag).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  ASSERT_TRUE(director->WaitForSeq(b_->last_seq()));
  EXPECT_EQ(director->events().back().director_flag().comment(),
            "G1 was broken at the end of my last turn");
  EXPECT_EQ(b_->events().back().director_flag().comment(),
            "G1 was broken at the end of my last turn");
  EXPECT_EQ(a_->events().back().director_flag().seq(), 2u);
  EXPECT_EQ(a_->events().back().director_flag().seat(), v1::SEAT_SIDE_B);
  EXPECT_TRUE(a_->events().back().director_flag().comment().empty());
  // A flag is not a move: the other side's commands are not stale because of it.
  v1::ClientMessage seal = Seal({{{"G1"}, {"R1"}}});
  seal.mutable_seal_declaration()->set_expected_seq(a_->last_seq() - 1);
  EXPECT_TRUE(a_->Act(seal).has_ack());
  flag.mutable_flag_for_director()->set_seq(9999);
  EXPECT_EQ(b_->Act(flag).error().code(), v1::ERROR_CODE_RULE_VIOLATION);
}

// A flood of malformed frames on another connection gets its errors (and, if it keeps on, a
// close) while a match plays through on the same server.
TEST_F(MatchTest, AFloodOnAnotherConnectionDoesNotHoldUpAMatch) {
  Seat();
  std::atomic<bool> stop{false};
  std::atomic<int> refusals{0};
  std::thread flooder([&] {
    auto client = client::SyncClient::Connect(server_.ws_url());
    if (!client) return;
    for (int i = 0; i < 3000 && !stop; ++i) {
      if (!(*client)->SendRaw("\x01not a ClientMessage", false)) break;
    }
    // Read until the first refusal arrives (or the server closes / 5 s pass), however the
    // match on the other connections is doing.
    while (refusals == 0) {
      auto message = (*client)->Receive();
      if (!message) break;
      if (message->has_error()) ++refusals;
    }
  });
  SetUpAndAnnounce();
  ASSERT_TRUE(b_->Act(Seal({{{"R1"}, {"G1"}}})).has_ack());
  ASSERT_TRUE(a_->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  ASSERT_TRUE(b_->WaitForView([](const v1::MatchView& view) {
    return view.stage() == v1::STAGE_ENDED || view.ccph() == 2;  // over, or the Melee went on
  }));
  stop = true;
  flooder.join();
  EXPECT_GT(refusals.load(), 0) << "the flooder was answered with errors";
}

// A client whose unsent messages exceed --max-queued-bytes is closed with 1008 "slow reader"
// rather than holding the server's memory (here the limit is below one view).
TEST(SlowReaderTest, AClientThatCannotKeepUpIsClosedWithAReason) {
  server::ServerConfig config;
  config.max_queued_bytes = 100;
  testing::TestServer server(config);
  const auto http = testing::HttpGet(server.port(), "/api/matches", http::verb::post,
                                     R"({"ruleset": "asl"})");
  v1::MatchCreated created;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(http.body, &created).ok()) << http.body;
  auto client = client::SyncClient::Connect(server.ws_url());
  ASSERT_TRUE(client.has_value());
  v1::ClientMessage join;
  join.mutable_join_seat()->set_match_id(created.match_id());
  join.mutable_join_seat()->set_seat_token(created.side_b_token());
  join.set_command_id("join");
  ASSERT_TRUE((*client)->Send(join));
  std::optional<int> close_code;
  std::string reason;
  for (int i = 0; i < 3 && !close_code; ++i) {
    auto message = (*client)->Receive();
    if (!message) {
      close_code = message.error().close_code;
      reason = message.error().close_reason;
    }
  }
  EXPECT_EQ(close_code, 1008);
  EXPECT_NE(reason.find("slow reader"), std::string::npos) << reason;
}

// design.md "The way one declaration travels": close combats one after another. A close combat
// that leaves no Melee ends; the next one is set up with new units, while the units of the first
// stay in the forces as the combat left them, across a restart.
TEST(MatchSequenceTest, TheNextCloseCombatStartsFromANewSetUpAndSurvivesARestart) {
  testing::TempDir dir;
  ScriptedFaces faces;
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  v1::MatchCreated created;
  uint64_t seq = 0;
  {
    testing::TestServer server({}, hooks, dir.path() / "data");
    std::unique_ptr<MatchClient> a;
    std::unique_ptr<MatchClient> b;
    ASSERT_NO_FATAL_FAILURE(SeatTwoPlayers(server, a, b, created));
    for (int combat = 0; combat < 2; ++combat) {
      const std::string location = combat == 0 ? "G3" : "H4";
      const std::string g = "G" + std::to_string(combat + 1);
      const std::string r = "R" + std::to_string(combat + 1);
      v1::ClientMessage a_units = EnterUnits({Squad(g, v1::SEAT_SIDE_A, 6, "6-4-7")}, true);
      a_units.mutable_submit_setup()->mutable_asl()->mutable_location()->set_name(location);
      ASSERT_TRUE(a->Act(a_units).has_ack());
      ASSERT_TRUE(b->Act(EnterUnits({Squad(r, v1::SEAT_SIDE_B, 4, "4-4-7")}, false)).has_ack());
      for (MatchClient* client : {a.get(), b.get()}) {
        ASSERT_TRUE(client->WaitForSeq(std::max(a->last_seq(), b->last_seq())));
        ASSERT_TRUE(client->Act(Confirm()).has_ack());
      }
      for (MatchClient* client : {a.get(), b.get()}) {
        ASSERT_TRUE(client->WaitForSeq(std::max(a->last_seq(), b->last_seq())));
        ASSERT_TRUE(client->Act(AnnounceNothing()).has_ack());
      }
      ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
      ASSERT_TRUE(b->Act(Seal({{{r}, {g}}})).has_ack());
      faces.Push({1, 2, 5, 6});  // A's DR 3 eliminates B's squad; B's DR 11 does nothing
      ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
      ASSERT_TRUE(a->Act(Seal({{{g}, {r}}})).has_ack());
      ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
      EXPECT_EQ(b->view().stage(), v1::STAGE_ENDED);
      EXPECT_EQ(b->view().asl().location().name(), location);
      ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
      const v1::ServerMessage over = a->Act(AnnounceNothing());
      EXPECT_EQ(over.error().code(), v1::ERROR_CODE_RULE_VIOLATION) << over.ShortDebugString();
    }
    // An eliminated unit never returns; a surviving one is in its force already.
    ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
    const v1::ServerMessage again =
        b->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7")}, false));
    EXPECT_EQ(again.error().code(), v1::ERROR_CODE_RULE_VIOLATION);
    EXPECT_THAT(again.error().message(), ::testing::HasSubstr("never returns"));
    const v1::ServerMessage twice = a->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 6)}, true));
    EXPECT_THAT(twice.error().message(), ::testing::HasSubstr("already in the match"));
    seq = a->last_seq();
  }
  testing::TestServer server({}, hooks, dir.path() / "data");
  auto a = MatchClient::Connect(server.ws_url());
  ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token(), seq).has_joined());
  EXPECT_EQ(a->view().seq(), seq);
  EXPECT_EQ(a->view().stage(), v1::STAGE_ENDED);
  EXPECT_EQ(a->view().asl().location().name(), "H4");
  // The forces, rebuilt from the log.
  ASSERT_EQ(a->view().side_a_force_size(), 2);
  EXPECT_EQ(a->view().side_a_force(0).id(), "G1");
  EXPECT_EQ(a->view().side_a_force(0).location(), "G3");
  EXPECT_EQ(a->view().side_a_force(0).fate(), v1::FORCE_FATE_PRESENT);
  ASSERT_EQ(a->view().side_b_force_size(), 2);
  for (const v1::ForceUnit& unit : a->view().side_b_force()) {
    EXPECT_EQ(unit.fate(), v1::FORCE_FATE_ELIMINATED) << unit.ShortDebugString();
  }
}

// On restart every unfinished match is recovered from the store (replayed and audited) and
// play resumes where it was; answers of applied commands survive.
TEST(MatchRestartTest, AMatchSurvivesARestartOfTheServer) {
  testing::TempDir dir;
  ScriptedFaces faces;
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  v1::MatchCreated created;
  uint64_t seq = 0;
  std::string b_seal_receipt;
  {
    testing::TestServer server({}, hooks, dir.path() / "data");
    std::unique_ptr<MatchClient> a;
    std::unique_ptr<MatchClient> b;
    ASSERT_NO_FATAL_FAILURE(SeatTwoPlayers(server, a, b, created));
    ASSERT_TRUE(a->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 6, "6-4-7")}, true)).has_ack());
    ASSERT_TRUE(b->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7")}, false)).has_ack());
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    ASSERT_TRUE(a->Act(Confirm()).has_ack());
    ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
    ASSERT_TRUE(b->Act(Confirm()).has_ack());
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    ASSERT_TRUE(a->Act(AnnounceNothing()).has_ack());
    ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
    ASSERT_TRUE(b->Act(AnnounceNothing()).has_ack());
    v1::ClientMessage seal = Seal({{{"R1"}, {"G1"}}});
    seal.set_command_id("b-seal");
    b_seal_receipt = b->Act(seal).ack().receipt();
    v1::ClientMessage flag;
    flag.mutable_flag_for_director()->set_seq(3);
    flag.mutable_flag_for_director()->set_comment("check this");
    ASSERT_TRUE(a->Act(flag).has_ack());
    ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
    seq = b->last_seq();
  }
  testing::TestServer server({}, hooks, dir.path() / "data");
  auto a = MatchClient::Connect(server.ws_url());
  auto b = MatchClient::Connect(server.ws_url());
  ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
  EXPECT_EQ(a->last_seq(), seq);
  ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token(), seq).has_joined());
  EXPECT_TRUE(b->events().empty());
  EXPECT_TRUE(b->view().asl().has_side_b_declaration()) << "B's sealed declaration survived";
  // The retried seal is answered from the log, not applied again.
  v1::ClientMessage seal = Seal({{{"R1"}, {"G1"}}});
  seal.set_command_id("b-seal");
  EXPECT_EQ(b->Act(seal).ack().receipt(), b_seal_receipt);
  faces.Push({3, 4, 4, 3});
  ASSERT_TRUE(a->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  // Both survive: the Melee goes on into the next CCPh after the restart too.
  ASSERT_TRUE(b->WaitForView([](const v1::MatchView& view) { return view.ccph() == 2; }));
  EXPECT_EQ(b->view().stage(), v1::STAGE_PLAYING);
}


// A11.12: the ATTACKER specifies the order in which the Locations of the CCPh are resolved, and
// each Location's CC is resolved completely before the next. The server holds the order, starts
// close combats only in it, and recovers it after a restart.
TEST(LocationOrderTest, CloseCombatsFollowTheAttackersOrderOfLocations) {
  testing::TempDir dir;
  ScriptedFaces faces;
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  v1::MatchCreated created;
  {
    testing::TestServer server({}, hooks, dir.path() / "data");
    std::unique_ptr<MatchClient> a;
    std::unique_ptr<MatchClient> b;
    ASSERT_NO_FATAL_FAILURE(SeatTwoPlayers(server, a, b, created));
    ASSERT_TRUE(a->Act(OrderLocations({"G3", "H4"})).has_ack());
    ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
    ASSERT_TRUE(b->events().back().has_locations_ordered());
    EXPECT_EQ(Names(b->events().back().locations_ordered().locations()),
              (std::vector<std::string>{"G3", "H4"}));
    EXPECT_EQ(b->view().location_order().attacker(), v1::SEAT_SIDE_A);
    EXPECT_EQ(Names(b->view().location_order().remaining()),
              (std::vector<std::string>{"G3", "H4"}));
    EXPECT_THAT(b->view().waiting_for(),
                ::testing::Contains(::testing::HasSubstr("enter its units for G3")));

    // Only the ATTACKER orders; a set-up must be for the next Location, with that ATTACKER.
    const v1::ServerMessage by_defender = b->Act(OrderLocations({"H4", "G3"}));
    EXPECT_EQ(by_defender.error().code(), v1::ERROR_CODE_RULE_VIOLATION);
    EXPECT_EQ(by_defender.error().rule_ref(), "A11.12");
    const v1::ServerMessage out_of_order = a->Act(EnterUnitsAt("H4"));
    EXPECT_EQ(out_of_order.error().rule_ref(), "A11.12");
    EXPECT_THAT(out_of_order.error().message(), ::testing::HasSubstr("G3 next"));
    v1::ClientMessage b_as_attacker =
        EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7")}, true);
    b_as_attacker.mutable_submit_setup()->mutable_asl()->set_attacker(v1::SEAT_SIDE_B);
    EXPECT_EQ(b->Act(b_as_attacker).error().rule_ref(), "A11.12");

    ASSERT_NO_FATAL_FAILURE(PlayCombat(*a, *b, faces, "G3"));
    EXPECT_EQ(Names(b->view().location_order().resolved()), std::vector<std::string>{"G3"});
    EXPECT_EQ(Names(b->view().location_order().remaining()), std::vector<std::string>{"H4"});
    EXPECT_THAT(b->view().waiting_for(), ::testing::Contains(::testing::HasSubstr("for H4")));

    // A resolved Location is not fought again this CCPh; what remains may be reordered.
    const v1::ServerMessage again = a->Act(OrderLocations({"G3", "H4"}));
    EXPECT_EQ(again.error().rule_ref(), "A11.12");
    EXPECT_THAT(again.error().message(), ::testing::HasSubstr("already resolved"));
    ASSERT_TRUE(a->Act(OrderLocations({"J5", "H4"})).has_ack());
    // Once a set-up is under way, the order stands until that Location is resolved.
    ASSERT_TRUE(b->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7")}, false)).has_ack());
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    const v1::ServerMessage during = a->Act(OrderLocations({"H4", "J5"}));
    EXPECT_EQ(during.error().rule_ref(), "A11.12");
    EXPECT_THAT(during.error().message(), ::testing::HasSubstr("being set up"));
  }
  // After a restart the order is rebuilt from the log.
  testing::TestServer server({}, hooks, dir.path() / "data");
  auto a = MatchClient::Connect(server.ws_url());
  auto b = MatchClient::Connect(server.ws_url());
  ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
  ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
  EXPECT_EQ(Names(a->view().location_order().resolved()), std::vector<std::string>{"G3"});
  EXPECT_EQ(Names(a->view().location_order().remaining()),
            (std::vector<std::string>{"J5", "H4"}));
  ASSERT_NO_FATAL_FAILURE(PlayCombat(*a, *b, faces, "J5"));
  ASSERT_NO_FATAL_FAILURE(PlayCombat(*a, *b, faces, "H4"));
  EXPECT_EQ(Names(a->view().location_order().resolved()),
            (std::vector<std::string>{"G3", "J5", "H4"}));
  EXPECT_TRUE(a->view().location_order().remaining().empty());
  // The CCPh is over; in the next Player Turn B is the ATTACKER and orders its own Locations.
  ASSERT_TRUE(b->Act(OrderLocations({"G3"})).has_ack());
  ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
  EXPECT_EQ(a->view().location_order().attacker(), v1::SEAT_SIDE_B);
  EXPECT_TRUE(a->view().location_order().resolved().empty());
}


// A deadline is part of the log (on the event that started the step), so a restart neither
// forgets nor extends it.
TEST(DeadlineRestartTest, ADeclarationDeadlineSurvivesARestart) {
  testing::TempDir dir;
  ScriptedFaces faces;
  auto clock = std::make_shared<server::ManualClock>();
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  hooks.clock = clock;
  v1::MatchCreated created;
  int64_t due = 0;
  {
    testing::TestServer server({}, hooks, dir.path() / "data");
    auto a = MatchClient::Connect(server.ws_url());
    auto b = MatchClient::Connect(server.ws_url());
    v1::MatchSettings settings;
    settings.set_ruleset("asl");
    settings.set_declaration_deadline_seconds(60);
    created = a->Create(settings);
    ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
    ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
    ASSERT_TRUE(a->Act(EnterUnitsAt("G3")).has_ack());
    ASSERT_TRUE(b->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7")}, false)).has_ack());
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    ASSERT_TRUE(a->Act(Confirm()).has_ack());
    ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
    ASSERT_TRUE(b->Act(Confirm()).has_ack());
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    due = a->view().deadline_unix_ms();
    ASSERT_EQ(due, clock->NowUnixMs() + 60'000);
  }
  clock->Advance(std::chrono::seconds(30));
  testing::TestServer server({}, hooks, dir.path() / "data");
  auto a = MatchClient::Connect(server.ws_url());
  ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
  EXPECT_EQ(a->view().deadline_unix_ms(), due);
  const uint64_t before = a->last_seq();
  clock->Advance(std::chrono::seconds(31));
  server.server().matches().CheckDeadlines();
  ASSERT_TRUE(a->WaitForSeq(before + 1));
  EXPECT_TRUE(a->events().back().by_default());
  EXPECT_EQ(a->events().back().asl().kind(), aslpb::EVENT_KIND_ANNOUNCED);
}

}  // namespace
}  // namespace melee
