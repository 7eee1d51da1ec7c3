// The README's play-by-email guide, run verbatim: its shell blocks, in order, as one script,
// with the real `melee` command line against a real server (the dice scripted so that the
// guide's game is the one played).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/testing/scripted_faces.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

// The ```sh blocks between the pbem-guide markers of README.md, joined in order.
std::string GuideScript() {
  std::ifstream in(std::string(MELEE_SOURCE_DIR) + "/README.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const size_t begin = readme.find("<!-- pbem-guide:start -->");
  const size_t end = readme.find("<!-- pbem-guide:end -->");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return {};
  std::string script;
  std::istringstream lines(readme.substr(begin, end - begin));
  std::string line;
  bool in_block = false;
  while (std::getline(lines, line)) {
    if (!in_block && line == "```sh") {
      in_block = true;
    } else if (in_block && line == "```") {
      in_block = false;
    } else if (in_block) {
      script += line + "\n";
    }
  }
  return script;
}

bool Contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(PbemGuide, TheReadmeGameRunsVerbatim) {
  const std::string guide = GuideScript();
  ASSERT_FALSE(guide.empty()) << "README.md has no pbem-guide block";
  testing::ScriptedFaces faces(4);
  // Alice's CC DR is an Original 2 (A11.22: G1 may withdraw); then Bob's DR 11: no effect.
  faces.Push({1, 1, 5, 6});
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  testing::TestServer server({}, hooks);
  testing::TempDir dir;

  const std::string cli_dir = std::filesystem::path(MELEE_CLI_BINARY).parent_path().string();
  const std::string path = cli_dir + ":" + (std::getenv("PATH") ? std::getenv("PATH") : "");
  ASSERT_EQ(setenv("PATH", path.c_str(), 1), 0);
  ASSERT_EQ(setenv("MELEE_SERVER", server.ws_url().c_str(), 1), 0);
  const std::string script = "set -euo pipefail\ncd '" + dir.path().string() + "'\n" + guide;
  testing::Subprocess bash({"/bin/bash", "-c", script});
  const auto code = bash.Wait(std::chrono::seconds(60));
  const std::string& output = bash.output();
  ASSERT_EQ(code, 0) << output;

  for (const char* expected : {
           "Created match",                              // match create
           "side_b entered its units: R1 4-4-7, R2 ?",   // Alice's status: R2 stays hidden
           "receipt ",                                   // a sealed declaration's receipt
           "side_b sealed its declaration",              // all Alice sees of Bob's seal
           "declarations revealed",                      // both together
           "choice 1 for side_a (A11.22)",               // the Original 2
           "the close combat is over",                   // Bob's last status
       }) {
    EXPECT_TRUE(Contains(output, expected)) << expected << "\n" << output;
  }
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "hill621" / "side_b.seat"));
}

}  // namespace
}  // namespace melee
