#include "server/transport/json_log.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <string_view>

namespace melee::server {
namespace {

// %* : the log message, escaped for a JSON string (RFC 8259: quote, backslash, controls).
class JsonEscapedMessage final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& message, const std::tm&,
              spdlog::memory_buf_t& out) override {
    const std::string_view text(message.payload.data(), message.payload.size());
    for (const char c : text) {
      switch (c) {
        case '"':
          Append(out, "\\\"");
          break;
        case '\\':
          Append(out, "\\\\");
          break;
        case '\n':
          Append(out, "\\n");
          break;
        case '\r':
          Append(out, "\\r");
          break;
        case '\t':
          Append(out, "\\t");
          break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
            Append(out, escaped);
          } else {
            out.push_back(c);
          }
      }
    }
  }

  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonEscapedMessage>();
  }

 private:
  static void Append(spdlog::memory_buf_t& out, std::string_view text) {
    out.append(text.data(), text.data() + text.size());
  }
};

}  // namespace

void UseJsonLogs() {
  auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  formatter->add_flag<JsonEscapedMessage>('*').set_pattern(
      R"({"time":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%l","thread":%t,"msg":"%*"})");
  spdlog::set_formatter(std::move(formatter));
}

}  // namespace melee::server
