// One test per vehicle rule of A11 (A11.5-A11.8) and C13.7, each named after it: the numbers of
// the rule text and the player aid, and every refusal naming its rule.

#include <gtest/gtest.h>

#include "engine/asl/preview.h"
#include "engine/asl/vehicle.h"
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

// Side A's Infantry (the ATTACKER) and side B's tank T1, at designation (no dice needed).
Situation TankAnd(std::vector<Unit> infantry, Unit tank = Vehicle("T1", kB, 4)) {
  Situation situation;
  situation.attacker = kA;
  situation.units = std::move(infantry);
  situation.units.push_back(std::move(tank));
  return situation;
}

std::string RuleOfRefusal(const State& state, Seat seat, const AttackOrder& order) {
  Result<void> valid = ValidateDeclaration(state, seat, Declare({order}));
  return valid ? std::string("accepted") : valid.error().rule_ref;
}

// The plan of `order` by side A against the tank (its DRM, its CCV), via the preview.
OutcomeTable PreviewOf(const State& state, Seat seat, const AttackOrder& order) {
  Result<OutcomeTable> table = Preview(state, seat, order);
  EXPECT_TRUE(table) << (table ? "" : Describe(table.error()));
  return table ? *table : OutcomeTable{};
}

TEST(AslVehicleRules, A115CloseCombatValues) {
  Unit squad = Mmc("S", kA, 4, 7);
  Unit crew = Mmc("C", kA, 2, 7, Nationality::kOther, UnitKind::kCrew);
  Unit half = Mmc("H", kA, 2, 7, Nationality::kOther, UnitKind::kHalfSquad);
  Unit leader = Leader("L", kA, 8, -1, "S");
  EXPECT_EQ(UnitCcv(squad).Value(), 5);
  EXPECT_EQ(UnitCcv(crew).Value(), 4);
  EXPECT_EQ(UnitCcv(half).Value(), 3);
  EXPECT_EQ(UnitCcv(leader).Value(), 2);
  squad.assault_engineer = true;
  EXPECT_EQ(UnitCcv(squad).Value(), 6);
  squad.inexperienced = true;
  EXPECT_EQ(UnitCcv(squad).Value(), 5);
  squad.pinned = true;  // -1 per FP-halving penalty
  EXPECT_EQ(UnitCcv(squad).Value(), 4);
  const std::vector<Unit> units = {Mmc("S", kA, 4, 7), leader};
  const uint16_t both[] = {0, 1};
  EXPECT_EQ(AttackerCcv(units, both).Value(), 6);  // +1 for a SMC combining
}

TEST(AslVehicleRules, A115AtMostTwoUnitsAndOneASmc) {
  const State state = AtDeclaration(TankAnd(
      {Mmc("S1", kA, 4, 7), Mmc("S2", kA, 4, 7), Leader("L", kA, 8, -1, "S1"), Mmc("S3", kA, 4, 7)}));
  EXPECT_EQ(RuleOfRefusal(state, kA, Attack({"S1", "S2"}, {"T1"})), "A11.5");
  EXPECT_EQ(RuleOfRefusal(state, kA, Attack({"S1", "L", "S2"}, {"T1"})), "A11.5");
  EXPECT_EQ(RuleOfRefusal(state, kA, Attack({"S1", "L"}, {"T1"})), "accepted");
  // A single CC attack cannot affect both a vehicle and Personnel.
  Situation mixed = TankAnd({Mmc("S1", kA, 4, 7)});
  mixed.units.push_back(Mmc("E1", kB, 4, 7));
  EXPECT_EQ(RuleOfRefusal(AtDeclaration(mixed), kA, Attack({"S1"}, {"T1", "E1"})), "A11.5");
  // Only Infantry attack a vehicle: a vehicle's weapons never target one.
  Situation duel = TankAnd({Vehicle("T2", kA, 4)});
  EXPECT_EQ(RuleOfRefusal(AtDeclaration(duel), kA, Fire("T2", {"cmg"}, {"T1"})), "A11.5");
}

TEST(AslVehicleRules, A115ResultsAgainstTheCcv) {
  EXPECT_EQ(VehicleResultOf(6, 5, true), VehicleResult::kNoEffect);
  EXPECT_EQ(VehicleResultOf(5, 5, true), VehicleResult::kImmobilized);
  EXPECT_EQ(VehicleResultOf(4, 5, true), VehicleResult::kEliminated);
  EXPECT_EQ(VehicleResultOf(2, 5, true), VehicleResult::kBurning);  // <= 2 1/2
  EXPECT_EQ(VehicleResultOf(3, 6, true), VehicleResult::kBurning);
  EXPECT_EQ(VehicleResultOf(3, 6, false), VehicleResult::kEliminated);  // ASL-AMB-2 option
}

TEST(AslVehicleRules, A11501UnlikelyKillOnAnOriginalTwo) {
  EXPECT_EQ(UnlikelyKillResult(1), VehicleResult::kBurning);
  EXPECT_EQ(UnlikelyKillResult(2), VehicleResult::kEliminated);
  EXPECT_EQ(UnlikelyKillResult(3), VehicleResult::kImmobilized);
  EXPECT_EQ(UnlikelyKillResult(4), VehicleResult::kNoEffect);
  // A leader alone (CCV 2) against a tank in Motion (+2): only an Original 2 can succeed.
  Script script;
  script.situation = TankAnd({Leader("L", kA, 8, -1, "")});
  script.situation.units.back().vehicle.movement = Movement::kMotion;
  script.declarations = {{kA, Declare({Attack({"L"}, {"T1"})})}};
  for (const auto& [kill_dr, outcome] : std::vector<std::pair<int, Outcome>>{
           {1, Outcome::kBurning}, {3, Outcome::kImmobilized}, {5, Outcome::kNoEffect}}) {
    const Played played = MustPlay(script, {1, 1, kill_dr});
    const auto attacks = Attacks(played);
    ASSERT_EQ(attacks.size(), 1u);
    EXPECT_EQ(attacks[0].results[0].final_dr, 4);
    EXPECT_EQ(attacks[0].unlikely_kill_dr, kill_dr);
    EXPECT_EQ(attacks[0].results[0].outcome, outcome) << "dr " << kill_dr;
  }
}

TEST(AslVehicleRules, A1151VehicleDrms) {
  Unit truck = Vehicle("T1", kB, 0);
  truck.vehicle.armor = Armor::kUnarmored;
  truck.vehicle.bmg = false;
  truck.vehicle.crew_exposed = true;
  truck.vehicle.movement = Movement::kNonStopped;
  Unit hero;
  hero.id = "HERO";
  hero.owner = kA;
  hero.kind = UnitKind::kHero;
  hero.stacked_on = "S";
  Situation situation = TankAnd({Mmc("S", kA, 4, 7), hero, Mmc("E1", kB, 4, 7),
                                 Mmc("E2", kB, 2, 7, Nationality::kOther, UnitKind::kHalfSquad)},
                                truck);
  const State state = AtDeclaration(situation);
  const OutcomeTable table = PreviewOf(state, kA, Attack({"S", "HERO"}, {"T1"}));
  EXPECT_EQ(DrmOf(table.drms, DrmCause::kVsUnarmoredVehicle), -3);
  EXPECT_EQ(DrmOf(table.drms, DrmCause::kVsNoMg), -1);
  EXPECT_EQ(DrmOf(table.drms, DrmCause::kEscort), 3);  // +2 squad, +1 HS: the truck is CE
  EXPECT_EQ(DrmOf(table.drms, DrmCause::kVsMotion), 2);
  EXPECT_EQ(DrmOf(table.drms, DrmCause::kHeroic), -1);
  // Leadership only when the leader combines with another unit.
  Situation led = TankAnd({Mmc("S", kA, 4, 7), Leader("L", kA, 9, -2, "S")});
  const State led_state = AtDeclaration(led);
  EXPECT_EQ(DrmOf(PreviewOf(led_state, kA, Attack({"S", "L"}, {"T1"})).drms, DrmCause::kLeadership),
            -2);
}

TEST(AslVehicleRules, A1151EscortDrmIsVoidWhenTheVehicleIsBu) {
  Situation situation = TankAnd({Mmc("S", kA, 4, 7), Mmc("E1", kB, 4, 7)});
  const State state = AtDeclaration(situation);
  const OutcomeTable bu = PreviewOf(state, kA, Attack({"S"}, {"T1"}));
  EXPECT_EQ(DrmOf(bu.drms, DrmCause::kEscort), 0);  // ASL-AMB-16 default
  const State applies = AtDeclaration(situation, {}, MatchOptions{.variant = "",
                                                                  .values = {{"escort_drm_when_bu",
                                                                              "applies"}}});
  EXPECT_EQ(DrmOf(PreviewOf(applies, kA, Attack({"S"}, {"T1"})).drms, DrmCause::kEscort), 2);
}

TEST(AslVehicleRules, A1161AfvDrms) {
  Unit ot = Vehicle("T1", kB, 4);
  ot.vehicle.armor = Armor::kOpenTopped;
  ot.vehicle.immobile = true;
  State state = AtDeclaration(TankAnd({Mmc("S", kA, 4, 7)}, ot));
  OutcomeTable table = PreviewOf(state, kA, Attack({"S"}, {"T1"}));
  EXPECT_EQ(DrmOf(table.drms, DrmCause::kVsOpenTopped), -2);
  EXPECT_EQ(DrmOf(table.drms, DrmCause::kVsImmobile), -1);
  EXPECT_EQ(DrmOf(table.drms, DrmCause::kVsCeOrAbandoned), 0);
  Unit ce = Vehicle("T1", kB, 4);
  ce.vehicle.crew_exposed = true;
  state = AtDeclaration(TankAnd({Mmc("S", kA, 4, 7)}, ce));
  EXPECT_EQ(DrmOf(PreviewOf(state, kA, Attack({"S"}, {"T1"})).drms, DrmCause::kVsCeOrAbandoned),
            -1);
  // A BMG is never used in CC but voids the no-MG DRM (A11.61); without any MG it applies.
  Unit bare = Vehicle("T1", kB, 0);
  EXPECT_EQ(DrmOf(PreviewOf(AtDeclaration(TankAnd({Mmc("S", kA, 4, 7)}, bare)), kA,
                            Attack({"S"}, {"T1"}))
                      .drms,
                  DrmCause::kVsNoMg),
            0);
  bare.vehicle.bmg = false;
  EXPECT_EQ(DrmOf(PreviewOf(AtDeclaration(TankAnd({Mmc("S", kA, 4, 7)}, bare)), kA,
                            Attack({"S"}, {"T1"}))
                      .drms,
                  DrmCause::kVsNoMg),
            -1);
}

TEST(AslVehicleRules, C137AtmmCheck) {
  Unit squad = Mmc("S", kA, 4, 7);
  Unit half = Mmc("H", kA, 2, 7, Nationality::kOther, UnitKind::kHalfSquad);
  half.cx = true;
  Unit leader = Leader("L", kA, 8, -1, "S");
  Unit tank = Vehicle("T1", kB, 4);
  Unit truck = tank;
  truck.vehicle.armor = Armor::kUnarmored;
  EXPECT_EQ(Total(AtmmDrms(squad, tank)), 0);
  EXPECT_EQ(Total(AtmmDrms(half, tank)), 2);   // +1 HS, +1 CX
  EXPECT_EQ(Total(AtmmDrms(leader, tank)), 2);  // +2 SMC
  EXPECT_EQ(Total(AtmmDrms(squad, truck)), 1);  // +1 vs a non-armored vehicle
  EXPECT_EQ(AtmmResultOf(3), AtmmResult::kSuccess);
  EXPECT_EQ(AtmmResultOf(4), AtmmResult::kNone);
  EXPECT_EQ(AtmmResultOf(5), AtmmResult::kNone);
  EXPECT_EQ(AtmmResultOf(6), AtmmResult::kPinned);
  // Only a unit that has ATMM, only vs a vehicle, only one of the attackers.
  Situation situation = TankAnd({squad, Mmc("E1", kB, 4, 7)});
  const State state = AtDeclaration(situation);
  AttackOrder order = Attack({"S"}, {"T1"});
  order.atmm = "S";
  EXPECT_EQ(RuleOfRefusal(state, kA, order), "C13.7");
  situation.units[0].atmm = true;
  const State with_atmm = AtDeclaration(situation);
  EXPECT_EQ(RuleOfRefusal(with_atmm, kA, order), "accepted");
  AttackOrder vs_infantry = Attack({"S"}, {"E1"});
  vs_infantry.atmm = "S";
  EXPECT_EQ(RuleOfRefusal(with_atmm, kA, vs_infantry), "C13.7");
  // The preview enumerates the check: 3 in 6 succeed.
  EXPECT_EQ(PreviewOf(with_atmm, kA, order).atmm_success, Rational(1, 2));
}

TEST(AslVehicleRules, A116FailedPaatcPinsAndTheUnitDoesNotAdvance) {
  Script script;
  Unit green = Mmc("S1", kA, 4, 7);
  green.advanced = true;
  green.inexperienced = true;  // a 1TC: +1
  Unit fanatic = Mmc("S2", kA, 4, 7);
  fanatic.advanced = true;
  fanatic.fanatic = true;  // exempt
  Unit stayed = Mmc("S3", kA, 4, 7);  // did not advance: no PAATC
  script.situation = TankAnd({green, fanatic, stayed});
  const Played played = MustPlay(script, {3, 4});  // 7 + 1 > 7: fails
  const auto paatc = EventsOf(played, EventKind::kPaatcTaken);
  ASSERT_EQ(paatc.size(), 1u);
  ASSERT_EQ(paatc[0].checks.size(), 1u);
  EXPECT_EQ(paatc[0].checks[0].check, "1TC");
  EXPECT_EQ(paatc[0].checks[0].final_dr, 8);
  EXPECT_EQ(paatc[0].checks[0].result, CheckResult::kPinned);
  const Unit& s1 = UnitOf(played.final_state, "S1");
  EXPECT_TRUE(s1.pinned);
  EXPECT_EQ(s1.presence, Presence::kWithdrawn);
  // No PAATC against an Abandoned or an unarmored vehicle.
  script.situation.units.back().vehicle.abandoned = true;
  EXPECT_TRUE(EventsOf(MustPlay(script, {}), EventKind::kPaatcTaken).empty());
}

TEST(AslVehicleRules, A11611PrcShareTheFateOfTheirVehicleAndRidersFightApart) {
  Unit rider = Mmc("RIDER", kB, 4, 7);
  rider.rider_of = "T1";
  Unit passenger = Mmc("PASS", kB, 4, 7);
  passenger.passenger_of = "T1";
  Script script;
  script.situation = TankAnd({Mmc("S", kA, 4, 7), Mmc("S2", kA, 4, 7)});
  script.situation.units.push_back(rider);
  script.situation.units.push_back(passenger);
  const State state = AtDeclaration(script.situation);
  // Riders are attacked separately (-1) and attack at +1; Passengers are never targets.
  Result<OutcomeTable> vs_rider = Preview(state, kA, Attack({"S"}, {"RIDER"}));
  ASSERT_TRUE(vs_rider);
  EXPECT_EQ(vs_rider->targets[0].final_dr_offset, -1);
  EXPECT_EQ(RuleOfRefusal(state, kA, Attack({"S"}, {"PASS"})), "A11.611");
  AttackOrder capture = Attack({"S"}, {"PASS"});
  capture.capture = true;
  EXPECT_EQ(RuleOfRefusal(state, kA, capture), "A11.52");
  EXPECT_EQ(RuleOfRefusal(state, kB, Attack({"PASS"}, {"S"})), "A11.611");
  // G1.64: HtH is NA vs PRC: black Kill # even in a HtH Location.
  Situation hth = script.situation;
  hth.location.hth = true;
  Result<OutcomeTable> hth_rider = Preview(AtDeclaration(hth), kA, Attack({"S"}, {"RIDER"}));
  ASSERT_TRUE(hth_rider);
  EXPECT_EQ(hth_rider->kill_number, KillNumber(hth_rider->column, false));
  Result<OutcomeTable> by_rider = Preview(state, kB, Attack({"RIDER"}, {"S"}));
  ASSERT_TRUE(by_rider);
  EXPECT_EQ(DrmOf(by_rider->drms, DrmCause::kByRider), 1);
  // A vehicle destroyed in CC takes its PRC with it.
  script.declarations = {{kA, Declare({Attack({"S"}, {"T1"})})}};
  const Played played = MustPlay(script, {1, 2});
  EXPECT_EQ(UnitOf(played.final_state, "T1").presence, Presence::kEliminated);
  EXPECT_EQ(UnitOf(played.final_state, "RIDER").presence, Presence::kEliminated);
  EXPECT_EQ(UnitOf(played.final_state, "PASS").presence, Presence::kEliminated);
}

TEST(AslVehicleRules, A1162VehicleWeaponsInCc) {
  Unit tank = Vehicle("T1", kB, 4);
  tank.vehicle.aamg = 2;
  tank.vehicle.rmg = 1;
  State state = AtDeclaration(TankAnd({Mmc("S", kA, 4, 7), Mmc("S2", kA, 4, 7)}, tank));
  EXPECT_EQ(RuleOfRefusal(state, kB, Fire("T1", {"aamg"}, {"S"})), "A11.62");  // BU
  EXPECT_EQ(RuleOfRefusal(state, kB, Fire("T1", {"bmg"}, {"S"})), "A11.62");
  EXPECT_EQ(RuleOfRefusal(state, kB, Fire("T1", {"cmg", "rmg"}, {"S"})), "accepted");
  EXPECT_EQ(RuleOfRefusal(state, kB, Fire("T1", {}, {"S"})), "A11.62");
  // In any combination, in one or more attacks, each weapon once.
  Result<void> twice = ValidateDeclaration(
      state, kB, Declare({Fire("T1", {"cmg"}, {"S"}), Fire("T1", {"cmg"}, {"S2"})}));
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().rule_ref, "A11.62");
  // Motion halves the FP; never increased.
  tank.vehicle.movement = Movement::kMotion;
  tank.vehicle.crew_exposed = true;
  state = AtDeclaration(TankAnd({Mmc("S", kA, 4, 7)}, tank));
  const OutcomeTable table = PreviewOf(state, kB, Fire("T1", {"cmg", "aamg"}, {"S"}));
  EXPECT_EQ(table.attack_strength, Rational(3));  // (4 + 2) / 2
  EXPECT_EQ(table.defence_strength, Rational(5));
  EXPECT_EQ(table.column, Column::kOneToTwo);
  // Shocked, Stunned, Abandoned or "CMG: VCA only": no such attack.
  for (auto change : std::vector<void (*)(Unit&)>{
           [](Unit& u) { u.vehicle.shocked = true; }, [](Unit& u) { u.vehicle.stunned = true; },
           [](Unit& u) { u.vehicle.abandoned = true; },
           [](Unit& u) { u.vehicle.cmg_vca_only = true; }}) {
    Unit changed = Vehicle("T1", kB, 4);
    change(changed);
    const State s = AtDeclaration(TankAnd({Mmc("S", kA, 4, 7)}, changed));
    EXPECT_NE(RuleOfRefusal(s, kB, Fire("T1", {"cmg"}, {"S"})), "accepted");
  }
}

TEST(AslVehicleRules, A11621NoCrewSmallArmsFromAShockedCrew) {
  Script script;
  Unit tank = Vehicle("T1", kB, 4);
  tank.vehicle.shocked = true;
  script.situation = TankAnd({Mmc("S", kA, 4, 7)}, tank);
  script.declarations = {{kA, Declare({Attack({"S"}, {"T1"})})}};
  const Played played = MustPlay(script, {6, 6});
  EXPECT_FALSE(Attacks(played)[0].crew_small_arms);
  EXPECT_EQ(UnitOf(played.final_state, "S").kind, UnitKind::kSquad);
}

TEST(AslVehicleRules, A11622TheSnOnlyAfterBeingAttackedAndOnlyBu) {
  Unit tank = Vehicle("T1", kB, 4);
  tank.vehicle.sn_usage = 6;
  Script script;
  script.situation = TankAnd({Mmc("S", kA, 4, 7), Mmc("S2", kA, 4, 7)}, tank);
  const State state = AtDeclaration(script.situation);
  EXPECT_EQ(RuleOfRefusal(state, kB, Fire("T1", {"sn"})), "A11.622");  // not yet attacked
  // Attacked: fires; an Original DR above the Usage Number has no effect.
  script.declarations = {{kA, Declare({Attack({"S"}, {"T1"})})}, {kB, Declare({Fire("T1", {"sn"})})}};
  const Played played = MustPlay(script, {4, 4, 3, 4});
  const auto attacks = Attacks(played);
  ASSERT_EQ(attacks.size(), 2u);
  ASSERT_TRUE(attacks[1].close_defense);
  EXPECT_FALSE(attacks[1].close_defense->ift);
  EXPECT_TRUE(attacks[1].close_defense->checks.empty());
  // A CE AFV cannot fire it.
  script.situation.units.back().vehicle.crew_exposed = true;
  script.declarations.resize(1);
  const Played ce = MustPlay(script, {4, 4});
  EXPECT_EQ(RuleOfRefusal(ce.final_state, kB, Fire("T1", {"sn"})), "A11.622");
}

// The placeholder column is kept parsed in Options: it must be what the text it replaces
// ("2kia,1kia,k/4,4mc,3mc,2mc,1mc,nmc,ptc,ne,ne", DR 7 = 2MC from the A11.622 EX) parses to.
TEST(AslVehicleRules, A11622PlaceholderIftColumnIsItsText) {
  MatchOptions options;
  options.values["sn_ift"] = "2kia,1kia,k/4,4mc,3mc,2mc,1mc,nmc,ptc,ne,ne";
  const Result<State> given = AslRules().NewState(options);
  const Result<State> placeholder = AslRules().NewState(MatchOptions{});
  ASSERT_TRUE(given && placeholder);
  EXPECT_FALSE(placeholder->options.sn_ift_from_option);
  EXPECT_EQ(placeholder->options.sn_ift, given->options.sn_ift);
  EXPECT_EQ(placeholder->options.sn_ift[7 - 2], (IftResult{IftResult::Kind::kMc, 2}));
}

TEST(AslVehicleRules, A11622IftColumnIsAnOption) {
  const AslRules rules;
  MatchOptions options;
  options.values["sn_ift"] = "1kia,1kia,k/2,3mc,2mc,2mc,1mc,nmc,ptc,ne,ne";
  Result<State> state = rules.NewState(options);
  ASSERT_TRUE(state);
  EXPECT_TRUE(state->options.sn_ift_from_option);
  EXPECT_EQ(state->options.sn_ift[5], (IftResult{IftResult::Kind::kMc, 2}));
  options.values["sn_ift"] = "2kia,1kia";
  EXPECT_FALSE(rules.NewState(options));
  options.values["sn_ift"] = "2kia,1kia,k/4,4mc,3mc,2mc,1mc,nmc,ptc,ne,boom";
  EXPECT_FALSE(rules.NewState(options));
  EXPECT_EQ(ParseIftResult("k/3"), (IftResult{IftResult::Kind::kCasualty, 3}));
  EXPECT_EQ(ParseIftResult("2kia"), (IftResult{IftResult::Kind::kKia, 2}));
  EXPECT_EQ(ParseIftResult("nmc"), (IftResult{IftResult::Kind::kMc, 0}));
  EXPECT_FALSE(ParseIftResult("0mc"));
}

TEST(AslVehicleRules, A1131AlternatingSingleAttacks) {
  Situation situation = TankAnd({Mmc("S", kA, 4, 7), Mmc("S2", kA, 4, 7)});
  const State state = AtDeclaration(situation);
  EXPECT_TRUE(state.sequential);
  EXPECT_TRUE(state.alternating);
  EXPECT_EQ(state.to_act, kA);  // the non-vehicular side
  Result<void> two = ValidateDeclaration(
      state, kA, Declare({Attack({"S"}, {"T1"}), Attack({"S2"}, {"T1"})}));
  ASSERT_FALSE(two);
  EXPECT_EQ(two.error().rule_ref, "A11.31");
  // Vehicles on both sides: the ATTACKER first; the vehicular side (B) attacks first when the
  // ATTACKER has the vehicle.
  situation.units.push_back(Vehicle("T2", kA, 4));
  EXPECT_EQ(AtDeclaration(situation).to_act, kA);
  Situation theirs = TankAnd({Mmc("S", kA, 4, 7)});
  theirs.attacker = kB;
  EXPECT_EQ(AtDeclaration(theirs).to_act, kA);
}

TEST(AslVehicleRules, A1152UnarmedVehicleAloneWithTheEnemyIsCaptured) {
  Unit truck = Vehicle("TRUCK", kB, 0);
  truck.vehicle.armor = Armor::kUnarmored;
  truck.vehicle.unarmed = true;
  truck.vehicle.bmg = false;
  Script script;
  script.situation = TankAnd({Mmc("S", kA, 4, 7)}, truck);
  const Played played = MustPlay(script, {});
  ASSERT_EQ(EventsOf(played, EventKind::kVehicleCaptured).size(), 1u);
  EXPECT_EQ(UnitOf(played.final_state, "TRUCK").presence, Presence::kCaptured);
  // A capture attempt vs a manned AFV is refused.
  const State state = AtDeclaration(TankAnd({Mmc("S", kA, 4, 7)}));
  AttackOrder capture = Attack({"S"}, {"T1"});
  capture.capture = true;
  EXPECT_EQ(RuleOfRefusal(state, kA, capture), "A11.52");
}

TEST(AslVehicleRules, A117AVehicleInMotionHoldsNoOneInMelee) {
  Script script;
  Unit tank = Vehicle("T1", kB, 4);
  tank.vehicle.movement = Movement::kMotion;
  script.situation = TankAnd({Mmc("S", kA, 4, 7)}, tank);
  script.declarations = {{kA, Declare({Attack({"S"}, {"T1"})})}};
  EXPECT_FALSE(MustPlay(script, {4, 4}).final_state.melee);
  script.situation.units.back().vehicle.movement = Movement::kStopped;
  EXPECT_TRUE(MustPlay(script, {4, 4}).final_state.melee);
}

TEST(AslVehicleRules, A118StreetFightersReturnUnlessInTheBypassedObstacle) {
  Script script;
  Unit from_building = Mmc("S", kA, 4, 7);
  from_building.street_fighting = StreetFighting::kFromBuilding;
  script.situation = TankAnd({from_building});
  script.declarations = {{kA, Declare({Attack({"S"}, {"T1"})})}};
  Played played = MustPlay(script, {4, 4});
  EXPECT_EQ(DrmOf(Attacks(played)[0].drms, DrmCause::kStreetFightingAttacking), -1);
  EXPECT_EQ(UnitOf(played.final_state, "S").presence, Presence::kWithdrawn);
  script.situation.units[0].street_fighting = StreetFighting::kInObstacle;
  played = MustPlay(script, {4, 4});
  EXPECT_EQ(UnitOf(played.final_state, "S").presence, Presence::kPresent);
}

TEST(AslVehicleRules, A117AVehicleAnnouncesNoWithdrawal) {
  Situation situation = TankAnd({Mmc("S", kA, 4, 7)});
  situation.location.melee = true;
  const AslRules rules;
  State state = *rules.NewState({});
  ScriptedDice none({});
  for (const Command& command : std::vector<Command>{asl::SetUp{situation}, Announce{}}) {
    const auto events = rules.Decide(state, kA, command, none);
    ASSERT_TRUE(events);
    for (const Event& event : *events) rules.Apply(state, event);
  }
  Announce leave;
  leave.withdraw = {"T1"};
  auto refused = rules.Decide(state, kB, leave, none);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().rule_ref, "A11.7");
}

TEST(AslVehicleRules, BadVehicleSituationsNameTheirRule) {
  auto refusal = [](Situation situation) {
    Result<void> valid = ValidateSituation(situation);
    return valid ? std::string("accepted") : valid.error().rule_ref;
  };
  Unit broken = Vehicle("T1", kB, 4);
  broken.broken = true;
  EXPECT_EQ(refusal(TankAnd({Mmc("S", kA, 4, 7)}, broken)), "A11.5");
  Unit sn = Vehicle("T1", kB, 4);
  sn.vehicle.sn_usage = 13;
  EXPECT_EQ(refusal(TankAnd({Mmc("S", kA, 4, 7)}, sn)), "A11.622");
  Unit rider = Mmc("R", kB, 4, 7);
  rider.rider_of = "S";
  EXPECT_EQ(refusal(TankAnd({Mmc("S", kA, 4, 7), rider})), "A11.611");
  Unit squad = Mmc("S", kA, 4, 7);
  squad.vehicle.cmg = 4;
  EXPECT_EQ(refusal(TankAnd({squad})), "A11.5");
  Unit unarmed = Vehicle("T1", kB, 4);
  unarmed.vehicle.unarmed = true;
  EXPECT_EQ(refusal(TankAnd({Mmc("S", kA, 4, 7)}, unarmed)), "A11.52");
}

}  // namespace
}  // namespace melee::engine::asl
