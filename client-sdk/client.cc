#include "client-sdk/client.h"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include <boost/asio/ssl.hpp>
#include <boost/url/parse.hpp>
#include <deque>
#include <optional>
#include <random>
#include <utility>

#include "client-sdk/dice_witness.h"
#include "client-sdk/whole_view.h"
#include "server/any_stream.h"
#include "server/net.h"

namespace melee::client {

namespace v1 = melee::v1;
namespace ssl = asio::ssl;
using melee::proto::FrameKind;

namespace {

constexpr std::size_t kEntropyBytes = 32;
constexpr auto kConnectTimeout = std::chrono::seconds(10);


ClientError Failure(std::string message) {
  return ClientError{.message = std::move(message), .close_code = {}, .close_reason = {},
                     .refused = false};
}

// One WebSocket connection, plain or TLS; every completion runs on the client's strand. Each
// operation keeps the transport alive until it completes (a dropped connection's aborted read
// still touches the TLS stream).
class Transport {
 public:
  virtual ~Transport() = default;
  // `idle_timeout` > 0: a connection that receives nothing for that long (a ping is sent at half
  // of it) is dropped; so is a handshake that takes longer.
  virtual void Open(const std::string& host, const std::string& port, const std::string& target,
                    std::chrono::milliseconds idle_timeout,
                    std::function<void(error_code)> done) = 0;
  // One write at a time; `frame` is kept until `done`.
  virtual void Write(std::string frame, bool text, std::function<void(error_code)> done) = 0;
  virtual void Read(std::function<void(error_code, std::string, bool)> done) = 0;
  // Drops the connection at once (the server's side sees it closed).
  virtual void Drop() = 0;
};

class WebSocketTransport final : public Transport,
                                 public std::enable_shared_from_this<WebSocketTransport> {
 public:
  using Stream = AnyStream<beast::tcp_stream>;  // ws:// or wss:// (server/any_stream.h)

  // `tls`: wss://, with this context (kept by the caller); null: ws://.
  WebSocketTransport(asio::strand<asio::any_io_executor> strand, ssl::context* tls)
      : resolver_(strand),
        ws_(tls != nullptr ? Stream(Stream::tls_type(beast::tcp_stream(strand), *tls))
                           : Stream(beast::tcp_stream(strand))) {}

  void Open(const std::string& host, const std::string& port, const std::string& target,
            std::chrono::milliseconds idle_timeout, std::function<void(error_code)> done) override {
    host_ = host;
    idle_timeout_ = idle_timeout;
    resolver_.async_resolve(
        host, port,
        [self = this->shared_from_this(), port, target, done = std::move(done)](
            error_code ec, tcp::resolver::results_type results) mutable {
          if (ec) return done(ec);
          self->ws_.next_layer().tcp().expires_after(kConnectTimeout);
          self->ws_.next_layer().tcp().async_connect(
              results, [self, port, target, done = std::move(done)](error_code connect_ec,
                                                                    const tcp::endpoint&) mutable {
                if (connect_ec) return done(connect_ec);
                self->Secure([self, port, target, done = std::move(done)](error_code tls_ec) mutable {
                  if (tls_ec) return done(tls_ec);
                  self->ws_.next_layer().tcp().expires_never();
                  auto timeout =
                      websocket::stream_base::timeout::suggested(beast::role_type::client);
                  if (self->idle_timeout_.count() > 0) {
                    timeout.handshake_timeout = self->idle_timeout_;
                    timeout.idle_timeout = self->idle_timeout_;
                    timeout.keep_alive_pings = true;
                  }
                  self->ws_.set_option(timeout);
                  self->ws_.async_handshake(self->host_ + ":" + port, target,
                                            [self, done = std::move(done)](error_code hs_ec) {
                                              done(hs_ec);
                                            });
                });
              });
        });
  }

  void Write(std::string frame, bool text, std::function<void(error_code)> done) override {
    frame_ = std::move(frame);
    ws_.text(text);
    ws_.async_write(asio::buffer(frame_),
                    [self = this->shared_from_this(), done = std::move(done)](error_code ec,
                                                                              std::size_t) {
                      done(ec);
                    });
  }

  void Read(std::function<void(error_code, std::string, bool)> done) override {
    ws_.async_read(buffer_, [self = this->shared_from_this(), done = std::move(done)](
                                error_code ec, std::size_t) {
      if (ec) return done(ec, {}, false);
      std::string frame = beast::buffers_to_string(self->buffer_.data());
      self->buffer_.consume(self->buffer_.size());
      done(ec, std::move(frame), self->ws_.got_text());
    });
  }

  void Drop() override {
    error_code ignored;
    ws_.next_layer().tcp().socket().close(ignored);
  }

 private:
  // TLS: the server's name for SNI and certificate checks, then the handshake.
  void Secure(std::function<void(error_code)> done) {
    if (auto* tls = ws_.next_layer().tls()) {
      // SSL_set_tlsext_host_name without its C cast.
      if (SSL_ctrl(tls->native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                   host_.data()) != 1) {
        return done(error_code(static_cast<int>(::ERR_get_error()),
                               asio::error::get_ssl_category()));
      }
      tls->set_verify_callback(ssl::host_name_verification(host_));
    }
    // The TLS handshake; on a plain stream it completes at once.
    ws_.next_layer().async_handshake(
        ssl::stream_base::client,
        [self = this->shared_from_this(), done = std::move(done)](error_code ec) { done(ec); });
  }

  tcp::resolver resolver_;
  websocket::stream<Stream> ws_;
  beast::flat_buffer buffer_;
  std::string frame_;
  std::string host_;
  std::chrono::milliseconds idle_timeout_{0};
};

}  // namespace

struct Client::Impl : std::enable_shared_from_this<Impl> {
  Impl(asio::any_io_executor executor, SeatAddress seat_address, ClientOptions client_options)
      : strand(asio::make_strand(std::move(executor))),
        seat(std::move(seat_address)),
        options(std::move(client_options)),
        retry_timer(strand),
        delay(options.reconnect_delay) {
    std::random_device random;
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%08x-", random());
    prefix = buffer;
  }

  struct Pending {
    v1::ClientMessage message;
    std::optional<std::string> sealed;  // a SealDeclaration's bytes, which its receipt commits to
    AnswerHandler done;
  };

  asio::strand<asio::any_io_executor> strand;
  SeatAddress seat;
  ClientOptions options;
  asio::steady_timer retry_timer;
  std::chrono::milliseconds delay;
  std::optional<ssl::context> tls;
  std::string host, port, target;
  bool secure = false;

  EventHandler on_event;
  DiceWitness witness;  // checks the seeds and signed heads as events arrive
  ViewHandler on_view;
  StateHandler on_state;

  std::shared_ptr<Transport> transport;
  uint64_t generation = 0;  // a callback of an older connection is ignored
  bool stopped = false;
  bool joined = false;
  std::string hello_id;
  std::string join_id;
  // The last view handed on, whole: a protocol 2 view that leaves the forces out
  // (forces_as_before) takes them from it.
  v1::MatchView whole_view;
  uint64_t last_seq = 0;
  std::string prefix;
  unsigned next_id = 1;
  std::deque<Pending> pending;     // sent (or to send) and not answered, in order
  std::deque<std::string> outbox;  // frames to write on this connection
  bool writing = false;

  std::string NextId() { return prefix + std::to_string(next_id++); }

  void SetState(ConnectionState state, const std::string& detail) {
    if (on_state) on_state(state, detail);
  }

  // Parses the URL and prepares TLS; a ClientError when the URL cannot be used.
  std::optional<ClientError> Prepare() {
    // The match in the URL's query, for a load balancer's hash (MatchUrl).
    const std::string url = MatchUrl(seat.url, seat.match_id);
    auto parsed = boost::urls::parse_uri(url);
    if (!parsed) return Failure("not a URL: '" + seat.url + "'");
    if (parsed->scheme() != "ws" && parsed->scheme() != "wss") {
      return Failure("not supported: scheme '" + std::string(parsed->scheme()) +
                     "' (use ws:// or wss://)");
    }
    secure = parsed->scheme() == "wss";
    host = parsed->host();
    port = parsed->has_port() ? std::string(parsed->port()) : (secure ? "443" : "80");
    target = parsed->path().empty() ? "/" : std::string(parsed->encoded_target());
    if (secure) {
      tls.emplace(ssl::context::tls_client);
      error_code ec;
      if (!options.ca_file.empty()) {
        tls->load_verify_file(options.ca_file, ec);
      } else {
        tls->set_default_verify_paths(ec);
      }
      if (ec) return Failure("cannot load the trusted certificates: " + ec.message());
      tls->set_verify_mode(options.verify_peer ? ssl::verify_peer : ssl::verify_none);
    }
    return std::nullopt;
  }

  void Connect() {
    if (stopped) return;
    SetState(ConnectionState::kConnecting, seat.url);
    const uint64_t generation_now = ++generation;
    transport = std::make_shared<WebSocketTransport>(strand, secure ? &*tls : nullptr);
    transport->Open(host, port, target, options.idle_timeout,
                    [self = shared_from_this(), generation_now](error_code ec) {
      if (generation_now != self->generation || self->stopped) return;
      if (ec) return self->Lost("cannot connect to " + self->seat.url + ": " + ec.message());
      self->Hello();
      self->Join();
      self->ReadNext(generation_now);
    });
  }

  // Asks for protocol 2 (views leave out forces this connection holds: ShowView puts them back).
  // The server reads a connection's frames in order, so the Join after it needs no waiting.
  void Hello() {
    v1::ClientMessage hello;
    hello_id = NextId();
    hello.set_command_id(hello_id);
    hello.mutable_hello()->set_protocol_version(2);
    hello.mutable_hello()->set_client_name("melee-sdk");
    Write(melee::proto::EncodeClientMessage(hello, options.kind));
  }

  // Hands `view` to the view handler whole (WholeView).
  void ShowView(const v1::MatchView& view) {
    whole_view = WholeView(view, whole_view);
    if (on_view) on_view(whole_view);
  }

  void Join() {
    v1::ClientMessage join;
    join_id = NextId();
    join.set_command_id(join_id);
    if (seat.spectate) {
      join.mutable_spectate()->set_match_id(seat.match_id);
      join.mutable_spectate()->set_spectator_key(seat.token);
      join.mutable_spectate()->set_after_seq(last_seq);
    } else {
      join.mutable_join_seat()->set_match_id(seat.match_id);
      join.mutable_join_seat()->set_seat_token(seat.token);
      join.mutable_join_seat()->set_after_seq(last_seq);
    }
    Write(melee::proto::EncodeClientMessage(join, options.kind));
  }

  void ReadNext(uint64_t generation_now) {
    transport->Read([self = shared_from_this(), generation_now](error_code ec, std::string frame,
                                                                bool text) {
      if (generation_now != self->generation || self->stopped) return;
      if (ec) return self->Lost("connection lost: " + ec.message());
      self->Handle(frame, text);
      if (generation_now == self->generation && !self->stopped) self->ReadNext(generation_now);
    });
  }

  void Handle(const std::string& frame, bool text) {
    auto message = melee::proto::DecodeServerMessage(frame, text ? FrameKind::kText
                                                                 : FrameKind::kBinary);
    if (!message) return;  // not ours to judge; the server's messages are well formed
    // Hello's answer: protocol 2, or (a server that speaks only 1) an error; either way the
    // views that follow are handled (ShowView).
    if (!message->command_id().empty() && message->command_id() == hello_id) return;
    if (!message->command_id().empty() && message->command_id() == join_id) {
      if (message->has_error()) {
        // A wrong token or an unknown match: retrying cannot help.
        ClientError error = Failure(message->error().message());
        error.refused = true;
        return Fail(error);
      }
      if (message->has_joined()) {
        joined = true;
        delay = options.reconnect_delay;
        SetState(ConnectionState::kJoined, seat.match_id);
        ShowView(message->joined().view());
        for (const Pending& command : pending) {
          Write(melee::proto::EncodeClientMessage(command.message, options.kind));
        }
      }
      return;
    }
    if (message->has_event()) {
      const uint64_t seq = message->event().seq();
      if (seq <= last_seq) return;  // a resume may overlap what arrived before
      if (seq != last_seq + 1) return Lost("event " + std::to_string(seq) + " after " +
                                           std::to_string(last_seq) + ": resuming");
      // A server that breaks its dice commitment or signs falsely is not followed further.
      if (auto broken = witness.Observe(message->event())) return Fail(Failure("fair play: " + *broken));
      last_seq = seq;
      if (on_event) on_event(message->event());
      return;
    }
    if (message->has_view()) {
      ShowView(message->view());
      return;
    }
    for (auto it = pending.begin(); it != pending.end(); ++it) {
      if (it->message.command_id() != message->command_id()) continue;
      Pending answered = std::move(*it);
      pending.erase(it);
      std::optional<std::string> broken;
      if (message->has_ack() && answered.sealed) {
        broken = CheckReceipt(message->ack(), *answered.sealed);
      }
      if (broken) {
        answered.done(tl::unexpected(
            Failure("the receipt of " + message->command_id() + " " + *broken)));
      } else {
        answered.done(std::move(*message));
      }
      return;
    }
  }

  void Write(std::string frame) {
    outbox.push_back(std::move(frame));
    if (!writing) WriteNext();
  }

  void WriteNext() {
    if (outbox.empty() || !transport) return;
    writing = true;
    const uint64_t generation_now = generation;
    transport->Write(outbox.front(), options.kind == FrameKind::kText,
                     [self = shared_from_this(), generation_now](error_code ec) {
                       if (generation_now != self->generation || self->stopped) return;
                       self->writing = false;
                       if (ec) return self->Lost("connection lost: " + ec.message());
                       self->outbox.pop_front();
                       self->WriteNext();
                     });
  }

  // The connection is gone: try again after a growing delay, then resume from last_seq.
  void Lost(const std::string& why) {
    if (stopped) return;
    ++generation;
    joined = false;
    writing = false;
    outbox.clear();
    if (transport) {
      transport->Drop();  // its pending operations complete (aborted) and release it
      transport.reset();
    }
    SetState(ConnectionState::kReconnecting, why);
    retry_timer.expires_after(delay);
    delay = std::min(delay * 2, options.max_reconnect_delay);
    retry_timer.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->Connect();
    });
  }

  void Fail(const ClientError& error) {
    if (stopped) return;
    stopped = true;
    ++generation;
    retry_timer.cancel();
    if (transport) {
      transport->Drop();
      transport.reset();
    }
    auto waiting = std::move(pending);
    pending.clear();
    for (Pending& command : waiting) command.done(tl::unexpected(error));
    SetState(ConnectionState::kStopped, error.message);
  }
};

std::shared_ptr<Client> Client::Create(asio::any_io_executor executor, SeatAddress seat,
                                       ClientOptions options) {
  return std::shared_ptr<Client>(
      new Client(std::make_shared<Impl>(std::move(executor), std::move(seat), std::move(options))));
}

Client::Client(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Client::~Client() { Stop(); }

void Client::OnEvent(EventHandler handler) { impl_->on_event = std::move(handler); }
void Client::OnView(ViewHandler handler) { impl_->on_view = std::move(handler); }
void Client::OnState(StateHandler handler) { impl_->on_state = std::move(handler); }

void Client::Start(uint64_t after_seq) {
  asio::dispatch(impl_->strand, [impl = impl_, after_seq] {
    impl->last_seq = after_seq;
    if (auto problem = impl->Prepare()) return impl->Fail(*problem);
    impl->Connect();
  });
}

void Client::Send(v1::ClientMessage command, AnswerHandler done) {
  asio::dispatch(impl_->strand, [impl = impl_, command = std::move(command),
                                 done = std::move(done)]() mutable {
    if (impl->stopped) return done(tl::unexpected(Failure("the client is stopped")));
    if (command.command_id().empty()) command.set_command_id(impl->NextId());
    const auto fill = [&](auto& target) {
      if (target.match_id().empty()) target.set_match_id(impl->seat.match_id);
      if (target.expected_seq() == 0) target.set_expected_seq(impl->last_seq);
    };
    std::optional<std::string> sealed;  // the bytes a seal's receipt must commit to
    switch (command.command_case()) {
      case v1::ClientMessage::kSubmitSetup:
        fill(*command.mutable_submit_setup());
        break;
      case v1::ClientMessage::kConfirmSetup:
        fill(*command.mutable_confirm_setup());
        break;
      case v1::ClientMessage::kAnnounce:
        fill(*command.mutable_announce());
        break;
      case v1::ClientMessage::kSealDeclaration: {
        v1::SealDeclaration& seal = *command.mutable_seal_declaration();
        fill(seal);
        if (seal.client_entropy().empty()) {
          std::string entropy(kEntropyBytes, '\0');
          if (RAND_bytes(reinterpret_cast<unsigned char*>(entropy.data()), kEntropyBytes) != 1) {
            return done(tl::unexpected(Failure("no random bytes for client_entropy")));
          }
          seal.set_client_entropy(std::move(entropy));
        }
        sealed = melee::proto::SerializeDeterministic(seal.declaration());
        break;
      }
      case v1::ClientMessage::kMakeChoice:
        fill(*command.mutable_make_choice());
        break;
      case v1::ClientMessage::kFlagForDirector:
        fill(*command.mutable_flag_for_director());
        break;
      case v1::ClientMessage::kOrderLocations:
        fill(*command.mutable_order_locations());
        break;
      case v1::ClientMessage::kUpdateUnits:
        fill(*command.mutable_update_units());
        break;
      case v1::ClientMessage::kTakeVacation:
        fill(*command.mutable_take_vacation());
        break;
      default:
        break;
    }
    impl->pending.push_back(Impl::Pending{command, std::move(sealed), std::move(done)});
    if (impl->joined) impl->Write(melee::proto::EncodeClientMessage(command, impl->options.kind));
  });
}

void Client::Stop() {
  asio::dispatch(impl_->strand, [impl = impl_] { impl->Fail(Failure("the client is stopped")); });
}

uint64_t Client::last_seq() const { return impl_->last_seq; }

}  // namespace melee::client
