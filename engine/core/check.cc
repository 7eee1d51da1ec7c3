#include "engine/core/check.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace melee::engine {
namespace {

// A fixed buffer so that reporting a failure never allocates (the failure may be an allocation).
class LineBuffer {
 public:
  void Append(std::string_view text) {
    for (char c : text) {
      if (size_ + 2 < sizeof(data_)) data_[size_++] = c;  // Keep room for '\n' and '\0'.
    }
  }
  void Append(int value) {
    char digits[16];
    auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), value);
    if (ec == std::errc()) Append(std::string_view(digits, static_cast<size_t>(end - digits)));
  }
  const char* Finish() {
    data_[size_++] = '\n';
    data_[size_] = '\0';
    return data_;
  }

 private:
  char data_[1024] = {};
  size_t size_ = 0;
};

}  // namespace

void CheckFailed(const char* expr, const char* msg, const char* file, int line) {
  LineBuffer out;
  out.Append("melee check failed: ");
  out.Append(expr);
  if (msg[0] != '\0') {
    out.Append(" (");
    out.Append(msg);
    out.Append(")");
  }
  out.Append(" at ");
  out.Append(file);
  out.Append(":");
  out.Append(line);
  std::fputs(out.Finish(), stderr);
  std::fflush(stderr);
  std::abort();
}

}  // namespace melee::engine
