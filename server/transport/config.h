#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace melee::server {

// Everything melee-server can be told on its command line. Defaults are the embedded,
// single-node setup: loopback only, SQLite in ./data.
struct ServerConfig {
  std::string address = "127.0.0.1";
  uint16_t port = 8080;  // 0: pick a free port (tests)
  std::filesystem::path data_dir = "data";
  int threads = 2;
  // A WebSocket message above this is answered with ERROR_CODE_MESSAGE_TOO_LARGE and dropped.
  std::size_t max_message_bytes = 64 * 1024;
  // A message above this is not even read: the connection is closed with 1009 (too big).
  std::size_t hard_max_message_bytes = 1024 * 1024;
  // HTTP request bodies above this are refused with 413.
  std::size_t max_http_body_bytes = 1024 * 1024;
  // Token bucket per connection: sustained messages per second and burst size.
  double messages_per_second = 50.0;
  double message_burst = 200.0;
  // A connection that keeps flooding after this many refused messages is closed (policy).
  int max_rate_limited_before_close = 1000;
  // Matches one client address may create (POST /api/matches and CreateMatch): a token bucket
  // of this many a minute, up to the burst at once; 0: no limit. Each creation costs ~1.4 ms of
  // CPU and a durable write.
  double match_creations_per_minute = 60.0;
  double match_creation_burst = 20.0;
  std::size_t max_connections = 10000;
  std::size_t max_connections_per_address = 256;
  // A WebSocket client whose unsent messages exceed this is too slow to follow a match: it is
  // closed with 1008 "slow reader" so that it never holds up the match or the server's memory.
  std::size_t max_queued_bytes = 4 * 1024 * 1024;
  // Seconds a seat has to answer a mid-resolution choice when the match does not set its own;
  // then the ruleset's default is taken.
  uint32_t choice_deadline_seconds = 300;
  // Seconds a seat has for each announcement and declaration when the match does not set its
  // own; then the rules default is taken (announce nothing, declare no attack). 0: no deadline.
  uint32_t declaration_deadline_seconds = 0;
  // TLS: when both are set every connection is TLS (https://, wss://); PEM files.
  std::filesystem::path tls_certificate;  // the certificate chain
  std::filesystem::path tls_private_key;
  // Whether every match in the store is loaded and replayed before the server listens, dormant
  // ones too (false: a dormant match is loaded when first asked for, and replayed in the
  // background after the start; docs/architecture.md, "Restart").
  bool eager_recovery = false;
  // Seconds a loaded match may go unused (no session following it, no request, owing nothing on
  // a timer) before it is unloaded, dormant again until next asked for. 0: never unloaded.
  uint32_t unload_idle_seconds = 600;
  // The web client's files, served at / (static_files.h); empty: no web client, / is a 404.
  std::filesystem::path web_root;
  // Webhook notices (docs/notifications.md): whether this server delivers them (false: they
  // wait in the outbox), and the backoff of retries, doubled from the first up to the cap.
  bool deliver_webhooks = true;
  int64_t webhook_first_retry_ms = 1000;
  int64_t webhook_max_retry_ms = 300000;
  // Email notices (docs/notifications.md): the SMTP relay (empty: this server sends no mail, and
  // refuses mail registrations), STARTTLS required on smtp://, AUTH, the From address,
  // certificates to trust for the relay. Retries follow the webhooks' backoff.
  std::string smtp_url;  // smtp://host:port or smtps://host:port
  bool smtp_starttls = false;
  std::string smtp_user;
  std::string smtp_password;  // read from --smtp-password-file, never given on a command line
  std::string smtp_from;
  std::filesystem::path smtp_ca_file;
  // The base URL of this server's web pages for the links in mails (http[s]://host[:port]);
  // empty: made from the listen address and port.
  std::string public_url;
};

// Returns the web root melee-server uses when --web-root is not given: share/melee/web next to
// the installed binary (`<bin>/../share/melee/web`) when it holds an index.html, else
// `source_web_root` (the source tree's client-sdk/web, compiled in, so a build-tree binary
// serves it).
// (Defined in static_files.cc, beside the files it serves.)
std::filesystem::path DefaultWebRoot(const std::filesystem::path& executable,
                                     const std::filesystem::path& source_web_root);

}  // namespace melee::server
