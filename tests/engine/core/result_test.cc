#include "engine/core/result.h"

#include <gtest/gtest.h>

#include "engine/core/check.h"

namespace melee::engine {
namespace {

Result<int> AttackStrength(bool broken) {
  if (broken) return Reject("A11.16", "a broken unit cannot attack");
  return 4;
}

TEST(ResultTest, RejectCarriesRuleAndMessage) {
  const Result<int> rejected = AttackStrength(true);
  ASSERT_FALSE(rejected.has_value());
  EXPECT_EQ(rejected.error(), (RuleError{"A11.16", "a broken unit cannot attack"}));
  EXPECT_EQ(AttackStrength(false).value(), 4);
}

TEST(ResultTest, DescribeNamesTheRule) {
  EXPECT_EQ(Describe(RuleError{"A11.16", "a broken unit cannot attack"}),
            "A11.16: a broken unit cannot attack");
  EXPECT_EQ(Describe(RuleError{"", "unknown ruleset 'x'"}), "unknown ruleset 'x'");
}

TEST(CheckTest, PassingChecksDoNothing) {
  int evaluated = 0;
  MELEE_CHECK(++evaluated == 1);
  MELEE_CHECK_MSG(++evaluated == 2, "evaluated once");
  EXPECT_EQ(evaluated, 2);
}

TEST(CheckDeathTest, FailingCheckReportsExpressionMessageAndPlace) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(MELEE_CHECK(1 + 1 == 3),
               "melee check failed: 1 \\+ 1 == 3 at .*result_test.cc:[0-9]+");
  EXPECT_DEATH(MELEE_CHECK_MSG(false, "the why"), "melee check failed: false \\(the why\\) at ");
}

}  // namespace
}  // namespace melee::engine
