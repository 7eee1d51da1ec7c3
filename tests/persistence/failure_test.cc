// The event store under storage failures: a full disk, a failing fsync, a read-only file, a
// database locked by another process, a corrupt page. Faults are injected through
// tests/testing/faulty_vfs.h. Every test checks the same promise: a failure is reported as a
// clear StoreError, nothing that failed is acknowledged, nothing acknowledged is ever lost, and
// the store works again once the fault is gone.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "persistence/sqlite_event_store.h"
#include "tests/testing/append_batch.h"
#include "tests/testing/faulty_vfs.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/text.h"

namespace melee::persistence {
namespace {

using testing::Batch;
using testing::Contains;
using testing::FaultyVfs;
using testing::WriteFault;

// Returns `count` payloads "<prefix><i>" padded to `size` bytes.
std::vector<std::string> Payloads(const std::string& prefix, int count, std::size_t size = 0) {
  std::vector<std::string> payloads;
  for (int i = 0; i < count; ++i) {
    std::string payload = prefix + std::to_string(i);
    if (payload.size() < size) payload.resize(size, '.');
    payloads.push_back(std::move(payload));
  }
  return payloads;
}

// Copies the database and its write-ahead log (not the shared-memory index) into `dir`: the files
// a restart would find if the process died right now.
std::string CopyCrashImage(const std::string& db, const std::filesystem::path& dir) {
  const auto target = dir / kDatabaseFileName;
  std::filesystem::copy_file(db, target);
  if (std::filesystem::exists(db + "-wal")) {
    std::filesystem::copy_file(db + "-wal", target.string() + "-wal");
  }
  return target.string();
}

class FailureTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { FaultyVfs::Register(); }
  void TearDown() override { FaultyVfs::Clear(); }

  // Opens the store at path_ through the faulty VFS.
  std::unique_ptr<SqliteEventStore> OpenFaulty(SqliteEventStore::Options options = {}) {
    options.vfs = FaultyVfs::kName;
    auto store = SqliteEventStore::Open(path_, options);
    EXPECT_TRUE(store.has_value()) << store.error().message;
    return store ? std::move(*store) : nullptr;
  }

  // Appends and, on success, records the payloads as acknowledged (checking where they landed).
  StoreResult<Appended> Append(EventStore& store, const std::string& match_id,
                               uint64_t expected_seq, const std::vector<std::string>& payloads) {
    auto appended = store.AppendAndWait(Batch(match_id, expected_seq, payloads));
    if (appended) {
      std::vector<std::string>& log = acknowledged_[match_id];
      EXPECT_EQ(appended->first_seq, log.size() + 1) << match_id;
      EXPECT_EQ(appended->last_seq, log.size() + payloads.size()) << match_id;
      log.insert(log.end(), payloads.begin(), payloads.end());
    }
    return appended;
  }

  // Checks that `store` holds exactly the acknowledged events: every match, seq 1..n without a
  // gap, each payload in place, the chain verified by Read.
  void ExpectExactlyAcknowledged(EventStore& store) {
    auto matches = store.ListMatches();
    ASSERT_TRUE(matches.has_value()) << matches.error().message;
    ASSERT_EQ(matches->size(), acknowledged_.size());
    for (const MatchSummary& summary : *matches) {
      SCOPED_TRACE(summary.match_id);
      ASSERT_TRUE(acknowledged_.contains(summary.match_id));
      const std::vector<std::string>& expected = acknowledged_[summary.match_id];
      EXPECT_EQ(summary.last_seq, expected.size());
      auto events = store.Read(summary.match_id);
      ASSERT_TRUE(events.has_value()) << events.error().message;
      ASSERT_EQ(events->size(), expected.size());
      for (std::size_t i = 0; i < events->size(); ++i) {
        EXPECT_EQ((*events)[i].seq, i + 1);
        EXPECT_EQ((*events)[i].payload, expected[i]);
      }
      EXPECT_EQ(events->back().hash, summary.head);
    }
  }

  // Reopens the file through the default VFS (a restart) and checks it.
  void ExpectExactlyAcknowledgedAfterRestart() {
    auto store = SqliteEventStore::Open(path_);
    ASSERT_TRUE(store.has_value()) << store.error().message;
    ExpectExactlyAcknowledged(**store);
  }

  testing::TempDir dir_;
  const std::string path_ = (dir_.path() / kDatabaseFileName).string();
  std::map<std::string, std::vector<std::string>> acknowledged_;
};

// ---- disk full --------------------------------------------------------------------------------

TEST_F(FailureTest, DiskFullIsUnavailableAndTheStoreRecovers) {
  auto store = OpenFaulty();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(Append(*store, "m1", 0, {"a1", "a2"}).has_value());

  FaultyVfs::FailWritesAfter(0, WriteFault::kDiskFull);
  auto full = Append(*store, "m1", 2, {"b1", "b2"});
  ASSERT_FALSE(full.has_value());
  EXPECT_EQ(full.error().code, StoreErrorCode::kUnavailable);
  EXPECT_TRUE(Contains(full.error().message, "disk is full")) << full.error().message;
  EXPECT_GE(FaultyVfs::injected(), 1);
  ExpectExactlyAcknowledged(*store);  // nothing of the failed batch is visible

  FaultyVfs::Clear();
  auto retried = Append(*store, "m1", 2, {"b1", "b2"});  // the same expected_seq: no gap
  ASSERT_TRUE(retried.has_value()) << retried.error().message;
  EXPECT_EQ(retried->first_seq, 3u);
  ASSERT_TRUE(Append(*store, "m2", 0, {"c1"}).has_value());
  ExpectExactlyAcknowledged(*store);
  store.reset();
  ExpectExactlyAcknowledgedAfterRestart();
}

// The store says that writing fails (GET /healthz asks it) until a write works again: a probe
// write while nothing else writes, or the next commit.
TEST_F(FailureTest, FailingWritesAreReportedUntilAWriteWorksAgain) {
  auto store = OpenFaulty();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(Append(*store, "m1", 0, {"a1"}).has_value());
  EXPECT_FALSE(store->Writes().failing.has_value());
  EXPECT_TRUE(store->ProbeWrite().has_value());

  FaultyVfs::FailWritesAfter(0, WriteFault::kDiskFull);
  ASSERT_FALSE(Append(*store, "m1", 1, {"a2"}).has_value());
  WriteHealth health = store->Writes();
  ASSERT_TRUE(health.failing.has_value());
  EXPECT_TRUE(Contains(health.failing->message, "the disk is full")) << health.failing->message;
  EXPECT_EQ(health.failed_appends, 1u);
  EXPECT_EQ(Append(*store, "m1", 0, {"stale"}).error().code, StoreErrorCode::kConflict);
  EXPECT_TRUE(store->Writes().failing.has_value()) << "a transaction that wrote nothing";
  EXPECT_EQ(store->Writes().failed_appends, 1u) << "a conflict is the caller's, not counted";
  auto probed = store->ProbeWrite();
  ASSERT_FALSE(probed.has_value());
  EXPECT_TRUE(Contains(probed.error().message, "the disk is full")) << probed.error().message;
  EXPECT_TRUE(store->Writes().failing.has_value());

  FaultyVfs::Clear();
  EXPECT_TRUE(store->ProbeWrite().has_value());
  EXPECT_FALSE(store->Writes().failing.has_value());
  ASSERT_TRUE(Append(*store, "m1", 1, {"a2"}).has_value());
  EXPECT_EQ(store->Writes().failed_appends, 1u);
  ExpectExactlyAcknowledged(*store);
  store.reset();
  ExpectExactlyAcknowledgedAfterRestart();
}

TEST_F(FailureTest, DiskFullInTheMiddleOfACommitLeavesNoPartialBatch) {
  auto store = OpenFaulty();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(Append(*store, "m1", 0, {"a1"}).has_value());

  // A batch of ~40 pages; the log fills up after some of its frames were written.
  FaultyVfs::SetTargetSuffix("-wal");
  FaultyVfs::FailWritesAfter(7, WriteFault::kDiskFull);
  const std::vector<std::string> big = Payloads("big", 50, 3000);
  auto full = Append(*store, "m1", 1, big);
  ASSERT_FALSE(full.has_value());
  EXPECT_EQ(full.error().code, StoreErrorCode::kUnavailable);
  EXPECT_TRUE(Contains(full.error().message, "disk is full")) << full.error().message;
  ExpectExactlyAcknowledged(*store);

  {
    // Had the process died now, a restart would find the partial frames and ignore them.
    testing::TempDir crash;
    auto image = SqliteEventStore::Open(CopyCrashImage(path_, crash.path()));
    ASSERT_TRUE(image.has_value()) << image.error().message;
    ExpectExactlyAcknowledged(**image);
  }

  FaultyVfs::Clear();
  ASSERT_TRUE(Append(*store, "m1", 1, big).has_value());
  ExpectExactlyAcknowledged(*store);
  store.reset();
  ExpectExactlyAcknowledgedAfterRestart();
}

// ---- fsync ------------------------------------------------------------------------------------

TEST_F(FailureTest, FailedFsyncIsNotAcknowledgedAndLeavesNoHalfBatch) {
  auto store = OpenFaulty();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(Append(*store, "m1", 0, {"a1", "a2"}).has_value());

  FaultyVfs::FailSyncs();
  const std::vector<std::string> unsynced = {"b1", "b2", "b3"};
  auto failed = Append(*store, "m1", 2, unsynced);
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().code, StoreErrorCode::kUnavailable);
  EXPECT_TRUE(Contains(failed.error().message, "I/O error")) << failed.error().message;
  EXPECT_GE(FaultyVfs::injected(), 1);
  ExpectExactlyAcknowledged(*store);

  {
    // The frames reached the file (only the fsync failed), so a crash now may bring the batch
    // back on restart: all of it or none of it, never a part, and every acknowledged event.
    testing::TempDir crash;
    auto image = SqliteEventStore::Open(CopyCrashImage(path_, crash.path()));
    ASSERT_TRUE(image.has_value()) << image.error().message;
    auto events = (*image)->Read("m1");
    ASSERT_TRUE(events.has_value()) << events.error().message;
    std::vector<std::string> payloads;
    for (const Event& event : *events) payloads.push_back(event.payload);
    std::vector<std::string> with_batch = acknowledged_["m1"];
    with_batch.insert(with_batch.end(), unsynced.begin(), unsynced.end());
    EXPECT_TRUE(payloads == acknowledged_["m1"] || payloads == with_batch)
        << "a restart found " << payloads.size() << " events";
  }

  FaultyVfs::Clear();
  auto next = Append(*store, "m1", 2, {"c1"});
  ASSERT_TRUE(next.has_value()) << next.error().message;
  EXPECT_EQ(next->first_seq, 3u);
  ExpectExactlyAcknowledged(*store);
  store.reset();
  ExpectExactlyAcknowledgedAfterRestart();
}

// ---- read-only file ---------------------------------------------------------------------------

TEST_F(FailureTest, ReadOnlyFileIsUnavailableNamingIt) {
  auto store = OpenFaulty();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(Append(*store, "m1", 0, {"a1"}).has_value());

  FaultyVfs::FailWritesAfter(0, WriteFault::kReadOnly);
  auto refused = Append(*store, "m1", 1, {"b1"});
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, StoreErrorCode::kUnavailable);
  EXPECT_TRUE(Contains(refused.error().message, "read-only")) << refused.error().message;
  ExpectExactlyAcknowledged(*store);

  FaultyVfs::Clear();
  ASSERT_TRUE(Append(*store, "m1", 1, {"b1"}).has_value());
  ExpectExactlyAcknowledged(*store);
  store.reset();
  ExpectExactlyAcknowledgedAfterRestart();
}

// ---- locked database --------------------------------------------------------------------------

TEST_F(FailureTest, LockedDatabaseIsUnavailableUntilReleased) {
  SqliteEventStore::Options options;
  options.busy_timeout_ms = 100;
  auto store = OpenFaulty(options);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(Append(*store, "m1", 0, {"a1"}).has_value());

  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path_.c_str(), &other, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);

  const auto start = std::chrono::steady_clock::now();
  auto locked = Append(*store, "m1", 1, {"b1"});
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(locked.has_value());
  EXPECT_EQ(locked.error().code, StoreErrorCode::kUnavailable);
  EXPECT_TRUE(Contains(locked.error().message, "locked")) << locked.error().message;
  EXPECT_GE(waited, std::chrono::milliseconds(90));  // it waited busy_timeout_ms first
  ExpectExactlyAcknowledged(*store);                 // WAL: reads go on meanwhile

  ASSERT_EQ(sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_close(other), SQLITE_OK);
  auto released = Append(*store, "m1", 1, {"b1"});
  ASSERT_TRUE(released.has_value()) << released.error().message;
  ExpectExactlyAcknowledged(*store);
  store.reset();
  ExpectExactlyAcknowledgedAfterRestart();
}

// ---- corrupt page -----------------------------------------------------------------------------

class CorruptPageTest : public FailureTest {
 protected:
  // Fills path_ with 300 events of one match (about 20 pages), closes the store (which
  // checkpoints the log into the file) and copies the file to copy_.
  void SetUp() override {
    {
      auto store = OpenFaulty();
      ASSERT_NE(store, nullptr);
      for (int i = 0; i < 30; ++i) {
        ASSERT_TRUE(Append(*store, "m1", static_cast<uint64_t>(i) * 10,
                           Payloads("e" + std::to_string(i) + "-", 10, 200))
                        .has_value());
      }
    }
    ASSERT_FALSE(std::filesystem::exists(path_ + "-wal")) << "the log was not checkpointed";
    std::filesystem::copy_file(path_, copy_);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(copy_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    page_size_ = Query(db, "PRAGMA page_size").front();
    event_leaves_ = Query(db,
                          "SELECT pageno FROM dbstat WHERE name = 'events' AND "
                          "pagetype = 'leaf' ORDER BY pageno");
    sqlite3_close(db);
    ASSERT_GE(event_leaves_.size(), 5u);
  }

  static std::vector<int64_t> Query(sqlite3* db, const char* sql) {
    std::vector<int64_t> values;
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &statement, nullptr), SQLITE_OK) << sql;
    while (sqlite3_step(statement) == SQLITE_ROW)
      values.push_back(sqlite3_column_int64(statement, 0));
    sqlite3_finalize(statement);
    return values;
  }

  // Overwrites page `page` (1-based) of copy_ with 0xFF bytes.
  void Smash(int64_t page) {
    std::fstream file(copy_, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp((page - 1) * page_size_);
    const std::string garbage(static_cast<std::size_t>(page_size_), '\xff');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
    ASSERT_TRUE(file.good());
  }

  static void ExpectCorrupt(const StoreError& error) {
    EXPECT_EQ(error.code, StoreErrorCode::kCorrupt) << error.message;
    EXPECT_TRUE(Contains(error.message, "corrupt")) << error.message;
    EXPECT_TRUE(Contains(error.message, "malformed")) << error.message;
  }

  const std::string copy_ = (dir_.path() / "copy.db").string();
  int64_t page_size_ = 0;
  std::vector<int64_t> event_leaves_;
};

TEST_F(CorruptPageTest, PageOfEventsInTheMiddleFailsReadsClearly) {
  Smash(event_leaves_[event_leaves_.size() / 2]);
  auto store = SqliteEventStore::Open(copy_);
  ASSERT_TRUE(store.has_value()) << store.error().message;  // the events were not touched yet
  auto read = (*store)->Read("m1");
  ASSERT_FALSE(read.has_value());
  ExpectCorrupt(read.error());
  EXPECT_TRUE(Contains(read.error().message, "of match m1 is damaged")) << read.error().message;
  EXPECT_GT(read.error().seq, 0u) << "names the event";
  // The match heads live in their own table, so listing still answers (and names the match
  // whose events cannot be read).
  auto listed = (*store)->ListMatches();
  ASSERT_TRUE(listed.has_value()) << listed.error().message;
  EXPECT_EQ(listed->size(), 1u);
  EXPECT_TRUE((*store)->Ping().has_value());

  // The original file is intact: nothing acknowledged was lost there.
  ExpectExactlyAcknowledgedAfterRestart();
}

// A flipped bit in the key of one row: SQLite's lookup misses it without an error, as if the row
// had been deleted. The store checks the file and names the event as damaged, not removed.
TEST_F(CorruptPageTest, FlippedKeyInAPageIsReportedAsDamageNotAsARemovedEvent) {
  const int64_t page = event_leaves_[event_leaves_.size() / 2];
  std::fstream file(copy_, std::ios::in | std::ios::out | std::ios::binary);
  std::string bytes(static_cast<std::size_t>(page_size_), '\0');
  const std::streamoff base = (page - 1) * page_size_;
  file.seekg(base);
  file.read(bytes.data(), page_size_);
  ASSERT_EQ(static_cast<unsigned char>(bytes[0]), 0x0D) << "a table leaf page";
  auto u8 = [&](std::size_t at) { return static_cast<unsigned char>(bytes[at]); };
  const std::size_t cells = u8(3) << 8 | u8(4);
  ASSERT_GE(cells, 3u);
  const std::size_t middle = 8 + 2 * (cells / 2);  // the cell pointer array follows the header
  std::size_t at = u8(middle) << 8 | u8(middle + 1);
  while (u8(at) & 0x80) ++at;  // the payload length (a varint)
  ++at;                        // the rowid: events.id, 1..300 here (one or two varint bytes)
  const std::size_t low = (u8(at) & 0x80) ? at + 1 : at;
  const int64_t id = (u8(at) & 0x80) ? ((u8(at) & 0x7f) << 7 | u8(at + 1)) : u8(at);
  bytes[low] = static_cast<char>(bytes[low] ^ 0x04);
  file.seekp(base);
  file.write(bytes.data(), page_size_);
  file.close();

  auto store = SqliteEventStore::Open(copy_);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  auto read = (*store)->Read("m1");
  ASSERT_FALSE(read.has_value()) << "damaged data was returned";
  EXPECT_EQ(read.error().code, StoreErrorCode::kCorrupt);
  // The lookup of the flipped key, or of the key it now collides with, goes wrong first.
  EXPECT_LE(read.error().seq, static_cast<uint64_t>(id) + 8) << read.error().message;
  EXPECT_GE(read.error().seq, static_cast<uint64_t>(id)) << read.error().message;
  EXPECT_TRUE(Contains(read.error().message,
                       "event " + std::to_string(read.error().seq) + " of match m1 is damaged"))
      << read.error().message;
  EXPECT_TRUE(Contains(read.error().message, "out of order")) << read.error().message;
  EXPECT_FALSE(Contains(read.error().message, "removed from the log")) << read.error().message;
  ExpectExactlyAcknowledgedAfterRestart();
}

TEST_F(CorruptPageTest, ThirdPageFailsOpenClearly) {
  Smash(3);  // bytes page_size*2 .. page_size*3: here the index of the meta table
  auto store = SqliteEventStore::Open(copy_);
  ASSERT_FALSE(store.has_value());
  ExpectCorrupt(store.error());
  ExpectExactlyAcknowledgedAfterRestart();
}

// ---- faults under load ------------------------------------------------------------------------

// Four appenders retry through faults switched on and off at random; afterwards the log holds
// exactly the acknowledged events, live and after a restart.
TEST_F(FailureTest, FaultsUnderConcurrentAppendsNeverLoseAnAcknowledgedEvent) {
  auto store = OpenFaulty();
  ASSERT_NE(store, nullptr);
  constexpr int kThreads = 4;
  constexpr int kAppendsPerThread = 40;
  std::vector<std::vector<std::string>> logs(kThreads);
  std::atomic<int> failures{0};
  std::atomic<int> running{kThreads};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string match_id = "load" + std::to_string(t);
      std::vector<std::string>& log = logs[static_cast<std::size_t>(t)];
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      for (int n = 0; n < kAppendsPerThread && std::chrono::steady_clock::now() < deadline;) {
        std::vector<std::string> payloads = Payloads(match_id + "-" + std::to_string(n) + "-",
                                                     1 + n % 3, static_cast<std::size_t>(n * 37));
        auto appended = store->AppendAndWait(Batch(match_id, log.size(), payloads));
        if (!appended) {
          // Only storage faults: a conflict would mean a failed batch had landed after all.
          EXPECT_EQ(appended.error().code, StoreErrorCode::kUnavailable)
              << appended.error().message;
          if (appended.error().code != StoreErrorCode::kUnavailable) break;
          ++failures;
          continue;
        }
        EXPECT_EQ(appended->first_seq, log.size() + 1);
        log.insert(log.end(), payloads.begin(), payloads.end());
        ++n;
      }
      --running;
    });
  }
  std::mt19937 random(20240611);
  while (running.load() > 0) {
    switch (random() % 3) {
      case 0:
        FaultyVfs::FailWritesAfter(static_cast<int>(random() % 20), WriteFault::kDiskFull);
        break;
      case 1:
        FaultyVfs::FailSyncs();
        break;
      default:
        FaultyVfs::FailWritesAfter(static_cast<int>(random() % 5), WriteFault::kReadOnly);
        break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + random() % 4));
    FaultyVfs::Clear();
    std::this_thread::sleep_for(std::chrono::milliseconds(2 + random() % 4));
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_GT(failures.load(), 0) << "no fault hit an append";
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_FALSE(logs[static_cast<std::size_t>(t)].empty());
    acknowledged_["load" + std::to_string(t)] = logs[static_cast<std::size_t>(t)];
  }
  ExpectExactlyAcknowledged(*store);
  store.reset();
  ExpectExactlyAcknowledgedAfterRestart();
}

}  // namespace
}  // namespace melee::persistence
