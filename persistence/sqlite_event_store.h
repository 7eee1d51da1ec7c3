#pragma once

// The EventStore on SQLite: WAL, synchronous=FULL, one writer thread doing group commit.
//
// Appends from every match wait in one queue; the writer thread (persistence/group_commit.h,
// shared with the PostgreSQL store) takes everything waiting (up to Options::max_batch_events
// events), and this store's Commit writes it in one transaction (each match's batch inside its
// own SAVEPOINT, so one stale batch does not sink the others), commits, and only then runs the
// callbacks. Reads use a second connection (WAL readers do not block the writer), and a third,
// on its own thread, checkpoints the WAL into the database file once it passes
// kCheckpointPages, so that a commit does not wait for a checkpoint. Should those fall behind a
// steady load, the writer truncates the WAL itself once it reaches kWalLimitPages: the WAL file
// stays bounded while the server runs.
//
// Thread-safe. The destructor drains the queue: every queued append is committed or failed
// with kClosed before it returns.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include <boost/unordered/unordered_flat_map.hpp>

#include "persistence/event_store.h"
#include "persistence/group_commit.h"
#include "persistence/notification_store.h"

struct sqlite3;

namespace melee::persistence {

// The on-disk format version this build reads and writes (persistence/FORMAT.md).
inline constexpr int kFormatVersion = 3;

// The database file inside a data directory.
inline constexpr const char* kDatabaseFileName = "melee.db";

// Refuses a data directory whose log is lost: `dir` holds a server's secrets (server-key.pem or
// dice-secret, made on its first start, together with melee.db) but melee.db is missing or
// empty (0 bytes). Opening it would start a new, empty log, and every match that server held
// would be silently gone. Returns the error, naming the files and what to do; success for a new
// directory, or one whose melee.db is there (Open then checks what it holds).
StoreResult<void> CheckForLostLog(const std::filesystem::path& dir);

// How a SqliteEventStore is opened.
struct SqliteStoreOptions {
  // Most events in one transaction. 1 turns group commit off (the benchmark's baseline).
  std::size_t max_batch_events = 4096;
  // How long to wait for a lock held by another process before failing with kUnavailable.
  int busy_timeout_ms = 2000;
  // SQLite VFS to open the file with (tests inject faults through their own); empty: default.
  std::string vfs;
};

class SqliteEventStore final : public EventStore, public NotificationStore {
 public:
  using Options = SqliteStoreOptions;

  // WAL size (pages) after which the checkpoint thread copies the WAL into the database.
  static constexpr int kCheckpointPages = 1000;
  // WAL size (pages) after which the writer itself, between two transactions, checkpoints and
  // truncates the WAL: the bound when passive checkpoints cannot keep up with a steady load.
  // The WAL file never holds more than this plus one transaction's pages.
  static constexpr int kWalLimitPages = 4 * kCheckpointPages;

  // Opens the store at `path` (":memory:" for a private in-memory store), creating the file and
  // its schema if needed, and starts the writer thread. Fails with a clear message on a file
  // that is not a Melee database, a newer format version, an unusable location, or any SQLite
  // error.
  static StoreResult<std::unique_ptr<SqliteEventStore>> Open(const std::string& path,
                                                             Options options);
  static StoreResult<std::unique_ptr<SqliteEventStore>> Open(const std::string& path) {
    return Open(path, Options{});
  }

  // Opens `<dir>/melee.db`, creating the directory if needed.
  static StoreResult<std::unique_ptr<SqliteEventStore>> OpenDataDirectory(
      const std::filesystem::path& dir, Options options = {});

  ~SqliteEventStore() override;
  SqliteEventStore(const SqliteEventStore&) = delete;
  SqliteEventStore& operator=(const SqliteEventStore&) = delete;

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
  // Counts the probe in `meta` (key `write_probes`), durably: one page through the WAL.
  StoreResult<void> ProbeWrite() override;

  // Webhooks and the outbox (persistence/notification_store.h; sqlite_notifications.cc), on the
  // reader connection like the other small writes.
  NotificationStore* notifications() override { return this; }
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

  // Returns the journal mode in force ("wal" for a file, "memory" for :memory:).
  StoreResult<std::string> JournalMode();

  const std::string& path() const { return path_; }

  // Counters since Open (for tests and benchmarks): transactions committed, events committed,
  // WAL truncations by the writer (kWalLimitPages reached).
  std::size_t commits() const;
  std::size_t committed_events() const;
  std::size_t wal_truncations() const;

 private:
  using Pending = PendingAppend;
  struct Head {
    int64_t match_no = 0;  // 0: the match has no row in `matches` yet
    uint64_t seq = 0;
    Hash hash{};
    int64_t event_id = 0;  // rowid of the last event; 0 when there is none
  };
  struct WriterStatements;
  // Heads by match id, looked up by any string-like key without building a std::string.
  struct IdHash {
    using is_transparent = void;
    size_t operator()(std::string_view id) const { return std::hash<std::string_view>{}(id); }
  };
  struct IdEqual {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };
  using Heads = boost::unordered_flat_map<std::string, Head, IdHash, IdEqual>;

  SqliteEventStore(std::string path, Options options);

  void CheckpointLoop();
  // sqlite3_wal_hook: runs inside COMMIT on the writer thread; wakes the checkpoint thread.
  static int OnWalCommit(void* self, sqlite3* db, const char* name, int pages);
  // Checkpoints and truncates the WAL when it holds kWalLimitPages or more; on the writer
  // thread, between transactions.
  void BoundWal();
  // Writes `work` in one transaction and says how each batch fared; on the writer thread (the
  // group-commit hook).
  GroupOutcome Commit(std::deque<Pending>& work);
  // The head of `match_id` as the writer's connection sees it, from the cache or else the
  // database (and then cached); on the writer thread. The pointer holds until heads_ changes.
  StoreResult<Head*> HeadOf(const std::string& match_id);
  // Runs `body` with the reader connection locked.
  template <class F>
  auto WithReader(F&& body);

  const std::string path_;
  const Options options_;
  sqlite3* writer_ = nullptr;  // owned; used only by the writer thread (and Open)
  std::unique_ptr<WriterStatements> statements_;  // prepared on writer_
  sqlite3* reader_ = nullptr;  // owned; guarded by reader_mutex_; == writer_ for :memory:
  bool shared_connection_ = false;
  std::mutex reader_mutex_;

  std::atomic<std::size_t> truncations_ = 0;

  // Writer thread only: each match's head as the writer's connection sees it. A batch's head is
  // cached once its rows are in (committed, or in the transaction under way); any failure that
  // may have undone rows drops the entries it could have touched (the database is the truth).
  Heads heads_;
  // The queue and the writer thread (persistence/group_commit.h); stopped first.
  std::unique_ptr<GroupCommit> group_;

  sqlite3* checkpointer_ = nullptr;  // owned; used only by the checkpoint thread; null in memory
  int wal_pages_ = 0;                 // writer thread only: WAL frames after the last commit
  uint64_t wal_commits_ = 0;          // writer thread only: commits that wrote to the WAL
  std::mutex checkpoint_run_mutex_;   // held while a checkpoint runs: one at a time
  std::mutex checkpoint_mutex_;
  std::condition_variable checkpoint_cv_;
  bool checkpoint_wanted_ = false;  // guarded by checkpoint_mutex_
  bool checkpoint_stopping_ = false;
  std::thread checkpoint_thread_;
};

}  // namespace melee::persistence
