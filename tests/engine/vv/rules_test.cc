// The rules of V&V 15 one by one: eligibility (15.1), support weapons (15.2, 12.3, 12.52, 12.53),
// leadership (15.3), what defends with what (15.4, 15.5), Valor (16.2, 16.3), the options the
// ambiguities of B.6 default, the flow's secrecy, the preview's exact odds and determinism.

#include <gtest/gtest.h>

#include "tests/engine/vv/fixtures.h"

namespace melee::engine::vv {
namespace {

using testing::Act;
using testing::AllocationOf;
using testing::Eliminated;
using testing::HalfSquad;
using testing::Hmg;
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

// Two German squads and a leader assault a US squad and a leader in the open.
Script Basic() {
  Script script;
  script.situation.source_hex = "A1";
  script.situation.target.name = "B1";
  script.situation.units = {Squad("G1", kA, 4, 5, 2, 2), Squad("G2", kA, 4, 5, 2, 2),
                            Leader("GL", kA, 1, 1, 1), Squad("U1", kB, 5, 4, 2, 2),
                            Leader("UL", kB, 1, 1, 2)};
  script.declarations[0] = Declare{.group = {"G1", "G2", "GL"}, .leader = "GL", .uses = {}};
  script.declarations[1] = Declare{.group = {}, .leader = "UL", .uses = {}};
  return script;
}

RuleError DeclarationError(Script script) { return MustFail(script, {}); }

TEST(VvRules, Rule151OnlyInfantryThatDidNotAdvanceAssaultFromTheSourceHex) {
  Script advanced = Basic();
  advanced.situation.units[0].advanced = true;
  RuleError error = DeclarationError(advanced);
  EXPECT_EQ(error.rule_ref, "15.1");
  EXPECT_NE(error.message.find("advanced"), std::string::npos);

  Script vehicle = Basic();
  vehicle.situation.units.push_back(Vehicle("HT", kA, UnitKind::kVehicle, 2, 2));
  vehicle.declarations[0].group.push_back("HT");
  EXPECT_EQ(DeclarationError(vehicle).rule_ref, "15.1");

  Script defender_group = Basic();
  defender_group.declarations[1].group = {"U1"};
  EXPECT_EQ(DeclarationError(defender_group).rule_ref, "15.1");

  Script pinned = Basic();
  pinned.situation.units[1].pinned = true;
  EXPECT_EQ(DeclarationError(pinned).rule_ref, "14.7");
}

TEST(VvRules, Rule151OneCloseAssaultFromAHexEachTurnInTheBoardEdition) {
  Script again = Basic();
  again.situation.source_assaulted_this_turn = true;
  const RuleError error = DeclarationError(again);
  EXPECT_EQ(error.rule_ref, "15.1");
  EXPECT_NE(error.message.find("A1 has already assaulted"), std::string::npos) << error.message;
  // VV-AMB-9: the PC text has no such limit.
  again.options.variant = "pc";
  again.declarations[0].leader = "";
  again.declarations[1].leader = "";
  MustPlay(again, {6, 6});
}

TEST(VvRules, Rule152AssaultersUseOnlyLightMachineGunsGrenadesAndSatchels) {
  Script heavy = Basic();
  heavy.situation.units[0].weapons = {Hmg("HMG", 5)};
  heavy.declarations[0].uses = {Use("G1", "HMG")};
  RuleError error = DeclarationError(heavy);
  EXPECT_EQ(error.rule_ref, "15.2");
  EXPECT_NE(error.message.find("Heavy (H)"), std::string::npos);

  // Defenders may use any support weapon: a squad with an HMG adds it (12.3).
  Script defender = Basic();
  defender.situation.units[3].weapons = {Hmg("HMG", 5)};
  defender.declarations[1].uses = {Use("U1", "HMG")};
  const AssaultReport report = ReportOf(MustPlay(defender, {6, 6}));
  EXPECT_EQ(report.defence_apfp, 11);  // 5 + 5 HMG + 1 leader
}

TEST(VvRules, Rule123HalfSquadsWithHeavyAndLeadersWithLightUseTheWeaponOnly) {
  Script script = Basic();
  script.situation.units[2].weapons = {Lmg("LMG", 3)};  // GL
  script.declarations[0].uses = {Use("GL", "LMG")};
  Unit half = HalfSquad("U2", kB, 2, 2);
  half.weapons = {Hmg("HMG", 5)};
  script.situation.units.push_back(half);
  script.declarations[1].uses = {Use("U2", "HMG")};
  const AssaultReport report = ReportOf(MustPlay(script, {6, 6}));
  EXPECT_EQ(report.assault_apfp, 4 + 4 + 3);      // the leader's own 1 is replaced by the LMG
  EXPECT_EQ(report.defence_apfp, 5 + 1 + 5);      // the half squad's own 2 is replaced
}

TEST(VvRules, Rule1252GrenadesOnePerUnitAndTheMatchLimit) {
  Script twice = Basic();
  twice.situation.expendables[0].grenades = 2;
  twice.declarations[0].uses = {Use("G1", "", true), Use("G2", "", true)};
  RuleError error = DeclarationError(twice);
  EXPECT_EQ(error.rule_ref, "12.52");
  EXPECT_NE(error.message.find("grenades_per_assault_max"), std::string::npos);
  // VV-AMB-3: a match may allow more; each counter is -1 to the DR.
  twice.options.values["grenades_per_assault_max"] = "2";
  EXPECT_EQ(ReportOf(MustPlay(twice, {6, 6})).final_dr, 12 - 1 - 2);

  Script none = Basic();
  none.declarations[0].uses = {Use("G1", "", true)};
  EXPECT_EQ(DeclarationError(none).rule_ref, "12.5");  // the pool has no Grenades
  Script same_unit = Basic();
  same_unit.situation.expendables[0].grenades = 2;
  same_unit.declarations[0].uses = {Use("G1", "", true), Use("G1", "", true)};
  EXPECT_EQ(DeclarationError(same_unit).rule_ref, "12.3");
}

TEST(VvRules, Rule1253ASatchelChargeAddsItsApfpButNoSupportWeapon) {
  Script script = Basic();
  script.situation.expendables[0].satchel_charges = 1;
  script.situation.expendables[0].satchel_apfp = 8;
  script.declarations[0].uses = {Use("G1", "", false, true)};
  const Played played = MustPlay(script, {6, 6});
  EXPECT_EQ(ReportOf(played).assault_apfp, 4 + 8 + 4 + 1);
  EXPECT_EQ(played.final_state.expendables[0].satchel_charges, 0);

  Script with_weapon = script;
  with_weapon.situation.units[0].weapons = {Lmg("LMG", 3)};
  with_weapon.declarations[0].uses = {Use("G1", "LMG", false, true)};
  EXPECT_EQ(DeclarationError(with_weapon).rule_ref, "12.53");
}

TEST(VvRules, Rule153OneLeaderEachSideFromTheGroupOrTheHex) {
  Script outside = Basic();
  outside.declarations[0].group = {"G1", "G2"};
  EXPECT_EQ(DeclarationError(outside).rule_ref, "15.3");
  Script not_leader = Basic();
  not_leader.declarations[1].leader = "U1";
  EXPECT_EQ(DeclarationError(not_leader).rule_ref, "15.3");
  // The defending leader's LM 2 comes off the Kill Number: 9 vs 6 -> 1-1, 6 - 2 = 4.
  const AssaultReport report = ReportOf(MustPlay(Basic(), {6, 6}));
  EXPECT_EQ(report.kill_number, 4);
  EXPECT_EQ(report.final_dr, 11);
}

TEST(VvRules, Rule154And155VehiclesAndGunsDefend) {
  Script script = Basic();
  script.situation.units.resize(3);
  Unit unarmed = Vehicle("Truck", kB, UnitKind::kVehicle, 0, 2);
  Unit gun = Vehicle("Gun", kB, UnitKind::kGun, 0, 2);
  gun.carrier = "Truck";
  Unit passengers = Squad("U1", kB, 5, 4, 2, 2);
  passengers.carrier = "Truck";
  script.situation.units.insert(script.situation.units.end(), {unarmed, gun, passengers});
  script.declarations[1] = Declare{};
  const AssaultReport report = ReportOf(MustPlay(script, {6, 6}));
  // 2 for the unarmed truck (15.5), 0 for the Gun it tows, 5 for its passengers (15.4).
  EXPECT_EQ(report.defence_apfp, 7);
  ASSERT_EQ(report.defence.size(), 3u);
  EXPECT_EQ(report.defence[1].apfp, 0);
  EXPECT_NE(report.defence[1].how.find("transported"), std::string::npos);
  // VV-AMB-4: each counts as a defending unit for the assaulter's CP.
  EXPECT_EQ(report.assaulter_cp, 5 + 3);  // DR 11 fails Kill # 6 by 5 (9 vs 7: 1-1), +3 units
}

// 15.9: a hex holding only pinned units is taken without a roll, and the ASSAULT_RESOLVED event
// says the assault succeeded.
TEST(VvRules, Rule159AnAssaultOnOnlyPinnedUnitsSucceeds) {
  Script script;
  script.situation.target.name = "P1";
  Unit pinned = Squad("D1", kB, 4, 4, 2, 2);
  pinned.pinned = true;
  script.situation.units = {Squad("A1", kA, 4, 5, 2, 2), pinned};
  script.declarations[0] = Declare{.group = {"A1"}, .leader = "", .uses = {}};
  const Played played = MustPlay(script, {});
  const AssaultReport report = ReportOf(played);
  EXPECT_TRUE(report.automatic);
  EXPECT_TRUE(report.success) << "15.9: the assaulters take the hex";
  EXPECT_EQ(report.margin, 0);
  EXPECT_TRUE(InTarget(played.final_state, "A1"));
}

TEST(VvRules, Rule162ANatural2ChecksTheWholeGroupForValor) {
  Script script = Basic();
  script.allocations[0] = AllocationOf({Act("G1", CpActionKind::kPin), Act("G2", CpActionKind::kPin)});
  // DR 1+1; valor checks G1 DR 5 <= CR 5 (valorous), G2 DR 7 > 5, GL DR 6 <= 6.
  const Played played = MustPlay(script, {1, 1, 2, 3, 3, 4, 3, 3});
  const AssaultReport report = ReportOf(played);
  ASSERT_EQ(report.valor_checks.size(), 3u);
  EXPECT_TRUE(report.valor_checks[0].valorous);
  EXPECT_FALSE(report.valor_checks[1].valorous);
  EXPECT_TRUE(report.valor_checks[2].valorous);
  EXPECT_TRUE(UnitOf(played.final_state, "G1").valorous);
  EXPECT_FALSE(UnitOf(played.final_state, "G2").valorous);

  script.options.values["valor_check"] = "false";
  EXPECT_TRUE(ReportOf(MustPlay(script, {1, 1})).valor_checks.empty());
}

TEST(VvRules, Rule172ANatural12ActivatesTheDefendersSniper) {
  const Played played = MustPlay(Basic(), {6, 6});
  EXPECT_TRUE(ReportOf(played).sniper_activated);
  Script off = Basic();
  off.options.values["sniper_check"] = "false";
  EXPECT_FALSE(ReportOf(MustPlay(off, {6, 6})).sniper_activated);
}

TEST(VvRules, AmbiguitySixSurvivorsAdvanceWhenTheDefendersAreWipedOut) {
  Script script = Basic();
  script.situation.units[3] = HalfSquad("U1", kB, 5, 2);
  script.situation.units[4] = Leader("UL", kB, 1, 1, 1);
  script.declarations[1].leader = "UL";
  // 9 vs 6 -> 1-1, Kill # 5; DR 9 -1 = 8 fails by 3. The defenders' 3 CP: HS 2 + leader 1.
  script.allocations[1] = AllocationOf({Act("U1", CpActionKind::kEliminate),
                                    Act("UL", CpActionKind::kEliminate)});
  const Played played = MustPlay(script, {4, 5});
  EXPECT_FALSE(ReportOf(played).success);
  EXPECT_TRUE(InTarget(played.final_state, "G1"));
  script.options.values["advance_after_failed_wipeout"] = "false";
  EXPECT_FALSE(InTarget(MustPlay(script, {4, 5}).final_state, "G1"));
}

TEST(VvRules, Rule205ABunkerHoldsTwoAndTheAssaulterChoosesWho) {
  Script script = Basic();
  script.situation.target.fortification_cover = 3;
  script.situation.target.capacity = 2;
  script.declarations[1].leader = "";
  // 9 vs 6: 1-1, Kill # 6; DR 4. CP: 3 bunker + 2 units = 5: eliminate G1.
  Allocation allocation = AllocationOf({Act("G1", CpActionKind::kEliminate)});
  allocation.occupy = {"GL", "G2"};
  script.allocations[0] = allocation;
  const Played played = MustPlay(script, {2, 2});
  EXPECT_TRUE(InTarget(played.final_state, "GL"));
  EXPECT_TRUE(InTarget(played.final_state, "G2"));

  script.allocations[0]->occupy = {"G2"};
  EXPECT_EQ(MustFail(script, {2, 2}).rule_ref, "20.5");
  // VV-AMB-5: the fortification's cover may be left out of the CP.
  script.options.values["cp_count_fortification"] = "false";
  script.allocations[0] = AllocationOf({Act("G1", CpActionKind::kReduce)});  // 2 units: 3 >= 2
  EXPECT_EQ(ReportOf(MustPlay(script, {2, 2})).assaulter_cp, 2);
}

TEST(VvRules, OptionsAreCheckedAndNamed) {
  const VvRules rules;
  EXPECT_EQ(rules.NewState({.variant = "deluxe", .values = {}}).error().message,
            "unknown vv variant 'deluxe' (known: board, pc)");
  EXPECT_NE(rules.NewState({.variant = "", .values = {{"mystery", "1"}}}).error().message.find(
                "unknown vv option 'mystery'"),
            std::string::npos);
  EXPECT_EQ(rules.NewState({.variant = "", .values = {{"valor_check", "yes"}}}).error().message,
            "option valor_check: 'yes' is not true or false");
  const State pc = *rules.NewState({.variant = "pc", .values = {}});
  EXPECT_FALSE(pc.options.afv_cp_cap);
  EXPECT_FALSE(pc.options.one_assault_per_hex);
  const State board = *rules.NewState({.variant = "board", .values = {}});
  EXPECT_TRUE(board.options.afv_cp_cap);
}

TEST(VvRules, SituationErrorsNameTheUnitAndField) {
  Script twice = Basic();
  twice.situation.units[1].id = "G1";
  EXPECT_EQ(MustFail(twice, {}).message,
            "the set-up of side_a: situation.units[1].id: 'G1' is used twice");
  Script no_defender = Basic();
  no_defender.situation.units.resize(3);
  EXPECT_EQ(MustFail(no_defender, {}).rule_ref, "15.1");
  Script bad_reduced = Basic();
  bad_reduced.situation.units[0].reduced_casualty_rating = 5;
  EXPECT_EQ(MustFail(bad_reduced, {}).rule_ref, "14.61");
}

TEST(VvRules, SealedDeclarationsAndAllocationsStayHiddenUntilRevealed) {
  const VvRules rules;
  const Script script = Basic();
  State state = *rules.NewState(script.options);
  ScriptedDice dice({6, 6});
  const auto run = [&](Seat seat, const Command& command) {
    auto events = rules.Decide(state, seat, command, dice);
    ASSERT_TRUE(events.has_value()) << Describe(events.error());
    for (const Event& event : *events) rules.Apply(state, event);
  };
  run(kA, vv::SetUp{script.situation});
  run(kA, script.declarations[0]);
  EXPECT_TRUE(rules.MakeView(state, Viewer::kSideA).declarations[0].has_value());
  for (Viewer viewer : {Viewer::kSideB, Viewer::kSpectator, Viewer::kDirector}) {
    const View view = rules.MakeView(state, viewer);
    EXPECT_FALSE(view.declarations[0].has_value());
    EXPECT_TRUE(view.has_sealed[0]);
  }
  // A second seal, or a command out of turn, is refused.
  ScriptedDice none({});
  EXPECT_FALSE(rules.Decide(state, kA, script.declarations[0], none).has_value());
  EXPECT_EQ(rules.Decide(state, kB, vv::Allocate{}, none).error().rule_ref, "14.61");
  run(kB, script.declarations[1]);
  EXPECT_TRUE(rules.MakeView(state, Viewer::kSpectator).declarations[0].has_value());
  ASSERT_EQ(state.phase, Phase::kAllocate);  // 12 fails: both sides owe Casualty Points
  EXPECT_TRUE(state.owes[0] && state.owes[1]);
  run(kB, vv::Allocate{AllocationOf({Act("U1", CpActionKind::kReduceAndPin)})});  // 3 units: 2 + 1
  EXPECT_FALSE(rules.MakeView(state, Viewer::kSideA).allocations[1].has_value());
  EXPECT_TRUE(rules.MakeView(state, Viewer::kSideB).allocations[1].has_value());
}

TEST(VvRules, DefaultDeclarationsCallTheAssaultOffOrDefendWithEverything) {
  Script script = Basic();
  script.situation.units[3].weapons = {Lmg("LMG", 3), Hmg("HMG", 5)};
  const State state = testing::SetUpState(script);
  EXPECT_TRUE(DefaultDeclaration(state, kA).group.empty());
  const Declare defence = DefaultDeclaration(state, kB);
  EXPECT_EQ(defence.leader, "UL");
  EXPECT_EQ(defence.uses, (std::vector<UnitUse>{Use("U1", "HMG")}));
  EXPECT_TRUE(ValidateDeclaration(state, kB, defence));
}

// VV-AMB-13: the engine's allocation is always one the rules accept — for a small stack the
// cheapest (searched), for a large one a greedy fallback once the search gives up.
TEST(VvRules, TheEnginesAllocationIsAlwaysLegal) {
  for (int squads : {2, 6, 12, 30}) {
    Script script;
    script.situation.target.name = "Big";
    script.situation.target.terrain_cover = 3;
    for (int i = 0; i < squads; ++i) {
      const std::string id = "A" + std::to_string(i);
      script.situation.units.push_back(Squad(id, kA, 1, 5, 1, 2));
      script.declarations[0].group.push_back(id);
    }
    for (int i = 0; i < squads; ++i) {
      script.situation.units.push_back(Squad("D" + std::to_string(i), kB, 9, 4, 4, 2));
    }
    // 1-4 (Kill # 3), DR 12: fails by 9; the assaulter suffers 9 + 3 + squads.
    const State state = testing::AwaitingAllocation(script, {6, 6});
    for (Seat seat : {kA, kB}) {
      const Allocation allocation = AutoAllocation(state, seat);
      const auto legal = ValidateAllocation(state, seat, allocation);
      EXPECT_TRUE(legal) << squads << " squads, " << Name(seat) << ": "
                         << (legal ? "" : Describe(legal.error()));
    }
  }
}

TEST(VvPreview, VvT1ExactOddsAndCasualtyPointDistributions) {
  Script script;
  script.situation.target.name = "C1";
  script.situation.target.terrain_cover = 3;
  Unit us_half = HalfSquad("US-HS", kB, 2, 2);
  us_half.weapons = {Lmg("LMG", 3)};
  script.situation.units = {Squad("G1", kA, 4, 5, 2, 2), Squad("G2", kA, 4, 5, 2, 2),
                            Squad("G3", kA, 4, 5, 2, 2), Leader("Schmidt", kA, 1, 1, 1),
                            us_half, Squad("US-SQ", kB, 5, 4, 2, 2),
                            Leader("Coleman", kB, 1, 1, 1)};
  script.situation.expendables[0].grenades = 1;
  const State state = testing::SetUpState(script);
  const Declare german{.group = {"G1", "G2", "G3", "Schmidt"}, .leader = "Schmidt",
                       .uses = {Use("G1", "", true)}};
  const Declare american{.group = {}, .leader = "Coleman", .uses = {Use("US-HS", "LMG")}};
  const auto preview = PreviewAssault(state, german, american);
  ASSERT_TRUE(preview.has_value()) << Describe(preview.error());
  EXPECT_EQ(preview->odds, Odds::k1to1);
  EXPECT_EQ(preview->kill_number, 5);
  EXPECT_EQ(preview->dr_modifier, -2);
  EXPECT_EQ(preview->success, Rational(21, 36));  // DR <= 7
  // Success: 6 CP. Failure by m = DR - 7: 6 + m.
  ASSERT_EQ(preview->assaulter_cp.size(), 12u);
  EXPECT_EQ(preview->assaulter_cp[6], Rational(21, 36));
  EXPECT_EQ(preview->assaulter_cp[7], Rational(5, 36));
  EXPECT_EQ(preview->assaulter_cp[11], Rational(1, 36));
  EXPECT_EQ(preview->defender_cp[0], Rational(21, 36));
  EXPECT_EQ(preview->defender_cp[4], Rational(15, 36));
  Rational total;
  for (const Rational& p : preview->assaulter_cp) total = total + p;
  EXPECT_EQ(total, Rational(1));
  // A declaration the rules refuse is refused by the preview too.
  EXPECT_EQ(PreviewAssault(state, Declare{.group = {"G1"}, .leader = "Coleman", .uses = {}},
                           american)
                .error()
                .rule_ref,
            "15.3");
}

TEST(VvDeterminism, TheSameDiceGiveTheSameEvents) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Script script = Basic();
    script.situation.units[3].weapons = {Lmg("LMG", 3)};
    script.declarations[1].uses = {Use("U1", "LMG")};
    SplitMix64 first_source(seed);
    SplitMix64 second_source(seed);
    SourceDice first(first_source);
    SourceDice second(second_source);
    const auto a = Play(VvRules{}, script, first);
    const auto b = Play(VvRules{}, script, second);
    ASSERT_TRUE(a.has_value()) << seed << ": " << Describe(a.error());
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(a->events, b->events);
    EXPECT_EQ(a->final_state.phase, Phase::kEnded);
    // Every allocation the engine made itself was legal, and every die is in an event.
    size_t rolls = 0;
    for (const Event& event : a->events) rolls += event.rolls.size();
    EXPECT_GE(rolls, 2u);
  }
}

}  // namespace
}  // namespace melee::engine::vv
