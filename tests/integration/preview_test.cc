// POST /api/matches/{id}/preview over a real server: the exact outcome table of an attack a seat
// is drafting, worked out from that seat's view alone (what the web page shows while a player
// picks). It equals the engine's table for the same attack; it refuses, with the rule, what a
// seal would refuse; and it is the same whatever the opponent's concealed unit really is, so it
// tells a seat nothing its view does not.
// POST /api/rosters/read: a roster read as `melee submit --setup` reads it, for the page to show.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/asl/preview.h"
#include "engine/asl/rules.h"
#include "engine/core/dice.h"
#include "melee/asl/v1/asl.pb.h"
#include "melee/coc/v1/coc.pb.h"
#include "melee/v1/envelope.pb.h"
#include "proto/codec/asl.h"
#include "proto/codec/json.h"
#include "proto/codec/notation.h"
#include "tests/testing/asl_commands.h"
#include "tests/testing/coc_commands.h"
#include "tests/testing/http_get.h"
#include "tests/testing/match_client.h"
#include "tests/testing/match_frames.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;
using ::testing::HasSubstr;
using testing::AnnounceNothing;
using testing::Confirm;
using testing::EnterUnits;
using testing::MatchClient;
using testing::Squad;

struct Answer {
  int status = 0;
  std::string body;
  // The message of the melee.v1.Error the body holds ("" when it holds none).
  std::string message() const {
    v1::Error error;
    return proto::FromJson(body, error).empty() ? error.message() : "";
  }
};

class PreviewTest : public ::testing::Test {
 protected:
  Answer Preview(const std::string& match_id, const std::string& token, const std::string& body,
                 http::verb verb = http::verb::post) {
    std::vector<std::pair<std::string, std::string>> headers;
    if (!token.empty()) headers.emplace_back("Authorization", "Bearer " + token);
    const testing::HttpResult answer = testing::HttpGet(
        server_.port(), "/api/matches/" + match_id + "/preview", verb, body, headers);
    EXPECT_TRUE(answer.error.empty()) << answer.error;
    return {answer.status, answer.body};
  }

  // An asl match at designation: side A's G1 (4-6-7) in G3 against side B's R1 (4-4-7) and a
  // concealed R2 (`hidden`). Both have announced nothing.
  v1::MatchCreated AtDesignation(aslpb::Unit hidden) {
    auto a = MatchClient::Connect(server_.ws_url());
    auto b = MatchClient::Connect(server_.ws_url());
    v1::MatchSettings settings;
    settings.set_ruleset("asl");
    const v1::MatchCreated created = a->Create(settings);
    EXPECT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
    EXPECT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
    EXPECT_TRUE(a->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 4, "4-6-7")}, true)).has_ack());
    hidden.set_concealed(true);
    EXPECT_TRUE(b->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7"), hidden}, false))
                    .has_ack());
    EXPECT_TRUE(a->WaitForSeq(b->last_seq()));
    EXPECT_TRUE(a->Act(Confirm()).has_ack());
    EXPECT_TRUE(b->WaitForSeq(a->last_seq()));
    EXPECT_TRUE(b->Act(Confirm()).has_ack());
    EXPECT_TRUE(a->WaitForSeq(b->last_seq()));
    EXPECT_TRUE(a->Act(AnnounceNothing()).has_ack());
    EXPECT_TRUE(b->WaitForSeq(a->last_seq()));
    EXPECT_TRUE(b->Act(AnnounceNothing()).has_ack());
    EXPECT_TRUE(a->WaitForSeq(b->last_seq()));
    EXPECT_EQ(a->view().asl().phase(), aslpb::PHASE_DECLARE) << a->view().DebugString();
    return created;
  }

  testing::TestServer server_;
};

aslpb::Unit Secret(const std::string& name, int morale) {
  aslpb::Unit unit = Squad("R2", v1::SEAT_SIDE_B, 6, name);
  unit.set_morale(morale);
  return unit;
}

TEST_F(PreviewTest, IsTheEnginesExactTableOfTheAttack) {
  const v1::MatchCreated match = AtDesignation(Secret("SECRET-628", 8));
  const Answer answer = Preview(match.match_id(), match.side_a_token(),
                                R"({"attackers": ["G1"], "targets": ["R1"]})");
  ASSERT_EQ(answer.status, 200) << answer.body;
  aslpb::OutcomeTable shown;
  ASSERT_EQ(proto::FromJson(answer.body, shown), "") << answer.body;

  // The same attack in the same Location, worked out by the engine from the whole situation.
  aslpb::Situation whole;
  whole.mutable_location()->set_name("G3");
  whole.set_attacker(v1::SEAT_SIDE_A);
  *whole.add_units() = Squad("G1", v1::SEAT_SIDE_A, 4, "4-6-7");
  *whole.add_units() = Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7");
  auto situation = proto::SituationFromProto(whole, "whole");
  ASSERT_TRUE(situation) << engine::Describe(situation.error());
  const engine::asl::AslRules rules;
  auto state = rules.NewState({});
  ASSERT_TRUE(state);
  engine::ScriptedDice no_dice({});
  for (const auto& [seat, command] :
       std::vector<std::pair<engine::Seat, engine::asl::Command>>{
           {engine::Seat::kSideA, engine::asl::SetUp{*situation}},
           {engine::Seat::kSideA, engine::asl::Announce{}},
           {engine::Seat::kSideB, engine::asl::Announce{}}}) {
    auto events = rules.Decide(*state, seat, command, no_dice);
    ASSERT_TRUE(events) << engine::Describe(events.error());
    for (const auto& event : *events) rules.Apply(*state, event);
  }
  engine::asl::AttackOrder order;
  order.attackers = {"G1"};
  order.targets = {"R1"};
  auto table = engine::asl::Preview(*state, engine::Seat::kSideA, order);
  ASSERT_TRUE(table) << engine::Describe(table.error());
  const aslpb::OutcomeTable expected = proto::OutcomeTableToProto(*table);

  // A11.11: 4 FP against 4 FP is 1-1 on the CC Table.
  EXPECT_EQ(shown.column(), "1-1");
  EXPECT_EQ(shown.column(), expected.column());
  EXPECT_EQ(shown.kill_number(), expected.kill_number());
  ASSERT_EQ(shown.targets_size(), 1);
  EXPECT_EQ(shown.targets(0).unit(), "R1");
  EXPECT_EQ(shown.targets(0).SerializeAsString(), expected.targets(0).SerializeAsString())
      << shown.targets(0).DebugString() << expected.targets(0).DebugString();
  EXPECT_EQ(shown.seat(), v1::SEAT_SIDE_A);
  EXPECT_EQ(shown.attack().attackers(0), "G1");
}

TEST_F(PreviewTest, TellsNothingOfAConcealedUnitBeyondTheView) {
  // Two matches alike but for what B's "?" really is (the same Strength Factor, A11.19): A's
  // preview of an attack on it is the same in both, and names nothing of it.
  const v1::MatchCreated first = AtDesignation(Secret("SECRET-628", 8));
  const v1::MatchCreated second = AtDesignation(Secret("SECRET-647", 7));
  const std::string attack = R"({"attackers": ["G1"], "targets": ["R2"]})";
  const Answer one = Preview(first.match_id(), first.side_a_token(), attack);
  const Answer two = Preview(second.match_id(), second.side_a_token(), attack);
  ASSERT_EQ(one.status, 200) << one.body;
  ASSERT_EQ(two.status, 200) << two.body;
  EXPECT_EQ(one.body, two.body);
  EXPECT_EQ(one.body.find("SECRET"), std::string::npos) << one.body;
  aslpb::OutcomeTable shown;
  ASSERT_EQ(proto::FromJson(one.body, shown), "") << one.body;
  // A11.19: an attack on a concealed unit is halved.
  ASSERT_FALSE(shown.halvings().empty()) << one.body;
  EXPECT_EQ(shown.halvings(0).rule(), "A11.19");
}

TEST_F(PreviewTest, RefusesWhatASealWouldRefuseWithItsRule) {
  const v1::MatchCreated match = AtDesignation(Secret("SECRET-628", 8));
  // A11.12: a unit attacks once; B's R1 is not A's to declare with.
  const Answer theirs = Preview(match.match_id(), match.side_a_token(),
                                R"({"attackers": ["R1"], "targets": ["G1"]})");
  EXPECT_EQ(theirs.status, 422) << theirs.body;
  EXPECT_THAT(theirs.body, HasSubstr("\"rule_ref\""));
  EXPECT_THAT(theirs.body, HasSubstr("ERROR_CODE_RULE_VIOLATION"));
  const Answer nobody = Preview(match.match_id(), match.side_a_token(),
                                R"({"attackers": ["G1"], "targets": ["X9"]})");
  EXPECT_EQ(nobody.status, 422) << nobody.body;
  EXPECT_THAT(nobody.body, HasSubstr("X9"));
}

TEST_F(PreviewTest, RefusesBadRequestsClearly) {
  const v1::MatchCreated match = AtDesignation(Secret("SECRET-628", 8));
  const std::string order = R"({"attackers": ["G1"], "targets": ["R1"]})";
  const Answer get = Preview(match.match_id(), match.side_a_token(), "", http::verb::get);
  EXPECT_EQ(get.status, 405);
  EXPECT_THAT(get.message(), HasSubstr("preview answers POST only"));
  const Answer no_token = Preview(match.match_id(), "", order);
  EXPECT_EQ(no_token.status, 401);
  EXPECT_THAT(no_token.message(), HasSubstr("Authorization: Bearer <seat token>"));
  const Answer forged = Preview(match.match_id(), std::string(64, 'f'), order);
  EXPECT_EQ(forged.status, 401);
  const Answer director = Preview(match.match_id(), match.director_token(), order);
  EXPECT_EQ(director.status, 403);
  EXPECT_THAT(director.message(), HasSubstr("the director's token declares nothing"));
  const Answer spectator = Preview(match.match_id(), match.spectator_key(), order);
  EXPECT_EQ(spectator.status, 401);
  const Answer unknown = Preview("m-none", match.side_a_token(), order);
  EXPECT_EQ(unknown.status, 404);
  EXPECT_THAT(unknown.message(), HasSubstr("no match \"m-none\""));
  const Answer garbage = Preview(match.match_id(), match.side_a_token(), "{\"attackers\": 3}");
  EXPECT_EQ(garbage.status, 400);
  EXPECT_THAT(garbage.message(), HasSubstr("not a melee.asl.v1.AttackOrder"));
  const Answer huge =
      Preview(match.match_id(), match.side_a_token(), std::string(20000, ' ') + order);
  EXPECT_EQ(huge.status, 413);

  // Before designation there is nothing to preview.
  auto a = MatchClient::Connect(server_.ws_url());
  v1::MatchSettings settings;
  settings.set_ruleset("asl");
  const v1::MatchCreated fresh = a->Create(settings);
  const Answer early = Preview(fresh.match_id(), fresh.side_a_token(), order);
  EXPECT_EQ(early.status, 422) << early.body;
  EXPECT_THAT(early.message(), HasSubstr("not set up yet"));
}

TEST_F(PreviewTest, GivesACocContactsFirstRoundAndSaysVvIsNotBuilt) {
  auto a = MatchClient::Connect(server_.ws_url());
  auto b = MatchClient::Connect(server_.ws_url());
  v1::MatchSettings settings;
  settings.set_ruleset("coc");
  const v1::MatchCreated coc = a->Create(settings);
  ASSERT_TRUE(a->Join(coc.match_id(), coc.side_a_token()).has_joined());
  ASSERT_TRUE(b->Join(coc.match_id(), coc.side_b_token()).has_joined());
  const Answer early = Preview(coc.match_id(), coc.side_a_token(), "");
  EXPECT_EQ(early.status, 422);
  EXPECT_THAT(early.body, HasSubstr("the contact is not set up yet"));
  ASSERT_TRUE(a->Act(testing::coc::SovietPart(false)).has_ack());
  ASSERT_TRUE(b->Act(testing::coc::GermanPart()).has_ack());
  ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
  ASSERT_TRUE(a->Act(Confirm()).has_ack());
  ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
  ASSERT_TRUE(b->Act(Confirm()).has_ack());
  const Answer round = Preview(coc.match_id(), coc.side_b_token(), "");
  ASSERT_EQ(round.status, 200) << round.body;
  melee::coc::v1::PreviewTable table;
  ASSERT_EQ(proto::FromJson(round.body, table), "") << round.body;
  // 17.3: the pools of rule 17's "In action" (the same counts coc_match_test rolls).
  EXPECT_EQ(table.attacker_dice() + table.defender_dice(), 8 + 13) << round.body;
  EXPECT_FALSE(table.margins().empty());

  settings.set_ruleset("vv");
  settings.set_variant("board");
  const v1::MatchCreated vv = a->Create(settings);
  const Answer not_built = Preview(vv.match_id(), vv.side_a_token(), "");
  EXPECT_EQ(not_built.status, 501);
  EXPECT_THAT(not_built.body, HasSubstr("not supported: a preview of a vv close assault"));
}

class RosterReadTest : public ::testing::Test {
 protected:
  testing::HttpResult Read(const std::string& body, http::verb verb = http::verb::post) {
    return testing::HttpGet(server_.port(), "/api/rosters/read", verb, body);
  }
  testing::TestServer server_;
};

std::string Asked(const std::string& ruleset, const std::string& seat, const std::string& text) {
  v1::RosterRequest request;
  request.set_ruleset(ruleset);
  v1::Seat wire = v1::SEAT_UNSPECIFIED;
  EXPECT_TRUE(v1::Seat_Parse(seat, &wire)) << seat;
  request.set_seat(wire);
  request.set_text(text);
  request.set_source("roster.txt");
  return proto::ToJson(request);
}

TEST_F(RosterReadTest, ReadsARosterAsMeleeSubmitDoes) {
  const std::string roster =
      "ruleset: coc\nside: side_a\nattacker: side_a\nposition: building-from-outside\n"
      "force-morale: 9\n"
      "soviet_smg: \"Soviet SMG Section\" movement=1 through-arc=german_lmg: team soviet_team 7 7 "
      "smg; leader soviet_jl smg\n";
  const testing::HttpResult read = Read(Asked("coc", "SEAT_SIDE_A", roster));
  ASSERT_EQ(read.status, 200) << read.body;
  v1::SubmitSetup setup;
  ASSERT_EQ(proto::FromJson(read.body, setup), "") << read.body;
  auto expected = proto::ReadSideSetup("coc", roster, v1::SEAT_SIDE_A, "roster.txt");
  ASSERT_TRUE(expected) << engine::Describe(expected.error());
  EXPECT_EQ(setup.SerializeAsString(), expected->SerializeAsString());
  ASSERT_EQ(setup.coc().units_size(), 1);
  EXPECT_EQ(setup.coc().units(0).teams(0).figures(), 7);
}

TEST_F(RosterReadTest, NamesTheLineOfAMistakeAndRefusesBadRequests) {
  const testing::HttpResult typo =
      Read(Asked("asl", "SEAT_SIDE_A", "location: G3\nattacker: side_a\nG1: 4-6-7\nG2: 9-9-9-9\n"));
  EXPECT_EQ(typo.status, 422) << typo.body;
  EXPECT_THAT(typo.body, HasSubstr("roster.txt"));
  EXPECT_THAT(typo.body, HasSubstr("roster.txt:4: '9-9-9-9' is not a counter"));
  const testing::HttpResult get = Read("", http::verb::get);
  EXPECT_EQ(get.status, 405);
  const testing::HttpResult garbage = Read("{\"ruleset\": 7}");
  EXPECT_EQ(garbage.status, 400);
  EXPECT_THAT(garbage.body, HasSubstr("not a melee.v1.RosterRequest"));
  const testing::HttpResult no_seat = Read("{\"ruleset\": \"asl\", \"text\": \"G1: 4-6-7\"}");
  EXPECT_EQ(no_seat.status, 400);
  EXPECT_THAT(no_seat.body, HasSubstr("seat: SEAT_SIDE_A or SEAT_SIDE_B"));
  const testing::HttpResult huge = Read(Asked("asl", "SEAT_SIDE_A", std::string(70000, '#')));
  EXPECT_EQ(huge.status, 413);
  const testing::HttpResult unknown = Read(Asked("chess", "SEAT_SIDE_A", "K: king"));
  EXPECT_EQ(unknown.status, 422) << unknown.body;
}

}  // namespace
}  // namespace melee
