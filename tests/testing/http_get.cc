#include "tests/testing/http_get.h"

#include <chrono>

#include "server/net.h"

namespace melee::testing {

std::string HttpResult::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (beast::iequals(key, name)) return value;
  }
  return {};
}

HttpResult HttpGet(uint16_t port, const std::string& target, http::verb verb,
                   const std::string& body,
                   const std::vector<std::pair<std::string, std::string>>& headers) {
  HttpResult result;
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.expires_after(std::chrono::seconds(5));
  beast::flat_buffer buffer;
  http::request<http::string_body> request{verb, target, 11};
  request.set(http::field::host, "127.0.0.1");
  request.keep_alive(false);
  for (const auto& [name, value] : headers) request.set(name, value);
  if (!body.empty()) {
    request.set(http::field::content_type, "application/json");
    request.body() = body;
    request.prepare_payload();
  }
  http::response<http::string_body> response;
  stream.async_connect(
      tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), [&](error_code ec) {
        if (ec) {
          result.error = "connect: " + ec.message();
          return;
        }
        http::async_write(stream, request, [&](error_code wec, std::size_t) {
          if (wec) {
            result.error = "write: " + wec.message();
            return;
          }
          http::async_read(stream, buffer, response, [&](error_code rec, std::size_t) {
            if (rec) result.error = "read: " + rec.message();
          });
        });
      });
  ioc.run();
  if (result.error.empty()) {
    result.status = static_cast<int>(response.result_int());
    result.content_type = std::string(response[http::field::content_type]);
    result.body = response.body();
    for (const auto& field : response) {
      result.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
  }
  return result;
}

HttpResult RawHttp(uint16_t port, const std::string& bytes) {
  HttpResult result;
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.expires_after(std::chrono::seconds(5));
  std::string answer;
  auto into = asio::dynamic_buffer(answer);
  stream.async_connect(
      tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), [&](error_code ec) {
        if (ec) {
          result.error = "connect: " + ec.message();
          return;
        }
        asio::async_write(stream, asio::buffer(bytes), [&](error_code wec, std::size_t) {
          if (wec) {
            result.error = "write: " + wec.message();
            return;
          }
          asio::async_read(stream, into, [&](error_code rec, std::size_t) {
            if (rec && rec != asio::error::eof) result.error = "read: " + rec.message();
          });
        });
      });
  ioc.run();
  // "HTTP/1.1 431 ..." -> 431
  if (answer.starts_with("HTTP/1.1 ") && answer.size() >= 12) {
    result.status = std::stoi(answer.substr(9, 3));
  }
  result.body = std::move(answer);  // the whole answer, status line and headers included
  return result;
}

double MetricValue(const std::string& body, const std::string& name) {
  const std::string prefix = "\n" + name + " ";
  const std::size_t at = body.find(prefix);
  if (at == std::string::npos) return -1;
  return std::stod(body.substr(at + prefix.size()));
}

double Metric(uint16_t port, const std::string& name) {
  return MetricValue(HttpGet(port, "/metrics").body, name);
}

}  // namespace melee::testing
