// TLS: with a certificate and key configured, the server speaks https:// and wss:// only. The
// test makes a throwaway self-signed certificate with OpenSSL and talks to a real server on
// loopback with Beast's TLS streams, verifying the certificate. What it refuses (plain HTTP on the
// TLS port, TLS 1.0 and 1.1, a client that does not trust or finds expired the server's
// certificate) is refused with a clear error and counted in /metrics as
// melee_tls_handshake_failures_total{reason="..."}; client certificates are never asked for.

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

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

  // Returns the error of a TLS handshake with `tls` (none when it succeeded).
  error_code Handshake(uint16_t port, ssl::context& tls) {
    beast::ssl_stream<beast::tcp_stream> stream(ioc_, tls);
    beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(5));
    beast::get_lowest_layer(stream).connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    error_code ec;
    stream.handshake(ssl::stream_base::client, ec);
    return ec;
  }

  // Returns GET `target` over TLS (the body, or the error).
  std::string HttpsGet(uint16_t port, const std::string& target) {
    auto stream = Connect(port);
    http::request<http::string_body> request{http::verb::get, target, 11};
    request.set(http::field::host, "127.0.0.1");
    http::write(*stream, request);
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(*stream, buffer, response);
    return response.body();
  }

  // Returns the value of melee_tls_handshake_failures_total{reason="<reason>"} in /metrics
  // (fetched over TLS: that handshake succeeds) once it is at least `count`; the server counts a
  // refusal just after the client sees it, so this asks again until then (10 s at most).
  std::string WaitForTlsFailures(uint16_t port, const std::string& reason, int count) {
    const std::string series = "melee_tls_handshake_failures_total{reason=\"" + reason + "\"} ";
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::string metrics;
    while (true) {
      metrics = HttpsGet(port, "/metrics");
      const std::size_t at = metrics.find(series);
      if (at != std::string::npos &&
          std::stoi(metrics.substr(at + series.size())) >= count) {
        return metrics.substr(at, metrics.find('\n', at) - at);
      }
      if (std::chrono::steady_clock::now() > give_up) return "not counted:\n" + metrics;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  testing::TempDir dir_;
  asio::io_context ioc_;
  ssl::context client_tls_{ssl::context::tls_client};
};

// A client context that offers only `version` (TLS1_VERSION, TLS1_1_VERSION), as an old client
// would: OpenSSL 3 sends such a ClientHello only at security level 0.
std::unique_ptr<ssl::context> OldClient(int version) {
  auto tls = std::make_unique<ssl::context>(ssl::context::tls_client);
  SSL_CTX_set_security_level(tls->native_handle(), 0);
  SSL_CTX_set_min_proto_version(tls->native_handle(), version);
  SSL_CTX_set_max_proto_version(tls->native_handle(), version);
  SSL_CTX_set_cipher_list(tls->native_handle(), "DEFAULT:@SECLEVEL=0");
  tls->set_verify_mode(ssl::verify_none);
  return tls;
}

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

TEST_F(TlsTest, PlainHttpOnTheTlsPortIsAnsweredWithA400SayingHttps) {
  testing::TestServer server(Config());
  const auto plain = testing::HttpGet(server.port(), "/healthz");
  ASSERT_TRUE(plain.error.empty()) << plain.error;
  EXPECT_EQ(plain.status, 400);
  EXPECT_NE(plain.body.find("ERROR_CODE_PROTOCOL_MISMATCH"), std::string::npos) << plain.body;
  EXPECT_NE(plain.body.find("this port speaks TLS only: use https://"), std::string::npos)
      << plain.body;
  EXPECT_EQ(WaitForTlsFailures(server.port(), "http_request", 1),
            "melee_tls_handshake_failures_total{reason=\"http_request\"} 1");
}

TEST_F(TlsTest, Tls10AndTls11AreRefused) {
  testing::TestServer server(Config());
  for (const int version : {TLS1_VERSION, TLS1_1_VERSION}) {
    SCOPED_TRACE(version == TLS1_VERSION ? "TLS 1.0" : "TLS 1.1");
    auto old = OldClient(version);
    const error_code refused = Handshake(server.port(), *old);
    ASSERT_TRUE(refused) << "the handshake succeeded";
    // What the client sees: the server's protocol_version alert.
    EXPECT_NE(refused.message().find("protocol version"), std::string::npos) << refused.message();
  }
  EXPECT_EQ(WaitForTlsFailures(server.port(), "unsupported_protocol", 2),
            "melee_tls_handshake_failures_total{reason=\"unsupported_protocol\"} 2");
  // TLS 1.2 is still served.
  auto tls12 = OldClient(TLS1_2_VERSION);
  EXPECT_FALSE(Handshake(server.port(), *tls12));
}

TEST_F(TlsTest, AClientThatDoesNotTrustTheCertificateIsCountedByItsAlert) {
  testing::TestServer server(Config());
  ssl::context untrusting(ssl::context::tls_client);  // trusts no CA at all
  untrusting.set_verify_mode(ssl::verify_peer);
  const error_code refused = Handshake(server.port(), untrusting);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused.message().find("certificate verify failed"), std::string::npos)
      << refused.message();
  EXPECT_EQ(WaitForTlsFailures(server.port(), "tlsv1_alert_unknown_ca", 1),
            "melee_tls_handshake_failures_total{reason=\"tlsv1_alert_unknown_ca\"} 1");
}

TEST_F(TlsTest, AnExpiredServerCertificateIsCountedByTheClientsAlert) {
  // The server's certificate expired an hour ago; the client trusts it otherwise.
  testing::MakeCertificate(dir_.path(), -7200, -3600, "expired-");
  ssl::context trusting(ssl::context::tls_client);
  trusting.load_verify_file((dir_.path() / "expired-cert.pem").string());
  trusting.set_verify_mode(ssl::verify_peer);
  server::ServerConfig config;
  config.tls_certificate = dir_.path() / "expired-cert.pem";
  config.tls_private_key = dir_.path() / "expired-key.pem";
  testing::TestServer server(config);
  const error_code refused = Handshake(server.port(), trusting);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused.message().find("certificate verify failed"), std::string::npos)
      << refused.message();
  // The count is read with a client that does not check the dates (the certificate expired).
  client_tls_.set_verify_mode(ssl::verify_none);
  EXPECT_EQ(WaitForTlsFailures(server.port(), "sslv3_alert_certificate_expired", 1),
            "melee_tls_handshake_failures_total{reason=\"sslv3_alert_certificate_expired\"} 1");
}

TEST_F(TlsTest, ClientCertificatesAreNeverAskedFor) {
  // Seat and director tokens authenticate; the server sends no CertificateRequest, so a client
  // holding an expired, untrusted certificate of its own never sends it and is served.
  testing::MakeCertificate(dir_.path(), -7200, -3600, "client-");
  testing::TestServer server(Config());
  client_tls_.use_certificate_chain_file((dir_.path() / "client-cert.pem").string());
  client_tls_.use_private_key_file((dir_.path() / "client-key.pem").string(), ssl::context::pem);
  EXPECT_NE(HttpsGet(server.port(), "/healthz").find("\"status\":\"ok\""), std::string::npos);
  const std::string metrics = HttpsGet(server.port(), "/metrics");
  EXPECT_EQ(metrics.find("melee_tls_handshake_failures_total{"), std::string::npos) << metrics;
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
