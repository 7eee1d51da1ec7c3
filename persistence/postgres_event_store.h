#pragma once

// The EventStore on PostgreSQL (libpq): the same contract as the SQLite store, for a log that
// lives outside the server (persistence/FORMAT.md, "PostgreSQL"; docs/postgresql.md).
//
// Appends from every match wait in one queue; the writer thread (persistence/group_commit.h,
// shared with the SQLite store) takes everything waiting (up to Options::max_batch_events
// events), and this store's Commit sends one statement per match's batch on its own connection
// in libpq's pipeline mode, commits them as one transaction with synchronous_commit=on, and only
// then runs the callbacks. The database itself refuses a stale writer: the head of a match moves
// by a compare-and-set on `last_seq` in the statement that inserts its events (a stale batch
// writes nothing and does not sink the others), and `(match_id, seq)` is the events' primary
// key. Reads, snapshots, notifications, Ping and ProbeWrite share a second connection.
//
// When PostgreSQL is down or the connection is lost, an operation fails with kUnavailable and a
// message naming PostgreSQL and where it was looked for; the broken connection is dropped, and
// the next operation connects again: the store recovers by itself when PostgreSQL is back.
//
// Several nodes may share one database: a node takes a match's lease (melee.leases: the holder,
// a fencing token that only grows, an expiry by the database's clock) before it writes the
// match, a thread renews the leases held every third of Options::lease_ms, and every append of
// a match carries the token of its lease: the statement that inserts the events first locks
// the match's lease row (FOR SHARE) and writes only while the token is still the current one,
// so a node whose lease moved on (a partition, a pause) is refused with kFenced, in the same
// transaction, whatever its own clock says.
//
// Thread-safe. The destructor drains the queue (every queued append is committed or failed
// before it returns), then releases the leases held.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "persistence/event_store.h"
#include "persistence/group_commit.h"
#include "persistence/notification_store.h"

namespace melee::persistence {

// The format version of the PostgreSQL schema this build reads and writes (FORMAT.md).
inline constexpr int kPostgresFormatVersion = 1;

// The PostgreSQL schema (namespace) the store's tables live in.
inline constexpr const char* kPostgresSchema = "melee";

// Returns true when `location` names a PostgreSQL database (a postgresql:// or postgres:// URI)
// rather than a data directory.
bool IsPostgresUri(std::string_view location);

// How a PostgresEventStore is opened.
struct PostgresStoreOptions {
  // Most events in one transaction. 1 turns group commit off (the benchmark's baseline).
  std::size_t max_batch_events = 4096;
  // How long to wait for PostgreSQL to accept a connection before failing with kUnavailable.
  int connect_timeout_seconds = 5;
  // This node's name in the leases (melee-server --node-id): unique among the nodes that share
  // the database. A node that starts again under its name takes its leases back at once.
  std::string node_id = "node";
  // How long a lease runs without being renewed (melee-server --lease-seconds); the store renews
  // its leases every third of it. After a node dies, its matches wait this long at most.
  int64_t lease_ms = 10'000;
  // Renew the leases held in the background. Tests turn it off to play a node that froze.
  bool renew_in_background = true;
};

class PostgresEventStore final : public EventStore, public NotificationStore {
 public:
  using Options = PostgresStoreOptions;

  // Connects to `uri` (a libpq connection URI or key=value string: postgresql://user@host/db),
  // creates the `melee` schema and its tables if needed, checks that an existing one is of a
  // format this build reads, and starts the writer thread. Fails with kUnavailable and a clear
  // message (without the password) when PostgreSQL cannot be reached, and with kInvalidArgument
  // for a malformed URI or a newer format.
  static StoreResult<std::unique_ptr<PostgresEventStore>> Open(const std::string& uri,
                                                               Options options);
  static StoreResult<std::unique_ptr<PostgresEventStore>> Open(const std::string& uri) {
    return Open(uri, Options{});
  }

  ~PostgresEventStore() override;
  PostgresEventStore(const PostgresEventStore&) = delete;
  PostgresEventStore& operator=(const PostgresEventStore&) = delete;

  void Append(AppendBatch batch, AppendCallback done) override;
  void AppendTogether(std::vector<PendingAppend> appends) override;
  StoreResult<std::vector<Event>> Read(std::string_view match_id, uint64_t after_seq = 0,
                                       uint64_t limit = UINT64_MAX) override;
  StoreResult<std::vector<MatchSummary>> ListMatches() override;
  StoreResult<void> SaveSnapshot(std::string_view match_id, uint64_t seq,
                                 std::string state) override;
  StoreResult<LoadedMatch> Load(std::string_view match_id) override;
  StoreResult<void> DiscardSnapshot(std::string_view match_id, uint64_t seq,
                                    std::string reason) override;
  StoreResult<std::vector<std::pair<uint64_t, std::string>>> SnapshotDiscards(
      std::string_view match_id) override;
  StoreResult<void> Ping() override;
  WriteHealth Writes() const override;
  // Counts the probe in `melee.meta` (key `write_probes`): one durable commit.
  StoreResult<void> ProbeWrite() override;

  // Webhooks and the outbox (persistence/notification_store.h; postgres_notifications.cc), on
  // the reader connection.
  NotificationStore* notifications() override { return this; }

  // Leases on the lease connection (see the file comment and EventStore).
  bool SharedByNodes() const override { return true; }
  StoreResult<Lease> AcquireLease(std::string_view match_id) override;
  StoreResult<void> ReleaseLease(std::string_view match_id) override;
  std::optional<Lease> HeldLease(std::string_view match_id) const override;
  StoreResult<void> RenewLeases() override;
  void OnLeaseLost(LeaseLostCallback lost) override;
  const std::string& node_id() const { return options_.node_id; }

  StoreResult<void> SetWebhook(const Webhook& webhook) override;
  StoreResult<void> RemoveWebhook(const std::string& match_id, const std::string& seat) override;
  StoreResult<std::vector<Webhook>> Webhooks() override;
  StoreResult<void> SetEmail(const EmailRegistration& email) override;
  StoreResult<void> RemoveEmail(const std::string& match_id, const std::string& seat) override;
  StoreResult<std::vector<EmailRegistration>> Emails() override;
  StoreResult<void> EmailSent(const std::string& match_id, const std::string& seat,
                              int64_t unix_ms, uint64_t seq) override;
  StoreResult<std::vector<OutboxNotice>> DueNotices(const std::string& channel,
                                                    int64_t now_unix_ms, size_t limit) override;
  StoreResult<std::vector<OutboxNotice>> SeatNotices(const std::string& channel,
                                                     const std::string& match_id,
                                                     const std::string& seat) override;
  StoreResult<void> NoticeDelivered(const std::string& delivery_id) override;
  StoreResult<void> NoticeFailed(const std::string& delivery_id, uint32_t attempts,
                                 int64_t next_attempt_unix_ms, const std::string& error) override;
  StoreResult<OutboxStats> Outbox(const std::string& channel) override;

  // Where the store is, for messages and logs: the database, host and port, never the password.
  const std::string& where() const { return where_; }

  // Counters since Open (for tests and benchmarks): transactions committed, events committed.
  std::size_t commits() const;
  std::size_t committed_events() const;

  // One libpq connection that reconnects on demand (postgres_event_store.cc).
  class Connection;

 private:
  using Pending = PendingAppend;
  struct Head {
    bool exists = false;  // the match has a row in melee.matches
    uint64_t seq = 0;
    Hash hash{};
  };

  PostgresEventStore(std::string uri, std::string where, Options options);

  // Writes `work` in one transaction and says how each batch fared; on the writer thread (the
  // group-commit hook).
  GroupOutcome Commit(std::deque<Pending>& work);
  // Returns the head of `match_id` from the cache or the database; on the writer thread, inside
  // the transaction.
  StoreResult<Head> HeadOf(const std::string& match_id);
  // HeadOf, read again from the database when the cached head is not at `expected_seq` (the
  // cache is this node's: another node may have appended since); on the writer thread.
  StoreResult<Head> FreshHeadOf(const std::string& match_id, uint64_t expected_seq);
  // Runs `body(db)` with `mutex` held; when `db` turns out to have been lost before `body`
  // could do anything (PostgreSQL restarted since its last use), connects again and runs `body`
  // once more.
  template <class F>
  static auto WithConnection(std::mutex& mutex, Connection& db, F&& body);
  // WithConnection on the reader connection.
  template <class F>
  auto WithReader(F&& body);
  // Renews the leases every third of the lease time until the store closes; a thread.
  void LeaseLoop();
  // Drops the lease on `match_id` if this store still holds it with `token`, and reports it
  // lost with `why`.
  void LeaseLost(const std::string& match_id, uint64_t token, const StoreError& why);
  // Returns the last token this store took on `match_id` (held, released or lost), or 0 when it
  // never took its lease.
  uint64_t TokenOf(const std::string& match_id) const;
  // Gives `batch` the token of the lease this store last took on its match, unless it has one
  // (or is a marker, which nothing fences).
  void Fence(AppendBatch& batch) const;

  const std::string uri_;
  const std::string where_;
  const Options options_;
  std::unique_ptr<Connection> writer_;  // used only by the writer thread (and Open)
  std::unique_ptr<Connection> reader_;  // guarded by reader_mutex_
  std::mutex reader_mutex_;


  std::unique_ptr<Connection> leaser_;  // guarded by leaser_mutex_
  std::mutex leaser_mutex_;
  mutable std::mutex held_mutex_;  // guards held_, lease_lost_ and lease_stopping_
  std::map<std::string, Lease, std::less<>> held_;  // the leases this node holds, by match
  // The last token this node took on each match it ever leased, kept after the lease is lost
  // or released: an append of such a match always carries a token, so one made after the lease
  // moved on is fenced, never written unfenced.
  std::map<std::string, uint64_t, std::less<>> tokens_;
  LeaseLostCallback lease_lost_;
  std::condition_variable lease_wake_;
  bool lease_stopping_ = false;
  std::thread lease_thread_;

  std::map<std::string, Head, std::less<>> heads_;  // writer thread only: committed heads
  // The queue and the writer thread (persistence/group_commit.h); stopped first.
  std::unique_ptr<GroupCommit> group_;
};

}  // namespace melee::persistence
