#include "engine/core/rational.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace melee::engine {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(RationalTest, DefaultsToZero) {
  Rational zero;
  EXPECT_EQ(zero.num(), 0);
  EXPECT_EQ(zero.den(), 1);
}

TEST(RationalTest, NormalisesSignAndGcd) {
  Rational r(6, -4);
  EXPECT_EQ(r.num(), -3);
  EXPECT_EQ(r.den(), 2);
  EXPECT_EQ(Rational(-6, -4), Rational(3, 2));
  EXPECT_EQ(Rational(0, -7).den(), 1);
  EXPECT_EQ(Rational(0, -7), Rational(0));
  EXPECT_EQ(Rational(10, 5), Rational(2));
  EXPECT_TRUE(Rational(10, 5).IsInteger());
  EXPECT_FALSE(Rational(10, 4).IsInteger());
}

TEST(RationalTest, NormalisesExtremes) {
  EXPECT_EQ(Rational(kMin, -2), Rational(int64_t{1} << 62));
  EXPECT_EQ(Rational(kMin, kMin), Rational(1));
  EXPECT_EQ(Rational(kMin, 1).num(), kMin);
  EXPECT_EQ(Rational(kMax, kMax), Rational(1));
  EXPECT_EQ(Rational(-1, kMax).ToString(), "-1/9223372036854775807");
}

TEST(RationalTest, Arithmetic) {
  EXPECT_EQ(Rational(1, 2) + Rational(1, 3), Rational(5, 6));
  EXPECT_EQ(Rational(1, 2) - Rational(3, 4), Rational(-1, 4));
  EXPECT_EQ(Rational(2, 3) * Rational(9, 4), Rational(3, 2));
  EXPECT_EQ(Rational(2, 3) / Rational(4, 9), Rational(3, 2));
  EXPECT_EQ(-Rational(5, 2), Rational(-5, 2));
  EXPECT_EQ(Rational(7) / 3, Rational(7, 3));
  EXPECT_EQ(2 * Rational(5, 4), Rational(5, 2));
  Rational r = 1;
  r += Rational(1, 2);
  r *= 4;
  r -= 1;
  r /= 5;
  EXPECT_EQ(r, Rational(1));
}

TEST(RationalTest, ArithmeticNearTheLimitsIsExact) {
  // Intermediate products exceed 64 bits; the normalised results do not.
  EXPECT_EQ(Rational(kMax, 2) * Rational(2, kMax), Rational(1));
  EXPECT_EQ(Rational(1, kMax) + Rational(1, kMax), Rational(2, kMax));
  EXPECT_EQ(Rational(kMax) - Rational(kMax), Rational(0));
  EXPECT_EQ(Rational(kMin) + Rational(kMax), Rational(-1));
}

TEST(RationalTest, Comparisons) {
  EXPECT_LT(Rational(1, 3), Rational(1, 2));
  EXPECT_GT(Rational(-1, 3), Rational(-1, 2));
  EXPECT_LE(Rational(2, 4), Rational(1, 2));
  EXPECT_NE(Rational(1, 2), Rational(1, 3));
  EXPECT_LT(Rational(7, 3), 3);
  EXPECT_GT(Rational(7, 3), 2);
  EXPECT_EQ(Rational(4, 2), 2);
  // Cross products beyond 64 bits still compare exactly.
  EXPECT_GT(Rational(kMax - 1, kMax), Rational(kMax - 2, kMax - 1));
  EXPECT_LT(Rational(kMin), Rational(kMax));
  EXPECT_LT(Rational(kMax - 1, kMax), Rational(1));
}

TEST(RationalTest, FloorAndCeil) {
  EXPECT_EQ(Rational(5, 2).Floor(), 2);
  EXPECT_EQ(Rational(5, 2).Ceil(), 3);
  EXPECT_EQ(Rational(-5, 2).Floor(), -3);
  EXPECT_EQ(Rational(-5, 2).Ceil(), -2);
  EXPECT_EQ(Rational(-1, 3).Floor(), -1);
  EXPECT_EQ(Rational(-1, 3).Ceil(), 0);
  EXPECT_EQ(Rational(4).Floor(), 4);
  EXPECT_EQ(Rational(-4).Ceil(), -4);
  EXPECT_EQ(Rational(kMin).Floor(), kMin);
  EXPECT_EQ(Rational(kMin, 3).Floor(), kMin / 3 - 1);
}

TEST(RationalTest, HalfTwice) {
  // ASL halves firepower cumulatively: 5 -> 2 1/2 -> 1 1/4.
  const Rational once = Rational(5).Half();
  EXPECT_EQ(once, Rational(5, 2));
  EXPECT_EQ(once.Half(), Rational(5, 4));
  EXPECT_EQ(Rational(4).Half(), 2);
  EXPECT_EQ(Rational(-3).Half(), Rational(-3, 2));
}

TEST(RationalTest, ToString) {
  EXPECT_EQ(Rational(5).ToString(), "5");
  EXPECT_EQ(Rational(5, 2).ToString(), "5/2");
  EXPECT_EQ(Rational(-3, 4).ToString(), "-3/4");
  EXPECT_EQ(Rational(0).ToString(), "0");
  EXPECT_EQ(Rational(kMin).ToString(), "-9223372036854775808");
}

TEST(RationalTest, ToMixedString) {
  EXPECT_EQ(Rational(5, 2).ToMixedString(), "2 1/2");
  EXPECT_EQ(Rational(5, 4).ToMixedString(), "1 1/4");
  EXPECT_EQ(Rational(-5, 4).ToMixedString(), "-1 1/4");
  EXPECT_EQ(Rational(3, 4).ToMixedString(), "3/4");
  EXPECT_EQ(Rational(-3, 4).ToMixedString(), "-3/4");
  EXPECT_EQ(Rational(6).ToMixedString(), "6");
  EXPECT_EQ(Rational(kMin, kMax).ToMixedString(), "-1 1/9223372036854775807");
}

TEST(RationalTest, AslFirepowerAgainstCloseCombatValue) {
  // "2 1/2 FP vs 5 CCV": a 5-FP unit halved once attacks at 5/2 : 5, i.e. odds of 1:2.
  const Rational fp = Rational(5).Half();
  const Rational odds = fp / 5;
  EXPECT_EQ(odds, Rational(1, 2));
  EXPECT_EQ(fp.ToMixedString() + " FP", "2 1/2 FP");
}

TEST(RationalTest, OddsRoundDownToPrintedColumn) {
  // 7:3 is 2 1/3 : 1, rounded down to the 2:1 column; 8:3 also 2:1; 9:3 is 3:1.
  EXPECT_EQ(Rational(7, 3).Floor(), 2);
  EXPECT_GE(Rational(7, 3), 2);
  EXPECT_LT(Rational(7, 3), 3);
  EXPECT_EQ(Rational(8, 3).Floor(), 2);
  EXPECT_EQ(Rational(9, 3).Floor(), 3);
  // Below 1:1 the column is the inverse, rounded in the defender's favour: 3:7 -> 1:3.
  EXPECT_EQ((1 / Rational(3, 7)).Ceil(), 3);
}

class RationalDeathTest : public ::testing::Test {
 protected:
  RationalDeathTest() { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(RationalDeathTest, ZeroDenominator) {
  EXPECT_DEATH(Rational(1, 0), "melee check failed.*zero denominator");
}

TEST_F(RationalDeathTest, DivisionByZero) {
  EXPECT_DEATH(Rational(1) / Rational(0), "melee check failed.*division by zero");
}

TEST_F(RationalDeathTest, AdditionOverflow) {
  EXPECT_DEATH(Rational(kMax) + 1, "melee check failed.*overflow");
}

TEST_F(RationalDeathTest, MultiplicationOverflow) {
  EXPECT_DEATH(Rational(kMax) * 2, "melee check failed.*overflow");
  EXPECT_DEATH(Rational(kMax, 2) * 3, "melee check failed.*overflow");
}

TEST_F(RationalDeathTest, DenominatorOverflow) {
  EXPECT_DEATH(Rational(1, kMax) + Rational(1, kMax - 1), "melee check failed.*overflow");
}

TEST_F(RationalDeathTest, NegationOverflow) {
  EXPECT_DEATH(-Rational(kMin), "melee check failed.*overflow");
  EXPECT_DEATH(Rational(kMin, -1), "melee check failed.*overflow");
  EXPECT_DEATH(Rational(1, kMin), "melee check failed.*overflow");
}

}  // namespace
}  // namespace melee::engine
