#include "proto/codec/errors.h"

#include <gtest/gtest.h>

#include <string>

#include "proto/codec/checks.h"

namespace melee::proto {
namespace {

// Found by fuzz_http and fuzz_frame (tests/fuzz/regressions/): an error quoting a request path
// with bytes that are not UTF-8, or an id cut inside a character, was not UTF-8, and a client's
// protobuf refused the whole message.
TEST(ErrorsTest, MessageIsAlwaysUtf8) {
  const melee::v1::Error error = MakeError(melee::v1::ERROR_CODE_NOT_FOUND,
                                           "no such endpoint: /api/\xff\xfe caf\xc3\xa9 \xc3");
  EXPECT_EQ(error.message(), "no such endpoint: /api/ caf\xc3\xa9 ");
  melee::v1::Error parsed;
  EXPECT_TRUE(parsed.ParseFromString(error.SerializeAsString()));
}

TEST(ErrorsTest, QuotedCutsBeforeACharacterNotInsideIt) {
  // 31 ASCII bytes, then "é" (2 bytes) across the 32-byte cut.
  EXPECT_EQ(checks::Quoted(std::string(31, 'a') + "\xc3\xa9" "b"),
            "\"" + std::string(31, 'a') + "...\"");
  EXPECT_EQ(checks::Quoted("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
}

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
