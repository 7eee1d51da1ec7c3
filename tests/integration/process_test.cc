// The real executables, started as a user would start them.

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/testing/close_combat.h"
#include "tests/testing/http_get.h"
#include "tests/testing/match_client.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace melee {
namespace {

using std::chrono::seconds;

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
  const uint16_t port = testing::ServerPort(server);
  ASSERT_NE(port, 0) << server.output();

  const auto health = testing::HttpGet(port, "/healthz");
  EXPECT_EQ(health.status, 200) << health.error << health.body;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "data" / "melee.db"));

  const std::string url = "ws://127.0.0.1:" + std::to_string(port) + "/ws";
  testing::Subprocess hello({MELEE_CLI_BINARY, "--server", url, "hello"});
  ASSERT_EQ(hello.Wait(seconds(20)), 0) << hello.output();
  EXPECT_NE(hello.output().find("melee-server 0.1.0, protocol 1"), std::string::npos)
      << hello.output();
  // Global options work after the subcommand as well (CLI11 fallthrough).
  testing::Subprocess hello_after({MELEE_CLI_BINARY, "hello", "--server", url});
  ASSERT_EQ(hello_after.Wait(seconds(20)), 0) << hello_after.output();
  testing::Subprocess create_after({MELEE_CLI_BINARY, "match", "create", "--out",
                                    (dir.path() / "seats").string(), "--server", url,
                                    "--ca-file", ""});
  ASSERT_EQ(create_after.Wait(seconds(20)), 0) << create_after.output();
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "seats" / "side_a.seat"));
  testing::Subprocess hello_json({MELEE_CLI_BINARY, "--server", url, "hello", "--json"});
  ASSERT_EQ(hello_json.Wait(seconds(20)), 0) << hello_json.output();
  EXPECT_NE(hello_json.output().find("\"server_name\": \"melee-server\""), std::string::npos)
      << hello_json.output();

  EXPECT_EQ(server.SignalAndWait(SIGTERM, seconds(10)), 0) << server.output();
  EXPECT_NE(server.output().find("melee-server stopped"), std::string::npos) << server.output();
}

// scripts/run-server runs `melee-server --data-dir data "$@"`: an option given again, as in the
// script's own example `scripts/run-server --port 9000 --data-dir /var/lib/melee`, overrides
// the default before it.
TEST(ProcessTest, AnOptionGivenAgainOverridesTheOneBefore) {
  testing::TempDir dir;
  const std::string mine = (dir.path() / "mine").string();
  testing::Subprocess server({MELEE_SERVER_BINARY, "--data-dir", (dir.path() / "data").string(),
                              "--port", "8080", "--port", "0", "--data-dir", mine});
  const uint16_t port = testing::ServerPort(server);
  ASSERT_NE(port, 0) << server.output();
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "mine" / "melee.db"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "data"));
  EXPECT_EQ(server.SignalAndWait(SIGTERM, seconds(10)), 0) << server.output();
}

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;

aslpb::Unit Squad(const std::string& id, v1::Seat owner) {
  aslpb::Unit unit;
  unit.set_id(id);
  unit.set_owner(owner);
  unit.set_kind(aslpb::UNIT_KIND_SQUAD);
  unit.set_firepower(4);
  return unit;
}

v1::ClientMessage SealAttack(const std::string& attacker, const std::string& target) {
  v1::ClientMessage message;
  aslpb::AttackOrder* order =
      message.mutable_seal_declaration()->mutable_declaration()->mutable_asl()->add_attacks();
  order->add_attackers(attacker);
  order->add_targets(target);
  return message;
}

// The restart test: melee-server is killed with SIGKILL in the middle of a close combat and
// started again on the same data directory; both clients resume from their last seq and finish
// the combat with nothing lost or doubled.
TEST(ProcessTest, AMatchSurvivesSigkillOfTheServer) {
  testing::TempDir dir;
  const std::string data = (dir.path() / "data").string();
  const std::vector<std::string> argv = {MELEE_SERVER_BINARY, "--port", "0", "--data-dir", data};
  v1::MatchCreated created;
  uint64_t a_saw = 0;
  uint64_t b_saw = 0;
  std::string b_seal_receipt;
  v1::ClientMessage b_seal = SealAttack("R1", "G1");
  b_seal.set_command_id("b-seal");
  {
    testing::Subprocess server(argv);
    const uint16_t port = testing::ServerPort(server);
    ASSERT_NE(port, 0) << server.output();
    const std::string url = "ws://127.0.0.1:" + std::to_string(port) + "/ws";
    auto a = testing::MatchClient::Connect(url);
    auto b = testing::MatchClient::Connect(url, proto::FrameKind::kText);
    v1::MatchSettings settings;
    settings.set_ruleset("asl");
    created = a->Create(settings);
    ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
    ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
    v1::ClientMessage a_units;
    a_units.mutable_submit_setup()->mutable_asl()->set_attacker(v1::SEAT_SIDE_A);
    *a_units.mutable_submit_setup()->mutable_asl()->add_units() = Squad("G1", v1::SEAT_SIDE_A);
    ASSERT_TRUE(a->Act(a_units).has_ack());
    v1::ClientMessage b_units;
    *b_units.mutable_submit_setup()->mutable_asl()->add_units() = Squad("R1", v1::SEAT_SIDE_B);
    ASSERT_TRUE(b->Act(b_units).has_ack());
    for (auto* client : {a.get(), b.get()}) {
      ASSERT_TRUE(client->WaitForSeq(3));
      v1::ClientMessage confirm;
      confirm.mutable_confirm_setup();
      ASSERT_TRUE(client->Act(confirm).has_ack());
    }
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    for (auto* client : {a.get(), b.get()}) {
      ASSERT_TRUE(client->WaitForSeq(std::max(a->last_seq(), b->last_seq())));
      v1::ClientMessage announce;
      announce.mutable_announce()->mutable_asl();
      ASSERT_TRUE(client->Act(announce).has_ack());
    }
    b_seal_receipt = b->Act(b_seal).ack().receipt();
    ASSERT_FALSE(b_seal_receipt.empty());
    ASSERT_TRUE(a->WaitForSeq(b->last_seq()));
    a_saw = a->last_seq();
    b_saw = b->last_seq();
    server.SignalAndWait(SIGKILL, seconds(10));
  }
  testing::Subprocess server(argv);
  const uint16_t port = testing::ServerPort(server);
  ASSERT_NE(port, 0) << server.output();
  EXPECT_NE(server.output().find("recovered 1 match"), std::string::npos) << server.output();
  const std::string url = "ws://127.0.0.1:" + std::to_string(port) + "/ws";
  auto a = testing::MatchClient::Connect(url);
  auto b = testing::MatchClient::Connect(url, proto::FrameKind::kText);
  ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token(), a_saw).has_joined());
  ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token(), b_saw).has_joined());
  EXPECT_TRUE(a->events().empty() && b->events().empty()) << "nothing was lost";
  EXPECT_EQ(a->view().seq(), a_saw);
  EXPECT_EQ(b->Act(b_seal).ack().receipt(), b_seal_receipt) << "the retry is not applied again";
  EXPECT_EQ(b->last_seq(), b_saw);
  ASSERT_TRUE(a->Act(SealAttack("G1", "R1")).has_ack());
  ASSERT_TRUE(b->WaitForSeq(a->last_seq()));
  testing::PlayOut(*a, *b);
  EXPECT_EQ(server.SignalAndWait(SIGTERM, seconds(10)), 0) << server.output();
}

// --log-format json: every log line is one JSON object with time, level, thread and msg.
TEST(ProcessTest, JsonLogsAreOneObjectPerLine) {
  testing::TempDir dir;
  testing::Subprocess server({MELEE_SERVER_BINARY, "--port", "0", "--data-dir",
                              (dir.path() / "data").string(), "--log-format", "json"});
  ASSERT_TRUE(server.WaitForOutput("(WebSocket at /ws)", seconds(20))) << server.output();
  ASSERT_EQ(server.SignalAndWait(SIGTERM, seconds(10)), 0) << server.output();
  std::istringstream lines(server.output());
  std::string line;
  int parsed = 0;
  while (std::getline(lines, line)) {
    google::protobuf::Struct object;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(line, &object).ok()) << line;
    EXPECT_TRUE(object.fields().contains("time") && object.fields().contains("level") &&
                object.fields().contains("msg"))
        << line;
    ++parsed;
  }
  EXPECT_GE(parsed, 3) << "listening, signal, stopping, stopped";
}

TEST(ProcessTest, ServerStopsOnSigintToo) {
  testing::TempDir dir;
  testing::Subprocess server(
      {MELEE_SERVER_BINARY, "--port", "0", "--data-dir", (dir.path() / "d").string()});
  ASSERT_NE(testing::ServerPort(server), 0) << server.output();
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
