#include "server/transport/server.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/ssl.hpp>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "server/clock.h"
#include "server/fair_play/verify.h"
#include "server/matches.h"
#include "server/metrics.h"
#include "server/net.h"
#include "server/notify/emails.h"
#include "server/notify/mail_delivery.h"
#include "server/notify/notice_sinks.h"
#include "server/notify/webhook_delivery.h"
#include "server/notify/webhooks.h"
#include "server/transport/connections.h"
#include "server/transport/context.h"
#include "server/transport/dispatcher.h"
#include "server/transport/sessions.h"

namespace melee::server {
namespace {

// How long Stop() waits for clients to finish their close handshakes.
constexpr auto kShutdownGrace = std::chrono::seconds(2);

}  // namespace

// How often choice deadlines are checked against the clock.
constexpr auto kDeadlineSweep = std::chrono::milliseconds(500);

// The server's signing key and dice secret, from (or created in) its data directory.
std::shared_ptr<const persistence::ServerSecrets> LoadSecrets(const std::filesystem::path& dir) {
  auto secrets = persistence::ServerSecrets::LoadOrCreate(dir);
  if (!secrets) throw std::runtime_error("server secrets: " + secrets.error().message);
  return std::move(*secrets);
}

std::shared_ptr<const Clock> OrSystemClock(std::shared_ptr<const Clock> clock) {
  return clock ? std::move(clock) : std::make_shared<SystemClock>();
}

// What a Server holds and does, behind server.h's narrow interface.
class Server::Impl {
 public:
  Impl(ServerConfig config, std::shared_ptr<persistence::EventStore> store,
       melee::engine::Registry registry, ServerHooks hooks);
  ~Impl();

  tl::expected<uint16_t, std::string> Start();
  void Run();
  void Stop();
  void StopOnSignals();
  const Metrics& metrics() const { return metrics_; }
  Matches& matches() { return matches_; }

 private:
  void DoAccept();
  void OnAccept(error_code ec, StrandSocket socket);
  // Answers a connection a limit refused (`refusal` says which) with a 503, or its GET /healthz,
  // then closes it.
  void Refuse(StrandSocket socket, const std::string& address, const std::string& refusal);
  void ScheduleDeadlineSweep();
  // With a relay (--smtp-url), starts the delivery thread of mails; `port`: the one listened on
  // (for the links' default public URL).
  tl::expected<void, std::string> StartMailDelivery(uint16_t port);

  // Declaration order is destruction order, reversed: the io_context goes before the matches
  // and the dispatcher but after what its pending handlers' owners (sessions) still touch when
  // they are destroyed with it: metrics, connections and the context.
  ServerConfig config_;
  std::shared_ptr<persistence::EventStore> store_;
  melee::engine::Registry registry_;
  std::shared_ptr<const Clock> clock_;
  std::shared_ptr<const persistence::ServerSecrets> secrets_;  // key and dice secret
  std::shared_ptr<Lifeline> lifeline_ = std::make_shared<Lifeline>();
  Metrics metrics_;
  // Notifications (docs/notifications.md): the seats' webhooks and mail addresses, and their
  // delivery threads.
  std::shared_ptr<notify::Webhooks> webhooks_;
  std::shared_ptr<notify::Emails> emails_;
  std::unique_ptr<notify::WebhookDelivery> delivery_;
  std::unique_ptr<notify::MailDelivery> mail_delivery_;
  AddressRateLimiter match_creations_;
  Connections connections_;
  ServerContext context_;  // refers to matches_ and dispatcher_, declared (and built) below
  asio::io_context ioc_;
  Matches matches_;
  Dispatcher dispatcher_;

  tcp::acceptor acceptor_;
  asio::signal_set signals_;
  asio::steady_timer grace_timer_;
  asio::steady_timer deadline_timer_;
  std::unique_ptr<asio::ssl::context> tls_;  // set when a certificate is configured
  std::atomic<bool> stopping_{false};
};

Server::Impl::Impl(ServerConfig config, std::shared_ptr<persistence::EventStore> store,
                   melee::engine::Registry registry, ServerHooks hooks)
    : config_(std::move(config)),
      store_(std::move(store)),
      registry_(std::move(registry)),
      clock_(OrSystemClock(std::move(hooks.clock))),
      secrets_(LoadSecrets(config_.data_dir)),
      webhooks_(std::make_shared<notify::Webhooks>(store_->notifications())),
      emails_(std::make_shared<notify::Emails>(store_->notifications(), !config_.smtp_url.empty())),
      match_creations_(config_.match_creations_per_minute, config_.match_creation_burst),
      connections_(config_.max_connections, config_.max_connections_per_address),
      context_{config_,  metrics_,  connections_,     dispatcher_, *store_,
               matches_, *secrets_, match_creations_, *webhooks_,  *emails_},
      ioc_(config_.threads),
      matches_(ioc_.get_executor(),
               MatchServices{
                   .store = *store_,
                   .clock = *clock_,
                   .metrics = metrics_,
                   .default_choice_deadline_seconds = config_.choice_deadline_seconds,
                   .default_declaration_deadline_seconds = config_.declaration_deadline_seconds,
                   .secrets = secrets_,
                   .dice_source = std::move(hooks.dice),
                   .recent_events = hooks.recent_events,
                   .lifeline = lifeline_,
                   .notices = std::make_shared<notify::NoticeSinks>(
                       std::vector<std::shared_ptr<NoticeSink>>{webhooks_, emails_})},
               registry_, &CheckImport),
      dispatcher_(registry_, config_.max_message_bytes, &matches_),
      acceptor_(asio::make_strand(ioc_)),
      signals_(ioc_),
      grace_timer_(ioc_),
      deadline_timer_(asio::make_strand(ioc_)) {}

Server::Impl::~Impl() {
  // No notice is woken for after this; what is left waits in the outbox for the next start.
  webhooks_->OnCommitted(nullptr);
  emails_->OnCommitted(nullptr);
  if (delivery_) delivery_->Stop();
  if (mail_delivery_) mail_delivery_->Stop();
  // Before any member goes: store callbacks still to come leave the matches alone (Lifeline).
  std::lock_guard lock(lifeline_->mutex);
  lifeline_->alive = false;
}

tl::expected<uint16_t, std::string> Server::Impl::Start() {
  if (!config_.tls_certificate.empty() || !config_.tls_private_key.empty()) {
    if (config_.tls_certificate.empty() || config_.tls_private_key.empty()) {
      return tl::unexpected(std::string("TLS needs both --tls-certificate and --tls-private-key"));
    }
    tls_ = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
    tls_->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                      asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                      asio::ssl::context::no_tlsv1_1);
    error_code tls_error;
    tls_->use_certificate_chain_file(config_.tls_certificate.string(), tls_error);
    if (tls_error) {
      return tl::unexpected("cannot read the TLS certificate " + config_.tls_certificate.string() +
                            ": " + tls_error.message());
    }
    tls_->use_private_key_file(config_.tls_private_key.string(), asio::ssl::context::pem,
                               tls_error);
    if (tls_error) {
      return tl::unexpected("cannot read the TLS private key " + config_.tls_private_key.string() +
                            ": " + tls_error.message());
    }
  }
  if (auto loaded = webhooks_->Load(); !loaded) {
    return tl::unexpected("cannot read the webhooks: " + loaded.error().message);
  }
  if (auto loaded = emails_->Load(); !loaded) {
    return tl::unexpected("cannot read the mail addresses: " + loaded.error().message);
  }
  if (persistence::NotificationStore* outbox = store_->notifications();
      outbox != nullptr && config_.deliver_webhooks) {
    delivery_ = std::make_unique<notify::WebhookDelivery>(
        *outbox, *webhooks_, metrics_,
        notify::DeliveryOptions{.first_retry_ms = config_.webhook_first_retry_ms,
                                .max_retry_ms = config_.webhook_max_retry_ms});
    webhooks_->OnCommitted([delivery = delivery_.get()] { delivery->Wake(); });
    delivery_->Start();
  }
  matches_.RecoverAll(config_.eager_recovery);
  ScheduleDeadlineSweep();
  error_code ec;
  const auto address = asio::ip::make_address(config_.address, ec);
  if (ec)
    return tl::unexpected("invalid listen address '" + config_.address + "': " + ec.message());
  const tcp::endpoint endpoint{address, config_.port};
  const std::string where = config_.address + ":" + std::to_string(config_.port);
  if (acceptor_.open(endpoint.protocol(), ec); ec) {
    return tl::unexpected("cannot open a socket for " + where + ": " + ec.message());
  }
  if (acceptor_.set_option(asio::socket_base::reuse_address(true), ec); ec) {
    return tl::unexpected("cannot set SO_REUSEADDR on " + where + ": " + ec.message());
  }
  if (acceptor_.bind(endpoint, ec); ec) {
    return tl::unexpected("cannot listen on " + where + ": " + ec.message());
  }
  if (acceptor_.listen(asio::socket_base::max_listen_connections, ec); ec) {
    return tl::unexpected("cannot listen on " + where + ": " + ec.message());
  }
  const uint16_t port = acceptor_.local_endpoint().port();
  if (auto started = StartMailDelivery(port); !started) return tl::unexpected(started.error());
  spdlog::info("{} listening on {}://{}:{} (WebSocket at /ws), data in {}", "melee-server",
               tls_ ? "https" : "http", config_.address, port, config_.data_dir.string());
  DoAccept();
  return port;
}

tl::expected<void, std::string> Server::Impl::StartMailDelivery(uint16_t port) {
  persistence::NotificationStore* outbox = store_->notifications();
  if (outbox == nullptr || config_.smtp_url.empty()) return {};
  if (!config_.smtp_url.starts_with("smtp://") && !config_.smtp_url.starts_with("smtps://")) {
    return tl::unexpected("--smtp-url must be smtp://host:port or smtps://host:port, not \"" +
                          config_.smtp_url + "\"");
  }
  if (config_.smtp_url.find('@') != std::string::npos) {
    return tl::unexpected(std::string("--smtp-url carries credentials (user:password@): give "
                                      "--smtp-user and --smtp-password-file instead"));
  }
  if (config_.smtp_from.empty()) {
    return tl::unexpected(std::string("--smtp-url needs --smtp-from: the address mails come from"));
  }
  std::string public_url = config_.public_url;
  if (!public_url.empty() && !public_url.starts_with("http://") &&
      !public_url.starts_with("https://")) {
    return tl::unexpected("--public-url must be http://host[:port] or https://host[:port], not \"" +
                          public_url + "\"");
  }
  if (public_url.empty()) {
    // The listen address, unless it is every address: then this machine's name.
    std::string host = config_.address;
    if (host == "0.0.0.0" || host == "::") {
      char name[256] = {};
      host = gethostname(name, sizeof name - 1) == 0 ? name : "localhost";
    } else if (host.find(':') != std::string::npos) {
      host = "[" + host + "]";
    }
    public_url = std::string(tls_ ? "https" : "http") + "://" + host + ":" + std::to_string(port);
  }
  mail_delivery_ = std::make_unique<notify::MailDelivery>(
      *outbox, *emails_, matches_, metrics_,
      notify::MailOptions{.smtp_url = config_.smtp_url,
                          .starttls = config_.smtp_starttls,
                          .user = config_.smtp_user,
                          .password = config_.smtp_password,
                          .from = config_.smtp_from,
                          .ca_file = config_.smtp_ca_file.string(),
                          .public_url = public_url,
                          .first_retry_ms = config_.webhook_first_retry_ms,
                          .max_retry_ms = config_.webhook_max_retry_ms});
  emails_->OnCommitted([delivery = mail_delivery_.get()] { delivery->Wake(); });
  mail_delivery_->Start();
  spdlog::info("mail notices go through {} from {}; links point at {}", config_.smtp_url,
               config_.smtp_from, public_url);
  return {};
}

void Server::Impl::DoAccept() {
  acceptor_.async_accept(asio::make_strand(ioc_), beast::bind_front_handler(&Impl::OnAccept, this));
}

void Server::Impl::OnAccept(error_code ec, StrandSocket socket) {
  if (ec) {
    if (ec == asio::error::operation_aborted || stopping_) return;
    spdlog::warn("accept: {}", ec.message());
  } else {
    error_code ignored;
    const std::string address = socket.remote_endpoint(ignored).address().to_string();
    // Each command's events, view and answer are separate frames: without TCP_NODELAY, Nagle
    // and the client's delayed ACK hold the later ones ~40 ms (measured by bench/match_bench).
    socket.set_option(tcp::no_delay(true), ignored);
    std::string refusal;
    if (auto slot = connections_.Admit(address, &refusal)) {
      metrics_.connections_accepted.Increment();
      if (tls_) {
        std::make_shared<HttpSession>(Stream(TlsStream(StrandStream(std::move(socket)), *tls_)),
                                      context_, std::move(*slot))
            ->Run();
      } else {
        std::make_shared<HttpSession>(Stream(PlainStream(std::move(socket))), context_,
                                      std::move(*slot))
            ->Run();
      }
    } else {
      metrics_.connections_refused.Increment();
      spdlog::warn("refused a connection from {}: {}", address, refusal);
      Refuse(std::move(socket), address, refusal);
    }
  }
  if (!stopping_) DoAccept();
}

void Server::Impl::Refuse(StrandSocket socket, const std::string& address,
                          const std::string& refusal) {
  if (auto slot = connections_.AdmitRefused(address)) {
    // Read the request: GET /healthz is answered, anything else gets a 503 naming the limit.
    if (tls_) {
      std::make_shared<HttpSession>(Stream(TlsStream(StrandStream(std::move(socket)), *tls_)),
                                    context_, std::move(*slot), refusal)
          ->Run();
    } else {
      std::make_shared<HttpSession>(Stream(PlainStream(std::move(socket))), context_,
                                    std::move(*slot), refusal)
          ->Run();
    }
    return;
  }
  error_code ignored;
  if (!tls_) {
    // Too many refused connections to read each one's request: the 503 goes out unread, in
    // one non-blocking write (a new socket's send buffer holds it).
    const std::string body = "{\"code\":\"ERROR_CODE_UNAVAILABLE\",\"message\":\"connection "
                             "refused: " + refusal + "\"}\n";
    const std::string response = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: "
                                 "application/json\r\nRetry-After: 5\r\nConnection: close\r\n"
                                 "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
                                 body;
    socket.non_blocking(true, ignored);
    socket.write_some(asio::buffer(response), ignored);
    socket.shutdown(tcp::socket::shutdown_send, ignored);
  }
  socket.close(ignored);
}

void Server::Impl::ScheduleDeadlineSweep() {
  deadline_timer_.expires_after(kDeadlineSweep);
  deadline_timer_.async_wait([this](error_code ec) {
    if (ec || stopping_) return;
    matches_.CheckDeadlines();
    if (config_.unload_idle_seconds != 0) {
      matches_.UnloadIdle(int64_t{config_.unload_idle_seconds} * 1000);
    }
    ScheduleDeadlineSweep();
  });
}

void Server::Impl::Run() {
  std::vector<std::thread> threads;
  for (int i = 1; i < config_.threads; ++i) threads.emplace_back([this] { ioc_.run(); });
  ioc_.run();
  for (std::thread& thread : threads) thread.join();
}

void Server::Impl::Stop() {
  if (stopping_.exchange(true)) return;
  asio::post(acceptor_.get_executor(), [this] {
    error_code ignored;
    acceptor_.close(ignored);
    signals_.cancel(ignored);
    asio::post(deadline_timer_.get_executor(), [this] { deadline_timer_.cancel(); });
    spdlog::info("melee-server stopping: closing {} connection(s)", connections_.open());
    grace_timer_.expires_after(kShutdownGrace);
    grace_timer_.async_wait([this](error_code ec) {
      if (!ec) ioc_.stop();
    });
    connections_.CloseAll([this] { asio::post(ioc_, [this] { grace_timer_.cancel(); }); });
  });
}

void Server::Impl::StopOnSignals() {
  signals_.add(SIGINT);
  signals_.add(SIGTERM);
  signals_.async_wait([this](error_code ec, int signal) {
    if (ec) return;
    spdlog::info("received signal {}", signal);
    Stop();
  });
}

Server::Server(ServerConfig config, std::shared_ptr<persistence::EventStore> store,
               melee::engine::Registry registry, ServerHooks hooks)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(store), std::move(registry),
                                   std::move(hooks))) {}

Server::~Server() = default;

tl::expected<uint16_t, std::string> Server::Start() { return impl_->Start(); }
void Server::Run() { impl_->Run(); }
void Server::Stop() { impl_->Stop(); }
void Server::StopOnSignals() { impl_->StopOnSignals(); }
const Metrics& Server::metrics() const { return impl_->metrics(); }
Matches& Server::matches() { return impl_->matches(); }

}  // namespace melee::server
