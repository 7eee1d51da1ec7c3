#pragma once

// One blocking HTTP(S) request to a Melee server's HTTP API (match files, the server key), for
// the `melee` command line. The server is named by its WebSocket URL (ws://host:port/ws, as in
// seat files) or its HTTP URL; wss:// and https:// check the certificate like SyncClient.

#include <chrono>
#include <string>

#include "client-sdk/sync_client.h"

namespace melee::client {

struct HttpReply {
  int status = 0;
  std::string content_type;
  std::string body;
};

struct HttpRequestSpec {
  std::string method = "GET";  // GET or POST
  std::string path;            // e.g. "/api/server-key"
  std::string body;            // POST: sent as application/json
  std::string bearer_token;    // sent as "Authorization: Bearer <token>" when set
};

// Sends `request` to the server at `server_url` and returns its answer (any status), or why
// no answer came (unreachable, TLS failure, timeout).
ClientResult<HttpReply> HttpCall(const std::string& server_url, const HttpRequestSpec& request,
                                 const TlsOptions& tls = {},
                                 std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace melee::client
