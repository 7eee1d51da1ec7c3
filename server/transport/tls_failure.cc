#include "server/transport/tls_failure.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/ssl/error.hpp>
#include <cctype>

namespace melee::server {
namespace {

// Returns OpenSSL's reason string in snake case: "tlsv1 alert unknown ca" ->
// "tlsv1_alert_unknown_ca".
std::string Label(const char* text) {
  std::string label;
  for (const char* c = text; *c != '\0'; ++c) {
    const auto byte = static_cast<unsigned char>(*c);
    if (std::isalnum(byte)) {
      label += static_cast<char>(std::tolower(byte));
    } else if (!label.empty() && label.back() != '_') {
      label += '_';
    }
  }
  while (!label.empty() && label.back() == '_') label.pop_back();
  return label;
}

// What an OpenSSL reason means for the server's operator (the ones a client can cause).
std::string Explain(int reason, const std::string& label) {
  switch (reason) {
    case SSL_R_HTTP_REQUEST:
    case SSL_R_HTTPS_PROXY_REQUEST:
      return "plain HTTP sent to the TLS port (the client must use https:// or wss://)";
    case SSL_R_UNSUPPORTED_PROTOCOL:
    case SSL_R_VERSION_TOO_LOW:
    case SSL_R_NO_PROTOCOLS_AVAILABLE:
    case SSL_R_TLSV1_ALERT_PROTOCOL_VERSION:
      return "the client offers only protocol versions this server refuses (TLS 1.0, TLS 1.1 "
             "or SSL); it speaks TLS 1.2 and 1.3";
    case SSL_R_WRONG_VERSION_NUMBER:
    case SSL_R_PACKET_LENGTH_TOO_LONG:
      return "the client does not speak TLS (its first bytes are not a TLS record)";
    case SSL_R_NO_SHARED_CIPHER:
      return "the client offers no cipher suite this server accepts";
    case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
    case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
      return "the client does not trust this server's certificate: check that --tls-certificate "
             "holds the whole chain up to a CA the clients know";
    case SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED:
      return "the client says this server's certificate has expired: renew --tls-certificate";
    default:
      return "OpenSSL: " + label;
  }
}

}  // namespace

TlsFailure DescribeTlsFailure(const error_code& ec) {
  if (ec.category() == asio::error::get_ssl_category()) {
    const auto code = static_cast<unsigned long>(static_cast<unsigned int>(ec.value()));
    const int reason = ERR_GET_REASON(code);
    const char* text = ERR_reason_error_string(code);
    const std::string label =
        text != nullptr ? Label(text) : "openssl_reason_" + std::to_string(reason);
    return TlsFailure{label, Explain(reason, label),
                      reason == SSL_R_HTTP_REQUEST || reason == SSL_R_HTTPS_PROXY_REQUEST};
  }
  if (ec == beast::error::timeout) {
    return TlsFailure{"timeout", "the client sent no complete handshake in time", false};
  }
  if (ec == asio::error::eof || ec == asio::ssl::error::stream_truncated ||
      ec == asio::error::connection_reset || ec == asio::error::broken_pipe) {
    return TlsFailure{
        "closed", "the client closed the connection during the handshake (" + ec.message() + ")",
        false};
  }
  if (ec == asio::error::operation_aborted) {
    return TlsFailure{"closed", "the server closed the connection (shutting down)", false};
  }
  return TlsFailure{"other", ec.message(), false};
}

}  // namespace melee::server
