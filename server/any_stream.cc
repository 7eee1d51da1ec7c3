// AnyStream's operations on the stream beneath: the socket's and TLS's operations, compiled
// here once for the whole program with a type-erased handler (any_stream.h says why).

#include "server/any_stream.h"

#include <boost/asio/append.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/flat_stream.hpp>
#include <boost/beast/websocket/teardown.hpp>

namespace melee {

template <class TcpStream>
void AnyStream<TcpStream>::DropTls() {
  if (auto* secure = tls()) {
    TcpStream plain(std::move(secure->next_layer()));
    stream_.template emplace<0>(std::move(plain));
  }
}

// Each operation goes to the stream beneath with the erased handler bound to the stream's own
// executor (any_stream.h says why).

template <class TcpStream>
void AnyStream<TcpStream>::ReadSome(BufferList<asio::mutable_buffer> buffers, IoHandler handler) {
  auto bound = asio::bind_executor(get_executor(), std::move(handler));
  if (auto* plain = std::get_if<0>(&stream_)) {
    plain->async_read_some(buffers, std::move(bound));
  } else {
    tls()->async_read_some(buffers, std::move(bound));
  }
}

template <class TcpStream>
void AnyStream<TcpStream>::WriteSome(BufferList<asio::const_buffer> buffers, IoHandler handler) {
  auto bound = asio::bind_executor(get_executor(), std::move(handler));
  if (auto* plain = std::get_if<0>(&stream_)) {
    plain->async_write_some(buffers, std::move(bound));
  } else {
    tls()->async_write_some(buffers, std::move(bound));
  }
}

template <class TcpStream>
void AnyStream<TcpStream>::Handshake(asio::ssl::stream_base::handshake_type type, Handler handler) {
  auto bound = asio::bind_executor(get_executor(), std::move(handler));
  if (auto* secure = tls()) {
    secure->async_handshake(type, std::move(bound));
  } else {
    asio::post(asio::append(std::move(bound), error_code{}));
  }
}

template <class TcpStream>
void AnyStream<TcpStream>::Shutdown(Handler handler) {
  auto bound = asio::bind_executor(get_executor(), std::move(handler));
  if (auto* secure = tls()) {
    secure->async_shutdown(std::move(bound));
  } else {
    asio::post(asio::append(std::move(bound), error_code{}));
  }
}

template <class TcpStream>
void AnyStream<TcpStream>::AsyncTeardown(beast::role_type role, Handler handler) {
  using beast::websocket::async_teardown;
  auto bound = asio::bind_executor(get_executor(), std::move(handler));
  if (auto* plain = std::get_if<0>(&stream_)) {
    async_teardown(role, *plain, std::move(bound));
  } else {
    async_teardown(role, *tls(), std::move(bound));
  }
}

template class AnyStream<StrandStream>;
template class AnyStream<beast::tcp_stream>;

}  // namespace melee
