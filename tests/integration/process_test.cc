// The real executables, started as a user would start them.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/testing/http_get.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace melee {
namespace {

using std::chrono::seconds;

// Starts melee-server on a free port in `data_dir`; returns the port, or 0.
uint16_t StartServer(testing::Subprocess& server) {
  if (!server.WaitForOutput("(WebSocket at /ws)", seconds(20))) return 0;
  const std::string marker = "listening on http://127.0.0.1:";
  const std::size_t at = server.output().find(marker);
  if (at == std::string::npos) return 0;
  return static_cast<uint16_t>(std::atoi(server.output().c_str() + at + marker.size()));
}

TEST(ProcessTest, ServerHelpListsItsOptions) {
  testing::Subprocess help({MELEE_SERVER_BINARY, "--help"});
  ASSERT_EQ(help.Wait(seconds(20)), 0) << help.output();
  for (const char* option :
       {"--listen", "--port", "--data-dir", "--threads", "--max-message-bytes"}) {
    EXPECT_NE(help.output().find(option), std::string::npos) << option << "\n" << help.output();
  }
}

TEST(ProcessTest, CliHelpListsItsSubcommandsAndExitCodes) {
  testing::Subprocess help({MELEE_CLI_BINARY, "--help"});
  ASSERT_EQ(help.Wait(seconds(20)), 0) << help.output();
  EXPECT_NE(help.output().find("hello"), std::string::npos) << help.output();
  EXPECT_NE(help.output().find("Exit codes"), std::string::npos) << help.output();
  testing::Subprocess sub_help({MELEE_CLI_BINARY, "hello", "--help"});
  EXPECT_EQ(sub_help.Wait(seconds(20)), 0) << sub_help.output();
}

TEST(ProcessTest, ServerRunsAnswersAndStopsCleanlyOnSigterm) {
  testing::TempDir dir;
  const std::string data = (dir.path() / "data").string();
  testing::Subprocess server(
      {MELEE_SERVER_BINARY, "--port", "0", "--data-dir", data, "--threads", "2"});
  const uint16_t port = StartServer(server);
  ASSERT_NE(port, 0) << server.output();

  const auto health = testing::HttpGet(port, "/healthz");
  EXPECT_EQ(health.status, 200) << health.error << health.body;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "data" / "melee.db"));

  const std::string url = "ws://127.0.0.1:" + std::to_string(port) + "/ws";
  testing::Subprocess hello({MELEE_CLI_BINARY, "--server", url, "hello"});
  ASSERT_EQ(hello.Wait(seconds(20)), 0) << hello.output();
  EXPECT_NE(hello.output().find("melee-server 0.1.0, protocol 1"), std::string::npos)
      << hello.output();
  testing::Subprocess hello_json({MELEE_CLI_BINARY, "--server", url, "hello", "--json"});
  ASSERT_EQ(hello_json.Wait(seconds(20)), 0) << hello_json.output();
  EXPECT_NE(hello_json.output().find("\"server_name\": \"melee-server\""), std::string::npos)
      << hello_json.output();

  EXPECT_EQ(server.SignalAndWait(SIGTERM, seconds(10)), 0) << server.output();
  EXPECT_NE(server.output().find("melee-server stopped"), std::string::npos) << server.output();
}

TEST(ProcessTest, ServerStopsOnSigintToo) {
  testing::TempDir dir;
  testing::Subprocess server(
      {MELEE_SERVER_BINARY, "--port", "0", "--data-dir", (dir.path() / "d").string()});
  ASSERT_NE(StartServer(server), 0) << server.output();
  EXPECT_EQ(server.SignalAndWait(SIGINT, seconds(10)), 0) << server.output();
}

TEST(ProcessTest, CliReportsAnUnreachableServerWithExitCode3) {
  testing::Subprocess hello({MELEE_CLI_BINARY, "--server", "ws://127.0.0.1:1/ws", "hello"});
  EXPECT_EQ(hello.Wait(seconds(20)), 3) << hello.output();
  EXPECT_NE(hello.output().find("cannot connect"), std::string::npos) << hello.output();
}

TEST(ProcessTest, ServerRefusesAnUnusableDataDirectory) {
  testing::TempDir dir;
  std::ofstream(dir.path() / "file") << "x";
  testing::Subprocess server(
      {MELEE_SERVER_BINARY, "--port", "0", "--data-dir", (dir.path() / "file" / "data").string()});
  EXPECT_EQ(server.Wait(seconds(20)), 1) << server.output();
  EXPECT_NE(server.output().find("cannot create data directory"), std::string::npos)
      << server.output();
}

}  // namespace
}  // namespace melee
