// The rule's worked examples (rule 15, 14.61) and the VV-T* cases of SPEC-NOTES.md part B.5,
// played end to end through the ruleset with scripted dice. Dice order: the assault DR (coloured
// die, then white), then valor checks, then the assaulter's allocation dice, then the defender's.

#include <gtest/gtest.h>

#include "tests/engine/vv/fixtures.h"

namespace melee::engine::vv {
namespace {

using testing::Act;
using testing::AllocationOf;
using testing::AwaitingAllocation;
using testing::Eliminated;
using testing::HalfSquad;
using testing::InTarget;
using testing::kA;
using testing::kB;
using testing::Leader;
using testing::Lmg;
using testing::MustFail;
using testing::MustPlay;
using testing::ReportOf;
using testing::Squad;
using testing::UnitOf;
using testing::Use;
using testing::Vehicle;

// 15 Close Assault Example: three German 4-6-5 Rifle squads and Schmidt 1-3-1 (-1), with one
// Grenades counter, assault a US 2-6-2 half squad with an M1919A6 LMG 3-6 (L), a 5-6-4 squad and
// Coleman 1-3-1 (-1) in a building (+3).
Script CloseAssaultExample() {
  Script script;
  script.situation.attacker = kA;
  script.situation.source_hex = "B1";
  script.situation.target = TargetHex{.name = "C1", .terrain_cover = 3, .hexside_cover = 0,
                                      .fortification_cover = 0, .hindrance_cover = 0,
                                      .capacity = 0};
  Unit us_half = HalfSquad("US-HS", kB, 2, 2);
  us_half.weapons = {Lmg("LMG", 3)};
  script.situation.units = {Squad("G1", kA, 4, 5, 2, 2),     Squad("G2", kA, 4, 5, 2, 2),
                            Squad("G3", kA, 4, 5, 2, 2),     Leader("Schmidt", kA, 1, 1, 1),
                            us_half,                         Squad("US-SQ", kB, 5, 4, 2, 2),
                            Leader("Coleman", kB, 1, 1, 1)};
  script.situation.expendables[0].grenades = 1;
  script.declarations[0] = Declare{.group = {"G1", "G2", "G3", "Schmidt"},
                                   .leader = "Schmidt",
                                   .uses = {Use("G1", "", true)}};
  script.declarations[1] = Declare{.group = {}, .leader = "Coleman", .uses = {Use("US-HS", "LMG")}};
  return script;
}

TEST(VvExamples, VvT1CloseAssaultExample15SucceedsAtOneToOne) {
  Script script = CloseAssaultExample();
  // "The German player eliminates one squad, and pins another to cover the six Casualty Points."
  script.allocations[0] =
      AllocationOf({Act("G1", CpActionKind::kEliminate), Act("G2", CpActionKind::kPin)});
  const Played played = MustPlay(script, {3, 4});  // DR 7
  const AssaultReport report = ReportOf(played);
  EXPECT_EQ(report.assault_apfp, 13);
  EXPECT_EQ(report.defence_apfp, 11);  // 2 + 3 (LMG) + 5 + 1
  EXPECT_EQ(report.odds, Odds::k1to1);
  EXPECT_EQ(report.printed_kill_number, 6);
  EXPECT_EQ(report.kill_number, 5);  // -1 Coleman (15.3)
  EXPECT_EQ(report.dr.Total(), 7);
  EXPECT_EQ(report.final_dr, 5);  // -1 Schmidt (15.3), -1 Grenades (12.52)
  EXPECT_TRUE(report.success);
  EXPECT_EQ(report.assaulter_cp, 6);  // 3 building + 3 defending units (15.8)
  EXPECT_EQ(report.defender_cp, 0);
  const State& end = played.final_state;
  EXPECT_EQ(end.phase, Phase::kEnded);
  for (const char* id : {"US-HS", "US-SQ", "Coleman"}) EXPECT_TRUE(Eliminated(end, id)) << id;
  EXPECT_TRUE(Eliminated(end, "G1"));
  EXPECT_TRUE(UnitOf(end, "G2").pinned);
  for (const char* id : {"G2", "G3", "Schmidt"}) EXPECT_TRUE(InTarget(end, id)) << id;
  EXPECT_EQ(end.expendables[0].grenades, 0);  // 12.5: expended
}

TEST(VvExamples, VvT1PinningThreeSquadsDoesNotCoverSixCasualtyPoints) {
  Script script = CloseAssaultExample();
  script.allocations[0] = AllocationOf({Act("G1", CpActionKind::kPin), Act("G2", CpActionKind::kPin),
                                    Act("G3", CpActionKind::kPin)});
  const RuleError error = MustFail(script, {3, 4});
  EXPECT_EQ(error.rule_ref, "14.61");
  EXPECT_NE(error.message.find("fulfils 3 of the 6"), std::string::npos) << error.message;
}

// 15.8's example: three squads assault two squads in woods (+2) at 2-1 (Kill # 8).
Script WoodsExample() {
  Script script;
  script.situation.attacker = kA;
  script.situation.target.name = "W1";
  script.situation.target.terrain_cover = 2;
  script.situation.units = {Squad("A1", kA, 4, 5, 2, 2), Squad("A2", kA, 4, 5, 2, 2),
                            Squad("A3", kA, 4, 5, 2, 2), Squad("D1", kB, 3, 4, 1, 2),
                            Squad("D2", kB, 3, 4, 1, 2)};
  script.declarations[0] = Declare{.group = {"A1", "A2", "A3"}, .leader = "", .uses = {}};
  return script;
}

TEST(VvExamples, VvT2WoodsExampleSuccessCostsCoverPlusDefenders) {
  Script script = WoodsExample();
  script.allocations[0] =
      AllocationOf({Act("A1", CpActionKind::kReduce), Act("A2", CpActionKind::kPin)});  // 3 + 1
  const AssaultReport report = ReportOf(MustPlay(script, {4, 4}));  // DR 8
  EXPECT_EQ(report.odds, Odds::k2to1);
  EXPECT_EQ(report.kill_number, 8);
  EXPECT_TRUE(report.success);  // 15.7: equal to the Kill Number succeeds
  EXPECT_EQ(report.assaulter_cp, 4);
}

TEST(VvExamples, VvT2WoodsExampleRollOfTenFailsForSixAndThree) {
  Script script = WoodsExample();
  script.allocations[0] = AllocationOf({Act("A1", CpActionKind::kEliminate),
                                    Act("A2", CpActionKind::kPin)});  // 5 + 1 = 6
  script.allocations[1] = AllocationOf({Act("D1", CpActionKind::kReduce),
                                    Act("D2", CpActionKind::kPin)});  // 2 + 1 = 3
  const Played played = MustPlay(script, {5, 5});                    // DR 10
  const AssaultReport report = ReportOf(played);
  EXPECT_FALSE(report.success);
  EXPECT_EQ(report.margin, 2);
  EXPECT_EQ(report.assaulter_cp, 6);  // 2 failed by + 2 woods + 2 defending squads
  EXPECT_EQ(report.defender_cp, 3);   // 1 per assaulting squad
  const State& end = played.final_state;
  EXPECT_EQ(UnitOf(end, "D1").kind, UnitKind::kHalfSquad);
  EXPECT_TRUE(UnitOf(end, "D2").pinned);
  EXPECT_FALSE(InTarget(end, "A2"));  // the defenders hold the hex
}

TEST(VvExamples, VvT3OddsAndKillNumbers) {
  // B.1.2's checks, and B.1.1's Kill Numbers.
  EXPECT_EQ(OddsOf(14, 6), Odds::k2to1);
  EXPECT_EQ(OddsOf(6, 14), Odds::k1to2);  // VV-AMB-1: the rule's own example
  EXPECT_EQ(OddsOf(13, 11), Odds::k1to1);
  EXPECT_EQ(OddsOf(11, 13), Odds::k1to1);
  EXPECT_EQ(OddsOf(20, 4), Odds::k4to1);
  EXPECT_EQ(OddsOf(40, 4), Odds::k4to1);  // greater than 4-1 resolves at 4-1
  EXPECT_EQ(OddsOf(4, 20), Odds::k1to4);
  EXPECT_EQ(OddsOf(1, 40), Odds::k1to4);  // lower than 1-4 resolves at 1-4
  EXPECT_EQ(OddsOf(3, 9), Odds::k1to3);
  EXPECT_EQ(OddsOf(12, 6), Odds::k2to1);
  EXPECT_EQ(KillNumber(Odds::k1to4), 3);
  EXPECT_EQ(KillNumber(Odds::k1to3), 4);
  EXPECT_EQ(KillNumber(Odds::k1to2), 5);
  EXPECT_EQ(KillNumber(Odds::k1to1), 6);
  EXPECT_EQ(KillNumber(Odds::k2to1), 8);
  EXPECT_EQ(KillNumber(Odds::k3to1), 9);
  EXPECT_EQ(KillNumber(Odds::k4to1), 10);
  EXPECT_EQ(Name(Odds::k1to2), "1-2");
}

TEST(VvExamples, VvT4OnlyPinnedDefendersAreTakenWithoutARoll) {
  Script script;
  script.situation.target.name = "P1";
  script.situation.target.terrain_cover = 3;
  Unit pinned = Squad("D1", kB, 4, 4, 2, 2);
  pinned.pinned = true;
  Unit pinned_leader = Leader("DL", kB, 1, 1, 1);
  pinned_leader.pinned = true;
  script.situation.units = {Squad("A1", kA, 4, 5, 2, 2), pinned, pinned_leader};
  script.declarations[0] = Declare{.group = {"A1"}, .leader = "", .uses = {}};
  const Played played = MustPlay(script, {});  // 15.9: no die is rolled
  const AssaultReport report = ReportOf(played);
  EXPECT_TRUE(report.automatic);
  EXPECT_EQ(report.pinned_eliminated.size(), 2u);
  EXPECT_EQ(report.assaulter_cp, 0);
  EXPECT_TRUE(Eliminated(played.final_state, "D1"));
  EXPECT_TRUE(InTarget(played.final_state, "A1"));
  // The defender, with nothing but pinned units, was never asked to declare.
  for (const Event& event : played.events) {
    EXPECT_FALSE(event.kind == EventKind::kDeclarationSealed && event.seat == kB);
  }
}

TEST(VvExamples, VvT4PinnedSquadIsRemovedBeforeTheOdds) {
  Script script;
  script.situation.target.name = "P2";
  script.situation.target.terrain_cover = 3;
  Unit pinned = Squad("D1", kB, 6, 4, 3, 2);
  pinned.pinned = true;
  script.situation.units = {Squad("A1", kA, 4, 5, 2, 2), Squad("A2", kA, 4, 5, 2, 2), pinned,
                            Squad("D2", kB, 4, 4, 2, 2)};
  script.declarations[0] = Declare{.group = {"A1", "A2"}, .leader = "", .uses = {}};
  script.allocations[0] = AllocationOf({Act("A1", CpActionKind::kReduceAndPin)});  // 3 + 1
  const AssaultReport report = ReportOf(MustPlay(script, {3, 3}));
  EXPECT_EQ(report.defence_apfp, 4);  // the pinned squad's 6 does not count
  EXPECT_EQ(report.odds, Odds::k2to1);
  EXPECT_TRUE(report.success);
  EXPECT_EQ(report.assaulter_cp, 4);  // 3 building + 1 unpinned defender
}

// A failed assault against an AFV (15.10): `assaulters` squads fail at 1-4 with a DR of 12.
Script AgainstAnAfv(int assaulters, bool other_unit, bool passenger) {
  Script script;
  script.situation.target.name = "T1";
  for (int i = 0; i < assaulters; ++i) {
    script.situation.units.push_back(Squad("A" + std::to_string(i + 1), kA, 1, 5, 1, 2));
  }
  script.situation.units.push_back(Vehicle("PzIV", kB, UnitKind::kAfv, 30, 0));
  script.situation.units.back().main_gun_apfp = 12;
  if (other_unit) script.situation.units.push_back(Squad("D1", kB, 4, 4, 2, 2));
  if (passenger) {
    Unit riders = HalfSquad("Riders", kB, 2, 2);
    riders.carrier = "PzIV";
    script.situation.units.push_back(riders);
  }
  for (int i = 0; i < assaulters; ++i) {
    script.declarations[0].group.push_back("A" + std::to_string(i + 1));
  }
  // The assaulters' own losses: whatever the engine allocates.
  return script;
}

TEST(VvExamples, VvT5TwoCasualtyPointsOnAnAfvImmobilizeOnADieOfTwo) {
  Script script = AgainstAnAfv(2, false, false);
  script.allocations[1] = AllocationOf({Act("PzIV", CpActionKind::kImmobilization, 2)});
  const Played immobile = MustPlay(script, {6, 6, 2});
  const AssaultReport report = ReportOf(immobile);
  EXPECT_EQ(report.defence_apfp, 30);  // 15.4: MG only, the main Gun's 12 is not used
  EXPECT_EQ(report.defender_cp, 2);
  EXPECT_TRUE(UnitOf(immobile.final_state, "PzIV").immobile);
  const Played holds = MustPlay(script, {6, 6, 3});
  EXPECT_FALSE(UnitOf(holds.final_state, "PzIV").immobile);
}

TEST(VvExamples, VvT5ThreeCasualtyPointsImmobilizeWithoutARoll) {
  Script script = AgainstAnAfv(3, false, false);
  script.allocations[1] = AllocationOf({Act("PzIV", CpActionKind::kImmobilization, 3)});
  const Played played = MustPlay(script, {6, 6});  // no immobilization die
  EXPECT_TRUE(UnitOf(played.final_state, "PzIV").immobile);
}

TEST(VvExamples, VvT5AtMostThreePointsGoToTheAfvTheRestToOtherUnits) {
  Script script = AgainstAnAfv(5, true, false);
  script.allocations[1] = AllocationOf({Act("PzIV", CpActionKind::kImmobilization, 3),
                                    Act("D1", CpActionKind::kReduce)});  // 3 + 2 = 5
  const Played played = MustPlay(script, {6, 6});
  EXPECT_TRUE(UnitOf(played.final_state, "PzIV").immobile);
  EXPECT_EQ(UnitOf(played.final_state, "D1").kind, UnitKind::kHalfSquad);

  script.allocations[1] = AllocationOf({Act("PzIV", CpActionKind::kImmobilization, 5)});
  const RuleError error = MustFail(script, {6, 6});
  EXPECT_EQ(error.rule_ref, "15.10");
}

TEST(VvExamples, VvT5PassengersTakeCollateralThenTheAfvRolls) {
  Script script = AgainstAnAfv(3, false, true);
  script.allocations[1] = AllocationOf({Act("Riders", CpActionKind::kEliminate),
                                    Act("PzIV", CpActionKind::kImmobilization, 1)});
  const Played played = MustPlay(script, {6, 6, 1});
  EXPECT_TRUE(Eliminated(played.final_state, "Riders"));
  EXPECT_TRUE(UnitOf(played.final_state, "PzIV").immobile);
  EXPECT_EQ(ReportOf(played).defence_apfp, 32);  // 15.4: the passengers add theirs

  script.allocations[1] = AllocationOf({Act("Riders", CpActionKind::kPin),
                                    Act("PzIV", CpActionKind::kImmobilization, 2)});
  EXPECT_EQ(MustFail(script, {6, 6}).rule_ref, "14.65");  // passengers are never pinned
}

// 14.61 AP Combat example: 3 CP on a US hex with a 4-6-4 squad and a 2-6-2 half squad.
Script ApCombatExample(int assaulters) {
  Script script;
  script.situation.target.name = "H1";
  for (int i = 0; i < assaulters; ++i) {
    script.situation.units.push_back(Squad("G" + std::to_string(i + 1), kA, 1, 5, 1, 2));
    script.declarations[0].group.push_back("G" + std::to_string(i + 1));
  }
  script.situation.units.push_back(Squad("US1", kB, 4, 4, 2, 2));
  script.situation.units.push_back(HalfSquad("US2", kB, 2, 2));
  return script;
}

TEST(VvExamples, VvT6ReduceTheSquadAndPinTheHalfSquadForThree) {
  const State state = AwaitingAllocation(ApCombatExample(3), {6, 6});
  ASSERT_EQ(state.cp[1], 3);
  EXPECT_TRUE(ValidateAllocation(state, kB, AllocationOf({Act("US1", CpActionKind::kReduce),
                                                      Act("US2", CpActionKind::kPin)})));
  // Pin then eliminate the same unit: one action per unit (14.61).
  const auto twice = ValidateAllocation(
      state, kB, AllocationOf({Act("US2", CpActionKind::kPin), Act("US2", CpActionKind::kEliminate),
                           Act("US1", CpActionKind::kPin)}));
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().rule_ref, "14.61");
  // Over-allocation: the total is already reached without the pin (VV-AMB-12).
  const auto extra = ValidateAllocation(
      state, kB, AllocationOf({Act("US1", CpActionKind::kEliminate), Act("US2", CpActionKind::kPin)}));
  ASSERT_FALSE(extra);
  EXPECT_NE(extra.error().message.find("VV-AMB-12"), std::string::npos);
}

TEST(VvExamples, VvT6ReducingTheSquadCoversTwoAndAPinnedSquadCannotBeReduced) {
  const State two = AwaitingAllocation(ApCombatExample(2), {6, 6});
  ASSERT_EQ(two.cp[1], 2);
  EXPECT_TRUE(ValidateAllocation(two, kB, AllocationOf({Act("US1", CpActionKind::kReduce)})));

  Script pinned = ApCombatExample(2);
  pinned.situation.units.push_back(Squad("US3", kB, 4, 4, 2, 2));
  pinned.situation.units.back().pinned = true;
  // US3 is pinned: eliminated first (15.9), so it can take nothing; 14.62 itself is checked on a
  // state where a pinned unit is still among the receivers.
  State state = AwaitingAllocation(pinned, {6, 6});
  EXPECT_TRUE(Eliminated(state, "US3"));
  state.units[2].pinned = true;  // US1, as if pinned by an earlier attack this phase
  const auto reduce_pinned = ValidateAllocation(state, kB, AllocationOf({Act("US1", CpActionKind::kReduce)}));
  ASSERT_FALSE(reduce_pinned);
  EXPECT_EQ(reduce_pinned.error().rule_ref, "14.62");
  const auto pinned_first = ValidateAllocation(
      state, kB, AllocationOf({Act("US1", CpActionKind::kEliminate)}));
  ASSERT_FALSE(pinned_first);
  EXPECT_EQ(pinned_first.error().rule_ref, "14.62");  // US2, unpinned, absorbs first
}

TEST(VvExamples, VvT7DefenderLeaderAndGrenadesLowerTheKillNumber) {
  Script script;
  script.situation.target.name = "K1";
  script.situation.units = {Squad("A1", kA, 4, 5, 2, 2), Squad("D1", kB, 3, 4, 1, 2),
                            Leader("DL", kB, 1, 1, 1)};
  script.situation.expendables[1].grenades = 2;
  script.declarations[0] = Declare{.group = {"A1"}, .leader = "", .uses = {}};
  script.declarations[1] = Declare{.group = {}, .leader = "DL", .uses = {Use("D1", "", true)}};
  script.allocations[0] = AllocationOf({Act("A1", CpActionKind::kReduce)});  // 2 defending units
  // 4 vs 4: 1-1, Kill # 6 -1 (DL) -1 (Grenades) = 4.
  const Played success = MustPlay(script, {1, 3});
  EXPECT_EQ(ReportOf(success).kill_number, 4);
  EXPECT_TRUE(ReportOf(success).success);
  EXPECT_EQ(success.final_state.expendables[1].grenades, 1);

  Script fail = script;
  fail.allocations[0] = AllocationOf({Act("A1", CpActionKind::kReduce)});  // 1 + 2 = 3
  fail.allocations[1] = AllocationOf({Act("D1", CpActionKind::kPin)});
  const Played failed = MustPlay(fail, {2, 3});
  EXPECT_FALSE(ReportOf(failed).success);
  EXPECT_EQ(ReportOf(failed).margin, 1);
  EXPECT_EQ(ReportOf(failed).assaulter_cp, 3);  // 1 failed by + 2 defending units
}

TEST(VvExamples, VvT8ValorDoublesInherentApfpAndTakesTheFirstCasualtyPoint) {
  Script script;
  script.situation.target.name = "V1";
  script.situation.target.terrain_cover = 2;
  Unit valorous = Squad("A1", kA, 4, 5, 2, 2);
  valorous.valorous = true;
  valorous.weapons = {Lmg("LMG", 3)};
  script.situation.units = {valorous, Squad("A2", kA, 4, 5, 2, 2), Squad("D1", kB, 4, 4, 2, 2)};
  script.declarations[0] = Declare{.group = {"A1", "A2"}, .leader = "", .uses = {Use("A1", "LMG")}};
  // 2 (woods) + 1 (defender) = 3: the first is ignored, the next goes to A1 (14.63).
  script.allocations[0] = AllocationOf({Act("A1", CpActionKind::kIgnore), Act("A1", CpActionKind::kPin),
                                    Act("A2", CpActionKind::kPin)});
  const Played played = MustPlay(script, {2, 2});
  const AssaultReport report = ReportOf(played);
  EXPECT_EQ(report.assault[0].apfp, 11);  // 4 x2 + 3, the LMG not doubled (16.3)
  EXPECT_EQ(report.assault_apfp, 15);
  EXPECT_TRUE(UnitOf(played.final_state, "A1").pinned);

  script.allocations[0] = AllocationOf({Act("A1", CpActionKind::kIgnore),
                                    Act("A2", CpActionKind::kReduce)});  // 1 + 3, skips A1
  const RuleError error = MustFail(script, {2, 2});
  EXPECT_EQ(error.rule_ref, "14.63");
}

TEST(VvExamples, VvT9UphillLevelsAddCasualtyPoints) {
  Script script;
  script.situation.target.name = "Hill";
  script.situation.uphill_levels = 2;
  script.situation.units = {Squad("A1", kA, 4, 5, 2, 2), Squad("A2", kA, 4, 5, 2, 2),
                            HalfSquad("D1", kB, 1, 2), HalfSquad("D2", kB, 1, 2)};
  script.declarations[0] = Declare{.group = {"A1", "A2"}, .leader = "", .uses = {}};
  script.allocations[0] = AllocationOf({Act("A1", CpActionKind::kReduceAndPin)});  // 4
  const AssaultReport report = ReportOf(MustPlay(script, {3, 3}));
  EXPECT_TRUE(report.success);
  EXPECT_EQ(report.assaulter_cp, 4);  // open 0 + 2 units + 2 levels (15.81)
}

Script AgainstAGun(int assaulters) {
  Script script;
  script.situation.target.name = "G";
  for (int i = 0; i < assaulters; ++i) {
    script.situation.units.push_back(Squad("A" + std::to_string(i + 1), kA, 4, 5, 2, 2));
    script.declarations[0].group.push_back("A" + std::to_string(i + 1));
  }
  script.situation.units.push_back(Vehicle("Pak", kB, UnitKind::kGun, 0, 2));
  script.situation.units.back().main_gun_apfp = 0;
  return script;
}

TEST(VvExamples, VvT10AGunDefendsWithTwoAndTakesItsSurvivalRoll) {
  Script one = AgainstAGun(1);
  one.allocations[1] = AllocationOf({Act("Pak", CpActionKind::kPin)});
  const Played pinned = MustPlay(one, {5, 5});  // 4 vs 2: 2-1, Kill # 8; DR 10 fails
  EXPECT_EQ(ReportOf(pinned).defence_apfp, 2);
  EXPECT_EQ(ReportOf(pinned).odds, Odds::k2to1);
  EXPECT_TRUE(UnitOf(pinned.final_state, "Pak").pinned);

  // Two assaulting squads and a failure: 2 CP up to its CR 2 -> survival dr.
  Script two = AgainstAGun(1);
  two.situation.units.insert(two.situation.units.begin(), Squad("A2", kA, 1, 5, 1, 2));
  two.declarations[0].group.push_back("A2");
  two.allocations[1] = AllocationOf({Act("Pak", CpActionKind::kSurvivalRoll, 2)});
  EXPECT_TRUE(UnitOf(MustPlay(two, {6, 5, 2}).final_state, "Pak").pinned);  // dr 2 <= CR 2
  EXPECT_TRUE(Eliminated(MustPlay(two, {6, 5, 3}).final_state, "Pak"));     // dr 3 > CR 2

  // Three: more CP than its CR eliminate it with no roll (14.64).
  Script three = two;
  three.situation.units.insert(three.situation.units.begin(), Squad("A3", kA, 1, 5, 1, 2));
  three.declarations[0].group.push_back("A3");
  three.allocations[1] = AllocationOf({Act("Pak", CpActionKind::kEliminate)});
  EXPECT_TRUE(Eliminated(MustPlay(three, {6, 6}).final_state, "Pak"));
}

TEST(VvExamples, VvT11PcEditionPicksLeadersAndAllocatesCasualtyPoints) {
  Script script = CloseAssaultExample();
  script.options.variant = "pc";
  script.declarations[0].leader = "";
  script.declarations[1].leader = "";
  const Played played = MustPlay(script, {3, 4});
  const AssaultReport report = ReportOf(played);
  EXPECT_EQ(report.kill_number, 5);  // Coleman, the best (only) US leader
  EXPECT_EQ(report.final_dr, 5);     // Schmidt, the best German leader, and the Grenades
  EXPECT_TRUE(report.success);
  // No allocation was asked for: the engine applied 6 CP itself, labelled as its default.
  const Event* applied = nullptr;
  for (const Event& event : played.events) {
    EXPECT_NE(event.kind, EventKind::kAllocationSealed);
    if (event.kind == EventKind::kCasualtiesApplied) applied = &event;
  }
  ASSERT_NE(applied, nullptr);
  EXPECT_EQ(applied->cp, 6);
  EXPECT_NE(applied->notes.front().find("VV-AMB-13"), std::string::npos);
  // Least valuable first: two squads reduced (3 + 3), no leader touched.
  EXPECT_EQ(applied->allocation->actions,
            (std::vector<CpAction>{Act("G1", CpActionKind::kReduce),
                                   Act("G2", CpActionKind::kReduce)}));
  EXPECT_FALSE(UnitOf(played.final_state, "Schmidt").pinned);

  // The pc edition chooses leaders itself: naming one is refused.
  Script named = CloseAssaultExample();
  named.options.variant = "pc";
  EXPECT_EQ(MustFail(named, {}).rule_ref, "15.3");
}

}  // namespace
}  // namespace melee::engine::vv
