#pragma once

// A plain blocking HTTP/1.1 request for tests (Beast, compiled once in http_get.cc), with a
// timeout.

#include <boost/beast/http/verb.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace melee {
namespace http = boost::beast::http;
}  // namespace melee

namespace melee::testing {

struct HttpResult {
  int status = 0;
  std::string content_type;
  std::string body;
  std::string error;  // set when the request failed
  std::vector<std::pair<std::string, std::string>> headers;  // every header field, in order

  // Returns the value of the first header field called `name` (any case), or "".
  std::string Header(std::string_view name) const;
};

// Sends one request to 127.0.0.1:`port` (5 s at most) and returns the answer; a JSON `body` is
// sent with its Content-Type.
HttpResult HttpGet(uint16_t port, const std::string& target, http::verb verb = http::verb::get,
                   const std::string& body = {},
                   const std::vector<std::pair<std::string, std::string>>& headers = {});

// Returns the value of the metric line that starts with `name ` in a /metrics body, or -1.
double MetricValue(const std::string& body, const std::string& name);
// Returns the value of metric `name` (a line without labels) of the server on `port`, or -1.
double Metric(uint16_t port, const std::string& name);

// Sends `bytes` as they are on a new connection to 127.0.0.1:`port` and returns everything the
// server sends back until it closes (or 5 s pass); `error` says how the read ended otherwise.
HttpResult RawHttp(uint16_t port, const std::string& bytes);

}  // namespace melee::testing
