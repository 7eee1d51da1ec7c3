#include "persistence/sqlite_event_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <string>
#include <thread>

#include "persistence/thread_name.h"
#include "tests/testing/append_batch.h"
#include "tests/testing/temp_dir.h"

namespace melee::persistence {
namespace {

using testing::Batch;

std::unique_ptr<SqliteEventStore> OpenOrDie(const std::string& path) {
  auto store = SqliteEventStore::Open(path);
  EXPECT_TRUE(store.has_value()) << store.error().message;
  return store ? std::move(*store) : nullptr;
}

// Runs one SQL statement on the file directly, as an attacker or a broken disk would.
void Tamper(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "");
  sqlite3_close(db);
}

// ---- opening ----------------------------------------------------------------------------------

TEST(SqliteEventStoreTest, InMemoryStoreOpens) {
  auto store = OpenOrDie(":memory:");
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->Ping().has_value());
  EXPECT_EQ(store->JournalMode().value(), "memory");
}

// A private in-memory store has one connection that the writer and the readers share (the
// contract suite runs on files): appends from many threads, a stale batch among them, reads,
// snapshots and notices all go through it.
TEST(SqliteEventStoreTest, InMemoryStoreSharesOneConnectionBetweenWriterAndReaders) {
  auto store = OpenOrDie(":memory:");
  ASSERT_NE(store, nullptr);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int m = 0; m < 4; ++m) {
    threads.emplace_back([&, m] {
      const std::string match_id = "m" + std::to_string(m);
      for (int i = 0; i < 25; ++i) {
        AppendBatch batch = Batch(match_id, static_cast<uint64_t>(i), {"e"});
        batch.notices = {OutboxNotice{.delivery_id = match_id + "-" + std::to_string(i),
                                      .match_id = match_id,
                                      .seat = "side_a",
                                      .body = "{}"}};
        if (!store->AppendAndWait(batch)) ++failures;
        if (!store->Read(match_id)) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(store->committed_events(), 100u);
  EXPECT_EQ(store->AppendAndWait(Batch("m0", 3, {"stale"})).error().code,
            StoreErrorCode::kConflict);
  ASSERT_TRUE(store->SaveSnapshot("m1", 20, "state").has_value());
  auto loaded = store->Load("m1");
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_EQ(loaded->snapshot->seq, 20u);
  EXPECT_EQ(loaded->events.size(), 5u);
  EXPECT_EQ(store->notifications()->Outbox(kWebhookChannel)->pending, 100u);
  EXPECT_TRUE(store->ProbeWrite().has_value());
}

// A group never splits batches appended together, even past max_batch_events.
TEST(SqliteEventStoreTest, BatchesAppendedTogetherShareATransactionPastTheGroupLimit) {
  SqliteEventStore::Options options;
  options.max_batch_events = 1;
  auto store = SqliteEventStore::Open(":memory:", options);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  std::vector<std::promise<bool>> done(3);
  std::vector<PendingAppend> together;
  for (size_t i = 0; i < done.size(); ++i) {
    together.push_back({Batch("t" + std::to_string(i), 0, {"a", "b"}),
                        [&done, i](StoreResult<Appended> r) { done[i].set_value(r.has_value()); }});
  }
  (*store)->AppendTogether(std::move(together));
  for (auto& promise : done) EXPECT_TRUE(promise.get_future().get());
  EXPECT_EQ((*store)->Writes().transactions, 1u) << "three batches of two events, one transaction";
}

TEST(SqliteEventStoreTest, DataDirectoryIsCreatedWithWalJournal) {
  testing::TempDir dir;
  const auto data = dir.path() / "nested" / "data";
  {
    auto store = SqliteEventStore::OpenDataDirectory(data);
    ASSERT_TRUE(store.has_value()) << store.error().message;
    EXPECT_EQ((*store)->JournalMode().value(), "wal");
    EXPECT_EQ((*store)->path(), (data / kDatabaseFileName).string());
  }
  EXPECT_TRUE(std::filesystem::exists(data / kDatabaseFileName));
  EXPECT_TRUE(SqliteEventStore::OpenDataDirectory(data).has_value());
}

// The store's threads carry names (persistence/thread_name.h): bench/match_bench reads the CPU
// of the threads so named apart from the server's I/O threads. Names are set as each thread
// starts, so the test waits for them a little.
TEST(SqliteEventStoreTest, StoreThreadsAreNamed) {
  testing::TempDir dir;
  auto store = SqliteEventStore::OpenDataDirectory(dir.path() / "data");
  ASSERT_TRUE(store.has_value()) << store.error().message;
  const auto names = [] {
    std::multiset<std::string> found;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
      std::ifstream comm(task.path() / "comm");
      std::string name;
      std::getline(comm, name);
      found.insert(name);
    }
    return found;
  };
  std::multiset<std::string> found = names();
  for (int tries = 0; tries < 200 && (found.count(kWriterThreadName) != 1 ||
                                      found.count(kCheckpointThreadName) != 1);
       ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    found = names();
  }
  EXPECT_EQ(found.count(kWriterThreadName), 1u);
  EXPECT_EQ(found.count(kCheckpointThreadName), 1u);
  store->reset();
  // Joined, but an exited thread can stay listed in /proc for a moment after its join returns
  // (the kernel wakes the joiner before it has reaped the thread).
  found = names();
  for (int tries = 0; tries < 200 && (found.count(kWriterThreadName) != 0 ||
                                      found.count(kCheckpointThreadName) != 0);
       ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    found = names();
  }
  EXPECT_EQ(found.count(kWriterThreadName), 0u);
  EXPECT_EQ(found.count(kCheckpointThreadName), 0u);
}

TEST(SqliteEventStoreTest, FileThatIsNotADatabaseIsRefused) {
  testing::TempDir dir;
  const auto path = dir.path() / "melee.db";
  std::ofstream(path) << "this is a text file, long enough to look like a header.......";
  auto store = SqliteEventStore::Open(path.string());
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code, StoreErrorCode::kCorrupt);
  EXPECT_NE(store.error().message.find("not a database"), std::string::npos)
      << store.error().message;
}

TEST(SqliteEventStoreTest, OtherApplicationsDatabaseIsRefused) {
  testing::TempDir dir;
  const auto path = dir.path() / "other.db";
  Tamper(path,
         "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
         "INSERT INTO meta VALUES ('application', 'somethingelse');");
  auto store = SqliteEventStore::Open(path.string());
  ASSERT_FALSE(store.has_value());
  EXPECT_NE(store.error().message.find("another application"), std::string::npos)
      << store.error().message;
}

TEST(SqliteEventStoreTest, NewerFormatVersionIsRefused) {
  testing::TempDir dir;
  const auto path = dir.path() / "melee.db";
  { ASSERT_NE(OpenOrDie(path.string()), nullptr); }
  Tamper(path, "UPDATE meta SET value = '99' WHERE key = 'format_version';");
  auto store = SqliteEventStore::Open(path.string());
  ASSERT_FALSE(store.has_value());
  EXPECT_NE(store.error().message.find("format version 99"), std::string::npos)
      << store.error().message;
}

TEST(SqliteEventStoreTest, DataDirectoryUnderAFileIsAClearError) {
  testing::TempDir dir;
  std::ofstream(dir.path() / "plainfile") << "x";
  auto store = SqliteEventStore::OpenDataDirectory(dir.path() / "plainfile" / "data");
  ASSERT_FALSE(store.has_value());
  EXPECT_NE(store.error().message.find("cannot create data directory"), std::string::npos)
      << store.error().message;
}

// ---- appending: the WAL (what every store does is in event_store_contract_test.cc) ------------

// FORMAT.md: the WAL is checkpointed into the database while the server runs, so it stays
// bounded. (It used to grow without end: the checkpointer's connection had never read the file,
// so its checkpoints were silent no-ops, and melee.db stayed at 4 KiB until a clean shutdown.)
TEST(SqliteEventStoreTest, WalStaysBoundedUnderALongLoadOfAppends) {
  testing::TempDir dir;
  const std::filesystem::path path = dir.path() / "melee.db";
  const std::filesystem::path wal = path.string() + "-wal";
  auto store = OpenOrDie(path.string());
  ASSERT_NE(store, nullptr);
  constexpr int kMatches = 4;
  constexpr int kBatches = 250;
  constexpr int kEventsPerBatch = 20;
  constexpr std::size_t kPayloadBytes = 2000;  // 4 x 250 x 20 x 2000 bytes: 40 MB in all
  constexpr std::uintmax_t kPageBytes = 4096 + 24;  // a WAL frame: its header and one page
  // The writer truncates at kWalLimitPages; one more transaction (at most kMatches batches of
  // 20 events, under 60 pages with its index pages) may be in the WAL before it does.
  constexpr std::uintmax_t kBound = (SqliteEventStore::kWalLimitPages + 200) * kPageBytes;

  std::atomic<bool> done{false};
  std::atomic<std::uintmax_t> largest_wal{0};
  std::atomic<int> failures{0};
  // Reads go on meanwhile, as a server's do: they must not pin the WAL either.
  std::thread reader([&] {
    while (!done) {
      auto listed = store->ListMatches();
      if (!listed) ++failures;
      for (const MatchSummary& summary : listed.value_or(std::vector<MatchSummary>{})) {
        if (!store->Read(summary.match_id, summary.last_seq - 1)) ++failures;
      }
    }
  });
  std::vector<std::thread> writers;
  for (int m = 0; m < kMatches; ++m) {
    writers.emplace_back([&, m] {
      for (int b = 0; b < kBatches; ++b) {
        std::vector<std::string> payloads(kEventsPerBatch,
                                          std::string(kPayloadBytes, static_cast<char>('a' + m)));
        auto appended = store->AppendAndWait(
            Batch("m" + std::to_string(m), static_cast<uint64_t>(b) * kEventsPerBatch, payloads));
        if (!appended) ++failures;
        std::error_code ec;
        const std::uintmax_t size = std::filesystem::file_size(wal, ec);
        if (!ec && size > largest_wal) largest_wal = size;
      }
    });
  }
  for (auto& writer : writers) writer.join();
  done = true;
  reader.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_LE(largest_wal.load(), kBound) << "the WAL grew past its bound while appending";
  std::error_code ec;
  EXPECT_LE(std::filesystem::file_size(wal, ec), kBound);
  // The events reached the database file itself while the store was open.
  EXPECT_GE(std::filesystem::file_size(path), 20u * 1000 * 1000);
  for (int m = 0; m < kMatches; ++m) {
    auto events = store->Read("m" + std::to_string(m));
    ASSERT_TRUE(events.has_value()) << events.error().message;
    EXPECT_EQ(events->size(), static_cast<std::size_t>(kBatches * kEventsPerBatch));
  }
}

// ---- tampering in SQLite's own file: a flipped byte, the prev_id links ------------------------

class TamperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenOrDie(path_.string());
    ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"e1", "e2", "e3", "e4", "e5"})).has_value());
  }
  // Reads the tampered copy and returns the error (the test fails if the read succeeds).
  StoreError ReadError() {
    auto events = OpenOrDie(path_.string())->Read("m");
    EXPECT_FALSE(events.has_value()) << "altered data was returned";
    return events ? StoreError{} : events.error();
  }

  testing::TempDir dir_;
  std::filesystem::path path_ = dir_.path() / "melee.db";
};

TEST_F(TamperTest, ByteFlippedInACopyOfTheFileIsReportedAtItsSeq) {
  // Closed stores leave everything in the main file (the WAL is checkpointed on close).
  {
    auto store = OpenOrDie(path_.string());
    ASSERT_TRUE(store->AppendAndWait(Batch("m", 5, {"unmistakable-payload-six"})).has_value());
  }
  const auto copy = dir_.path() / "copy.db";
  std::filesystem::copy_file(path_, copy);
  std::fstream file(copy, std::ios::in | std::ios::out | std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::size_t at = bytes.find("unmistakable-payload-six");
  ASSERT_NE(at, std::string::npos);
  file.seekp(static_cast<std::streamoff>(at + 3));
  file.put(static_cast<char>(bytes[at + 3] ^ 0x01));
  file.close();
  auto events = OpenOrDie(copy.string())->Read("m");
  ASSERT_FALSE(events.has_value()) << "altered data was returned";
  EXPECT_EQ(events.error().code, StoreErrorCode::kCorrupt);
  EXPECT_EQ(events.error().seq, 6u);
  EXPECT_NE(events.error().message.find("does not match its hash"), std::string::npos);
  // The original is untouched.
  EXPECT_EQ(OpenOrDie(path_.string())->Read("m")->size(), 6u);
}

TEST_F(TamperTest, ReorderedRowsBreakTheLinks) {
  // Swap events 2 and 3 (their seq numbers), each row keeping its own payload and hashes.
  Tamper(path_,
         "UPDATE events SET seq = 100 WHERE seq = 2; UPDATE events SET seq = 2 WHERE seq = 3;"
         "UPDATE events SET seq = 3 WHERE seq = 100;");
  const StoreError error = ReadError();
  EXPECT_EQ(error.code, StoreErrorCode::kCorrupt);
  EXPECT_EQ(error.seq, 2u);
  EXPECT_NE(error.message.find("found seq 3 where this event should be"), std::string::npos)
      << error.message;
}

// ---- format migrations ------------------------------------------------------------------------

// A format 2 file (before dormant markers) is brought to format 3: its matches are active.
TEST(SqliteEventStoreTest, AFormatTwoFileIsMigratedWithEveryMatchActive) {
  testing::TempDir dir;
  const auto path = dir.path() / "melee.db";
  {
    auto store = OpenOrDie(path.string());
    ASSERT_TRUE(store->AppendAndWait(Batch("m1", 0, {"e1"})).has_value());
  }
  // Back to format 2 as an older build wrote it: no dormant columns.
  Tamper(path,
         "ALTER TABLE matches DROP COLUMN dormant_seq; ALTER TABLE matches DROP COLUMN "
         "dormant_note; UPDATE meta SET value = '2' WHERE key = 'format_version';");
  auto store = OpenOrDie(path.string());
  auto listed = store->ListMatches();
  ASSERT_TRUE(listed.has_value()) << listed.error().message;
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_FALSE(listed->front().dormant);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* version = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'format_version'", -1,
                               &version, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(version), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(version, 0)), "3");
  sqlite3_finalize(version);
  sqlite3_close(db);
}

}  // namespace
}  // namespace melee::persistence
