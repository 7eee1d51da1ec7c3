#pragma once

// The one header that holds the Asio/Beast includes and namespace aliases (after Beast's
// chat-multi example). Included by server/ and client-sdk/ transport code only.

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

namespace melee {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

// A connection's strand, as a concrete type. Streams and sockets on it skip the type-erased
// any_io_executor, which every asynchronous step copied and queried (4.8 % of the server's
// samples under load were in its functions; docs/benchmarks.md, step 24).
using Strand = asio::strand<asio::io_context::executor_type>;
using StrandSocket = asio::basic_stream_socket<tcp, Strand>;
using StrandStream = beast::basic_stream<tcp, Strand>;

}  // namespace melee
