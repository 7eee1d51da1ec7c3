// Correspondence clocks (docs/clocks.md) against a real server on loopback, its real SQLite file
// and a real webhook receiver, with the server's clock moved by hand: a pace's step times, the
// time bank, vacation days, the default or the loss on expiry, every clock event logged and
// re-derived on restart and by `melee verify`, the clocks in the views, the CLI and the audit,
// reminders once each across a restart, and the pace's validation.

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <sstream>

#include "client-sdk/cli/render.h"
#include "melee/storage/v1/events.pb.h"
#include "persistence/fair_play.h"
#include "proto/codec/frame.h"
#include "server/clock.h"
#include "server/fair_play/audit.h"
#include "server/fair_play/verify.h"
#include "server/hosts.h"
#include "server/match_file.h"
#include "tests/testing/fair_play_match.h"
#include "tests/testing/http_get.h"
#include "tests/testing/match_client.h"
#include "tests/testing/match_frames.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"
#include "tests/testing/vv_commands.h"
#include "tests/testing/webhook_receiver.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
namespace storage = melee::storage::v1;
namespace http = boost::beast::http;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::Confirm;
using testing::HttpGet;
using testing::MatchClient;
using testing::WebhookReceiver;
using testing::vv::AmericanPart;
using testing::vv::GermanPart;
using testing::vv::SealDeclare;
using testing::vv::VvUse;

constexpr int64_t kDayMs = 86'400'000;

// An explicit pace: a minute per declaration and choice, `bank` seconds of bank each.
v1::Pace Pace(uint32_t bank, v1::OnExpiry on_expiry = v1::ON_EXPIRY_DEFAULT,
              uint32_t vacation_days = 0, std::vector<uint32_t> reminders = {}) {
  v1::Pace pace;
  pace.set_declaration_seconds(60);
  pace.set_choice_seconds(60);
  pace.set_bank_seconds(bank);
  pace.set_on_expiry(on_expiry);
  pace.set_vacation_days(vacation_days);
  for (uint32_t r : reminders) pace.add_reminder_seconds(r);
  return pace;
}

v1::ClientMessage Vacation(uint32_t days) {
  v1::ClientMessage message;
  message.mutable_take_vacation()->set_days(days);
  return message;
}

// The clock events of `events`, in order.
std::vector<v1::ClockEvent> ClockEvents(const std::vector<v1::MatchEvent>& events) {
  std::vector<v1::ClockEvent> clocks;
  for (const v1::MatchEvent& event : events) {
    if (event.has_clock()) clocks.push_back(event.clock());
  }
  return clocks;
}

// Recomputes every hash and signs the file again with a key of its own: a forger's file, which
// only the replay's re-derivation of the match can catch.
void Reexport(storage::MatchFile& file) {
  const auto forger = persistence::ServerSecrets::Ephemeral();
  persistence::Hash prev = persistence::Genesis(file.match_id());
  for (storage::FileEvent& event : *file.mutable_events()) {
    prev = persistence::ChainHash(prev, event.payload());
    event.set_hash(std::string(reinterpret_cast<const char*>(prev.data()), prev.size()));
    event.set_signature(forger->Sign(persistence::HeadMessage(file.match_id(), event.seq(), prev)));
  }
  file.set_server_public_key(forger->public_key());
  const storage::FileEvent& last = file.events(file.events_size() - 1);
  file.mutable_head_signature()->set_seq(last.seq());
  file.mutable_head_signature()->set_hash(last.hash());
  file.mutable_head_signature()->set_signature(
      forger->Sign(persistence::HeadMessage(file.match_id(), last.seq(), prev)));
  file.set_file_signature(forger->Sign(server::FileSignedMessage(file)));
}

class ClockTest : public ::testing::Test {
 protected:
  std::unique_ptr<testing::TestServer> StartServer() {
    server::ServerConfig config;
    config.webhook_first_retry_ms = 100;
    config.webhook_max_retry_ms = 400;
    server::ServerHooks hooks;
    hooks.clock = clock_;  // the server's committed dice: the logs verify
    return std::make_unique<testing::TestServer>(config, std::move(hooks), dir_.path() / "data");
  }

  // Creates a pc-edition vv match (the assault is over once both have sealed) on `pace`, and
  // seats both sides.
  void Seat(testing::TestServer& server, const v1::Pace& pace) {
    a_ = MatchClient::Connect(server.ws_url());
    b_ = MatchClient::Connect(server.ws_url());
    ASSERT_TRUE(a_ && b_);
    v1::MatchSettings settings;
    settings.set_ruleset("vv");
    settings.set_variant("pc");
    *settings.mutable_pace() = pace;
    created_ = a_->Create(settings);
    ASSERT_FALSE(created_.match_id().empty());
    Rejoin(server);
  }

  // Joins both seats again (after a restart).
  void Rejoin(testing::TestServer& server) {
    a_ = MatchClient::Connect(server.ws_url());
    b_ = MatchClient::Connect(server.ws_url());
    ASSERT_TRUE(a_ && b_);
    ASSERT_TRUE(a_->Join(created_.match_id(), created_.side_a_token()).has_joined());
    ASSERT_TRUE(b_->Join(created_.match_id(), created_.side_b_token()).has_joined());
  }

  // Both sides enter and confirm their units: both owe a declaration from now.
  void EnterAndConfirm() {
    ASSERT_TRUE(a_->Act(GermanPart()).has_ack());
    ASSERT_TRUE(b_->Act(AmericanPart()).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    ASSERT_TRUE(a_->Act(Confirm()).has_ack());
    ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
    ASSERT_TRUE(b_->Act(Confirm()).has_ack());
    ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
    started_ms_ = clock_->NowUnixMs();
  }

  v1::ServerMessage SealB() { return b_->Act(SealDeclare({}, "", {VvUse("US-HS", "LMG", false)})); }
  v1::ServerMessage SealA() {
    return a_->Act(SealDeclare({"G1", "G2", "G3", "Schmidt"}, "", {VvUse("G1", "", true)}));
  }

  // Waits until B has seen an event matching `done`.
  bool WaitForEvent(const std::function<bool(const v1::MatchEvent&)>& done) {
    const auto until = std::chrono::steady_clock::now() + seconds(10);
    while (std::chrono::steady_clock::now() < until) {
      for (const v1::MatchEvent& event : b_->events()) {
        if (done(event)) return true;
      }
      b_->WaitForSeq(b_->last_seq() + 1);
    }
    return false;
  }

  storage::MatchFile Export(testing::TestServer& server) {
    return testing::ExportOver(server.port(), created_.match_id(), created_.director_token());
  }

  // Checks that the director's file verifies (the clock events re-derived by the replay).
  void ExpectVerifies(testing::TestServer& server) {
    const storage::MatchFile file = Export(server);
    const server::VerifyReport report = server::VerifyMatchFile(file, server::BuiltinHosts());
    EXPECT_TRUE(report.ok) << report.Describe();
  }

  std::shared_ptr<server::ManualClock> clock_ = std::make_shared<server::ManualClock>();
  testing::TempDir dir_;
  std::unique_ptr<MatchClient> a_;
  std::unique_ptr<MatchClient> b_;
  v1::MatchCreated created_;
  int64_t started_ms_ = 0;
};

// A preset is stored resolved; both seats' clocks are in every view, the spectator's too.
TEST_F(ClockTest, APresetIsStoredResolvedAndTheClocksAreInEveryView) {
  auto server = StartServer();
  v1::Pace daily;
  daily.set_preset("daily");
  daily.set_on_expiry(v1::ON_EXPIRY_LOSS);
  Seat(*server, daily);
  EnterAndConfirm();
  const v1::MatchView& view = a_->view();
  const v1::Pace& pace = view.settings().pace();
  EXPECT_EQ(pace.preset(), "daily");
  EXPECT_EQ(pace.declaration_seconds(), 86400u);
  EXPECT_EQ(pace.choice_seconds(), 86400u);
  EXPECT_EQ(pace.bank_seconds(), 3u * 86400u);
  EXPECT_EQ(pace.vacation_days(), 14u);
  EXPECT_EQ(pace.on_expiry(), v1::ON_EXPIRY_LOSS);  // given beside the preset: kept
  EXPECT_EQ(std::vector<uint32_t>(pace.reminder_seconds().begin(), pace.reminder_seconds().end()),
            (std::vector<uint32_t>{86400, 3600}));
  auto spectator = MatchClient::Connect(server->ws_url());
  ASSERT_TRUE(spectator->Join(created_.match_id(), created_.spectator_key(), 0, true).has_joined());
  for (const v1::MatchView* shown : {&a_->view(), &b_->view(), &spectator->view()}) {
    for (const v1::SeatClock* clock : {&shown->side_a_clock(), &shown->side_b_clock()}) {
      EXPECT_EQ(clock->step_deadline_unix_ms(), started_ms_ + kDayMs);
      EXPECT_EQ(clock->final_deadline_unix_ms(), started_ms_ + 4 * kDayMs);
      EXPECT_EQ(clock->bank_left_ms(), static_cast<uint64_t>(3 * kDayMs));
      EXPECT_EQ(clock->vacation_days_left(), 14u);
    }
  }
  // The CLI shows the time left.
  std::ostringstream text;
  cli::PrintView(text, a_->view(), started_ms_ + 3'600'000);
  EXPECT_NE(text.str().find("side_a: 23h 0m left for this step, then a bank of 3d 0h"),
            std::string::npos)
      << text.str();
}

// The step's time and the bank run out: the rules default is taken, and the expiry is logged
// before it. The log replays on restart and verifies.
TEST_F(ClockTest, TimeRunsOutTheDefaultIsTakenAndLogged) {
  auto server = StartServer();
  Seat(*server, Pace(30));
  EnterAndConfirm();
  ASSERT_TRUE(SealB().has_ack());
  clock_->Advance(milliseconds(60'000 + 29'000));  // within the bank: nothing yet
  std::this_thread::sleep_for(milliseconds(700));
  EXPECT_TRUE(ClockEvents(b_->events()).empty());
  clock_->Advance(milliseconds(1'000));
  ASSERT_TRUE(WaitForEvent([](const v1::MatchEvent& e) { return e.has_match_ended() || e.by_default(); }));
  const std::vector<v1::ClockEvent> clocks = ClockEvents(b_->events());
  ASSERT_EQ(clocks.size(), 1u);
  EXPECT_EQ(clocks[0].kind(), v1::CLOCK_EVENT_KIND_TIME_EXPIRED);
  EXPECT_EQ(clocks[0].seat(), v1::SEAT_SIDE_A);
  EXPECT_EQ(clocks[0].action(), "default_taken");
  EXPECT_EQ(clocks[0].step(), "declaration");
  EXPECT_EQ(clocks[0].drawn_ms(), 30'000u);
  EXPECT_EQ(clocks[0].bank_left_ms(), 0u);
  // The default follows the expiry at once.
  bool after_expiry = false;
  bool defaulted = false;
  for (const v1::MatchEvent& event : b_->events()) {
    if (event.has_clock()) after_expiry = true;
    if (after_expiry && event.by_default()) defaulted = true;
  }
  EXPECT_TRUE(defaulted);
  ExpectVerifies(*server);

  // The audit shows it in the timeline and in side A's timing.
  auto audit = server::AuditMatch(Export(*server), server::BuiltinHosts());
  ASSERT_TRUE(audit.has_value());
  std::ostringstream text;
  server::WriteAuditText(*audit, text);
  EXPECT_NE(text.str().find("side_a's time ran out (declaration; 30.0 s of bank spent): the rules "
                            "default was taken"),
            std::string::npos)
      << text.str();
  EXPECT_EQ(audit->timing[0].expired, 1u);

  // A restart replays the log with its clock event.
  const uint64_t seq = b_->last_seq();
  a_.reset();
  b_.reset();
  server.reset();
  server = StartServer();
  Rejoin(*server);
  EXPECT_EQ(a_->view().seq(), seq);
  EXPECT_EQ(a_->view().side_a_clock().bank_left_ms(), 0u);
  ExpectVerifies(*server);
}

// With loss on expiry, the match ends: lost on time, logged with its winner and loser, signed;
// nothing more is played, and that survives a restart.
TEST_F(ClockTest, LossOnExpiryEndsTheMatchLostOnTime) {
  auto server = StartServer();
  Seat(*server, Pace(0, v1::ON_EXPIRY_LOSS));
  EnterAndConfirm();
  ASSERT_TRUE(SealB().has_ack());
  clock_->Advance(milliseconds(60'000));
  ASSERT_TRUE(WaitForEvent([](const v1::MatchEvent& e) { return e.has_head_signed(); }));
  const std::vector<v1::ClockEvent> clocks = ClockEvents(b_->events());
  ASSERT_EQ(clocks.size(), 1u);
  EXPECT_EQ(clocks[0].action(), "match_lost");
  EXPECT_EQ(clocks[0].loser(), v1::SEAT_SIDE_A);
  EXPECT_EQ(clocks[0].winner(), v1::SEAT_SIDE_B);
  ASSERT_TRUE(b_->WaitForView([](const v1::MatchView& view) { return view.has_result(); }));
  EXPECT_EQ(b_->view().result().loser(), v1::SEAT_SIDE_A);
  EXPECT_EQ(b_->view().result().winner(), v1::SEAT_SIDE_B);
  EXPECT_EQ(b_->view().result().reason(), "lost on time");
  EXPECT_EQ(b_->view().stage(), v1::STAGE_ENDED);
  // The loss is the match's result (docs/tournaments.md), as the log gives it.
  ASSERT_GE(b_->view().results_size(), 1) << b_->view().DebugString();
  EXPECT_EQ(b_->view().results(0).combat(), 0u);
  EXPECT_EQ(b_->view().results(0).decided(), v1::RESULT_OUTCOME_SIDE_B_WON);
  EXPECT_EQ(b_->view().results(0).status(), "from the log: side_a lost on time");
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  const v1::ServerMessage late = SealA();
  ASSERT_TRUE(late.has_error());
  EXPECT_NE(late.error().message().find("the match is over: side_a lost on time"),
            std::string::npos)
      << late.error().message();
  std::ostringstream text;
  cli::PrintView(text, b_->view(), clock_->NowUnixMs());
  EXPECT_NE(text.str().find("Result: side_b won: side_a lost on time"), std::string::npos)
      << text.str();
  ExpectVerifies(*server);

  a_.reset();
  b_.reset();
  server.reset();
  server = StartServer();
  Rejoin(*server);
  EXPECT_EQ(a_->view().result().loser(), v1::SEAT_SIDE_A);
  EXPECT_TRUE(SealA().has_error());
}

// An answer after the step's time but within the bank is accepted; the bank shrinks by the
// overrun, logged as a bank draw before the answer.
TEST_F(ClockTest, TheTimeBankIsHonoured) {
  auto server = StartServer();
  Seat(*server, Pace(30));
  EnterAndConfirm();
  clock_->Advance(milliseconds(70'000));  // 10 s over the step's minute
  ASSERT_TRUE(SealB().has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  const std::vector<v1::ClockEvent> clocks = ClockEvents(a_->events());
  ASSERT_EQ(clocks.size(), 1u);
  EXPECT_EQ(clocks[0].kind(), v1::CLOCK_EVENT_KIND_BANK_DRAWN);
  EXPECT_EQ(clocks[0].seat(), v1::SEAT_SIDE_B);
  EXPECT_EQ(clocks[0].drawn_ms(), 10'000u);
  EXPECT_EQ(clocks[0].bank_left_ms(), 20'000u);
  EXPECT_EQ(a_->view().side_b_clock().bank_left_ms(), 20'000u);
  EXPECT_EQ(a_->view().side_a_clock().bank_left_ms(), 30'000u);
  // Side A still has its whole bank: its time runs out 90 s after the step began.
  EXPECT_EQ(a_->view().side_a_clock().final_deadline_unix_ms(), started_ms_ + 90'000);

  // The replay re-derives the draw: a file that says B paid less is refused, naming the event.
  storage::MatchFile file = Export(*server);
  ASSERT_TRUE(server::VerifyMatchFile(file, server::BuiltinHosts()).ok);
  for (storage::FileEvent& event : *file.mutable_events()) {
    storage::StoredEvent stored;
    ASSERT_TRUE(stored.ParseFromString(event.payload()));
    if (!stored.has_clock()) continue;
    stored.mutable_clock()->set_drawn_ms(5'000);
    stored.mutable_clock()->set_bank_left_ms(25'000);
    event.set_payload(proto::SerializeDeterministic(stored));
  }
  Reexport(file);
  const server::VerifyReport forged = server::VerifyMatchFile(file, server::BuiltinHosts());
  EXPECT_FALSE(forged.ok);
  EXPECT_NE(forged.Describe().find("the bank drawn does not follow from the step's deadline"),
            std::string::npos)
      << forged.Describe();
  ASSERT_TRUE(SealA().has_ack());
  ExpectVerifies(*server);
}

// A seat on vacation: its clock stops, its deadline moves by the time away; the vacation ends by
// itself when its days are over, logged; the days left shrink.
TEST_F(ClockTest, VacationStopsTheClockAndMovesTheDeadline) {
  auto server = StartServer();
  Seat(*server, Pace(0, v1::ON_EXPIRY_DEFAULT, 3));
  EnterAndConfirm();
  clock_->Advance(milliseconds(20'000));
  const int64_t left_at = clock_->NowUnixMs();
  ASSERT_TRUE(a_->Act(Vacation(1)).has_ack());
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  EXPECT_EQ(b_->view().side_a_clock().vacation_until_unix_ms(), left_at + kDayMs);
  EXPECT_EQ(b_->view().side_a_clock().vacation_days_left(), 2u);
  EXPECT_EQ(b_->view().side_a_clock().step_deadline_unix_ms(), started_ms_ + 60'000 + kDayMs);
  // Too many days, or a second vacation, are refused.
  EXPECT_NE(a_->Act(Vacation(1)).error().message().find("on vacation until"), std::string::npos);
  ASSERT_TRUE(SealB().has_ack());
  clock_->Advance(milliseconds(2 * 60'000));  // past the step's own minute: A is away
  std::this_thread::sleep_for(milliseconds(700));
  EXPECT_EQ(ClockEvents(b_->events()).size(), 1u);  // only the vacation's start
  clock_->Advance(milliseconds(kDayMs - 2 * 60'000));  // the day is over
  ASSERT_TRUE(WaitForEvent([](const v1::MatchEvent& e) {
    return e.has_clock() && e.clock().kind() == v1::CLOCK_EVENT_KIND_VACATION_ENDED;
  }));
  ASSERT_TRUE(b_->WaitForView([&](const v1::MatchView& view) {
    return view.side_a_clock().vacation_until_unix_ms() == 0;
  }));
  // Back: 40 s of the step's minute were left when A went away.
  EXPECT_EQ(b_->view().side_a_clock().step_deadline_unix_ms(), started_ms_ + 60'000 + kDayMs);
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  ASSERT_TRUE(SealA().has_ack());
  ExpectVerifies(*server);
  EXPECT_NE(a_->Act(Vacation(3)).error().message().find("3 asked, 2 left"), std::string::npos);
}

// Reminders reach the seat's webhook once each: not again after a restart.
TEST_F(ClockTest, RemindersReachTheWebhookOnceEachAlsoAcrossARestart) {
  WebhookReceiver receiver;
  auto server = StartServer();
  Seat(*server, Pace(0, v1::ON_EXPIRY_DEFAULT, 0, {20, 40}));
  const testing::HttpResult registered =
      HttpGet(server->port(), "/api/matches/" + created_.match_id() + "/notifications",
              http::verb::put, "{\"webhook_url\": \"" + receiver.url() + "\"}",
              {{"Authorization", "Bearer " + created_.side_a_token()}});
  ASSERT_EQ(registered.status, 200) << registered.body;
  EnterAndConfirm();
  const auto kinds = [&] {
    std::vector<std::string> out;
    for (const WebhookReceiver::Request& request : receiver.requests()) {
      const size_t at = request.body.find("\"kind\":\"");
      out.push_back(request.body.substr(at + 8, request.body.find('"', at + 8) - at - 8));
    }
    return out;
  };
  ASSERT_EQ(receiver.WaitFor(1).size(), 1u);  // your turn
  clock_->Advance(milliseconds(25'000));      // 35 s before the deadline: the 40 s reminder
  ASSERT_EQ(receiver.WaitFor(2).size(), 2u);
  EXPECT_NE(receiver.requests()[1].body.find("\"deadline_unix_ms\":" +
                                             std::to_string(started_ms_ + 60'000)),
            std::string::npos)
      << receiver.requests()[1].body;
  a_.reset();
  b_.reset();
  server.reset();
  server = StartServer();
  std::this_thread::sleep_for(milliseconds(1'200));  // two sweeps: nothing again
  EXPECT_EQ(kinds(), (std::vector<std::string>{"your_turn", "reminder"}));
  clock_->Advance(milliseconds(20'000));  // 15 s before: the 20 s reminder
  ASSERT_EQ(receiver.WaitFor(3).size(), 3u);
  std::this_thread::sleep_for(milliseconds(1'200));
  EXPECT_EQ(kinds(), (std::vector<std::string>{"your_turn", "reminder", "reminder"}));
}

// A pace out of bounds is refused at creation, naming the field, over WebSocket and HTTP.
TEST_F(ClockTest, APaceOutOfBoundsIsRefusedNamingTheField) {
  auto server = StartServer();
  auto client = MatchClient::Connect(server->ws_url());
  const auto refusal = [&](const v1::Pace& pace, uint32_t declaration_deadline = 0) {
    v1::ClientMessage create;
    v1::MatchSettings& settings = *create.mutable_create_match()->mutable_settings();
    settings.set_ruleset("vv");
    *settings.mutable_pace() = pace;
    settings.set_declaration_deadline_seconds(declaration_deadline);
    const v1::ServerMessage answer = client->Call(create);
    return answer.has_error() ? answer.error().message() : std::string("accepted");
  };
  v1::Pace unknown;
  unknown.set_preset("hourly");
  EXPECT_NE(refusal(unknown).find("'hourly' is not a pace; the presets are live, daily and weekly"),
            std::string::npos);
  EXPECT_NE(refusal(v1::Pace()).find("without a preset, give declaration_seconds"),
            std::string::npos);
  v1::Pace short_step = Pace(0);
  short_step.set_declaration_seconds(5);
  EXPECT_NE(refusal(short_step).find("settings.pace.declaration_seconds: 5 s is out of bounds"),
            std::string::npos);
  EXPECT_NE(refusal(Pace(0), 60).find("leave choice_deadline_seconds and "
                                      "declaration_deadline_seconds at 0"),
            std::string::npos);
  EXPECT_NE(refusal(Pace(0, v1::ON_EXPIRY_DEFAULT, 0, {60, 60})).find("60 s twice"),
            std::string::npos);
  EXPECT_NE(refusal(Pace(0, v1::ON_EXPIRY_DEFAULT, 0, {1, 2, 3, 4, 5})).find("at most 4"),
            std::string::npos);
  EXPECT_NE(refusal(Pace(0, v1::ON_EXPIRY_DEFAULT, 91)).find("vacation_days: 91"),
            std::string::npos);
  EXPECT_EQ(refusal(Pace(0)), "accepted");
  const testing::HttpResult http = HttpGet(
      server->port(), "/api/matches", http::verb::post,
      R"({"ruleset": "vv", "pace": {"preset": "daily", "bank_seconds": 999999999}})");
  EXPECT_EQ(http.status, 400) << http.body;
  EXPECT_NE(http.body.find("settings.pace.bank_seconds"), std::string::npos) << http.body;
  const testing::HttpResult created = HttpGet(
      server->port(), "/api/matches", http::verb::post,
      R"({"ruleset": "vv", "pace": {"preset": "weekly", "on_expiry": "ON_EXPIRY_LOSS"}})");
  EXPECT_EQ(created.status, 201) << created.body;
}

// The `melee` command line, run as a player runs it against a server on the system clock: a pace
// at creation, the clocks in `match status` and `inbox`, vacation, and the refusals.
TEST(ClockCli, APaceVacationAndTheClocksOnTheCommandLine) {
  testing::TestServer server;
  testing::TempDir dir;
  ASSERT_EQ(setenv("MELEE_SERVER", server.ws_url().c_str(), 1), 0);
  const auto melee = [&](const std::string& args) {
    testing::Subprocess process({"/bin/bash", "-c",
                                 "cd '" + dir.path().string() + "' && exec '" MELEE_CLI_BINARY
                                 "' " + args});
    const std::optional<int> code = process.Wait(std::chrono::seconds(30));
    return std::make_pair(code.value_or(-1), process.output());
  };
  const auto created = melee(
      "match create --out m --ruleset vv --variant pc --pace daily --bank 2d --on-expiry loss "
      "--reminder 12h");
  ASSERT_EQ(created.first, 0) << created.second;
  const auto status = melee("match status --seat m/side_a.seat");
  ASSERT_EQ(status.first, 0) << status.second;
  EXPECT_NE(status.second.find("Clocks (pace daily; when time runs out: the match is lost):\n"
                               "  side_a: bank 2d 0h; 14 vacation days left"),
            std::string::npos)
      << status.second;
  const auto away = melee("vacation --seat m/side_a.seat 3");
  ASSERT_EQ(away.first, 0) << away.second;
  EXPECT_NE(away.second.find("side_a is on vacation until"), std::string::npos) << away.second;
  EXPECT_NE(away.second.find("side_a: on vacation until"), std::string::npos) << away.second;
  EXPECT_NE(away.second.find("11 vacation days left"), std::string::npos) << away.second;
  const auto inbox = melee("inbox m");
  EXPECT_NE(inbox.second.find("your clock: on vacation until"), std::string::npos)
      << inbox.second;
  const auto too_many = melee("vacation --seat m/side_b.seat 20");
  EXPECT_EQ(too_many.first, 1) << too_many.second;
  EXPECT_NE(too_many.second.find("take_vacation.days: 20 asked, 14 left"), std::string::npos)
      << too_many.second;
  const auto back = melee("vacation --seat m/side_a.seat 0");
  ASSERT_EQ(back.first, 0) << back.second;
  EXPECT_NE(back.second.find("side_a is back from vacation (13 vacation days left)"),
            std::string::npos)
      << back.second;
  const auto bad_duration = melee("match create --out x --pace daily --bank 2weeks");
  EXPECT_EQ(bad_duration.first, 2) << bad_duration.second;
  EXPECT_NE(bad_duration.second.find("--bank '2weeks': give a duration such as 90s"),
            std::string::npos)
      << bad_duration.second;
  const auto too_short = melee("match create --out y --pace live --step-time 5s");
  EXPECT_EQ(too_short.first, 1) << too_short.second;
  EXPECT_NE(too_short.second.find("settings.pace.declaration_seconds: 5 s is out of bounds"),
            std::string::npos)
      << too_short.second;
}

}  // namespace
}  // namespace melee
