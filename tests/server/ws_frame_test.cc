// The WebSocket frame header the server writes itself (ws_frame.h): RFC 6455's own examples
// (section 5.7), the length boundaries of section 5.2, and a real Beast client on loopback
// reading frames written with it, as every client of the server does.

#include "server/transport/ws_frame.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "server/net.h"

namespace melee::server {
namespace {

std::vector<unsigned> Bytes(const WsFrameHeader& header) {
  return std::vector<unsigned>(header.bytes.begin(), header.bytes.begin() + header.size);
}

TEST(WsFrameHeader, Rfc6455Section57Examples) {
  // "A single-frame unmasked text message: 0x81 0x05 0x48 0x65 0x6c 0x6c 0x6f (contains "Hello")"
  EXPECT_EQ(Bytes(ServerFrameHeader(true, 5)), (std::vector<unsigned>{0x81, 0x05}));
  // "256 bytes binary message in a single unmasked frame: 0x82 0x7E 0x0100 [256 bytes of
  // binary data]"
  EXPECT_EQ(Bytes(ServerFrameHeader(false, 256)), (std::vector<unsigned>{0x82, 0x7E, 0x01, 0x00}));
  // "64KiB binary message in a single unmasked frame: 0x82 0x7F 0x0000000000010000 [65536 bytes
  // of binary data]"
  EXPECT_EQ(Bytes(ServerFrameHeader(false, 65536)),
            (std::vector<unsigned>{0x82, 0x7F, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00}));
}

TEST(WsFrameHeader, Rfc6455Section52UsesTheShortestLength) {
  EXPECT_EQ(Bytes(ServerFrameHeader(false, 0)), (std::vector<unsigned>{0x82, 0}));
  EXPECT_EQ(Bytes(ServerFrameHeader(false, 125)), (std::vector<unsigned>{0x82, 125}));
  EXPECT_EQ(Bytes(ServerFrameHeader(false, 126)), (std::vector<unsigned>{0x82, 126, 0, 126}));
  EXPECT_EQ(Bytes(ServerFrameHeader(true, 65535)), (std::vector<unsigned>{0x81, 126, 0xFF, 0xFF}));
  EXPECT_EQ(Bytes(ServerFrameHeader(true, 0x0102030405060708)),
            (std::vector<unsigned>{0x81, 127, 1, 2, 3, 4, 5, 6, 7, 8}));
}

// A Beast client reads what a Beast server writes with these headers, straight to its socket:
// each length form, text and binary, several frames in one write.
TEST(WsFrameHeader, ABeastClientReadsFramesWrittenWithIt) {
  const std::vector<size_t> sizes = {0, 1, 125, 126, 127, 4096, 65535, 65536, 70000};
  auto payload = [](size_t size, size_t n) {
    return std::string(size, static_cast<char>('a' + n));
  };

  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const unsigned short port = acceptor.local_endpoint().port();
  std::string server_error;
  std::thread server([&] {
    try {
      websocket::stream<tcp::socket> ws(acceptor.accept());
      ws.accept();
      std::vector<WsFrameHeader> headers;
      headers.reserve(sizes.size());
      std::vector<std::string> payloads;
      std::vector<asio::const_buffer> buffers;
      for (size_t n = 0; n < sizes.size(); ++n) {
        payloads.push_back(payload(sizes[n], n));
        headers.push_back(ServerFrameHeader(n % 2 == 0, sizes[n]));
      }
      for (size_t n = 0; n < sizes.size(); ++n) {
        buffers.emplace_back(headers[n].bytes.data(), headers[n].size);
        buffers.emplace_back(payloads[n].data(), payloads[n].size());
      }
      asio::write(ws.next_layer(), buffers);
      // Beast's own close after the frames written around it, as the session does.
      ws.close(websocket::close_code::normal);
      beast::flat_buffer rest;
      error_code ec;
      ws.read(rest, ec);  // the client's answer to the close
    } catch (const std::exception& e) {
      server_error = e.what();
    }
  });

  websocket::stream<tcp::socket> client(io);
  client.next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  client.handshake("127.0.0.1", "/");
  for (size_t n = 0; n < sizes.size(); ++n) {
    beast::flat_buffer buffer;
    client.read(buffer);
    EXPECT_EQ(client.got_text(), n % 2 == 0) << "frame " << n;
    EXPECT_EQ(beast::buffers_to_string(buffer.data()), payload(sizes[n], n))
        << "frame " << n << " of " << sizes[n] << " bytes";
  }
  beast::flat_buffer buffer;
  error_code ec;
  client.read(buffer, ec);
  EXPECT_EQ(ec, websocket::error::closed);
  server.join();
  EXPECT_EQ(server_error, "");
}

}  // namespace
}  // namespace melee::server
