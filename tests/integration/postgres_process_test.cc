// melee-server on PostgreSQL (--store postgresql://...; docs/postgresql.md), the real binary on
// a real PostgreSQL 15 (tests/testing/postgres_server.h): matches are created and kept there,
// the data directory keeps only the server's secrets, GET /healthz says when PostgreSQL is down
// and recovers once it is back, without a restart.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/testing/http_get.h"
#include "tests/testing/postgres_server.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace melee {
namespace {

using std::chrono::seconds;

// Creates a match with the CLI; returns its output.
std::string CreateMatch(uint16_t port, const std::filesystem::path& out) {
  testing::Subprocess create({MELEE_CLI_BINARY, "match", "create", "--out", out.string(),
                              "--server", "ws://127.0.0.1:" + std::to_string(port) + "/ws",
                              "--ca-file", ""});
  const std::optional<int> code = create.Wait(seconds(20));
  return (code == 0 ? "" : "exit " + std::to_string(code.value_or(-1)) + ": ") + create.output();
}

TEST(PostgresProcessTest, ServerKeepsItsMatchesInPostgresAndRecoversWhenPostgresComesBack) {
  testing::PostgresServer postgres;  // its own: this test stops it
  ASSERT_TRUE(postgres.ok()) << postgres.error();
  const std::string uri = postgres.CreateDatabase();
  ASSERT_FALSE(uri.empty());
  testing::TempDir dir;
  const std::filesystem::path data = dir.path() / "data";
  testing::Subprocess server({MELEE_SERVER_BINARY, "--port", "0", "--data-dir", data.string(),
                              "--threads", "2", "--store", uri});
  const uint16_t port = testing::ServerPort(server);
  ASSERT_NE(port, 0) << server.output();
  EXPECT_NE(server.output().find("event store: PostgreSQL, database test_1"), std::string::npos)
      << server.output();

  EXPECT_EQ(testing::HttpGet(port, "/healthz").status, 200);
  const std::string created = CreateMatch(port, dir.path() / "seats1");
  ASSERT_TRUE(std::filesystem::exists(dir.path() / "seats1" / "side_a.seat")) << created;
  EXPECT_FALSE(std::filesystem::exists(data / "melee.db")) << "the log is in PostgreSQL";
  EXPECT_TRUE(std::filesystem::exists(data / "server-key.pem")) << "the keys stay in --data-dir";
  EXPECT_EQ(testing::PostgresServer::Execute(
                uri, "DO $$ BEGIN IF (SELECT count(*) FROM melee.events) = 0 THEN "
                     "RAISE 'no events in PostgreSQL'; END IF; END $$"),
            "");

  ASSERT_TRUE(postgres.Stop()) << postgres.error();
  const auto down = testing::HttpGet(port, "/healthz");
  EXPECT_EQ(down.status, 503) << down.body;
  EXPECT_NE(down.body.find("cannot connect to PostgreSQL"), std::string::npos) << down.body;
  EXPECT_NE(CreateMatch(port, dir.path() / "seats2"), "") << "a match was created without a store";

  ASSERT_TRUE(postgres.Start()) << postgres.error();
  const auto back = testing::HttpGet(port, "/healthz");
  EXPECT_EQ(back.status, 200) << back.body;
  const std::string again = CreateMatch(port, dir.path() / "seats3");
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "seats3" / "side_a.seat")) << again;

  EXPECT_EQ(server.SignalAndWait(SIGTERM, seconds(10)), 0) << server.output();
}

TEST(PostgresProcessTest, AStoreThatIsNotAPostgresUriIsRefusedClearly) {
  testing::TempDir dir;
  testing::Subprocess server({MELEE_SERVER_BINARY, "--port", "0", "--data-dir",
                              dir.path().string(), "--store", "melee.db"});
  EXPECT_NE(server.Wait(seconds(20)), 0);
  EXPECT_NE(server.output().find("--store takes a postgresql:// URI"), std::string::npos)
      << server.output();
}

TEST(PostgresProcessTest, AnUnreachablePostgresStopsTheStartNamingIt) {
  testing::TempDir dir;
  testing::Subprocess server({MELEE_SERVER_BINARY, "--port", "0", "--data-dir",
                              (dir.path() / "data").string(), "--store",
                              "postgresql:///melee?host=" + dir.path().string()});
  EXPECT_NE(server.Wait(seconds(20)), 0);
  EXPECT_NE(server.output().find("cannot connect to PostgreSQL (database melee on " +
                                 dir.path().string()),
            std::string::npos)
      << server.output();
}

}  // namespace
}  // namespace melee
