// Kills a writer (crash_child) at random moments, 50 times on the same data directory, and checks
// after each kill that the log is whole: every acknowledged event is there, every match's chain
// verifies from seq 1 without a gap, and the store takes new appends.

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "persistence/sqlite_event_store.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace melee::persistence {
namespace {

constexpr int kRounds = 50;
constexpr int kMatches = 8;

// Returns the payload prefix crash_child writes for event `seq` of `match_id`.
std::string PayloadPrefix(const std::string& match_id, uint64_t seq) {
  return match_id + "-e" + std::to_string(seq) + "|";
}

TEST(CrashTest, KilledWriterLosesNoAcknowledgedEvent) {
  testing::TempDir dir;
  const std::string data = (dir.path() / "data").string();
  std::mt19937 random(20240611);
  std::uniform_int_distribution<int> run_ms(20, 200);
  std::map<std::string, uint64_t> acknowledged;  // highest acknowledged seq, over every round
  std::size_t acks = 0;
  const auto start = std::chrono::steady_clock::now();

  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    {
      testing::Subprocess child({MELEE_CRASH_CHILD, data, std::to_string(kMatches)});
      ASSERT_TRUE(child.running());
      // Collects the output while the child runs (nothing prints the needle).
      child.WaitForOutput("\x01", std::chrono::milliseconds(run_ms(random)));
      ASSERT_EQ(child.SignalAndWait(SIGKILL, std::chrono::seconds(10)), 128 + SIGKILL)
          << child.output();

      std::istringstream lines(child.output());
      std::string line;
      while (std::getline(lines, line)) {
        if (line == "ready") continue;
        std::istringstream words(line);
        std::string word, match_id;
        uint64_t seq = 0;
        if (!(words >> word >> match_id >> seq) || word != "ack") {
          ADD_FAILURE() << "crash_child printed: " << line;
          continue;
        }
        EXPECT_GT(seq, acknowledged[match_id]) << line;  // acks only move forward
        acknowledged[match_id] = seq;
        ++acks;
      }
    }

    auto store = SqliteEventStore::OpenDataDirectory(data);
    ASSERT_TRUE(store.has_value()) << store.error().message;
    auto matches = (*store)->ListMatches();
    ASSERT_TRUE(matches.has_value()) << matches.error().message;
    std::map<std::string, uint64_t> heads;
    for (const MatchSummary& summary : *matches) {
      heads[summary.match_id] = summary.last_seq;
      auto events = (*store)->Read(summary.match_id);
      ASSERT_TRUE(events.has_value()) << events.error().message;
      ASSERT_EQ(events->size(), summary.last_seq) << summary.match_id;
      for (std::size_t i = 0; i < events->size(); ++i) {
        const Event& event = (*events)[i];
        ASSERT_EQ(event.seq, i + 1) << summary.match_id;
        ASSERT_TRUE(event.payload.starts_with(PayloadPrefix(summary.match_id, event.seq)))
            << summary.match_id << " seq " << event.seq << ": " << event.payload.substr(0, 20);
      }
      EXPECT_EQ(events->back().hash, summary.head) << summary.match_id;
    }
    for (const auto& [match_id, seq] : acknowledged) {
      EXPECT_GE(heads[match_id], seq) << match_id << ": acknowledged seq " << seq << " was lost";
    }
    for (int k = 0; k < kMatches; ++k) {
      const std::string match_id = "m" + std::to_string(k);
      const uint64_t head = heads[match_id];
      auto appended = (*store)->AppendAndWait(
          {match_id, head, {PayloadPrefix(match_id, head + 1) + "probe"}, 0, {}});
      ASSERT_TRUE(appended.has_value()) << match_id << ": " << appended.error().message;
      EXPECT_EQ(appended->first_seq, head + 1);
      acknowledged[match_id] = appended->last_seq;
    }
  }
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  EXPECT_GT(acks, 0u);
  std::printf("%d kills, %zu acknowledged batches checked, %lld ms\n", kRounds, acks,
              static_cast<long long>(elapsed.count()));
}

}  // namespace
}  // namespace melee::persistence
