// GET /api/matches/{id}/replay?at=<k> over a real server: the view a viewer had right after
// event k, for the web page's replay scrubber. It is the very view each seat, the spectator and
// the director received live after k (recorded while playing a two-CCPh Melee); between the
// events of one command it is the state after k. It tells the opponent and a spectator nothing
// of a sealed declaration before its reveal, and a spectator nothing of a concealed unit: two
// matches that differ only in those secrets get byte-identical answers. Bad requests get clear
// errors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "melee/asl/v1/asl.pb.h"
#include "melee/v1/envelope.pb.h"
#include "proto/codec/frame.h"
#include "proto/codec/json.h"
#include "tests/testing/asl_commands.h"
#include "tests/testing/http_get.h"
#include "tests/testing/match_client.h"
#include "tests/testing/match_frames.h"
#include "tests/testing/scripted_faces.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;
using testing::AnnounceNothing;
using testing::Confirm;
using testing::EnterUnits;
using ::testing::HasSubstr;
using testing::MatchClient;
using testing::ScriptedFaces;
using testing::Seal;
using testing::Squad;

struct Answer {
  int status = 0;
  std::string body;
  std::string allow;
  // The message of the melee.v1.Error the body holds ("" when it holds none).
  std::string message() const {
    v1::Error error;
    return proto::FromJson(body, error).empty() ? error.message() : "";
  }
};

// Returns `view` with what is no part of the log cleared: how many connections each side has.
v1::MatchView WithoutConnections(v1::MatchView view) {
  view.mutable_side_a()->clear_connections();
  view.mutable_side_b()->clear_connections();
  return view;
}

// Returns `text` with every `match_id` replaced by "M", so two matches' answers compare.
std::string Anonymous(std::string text, const std::string& match_id) {
  for (size_t at = text.find(match_id); at != std::string::npos; at = text.find(match_id, at)) {
    text.replace(at, match_id.size(), "M");
  }
  return text;
}

// The seats, the spectator and the director of one match, each over its own WebSocket.
struct Table {
  v1::MatchCreated created;
  std::unique_ptr<MatchClient> a, b, spectator, director;

  std::vector<MatchClient*> all() const {
    return {a.get(), b.get(), spectator.get(), director.get()};
  }
  // Waits until every client has the events up to the latest any of them saw, and its view.
  bool Settle() const {
    uint64_t last = 0;
    for (MatchClient* client : all()) last = std::max(last, client->last_seq());
    for (MatchClient* client : all()) {
      if (!client->WaitForSeq(last)) return false;
    }
    return true;
  }
  // The seat whose announcement or declaration the rules wait for now.
  MatchClient& ToAct() const { return a->view().asl().to_act() == v1::SEAT_SIDE_B ? *b : *a; }
};

class ReplayTest : public ::testing::Test {
 protected:
  ReplayTest() : server_({}, Hooks()) {}

  server::ServerHooks Hooks() {
    server::ServerHooks hooks;
    hooks.dice = faces_.Source();
    return hooks;
  }

  Answer Replay(const std::string& match_id, const std::string& token, const std::string& query,
                http::verb verb = http::verb::get) {
    std::vector<std::pair<std::string, std::string>> headers;
    if (!token.empty()) headers.emplace_back("Authorization", "Bearer " + token);
    const testing::HttpResult answer = testing::HttpGet(
        server_.port(), "/api/matches/" + match_id + "/replay" + query, verb, "", headers);
    EXPECT_TRUE(answer.error.empty()) << answer.error;
    return {answer.status, answer.body, answer.Header("Allow")};
  }

  // The view `token` opens as of event `at`.
  v1::MatchView ViewAt(const std::string& match_id, const std::string& token, uint64_t at) {
    const Answer answer = Replay(match_id, token, "?at=" + std::to_string(at));
    EXPECT_EQ(answer.status, 200) << "at " << at << ": " << answer.body;
    v1::MatchView view;
    EXPECT_EQ(proto::FromJson(answer.body, view), "") << answer.body;
    return view;
  }

  // Creates an asl match; seats side A and side B; the spectator and the director follow it.
  Table Open() {
    Table table;
    table.a = MatchClient::Connect(server_.ws_url(), proto::FrameKind::kText);
    table.b = MatchClient::Connect(server_.ws_url());
    table.spectator = MatchClient::Connect(server_.ws_url(), proto::FrameKind::kText);
    table.director = MatchClient::Connect(server_.ws_url());
    v1::MatchSettings settings;
    settings.set_ruleset("asl");
    table.created = table.a->Create(settings);
    const v1::MatchCreated& c = table.created;
    EXPECT_TRUE(table.a->Join(c.match_id(), c.side_a_token()).has_joined());
    EXPECT_TRUE(table.b->Join(c.match_id(), c.side_b_token()).has_joined());
    EXPECT_TRUE(table.spectator->Join(c.match_id(), c.spectator_key(), 0, true).has_joined());
    EXPECT_TRUE(table.director->Join(c.match_id(), c.director_token(), 0, true).has_joined());
    return table;
  }

  // Side A: G1 (6 FP), the ATTACKER in G3. Side B: R1 (4-4-7) and, when `hidden` has an id, a
  // concealed unit. Both confirm and announce nothing: the Location is at designation.
  void ToDesignation(Table& t, const aslpb::Unit& hidden) {
    ASSERT_TRUE(t.a->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 6, "6-4-7")}, true)).has_ack());
    std::vector<aslpb::Unit> units = {Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7")};
    if (!hidden.id().empty()) units.push_back(hidden);
    ASSERT_TRUE(t.b->Act(EnterUnits(units, false)).has_ack());
    ASSERT_TRUE(t.Settle());
    ASSERT_TRUE(t.a->Act(Confirm()).has_ack());
    ASSERT_TRUE(t.Settle());
    ASSERT_TRUE(t.b->Act(Confirm()).has_ack());
    AnnounceBoth(t);
  }

  // Both sides announce nothing, the one the rules wait for first.
  void AnnounceBoth(Table& t) {
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(t.Settle());
      ASSERT_EQ(t.a->view().asl().phase(), aslpb::PHASE_ANNOUNCE) << t.a->view().DebugString();
      ASSERT_TRUE(t.ToAct().Act(AnnounceNothing()).has_ack());
    }
    ASSERT_TRUE(t.Settle());
    ASSERT_EQ(t.a->view().asl().phase(), aslpb::PHASE_DECLARE) << t.a->view().DebugString();
  }

  // The seq of the event in which `seat` sealed its declaration last, as `client` saw it.
  static uint64_t SealedAt(const MatchClient& client, v1::Seat seat) {
    uint64_t seq = 0;
    for (const v1::MatchEvent& event : client.events()) {
      if (event.has_declaration_sealed() && event.declaration_sealed().seat() == seat) {
        seq = event.seq();
      }
    }
    return seq;
  }

  ScriptedFaces faces_;
  testing::TestServer server_;
};

aslpb::Unit Concealed(const std::string& name, int morale) {
  aslpb::Unit unit = Squad("R2", v1::SEAT_SIDE_B, 4, name);
  unit.set_morale(morale);
  unit.set_concealed(true);
  return unit;
}

TEST_F(ReplayTest, IsTheViewEachViewerReceivedLiveAfterEachEvent) {
  Table t = Open();
  ToDesignation(t, {});
  // CCPh 1, side A attacking: both attack, neither harms the other (DR 11, then DR 10), so the
  // Location is in Melee (A11.15) and CCPh 2 begins by itself, side B attacking.
  ASSERT_TRUE(t.b->Act(Seal({{{"R1"}, {"G1"}}})).has_ack());
  faces_.Push({5, 6, 5, 5});
  ASSERT_TRUE(t.Settle());
  ASSERT_TRUE(t.a->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  ASSERT_TRUE(t.a->WaitForView([](const v1::MatchView& v) {
    return v.ccph() == 2 && v.asl().phase() == aslpb::PHASE_ANNOUNCE;
  }));
  AnnounceBoth(t);
  // CCPh 2: side B's R1 misses (DR 10), side A's G1 eliminates it (DR 3): the close combat ends.
  ASSERT_TRUE(t.a->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  faces_.Push({5, 5, 1, 2});
  ASSERT_TRUE(t.Settle());
  ASSERT_TRUE(t.b->Act(Seal({{{"R1"}, {"G1"}}})).has_ack());
  ASSERT_TRUE(t.Settle());
  ASSERT_EQ(t.a->view().stage(), v1::STAGE_ENDED) << t.a->view().DebugString();
  const uint64_t last = t.a->last_seq();

  const std::string& id = t.created.match_id();
  const std::vector<std::pair<MatchClient*, std::string>> viewers = {
      {t.a.get(), t.created.side_a_token()},
      {t.b.get(), t.created.side_b_token()},
      {t.spectator.get(), t.created.spectator_key()},
      {t.director.get(), t.created.director_token()}};
  size_t compared = 0;
  for (const auto& [client, token] : viewers) {
    // Every view the client received live: the replay as of its seq is that view.
    std::map<uint64_t, v1::MatchView> replayed;
    for (uint64_t k = 1; k <= last; ++k) {
      replayed[k] = ViewAt(id, token, k);
      EXPECT_EQ(replayed[k].seq(), k);
      EXPECT_EQ(replayed[k].seat(), client->view().seat());
    }
    for (const v1::ServerMessage& message : client->received()) {
      if (!message.has_view() && !message.has_joined()) continue;
      const v1::MatchView& live = message.has_view() ? message.view() : message.joined().view();
      ASSERT_TRUE(replayed.contains(live.seq()));
      EXPECT_EQ(proto::SerializeDeterministic(WithoutConnections(live)),
                proto::SerializeDeterministic(replayed[live.seq()]))
          << "seat " << v1::Seat_Name(live.seat()) << ", event " << live.seq() << "\nlive:\n"
          << live.DebugString() << "\nreplayed:\n"
          << replayed[live.seq()].DebugString();
      ++compared;
    }
  }
  // Each viewer received a view after every command's events (and when it joined).
  EXPECT_GE(compared, 4u * 12);

  // Between the events of one command: as of side A's seal in CCPh 2, both have sealed and
  // nothing is revealed yet (the reveal and the rolls came with side B's seal, one batch).
  const uint64_t b_sealed = SealedAt(*t.a, v1::SEAT_SIDE_B);
  ASSERT_GT(b_sealed, 0u);
  const v1::MatchView before_reveal = ViewAt(id, t.created.side_a_token(), b_sealed);
  EXPECT_EQ(before_reveal.asl().phase(), aslpb::PHASE_DECLARE);
  EXPECT_TRUE(before_reveal.asl().side_a_sealed());
  EXPECT_TRUE(before_reveal.asl().side_b_sealed());
  EXPECT_FALSE(before_reveal.asl().has_side_b_declaration()) << before_reveal.DebugString();
  EXPECT_EQ(before_reveal.stage(), v1::STAGE_PLAYING);
  // The next event is the reveal: both declarations, for side A too.
  const v1::MatchView revealed = ViewAt(id, t.created.side_a_token(), b_sealed + 1);
  EXPECT_TRUE(revealed.asl().has_side_b_declaration()) << revealed.DebugString();
}

TEST_F(ReplayTest, ShowsNothingOfASealedDeclarationOrAConcealedUnit) {
  // Two matches alike but for side B's secrets: its concealed R2 (another counter of the same
  // Strength Factor) and its sealed declaration (an attack in one, none in the other).
  Table x = Open();
  ToDesignation(x, Concealed("SECRET-447", 7));
  Table y = Open();
  ToDesignation(y, Concealed("SECRET-628", 8));
  ASSERT_TRUE(x.b->Act(Seal({{{"R1"}, {"G1"}}})).has_ack());
  ASSERT_TRUE(y.b->Act(Seal({})).has_ack());
  for (Table* t : {&x, &y}) {
    ASSERT_TRUE(t->Settle());
    faces_.Push({5, 6, 5, 5});  // no effect either way: a Melee (A11.15)
    ASSERT_TRUE(t->a->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
    ASSERT_TRUE(t->Settle());
  }
  // Side A sealed last: its seal, the reveal and the rolls are one command's events. As of its
  // seal nothing is revealed yet.
  const uint64_t a_sealed = SealedAt(*x.a, v1::SEAT_SIDE_A);
  ASSERT_EQ(a_sealed, SealedAt(*y.a, v1::SEAT_SIDE_A));
  ASSERT_GT(a_sealed, 0u);

  const std::string& xid = x.created.match_id();
  const std::string& yid = y.created.match_id();
  for (const auto& [x_token, y_token, who] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {x.created.side_a_token(), y.created.side_a_token(), "side A"},
           {x.created.spectator_key(), y.created.spectator_key(), "the spectator"}}) {
    for (uint64_t k = 1; k <= a_sealed; ++k) {
      const Answer one = Replay(xid, x_token, "?at=" + std::to_string(k));
      const Answer two = Replay(yid, y_token, "?at=" + std::to_string(k));
      ASSERT_EQ(one.status, 200) << one.body;
      ASSERT_EQ(two.status, 200) << two.body;
      EXPECT_EQ(Anonymous(one.body, xid), Anonymous(two.body, yid))
          << who << " at event " << k << " tells the two matches apart";
    }
    // Never the concealed unit's identity, before the reveal or after it.
    for (const auto& [id, token, last] :
         std::vector<std::tuple<std::string, std::string, uint64_t>>{
             {xid, x_token, x.a->last_seq()}, {yid, y_token, y.a->last_seq()}}) {
      for (uint64_t k = 1; k <= last; ++k) {
        const Answer answer = Replay(id, token, "?at=" + std::to_string(k));
        ASSERT_EQ(answer.status, 200) << answer.body;
        EXPECT_EQ(answer.body.find("SECRET"), std::string::npos)
            << who << " at event " << k << ": " << answer.body;
      }
    }
  }
  // Side B sees its own counter; the director sees everything.
  EXPECT_THAT(Replay(xid, x.created.side_b_token(), "?at=" + std::to_string(a_sealed)).body,
              HasSubstr("SECRET-447"));
  EXPECT_THAT(Replay(yid, y.created.director_token(), "?at=" + std::to_string(a_sealed)).body,
              HasSubstr("SECRET-628"));
  // After the reveal side A sees side B's declaration (the attack in x, none in y).
  const v1::MatchView shown = ViewAt(xid, x.created.side_a_token(), a_sealed + 1);
  ASSERT_EQ(shown.asl().side_b_declaration().attacks_size(), 1) << shown.DebugString();
  EXPECT_EQ(shown.asl().side_b_declaration().attacks(0).attackers(0), "R1");
}

TEST_F(ReplayTest, RefusesBadRequestsClearly) {
  Table t = Open();
  ToDesignation(t, {});
  const std::string& id = t.created.match_id();
  const std::string& token = t.created.side_a_token();
  const uint64_t last = t.a->last_seq();

  const Answer missing = Replay(id, token, "");
  EXPECT_EQ(missing.status, 400);
  EXPECT_THAT(missing.message(), HasSubstr("replay needs the event number"));
  for (const std::string query :
       {"?at=", "?at", "?at=abc", "?at=-1", "?at=1.5", "?at=+3", "?at=99999999999999999999"}) {
    const Answer bad = Replay(id, token, query);
    EXPECT_EQ(bad.status, 400) << query;
    EXPECT_THAT(bad.message(), HasSubstr("`at` must be an event number")) << query;
  }
  const Answer zero = Replay(id, token, "?at=0");
  EXPECT_EQ(zero.status, 400);
  EXPECT_THAT(zero.message(), HasSubstr("events are numbered from 1"));
  const Answer twice = Replay(id, token, "?at=1&at=2");
  EXPECT_EQ(twice.status, 400);
  EXPECT_THAT(twice.message(), HasSubstr("given twice"));
  const Answer beyond = Replay(id, token, "?at=" + std::to_string(last + 1));
  EXPECT_EQ(beyond.status, 404);
  EXPECT_THAT(beyond.message(), HasSubstr("no event " + std::to_string(last + 1) +
                                          " yet: the match's events are "
                                          "1.." +
                                          std::to_string(last)));
  const Answer no_token = Replay(id, "", "?at=1");
  EXPECT_EQ(no_token.status, 401);
  EXPECT_THAT(no_token.message(), HasSubstr("Authorization: Bearer <token>"));
  const Answer forged = Replay(id, std::string(64, 'f'), "?at=1");
  EXPECT_EQ(forged.status, 401);
  const Answer other = Replay(id, Open().created.side_a_token(), "?at=1");
  EXPECT_EQ(other.status, 401) << "another match's token opens nothing here";
  const Answer unknown = Replay("m-none", token, "?at=1");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_THAT(unknown.message(), HasSubstr("no match \"m-none\""));
  const Answer post = Replay(id, token, "?at=1", http::verb::post);
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.allow, "GET");
  EXPECT_THAT(post.message(), HasSubstr("replay answers GET only"));
  // Every viewer's token works, each as its own viewer; other query fields are ignored.
  EXPECT_EQ(ViewAt(id, t.created.spectator_key(), 1).seat(), v1::SEAT_SPECTATOR);
  EXPECT_EQ(ViewAt(id, t.created.director_token(), 1).seat(), v1::SEAT_DIRECTOR);
  EXPECT_EQ(Replay(id, token, "?x=1&at=2").status, 200);
}

}  // namespace
}  // namespace melee
