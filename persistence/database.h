#pragma once

// The embedded SQLite database behind a data directory.
//
// Opens (or creates) the file, switches it to WAL with synchronous=FULL (an acknowledged write is
// on disk), and checks the on-disk format version; see persistence/FORMAT.md once the event store
// lands. Thread-safe: one connection guarded by a mutex.

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <tl/expected.hpp>

struct sqlite3;

namespace melee::persistence {

// A storage failure, said so a person running the server understands it.
struct StoreError {
  std::string message;
};

template <class T>
using StoreResult = tl::expected<T, StoreError>;

// The on-disk format version this build reads and writes.
inline constexpr int kFormatVersion = 1;

// The name of the database file inside a data directory.
inline constexpr const char* kDatabaseFileName = "melee.db";

class Database {
 public:
  // Opens the database at `path` (":memory:" for an in-memory database), creating it and its
  // schema if needed. Fails with a clear message on a file that is not a Melee database, a newer
  // format version, a read-only location, or any SQLite error.
  static StoreResult<std::unique_ptr<Database>> Open(const std::string& path);

  // Opens `<data_dir>/melee.db`, creating the directory if needed.
  static StoreResult<std::unique_ptr<Database>> OpenDataDirectory(const std::filesystem::path& dir);

  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs a trivial query: true when the database answers (used by GET /healthz).
  StoreResult<void> Ping();

  // Returns the journal mode in force ("wal" for a file, "memory" for :memory:).
  StoreResult<std::string> JournalMode();

  // Returns the on-disk format version recorded in the file.
  StoreResult<int> FormatVersion();

  const std::string& path() const { return path_; }

 private:
  Database(sqlite3* db, std::string path);

  StoreResult<void> Exec(const char* sql);
  StoreResult<int> ReadFormatVersion();
  StoreResult<std::string> QueryText(const char* sql);
  StoreError Error(const std::string& what) const;

  std::mutex mutex_;
  sqlite3* db_;  // owned; closed by the destructor
  std::string path_;
};

}  // namespace melee::persistence
