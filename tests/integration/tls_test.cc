// TLS: with a certificate and key configured, the server speaks https:// and wss:// only. The
// test makes a throwaway self-signed certificate with OpenSSL and talks to a real server on
// loopback with Beast's TLS streams, verifying the certificate.

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "engine/core/registry.h"
#include "proto/codec/frame.h"
#include "server/net.h"
#include "server/transport/server.h"
#include "tests/testing/certificate.h"
#include "tests/testing/http_get.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace ssl = asio::ssl;

using testing::MakeCertificate;

class TlsTest : public ::testing::Test {
 protected:
  TlsTest() {
    MakeCertificate(dir_.path());
    client_tls_.load_verify_file((dir_.path() / "cert.pem").string());
    client_tls_.set_verify_mode(ssl::verify_peer);
  }

  server::ServerConfig Config() {
    server::ServerConfig config;
    config.tls_certificate = dir_.path() / "cert.pem";
    config.tls_private_key = dir_.path() / "key.pem";
    return config;
  }

  // Connects and completes the TLS handshake (verifying the certificate).
  std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> Connect(uint16_t port) {
    auto stream = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(ioc_, client_tls_);
    beast::get_lowest_layer(*stream).expires_after(std::chrono::seconds(5));
    beast::get_lowest_layer(*stream).connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    stream->handshake(ssl::stream_base::client);
    return stream;
  }

  testing::TempDir dir_;
  asio::io_context ioc_;
  ssl::context client_tls_{ssl::context::tls_client};
};

TEST_F(TlsTest, HttpsAndWssServeWithTheConfiguredCertificate) {
  testing::TestServer server(Config());
  {
    auto stream = Connect(server.port());
    http::request<http::string_body> request{http::verb::get, "/healthz", 11};
    request.set(http::field::host, "127.0.0.1");
    http::write(*stream, request);
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(*stream, buffer, response);
    EXPECT_EQ(response.result_int(), 200u);
    EXPECT_NE(response.body().find("\"status\":\"ok\""), std::string::npos) << response.body();
  }
  websocket::stream<beast::ssl_stream<beast::tcp_stream>> ws(std::move(*Connect(server.port())));
  beast::get_lowest_layer(ws).expires_never();
  ws.handshake("127.0.0.1", "/ws");
  melee::v1::ClientMessage hello;
  hello.set_command_id("tls-1");
  hello.mutable_hello();
  ws.binary(true);
  ws.write(asio::buffer(proto::EncodeClientMessage(hello, proto::FrameKind::kBinary)));
  beast::flat_buffer buffer;
  ws.read(buffer);
  auto reply =
      proto::DecodeServerMessage(beast::buffers_to_string(buffer.data()), proto::FrameKind::kBinary);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->command_id(), "tls-1");
  EXPECT_TRUE(reply->has_hello());
  ws.close(websocket::close_code::normal);
}

TEST_F(TlsTest, PlainHttpIsNotServedWhenTlsIsConfigured) {
  testing::TestServer server(Config());
  const auto plain = testing::HttpGet(server.port(), "/healthz");
  EXPECT_FALSE(plain.error.empty()) << "a plain request gets no HTTP answer";
}

TEST(TlsConfigTest, AMissingKeyIsRefusedAtStart) {
  testing::TempDir dir;
  server::ServerConfig config;
  config.address = "127.0.0.1";
  config.port = 0;
  config.tls_certificate = dir.path() / "cert.pem";
  auto store = persistence::SqliteEventStore::OpenDataDirectory(dir.path() / "data");
  ASSERT_TRUE(store.has_value());
  std::shared_ptr<persistence::EventStore> shared = std::move(*store);
  server::Server server(config, shared, engine::BuiltinRegistry());
  auto started = server.Start();
  ASSERT_FALSE(started.has_value());
  EXPECT_NE(started.error().find("--tls-private-key"), std::string::npos) << started.error();
}

}  // namespace
}  // namespace melee
