#include "client-sdk/sync_client.h"

#include <boost/asio/ssl.hpp>
#include <boost/url/parse.hpp>
#include <cstdio>
#include <deque>
#include <random>
#include <utility>

#include "server/any_stream.h"
#include "server/net.h"

namespace melee::client {
namespace {

namespace v1 = melee::v1;
namespace ssl = asio::ssl;
using melee::proto::FrameKind;

}  // namespace

// The Asio state: an io_context run only inside each blocking call, for at most its timeout.
struct SyncClient::Impl {
  using Stream = AnyStream<beast::tcp_stream>;  // ws:// or wss:// (server/any_stream.h)

  asio::io_context ioc;
  std::optional<ssl::context> tls;
  std::unique_ptr<websocket::stream<Stream>> ws;

  beast::tcp_stream& Tcp() { return ws->next_layer().tcp(); }
  beast::flat_buffer buffer;
  std::deque<v1::ServerMessage> pending;  // pushed messages read while waiting in Call()
  // A read that outlived Receive()'s timeout stays outstanding; the next Receive() resumes it.
  bool read_pending = false;
  bool read_done = false;
  error_code read_error;

  // Runs the io_context until `done` or the timeout. On a timeout, cancels what is pending
  // when `cancel` (connect, handshake, write, close), or leaves it for later (a read).
  bool RunUntil(const bool& done, std::chrono::milliseconds timeout, bool cancel = true) {
    ioc.restart();
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done && std::chrono::steady_clock::now() < deadline) {
      ioc.run_one_until(deadline);
    }
    if (done || !cancel) return done;
    Tcp().cancel();
    ioc.restart();
    ioc.run();  // lets the cancelled operation complete
    return false;
  }

  ClientError Error(const std::string& what, error_code ec) const {
    ClientError error{what + ": " + ec.message(), std::nullopt, ""};
    // A close frame from the server may be followed by a transport error in the teardown;
    // the server's close code and reason are what the caller needs either way.
    const websocket::close_reason reason = ws->reason();
    if (ec == websocket::error::closed || reason.code != websocket::close_code::none) {
      error.close_code = static_cast<int>(reason.code);
      error.close_reason = std::string(reason.reason.data(), reason.reason.size());
      error.message = what + ": the server closed the connection (" + std::to_string(reason.code) +
                      (error.close_reason.empty() ? "" : " " + error.close_reason) + ")";
    }
    return error;
  }
};

SyncClient::SyncClient(std::unique_ptr<Impl> impl, FrameKind kind)
    : impl_(std::move(impl)), kind_(kind) {
  std::random_device random;
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "%08x-", random());
  command_prefix_ = prefix;
}

SyncClient::~SyncClient() {
  if (impl_) {
    error_code ignored;
    impl_->Tcp().socket().close(ignored);
  }
}

ClientResult<std::unique_ptr<SyncClient>> SyncClient::Connect(const std::string& url,
                                                              FrameKind kind,
                                                              std::chrono::milliseconds timeout,
                                                              const TlsOptions& tls) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed) return tl::unexpected(ClientError{"not a URL: '" + url + "'", {}, ""});
  if (parsed->scheme() != "ws" && parsed->scheme() != "wss") {
    return tl::unexpected(ClientError{"not supported: scheme '" + std::string(parsed->scheme()) +
                                          "' (use ws://host:port/ws or wss://host:port/ws)",
                                      {}, ""});
  }
  const bool secure = parsed->scheme() == "wss";
  const std::string host = parsed->host();
  const std::string port =
      parsed->has_port() ? std::string(parsed->port()) : (secure ? "443" : "80");
  const std::string target = parsed->path().empty() ? "/" : std::string(parsed->encoded_target());

  auto impl = std::make_unique<Impl>();
  if (secure) {
    impl->tls.emplace(ssl::context::tls_client);
    error_code tls_ec;
    if (!tls.ca_file.empty()) {
      impl->tls->load_verify_file(tls.ca_file, tls_ec);
    } else {
      impl->tls->set_default_verify_paths(tls_ec);
    }
    if (tls_ec) {
      return tl::unexpected(
          ClientError{"cannot load the trusted certificates: " + tls_ec.message(), {}, ""});
    }
    impl->tls->set_verify_mode(tls.verify_peer ? ssl::verify_peer : ssl::verify_none);
    impl->ws = std::make_unique<websocket::stream<Impl::Stream>>(
        Impl::Stream(Impl::Stream::tls_type(beast::tcp_stream(impl->ioc), *impl->tls)));
  } else {
    impl->ws = std::make_unique<websocket::stream<Impl::Stream>>(
        Impl::Stream(beast::tcp_stream(impl->ioc)));
  }
  tcp::resolver resolver(impl->ioc);
  error_code ec;
  const auto endpoints = resolver.resolve(host, port, ec);
  if (ec)
    return tl::unexpected(ClientError{"cannot resolve " + host + ": " + ec.message(), {}, ""});

  bool done = false;
  impl->Tcp().async_connect(endpoints, [&](error_code e, const tcp::endpoint&) {
    ec = e;
    done = true;
  });
  if (!impl->RunUntil(done, timeout)) {
    return tl::unexpected(ClientError{"timed out connecting to " + url, {}, ""});
  }
  if (ec) return tl::unexpected(impl->Error("cannot connect to " + url, ec));

  if (auto* tls_stream = impl->ws->next_layer().tls()) {
    // SSL_set_tlsext_host_name without its C cast: the name for SNI.
    SSL_ctrl(tls_stream->native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
             const_cast<char*>(host.c_str()));
    tls_stream->set_verify_callback(ssl::host_name_verification(host));
    done = false;
    impl->ws->next_layer().async_handshake(ssl::stream_base::client, [&](error_code e) {
      ec = e;
      done = true;
    });
    if (!impl->RunUntil(done, timeout)) {
      return tl::unexpected(ClientError{"timed out in the TLS handshake with " + url, {}, ""});
    }
    if (ec) return tl::unexpected(impl->Error("TLS handshake with " + url + " failed", ec));
  }
  done = false;
  impl->ws->async_handshake(host + ":" + port, target, [&](error_code e) {
    ec = e;
    done = true;
  });
  if (!impl->RunUntil(done, timeout)) {
    return tl::unexpected(ClientError{"timed out in the WebSocket handshake with " + url, {}, ""});
  }
  if (ec) return tl::unexpected(impl->Error("WebSocket handshake with " + url + " failed", ec));
  return std::unique_ptr<SyncClient>(new SyncClient(std::move(impl), kind));
}

ClientResult<void> SyncClient::SendRaw(const std::string& bytes, bool text) {
  error_code ec;
  bool done = false;
  impl_->ws->text(text);
  impl_->ws->async_write(asio::buffer(bytes), [&](error_code e, std::size_t) {
    ec = e;
    done = true;
  });
  if (!impl_->RunUntil(done, kDefaultTimeout)) {
    return tl::unexpected(ClientError{"timed out sending a message", {}, ""});
  }
  if (ec) return tl::unexpected(impl_->Error("send failed", ec));
  return {};
}

ClientResult<void> SyncClient::Send(const v1::ClientMessage& message) {
  return SendRaw(melee::proto::EncodeClientMessage(message, kind_), kind_ == FrameKind::kText);
}

ClientResult<v1::ServerMessage> SyncClient::Receive(std::chrono::milliseconds timeout) {
  if (!impl_->pending.empty()) {
    v1::ServerMessage message = std::move(impl_->pending.front());
    impl_->pending.pop_front();
    return message;
  }
  Impl& impl = *impl_;
  if (!impl.read_pending) {
    impl.read_pending = true;
    impl.read_done = false;
    impl.ws->async_read(impl.buffer, [&impl](error_code e, std::size_t) {
      impl.read_error = e;
      impl.read_done = true;
    });
  }
  if (!impl.RunUntil(impl.read_done, timeout, /*cancel=*/false)) {
    return tl::unexpected(ClientError{"timed out waiting for the server", {}, ""});
  }
  impl.read_pending = false;
  if (impl.read_error) return tl::unexpected(impl.Error("receive failed", impl.read_error));
  const std::string frame = beast::buffers_to_string(impl_->buffer.data());
  impl_->buffer.consume(impl_->buffer.size());
  auto message = melee::proto::DecodeServerMessage(
      frame, impl_->ws->got_text() ? FrameKind::kText : FrameKind::kBinary);
  if (!message) {
    return tl::unexpected(
        ClientError{"the server sent an unreadable message: " + message.error().message, {}, ""});
  }
  return *message;
}

ClientResult<v1::ServerMessage> SyncClient::Call(v1::ClientMessage message,
                                                 std::chrono::milliseconds timeout) {
  if (message.command_id().empty()) {
    message.set_command_id(command_prefix_ + std::to_string(next_command_++));
  }
  if (auto sent = Send(message); !sent) return tl::unexpected(sent.error());
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::deque<v1::ServerMessage> unrelated;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return tl::unexpected(
          ClientError{"timed out waiting for the answer to " + message.command_id(), {}, ""});
    }
    auto reply = Receive(left);
    if (!reply) return reply;
    if (reply->command_id() == message.command_id()) {
      // Keep what arrived meanwhile for Receive(), in order, ahead of anything later.
      impl_->pending.insert(impl_->pending.begin(), unrelated.begin(), unrelated.end());
      return reply;
    }
    unrelated.push_back(std::move(*reply));
  }
}

ClientResult<void> SyncClient::Close() {
  error_code ec;
  bool done = false;
  impl_->ws->async_close(websocket::close_code::normal, [&](error_code e) {
    ec = e;
    done = true;
  });
  if (!impl_->RunUntil(done, kDefaultTimeout)) {
    return tl::unexpected(ClientError{"timed out closing the connection", {}, ""});
  }
  if (ec) return tl::unexpected(impl_->Error("close failed", ec));
  return {};
}

std::string MatchUrl(const std::string& url, const std::string& match_id) {
  const bool safe = !match_id.empty() && match_id.find_first_not_of(
                                             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "0123456789-_.") == std::string::npos;
  if (!safe || url.find('?') != std::string::npos) return url;
  return url + "?match=" + match_id;
}

}  // namespace melee::client
