// PostgresEventStore's webhooks, mail addresses and outbox (persistence/notification_store.h).
// The outbox rows themselves are inserted by the writer thread, in the statement that appends
// their events (postgres_event_store.cc); these small reads and writes use the reader
// connection, as snapshots do. Each is one statement, so each is atomic on its own.

#include <libpq-fe.h>

#include "persistence/postgres_connection.h"
#include "persistence/postgres_event_store.h"

namespace melee::persistence {
namespace {

using postgres::Params;
using postgres::Result;

constexpr const char* kNoticeColumns =
    "SELECT delivery_id, match_id, seat, body, created_unix_ms, attempts, next_attempt_unix_ms, "
    "channel FROM melee.outbox ";

std::vector<OutboxNotice> Notices(const PGresult* result) {
  std::vector<OutboxNotice> notices;
  for (int row = 0; row < PQntuples(result); ++row) {
    notices.push_back(
        OutboxNotice{.delivery_id = postgres::Bytes(result, row, 0),
                     .match_id = postgres::Bytes(result, row, 1),
                     .seat = postgres::Bytes(result, row, 2),
                     .body = postgres::Bytes(result, row, 3),
                     .channel = postgres::Bytes(result, row, 7),
                     .created_unix_ms = postgres::Int(result, row, 4),
                     .attempts = static_cast<uint32_t>(postgres::Int(result, row, 5)),
                     .next_attempt_unix_ms = postgres::Int(result, row, 6)});
  }
  return notices;
}

}  // namespace

StoreResult<void> PostgresEventStore::SetWebhook(const Webhook& webhook) {
  return WithReader([&](Connection& db) -> StoreResult<void> {
    return db
        .Exec("cannot store the webhook",
              "INSERT INTO melee.webhooks(match_id, seat, url, secret) "
              "VALUES ($1::text, $2::text, $3::text, $4::text) ON CONFLICT (match_id, seat) "
              "DO UPDATE SET url = excluded.url, secret = excluded.secret",
              Params().Text(webhook.match_id).Text(webhook.seat).Text(webhook.url).Text(
                  webhook.secret))
        .map([](Result) {});
  });
}

StoreResult<void> PostgresEventStore::RemoveWebhook(const std::string& match_id,
                                                    const std::string& seat) {
  return WithReader([&](Connection& db) -> StoreResult<void> {
    return db
        .Exec("cannot remove the webhook",
              "WITH notices AS (DELETE FROM melee.outbox WHERE match_id = $1::text "
              "AND seat = $2::text AND channel = 'webhook') "
              "DELETE FROM melee.webhooks WHERE match_id = $1::text AND seat = $2::text",
              Params().Text(match_id).Text(seat))
        .map([](Result) {});
  });
}

StoreResult<std::vector<Webhook>> PostgresEventStore::Webhooks() {
  auto read = WithReader([&](Connection& db) {
    return db.Exec("cannot read the webhooks",
                   "SELECT match_id, seat, url, secret FROM melee.webhooks "
                   "ORDER BY match_id, seat");
  });
  if (!read) return tl::unexpected(read.error());
  std::vector<Webhook> webhooks;
  for (int row = 0; row < PQntuples(read->get()); ++row) {
    webhooks.push_back(Webhook{.match_id = postgres::Bytes(read->get(), row, 0),
                               .seat = postgres::Bytes(read->get(), row, 1),
                               .url = postgres::Bytes(read->get(), row, 2),
                               .secret = postgres::Bytes(read->get(), row, 3)});
  }
  return webhooks;
}

StoreResult<void> PostgresEventStore::SetEmail(const EmailRegistration& email) {
  return WithReader([&](Connection& db) -> StoreResult<void> {
    return db
        .Exec("cannot store the mail address",
              "INSERT INTO melee.emails(match_id, seat, address, digest_minutes, token) "
              "VALUES ($1::text, $2::text, $3::text, $4::bigint, $5::text) "
              "ON CONFLICT (match_id, seat) DO UPDATE SET address = excluded.address, "
              "digest_minutes = excluded.digest_minutes, token = excluded.token",
              Params()
                  .Text(email.match_id)
                  .Text(email.seat)
                  .Text(email.address)
                  .Int(email.digest_minutes)
                  .Text(email.token))
        .map([](Result) {});
  });
}

StoreResult<void> PostgresEventStore::RemoveEmail(const std::string& match_id,
                                                  const std::string& seat) {
  return WithReader([&](Connection& db) -> StoreResult<void> {
    return db
        .Exec("cannot remove the mail address",
              "WITH notices AS (DELETE FROM melee.outbox WHERE match_id = $1::text "
              "AND seat = $2::text AND channel = 'email') "
              "DELETE FROM melee.emails WHERE match_id = $1::text AND seat = $2::text",
              Params().Text(match_id).Text(seat))
        .map([](Result) {});
  });
}

StoreResult<std::vector<EmailRegistration>> PostgresEventStore::Emails() {
  auto read = WithReader([&](Connection& db) {
    return db.Exec("cannot read the mail addresses",
                   "SELECT match_id, seat, address, digest_minutes, token, last_mailed_unix_ms, "
                   "last_mailed_seq FROM melee.emails ORDER BY match_id, seat");
  });
  if (!read) return tl::unexpected(read.error());
  const PGresult* result = read->get();
  std::vector<EmailRegistration> emails;
  for (int row = 0; row < PQntuples(result); ++row) {
    emails.push_back(EmailRegistration{
        .match_id = postgres::Bytes(result, row, 0),
        .seat = postgres::Bytes(result, row, 1),
        .address = postgres::Bytes(result, row, 2),
        .digest_minutes = static_cast<uint32_t>(postgres::Int(result, row, 3)),
        .token = postgres::Bytes(result, row, 4),
        .last_mailed_unix_ms = postgres::Int(result, row, 5),
        .last_mailed_seq = static_cast<uint64_t>(postgres::Int(result, row, 6))});
  }
  return emails;
}

StoreResult<void> PostgresEventStore::EmailSent(const std::string& match_id,
                                                const std::string& seat, int64_t unix_ms,
                                                uint64_t seq) {
  return WithReader([&](Connection& db) -> StoreResult<void> {
    return db
        .Exec("cannot record the mail sent",
              "UPDATE melee.emails SET last_mailed_unix_ms = $3::bigint, "
              "last_mailed_seq = greatest(last_mailed_seq, $4::bigint) "
              "WHERE match_id = $1::text AND seat = $2::text",
              Params().Text(match_id).Text(seat).Int(unix_ms).Int(static_cast<int64_t>(seq)))
        .map([](Result) {});
  });
}

StoreResult<std::vector<OutboxNotice>> PostgresEventStore::DueNotices(const std::string& channel,
                                                                      int64_t now_unix_ms,
                                                                      size_t limit) {
  auto read = WithReader([&](Connection& db) {
    return db.Exec("cannot read the outbox",
                   std::string(kNoticeColumns) +
                       "WHERE channel = $1::text AND next_attempt_unix_ms <= $2::bigint "
                       "ORDER BY id LIMIT $3::bigint",
                   Params().Text(channel).Int(now_unix_ms).Int(static_cast<int64_t>(limit)));
  });
  if (!read) return tl::unexpected(read.error());
  return Notices(read->get());
}

StoreResult<std::vector<OutboxNotice>> PostgresEventStore::SeatNotices(const std::string& channel,
                                                                       const std::string& match_id,
                                                                       const std::string& seat) {
  auto read = WithReader([&](Connection& db) {
    return db.Exec("cannot read the outbox",
                   std::string(kNoticeColumns) +
                       "WHERE channel = $1::text AND match_id = $2::text AND seat = $3::text "
                       "ORDER BY id",
                   Params().Text(channel).Text(match_id).Text(seat));
  });
  if (!read) return tl::unexpected(read.error());
  return Notices(read->get());
}

StoreResult<void> PostgresEventStore::NoticeDelivered(const std::string& delivery_id) {
  return WithReader([&](Connection& db) -> StoreResult<void> {
    return db
        .Exec("cannot mark notice " + delivery_id + " delivered",
              "DELETE FROM melee.outbox WHERE delivery_id = $1::text",
              Params().Text(delivery_id))
        .map([](Result) {});
  });
}

StoreResult<void> PostgresEventStore::NoticeFailed(const std::string& delivery_id,
                                                   uint32_t attempts, int64_t next_attempt_unix_ms,
                                                   const std::string& error) {
  return WithReader([&](Connection& db) -> StoreResult<void> {
    return db
        .Exec("cannot record a failed delivery of notice " + delivery_id,
              "UPDATE melee.outbox SET attempts = $2::bigint, next_attempt_unix_ms = $3::bigint, "
              "last_error = $4::text WHERE delivery_id = $1::text",
              Params().Text(delivery_id).Int(attempts).Int(next_attempt_unix_ms).Text(error))
        .map([](Result) {});
  });
}

StoreResult<OutboxStats> PostgresEventStore::Outbox(const std::string& channel) {
  auto read = WithReader([&](Connection& db) {
    return db.Exec("cannot read the outbox",
                   "SELECT count(*), coalesce(min(created_unix_ms), 0) FROM melee.outbox "
                   "WHERE channel = $1::text",
                   Params().Text(channel));
  });
  if (!read) return tl::unexpected(read.error());
  return OutboxStats{.pending = static_cast<uint64_t>(postgres::Int(read->get(), 0, 0)),
                     .oldest_created_unix_ms = postgres::Int(read->get(), 0, 1)};
}

}  // namespace melee::persistence
