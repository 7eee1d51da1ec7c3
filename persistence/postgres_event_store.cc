#include "persistence/postgres_event_store.h"

#include <endian.h>
#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <deque>
#include <set>
#include <utility>
#include <vector>

#include "persistence/postgres_connection.h"
#include "persistence/thread_name.h"

namespace melee::persistence {
namespace postgres {

int64_t Int(const PGresult* result, int row, int column) {
  uint64_t big_endian = 0;
  if (PQgetlength(result, row, column) != sizeof big_endian) return 0;
  std::memcpy(&big_endian, PQgetvalue(result, row, column), sizeof big_endian);
  return static_cast<int64_t>(be64toh(big_endian));
}

std::string Bytes(const PGresult* result, int row, int column) {
  return std::string(PQgetvalue(result, row, column),
                     static_cast<std::size_t>(PQgetlength(result, row, column)));
}

bool HashColumn(const PGresult* result, int row, int column, Hash& out) {
  if (PQgetisnull(result, row, column) ||
      PQgetlength(result, row, column) != static_cast<int>(out.size())) {
    return false;
  }
  std::memcpy(out.data(), PQgetvalue(result, row, column), out.size());
  return true;
}

}  // namespace postgres

namespace {

using postgres::HashColumn;
using postgres::Params;
using postgres::Result;
using postgres::Statement;

// libpq's messages span lines ("...failed: No such file or directory\n\tIs the server
// running..."): one line for a log.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  std::string out;
  for (char c : text) {
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out.push_back(c);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Says where `uri` points, without its password: "database melee on host db.example port 5432
// as user melee" (libpq parses the URI; its defaults fill what the URI leaves out).
StoreResult<std::string> Describe(const std::string& uri) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(uri.c_str(), &error);
  if (options == nullptr) {
    std::string why = error != nullptr ? OneLine(error) : "out of memory";
    PQfreemem(error);
    return tl::unexpected(StoreError{StoreErrorCode::kInvalidArgument,
                                     "the PostgreSQL connection URI is malformed: " + why, 0});
  }
  std::string dbname, host, port, user;
  for (PQconninfoOption* option = options; option->keyword != nullptr; ++option) {
    const std::string value = option->val != nullptr ? option->val : "";
    const std::string keyword = option->keyword;
    if (keyword == "dbname") dbname = value;
    if (keyword == "host") host = value;
    if (keyword == "hostaddr" && host.empty()) host = value;
    if (keyword == "port") port = value;
    if (keyword == "user") user = value;
  }
  PQconninfoFree(options);
  std::string where = "database " + (dbname.empty() ? std::string("(the user's name)") : dbname);
  where += host.empty() ? " on the default local socket" : " on " + host;
  if (!port.empty()) where += " port " + port;
  if (!user.empty()) where += " as user " + user;
  return where;
}

// SQLSTATE classes that say the connection, not the statement, failed: 08 (connection
// exception), 57P01-57P03 (the server shut down, crashed, or is starting or stopping).
bool ConnectionState(std::string_view state) {
  return state.starts_with("08") || state == "57P01" || state == "57P02" || state == "57P03";
}

StoreError Corrupt(std::string_view match_id, uint64_t seq, const std::string& why) {
  return StoreError{
      StoreErrorCode::kCorrupt,
      "match " + std::string(match_id) + ", event seq " + std::to_string(seq) + ": " + why, seq};
}

// An event whose bytes changed: its payload no longer matches its hash.
StoreError Damaged(std::string_view match_id, uint64_t seq) {
  return StoreError{StoreErrorCode::kCorrupt,
                    "event " + std::to_string(seq) + " of match " + std::string(match_id) +
                        " is damaged: its payload does not match its hash (its bytes were "
                        "changed in the PostgreSQL database)",
                    seq};
}

// The schema (persistence/FORMAT.md, "PostgreSQL"), created in one transaction under an advisory
// lock, so that two servers opening one new database at once do not race. match_id columns
// compare bytewise (COLLATE "C"), so matches list in the same order as on SQLite.
constexpr const char* kSchema =
    "SELECT pg_advisory_xact_lock(7310411965437706565);"  // "melee-db" as a number: any fixed key
    "CREATE SCHEMA IF NOT EXISTS melee;"
    "CREATE TABLE IF NOT EXISTS melee.meta ("
    "  key text PRIMARY KEY,"
    "  value text NOT NULL);"
    "INSERT INTO melee.meta(key, value) VALUES ('application', 'melee'), ('format_version', '1')"
    "  ON CONFLICT (key) DO NOTHING;"
    "CREATE TABLE IF NOT EXISTS melee.matches ("
    "  match_id text COLLATE \"C\" PRIMARY KEY,"
    "  last_seq bigint NOT NULL CHECK (last_seq >= 1),"
    "  head_hash bytea NOT NULL,"
    "  last_recorded_unix_ms bigint NOT NULL,"
    "  dormant_seq bigint NOT NULL DEFAULT 0,"
    "  dormant_note text NOT NULL DEFAULT '');"
    "CREATE TABLE IF NOT EXISTS melee.events ("
    "  match_id text COLLATE \"C\" NOT NULL,"
    "  seq bigint NOT NULL CHECK (seq >= 1),"
    "  payload bytea NOT NULL,"
    "  prev_hash bytea NOT NULL,"
    "  hash bytea NOT NULL,"
    "  recorded_unix_ms bigint NOT NULL,"
    "  PRIMARY KEY (match_id, seq));"
    "CREATE TABLE IF NOT EXISTS melee.snapshots ("
    "  match_id text COLLATE \"C\" NOT NULL,"
    "  seq bigint NOT NULL,"
    "  state bytea NOT NULL,"
    "  chain_hash bytea NOT NULL,"
    "  state_hash bytea NOT NULL,"
    "  PRIMARY KEY (match_id, seq));"
    "CREATE TABLE IF NOT EXISTS melee.snapshot_discards ("
    "  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    "  match_id text COLLATE \"C\" NOT NULL,"
    "  seq bigint NOT NULL,"
    "  reason text NOT NULL);"
    "CREATE TABLE IF NOT EXISTS melee.webhooks ("
    "  match_id text COLLATE \"C\" NOT NULL,"
    "  seat text NOT NULL,"
    "  url text NOT NULL,"
    "  secret text NOT NULL,"
    "  PRIMARY KEY (match_id, seat));"
    "CREATE TABLE IF NOT EXISTS melee.emails ("
    "  match_id text COLLATE \"C\" NOT NULL,"
    "  seat text NOT NULL,"
    "  address text NOT NULL,"
    "  digest_minutes bigint NOT NULL,"
    "  token text NOT NULL,"
    "  last_mailed_unix_ms bigint NOT NULL DEFAULT 0,"
    "  last_mailed_seq bigint NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (match_id, seat));"
    "CREATE TABLE IF NOT EXISTS melee.outbox ("
    "  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    "  delivery_id text NOT NULL UNIQUE,"
    "  channel text NOT NULL,"
    "  match_id text COLLATE \"C\" NOT NULL,"
    "  seat text NOT NULL,"
    "  body text NOT NULL,"
    "  created_unix_ms bigint NOT NULL,"
    "  attempts bigint NOT NULL DEFAULT 0,"
    "  next_attempt_unix_ms bigint NOT NULL,"
    "  last_error text NOT NULL DEFAULT '');"
    "CREATE TABLE IF NOT EXISTS melee.leases ("
    "  match_id text COLLATE \"C\" PRIMARY KEY,"
    "  node_id text NOT NULL,"
    "  token bigint NOT NULL CHECK (token >= 1),"
    "  expires_at timestamptz NOT NULL);"
    // The token a key column: an append holds its lease row FOR KEY SHARE, which a takeover (a
    // new token: FOR UPDATE) waits for and a renewal (expires_at only: FOR NO KEY UPDATE) does
    // not, so that a renewal of many rows and a group commit of many appends never deadlock.
    "CREATE UNIQUE INDEX IF NOT EXISTS leases_token ON melee.leases(match_id, token);"
    "CREATE INDEX IF NOT EXISTS outbox_due ON melee.outbox(channel, next_attempt_unix_ms);"
    "CREATE INDEX IF NOT EXISTS outbox_seat ON melee.outbox(match_id, seat);";

// Checks that the schema belongs to Melee and is of a format this build reads.
StoreResult<void> CheckFormat(PostgresEventStore::Connection& connection, const std::string& where) {
  const std::string what = "cannot open the Melee schema in " + where;
  auto meta = connection.Exec(what,
                              "SELECT key, value FROM melee.meta "
                              "WHERE key IN ('application', 'format_version')");
  if (!meta) return tl::unexpected(meta.error());
  std::string application, version_text;
  for (int row = 0; row < PQntuples(meta->get()); ++row) {
    const std::string key = postgres::Bytes(meta->get(), row, 0);
    (key == "application" ? application : version_text) = postgres::Bytes(meta->get(), row, 1);
  }
  if (application != "melee") {
    return tl::unexpected(StoreError{StoreErrorCode::kInvalidArgument,
                                     "the schema melee in " + where +
                                         " belongs to another application ('" + application +
                                         "')",
                                     0});
  }
  int version = 0;
  const char* end = version_text.data() + version_text.size();
  if (auto [ptr, error] = std::from_chars(version_text.data(), end, version);
      error != std::errc() || ptr != end) {
    return tl::unexpected(StoreError{StoreErrorCode::kCorrupt,
                                     "the schema melee in " + where +
                                         " has an unreadable format_version '" + version_text +
                                         "'",
                                     0});
  }
  if (version > kPostgresFormatVersion) {
    return tl::unexpected(StoreError{StoreErrorCode::kInvalidArgument,
                                     "the schema melee in " + where + " has format version " +
                                         std::to_string(version) + "; this build reads up to " +
                                         std::to_string(kPostgresFormatVersion) +
                                         ": upgrade Melee",
                                     0});
  }
  return {};
}

}  // namespace

bool IsPostgresUri(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

// ---- one connection ----------------------------------------------------------------------------

PostgresEventStore::Connection::Connection(std::string uri, std::string where,
                                           int connect_timeout_seconds)
    : uri_(std::move(uri)),
      where_(std::move(where)),
      timeout_(std::to_string(std::max(connect_timeout_seconds, 1))) {}

PostgresEventStore::Connection::~Connection() { Drop(); }

void PostgresEventStore::Connection::Drop() {
  if (conn_ != nullptr) PQfinish(conn_);
  conn_ = nullptr;
  prepared_.clear();  // prepared statements live and die with their session
}

StoreResult<void> PostgresEventStore::Connection::Ensure(const std::string& what) {
  // A server that stopped or restarted since the last use closed the socket: reading what is
  // there finds that without a round trip, and the connection is made again.
  if (conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK && PQconsumeInput(conn_) == 1 &&
      PQstatus(conn_) == CONNECTION_OK) {
    return {};
  }
  Drop();
  // Our defaults first: what the URI says is expanded from dbname and overrides them.
  const char* keywords[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {timeout_.c_str(), "melee-server", uri_.c_str(), nullptr};
  conn_ = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
    lost_ = true;
    StoreError error{StoreErrorCode::kUnavailable,
                     what + ": cannot connect to PostgreSQL (" + where_ + "): " +
                         (conn_ != nullptr ? OneLine(PQerrorMessage(conn_)) : "out of memory"),
                     0};
    Drop();
    return tl::unexpected(std::move(error));
  }
  // CREATE ... IF NOT EXISTS says NOTICE when the thing exists: not for the server's stderr.
  PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
  // Durability does not depend on the database's defaults: COMMIT returns once the WAL is
  // flushed (and, with synchronous standbys configured, replicated).
  Result session(PQexec(conn_,
                        "SET synchronous_commit = on; SET client_min_messages = warning; "
                        "SET TIME ZONE 'UTC'"),
                 &PQclear);
  if (PQresultStatus(session.get()) != PGRES_COMMAND_OK) {
    StoreError error = Error(session.get(), what);
    Drop();
    return tl::unexpected(std::move(error));
  }
  lost_ = false;
  return {};
}

StoreError PostgresEventStore::Connection::Error(const PGresult* result, const std::string& what) {
  const char* state_field = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE)
                                              : nullptr;
  const std::string state = state_field != nullptr ? state_field : "";
  last_state_ = state;
  std::string detail = result != nullptr ? PQresultErrorMessage(result) : "";
  if (detail.empty() && conn_ != nullptr) detail = PQerrorMessage(conn_);
  detail = OneLine(detail);
  StoreErrorCode code = StoreErrorCode::kUnavailable;
  std::string why;
  if (conn_ == nullptr || PQstatus(conn_) == CONNECTION_BAD || ConnectionState(state)) {
    lost_ = true;
    why = "the connection to PostgreSQL was lost (PostgreSQL stopped, restarted or is "
          "unreachable)";
  } else if (state == "53100") {
    why = "PostgreSQL's disk is full";
  } else if (state.starts_with("53")) {
    why = "PostgreSQL is out of resources";
  } else if (state == "25006" || state == "42501") {
    why = "PostgreSQL refuses the write (a read-only server or missing privileges)";
  } else if (state.starts_with("XX")) {
    code = StoreErrorCode::kCorrupt;
    why = "PostgreSQL reports damaged data";
  } else {
    why = "PostgreSQL error" + (state.empty() ? std::string() : " " + state);
  }
  return StoreError{code, what + ": " + why + " (" + where_ + ": " + detail + ")", 0};
}

StoreResult<Result> PostgresEventStore::Connection::Exec(const std::string& what,
                                                         const std::string& sql,
                                                         const Params& params,
                                                         const std::string& prepared_name) {
  if (auto ok = Ensure(what); !ok) return tl::unexpected(ok.error());
  lost_ = false;
  if (!prepared_name.empty() && !prepared_.contains(prepared_name)) {
    Result prepared(PQprepare(conn_, prepared_name.c_str(), sql.c_str(), params.size(), nullptr),
                    &PQclear);
    if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
      StoreError error = Error(prepared.get(), what);
      if (lost_) Drop();
      return tl::unexpected(std::move(error));
    }
    prepared_.insert(prepared_name);
  }
  Result result(prepared_name.empty()
                    ? PQexecParams(conn_, sql.c_str(), params.size(), nullptr, params.values(),
                                   params.lengths(), params.formats(), /*resultFormat=binary*/ 1)
                    : PQexecPrepared(conn_, prepared_name.c_str(), params.size(), params.values(),
                                     params.lengths(), params.formats(), 1),
                &PQclear);
  const ExecStatusType status = PQresultStatus(result.get());
  if (result == nullptr || (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)) {
    StoreError error = Error(result.get(), what);
    if (lost_) Drop();
    return tl::unexpected(std::move(error));
  }
  ++successes_;
  return result;
}

StoreResult<void> PostgresEventStore::Connection::Script(const std::string& what,
                                                         const std::string& sql) {
  if (auto ok = Ensure(what); !ok) return ok;
  lost_ = false;
  Result result(PQexec(conn_, sql.c_str()), &PQclear);
  const ExecStatusType status = PQresultStatus(result.get());
  if (result == nullptr || (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)) {
    StoreError error = Error(result.get(), what);
    if (lost_) Drop();
    return tl::unexpected(std::move(error));
  }
  ++successes_;
  return {};
}

PostgresEventStore::Connection::PipelineResult PostgresEventStore::Connection::Pipeline(
    const std::string& what, const std::deque<Statement>& statements) {
  constexpr std::size_t kPipelineWindow = 64;
  PipelineResult out;
  out.failed_at = statements.size();
  auto fail = [&](const PGresult* result, std::size_t at) {
    if (!out.error) {
      out.error = Error(result, what);
      out.failed_at = at;
    }
  };
  if (auto ok = Ensure(what); !ok) {
    out.error = ok.error();
    return out;
  }
  lost_ = false;
  for (const Statement& statement : statements) {
    if (statement.prepared_name.empty() || prepared_.contains(statement.prepared_name)) continue;
    Result prepared(PQprepare(conn_, statement.prepared_name.c_str(), statement.sql.c_str(),
                              statement.params.size(), nullptr),
                    &PQclear);
    if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
      fail(prepared.get(), 0);
      if (lost_) Drop();
      return out;
    }
    prepared_.insert(statement.prepared_name);
  }
  if (PQenterPipelineMode(conn_) != 1) {
    fail(nullptr, 0);
    Drop();
    return out;
  }
  std::size_t sent = 0;
  std::size_t received = 0;
  bool broken = false;
  // Reads the answer to statement `received`.
  auto receive = [&] {
    Result result(PQgetResult(conn_), &PQclear);
    if (result == nullptr) {
      broken = true;
      fail(nullptr, received);
      return;
    }
    const ExecStatusType status = PQresultStatus(result.get());
    if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
      if (!out.error) out.results.push_back(std::move(result));
    } else if (status != PGRES_PIPELINE_ABORTED) {
      fail(result.get(), received);
      if (PQstatus(conn_) != CONNECTION_OK) broken = true;
    }
    // A statement's answer ends with a null result.
    while (PGresult* extra = PQgetResult(conn_)) PQclear(extra);
    ++received;
  };
  for (const Statement& statement : statements) {
    const int queued =
        statement.prepared_name.empty()
            ? PQsendQueryParams(conn_, statement.sql.c_str(), statement.params.size(), nullptr,
                                statement.params.values(), statement.params.lengths(),
                                statement.params.formats(), 1)
            : PQsendQueryPrepared(conn_, statement.prepared_name.c_str(),
                                  statement.params.size(), statement.params.values(),
                                  statement.params.lengths(), statement.params.formats(), 1);
    if (queued != 1) {
      fail(nullptr, sent);
      broken = true;
      break;
    }
    ++sent;
    if (sent - received >= kPipelineWindow) {
      PQsendFlushRequest(conn_);
      receive();
      if (broken) break;
    }
  }
  if (!broken && PQpipelineSync(conn_) != 1) {
    fail(nullptr, statements.size());
    broken = true;
  }
  while (!broken && received < sent) receive();
  // The Sync's answer: the commit, or why it failed.
  for (int guard = 0; !broken; ++guard) {
    if (guard > 16) {
      fail(nullptr, statements.size());
      broken = true;
      break;
    }
    Result result(PQgetResult(conn_), &PQclear);
    if (result == nullptr) {
      if (PQstatus(conn_) != CONNECTION_OK) {
        fail(nullptr, statements.size());
        broken = true;
      }
      continue;
    }
    const ExecStatusType status = PQresultStatus(result.get());
    if (status == PGRES_PIPELINE_SYNC) break;
    if (status == PGRES_FATAL_ERROR) fail(result.get(), statements.size());
  }
  if (broken || PQexitPipelineMode(conn_) != 1) {
    lost_ = true;
    Drop();
  }
  if (out.error) {
    out.results.clear();
  } else {
    ++successes_;
  }
  return out;
}

// ---- opening and closing ---------------------------------------------------------------------

PostgresEventStore::PostgresEventStore(std::string uri, std::string where, Options options)
    : uri_(std::move(uri)), where_(std::move(where)), options_(options) {}

StoreResult<std::unique_ptr<PostgresEventStore>> PostgresEventStore::Open(const std::string& uri,
                                                                          Options options) {
  if (options.max_batch_events == 0) options.max_batch_events = 1;
  auto where = Describe(uri);
  if (!where) return tl::unexpected(where.error());
  std::unique_ptr<PostgresEventStore> store(new PostgresEventStore(uri, *where, options));
  store->writer_ = std::make_unique<Connection>(uri, *where, options.connect_timeout_seconds);
  store->reader_ = std::make_unique<Connection>(uri, *where, options.connect_timeout_seconds);
  store->leaser_ = std::make_unique<Connection>(uri, *where, options.connect_timeout_seconds);
  Connection& writer = *store->writer_;
  const std::string what = "cannot prepare the Melee schema in " + *where;
  if (auto ok = writer.Ensure("cannot open the event store"); !ok) {
    return tl::unexpected(ok.error());
  }
  // One transaction: a failure leaves the database as it was.
  if (auto ok = writer.Script(what, std::string("BEGIN;") + kSchema + "COMMIT;"); !ok) {
    if (writer.connected()) (void)writer.Script(what, "ROLLBACK");
    return tl::unexpected(ok.error());
  }
  if (auto ok = CheckFormat(writer, *where); !ok) return tl::unexpected(ok.error());
  PostgresEventStore* raw = store.get();
  raw->group_ = std::make_unique<GroupCommit>(
      options.max_batch_events, [raw](std::deque<Pending>& work) { return raw->Commit(work); });
  raw->group_->Start();
  if (options.renew_in_background) {
    raw->lease_thread_ = std::thread([raw] {
      NameThisThread(kLeaseThreadName);
      raw->LeaseLoop();
    });
  }
  return store;
}

PostgresEventStore::~PostgresEventStore() {
  {
    std::lock_guard lock(held_mutex_);
    lease_stopping_ = true;
  }
  lease_wake_.notify_all();
  if (lease_thread_.joinable()) lease_thread_.join();
  if (group_) group_->Stop();
  // The node stops: its matches may be taken at once by another node.
  std::vector<std::string> held;
  {
    std::lock_guard lock(held_mutex_);
    for (const auto& [match_id, lease] : held_) held.push_back(match_id);
  }
  for (const std::string& match_id : held) (void)ReleaseLease(match_id);
}

// ---- appending: one writer thread, group commit -----------------------------------------------

void PostgresEventStore::Append(AppendBatch batch, AppendCallback done) {
  Fence(batch);
  group_->Append(std::move(batch), std::move(done));
}

void PostgresEventStore::AppendTogether(std::vector<PendingAppend> appends) {
  for (PendingAppend& append : appends) Fence(append.batch);
  group_->AppendTogether(std::move(appends));
}

void PostgresEventStore::Fence(AppendBatch& batch) const {
  if (batch.lease_token == 0 && !batch.IsMarker()) batch.lease_token = TokenOf(batch.match_id);
}

StoreResult<PostgresEventStore::Head> PostgresEventStore::HeadOf(const std::string& match_id) {
  if (auto it = heads_.find(match_id); it != heads_.end()) return it->second;
  auto read = writer_->Exec("cannot read the head of match " + match_id,
                            "SELECT m.last_seq, m.head_hash, e.seq, e.payload, e.prev_hash, e.hash "
                            "FROM melee.matches m LEFT JOIN melee.events e "
                            "ON e.match_id = m.match_id AND e.seq = m.last_seq "
                            "WHERE m.match_id = $1",
                            Params().Text(match_id));
  if (!read) return tl::unexpected(read.error());
  const PGresult* result = read->get();
  Head head{false, 0, Genesis(match_id)};
  if (PQntuples(result) == 1) {
    head.exists = true;
    head.seq = static_cast<uint64_t>(postgres::Int(result, 0, 0));
    Hash recorded{}, prev{}, hash{};
    const bool verified = HashColumn(result, 0, 1, recorded) && !PQgetisnull(result, 0, 2) &&
                          static_cast<uint64_t>(postgres::Int(result, 0, 2)) == head.seq &&
                          HashColumn(result, 0, 4, prev) && HashColumn(result, 0, 5, hash) &&
                          hash == recorded &&
                          ChainHash(prev, postgres::Bytes(result, 0, 3)) == hash;
    if (!verified) {
      return tl::unexpected(
          Corrupt(match_id, head.seq, "the last event fails verification; refusing to append"));
    }
    head.hash = hash;
  }
  heads_[match_id] = head;
  return head;
}

StoreResult<PostgresEventStore::Head> PostgresEventStore::FreshHeadOf(const std::string& match_id,
                                                                      uint64_t expected_seq) {
  const bool cached = heads_.contains(match_id);
  auto head = HeadOf(match_id);
  if (head && head->seq != expected_seq && cached) {
    // The cached head may be stale: another node appended since this one last wrote the match
    // (its lease moved here since). The database says.
    heads_.erase(match_id);
    head = HeadOf(match_id);
  }
  return head;
}

namespace {

// Who holds a match's lease now, by melee.leases.
struct Holder {
  std::string node_id;
  uint64_t token = 0;
  int64_t remaining_ms = 0;  // 0: expired or released
};

// Returns the holder of `match_id`'s lease, or nothing when the match has never had one.
StoreResult<std::optional<Holder>> HolderOf(PostgresEventStore::Connection& db,
                                            const std::string& match_id, const std::string& what) {
  auto read = db.Exec(what,
                      "SELECT node_id, token, GREATEST(0, EXTRACT(EPOCH FROM expires_at - "
                      "clock_timestamp()) * 1000)::bigint FROM melee.leases WHERE match_id = $1",
                      Params().Text(match_id));
  if (!read) return tl::unexpected(read.error());
  if (PQntuples(read->get()) != 1) return std::optional<Holder>();
  return Holder{postgres::Bytes(read->get(), 0, 0),
                static_cast<uint64_t>(postgres::Int(read->get(), 0, 1)),
                postgres::Int(read->get(), 0, 2)};
}

// Says how long a lease still runs: "1.2 s".
std::string Seconds(int64_t ms) {
  return std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 / 100) + " s";
}

// The refusal of an append (or a renewal) under `token`, a token of `match_id`'s lease that is
// no longer the current one: names the match, the holder now and both tokens.
StoreError Fenced(PostgresEventStore::Connection& db, const std::string& match_id,
                  const std::string& node_id, uint64_t token) {
  auto holder = HolderOf(db, match_id, "cannot read who holds match " + match_id);
  std::string now = "match " + match_id;
  if (!holder) {
    now += " is no longer this node's (who holds it cannot be read: " + holder.error().message +
           ")";
  } else if (!*holder) {
    now += " has no lease any more";
  } else if ((*holder)->remaining_ms > 0) {
    now += " is now owned by node " + (*holder)->node_id + " (token " +
           std::to_string((*holder)->token) + ")";
  } else {
    now += " was taken by node " + (*holder)->node_id + " (token " +
           std::to_string((*holder)->token) + ", since released or expired)";
  }
  return StoreError{StoreErrorCode::kFenced,
                    now + "; this node's lease (" + node_id + ", token " + std::to_string(token) +
                        ") has expired: nothing was written",
                    0};
}

// Rows per INSERT: PostgreSQL takes at most 65535 parameters in a statement (5 an event).
constexpr std::size_t kRowsPerStatement = 1000;

// Numbers a statement's placeholders in order: "($7::bigint, $8::bytea, ...)".
class Placeholders {
 public:
  std::string Next() { return "$" + std::to_string(++count_); }
  std::string Row(std::initializer_list<const char*> types) {
    std::string values = "(";
    for (const char* type : types) {
      if (values.size() > 1) values += ", ";
      values += Next();
      values += "::";
      values += type;
    }
    return values + ")";
  }

 private:
  int count_ = 0;
};

// Adds the VALUES rows of events [from, to) of `batch` to `sql` and `params`.
void EventRows(const AppendBatch& batch, const std::vector<Hash>& hashes, const Hash& first_prev,
               std::size_t from, std::size_t to, Placeholders& placeholders, std::string& sql,
               Params& params) {
  for (std::size_t k = from; k < to; ++k) {
    params.Int(static_cast<int64_t>(batch.expected_seq + k + 1))
        .Bytes(batch.payloads[k])
        .Bytes(k == 0 ? first_prev : hashes[k - 1])
        .Bytes(hashes[k])
        .Int(k < batch.recorded_each.size() ? batch.recorded_each[k] : batch.recorded_unix_ms);
    if (k > from) sql += ", ";
    sql += placeholders.Row({"bigint", "bytea", "bytea", "bytea", "bigint"});
  }
}

// Adds the VALUES rows of notices [from, to) of `batch` to `sql` and `params`.
void NoticeRows(const AppendBatch& batch, std::size_t from, std::size_t to,
                Placeholders& placeholders, std::string& sql, Params& params) {
  for (std::size_t k = from; k < to; ++k) {
    const OutboxNotice& notice = batch.notices[k];
    params.Text(notice.delivery_id)
        .Text(notice.channel)
        .Text(notice.match_id)
        .Text(notice.seat)
        .Text(notice.body)
        .Int(notice.created_unix_ms);
    if (k > from) sql += ", ";
    sql += placeholders.Row({"text", "text", "text", "text", "text", "bigint"});
  }
}

// Builds the statements that append `batch` at its expected seq, usually one round trip. The
// first moves the head by a compare-and-set (an UPDATE on last_seq = expected_seq, or an INSERT
// of a new match that does nothing when the match exists) and inserts the events and notices
// only when it moved; its result is one row, the count of events inserted (0: the head was not
// where the batch expected it). A batch of more than kRowsPerStatement events or notices (an
// imported log) has its other rows in the statements after it.
void AppendStatements(const AppendBatch& batch, bool new_match, const std::vector<Hash>& hashes,
                      const Hash& first_prev, std::deque<Statement>& statements) {
  Statement& first = statements.emplace_back();
  Placeholders placeholders;
  std::string& sql = first.sql;
  const uint64_t last_seq = batch.expected_seq + batch.payloads.size();
  const int64_t last_ms =
      batch.recorded_each.empty() ? batch.recorded_unix_ms : batch.recorded_each.back();
  first.params.Text(batch.match_id)
      .Int(static_cast<int64_t>(last_seq))
      .Bytes(hashes.back())
      .Int(last_ms);
  const std::string id = placeholders.Next();
  const std::string seq = placeholders.Next();
  const std::string hash = placeholders.Next();
  const std::string ms = placeholders.Next();
  // Fenced: the lease row is locked FOR KEY SHARE (a takeover, which changes the token, a key
  // column, waits for this transaction, or this statement sees the takeover's token; a renewal
  // does not wait) and the head moves only while the token is the current one.
  const bool fenced = batch.lease_token != 0;
  std::string lease_held;
  sql = "WITH ";
  if (fenced) {
    first.params.Int(static_cast<int64_t>(batch.lease_token));
    sql += "lease AS MATERIALIZED (SELECT 1 FROM melee.leases WHERE match_id = " + id +
           "::text AND token = " + placeholders.Next() + "::bigint FOR KEY SHARE), ";
    lease_held = " AND EXISTS (SELECT 1 FROM lease)";
  }
  if (new_match) {
    sql += "head AS (INSERT INTO melee.matches(match_id, last_seq, head_hash, "
           "last_recorded_unix_ms) SELECT " + id + "::text, " + seq + "::bigint, " + hash +
           "::bytea, " + ms + "::bigint WHERE true" + lease_held +
           " ON CONFLICT (match_id) DO NOTHING RETURNING match_id)";
  } else {
    first.params.Int(static_cast<int64_t>(batch.expected_seq));
    const std::string expected = placeholders.Next();
    sql += "head AS (UPDATE melee.matches SET last_seq = " + seq + "::bigint, head_hash = " +
           hash + "::bytea, last_recorded_unix_ms = " + ms + "::bigint WHERE match_id = " + id +
           "::text AND last_seq = " + expected + "::bigint" + lease_held + " RETURNING match_id)";
  }
  const std::size_t events = std::min(batch.payloads.size(), kRowsPerStatement);
  sql += ", ev AS (INSERT INTO melee.events(match_id, seq, payload, prev_hash, hash, "
         "recorded_unix_ms) SELECT head.match_id, v.seq, v.payload, v.prev_hash, v.hash, v.ms "
         "FROM head, (VALUES ";
  EventRows(batch, hashes, first_prev, 0, events, placeholders, sql, first.params);
  sql += ") AS v(seq, payload, prev_hash, hash, ms) RETURNING 1)";
  const std::size_t notices = std::min(batch.notices.size(), kRowsPerStatement);
  if (notices > 0) {
    sql += ", notices AS (INSERT INTO melee.outbox(delivery_id, channel, match_id, seat, body, "
           "created_unix_ms, next_attempt_unix_ms) SELECT v.delivery_id, v.channel, v.match_id, "
           "v.seat, v.body, v.created, 0 FROM head, (VALUES ";
    NoticeRows(batch, 0, notices, placeholders, sql, first.params);
    sql += ") AS v(delivery_id, channel, match_id, seat, body, created) RETURNING 1)";
  }
  // One row: the events inserted, and (fenced) whether the lease was still this token's.
  sql += fenced ? " SELECT (SELECT count(*) FROM ev), (SELECT count(*) FROM lease)"
                : " SELECT count(*) FROM ev";

  // The statements after the first are sent before its answer (a pipeline): each inserts only
  // when the head is where the first one put it.
  auto moved_head = [&](Statement& more, Placeholders& numbers) {
    more.params.Text(batch.match_id).Int(static_cast<int64_t>(last_seq)).Bytes(hashes.back());
    const std::string match = numbers.Next();
    const std::string at = numbers.Next();
    const std::string head = numbers.Next();
    return "EXISTS (SELECT 1 FROM melee.matches WHERE match_id = " + match +
           "::text AND last_seq = " + at + "::bigint AND head_hash = " + head + "::bytea)";
  };
  for (std::size_t from = events; from < batch.payloads.size(); from += kRowsPerStatement) {
    Statement& more = statements.emplace_back();
    Placeholders numbers;
    const std::string condition = moved_head(more, numbers);
    more.sql = "INSERT INTO melee.events(match_id, seq, payload, prev_hash, hash, "
               "recorded_unix_ms) SELECT $1::text, v.* FROM (VALUES ";
    EventRows(batch, hashes, first_prev, from,
              std::min(from + kRowsPerStatement, batch.payloads.size()), numbers, more.sql,
              more.params);
    more.sql += ") AS v WHERE " + condition;
  }
  for (std::size_t from = notices; from < batch.notices.size(); from += kRowsPerStatement) {
    Statement& more = statements.emplace_back();
    Placeholders numbers;
    const std::string condition = moved_head(more, numbers);
    more.sql = "INSERT INTO melee.outbox(delivery_id, channel, match_id, seat, body, "
               "created_unix_ms, next_attempt_unix_ms) SELECT v.*, 0 FROM (VALUES ";
    NoticeRows(batch, from, std::min(from + kRowsPerStatement, batch.notices.size()), numbers,
               more.sql, more.params);
    more.sql += ") AS v WHERE " + condition;
  }
}

// Marks a match dormant at `seq` (AppendBatch::mark_dormant): holds only while `seq` is its last
// event, so it does nothing behind events that did not go in.
Statement MarkDormantStatement(const std::string& match_id, uint64_t seq, const std::string& note) {
  Statement mark;
  mark.sql =
      "UPDATE melee.matches SET dormant_seq = $2::bigint, dormant_note = $3::text "
      "WHERE match_id = $1::text AND last_seq = $2::bigint";
  mark.prepared_name = "mark_dormant";
  mark.params.Text(match_id).Int(static_cast<int64_t>(seq)).Text(note);
  return mark;
}

}  // namespace

GroupOutcome PostgresEventStore::Commit(std::deque<Pending>& work) {
  GroupOutcome outcome;
  std::vector<std::optional<StoreResult<Appended>>> results(work.size());
  for (std::size_t i = 0; i < work.size(); ++i) {
    const AppendBatch& batch = work[i].batch;
    if (batch.IsMarker() && !batch.match_id.empty()) continue;
    if (batch.match_id.empty() || batch.payloads.empty()) {
      results[i] =
          tl::unexpected(StoreError{StoreErrorCode::kInvalidArgument,
                                    batch.match_id.empty() ? "an append needs a match id"
                                                           : "an append needs at least one event",
                                    0});
    }
  }

  Connection& db = *writer_;
  // Each round plans every batch not decided yet against the heads it knows, and sends the
  // statements as one pipelined transaction. A batch whose own data the database refuses
  // (SQLSTATE 22 or 23: a delivery id taken, a row another writer holds) aborts the transaction:
  // that batch alone fails, and the next round writes the others. Each round decides at least
  // one batch, so this ends.
  bool retried = false;
  while (true) {
    std::vector<std::optional<StoreResult<Appended>>> round = results;
    std::map<std::string, Head, std::less<>> tentative;  // heads this transaction writes
    std::deque<Statement> statements;
    // What the statements point to: each planned batch's hashes and the hash it links to.
    std::deque<std::pair<std::vector<Hash>, Hash>> chains;
    const bool reused = db.connected();
    const uint64_t before = db.successes();
    struct Planned {
      std::size_t batch;
      std::size_t first_statement;
      bool marker;
    };
    std::vector<Planned> planned;
    std::size_t round_events = 0;
    std::optional<StoreError> failure;  // the connection or the server failed: every batch fails
    for (std::size_t i = 0; i < work.size() && !failure; ++i) {
      if (round[i]) continue;
      const AppendBatch& batch = work[i].batch;
      if (batch.IsMarker()) {
        // A marker (MarkDormant): holds only while expected_seq is the match's last event.
        planned.push_back({i, statements.size(), true});
        statements.push_back(
            MarkDormantStatement(batch.match_id, batch.expected_seq, batch.dormant_note));
        round[i] = Appended{0, batch.expected_seq, {}};
        continue;
      }
      Head head;
      if (auto it = tentative.find(batch.match_id); it != tentative.end()) {
        head = it->second;
      } else if (auto read = FreshHeadOf(batch.match_id, batch.expected_seq); read) {
        head = *read;
      } else if (read.error().code == StoreErrorCode::kCorrupt) {
        round[i] = tl::unexpected(read.error());
        continue;
      } else {
        failure = read.error();
        continue;
      }
      if (batch.expected_seq != head.seq) {
        round[i] = tl::unexpected(
            StoreError{StoreErrorCode::kConflict,
                       "match " + batch.match_id + " is at seq " + std::to_string(head.seq) +
                           ", not at the expected seq " + std::to_string(batch.expected_seq),
                       0});
        continue;
      }
      auto& [hashes, first_prev] = chains.emplace_back(std::vector<Hash>(), head.hash);
      if (batch.hashes.size() == batch.payloads.size() && batch.chained_from == head.hash) {
        hashes = batch.hashes;
      } else {
        hashes.reserve(batch.payloads.size());
        Hash link = head.hash;
        for (const std::string& payload : batch.payloads) {
          link = ChainHash(link, payload);
          hashes.push_back(link);
        }
      }
      planned.push_back({i, statements.size(), false});
      AppendStatements(batch, !head.exists, hashes, first_prev, statements);
      // The usual shapes (a few events and notices) are prepared once per connection: parsing
      // and planning the statement each time took most of a batch's time.
      if (batch.payloads.size() <= 8 && batch.notices.size() <= 4) {
        statements[planned.back().first_statement].prepared_name =
            std::string(head.exists ? "append_" : "begin_") +
            (batch.lease_token != 0 ? "fenced_" : "") +
            std::to_string(batch.payloads.size()) + "_" + std::to_string(batch.notices.size());
      }
      const uint64_t first_seq = head.seq + 1;
      head.exists = true;
      head.seq += batch.payloads.size();
      head.hash = hashes.back();
      if (batch.mark_dormant) {
        // In the same transaction, behind the events: holds only if they went in.
        statements.push_back(MarkDormantStatement(batch.match_id, head.seq, batch.dormant_note));
      }
      tentative[batch.match_id] = head;
      round_events += batch.payloads.size();
      round[i] = Appended{first_seq, head.seq, head.hash};
    }

    Connection::PipelineResult sent;
    if (!failure && !statements.empty()) {
      sent = db.Pipeline("cannot append to PostgreSQL", statements);
    }
    if ((failure || sent.error) && !retried && reused && db.lost() &&
        db.successes() == before && (failure || sent.failed_at == 0)) {
      // The connection broke before anything was answered on it: PostgreSQL restarted since
      // its last use, and nothing of this transaction was done. Once more on a new connection.
      retried = true;
      continue;
    }
    if (!failure && sent.error) {
      if (!db.lost() && db.BatchAlone() && sent.failed_at < statements.size()) {
        // That statement's batch fails alone; the next round writes the others.
        std::size_t culprit = planned.front().batch;
        for (const Planned& p : planned) {
          if (p.first_statement <= sent.failed_at) culprit = p.batch;
        }
        results[culprit] = tl::unexpected(*sent.error);
        heads_.erase(work[culprit].batch.match_id);
        continue;
      }
      failure = sent.error;
    }
    if (failure) {
      // Not known to be committed, so not acknowledged. (A commit whose answer was lost may
      // still have committed: the callers then see a conflict and re-read, never a loss.)
      heads_.clear();  // the database is the truth again
      outcome.transaction_failed = failure;
      for (auto& result : round) {
        if (!result || *result) result = tl::unexpected(*failure);
      }
      results = std::move(round);
      break;
    }
    // Committed. A batch whose compare-and-set found its head elsewhere (another writer
    // appended) wrote nothing; the batches after it on that match then found nothing either.
    // Nor did a batch whose lease token is no longer the match's.
    std::vector<std::size_t> fenced;
    std::set<std::string> stale;
    for (const Planned& p : planned) {
      if (p.marker) continue;
      const AppendBatch& batch = work[p.batch].batch;
      const PGresult* answer = sent.results[p.first_statement].get();
      if (postgres::Int(answer, 0, 0) > 0) continue;
      stale.insert(batch.match_id);
      round_events -= batch.payloads.size();
      if (batch.lease_token != 0 && postgres::Int(answer, 0, 1) == 0) {
        fenced.push_back(p.batch);
        continue;
      }
      round[p.batch] = tl::unexpected(StoreError{
          StoreErrorCode::kConflict,
          "match " + batch.match_id + " is no longer at the expected seq " +
              std::to_string(batch.expected_seq) + " in PostgreSQL (another writer appended)",
          0});
    }
    for (auto& [match_id, head] : tentative) {
      if (stale.contains(match_id)) {
        heads_.erase(match_id);
      } else {
        heads_[match_id] = head;
      }
    }
    // A batch whose lease moved on: refused, naming who holds the match now.
    for (std::size_t i : fenced) {
      const AppendBatch& batch = work[i].batch;
      StoreError why = Fenced(db, batch.match_id, options_.node_id, batch.lease_token);
      LeaseLost(batch.match_id, batch.lease_token, why);
      round[i] = tl::unexpected(std::move(why));
    }
    results = std::move(round);
    outcome.committed = true;
    outcome.events = round_events;
    break;
  }

  outcome.results.reserve(work.size());
  for (auto& result : results) {
    outcome.results.push_back(result ? std::move(*result)
                                     : tl::unexpected(StoreError{StoreErrorCode::kUnavailable,
                                                                 "the append was not attempted",
                                                                 0}));
  }
  return outcome;
}

std::size_t PostgresEventStore::commits() const { return group_->commits(); }

std::size_t PostgresEventStore::committed_events() const { return group_->committed_events(); }

// ---- leases -----------------------------------------------------------------------------------

StoreResult<Lease> PostgresEventStore::AcquireLease(std::string_view match_id) {
  const std::string id(match_id);
  if (id.empty()) {
    return tl::unexpected(
        StoreError{StoreErrorCode::kInvalidArgument, "a lease needs a match id", 0});
  }
  const std::string what = "cannot take the lease on match " + id;
  // A lease this store holds is returned as it is, so that what is queued under its token still
  // passes (two connections of one match may ask at once: the leaser's lock spans the look at
  // held_ and its update). A new match's lease starts at token 1; an expired or released one, or
  // this node's own from before a restart, is taken with the next token; another node's live
  // lease is left alone (no row returned).
  return WithConnection(leaser_mutex_, *leaser_, [&](Connection& db) -> StoreResult<Lease> {
    {
      std::lock_guard lock(held_mutex_);
      if (const auto it = held_.find(id); it != held_.end()) return it->second;
    }
    auto row = db.Exec(
        what,
        "INSERT INTO melee.leases AS l (match_id, node_id, token, expires_at) "
        "VALUES ($1::text, $2::text, 1, clock_timestamp() + $3::bigint * interval '1 ms') "
        "ON CONFLICT (match_id) DO UPDATE SET node_id = excluded.node_id, token = l.token + 1, "
        "expires_at = excluded.expires_at "
        "WHERE l.expires_at <= clock_timestamp() OR l.node_id = excluded.node_id "
        "RETURNING token, (EXTRACT(EPOCH FROM expires_at) * 1000)::bigint",
        Params().Text(id).Text(options_.node_id).Int(options_.lease_ms), "acquire_lease");
    if (!row) return tl::unexpected(row.error());
    if (PQntuples(row->get()) == 1) {
      const Lease taken{id, options_.node_id,
                        static_cast<uint64_t>(postgres::Int(row->get(), 0, 0)),
                        postgres::Int(row->get(), 0, 1)};
      std::lock_guard lock(held_mutex_);
      held_[id] = taken;
      tokens_[id] = taken.token;
      return taken;
    }
    auto holder = HolderOf(db, id, what);
    if (!holder) return tl::unexpected(holder.error());
    const std::string by =
        *holder ? "node " + (*holder)->node_id + " (token " + std::to_string((*holder)->token) +
                      "; its lease runs " + Seconds((*holder)->remaining_ms) + " more)"
                : std::string("another node");
    return tl::unexpected(StoreError{StoreErrorCode::kFenced,
                                     "match " + id + " is served by " + by + "; this node (" +
                                         options_.node_id +
                                         ") cannot take it before that lease expires or is "
                                         "released",
                                     0});
  });
}

StoreResult<void> PostgresEventStore::ReleaseLease(std::string_view match_id) {
  const std::string id(match_id);
  uint64_t token = 0;
  {
    std::lock_guard lock(held_mutex_);
    const auto it = held_.find(id);
    if (it == held_.end()) return {};
    token = it->second.token;
    held_.erase(it);
  }
  // The token stays in the row: the next holder's is greater. (Appends still queued under this
  // token pass until another node takes the lease.)
  const std::string what = "cannot release the lease on match " + id;
  return WithConnection(leaser_mutex_, *leaser_, [&](Connection& db) -> StoreResult<void> {
    return db
        .Exec(what,
              "UPDATE melee.leases SET expires_at = clock_timestamp() WHERE match_id = $1::text "
              "AND token = $2::bigint AND node_id = $3::text",
              Params().Text(id).Int(static_cast<int64_t>(token)).Text(options_.node_id),
              "release_lease")
        .map([](Result) {});
  });
}

std::optional<Lease> PostgresEventStore::HeldLease(std::string_view match_id) const {
  std::lock_guard lock(held_mutex_);
  const auto it = held_.find(match_id);
  if (it == held_.end()) return std::nullopt;
  return it->second;
}

uint64_t PostgresEventStore::TokenOf(const std::string& match_id) const {
  std::lock_guard lock(held_mutex_);
  const auto it = tokens_.find(match_id);
  return it == tokens_.end() ? 0 : it->second;
}

void PostgresEventStore::OnLeaseLost(LeaseLostCallback lost) {
  std::lock_guard lock(held_mutex_);
  lease_lost_ = std::move(lost);
}

StoreResult<void> PostgresEventStore::RenewLeases() {
  std::vector<Lease> held;
  {
    std::lock_guard lock(held_mutex_);
    for (const auto& [match_id, lease] : held_) held.push_back(lease);
  }
  if (held.empty()) return {};
  // One statement for every lease: "match_id US token RS match_id US token ...".
  std::string list;
  for (const Lease& lease : held) {
    if (!list.empty()) list += '\x1e';
    list += lease.match_id + '\x1f' + std::to_string(lease.token);
  }
  const std::string what = "cannot renew the leases of node " + options_.node_id;
  std::map<std::string, int64_t, std::less<>> renewed;  // match id -> new expiry
  std::vector<std::pair<Lease, StoreError>> lost;
  auto done = WithConnection(leaser_mutex_, *leaser_, [&](Connection& db) -> StoreResult<void> {
    auto rows = db.Exec(
        what,
        "UPDATE melee.leases AS l SET expires_at = clock_timestamp() + $3::bigint * "
        "interval '1 ms' FROM (SELECT split_part(x, chr(31), 1) COLLATE \"C\" AS match_id, "
        "split_part(x, chr(31), 2)::bigint AS token FROM string_to_table($2::text, chr(30)) "
        "AS x) AS h WHERE l.match_id = h.match_id AND l.token = h.token AND l.node_id = "
        "$1::text RETURNING l.match_id, (EXTRACT(EPOCH FROM l.expires_at) * 1000)::bigint",
        Params().Text(options_.node_id).Text(list).Int(options_.lease_ms), "renew_leases");
    if (!rows) return tl::unexpected(rows.error());
    for (int row = 0; row < PQntuples(rows->get()); ++row) {
      renewed[postgres::Bytes(rows->get(), row, 0)] = postgres::Int(rows->get(), row, 1);
    }
    for (const Lease& lease : held) {
      if (!renewed.contains(lease.match_id)) {
        lost.emplace_back(lease, Fenced(db, lease.match_id, options_.node_id, lease.token));
      }
    }
    return {};
  });
  if (!done) return done;
  {
    std::lock_guard lock(held_mutex_);
    for (const Lease& lease : held) {
      const auto it = held_.find(lease.match_id);
      const auto expiry = renewed.find(lease.match_id);
      if (it != held_.end() && it->second.token == lease.token && expiry != renewed.end()) {
        it->second.expires_unix_ms = expiry->second;
      }
    }
  }
  for (const auto& [lease, why] : lost) LeaseLost(lease.match_id, lease.token, why);
  return {};
}

void PostgresEventStore::LeaseLost(const std::string& match_id, uint64_t token,
                                   const StoreError& why) {
  Lease lost;
  LeaseLostCallback callback;
  {
    std::lock_guard lock(held_mutex_);
    const auto it = held_.find(match_id);
    if (it == held_.end() || it->second.token != token) return;  // released or taken again
    lost = it->second;
    held_.erase(it);
    callback = lease_lost_;
  }
  if (callback) callback(lost, why);
}

void PostgresEventStore::LeaseLoop() {
  const auto period = std::chrono::milliseconds(std::max<int64_t>(options_.lease_ms / 3, 10));
  std::unique_lock lock(held_mutex_);
  while (!lease_wake_.wait_for(lock, period, [this] { return lease_stopping_; })) {
    lock.unlock();
    // A failure (PostgreSQL unreachable) keeps the leases: the next round tries again, and an
    // append under a lease that moved on meanwhile is refused by the database anyway.
    (void)RenewLeases();
    lock.lock();
  }
}

// ---- reading ----------------------------------------------------------------------------------

StoreResult<std::vector<Event>> PostgresEventStore::Read(std::string_view match_id,
                                                         uint64_t after_seq, uint64_t limit) {
  const std::string id(match_id);
  const std::string what = "cannot read match " + id;
  // One statement, one snapshot: the head and the events come from the same committed state.
  auto read = WithReader([&](Connection& db) {
    return db.Exec(what,
                   "SELECT m.last_seq, m.head_hash, e.seq, e.payload, e.prev_hash, e.hash, "
                   "e.recorded_unix_ms FROM melee.matches m LEFT JOIN melee.events e "
                   "ON e.match_id = m.match_id AND e.seq >= $2::bigint "
                   "WHERE m.match_id = $1 ORDER BY e.seq",
                   Params().Text(id).Int(static_cast<int64_t>(after_seq)));
  });
  if (!read) return tl::unexpected(read.error());
  const PGresult* result = read->get();
  const int rows = PQntuples(result);
  if (rows == 0) {
    return tl::unexpected(
        StoreError{StoreErrorCode::kNotFound, "no match " + id + " in the log", 0});
  }
  const uint64_t last_seq = static_cast<uint64_t>(postgres::Int(result, 0, 0));
  if (after_seq > last_seq) {
    return tl::unexpected(StoreError{StoreErrorCode::kInvalidArgument,
                                     "match " + id + " has " + std::to_string(last_seq) +
                                         " events, none after seq " + std::to_string(after_seq),
                                     0});
  }
  Hash head_hash{};
  if (!HashColumn(result, 0, 1, head_hash)) {
    return tl::unexpected(Corrupt(id, last_seq, "the match's head hash is not 32 bytes"));
  }
  const bool none = PQgetisnull(result, 0, 2);  // no event at or after after_seq
  const auto missing = [&](uint64_t seq) {
    return tl::unexpected(Corrupt(id, seq, "the event is missing (removed from the log)"));
  };

  // Verify in seq order, so the first bad event is the one reported.
  std::vector<Event> events;
  Hash link = Genesis(id);
  uint64_t expected = 1;
  int row = 0;
  if (after_seq > 0) {
    // The anchor: the event the caller holds, checked on its own.
    if (none || static_cast<uint64_t>(postgres::Int(result, 0, 2)) != after_seq) {
      return missing(after_seq);
    }
    Hash prev{}, hash{};
    if (!HashColumn(result, 0, 4, prev) || !HashColumn(result, 0, 5, hash)) {
      return tl::unexpected(Corrupt(id, after_seq, "a stored hash is not 32 bytes"));
    }
    if (ChainHash(prev, postgres::Bytes(result, 0, 3)) != hash) {
      return tl::unexpected(Damaged(id, after_seq));
    }
    link = hash;
    expected = after_seq + 1;
    row = 1;
  }
  for (; !none && row < rows; ++row) {
    Event event;
    event.match_id = id;
    event.seq = static_cast<uint64_t>(postgres::Int(result, row, 2));
    if (event.seq > last_seq) {
      return tl::unexpected(
          Corrupt(id, event.seq, "an event lies after the match's recorded head (seq " +
                                     std::to_string(last_seq) + ")"));
    }
    if (event.seq != expected) return missing(expected);
    event.payload = postgres::Bytes(result, row, 3);
    if (!HashColumn(result, row, 4, event.prev_hash) || !HashColumn(result, row, 5, event.hash)) {
      return tl::unexpected(Corrupt(id, event.seq, "a stored hash is not 32 bytes"));
    }
    event.recorded_unix_ms = postgres::Int(result, row, 6);
    if (ChainHash(event.prev_hash, event.payload) != event.hash) {
      return tl::unexpected(Damaged(id, event.seq));
    }
    if (event.prev_hash != link) {
      return tl::unexpected(Corrupt(
          id, event.seq,
          expected == 1 ? "the first event does not start this match's chain"
                        : "the event does not link to seq " + std::to_string(expected - 1) +
                              " (removed, reordered or altered)"));
    }
    link = event.hash;
    ++expected;
    if (events.size() < limit) events.push_back(std::move(event));
  }
  if (expected != last_seq + 1) return missing(expected);
  if (link != head_hash) {
    return tl::unexpected(
        Corrupt(id, last_seq, "the match's recorded head does not match its last event"));
  }
  return events;
}

StoreResult<std::vector<MatchSummary>> PostgresEventStore::ListMatches() {
  const std::string what = "cannot list matches";
  auto listed = WithReader([&](Connection& db) {
    return db.Exec(what,
                   "SELECT match_id, last_seq, head_hash, last_recorded_unix_ms, "
                   "CASE WHEN dormant_seq = last_seq THEN 1 ELSE 0 END::bigint, dormant_note "
                   "FROM melee.matches ORDER BY match_id");
  });
  if (!listed) return tl::unexpected(listed.error());
  const PGresult* result = listed->get();
  std::vector<MatchSummary> matches;
  for (int row = 0; row < PQntuples(result); ++row) {
    MatchSummary summary;
    summary.match_id = postgres::Bytes(result, row, 0);
    summary.last_seq = static_cast<uint64_t>(postgres::Int(result, row, 1));
    if (!HashColumn(result, row, 2, summary.head)) {
      return tl::unexpected(
          Corrupt(summary.match_id, summary.last_seq, "the match's head hash is not 32 bytes"));
    }
    summary.last_recorded_unix_ms = postgres::Int(result, row, 3);
    summary.dormant = postgres::Int(result, row, 4) != 0;
    summary.dormant_note = postgres::Bytes(result, row, 5);
    matches.push_back(std::move(summary));
  }
  return matches;
}

// ---- snapshots --------------------------------------------------------------------------------

StoreResult<void> PostgresEventStore::SaveSnapshot(std::string_view match_id, uint64_t seq,
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
  const std::string what = "cannot save a snapshot of match " + std::string(match_id);
  return WithReader([&](Connection& db) -> StoreResult<void> {
    return db
        .Exec(what,
              "INSERT INTO melee.snapshots(match_id, seq, state, chain_hash, state_hash) "
              "VALUES ($1::text, $2::bigint, $3::bytea, $4::bytea, $5::bytea) "
              "ON CONFLICT (match_id, seq) DO UPDATE SET state = excluded.state, "
              "chain_hash = excluded.chain_hash, state_hash = excluded.state_hash",
              Params()
                  .Text(match_id)
                  .Int(static_cast<int64_t>(seq))
                  .Bytes(state)
                  .Bytes(chain_hash)
                  .Bytes(state_hash))
        .map([](Result) {});
  });
}

StoreResult<void> PostgresEventStore::DiscardSnapshot(std::string_view match_id, uint64_t seq,
                                                      std::string reason) {
  const std::string what = "cannot discard a snapshot of match " + std::string(match_id);
  // One statement: the snapshot leaves and its discard is recorded, or neither.
  return WithReader([&](Connection& db) -> StoreResult<void> {
    return db
        .Exec(what,
              "WITH removed AS (DELETE FROM melee.snapshots WHERE match_id = $1::text "
              "AND seq = $2::bigint) INSERT INTO melee.snapshot_discards(match_id, seq, reason) "
              "VALUES ($1::text, $2::bigint, $3::text)",
              Params().Text(match_id).Int(static_cast<int64_t>(seq)).Text(reason))
        .map([](Result) {});
  });
}

StoreResult<std::vector<std::pair<uint64_t, std::string>>> PostgresEventStore::SnapshotDiscards(
    std::string_view match_id) {
  const std::string what = "cannot read the snapshot discards of match " + std::string(match_id);
  auto read = WithReader([&](Connection& db) {
    return db.Exec(what,
                   "SELECT seq, reason FROM melee.snapshot_discards WHERE match_id = $1::text "
                   "ORDER BY id",
                   Params().Text(match_id));
  });
  if (!read) return tl::unexpected(read.error());
  std::vector<std::pair<uint64_t, std::string>> discards;
  for (int row = 0; row < PQntuples(read->get()); ++row) {
    discards.emplace_back(static_cast<uint64_t>(postgres::Int(read->get(), row, 0)),
                          postgres::Bytes(read->get(), row, 1));
  }
  return discards;
}

StoreResult<LoadedMatch> PostgresEventStore::Load(std::string_view match_id) {
  const std::string what = "cannot read the snapshots of match " + std::string(match_id);
  auto read = WithReader([&](Connection& db) {
    return db.Exec(what,
                   "SELECT seq, state, chain_hash, state_hash FROM melee.snapshots "
                   "WHERE match_id = $1::text ORDER BY seq DESC",
                   Params().Text(match_id));
  });
  if (!read) return tl::unexpected(read.error());
  const PGresult* result = read->get();

  LoadedMatch loaded;
  for (int row = 0; row < PQntuples(result); ++row) {
    Snapshot snapshot;
    Hash state_hash{};
    snapshot.seq = static_cast<uint64_t>(postgres::Int(result, row, 0));
    snapshot.state = postgres::Bytes(result, row, 1);
    const bool hashes_ok =
        HashColumn(result, row, 2, snapshot.chain_hash) && HashColumn(result, row, 3, state_hash);
    const uint64_t seq = snapshot.seq;
    std::string problem;
    if (!hashes_ok || ChainHash(Hash{}, snapshot.state) != state_hash) {
      problem = "its state bytes are damaged (checksum mismatch)";
    } else {
      auto at = Read(match_id, seq - 1, 1);
      if (!at || at->empty() || at->back().seq != seq) {
        problem = "event seq " + std::to_string(seq) + " cannot be read" +
                  (at ? std::string() : ": " + at.error().message);
      } else if (at->back().hash != snapshot.chain_hash) {
        problem = "it does not match the log (event seq " + std::to_string(seq) + " has hash " +
                  ToHex(at->back().hash) + ")";
      }
    }
    if (problem.empty()) {
      loaded.snapshot = std::move(snapshot);
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

// ---- health -----------------------------------------------------------------------------------

StoreResult<void> PostgresEventStore::Ping() {
  const std::string what = "the event store does not answer";
  return WithReader([&](Connection& db) -> StoreResult<void> {
    return db.Exec(what, "SELECT 1").map([](Result) {});
  });
}

WriteHealth PostgresEventStore::Writes() const { return group_->Health(); }

StoreResult<void> PostgresEventStore::ProbeWrite() {
  const uint64_t failures_before = group_->failures();
  const std::string what = "cannot write to PostgreSQL";
  auto probed = WithReader([&](Connection& db) -> StoreResult<void> {
    return db
        .Exec(what,
              "INSERT INTO melee.meta(key, value) VALUES ('write_probes', '1') "
              "ON CONFLICT (key) DO UPDATE SET value = (melee.meta.value::bigint + 1)::text")
        .map([](Result) {});
  });
  if (probed) group_->ProbeSucceeded(failures_before);
  return probed;
}

}  // namespace melee::persistence
