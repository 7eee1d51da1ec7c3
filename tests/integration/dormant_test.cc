// A restart that does not replay finished matches (issue 26, "Restart"): a match that owes nothing
// on a timer is marked dormant in the store; a restarting server lists it without loading it,
// loads it when it is first asked for (a seat joining, a tournament's listing), and replays every
// dormant match once in the background, so a damaged one is still found and refused with the
// reason. A match whose close combat is being resolved is loaded before the server listens.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "melee/v1/tournament.pb.h"
#include "proto/codec/json.h"
#include "tests/testing/asl_commands.h"
#include "tests/testing/http_get.h"
#include "tests/testing/match_client.h"
#include "tests/testing/scripted_faces.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
using ::testing::HasSubstr;
using testing::AnnounceNothing;
using testing::Confirm;
using testing::EnterUnits;
using testing::MatchClient;
using testing::Metric;
using testing::ScriptedFaces;
using testing::Seal;
using testing::Squad;

void Tamper(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(handle);
}

v1::MatchSettings Asl(const std::string& tournament_id = {}) {
  v1::MatchSettings settings;
  settings.set_ruleset("asl");
  settings.set_tournament_id(tournament_id);
  return settings;
}

// Creates a match and seats both sides: side A's client `a`, side B's `b`.
void SeatBothSides(testing::TestServer& server, const v1::MatchSettings& settings,
                   v1::MatchCreated& created, std::unique_ptr<MatchClient>& a,
                   std::unique_ptr<MatchClient>& b) {
  a = MatchClient::Connect(server.ws_url());
  b = MatchClient::Connect(server.ws_url());
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  created = a->Create(settings);
  ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
  ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
}

// Seats both sides of a new match and enters and confirms G1 (side A, the ATTACKER) against R1:
// its close combat is then being resolved (both announcements awaited).
void StartCloseCombat(testing::TestServer& server, const v1::MatchSettings& settings,
                      v1::MatchCreated& created, std::unique_ptr<MatchClient>& a,
                      std::unique_ptr<MatchClient>& b) {
  ASSERT_NO_FATAL_FAILURE(SeatBothSides(server, settings, created, a, b));
  ASSERT_TRUE(a->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 6, "6-4-7")}, true)).has_ack());
  ASSERT_TRUE(b->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7")}, false)).has_ack());
  for (MatchClient* client : {a.get(), b.get()}) {
    ASSERT_TRUE(client->WaitForSeq(std::max(a->last_seq(), b->last_seq())));
    ASSERT_TRUE(client->Act(Confirm()).has_ack());
  }
  ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
  ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
}

// Plays the close combat StartCloseCombat began to its end: side A's DR 3 eliminates R1.
void FinishCloseCombat(ScriptedFaces& faces, MatchClient& a, MatchClient& b) {
  ASSERT_TRUE(a.Act(AnnounceNothing()).has_ack());
  ASSERT_TRUE(b.WaitForSeq(a.last_seq()));
  ASSERT_TRUE(b.Act(AnnounceNothing()).has_ack());
  ASSERT_TRUE(b.Act(Seal({{{"R1"}, {"G1"}}})).has_ack());
  faces.Push({1, 2, 5, 6});
  ASSERT_TRUE(a.WaitForSeq(b.last_seq()));
  ASSERT_TRUE(a.Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  ASSERT_TRUE(b.WaitForSeq(a.last_seq()));
  ASSERT_EQ(b.view().stage(), v1::STAGE_ENDED);
}

// A seat of `finished` (its close combat ended at `finished_seq`) joins: the match is loaded,
// replayed and shown as it was, and plays on (the next close combat's set-up is taken).
void ExpectTheFinishedMatchComesBackAndPlaysOn(testing::TestServer& server,
                                               const v1::MatchCreated& finished,
                                               uint64_t finished_seq,
                                               double dormant_after = 0, double loaded_after = 2) {
  auto a = MatchClient::Connect(server.ws_url());
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Join(finished.match_id(), finished.side_a_token()).has_joined());
  EXPECT_EQ(a->view().seq(), finished_seq);
  EXPECT_EQ(a->view().stage(), v1::STAGE_ENDED);
  ASSERT_EQ(a->view().side_b_force_size(), 1);
  EXPECT_EQ(a->view().side_b_force(0).fate(), v1::FORCE_FATE_ELIMINATED);
  EXPECT_EQ(Metric(server.port(), "melee_matches_dormant"), dormant_after);
  EXPECT_EQ(Metric(server.port(), "melee_matches"), loaded_after);
  v1::ClientMessage next = EnterUnits({Squad("G2", v1::SEAT_SIDE_A, 6, "6-4-7")}, true);
  next.mutable_submit_setup()->mutable_asl()->mutable_location()->set_name("H4");
  EXPECT_TRUE(a->Act(next).has_ack());
}

// A seat of `playing` (its close combat being resolved, both announcements awaited) joins and
// goes on where it was.
void ExpectTheCloseCombatGoesOn(testing::TestServer& server, const v1::MatchCreated& playing) {
  auto c = MatchClient::Connect(server.ws_url());
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Join(playing.match_id(), playing.side_a_token()).has_joined());
  EXPECT_EQ(c->view().stage(), v1::STAGE_PLAYING);
  EXPECT_TRUE(c->Act(AnnounceNothing()).has_ack());
}

TEST(DormantMatchTest, AFinishedMatchIsListedAtStartAndLoadedWhenFirstAskedFor) {
  testing::TempDir dir;
  const auto data = dir.path() / "data";
  ScriptedFaces faces;
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  v1::MatchCreated finished;
  v1::MatchCreated playing;
  uint64_t finished_seq = 0;
  {
    testing::TestServer server({}, hooks, data);
    std::unique_ptr<MatchClient> a;
    std::unique_ptr<MatchClient> b;
    ASSERT_NO_FATAL_FAILURE(StartCloseCombat(server, Asl(), finished, a, b));
    ASSERT_NO_FATAL_FAILURE(FinishCloseCombat(faces, *a, *b));
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    finished_seq = a->last_seq();
    std::unique_ptr<MatchClient> c;
    std::unique_ptr<MatchClient> d;
    ASSERT_NO_FATAL_FAILURE(StartCloseCombat(server, Asl(), playing, c, d));
  }

  testing::TestServer server({}, hooks, data);
  // Listed, not loaded: the finished match waits in the store; the one being played is loaded.
  EXPECT_EQ(Metric(server.port(), "melee_matches_dormant"), 1);
  EXPECT_EQ(Metric(server.port(), "melee_matches"), 1);
  EXPECT_EQ(testing::HttpGet(server.port(), "/healthz").status, 200);

  // A seat of the finished match joins: it is loaded, replayed, shown as it was, and plays on.
  ExpectTheFinishedMatchComesBackAndPlaysOn(server, finished, finished_seq);
  // The match being played was loaded before the server listened and goes on.
  ExpectTheCloseCombatGoesOn(server, playing);
}

TEST(DormantMatchTest, ADamagedDormantMatchIsFoundByTheBackgroundReplayAndRefused) {
  testing::TempDir dir;
  const auto data = dir.path() / "data";
  ScriptedFaces faces;
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  v1::MatchCreated damaged;
  {
    testing::TestServer server({}, hooks, data);
    std::unique_ptr<MatchClient> a;
    std::unique_ptr<MatchClient> b;
    ASSERT_NO_FATAL_FAILURE(StartCloseCombat(server, Asl(), damaged, a, b));
    ASSERT_NO_FATAL_FAILURE(FinishCloseCombat(faces, *a, *b));
  }
  Tamper(data / "melee.db",
         "UPDATE events SET payload = CAST('garbled' AS BLOB) WHERE seq = 2 AND match_no = "
         "(SELECT match_no FROM matches WHERE match_id = '" + damaged.match_id() + "')");

  testing::TestServer server({}, hooks, data);
  testing::HttpResult health = testing::HttpGet(server.port(), "/healthz");
  for (int i = 0; i < 200 && health.status == 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    health = testing::HttpGet(server.port(), "/healthz");
  }
  const std::string why = "event 2 of match " + damaged.match_id() + " is damaged";
  EXPECT_EQ(health.status, 503) << health.body;
  EXPECT_THAT(health.body, HasSubstr("match " + damaged.match_id() +
                                     " could not be recovered: " + why));
  EXPECT_EQ(Metric(server.port(), "melee_matches_unrecovered"), 1);
  EXPECT_EQ(Metric(server.port(), "melee_matches_dormant"), 0);

  auto seat = MatchClient::Connect(server.ws_url());
  ASSERT_NE(seat, nullptr);
  const v1::ServerMessage refused = seat->Join(damaged.match_id(), damaged.side_a_token());
  EXPECT_THAT(refused.error().message(),
              HasSubstr("this match is on this server but could not be recovered: " + why));
}

// A set-up step leaves the match owing nothing on a timer: the append of its events marks the
// match dormant in the same transaction (one fsync), with no marker of its own after it. Seen as
// one store transaction per command in /metrics, and after a restart, which lists the match
// without loading it; it is loaded, and plays on, when a seat comes back.
TEST(DormantMatchTest, ASetUpStepMarksTheMatchDormantInTheTransactionOfItsEvents) {
  testing::TempDir dir;
  const auto data = dir.path() / "data";
  v1::MatchCreated created;
  {
    testing::TestServer server({}, {}, data);
    std::unique_ptr<MatchClient> a;
    std::unique_ptr<MatchClient> b;
    ASSERT_NO_FATAL_FAILURE(SeatBothSides(server, Asl(), created, a, b));
    ASSERT_TRUE(a->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 6, "6-4-7")}, true)).has_ack());
    ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
    const double before = Metric(server.port(), "melee_store_transactions_total");
    ASSERT_GE(before, 1);
    ASSERT_TRUE(b->Act(EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7")}, false)).has_ack());
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    ASSERT_TRUE(a->Act(Confirm()).has_ack());
    EXPECT_EQ(Metric(server.port(), "melee_store_transactions_total"), before + 2)
        << "two set-up steps, two transactions";
  }
  testing::TestServer server({}, {}, data);
  EXPECT_EQ(Metric(server.port(), "melee_matches_dormant"), 1);
  EXPECT_EQ(Metric(server.port(), "melee_matches"), 0);
  auto b = MatchClient::Connect(server.ws_url());
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
  EXPECT_EQ(b->view().stage(), v1::STAGE_SETUP);
  ASSERT_TRUE(b->Act(Confirm()).has_ack());
  EXPECT_EQ(b->view().stage(), v1::STAGE_PLAYING);
}

// A tournament's listing loads its dormant matches (their markers name the tournament).
TEST(DormantMatchTest, ATournamentListsItsDormantMatchesAfterARestart) {
  testing::TempDir dir;
  const auto data = dir.path() / "data";
  v1::TournamentCreated tournament;
  v1::MatchCreated match;
  {
    testing::TestServer server({}, {}, data);
    const testing::HttpResult created = testing::HttpGet(
        server.port(), "/api/tournaments", http::verb::post, R"({"title": "Spring open"})");
    ASSERT_EQ(created.status, 201) << created.body;
    ASSERT_EQ(proto::FromJson(created.body, tournament), "");
    const testing::HttpResult made = testing::HttpGet(
        server.port(), "/api/matches", http::verb::post,
        R"({"ruleset": "asl", "tournament_id": ")" + tournament.tournament_id() + R"("})",
        {{"Authorization", "Bearer " + tournament.director_token()}});
    ASSERT_EQ(made.status, 201) << made.body;
    ASSERT_EQ(proto::FromJson(made.body, match), "");
    // A set-up part entered: nothing owed on a timer, so the match is marked dormant.
    auto a = MatchClient::Connect(server.ws_url());
    ASSERT_TRUE(a->Join(match.match_id(), match.side_a_token()).has_joined());
    ASSERT_TRUE(a->Act(EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 6, "6-4-7")}, true)).has_ack());
  }
  testing::TestServer server({}, {}, data);
  EXPECT_EQ(Metric(server.port(), "melee_matches_dormant"), 1);
  const testing::HttpResult listed = testing::HttpGet(
      server.port(), "/api/tournaments/" + tournament.tournament_id(), http::verb::get, {},
      {{"Authorization", "Bearer " + tournament.director_token()}});
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_THAT(listed.body, HasSubstr(match.match_id()));
  EXPECT_EQ(Metric(server.port(), "melee_matches_dormant"), 0);
}

// A long-running server unloads a match nothing uses (--unload-idle-seconds): no session follows
// it, no request holds it, it owes nothing on a timer. It is dormant again, and loaded from the
// store when next asked for, as it was. A match whose close combat is being resolved stays.
TEST(DormantMatchTest, AnIdleMatchIsUnloadedAndLoadedAgainWhenAskedFor) {
  ScriptedFaces faces;
  auto clock = std::make_shared<server::ManualClock>();
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  hooks.clock = clock;
  server::ServerConfig config;
  config.unload_idle_seconds = 60;
  testing::TestServer server(config, hooks);
  const auto idle_for_a_while = [&] {
    // The server's sweep runs every 500 ms: the first one after a match is let go notes it
    // unused, a later one unloads it.
    for (int i = 0; i < 4; ++i) {
      clock->Advance(std::chrono::seconds(61));
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  };

  v1::MatchCreated finished;
  v1::MatchCreated playing;
  std::unique_ptr<MatchClient> a;
  std::unique_ptr<MatchClient> b;
  ASSERT_NO_FATAL_FAILURE(StartCloseCombat(server, Asl(), finished, a, b));
  ASSERT_NO_FATAL_FAILURE(FinishCloseCombat(faces, *a, *b));
  ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
  const uint64_t finished_seq = a->last_seq();
  {
    std::unique_ptr<MatchClient> c;
    std::unique_ptr<MatchClient> d;
    ASSERT_NO_FATAL_FAILURE(StartCloseCombat(server, Asl(), playing, c, d));
  }  // its seats leave in the middle of the close combat

  // Followed by its seats, the finished match stays however long nothing happens; the one its
  // seats left goes.
  idle_for_a_while();
  idle_for_a_while();
  EXPECT_EQ(Metric(server.port(), "melee_matches"), 1);
  EXPECT_EQ(Metric(server.port(), "melee_matches_dormant"), 1);

  a.reset();
  b.reset();
  double dormant = 0;
  // Both go: the finished match, and the one left in the middle of its close combat (no deadline
  // runs, so nothing will happen to it until a seat comes back).
  for (int i = 0; i < 20 && dormant != 2; ++i) {
    idle_for_a_while();
    dormant = Metric(server.port(), "melee_matches_dormant");
  }
  EXPECT_EQ(dormant, 2);
  EXPECT_EQ(Metric(server.port(), "melee_matches"), 0);
  EXPECT_EQ(Metric(server.port(), "melee_matches_unloaded_total"), 2);

  // A seat of the finished match comes back: it is loaded again, as it was, and plays on.
  ExpectTheFinishedMatchComesBackAndPlaysOn(server, finished, finished_seq, 1, 1);
  // The seats of the close combat being resolved come back to it where they left it.
  ExpectTheCloseCombatGoesOn(server, playing);
}

// A close combat left with one seal in it (no deadline runs): it is unloaded like any idle match,
// and when its seats come back it is replayed from the log and resolves with that seal, which
// the other seat never saw before sealing its own.
TEST(DormantMatchTest, ACloseCombatLeftWithOneSealIsUnloadedAndResolvesWhenItsSeatsComeBack) {
  ScriptedFaces faces;
  auto clock = std::make_shared<server::ManualClock>();
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  hooks.clock = clock;
  server::ServerConfig config;
  config.unload_idle_seconds = 60;
  testing::TestServer server(config, hooks);
  v1::MatchCreated playing;
  {
    std::unique_ptr<MatchClient> a;
    std::unique_ptr<MatchClient> b;
    ASSERT_NO_FATAL_FAILURE(StartCloseCombat(server, Asl(), playing, a, b));
    ASSERT_TRUE(a->Act(AnnounceNothing()).has_ack());
    ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
    ASSERT_TRUE(b->Act(AnnounceNothing()).has_ack());
    ASSERT_TRUE(b->Act(Seal({{{"R1"}, {"G1"}}})).has_ack());
  }  // both seats leave; B's seal waits for A's
  // Up to 30 s: with both cores busy (a compiler or a busy loop beside the test) the match took
  // 1.3 to 12 s to unload, and 12 s was this loop's limit before.
  double unloaded = 0;
  for (int i = 0; i < 100 && unloaded != 1; ++i) {
    clock->Advance(std::chrono::seconds(61));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    unloaded = Metric(server.port(), "melee_matches_unloaded_total");
  }
  ASSERT_EQ(unloaded, 1);
  EXPECT_EQ(Metric(server.port(), "melee_matches"), 0);

  auto a = MatchClient::Connect(server.ws_url());
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Join(playing.match_id(), playing.side_a_token()).has_joined());
  const v1::MatchView before = a->view();
  EXPECT_EQ(before.stage(), v1::STAGE_PLAYING);
  EXPECT_TRUE(before.asl().side_b_sealed()) << before.asl().ShortDebugString();
  EXPECT_FALSE(before.asl().has_side_b_declaration()) << "B's seal stays secret";
  for (const v1::MatchEvent& event : a->events()) {
    EXPECT_FALSE(event.asl().has_seal()) << "seq " << event.seq() << ": " << event.ShortDebugString();
  }
  faces.Push({1, 2, 5, 6});
  ASSERT_TRUE(a->Act(Seal({{{"G1"}, {"R1"}}})).has_ack());
  EXPECT_EQ(a->view().stage(), v1::STAGE_ENDED);
  int revealed = 0;
  for (const v1::MatchEvent& event : a->events()) {
    if (!event.has_declarations_revealed()) continue;
    ++revealed;
    const auto& b_seal = event.declarations_revealed().side_b().asl();
    ASSERT_EQ(b_seal.attacks_size(), 1) << "B's seal, as it was sealed";
    EXPECT_EQ(b_seal.attacks(0).attackers(0), "R1");
  }
  EXPECT_EQ(revealed, 1);
}

}  // namespace
}  // namespace melee
