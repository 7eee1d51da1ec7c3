#pragma once

// Internal to persistence/: one prepared SQLite statement, owned (sqlite_event_store.cc and
// sqlite_notifications.cc share it).

#include <sqlite3.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "persistence/event_store.h"

namespace melee::persistence::sqlite {

// SQLITE_STATIC without its C-style cast: the bound data outlives the statement's step.
const sqlite3_destructor_type kStatic = nullptr;

// Owns one prepared statement.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
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
  sqlite3_stmt* statement_ = nullptr;
  int rc_;
};

}  // namespace melee::persistence::sqlite
