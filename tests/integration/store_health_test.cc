// The store seen from outside, when it fails: GET /healthz answers 503 "degraded" with the
// reasons, GET /metrics counts what went wrong, and a seat gets an answer that names the
// problem. A match that could not be recovered, writes that fail (a full disk, injected through
// tests/testing/faulty_vfs.h), a lost dice-secret, a lost melee.db beside the server's secrets
// (the real binary), an oversized request body.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "persistence/sqlite_event_store.h"
#include "proto/codec/json.h"
#include "server/fair_play/verify.h"
#include "tests/testing/fair_play_match.h"
#include "tests/testing/faulty_vfs.h"
#include "tests/testing/http_get.h"
#include "tests/testing/match_client.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
using ::testing::HasSubstr;
using ::testing::Not;
using std::chrono::seconds;
using testing::FaultyVfs;
using testing::MatchClient;
using testing::WriteFault;

// Runs SQL on a closed store's file, as a damaged disk or a careless hand would.
void Tamper(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(handle);
}

using testing::MetricValue;

v1::MatchSettings Asl() {
  v1::MatchSettings settings;
  settings.set_ruleset("asl");
  return settings;
}

v1::ClientMessage EnterG1() {
  return testing::EnterUnits({testing::Squad("G1", v1::SEAT_SIDE_A, 6, "6-4-7")}, true);
}

v1::ClientMessage EnterR1() {
  return testing::EnterUnits({testing::Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7")}, false);
}

// ---- a match skipped at recovery ---------------------------------------------------------------

// A match whose log is damaged is not served after a restart; it is not forgotten either: the
// server reports degraded (503) naming it, counts it in /metrics, and tells its seats, its
// director and its exporter why, while every other match plays on.
TEST(StoreHealthTest, AMatchSkippedAtRecoveryIsNamedByHealthzMetricsAndItsSeats) {
  testing::TempDir dir;
  const auto data = dir.path() / "data";
  v1::MatchCreated damaged;
  v1::MatchCreated intact;
  {
    testing::TestServer server({}, {}, data);
    auto a = MatchClient::Connect(server.ws_url());
    ASSERT_NE(a, nullptr);
    damaged = a->Create(Asl());
    intact = a->Create(Asl());
    ASSERT_TRUE(a->Join(damaged.match_id(), damaged.side_a_token()).has_joined());
    ASSERT_TRUE(a->Act(EnterG1()).has_ack());
    ASSERT_GE(a->last_seq(), 2u);
    EXPECT_EQ(testing::HttpGet(server.port(), "/healthz").status, 200);
  }
  // A byte of event 2 changes on disk while the server is down.
  Tamper(data / "melee.db",
         "UPDATE events SET payload = CAST('garbled' AS BLOB) WHERE seq = 2 AND match_no = "
         "(SELECT match_no FROM matches WHERE match_id = '" + damaged.match_id() + "')");

  testing::TestServer server({}, {}, data);
  const std::string why = "event 2 of match " + damaged.match_id() + " is damaged";
  // The damaged match owes nothing (its set-up is under way): it is dormant, listed at start and
  // replayed in the background right after (docs/architecture.md, "Restart").
  testing::HttpResult health = testing::HttpGet(server.port(), "/healthz");
  for (int i = 0; i < 200 && health.status == 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    health = testing::HttpGet(server.port(), "/healthz");
  }
  EXPECT_EQ(health.status, 503) << health.body;
  EXPECT_THAT(health.body, HasSubstr("\"status\":\"degraded\"")) << health.body;
  EXPECT_THAT(health.body,
              HasSubstr("match " + damaged.match_id() + " could not be recovered: " + why));
  EXPECT_THAT(health.body, Not(HasSubstr(intact.match_id())));
  const testing::HttpResult metrics = testing::HttpGet(server.port(), "/metrics");
  EXPECT_EQ(MetricValue(metrics.body, "melee_matches_unrecovered"), 1) << metrics.body;

  const std::string told = "this match is on this server but could not be recovered: " + why;
  auto seat = MatchClient::Connect(server.ws_url());
  ASSERT_NE(seat, nullptr);
  v1::ServerMessage joined = seat->Join(damaged.match_id(), damaged.side_a_token());
  ASSERT_TRUE(joined.has_error()) << joined.DebugString();
  EXPECT_EQ(joined.error().code(), v1::ERROR_CODE_UNAVAILABLE);
  EXPECT_THAT(joined.error().message(), HasSubstr(told));
  joined = seat->Join(damaged.match_id(), damaged.director_token(), 0, /*spectate=*/true);
  ASSERT_TRUE(joined.has_error()) << joined.DebugString();
  EXPECT_THAT(joined.error().message(), HasSubstr(told));
  v1::ClientMessage resume;
  resume.set_command_id("resume");
  resume.mutable_resume()->set_match_id(damaged.match_id());
  v1::ServerMessage resumed = seat->Call(resume);
  ASSERT_TRUE(resumed.has_error()) << resumed.DebugString();
  EXPECT_THAT(resumed.error().message(), HasSubstr(told));
  v1::ClientMessage command = EnterR1();
  command.set_command_id("enter");
  command.mutable_submit_setup()->set_match_id(damaged.match_id());
  v1::ServerMessage answered = seat->Call(command);
  ASSERT_TRUE(answered.has_error()) << answered.DebugString();
  EXPECT_THAT(answered.error().message(), HasSubstr(told));
  const testing::HttpResult exported =
      testing::HttpGet(server.port(), "/api/matches/" + damaged.match_id() + "/export",
                       http::verb::get, {}, {{"Authorization", "Bearer " + damaged.director_token()}});
  EXPECT_EQ(exported.status, 503) << exported.body;
  EXPECT_THAT(exported.body, HasSubstr(told));

  // A match nobody has is still not found; the intact match plays on.
  v1::ServerMessage unknown = seat->Join("m0000000000000000dead", damaged.side_a_token());
  EXPECT_EQ(unknown.error().code(), v1::ERROR_CODE_NOT_FOUND) << unknown.DebugString();
  auto b = MatchClient::Connect(server.ws_url());
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->Join(intact.match_id(), intact.side_b_token()).has_joined());
  EXPECT_TRUE(b->Act(EnterR1()).has_ack());
}

// ---- writes that fail ------------------------------------------------------------------------

class FailingWritesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { FaultyVfs::Register(); }
  void TearDown() override { FaultyVfs::Clear(); }
};

// The disk fills up under a live match: the player's command is refused saying so, /healthz
// answers 503 until a write works again, /metrics counts the refused appends, a new match is
// refused over HTTP; once the disk has room the same command goes through, and the log holds
// exactly what was acknowledged.
TEST_F(FailingWritesTest, AFullDiskIsSeenByThePlayerHealthzMetricsAndHttpAndLosesNothing) {
  testing::TempDir dir;
  const auto data = dir.path() / "data";
  v1::MatchCreated created;
  uint64_t acknowledged = 0;
  {
    persistence::SqliteStoreOptions faulty;
    faulty.vfs = FaultyVfs::kName;
    testing::TestServer server({}, {}, data, faulty);
    auto a = MatchClient::Connect(server.ws_url());
    auto b = MatchClient::Connect(server.ws_url());
    ASSERT_TRUE(a && b);
    created = a->Create(Asl());
    ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
    ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
    ASSERT_TRUE(a->Act(EnterG1()).has_ack());
    ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
    const uint64_t before = a->last_seq();
    ASSERT_EQ(testing::HttpGet(server.port(), "/healthz").status, 200);

    FaultyVfs::FailWritesAfter(0, WriteFault::kDiskFull);
    v1::ClientMessage enter = EnterR1();
    enter.set_command_id("enter-r1");
    const v1::ServerMessage refused = b->Act(enter);
    ASSERT_TRUE(refused.has_error()) << refused.DebugString();
    EXPECT_EQ(refused.error().code(), v1::ERROR_CODE_UNAVAILABLE);
    EXPECT_THAT(refused.error().message(), HasSubstr("the disk is full"));
    EXPECT_THAT(refused.error().message(), HasSubstr("nothing was applied"));
    EXPECT_EQ(b->last_seq(), before) << "no event of the refused command was sent";

    testing::HttpResult health = testing::HttpGet(server.port(), "/healthz");
    EXPECT_EQ(health.status, 503) << health.body;
    EXPECT_THAT(health.body, HasSubstr("\"status\":\"degraded\""));
    EXPECT_THAT(health.body, HasSubstr("writes to the store fail"));
    EXPECT_THAT(health.body, HasSubstr("the disk is full"));
    const testing::HttpResult metrics = testing::HttpGet(server.port(), "/metrics");
    EXPECT_GE(MetricValue(metrics.body, "melee_store_failed_appends_total"), 1) << metrics.body;
    const testing::HttpResult create =
        testing::HttpGet(server.port(), "/api/matches", http::verb::post, "{\"ruleset\":\"asl\"}");
    EXPECT_EQ(create.status, 503) << create.body;
    EXPECT_THAT(create.body, HasSubstr("storage refused the new match"));
    EXPECT_THAT(create.body, HasSubstr("nothing was created"));

    FaultyVfs::Clear();  // room on the disk again; nothing else writes: /healthz probes
    health = testing::HttpGet(server.port(), "/healthz");
    EXPECT_EQ(health.status, 200) << health.body;
    EXPECT_THAT(health.body, HasSubstr("\"status\":\"ok\""));
    const v1::ServerMessage retried = b->Act(enter);
    ASSERT_TRUE(retried.has_ack()) << retried.DebugString();
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    acknowledged = b->last_seq();
    EXPECT_GT(acknowledged, before);
  }
  // The log after the server stopped: every acknowledged event, verified, and nothing else.
  auto store = persistence::SqliteEventStore::OpenDataDirectory(data);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  auto events = (*store)->Read(created.match_id());
  ASSERT_TRUE(events.has_value()) << events.error().message;
  EXPECT_EQ(events->size(), acknowledged);
}

// ---- a lost dice-secret ----------------------------------------------------------------------

// docs/fair-play.md, "For the operator": losing dice-secret loses no log. The server, started
// with a new secret, still recovers (replays) the match and serves it, but cannot roll its
// committed dice: the unfinished match is read-only, says why, and its file still verifies
// against the server's key.
TEST(StoreHealthTest, ALostDiceSecretLeavesAnUnfinishedMatchReadOnlyAndVerifiable) {
  testing::TempDir dir;
  const auto data = dir.path() / "data";
  v1::MatchCreated created;
  uint64_t seen = 0;
  {
    testing::TestServer server({}, {}, data);
    auto a = MatchClient::Connect(server.ws_url());
    auto b = MatchClient::Connect(server.ws_url());
    ASSERT_TRUE(a && b);
    created = a->Create(Asl());
    ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
    ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
    testing::OrderLocations(*a, *b, {"G3", "H4"});
    testing::PlayCommittedCombat(*a, *b, "G3");  // rolls the committed dice
    testing::EnterAndConfirm(*a, *b, "H4");      // the next close combat waits
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    seen = a->last_seq();
  }
  ASSERT_TRUE(std::filesystem::remove(data / "dice-secret"));  // a new one is made at start

  testing::TestServer server({}, {}, data);
  EXPECT_EQ(testing::HttpGet(server.port(), "/healthz").status, 200);
  auto a = MatchClient::Connect(server.ws_url());
  ASSERT_NE(a, nullptr);
  const v1::ServerMessage joined = a->Join(created.match_id(), created.side_a_token(), seen);
  ASSERT_TRUE(joined.has_joined()) << joined.DebugString();
  const v1::ServerMessage refused = a->Act(testing::AnnounceNothing());
  ASSERT_TRUE(refused.has_error()) << refused.DebugString();
  EXPECT_EQ(refused.error().code(), v1::ERROR_CODE_PERMISSION_DENIED);
  EXPECT_THAT(refused.error().message(), HasSubstr("dice-secret this server no longer holds"));
  EXPECT_THAT(refused.error().message(), HasSubstr("watched and exported, not played"));
  EXPECT_EQ(a->last_seq(), seen);

  const melee::storage::v1::MatchFile file =
      testing::ExportOver(server.port(), created.match_id(), created.director_token());
  ASSERT_EQ(file.events_size(), static_cast<int>(seen));
  const testing::HttpResult key = testing::HttpGet(server.port(), "/api/server-key");
  v1::ServerKey published;
  ASSERT_EQ(proto::FromJson(key.body, published), "") << key.body;
  const server::VerifyReport report =
      server::VerifyMatchFile(file, server::BuiltinHosts(), published.public_key());
  EXPECT_TRUE(report.ok) << report.Describe();
}

// ---- a lost melee.db, with the real binary ---------------------------------------------------

// melee.db missing, or empty, beside the key and dice secret of an earlier start: the server
// refuses to start a new, empty log (every match would be silently gone) and names the problem;
// --accept-empty-store starts it anyway.
TEST(StoreHealthTest, ServerRefusesToStartOverALostLogUnlessTold) {
  testing::TempDir dir;
  const auto data = dir.path() / "data";
  const std::vector<std::string> argv = {MELEE_SERVER_BINARY, "--port", "0", "--data-dir",
                                         data.string()};
  {
    testing::Subprocess first(argv);
    ASSERT_NE(testing::ServerPort(first), 0) << first.output();
    ASSERT_EQ(first.SignalAndWait(SIGTERM, seconds(10)), 0) << first.output();
  }
  ASSERT_TRUE(std::filesystem::exists(data / "server-key.pem"));
  ASSERT_TRUE(std::filesystem::exists(data / "dice-secret"));
  {
    testing::Subprocess again(argv);  // the log is whole: it starts
    ASSERT_NE(testing::ServerPort(again), 0) << again.output();
    ASSERT_EQ(again.SignalAndWait(SIGTERM, seconds(10)), 0) << again.output();
  }

  std::filesystem::remove(data / "melee.db");
  {
    testing::Subprocess missing(argv);
    EXPECT_EQ(missing.Wait(seconds(20)), 1) << missing.output();
    EXPECT_THAT(missing.output(), HasSubstr((data / "melee.db").string() + " is missing"));
    EXPECT_THAT(missing.output(), HasSubstr("server-key.pem"));
    EXPECT_THAT(missing.output(), HasSubstr("dice-secret"));
    EXPECT_THAT(missing.output(), HasSubstr("--accept-empty-store"));
    EXPECT_FALSE(std::filesystem::exists(data / "melee.db")) << "no new log was started";
  }
  std::ofstream(data / "melee.db").close();  // an empty file (0 bytes)
  {
    testing::Subprocess empty(argv);
    EXPECT_EQ(empty.Wait(seconds(20)), 1) << empty.output();
    EXPECT_THAT(empty.output(), HasSubstr((data / "melee.db").string() + " is empty"));
  }
  std::vector<std::string> accepting = argv;
  accepting.push_back("--accept-empty-store");
  testing::Subprocess accepted(accepting);
  const uint16_t port = testing::ServerPort(accepted);
  ASSERT_NE(port, 0) << accepted.output();
  EXPECT_THAT(accepted.output(), HasSubstr("--accept-empty-store: starting a new, empty log"));
  EXPECT_EQ(testing::HttpGet(port, "/healthz").status, 200);
  EXPECT_EQ(accepted.SignalAndWait(SIGTERM, seconds(10)), 0) << accepted.output();
}

// ---- an oversized request body ---------------------------------------------------------------

TEST(StoreHealthTest, RequestBodyOverTheLimitIs413) {
  server::ServerConfig config;
  config.max_http_body_bytes = 1024;
  testing::TestServer server(config);
  const std::string body = "{\"title\":\"" + std::string(2000, 'x') + "\"}";
  const testing::HttpResult result =
      testing::HttpGet(server.port(), "/api/matches", http::verb::post, body);
  ASSERT_TRUE(result.error.empty()) << result.error;
  EXPECT_EQ(result.status, 413) << result.body;
  EXPECT_THAT(result.body, HasSubstr("ERROR_CODE_MESSAGE_TOO_LARGE"));
  EXPECT_THAT(result.body, HasSubstr("request body exceeds 1024 bytes"));
  EXPECT_EQ(testing::HttpGet(server.port(), "/healthz").status, 200) << "the server goes on";
}

}  // namespace
}  // namespace melee
