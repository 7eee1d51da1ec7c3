#pragma once

// Sends the outbox's email notices (docs/notifications.md) through an SMTP relay with libcurl, on
// a thread of its own, so that a slow or dead relay never holds up a match. Each mail is written
// when it is sent (server/notify/mail_text.h): the seat's view and the events since its last
// mail, its match file exported now and its seat file attached. The relay's 250 to the message
// removes its notices; anything else (refused, timed out, 4xx, 5xx) is retried with the
// webhooks' exponential backoff (capped). At least once: a mail may arrive twice; its Message-ID,
// made from the delivery id, is the same every time, so mail programs show it once.
//
// A seat with a digest (digest_minutes N) gets at most one mail per N minutes: a notice that
// falls due inside the window waits for its end, and the mail then combines every notice waiting
// for the seat.
//
// Thread-safe: Wake() and Stop() from any thread.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "persistence/notification_store.h"
#include "server/matches.h"
#include "server/metrics.h"
#include "server/notify/emails.h"
#include "server/notify/mail_text.h"

namespace melee::server::notify {

// The relay and how mails are sent.
struct MailOptions {
  std::string smtp_url;       // smtp://host:port, or smtps://host:port for implicit TLS
  bool starttls = false;      // require STARTTLS on smtp://
  std::string user;           // AUTH (PLAIN or LOGIN, as the relay offers); empty: none
  std::string password;
  std::string from;           // the envelope and From: address
  std::string ca_file;        // certificates to trust for the relay's TLS (empty: the system's)
  std::string public_url;     // the server's base URL for links (http[s]://host[:port][/prefix])
  int64_t first_retry_ms = 1000;  // after the first failure; doubled after each one
  int64_t max_retry_ms = 300000;  // the cap of the backoff
  int64_t timeout_ms = 20000;     // one SMTP session, connection included
  int64_t poll_ms = 1000;         // how often the outbox is read when nothing wakes it
  size_t batch = 32;              // notices read at once
};

// Returns the WebSocket URL of the server whose web pages are at `public_url`
// (http://host:8080 -> ws://host:8080/ws).
std::string WebSocketUrl(const std::string& public_url);

// Returns the link that opens `seat` of `match_id` in the web client with `token`
// (docs/web-client.md: the token in the fragment).
std::string SeatWebLink(const std::string& public_url, const std::string& match_id,
                        const std::string& seat, const std::string& token);

class MailDelivery {
 public:
  // `store`, `emails`, `matches` and `metrics` must outlive this.
  MailDelivery(persistence::NotificationStore& store, Emails& emails, Matches& matches,
               Metrics& metrics, MailOptions options);
  // Stops (see Stop).
  ~MailDelivery();
  MailDelivery(const MailDelivery&) = delete;
  MailDelivery& operator=(const MailDelivery&) = delete;

  // Starts the delivery thread.
  void Start();
  // Reads the outbox now (new notices are durable).
  void Wake();
  // Ends the thread after the mail in flight; what is left stays in the outbox for the next
  // start. Idempotent.
  void Stop();

 private:
  // A mail ready to go: headers, text and attachments.
  struct Mail {
    std::string subject;
    std::string message_id;
    std::string text;
    std::vector<std::pair<std::string, std::string>> attachments;  // file name, JSON
    uint64_t last_seq = 0;  // the last event it tells of
  };

  void Loop();
  bool Stopping();
  // Delivers the mail `notice` is due for (with the rest of its seat's notices for a digest).
  void Deliver(const persistence::OutboxNotice& notice, std::set<std::string>& seats_done);
  // Writes the mail of `notices` for `email`; fails saying why.
  tl::expected<Mail, std::string> Compose(const persistence::EmailRegistration& email,
                                          const std::vector<persistence::OutboxNotice>& notices);
  // Sends `mail` to `address`; returns "" when the relay took it, else why it failed.
  std::string Send(const std::string& address, const Mail& mail);
  // Records a failed attempt of `notices` and when to try again.
  void Failed(const std::vector<persistence::OutboxNotice>& notices, const std::string& why);
  void UpdateGauges();

  persistence::NotificationStore& store_;
  Emails& emails_;
  Matches& matches_;
  Metrics& metrics_;
  const MailOptions options_;
  std::mutex mutex_;
  std::condition_variable wake_cv_;
  bool woken_ = false;     // guarded by mutex_
  bool stopping_ = false;  // guarded by mutex_
  int64_t next_retry_unix_ms_ = 0;  // delivery thread only: the earliest retry of this round
  std::thread thread_;
};

}  // namespace melee::server::notify
