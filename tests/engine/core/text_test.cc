// Append and Concat (engine/core/text.h): each kind of piece written as `+` and std::to_string
// would have written it.

#include "engine/core/text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace melee::engine {
namespace {

TEST(TextTest, EachKindOfPieceIsWrittenAsPlusAndToStringWrite) {
  const std::string unit = "squad 4-4-7";
  const std::string_view rule = "A11.11";
  const int dr = -3;
  const size_t count = 12;
  const uint8_t small = 200;
  EXPECT_EQ(Concat(unit, " attacks at ", dr, " DRM [", rule, ']', ", ", count, " units, ", small),
            unit + " attacks at " + std::to_string(dr) + " DRM [" + std::string(rule) + "]" + ", " +
                std::to_string(count) + " units, " + std::to_string(small));
}

TEST(TextTest, IntegersAtTheirLimits) {
  EXPECT_EQ(Concat(std::numeric_limits<int64_t>::min()),
            std::to_string(std::numeric_limits<int64_t>::min()));
  EXPECT_EQ(Concat(std::numeric_limits<uint64_t>::max()),
            std::to_string(std::numeric_limits<uint64_t>::max()));
  EXPECT_EQ(Concat(0), "0");
}

TEST(TextTest, AppendKeepsWhatIsThereAndEmptyPiecesAddNothing) {
  std::string text = "DR 7";
  Append(text, "", std::string(), std::string_view(), "; DRM ", "+1");
  EXPECT_EQ(text, "DR 7; DRM +1");
  Append(text);
  EXPECT_EQ(text, "DR 7; DRM +1");
}

TEST(TextTest, ALongTextGrowsAsItIsWritten) {
  std::string text;
  std::string expected;
  for (int i = 0; i < 1000; ++i) {
    Append(text, "\n  roll ", i, ": ", i % 6 + 1);
    expected += "\n  roll " + std::to_string(i) + ": " + std::to_string(i % 6 + 1);
  }
  EXPECT_EQ(text, expected);
}

}  // namespace
}  // namespace melee::engine
