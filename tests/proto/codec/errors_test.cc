#include "proto/codec/errors.h"

#include <gtest/gtest.h>

namespace melee::proto {
namespace {

TEST(ErrorsTest, RuleErrorKeepsRuleReference) {
  const auto error =
      ToWireError(melee::engine::RuleError{"A11.16", "a broken unit cannot attack"}, "c7");
  EXPECT_EQ(error.code(), melee::v1::ERROR_CODE_RULE_VIOLATION);
  EXPECT_EQ(error.rule_ref(), "A11.16");
  EXPECT_EQ(error.message(), "a broken unit cannot attack");
  EXPECT_EQ(error.command_id(), "c7");
}

TEST(ErrorsTest, NotSupportedRuleBecomesNotSupportedCode) {
  const auto error = ToWireError(
      melee::engine::RuleError{"A11.622", "not supported: A11.622 Close Defense Weapon System"},
      "c8");
  EXPECT_EQ(error.code(), melee::v1::ERROR_CODE_NOT_SUPPORTED);
  EXPECT_EQ(error.rule_ref(), "A11.622");
}

TEST(ErrorsTest, FrameErrorKeepsItsCode) {
  const auto error =
      ToWireError(FrameError{melee::v1::ERROR_CODE_UNKNOWN_MESSAGE, "no command"}, "");
  EXPECT_EQ(error.code(), melee::v1::ERROR_CODE_UNKNOWN_MESSAGE);
  EXPECT_EQ(error.message(), "no command");
}

}  // namespace
}  // namespace melee::proto
