#include "engine/core/dice.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace melee::engine {
namespace {

using ::testing::ElementsAre;

constexpr uint64_t kTop = std::numeric_limits<uint64_t>::max();

// Returns a fixed sequence of 64-bit values and counts how many were drawn.
class ScriptedBits final : public BitSource {
 public:
  explicit ScriptedBits(std::vector<uint64_t> values) : values_(std::move(values)) {}
  uint64_t Next64() override { return values_.at(drawn_++); }
  size_t drawn() const { return drawn_; }

 private:
  std::vector<uint64_t> values_;
  size_t drawn_ = 0;
};

TEST(FairD6Test, MapsAcceptedValuesToRemainderPlusOne) {
  ScriptedBits bits({0, 1, 5, 6, 11, 0x0123456789ABCDEFULL, kTop - 4});
  EXPECT_EQ(FairD6(bits), 1);
  EXPECT_EQ(FairD6(bits), 2);
  EXPECT_EQ(FairD6(bits), 6);
  EXPECT_EQ(FairD6(bits), 1);
  EXPECT_EQ(FairD6(bits), 6);
  EXPECT_EQ(FairD6(bits), static_cast<int>(0x0123456789ABCDEFULL % 6) + 1);
  EXPECT_EQ(FairD6(bits), 6);  // 2^64 - 5, the largest accepted value.
  EXPECT_EQ(bits.drawn(), 7u);
}

TEST(FairD6Test, RejectsTheTopFourValues) {
  // 2^64 mod 6 == 4: the values 2^64-4 .. 2^64-1 would favour faces 1..4, so they are redrawn.
  ScriptedBits bits({kTop, kTop - 1, kTop - 2, kTop - 3, 8});
  EXPECT_EQ(FairD6(bits), 3);
  EXPECT_EQ(bits.drawn(), 5u);
}

TEST(FairDieTest, PowerOfTwoSidesRejectNothing) {
  ScriptedBits bits({kTop, kTop - 1});
  EXPECT_EQ(FairDie(bits, 2), 2);
  EXPECT_EQ(FairDie(bits, 8), 7);
  EXPECT_EQ(bits.drawn(), 2u);
}

TEST(FairDieTest, TenSidesRejectTheTopSix) {
  // 2^64 mod 10 == 6.
  ScriptedBits bits({kTop, kTop - 5, kTop - 6});
  EXPECT_EQ(FairDie(bits, 10), static_cast<int>((kTop - 6) % 10) + 1);
  EXPECT_EQ(bits.drawn(), 3u);
}

TEST(SplitMix64Test, MatchesReferenceOutputsForSeedZero) {
  SplitMix64 source(0);
  EXPECT_EQ(source.Next64(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(source.Next64(), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(source.Next64(), 0x06C45D188009454FULL);
}

TEST(SplitMix64Test, SameSeedSameStream) {
  SplitMix64 a(42);
  SplitMix64 b(42);
  SplitMix64 c(43);
  for (int i = 0; i < 100; ++i) {
    const uint64_t value = a.Next64();
    EXPECT_EQ(value, b.Next64());
    EXPECT_NE(value, c.Next64());
  }
}

TEST(SourceDiceTest, FacesAreRoughlyUniform) {
  SplitMix64 source(20240601);
  SourceDice dice(source);
  std::array<int, 7> counts = {};
  for (int i = 0; i < 60000; ++i) ++counts[static_cast<size_t>(dice.RollDie("uniformity"))];
  EXPECT_EQ(counts[0], 0);
  for (size_t face = 1; face <= 6; ++face) {
    EXPECT_GE(counts[face], 9000) << "face " << face;
    EXPECT_LE(counts[face], 11000) << "face " << face;
  }
}

TEST(SourceDiceTest, UsesFairD6OnTheSource) {
  SplitMix64 reference(7);
  SplitMix64 source(7);
  SourceDice dice(source);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(dice.RollDie("x"), FairD6(reference));
}

TEST(ScriptedDiceTest, ReturnsValuesInOrderAndRecordsPurposes) {
  ScriptedDice dice({3, 1, 6, 2, 5, 4});
  EXPECT_EQ(dice.remaining(), 6u);
  EXPECT_EQ(dice.RollDie("A11.4 ambush dr"), 3);
  EXPECT_THAT(dice.RollDice(3, "17.2 combat dice"), ElementsAre(1, 6, 2));
  EXPECT_EQ(dice.remaining(), 2u);
  EXPECT_THAT(dice.rolls(), ElementsAre(DieRoll{"A11.4 ambush dr", DieColor::kSingle, 3},
                                        DieRoll{"17.2 combat dice", DieColor::kSingle, 1},
                                        DieRoll{"17.2 combat dice", DieColor::kSingle, 6},
                                        DieRoll{"17.2 combat dice", DieColor::kSingle, 2}));
}

TEST(ScriptedDiceTest, RollTwoDiceRecordsColoredThenWhite) {
  ScriptedDice dice({1, 1, 6, 5});
  const TwoDice original_two = dice.RollTwoDice("A11.11 CC DR");
  EXPECT_EQ(original_two.colored, 1);
  EXPECT_EQ(original_two.white, 1);
  EXPECT_EQ(original_two.Total(), 2);
  EXPECT_TRUE(original_two.IsDoubles());
  const TwoDice dr = dice.RollTwoDice("A11.11 CC DR");
  EXPECT_EQ(dr, (TwoDice{6, 5}));
  EXPECT_EQ(dr.Total(), 11);
  EXPECT_FALSE(dr.IsDoubles());
  EXPECT_THAT(dice.rolls(), ElementsAre(DieRoll{"A11.11 CC DR", DieColor::kColored, 1},
                                        DieRoll{"A11.11 CC DR", DieColor::kWhite, 1},
                                        DieRoll{"A11.11 CC DR", DieColor::kColored, 6},
                                        DieRoll{"A11.11 CC DR", DieColor::kWhite, 5}));
}

TEST(ScriptedDiceTest, TakeRollsReturnsAndClears) {
  ScriptedDice dice({2, 4});
  dice.RollDie("first");
  const std::vector<DieRoll> taken = dice.TakeRolls();
  EXPECT_THAT(taken, ElementsAre(DieRoll{"first", DieColor::kSingle, 2}));
  EXPECT_TRUE(dice.rolls().empty());
  dice.RollDie("second");
  EXPECT_THAT(dice.rolls(), ElementsAre(DieRoll{"second", DieColor::kSingle, 4}));
  EXPECT_EQ(dice.remaining(), 0u);
}

TEST(ScriptedDiceTest, EmptyPoolRollsNothing) {
  ScriptedDice dice({});
  EXPECT_TRUE(dice.RollDice(0, "none").empty());
  EXPECT_TRUE(dice.rolls().empty());
}

class DiceDeathTest : public ::testing::Test {
 protected:
  DiceDeathTest() { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(DiceDeathTest, ExhaustedScriptAborts) {
  ScriptedDice dice({4});
  dice.RollDie("ok");
  EXPECT_DEATH(dice.RollDie("one too many"), "melee check failed.*ran out");
}

TEST_F(DiceDeathTest, ScriptValueOutOfRangeAborts) {
  EXPECT_DEATH(ScriptedDice({1, 7}), "melee check failed.*outside 1..6");
  EXPECT_DEATH(ScriptedDice({0}), "melee check failed.*outside 1..6");
}

TEST_F(DiceDeathTest, NegativePoolAborts) {
  ScriptedDice dice({1});
  EXPECT_DEATH(dice.RollDice(-1, "bad"), "melee check failed");
}

TEST_F(DiceDeathTest, FairDieSidesOutOfRangeAborts) {
  SplitMix64 source(1);
  EXPECT_DEATH(FairDie(source, 1), "melee check failed");
  EXPECT_DEATH(FairDie(source, 256), "melee check failed");
}

}  // namespace
}  // namespace melee::engine
