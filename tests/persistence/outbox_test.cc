// The notification tables of the SQLite store (persistence/notification_store.h): a batch's
// notices are durable exactly when its events are, delivered ones leave, failed ones wait for
// their retry, and removing a webhook drops its notices.

#include <gtest/gtest.h>

#include <sqlite3.h>

#include "persistence/sqlite_event_store.h"
#include "tests/testing/temp_dir.h"

namespace melee::persistence {
namespace {

OutboxNotice Notice(const std::string& id) {
  return OutboxNotice{.delivery_id = id,
                      .match_id = "m1",
                      .seat = "side_a",
                      .body = "{\"delivery_id\":\"" + id + "\"}",
                      .created_unix_ms = 1000,
                      .attempts = 0,
                      .next_attempt_unix_ms = 0};
}

AppendBatch Batch(uint64_t expected_seq, std::vector<OutboxNotice> notices) {
  AppendBatch batch;
  batch.match_id = "m1";
  batch.expected_seq = expected_seq;
  batch.payloads = {"event"};
  batch.recorded_unix_ms = 1000;
  batch.notices = std::move(notices);
  return batch;
}

TEST(OutboxTest, NoticesAreDurableExactlyWithTheirEvents) {
  testing::TempDir dir;
  {
    auto store = SqliteEventStore::OpenDataDirectory(dir.path());
    ASSERT_TRUE(store) << store.error().message;
    ASSERT_TRUE((*store)->AppendAndWait(Batch(0, {Notice("a")})));
    // A stale batch writes neither its events nor its notices.
    auto stale = (*store)->AppendAndWait(Batch(0, {Notice("b")}));
    ASSERT_FALSE(stale);
    EXPECT_EQ(stale.error().code, StoreErrorCode::kConflict);
  }
  auto store = SqliteEventStore::OpenDataDirectory(dir.path());
  ASSERT_TRUE(store);
  NotificationStore& outbox = *(*store)->notifications();
  auto due = outbox.DueNotices(kWebhookChannel, 2000, 10);
  ASSERT_TRUE(due);
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ(due->front().delivery_id, "a");
  EXPECT_EQ(due->front().body, "{\"delivery_id\":\"a\"}");
  EXPECT_EQ(outbox.Outbox(kWebhookChannel)->pending, 1u);
  EXPECT_EQ(outbox.Outbox(kWebhookChannel)->oldest_created_unix_ms, 1000);
}

TEST(OutboxTest, FailedNoticesWaitForTheirRetryAndDeliveredOnesLeave) {
  auto store = SqliteEventStore::Open(":memory:");
  ASSERT_TRUE(store);
  ASSERT_TRUE((*store)->AppendAndWait(Batch(0, {Notice("a"), Notice("b")})));
  NotificationStore& outbox = *(*store)->notifications();
  ASSERT_TRUE(outbox.NoticeFailed("a", 1, 5000, "refused"));
  auto due = outbox.DueNotices(kWebhookChannel, 2000, 10);
  ASSERT_TRUE(due);
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ(due->front().delivery_id, "b");
  due = outbox.DueNotices(kWebhookChannel, 5000, 10);
  ASSERT_EQ(due->size(), 2u);
  EXPECT_EQ(due->front().attempts, 1u);
  ASSERT_TRUE(outbox.NoticeDelivered("b"));
  EXPECT_EQ(outbox.Outbox(kWebhookChannel)->pending, 1u);
}

TEST(OutboxTest, RemovingAWebhookDropsItsNotices) {
  auto store = SqliteEventStore::Open(":memory:");
  ASSERT_TRUE(store);
  NotificationStore& outbox = *(*store)->notifications();
  ASSERT_TRUE(outbox.SetWebhook({"m1", "side_a", "https://a.example/1", "s1"}));
  ASSERT_TRUE(outbox.SetWebhook({"m1", "side_a", "https://a.example/2", "s2"}));
  auto webhooks = outbox.Webhooks();
  ASSERT_TRUE(webhooks);
  ASSERT_EQ(webhooks->size(), 1u);
  EXPECT_EQ(webhooks->front().url, "https://a.example/2");
  EXPECT_EQ(webhooks->front().secret, "s2");
  ASSERT_TRUE((*store)->AppendAndWait(Batch(0, {Notice("a")})));
  ASSERT_TRUE(outbox.RemoveWebhook("m1", "side_a"));
  EXPECT_TRUE(outbox.Webhooks()->empty());
  EXPECT_EQ(outbox.Outbox(kWebhookChannel)->pending, 0u);
}

TEST(OutboxTest, MailNoticesAreKeptApartFromWebhookNotices) {
  auto store = SqliteEventStore::Open(":memory:");
  ASSERT_TRUE(store);
  NotificationStore& outbox = *(*store)->notifications();
  ASSERT_TRUE(outbox.SetEmail({.match_id = "m1",
                               .seat = "side_a",
                               .address = "alice@example.org",
                               .digest_minutes = 10,
                               .token = "t"}));
  OutboxNotice mail = Notice("mail");
  mail.channel = kEmailChannel;
  ASSERT_TRUE((*store)->AppendAndWait(Batch(0, {Notice("hook"), mail})));
  EXPECT_EQ(outbox.DueNotices(kWebhookChannel, 2000, 10)->size(), 1u);
  auto mails = outbox.DueNotices(kEmailChannel, 2000, 10);
  ASSERT_EQ(mails->size(), 1u);
  EXPECT_EQ(mails->front().channel, kEmailChannel);
  EXPECT_EQ(outbox.SeatNotices(kEmailChannel, "m1", "side_a")->size(), 1u);
  ASSERT_TRUE(outbox.EmailSent("m1", "side_a", 5000, 7));
  auto emails = outbox.Emails();
  ASSERT_EQ(emails->size(), 1u);
  EXPECT_EQ(emails->front().address, "alice@example.org");
  EXPECT_EQ(emails->front().digest_minutes, 10u);
  EXPECT_EQ(emails->front().last_mailed_unix_ms, 5000);
  EXPECT_EQ(emails->front().last_mailed_seq, 7u);
  // Removing the address drops its mails, not the webhook's notices.
  ASSERT_TRUE(outbox.RemoveEmail("m1", "side_a"));
  EXPECT_TRUE(outbox.Emails()->empty());
  EXPECT_EQ(outbox.Outbox(kEmailChannel)->pending, 0u);
  EXPECT_EQ(outbox.Outbox(kWebhookChannel)->pending, 1u);
}

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
