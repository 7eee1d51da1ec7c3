#include "persistence/sqlite_event_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "tests/testing/temp_dir.h"

namespace melee::persistence {
namespace {

AppendBatch Batch(std::string match_id, uint64_t expected_seq, std::vector<std::string> payloads) {
  return AppendBatch{std::move(match_id), expected_seq, std::move(payloads), 1700000000000, {}};
}

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

// ---- appending and reading --------------------------------------------------------------------

TEST(SqliteEventStoreTest, AppendNumbersEventsAndChainsThem) {
  auto store = OpenOrDie(":memory:");
  auto first = store->AppendAndWait(Batch("m1", 0, {"a", "b"}));
  ASSERT_TRUE(first.has_value()) << first.error().message;
  EXPECT_EQ(first->first_seq, 1u);
  EXPECT_EQ(first->last_seq, 2u);
  auto second = store->AppendAndWait(Batch("m1", 2, {"c"}));
  ASSERT_TRUE(second.has_value()) << second.error().message;
  EXPECT_EQ(second->first_seq, 3u);

  auto events = store->Read("m1");
  ASSERT_TRUE(events.has_value()) << events.error().message;
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[0].prev_hash, Genesis("m1"));
  EXPECT_EQ((*events)[0].hash, ChainHash(Genesis("m1"), "a"));
  EXPECT_EQ((*events)[1].prev_hash, (*events)[0].hash);
  EXPECT_EQ((*events)[2].payload, "c");
  EXPECT_EQ((*events)[2].hash, second->head);
  EXPECT_EQ((*events)[2].recorded_unix_ms, 1700000000000);
}

TEST(SqliteEventStoreTest, GenesisBindsTheChainToItsMatch) {
  EXPECT_NE(Genesis("m1"), Genesis("m2"));
  EXPECT_EQ(ToHex(Genesis("m1")).size(), 64u);
}

TEST(SqliteEventStoreTest, StaleExpectedSeqIsAConflictAndWritesNothing) {
  auto store = OpenOrDie(":memory:");
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a"})).has_value());
  auto stale = store->AppendAndWait(Batch("m", 0, {"b"}));
  ASSERT_FALSE(stale.has_value());
  EXPECT_EQ(stale.error().code, StoreErrorCode::kConflict);
  EXPECT_NE(stale.error().message.find("is at seq 1, not at the expected seq 0"), std::string::npos)
      << stale.error().message;
  EXPECT_EQ(store->Read("m")->size(), 1u);
}

TEST(SqliteEventStoreTest, EmptyBatchAndEmptyMatchIdAreRefused) {
  auto store = OpenOrDie(":memory:");
  auto empty = store->AppendAndWait(Batch("m", 0, {}));
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code, StoreErrorCode::kInvalidArgument);
  auto nameless = store->AppendAndWait(Batch("", 0, {"a"}));
  ASSERT_FALSE(nameless.has_value());
  EXPECT_EQ(nameless.error().code, StoreErrorCode::kInvalidArgument);
}

TEST(SqliteEventStoreTest, ReadAfterSeqResumesAndChecksItsAnchor) {
  auto store = OpenOrDie(":memory:");
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a", "b", "c", "d"})).has_value());
  auto tail = store->Read("m", 2);
  ASSERT_TRUE(tail.has_value()) << tail.error().message;
  ASSERT_EQ(tail->size(), 2u);
  EXPECT_EQ((*tail)[0].seq, 3u);
  EXPECT_EQ((*tail)[1].payload, "d");
  auto limited = store->Read("m", 1, 2);
  ASSERT_TRUE(limited.has_value());
  ASSERT_EQ(limited->size(), 2u);
  EXPECT_EQ((*limited)[1].seq, 3u);
  auto at_head = store->Read("m", 4);
  ASSERT_TRUE(at_head.has_value());
  EXPECT_TRUE(at_head->empty());
  auto past = store->Read("m", 9);
  ASSERT_FALSE(past.has_value());
  EXPECT_EQ(past.error().code, StoreErrorCode::kInvalidArgument);
}

TEST(SqliteEventStoreTest, UnknownMatchIsNotFound) {
  auto store = OpenOrDie(":memory:");
  auto events = store->Read("nope");
  ASSERT_FALSE(events.has_value());
  EXPECT_EQ(events.error().code, StoreErrorCode::kNotFound);
}

TEST(SqliteEventStoreTest, ListMatchesGivesEachHeadSorted) {
  auto store = OpenOrDie(":memory:");
  ASSERT_TRUE(store->AppendAndWait(Batch("b", 0, {"x", "y"})).has_value());
  auto a = store->AppendAndWait(Batch("a", 0, {"z"}));
  ASSERT_TRUE(a.has_value());
  auto matches = store->ListMatches();
  ASSERT_TRUE(matches.has_value()) << matches.error().message;
  ASSERT_EQ(matches->size(), 2u);
  EXPECT_EQ((*matches)[0].match_id, "a");
  EXPECT_EQ((*matches)[0].head, a->head);
  EXPECT_EQ((*matches)[1].last_seq, 2u);
}

TEST(SqliteEventStoreTest, ConcurrentAppendsFromManyMatchesAreGroupCommitted) {
  testing::TempDir dir;
  auto store = OpenOrDie((dir.path() / "melee.db").string());
  constexpr int kMatches = 8;
  constexpr int kAppends = 50;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int m = 0; m < kMatches; ++m) {
    threads.emplace_back([&, m] {
      for (int i = 0; i < kAppends; ++i) {
        auto appended = store->AppendAndWait(
            Batch("m" + std::to_string(m), static_cast<uint64_t>(i), {"e" + std::to_string(i)}));
        if (!appended || appended->last_seq != static_cast<uint64_t>(i + 1)) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(store->committed_events(), static_cast<std::size_t>(kMatches * kAppends));
  EXPECT_LE(store->commits(), store->committed_events());
  for (int m = 0; m < kMatches; ++m) {
    auto events = store->Read("m" + std::to_string(m));
    ASSERT_TRUE(events.has_value()) << events.error().message;
    EXPECT_EQ(events->size(), static_cast<std::size_t>(kAppends));
  }
}

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

TEST(SqliteEventStoreTest, OneStaleBatchDoesNotSinkTheOthersInItsTransaction) {
  auto store = OpenOrDie(":memory:");
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a"})).has_value());
  std::promise<StoreResult<Appended>> stale, fresh, next;
  // Queued together, so the writer takes them in one transaction (or consecutive ones).
  store->Append(Batch("m", 0, {"stale"}), [&](auto r) { stale.set_value(std::move(r)); });
  store->Append(Batch("n", 0, {"fresh"}), [&](auto r) { fresh.set_value(std::move(r)); });
  store->Append(Batch("m", 1, {"next"}), [&](auto r) { next.set_value(std::move(r)); });
  EXPECT_EQ(stale.get_future().get().error().code, StoreErrorCode::kConflict);
  EXPECT_TRUE(fresh.get_future().get().has_value());
  auto appended = next.get_future().get();
  ASSERT_TRUE(appended.has_value()) << appended.error().message;
  EXPECT_EQ(appended->last_seq, 2u);
}

TEST(SqliteEventStoreTest, EventsSurviveReopening) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "melee.db").string();
  Hash head{};
  {
    auto store = OpenOrDie(path);
    head = store->AppendAndWait(Batch("m", 0, {"a", "b"}))->head;
  }
  auto store = OpenOrDie(path);
  auto appended = store->AppendAndWait(Batch("m", 2, {"c"}));
  ASSERT_TRUE(appended.has_value()) << appended.error().message;
  auto events = store->Read("m");
  ASSERT_TRUE(events.has_value());
  EXPECT_EQ((*events)[1].hash, head);
  EXPECT_EQ((*events)[2].prev_hash, head);
}

TEST(SqliteEventStoreTest, ClosingDrainsTheQueue) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "melee.db").string();
  std::atomic<int> acknowledged{0};
  {
    auto store = OpenOrDie(path);
    for (int i = 0; i < 100; ++i) {
      store->Append(Batch("m" + std::to_string(i), 0, {"x"}), [&](StoreResult<Appended> r) {
        if (r) ++acknowledged;
      });
    }
  }
  EXPECT_EQ(acknowledged.load(), 100);
  EXPECT_EQ(OpenOrDie(path)->ListMatches()->size(), 100u);
}

// ---- tampering: reading reports the first bad event ------------------------------------------

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

TEST_F(TamperTest, RewrittenPayloadIsReportedAtItsSeq) {
  Tamper(path_, "UPDATE events SET payload = CAST('e9' AS BLOB) WHERE seq = 3;");
  const StoreError error = ReadError();
  EXPECT_EQ(error.code, StoreErrorCode::kCorrupt);
  EXPECT_EQ(error.seq, 3u);
  EXPECT_NE(error.message.find("does not match its hash"), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("event 3 of match m is damaged"), std::string::npos)
      << error.message;
}

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

TEST_F(TamperTest, DeletedRowIsReportedAsMissing) {
  Tamper(path_, "DELETE FROM events WHERE seq = 2;");
  const StoreError error = ReadError();
  EXPECT_EQ(error.code, StoreErrorCode::kCorrupt);
  EXPECT_EQ(error.seq, 2u);
  EXPECT_NE(error.message.find("missing"), std::string::npos) << error.message;
  EXPECT_EQ(error.message.find("damaged"), std::string::npos) << "the file itself is sound";
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

TEST_F(TamperTest, RewrittenPayloadWithRecomputedHashStillBreaksTheNextLink) {
  const Hash forged = ChainHash(ChainHash(Genesis("m"), "e1"), "forged");
  std::string hex = ToHex(forged);
  Tamper(path_, "UPDATE events SET payload = CAST('forged' AS BLOB), hash = X'" + hex +
                    "' WHERE seq = 2;");
  const StoreError error = ReadError();
  EXPECT_EQ(error.seq, 3u);
  EXPECT_NE(error.message.find("does not link to seq 2"), std::string::npos) << error.message;
}

TEST_F(TamperTest, AppendingToATamperedHeadIsRefused) {
  Tamper(path_, "UPDATE events SET payload = CAST('x' AS BLOB) WHERE seq = 5;");
  auto appended = OpenOrDie(path_.string())->AppendAndWait(Batch("m", 5, {"e6"}));
  ASSERT_FALSE(appended.has_value());
  EXPECT_EQ(appended.error().code, StoreErrorCode::kCorrupt);
  EXPECT_EQ(appended.error().seq, 5u);
}

// ---- snapshots --------------------------------------------------------------------------------

// A toy fold: the state is the concatenation of the payloads.
std::string Concatenate(const std::vector<Event>& events) {
  std::string state;
  for (const Event& event : events) state += event.payload;
  return state;
}

TEST(SnapshotTest, LoadStartsFromTheNewestSnapshot) {
  auto store = OpenOrDie(":memory:");
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a", "b", "c", "d"})).has_value());
  ASSERT_TRUE(store->SaveSnapshot("m", 2, "ab").has_value());
  ASSERT_TRUE(store->SaveSnapshot("m", 3, "abc").has_value());
  auto loaded = store->Load("m");
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  ASSERT_TRUE(loaded->snapshot.has_value());
  EXPECT_EQ(loaded->snapshot->seq, 3u);
  EXPECT_EQ(loaded->snapshot->state, "abc");
  ASSERT_EQ(loaded->events.size(), 1u);
  EXPECT_EQ(loaded->events[0].payload, "d");
  EXPECT_TRUE(loaded->discarded_snapshots.empty());
}

TEST(SnapshotTest, SnapshotAtTheHeadLeavesNoEventsToFold) {
  auto store = OpenOrDie(":memory:");
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a", "b"})).has_value());
  ASSERT_TRUE(store->SaveSnapshot("m", 2, "ab").has_value());
  auto loaded = store->Load("m");
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_EQ(loaded->snapshot->seq, 2u);
  EXPECT_TRUE(loaded->events.empty());
}

TEST(SnapshotTest, LoadWithoutSnapshotReturnsEveryEvent) {
  auto store = OpenOrDie(":memory:");
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a", "b"})).has_value());
  auto loaded = store->Load("m");
  ASSERT_TRUE(loaded.has_value());
  EXPECT_FALSE(loaded->snapshot.has_value());
  EXPECT_EQ(loaded->events.size(), 2u);
}

TEST(SnapshotTest, SnapshotOfAMissingEventIsRefused) {
  auto store = OpenOrDie(":memory:");
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a"})).has_value());
  auto saved = store->SaveSnapshot("m", 7, "x");
  ASSERT_FALSE(saved.has_value());
}

TEST(SnapshotTest, DamagedSnapshotIsDiscardedAndReported) {
  testing::TempDir dir;
  const auto path = dir.path() / "melee.db";
  {
    auto store = OpenOrDie(path.string());
    ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a", "b", "c"})).has_value());
    ASSERT_TRUE(store->SaveSnapshot("m", 2, "ab").has_value());
  }
  Tamper(path, "UPDATE snapshots SET state = CAST('zz' AS BLOB);");
  auto store = OpenOrDie(path.string());
  auto loaded = store->Load("m");
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_FALSE(loaded->snapshot.has_value());
  EXPECT_EQ(loaded->events.size(), 3u);
  ASSERT_EQ(loaded->discarded_snapshots.size(), 1u);
  EXPECT_NE(loaded->discarded_snapshots[0].find("checksum mismatch"), std::string::npos);
  EXPECT_EQ(store->SnapshotDiscards("m")->size(), 1u);
}

TEST(SnapshotTest, SnapshotThatDisagreesWithTheFoldIsDiscarded) {
  auto store = OpenOrDie(":memory:");
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a", "b", "c"})).has_value());
  ASSERT_TRUE(store->SaveSnapshot("m", 2, "ab").has_value());
  EXPECT_EQ(AuditSnapshot(*store, "m", Concatenate).value(), true);

  ASSERT_TRUE(store->SaveSnapshot("m", 3, "WRONG").has_value());
  EXPECT_EQ(AuditSnapshot(*store, "m", Concatenate).value(), false);
  auto discards = store->SnapshotDiscards("m");
  ASSERT_EQ(discards->size(), 1u);
  EXPECT_EQ((*discards)[0].first, 3u);
  EXPECT_NE((*discards)[0].second.find("disagrees with the fold"), std::string::npos);
  auto loaded = store->Load("m");
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->snapshot->seq, 2u) << "the good, older snapshot is used";
}

// ---- dormant markers ---------------------------------------------------------------------------

// A match marked dormant at its last event is listed so, with the marker's note; an append after
// it makes it active again, a marker for an event that is not the last is ignored, and the marker
// survives reopening the file.
TEST(SqliteEventStoreTest, ADormantMarkerHoldsOnlyWhileItsEventIsTheLast) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "melee.db").string();
  auto dormant = [&](SqliteEventStore& store) {
    auto listed = store.ListMatches();
    EXPECT_TRUE(listed.has_value());
    EXPECT_EQ(listed->size(), 1u);
    return listed->empty() ? std::pair(false, std::string()) :
                             std::pair(listed->front().dormant, listed->front().dormant_note);
  };
  {
    auto store = OpenOrDie(path);
    ASSERT_TRUE(store->AppendAndWait(Batch("m1", 0, {"e1", "e2", "e3"})).has_value());
    EXPECT_EQ(dormant(*store), std::pair(false, std::string()));

    std::promise<StoreResult<Appended>> marked;
    store->MarkDormant("m1", 3, "spring-open",
                       [&](StoreResult<Appended> done) { marked.set_value(std::move(done)); });
    ASSERT_TRUE(marked.get_future().get().has_value());
    EXPECT_EQ(dormant(*store), std::pair(true, std::string("spring-open")));

    ASSERT_TRUE(store->AppendAndWait(Batch("m1", 3, {"e4"})).has_value());
    EXPECT_FALSE(dormant(*store).first) << "an append wakes the match";

    std::promise<StoreResult<Appended>> stale;
    store->MarkDormant("m1", 3, "stale",
                       [&](StoreResult<Appended> done) { stale.set_value(std::move(done)); });
    ASSERT_TRUE(stale.get_future().get().has_value());
    EXPECT_FALSE(dormant(*store).first) << "a marker for event 3 of 4 is ignored";

    std::promise<StoreResult<Appended>> again;
    store->MarkDormant("m1", 4, "",
                       [&](StoreResult<Appended> done) { again.set_value(std::move(done)); });
    ASSERT_TRUE(again.get_future().get().has_value());
  }
  auto reopened = OpenOrDie(path);
  EXPECT_EQ(dormant(*reopened), std::pair(true, std::string()));
  EXPECT_EQ(reopened->Read("m1")->size(), 4u) << "a marker adds no event";
}

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
