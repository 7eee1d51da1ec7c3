#include "persistence/sqlite_event_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "persistence/sqlite_statement.h"
#include "persistence/thread_name.h"

namespace melee::persistence {
namespace {

using sqlite::Statement;

// Maps a SQLite result code to a StoreError a person running the server understands.
StoreError SqliteError(sqlite3* db, int rc, const std::string& what) {
  StoreErrorCode code = StoreErrorCode::kUnavailable;
  std::string why;
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      code = StoreErrorCode::kCorrupt;
      why = "the database file is corrupt or not a database";
      break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      why = "the database is locked by another connection or process";
      break;
    case SQLITE_FULL:
      why = "the disk is full";
      break;
    case SQLITE_READONLY:
      why = "the database file is read-only";
      break;
    case SQLITE_IOERR:
      why = "an I/O error occurred";
      break;
    case SQLITE_CANTOPEN:
      why = "the database file cannot be opened";
      break;
    default:
      why = "SQLite error";
      break;
  }
  std::string detail = sqlite3_errstr(rc);
  if (db != nullptr && sqlite3_errcode(db) == rc) detail = sqlite3_errmsg(db);
  return StoreError{code, what + ": " + why + " (" + detail + ")", 0};
}

StoreError Corrupt(std::string_view match_id, uint64_t seq, const std::string& why) {
  return StoreError{
      StoreErrorCode::kCorrupt,
      "match " + std::string(match_id) + ", event seq " + std::to_string(seq) + ": " + why, seq};
}

// A stored event that cannot be trusted because its bytes changed: a damaged page of the file,
// or a payload that no longer matches its hash. Distinct from a removed or reordered event.
StoreError Damaged(std::string_view match_id, uint64_t seq, const std::string& why) {
  return StoreError{StoreErrorCode::kCorrupt,
                    "event " + std::to_string(seq) + " of match " + std::string(match_id) +
                        " is damaged: " + why,
                    seq};
}

// Returns the first problem PRAGMA quick_check finds in the file's structure (a B-tree page
// whose keys are out of order, a bad page number), or nothing when the structure is sound. Run
// when an event cannot be found or fails its hash, to tell a damaged page from a removed row.
std::optional<std::string> FileDamage(sqlite3* db) {
  sqlite3_stmt* check = nullptr;
  int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &check, nullptr);
  std::optional<std::string> damage;
  if (rc == SQLITE_OK) rc = sqlite3_step(check);
  if (rc == SQLITE_ROW) {
    const auto* text = sqlite3_column_text(check, 0);
    std::string found = text ? reinterpret_cast<const char*>(text) : "";
    if (found != "ok") {
      constexpr std::string_view kPrefix = "*** in database main ***\n";
      if (found.starts_with(kPrefix)) found.erase(0, kPrefix.size());
      damage = std::move(found);
    }
  } else if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB) {
    damage = sqlite3_errmsg(db);
  }
  sqlite3_finalize(check);
  return damage;
}

// Says why a payload does not match its hash: a damaged file, or bytes changed in place.
std::string HashMismatch(sqlite3* db) {
  const std::optional<std::string> damage = FileDamage(db);
  return "its payload does not match its hash (" +
         (damage ? "the database file is damaged: " + *damage
                 : std::string("its bytes were changed on disk or altered")) +
         ")";
}

int Exec(sqlite3* db, const char* sql) { return sqlite3_exec(db, sql, nullptr, nullptr, nullptr); }

StoreResult<void> ExecOrError(sqlite3* db, const char* sql, const std::string& what) {
  if (const int rc = Exec(db, sql); rc != SQLITE_OK)
    return tl::unexpected(SqliteError(db, rc, what));
  return {};
}

// Events are stored in append order across all matches (the rowid), each linked to its match's
// previous event; `matches` holds each match's head. A commit of N matches' events then dirties a
// few pages of `events` plus the few `matches` rows it updates, instead of one page per match (a
// table clustered by (match_id, seq) writes ~N pages per commit: measured 4x slower at N = 100).
constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS meta ("
    "  key TEXT PRIMARY KEY NOT NULL,"
    "  value TEXT NOT NULL) STRICT;"
    "INSERT OR IGNORE INTO meta(key, value) VALUES ('application', 'melee');"
    "INSERT OR IGNORE INTO meta(key, value) VALUES ('format_version', '1');"
    "CREATE TABLE IF NOT EXISTS matches ("
    "  match_no INTEGER PRIMARY KEY,"
    "  match_id TEXT NOT NULL UNIQUE,"
    "  last_seq INTEGER NOT NULL,"
    "  head_id INTEGER NOT NULL,"
    "  head_hash BLOB NOT NULL,"
    "  last_recorded_unix_ms INTEGER NOT NULL) STRICT;"
    "CREATE TABLE IF NOT EXISTS events ("
    "  id INTEGER PRIMARY KEY,"
    "  match_no INTEGER NOT NULL,"
    "  seq INTEGER NOT NULL CHECK (seq >= 1),"
    "  prev_id INTEGER,"
    "  payload BLOB NOT NULL,"
    "  prev_hash BLOB NOT NULL,"
    "  hash BLOB NOT NULL,"
    "  recorded_unix_ms INTEGER NOT NULL) STRICT;"
    "CREATE TABLE IF NOT EXISTS snapshots ("
    "  match_id TEXT NOT NULL,"
    "  seq INTEGER NOT NULL,"
    "  state BLOB NOT NULL,"
    "  chain_hash BLOB NOT NULL,"
    "  state_hash BLOB NOT NULL,"
    "  PRIMARY KEY (match_id, seq)) STRICT;"
    "CREATE TABLE IF NOT EXISTS snapshot_discards ("
    "  id INTEGER PRIMARY KEY,"
    "  match_id TEXT NOT NULL,"
    "  seq INTEGER NOT NULL,"
    "  reason TEXT NOT NULL) STRICT;"
    // Notifications (docs/notifications.md): kept beside the log, never in it.
    "CREATE TABLE IF NOT EXISTS webhooks ("
    "  match_id TEXT NOT NULL,"
    "  seat TEXT NOT NULL,"
    "  url TEXT NOT NULL,"
    "  secret TEXT NOT NULL,"
    "  PRIMARY KEY (match_id, seat)) STRICT;"
    "CREATE TABLE IF NOT EXISTS outbox ("
    "  id INTEGER PRIMARY KEY,"
    "  delivery_id TEXT NOT NULL UNIQUE,"
    "  match_id TEXT NOT NULL,"
    "  seat TEXT NOT NULL,"
    "  body TEXT NOT NULL,"
    "  created_unix_ms INTEGER NOT NULL,"
    "  attempts INTEGER NOT NULL DEFAULT 0,"
    "  next_attempt_unix_ms INTEGER NOT NULL,"
    "  last_error TEXT NOT NULL DEFAULT '') STRICT;"
    "CREATE INDEX IF NOT EXISTS outbox_due ON outbox(next_attempt_unix_ms);";

// Opens one connection with the store's pragmas.
StoreResult<sqlite3*> OpenConnection(const std::string& path,
                                     const SqliteEventStore::Options& options, int flags) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX,
                                 options.vfs.empty() ? nullptr : options.vfs.c_str());
  if (rc != SQLITE_OK) {
    StoreError error = SqliteError(db, rc, "cannot open " + path);
    sqlite3_close_v2(db);
    return tl::unexpected(std::move(error));
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, options.busy_timeout_ms);
  return db;
}

// Reads one text value with a query; empty when there is no row.
StoreResult<std::string> QueryText(sqlite3* db, const char* sql, const std::string& what) {
  Statement statement(db, sql);
  if (!statement.ok()) return tl::unexpected(SqliteError(db, statement.rc(), what));
  const int rc = statement.Step();
  if (rc == SQLITE_ROW) return statement.Text(0);
  if (rc == SQLITE_DONE) return std::string();
  return tl::unexpected(SqliteError(db, rc, what));
}

// Format 2 (persistence/FORMAT.md): mail notifications. Outbox rows name their channel (the
// rows of format 1 were all webhook notices), and `emails` holds the seats' mail addresses. A
// format 1 file, and a new one (created as format 1 by kSchema), is brought to 2 by this, in the
// transaction that opens it.
constexpr const char* kMigrationTo2 =
    "ALTER TABLE outbox ADD COLUMN channel TEXT NOT NULL DEFAULT 'webhook';"
    "CREATE INDEX IF NOT EXISTS outbox_seat ON outbox(match_id, seat);"
    "CREATE TABLE IF NOT EXISTS emails ("
    "  match_id TEXT NOT NULL,"
    "  seat TEXT NOT NULL,"
    "  address TEXT NOT NULL,"
    "  digest_minutes INTEGER NOT NULL,"
    "  token TEXT NOT NULL,"
    "  last_mailed_unix_ms INTEGER NOT NULL DEFAULT 0,"
    "  last_mailed_seq INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (match_id, seat)) STRICT;"
    "UPDATE meta SET value = '2' WHERE key = 'format_version';";

// Format 3: a match may be marked dormant at an event (EventStore::MarkDormant), so that a server
// restarting lists it without loading it.
constexpr const char* kMigrationTo3 =
    "ALTER TABLE matches ADD COLUMN dormant_seq INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE matches ADD COLUMN dormant_note TEXT NOT NULL DEFAULT '';"
    "UPDATE meta SET value = '3' WHERE key = 'format_version';";

// Checks that the file is a Melee database this build reads, and brings an older format up to
// this build's; inside the opening transaction.
StoreResult<void> CheckAndMigrate(sqlite3* db, const std::string& path) {
  auto application = QueryText(db, "SELECT value FROM meta WHERE key = 'application'", path);
  if (!application) return tl::unexpected(application.error());
  if (*application != "melee") {
    return tl::unexpected(
        StoreError{StoreErrorCode::kInvalidArgument,
                   path + " is a SQLite file of another application ('" + *application + "')", 0});
  }
  auto text = QueryText(db, "SELECT value FROM meta WHERE key = 'format_version'", path);
  if (!text) return tl::unexpected(text.error());
  int version = 0;
  const char* end = text->data() + text->size();
  if (auto [ptr, parse_error] = std::from_chars(text->data(), end, version);
      parse_error != std::errc() || ptr != end) {
    return tl::unexpected(StoreError{
        StoreErrorCode::kCorrupt, path + " has an unreadable format_version '" + *text + "'", 0});
  }
  if (version > kFormatVersion) {
    return tl::unexpected(StoreError{StoreErrorCode::kInvalidArgument,
                                     path + " has on-disk format version " +
                                         std::to_string(version) + "; this build reads up to " +
                                         std::to_string(kFormatVersion) + ": upgrade Melee",
                                     0});
  }
  if (version < 2) {
    if (auto migrated = ExecOrError(db, kMigrationTo2,
                                    "cannot bring " + path + " from format version " +
                                        std::to_string(version) + " to 2");
        !migrated) {
      return migrated;
    }
  }
  if (version < 3) {
    return ExecOrError(db, kMigrationTo3,
                       "cannot bring " + path + " from format version " +
                           std::to_string(std::max(version, 2)) + " to 3");
  }
  return {};
}

// Creates the schema if needed, checks that the file is a Melee database this build reads and
// migrates an older one, all in one transaction: a failure leaves the file as it was.
StoreResult<void> PrepareSchema(sqlite3* db, const std::string& path) {
  if (auto ok = ExecOrError(db, "BEGIN IMMEDIATE", "cannot initialise " + path); !ok) return ok;
  auto ok = ExecOrError(db, kSchema, "cannot initialise " + path + " as a Melee database");
  if (ok) ok = CheckAndMigrate(db, path);
  if (ok) ok = ExecOrError(db, "COMMIT", "cannot initialise " + path);
  if (!ok) Exec(db, "ROLLBACK");
  return ok;
}

}  // namespace

// The writer's prepared statements, reused for every transaction.
struct SqliteEventStore::WriterStatements {
  explicit WriterStatements(sqlite3* db)
      : begin(db, "BEGIN IMMEDIATE"),
        commit(db, "COMMIT"),
        savepoint(db, "SAVEPOINT batch"),
        release(db, "RELEASE batch"),
        rollback_to(db, "ROLLBACK TO batch"),
        insert_match(db,
                     "INSERT INTO matches(match_id, last_seq, head_id, head_hash, "
                     "last_recorded_unix_ms) VALUES (?1, 0, 0, ?2, ?3)"),
        insert_event(db,
                     "INSERT INTO events(match_no, seq, prev_id, payload, prev_hash, hash, "
                     "recorded_unix_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
        update_head(db,
                    "UPDATE matches SET last_seq = ?2, head_id = ?3, head_hash = ?4, "
                    "last_recorded_unix_ms = ?5 WHERE match_no = ?1 AND last_seq = ?6"),
        select_head(db,
                    "SELECT m.match_no, m.last_seq, m.head_id, m.head_hash, e.match_no, e.seq, "
                    "e.payload, e.prev_hash, e.hash FROM matches m LEFT JOIN events e "
                    "ON e.id = m.head_id WHERE m.match_id = ?1"),
        insert_notice(db,
                      "INSERT INTO outbox(delivery_id, match_id, seat, body, created_unix_ms, "
                      "next_attempt_unix_ms, channel) VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6)"),
        mark_dormant(db,
                     "UPDATE matches SET dormant_seq = ?2, dormant_note = ?3 "
                     "WHERE match_id = ?1 AND last_seq = ?2") {}

  bool ok() const {
    return begin.ok() && commit.ok() && savepoint.ok() && release.ok() && rollback_to.ok() &&
           insert_match.ok() && insert_event.ok() && update_head.ok() && select_head.ok() &&
           insert_notice.ok() && mark_dormant.ok();
  }

  // A transaction's own statements too: sqlite3_exec would parse them for every transaction.
  Statement begin;
  Statement commit;
  Statement savepoint;
  Statement release;
  Statement rollback_to;
  Statement insert_match;
  Statement insert_event;
  Statement update_head;
  Statement select_head;
  Statement insert_notice;
  Statement mark_dormant;
};

namespace {

// Resets `statement` (keeping nothing bound from its last use) and steps it once.
int Run(Statement& statement) {
  sqlite3_reset(statement.get());
  return statement.Step();
}

// Returns whether a failed statement of an append failed for the batch's own reason (a
// constraint: a stale head, a duplicate notice id; a value too big), so that rolling back to the
// batch's savepoint undoes it and the transaction's other batches stand. Any other error (an I/O
// error, a full disk, a corrupt page) fails the whole transaction.
bool BatchsOwnError(int rc) {
  const int primary = rc & 0xff;
  return primary == SQLITE_CONSTRAINT || primary == SQLITE_TOOBIG;
}

}  // namespace

// ---- opening and closing ---------------------------------------------------------------------

StoreResult<void> CheckForLostLog(const std::filesystem::path& dir) {
  std::error_code ec;
  std::vector<std::string> secrets;
  for (const char* name : {"server-key.pem", "dice-secret"}) {
    if (std::filesystem::exists(dir / name, ec)) secrets.push_back(name);
  }
  if (secrets.empty()) return {};
  const std::filesystem::path db = dir / kDatabaseFileName;
  const bool exists = std::filesystem::exists(db, ec);
  if (exists && std::filesystem::file_size(db, ec) > 0 && !ec) return {};
  const std::string held = secrets.size() == 2 ? "its key (server-key.pem) and dice secret "
                                                 "(dice-secret)"
                                               : secrets.front();
  return tl::unexpected(StoreError{
      StoreErrorCode::kUnavailable,
      db.string() + " is " + (exists ? "empty" : "missing") + ", but " + dir.string() +
          " holds " + held + " from an earlier start: the log of that server's matches is "
          "gone, and starting would serve none of them. Restore melee.db (with its -wal file) "
          "from a backup, or point --data-dir at the right directory; to begin a new, empty "
          "log with this key and secret, start with --accept-empty-store",
      0});
}

SqliteEventStore::SqliteEventStore(std::string path, Options options)
    : path_(std::move(path)), options_(std::move(options)) {}

StoreResult<std::unique_ptr<SqliteEventStore>> SqliteEventStore::Open(const std::string& path,
                                                                      Options options) {
  if (options.max_batch_events == 0) options.max_batch_events = 1;
  std::unique_ptr<SqliteEventStore> store(new SqliteEventStore(path, options));
  const bool memory = path == ":memory:";

  auto writer = OpenConnection(path, options, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (!writer) return tl::unexpected(writer.error());
  store->writer_ = *writer;
  if (!memory) {
    // WAL + synchronous=FULL: a committed transaction survives a crash or a power loss.
    auto mode = QueryText(store->writer_, "PRAGMA journal_mode=WAL", "cannot open " + path);
    if (!mode) return tl::unexpected(mode.error());
    if (*mode != "wal") {
      return tl::unexpected(
          StoreError{StoreErrorCode::kUnavailable,
                     "cannot switch " + path + " to WAL (journal mode '" + *mode + "')", 0});
    }
  }
  if (auto ok = ExecOrError(store->writer_, "PRAGMA synchronous=FULL", "cannot open " + path);
      !ok) {
    return tl::unexpected(ok.error());
  }
  if (auto ok = PrepareSchema(store->writer_, path); !ok) return tl::unexpected(ok.error());
  store->statements_ = std::make_unique<WriterStatements>(store->writer_);
  if (!store->statements_->ok()) {
    return tl::unexpected(
        SqliteError(store->writer_, sqlite3_errcode(store->writer_), "cannot prepare " + path));
  }

  if (memory) {
    // A private in-memory database has one connection: reads share it under reader_mutex_.
    store->reader_ = store->writer_;
    store->shared_connection_ = true;
  } else {
    auto reader = OpenConnection(path, options, SQLITE_OPEN_READWRITE);
    if (!reader) return tl::unexpected(reader.error());
    store->reader_ = *reader;
  }
  if (!memory) {
    // Checkpoints run on their own connection and thread, never inside a commit.
    if (auto ok = ExecOrError(store->writer_, "PRAGMA wal_autocheckpoint=0", "cannot open " + path);
        !ok) {
      return tl::unexpected(ok.error());
    }
    auto checkpointer = OpenConnection(path, options, SQLITE_OPEN_READWRITE);
    if (!checkpointer) return tl::unexpected(checkpointer.error());
    store->checkpointer_ = *checkpointer;
    // A connection learns that a file is in WAL mode only when it first reads it; until then
    // sqlite3_wal_checkpoint_v2 on it is a silent no-op (SQLITE_OK, log -1). The checkpointer
    // never ran a query, so no checkpoint ever happened while a server ran: read once here.
    if (auto read = QueryText(store->checkpointer_, "SELECT count(*) FROM meta",
                              "cannot open " + path);
        !read) {
      return tl::unexpected(read.error());
    }
    sqlite3_wal_hook(store->writer_, &SqliteEventStore::OnWalCommit, store.get());
    store->checkpoint_thread_ = std::thread([raw = store.get()] {
      NameThisThread(kCheckpointThreadName);
      raw->CheckpointLoop();
    });
  }
  SqliteEventStore* raw = store.get();
  raw->group_ = std::make_unique<GroupCommit>(
      raw->options_.max_batch_events, [raw](std::deque<Pending>& work) { return raw->Commit(work); },
      [raw] {
        if (raw->checkpointer_ != nullptr) raw->BoundWal();
      });
  raw->group_->Start();
  return store;
}

StoreResult<std::unique_ptr<SqliteEventStore>> SqliteEventStore::OpenDataDirectory(
    const std::filesystem::path& dir, Options options) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return tl::unexpected(
        StoreError{StoreErrorCode::kUnavailable,
                   "cannot create data directory " + dir.string() + ": " + ec.message(), 0});
  }
  return Open((dir / kDatabaseFileName).string(), std::move(options));
}

SqliteEventStore::~SqliteEventStore() {
  if (group_) group_->Stop();
  {
    std::lock_guard lock(checkpoint_mutex_);
    checkpoint_stopping_ = true;
  }
  checkpoint_cv_.notify_all();
  if (checkpoint_thread_.joinable()) checkpoint_thread_.join();
  sqlite3_close_v2(checkpointer_);
  statements_.reset();
  if (!shared_connection_) sqlite3_close_v2(reader_);
  sqlite3_close_v2(writer_);
}

// ---- checkpoints: off the writer's path ------------------------------------------------------

int SqliteEventStore::OnWalCommit(void* self, sqlite3*, const char*, int pages) {
  auto* store = static_cast<SqliteEventStore*>(self);
  store->wal_pages_ = pages;
  ++store->wal_commits_;
  if (pages >= kCheckpointPages) {
    {
      std::lock_guard lock(store->checkpoint_mutex_);
      store->checkpoint_wanted_ = true;
    }
    store->checkpoint_cv_.notify_one();
  }
  return SQLITE_OK;
}

void SqliteEventStore::CheckpointLoop() {
  std::unique_lock lock(checkpoint_mutex_);
  while (true) {
    checkpoint_cv_.wait(lock, [this] { return checkpoint_stopping_ || checkpoint_wanted_; });
    if (checkpoint_stopping_) return;
    checkpoint_wanted_ = false;
    lock.unlock();
    // PASSIVE: copies what it can without blocking the writer or the readers. A failure is
    // retried at the next trigger; the WAL keeps every committed frame meanwhile. Once every
    // frame is copied, the writer's next transaction starts the WAL again from its beginning.
    {
      std::lock_guard running(checkpoint_run_mutex_);
      sqlite3_wal_checkpoint_v2(checkpointer_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr,
                                nullptr);
    }
    lock.lock();
  }
}

void SqliteEventStore::BoundWal() {
  if (wal_pages_ < kWalLimitPages) return;
  // The passive checkpoints fell behind (the writer kept adding frames while they ran, so the
  // WAL never started again). TRUNCATE waits for the readers (busy_timeout), copies what is
  // left (most of it is copied already) and empties the WAL file. A failure (a reader held on
  // past busy_timeout) is retried after the next commit.
  std::lock_guard running(checkpoint_run_mutex_);
  int log = 0;
  int copied = 0;
  if (sqlite3_wal_checkpoint_v2(writer_, nullptr, SQLITE_CHECKPOINT_TRUNCATE, &log, &copied) ==
      SQLITE_OK) {
    wal_pages_ = 0;
    ++truncations_;
  }
}

// ---- appending: one writer thread, group commit -----------------------------------------------

void SqliteEventStore::Append(AppendBatch batch, AppendCallback done) {
  group_->Append(std::move(batch), std::move(done));
}

void SqliteEventStore::AppendTogether(std::vector<PendingAppend> appends) {
  group_->AppendTogether(std::move(appends));
}

StoreResult<SqliteEventStore::Head*> SqliteEventStore::HeadOf(const std::string& match_id) {
  if (auto it = heads_.find(match_id); it != heads_.end()) return &it->second;
  Statement& select = statements_->select_head;
  sqlite3_reset(select.get());
  select.Bind(1, match_id);
  const int rc = select.Step();
  Head head{0, 0, Genesis(match_id), 0};
  if (rc == SQLITE_ROW) {
    head.match_no = select.Int(0);
    head.seq = static_cast<uint64_t>(select.Int(1));
    head.event_id = select.Int(2);
    if (head.seq > 0) {
      Hash recorded{}, prev{}, hash{};
      const bool verified = select.HashColumn(3, recorded) && select.HashColumn(7, prev) &&
                            select.HashColumn(8, hash) && select.Int(4) == head.match_no &&
                            static_cast<uint64_t>(select.Int(5)) == head.seq && hash == recorded &&
                            ChainHash(prev, select.Blob(6)) == hash;
      sqlite3_reset(select.get());
      if (!verified) {
        return tl::unexpected(
            Corrupt(match_id, head.seq, "the last event fails verification; refusing to append"));
      }
      head.hash = hash;
    }
  } else if (rc != SQLITE_DONE) {
    return tl::unexpected(SqliteError(writer_, rc, "cannot read the head of match " + match_id));
  }
  sqlite3_reset(select.get());
  return &heads_.insert_or_assign(match_id, head).first->second;
}

GroupOutcome SqliteEventStore::Commit(std::deque<Pending>& work) {
  GroupOutcome outcome;
  std::vector<StoreResult<Appended>>& results = outcome.results;
  results.resize(work.size());
  std::unique_lock<std::mutex> shared_lock;
  if (shared_connection_) shared_lock = std::unique_lock(reader_mutex_);

  // Fails every batch of this transaction that had not failed on its own.
  auto fail_all = [&](const StoreError& error) {
    for (auto& result : results) {
      if (result) result = tl::unexpected(error);
    }
    heads_.clear();  // the database is the truth again
    outcome.transaction_failed = error;
  };
  // Abandons the whole transaction: after an error that is not the batch's own, SQLite may have
  // rolled back some or all of it (an I/O error can leave the pager with nothing to write), and
  // a COMMIT would then report success for rows that are not there.
  auto abandon = [&](const StoreError& error) {
    if (!sqlite3_get_autocommit(writer_)) Exec(writer_, "ROLLBACK");
    fail_all(error);
  };

  std::size_t events = 0;
  WriterStatements& sql = *statements_;
  if (const int begin = Run(sql.begin); begin != SQLITE_DONE) {
    fail_all(SqliteError(writer_, begin, "cannot start a transaction on " + path_));
  } else {
    bool aborted = false;
    for (std::size_t i = 0; i < work.size() && !aborted; ++i) {
      const AppendBatch& batch = work[i].batch;
      if (batch.IsMarker() && !batch.match_id.empty()) {
        // A marker (MarkDormant): holds only while expected_seq is the match's last event.
        Statement& mark = sql.mark_dormant;
        sqlite3_reset(mark.get());
        mark.Bind(1, batch.match_id);
        mark.Bind(2, static_cast<int64_t>(batch.expected_seq));
        mark.Bind(3, batch.dormant_note);
        if (const int rc = mark.Step(); rc != SQLITE_DONE) {
          StoreError error = SqliteError(writer_, rc, "cannot mark match " + batch.match_id +
                                                          " dormant");
          results[i] = tl::unexpected(error);
          if (!BatchsOwnError(rc) || sqlite3_get_autocommit(writer_)) {
            abandon(error);
            aborted = true;
          }
          continue;
        }
        results[i] = Appended{0, batch.expected_seq, {}};
        continue;
      }
      if (batch.match_id.empty() || batch.payloads.empty()) {
        results[i] =
            tl::unexpected(StoreError{StoreErrorCode::kInvalidArgument,
                                      batch.match_id.empty() ? "an append needs a match id"
                                                             : "an append needs at least one event",
                                      0});
        continue;
      }
      // The head as this transaction leaves it so far (an earlier batch of the same match in it
      // included): cached until the batch's rows are in, then advanced.
      auto cached = HeadOf(batch.match_id);
      if (!cached) {
        results[i] = tl::unexpected(cached.error());
        continue;
      }
      Head head = **cached;
      if (batch.expected_seq != head.seq) {
        results[i] = tl::unexpected(
            StoreError{StoreErrorCode::kConflict,
                       "match " + batch.match_id + " is at seq " + std::to_string(head.seq) +
                           ", not at the expected seq " + std::to_string(batch.expected_seq),
                       0});
        continue;
      }

      // One SAVEPOINT per batch: a batch that fails alone leaves no partial rows behind.
      int rc = Run(sql.savepoint);
      const uint64_t first_seq = head.seq + 1;
      const uint64_t previous_seq = head.seq;
      if (rc == SQLITE_DONE && head.match_no == 0) {
        sqlite3_reset(sql.insert_match.get());
        sql.insert_match.Bind(1, batch.match_id);
        sql.insert_match.BindBlob(2, head.hash);
        sql.insert_match.Bind(3, batch.recorded_unix_ms);
        rc = sql.insert_match.Step();
        head.match_no = sqlite3_last_insert_rowid(writer_);
      }
      const bool hashed =
          batch.hashes.size() == batch.payloads.size() && batch.chained_from == head.hash;
      for (std::size_t k = 0; k < batch.payloads.size() && rc == SQLITE_DONE; ++k) {
        const std::string& payload = batch.payloads[k];
        const Hash hash = hashed ? batch.hashes[k] : ChainHash(head.hash, payload);
        Statement& insert = sql.insert_event;
        sqlite3_reset(insert.get());
        insert.Bind(1, head.match_no);
        insert.Bind(2, static_cast<int64_t>(head.seq + 1));
        if (head.event_id == 0) {
          sqlite3_bind_null(insert.get(), 3);
        } else {
          insert.Bind(3, head.event_id);
        }
        insert.BindBlob(4, payload);
        insert.BindBlob(5, head.hash);
        insert.BindBlob(6, hash);
        insert.Bind(7, k < batch.recorded_each.size() ? batch.recorded_each[k]
                                                       : batch.recorded_unix_ms);
        rc = insert.Step();
        if (rc != SQLITE_DONE) break;
        head.seq += 1;
        head.hash = hash;
        head.event_id = sqlite3_last_insert_rowid(writer_);
      }
      if (rc == SQLITE_DONE) {
        // Compare-and-set on the head: the database itself refuses a stale writer.
        Statement& update = sql.update_head;
        sqlite3_reset(update.get());
        update.Bind(1, head.match_no);
        update.Bind(2, static_cast<int64_t>(head.seq));
        update.Bind(3, head.event_id);
        update.BindBlob(4, head.hash);
        update.Bind(5, batch.recorded_each.empty() ? batch.recorded_unix_ms
                                                   : batch.recorded_each.back());
        update.Bind(6, static_cast<int64_t>(previous_seq));
        rc = update.Step();
        if (rc == SQLITE_DONE && sqlite3_changes(writer_) != 1) rc = SQLITE_CONSTRAINT;
      }
      if (rc == SQLITE_DONE && batch.mark_dormant) {
        Statement& mark = sql.mark_dormant;
        sqlite3_reset(mark.get());
        mark.Bind(1, batch.match_id);
        mark.Bind(2, static_cast<int64_t>(head.seq));
        mark.Bind(3, batch.dormant_note);
        rc = mark.Step();
      }
      // The notices these events cause: durable with them, or not at all.
      for (std::size_t k = 0; k < batch.notices.size() && rc == SQLITE_DONE; ++k) {
        const OutboxNotice& notice = batch.notices[k];
        Statement& insert = sql.insert_notice;
        sqlite3_reset(insert.get());
        insert.Bind(1, notice.delivery_id);
        insert.Bind(2, notice.match_id);
        insert.Bind(3, notice.seat);
        insert.Bind(4, notice.body);
        insert.Bind(5, notice.created_unix_ms);
        insert.Bind(6, notice.channel);
        rc = insert.Step();
      }
      if (rc != SQLITE_DONE) {
        StoreError error = SqliteError(writer_, rc, "cannot append to match " + batch.match_id);
        // The batch's own error (a stale head, a duplicate notice) fails it alone, once its rows
        // are rolled back; any other (disk full, I/O error) fails the transaction: nothing holds.
        if (BatchsOwnError(rc) && !sqlite3_get_autocommit(writer_) &&
            Run(sql.rollback_to) == SQLITE_DONE && Run(sql.release) == SQLITE_DONE) {
          heads_.erase(batch.match_id);
          results[i] = tl::unexpected(std::move(error));
          continue;
        }
        results[i] = tl::unexpected(error);
        abandon(error);
        aborted = true;
        break;
      }
      // Releasing the savepoint may fail too (an I/O error SQLite kept from an earlier write).
      if (const int released = Run(sql.release); released != SQLITE_DONE) {
        abandon(SqliteError(writer_, released, "cannot append to match " + batch.match_id));
        aborted = true;
        break;
      }
      **cached = head;  // nothing was added to heads_ since HeadOf: the pointer holds
      events += batch.payloads.size();
      results[i] = Appended{first_seq, head.seq, head.hash};
    }
    const uint64_t wal_commits_before = wal_commits_;
    if (!aborted) {
      if (const int commit = Run(sql.commit); commit != SQLITE_DONE) {
        // Not committed, so not acknowledged. (After a failed fsync the frames may still be found
        // on restart; the callers then see them as a conflict and re-read, never as a loss.)
        abandon(SqliteError(writer_, commit, "cannot commit to " + path_));
      } else if (events > 0 && checkpointer_ != nullptr && wal_commits_ == wal_commits_before) {
        // SQLite said the COMMIT of new events succeeded, yet wrote nothing to the WAL (the wal
        // hook runs for every commit that writes): a write failed earlier without failing its
        // statement, and the pager dropped the transaction. Nothing of it holds.
        fail_all(StoreError{StoreErrorCode::kUnavailable,
                            "cannot commit to " + path_ +
                                ": SQLite reported the commit, but wrote none of it to the WAL",
                            0});
      } else {
        outcome.committed = true;
        outcome.events = events;
      }
    }
  }
  return outcome;
}

std::size_t SqliteEventStore::commits() const { return group_->commits(); }

std::size_t SqliteEventStore::committed_events() const { return group_->committed_events(); }

std::size_t SqliteEventStore::wal_truncations() const { return truncations_; }

// ---- reading ----------------------------------------------------------------------------------

template <class F>
auto SqliteEventStore::WithReader(F&& body) {
  std::lock_guard lock(reader_mutex_);
  return body(reader_);
}

StoreResult<std::vector<Event>> SqliteEventStore::Read(std::string_view match_id,
                                                       uint64_t after_seq, uint64_t limit) {
  return WithReader([&](sqlite3* db) -> StoreResult<std::vector<Event>> {
    // One read transaction: the head and the events come from the same committed state.
    if (const int begin = Exec(db, "BEGIN"); begin != SQLITE_OK) {
      return tl::unexpected(SqliteError(db, begin, "cannot read match " + std::string(match_id)));
    }
    struct EndRead {
      sqlite3* db;
      ~EndRead() { Exec(db, "COMMIT"); }
    } end_read{db};
    // A broken chain in a file whose structure is damaged is damage (a page lost or garbled);
    // in a sound file it is a removed, reordered or rewritten event.
    auto broken = [&](uint64_t seq, const std::string& why) {
      if (const std::optional<std::string> damage = FileDamage(db)) {
        return tl::unexpected(
            Damaged(match_id, seq, why + "; the database file is damaged: " + *damage));
      }
      return tl::unexpected(Corrupt(match_id, seq, why));
    };

    Statement head(
        db, "SELECT match_no, last_seq, head_id, head_hash FROM matches WHERE match_id = ?1");
    if (!head.ok()) return tl::unexpected(SqliteError(db, head.rc(), "cannot read"));
    head.Bind(1, match_id);
    int rc = head.Step();
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
      return tl::unexpected(SqliteError(db, rc, "cannot read match " + std::string(match_id)));
    }
    const uint64_t last_seq = rc == SQLITE_ROW ? static_cast<uint64_t>(head.Int(1)) : 0;
    if (last_seq == 0) {
      return tl::unexpected(StoreError{StoreErrorCode::kNotFound,
                                       "no match " + std::string(match_id) + " in the log", 0});
    }
    if (after_seq > last_seq) {
      return tl::unexpected(StoreError{StoreErrorCode::kInvalidArgument,
                                       "match " + std::string(match_id) + " has " +
                                           std::to_string(last_seq) + " events, none after seq " +
                                           std::to_string(after_seq),
                                       0});
    }
    const int64_t match_no = head.Int(0);
    Hash head_hash{};
    if (!head.HashColumn(3, head_hash)) {
      return broken(last_seq, "the match's head hash is not 32 bytes");
    }

    // Walk back from the head along prev_id to the anchor (after_seq) or the first event.
    Statement select(db,
                     "SELECT match_no, seq, prev_id, payload, prev_hash, hash, recorded_unix_ms "
                     "FROM events WHERE id = ?1");
    if (!select.ok()) return tl::unexpected(SqliteError(db, select.rc(), "cannot read"));
    std::vector<Event> chain;  // newest first
    std::optional<int64_t> next = head.Int(2);
    while (next) {
      sqlite3_reset(select.get());
      select.Bind(1, *next);
      rc = select.Step();
      const uint64_t wanted = chain.empty() ? last_seq : chain.back().seq - 1;
      if (rc == SQLITE_DONE) {
        // Rows are never deleted, so a row the chain points to and the table lacks is either
        // removed by someone or lost in a damaged page (e.g. a flipped bit in its key).
        if (const std::optional<std::string> damage = FileDamage(db)) {
          return tl::unexpected(Damaged(
              match_id, wanted, "it cannot be found; the database file is damaged: " + *damage));
        }
        return tl::unexpected(
            Corrupt(match_id, wanted, "the event is missing (removed from the log)"));
      }
      if ((rc & 0xff) == SQLITE_CORRUPT) {
        return tl::unexpected(Damaged(match_id, wanted,
                                      std::string("the database file is corrupt (") +
                                          sqlite3_errmsg(db) + ")"));
      }
      if (rc != SQLITE_ROW) {
        return tl::unexpected(SqliteError(db, rc, "cannot read match " + std::string(match_id)));
      }
      Event event;
      event.match_id = std::string(match_id);
      event.seq = static_cast<uint64_t>(select.Int(1));
      if (select.Int(0) != match_no) {
        return broken(event.seq, "an event of another match is linked into this chain");
      }
      event.payload = select.Blob(3);
      if (!select.HashColumn(4, event.prev_hash) || !select.HashColumn(5, event.hash)) {
        return broken(event.seq, "a stored hash is not 32 bytes");
      }
      event.recorded_unix_ms = select.Int(6);
      if (sqlite3_column_type(select.get(), 2) == SQLITE_NULL) {
        next.reset();
      } else {
        next = select.Int(2);
      }
      chain.push_back(std::move(event));
      if (chain.back().seq <= after_seq) break;
      if (chain.size() > last_seq) {
        return broken(last_seq, "the chain of events loops");
      }
    }

    // Verify oldest first, so the first bad event is the one reported.
    std::vector<Event> events;
    Hash link = Genesis(match_id);
    uint64_t expected = 1;
    auto it = chain.rbegin();
    if (after_seq > 0) {
      if (it == chain.rend() || it->seq != after_seq) {
        return broken(after_seq, "the event is missing");
      }
      if (ChainHash(it->prev_hash, it->payload) != it->hash) {
        return tl::unexpected(Damaged(match_id, after_seq, HashMismatch(db)));
      }
      link = it->hash;
      expected = after_seq + 1;
      ++it;
    }
    for (; it != chain.rend(); ++it) {
      Event& event = *it;
      if (event.seq != expected) {
        return broken(expected, "found seq " + std::to_string(event.seq) +
                                    " where this event should be (removed or reordered)");
      }
      if (ChainHash(event.prev_hash, event.payload) != event.hash) {
        return tl::unexpected(Damaged(match_id, event.seq, HashMismatch(db)));
      }
      if (event.prev_hash != link) {
        return broken(event.seq,
                      expected == 1 ? "the first event does not start this match's chain"
                                    : "the event does not link to seq " +
                                          std::to_string(expected - 1) +
                                          " (removed, reordered or altered)");
      }
      link = event.hash;
      ++expected;
      if (events.size() < limit) events.push_back(std::move(event));
    }
    if (expected != last_seq + 1 || link != head_hash) {
      return broken(last_seq, "the match's recorded head does not match its last event");
    }
    return events;
  });
}

StoreResult<std::vector<MatchSummary>> SqliteEventStore::ListMatches() {
  return WithReader([&](sqlite3* db) -> StoreResult<std::vector<MatchSummary>> {
    Statement select(db,
                     "SELECT match_id, last_seq, head_hash, last_recorded_unix_ms, "
                     "dormant_seq = last_seq, dormant_note FROM matches "
                     "WHERE last_seq > 0 ORDER BY match_id");
    if (!select.ok()) return tl::unexpected(SqliteError(db, select.rc(), "cannot list matches"));
    std::vector<MatchSummary> matches;
    int rc;
    while ((rc = select.Step()) == SQLITE_ROW) {
      MatchSummary summary;
      summary.match_id = select.Text(0);
      summary.last_seq = static_cast<uint64_t>(select.Int(1));
      if (!select.HashColumn(2, summary.head)) {
        return tl::unexpected(
            Corrupt(summary.match_id, summary.last_seq, "the match's head hash is not 32 bytes"));
      }
      summary.last_recorded_unix_ms = select.Int(3);
      summary.dormant = select.Int(4) != 0;
      summary.dormant_note = select.Text(5);
      matches.push_back(std::move(summary));
    }
    if (rc != SQLITE_DONE) return tl::unexpected(SqliteError(db, rc, "cannot list matches"));
    return matches;
  });
}

// ---- snapshots --------------------------------------------------------------------------------

StoreResult<void> SqliteEventStore::SaveSnapshot(std::string_view match_id, uint64_t seq,
                                                 std::string state) {
  // The snapshot records the chain hash of its event, so it can be checked against the log.
  auto events = Read(match_id, seq == 0 ? 0 : seq - 1, 1);
  if (!events) return tl::unexpected(events.error());
  if (events->empty() || events->back().seq != seq) {
    return tl::unexpected(StoreError{StoreErrorCode::kNotFound,
                                     "match " + std::string(match_id) + " has no event seq " +
                                         std::to_string(seq) + " to snapshot",
                                     0});
  }
  const Hash chain_hash = events->back().hash;
  const Hash state_hash = ChainHash(Hash{}, state);
  return WithReader([&](sqlite3* db) -> StoreResult<void> {
    Statement insert(
        db,
        "INSERT OR REPLACE INTO snapshots(match_id, seq, state, chain_hash, state_hash)"
        " VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!insert.ok()) return tl::unexpected(SqliteError(db, insert.rc(), "cannot save a snapshot"));
    insert.Bind(1, match_id);
    insert.Bind(2, static_cast<int64_t>(seq));
    insert.BindBlob(3, state);
    insert.BindBlob(4, chain_hash);
    insert.BindBlob(5, state_hash);
    if (const int result = insert.Step(); result != SQLITE_DONE) {
      return tl::unexpected(SqliteError(db, result, "cannot save a snapshot"));
    }
    return {};
  });
}

StoreResult<void> SqliteEventStore::DiscardSnapshot(std::string_view match_id, uint64_t seq,
                                                    std::string reason) {
  return WithReader([&](sqlite3* db) -> StoreResult<void> {
    if (auto ok = ExecOrError(db, "BEGIN IMMEDIATE", "cannot discard a snapshot"); !ok) return ok;
    Statement remove(db, "DELETE FROM snapshots WHERE match_id = ?1 AND seq = ?2");
    Statement record(db,
                     "INSERT INTO snapshot_discards(match_id, seq, reason) VALUES (?1, ?2, ?3)");
    remove.Bind(1, match_id);
    remove.Bind(2, static_cast<int64_t>(seq));
    record.Bind(1, match_id);
    record.Bind(2, static_cast<int64_t>(seq));
    record.Bind(3, reason);
    int result = remove.ok() ? remove.Step() : remove.rc();
    if (result == SQLITE_DONE) result = record.ok() ? record.Step() : record.rc();
    if (result != SQLITE_DONE) {
      StoreError error = SqliteError(db, result, "cannot discard a snapshot");
      Exec(db, "ROLLBACK");
      return tl::unexpected(std::move(error));
    }
    return ExecOrError(db, "COMMIT", "cannot discard a snapshot");
  });
}

StoreResult<std::vector<std::pair<uint64_t, std::string>>> SqliteEventStore::SnapshotDiscards(
    std::string_view match_id) {
  return WithReader([&](sqlite3* db) -> StoreResult<std::vector<std::pair<uint64_t, std::string>>> {
    Statement select(db,
                     "SELECT seq, reason FROM snapshot_discards WHERE match_id = ?1 ORDER BY id");
    if (!select.ok()) return tl::unexpected(SqliteError(db, select.rc(), "cannot read"));
    select.Bind(1, match_id);
    std::vector<std::pair<uint64_t, std::string>> discards;
    int rc;
    while ((rc = select.Step()) == SQLITE_ROW) {
      discards.emplace_back(static_cast<uint64_t>(select.Int(0)), select.Text(1));
    }
    if (rc != SQLITE_DONE) return tl::unexpected(SqliteError(db, rc, "cannot read"));
    return discards;
  });
}

StoreResult<LoadedMatch> SqliteEventStore::Load(std::string_view match_id) {
  struct Candidate {
    Snapshot snapshot;
    Hash state_hash{};
    bool hashes_ok = false;
  };
  auto candidates = WithReader([&](sqlite3* db) -> StoreResult<std::vector<Candidate>> {
    Statement select(db,
                     "SELECT seq, state, chain_hash, state_hash FROM snapshots WHERE match_id = ?1 "
                     "ORDER BY seq DESC");
    if (!select.ok()) return tl::unexpected(SqliteError(db, select.rc(), "cannot read snapshots"));
    select.Bind(1, match_id);
    std::vector<Candidate> found;
    int rc;
    while ((rc = select.Step()) == SQLITE_ROW) {
      Candidate candidate;
      candidate.snapshot.seq = static_cast<uint64_t>(select.Int(0));
      candidate.snapshot.state = select.Blob(1);
      candidate.hashes_ok = select.HashColumn(2, candidate.snapshot.chain_hash) &&
                            select.HashColumn(3, candidate.state_hash);
      found.push_back(std::move(candidate));
    }
    if (rc != SQLITE_DONE) return tl::unexpected(SqliteError(db, rc, "cannot read snapshots"));
    return found;
  });
  if (!candidates) return tl::unexpected(candidates.error());

  LoadedMatch loaded;
  for (Candidate& candidate : *candidates) {
    const uint64_t seq = candidate.snapshot.seq;
    std::string problem;
    if (!candidate.hashes_ok ||
        ChainHash(Hash{}, candidate.snapshot.state) != candidate.state_hash) {
      problem = "its state bytes are damaged (checksum mismatch)";
    } else {
      auto at = Read(match_id, seq - 1, 1);
      if (!at || at->empty() || at->back().seq != seq) {
        problem = "event seq " + std::to_string(seq) + " cannot be read" +
                  (at ? std::string() : ": " + at.error().message);
      } else if (at->back().hash != candidate.snapshot.chain_hash) {
        problem = "it does not match the log (event seq " + std::to_string(seq) + " has hash " +
                  ToHex(at->back().hash) + ")";
      }
    }
    if (problem.empty()) {
      loaded.snapshot = std::move(candidate.snapshot);
      break;
    }
    std::string reason = "snapshot at seq " + std::to_string(seq) + " discarded: " + problem;
    if (auto discarded = DiscardSnapshot(match_id, seq, reason); !discarded) {
      return tl::unexpected(discarded.error());
    }
    loaded.discarded_snapshots.push_back(std::move(reason));
  }
  const uint64_t from = loaded.snapshot ? loaded.snapshot->seq : 0;
  auto events = Read(match_id, from, UINT64_MAX);  // empty when the snapshot is at the head
  if (!events) return tl::unexpected(events.error());
  loaded.events = std::move(*events);
  return loaded;
}

StoreResult<void> SqliteEventStore::Ping() {
  return WithReader([&](sqlite3* db) -> StoreResult<void> {
    auto one = QueryText(db, "SELECT 1", "the store does not answer");
    if (!one) return tl::unexpected(one.error());
    return {};
  });
}

WriteHealth SqliteEventStore::Writes() const { return group_->Health(); }

StoreResult<void> SqliteEventStore::ProbeWrite() {
  const uint64_t failures_before = group_->failures();
  auto probed = WithReader([&](sqlite3* db) -> StoreResult<void> {
    const std::string what = "cannot write to " + path_;
    if (auto ok = ExecOrError(db, "BEGIN IMMEDIATE", what); !ok) return ok;
    // A row whose bytes change: SQLite writes no page for an update that leaves them equal.
    if (auto ok = ExecOrError(db,
                              "INSERT INTO meta(key, value) VALUES ('write_probes', '1') "
                              "ON CONFLICT(key) DO UPDATE SET "
                              "value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)",
                              what);
        !ok) {
      if (!sqlite3_get_autocommit(db)) Exec(db, "ROLLBACK");
      return ok;
    }
    if (auto ok = ExecOrError(db, "COMMIT", what); !ok) {
      if (!sqlite3_get_autocommit(db)) Exec(db, "ROLLBACK");
      return ok;
    }
    return {};
  });
  if (probed) group_->ProbeSucceeded(failures_before);
  return probed;
}

StoreResult<std::string> SqliteEventStore::JournalMode() {
  return WithReader([&](sqlite3* db) { return QueryText(db, "PRAGMA journal_mode", path_); });
}

}  // namespace melee::persistence
