// The asynchronous client (melee::client::Client) over a faulty network: two seats play a whole
// asl close combat against a real server, each through its own fault-injecting TCP proxy
// (tests/testing/fault_proxy.h) that cuts connections at WebSocket frame boundaries, resets them,
// holds them half-open, delays and trickles them. Whatever the network does, both seats end
// with every event once, in order, the same as the server's log; and every command is applied
// exactly once (a command whose answer was lost is sent again with its id, and the server answers
// the retry without applying it again).

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <map>
#include <string>
#include <vector>

#include "client-sdk/client.h"
#include "client-sdk/match_session.h"
#include "client-sdk/sync_client.h"
#include "melee/v1/envelope.pb.h"
#include "server/transport/server.h"
#include "tests/testing/asl_commands.h"
#include "tests/testing/async_seat.h"
#include "tests/testing/fault_proxy.h"
#include "tests/testing/http_get.h"
#include "tests/testing/scripted_faces.h"
#include "tests/testing/test_server.h"

namespace melee::client {
namespace {

namespace v1 = melee::v1;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::FaultProxy;
using testing::Loop;
using testing::Seat;

// Quick reconnections, a dead connection noticed within a second, and patient waits: a faulty
// network makes every step slower.
ClientOptions Patient() {
  ClientOptions options;
  options.reconnect_delay = milliseconds(20);
  options.max_reconnect_delay = milliseconds(300);
  options.idle_timeout = milliseconds(1000);
  return options;
}
constexpr auto kWait = seconds(30);

// A match on `server` with its director token; dice that end the close combat at once (side A's
// attack eliminates R1, side B's misses; no Original 2 or 12).
struct Fixture {
  static std::unique_ptr<testing::TestServer> StartServer(testing::ScriptedFaces& faces) {
    server::ServerHooks hooks;
    hooks.dice = faces.Source();
    return std::make_unique<testing::TestServer>(server::ServerConfig{}, hooks);
  }

  Fixture() {
    faces.Push({1, 2, 5, 6});
    auto creator = SyncClient::Connect(server->ws_url());
    EXPECT_TRUE(creator.has_value());
    v1::ClientMessage create;
    create.mutable_create_match()->mutable_settings()->set_ruleset("asl");
    created = (*creator)->Call(create)->match_created();
  }

  // In this order: the server first; at the end the seats stop first (on the running loop), then
  // the loop, then the proxies, then the server.
  testing::ScriptedFaces faces{4};
  std::unique_ptr<testing::TestServer> server = StartServer(faces);
  v1::MatchCreated created;
  FaultProxy to_a{server->port()};
  FaultProxy to_b{server->port()};
  Loop loop;
  std::unique_ptr<Seat> a;
  std::unique_ptr<Seat> b;

  // Both seats' clients, each through its own proxy (set its faults before or after).
  void StartSeats() {
    a = std::make_unique<Seat>(
        loop.executor(),
        SeatAddress{to_a.ws_url(), created.match_id(), created.side_a_token(), false}, Patient(),
        kWait);
    b = std::make_unique<Seat>(
        loop.executor(),
        SeatAddress{to_b.ws_url(), created.match_id(), created.side_b_token(), false}, Patient(),
        kWait);
    a->client().Start();
    b->client().Start();
  }

  // The match's whole log as the director sees it, read straight from the server.
  std::vector<v1::MatchEvent> Log() const {
    JoinOptions options;
    options.spectate = true;
    auto director =
        MatchSession::Join(server->ws_url(), created.match_id(), created.director_token(), options);
    EXPECT_TRUE(director.has_value()) << director.error().message;
    if (!director) return {};
    return (*director)->events();
  }
};

// Sends `command` from `seat`; it must be acknowledged (it may have been sent more than once).
void Acked(Seat& seat, v1::ClientMessage command) {
  const auto answer = seat.Send(std::move(command));
  ASSERT_TRUE(answer.has_value()) << answer.error().message << " (" << seat.detail() << ")";
  ASSERT_TRUE(answer->has_ack()) << answer->ShortDebugString();
}

// The close combat, each seat waiting until it has seen what the other did: set-up, confirm,
// announce, seal (B first), resolution. `between` runs after each command (a fault to inject);
// `from_b_setup`: side A has entered its units already.
void Play(
    Seat& a, Seat& b, const std::function<void(int step)>& between = [](int) {},
    bool from_b_setup = false) {
  int step = 0;
  const auto act = [&](Seat& mine, Seat& other, v1::ClientMessage command) {
    ASSERT_NO_FATAL_FAILURE(Acked(mine, std::move(command)));
    between(step++);
    ASSERT_TRUE(other.WaitForSeq(mine.last_seq())) << other.detail();
  };
  using testing::Squad;
  if (!from_b_setup) {
    ASSERT_NO_FATAL_FAILURE(
        act(a, b, testing::EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 6)}, true)));
  }
  ASSERT_NO_FATAL_FAILURE(act(b, a, testing::EnterUnits({Squad("R1", v1::SEAT_SIDE_B, 4)}, false)));
  ASSERT_NO_FATAL_FAILURE(act(a, b, testing::Confirm()));
  ASSERT_NO_FATAL_FAILURE(act(b, a, testing::Confirm()));
  ASSERT_NO_FATAL_FAILURE(act(a, b, testing::AnnounceNothing()));
  ASSERT_NO_FATAL_FAILURE(act(b, a, testing::AnnounceNothing()));
  ASSERT_NO_FATAL_FAILURE(act(b, a, testing::Seal({{{"R1"}, {"G1"}}}, /*entropy=*/false)));
  ASSERT_NO_FATAL_FAILURE(act(a, b, testing::Seal({{{"G1"}, {"R1"}}}, /*entropy=*/false)));
}

// What a finished play must show: the close combat over for both seats; each seat received every
// event of the server's log once, in order, byte for byte as the server's own copy for that seat
// would read (same seq, same kind); and each command was applied once.
void ExpectConverged(Seat& a, Seat& b, const Fixture& fixture) {
  const std::vector<v1::MatchEvent> log = fixture.Log();
  ASSERT_FALSE(log.empty());
  const uint64_t last = log.back().seq();
  ASSERT_TRUE(a.WaitForSeq(last)) << a.detail();
  ASSERT_TRUE(b.WaitForSeq(last)) << b.detail();
  EXPECT_EQ(a.view().stage(), v1::STAGE_ENDED);
  EXPECT_EQ(b.view().stage(), v1::STAGE_ENDED);
  std::vector<uint64_t> every;
  for (uint64_t seq = 1; seq <= last; ++seq) every.push_back(seq);
  EXPECT_EQ(a.seqs(), every) << "side A: no event lost or doubled";
  EXPECT_EQ(b.seqs(), every) << "side B: no event lost or doubled";
  for (Seat* seat : {&a, &b}) {
    const std::vector<v1::MatchEvent> seen = seat->events();
    for (size_t i = 0; i < seen.size() && i < log.size(); ++i) {
      EXPECT_EQ(seen[i].kind_case(), log[i].kind_case()) << "seq " << log[i].seq();
    }
  }
  // Each command once: two set-up parts, two confirmations, two announcements, two seals.
  std::map<v1::MatchEvent::KindCase, int> kinds;
  for (const v1::MatchEvent& event : log) ++kinds[event.kind_case()];
  EXPECT_EQ(kinds[v1::MatchEvent::kSetupSubmitted], 2);
  EXPECT_EQ(kinds[v1::MatchEvent::kSetupConfirmed], 2);
  EXPECT_EQ(kinds[v1::MatchEvent::kDeclarationSealed], 2);
  EXPECT_EQ(kinds[v1::MatchEvent::kDeclarationsRevealed], 1);
}

TEST(FaultyNetworkTest, ConnectionsCutAtFrameBoundariesLoseAndDoubleNothing) {
  Fixture fixture;
  FaultProxy& to_a = fixture.to_a;
  FaultProxy& to_b = fixture.to_b;
  // A's connections die after every 8th frame the server sends (an answer or an event lost after
  // the command was applied); B's after every 4th frame B sends (its Hello, its join, the command
  // it sends again, then the next command: that one reaches the server, its answer never comes
  // back on that connection). Each connection gets one command further than the last, at least.
  to_a.DropAfterFrames(FaultProxy::Direction::kToClient, 8);
  to_b.DropAfterFrames(FaultProxy::Direction::kToServer, 4);
  fixture.StartSeats();
  Seat& a = *fixture.a;
  Seat& b = *fixture.b;
  ASSERT_NO_FATAL_FAILURE(Play(a, b));
  ASSERT_NO_FATAL_FAILURE(ExpectConverged(a, b, fixture));
  EXPECT_GT(to_a.cuts(), 2) << "the faults happened";
  EXPECT_GT(to_b.cuts(), 2) << "the faults happened";
  EXPECT_GT(testing::Metric(fixture.server->port(), "melee_commands_answered_again_total"), 0)
      << "commands applied, their answers lost, sent again: answered, not applied again";
}

TEST(FaultyNetworkTest, ResetsInTheMiddleOfCommandsLoseAndDoubleNothing) {
  Fixture fixture;
  FaultProxy& to_a = fixture.to_a;
  FaultProxy& to_b = fixture.to_b;
  fixture.StartSeats();
  Seat& a = *fixture.a;
  Seat& b = *fixture.b;
  // After every command, both connections are reset; and the seals are sent while a reset hits
  // them in flight.
  ASSERT_NO_FATAL_FAILURE(Play(a, b, [&](int step) { (step % 2 == 0 ? to_a : to_b).ResetAll(); }));
  ASSERT_NO_FATAL_FAILURE(ExpectConverged(a, b, fixture));
  EXPECT_GE(to_a.cuts() + to_b.cuts(), 8);
}

TEST(FaultyNetworkTest, AHalfOpenConnectionIsNoticedAndItsCommandAppliedOnceAfterwards) {
  Fixture fixture;
  FaultProxy& to_a = fixture.to_a;
  fixture.StartSeats();
  Seat& a = *fixture.a;
  Seat& b = *fixture.b;
  ASSERT_TRUE(a.WaitForState(ConnectionState::kJoined)) << a.detail();
  ASSERT_TRUE(b.WaitForState(ConnectionState::kJoined)) << b.detail();
  // The partition comes while A sends its set-up: neither side of A's connection hears from
  // the other, nothing closes it. A's client notices the silence (its ping gets no answer),
  // keeps trying, and once the network heals joins again and sends its set-up (once).
  to_a.Blackhole();
  auto setup = std::async(std::launch::async, [&] {
    return a.Send(testing::EnterUnits({testing::Squad("G1", v1::SEAT_SIDE_A, 6)}, true));
  });
  ASSERT_TRUE(a.WaitForState(ConnectionState::kReconnecting)) << a.detail();
  std::this_thread::sleep_for(milliseconds(1500));  // a reconnection attempt or two, silent too
  to_a.Heal();
  const auto answer = setup.get();
  ASSERT_TRUE(answer.has_value()) << answer.error().message;
  ASSERT_TRUE(answer->has_ack()) << answer->ShortDebugString();
  ASSERT_TRUE(b.WaitForSeq(a.last_seq())) << b.detail();
  // The rest of the close combat on the healed network.
  ASSERT_NO_FATAL_FAILURE(Play(
      a, b, [](int) {}, /*from_b_setup=*/true));
  ASSERT_NO_FATAL_FAILURE(ExpectConverged(a, b, fixture));
  EXPECT_GE(to_a.connections(), 3) << "the first connection, silent attempts, the healed one";
}

TEST(FaultyNetworkTest, ADelayedTricklingNetworkLosesAndDoublesNothing) {
  Fixture fixture;
  FaultProxy& to_a = fixture.to_a;
  FaultProxy& to_b = fixture.to_b;
  for (FaultProxy* proxy : {&to_a, &to_b}) {
    proxy->SetDelay(milliseconds(25));
    proxy->SetTrickle(true);
  }
  fixture.StartSeats();
  Seat& a = *fixture.a;
  Seat& b = *fixture.b;
  ASSERT_NO_FATAL_FAILURE(Play(a, b));
  ASSERT_NO_FATAL_FAILURE(ExpectConverged(a, b, fixture));
  EXPECT_EQ(to_a.cuts() + to_b.cuts(), 0);
}

}  // namespace
}  // namespace melee::client
