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

}  // namespace melee
