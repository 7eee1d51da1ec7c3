// fuzz_http: bytes from an HTTP client, read by Beast's request parser with the limits the
// server's HTTP session sets (server/transport/sessions.cc), each request then answered by the
// server's routes (HandleHttpRequest) of an in-process server (tests/fuzz/world.h): health,
// metrics, match creation and import, the match's pages and APIs, tournaments, notifications and
// the web client's static files. No sockets: the session's reading loop is played here.
//
// Input layout (tests/fuzz/seeds.cc writes the seeds in it):
//   byte 0        the ruleset of a match created before the first request: 0 asl, 1 coc, 2 vv,
//                 3 none; other values modulo 4
//   then          the bytes a client sends on one connection: requests one after another
//                 (pipelined), as long as each is kept alive
// In a request's target, header values and body, "@match", "@a", "@b", "@d" and "@s" are
// replaced by the match id, side A's, side B's or the director's token, or the spectator key.
//
// What must hold, besides no crash: every request is answered exactly once; every answer
// serializes to a response that Beast reads back with the same status and body; an answer that
// says it is JSON is JSON, in UTF-8.

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <array>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <boost/locale/encoding_utf.hpp>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/check.h"
#include "server/transport/http_routes.h"
#include "tests/fuzz/targets.h"
#include "tests/fuzz/world.h"

namespace melee::fuzz {
namespace {

namespace http = boost::beast::http;

constexpr std::array<const char*, 3> kRulesets = {"asl", "coc", "vv"};
// As sessions.cc's kMaxHttpHeaderBytes.
constexpr std::uint32_t kMaxHttpHeaderBytes = 16 * 1024;

std::string Replaced(std::string text, const std::map<std::string, std::string>& real) {
  for (const auto& [placeholder, value] : real) {
    for (size_t at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + value.size())) {
      text.replace(at, placeholder.size(), value);
    }
  }
  return text;
}

void FillPlaceholders(server::HttpRequest& request,
                      const std::map<std::string, std::string>& real) {
  if (real.empty()) return;
  request.target(Replaced(std::string(request.target()), real));
  std::vector<std::pair<std::string, std::string>> changed;  // set after the walk, which it ends
  for (const auto& field : request) {
    const std::string value(field.value());
    std::string replaced = Replaced(value, real);
    if (replaced != value) changed.emplace_back(field.name_string(), std::move(replaced));
  }
  for (const auto& [name, value] : changed) request.set(name, value);
  request.body() = Replaced(std::move(request.body()), real);
}

// Checks that `response` goes on the wire as a response Beast reads back unchanged.
void CheckSerializes(const server::HttpResponse& response, bool head) {
  std::ostringstream wire;
  wire << response;
  const std::string bytes = wire.str();
  http::response_parser<http::string_body> parser;
  parser.eager(true);
  parser.skip(head);
  parser.body_limit(bytes.size());
  boost::beast::error_code ec;
  parser.put(boost::asio::buffer(bytes), ec);
  if (ec == http::error::need_more || !parser.is_done()) parser.put_eof(ec);
  MELEE_CHECK_MSG(!ec && parser.is_done(), "a response reads back as HTTP");
  MELEE_CHECK_MSG(parser.get().result_int() == response.result_int(),
                  "a response reads back with its status");
  MELEE_CHECK_MSG(head || parser.get().body() == response.body(),
                  "a response reads back with its body");
  // Every JSON answer is JSON (errors are melee.v1.Error in JSON): protobuf's reader is the
  // judge, into a free-form google.protobuf.Value.
  if (!head && response[http::field::content_type] == "application/json") {
    google::protobuf::Value json;
    const auto parsed = google::protobuf::util::JsonStringToMessage(response.body(), &json);
    if (!parsed.ok()) {
      std::cerr << "HTTP " << response.result_int() << " body is not JSON (" << parsed.message()
                << "):\n"
                << response.body() << "\n";
    }
    MELEE_CHECK_MSG(parsed.ok(), "a JSON answer is JSON");
    MELEE_CHECK_MSG(boost::locale::conv::utf_to_utf<char>(response.body()) == response.body(),
                    "a JSON answer is UTF-8");
  }
}

}  // namespace

Reached FuzzHttp(std::string_view input) {
  Reached reached;
  if (input.empty()) return reached;
  World& world = SharedWorld();
  const size_t ruleset = static_cast<uint8_t>(input[0]) % 4;
  input.remove_prefix(1);
  std::map<std::string, std::string> placeholders;
  if (ruleset < kRulesets.size()) {
    const CreatedMatch match = world.CreateMatch(kRulesets[ruleset]);
    placeholders = {{"@match", match.match_id},
                    {"@a", match.side_a_token},
                    {"@b", match.side_b_token},
                    {"@d", match.director_token},
                    {"@s", match.spectator_key}};
  }

  while (!input.empty()) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(kMaxHttpHeaderBytes);
    parser.body_limit(world.context().config.max_http_body_bytes);
    parser.eager(true);
    boost::beast::error_code ec;
    const size_t used = parser.put(boost::asio::buffer(input.data(), input.size()), ec);
    input.remove_prefix(used);
    if (ec == http::error::need_more) {
      parser.put_eof(ec);  // the client sent no more: what the session reads at end of stream
      input = {};
    }
    if (ec || !parser.is_done()) break;
    server::HttpRequest request = parser.release();
    ++reached.parsed;
    if (boost::beast::websocket::is_upgrade(request))
      break;  // the WebSocket session's (fuzz_frame)
    FillPlaceholders(request, placeholders);
    const bool head = request.method() == http::verb::head;

    auto awaited = std::make_shared<Awaited<server::HttpResponse>>();
    server::HandleHttpRequest(
        request, "127.0.0.1", world.context(),
        [awaited](server::HttpResponse response) { awaited->Set(std::move(response)); });
    world.RunUntil([&awaited] { return awaited->ready(); });
    const server::HttpResponse answer = awaited->Take();
    CheckSerializes(answer, head);
    if (answer.result_int() / 100 == 2) ++reached.accepted;
    if (!answer.keep_alive()) break;
  }
  return reached;
}

}  // namespace melee::fuzz
