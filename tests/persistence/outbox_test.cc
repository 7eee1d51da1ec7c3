// The notification tables of the SQLite store (persistence/notification_store.h) that only SQLite
// has: the migration of a format 1 file. What every store does with notices (durable exactly
// with their events, retries, removal) is in event_store_contract_test.cc.

#include <gtest/gtest.h>

#include <sqlite3.h>

#include "persistence/sqlite_event_store.h"
#include "tests/testing/temp_dir.h"

namespace melee::persistence {
namespace {

// A store of format 1 (before mail) holds an outbox without channels: opening it migrates it,
// and its notices stay webhook notices.
TEST(OutboxTest, AFormatOneOutboxIsMigratedAndItsNoticesStayWebhookNotices) {
  testing::TempDir dir;
  const std::string path = (dir.path() / kDatabaseFileName).string();
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) "
                           "STRICT;"
                           "INSERT INTO meta VALUES ('application', 'melee'), "
                           "('format_version', '1');"
                           "CREATE TABLE outbox (id INTEGER PRIMARY KEY, delivery_id TEXT NOT NULL "
                           "UNIQUE, match_id TEXT NOT NULL, seat TEXT NOT NULL, body TEXT NOT "
                           "NULL, created_unix_ms INTEGER NOT NULL, attempts INTEGER NOT NULL "
                           "DEFAULT 0, next_attempt_unix_ms INTEGER NOT NULL, last_error TEXT NOT "
                           "NULL DEFAULT '') STRICT;"
                           "INSERT INTO outbox(delivery_id, match_id, seat, body, "
                           "created_unix_ms, next_attempt_unix_ms) "
                           "VALUES ('old', 'm1', 'side_a', '{}', 1000, 0);",
                           nullptr, nullptr, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  auto store = SqliteEventStore::Open(path);
  ASSERT_TRUE(store) << store.error().message;
  NotificationStore& outbox = *(*store)->notifications();
  auto due = outbox.DueNotices(kWebhookChannel, 2000, 10);
  ASSERT_TRUE(due) << due.error().message;
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ(due->front().delivery_id, "old");
  EXPECT_TRUE(outbox.DueNotices(kEmailChannel, 2000, 10)->empty());
  EXPECT_TRUE(outbox.Emails()->empty());
  store->reset();
  // Opening again finds format 2 and migrates nothing twice.
  auto again = SqliteEventStore::Open(path);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ((*again)->notifications()->Outbox(kWebhookChannel)->pending, 1u);
}

}  // namespace
}  // namespace melee::persistence
