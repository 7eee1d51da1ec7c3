// The notification tables of the SQLite store (persistence/notification_store.h): a batch's
// notices are durable exactly when its events are, delivered ones leave, failed ones wait for
// their retry, and removing a webhook drops its notices.

#include <gtest/gtest.h>

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
  auto due = outbox.DueNotices(2000, 10);
  ASSERT_TRUE(due);
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ(due->front().delivery_id, "a");
  EXPECT_EQ(due->front().body, "{\"delivery_id\":\"a\"}");
  EXPECT_EQ(outbox.Outbox()->pending, 1u);
  EXPECT_EQ(outbox.Outbox()->oldest_created_unix_ms, 1000);
}

TEST(OutboxTest, FailedNoticesWaitForTheirRetryAndDeliveredOnesLeave) {
  auto store = SqliteEventStore::Open(":memory:");
  ASSERT_TRUE(store);
  ASSERT_TRUE((*store)->AppendAndWait(Batch(0, {Notice("a"), Notice("b")})));
  NotificationStore& outbox = *(*store)->notifications();
  ASSERT_TRUE(outbox.NoticeFailed("a", 1, 5000, "refused"));
  auto due = outbox.DueNotices(2000, 10);
  ASSERT_TRUE(due);
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ(due->front().delivery_id, "b");
  due = outbox.DueNotices(5000, 10);
  ASSERT_EQ(due->size(), 2u);
  EXPECT_EQ(due->front().attempts, 1u);
  ASSERT_TRUE(outbox.NoticeDelivered("b"));
  EXPECT_EQ(outbox.Outbox()->pending, 1u);
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
  EXPECT_EQ(outbox.Outbox()->pending, 0u);
}

}  // namespace
}  // namespace melee::persistence
