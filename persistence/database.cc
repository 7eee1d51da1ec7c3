#include "persistence/database.h"

#include <sqlite3.h>

#include <charconv>
#include <system_error>
#include <utility>

namespace melee::persistence {

Database::Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

Database::~Database() { sqlite3_close_v2(db_); }

StoreError Database::Error(const std::string& what) const {
  return StoreError{what + " (" + path_ + "): " + sqlite3_errmsg(db_)};
}

StoreResult<void> Database::Exec(const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    return tl::unexpected(StoreError{"SQLite error on " + path_ + ": " + text});
  }
  return {};
}

StoreResult<std::string> Database::QueryText(const char* sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, sql, -1, &statement, nullptr) != SQLITE_OK) {
    return tl::unexpected(Error("cannot prepare query"));
  }
  std::string value;
  const int rc = sqlite3_step(statement);
  if (rc == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(statement, 0);
    value = text ? reinterpret_cast<const char*>(text) : "";
  } else if (rc != SQLITE_DONE) {
    StoreError error = Error("query failed");
    sqlite3_finalize(statement);
    return tl::unexpected(std::move(error));
  }
  sqlite3_finalize(statement);
  return value;
}

StoreResult<std::unique_ptr<Database>> Database::Open(const std::string& path) {
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  std::unique_ptr<Database> db(new Database(raw, path));
  if (rc != SQLITE_OK) return tl::unexpected(db->Error("cannot open database"));
  sqlite3_busy_timeout(raw, 5000);
  sqlite3_extended_result_codes(raw, 1);

  // WAL + synchronous=FULL: a committed transaction survives a crash or power loss.
  if (auto ok = db->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; "
                         "PRAGMA foreign_keys=ON;");
      !ok) {
    return tl::unexpected(ok.error());
  }
  if (auto ok = db->Exec("BEGIN IMMEDIATE;"
                         "CREATE TABLE IF NOT EXISTS meta ("
                         "  key TEXT PRIMARY KEY NOT NULL,"
                         "  value TEXT NOT NULL) STRICT;"
                         "INSERT OR IGNORE INTO meta(key, value) VALUES ('format_version', '1');"
                         "INSERT OR IGNORE INTO meta(key, value) VALUES ('application', 'melee');"
                         "COMMIT;");
      !ok) {
    (void)db->Exec("ROLLBACK;");
    return tl::unexpected(
        StoreError{"cannot initialise " + path + " as a Melee database: " + ok.error().message});
  }
  auto application = db->QueryText("SELECT value FROM meta WHERE key = 'application'");
  if (!application) return tl::unexpected(application.error());
  if (*application != "melee") {
    return tl::unexpected(
        StoreError{path + " is a SQLite file of another application ('" + *application + "')"});
  }
  auto version = db->ReadFormatVersion();
  if (!version) return tl::unexpected(version.error());
  if (*version > kFormatVersion) {
    return tl::unexpected(StoreError{path + " has on-disk format version " +
                                     std::to_string(*version) + "; this build reads up to " +
                                     std::to_string(kFormatVersion) + ": upgrade Melee"});
  }
  return db;
}

StoreResult<std::unique_ptr<Database>> Database::OpenDataDirectory(
    const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return tl::unexpected(
        StoreError{"cannot create data directory " + dir.string() + ": " + ec.message()});
  }
  return Open((dir / kDatabaseFileName).string());
}

StoreResult<void> Database::Ping() {
  std::lock_guard lock(mutex_);
  auto one = QueryText("SELECT 1");
  if (!one) return tl::unexpected(one.error());
  return {};
}

StoreResult<std::string> Database::JournalMode() {
  std::lock_guard lock(mutex_);
  return QueryText("PRAGMA journal_mode");
}

StoreResult<int> Database::FormatVersion() {
  std::lock_guard lock(mutex_);
  return ReadFormatVersion();
}

StoreResult<int> Database::ReadFormatVersion() {
  auto text = QueryText("SELECT value FROM meta WHERE key = 'format_version'");
  if (!text) return tl::unexpected(text.error());
  int version = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, version);
  if (ec != std::errc() || ptr != end) {
    return tl::unexpected(StoreError{path_ + " has an unreadable format_version '" + *text + "'"});
  }
  return version;
}

}  // namespace melee::persistence
