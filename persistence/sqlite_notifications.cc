// SqliteEventStore's webhooks, mail addresses and outbox (persistence/notification_store.h). The
// outbox rows themselves are inserted by the writer thread, in the transaction of their events
// (sqlite_event_store.cc); these small reads and writes use the reader connection, as snapshots
// do, and wait for the writer's lock up to the busy timeout.

#include <sqlite3.h>

#include <mutex>

#include "persistence/sqlite_event_store.h"
#include "persistence/sqlite_statement.h"

namespace melee::persistence {
namespace {

using sqlite::Statement;

StoreError Failed(sqlite3* db, int rc, const std::string& what) {
  return StoreError{StoreErrorCode::kUnavailable,
                    what + ": " + sqlite3_errstr(rc) + " (" + sqlite3_errmsg(db) + ")", 0};
}

// Runs one statement that changes rows; `bind` binds its parameters.
template <class Bind>
StoreResult<void> Change(sqlite3* db, const char* sql, const std::string& what, Bind&& bind) {
  Statement statement(db, sql);
  if (!statement.ok()) return tl::unexpected(Failed(db, statement.rc(), what));
  bind(statement);
  if (const int rc = statement.Step(); rc != SQLITE_DONE) {
    return tl::unexpected(Failed(db, rc, what));
  }
  return {};
}

// Deletes the registration of (match_id, seat) from `table` and its notices of `channel` from the
// outbox, in one transaction.
StoreResult<void> RemoveRegistration(sqlite3* db, const std::string& table,
                                     const std::string& channel, const std::string& match_id,
                                     const std::string& seat, const std::string& what) {
  if (const int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
      rc != SQLITE_OK) {
    return tl::unexpected(Failed(db, rc, what));
  }
  const auto bind = [&](Statement& s) {
    s.Bind(1, match_id);
    s.Bind(2, seat);
  };
  const std::string remove = "DELETE FROM " + table + " WHERE match_id = ?1 AND seat = ?2";
  auto removed = Change(db, remove.c_str(), what, bind);
  if (removed) {
    removed = Change(db, "DELETE FROM outbox WHERE match_id = ?1 AND seat = ?2 AND channel = ?3",
                     what, [&](Statement& s) {
                       bind(s);
                       s.Bind(3, channel);
                     });
  }
  if (removed) {
    if (const int rc = sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr); rc != SQLITE_OK) {
      removed = tl::unexpected(Failed(db, rc, what));
    }
  }
  if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  return removed;
}

}  // namespace

StoreResult<void> SqliteEventStore::SetWebhook(const Webhook& webhook) {
  std::lock_guard lock(reader_mutex_);
  return Change(reader_,
                "INSERT INTO webhooks(match_id, seat, url, secret) VALUES (?1, ?2, ?3, ?4) "
                "ON CONFLICT(match_id, seat) DO UPDATE SET url = ?3, secret = ?4",
                "cannot store the webhook", [&](Statement& s) {
                  s.Bind(1, webhook.match_id);
                  s.Bind(2, webhook.seat);
                  s.Bind(3, webhook.url);
                  s.Bind(4, webhook.secret);
                });
}

StoreResult<void> SqliteEventStore::RemoveWebhook(const std::string& match_id,
                                                  const std::string& seat) {
  std::lock_guard lock(reader_mutex_);
  return RemoveRegistration(reader_, "webhooks", kWebhookChannel, match_id, seat,
                            "cannot remove the webhook");
}

StoreResult<std::vector<Webhook>> SqliteEventStore::Webhooks() {
  std::lock_guard lock(reader_mutex_);
  const std::string what = "cannot read the webhooks";
  Statement select(reader_, "SELECT match_id, seat, url, secret FROM webhooks");
  if (!select.ok()) return tl::unexpected(Failed(reader_, select.rc(), what));
  std::vector<Webhook> webhooks;
  int rc;
  while ((rc = select.Step()) == SQLITE_ROW) {
    webhooks.push_back(Webhook{.match_id = select.Text(0),
                               .seat = select.Text(1),
                               .url = select.Text(2),
                               .secret = select.Text(3)});
  }
  if (rc != SQLITE_DONE) return tl::unexpected(Failed(reader_, rc, what));
  return webhooks;
}

StoreResult<void> SqliteEventStore::SetEmail(const EmailRegistration& email) {
  std::lock_guard lock(reader_mutex_);
  return Change(reader_,
                "INSERT INTO emails(match_id, seat, address, digest_minutes, token) "
                "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(match_id, seat) DO UPDATE SET "
                "address = ?3, digest_minutes = ?4, token = ?5",
                "cannot store the mail address", [&](Statement& s) {
                  s.Bind(1, email.match_id);
                  s.Bind(2, email.seat);
                  s.Bind(3, email.address);
                  s.Bind(4, static_cast<int64_t>(email.digest_minutes));
                  s.Bind(5, email.token);
                });
}

StoreResult<void> SqliteEventStore::RemoveEmail(const std::string& match_id,
                                                const std::string& seat) {
  std::lock_guard lock(reader_mutex_);
  return RemoveRegistration(reader_, "emails", kEmailChannel, match_id, seat,
                            "cannot remove the mail address");
}

StoreResult<std::vector<EmailRegistration>> SqliteEventStore::Emails() {
  std::lock_guard lock(reader_mutex_);
  const std::string what = "cannot read the mail addresses";
  Statement select(reader_,
                   "SELECT match_id, seat, address, digest_minutes, token, last_mailed_unix_ms, "
                   "last_mailed_seq FROM emails");
  if (!select.ok()) return tl::unexpected(Failed(reader_, select.rc(), what));
  std::vector<EmailRegistration> emails;
  int rc;
  while ((rc = select.Step()) == SQLITE_ROW) {
    emails.push_back(
        EmailRegistration{.match_id = select.Text(0),
                          .seat = select.Text(1),
                          .address = select.Text(2),
                          .digest_minutes = static_cast<uint32_t>(select.Int(3)),
                          .token = select.Text(4),
                          .last_mailed_unix_ms = select.Int(5),
                          .last_mailed_seq = static_cast<uint64_t>(select.Int(6))});
  }
  if (rc != SQLITE_DONE) return tl::unexpected(Failed(reader_, rc, what));
  return emails;
}

StoreResult<void> SqliteEventStore::EmailSent(const std::string& match_id,
                                              const std::string& seat, int64_t unix_ms,
                                              uint64_t seq) {
  std::lock_guard lock(reader_mutex_);
  return Change(reader_,
                "UPDATE emails SET last_mailed_unix_ms = ?3, "
                "last_mailed_seq = max(last_mailed_seq, ?4) WHERE match_id = ?1 AND seat = ?2",
                "cannot record the mail sent", [&](Statement& s) {
                  s.Bind(1, match_id);
                  s.Bind(2, seat);
                  s.Bind(3, unix_ms);
                  s.Bind(4, static_cast<int64_t>(seq));
                });
}

namespace {

constexpr const char* kNoticeColumns =
    "SELECT delivery_id, match_id, seat, body, created_unix_ms, attempts, next_attempt_unix_ms, "
    "channel FROM outbox ";

// Reads the notices `select` (of kNoticeColumns) returns.
StoreResult<std::vector<OutboxNotice>> ReadNotices(sqlite3* db, Statement& select) {
  std::vector<OutboxNotice> notices;
  int rc;
  while ((rc = select.Step()) == SQLITE_ROW) {
    notices.push_back(OutboxNotice{.delivery_id = select.Text(0),
                                   .match_id = select.Text(1),
                                   .seat = select.Text(2),
                                   .body = select.Text(3),
                                   .channel = select.Text(7),
                                   .created_unix_ms = select.Int(4),
                                   .attempts = static_cast<uint32_t>(select.Int(5)),
                                   .next_attempt_unix_ms = select.Int(6)});
  }
  if (rc != SQLITE_DONE) return tl::unexpected(Failed(db, rc, "cannot read the outbox"));
  return notices;
}

}  // namespace

StoreResult<std::vector<OutboxNotice>> SqliteEventStore::DueNotices(const std::string& channel,
                                                                    int64_t now_unix_ms,
                                                                    size_t limit) {
  std::lock_guard lock(reader_mutex_);
  const std::string sql = std::string(kNoticeColumns) +
                          "WHERE channel = ?1 AND next_attempt_unix_ms <= ?2 ORDER BY id LIMIT ?3";
  Statement select(reader_, sql.c_str());
  if (!select.ok()) return tl::unexpected(Failed(reader_, select.rc(), "cannot read the outbox"));
  select.Bind(1, channel);
  select.Bind(2, now_unix_ms);
  select.Bind(3, static_cast<int64_t>(limit));
  return ReadNotices(reader_, select);
}

StoreResult<std::vector<OutboxNotice>> SqliteEventStore::SeatNotices(const std::string& channel,
                                                                     const std::string& match_id,
                                                                     const std::string& seat) {
  std::lock_guard lock(reader_mutex_);
  const std::string sql = std::string(kNoticeColumns) +
                          "WHERE channel = ?1 AND match_id = ?2 AND seat = ?3 ORDER BY id";
  Statement select(reader_, sql.c_str());
  if (!select.ok()) return tl::unexpected(Failed(reader_, select.rc(), "cannot read the outbox"));
  select.Bind(1, channel);
  select.Bind(2, match_id);
  select.Bind(3, seat);
  return ReadNotices(reader_, select);
}

StoreResult<void> SqliteEventStore::NoticeDelivered(const std::string& delivery_id) {
  std::lock_guard lock(reader_mutex_);
  return Change(reader_, "DELETE FROM outbox WHERE delivery_id = ?1",
                "cannot mark notice " + delivery_id + " delivered",
                [&](Statement& s) { s.Bind(1, delivery_id); });
}

StoreResult<void> SqliteEventStore::NoticeFailed(const std::string& delivery_id,
                                                 uint32_t attempts, int64_t next_attempt_unix_ms,
                                                 const std::string& error) {
  std::lock_guard lock(reader_mutex_);
  return Change(reader_,
                "UPDATE outbox SET attempts = ?2, next_attempt_unix_ms = ?3, last_error = ?4 "
                "WHERE delivery_id = ?1",
                "cannot record a failed delivery of notice " + delivery_id, [&](Statement& s) {
                  s.Bind(1, delivery_id);
                  s.Bind(2, static_cast<int64_t>(attempts));
                  s.Bind(3, next_attempt_unix_ms);
                  s.Bind(4, error);
                });
}

StoreResult<OutboxStats> SqliteEventStore::Outbox(const std::string& channel) {
  std::lock_guard lock(reader_mutex_);
  const std::string what = "cannot read the outbox";
  Statement select(reader_,
                   "SELECT count(*), coalesce(min(created_unix_ms), 0) FROM outbox "
                   "WHERE channel = ?1");
  if (!select.ok()) return tl::unexpected(Failed(reader_, select.rc(), what));
  select.Bind(1, channel);
  if (const int rc = select.Step(); rc != SQLITE_ROW) {
    return tl::unexpected(Failed(reader_, rc, what));
  }
  return OutboxStats{.pending = static_cast<uint64_t>(select.Int(0)),
                     .oldest_created_unix_ms = select.Int(1)};
}

}  // namespace melee::persistence
