#include "server/transport/connections.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace melee::server {
namespace {

class FakeSession : public Closable {
 public:
  void Shutdown() override { ++shutdowns; }
  int shutdowns = 0;
};

TEST(ConnectionsTest, PerAddressLimitRefusesTheExtraConnection) {
  Connections connections(10, 2);
  auto a = connections.Admit("10.0.0.1");
  auto b = connections.Admit("10.0.0.1");
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(connections.Admit("10.0.0.1").has_value());
  EXPECT_TRUE(connections.Admit("10.0.0.2").has_value());
  EXPECT_EQ(connections.open(), 2u);  // the 10.0.0.2 slot was released at once
}

TEST(ConnectionsTest, ARefusalNamesTheLimitAndARefusedSlotCountsInNeither) {
  Connections connections(10, 1);
  auto a = connections.Admit("10.0.0.1");
  ASSERT_TRUE(a.has_value());
  std::string refusal;
  EXPECT_FALSE(connections.Admit("10.0.0.1", &refusal).has_value());
  EXPECT_EQ(refusal, "1 connections from 10.0.0.1 are open, the limit per address "
                     "(--max-connections-per-address)");
  std::vector<Connections::Slot> refused;
  for (std::size_t i = 0; i < Connections::kMaxRefusedPerAddress; ++i) {
    auto slot = connections.AdmitRefused("10.0.0.1");
    ASSERT_TRUE(slot.has_value());
    EXPECT_TRUE(slot->refused());
    refused.push_back(std::move(*slot));
  }
  EXPECT_FALSE(connections.AdmitRefused("10.0.0.1").has_value()) << "one address holds few";
  EXPECT_EQ(connections.open(), 1u);
  refused.clear();
  EXPECT_TRUE(connections.AdmitRefused("10.0.0.1").has_value());
  Connections full(1, 5);
  auto only = full.Admit("a");
  EXPECT_FALSE(full.Admit("b", &refusal).has_value());
  EXPECT_EQ(refusal, "the server has its limit of 1 open connections (--max-connections)");
}

TEST(ConnectionsTest, TotalLimitAndReleaseOnDestruction) {
  Connections connections(1, 5);
  {
    auto a = connections.Admit("a");
    ASSERT_TRUE(a.has_value());
    EXPECT_FALSE(connections.Admit("b").has_value());
  }
  EXPECT_EQ(connections.open(), 0u);
  EXPECT_TRUE(connections.Admit("b").has_value());
}

TEST(ConnectionsTest, CloseAllShutsSessionsDownAndReportsIdle) {
  Connections connections(10, 10);
  auto session = std::make_shared<FakeSession>();
  bool idle = false;
  {
    auto slot = connections.Admit("a");
    ASSERT_TRUE(slot.has_value());
    connections.Attach(*slot, session);
    connections.CloseAll([&] { idle = true; });
    EXPECT_EQ(session->shutdowns, 1);
    EXPECT_FALSE(idle);
    EXPECT_FALSE(connections.Admit("b").has_value()) << "no admission while closing";
  }
  EXPECT_TRUE(idle);
}

TEST(ConnectionsTest, CloseAllWithNothingOpenIsIdleAtOnce) {
  Connections connections(10, 10);
  bool idle = false;
  connections.CloseAll([&] { idle = true; });
  EXPECT_TRUE(idle);
}

}  // namespace
}  // namespace melee::server
