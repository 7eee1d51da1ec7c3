#include "bench/ws_connection.h"

#include <utility>

#include "server/any_stream.h"
#include "server/net.h"

namespace melee::bench {

using proto::FrameKind;

// Over AnyStream, whose socket operations are compiled once, in melee::net (any_stream.h).
struct WsConnection::Impl {
  explicit Impl(asio::io_context& ioc) : ws(AnyStream<beast::tcp_stream>(beast::tcp_stream(ioc))) {}

  websocket::stream<AnyStream<beast::tcp_stream>> ws;
  // Two buffers in turn: a handler may start the next read (which can take bytes already
  // received into its buffer at once) while it still reads the frame it was given.
  beast::flat_buffer buffers[2];
  int reading = 0;
};

WsConnection::WsConnection(asio::io_context& ioc) : impl_(std::make_unique<Impl>(ioc)) {}

WsConnection::~WsConnection() = default;

void WsConnection::Open(const tcp::endpoint& endpoint, std::string target, FrameKind kind,
                        Opened opened) {
  Impl& impl = *impl_;
  impl.ws.next_layer().tcp().async_connect(
      endpoint,
      [&impl, target = std::move(target), kind, opened = std::move(opened)](error_code ec) mutable {
        if (ec) return opened(ec, "connect");
        impl.ws.next_layer().tcp().socket().set_option(tcp::no_delay(true));
        // The handshake's request is built here, from `target`, before the call returns.
        impl.ws.async_handshake("127.0.0.1", target,
                                [&impl, kind, opened = std::move(opened)](error_code hec) {
                                  if (hec) return opened(hec, "handshake");
                                  impl.ws.text(kind == FrameKind::kText);
                                  opened({}, {});
                                });
      });
}

void WsConnection::Write(std::string_view frame, Done done) {
  impl_->ws.async_write(asio::buffer(frame.data(), frame.size()),
                        [done = std::move(done)](error_code ec, std::size_t) { done(ec); });
}

void WsConnection::Read(Received received) {
  Impl& impl = *impl_;
  beast::flat_buffer& buffer = impl.buffers[impl.reading];
  impl.ws.async_read(
      buffer, [&impl, &buffer, received = std::move(received)](error_code ec, std::size_t) {
        impl.reading ^= 1;
        const FrameKind kind = impl.ws.got_text() ? FrameKind::kText : FrameKind::kBinary;
        const auto data = buffer.cdata();
        received(ec, std::string_view(static_cast<const char*>(data.data()), data.size()), kind);
        buffer.consume(buffer.size());
      });
}

void WsConnection::Close(Done done) {
  impl_->ws.async_close(websocket::close_code::normal, [done = std::move(done)](error_code ec) {
    if (done) done(ec);
  });
}

bool WsConnection::is_open() const { return impl_->ws.is_open(); }

}  // namespace melee::bench
