// The EventStore contract (persistence/event_store.h, notification_store.h), run against every
// store: SQLite (a file in a temporary directory) and PostgreSQL (a database of its own on a real
// PostgreSQL 15 started for this test binary, tests/testing/postgres_server.h). A case here
// passes on both or the stores disagree; what only one store has (SQLite's WAL and VFS, its
// file format migrations; PostgreSQL going down) is tested beside that store.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "persistence/event_store.h"
#include "persistence/notification_store.h"
#include "persistence/postgres_event_store.h"
#include "persistence/sqlite_event_store.h"
#include "tests/testing/append_batch.h"
#include "tests/testing/postgres_server.h"
#include "tests/testing/temp_dir.h"

namespace melee::persistence {
namespace {

// One store under test: opens it (again and again on the same log) and reaches its database
// directly, as an attacker or a broken disk would.
class StoreUnderTest {
 public:
  virtual ~StoreUnderTest() = default;
  // Returns an empty string when the store can be used, else why not.
  virtual std::string Unusable() const { return ""; }
  // Opens the store; every call opens the same log.
  virtual StoreResult<std::unique_ptr<EventStore>> Open() = 0;
  // Runs `sql` on the store's database while no store is open.
  virtual void Tamper(const std::string& sql) = 0;
  // Returns the SQL name of one of the store's tables ("events", "snapshots").
  virtual std::string Table(const std::string& name) const = 0;
  // Returns an SQL literal holding `bytes` as a blob.
  virtual std::string Blob(std::string_view bytes) const = 0;
  // Returns an SQL condition selecting event `seq` of `match_id` in Table("events").
  virtual std::string EventRow(const std::string& match_id, uint64_t seq) const = 0;
  // Returns the transactions and the events `store` committed since it opened.
  virtual std::pair<std::size_t, std::size_t> Commits(EventStore& store) const = 0;
};

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char byte : bytes) {
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 0x0f]);
  }
  return hex;
}

class SqliteUnderTest final : public StoreUnderTest {
 public:
  StoreResult<std::unique_ptr<EventStore>> Open() override {
    auto store = SqliteEventStore::Open(path_.string());
    if (!store) return tl::unexpected(store.error());
    return std::unique_ptr<EventStore>(std::move(*store));
  }
  void Tamper(const std::string& sql) override {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "") << " in " << sql;
    sqlite3_free(error);
    sqlite3_close(db);
  }
  std::string Table(const std::string& name) const override { return name; }
  std::string Blob(std::string_view bytes) const override { return "X'" + Hex(bytes) + "'"; }
  std::string EventRow(const std::string& match_id, uint64_t seq) const override {
    return "match_no = (SELECT match_no FROM matches WHERE match_id = '" + match_id +
           "') AND seq = " + std::to_string(seq);
  }
  std::pair<std::size_t, std::size_t> Commits(EventStore& store) const override {
    auto& sqlite = dynamic_cast<SqliteEventStore&>(store);
    return {sqlite.commits(), sqlite.committed_events()};
  }

 private:
  testing::TempDir dir_;
  std::filesystem::path path_ = dir_.path() / kDatabaseFileName;
};

class PostgresUnderTest final : public StoreUnderTest {
 public:
  PostgresUnderTest() {
    if (testing::SharedPostgres().ok()) uri_ = testing::SharedPostgres().CreateDatabase();
  }
  std::string Unusable() const override {
    if (!testing::SharedPostgres().ok()) return testing::SharedPostgres().error();
    return uri_.empty() ? "no database" : "";
  }
  StoreResult<std::unique_ptr<EventStore>> Open() override {
    auto store = PostgresEventStore::Open(uri_);
    if (!store) return tl::unexpected(store.error());
    return std::unique_ptr<EventStore>(std::move(*store));
  }
  void Tamper(const std::string& sql) override {
    const std::string failed = testing::PostgresServer::Execute(uri_, sql);
    EXPECT_EQ(failed, "") << " in " << sql;
  }
  std::string Table(const std::string& name) const override { return "melee." + name; }
  std::string Blob(std::string_view bytes) const override {
    return "'\\x" + Hex(bytes) + "'::bytea";
  }
  std::string EventRow(const std::string& match_id, uint64_t seq) const override {
    return "match_id = '" + match_id + "' AND seq = " + std::to_string(seq);
  }
  std::pair<std::size_t, std::size_t> Commits(EventStore& store) const override {
    auto& postgres = dynamic_cast<PostgresEventStore&>(store);
    return {postgres.commits(), postgres.committed_events()};
  }

 private:
  std::string uri_;
};

struct StoreKind {
  const char* name;
  std::function<std::unique_ptr<StoreUnderTest>()> make;
};

void PrintTo(const StoreKind& kind, std::ostream* out) { *out << kind.name; }

using testing::Batch;

class EventStoreContractTest : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override {
    under_test_ = GetParam().make();
    const std::string unusable = under_test_->Unusable();
    ASSERT_EQ(unusable, "") << GetParam().name << " cannot be tested";
  }

  // Opens the store; fails the test when it cannot.
  std::unique_ptr<EventStore> Open() {
    auto store = under_test_->Open();
    EXPECT_TRUE(store.has_value()) << store.error().message;
    return store ? std::move(*store) : nullptr;
  }

  StoreUnderTest& under_test() { return *under_test_; }

 private:
  std::unique_ptr<StoreUnderTest> under_test_;
};

// ---- appending and reading --------------------------------------------------------------------

TEST_P(EventStoreContractTest, AppendNumbersEventsAndChainsThem) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
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

// A server that signs a head has hashed the batch's events already and hands the hashes over. The
// store takes them only when they chain from the match's head as the store has it, one per event;
// otherwise it works the chain out itself, so an appender with a stale head, or hashes that do
// not fit the batch, cannot break the chain.
TEST_P(EventStoreContractTest, GivenHashesAreTakenOnlyWhenTheyChainFromTheHead) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  AppendBatch first = Batch("m", 0, {"a"});
  first.chained_from = Genesis("m");
  first.hashes = {ChainHash(Genesis("m"), "a")};
  ASSERT_TRUE(store->AppendAndWait(first).has_value());
  AppendBatch stale = Batch("m", 1, {"b", "c"});
  stale.chained_from = Genesis("another match");
  stale.hashes = {Hash{}, Hash{}};
  ASSERT_TRUE(store->AppendAndWait(stale).has_value());
  auto events = store->Read("m");
  ASSERT_TRUE(events.has_value()) << events.error().message;
  AppendBatch misfit = Batch("m", 3, {"d"});
  misfit.chained_from = events->back().hash;
  misfit.hashes = {Hash{}, Hash{}};
  ASSERT_TRUE(store->AppendAndWait(misfit).has_value());

  events = store->Read("m");
  ASSERT_TRUE(events.has_value()) << events.error().message;
  ASSERT_EQ(events->size(), 4u);
  Hash link = Genesis("m");
  for (const Event& event : *events) {
    link = ChainHash(link, event.payload);
    EXPECT_EQ(event.hash, link) << "seq " << event.seq;
  }
  EXPECT_EQ(store->ListMatches()->front().head, link);
}

// Payloads are opaque bytes: zero bytes and high bytes come back as they went in.
TEST_P(EventStoreContractTest, PayloadsAreKeptByteForByte) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  const std::string bytes("\0\x01\xff\x80 end\0", 9);
  AppendBatch batch = Batch("m", 0, {bytes, ""});
  batch.recorded_each = {5, 6};
  ASSERT_TRUE(store->AppendAndWait(batch).has_value());
  auto events = store->Read("m");
  ASSERT_TRUE(events.has_value()) << events.error().message;
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].payload, bytes);
  EXPECT_EQ((*events)[1].payload, "");
  EXPECT_EQ((*events)[0].recorded_unix_ms, 5);
  EXPECT_EQ((*events)[1].recorded_unix_ms, 6);
  EXPECT_EQ(store->ListMatches()->front().last_recorded_unix_ms, 6);
}

// An imported log arrives as one batch of a whole match (melee import), with its own times.
TEST_P(EventStoreContractTest, AWholeImportedLogIsOneBatch) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  constexpr int kEvents = 2500;
  constexpr int kNotices = 1200;
  AppendBatch batch = Batch("imported", 0, {});
  for (int i = 0; i < kEvents; ++i) {
    batch.payloads.push_back("event " + std::to_string(i));
    batch.recorded_each.push_back(1000 + i);
  }
  for (int i = 0; i < kNotices; ++i) {
    batch.notices.push_back(OutboxNotice{.delivery_id = "n" + std::to_string(i),
                                         .match_id = "imported",
                                         .seat = "side_b",
                                         .body = "{}",
                                         .created_unix_ms = i});
  }
  auto appended = store->AppendAndWait(batch);
  ASSERT_TRUE(appended.has_value()) << appended.error().message;
  EXPECT_EQ(appended->last_seq, static_cast<uint64_t>(kEvents));
  auto events = store->Read("imported");
  ASSERT_TRUE(events.has_value()) << events.error().message;
  ASSERT_EQ(events->size(), static_cast<std::size_t>(kEvents));
  EXPECT_EQ(events->back().payload, "event 2499");
  EXPECT_EQ(events->back().recorded_unix_ms, 1000 + kEvents - 1);
  EXPECT_EQ(events->back().hash, appended->head);
  EXPECT_EQ(store->notifications()->Outbox(kWebhookChannel)->pending,
            static_cast<uint64_t>(kNotices));
  // A stale copy of the same import writes nothing.
  batch.expected_seq = 0;
  EXPECT_EQ(store->AppendAndWait(batch).error().code, StoreErrorCode::kConflict);
  EXPECT_EQ(store->notifications()->Outbox(kWebhookChannel)->pending,
            static_cast<uint64_t>(kNotices));
}

TEST_P(EventStoreContractTest, StaleExpectedSeqIsAConflictAndWritesNothing) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a"})).has_value());
  auto stale = store->AppendAndWait(Batch("m", 0, {"b"}));
  ASSERT_FALSE(stale.has_value());
  EXPECT_EQ(stale.error().code, StoreErrorCode::kConflict);
  EXPECT_NE(stale.error().message.find("is at seq 1, not at the expected seq 0"), std::string::npos)
      << stale.error().message;
  auto ahead = store->AppendAndWait(Batch("m", 5, {"b"}));
  ASSERT_FALSE(ahead.has_value());
  EXPECT_EQ(ahead.error().code, StoreErrorCode::kConflict);
  EXPECT_EQ(store->Read("m")->size(), 1u);
  EXPECT_EQ(store->Writes().failed_appends, 0u) << "a conflict is the caller's, not the store's";
}

TEST_P(EventStoreContractTest, EmptyBatchAndEmptyMatchIdAreRefused) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto empty = store->AppendAndWait(Batch("m", 0, {}));
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code, StoreErrorCode::kInvalidArgument);
  auto nameless = store->AppendAndWait(Batch("", 0, {"a"}));
  ASSERT_FALSE(nameless.has_value());
  EXPECT_EQ(nameless.error().code, StoreErrorCode::kInvalidArgument);
}

TEST_P(EventStoreContractTest, ReadAfterSeqResumesAndChecksItsAnchor) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
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

TEST_P(EventStoreContractTest, UnknownMatchIsNotFound) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto events = store->Read("nope");
  ASSERT_FALSE(events.has_value());
  EXPECT_EQ(events.error().code, StoreErrorCode::kNotFound);
}

TEST_P(EventStoreContractTest, ListMatchesGivesEachHeadSorted) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->ListMatches()->empty());
  ASSERT_TRUE(store->AppendAndWait(Batch("b", 0, {"x", "y"})).has_value());
  auto a = store->AppendAndWait(Batch("a", 0, {"z"}));
  ASSERT_TRUE(a.has_value());
  // Byte order, as SQLite's BINARY collation has it: upper case before lower case.
  ASSERT_TRUE(store->AppendAndWait(Batch("B", 0, {"w"})).has_value());
  auto matches = store->ListMatches();
  ASSERT_TRUE(matches.has_value()) << matches.error().message;
  ASSERT_EQ(matches->size(), 3u);
  EXPECT_EQ((*matches)[0].match_id, "B");
  EXPECT_EQ((*matches)[1].match_id, "a");
  EXPECT_EQ((*matches)[1].head, a->head);
  EXPECT_EQ((*matches)[1].last_recorded_unix_ms, 1700000000000);
  EXPECT_EQ((*matches)[2].last_seq, 2u);
  EXPECT_FALSE((*matches)[2].dormant);
}

TEST_P(EventStoreContractTest, ConcurrentAppendsFromManyMatchesAreGroupCommitted) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
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
  const auto [commits, events] = under_test().Commits(*store);
  EXPECT_EQ(events, static_cast<std::size_t>(kMatches * kAppends));
  EXPECT_LE(commits, events);
  for (int m = 0; m < kMatches; ++m) {
    auto read = store->Read("m" + std::to_string(m));
    ASSERT_TRUE(read.has_value()) << read.error().message;
    EXPECT_EQ(read->size(), static_cast<std::size_t>(kAppends));
  }
}

// Batches of many matches queued together commit in one transaction, and the callbacks run only
// after it: every one of them sees its events readable.
TEST_P(EventStoreContractTest, QueuedBatchesOfManyMatchesShareOneCommit) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  // Keep the writer busy with a first batch, so that the next ones wait in the queue together.
  constexpr int kMatches = 50;
  std::vector<std::promise<bool>> readable(kMatches);
  const auto [commits_before, events_before] = under_test().Commits(*store);
  for (int m = 0; m < kMatches; ++m) {
    store->Append(Batch("g" + std::to_string(m), 0, {"x", "y"}),
                  [&, m](StoreResult<Appended> appended) {
                    readable[m].set_value(appended.has_value() && appended->last_seq == 2);
                  });
  }
  for (auto& promise : readable) EXPECT_TRUE(promise.get_future().get());
  const auto [commits, events] = under_test().Commits(*store);
  EXPECT_EQ(events - events_before, 2u * kMatches);
  EXPECT_LT(commits - commits_before, static_cast<std::size_t>(kMatches))
      << "queued batches were committed one by one";
  EXPECT_EQ(store->ListMatches()->size(), static_cast<std::size_t>(kMatches));
}

TEST_P(EventStoreContractTest, OneStaleBatchDoesNotSinkTheOthersInItsTransaction) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
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

// Batches appended together (a match's command and its session journal) commit in one
// transaction, each on its own terms: a stale one among them is refused alone.
TEST_P(EventStoreContractTest, BatchesAppendedTogetherCommitInOneTransaction) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a"})).has_value());
  for (uint64_t round = 0; round < 10; ++round) {
    const auto [commits_before, events_before] = under_test().Commits(*store);
    std::promise<StoreResult<Appended>> command, journal, stale;
    std::vector<PendingAppend> together;
    together.push_back({Batch("m", 1 + round, {"c"}), [&](auto r) { command.set_value(r); }});
    together.push_back({Batch("m/journal", round, {"j"}), [&](auto r) { journal.set_value(r); }});
    together.push_back({Batch("m", 0, {"stale"}), [&](auto r) { stale.set_value(r); }});
    store->AppendTogether(std::move(together));
    const StoreResult<Appended> appended = command.get_future().get();
    ASSERT_TRUE(appended.has_value()) << appended.error().message;
    EXPECT_EQ(appended->last_seq, 2 + round);
    const StoreResult<Appended> journalled = journal.get_future().get();
    ASSERT_TRUE(journalled.has_value()) << journalled.error().message;
    EXPECT_EQ(journalled->last_seq, 1 + round);
    EXPECT_EQ(stale.get_future().get().error().code, StoreErrorCode::kConflict);
    const auto [commits, events] = under_test().Commits(*store);
    EXPECT_EQ(commits - commits_before, 1u) << "round " << round;
    EXPECT_EQ(events - events_before, 2u);
  }
  EXPECT_EQ(store->Read("m")->size(), 11u);
  EXPECT_EQ(store->Read("m/journal")->size(), 10u);
}

// A batch the database itself refuses (here: a notice whose delivery id is taken) fails alone,
// with nothing of it written, and the batches queued with it are committed.
TEST_P(EventStoreContractTest, ABatchTheDatabaseRefusesFailsAloneAndWritesNothing) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto with_notice = [](std::string match_id, std::string delivery_id) {
    AppendBatch batch = Batch(std::move(match_id), 0, {"e1", "e2"});
    batch.notices = {OutboxNotice{.delivery_id = std::move(delivery_id),
                                  .match_id = batch.match_id,
                                  .seat = "side_a",
                                  .body = "{}",
                                  .created_unix_ms = 1}};
    return batch;
  };
  ASSERT_TRUE(store->AppendAndWait(with_notice("first", "d1")).has_value());
  std::promise<StoreResult<Appended>> before, refused, after;
  store->Append(with_notice("before", "d2"), [&](auto r) { before.set_value(std::move(r)); });
  store->Append(with_notice("refused", "d1"), [&](auto r) { refused.set_value(std::move(r)); });
  store->Append(with_notice("after", "d3"), [&](auto r) { after.set_value(std::move(r)); });
  EXPECT_TRUE(before.get_future().get().has_value());
  auto failed = refused.get_future().get();
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().code, StoreErrorCode::kUnavailable) << failed.error().message;
  EXPECT_TRUE(after.get_future().get().has_value());
  EXPECT_EQ(store->Read("refused").error().code, StoreErrorCode::kNotFound);
  EXPECT_EQ(store->Read("before")->size(), 2u);
  EXPECT_EQ(store->Read("after")->size(), 2u);
  EXPECT_EQ(store->notifications()->Outbox(kWebhookChannel)->pending, 3u);
  // The match can still begin afterwards.
  EXPECT_TRUE(store->AppendAndWait(with_notice("refused", "d4")).has_value());
}

// Batches of one match queued together (so, usually, in one transaction): when the database
// refuses the middle one, the head the next one chains from is the first one's, not the refused
// one's, and what the transaction leaves reads back whole and chained.
TEST_P(EventStoreContractTest, ARefusedBatchLeavesItsMatchAtTheHeadOfTheBatchBeforeIt) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  // A batch with a notice whose delivery id is "taken": the database refuses the second one.
  const auto with_taken_notice = [](uint64_t expected_seq, std::string payload) {
    AppendBatch batch = Batch("m", expected_seq, {std::move(payload)});
    batch.notices = {OutboxNotice{.delivery_id = "taken",
                                  .match_id = "m",
                                  .seat = "side_a",
                                  .body = "{}",
                                  .created_unix_ms = 1}};
    return batch;
  };
  ASSERT_TRUE(store->AppendAndWait(with_taken_notice(0, "a")).has_value());
  AppendBatch refused_batch = with_taken_notice(2, "refused");
  std::promise<StoreResult<Appended>> before, refused, after;
  store->Append(Batch("m", 1, {"b"}), [&](auto r) { before.set_value(std::move(r)); });
  store->Append(std::move(refused_batch), [&](auto r) { refused.set_value(std::move(r)); });
  store->Append(Batch("m", 2, {"c"}), [&](auto r) { after.set_value(std::move(r)); });
  auto appended_before = before.get_future().get();
  ASSERT_TRUE(appended_before.has_value()) << appended_before.error().message;
  EXPECT_FALSE(refused.get_future().get().has_value());
  auto appended_after = after.get_future().get();
  ASSERT_TRUE(appended_after.has_value()) << appended_after.error().message;
  EXPECT_EQ(appended_after->first_seq, 3u);
  const auto expect_log = [](EventStore& at) {
    auto events = at.Read("m");
    ASSERT_TRUE(events.has_value()) << events.error().message;
    ASSERT_EQ(events->size(), 3u);
    EXPECT_EQ((*events)[0].payload, "a");
    EXPECT_EQ((*events)[1].payload, "b");
    EXPECT_EQ((*events)[2].payload, "c");
    EXPECT_EQ((*events)[2].prev_hash, (*events)[1].hash);
    EXPECT_EQ((*events)[2].hash, ChainHash((*events)[1].hash, "c"));
  };
  expect_log(*store);
  // The head the store keeps is the log's: the next append chains from "c".
  auto next = store->AppendAndWait(Batch("m", 3, {"d"}));
  ASSERT_TRUE(next.has_value()) << next.error().message;
  EXPECT_EQ(next->last_seq, 4u);
  auto events = store->Read("m");
  ASSERT_TRUE(events.has_value());
  EXPECT_EQ(events->back().prev_hash, (*events)[2].hash);
}

TEST_P(EventStoreContractTest, EventsSurviveReopening) {
  Hash head{};
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    head = store->AppendAndWait(Batch("m", 0, {"a", "b"}))->head;
  }
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto appended = store->AppendAndWait(Batch("m", 2, {"c"}));
  ASSERT_TRUE(appended.has_value()) << appended.error().message;
  auto events = store->Read("m");
  ASSERT_TRUE(events.has_value());
  EXPECT_EQ((*events)[1].hash, head);
  EXPECT_EQ((*events)[2].prev_hash, head);
}

TEST_P(EventStoreContractTest, ClosingDrainsTheQueue) {
  std::atomic<int> acknowledged{0};
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    for (int i = 0; i < 100; ++i) {
      store->Append(Batch("m" + std::to_string(i), 0, {"x"}), [&](StoreResult<Appended> r) {
        if (r) ++acknowledged;
      });
    }
  }
  EXPECT_EQ(acknowledged.load(), 100);
  EXPECT_EQ(Open()->ListMatches()->size(), 100u);
}

// ---- tampering: reading reports the first bad event ------------------------------------------

class TamperContractTest : public EventStoreContractTest {
 protected:
  void SetUp() override {
    EventStoreContractTest::SetUp();
    if (HasFatalFailure()) return;
    auto store = Open();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"e1", "e2", "e3", "e4", "e5"})).has_value());
  }
  // Reads the tampered log and returns the error (the test fails if the read succeeds).
  StoreError ReadError() {
    auto store = Open();
    if (store == nullptr) return StoreError{};
    auto events = store->Read("m");
    EXPECT_FALSE(events.has_value()) << "altered data was returned";
    return events ? StoreError{} : events.error();
  }
  std::string Events() { return under_test().Table("events"); }
};

TEST_P(TamperContractTest, RewrittenPayloadIsReportedAtItsSeq) {
  under_test().Tamper("UPDATE " + Events() + " SET payload = " + under_test().Blob("e9") +
                      " WHERE " + under_test().EventRow("m", 3));
  const StoreError error = ReadError();
  EXPECT_EQ(error.code, StoreErrorCode::kCorrupt);
  EXPECT_EQ(error.seq, 3u);
  EXPECT_NE(error.message.find("does not match its hash"), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("event 3 of match m is damaged"), std::string::npos)
      << error.message;
}

TEST_P(TamperContractTest, DeletedRowIsReportedAsMissing) {
  under_test().Tamper("DELETE FROM " + Events() + " WHERE " + under_test().EventRow("m", 2));
  const StoreError error = ReadError();
  EXPECT_EQ(error.code, StoreErrorCode::kCorrupt);
  EXPECT_EQ(error.seq, 2u);
  EXPECT_NE(error.message.find("missing"), std::string::npos) << error.message;
  EXPECT_EQ(error.message.find("damaged"), std::string::npos) << "the database itself is sound";
}

TEST_P(TamperContractTest, SwappedEventsAreReportedAtTheFirst) {
  // Events 2 and 3 trade places, each keeping its own payload and hashes.
  under_test().Tamper("UPDATE " + Events() + " SET seq = 100 WHERE " +
                      under_test().EventRow("m", 2));
  under_test().Tamper("UPDATE " + Events() + " SET seq = 2 WHERE " +
                      under_test().EventRow("m", 3));
  under_test().Tamper("UPDATE " + Events() + " SET seq = 3 WHERE " +
                      under_test().EventRow("m", 100));
  const StoreError error = ReadError();
  EXPECT_EQ(error.code, StoreErrorCode::kCorrupt);
  EXPECT_EQ(error.seq, 2u) << error.message;
}

TEST_P(TamperContractTest, RewrittenPayloadWithRecomputedHashStillBreaksTheNextLink) {
  const Hash forged = ChainHash(ChainHash(Genesis("m"), "e1"), "forged");
  under_test().Tamper(
      "UPDATE " + Events() + " SET payload = " + under_test().Blob("forged") + ", hash = " +
      under_test().Blob({reinterpret_cast<const char*>(forged.data()), forged.size()}) +
      " WHERE " + under_test().EventRow("m", 2));
  const StoreError error = ReadError();
  EXPECT_EQ(error.code, StoreErrorCode::kCorrupt);
  EXPECT_EQ(error.seq, 3u);
  EXPECT_NE(error.message.find("does not link to seq 2"), std::string::npos) << error.message;
}

TEST_P(TamperContractTest, AppendingToATamperedHeadIsRefused) {
  under_test().Tamper("UPDATE " + Events() + " SET payload = " + under_test().Blob("x") +
                      " WHERE " + under_test().EventRow("m", 5));
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto appended = store->AppendAndWait(Batch("m", 5, {"e6"}));
  ASSERT_FALSE(appended.has_value());
  EXPECT_EQ(appended.error().code, StoreErrorCode::kCorrupt);
  EXPECT_EQ(appended.error().seq, 5u);
  // Other matches are still written.
  EXPECT_TRUE(store->AppendAndWait(Batch("other", 0, {"o1"})).has_value());
}

// ---- snapshots --------------------------------------------------------------------------------

// A toy fold: the state is the concatenation of the payloads.
std::string Concatenate(const std::vector<Event>& events) {
  std::string state;
  for (const Event& event : events) state += event.payload;
  return state;
}

TEST_P(EventStoreContractTest, LoadStartsFromTheNewestSnapshot) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
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

TEST_P(EventStoreContractTest, SnapshotAtTheHeadLeavesNoEventsToFold) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a", "b"})).has_value());
  ASSERT_TRUE(store->SaveSnapshot("m", 2, "ab").has_value());
  auto loaded = store->Load("m");
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_EQ(loaded->snapshot->seq, 2u);
  EXPECT_TRUE(loaded->events.empty());
}

TEST_P(EventStoreContractTest, LoadWithoutSnapshotReturnsEveryEvent) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a", "b"})).has_value());
  auto loaded = store->Load("m");
  ASSERT_TRUE(loaded.has_value());
  EXPECT_FALSE(loaded->snapshot.has_value());
  EXPECT_EQ(loaded->events.size(), 2u);
}

TEST_P(EventStoreContractTest, SnapshotOfAMissingEventIsRefused) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a"})).has_value());
  auto saved = store->SaveSnapshot("m", 7, "x");
  ASSERT_FALSE(saved.has_value());
  EXPECT_EQ(store->SaveSnapshot("nope", 1, "x").error().code, StoreErrorCode::kNotFound);
}

TEST_P(EventStoreContractTest, DamagedSnapshotIsDiscardedAndReported) {
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a", "b", "c"})).has_value());
    ASSERT_TRUE(store->SaveSnapshot("m", 2, "ab").has_value());
  }
  under_test().Tamper("UPDATE " + under_test().Table("snapshots") +
                      " SET state = " + under_test().Blob("zz"));
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto loaded = store->Load("m");
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  EXPECT_FALSE(loaded->snapshot.has_value());
  EXPECT_EQ(loaded->events.size(), 3u);
  ASSERT_EQ(loaded->discarded_snapshots.size(), 1u);
  EXPECT_NE(loaded->discarded_snapshots[0].find("checksum mismatch"), std::string::npos);
  EXPECT_EQ(store->SnapshotDiscards("m")->size(), 1u);
}

TEST_P(EventStoreContractTest, SnapshotThatDisagreesWithTheFoldIsDiscarded) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
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

// Whether the store's one match is listed dormant, and the note it was marked with.
std::pair<bool, std::string> DormantOf(EventStore& store) {
  auto listed = store.ListMatches();
  EXPECT_TRUE(listed.has_value());
  EXPECT_EQ(listed->size(), 1u);
  return listed->empty() ? std::pair(false, std::string())
                         : std::pair(listed->front().dormant, listed->front().dormant_note);
}

// A match marked dormant at its last event is listed so, with the marker's note; an append after
// it makes it active again, a marker for an event that is not the last is ignored, and the marker
// survives reopening the store.
TEST_P(EventStoreContractTest, ADormantMarkerHoldsOnlyWhileItsEventIsTheLast) {
  auto mark = [](EventStore& store, uint64_t seq, std::string note) {
    std::promise<StoreResult<Appended>> marked;
    store.MarkDormant("m1", seq, std::move(note),
                      [&](StoreResult<Appended> done) { marked.set_value(std::move(done)); });
    return marked.get_future().get();
  };
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->AppendAndWait(Batch("m1", 0, {"e1", "e2", "e3"})).has_value());
    EXPECT_EQ(DormantOf(*store), std::pair(false, std::string()));

    ASSERT_TRUE(mark(*store, 3, "spring-open").has_value());
    EXPECT_EQ(DormantOf(*store), std::pair(true, std::string("spring-open")));

    ASSERT_TRUE(store->AppendAndWait(Batch("m1", 3, {"e4"})).has_value());
    EXPECT_FALSE(DormantOf(*store).first) << "an append wakes the match";

    ASSERT_TRUE(mark(*store, 3, "stale").has_value());
    EXPECT_FALSE(DormantOf(*store).first) << "a marker for event 3 of 4 is ignored";

    ASSERT_TRUE(mark(*store, 4, "").has_value());
  }
  auto reopened = Open();
  ASSERT_NE(reopened, nullptr);
  EXPECT_EQ(DormantOf(*reopened), std::pair(true, std::string()));
  EXPECT_EQ(reopened->Read("m1")->size(), 4u) << "a marker adds no event";
}

// An append that leaves its match owing nothing on a timer (a set-up step) marks it dormant at its
// own last event, in its own transaction: no marker, and no second transaction, after it. A batch
// that does not go in (a stale one) marks nothing; a later append wakes the match as a marker's
// would be woken.
TEST_P(EventStoreContractTest, AnAppendMarkedDormantMarksTheMatchAtItsLastEventInOneTransaction) {
  auto marked = [](uint64_t expected_seq, std::vector<std::string> payloads, std::string note) {
    AppendBatch batch = Batch("m1", expected_seq, std::move(payloads));
    batch.mark_dormant = true;
    batch.dormant_note = std::move(note);
    return batch;
  };
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    const uint64_t before = store->Writes().transactions;
    auto appended = store->AppendAndWait(marked(0, {"e1", "e2"}, "spring-open"));
    ASSERT_TRUE(appended.has_value()) << appended.error().message;
    EXPECT_EQ(appended->last_seq, 2u);
    EXPECT_EQ(DormantOf(*store), std::pair(true, std::string("spring-open")));
    EXPECT_EQ(store->Writes().transactions, before + 1) << "the events and the mark, one commit";

    ASSERT_TRUE(store->AppendAndWait(Batch("m1", 2, {"e3"})).has_value());
    EXPECT_FALSE(DormantOf(*store).first) << "an append wakes the match";

    auto stale = store->AppendAndWait(marked(2, {"e3'"}, "stale"));
    ASSERT_FALSE(stale.has_value());
    EXPECT_EQ(stale.error().code, StoreErrorCode::kConflict);
    EXPECT_FALSE(DormantOf(*store).first) << "a batch that did not go in marks nothing";

    ASSERT_TRUE(store->AppendAndWait(marked(3, {"e4"}, "")).has_value());
  }
  auto reopened = Open();
  ASSERT_NE(reopened, nullptr);
  EXPECT_EQ(DormantOf(*reopened), std::pair(true, std::string()));
  EXPECT_EQ(reopened->Read("m1")->size(), 4u);
}

// ---- notifications: webhooks, mail addresses and the outbox ------------------------------------

OutboxNotice Notice(const std::string& id) {
  return OutboxNotice{.delivery_id = id,
                      .match_id = "m1",
                      .seat = "side_a",
                      .body = "{\"delivery_id\":\"" + id + "\"}",
                      .created_unix_ms = 1000,
                      .attempts = 0,
                      .next_attempt_unix_ms = 0};
}

AppendBatch NoticeBatch(uint64_t expected_seq, std::vector<OutboxNotice> notices) {
  AppendBatch batch = Batch("m1", expected_seq, {"event"});
  batch.recorded_unix_ms = 1000;
  batch.notices = std::move(notices);
  return batch;
}

TEST_P(EventStoreContractTest, NoticesAreDurableExactlyWithTheirEvents) {
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->AppendAndWait(NoticeBatch(0, {Notice("a")})));
    // A stale batch writes neither its events nor its notices.
    auto stale = store->AppendAndWait(NoticeBatch(0, {Notice("b")}));
    ASSERT_FALSE(stale);
    EXPECT_EQ(stale.error().code, StoreErrorCode::kConflict);
  }
  auto store = Open();
  ASSERT_NE(store, nullptr);
  NotificationStore& outbox = *store->notifications();
  auto due = outbox.DueNotices(kWebhookChannel, 2000, 10);
  ASSERT_TRUE(due) << due.error().message;
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ(due->front().delivery_id, "a");
  EXPECT_EQ(due->front().body, "{\"delivery_id\":\"a\"}");
  EXPECT_EQ(due->front().match_id, "m1");
  EXPECT_EQ(due->front().seat, "side_a");
  EXPECT_EQ(outbox.Outbox(kWebhookChannel)->pending, 1u);
  EXPECT_EQ(outbox.Outbox(kWebhookChannel)->oldest_created_unix_ms, 1000);
}

TEST_P(EventStoreContractTest, FailedNoticesWaitForTheirRetryAndDeliveredOnesLeave) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->AppendAndWait(NoticeBatch(0, {Notice("a"), Notice("b")})));
  NotificationStore& outbox = *store->notifications();
  ASSERT_TRUE(outbox.NoticeFailed("a", 1, 5000, "refused"));
  auto due = outbox.DueNotices(kWebhookChannel, 2000, 10);
  ASSERT_TRUE(due);
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ(due->front().delivery_id, "b");
  due = outbox.DueNotices(kWebhookChannel, 5000, 10);
  ASSERT_EQ(due->size(), 2u);
  EXPECT_EQ(due->front().attempts, 1u);
  EXPECT_EQ(due->front().next_attempt_unix_ms, 5000);
  EXPECT_EQ(outbox.DueNotices(kWebhookChannel, 5000, 1)->size(), 1u) << "the limit holds";
  ASSERT_TRUE(outbox.NoticeDelivered("b"));
  EXPECT_EQ(outbox.Outbox(kWebhookChannel)->pending, 1u);
}

TEST_P(EventStoreContractTest, RemovingAWebhookDropsItsNotices) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  NotificationStore& outbox = *store->notifications();
  ASSERT_TRUE(outbox.SetWebhook({"m1", "side_a", "https://a.example/1", "s1"}));
  ASSERT_TRUE(outbox.SetWebhook({"m1", "side_a", "https://a.example/2", "s2"}));
  auto webhooks = outbox.Webhooks();
  ASSERT_TRUE(webhooks);
  ASSERT_EQ(webhooks->size(), 1u);
  EXPECT_EQ(webhooks->front().url, "https://a.example/2");
  EXPECT_EQ(webhooks->front().secret, "s2");
  ASSERT_TRUE(store->AppendAndWait(NoticeBatch(0, {Notice("a")})));
  ASSERT_TRUE(outbox.RemoveWebhook("m1", "side_a"));
  EXPECT_TRUE(outbox.Webhooks()->empty());
  EXPECT_EQ(outbox.Outbox(kWebhookChannel)->pending, 0u);
}

TEST_P(EventStoreContractTest, MailNoticesAreKeptApartFromWebhookNotices) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  NotificationStore& outbox = *store->notifications();
  ASSERT_TRUE(outbox.SetEmail({.match_id = "m1",
                               .seat = "side_a",
                               .address = "alice@example.org",
                               .digest_minutes = 10,
                               .token = "t"}));
  OutboxNotice mail = Notice("mail");
  mail.channel = kEmailChannel;
  ASSERT_TRUE(store->AppendAndWait(NoticeBatch(0, {Notice("hook"), mail})));
  EXPECT_EQ(outbox.DueNotices(kWebhookChannel, 2000, 10)->size(), 1u);
  auto mails = outbox.DueNotices(kEmailChannel, 2000, 10);
  ASSERT_EQ(mails->size(), 1u);
  EXPECT_EQ(mails->front().channel, kEmailChannel);
  EXPECT_EQ(outbox.SeatNotices(kEmailChannel, "m1", "side_a")->size(), 1u);
  EXPECT_TRUE(outbox.SeatNotices(kEmailChannel, "m1", "side_b")->empty());
  ASSERT_TRUE(outbox.EmailSent("m1", "side_a", 5000, 7));
  ASSERT_TRUE(outbox.EmailSent("m1", "side_a", 6000, 3));  // an older seq does not go back
  auto emails = outbox.Emails();
  ASSERT_EQ(emails->size(), 1u);
  EXPECT_EQ(emails->front().address, "alice@example.org");
  EXPECT_EQ(emails->front().digest_minutes, 10u);
  EXPECT_EQ(emails->front().token, "t");
  EXPECT_EQ(emails->front().last_mailed_unix_ms, 6000);
  EXPECT_EQ(emails->front().last_mailed_seq, 7u);
  // Registering again keeps the record of the last mail.
  ASSERT_TRUE(outbox.SetEmail({.match_id = "m1",
                               .seat = "side_a",
                               .address = "alice@example.net",
                               .digest_minutes = 0,
                               .token = "t"}));
  EXPECT_EQ(outbox.Emails()->front().address, "alice@example.net");
  EXPECT_EQ(outbox.Emails()->front().last_mailed_seq, 7u);
  // Removing the address drops its mails, not the webhook's notices.
  ASSERT_TRUE(outbox.RemoveEmail("m1", "side_a"));
  EXPECT_TRUE(outbox.Emails()->empty());
  EXPECT_EQ(outbox.Outbox(kEmailChannel)->pending, 0u);
  EXPECT_EQ(outbox.Outbox(kWebhookChannel)->pending, 1u);
}

// ---- leases -----------------------------------------------------------------------------------

// One node: the lease is granted, kept and let go; appends under it pass. (Several nodes on one
// PostgreSQL: postgres_event_store_test.cc.)
TEST_P(EventStoreContractTest, ALeaseIsGrantedKeptAndReleased) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto lease = store->AcquireLease("m");
  ASSERT_TRUE(lease.has_value()) << lease.error().message;
  EXPECT_EQ(lease->match_id, "m");
  EXPECT_GE(lease->token, 1u);
  EXPECT_FALSE(lease->node_id.empty());
  auto held = store->HeldLease("m");
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(held->token, lease->token);
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a"})).has_value());
  AppendBatch explicit_token = Batch("m", 1, {"b"});
  explicit_token.lease_token = lease->token;
  auto appended = store->AppendAndWait(explicit_token);
  ASSERT_TRUE(appended.has_value()) << appended.error().message;
  auto renewed = store->RenewLeases();
  EXPECT_TRUE(renewed.has_value()) << renewed.error().message;
  ASSERT_TRUE(store->HeldLease("m").has_value()) << "a renewal keeps the lease";
  EXPECT_EQ(store->HeldLease("m")->token, lease->token) << "a renewal keeps the token";
  ASSERT_TRUE(store->ReleaseLease("m").has_value());
  auto again = store->AcquireLease("m");
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_GE(again->token, lease->token) << "a token never goes back";
  EXPECT_EQ(store->Read("m")->size(), 2u);
  EXPECT_FALSE(store->AcquireLease("").has_value()) << "a lease needs a match id";
}

TEST_P(EventStoreContractTest, FencedHasAName) {
  EXPECT_EQ(Name(StoreErrorCode::kFenced), "fenced");
}

// ---- health -----------------------------------------------------------------------------------

TEST_P(EventStoreContractTest, AHealthyStoreAnswersPingsAndProbes) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->Ping().has_value());
  ASSERT_TRUE(store->AppendAndWait(Batch("m", 0, {"a"})).has_value());
  const WriteHealth health = store->Writes();
  EXPECT_EQ(health.failed_appends, 0u);
  EXPECT_FALSE(health.failing.has_value());
  auto probed = store->ProbeWrite();
  EXPECT_TRUE(probed.has_value()) << probed.error().message;
  EXPECT_TRUE(store->ProbeWrite().has_value()) << "a probe can run again";
  EXPECT_EQ(store->Read("m")->size(), 1u) << "a probe leaves the log as it is";
}

// The suites' names end in the store's: Stores/EventStoreContractTest.ClosingDrainsTheQueue/SQLite.
std::string StoreName(const ::testing::TestParamInfo<StoreKind>& param) { return param.param.name; }

const StoreKind kSqlite{"SQLite", [] { return std::make_unique<SqliteUnderTest>(); }};
const StoreKind kPostgres{"PostgreSQL", [] { return std::make_unique<PostgresUnderTest>(); }};

INSTANTIATE_TEST_SUITE_P(Stores, EventStoreContractTest, ::testing::Values(kSqlite, kPostgres),
                         StoreName);
INSTANTIATE_TEST_SUITE_P(Stores, TamperContractTest, ::testing::Values(kSqlite, kPostgres),
                         StoreName);

// The chain's definition, the same for every store.
TEST(EventStoreContractChainTest, GenesisBindsTheChainToItsMatch) {
  EXPECT_NE(Genesis("m1"), Genesis("m2"));
  EXPECT_EQ(ToHex(Genesis("m1")).size(), 64u);
}

}  // namespace
}  // namespace melee::persistence
