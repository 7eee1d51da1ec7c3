// Two melee-server nodes on one PostgreSQL behind HAProxy (tests/cluster/cluster.h; docs/
// postgresql.md, "Several nodes"): every real part started by the test, clients through
// HAProxy as a player's would be.

#include "tests/cluster/cluster.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "melee/asl/v1/asl.pb.h"
#include "tests/testing/http_get.h"
#include "tests/testing/match_client.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;

v1::ClientMessage SetupOf(const std::string& unit, v1::Seat seat) {
  v1::ClientMessage message;
  aslpb::Unit* squad = message.mutable_submit_setup()->mutable_asl()->add_units();
  squad->set_id(unit);
  squad->set_owner(seat);
  squad->set_kind(aslpb::UNIT_KIND_SQUAD);
  squad->set_firepower(4);
  if (seat == v1::SEAT_SIDE_A) message.mutable_submit_setup()->mutable_asl()->set_attacker(seat);
  return message;
}

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
    ASSERT_TRUE(a->Act(SetupOf("G1", v1::SEAT_SIDE_A)).has_ack());
    ASSERT_TRUE(b->Act(SetupOf("R1", v1::SEAT_SIDE_B)).has_ack());
    const std::string holder = cluster.Holder(id);
    const int owner = testing::Cluster::IndexOf(holder);
    ASSERT_NE(owner, -1) << "no live lease on " << id << ": " << holder;
    ++per_node[holder];

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

}  // namespace
}  // namespace melee
