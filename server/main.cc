// melee-server: the authoritative Melee game server. See README.md.

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <system_error>
#include <tl/expected.hpp>

#include "engine/core/registry.h"
#include "persistence/postgres_event_store.h"
#include "persistence/sqlite_event_store.h"
#include "server/transport/json_log.h"
#include "server/transport/server.h"
#include "server/version.h"

namespace {

// Returns the first line of `path` (a password file), or why it cannot be read.
tl::expected<std::string, std::string> ReadPasswordFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line)) {
    return tl::unexpected("cannot read the password in " + path.string());
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.empty()) return tl::unexpected(path.string() + " holds no password on its first line");
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  melee::server::ServerConfig config;
  std::string log_level = "info";
  std::string log_format = "text";

  CLI::App app{
      "melee-server — authoritative game server for wargame close combat.\n"
      "Serves the web client at /, the WebSocket protocol at /ws, POST /api/matches, GET /healthz\n"
      "and GET /metrics."};
  app.set_version_flag("--version", std::string(melee::server::kServerVersion));
  // An option given twice takes its last value, so that arguments after a wrapper's defaults
  // override them (scripts/run-server passes --data-dir data, then yours).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--listen", config.address, "Address to listen on")->capture_default_str();
  app.add_option("--port", config.port, "TCP port (0 picks a free one)")->capture_default_str();
  app.add_option("--data-dir", config.data_dir,
                 "Data directory; the embedded SQLite store is <data-dir>/melee.db")
      ->capture_default_str();
  app.add_option("--threads", config.threads, "I/O threads")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  app.add_option("--max-message-bytes", config.max_message_bytes,
                 "Largest WebSocket message accepted; larger ones get an Error")
      ->capture_default_str();
  app.add_option("--max-connections", config.max_connections, "Open connections at most")
      ->capture_default_str();
  app.add_option("--max-connections-per-address", config.max_connections_per_address,
                 "Open connections from one IP address at most")
      ->capture_default_str();
  app.add_option("--messages-per-second", config.messages_per_second,
                 "Sustained WebSocket messages per second per connection")
      ->capture_default_str();
  app.add_option("--match-creations-per-minute", config.match_creations_per_minute,
                 "Matches one client address may create a minute (POST /api/matches and "
                 "CreateMatch), sustained; more are refused (HTTP 429 with Retry-After). 0: no "
                 "limit")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--match-creation-burst", config.match_creation_burst,
                 "Matches one client address may create at once before the per-minute rate "
                 "applies")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-queued-bytes", config.max_queued_bytes,
                 "Unsent bytes a WebSocket client may have waiting before it is closed as a slow "
                 "reader")
      ->capture_default_str();
  app.add_option("--choice-deadline-seconds", config.choice_deadline_seconds,
                 "Seconds a seat has to answer a mid-resolution choice (matches may set their "
                 "own); then the rules default is taken")
      ->check(CLI::Range(1u, 7u * 24 * 3600))
      ->capture_default_str();
  app.add_option("--declaration-deadline-seconds", config.declaration_deadline_seconds,
                 "Seconds a seat has for each announcement and declaration (matches may set "
                 "their own); then the rules default is taken: announce nothing, declare no "
                 "attack. 0: no deadline")
      ->check(CLI::Range(0u, 30u * 24 * 3600))
      ->capture_default_str();
  app.add_option("--tls-certificate", config.tls_certificate,
                 "PEM certificate chain; with --tls-private-key every connection is TLS "
                 "(https://, wss://)")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-private-key", config.tls_private_key, "PEM private key of the certificate")
      ->check(CLI::ExistingFile);
  {
    // The installed share/melee/web next to this binary, else the source tree's (a build tree).
    std::error_code ec;
    std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) self = std::filesystem::absolute(argv[0], ec);
    config.web_root = melee::server::DefaultWebRoot(self, MELEE_SOURCE_WEB_ROOT);
  }
  app.add_option("--web-root", config.web_root,
                 "Folder of the web client served at / (index.html, match.html, sdk/)")
      ->check(CLI::ExistingDirectory)
      ->capture_default_str();
  app.add_option("--smtp-url", config.smtp_url,
                 "SMTP relay for email notices: smtp://host:port, or smtps://host:port for TLS "
                 "from the start. Without it the server sends no mail and refuses mail "
                 "registrations");
  app.add_flag("--smtp-starttls", config.smtp_starttls,
               "Require STARTTLS on an smtp:// relay (never send a mail in clear)");
  app.add_option("--smtp-user", config.smtp_user, "User name for the relay's AUTH");
  std::filesystem::path smtp_password_file;
  app.add_option("--smtp-password-file", smtp_password_file,
                 "File holding the relay's AUTH password (one line; never on the command line)")
      ->check(CLI::ExistingFile);
  app.add_option("--smtp-from", config.smtp_from, "Address the mails come from");
  app.add_option("--smtp-ca-file", config.smtp_ca_file,
                 "PEM certificates to trust for the relay's TLS (default: the system's)")
      ->check(CLI::ExistingFile);
  app.add_option("--public-url", config.public_url,
                 "Base URL of this server's web pages for the links in mails "
                 "(https://melee.example.org); default: http[s]://<listen address>:<port>");
  app.add_flag("--eager-recovery", config.eager_recovery,
               "Load and replay every match in the store before listening, finished (dormant) "
               "ones too, as servers before 2026-11 did (default: a dormant match is loaded "
               "when first asked for and replayed in the background)");
  app.add_option("--unload-idle-seconds", config.unload_idle_seconds,
                 "Unload a match nothing has used for this long (no session, no request, "
                 "nothing owed on a timer); it is loaded from the store again when next asked "
                 "for. 0: keep every match loaded until the server stops")
      ->capture_default_str();
  std::string store_uri;
  app.add_option("--store", store_uri,
                 "Keep the event log in PostgreSQL: a libpq URI such as "
                 "postgresql://melee@db.example/melee (docs/postgresql.md); the data directory "
                 "still holds the server's key and dice secret. Default: SQLite in --data-dir")
      ->check([](const std::string& uri) {
        return melee::persistence::IsPostgresUri(uri)
                   ? std::string()
                   : "--store takes a postgresql:// URI (SQLite is the default without it)";
      });
  melee::persistence::PostgresStoreOptions postgres_options;
  {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') postgres_options.node_id = host;
  }
  app.add_option("--node-id", postgres_options.node_id,
                 "With --store: this node's name in the match leases, unique among the nodes "
                 "sharing the database (docs/postgresql.md, \"Several nodes\"). A node started "
                 "again under its name takes its matches back at once")
      ->capture_default_str();
  double lease_seconds = 10;
  app.add_option("--lease-seconds", lease_seconds,
                 "With --store: how long a node's lease on a match runs unless renewed (every "
                 "third of it); after a node dies, another takes its matches over within this")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  bool accept_empty_store = false;
  app.add_flag("--accept-empty-store", accept_empty_store,
               "Start even though melee.db is missing or empty beside the server's key and dice "
               "secret (an earlier start's matches are then gone: restore melee.db instead if "
               "you can)");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
  app.add_option("--log-format", log_format,
                 "text (for people) or json (one object per line, for log shippers)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  spdlog::set_level(spdlog::level::from_str(log_level));
  if (log_format == "json") melee::server::UseJsonLogs();
  if (config.hard_max_message_bytes < config.max_message_bytes) {
    config.hard_max_message_bytes = config.max_message_bytes * 2;
  }

  if (!smtp_password_file.empty()) {
    auto password = ReadPasswordFile(smtp_password_file);
    if (!password) {
      spdlog::error("{}", password.error());
      return EXIT_FAILURE;
    }
    config.smtp_password = std::move(*password);
  }

  try {
    std::shared_ptr<melee::persistence::EventStore> shared;
    if (!store_uri.empty()) {
      postgres_options.lease_ms = static_cast<int64_t>(lease_seconds * 1000);
      auto store = melee::persistence::PostgresEventStore::Open(store_uri, postgres_options);
      if (!store) {
        spdlog::error("{}", store.error().message);
        return EXIT_FAILURE;
      }
      spdlog::info("event store: PostgreSQL, {}; node {}, leases of {} s", (*store)->where(),
                   postgres_options.node_id, lease_seconds);
      shared = std::move(*store);
    } else {
      if (auto whole = melee::persistence::CheckForLostLog(config.data_dir); !whole) {
        if (!accept_empty_store) {
          spdlog::error("{}", whole.error().message);
          return EXIT_FAILURE;
        }
        spdlog::warn("--accept-empty-store: starting a new, empty log: {}", whole.error().message);
      }
      auto store = melee::persistence::SqliteEventStore::OpenDataDirectory(config.data_dir);
      if (!store) {
        spdlog::error("{}", store.error().message);
        return EXIT_FAILURE;
      }
      shared = std::move(*store);
    }
    melee::server::Server server(config, shared, melee::engine::BuiltinRegistry());
    server.StopOnSignals();  // before Start(): its "listening" line means signals are handled
    auto port = server.Start();
    if (!port) {
      spdlog::error("{}", port.error());
      return EXIT_FAILURE;
    }
    server.Run();
    spdlog::info("melee-server stopped");
  } catch (const std::exception& e) {
    std::cerr << "melee-server: " << e.what() << "\n";
    return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}
