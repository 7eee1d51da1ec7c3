// The rulebook's worked examples about close combat with vehicles (A11.5-A11.8): the 11.622 EX
// and the vehicle parts of the comprehensive example (F4, H3, I5, L5 and K4/K5), played end to
// end through the ruleset with scripted dice (each DR coloured die, then white die).

#include <gtest/gtest.h>

#include "engine/asl/preview.h"
#include "tests/engine/asl/fixtures.h"

namespace melee::engine::asl {
namespace {

using testing::Attack;
using testing::Attacks;
using testing::AtDeclaration;
using testing::Declare;
using testing::DrmOf;
using testing::EventsOf;
using testing::Fire;
using testing::kA;
using testing::kB;
using testing::Leader;
using testing::Mmc;
using testing::MustPlay;
using testing::UnitOf;
using testing::Vehicle;

using testing::kGerman;
using testing::kRussian;

// 11.622 EX: three Russian 4-4-7 (A, B, C) and an 8-1 advance onto a BU, Mobile, stationary
// PzIVJ with a Close Defense Weapon System, in Open Ground. The Russian is the ATTACKER.
Script PzIvjExample() {
  Script script;
  script.situation.location.name = "11.622 EX";
  script.situation.attacker = kA;
  Unit a = Mmc("A", kA, 4, 7, kRussian);
  Unit b = Mmc("B", kA, 4, 7, kRussian);
  Unit c = Mmc("C", kA, 4, 7, kRussian);
  Unit leader = Leader("L", kA, 8, -1, "A", kRussian);
  for (Unit* unit : {&a, &b, &c, &leader}) unit->advanced = true;
  Unit tank = Vehicle("PzIVJ", kB, 5, kGerman);
  tank.vehicle.sn_usage = 7;
  script.situation.units = {a, leader, b, c, tank};
  script.declarations = {
      {kA, Declare({Attack({"A", "L"}, {"PzIVJ"})})},
      {kB, Declare({Fire("PzIVJ", {"sn"})})},
      {kA, Declare({Attack({"B"}, {"PzIVJ"})})},
      {kB, Declare({Fire("PzIVJ", {"cmg"}, {"A", "L", "B", "C"})})},
  };
  return script;
}

// PAATC DR 8, 6, 7 (each -1 for the 8-1: <= 7 passes); squad A + 8-1: 7; sN IFT DR 7; MC: the
// leader 8 (+2 = 10 > 8), A 6 (8 > 7), B 4, C 6; squad B: 7; CMG: 5; RS drs A 6, L 6, C 2;
// the leader's Wound Severity dr 3.
const std::vector<int> kPzIvjDice = {4, 4, 3, 3, 3, 4, 3, 4, 3, 4, 4, 4, 3, 3,
                                     2, 2, 5, 1, 3, 4, 2, 3, 6, 6, 2, 3};

TEST(AslVehicleExamples, A11622PaatcAidedByTheLeader) {
  const Played played = MustPlay(PzIvjExample(), kPzIvjDice);
  const auto paatc = EventsOf(played, EventKind::kPaatcTaken);
  ASSERT_EQ(paatc.size(), 1u);
  // A11.6: every squad takes one; the leader (a SMC) is exempt and aids them with his -1.
  ASSERT_EQ(paatc[0].checks.size(), 3u);
  for (const TaskCheck& check : paatc[0].checks) {
    EXPECT_EQ(check.check, "PAATC");
    EXPECT_EQ(DrmOf(check.drms, DrmCause::kCheckLeadership), -1);
    EXPECT_EQ(check.result, CheckResult::kPassed);
  }
  EXPECT_EQ(paatc[0].checks[0].dr.Total(), 8);  // "a DR < 8" is <= 8 (ASL-AMB-6)
  EXPECT_EQ(paatc[0].checks[0].final_dr, 7);
}

TEST(AslVehicleExamples, A11622SequentialCcTheRussianFirst) {
  const Played played = MustPlay(PzIvjExample(), kPzIvjDice);
  const auto attacks = Attacks(played);
  ASSERT_EQ(attacks.size(), 4u);
  // A11.31: CC vs a vehicle is sequential, the non-vehicular side first, then alternating.
  EXPECT_EQ(attacks[0].side, kA);
  EXPECT_EQ(attacks[1].side, kB);
  EXPECT_EQ(attacks[2].side, kA);
  EXPECT_EQ(attacks[3].side, kB);
  // Squad A and the leader: CCV 6 (5 + 1), -1 leadership; Original 7 -> Final 6 = CCV.
  const AttackReport& first = attacks[0];
  EXPECT_TRUE(first.vs_vehicle);
  EXPECT_EQ(first.ccv_base, 5);
  EXPECT_EQ(DrmOf(first.ccv_modifiers, DrmCause::kCcvSmcCombining), 1);
  EXPECT_EQ(first.kill_number, 6);
  EXPECT_EQ(Total(first.drms), -1);
  EXPECT_EQ(DrmOf(first.drms, DrmCause::kLeadership), -1);
  EXPECT_EQ(first.dr.Total(), 7);
  EXPECT_EQ(first.results[0].final_dr, 6);
  EXPECT_EQ(first.results[0].outcome, Outcome::kImmobilized);
}

TEST(AslVehicleExamples, A11622CloseDefenseWeaponSystemBreaksThree) {
  const Played played = MustPlay(PzIvjExample(), kPzIvjDice);
  const auto attacks = Attacks(played);
  const AttackReport& sn = attacks[1];
  ASSERT_TRUE(sn.close_defense);
  EXPECT_EQ(sn.close_defense->dr.Total(), 7);
  ASSERT_TRUE(sn.close_defense->ift);
  EXPECT_EQ(Name(*sn.close_defense->ift), "2MC");  // 16 FP, DR 7: the rulebook's result
  EXPECT_EQ(sn.close_defense->targets.size(), 4u);
  ASSERT_EQ(sn.close_defense->checks.size(), 4u);
  // The leader checks first; once broken his -1 helps nobody; no LLTC (A11.141).
  EXPECT_EQ(sn.close_defense->checks[0].check, "2MC");
  EXPECT_EQ(sn.close_defense->checks[0].final_dr, 10);
  EXPECT_EQ(sn.close_defense->checks[0].result, CheckResult::kBroken);
  EXPECT_EQ(sn.close_defense->checks[1].result, CheckResult::kBroken);  // A
  EXPECT_EQ(sn.close_defense->checks[2].result, CheckResult::kPassed);  // B
  EXPECT_EQ(sn.close_defense->checks[3].result, CheckResult::kBroken);  // C
  const State& end = played.final_state;
  EXPECT_TRUE(UnitOf(end, "C").broken);
  EXPECT_FALSE(UnitOf(end, "B").broken);
}

TEST(AslVehicleExamples, A11622PreviewOfTheSnGivesItsIftResults) {
  Script script = PzIvjExample();
  script.declarations.resize(1);
  const Played played = MustPlay(script, {4, 4, 3, 3, 3, 4, 3, 4});
  size_t turn = 0;
  while (turn < played.events.size() && played.events[turn].kind != EventKind::kPassed) ++turn;
  ASSERT_LT(turn, played.events.size());
  Result<OutcomeTable> table = Preview(played.states[turn], kB, Fire("PzIVJ", {"sn"}));
  ASSERT_TRUE(table) << Describe(table.error());
  EXPECT_TRUE(table->close_defense);
  // Usage Number 7: DR 2..7 fire (the placeholder column), 8..12 have no effect.
  const std::vector<std::pair<std::string, Rational>> expected = {
      {"2KIA", Rational(1, 36)}, {"1KIA", Rational(2, 36)}, {"K/4", Rational(3, 36)},
      {"4MC", Rational(4, 36)},  {"3MC", Rational(5, 36)},  {"2MC", Rational(6, 36)},
      {"NE", Rational(15, 36)}};
  EXPECT_EQ(table->ift_results, expected);
}

TEST(AslVehicleExamples, A11622SquadBNeedsSixOrLessAgainstTheImmobileTank) {
  const Played played = MustPlay(PzIvjExample(), kPzIvjDice);
  const auto attacks = Attacks(played);
  const AttackReport& b = attacks[2];
  // CCV 5, -1 Immobile: an Original 6 immobilizes again, <= 5 eliminates; the 7 does nothing.
  EXPECT_EQ(b.kill_number, 5);
  EXPECT_EQ(Total(b.drms), -1);
  EXPECT_EQ(DrmOf(b.drms, DrmCause::kVsImmobile), -1);
  EXPECT_EQ(b.results[0].outcome, Outcome::kNoEffect);
  EXPECT_EQ(VehicleResultOf(6 - 1, 5, true), VehicleResult::kImmobilized);
  EXPECT_EQ(VehicleResultOf(5 - 1, 5, true), VehicleResult::kEliminated);
}

TEST(AslVehicleExamples, A11622CmgAtOneToFourAgainstAllFour) {
  const Played played = MustPlay(PzIvjExample(), kPzIvjDice);
  const auto attacks = Attacks(played);
  const AttackReport& cmg = attacks[3];
  // 5 FP vs CCV 16 (three squads 15, the leader +1 with his squad): 1-4, Kill # 3.
  EXPECT_EQ(cmg.attack_strength, Rational(5));
  EXPECT_EQ(cmg.defence_strength, Rational(16));
  EXPECT_EQ(cmg.column, Column::kOneToFour);
  EXPECT_EQ(cmg.kill_number, 3);
  ASSERT_EQ(cmg.results.size(), 4u);
  // Original 5: -2 vs the broken A, L and C gives Final 3 = Kill #; B's 5 has no effect.
  EXPECT_EQ(cmg.results[0].final_dr, 3);
  EXPECT_EQ(cmg.results[0].outcome, Outcome::kPartial);
  EXPECT_EQ(cmg.results[1].outcome, Outcome::kPartial);
  EXPECT_EQ(cmg.results[2].final_dr, 5);
  EXPECT_EQ(cmg.results[2].outcome, Outcome::kNoEffect);
  EXPECT_EQ(cmg.results[3].outcome, Outcome::kPartial);
  // RS drs A 6, L 6, C 2: A is Reduced to a HS and the leader wounded (tie).
  const State& end = played.final_state;
  EXPECT_EQ(UnitOf(end, "A").kind, UnitKind::kHalfSquad);
  EXPECT_EQ(UnitOf(end, "L").wounds, 1);
  EXPECT_EQ(UnitOf(end, "C").kind, UnitKind::kSquad);
  // The immobile AFV holds all four in Melee; it is never held itself (A11.7).
  EXPECT_TRUE(end.melee);
  EXPECT_EQ(end.phase, Phase::kEnded);
}

TEST(AslVehicleExamples, A11622TheOtherOptionsOfTheCmg) {
  Script script = PzIvjExample();
  script.declarations.resize(3);
  Played played = MustPlay(script, {4, 4, 3, 3, 3, 4, 3, 4, 3, 4, 4, 4, 3, 3, 2, 2, 5, 1, 3, 4});
  // The state when the tank is to attack again (before the script's passes).
  size_t turn = 0;
  while (turn < played.events.size() && played.events[turn].kind != EventKind::kPassed) ++turn;
  ASSERT_LT(turn, played.events.size());
  const State& state = played.states[turn];
  ASSERT_EQ(state.to_act, kB);
  auto preview = [&](std::vector<std::string> targets) {
    Result<OutcomeTable> table = Preview(state, kB, Fire("PzIVJ", {"cmg"}, std::move(targets)));
    EXPECT_TRUE(table) << (table ? "" : Describe(table.error()));
    return table ? *table : OutcomeTable{};
  };
  EXPECT_EQ(preview({"B"}).column, Column::kOneToOne);       // 5-5
  EXPECT_EQ(preview({"B", "C"}).column, Column::kOneToTwo);  // 5-10
  const OutcomeTable a_and_leader = preview({"A", "L"});     // 5-6
  EXPECT_EQ(a_and_leader.defence_strength, Rational(6));
  EXPECT_EQ(a_and_leader.column, Column::kOneToTwo);
  EXPECT_EQ(preview({"A", "L", "B", "C"}).column, Column::kOneToFour);  // 5-16
}

TEST(AslVehicleExamples, A115FirstAttackResultsByOriginalDr) {
  // The 11.622 EX: eliminated on an Original 6, burns on <= 4 (Final <= 3 = half of 6; the
  // example's "<= 3" is ASL-AMB-2), immobilized on 7.
  for (const auto& [original, expected] :
       std::vector<std::pair<int, Outcome>>{{7, Outcome::kImmobilized},
                                            {6, Outcome::kEliminated},
                                            {5, Outcome::kEliminated},
                                            {4, Outcome::kBurning},
                                            {3, Outcome::kBurning},
                                            {8, Outcome::kNoEffect}}) {
    Script script = PzIvjExample();
    script.declarations.resize(1);
    const int colored = original / 2;
    Played played = MustPlay(script, {4, 4, 3, 3, 3, 4, colored, original - colored});
    const auto attacks = Attacks(played);
    const AttackReport& first = attacks[0];
    EXPECT_EQ(first.results[0].outcome, expected) << "Original " << original;
    if (expected == Outcome::kEliminated || expected == Outcome::kBurning) {
      // The CCPh goes on without the tank: the Russians have no one left to attack.
      EXPECT_EQ(UnitOf(played.final_state, "PzIVJ").presence, Presence::kEliminated);
      EXPECT_EQ(played.final_state.phase, Phase::kEnded);
    }
  }
  // ASL-AMB-2: with the "<" reading a Final DR of exactly half the CCV is a plain wreck.
  EXPECT_EQ(VehicleResultOf(3, 6, false), VehicleResult::kEliminated);
  EXPECT_EQ(VehicleResultOf(2, 5, false), VehicleResult::kBurning);
}

// Comprehensive EX, F4 / ASL-T6: the German 4-6-7 and 9-2 Advance onto the Wire to Street Fight
// a T-34 from their building; the squad passes its PAATC with an Original 8 (-2 for the 9-2).
Script F4StreetFighting() {
  Script script;
  script.situation.location.name = "F4";
  script.situation.attacker = kA;
  Unit squad = Mmc("G1", kA, 4, 7, kGerman);
  Unit leader = Leader("L1", kA, 9, -2, "G1", kGerman);
  for (Unit* unit : {&squad, &leader}) {
    unit->advanced = true;
    unit->in_wire = true;
    unit->street_fighting = StreetFighting::kFromBuilding;
  }
  squad.atmm = true;
  leader.atmm = true;
  script.situation.units = {squad, leader, Vehicle("T34", kB, 4, kRussian)};
  AttackOrder attack = Attack({"G1", "L1"}, {"T34"});
  attack.atmm = "G1";
  script.declarations = {{kA, Declare({attack})}};
  return script;
}

TEST(AslVehicleExamples, ComprehensiveF4StreetFightingWithAtmm) {
  // PAATC 8 (-2 = 6 <= 7); ATMM dr 3; CC DR 9.
  const Played played = MustPlay(F4StreetFighting(), {4, 4, 3, 4, 5});
  const auto paatc = EventsOf(played, EventKind::kPaatcTaken);
  ASSERT_EQ(paatc[0].checks.size(), 1u);  // the leader need not take one
  EXPECT_EQ(paatc[0].checks[0].final_dr, 6);
  const auto attacks = Attacks(played);
  const AttackReport& attack = attacks[0];
  ASSERT_TRUE(attack.atmm);
  EXPECT_EQ(attack.atmm->result, AtmmResult::kSuccess);
  // CCV 6 (5 + 1 for the leader), DRM -5 (-1 SF Ambush, -3 ATMM, -2 leadership, +1 Wire).
  EXPECT_EQ(attack.kill_number, 6);
  EXPECT_EQ(DrmOf(attack.drms, DrmCause::kStreetFightingAttacking), -1);
  EXPECT_EQ(DrmOf(attack.drms, DrmCause::kAtmm), -3);
  EXPECT_EQ(DrmOf(attack.drms, DrmCause::kLeadership), -2);
  EXPECT_EQ(DrmOf(attack.drms, DrmCause::kByWire), 1);
  EXPECT_EQ(Total(attack.drms), -5);
  EXPECT_EQ(attack.dr.Total(), 9);
  EXPECT_EQ(attack.results[0].final_dr, 4);
  EXPECT_EQ(attack.results[0].outcome, Outcome::kEliminated);  // 4 > 3: a wreck, not burning
  const State& end = played.final_state;
  EXPECT_EQ(UnitOf(end, "T34").presence, Presence::kEliminated);
  // The Wire holds them in F4; without it they would go back to F3 (A11.8).
  EXPECT_EQ(UnitOf(end, "G1").presence, Presence::kPresent);
  EXPECT_EQ(UnitOf(end, "L1").presence, Presence::kPresent);
  EXPECT_FALSE(end.melee);
}

TEST(AslVehicleExamples, ComprehensiveF4WithoutWireTheyReturnToTheirBuilding) {
  Script script = F4StreetFighting();
  for (Unit& unit : script.situation.units) unit.in_wire = false;
  // PAATC 8; ATMM dr 3; CC DR 9: Final 3 (no Wire +1) <= half the CCV: a burning wreck.
  const Played played = MustPlay(script, {4, 4, 3, 4, 5});
  EXPECT_EQ(Attacks(played)[0].results[0].final_dr, 3);
  EXPECT_EQ(Attacks(played)[0].results[0].outcome, Outcome::kBurning);
  EXPECT_EQ(UnitOf(played.final_state, "G1").presence, Presence::kWithdrawn);
  EXPECT_EQ(UnitOf(played.final_state, "L1").presence, Presence::kWithdrawn);
}

// Comprehensive EX, H3 / ASL-T10: a PzV in Bypass of a woods hex with a Russian 6-2-8 and 4-4-7;
// the German 5-4-8 and a Hero Advance in. The German is the ATTACKER.
Script H3WithThePanther() {
  Script script;
  script.situation.location.name = "H3";
  script.situation.location.woods_or_building = true;
  script.situation.attacker = kA;
  Unit squad = Mmc("G1", kA, 5, 8, kGerman);
  squad.advanced = true;
  squad.fanatic = false;
  Unit hero;
  hero.id = "H1";
  hero.owner = kA;
  hero.kind = UnitKind::kHero;
  hero.nationality = kGerman;
  hero.morale = 9;
  hero.stacked_on = "G1";
  hero.advanced = true;
  Unit panther = Vehicle("PzV", kA, 5, kGerman);
  panther.vehicle.sn_usage = 8;
  Unit r447 = Mmc("R2", kB, 4, 7, kRussian);
  r447.street_fighting = StreetFighting::kInObstacle;  // the AFV is in Bypass
  script.situation.units = {squad, hero, panther, Mmc("R1", kB, 6, 8, kRussian), r447};
  script.declarations = {
      {kB, Declare({Attack({"R1"}, {"G1", "H1"})})},
      {kA, Declare({Attack({"G1", "H1"}, {"R1"})})},
      {kB, Declare({Attack({"R2"}, {"PzV"})})},
      {kA, Declare({Fire("PzV", {"sn"})})},
      {kA, Declare({Fire("PzV", {"cmg"}, {"R2"})})},
  };
  script.choices = {{ChoiceKind::kInfiltration, {"G1", "H1", "G1-ldr"}},
                    {ChoiceKind::kInfiltration, {"R2"}}};
  return script;
}

TEST(AslVehicleExamples, ComprehensiveH3SequentialCcWithThePanther) {
  // No PAATC (the AFV is friendly). Ambush drs 3 and 3. Russian 6-2-8: DR 8. German: DR 2,
  // leader dr 4. 4-4-7 vs PzV: DR 6. sN: IFT DR 7; the 4-4-7's 2MC DR 4. CMG: DR 12.
  const Played played =
      MustPlay(H3WithThePanther(), {3, 3, 4, 4, 1, 1, 4, 3, 3, 3, 4, 1, 3, 6, 6});
  const auto ambush = EventsOf(played, EventKind::kAmbushChecked);
  ASSERT_EQ(ambush.size(), 1u);
  // German Ambush drm +2: +2 vehicle, +1 BU, -1 Stealthy (Hero); Russian 0; no Ambush.
  EXPECT_EQ(ambush[0].ambush->drms[0].size(), 3u);
  EXPECT_EQ(DrmOf(ambush[0].ambush->drms[0], DrmCause::kAmbushVehicle), 2);
  EXPECT_EQ(DrmOf(ambush[0].ambush->drms[0], DrmCause::kAmbushBuAfv), 1);
  EXPECT_EQ(ambush[0].ambush->final_dr[0], 5);
  EXPECT_EQ(ambush[0].ambush->final_dr[1], 3);
  EXPECT_FALSE(ambush[0].ambush->ambusher);
  const auto attacks = Attacks(played);
  ASSERT_EQ(attacks.size(), 5u);
  // The Russian (non-vehicular) attacks first: 6-2-8 at 1-1 (6-6), zero DRM, Original 8.
  EXPECT_EQ(attacks[0].side, kB);
  EXPECT_EQ(attacks[0].column, Column::kOneToOne);
  EXPECT_EQ(attacks[0].results[0].outcome, Outcome::kNoEffect);
  // The 5-4-8 and Hero at 1-1 with -1 (Heroic): Original 2 eliminates the 6-2-8, creates an 8-0.
  EXPECT_EQ(attacks[1].results[0].outcome, Outcome::kEliminated);
  ASSERT_TRUE(attacks[1].leader_creation);
  EXPECT_EQ(attacks[1].leader_creation->leader, "8-0");
  // The 4-4-7 vs the PzV: CCV 5, -1 Street Fighting Ambush (Bypass); Original 6 immobilizes.
  EXPECT_EQ(attacks[2].kill_number, 5);
  EXPECT_EQ(Total(attacks[2].drms), -1);
  EXPECT_EQ(DrmOf(attacks[2].drms, DrmCause::kStreetFightingAttacking), -1);
  EXPECT_EQ(attacks[2].results[0].outcome, Outcome::kImmobilized);
  // The sN: IFT DR 7 <= Usage #: 16 FP, a 2MC on every unarmored unit: the 4-4-7 alone (the
  // Germans withdrew, the 6-2-8 is gone); it passes.
  ASSERT_TRUE(attacks[3].close_defense);
  EXPECT_EQ(Name(*attacks[3].close_defense->ift), "2MC");
  ASSERT_EQ(attacks[3].close_defense->checks.size(), 1u);
  EXPECT_EQ(attacks[3].close_defense->checks[0].result, CheckResult::kPassed);
  // The CMG: 5 FP vs CCV 5 at 1-1 with +1 (Street Fighting Ambush); Original 12: no effect, the
  // CMG malfunctions and the 4-4-7 Infiltrates to H4.
  EXPECT_EQ(attacks[4].column, Column::kOneToOne);
  EXPECT_EQ(DrmOf(attacks[4].results[0].drms, DrmCause::kStreetFightingAttacked), 1);
  EXPECT_EQ(attacks[4].results[0].outcome, Outcome::kNoEffect);
  const State& end = played.final_state;
  EXPECT_TRUE(UnitOf(end, "PzV").vehicle.immobile);
  EXPECT_EQ(UnitOf(end, "PzV").vehicle.malfunctioned, kCmg);
  EXPECT_EQ(UnitOf(end, "R2").presence, Presence::kWithdrawn);
  EXPECT_FALSE(end.melee);
}

// H3: "If the 4-4-7 had failed its 2 MC, the -2 DRM for broken would also apply to the CMG
// attack, for total DRM of -1."
TEST(AslVehicleExamples, ComprehensiveH3BrokenByTheSnTheCmgHasMinusOne) {
  Script script = H3WithThePanther();
  // As above, but the 4-4-7's 2MC DR is 8 (+2 = 10 > 7: broken); the CMG rolls 7.
  const Played played =
      MustPlay(script, {3, 3, 4, 4, 1, 1, 4, 3, 3, 3, 4, 4, 4, 3, 4});
  const auto attacks = Attacks(played);
  ASSERT_EQ(attacks.size(), 5u);
  EXPECT_EQ(attacks[3].close_defense->checks[0].result, CheckResult::kBroken);
  EXPECT_EQ(Total(attacks[4].results[0].drms), -1);  // +1 Street Fighting, -2 broken
  EXPECT_EQ(attacks[4].results[0].final_dr, 6);
}

// Comprehensive EX, I5 / ASL-T11: a Fanatic 5-4-8 Street Fights a CE T-34/85 from J4.
TEST(AslVehicleExamples, ComprehensiveI5CrewSmallArms) {
  Script script;
  script.situation.location.name = "I5";
  script.situation.attacker = kA;
  Unit squad = Mmc("G1", kA, 5, 8, kGerman);
  squad.fanatic = true;
  squad.advanced = true;
  squad.atmm = true;
  squad.street_fighting = StreetFighting::kFromBuilding;
  Unit tank = Vehicle("T34", kB, 4, kRussian);
  tank.vehicle.crew_exposed = true;
  script.situation.units = {squad, tank};
  AttackOrder attack = Attack({"G1"}, {"T34"});
  attack.atmm = "G1";
  script.declarations = {{kA, Declare({attack})}, {kB, Declare({Fire("T34", {"cmg"}, {"G1"})})}};
  // No PAATC (Fanatic); ATMM dr 6; CC DR 12; the T-34's CMG: DR 9.
  const Played played = MustPlay(script, {6, 6, 6, 4, 5});
  EXPECT_TRUE(EventsOf(played, EventKind::kPaatcTaken).empty());
  const auto attacks = Attacks(played);
  ASSERT_EQ(attacks.size(), 2u);
  // ATMM Original 6: pinned, CCV 4; DRM -2 (-1 Street Fighting, -1 CE CT).
  EXPECT_EQ(attacks[0].atmm->result, AtmmResult::kPinned);
  EXPECT_EQ(attacks[0].kill_number, 4);
  EXPECT_EQ(Total(attacks[0].drms), -2);
  EXPECT_EQ(DrmOf(attacks[0].drms, DrmCause::kVsCeOrAbandoned), -1);
  // Original 12: Crew Small Arms, the 5-4-8 is Reduced to a 2-3-8 HS.
  EXPECT_TRUE(attacks[0].crew_small_arms);
  // The CMG: 4 FP vs CCV 2 (HS 3, -1 pinned): 2-1, Kill # 7, +1 Street Fighting; 9 + 1.
  EXPECT_EQ(attacks[1].defence_strength, Rational(2));
  EXPECT_EQ(attacks[1].column, Column::kTwoToOne);
  EXPECT_EQ(attacks[1].kill_number, 7);
  EXPECT_EQ(attacks[1].results[0].final_dr, 10);
  const State& end = played.final_state;
  const Unit& hs = UnitOf(end, "G1");
  EXPECT_EQ(hs.kind, UnitKind::kHalfSquad);
  EXPECT_EQ(hs.firepower, 2);
  EXPECT_TRUE(hs.pinned);
  // Pinned, it cannot return to its building: locked in Melee with the vehicle.
  EXPECT_EQ(hs.presence, Presence::kPresent);
  EXPECT_TRUE(end.melee);
}

// Comprehensive EX, L5: the 4-4-7 passed its PAATC when the PzIVH entered in the MPh (it did not
// advance) and attacks first; the AFV answers at 1-1. The German is the ATTACKER.
Script L5() {
  Script script;
  script.situation.location.name = "L5";
  script.situation.attacker = kA;
  script.situation.units = {Vehicle("PzIVH", kA, 5, kGerman), Mmc("R1", kB, 4, 7, kRussian)};
  script.declarations = {{kB, Declare({Attack({"R1"}, {"PzIVH"})})},
                         {kA, Declare({Fire("PzIVH", {"cmg"}, {"R1"})})}};
  return script;
}

TEST(AslVehicleExamples, ComprehensiveL5MeleeWithAnAfv) {
  const Played played = MustPlay(L5(), {3, 4, 3, 4});
  const auto attacks = Attacks(played);
  ASSERT_EQ(attacks.size(), 2u);
  EXPECT_EQ(attacks[0].kill_number, 5);  // CCV 5, zero DRM: Street Fighting is NA
  EXPECT_EQ(Total(attacks[0].drms), 0);
  EXPECT_EQ(attacks[0].results[0].outcome, Outcome::kNoEffect);
  EXPECT_EQ(attacks[1].column, Column::kOneToOne);  // 5 FP CMG vs 5 CCV
  EXPECT_EQ(Total(attacks[1].drms), 0);
  EXPECT_EQ(attacks[1].results[0].outcome, Outcome::kNoEffect);
  // A Melee counter is placed, although a vehicle cannot be held in Melee.
  EXPECT_TRUE(played.final_state.melee);
}

TEST(AslVehicleExamples, ComprehensiveL5ConcealedSquadHalvesTheAfvAttack) {
  Script script = L5();
  script.situation.units[1].concealed = true;
  const State state = AtDeclaration(script.situation);
  // The concealed 4-4-7 need not attack; the AFV's attack is halved: 2 1/2 FP vs 5: 1-2.
  Result<OutcomeTable> table = Preview(state, kA, Fire("PzIVH", {"cmg"}, {"R1"}));
  ASSERT_TRUE(table) << Describe(table.error());
  EXPECT_EQ(table->attack_strength, Rational(5, 2));
  EXPECT_EQ(table->column, Column::kOneToTwo);
}

// Comprehensive EX, K4/K5: the 4-4-7 that withdrew to K5 may attack the PzIVH on its Start MP by
// Street Fighting CC Reaction Fire, with DRM +1 (-1 Street Fighting Ambush, +2 Non-Stopped).
TEST(AslVehicleExamples, ComprehensiveK5StreetFightingReactionFire) {
  Script script;
  script.situation.location.name = "L5 (Reaction Fire from K5)";
  script.situation.location.reaction_fire = true;
  script.situation.attacker = kA;
  Unit tank = Vehicle("PzIVH", kA, 5, kGerman);
  tank.vehicle.movement = Movement::kNonStopped;
  Unit squad = Mmc("R1", kB, 4, 7, kRussian);
  squad.street_fighting = StreetFighting::kFromBuilding;
  script.situation.units = {tank, squad};
  State state = AtDeclaration(script.situation);
  Result<OutcomeTable> table = Preview(state, kB, Attack({"R1"}, {"PzIVH"}));
  ASSERT_TRUE(table) << Describe(table.error());
  EXPECT_TRUE(table->vs_vehicle);
  EXPECT_EQ(table->kill_number, 5);
  EXPECT_EQ(Total(table->drms), 1);
  EXPECT_EQ(DrmOf(table->drms, DrmCause::kVsMotion), 2);
  // Final DR 5 = CCV (Original 4) immobilizes, < 5 (Original 2, 3) eliminates: 3/36 of 2 and 3,
  // with the Unlikely Kill dr on an Original 2 (1/36): 1 burns, 2 eliminates, 3 immobilizes.
  EXPECT_EQ(table->targets[0].immobilized, Rational(3, 36));
  // L5: the 4-4-7 freed from Melee by the PzIVH's Start MP attacks it by CC Reaction Fire (not
  // Street Fighting) with +2 for the Non-Stopped AFV.
  Situation freed = script.situation;
  freed.units[1].street_fighting = StreetFighting::kNone;
  const State freed_state = AtDeclaration(freed);
  Result<OutcomeTable> plain = Preview(freed_state, kB, Attack({"R1"}, {"PzIVH"}));
  ASSERT_TRUE(plain) << Describe(plain.error());
  EXPECT_EQ(Total(plain->drms), 2);
  // The vehicle has no CC attack in Reaction Fire (A11.8).
  Seal fire = Declare({Fire("PzIVH", {"cmg"}, {"R1"})});
  Result<void> refused = ValidateDeclaration(state, kA, fire);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().rule_ref, "A11.8");
}

}  // namespace
}  // namespace melee::engine::asl
