// melee::client::Client (asynchronous): two clients play a close combat through callbacks; a
// client whose server restarts reconnects, resumes from its last seq and sends its unanswered
// command again (applied once); wss:// with certificate checks; a forged token stops the client;
// views handed on whole when the server leaves their forces out (protocol 2).

#include "client-sdk/client.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "melee/asl/v1/asl.pb.h"
#include "server/matches.h"
#include "server/net.h"
#include "server/transport/server.h"
#include "tests/testing/asl_commands.h"
#include "tests/testing/async_seat.h"
#include "tests/testing/certificate.h"
#include "tests/testing/match_client.h"
#include "tests/testing/scripted_faces.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"

namespace melee::client {
namespace {

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;
using std::chrono::seconds;
using testing::Loop;
using testing::Seat;

v1::MatchCreated CreateMatch(const std::string& url) {
  auto creator = SyncClient::Connect(url);
  EXPECT_TRUE(creator.has_value());
  if (!creator) return {};
  v1::ClientMessage create;
  create.mutable_create_match()->mutable_settings()->set_ruleset("asl");
  return (*creator)->Call(create)->match_created();
}

// Side A's G1 (6 FP, in G3, A the ATTACKER) or side B's R1 (4 FP).
v1::ClientMessage Units(v1::Seat owner, const std::string& id, bool location) {
  return testing::EnterUnits({testing::Squad(id, owner, owner == v1::SEAT_SIDE_A ? 6 : 4)},
                             location);
}

// One attack; the client fills the entropy in.
using testing::AnnounceNothing;
using testing::Confirm;
using testing::Declare;

// Both seats act in turn; each waits until it has seen what the other did.
void SetUpAndAnnounce(Seat& a, Seat& b) {
  ASSERT_TRUE(a.Send(Units(v1::SEAT_SIDE_A, "G1", true))->has_ack());
  ASSERT_TRUE(b.WaitForSeq(a.last_seq()));
  ASSERT_TRUE(b.Send(Units(v1::SEAT_SIDE_B, "R1", false))->has_ack());
  ASSERT_TRUE(a.WaitForSeq(b.last_seq()));
  ASSERT_TRUE(a.Send(Confirm())->has_ack());
  ASSERT_TRUE(b.WaitForSeq(a.last_seq()));
  ASSERT_TRUE(b.Send(Confirm())->has_ack());
  ASSERT_TRUE(a.WaitForSeq(b.last_seq()));
  ASSERT_TRUE(a.Send(AnnounceNothing())->has_ack());
  ASSERT_TRUE(b.WaitForSeq(a.last_seq()));
  ASSERT_TRUE(b.Send(AnnounceNothing())->has_ack());
  ASSERT_TRUE(a.WaitForSeq(b.last_seq()));
}

// Starts both clients, waits until both joined, then sets up and announces.
void JoinSetUpAndAnnounce(Seat& a, Seat& b) {
  a.client().Start();
  b.client().Start();
  ASSERT_TRUE(a.WaitForState(ConnectionState::kJoined));
  ASSERT_TRUE(b.WaitForState(ConnectionState::kJoined));
  ASSERT_NO_FATAL_FAILURE(SetUpAndAnnounce(a, b));
}

TEST(AsyncClientTest, TwoClientsPlayACloseCombatThroughCallbacks) {
  testing::ScriptedFaces faces(4);
  faces.Push({1, 2, 5, 6});  // A eliminates R1 (no Melee follows); no 2 or 12
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  testing::TestServer server({}, hooks);
  const v1::MatchCreated created = CreateMatch(server.ws_url());
  Loop loop;
  Seat a(loop.executor(), {server.ws_url(), created.match_id(), created.side_a_token(), false});
  Seat b(loop.executor(), {server.ws_url(), created.match_id(), created.side_b_token(), false});
  ASSERT_NO_FATAL_FAILURE(JoinSetUpAndAnnounce(a, b));

  const auto sealed = b.Send(Declare("R1", "G1"));
  ASSERT_TRUE(sealed.has_value()) << sealed.error().message;
  ASSERT_TRUE(sealed->has_ack()) << "the receipt matched SHA-256 of the declaration sent";
  ASSERT_TRUE(a.WaitForSeq(b.last_seq()));
  ASSERT_TRUE(a.Send(Declare("G1", "R1"))->has_ack());
  ASSERT_TRUE(b.WaitForSeq(a.last_seq()));
  EXPECT_EQ(b.view().stage(), v1::STAGE_ENDED);
  EXPECT_EQ(a.seqs(), b.seqs()) << "both saw every event once, in order";
}

// The client asks for protocol 2, so the server leaves the forces out of most views; OnView
// still gets whole views: each one, from the first with both units on, holds both forces, and
// the last is the view a protocol 1 connection of the same seat holds.
TEST(AsyncClientTest, OnViewGetsWholeViewsWhenTheServerLeavesTheForcesOut) {
  testing::ScriptedFaces faces(4);
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  testing::TestServer server({}, hooks);
  const v1::MatchCreated created = CreateMatch(server.ws_url());
  auto wire = testing::MatchClient::Connect(server.ws_url());   // protocol 2, raw frames
  auto whole = testing::MatchClient::Connect(server.ws_url());  // protocol 1
  ASSERT_TRUE(wire && whole);
  ASSERT_EQ(wire->Hello(2).hello().protocol_version(), 2u);
  ASSERT_TRUE(wire->Join(created.match_id(), created.side_a_token()).has_joined());
  ASSERT_TRUE(whole->Join(created.match_id(), created.side_a_token()).has_joined());
  Loop loop;
  Seat a(loop.executor(), {server.ws_url(), created.match_id(), created.side_a_token(), false});
  Seat b(loop.executor(), {server.ws_url(), created.match_id(), created.side_b_token(), false});
  ASSERT_NO_FATAL_FAILURE(JoinSetUpAndAnnounce(a, b));
  ASSERT_TRUE(wire->WaitForSeq(a.last_seq()));
  ASSERT_TRUE(whole->WaitForSeq(a.last_seq()));

  int left_out = 0;
  for (const v1::ServerMessage& message : wire->received()) {
    left_out += message.has_view() && message.view().forces_as_before() ? 1 : 0;
  }
  EXPECT_GE(left_out, 3) << "the server left the forces out of the views after the set-up";
  bool both_on = false;
  for (const v1::MatchView& view : a.views()) {
    EXPECT_FALSE(view.forces_as_before());
    const bool both = view.side_a_force_size() == 1 && view.side_b_force_size() == 1;
    EXPECT_TRUE(both || !both_on) << "a view without the forces: " << view.ShortDebugString();
    both_on = both_on || both;
  }
  EXPECT_TRUE(both_on);
  EXPECT_EQ(a.view().SerializeAsString(), whole->view().SerializeAsString());
}

TEST(AsyncClientTest, AfterAServerRestartItResumesAndSendsItsUnansweredCommandOnce) {
  testing::TempDir dir;
  testing::ScriptedFaces faces(4);
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  auto server = std::make_unique<testing::TestServer>(server::ServerConfig{}, hooks,
                                                      dir.path() / "data");
  const uint16_t port = server->port();
  const std::string url = server->ws_url();
  const v1::MatchCreated created = CreateMatch(url);
  Loop loop;
  ClientOptions quick;
  quick.reconnect_delay = std::chrono::milliseconds(20);
  quick.max_reconnect_delay = std::chrono::milliseconds(200);
  Seat a(loop.executor(), {url, created.match_id(), created.side_a_token(), false}, quick);
  Seat b(loop.executor(), {url, created.match_id(), created.side_b_token(), false});
  a.client().Start();
  b.client().Start();
  ASSERT_TRUE(a.WaitForState(ConnectionState::kJoined));
  ASSERT_TRUE(b.WaitForState(ConnectionState::kJoined));
  ASSERT_TRUE(a.Send(Units(v1::SEAT_SIDE_A, "G1", true))->has_ack());
  ASSERT_TRUE(b.WaitForSeq(a.last_seq()));
  const uint64_t before = a.last_seq();

  server.reset();  // the server goes away
  ASSERT_TRUE(a.WaitForState(ConnectionState::kReconnecting)) << a.detail();
  // A flags an event while its server is down: the command waits for the reconnection, then
  // goes out (with its id) and is applied once.
  v1::ClientMessage flag;
  flag.mutable_flag_for_director()->set_seq(2);
  flag.mutable_flag_for_director()->set_comment("sent during the outage");
  auto flagged = std::async(std::launch::async, [&] { return a.Send(flag); });
  server::ServerConfig same_port;
  same_port.port = port;
  server = std::make_unique<testing::TestServer>(same_port, hooks, dir.path() / "data");
  ASSERT_TRUE(a.WaitForState(ConnectionState::kJoined)) << a.detail();
  ASSERT_TRUE(b.WaitForState(ConnectionState::kJoined)) << b.detail();
  const auto answer = flagged.get();
  ASSERT_TRUE(answer.has_value()) << answer.error().message;
  ASSERT_TRUE(answer->has_ack()) << answer->DebugString();
  ASSERT_TRUE(b.Send(Units(v1::SEAT_SIDE_B, "R1", false))->has_ack());
  ASSERT_TRUE(a.WaitForSeq(b.last_seq()));
  ASSERT_TRUE(a.Send(Confirm())->has_ack());
  ASSERT_TRUE(b.WaitForSeq(a.last_seq()));
  int flags = 0;
  for (const v1::MatchEvent& event : b.events()) flags += event.has_director_flag() ? 1 : 0;
  EXPECT_EQ(flags, 1);
  std::vector<uint64_t> expected;
  for (uint64_t seq = 1; seq <= a.last_seq(); ++seq) expected.push_back(seq);
  EXPECT_EQ(a.seqs(), expected) << "no event lost or doubled across the restart";
  EXPECT_GT(a.last_seq(), before);
}

TEST(AsyncClientTest, PlaysOverTlsAndChecksTheCertificate) {
  testing::TempDir dir;
  testing::TestServer server(testing::TlsConfig(dir.path()));
  const std::string url = server.wss_url();

  // The match is created inside the server (SyncClient speaks ws:// only).
  std::promise<v1::ServerMessage> made;
  v1::MatchSettings settings;
  settings.set_ruleset("asl");
  server.server().matches().Create(settings, "create", "",
                                   [&made](v1::ServerMessage answer) { made.set_value(answer); });
  const v1::MatchCreated created = made.get_future().get().match_created();
  ASSERT_FALSE(created.match_id().empty());

  Loop loop;
  ClientOptions trusted;
  trusted.ca_file = (dir.path() / "cert.pem").string();
  Seat a(loop.executor(), {url, created.match_id(), created.side_a_token(), false}, trusted);
  a.client().Start();
  ASSERT_TRUE(a.WaitForState(ConnectionState::kJoined)) << a.detail();
  ASSERT_TRUE(a.Send(Units(v1::SEAT_SIDE_A, "G1", true))->has_ack());
  EXPECT_EQ(a.view().side_a().submitted(), true);

  // Without the certificate among the trusted ones the handshake fails, and the client says so.
  Seat untrusting(loop.executor(), {url, created.match_id(), created.side_b_token(), false});
  untrusting.client().Start();
  ASSERT_TRUE(untrusting.WaitForState(ConnectionState::kReconnecting));
  EXPECT_NE(untrusting.detail().find("certificate"), std::string::npos) << untrusting.detail();
}

TEST(AsyncClientTest, AForgedTokenStopsTheClientWithTheServersReason) {
  testing::TestServer server;
  const v1::MatchCreated created = CreateMatch(server.ws_url());
  Loop loop;
  Seat forged(loop.executor(), {server.ws_url(), created.match_id(), "forged", false});
  forged.client().Start();
  ASSERT_TRUE(forged.WaitForState(ConnectionState::kStopped));
  EXPECT_NE(forged.detail().find("token"), std::string::npos) << forged.detail();
  const auto late = forged.Send(Confirm());
  ASSERT_FALSE(late.has_value());
  EXPECT_NE(late.error().message.find("stopped"), std::string::npos);
}

}  // namespace
}  // namespace melee::client
