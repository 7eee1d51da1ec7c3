#include "engine/core/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "tests/engine/testing/duel_rules.h"

namespace melee::engine {
namespace {

using ::melee::engine::testing::DuelRules;
using ::testing::ElementsAre;

// A second test ruleset, so that Ids() has something to sort.
struct AlphaRules : DuelRules {
  static constexpr std::string_view kId = "alpha";
  static constexpr std::string_view kVersion = "0.1";
};

Registry TestRegistry() {
  Registry registry;
  registry.Add(std::make_unique<TypedRuleset<DuelRules>>());
  registry.Add(std::make_unique<TypedRuleset<AlphaRules>>());
  return registry;
}

TEST(KnownRulesetIdsTest, ListsTheThreeSystems) {
  EXPECT_THAT(KnownRulesetIds(), ElementsAre("asl", "coc", "vv"));
}

TEST(RegistryTest, AddFindIds) {
  const Registry registry = TestRegistry();
  EXPECT_THAT(registry.Ids(), ElementsAre("alpha", "duel"));
  const Result<const Ruleset*> duel = registry.Find("duel");
  ASSERT_TRUE(duel.has_value());
  EXPECT_EQ((*duel)->id(), "duel");
  EXPECT_EQ(registry.Find("alpha").value()->version(), "0.1");
}

TEST(RegistryTest, PointersSurviveAMove) {
  Registry registry = TestRegistry();
  const Ruleset* duel = registry.Find("duel").value();
  const Registry moved = std::move(registry);
  EXPECT_EQ(moved.Find("duel").value(), duel);
  EXPECT_THAT(moved.Ids(), ElementsAre("alpha", "duel"));
}

TEST(RegistryTest, UnknownIdListsKnownOnes) {
  const Registry registry = BuiltinRegistry();
  const auto missing = registry.Find("xyz");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error(), (RuleError{"", "unknown ruleset 'xyz' (known: asl, coc, vv)"}));
  // Registered extras are listed too, in order.
  EXPECT_EQ(TestRegistry().Find("xyz").error().message,
            "unknown ruleset 'xyz' (known: alpha, asl, coc, duel, vv)");
}

TEST(RegistryTest, UnknownIdIsQuotedSafely) {
  const std::string hostile = std::string("a\nb\x01") + std::string(100, 'z');
  const std::string message = BuiltinRegistry().Find(hostile).error().message;
  EXPECT_EQ(message, "unknown ruleset 'a?b?" + std::string(60, 'z') + "...' (known: asl, coc, vv)");
  EXPECT_EQ(BuiltinRegistry().Find("").error().message, "unknown ruleset '' (known: asl, coc, vv)");
}

TEST(RegistryTest, BuiltinRegistryReportsMissingKnownRulesets) {
  const Registry registry = BuiltinRegistry();
  for (std::string_view id : KnownRulesetIds()) {
    if (registry.Find(id).has_value()) continue;  // Compiled into this build.
    EXPECT_EQ(registry.Find(id).error(),
              (RuleError{"", "not supported: ruleset '" + std::string(id) +
                                 "' is not implemented in this build"}));
  }
}

TEST(RegistryTest, BuiltinRegistryHasAllThreeRulesets) {
  const Registry registry = BuiltinRegistry();
  ASSERT_TRUE(registry.Find("coc").has_value());
  EXPECT_EQ((*registry.Find("coc"))->version(), "coc17-1");
  EXPECT_THAT((*registry.Find("coc"))->variants(), ElementsAre("2e"));
  ASSERT_TRUE(registry.Find("asl").has_value());
  EXPECT_EQ((*registry.Find("asl"))->id(), "asl");
  EXPECT_EQ((*registry.Find("asl"))->version(), "a11-2");
  ASSERT_TRUE(registry.Find("vv").has_value());
  EXPECT_EQ((*registry.Find("vv"))->version(), "vv15-2");
  EXPECT_THAT((*registry.Find("vv"))->variants(), ElementsAre("board", "pc"));
  EXPECT_THAT(registry.Ids(), ElementsAre("asl", "coc", "vv"));
}

TEST(RegistryDeathTest, DuplicateIdIsABug) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Registry registry = TestRegistry();
  EXPECT_DEATH(registry.Add(std::make_unique<TypedRuleset<DuelRules>>()), "already registered");
  EXPECT_DEATH(registry.Add(nullptr), "needs a ruleset");
}

}  // namespace
}  // namespace melee::engine
