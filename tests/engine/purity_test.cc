// The engine is pure: no I/O, clocks, threads, randomness of its own, exceptions or foreign
// libraries (design.md "Engine contract", house-style.md "Layout and targets"). This test greps
// every file under engine/ and names each offending file:line and token.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace melee::engine {
namespace {

struct Forbidden {
  std::string_view token;
  // When true, the token must not be glued to an identifier on either side, so that
  // "time(" does not match "runtime(" and "float" does not match "floating".
  bool whole_word;
};

constexpr Forbidden kForbidden[] = {
    // I/O.
    {"<iostream>", false},
    {"<fstream>", false},
    {"<sstream>", false},
    {"<cstdio>", false},
    {"<stdio.h>", false},
    {"<filesystem>", false},
    {"<unistd.h>", false},
    {"<sys/", false},
    {"std::cout", false},
    {"std::cerr", false},
    {"std::clog", false},
    {"printf(", false},
    {"puts(", false},
    {"stderr", true},
    {"stdout", true},
    {"getenv", false},
    // Clocks.
    {"<chrono>", false},
    {"<ctime>", false},
    {"<time.h>", false},
    {"time(", true},
    // Threads.
    {"<thread>", false},
    {"<mutex>", false},
    {"<shared_mutex>", false},
    {"<future>", false},
    {"<condition_variable>", false},
    // Randomness the engine does not own.
    {"<random>", false},
    {"_distribution", false},
    {"random_device", false},
    {"mt19937", false},
    {"rand(", true},
    {"srand(", true},
    // Exceptions (bugs hit MELEE_CHECK, untrusted input returns Result).
    {"throw ", true},
    {"throw;", true},
    // Floating point (rules values are integers or Rational).
    {"float", true},
    {"double", true},
    // Foreign libraries.
    {"google/protobuf", false},
    {"protobuf::", false},
    {"boost/", false},
    {"Boost::", false},
    {"asio", true},
    {"sqlite3", false},
    {"SQLite::", false},
    {"openssl", false},
    {"OpenSSL::", false},
    {"Threads::", false},
};

// check.cc reports a failed check on stderr: the one place the engine writes.
constexpr std::string_view kCheckFile = "engine/core/check.cc";
constexpr std::string_view kCheckFileAllowed[] = {"<cstdio>", "puts(", "stderr"};

struct Finding {
  std::string file;
  int line;
  std::string token;
  friend bool operator==(const Finding&, const Finding&) = default;
};

bool IsIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool Allowed(std::string_view file, std::string_view token) {
  if (file != kCheckFile) return false;
  return std::find(std::begin(kCheckFileAllowed), std::end(kCheckFileAllowed), token) !=
         std::end(kCheckFileAllowed);
}

// Returns every forbidden token in `text`, which is the file `file` (relative to the repository).
std::vector<Finding> ScanText(std::string_view file, std::string_view text) {
  std::vector<Finding> findings;
  int line_number = 0;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    ++line_number;
    for (const Forbidden& forbidden : kForbidden) {
      const std::string_view token = forbidden.token;
      for (size_t at = line.find(token); at != std::string_view::npos;
           at = line.find(token, at + 1)) {
        if (forbidden.whole_word) {
          const bool glued_before =
              IsIdentifierChar(token.front()) && at > 0 && IsIdentifierChar(line[at - 1]);
          const size_t after = at + token.size();
          const bool glued_after = IsIdentifierChar(token.back()) && after < line.size() &&
                                   IsIdentifierChar(line[after]);
          if (glued_before || glued_after) continue;
        }
        if (!Allowed(file, token))
          findings.push_back({std::string(file), line_number, std::string(token)});
        break;
      }
    }
    start = end + 1;
  }
  return findings;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

bool IsScanned(const std::filesystem::path& path) {
  static const std::set<std::string> kExtensions = {".h",   ".hpp", ".cc",   ".cpp",
                                                    ".inc", ".txt", ".cmake"};
  return kExtensions.contains(path.extension().string());
}

TEST(PurityTest, ScannerFlagsForbiddenLines) {
  const std::string text =
      "#include <random>\n"
      "int x = 0;\n"
      "  if (bad) throw std::runtime_error(\"no\");\n"
      "std::uniform_int_distribution<int> d(1, 6);\n"
      "auto now = std::time(nullptr); double fp = 2.5;\n"
      "#include <boost/asio.hpp>\n";
  EXPECT_THAT(ScanText("engine/x.cc", text),
              ::testing::UnorderedElementsAre(
                  Finding{"engine/x.cc", 1, "<random>"}, Finding{"engine/x.cc", 3, "throw "},
                  Finding{"engine/x.cc", 4, "_distribution"}, Finding{"engine/x.cc", 5, "time("},
                  Finding{"engine/x.cc", 5, "double"}, Finding{"engine/x.cc", 6, "boost/"},
                  Finding{"engine/x.cc", 6, "asio"}));
}

TEST(PurityTest, ScannerIgnoresLookAlikes) {
  EXPECT_THAT(ScanText("engine/x.cc",
                       "int operand(int);\n"
                       "int Lifetime(int);\n"
                       "// floating point is banned; nothrow; basiotic\n"
                       "double_dispatch x;\n"),
              ::testing::IsEmpty());
}

TEST(PurityTest, OnlyCheckFileMayWriteToStandardError) {
  const std::string text = "#include <cstdio>\nstd::fputs(line, stderr);\n";
  EXPECT_THAT(ScanText("engine/core/check.cc", text), ::testing::IsEmpty());
  EXPECT_THAT(ScanText("engine/core/dice.cc", text), ::testing::SizeIs(3));
  EXPECT_THAT(ScanText("engine/core/check.cc", "#include <iostream>\n"), ::testing::SizeIs(1));
}

TEST(PurityTest, EngineSourcesArePure) {
  const std::filesystem::path root = MELEE_SOURCE_DIR;
  ASSERT_TRUE(std::filesystem::is_directory(root / "engine")) << root;
  std::set<std::string> scanned;
  std::vector<Finding> findings;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "engine")) {
    if (!entry.is_regular_file() || !IsScanned(entry.path())) continue;
    const std::string relative = entry.path().lexically_relative(root).generic_string();
    scanned.insert(relative);
    for (Finding& finding : ScanText(relative, ReadFile(entry.path()))) {
      findings.push_back(std::move(finding));
    }
  }
  for (const Finding& finding : findings) {
    ADD_FAILURE() << finding.file << ":" << finding.line << ": forbidden in the engine: '"
                  << finding.token << "'";
  }
  // Guards against scanning the wrong directory and passing vacuously.
  for (std::string_view expected :
       {"engine/CMakeLists.txt", "engine/engine.h", "engine/core/check.h", "engine/core/check.cc",
        "engine/core/dice.h", "engine/core/dice.cc", "engine/core/rational.h",
        "engine/core/rational.cc", "engine/core/registry.h", "engine/core/registry.cc",
        "engine/core/result.h", "engine/core/result.cc", "engine/core/ruleset.h",
        "engine/core/ruleset.cc"}) {
    EXPECT_TRUE(scanned.contains(std::string(expected))) << "not scanned: " << expected;
  }
}

}  // namespace
}  // namespace melee::engine
