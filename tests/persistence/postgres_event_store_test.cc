// What only the PostgreSQL store has (the contract both stores share is in
// event_store_contract_test.cc): opening a database that is not there or not ours, two stores on
// one database (the database refuses a stale writer), and PostgreSQL going down under appends and
// coming back, with the store recovering by itself.

#include "persistence/postgres_event_store.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/testing/append_batch.h"
#include "tests/testing/postgres_server.h"
#include "tests/testing/temp_dir.h"

namespace melee::persistence {
namespace {

using namespace std::chrono_literals;

using testing::Batch;

class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(testing::SharedPostgres().ok()) << testing::SharedPostgres().error();
    uri_ = testing::SharedPostgres().CreateDatabase();
    ASSERT_FALSE(uri_.empty());
  }
  std::unique_ptr<PostgresEventStore> Open() {
    auto store = PostgresEventStore::Open(uri_);
    EXPECT_TRUE(store.has_value()) << store.error().message;
    return store ? std::move(*store) : nullptr;
  }

  std::string uri_;
};

TEST(PostgresStoreOpenTest, AnUnreachableServerIsUnavailableNamingPostgresAndWhere) {
  testing::TempDir nowhere;  // no server listens on a socket in here
  auto store = PostgresEventStore::Open("postgresql:///melee?host=" + nowhere.path().string() +
                                        "&user=melee&password=secret");
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code, StoreErrorCode::kUnavailable);
  const std::string& message = store.error().message;
  EXPECT_NE(message.find("cannot connect to PostgreSQL"), std::string::npos) << message;
  EXPECT_NE(message.find("database melee on " + nowhere.path().string()), std::string::npos)
      << message;
  EXPECT_EQ(message.find("secret"), std::string::npos) << "the password stays out: " << message;
}

TEST(PostgresStoreOpenTest, AMalformedUriIsAnInvalidArgument) {
  auto store = PostgresEventStore::Open("postgresql://host:notaport:/db?sslmode");
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code, StoreErrorCode::kInvalidArgument);
  EXPECT_NE(store.error().message.find("URI is malformed"), std::string::npos)
      << store.error().message;
}

TEST(PostgresStoreOpenTest, UrisAreToldFromDataDirectories) {
  EXPECT_TRUE(IsPostgresUri("postgresql://db.example/melee"));
  EXPECT_TRUE(IsPostgresUri("postgres:///melee"));
  EXPECT_FALSE(IsPostgresUri("data"));
  EXPECT_FALSE(IsPostgresUri("/var/lib/melee"));
}

TEST_F(PostgresStoreTest, OpeningTwiceKeepsTheSchemaAndItsEvents) {
  { ASSERT_TRUE(Open()->AppendAndWait(Batch("m", 0, {"a"})).has_value()); }
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->Read("m")->size(), 1u);
  EXPECT_NE(store->where().find("database test_"), std::string::npos) << store->where();
}

TEST_F(PostgresStoreTest, ANewerFormatVersionIsRefused) {
  { ASSERT_NE(Open(), nullptr); }
  ASSERT_EQ(testing::PostgresServer::Execute(
                uri_, "UPDATE melee.meta SET value = '99' WHERE key = 'format_version'"),
            "");
  auto store = PostgresEventStore::Open(uri_);
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code, StoreErrorCode::kInvalidArgument);
  EXPECT_NE(store.error().message.find("format version 99"), std::string::npos)
      << store.error().message;
}

TEST_F(PostgresStoreTest, AnotherApplicationsSchemaIsRefused) {
  ASSERT_EQ(testing::PostgresServer::Execute(
                uri_,
                "CREATE SCHEMA melee; CREATE TABLE melee.meta (key text PRIMARY KEY, value text);"
                "INSERT INTO melee.meta VALUES ('application', 'somethingelse')"),
            "");
  auto store = PostgresEventStore::Open(uri_);
  ASSERT_FALSE(store.has_value());
  EXPECT_NE(store.error().message.find("another application"), std::string::npos)
      << store.error().message;
}

// Two stores on one database (as two servers would be): the one whose idea of the head is stale
// is refused by the database's compare-and-set, not by its own cache, and then reads the head
// again.
TEST_F(PostgresStoreTest, TheDatabaseRefusesAStaleWriter) {
  auto first = Open();
  auto second = Open();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  ASSERT_TRUE(first->AppendAndWait(Batch("m", 0, {"a"})).has_value());
  ASSERT_TRUE(second->AppendAndWait(Batch("m", 1, {"b"})).has_value());
  auto stale = first->AppendAndWait(Batch("m", 1, {"c"}));
  ASSERT_FALSE(stale.has_value());
  EXPECT_EQ(stale.error().code, StoreErrorCode::kConflict);
  EXPECT_NE(stale.error().message.find("another writer"), std::string::npos)
      << stale.error().message;
  auto again = first->AppendAndWait(Batch("m", 2, {"c"}));
  ASSERT_TRUE(again.has_value()) << again.error().message;
  auto events = second->Read("m");
  ASSERT_TRUE(events.has_value()) << events.error().message;
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[1].payload, "b");
  // A new match begun by both: the second INSERT finds the row and is a conflict.
  ASSERT_TRUE(first->AppendAndWait(Batch("n", 0, {"x"})).has_value());
  EXPECT_EQ(second->AppendAndWait(Batch("n", 0, {"y"})).error().code, StoreErrorCode::kConflict);
}

// PostgreSQL stops while appends are queued and in flight: each one is either committed whole
// or refused with kUnavailable naming PostgreSQL (nothing half-written), WriteHealth says the
// store fails, and once PostgreSQL is back the next append succeeds on the same store object.
TEST(PostgresDownTest, AppendsFailClearlyWhileDownAndSucceedOnceBackWithoutReopening) {
  testing::PostgresServer server;  // its own: this test stops it
  ASSERT_TRUE(server.ok()) << server.error();
  const std::string uri = server.CreateDatabase();
  ASSERT_FALSE(uri.empty());
  auto opened = PostgresEventStore::Open(uri);
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  PostgresEventStore& store = **opened;

  constexpr int kMatches = 4;
  constexpr int kEventsPerBatch = 3;
  std::mutex mutex;
  std::map<std::string, std::vector<std::string>> acknowledged;  // match -> batch tags
  std::vector<StoreError> refusals;
  std::atomic<bool> stop{false};
  std::vector<std::thread> writers;
  for (int m = 0; m < kMatches; ++m) {
    writers.emplace_back([&, m] {
      const std::string match_id = "m" + std::to_string(m);
      uint64_t seq = 0;
      for (int b = 0; !stop; ++b) {
        const std::string tag = match_id + "-b" + std::to_string(b);
        std::vector<std::string> payloads;
        for (int k = 0; k < kEventsPerBatch; ++k) payloads.push_back(tag + "-e" + std::to_string(k));
        auto appended = store.AppendAndWait(Batch(match_id, seq, payloads));
        std::lock_guard lock(mutex);
        if (appended) {
          seq = appended->last_seq;
          acknowledged[match_id].push_back(tag);
        } else {
          refusals.push_back(appended.error());
          if (refusals.size() > 2000) return;  // enough; do not spin forever
          std::this_thread::sleep_for(2ms);
        }
      }
    });
  }
  // Let appends flow, then stop PostgreSQL under them.
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  auto count = [&] {
    std::lock_guard lock(mutex);
    std::size_t batches = 0;
    for (const auto& [match, tags] : acknowledged) batches += tags.size();
    return std::pair(batches, refusals.size());
  };
  while (count().first < 20 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_TRUE(server.Stop()) << server.error();
  while (count().second < 10 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  stop = true;
  for (auto& writer : writers) writer.join();
  const std::size_t acknowledged_before_stop = count().first;
  ASSERT_GE(refusals.size(), 10u) << "the appends did not fail while PostgreSQL was down";

  for (const StoreError& refusal : refusals) {
    EXPECT_TRUE(refusal.code == StoreErrorCode::kUnavailable ||
                refusal.code == StoreErrorCode::kConflict)
        << Name(refusal.code) << ": " << refusal.message;
  }
  const StoreError& last = refusals.back();
  EXPECT_EQ(last.code, StoreErrorCode::kUnavailable);
  EXPECT_NE(last.message.find("PostgreSQL"), std::string::npos) << last.message;
  EXPECT_NE(last.message.find(store.where()), std::string::npos) << last.message;
  const WriteHealth down = store.Writes();
  ASSERT_TRUE(down.failing.has_value());
  EXPECT_NE(down.failing->message.find("PostgreSQL"), std::string::npos) << down.failing->message;
  EXPECT_GE(down.failed_appends, 1u);
  auto ping = store.Ping();
  ASSERT_FALSE(ping.has_value());
  EXPECT_EQ(ping.error().code, StoreErrorCode::kUnavailable);
  EXPECT_NE(ping.error().message.find("PostgreSQL"), std::string::npos) << ping.error().message;
  EXPECT_FALSE(store.ProbeWrite().has_value());

  ASSERT_TRUE(server.Start()) << server.error();

  // Back: reads and writes work on the same store object.
  EXPECT_TRUE(store.Ping().has_value());
  auto matches = store.ListMatches();
  ASSERT_TRUE(matches.has_value()) << matches.error().message;
  for (const MatchSummary& summary : *matches) {
    auto events = store.Read(summary.match_id);
    ASSERT_TRUE(events.has_value()) << events.error().message;
    // Every batch is there whole or not at all, and every acknowledged batch is there.
    std::map<std::string, int> per_batch;
    for (const Event& event : *events) {
      per_batch[event.payload.substr(0, event.payload.rfind("-e"))] += 1;
    }
    for (const auto& [tag, events_of_batch] : per_batch) {
      EXPECT_EQ(events_of_batch, kEventsPerBatch) << "batch " << tag << " is half-written";
    }
    for (const std::string& tag : acknowledged[summary.match_id]) {
      EXPECT_EQ(per_batch.count(tag), 1u) << "acknowledged batch " << tag << " is lost";
    }
    auto next = store.AppendAndWait(Batch(summary.match_id, summary.last_seq, {"after"}));
    ASSERT_TRUE(next.has_value()) << next.error().message;
    EXPECT_EQ(next->last_seq, summary.last_seq + 1);
  }
  EXPECT_EQ(matches->size(), static_cast<std::size_t>(kMatches));
  EXPECT_GE(acknowledged_before_stop, 20u);
  EXPECT_FALSE(store.Writes().failing.has_value()) << "a committed append clears the failure";
}

// ---- leases: several nodes on one database ------------------------------------------------------

class PostgresLeaseTest : public PostgresStoreTest {
 protected:
  // Opens a node: `node_id`, leases of `lease_ms`, renewed in the background or not (a node
  // that froze renews nothing).
  std::unique_ptr<PostgresEventStore> Node(const std::string& node_id, int64_t lease_ms,
                                           bool renews) {
    PostgresStoreOptions options;
    options.node_id = node_id;
    options.lease_ms = lease_ms;
    options.renew_in_background = renews;
    auto store = PostgresEventStore::Open(uri_, options);
    EXPECT_TRUE(store.has_value()) << store.error().message;
    return store ? std::move(*store) : nullptr;
  }

  // Takes `match_id`'s lease on `store` as soon as the holder's runs out (a few seconds at most).
  static StoreResult<Lease> TakeWhenFree(EventStore& store, const std::string& match_id) {
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    while (true) {
      auto lease = store.AcquireLease(match_id);
      if (lease || lease.error().code != StoreErrorCode::kFenced ||
          std::chrono::steady_clock::now() > give_up) {
        return lease;
      }
      std::this_thread::sleep_for(20ms);
    }
  }
};

TEST_F(PostgresLeaseTest, ASecondNodeTakesAnExpiredLeaseAndTheFirstIsFenced) {
  auto a = Node("node-a", 300, /*renews=*/false);
  auto b = Node("node-b", 300, true);
  ASSERT_TRUE(a && b);
  std::vector<std::pair<Lease, StoreError>> lost;
  std::mutex lost_mutex;
  a->OnLeaseLost([&](const Lease& lease, const StoreError& why) {
    std::lock_guard lock(lost_mutex);
    lost.emplace_back(lease, why);
  });
  auto first = a->AcquireLease("m");
  ASSERT_TRUE(first.has_value()) << first.error().message;
  EXPECT_EQ(first->token, 1u);
  ASSERT_TRUE(a->AppendAndWait(Batch("m", 0, {"from a"})).has_value());

  // While a's lease runs, b is refused, told who holds it.
  auto refused = b->AcquireLease("m");
  if (!refused.has_value()) {  // (a's 300 ms may already have run out on a slow machine)
    EXPECT_EQ(refused.error().code, StoreErrorCode::kFenced);
    EXPECT_NE(refused.error().message.find("match m is served by node node-a (token 1"),
              std::string::npos)
        << refused.error().message;
  }
  // a froze: its lease runs out and b takes the match over.
  auto second = refused ? refused : TakeWhenFree(*b, "m");
  ASSERT_TRUE(second.has_value()) << second.error().message;
  EXPECT_EQ(second->token, 2u) << "a takeover gets a greater token";

  // a wakes up and appends under its old token: refused, nothing written.
  auto stale = a->AppendAndWait(Batch("m", 1, {"stale a"}));
  ASSERT_FALSE(stale.has_value());
  EXPECT_EQ(stale.error().code, StoreErrorCode::kFenced);
  EXPECT_EQ(stale.error().message,
            "match m is now owned by node node-b (token 2); this node's lease (node-a, token 1) "
            "has expired: nothing was written");
  EXPECT_FALSE(a->HeldLease("m").has_value()) << "a knows it lost the match";
  {
    std::lock_guard lock(lost_mutex);
    ASSERT_EQ(lost.size(), 1u);
    EXPECT_EQ(lost[0].first.token, 1u);
    EXPECT_EQ(lost[0].second.code, StoreErrorCode::kFenced);
  }
  // a knows it lost the lease, and every append of the match after it is still refused: under
  // its last token, not unfenced.
  auto again = a->AppendAndWait(Batch("m", 1, {"stale again"}));
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code, StoreErrorCode::kFenced) << again.error().message;
  AppendBatch explicit_stale = Batch("m", 1, {"stale, explicitly"});
  explicit_stale.lease_token = 1;
  EXPECT_EQ(a->AppendAndWait(explicit_stale).error().code, StoreErrorCode::kFenced);

  ASSERT_TRUE(b->AppendAndWait(Batch("m", 1, {"from b"})).has_value());
  auto events = b->Read("m");
  ASSERT_TRUE(events.has_value()) << events.error().message;
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].payload, "from a");
  EXPECT_EQ((*events)[1].payload, "from b") << "nothing of a's after the takeover";
}

TEST_F(PostgresLeaseTest, RenewalKeepsALease) {
  auto a = Node("node-a", 300, /*renews=*/true);
  auto b = Node("node-b", 300, true);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->AcquireLease("m").has_value());
  // Three lease times: renewed every 100 ms, a's lease never runs out.
  for (int i = 0; i < 9; ++i) {
    std::this_thread::sleep_for(100ms);
    auto refused = b->AcquireLease("m");
    ASSERT_FALSE(refused.has_value()) << "b took a renewed lease at try " << i;
    EXPECT_EQ(refused.error().code, StoreErrorCode::kFenced);
  }
  EXPECT_TRUE(a->AppendAndWait(Batch("m", 0, {"a"})).has_value());
  EXPECT_EQ(a->HeldLease("m")->token, 1u);
}

TEST_F(PostgresLeaseTest, ReleaseLetsAnotherNodeTakeItAtOnce) {
  auto a = Node("node-a", 60'000, true);
  auto b = Node("node-b", 60'000, true);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->AcquireLease("m").has_value());
  ASSERT_TRUE(a->AppendAndWait(Batch("m", 0, {"a"})).has_value());
  auto refused = b->AcquireLease("m");
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("its lease runs 5"), std::string::npos)
      << "about a minute left: " << refused.error().message;
  ASSERT_TRUE(a->ReleaseLease("m").has_value());
  auto taken = b->AcquireLease("m");
  ASSERT_TRUE(taken.has_value()) << taken.error().message;
  EXPECT_EQ(taken->token, 2u);
  EXPECT_TRUE(b->AppendAndWait(Batch("m", 1, {"b"})).has_value());
  auto stale = a->AppendAndWait(Batch("m", 2, {"a again"}));
  ASSERT_FALSE(stale.has_value());
  EXPECT_EQ(stale.error().code, StoreErrorCode::kFenced)
      << "a released it: its appends carry its last token, which b's replaced: "
      << stale.error().message;
}

// Two connections of one match reach a node at once and both ask for the lease: the second gets
// the same lease, not a new token that would fence the first's appends.
TEST_F(PostgresLeaseTest, ALeaseAskedForTwiceAtOnceIsOneLease) {
  auto a = Node("node-a", 60'000, true);
  auto first = a->AcquireLease("m");
  ASSERT_TRUE(first.has_value()) << first.error().message;
  auto second = a->AcquireLease("m");
  ASSERT_TRUE(second.has_value()) << second.error().message;
  EXPECT_EQ(second->token, first->token);
  AppendBatch under_first = Batch("m", 0, {"a"});
  under_first.lease_token = first->token;
  auto appended = a->AppendAndWait(under_first);
  EXPECT_TRUE(appended.has_value()) << appended.error().message;
  ASSERT_TRUE(a->RenewLeases().has_value());
  EXPECT_EQ(a->HeldLease("m")->token, first->token) << "the renewal keeps the one lease";
}

// An append in flight holds its lease row FOR KEY SHARE. A renewal of the node's leases does not
// wait for it (a group commit of many matches and a renewal of many leases locking rows in
// different orders once deadlocked under load); a takeover, which changes the token, does.
TEST_F(PostgresLeaseTest, ARenewalDoesNotWaitForAnAppendInFlightButATakeoverDoes) {
  auto a = Node("node-a", 60'000, /*renews=*/false);
  ASSERT_TRUE(a->AcquireLease("m").has_value());
  ASSERT_TRUE(a->AppendAndWait(Batch("m", 0, {"a"})).has_value());
  std::unique_ptr<PGconn, decltype(&PQfinish)> append(PQconnectdb(uri_.c_str()), &PQfinish);
  ASSERT_EQ(PQstatus(append.get()), CONNECTION_OK) << PQerrorMessage(append.get());
  const auto run = [&](const char* sql) {
    std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(append.get(), sql), &PQclear);
    return PQresultStatus(result.get()) == PGRES_COMMAND_OK ||
           PQresultStatus(result.get()) == PGRES_TUPLES_OK;
  };
  ASSERT_TRUE(run("BEGIN"));
  ASSERT_TRUE(run("SELECT 1 FROM melee.leases WHERE match_id = 'm' AND token = 1 FOR KEY SHARE"));

  auto renewal = std::async(std::launch::async, [&] { return a->RenewLeases(); });
  const bool renewed = renewal.wait_for(20s) == std::future_status::ready;
  auto b = Node("node-b", 60'000, false);
  EXPECT_EQ(testing::PostgresServer::Execute(
                uri_, "UPDATE melee.leases SET expires_at = clock_timestamp() WHERE match_id = 'm'"),
            "");
  auto takeover = std::async(std::launch::async, [&] { return b->AcquireLease("m"); });
  const bool took_at_once = takeover.wait_for(1s) == std::future_status::ready;
  EXPECT_TRUE(run("COMMIT"));  // the append in flight ends: the takeover goes on
  EXPECT_TRUE(renewed) << "the renewal waited for the append in flight";
  ASSERT_TRUE(renewal.get().has_value());
  EXPECT_FALSE(took_at_once) << "the takeover did not wait for the append in flight";
  auto taken = takeover.get();
  ASSERT_TRUE(taken.has_value()) << taken.error().message;
  EXPECT_EQ(taken->token, 2u);
}

// A node that stops lets its leases go; one that starts again under its name takes them back.
TEST_F(PostgresLeaseTest, ANodeTakesItsOwnLeaseBackAtOnceWithANewToken) {
  auto a = Node("node-a", 60'000, true);
  ASSERT_TRUE(a->AcquireLease("m").has_value());
  ASSERT_TRUE(a->AppendAndWait(Batch("m", 0, {"a"})).has_value());
  auto restarted = Node("node-a", 60'000, true);
  auto back = restarted->AcquireLease("m");
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->token, 2u);
  EXPECT_EQ(a->AppendAndWait(Batch("m", 1, {"old process"})).error().code,
            StoreErrorCode::kFenced);
  a.reset();  // its destructor releases nothing it no longer holds
  EXPECT_TRUE(restarted->AppendAndWait(Batch("m", 1, {"new process"})).has_value());
  auto b = Node("node-b", 60'000, true);
  EXPECT_EQ(b->AcquireLease("m").error().code, StoreErrorCode::kFenced);
  restarted.reset();  // stops: releases its leases
  auto taken = b->AcquireLease("m");
  ASSERT_TRUE(taken.has_value()) << taken.error().message;
  EXPECT_EQ(taken->token, 3u);
}

// With nothing else writing, a probe is what tells the store works again.
TEST(PostgresDownTest, AProbeClearsTheFailureOnceBack) {
  testing::PostgresServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  const std::string uri = server.CreateDatabase();
  auto opened = PostgresEventStore::Open(uri);
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  PostgresEventStore& store = **opened;
  ASSERT_TRUE(server.Stop()) << server.error();
  auto refused = store.AppendAndWait(Batch("m", 0, {"a"}));
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, StoreErrorCode::kUnavailable);
  EXPECT_NE(refused.error().message.find("cannot connect to PostgreSQL"), std::string::npos)
      << refused.error().message;
  ASSERT_TRUE(store.Writes().failing.has_value());
  ASSERT_TRUE(server.Start()) << server.error();
  auto probed = store.ProbeWrite();
  ASSERT_TRUE(probed.has_value()) << probed.error().message;
  EXPECT_FALSE(store.Writes().failing.has_value());
  EXPECT_EQ(store.Writes().failed_appends, 1u);
  EXPECT_TRUE(store.AppendAndWait(Batch("m", 0, {"a"})).has_value());
}

}  // namespace
}  // namespace melee::persistence
