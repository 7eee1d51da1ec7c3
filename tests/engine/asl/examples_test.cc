// The rulebook's worked examples about Infantry CC (A11) and the ASL-T* cases of SPEC-NOTES.md,
// played end to end through the ruleset with scripted dice. Dice order: every DR is coloured die
// then white die; the ATTACKER's dr/DR come before the DEFENDER's.

#include <gtest/gtest.h>

#include "tests/engine/asl/fixtures.h"

namespace melee::engine::asl {
namespace {

using testing::Attack;
using testing::Attacks;
using testing::Declare;
using testing::DrmOf;
using testing::EventsOf;
using testing::kA;
using testing::kB;
using testing::Leader;
using testing::Mmc;
using testing::MustPlay;
using testing::UnitOf;

using testing::kGerman;
using testing::kRussian;

// 11.141 EX: a German 4-6-7 and 8-1 vs two Russian 4-4-7, first round of CC in Open Ground.
Script LeaderDirects() {
  Script script;
  script.situation.location.name = "11.141 EX";
  script.situation.units = {Mmc("G1", kA, 4, 7, kGerman), Leader("L1", kA, 8, -1, "G1", kGerman),
                            Mmc("R1", kB, 4, 7, kRussian), Mmc("R2", kB, 4, 7, kRussian)};
  script.declarations = {{kA, Declare({Attack({"G1", "L1"}, {"R1", "R2"})})},
                         {kB, Declare({Attack({"R1", "R2"}, {"G1", "L1"})})}};
  return script;
}

// 11.141 EX: 1-2 (5-8) with -1 leadership; Original DR < 5 eliminates both Russians. The
// Russians, eliminated, still attack at 3-2 (8-5) (A11.12), and a 6 makes a Random Selection.
TEST(AslExamples, A11141LeaderDirectsOriginalFourEliminatesBoth) {
  const Played played = MustPlay(LeaderDirects(), {2, 2, 3, 3, 5, 2});
  const auto attacks = Attacks(played);
  ASSERT_EQ(attacks.size(), 2u);
  EXPECT_EQ(attacks[0].attack_strength, Rational(5));
  EXPECT_EQ(attacks[0].defence_strength, Rational(8));
  EXPECT_EQ(attacks[0].column, Column::kOneToTwo);
  EXPECT_EQ(attacks[0].kill_number, 4);
  EXPECT_EQ(DrmOf(attacks[0].drms, DrmCause::kLeadership), -1);
  EXPECT_EQ(attacks[0].results[0].final_dr, 3);
  EXPECT_EQ(attacks[0].results[0].outcome, Outcome::kEliminated);
  EXPECT_EQ(attacks[0].results[1].outcome, Outcome::kEliminated);
  // The Russian attack is still resolved (simultaneous CC).
  EXPECT_EQ(attacks[1].attack_strength, Rational(8));
  EXPECT_EQ(attacks[1].defence_strength, Rational(5));
  EXPECT_EQ(attacks[1].column, Column::kThreeToTwo);
  EXPECT_EQ(attacks[1].kill_number, 6);
  EXPECT_TRUE(attacks[1].drms.empty());
  EXPECT_EQ(attacks[1].results[0].outcome, Outcome::kPartial);
  // Random Selection drs G1 5, L1 2: the squad is Reduced to a HS.
  const State& end = played.final_state;
  EXPECT_EQ(UnitOf(end, "R1").presence, Presence::kEliminated);
  EXPECT_EQ(UnitOf(end, "R2").presence, Presence::kEliminated);
  EXPECT_EQ(UnitOf(end, "G1").kind, UnitKind::kHalfSquad);
  EXPECT_EQ(UnitOf(end, "G1").firepower, 2);
  EXPECT_EQ(UnitOf(end, "L1").wounds, 0);
  EXPECT_FALSE(end.melee);
}

// 11.141 EX: "If the Original DR is a 5, one of the Russian squads is Reduced to a HS".
TEST(AslExamples, A11141OriginalFiveReducesOneRussianByRandomSelection) {
  const Played played = MustPlay(LeaderDirects(), {2, 3, 3, 5, 4, 4});
  const State& end = played.final_state;
  EXPECT_EQ(Attacks(played)[0].results[0].outcome, Outcome::kPartial);
  EXPECT_EQ(UnitOf(end, "R1").kind, UnitKind::kSquad);
  EXPECT_EQ(UnitOf(end, "R2").kind, UnitKind::kHalfSquad);
  EXPECT_EQ(UnitOf(end, "R2").firepower, 2);
  // Russian DR 8 > 6: no effect; everyone left is locked in Melee (A11.15).
  EXPECT_EQ(Attacks(played)[1].results[0].outcome, Outcome::kNoEffect);
  EXPECT_TRUE(end.melee);
}

// ASL-T3 / A.9: tied Random Selection drs affect every tied unit: both squads Reduced.
TEST(AslExamples, A11141TiedRandomSelectionReducesBoth) {
  const Played played = MustPlay(LeaderDirects(), {2, 3, 4, 4, 4, 4});
  EXPECT_EQ(UnitOf(played.final_state, "R1").kind, UnitKind::kHalfSquad);
  EXPECT_EQ(UnitOf(played.final_state, "R2").kind, UnitKind::kHalfSquad);
}

// 11.141 EX: the Russians "can eliminate both German units with a DR < 6"; and a 6 that selects
// the leader wounds him (A17.11), with no LLMC (11.141).
TEST(AslExamples, A11141RussianSixWoundsTheLeader) {
  const Played played = MustPlay(LeaderDirects(), {3, 3, 3, 3, 2, 5, 3});
  const State& end = played.final_state;
  const Unit& leader = UnitOf(end, "L1");
  EXPECT_EQ(leader.presence, Presence::kPresent);
  EXPECT_EQ(leader.wounds, 1);
  EXPECT_EQ(leader.leadership, 0);  // A17.11: -1 worsens to 0.
  EXPECT_EQ(leader.morale, 7);
  EXPECT_EQ(UnitOf(end, "G1").kind, UnitKind::kSquad);

  const Played kill = MustPlay(LeaderDirects(), {3, 3, 2, 3});
  EXPECT_EQ(UnitOf(kill.final_state, "G1").presence, Presence::kEliminated);
  EXPECT_EQ(UnitOf(kill.final_state, "L1").presence, Presence::kEliminated);
}

// A18.12: a DEFENDER MMC's Original 2 creates a leader (Russian +1, dr 1: 8-0) who joins its
// attack (9:5, still 3-2); the German attack already resolved against that MMC is not re-figured
// and the report says so. Random Selection (drs 4, 2) stacks him on R1.
TEST(AslExamples, A1812DefenderFieldPromotionIsLabelledWhereNotRefigured) {
  const Played played = MustPlay(LeaderDirects(), {3, 3, 1, 1, 1, 4, 2});
  const auto attacks = Attacks(played);
  ASSERT_EQ(attacks.size(), 2u);
  ASSERT_TRUE(attacks[1].leader_creation);
  EXPECT_EQ(attacks[1].leader_creation->final_dr, 2);
  EXPECT_EQ(attacks[1].leader_creation->leader, "8-0");
  EXPECT_EQ(attacks[1].attack_strength, Rational(9));
  EXPECT_EQ(attacks[1].column, Column::kThreeToTwo);
  ASSERT_FALSE(attacks[1].notes.empty());
  EXPECT_NE(attacks[1].notes.back().find("A18.12 placeholder"), std::string::npos);
  EXPECT_EQ(UnitOf(played.final_state, "R1-ldr").stacked_on, "R1");
  EXPECT_EQ(UnitOf(played.final_state, "G1").presence, Presence::kEliminated);
}

// A18.12: an ATTACKER MMC's Original 2 creates a leader (ASL-T14: German -1, dr 1, Final 0: an
// 8-1) stacked on it (the only MMC of the attack); he defends
// with his MMC in every attack not yet resolved against it (the Russian R1's), and in no other
// (R2's on G2).
TEST(AslExamples, A1812CreatedLeaderDefendsWithHisMmcInLaterAttacks) {
  Script script;
  script.situation.units = {Mmc("G1", kA, 4, 7, kGerman), Mmc("G2", kA, 4, 7, kGerman),
                            Mmc("R1", kB, 4, 7, kRussian), Mmc("R2", kB, 4, 7, kRussian)};
  script.declarations = {{kA, Declare({Attack({"G1"}, {"R1"}), Attack({"G2"}, {"R2"})})},
                         {kB, Declare({Attack({"R1"}, {"G1"}), Attack({"R2"}, {"G2"})})}};
  const Played played = MustPlay(script, {1, 1, 1, 5, 5, 5, 5, 5, 5});
  const auto attacks = Attacks(played);
  ASSERT_EQ(attacks.size(), 4u);
  ASSERT_TRUE(attacks[0].leader_creation);
  EXPECT_EQ(attacks[0].leader_creation->final_dr, 0);
  EXPECT_EQ(attacks[0].leader_creation->leader, "8-1");
  const State& end = played.final_state;
  ASSERT_EQ(end.units.size(), 5u);
  const uint16_t leader = 4;
  EXPECT_EQ(end.units[leader].stacked_on, "G1");
  EXPECT_EQ(attacks[2].targets, (std::vector<uint16_t>{0, leader}));
  EXPECT_EQ(attacks[3].targets, (std::vector<uint16_t>{1}));
}

// 11.4 EX: a German 6-5-8 advances onto a concealed Russian 4-4-7.
Script ConcealedSquad(bool russian_attacks) {
  Script script;
  Unit german = Mmc("G1", kA, 6, 8, kGerman);
  german.advanced = true;
  Unit russian = Mmc("R1", kB, 4, 7, kRussian);
  russian.concealed = true;
  script.situation.units = {german, russian};
  script.declarations = {{kA, Declare({Attack({"G1"}, {"R1"})})}};
  if (russian_attacks) script.declarations.push_back({kB, Declare({Attack({"R1"}, {"G1"})})});
  return script;
}

// 11.4 EX: German dr 3 vs Russian 3 -2 = 1: no Ambush. If the 4-4-7 attacks it loses its "?"
// and the German attacks at 3-2 (6-4).
TEST(AslExamples, A114ConcealedSquadThatAttacksIsAttackedAtThreeToTwo) {
  const Played played = MustPlay(ConcealedSquad(true), {3, 3, 4, 5, 6, 6});
  const auto ambush = EventsOf(played, EventKind::kAmbushChecked);
  ASSERT_EQ(ambush.size(), 1u);
  EXPECT_EQ(ambush[0].ambush->final_dr[0], 3);
  EXPECT_EQ(ambush[0].ambush->final_dr[1], 1);
  EXPECT_EQ(DrmOf(ambush[0].ambush->drms[1], DrmCause::kAmbushConcealed), -2);
  EXPECT_FALSE(ambush[0].ambush->ambusher);
  const auto attacks = Attacks(played);
  EXPECT_EQ(attacks[0].attack_strength, Rational(6));
  EXPECT_EQ(attacks[0].column, Column::kThreeToTwo);
  EXPECT_EQ(attacks[0].kill_number, 6);
  EXPECT_TRUE(attacks[0].halvings.empty());
}

// 11.4 EX: if the 4-4-7 does not attack, the German attacks at 3-4 -> 1-2: DR 2-3 eliminates,
// 4 Reduces it to a HS that loses its "?", more has no effect and it stays concealed, not in
// Melee.
TEST(AslExamples, A114ConcealedSquadThatHoldsItsFireHalvesTheAttack) {
  const Played kill = MustPlay(ConcealedSquad(false), {3, 3, 1, 2});
  const auto attacks = Attacks(kill);
  EXPECT_EQ(attacks[0].attack_strength, Rational(3));
  ASSERT_EQ(attacks[0].halvings.size(), 1u);
  EXPECT_EQ(attacks[0].halvings[0].cause, HalvingCause::kVsConcealed);
  EXPECT_EQ(attacks[0].column, Column::kOneToTwo);
  EXPECT_EQ(attacks[0].kill_number, 4);
  EXPECT_EQ(UnitOf(kill.final_state, "R1").presence, Presence::kEliminated);

  const Played reduce = MustPlay(ConcealedSquad(false), {3, 3, 2, 2});
  EXPECT_EQ(UnitOf(reduce.final_state, "R1").kind, UnitKind::kHalfSquad);
  EXPECT_FALSE(UnitOf(reduce.final_state, "R1").concealed);
  EXPECT_TRUE(reduce.final_state.melee);

  const Played miss = MustPlay(ConcealedSquad(false), {3, 3, 2, 3});
  EXPECT_EQ(UnitOf(miss.final_state, "R1").kind, UnitKind::kSquad);
  EXPECT_TRUE(UnitOf(miss.final_state, "R1").concealed);
  EXPECT_FALSE(miss.final_state.melee);  // A11.15: a concealed unit is not held in Melee.
}

// 11.4 EX: "if the Russian player makes an original Ambush dr of <= 2, he Ambushes the German":
// CC becomes sequential with the Russian first (A11.32) and he keeps his "?" while he kills.
TEST(AslExamples, A114RussianAmbushesOnAnOriginalTwo) {
  Script script = ConcealedSquad(true);
  // Ambush drs 3 and 2 (Final 0); sequential: the Russian attacks first at 4:6 -> 1-2 with -1
  // and kills with an Original 3; the German never gets to attack.
  script.declarations = {{kB, Declare({Attack({"R1"}, {"G1"})})}};
  const Played played = MustPlay(script, {3, 2, 1, 2});
  const auto ambush = EventsOf(played, EventKind::kAmbushChecked);
  ASSERT_TRUE(ambush[0].ambush->ambusher);
  EXPECT_EQ(*ambush[0].ambush->ambusher, kB);
  const auto attacks = Attacks(played);
  ASSERT_EQ(attacks.size(), 1u);  // The German, eliminated first, forfeits his attack (A11.3).
  EXPECT_EQ(attacks[0].side, kB);
  EXPECT_EQ(attacks[0].column, Column::kOneToTwo);
  EXPECT_EQ(DrmOf(attacks[0].drms, DrmCause::kAmbushAttacking), -1);
  EXPECT_EQ(UnitOf(played.final_state, "G1").presence, Presence::kEliminated);
  // The ambusher eliminated its target, so it keeps its "?" (A11.4).
  EXPECT_TRUE(UnitOf(played.final_state, "R1").concealed);
}

// Comprehensive EX, G3 / ASL-T7: a capture attempt vs a Lax Inexperienced 4-2-6.
Script Capture() {
  Script script;
  script.situation.location.woods_or_building = true;
  Unit german = Mmc("G1", kA, 4, 7, kGerman);
  german.advanced = true;
  Unit russian = Mmc("R1", kB, 4, 6, kRussian);
  russian.inexperienced = true;
  script.situation.units = {german, russian};
  AttackOrder capture = Attack({"G1"}, {"R1"});
  capture.capture = true;
  script.declarations = {{kA, Declare({capture})}, {kB, Declare({Attack({"R1"}, {"G1"})})}};
  return script;
}

// G3: Ambush drs German 2, Russian 3 +1 (Lax) = 4: no Ambush. 1:1 with -1 (capture vs
// Inexperienced): Original 6 = Kill # 5 captures one HS; the Russian 9 has no effect.
TEST(AslExamples, ComprehensiveG3CaptureTakesOneHalfSquad) {
  const Played played = MustPlay(Capture(), {2, 3, 3, 3, 4, 5});
  const auto ambush = EventsOf(played, EventKind::kAmbushChecked);
  EXPECT_EQ(ambush[0].ambush->final_dr[1], 4);
  EXPECT_FALSE(ambush[0].ambush->ambusher);
  const auto attacks = Attacks(played);
  EXPECT_EQ(attacks[0].column, Column::kOneToOne);
  EXPECT_EQ(attacks[0].kill_number, 5);
  EXPECT_EQ(DrmOf(attacks[0].results[0].drms, DrmCause::kCaptureVsInexperienced), -1);
  EXPECT_EQ(attacks[0].results[0].final_dr, 5);
  EXPECT_EQ(attacks[1].column, Column::kOneToOne);
  EXPECT_TRUE(attacks[1].drms.empty());
  const State& end = played.final_state;
  EXPECT_EQ(UnitOf(end, "R1").kind, UnitKind::kHalfSquad);  // the free 2-2-6
  EXPECT_EQ(UnitOf(end, "R1").presence, Presence::kPresent);
  EXPECT_EQ(UnitOf(end, "R1-hs").presence, Presence::kCaptured);  // the HS prisoner
  EXPECT_EQ(UnitOf(end, "R1-hs").firepower, 2);
  EXPECT_TRUE(end.melee);
}

// G3: "If the Russian Original CC DR had been 4, the 4-2-6 would have eliminated the 4-6-7 and
// thus would not have been Captured" (ASL-AMB-7); a 5 Reduces the captor, which still captures.
TEST(AslExamples, ComprehensiveG3CaptureNeedsASurvivingCaptor) {
  const Played voided = MustPlay(Capture(), {2, 3, 3, 3, 2, 2});
  EXPECT_EQ(UnitOf(voided.final_state, "G1").presence, Presence::kEliminated);
  EXPECT_EQ(UnitOf(voided.final_state, "R1-hs").presence, Presence::kPresent);

  const Played reduced = MustPlay(Capture(), {2, 3, 3, 3, 2, 3});
  EXPECT_EQ(UnitOf(reduced.final_state, "G1").kind, UnitKind::kHalfSquad);
  EXPECT_EQ(UnitOf(reduced.final_state, "R1-hs").presence, Presence::kCaptured);
}

// A20.22 EX / ASL-T8: 8 FP vs 4-2-6, 4-2-6, 4-4-7 at 1-2 (8-12), capture attempt, Original 3:
// each 4-2-6 is captured (3 - 1 = 2 < 4), the 4-4-7 (3 + 1 = 4) gives up one HS.
TEST(AslExamples, A2022CaptureAttemptAgainstMixedTargets) {
  Script script;
  script.situation.units = {Mmc("G1", kA, 4, 8, kGerman), Mmc("G2", kA, 4, 8, kGerman),
                            Mmc("R1", kB, 4, 6, kRussian), Mmc("R2", kB, 4, 6, kRussian),
                            Mmc("R3", kB, 4, 7, kRussian)};
  script.situation.units[2].inexperienced = true;
  script.situation.units[3].inexperienced = true;
  AttackOrder capture = Attack({"G1", "G2"}, {"R1", "R2", "R3"});
  capture.capture = true;
  script.declarations = {{kA, Declare({capture})}};
  const Played played = MustPlay(script, {2, 1});
  const auto attacks = Attacks(played);
  EXPECT_EQ(attacks[0].column, Column::kOneToTwo);
  EXPECT_EQ(attacks[0].results[0].final_dr, 2);
  EXPECT_EQ(attacks[0].results[2].final_dr, 4);
  const State& end = played.final_state;
  EXPECT_EQ(UnitOf(end, "R1").presence, Presence::kCaptured);
  EXPECT_EQ(UnitOf(end, "R2").presence, Presence::kCaptured);
  EXPECT_EQ(UnitOf(end, "R3").kind, UnitKind::kHalfSquad);
  EXPECT_EQ(UnitOf(end, "R3-hs").presence, Presence::kCaptured);
}

// Comprehensive EX, G5: a concealed German 2-4-7 advances onto a concealed Russian 4-4-7.
Script ConcealedHalfSquadAdvances() {
  Script script;
  Unit german = Mmc("G1", kA, 2, 7, kGerman, UnitKind::kHalfSquad);
  german.concealed = true;
  german.advanced = true;
  Unit russian = Mmc("R1", kB, 4, 7, kRussian);
  russian.concealed = true;
  script.situation.units = {german, russian};
  return script;
}

// Comprehensive EX, G5 / ASL-T9: a concealed 2-4-7 ambushes a concealed 4-4-7 (drs 2 and 5,
// both -2: 0 is at least 3 less than 3), which loses its "?"; the 2-4-7 uses Ambush Withdrawal.
TEST(AslExamples, ComprehensiveG5AmbushThenAmbushWithdrawal) {
  Script script = ConcealedHalfSquadAdvances();
  Seal withdraw;
  withdraw.ambush_withdraw = {"G1"};
  script.declarations = {{kA, withdraw}};
  const Played played = MustPlay(script, {2, 5});
  const auto ambush = EventsOf(played, EventKind::kAmbushChecked);
  EXPECT_EQ(ambush[0].ambush->final_dr[0], 0);
  EXPECT_EQ(ambush[0].ambush->final_dr[1], 3);
  ASSERT_TRUE(ambush[0].ambush->ambusher);
  EXPECT_TRUE(played.final_state.sequential);
  EXPECT_FALSE(UnitOf(played.final_state, "R1").concealed);
  EXPECT_EQ(UnitOf(played.final_state, "G1").presence, Presence::kWithdrawn);
  EXPECT_TRUE(Attacks(played).empty());
  EXPECT_FALSE(played.final_state.melee);
}

// G5: had the 2-4-7 attacked (1-2, -1 Ambush) and failed, it loses its "?" and the 4-4-7 answers
// at 2-1 with +1 (A11.4).
TEST(AslExamples, ComprehensiveG5FailedAmbushAttackLosesConcealment) {
  Script script = ConcealedHalfSquadAdvances();
  script.declarations = {{kA, Declare({Attack({"G1"}, {"R1"})})},
                         {kB, Declare({Attack({"R1"}, {"G1"})})}};
  // Ambush drs 2, 5; German DR 8; Russian DR 9 (Final 10 > 7: no effect); no Ambush Withdrawal.
  const Played played = MustPlay(script, {2, 5, 4, 4, 4, 5});
  const auto attacks = Attacks(played);
  ASSERT_EQ(attacks.size(), 2u);
  EXPECT_EQ(attacks[0].column, Column::kOneToTwo);
  EXPECT_EQ(DrmOf(attacks[0].drms, DrmCause::kAmbushAttacking), -1);
  EXPECT_EQ(attacks[1].column, Column::kTwoToOne);
  EXPECT_EQ(DrmOf(attacks[1].drms, DrmCause::kAmbushAttacked), 1);
  EXPECT_FALSE(UnitOf(played.final_state, "G1").concealed);
  EXPECT_TRUE(played.final_state.melee);
}

// Comprehensive EX, H3 (Infantry part) / ASL-T10: a 5-4-8 with a Hero attacks a 6-2-8 at 1-1
// with -1 (Heroic); Original 2 eliminates it, creates an 8-0 (dr 4 -1 German -1 ML 8 = 2) which
// re-figures the attack to 7:6 (still 1-1), and the Germans Infiltrate before the Russian, who
// is eliminated, can attack them.
TEST(AslExamples, ComprehensiveH3FieldPromotionAndInfiltration) {
  Script script;
  script.situation.location.woods_or_building = true;
  Unit squad = Mmc("G1", kA, 5, 8, kGerman);
  squad.advanced = true;
  Unit hero;
  hero.id = "H1";
  hero.owner = kA;
  hero.kind = UnitKind::kHero;
  hero.nationality = kGerman;
  hero.morale = 9;
  hero.stacked_on = "G1";
  hero.advanced = true;
  script.situation.units = {squad, hero, Mmc("R1", kB, 6, 8, kRussian)};
  script.declarations = {{kA, Declare({Attack({"G1", "H1"}, {"R1"})})},
                         {kB, Declare({Attack({"R1"}, {"G1", "H1"})})}};
  script.choices = {{ChoiceKind::kInfiltration, {"G1", "H1", "G1-ldr"}}};
  // Ambush drs 3 and 3 (German -1 Stealthy Hero: 2 vs 3): none. CC DR 1+1; leader dr 4.
  const Played played = MustPlay(script, {3, 3, 1, 1, 4});
  const auto ambush = EventsOf(played, EventKind::kAmbushChecked);
  EXPECT_EQ(DrmOf(ambush[0].ambush->drms[0], DrmCause::kAmbushStealthy), -1);
  EXPECT_FALSE(ambush[0].ambush->ambusher);
  const auto attacks = Attacks(played);
  ASSERT_EQ(attacks.size(), 1u);
  const AttackReport& german = attacks[0];
  EXPECT_EQ(DrmOf(german.drms, DrmCause::kHeroic), -1);
  ASSERT_TRUE(german.leader_creation);
  EXPECT_EQ(german.leader_creation->final_dr, 2);
  EXPECT_EQ(german.leader_creation->leader, "8-0");
  EXPECT_EQ(german.attack_strength, Rational(7));
  EXPECT_EQ(german.column, Column::kOneToOne);
  EXPECT_EQ(german.results[0].final_dr, 1);
  EXPECT_EQ(german.results[0].outcome, Outcome::kEliminated);
  const State& end = played.final_state;
  EXPECT_EQ(UnitOf(end, "G1-ldr").leadership, 0);
  EXPECT_EQ(UnitOf(end, "G1").presence, Presence::kWithdrawn);
  EXPECT_EQ(UnitOf(end, "G1-ldr").presence, Presence::kWithdrawn);
  // The Russian attack is void: every target withdrew (A11.22; ASL-AMB-5).
  EXPECT_EQ(EventsOf(played, EventKind::kAttackVoid).size(), 1u);
  EXPECT_FALSE(end.melee);
}

// Comprehensive EX, K4 / ASL-T12: Melee; the 8-1 withdraws with the 4-6-7 covering (-2 +1).
Script MeleeWithdrawal() {
  Script script;
  script.situation.location.melee = true;
  script.situation.units = {Mmc("G1", kA, 4, 7, kGerman), Leader("L1", kA, 8, -1, "G1", kGerman),
                            Mmc("R1", kB, 4, 7, kRussian), Mmc("R2", kB, 5, 7, kRussian)};
  script.announce[0].withdraw = {"L1"};
  script.declarations = {{kA, Declare({Attack({"G1"}, {"R1"})})},
                         {kB, Declare({Attack({"R1", "R2"}, {"G1", "L1"})})}};
  script.choices = {{ChoiceKind::kInfiltration, {"R1"}}};
  return script;
}

// K4: the German 12 lets the attacked 4-4-7 Infiltrate; the 5-2-7 attacks alone at 1-1 (5-5);
// its 6 is a Partial Kill on the leader only (-1), who is wounded and killed by Wound Severity 5.
TEST(AslExamples, ComprehensiveK4WithdrawalFromMeleeAndInfiltration) {
  const Played played = MustPlay(MeleeWithdrawal(), {6, 6, 3, 3, 5});
  const auto attacks = Attacks(played);
  ASSERT_EQ(attacks.size(), 2u);
  EXPECT_EQ(attacks[0].column, Column::kOneToOne);
  EXPECT_EQ(attacks[0].results[0].outcome, Outcome::kNoEffect);
  const AttackReport& russian = attacks[1];
  EXPECT_EQ(russian.attack_strength, Rational(5));
  EXPECT_EQ(russian.defence_strength, Rational(5));
  EXPECT_EQ(russian.column, Column::kOneToOne);
  EXPECT_EQ(russian.results[0].final_dr, 6);
  EXPECT_EQ(russian.results[0].outcome, Outcome::kNoEffect);
  EXPECT_EQ(DrmOf(russian.results[1].drms, DrmCause::kVsWithdrawing), -2);
  EXPECT_EQ(DrmOf(russian.results[1].drms, DrmCause::kCovering), 1);
  EXPECT_EQ(russian.results[1].final_dr, 5);
  EXPECT_EQ(russian.results[1].outcome, Outcome::kPartial);
  const State& end = played.final_state;
  EXPECT_EQ(UnitOf(end, "R1").presence, Presence::kWithdrawn);
  EXPECT_EQ(UnitOf(end, "L1").presence, Presence::kEliminated);
  EXPECT_TRUE(end.melee);  // The 4-6-7 and 5-2-7 remain in Melee.
}

// K4: the 3-2 (9-5) attack declared against both units, before the 12.
TEST(AslExamples, ComprehensiveK4CombinedAttackOddsBeforeInfiltration) {
  Script script = MeleeWithdrawal();
  script.choices.clear();  // The Russian declines to Infiltrate.
  const Played played = MustPlay(script, {6, 6, 3, 3});
  const auto reports = Attacks(played);
  const AttackReport& russian = reports[1];
  EXPECT_EQ(russian.attack_strength, Rational(9));
  EXPECT_EQ(russian.column, Column::kThreeToTwo);
  EXPECT_EQ(russian.kill_number, 6);
  EXPECT_EQ(russian.results[0].outcome, Outcome::kPartial);  // 6 vs the 4-6-7
  EXPECT_EQ(russian.results[1].final_dr, 5);                 // 6 - 1 vs the leader
  EXPECT_EQ(russian.results[1].outcome, Outcome::kEliminated);
}

// K4: "Since the leader is Withdrawing it cannot defend with the 4-6-7 so the Russian could have
// attacked them separately, 1:1 vs the squad and 4:1 vs the leader".
TEST(AslExamples, ComprehensiveK4WithdrawingLeaderIsASeparateTarget) {
  Script script = MeleeWithdrawal();
  script.declarations[1].second = Declare({Attack({"R1"}, {"G1"}), Attack({"R2"}, {"L1"})});
  script.choices.clear();
  const Played played = MustPlay(script, {6, 5, 6, 5, 6, 5});
  const auto attacks = Attacks(played);
  EXPECT_EQ(attacks[1].column, Column::kOneToOne);
  EXPECT_EQ(attacks[2].column, Column::kFourToOne);
  EXPECT_EQ(attacks[2].results[0].final_dr, 10);
}

// Returns the RuleError that stops `script` before any die is rolled.
RuleError RefusalOf(const Script& script) {
  ScriptedDice dice({});
  const Result<Played> played = Play(AslRules{}, script, dice);
  EXPECT_FALSE(played);
  return played ? RuleError{} : played.error();
}

// K4: "If this were the first round of CC rather than Melee, the leader could not attempt to
// Withdraw."
TEST(AslExamples, ComprehensiveK4NoWithdrawalInTheFirstRound) {
  Script script = MeleeWithdrawal();
  script.situation.location.melee = false;
  const RuleError error = RefusalOf(script);
  EXPECT_EQ(error.rule_ref, "A11.2");
  EXPECT_NE(error.message.find("first round"), std::string::npos);
}

// Comprehensive EX, J2 / ASL-T13: a concealed 3-3-8 advances on a broken 2-2-7 in a building:
// Russian +1 (broken), German -2 (concealed); equal drs -> the Russian is Ambushed. The broken
// HS cannot attack; the German 3-2 (3-2) attack has -3 (-1 Ambush, -2 broken) and an 11 misses,
// so the 3-3-8 loses its "?"; it may still withdraw (A11.41) but stays: Melee.
TEST(AslExamples, ComprehensiveJ2AmbushOnABrokenUnit) {
  Script script;
  script.situation.location.woods_or_building = true;
  Unit german = Mmc("G1", kA, 3, 8, kGerman, UnitKind::kHalfSquad);
  german.concealed = true;
  german.advanced = true;
  Unit russian = Mmc("R1", kB, 2, 7, kRussian, UnitKind::kHalfSquad);
  russian.broken = true;
  script.situation.units = {german, russian};
  script.declarations = {{kA, Declare({Attack({"G1"}, {"R1"})})}};
  const Played played = MustPlay(script, {3, 3, 5, 6});
  const auto ambush = EventsOf(played, EventKind::kAmbushChecked);
  EXPECT_EQ(ambush[0].ambush->final_dr[0], 1);
  EXPECT_EQ(ambush[0].ambush->final_dr[1], 4);
  ASSERT_TRUE(ambush[0].ambush->ambusher);
  const auto reports = Attacks(played);
  const AttackReport& attack = reports[0];
  EXPECT_EQ(attack.column, Column::kThreeToTwo);
  EXPECT_EQ(attack.kill_number, 6);
  EXPECT_EQ(Total(attack.drms) + Total(attack.results[0].drms), -3);
  EXPECT_EQ(attack.results[0].final_dr, 8);
  EXPECT_EQ(attack.results[0].outcome, Outcome::kNoEffect);
  EXPECT_FALSE(UnitOf(played.final_state, "G1").concealed);
  EXPECT_EQ(EventsOf(played, EventKind::kChoiceRequested).size(), 1u);  // A11.41 offered
  EXPECT_TRUE(played.final_state.melee);
}

// J2: the broken 2-2-7 may never attack (A11.16).
TEST(AslExamples, A1116BrokenUnitCannotAttack) {
  Script script;
  Unit russian = Mmc("R1", kB, 2, 7, kRussian, UnitKind::kHalfSquad);
  russian.broken = true;
  script.situation.units = {Mmc("G1", kA, 3, 8, kGerman, UnitKind::kHalfSquad), russian};
  script.declarations = {{kB, Declare({Attack({"R1"}, {"G1"})})}};
  const RuleError error = RefusalOf(script);
  EXPECT_EQ(error.rule_ref, "A11.16");
  EXPECT_NE(error.message.find("broken unit R1 cannot attack"), std::string::npos);
}

// 11.622 EX, the broken-units attack, with an Infantry attacker: 5 FP vs squads A, B, C and a
// leader on A (13) at 1-4 (K 3); -2 vs the broken A, C and leader. Original 5: the broken units'
// Final 3 = Kill # is a Partial Kill, B (Final 5) is unaffected; Random Selection drs A 6, C 2,
// leader 6 (tie): A Reduced to a HS, the leader wounded.
TEST(AslExamples, A11622BrokenUnitsPartialKillWithTiedRandomSelection) {
  Script script;
  Unit a = Mmc("A", kB, 4, 7, kRussian);
  Unit b = Mmc("B", kB, 4, 7, kRussian);
  Unit c = Mmc("C", kB, 4, 7, kRussian);
  Unit leader = Leader("L", kB, 8, -1, "A", kRussian);
  a.broken = c.broken = leader.broken = true;
  script.situation.attacker = kA;
  script.situation.units = {Mmc("G1", kA, 5, 8, kGerman), a, leader, b, c};
  script.declarations = {{kA, Declare({Attack({"G1"}, {"A", "L", "B", "C"})})}};
  const Played played = MustPlay(script, {2, 3, 6, 6, 2, 3});
  const auto reports = Attacks(played);
  const AttackReport& attack = reports[0];
  EXPECT_EQ(attack.defence_strength, Rational(13));
  EXPECT_EQ(attack.column, Column::kOneToFour);
  EXPECT_EQ(attack.kill_number, 3);
  EXPECT_EQ(attack.results[0].outcome, Outcome::kPartial);   // A
  EXPECT_EQ(attack.results[1].outcome, Outcome::kPartial);   // leader
  EXPECT_EQ(attack.results[2].outcome, Outcome::kNoEffect);  // B
  EXPECT_EQ(attack.results[3].outcome, Outcome::kPartial);   // C
  const State& end = played.final_state;
  EXPECT_EQ(UnitOf(end, "A").kind, UnitKind::kHalfSquad);
  EXPECT_EQ(UnitOf(end, "L").wounds, 1);  // Wound Severity dr 3: minor.
  EXPECT_EQ(UnitOf(end, "C").kind, UnitKind::kSquad);
  EXPECT_EQ(UnitOf(end, "B").kind, UnitKind::kSquad);
}

// A11.13 / ASL-T17: a squad with an LMG eliminated at 1-1 by DR (coloured 1, white 3).
Script LmgSquad(const std::string& sw_option) {
  Script script;
  Unit russian = Mmc("R1", kB, 4, 7, kRussian);
  russian.support_weapons = {"LMG"};
  script.situation.units = {Mmc("G1", kA, 4, 7, kGerman), russian};
  script.declarations = {{kA, Declare({Attack({"G1"}, {"R1"})})}};
  if (!sw_option.empty()) script.options.values["sw_destruction"] = sw_option;
  return script;
}

TEST(AslExamples, A1113SupportWeaponDestroyedOnColouredOne) {
  auto lost = [](const Played& played) {
    for (const Event& event : played.events) {
      for (const Effect& effect : event.effects) {
        if (effect.kind == EffectKind::kSupportWeaponLost) return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(lost(MustPlay(LmgSquad(""), {1, 3, 4})));
  EXPECT_TRUE(lost(MustPlay(LmgSquad(""), {1, 3, 5})));     // <= Kill # 5 (ASL-AMB-3 default)
  EXPECT_FALSE(lost(MustPlay(LmgSquad("lt"), {1, 3, 5})));  // the seed 000 "<" reading
  EXPECT_FALSE(lost(MustPlay(LmgSquad(""), {1, 3, 6})));
  const Played no_check = MustPlay(LmgSquad(""), {2, 1});  // coloured 2: no SW dr at all
  EXPECT_FALSE(lost(no_check));
  EXPECT_EQ(UnitOf(no_check.final_state, "R1").presence, Presence::kEliminated);
  EXPECT_TRUE(UnitOf(no_check.final_state, "R1").support_weapons.empty());  // left unpossessed
}

// ASL-T2 / 11.12 EX: three 4-FP squads a side may divide their attacks in any of these ways.
TEST(AslExamples, A1112AttackSplitting) {
  Script script;
  script.situation.units = {Mmc("G1", kA, 4, 7), Mmc("G2", kA, 4, 7), Mmc("G3", kA, 4, 7),
                            Mmc("R1", kB, 4, 7), Mmc("R2", kB, 4, 7), Mmc("R3", kB, 4, 7)};
  const State state = testing::AtDeclaration(script.situation);
  ASSERT_EQ(state.phase, Phase::kDeclare);
  const std::vector<Seal> legal = {
      Declare({Attack({"G1", "G2", "G3"}, {"R1", "R2", "R3"})}),
      Declare({Attack({"G1", "G2", "G3"}, {"R1"})}),
      Declare({Attack({"G1"}, {"R1"}), Attack({"G2"}, {"R2"}), Attack({"G3"}, {"R3"})}),
      Declare({Attack({"G1", "G2"}, {"R1"}), Attack({"G3"}, {"R2", "R3"})}),
      Declare({Attack({"G1", "G2"}, {"R1"}), Attack({"G3"}, {"R2"})}),
  };
  for (const Seal& seal : legal) EXPECT_TRUE(ValidateDeclaration(state, kA, seal));
  const auto twice = ValidateDeclaration(
      state, kA, Declare({Attack({"G1"}, {"R1"}), Attack({"G1", "G2"}, {"R2"})}));
  ASSERT_FALSE(twice);
  EXPECT_EQ(Describe(twice.error()), "A11.12: unit G1 already attacks");
  const auto attacked_twice = ValidateDeclaration(
      state, kA, Declare({Attack({"G1"}, {"R1"}), Attack({"G2"}, {"R1", "R2"})}));
  ASSERT_FALSE(attacked_twice);
  EXPECT_EQ(Describe(attacked_twice.error()), "A11.12: unit R1 is already attacked");
}

}  // namespace
}  // namespace melee::engine::asl
