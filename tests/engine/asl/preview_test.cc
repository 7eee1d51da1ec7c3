// The outcome preview: exact probabilities by enumerating the dice (11.141 EX numbers).

#include "engine/asl/preview.h"

#include <gtest/gtest.h>

#include "tests/engine/asl/fixtures.h"

namespace melee::engine::asl {
namespace {

using testing::AtDeclaration;
using testing::Attack;
using testing::kA;
using testing::kB;
using testing::Leader;
using testing::Mmc;

State LeaderDirectsAtDeclaration() {
  Situation situation;
  situation.units = {Mmc("G1", kA, 4, 7, Nationality::kGerman),
                     Leader("L1", kA, 8, -1, "G1", Nationality::kGerman),
                     Mmc("R1", kB, 4, 7, Nationality::kRussian),
                     Mmc("R2", kB, 4, 7, Nationality::kRussian)};
  return AtDeclaration(situation);
}

void ExpectSumsToOne(const OutcomeTable& table) {
  for (const TargetOdds& odds : table.targets) {
    EXPECT_EQ(odds.eliminated + odds.captured + odds.reduced + odds.wounded + odds.no_effect,
              Rational(1))
        << odds.unit;
  }
}

// 11.141 EX: 1-2 with -1: both Russians die on an Original DR <= 4 (6/36); a 5 (4/36) Reduces
// each with the Random Selection chance 21/36 (highest of two drs, ties included).
TEST(AslPreview, A11141GermanAttack) {
  const State state = LeaderDirectsAtDeclaration();
  const auto table = Preview(state, kA, Attack({"G1", "L1"}, {"R1", "R2"}));
  ASSERT_TRUE(table) << Describe(table.error());
  EXPECT_EQ(table->column, Column::kOneToTwo);
  EXPECT_EQ(table->kill_number, 4);
  EXPECT_EQ(Total(table->drms), -1);
  ASSERT_EQ(table->targets.size(), 2u);
  EXPECT_EQ(table->targets[0].final_dr_offset, -1);
  EXPECT_EQ(table->targets[0].eliminated, Rational(6, 36));
  EXPECT_EQ(table->targets[0].reduced, Rational(4, 36) * Rational(21, 36));
  EXPECT_EQ(table->all_eliminated, Rational(6, 36));
  EXPECT_EQ(table->original_two, Rational(1, 36));
  EXPECT_EQ(table->original_twelve, Rational(1, 36));
  // A18.2: German -1, odds below 1-1 -1: every Leader Creation dr creates a leader.
  EXPECT_EQ(table->leader_created, Rational(1, 36));
  ExpectSumsToOne(*table);
}

// 11.141 EX: the Russians at 3-2 eliminate both on DR < 6; a 6 selects by Random Selection, and
// a selected leader dies on a Wound Severity dr of 5-6.
TEST(AslPreview, A11141RussianAttack) {
  const State state = LeaderDirectsAtDeclaration();
  const auto table = Preview(state, kB, Attack({"R1", "R2"}, {"G1", "L1"}));
  ASSERT_TRUE(table) << Describe(table.error());
  EXPECT_EQ(table->column, Column::kThreeToTwo);
  const Rational partial = Rational(5, 36) * Rational(21, 36);
  EXPECT_EQ(table->targets[0].eliminated, Rational(10, 36));
  EXPECT_EQ(table->targets[0].reduced, partial);
  EXPECT_EQ(table->targets[1].eliminated, Rational(10, 36) + partial * Rational(2, 6));
  EXPECT_EQ(table->targets[1].wounded, partial * Rational(4, 6));
  EXPECT_EQ(table->all_eliminated, Rational(10, 36));
  ExpectSumsToOne(*table);
}

// A preview meets the same rules as a declaration.
TEST(AslPreview, IllegalAttackIsRefused) {
  const State state = LeaderDirectsAtDeclaration();
  const auto table = Preview(state, kB, Attack({"R1"}, {"L1"}));
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().rule_ref, "A11.14");
}

}  // namespace
}  // namespace melee::engine::asl
