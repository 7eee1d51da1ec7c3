#pragma once

// Why a TLS handshake failed, said for the log and counted in /metrics
// (melee_tls_handshake_failures_total{reason="..."}).

#include <string>

#include "server/net.h"

namespace melee::server {

struct TlsFailure {
  // A label value: OpenSSL's reason for the failure in snake case ("http_request",
  // "unsupported_protocol", "tlsv1_alert_unknown_ca", ...), or "timeout", "closed" (the client
  // went away during the handshake), "other". A small set: OpenSSL's reasons are a fixed list.
  std::string reason;
  // What it means for the person running the server, e.g. "plain HTTP sent to the TLS port".
  std::string explanation;
  // The client sent an HTTP request where its TLS ClientHello belongs (OpenSSL answered nothing):
  // the server answers it in plain HTTP, saying to use https://.
  bool plain_http = false;
};

// Describes `ec`, the error of a server-side TLS handshake (asio::ssl::stream::async_handshake).
TlsFailure DescribeTlsFailure(const error_code& ec);

}  // namespace melee::server
