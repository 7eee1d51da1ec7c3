// Two melee-server nodes on one PostgreSQL behind HAProxy (tests/cluster/cluster.h; docs/
// postgresql.md, "Several nodes"): every real part started by the test, clients through
// HAProxy as a player's would be.

#include "tests/cluster/cluster.h"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client-sdk/match_session.h"
#include "client-sdk/sync_client.h"
#include "melee/asl/v1/asl.pb.h"
#include "tests/testing/asl_commands.h"
#include "tests/testing/close_combat.h"
#include "tests/testing/http_get.h"
#include "tests/testing/match_client.h"

namespace melee {
namespace {

namespace v1 = melee::v1;

v1::MatchSettings Asl() {
  v1::MatchSettings settings;
  settings.set_ruleset("asl");
  return settings;
}

// Every connection and request of a match reaches the node holding its lease; the other node,
// reached past HAProxy, refuses it and names the holder. Matches are created on any node.
TEST(ClusterTest, HAProxySendsEveryRequestOfAMatchToOneNode) {
  testing::Cluster cluster(/*lease_seconds=*/10);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  constexpr int kMatches = 6;
  std::map<std::string, int> per_node;
  for (int i = 0; i < kMatches; ++i) {
    auto creator = testing::MatchClient::Connect(cluster.ProxyUrl());
    ASSERT_TRUE(creator);
    const v1::MatchCreated created = creator->Create(Asl());
    const std::string& id = created.match_id();
    ASSERT_FALSE(id.empty());
    auto a = testing::MatchClient::Connect(cluster.ProxyUrl(id));
    auto b = testing::MatchClient::Connect(cluster.ProxyUrl(id));
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(a->Join(id, created.side_a_token()).has_joined());
    ASSERT_TRUE(b->Join(id, created.side_b_token()).has_joined());
    ASSERT_TRUE(
        a->Act(testing::EnterUnits({testing::Squad("G1", v1::SEAT_SIDE_A, 4)}, true)).has_ack());
    ASSERT_TRUE(
        b->Act(testing::EnterUnits({testing::Squad("R1", v1::SEAT_SIDE_B, 4)}, false)).has_ack());
    const std::string holder = cluster.Holder(id);
    const int owner = testing::Cluster::IndexOf(holder);
    ASSERT_NE(owner, -1) << "no live lease on " << id << ": " << holder;
    ++per_node[holder];

    // The SDK's session names the match in its URL by itself (/ws?match=...): HAProxy routes
    // it without help.
    client::JoinOptions spectate;
    spectate.spectate = true;
    for (int tries = 0; tries < 4; ++tries) {
      auto session =
          client::MatchSession::Join(cluster.ProxyUrl(), id, created.spectator_key(), spectate);
      EXPECT_TRUE(session.has_value()) << session.error().message;
    }

    // HTTP about the match goes to its node too.
    const auto exported =
        testing::HttpGet(cluster.proxy_port(), "/api/matches/" + id + "/export", http::verb::get,
                         {}, {{"Authorization", "Bearer " + created.director_token()}});
    EXPECT_EQ(exported.status, 200) << exported.body;

    // The other node, reached directly, does not serve it and says who does.
    const int other = 1 - owner;
    auto stray = testing::MatchClient::Connect(cluster.NodeUrl(other));
    ASSERT_TRUE(stray);
    const v1::ServerMessage refused = stray->Join(id, created.side_a_token());
    ASSERT_TRUE(refused.has_error()) << refused.DebugString();
    EXPECT_EQ(refused.error().code(), v1::ERROR_CODE_UNAVAILABLE);
    EXPECT_NE(refused.error().message().find("served by node " + holder), std::string::npos)
        << refused.error().message();
    EXPECT_NE(refused.error().message().find("reconnect"), std::string::npos)
        << refused.error().message();
    const auto stray_http = testing::HttpGet(
        cluster.node_port(other), "/api/matches/" + id + "/export", http::verb::get, {},
        {{"Authorization", "Bearer " + created.director_token()}});
    EXPECT_EQ(stray_http.status, 503) << stray_http.body;
    EXPECT_NE(stray_http.body.find("served by node " + holder), std::string::npos)
        << stray_http.body;
  }
  std::printf("[ cluster ] %d matches through HAProxy: %d on node-a, %d on node-b\n", kMatches,
              per_node["node-a"], per_node["node-b"]);
}

// Side `attacker`'s unit attacks `target`, sealed.
v1::ClientMessage SealAttack(const std::string& attacker, const std::string& target) {
  return testing::Seal({{{attacker}, {target}}});
}

// One match in play: its two players and where they are.
struct Game {
  v1::MatchCreated created;
  std::unique_ptr<testing::MatchClient> a, b;
  int node = -1;  // the node holding its lease before the kill
  uint64_t a_saw = 0, b_saw = 0;
  std::string b_seal_receipt;
};

v1::ClientMessage BSeal() {
  v1::ClientMessage seal = SealAttack("R1", "G1");
  seal.set_command_id("b-seal");
  return seal;
}

// Brings `game` to the middle of its close combat: set up, announced, side B's attack sealed
// (acknowledged), side A's not yet.
void StartCloseCombat(testing::Cluster& cluster, Game& game) {
  auto creator = testing::MatchClient::Connect(cluster.ProxyUrl());
  ASSERT_TRUE(creator);
  game.created = creator->Create(Asl());
  const std::string& id = game.created.match_id();
  game.a = testing::MatchClient::Connect(cluster.ProxyUrl(id));
  game.b = testing::MatchClient::Connect(cluster.ProxyUrl(id), proto::FrameKind::kText);
  ASSERT_TRUE(game.a && game.b);
  testing::MatchClient& a = *game.a;
  testing::MatchClient& b = *game.b;
  ASSERT_TRUE(a.Join(id, game.created.side_a_token()).has_joined());
  ASSERT_TRUE(b.Join(id, game.created.side_b_token()).has_joined());
  ASSERT_TRUE(
      a.Act(testing::EnterUnits({testing::Squad("G1", v1::SEAT_SIDE_A, 4)}, true)).has_ack());
  ASSERT_TRUE(
      b.Act(testing::EnterUnits({testing::Squad("R1", v1::SEAT_SIDE_B, 4)}, false)).has_ack());
  for (auto* client : {&a, &b}) {
    ASSERT_TRUE(client->WaitForSeq(3));
    v1::ClientMessage confirm;
    confirm.mutable_confirm_setup();
    ASSERT_TRUE(client->Act(confirm).has_ack());
  }
  ASSERT_TRUE(a.WaitForSeq(b.last_seq()));
  for (auto* client : {&a, &b}) {
    ASSERT_TRUE(client->WaitForSeq(std::max(a.last_seq(), b.last_seq())));
    v1::ClientMessage announce;
    announce.mutable_announce()->mutable_asl();
    ASSERT_TRUE(client->Act(announce).has_ack());
  }
  game.b_seal_receipt = b.Act(BSeal()).ack().receipt();
  ASSERT_FALSE(game.b_seal_receipt.empty());
  ASSERT_TRUE(a.WaitForSeq(b.last_seq()));
  game.a_saw = a.last_seq();
  game.b_saw = b.last_seq();
  game.node = testing::Cluster::IndexOf(cluster.Holder(id));
  ASSERT_NE(game.node, -1) << "no live lease on " << id;
}

// Connects to `url` and joins with `token` after `after_seq`, again and again while the match's
// node is being replaced (HAProxy has not marked it down yet, or the dead node's lease still
// runs); gives up after 30 s.
std::unique_ptr<testing::MatchClient> Rejoin(const std::string& url, const std::string& match_id,
                                             const std::string& token, uint64_t after_seq,
                                             proto::FrameKind kind, std::string& last_refusal) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < give_up) {
    if (client::SyncClient::Connect(url, kind)) {  // a probe: MatchClient reports failures
      auto client = testing::MatchClient::Connect(url, kind);
      if (!client) return nullptr;
      const v1::ServerMessage joined = client->Join(match_id, token, after_seq);
      if (joined.has_joined()) return client;
      last_refusal = joined.DebugString();
      if (!joined.has_error() || joined.error().code() != v1::ERROR_CODE_UNAVAILABLE) {
        ADD_FAILURE() << "rejoin refused: " << last_refusal;
        return nullptr;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "no node took match " << match_id << " over in 30 s: " << last_refusal;
  return nullptr;
}

// The failover test: matches in play on both nodes, one node killed (SIGKILL) in the middle of
// their close combats. Every match finishes; the killed node's players reconnect through
// HAProxy, resume from their last seq on the other node once it took the lease over, and find
// nothing lost; a retried command is not applied twice; the logs in PostgreSQL are whole.
//
// The leases last 1.5 s, so that the test is quick; MELEE_CLUSTER_LEASE_SECONDS sets another
// length (10 measures the takeover with melee-server's default leases).
TEST(ClusterTest, AKilledNodesMatchesFinishOnTheOtherNode) {
  const char* lease_env = std::getenv("MELEE_CLUSTER_LEASE_SECONDS");
  const double lease_seconds = lease_env != nullptr ? std::atof(lease_env) : 1.5;
  ASSERT_GT(lease_seconds, 0) << "MELEE_CLUSTER_LEASE_SECONDS=" << lease_env;
  testing::Cluster cluster(lease_seconds);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  constexpr int kMatches = 4;
  std::vector<Game> games(kMatches);
  std::array<int, 2> on_node{};
  for (Game& game : games) {
    ASSERT_NO_FATAL_FAILURE(StartCloseCombat(cluster, game));
    ++on_node[game.node];
  }
  // The node with more matches dies (node-a on a tie).
  const int victim = on_node[1] > on_node[0] ? 1 : 0;
  const int survivor = 1 - victim;
  const auto killed = std::chrono::steady_clock::now();
  cluster.node(victim).SignalAndWait(SIGKILL, std::chrono::seconds(10));

  double first_joined = -1;  // the first player back in a match of the dead node
  double first_accepted = -1;
  for (Game& game : games) {
    const std::string& id = game.created.match_id();
    if (game.node == victim) {
      game.a.reset();
      game.b.reset();
      std::string refusal;
      game.a = Rejoin(cluster.ProxyUrl(id), id, game.created.side_a_token(), game.a_saw,
                      proto::FrameKind::kBinary, refusal);
      ASSERT_TRUE(game.a) << refusal;
      if (first_joined < 0) {
        first_joined =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
      }
      game.b = Rejoin(cluster.ProxyUrl(id), id, game.created.side_b_token(), game.b_saw,
                      proto::FrameKind::kText, refusal);
      ASSERT_TRUE(game.b) << refusal;
      EXPECT_TRUE(game.a->events().empty() && game.b->events().empty()) << "nothing was lost";
      EXPECT_EQ(game.a->view().seq(), game.a_saw);
      EXPECT_EQ(game.b->Act(BSeal()).ack().receipt(), game.b_seal_receipt)
          << "the retried seal is not applied again";
      EXPECT_EQ(game.b->last_seq(), game.b_saw);
    }
    const v1::ServerMessage sealed = game.a->Act(SealAttack("G1", "R1"));
    ASSERT_TRUE(sealed.has_ack()) << id << (game.node == victim ? " (taken over)" : "") << ": "
                                  << sealed.DebugString();
    if (game.node == victim && first_accepted < 0) {
      first_accepted =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
    }
    ASSERT_TRUE(game.b->WaitForSeq(game.a->last_seq()));
    ASSERT_NO_FATAL_FAILURE(testing::PlayOut(*game.a, *game.b));
    EXPECT_EQ(cluster.Holder(id), testing::Cluster::Name(survivor)) << id;
  }
  ASSERT_GE(first_accepted, 0);
  std::printf(
      "[ failover ] %s killed holding %d of %d matches (leases of %g s): the first player "
      "rejoined one on %s %.2f s later, its first command was accepted %.2f s later\n",
      testing::Cluster::Name(victim), on_node[victim], kMatches, lease_seconds,
      testing::Cluster::Name(survivor),
      first_joined, first_accepted);

  // The logs: every match's events numbered 1..n without a gap or a double, as far as its
  // players saw.
  for (const Game& game : games) {
    const std::string& id = game.created.match_id();
    const std::string whole = cluster.Query(
        "SELECT count(*) = max(seq) AND count(DISTINCT seq) = count(*) FROM melee.events "
        "WHERE match_id = '" +
        id + "'");
    EXPECT_EQ(whole, "t") << id;
    const std::string last =
        cluster.Query("SELECT max(seq) FROM melee.events WHERE match_id = '" + id + "'");
    EXPECT_GE(std::stoull(last), std::max(game.a->last_seq(), game.b->last_seq())) << id;
  }
}

// PostgreSQL stopped under two nodes' matches in play: every command is refused with an error
// naming PostgreSQL (nothing acknowledged), /healthz says so on both nodes, and once PostgreSQL
// is back the same nodes, not restarted, accept the commands again and the matches finish.
TEST(ClusterTest, PostgresStoppedUnderLoadIsRefusedClearlyAndRecoveredWithoutARestart) {
  testing::Cluster cluster(/*lease_seconds=*/2);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  constexpr int kMatches = 4;
  std::vector<Game> games(kMatches);
  for (Game& game : games) ASSERT_NO_FATAL_FAILURE(StartCloseCombat(cluster, game));

  ASSERT_TRUE(cluster.postgres().Stop()) << cluster.postgres().error();
  for (Game& game : games) {
    const v1::ServerMessage refused = game.a->Act(SealAttack("G1", "R1"));
    ASSERT_TRUE(refused.has_error())
        << "acknowledged without PostgreSQL: " << refused.DebugString();
    EXPECT_EQ(refused.error().code(), v1::ERROR_CODE_UNAVAILABLE);
    EXPECT_NE(refused.error().message().find("PostgreSQL"), std::string::npos)
        << refused.error().message();
    EXPECT_NE(refused.error().message().find("send the command again"), std::string::npos)
        << refused.error().message();
  }
  for (int node = 0; node < 2; ++node) {
    const auto health = testing::HttpGet(cluster.node_port(node), "/healthz");
    EXPECT_EQ(health.status, 503) << testing::Cluster::Name(node) << ": " << health.body;
    EXPECT_NE(health.body.find("PostgreSQL"), std::string::npos) << health.body;
  }

  ASSERT_TRUE(cluster.postgres().Start()) << cluster.postgres().error();
  for (Game& game : games) {
    const std::string& id = game.created.match_id();
    const v1::ServerMessage sealed = game.a->Act(SealAttack("G1", "R1"));
    ASSERT_TRUE(sealed.has_ack()) << id << ": " << sealed.DebugString();
    ASSERT_TRUE(game.b->WaitForSeq(game.a->last_seq()));
    ASSERT_NO_FATAL_FAILURE(testing::PlayOut(*game.a, *game.b));
    EXPECT_EQ(testing::Cluster::IndexOf(cluster.Holder(id)), game.node)
        << id << " stayed with its node";
    EXPECT_EQ(
        cluster.Query("SELECT count(*) = max(seq) FROM melee.events WHERE match_id = '" + id + "'"),
        "t")
        << id;
  }
  for (int node = 0; node < 2; ++node) {
    EXPECT_EQ(testing::HttpGet(cluster.node_port(node), "/healthz").status, 200);
    EXPECT_TRUE(cluster.node(node).running()) << "not restarted";
  }
}

}  // namespace
}  // namespace melee
