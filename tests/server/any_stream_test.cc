// AnyStream over real loopback sockets: a plain stream and a TLS one carry bytes both ways behind
// the one type; a write of more buffers than one write takes still arrives whole and in order; a
// plain stream's handshake and shutdown complete at once; a TLS stream whose handshake met plain
// HTTP goes on as plain TCP (how the server answers http:// on its TLS port).

#include "server/any_stream.h"

#include <gtest/gtest.h>

#include <boost/asio/read.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/write.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tests/testing/certificate.h"
#include "tests/testing/temp_dir.h"

namespace melee {
namespace {

using ServerSide = AnyStream<StrandStream>;       // as the server's sessions hold it
using ClientSide = AnyStream<beast::tcp_stream>;  // as the SDK holds it

// A connected pair of TCP sockets on loopback, both on `io`.
struct Pair {
  explicit Pair(asio::io_context& io) : server(asio::make_strand(io)), client(io) {
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    client.connect(acceptor.local_endpoint());
    acceptor.accept(server);
  }
  StrandSocket server;
  tcp::socket client;
};

std::string Read(ClientSide& stream, std::size_t size, asio::io_context& io) {
  std::string bytes(size, '\0');
  error_code result;
  asio::async_read(stream, asio::buffer(bytes), [&](error_code ec, std::size_t) { result = ec; });
  io.restart();
  io.run();
  EXPECT_FALSE(result) << result.message();
  return bytes;
}

TEST(AnyStreamTest, AWriteOfMoreBuffersThanOneWriteTakesArrivesWholeAndInOrder) {
  asio::io_context io;
  Pair pair(io);
  ServerSide server{StrandStream(std::move(pair.server))};
  ClientSide client{beast::tcp_stream(std::move(pair.client))};
  EXPECT_FALSE(server.is_tls());
  EXPECT_EQ(server.tls(), nullptr);

  // 40 buffers, more than kAnyStreamMaxBuffers: asio::async_write goes on where each write ends.
  std::vector<std::string> parts;
  std::string expected;
  for (int i = 0; i < 40; ++i) {
    parts.push_back("part " + std::to_string(i) + ";");
    expected += parts.back();
  }
  std::vector<asio::const_buffer> buffers;
  for (const std::string& part : parts) buffers.push_back(asio::buffer(part));
  ASSERT_GT(buffers.size(), kAnyStreamMaxBuffers);
  std::size_t written = 0;
  asio::async_write(server, buffers, [&](error_code ec, std::size_t bytes) {
    EXPECT_FALSE(ec) << ec.message();
    written = bytes;
  });
  EXPECT_EQ(Read(client, expected.size(), io), expected);
  EXPECT_EQ(written, expected.size());
}

TEST(AnyStreamTest, APlainStreamsHandshakeAndShutdownCompleteAtOnceWithoutError) {
  asio::io_context io;
  Pair pair(io);
  ServerSide server{StrandStream(std::move(pair.server))};
  std::vector<std::string> done;
  server.async_handshake(asio::ssl::stream_base::server,
                         [&](error_code ec) { done.push_back("handshake: " + ec.message()); });
  server.async_shutdown([&](error_code ec) { done.push_back("shutdown: " + ec.message()); });
  EXPECT_TRUE(done.empty());  // posted, never called from inside the initiating function
  io.run();
  EXPECT_EQ(done, (std::vector<std::string>{"handshake: Success", "shutdown: Success"}));
}

class AnyStreamTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::MakeCertificate(dir_.path());
    server_tls_.use_certificate_chain_file((dir_.path() / "cert.pem").string());
    server_tls_.use_private_key_file((dir_.path() / "key.pem").string(), asio::ssl::context::pem);
    client_tls_.set_verify_mode(asio::ssl::verify_none);
  }

  testing::TempDir dir_;
  asio::ssl::context server_tls_{asio::ssl::context::tls_server};
  asio::ssl::context client_tls_{asio::ssl::context::tls_client};
};

TEST_F(AnyStreamTlsTest, BytesGoBothWaysAfterTheHandshake) {
  asio::io_context io;
  Pair pair(io);
  ServerSide server{ServerSide::tls_type(StrandStream(std::move(pair.server)), server_tls_)};
  ClientSide client{ClientSide::tls_type(beast::tcp_stream(std::move(pair.client)), client_tls_)};
  ASSERT_TRUE(server.is_tls());
  ASSERT_NE(client.tls(), nullptr);

  error_code server_handshake = asio::error::would_block;
  error_code client_handshake = asio::error::would_block;
  server.async_handshake(asio::ssl::stream_base::server,
                         [&](error_code ec) { server_handshake = ec; });
  client.async_handshake(asio::ssl::stream_base::client,
                         [&](error_code ec) { client_handshake = ec; });
  io.run();
  ASSERT_FALSE(server_handshake) << server_handshake.message();
  ASSERT_FALSE(client_handshake) << client_handshake.message();

  const std::string hello = "a close combat, sealed";
  asio::async_write(server, asio::buffer(hello),
                    [](error_code ec, std::size_t) { EXPECT_FALSE(ec) << ec.message(); });
  EXPECT_EQ(Read(client, hello.size(), io), hello);

  const std::string answer = "revealed";
  std::string got(answer.size(), '\0');
  asio::async_write(client, asio::buffer(answer), [](error_code, std::size_t) {});
  asio::async_read(server, asio::buffer(got),
                   [](error_code ec, std::size_t) { EXPECT_FALSE(ec) << ec.message(); });
  io.restart();
  io.run();
  EXPECT_EQ(got, answer);
}

TEST_F(AnyStreamTlsTest, AStreamWhoseHandshakeMetPlainHttpGoesOnAsPlainTcp) {
  asio::io_context io;
  Pair pair(io);
  ServerSide server{ServerSide::tls_type(StrandStream(std::move(pair.server)), server_tls_)};
  ClientSide client{beast::tcp_stream(std::move(pair.client))};

  error_code handshake;
  server.async_handshake(asio::ssl::stream_base::server, [&](error_code ec) { handshake = ec; });
  asio::async_write(client, asio::buffer(std::string_view("GET / HTTP/1.1\r\n\r\n")),
                    [](error_code, std::size_t) {});
  io.run();
  ASSERT_TRUE(handshake);  // OpenSSL read an HTTP request where the ClientHello belongs

  server.DropTls();
  EXPECT_FALSE(server.is_tls());
  const std::string plain = "HTTP/1.1 400 Bad Request\r\n\r\n";
  asio::async_write(server, asio::buffer(plain),
                    [](error_code ec, std::size_t) { EXPECT_FALSE(ec) << ec.message(); });
  EXPECT_EQ(Read(client, plain.size(), io), plain);
}

}  // namespace
}  // namespace melee
