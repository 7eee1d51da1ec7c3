#include "persistence/sqlite_event_store.h"

#include <sqlite3.h>

#include <charconv>
#include <cstring>
#include <limits>
#include <system_error>
#include <utility>

namespace melee::persistence {
namespace {

// SQLITE_STATIC without its C-style cast: the bound data outlives the statement's step.
const sqlite3_destructor_type kStatic = nullptr;

// Owns one prepared statement.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr);
  }
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return rc_ == SQLITE_OK; }
  int rc() const { return rc_; }
  sqlite3_stmt* get() { return statement_; }

  void Bind(int index, std::string_view text) {
    sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()), kStatic);
  }
  void BindBlob(int index, std::string_view bytes) {
    sqlite3_bind_blob(statement_, index, bytes.data(), static_cast<int>(bytes.size()), kStatic);
  }
  void BindBlob(int index, const Hash& hash) {
    sqlite3_bind_blob(statement_, index, hash.data(), static_cast<int>(hash.size()), kStatic);
  }
  void Bind(int index, int64_t value) { sqlite3_bind_int64(statement_, index, value); }

  // Steps once; SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return rc_ = sqlite3_step(statement_); }

  std::string Text(int column) {
    const auto* text = sqlite3_column_text(statement_, column);
    return text ? std::string(reinterpret_cast<const char*>(text),
                              static_cast<std::size_t>(sqlite3_column_bytes(statement_, column)))
                : std::string();
  }
  std::string Blob(int column) {
    const void* data = sqlite3_column_blob(statement_, column);
    const int size = sqlite3_column_bytes(statement_, column);
    return data ? std::string(static_cast<const char*>(data), static_cast<std::size_t>(size))
                : std::string();
  }
  // Reads a 32-byte hash column; false when the column has another length.
  bool HashColumn(int column, Hash& out) {
    const void* data = sqlite3_column_blob(statement_, column);
    if (data == nullptr || sqlite3_column_bytes(statement_, column) != 32) return false;
    std::memcpy(out.data(), data, out.size());
    return true;
  }
  int64_t Int(int column) { return sqlite3_column_int64(statement_, column); }

 private:
  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
  int rc_;
};

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

int Exec(sqlite3* db, const char* sql) { return sqlite3_exec(db, sql, nullptr, nullptr, nullptr); }

StoreResult<void> ExecOrError(sqlite3* db, const char* sql, const std::string& what) {
  if (const int rc = Exec(db, sql); rc != SQLITE_OK)
    return tl::unexpected(SqliteError(db, rc, what));
  return {};
}

int64_t ToSqlLimit(uint64_t limit) {
  return limit > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             ? -1
             : static_cast<int64_t>(limit);
}

constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS meta ("
    "  key TEXT PRIMARY KEY NOT NULL,"
    "  value TEXT NOT NULL) STRICT;"
    "INSERT OR IGNORE INTO meta(key, value) VALUES ('application', 'melee');"
    "INSERT OR IGNORE INTO meta(key, value) VALUES ('format_version', '1');"
    "CREATE TABLE IF NOT EXISTS events ("
    "  match_id TEXT NOT NULL,"
    "  seq INTEGER NOT NULL CHECK (seq >= 1),"
    "  payload BLOB NOT NULL,"
    "  prev_hash BLOB NOT NULL CHECK (length(prev_hash) = 32),"
    "  hash BLOB NOT NULL CHECK (length(hash) = 32),"
    "  recorded_unix_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (match_id, seq)) STRICT, WITHOUT ROWID;"
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
    "  reason TEXT NOT NULL) STRICT;";

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

// Creates the schema if needed and checks that the file is a Melee database this build reads.
StoreResult<void> PrepareSchema(sqlite3* db, const std::string& path) {
  if (auto ok = ExecOrError(db, "BEGIN IMMEDIATE", "cannot initialise " + path); !ok) return ok;
  if (auto ok = ExecOrError(db, kSchema, "cannot initialise " + path + " as a Melee database");
      !ok) {
    Exec(db, "ROLLBACK");
    return ok;
  }
  if (auto ok = ExecOrError(db, "COMMIT", "cannot initialise " + path); !ok) {
    Exec(db, "ROLLBACK");
    return ok;
  }
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
  return {};
}

}  // namespace

// ---- opening and closing ---------------------------------------------------------------------

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

  if (memory) {
    // A private in-memory database has one connection: reads share it under reader_mutex_.
    store->reader_ = store->writer_;
    store->shared_connection_ = true;
  } else {
    auto reader = OpenConnection(path, options, SQLITE_OPEN_READWRITE);
    if (!reader) return tl::unexpected(reader.error());
    store->reader_ = *reader;
  }
  store->writer_thread_ = std::thread([raw = store.get()] { raw->WriterLoop(); });
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
  {
    std::lock_guard lock(queue_mutex_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  if (writer_thread_.joinable()) writer_thread_.join();
  if (!shared_connection_) sqlite3_close_v2(reader_);
  sqlite3_close_v2(writer_);
}

// ---- appending: one writer thread, group commit -----------------------------------------------

void SqliteEventStore::Append(AppendBatch batch, AppendCallback done) {
  {
    std::lock_guard lock(queue_mutex_);
    if (!stopping_) {
      queue_.push_back({std::move(batch), std::move(done)});
      queue_cv_.notify_one();
      return;
    }
  }
  done(tl::unexpected(StoreError{StoreErrorCode::kClosed, "the event store is shutting down", 0}));
}

void SqliteEventStore::WriterLoop() {
  while (true) {
    std::deque<Pending> work;
    {
      std::unique_lock lock(queue_mutex_);
      queue_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything queued has been written
      std::size_t events = 0;
      while (!queue_.empty() && (work.empty() || events + queue_.front().batch.payloads.size() <=
                                                     options_.max_batch_events)) {
        events += queue_.front().batch.payloads.size();
        work.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    Commit(work);
  }
}

StoreResult<SqliteEventStore::Head> SqliteEventStore::HeadOf(const std::string& match_id) {
  if (auto it = heads_.find(match_id); it != heads_.end()) return it->second;
  Statement statement(writer_,
                      "SELECT seq, payload, prev_hash, hash FROM events WHERE match_id = ?1 "
                      "ORDER BY seq DESC LIMIT 1");
  if (!statement.ok()) return tl::unexpected(SqliteError(writer_, statement.rc(), "cannot read"));
  statement.Bind(1, match_id);
  const int rc = statement.Step();
  Head head{0, Genesis(match_id)};
  if (rc == SQLITE_ROW) {
    head.seq = static_cast<uint64_t>(statement.Int(0));
    Hash prev{};
    if (!statement.HashColumn(2, prev) || !statement.HashColumn(3, head.hash) ||
        ChainHash(prev, statement.Blob(1)) != head.hash) {
      return tl::unexpected(
          Corrupt(match_id, head.seq, "the last event fails verification; refusing to append"));
    }
  } else if (rc != SQLITE_DONE) {
    return tl::unexpected(SqliteError(writer_, rc, "cannot read the head of match " + match_id));
  }
  heads_[match_id] = head;
  return head;
}

void SqliteEventStore::Commit(std::deque<Pending>& work) {
  std::vector<StoreResult<Appended>> results(work.size());
  std::unique_lock<std::mutex> shared_lock;
  if (shared_connection_) shared_lock = std::unique_lock(reader_mutex_);

  // Fails every batch of this transaction that had not failed on its own.
  auto fail_all = [&](const StoreError& error) {
    for (auto& result : results) {
      if (result) result = tl::unexpected(error);
    }
    heads_.clear();  // the database is the truth again
  };

  std::size_t events = 0;
  if (const int begin = Exec(writer_, "BEGIN IMMEDIATE"); begin != SQLITE_OK) {
    fail_all(SqliteError(writer_, begin, "cannot start a transaction on " + path_));
  } else {
    Statement insert(writer_,
                     "INSERT INTO events(match_id, seq, payload, prev_hash, hash, recorded_unix_ms)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    std::map<std::string, Head, std::less<>> tentative;  // heads written by this transaction
    bool aborted = !insert.ok();
    if (aborted) fail_all(SqliteError(writer_, insert.rc(), "cannot prepare an append"));
    for (std::size_t i = 0; i < work.size() && !aborted; ++i) {
      const AppendBatch& batch = work[i].batch;
      if (batch.match_id.empty() || batch.payloads.empty()) {
        results[i] =
            tl::unexpected(StoreError{StoreErrorCode::kInvalidArgument,
                                      batch.match_id.empty() ? "an append needs a match id"
                                                             : "an append needs at least one event",
                                      0});
        continue;
      }
      Head head;
      if (auto it = tentative.find(batch.match_id); it != tentative.end()) {
        head = it->second;
      } else if (auto read = HeadOf(batch.match_id); read) {
        head = *read;
      } else {
        results[i] = tl::unexpected(read.error());
        continue;
      }
      if (batch.expected_seq != head.seq) {
        results[i] = tl::unexpected(
            StoreError{StoreErrorCode::kConflict,
                       "match " + batch.match_id + " is at seq " + std::to_string(head.seq) +
                           ", not at the expected seq " + std::to_string(batch.expected_seq),
                       0});
        continue;
      }
      Exec(writer_, "SAVEPOINT batch");
      Appended appended{head.seq + 1, head.seq, head.hash};
      int rc = SQLITE_DONE;
      for (const std::string& payload : batch.payloads) {
        const uint64_t seq = appended.last_seq + 1;
        const Hash hash = ChainHash(appended.head, payload);
        sqlite3_reset(insert.get());
        insert.Bind(1, batch.match_id);
        insert.Bind(2, static_cast<int64_t>(seq));
        insert.BindBlob(3, payload);
        insert.BindBlob(4, appended.head);
        insert.BindBlob(5, hash);
        insert.Bind(6, batch.recorded_unix_ms);
        rc = insert.Step();
        if (rc != SQLITE_DONE) break;
        appended.last_seq = seq;
        appended.head = hash;
      }
      if (rc != SQLITE_DONE) {
        StoreError error = SqliteError(writer_, rc, "cannot append to match " + batch.match_id);
        if (sqlite3_get_autocommit(writer_)) {
          // SQLite rolled the whole transaction back (disk full, I/O error): nothing holds.
          results[i] = tl::unexpected(error);
          fail_all(error);
          aborted = true;
          break;
        }
        Exec(writer_, "ROLLBACK TO batch");
        Exec(writer_, "RELEASE batch");
        results[i] = tl::unexpected(std::move(error));
        continue;
      }
      Exec(writer_, "RELEASE batch");
      tentative[batch.match_id] = Head{appended.last_seq, appended.head};
      events += batch.payloads.size();
      results[i] = appended;
    }
    if (!aborted) {
      if (const int commit = Exec(writer_, "COMMIT"); commit != SQLITE_OK) {
        // Not committed, so not acknowledged. (After a failed fsync the frames may still be found
        // on restart; the callers then see them as a conflict and re-read, never as a loss.)
        StoreError error = SqliteError(writer_, commit, "cannot commit to " + path_);
        if (!sqlite3_get_autocommit(writer_)) Exec(writer_, "ROLLBACK");
        fail_all(error);
      } else {
        for (auto& [match_id, head] : tentative) heads_[match_id] = head;
        std::lock_guard lock(queue_mutex_);
        ++commits_;
        committed_events_ += events;
      }
    }
  }
  if (shared_lock.owns_lock()) shared_lock.unlock();
  for (std::size_t i = 0; i < work.size(); ++i) work[i].done(std::move(results[i]));
}

std::size_t SqliteEventStore::commits() const {
  std::lock_guard lock(queue_mutex_);
  return commits_;
}

std::size_t SqliteEventStore::committed_events() const {
  std::lock_guard lock(queue_mutex_);
  return committed_events_;
}

// ---- reading ----------------------------------------------------------------------------------

template <class F>
auto SqliteEventStore::WithReader(F&& body) {
  std::lock_guard lock(reader_mutex_);
  return body(reader_);
}

StoreResult<std::vector<Event>> SqliteEventStore::Read(std::string_view match_id,
                                                       uint64_t after_seq, uint64_t limit) {
  return WithReader([&](sqlite3* db) -> StoreResult<std::vector<Event>> {
    // Reads from the event at after_seq (the anchor the first returned event links to).
    Statement select(db,
                     "SELECT seq, payload, prev_hash, hash, recorded_unix_ms FROM events "
                     "WHERE match_id = ?1 AND seq >= ?2 ORDER BY seq LIMIT ?3");
    if (!select.ok()) return tl::unexpected(SqliteError(db, select.rc(), "cannot read"));
    select.Bind(1, match_id);
    select.Bind(2, static_cast<int64_t>(after_seq));
    select.Bind(3, limit == UINT64_MAX ? int64_t{-1} : ToSqlLimit(limit + (after_seq > 0 ? 1 : 0)));

    std::vector<Event> events;
    uint64_t expected = after_seq + 1;
    Hash link = Genesis(match_id);
    bool anchored = after_seq == 0;
    int rc;
    while ((rc = select.Step()) == SQLITE_ROW) {
      Event event;
      event.match_id = std::string(match_id);
      event.seq = static_cast<uint64_t>(select.Int(0));
      event.payload = select.Blob(1);
      if (!select.HashColumn(2, event.prev_hash) || !select.HashColumn(3, event.hash)) {
        return tl::unexpected(Corrupt(match_id, event.seq, "a stored hash is not 32 bytes"));
      }
      event.recorded_unix_ms = select.Int(4);
      if (ChainHash(event.prev_hash, event.payload) != event.hash) {
        return tl::unexpected(
            Corrupt(match_id, event.seq, "the payload does not match its hash (altered)"));
      }
      if (!anchored) {
        if (event.seq != after_seq) {
          return tl::unexpected(Corrupt(match_id, after_seq, "the event is missing"));
        }
        anchored = true;
        link = event.hash;
        continue;
      }
      if (event.seq != expected) {
        return tl::unexpected(Corrupt(match_id, expected,
                                      "the event is missing (found seq " +
                                          std::to_string(event.seq) + " after " +
                                          std::to_string(expected - 1) + ")"));
      }
      if (event.prev_hash != link) {
        return tl::unexpected(Corrupt(
            match_id, event.seq,
            expected == 1 ? "the first event does not start this match's chain"
                          : "the event does not link to seq " + std::to_string(expected - 1) +
                                " (removed, reordered or altered)"));
      }
      link = event.hash;
      ++expected;
      events.push_back(std::move(event));
    }
    if (rc != SQLITE_DONE) {
      return tl::unexpected(SqliteError(db, rc, "cannot read match " + std::string(match_id)));
    }
    if (!anchored || (after_seq == 0 && events.empty())) {
      // Nothing at or after the anchor: either no such match, or a resume past its end.
      Statement count(db, "SELECT MAX(seq) FROM events WHERE match_id = ?1");
      count.Bind(1, match_id);
      const uint64_t last =
          count.Step() == SQLITE_ROW ? static_cast<uint64_t>(count.Int(0)) : uint64_t{0};
      if (last == 0) {
        return tl::unexpected(StoreError{StoreErrorCode::kNotFound,
                                         "no match " + std::string(match_id) + " in the log", 0});
      }
      if (after_seq > last) {
        return tl::unexpected(StoreError{StoreErrorCode::kInvalidArgument,
                                         "match " + std::string(match_id) + " has " +
                                             std::to_string(last) + " events, none after seq " +
                                             std::to_string(after_seq),
                                         0});
      }
      return tl::unexpected(Corrupt(match_id, after_seq, "the event is missing"));
    }
    return events;
  });
}

StoreResult<std::vector<MatchSummary>> SqliteEventStore::ListMatches() {
  return WithReader([&](sqlite3* db) -> StoreResult<std::vector<MatchSummary>> {
    Statement select(db,
                     "SELECT e.match_id, e.seq, e.hash, e.recorded_unix_ms FROM events e "
                     "JOIN (SELECT match_id, MAX(seq) AS last FROM events GROUP BY match_id) h "
                     "ON e.match_id = h.match_id AND e.seq = h.last ORDER BY e.match_id");
    if (!select.ok()) return tl::unexpected(SqliteError(db, select.rc(), "cannot list matches"));
    std::vector<MatchSummary> matches;
    int rc;
    while ((rc = select.Step()) == SQLITE_ROW) {
      MatchSummary summary;
      summary.match_id = select.Text(0);
      summary.last_seq = static_cast<uint64_t>(select.Int(1));
      if (!select.HashColumn(2, summary.head)) {
        return tl::unexpected(
            Corrupt(summary.match_id, summary.last_seq, "a stored hash is not 32 bytes"));
      }
      summary.last_recorded_unix_ms = select.Int(3);
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
  auto events = Read(match_id, from, UINT64_MAX);
  if (!events) {
    // A snapshot at the head leaves nothing after it; that is not an error.
    if (loaded.snapshot && events.error().code == StoreErrorCode::kInvalidArgument) {
      return loaded;
    }
    return tl::unexpected(events.error());
  }
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

StoreResult<std::string> SqliteEventStore::JournalMode() {
  return WithReader([&](sqlite3* db) { return QueryText(db, "PRAGMA journal_mode", path_); });
}

}  // namespace melee::persistence
