// The CCT, Leader Creation, Wound Severity and Random Selection tables (SPEC-NOTES A.1, tests
// ASL-T1, ASL-T14, ASL-T15, ASL-T16).

#include <gtest/gtest.h>

#include <vector>

#include "engine/asl/attack.h"

namespace melee::engine::asl {
namespace {

struct OddsCase {
  Rational attack;
  Rational defence;
  std::string_view column;
  int kill;
};

// ASL-T1 / A11.11: the ratio is rounded down to a printed column; black Kill #.
TEST(AslCct, A1111OddsRoundDownToPrintedColumns) {
  const std::vector<OddsCase> cases = {
      {12, 4, "3-1", 8},
      {7, 4, "3-2", 6},
      {11, 2, "4-1", 9},
      {4, 15, "1-4", 3},
      {3, 4, "1-2", 4},
      {5, 8, "1-2", 4},
      {8, 5, "3-2", 6},
      {9, 5, "3-2", 6},
      {Rational(5, 2), 5, "1-2", 4},
      {4, 2, "2-1", 7},
      {5, 16, "1-4", 3},
      {5, 6, "1-2", 4},
      {1, 9, "<1-8", 0},
      {1, 8, "1-8", 1},
      {10, 1, "10-1", 12},
      {Rational(21, 2), 1, ">10-1", 13},
  };
  for (const OddsCase& c : cases) {
    const Column column = OddsColumn(c.attack, c.defence);
    EXPECT_EQ(Name(column), c.column) << c.attack.ToString() << ":" << c.defence.ToString();
    EXPECT_EQ(KillNumber(column, false), c.kill) << c.attack.ToString();
  }
}

// ASL-AMB-1: the option that reads ">10-1" as rounding down to 10-1.
TEST(AslCct, AboveTenToOneOption) {
  EXPECT_EQ(OddsColumn(11, 1, /*above_ten_column=*/false), Column::kTenToOne);
  EXPECT_EQ(OddsColumn(11, 1), Column::kAboveTenToOne);
}

// A11.11 / J2.31: the red HtH Kill # is two above the black one, 2 .. 15.
TEST(AslCct, J231RedKillNumbers) {
  EXPECT_EQ(KillNumber(Column::kBelowOneToEight, true), 2);
  EXPECT_EQ(KillNumber(Column::kOneToOne, true), 7);
  EXPECT_EQ(KillNumber(Column::kOneToOne, false), 5);
  EXPECT_EQ(KillNumber(Column::kAboveTenToOne, true), 15);
}

// ASL-T14 / A18.2: Final dr -> leader.
TEST(AslLeaderCreation, A182Table) {
  EXPECT_EQ(CreatedLeader(2), "8-0");  // German -1, ML 8 -1, dr 4
  EXPECT_EQ(CreatedLeader(1), "8-1");  // dr 3
  EXPECT_EQ(CreatedLeader(4), "7-0");  // dr 6
  EXPECT_EQ(CreatedLeader(5), "7-0");
  EXPECT_EQ(CreatedLeader(6), "6+1");
  EXPECT_EQ(CreatedLeader(7), "");  // Russian +1, dr 6
  EXPECT_EQ(CreatedLeader(-1), "8-1");
}

// ASL-T14: the drm come from the highest-BPV attacking MMC.
TEST(AslLeaderCreation, A182DrmForGermanEliteAndRussianLine) {
  Options options;
  Unit german;
  german.id = "G1";
  german.nationality = Nationality::kGerman;
  german.morale = 8;
  german.firepower = 4;
  Unit russian = german;
  russian.id = "R1";
  russian.nationality = Nationality::kRussian;
  russian.morale = 7;
  const std::vector<Unit> units = {german, russian};
  const std::vector<uint16_t> g = {0};
  auto check = LeaderCreationCheck(units, g, Column::kOneToOne, options);
  ASSERT_TRUE(check);
  EXPECT_EQ(Total(check->drms), -2);
  const std::vector<uint16_t> r = {1};
  check = LeaderCreationCheck(units, r, Column::kOneToTwo, options);
  ASSERT_TRUE(check);
  EXPECT_EQ(Total(check->drms), 0);  // +1 Russian, -1 odds below 1-1.
  EXPECT_EQ(CreatedLeader(6 + Total(check->drms)), "6+1");
  // ASL-AMB-9: no Leader Creation for Finns and Japanese (unless the option says otherwise).
  std::vector<Unit> finns = {german};
  finns[0].nationality = Nationality::kFinnish;
  EXPECT_FALSE(LeaderCreationCheck(finns, g, Column::kOneToOne, options));
  options.leader_creation_excludes_finns_japanese = false;
  EXPECT_TRUE(LeaderCreationCheck(finns, g, Column::kOneToOne, options));
}

// ASL-T15 / A17.11: 5-6 is mortal; +1 once wounded.
TEST(AslWoundSeverity, A1711) {
  EXPECT_FALSE(IsMortalWound(4, 0));
  EXPECT_TRUE(IsMortalWound(5, 0));
  EXPECT_TRUE(IsMortalWound(4, 1));
  EXPECT_FALSE(IsMortalWound(3, 1));
}

// ASL-T16 / A.9 EX: drs 3, 1, 2, 3 for leader, crew, HS, squad select the leader and the squad.
TEST(AslRandomSelection, A9TiesAreAllAffected) {
  const std::vector<int> drs = {3, 1, 2, 3};
  EXPECT_EQ(HighestRolls(drs), (std::vector<size_t>{0, 3}));
  const std::vector<int> one = {2, 6, 5};
  EXPECT_EQ(HighestRolls(one), (std::vector<size_t>{1}));
}

}  // namespace
}  // namespace melee::engine::asl
