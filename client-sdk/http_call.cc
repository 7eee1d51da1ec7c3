#include "client-sdk/http_call.h"

#include <boost/asio/ssl.hpp>
#include <boost/url/parse.hpp>
#include <optional>

#include "server/any_stream.h"
#include "server/net.h"

namespace melee::client {
namespace {

namespace ssl = asio::ssl;

ClientError Failure(std::string message) { return ClientError{std::move(message), {}, "", false}; }

using Stream = AnyStream<beast::tcp_stream>;  // http:// or https:// (server/any_stream.h)

// Connects, shakes hands (TLS), writes `request` and reads the answer, all within the stream's
// expiry: every step is asynchronous so that the timeout covers each one.
error_code Exchange(asio::io_context& ioc, Stream& stream, const tcp::resolver::results_type& endpoints,
                    http::request<http::string_body>& request,
                    http::response_parser<http::string_body>& response) {
  error_code result;
  beast::flat_buffer buffer;
  const auto exchange = [&] {
    http::async_write(stream, request, [&](error_code ec, std::size_t) {
      if (ec) {
        result = ec;
        return;
      }
      http::async_read(stream, buffer, response,
                       [&](error_code read_ec, std::size_t) { result = read_ec; });
    });
  };
  stream.tcp().async_connect(endpoints, [&](error_code ec, const tcp::endpoint&) {
    if (ec) {
      result = ec;
      return;
    }
    // The TLS handshake (on a plain stream it completes at once), then the exchange.
    stream.async_handshake(ssl::stream_base::client, [&](error_code handshake_ec) {
      if (handshake_ec) {
        result = handshake_ec;
        return;
      }
      exchange();
    });
  });
  ioc.run();
  return result;
}

}  // namespace

ClientResult<HttpReply> HttpCall(const std::string& server_url, const HttpRequestSpec& spec,
                                 const TlsOptions& tls, std::chrono::milliseconds timeout) {
  auto parsed = boost::urls::parse_uri(server_url);
  if (!parsed) return tl::unexpected(Failure("not a URL: '" + server_url + "'"));
  const std::string scheme(parsed->scheme());
  if (scheme != "ws" && scheme != "wss" && scheme != "http" && scheme != "https") {
    return tl::unexpected(Failure("not supported: scheme '" + scheme + "'"));
  }
  const bool secure = scheme == "wss" || scheme == "https";
  const std::string host = parsed->host();
  const std::string port =
      parsed->has_port() ? std::string(parsed->port()) : (secure ? "443" : "80");

  http::request<http::string_body> request{
      spec.method == "POST" ? http::verb::post : http::verb::get, spec.path, 11};
  request.set(http::field::host, host + ":" + port);
  request.set(http::field::user_agent, "melee-cli");
  request.keep_alive(false);
  if (!spec.bearer_token.empty()) {
    request.set(http::field::authorization, "Bearer " + spec.bearer_token);
  }
  if (spec.method == "POST") {
    request.set(http::field::content_type, "application/json");
    request.body() = spec.body;
    request.prepare_payload();
  }

  asio::io_context ioc;
  tcp::resolver resolver(ioc);
  error_code ec;
  const auto endpoints = resolver.resolve(host, port, ec);
  if (ec) return tl::unexpected(Failure("cannot resolve " + host + ": " + ec.message()));

  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);  // a long match's file
  const std::string where = scheme + "://" + host + ":" + port + spec.path;
  std::optional<ssl::context> context;
  std::optional<Stream> stream;
  if (!secure) {
    stream.emplace(beast::tcp_stream(ioc));
  } else {
    context.emplace(ssl::context::tls_client);
    if (!tls.ca_file.empty()) {
      context->load_verify_file(tls.ca_file, ec);
    } else {
      context->set_default_verify_paths(ec);
    }
    if (ec) return tl::unexpected(Failure("cannot load the trusted certificates: " + ec.message()));
    context->set_verify_mode(tls.verify_peer ? ssl::verify_peer : ssl::verify_none);
    stream.emplace(Stream::tls_type(beast::tcp_stream(ioc), *context));
    // SSL_set_tlsext_host_name without its C cast: the name for SNI.
    SSL_ctrl(stream->tls()->native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME,
             TLSEXT_NAMETYPE_host_name, const_cast<char*>(host.c_str()));
    stream->tls()->set_verify_callback(ssl::host_name_verification(host));
  }
  stream->tcp().expires_after(timeout);
  ec = Exchange(ioc, *stream, endpoints, request, parser);
  if (ec == beast::error::timeout) return tl::unexpected(Failure("timed out waiting for " + where));
  if (ec) return tl::unexpected(Failure("no answer from " + where + ": " + ec.message()));
  http::response<http::string_body> response = parser.release();
  HttpReply reply;
  reply.status = static_cast<int>(response.result_int());
  reply.content_type = std::string(response[http::field::content_type]);
  reply.body = std::move(response.body());
  return reply;
}

}  // namespace melee::client
