// Several melee-server nodes on one PostgreSQL (docs/postgresql.md, "Several nodes"): the real
// binary on a real PostgreSQL 15. The fencing test: a node that owns a match is paused
// (SIGSTOP) until its lease runs out, another node takes the match over, and the old node,
// woken (SIGCONT), can no longer write it: its command is answered with an error naming the new
// owner, and the log holds nothing of it after the takeover.

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "persistence/postgres_event_store.h"
#include "tests/testing/asl_commands.h"
#include "tests/testing/match_client.h"
#include "tests/testing/postgres_server.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
using std::chrono::seconds;
using namespace std::chrono_literals;

TEST(LeaseProcessTest, APausedNodeWhoseLeaseMovedOnCannotAppend) {
  testing::PostgresServer postgres;
  ASSERT_TRUE(postgres.ok()) << postgres.error();
  const std::string uri = postgres.CreateDatabase();
  ASSERT_FALSE(uri.empty());
  testing::TempDir dir;
  testing::Subprocess node_a({MELEE_SERVER_BINARY, "--port", "0", "--data-dir",
                              (dir.path() / "a").string(), "--threads", "2", "--store", uri,
                              "--node-id", "node-a", "--lease-seconds", "1"});
  const uint16_t port = testing::ServerPort(node_a);
  ASSERT_NE(port, 0) << node_a.output();
  EXPECT_NE(node_a.output().find("node node-a, leases of 1 s"), std::string::npos)
      << node_a.output();

  const std::string url = "ws://127.0.0.1:" + std::to_string(port) + "/ws";
  auto a = testing::MatchClient::Connect(url);
  auto b = testing::MatchClient::Connect(url);
  ASSERT_TRUE(a && b);
  v1::MatchSettings settings;
  settings.set_ruleset("asl");
  const v1::MatchCreated created = a->Create(settings);
  ASSERT_FALSE(created.match_id().empty());
  ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
  ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
  ASSERT_TRUE(
      b->Act(testing::EnterUnits({testing::Squad("R1", v1::SEAT_SIDE_B, 4)}, false)).has_ack())
      << "node-a serves the match";

  // Node A freezes while it owns the match; its lease runs out and node B takes the match.
  ASSERT_EQ(kill(node_a.pid(), SIGSTOP), 0);
  persistence::PostgresStoreOptions options;
  options.node_id = "node-b";
  options.lease_ms = 60'000;
  auto opened = persistence::PostgresEventStore::Open(uri, options);
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  persistence::PostgresEventStore& node_b = **opened;
  const auto stopped = std::chrono::steady_clock::now();
  persistence::StoreResult<persistence::Lease> taken = node_b.AcquireLease(created.match_id());
  while (!taken && taken.error().code == persistence::StoreErrorCode::kFenced &&
         std::chrono::steady_clock::now() - stopped < 20s) {
    std::this_thread::sleep_for(50ms);
    taken = node_b.AcquireLease(created.match_id());
  }
  ASSERT_TRUE(taken.has_value()) << taken.error().message;
  std::printf("[ lease ] node-b took match %s (token %llu) %.2f s after node-a was paused\n",
              created.match_id().c_str(), static_cast<unsigned long long>(taken->token),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - stopped).count());
  auto before = node_b.Read(created.match_id());
  ASSERT_TRUE(before.has_value()) << before.error().message;

  // Node A wakes: side A's setup is refused, not acknowledged, naming the new owner.
  ASSERT_EQ(kill(node_a.pid(), SIGCONT), 0);
  const v1::ServerMessage answer =
      a->Act(testing::EnterUnits({testing::Squad("G1", v1::SEAT_SIDE_A, 4)}, true));
  ASSERT_TRUE(answer.has_error()) << "a fenced node acknowledged: " << answer.DebugString();
  EXPECT_EQ(answer.error().code(), v1::ERROR_CODE_UNAVAILABLE);
  EXPECT_NE(answer.error().message().find("node node-b (token " + std::to_string(taken->token)),
            std::string::npos)
      << answer.error().message();
  EXPECT_NE(answer.error().message().find("reconnect"), std::string::npos)
      << answer.error().message();
  auto after = node_b.Read(created.match_id());
  ASSERT_TRUE(after.has_value()) << after.error().message;
  EXPECT_EQ(after->size(), before->size()) << "node-a wrote after the takeover";

  // And it stops serving the match: a new join is told to reconnect.
  auto again = testing::MatchClient::Connect(url);
  ASSERT_TRUE(again);
  const v1::ServerMessage refused = again->Join(created.match_id(), created.side_a_token());
  ASSERT_TRUE(refused.has_error()) << refused.DebugString();
  EXPECT_NE(refused.error().message().find("served by node node-b"), std::string::npos)
      << refused.error().message();
  EXPECT_EQ(node_a.SignalAndWait(SIGTERM, seconds(10)), 0) << node_a.output();
  EXPECT_NE(node_a.output().find("lease (token"), std::string::npos) << node_a.output();
}

}  // namespace
}  // namespace melee
