#pragma once

// AnyStream: one TCP connection, plain or TLS, behind one type.
//
// Why: Beast's WebSocket and HTTP operations are templates over the stream they run on. Over a
// plain socket and over a TLS one they are compiled twice, and the TLS copy is the largest code
// in the program (1.16 MB of the 3.15 MB in the server's sessions.o; docs/benchmarks.md, "the
// build"). Over AnyStream they are compiled once, and the socket and TLS operations beneath,
// whose completion handlers are type-erased here (asio::any_completion_handler), once for the
// whole program, in any_stream.cc (melee::net).
//
// The cost is one type-erased handler per read or write of the layer below (allocated from
// Asio's recycling allocator) and a branch: measured against the server's CPU per command in
// docs/benchmarks.md.
//
// Every operation completes on the stream's executor (a connection's strand): handlers given to
// AnyStream must not be bound to another executor. Beast's operations and every handler in Melee
// run on their stream's executor, which is what Asio would choose for them anyway; binding the
// erased handler to the concrete executor keeps Asio's completion on its fast path instead of
// a type-erased executor (step 24 in docs/benchmarks.md).

#include <array>
#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ssl/stream_base.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/role.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <cstddef>
#include <utility>
#include <variant>

#include "server/net.h"

namespace melee {

// At most this many buffers of a buffer sequence go down in one read or write (the rest are
// left for the next call, as a socket's `sendmsg` takes 16 at most here: coalescing_stream.h).
inline constexpr std::size_t kAnyStreamMaxBuffers = 16;

// The first kAnyStreamMaxBuffers buffers of a sequence, as one concrete type.
template <class Buffer>
class BufferList {
 public:
  using value_type = Buffer;
  using const_iterator = const Buffer*;

  template <class Sequence>
  explicit BufferList(const Sequence& sequence) {
    for (auto it = asio::buffer_sequence_begin(sequence);
         it != asio::buffer_sequence_end(sequence) && size_ < buffers_.size(); ++it) {
      buffers_[size_++] = Buffer(*it);
    }
  }
  const Buffer* begin() const noexcept { return buffers_.data(); }
  const Buffer* end() const noexcept { return buffers_.data() + size_; }

 private:
  std::array<Buffer, kAnyStreamMaxBuffers> buffers_{};
  std::size_t size_ = 0;
};

// `TcpStream`: beast::basic_stream over TCP (the server's StrandStream, the SDK's
// beast::tcp_stream). Explicitly instantiated for those two in any_stream.cc.
template <class TcpStream>
class AnyStream {
 public:
  using executor_type = typename TcpStream::executor_type;
  using tls_type = beast::ssl_stream<TcpStream>;
  using IoHandler = asio::any_completion_handler<void(error_code, std::size_t)>;
  using Handler = asio::any_completion_handler<void(error_code)>;

  explicit AnyStream(TcpStream&& plain) : stream_(std::in_place_index<0>, std::move(plain)) {}
  explicit AnyStream(tls_type&& tls) : stream_(std::in_place_index<1>, std::move(tls)) {}

  executor_type get_executor() noexcept { return tcp().get_executor(); }
  bool is_tls() const noexcept { return stream_.index() == 1; }
  // The TCP stream at the bottom: its timeouts, its socket.
  TcpStream& tcp() noexcept;
  // The TLS stream, to set it up before the handshake (SNI, verification); null when plain.
  tls_type* tls() noexcept { return std::get_if<1>(&stream_); }

  // The TLS stream goes: from here on the connection is plain TCP (to answer a client that
  // spoke plain HTTP to the TLS port, in plain HTTP). No operation may be under way.
  void DropTls();

  template <class MutableBuffers, class Token>
  auto async_read_some(const MutableBuffers& buffers, Token&& token) {
    return asio::async_initiate<Token, void(error_code, std::size_t)>(
        [this](auto handler, const MutableBuffers& data) {
          ReadSome(BufferList<asio::mutable_buffer>(data), IoHandler(std::move(handler)));
        },
        token, buffers);
  }

  template <class ConstBuffers, class Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token) {
    return asio::async_initiate<Token, void(error_code, std::size_t)>(
        [this](auto handler, const ConstBuffers& data) {
          WriteSome(BufferList<asio::const_buffer>(data), IoHandler(std::move(handler)));
        },
        token, buffers);
  }

  // The TLS handshake; on a plain stream, completes at once (posted) with no error.
  template <class Token>
  auto async_handshake(asio::ssl::stream_base::handshake_type type, Token&& token) {
    return asio::async_initiate<Token, void(error_code)>(
        [this, type](auto handler) { Handshake(type, Handler(std::move(handler))); }, token);
  }

  // The TLS close_notify; on a plain stream, completes at once (posted) with no error.
  template <class Token>
  auto async_shutdown(Token&& token) {
    return asio::async_initiate<Token, void(error_code)>(
        [this](auto handler) { Shutdown(Handler(std::move(handler))); }, token);
  }

  // For the WebSocket close (async_teardown below): Beast's teardown of the stream beneath.
  void AsyncTeardown(beast::role_type role, Handler handler);

 private:
  void ReadSome(BufferList<asio::mutable_buffer> buffers, IoHandler handler);
  void WriteSome(BufferList<asio::const_buffer> buffers, IoHandler handler);
  void Handshake(asio::ssl::stream_base::handshake_type type, Handler handler);
  void Shutdown(Handler handler);

  std::variant<TcpStream, tls_type> stream_;
};

template <class TcpStream>
TcpStream& AnyStream<TcpStream>::tcp() noexcept {
  if (auto* plain = std::get_if<0>(&stream_)) return *plain;
  return std::get_if<1>(&stream_)->next_layer();
}

// Beast's customisation points, found by argument-dependent lookup: the WebSocket close tears
// the connection down (TCP shutdown, or the TLS close_notify first), and a failed or timed-out
// WebSocket closes the socket.
template <class TcpStream, class TeardownHandler>
void async_teardown(beast::role_type role, AnyStream<TcpStream>& stream,
                    TeardownHandler&& handler) {
  stream.AsyncTeardown(
      role, typename AnyStream<TcpStream>::Handler(std::forward<TeardownHandler>(handler)));
}

template <class TcpStream>
void beast_close_socket(AnyStream<TcpStream>& stream) {
  beast::close_socket(stream.tcp());
}

extern template class AnyStream<StrandStream>;
extern template class AnyStream<beast::tcp_stream>;

}  // namespace melee
