#pragma once

// One libpq connection of the PostgreSQL store, and what its statements need: parameters bound
// without copying, results in binary, and errors said so that a person running the server
// understands them. Private to persistence/postgres_*.cc.

#include <libpq-fe.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "persistence/event_store.h"
#include "persistence/postgres_event_store.h"

namespace melee::persistence::postgres {

// A statement's result; null only when libpq could not allocate one.
using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

// A statement's parameters. Strings and bytes are sent in binary format without a copy (each
// must outlive the statement and carry a cast or a column's type in the SQL); integers as text.
class Params {
 public:
  Params& Text(std::string_view value) { return Binary(value); }
  Params& Bytes(std::string_view value) { return Binary(value); }
  Params& Bytes(const Hash& hash) {
    return Binary({reinterpret_cast<const char*>(hash.data()), hash.size()});
  }
  Params& Int(int64_t value) {
    numbers_.push_back(std::to_string(value));
    values_.push_back(numbers_.back().c_str());
    lengths_.push_back(0);
    formats_.push_back(0);
    return *this;
  }

  int size() const { return static_cast<int>(values_.size()); }
  const char* const* values() const { return values_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  Params& Binary(std::string_view value) {
    values_.push_back(value.data());
    lengths_.push_back(static_cast<int>(value.size()));
    formats_.push_back(1);
    return *this;
  }

  std::deque<std::string> numbers_;  // a deque: the texts stay where they are
  std::vector<const char*> values_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
};

// One statement with its parameters (which point into what the caller keeps alive). With a
// `prepared_name`, the statement is prepared under that name once per connection and executed
// as prepared after (one name, one SQL text).
struct Statement {
  std::string sql;
  Params params;
  std::string prepared_name;
};

// Reads columns of a binary result.
int64_t Int(const PGresult* result, int row, int column);
std::string Bytes(const PGresult* result, int row, int column);
// Returns false when the column does not hold exactly 32 bytes.
bool HashColumn(const PGresult* result, int row, int column, Hash& out);

}  // namespace melee::persistence::postgres

namespace melee::persistence {

// Not thread-safe: one user at a time (the store's writer thread, or whoever holds its reader
// mutex).
class PostgresEventStore::Connection {
 public:
  Connection(std::string uri, std::string where, int connect_timeout_seconds);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Connects unless connected; a connection found broken is dropped and made again.
  StoreResult<void> Ensure(const std::string& what);

  // Runs `sql` (one statement, or several without parameters) and returns its result in binary
  // format, or the error, prefixed with `what`. A lost connection is dropped, so that the next
  // Ensure connects again. With a `prepared_name`, `sql` is prepared under that name the first
  // time on each connection and executed as prepared after (one name, one SQL text).
  StoreResult<postgres::Result> Exec(const std::string& what, const std::string& sql,
                                     const postgres::Params& params = {},
                                     const std::string& prepared_name = {});

  // What Pipeline did: the results of the statements that succeeded, in order, up to the first
  // failure; `failed_at` is that statement's index (statements.size(): the commit or the
  // connection failed), `error` what happened.
  struct PipelineResult {
    std::vector<postgres::Result> results;
    std::size_t failed_at = 0;
    std::optional<StoreError> error;
  };

  // Runs `statements` as one transaction in libpq's pipeline mode: sent without waiting for
  // each answer (answers are read every kPipelineWindow statements, so neither side's buffers
  // fill), committed by the pipeline's Sync. A statement that fails aborts the rest and the
  // transaction: nothing of it is committed.
  PipelineResult Pipeline(const std::string& what,
                          const std::deque<postgres::Statement>& statements);

  // Runs a script of statements without parameters (the simple protocol), e.g. the schema.
  StoreResult<void> Script(const std::string& what, const std::string& sql);

  // Statements that succeeded on this connection object since it was made (across reconnects):
  // a caller compares it before and after a failure to know whether anything was done.
  uint64_t successes() const { return successes_; }
  bool connected() const { return conn_ != nullptr; }
  // True when the last failure was the connection itself (lost, refused, PostgreSQL down).
  bool lost() const { return lost_; }
  // True when the last failure was about the statement's own data (SQLSTATE class 22, a data
  // exception, or 23, a constraint such as a delivery id taken): the other batches of its
  // transaction can be written without it. Not so for a full disk or a read-only server.
  bool BatchAlone() const {
    return !lost_ && (last_state_.starts_with("22") || last_state_.starts_with("23"));
  }

 private:
  StoreError Error(const PGresult* result, const std::string& what);
  void Drop();

  const std::string uri_;
  const std::string where_;
  const std::string timeout_;
  PGconn* conn_ = nullptr;
  uint64_t successes_ = 0;
  bool lost_ = false;
  std::string last_state_;  // the SQLSTATE of the last error
  std::set<std::string> prepared_;  // statements prepared on this connection
};

template <class F>
auto PostgresEventStore::WithReader(F&& body) {
  return WithConnection(reader_mutex_, *reader_, std::forward<F>(body));
}

template <class F>
auto PostgresEventStore::WithConnection(std::mutex& mutex, Connection& db, F&& body) {
  std::lock_guard lock(mutex);
  const bool reused = db.connected();
  const uint64_t before = db.successes();
  auto result = body(db);
  if (!result && reused && db.lost() && db.successes() == before) {
    // The connection had died while idle (PostgreSQL restarted): nothing was done on it.
    result = body(db);
  }
  return result;
}

}  // namespace melee::persistence
