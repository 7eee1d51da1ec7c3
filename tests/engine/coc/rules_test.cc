// One test (or more) per rule of Chain of Command 17 and per option of the coc ruleset.

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "engine/core/registry.h"
#include "tests/engine/coc/fixtures.h"

namespace melee::engine::coc {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): test fixtures

Unit Attacker(std::string id, int figures) {
  return MakeUnit(id, kA, Role::kAttacker, {MakeTeam(id + "1", figures)});
}
Unit Defender(std::string id, int figures) {
  return MakeUnit(id, kB, Role::kDefender, {MakeTeam(id + "1", figures)});
}

RuleError SetUpError(const Situation& situation, MatchOptions options = {}) {
  const CocRules rules;
  auto state = rules.NewState(options);
  EXPECT_TRUE(state.has_value());
  ScriptedDice dice({});
  auto events = rules.Decide(*state, kA, SetUp{situation}, dice);
  EXPECT_FALSE(events.has_value());
  return events ? RuleError{} : events.error();
}

RuleError DeclareError(const State& state, Seat seat, const Declare& declare) {
  auto ok = ValidateDeclaration(state, seat, declare);
  EXPECT_FALSE(ok.has_value());
  return ok ? RuleError{} : ok.error();
}

bool HasNote(const Event& event, std::string_view text) {
  return std::any_of(event.notes.begin(), event.notes.end(), [&](const std::string& note) {
    return note.find(text) != std::string::npos;
  });
}

// ---- 17.1 -----------------------------------------------------------------------------------

TEST(Coc17_1, NoCloseCombatAcrossAMajorObstacle) {
  Situation situation = Contact({Attacker("a", 4)}, Defender("d", 4));
  situation.obstacle = Obstacle::kMajor;
  EXPECT_EQ(SetUpError(situation).rule_ref, "17.1");
}

TEST(Coc17_1, VehiclesNeverFightInCloseCombat) {
  Situation situation = Contact({Vehicle("tank", kA, Role::kAttacker, 2)}, Defender("d", 4));
  const RuleError error = SetUpError(situation);
  EXPECT_EQ(error.rule_ref, "17.1");
  EXPECT_NE(error.message.find("vehicle"), std::string::npos);
}

TEST(Coc17_1, CloseCombatIsAutomaticAcrossAMinorObstacle) {
  Situation situation = Contact({Attacker("a", 4)}, Defender("d", 4));
  situation.obstacle = Obstacle::kMinor;
  const State state = SetUpState(situation);
  EXPECT_FALSE(Optional(state.situation));
  EXPECT_EQ(DeclareError(state, kA, Declare{.engage = false}).rule_ref, "17.1");
}

TEST(Coc17_1, TheActivePlayerMayDeclineAcrossAMediumObstacleOrAroundACorner) {
  for (Obstacle obstacle : {Obstacle::kMedium, Obstacle::kPathAround}) {
    Situation situation = Contact({Attacker("a", 4)}, Defender("d", 4));
    situation.obstacle = obstacle;
    State state = SetUpState(situation);
    EXPECT_TRUE(Optional(state.situation));
    EXPECT_EQ(DeclareError(state, kB, Declare{.engage = false}).rule_ref, "17.1");
    ScriptedDice dice({});
    Act(state, kA, Declare{.engage = false}, dice);
    const std::vector<Event> events = Act(state, kB, Declare{}, dice);
    EXPECT_EQ(state.phase, Phase::kEnded);
    EXPECT_TRUE(state.outcomes.empty());
    EXPECT_TRUE(HasNote(events.back(), "chose not to fight"));
  }
}

// ---- 17.6 -----------------------------------------------------------------------------------

TEST(Coc17_6, AnAttackerOutsideEngagesOnlyTheGroundFloor) {
  Situation situation = Contact({Attacker("a", 4)}, Defender("d", 4));
  situation.position = Position::kBuildingUpperFromOutside;
  EXPECT_EQ(SetUpError(situation).rule_ref, "17.6");
  situation.position = Position::kBunkerNoEntrance;
  EXPECT_EQ(SetUpError(situation).rule_ref, "17.6");
}

TEST(Coc17_6, CoverFollowsTheFloorAndTheBunker) {
  Situation situation = Contact({Attacker("a", 9)}, Defender("d", 4));
  situation.position = Position::kBuildingOtherFloor;
  EXPECT_EQ(CombatDice(SetUpState(situation), kA, {0}, {}, 1).dice, 6);  // Light: floor(18/3)
  situation.position = Position::kBuildingSameFloor;
  EXPECT_EQ(CombatDice(SetUpState(situation), kA, {0}, {}, 1).dice, 9);  // no advantage
  situation.position = Position::kBuildingFromOutside;
  EXPECT_EQ(CombatDice(SetUpState(situation), kA, {0}, {}, 1).dice, 4);  // Hard
  // A bunker is Hard Cover and never counts as hit in the rear.
  situation.position = Position::kBunkerEntrance;
  situation.units[1].hit_in_rear = true;
  EXPECT_EQ(CombatDice(SetUpState(situation), kB, {0}, {}, 1).dice, 4);
  situation.position = Position::kOpen;
  EXPECT_EQ(CombatDice(SetUpState(situation), kB, {0}, {}, 1).dice, 2);
}

TEST(Coc17_6, ThePositionSetsTheCoverAlone) {
  Situation situation = Contact({Attacker("a", 4)}, Defender("d", 4));
  situation.position = Position::kBuildingFromOutside;
  situation.cover = Cover::kLight;
  EXPECT_EQ(SetUpError(situation).rule_ref, "17.6");
}

// ---- 17.2 -----------------------------------------------------------------------------------

TEST(Coc17_2, SeveralUnitsFightTogetherWithOnePool) {
  const State state = SetUpState(Contact({Attacker("a", 4), Attacker("b", 5)}, Defender("d", 4)));
  EXPECT_EQ(CombatDice(state, kA, {0, 1}, {}, 1).dice, 9);
}

TEST(Coc17_2, InSequenceTheNextUnitFightsOnlyWhileTheDefenderHolds) {
  State state = SetUpState(Contact({Attacker("a", 2), Attacker("b", 5)}, Defender("d", 6)));
  ScriptedDice dice({1, 1,                // a: 2 misses
                     5, 1, 1, 1, 1, 1,    // d: 1 Shock; a loses by 1 and retreats 6"
                     5, 5, 5, 1, 1,       // b: 3 Shock
                     1, 1, 1, 1, 1, 1});  // d: no hit; b wins by 3
  Act(state, kA, Declare{.together = false, .sequence = {"a", "b"}}, dice);
  EXPECT_EQ(DeclareError(state, kA, Declare{}).rule_ref, "17.2");  // already sealed
  Act(state, kB, Declare{}, dice);
  ASSERT_EQ(state.combats.size(), 2u);
  ASSERT_EQ(state.outcomes.size(), 2u);
  EXPECT_EQ(state.outcomes[0].winner, kB);
  EXPECT_EQ(state.outcomes[1].kind, OutcomeKind::kDefeated);
  EXPECT_EQ(state.outcomes[1].winner, kA);
  EXPECT_EQ(state.phase, Phase::kEnded);
  EXPECT_EQ(dice.remaining(), 0u);
  State listed = SetUpState(Contact({Attacker("a", 2), Attacker("b", 5)}, Defender("d", 6)));
  EXPECT_EQ(DeclareError(listed, kA, Declare{.together = false, .sequence = {"b"}}).rule_ref,
            "17.2");
  EXPECT_EQ(DeclareError(listed, kA, Declare{.together = true, .sequence = {"a", "b"}}).rule_ref,
            "17.2");
}

TEST(Coc17_2, AWinningFirstAttackerEndsTheSequence) {
  State state = SetUpState(Contact({Attacker("a", 6), Attacker("b", 5)}, Defender("d", 4)));
  ScriptedDice dice({5, 5, 1, 1, 1, 1, 1, 1, 1, 1});  // a wins by 2
  Act(state, kA, Declare{.together = false, .sequence = {}}, dice);
  const std::vector<Event> events = Act(state, kB, Declare{}, dice);
  ASSERT_EQ(state.outcomes.size(), 1u);
  EXPECT_EQ(state.outcomes[0].winner, kA);
  EXPECT_EQ(state.phase, Phase::kEnded);
  EXPECT_TRUE(HasNote(events.back(), "no longer holds its ground"));
}

TEST(Coc17_2, OnlyFiguresWithLineOfSightGiveSupportingFire) {
  Unit blind = MakeUnit("s", kB, Role::kSupport, {MakeTeam("s1", 5)});
  const State state = SetUpState(Contact({Attacker("a", 4)}, Defender("d", 4), {blind}));
  const RuleError error = DeclareError(state, kB, Declare{.support = {"s"}});
  EXPECT_EQ(error.rule_ref, "17.2");
  EXPECT_NE(error.message.find("Line of Sight"), std::string::npos);
  EXPECT_EQ(DeclareError(state, kA, Declare{.support = {"s"}}).rule_ref, "17.2");
  EXPECT_EQ(DeclareError(state, kB, Declare{.support = {"a"}}).rule_ref, "17.2");
  EXPECT_EQ(DeclareError(state, kB, Declare{.together = false}).rule_ref, "17.2");
}

TEST(Coc17_2, TheSupportingOptionsAreData) {
  Unit support = MakeUnit("s", kB, Role::kSupport, {MakeTeam("s1", 5)});
  support.support_firepower = 4;
  const Situation situation = Contact({Attacker("a", 4)}, Defender("d", 4), {support});
  const State none = SetUpState(situation, MatchOptions{.variant = "", .values = {{"supporting_options", "none"}}});
  EXPECT_NE(DeclareError(none, kB, Declare{.support = {"s"}}).message.find("supporting_options"),
            std::string::npos);
  EXPECT_TRUE(DefaultDeclaration(none, kB).support.empty());
  const State open = SetUpState(situation);
  EXPECT_TRUE(ValidateDeclaration(open, kB, Declare{.support = {"s"}}).has_value());
  EXPECT_EQ(DefaultDeclaration(open, kB).support, std::vector<std::string>{"s"});
  const CocRules rules;
  auto join = rules.NewState(MatchOptions{.variant = "", .values = {{"supporting_options", "supporting_fire,join"}}});
  ASSERT_FALSE(join.has_value());
  EXPECT_NE(join.error().message.find("not supported: 17.2"), std::string::npos);
}

// ---- 17.3 -----------------------------------------------------------------------------------

TEST(Coc17_3, EliteAddsTwoMachineGunsInTheArcAndSuppressingFireAdd) {
  Unit attacker = Attacker("a", 4);
  attacker.through_arcs = {"d_mmg"};
  attacker.through_suppressing_fire = {"d_lmg"};
  Team mmg = MakeTeam("d_mmg", 3);
  mmg.mmgs = 1;
  Team lmg = MakeTeam("d_lmg", 3);
  lmg.lmgs = 1;
  Unit defender = MakeUnit("d", kB, Role::kDefender, {mmg, lmg});
  defender.quality = Quality::kElite;
  const State state = SetUpState(Contact({attacker}, defender));
  // 6 figures, +2 Elite, +4 MMG arc, +3 Suppressing Fire.
  EXPECT_EQ(Totals(CombatDice(state, kB, {0}, {}, 1)), (std::vector<int>{6, 8, 12, 15}));
  // After the first round the arc counts no more; Suppressing Fire does.
  EXPECT_EQ(Totals(CombatDice(state, kB, {0}, {}, 2)), (std::vector<int>{6, 8, 11}));
}

TEST(Coc17_3, HitInTheRearAndPinnedHalve) {
  Unit attacker = MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 4, 5)});  // Pinned: 5 > 4
  Unit defender = Defender("d", 9);
  defender.hit_in_rear = true;
  const State state = SetUpState(Contact({attacker}, defender));
  EXPECT_EQ(Totals(CombatDice(state, kA, {0}, {}, 1)), (std::vector<int>{4, 2, 1}));
  EXPECT_EQ(Totals(CombatDice(state, kB, {0}, {}, 1)), (std::vector<int>{9, 4}));
  EXPECT_EQ(CombatDice(state, kB, {0}, {}, 2).dice, 9);  // the rear counts in round 1 only
}

TEST(Coc17_3, TheTotalIsNeverBelowZero) {
  Unit green = MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 4, 3)});  // 4 -2 -3
  green.quality = Quality::kGreen;
  const State state = SetUpState(Contact({green}, Defender("d", 4)));
  const Pool pool = CombatDice(state, kA, {0}, {}, 1);
  EXPECT_EQ(pool.dice, 0);
  EXPECT_EQ(pool.rows.back().rule, "CoC-AMB-12");
}

// ---- 17.4.1 ---------------------------------------------------------------------------------

TEST(Coc17_4_1, KillsBeyondATeamsFiguresGoToItsOtherTeams) {
  State state = SetUpState(Contact(
      {Attacker("a", 8)}, MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 1), MakeTeam("d2", 5)})));
  ScriptedDice dice({6, 6, 6, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  // 4 Kills: 2 each
                     6});  // won by 4, no Leader: surrender and a Force Morale test
  Act(state, kA, Declare{}, dice);
  Act(state, kB, Declare{}, dice);
  EXPECT_EQ(state.units[1].teams[0].figures, 0);
  EXPECT_EQ(state.units[1].teams[1].figures, 2);  // 2 + the Kill d1 could not take
}

TEST(Coc17_4_1, SupportingUnitsNeverSufferHits) {
  Unit support = MakeUnit("s", kB, Role::kSupport, {MakeTeam("s1", 5)});
  support.support_firepower = 2;
  State state = SetUpState(Contact({Attacker("a", 6)}, Defender("d", 3), {support}));
  ScriptedDice dice({6, 5, 1, 1, 1, 1, 1, 1, 1, 1});  // 6 vs 3 + 1 support
  Act(state, kA, Declare{}, dice);
  Act(state, kB, Declare{.support = {"s"}}, dice);
  EXPECT_EQ(state.units[2].teams[0].figures, 5);
  EXPECT_EQ(state.units[1].teams[0].figures, 2);
}

// ---- 17.5 -----------------------------------------------------------------------------------

TEST(Coc17_5, DefeatedByThreeRetreats12FacingAwayWithTwoShock) {
  State state = SetUpState(Contact({Attacker("a", 5)}, Defender("d", 5)));
  ScriptedDice dice({5, 5, 5, 1, 1, 1, 1, 1, 1, 1});
  Act(state, kA, Declare{.advance = true}, dice);
  const std::vector<Event> events = Act(state, kB, Declare{}, dice);
  ASSERT_EQ(state.outcomes.size(), 1u);
  EXPECT_EQ(state.outcomes[0].retreat_inches, 12);
  EXPECT_TRUE(state.outcomes[0].facing_away);
  EXPECT_EQ(state.units[1].teams[0].shock, 3 + 2);
  const Event* ended = Find(events, EventKind::kRoundEnded);
  EXPECT_TRUE(std::any_of(ended->effects.begin(), ended->effects.end(),
                          [](const Effect& e) { return e.kind == EffectKind::kAdvanced; }));
}

TEST(Coc17_5, DefeatedByFourWithOnlyAStunnedLeaderSurrendersAndTheLeaderIsCaptured) {
  Unit defender = MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 8)},
                           {Junior("d_jl", LeaderStatus::kStunned)});
  State state = SetUpState(Contact({Attacker("a", 8)}, defender),
                           MatchOptions{.variant = "", .values = {{"prisoners_guard_ratio", "3"}}});
  ScriptedDice dice({5, 5, 5, 5, 1, 1, 1, 1,  // 4 Shock
                     1, 1, 1, 1, 1, 1, 1, 1,  // none
                     3, 3});                  // Force Morale: Leader captured, Unit wiped out
  Act(state, kA, Declare{}, dice);
  const std::vector<Event> events = Act(state, kB, Declare{}, dice);
  const Event* ended = Find(events, EventKind::kRoundEnded);
  ASSERT_NE(ended, nullptr);
  EXPECT_EQ(ended->outcome->kind, OutcomeKind::kSurrendered);
  ASSERT_EQ(ended->morale.size(), 2u);
  EXPECT_EQ(ended->morale[0].cause, "leader_captured");
  EXPECT_EQ(ended->morale[1].cause, "unit_wiped_out");
  EXPECT_EQ(state.units[1].leaders[0].status, LeaderStatus::kCaptured);
  // 9 prisoners (8 men and the Leader), 1 guard per 3 (option): 3 guards leave with them.
  EXPECT_EQ(state.units[0].teams[0].figures, 5);
  EXPECT_TRUE(state.gone[1]);
}

TEST(Coc17_5, DefeatedByFourWithAnActiveLeaderBreaks) {
  State state = SetUpState(Contact(
      {Attacker("a", 8)}, MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 8)}, {Junior("jl")})));
  ScriptedDice dice({5, 5, 5, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                     4});  // Force Morale for Breaking
  Act(state, kA, Declare{}, dice);
  Act(state, kB, Declare{}, dice);
  ASSERT_EQ(state.outcomes.size(), 1u);
  EXPECT_EQ(state.outcomes[0].kind, OutcomeKind::kBroken);
  EXPECT_EQ(state.units[1].teams[0].shock, 4 + 3);
  EXPECT_TRUE(state.units[1].broken);
}

TEST(Coc17_5_1, KillsOnALeadersTeamCheckForHitsOnTheLeaderWithThePlaceholderTable) {
  Unit defender = MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 6)}, {Junior("jl")});
  State state = SetUpState(Contact({Attacker("a", 6)}, defender));
  ScriptedDice dice({6, 1, 1, 1, 1, 1,     // 1 Kill on d1
                     5, 1, 1, 1, 1, 1, 1, 1,  // d: 6 + 2 Orders, 1 Shock
                     6, 3,                 // the Leader is hit (6), effect 3: wounded
                     1, 1, 1, 1, 1, 1,     // round 2 (a draw in round 1): a 6 - 0
                     1, 1, 1, 1, 1, 1});   // d: 5 figures + 1 Order (wounded)
  Act(state, kA, Declare{}, dice);
  const std::vector<Event> events = Act(state, kB, Declare{}, dice);
  const Event* ended = Find(events, EventKind::kRoundEnded);
  ASSERT_NE(ended, nullptr);
  EXPECT_TRUE(HasNote(*ended, "hits on Leaders use the placeholder table"));
  EXPECT_EQ(state.units[1].leaders[0].status, LeaderStatus::kWounded);
  // The wounded Leader gives one Order in round 2: 5 figures + 1.
  std::vector<const Event*> rounds;
  for (const Event& event : events) {
    if (event.kind == EventKind::kRoundRolled) rounds.push_back(&event);
  }
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_EQ(rounds[0]->report->pools[1].dice, 8);
  EXPECT_EQ(rounds[1]->report->pools[1].dice, 6);
  EXPECT_EQ(dice.remaining(), 0u);
}

TEST(Coc17_5_4, SupportingUnitsWithdrawWithTheLosersAndTakeTheirShock) {
  Unit support = MakeUnit("s", kB, Role::kSupport, {MakeTeam("s1", 4)});
  support.support_firepower = 2;
  State state = SetUpState(Contact({Attacker("a", 6)}, Defender("d", 4), {support}));
  ScriptedDice dice({5, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1});  // 6 vs 4 + 1: a wins by 2
  Act(state, kA, Declare{}, dice);
  const std::vector<Event> events = Act(state, kB, Declare{.support = {"s"}}, dice);
  const Event* ended = Find(events, EventKind::kRoundEnded);
  ASSERT_NE(ended, nullptr);
  EXPECT_TRUE(std::any_of(ended->effects.begin(), ended->effects.end(), [](const Effect& e) {
    return e.kind == EffectKind::kWithdrew && e.team.unit == 2;
  }));
  EXPECT_EQ(state.units[2].teams[0].shock, 1);
}

TEST(Coc17_5_5, ACrewedWeaponObligedToWithdrawIsAbandoned) {
  Team crew = MakeTeam("mmg", 3);
  crew.crewed_weapon = true;
  State state = SetUpState(Contact({Attacker("a", 6)}, MakeUnit("d", kB, Role::kDefender, {crew})));
  ScriptedDice dice({5, 1, 1, 1, 1, 1, 1, 1, 1,  // a wins by 1
                     2});                         // Force Morale: Support Unit lost
  Act(state, kA, Declare{}, dice);
  const std::vector<Event> events = Act(state, kB, Declare{}, dice);
  EXPECT_TRUE(state.gone[1]);
  const Event* ended = Find(events, EventKind::kRoundEnded);
  ASSERT_EQ(ended->morale.size(), 1u);
  EXPECT_EQ(ended->morale[0].cause, "support_unit_lost");
  EXPECT_EQ(state.force_morale[1], 8);
}

TEST(Coc17_5_2, StormOfSteelIsAPlaceholderThatCanRerollOnes) {
  Unit aggressive = Attacker("a", 2);
  aggressive.aggressive = true;
  const Situation situation = Contact({aggressive}, Defender("d", 6));
  State none = SetUpState(situation);
  ScriptedDice dice({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  Act(none, kA, Declare{}, dice);
  const std::vector<Event> plain = Act(none, kB, Declare{}, dice);
  const RoundReport& report = *Find(plain, EventKind::kRoundRolled)->report;
  EXPECT_TRUE(std::any_of(report.notes.begin(), report.notes.end(), [](const std::string& n) {
    return n.find("Storm of Steel") != std::string::npos && n.find("'none'") != std::string::npos;
  }));

  State reroll = SetUpState(situation, MatchOptions{.variant = "", .values = {{"storm_of_steel", "reroll_ones"}}});
  ScriptedDice dice2({1, 1, 6, 6,  // a rolls 1 1, rerolls both to 6 6
                      1, 1, 1, 1, 1, 1});  // d: no hit; a wins by 2
  Act(reroll, kA, Declare{}, dice2);
  const std::vector<Event> events = Act(reroll, kB, Declare{}, dice2);
  const RoundReport& rerolled = *Find(events, EventKind::kRoundRolled)->report;
  EXPECT_EQ(rerolled.faces[0], (std::vector<int>{6, 6}));
  EXPECT_EQ(rerolled.kills[0], 2);
}

// ---- secrecy, defaults, options ---------------------------------------------------------------

TEST(CocRulesTest, ASealedDeclarationIsHiddenUntilBothAreRevealed) {
  State state = SetUpState(Contact({Attacker("a", 4)}, Defender("d", 4)));
  ScriptedDice dice({});
  Act(state, kA, Declare{.advance = true}, dice);
  const CocRules rules;
  EXPECT_TRUE(rules.MakeView(state, Viewer::kSideA).declarations[0].has_value());
  for (Viewer viewer : {Viewer::kSideB, Viewer::kSpectator, Viewer::kDirector}) {
    const View view = rules.MakeView(state, viewer);
    EXPECT_FALSE(view.declarations[0].has_value()) << Name(viewer);
    EXPECT_TRUE(view.has_sealed[0]);
  }
}

TEST(CocRulesTest, ASealedPlacementIsHiddenUntilBothAreRevealed) {
  State state = SetUpState(Contact({MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 3), MakeTeam("a2", 3)})},
                                   MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 3), MakeTeam("d2", 3)})));
  ScriptedDice dice({6, 1, 1, 1, 1, 1, 5, 1, 1, 1, 1, 1});  // one odd Kill, one odd Shock
  Act(state, kA, Declare{}, dice);
  Act(state, kB, Declare{}, dice);
  ASSERT_TRUE(state.owes[0] && state.owes[1]);
  Act(state, kB, Place{.odd_kills = {"d2"}, .odd_shock = {}}, dice);
  const CocRules rules;
  EXPECT_TRUE(rules.MakeView(state, Viewer::kSideB).placements[1].has_value());
  EXPECT_FALSE(rules.MakeView(state, Viewer::kSideA).placements[1].has_value());
  EXPECT_FALSE(rules.MakeView(state, Viewer::kDirector).placements[1].has_value());
  EXPECT_EQ(DefaultPlacement(state, kA).odd_shock, std::vector<std::string>{"a1"});
}

TEST(CocRulesTest, OptionsAreCheckedAndNamed) {
  const CocRules rules;
  const auto error = [&](std::string key, std::string value) {
    auto state = rules.NewState(MatchOptions{.variant = "", .values = {{key, value}}});
    return state ? std::string() : state.error().message;
  };
  EXPECT_NE(error("bogus", "1").find("unknown coc option 'bogus'"), std::string::npos);
  EXPECT_NE(error("leader_hit_on", "7").find("leader_hit_on"), std::string::npos);
  EXPECT_NE(error("leader_hit_effects", "killed").find("six values"), std::string::npos);
  EXPECT_NE(error("overrun_hit_effects", "none,none,none,shock,shock,boom").find("'boom'"),
            std::string::npos);
  EXPECT_NE(error("declaration_order", "attacker_first").find("not supported"), std::string::npos);
  EXPECT_EQ(error("max_rounds", "3"), "");
  EXPECT_FALSE(rules.NewState(MatchOptions{.variant = "1e", .values = {}}).has_value());
}

TEST(CocRulesTest, TheRegistryHoldsCoc) {
  const Registry registry = BuiltinRegistry();
  auto coc = registry.Find("coc");
  ASSERT_TRUE(coc.has_value());
  EXPECT_EQ((*coc)->version(), "coc17-1");
}

// ---- preview --------------------------------------------------------------------------------

TEST(CocPreviewTest, OneDieAgainstOneIsComputedExactly) {
  auto preview = PreviewPools(1, 1);
  ASSERT_TRUE(preview.has_value());
  EXPECT_EQ(preview->attacker_wins.exact, "2/9");
  EXPECT_EQ(preview->draw.exact, "5/9");
  EXPECT_EQ(preview->defender_wins.exact, "2/9");
  EXPECT_EQ(preview->lowest_margin, -1);
  ASSERT_EQ(preview->margin.size(), 3u);
  EXPECT_EQ(preview->margin[2].exact, "2/9");
}

TEST(CocPreviewTest, MatchesAnEnumerationOfEveryFace) {
  // 3 dice against 2: all 6^5 faces.
  std::vector<int> counts(6, 0);  // margin -2..3
  for (int n = 0; n < 7776; ++n) {
    int rest = n;
    int margin = 0;
    for (int die = 0; die < 5; ++die) {
      const int face = rest % 6 + 1;
      rest /= 6;
      if (face >= 5) margin += die < 3 ? 1 : -1;
    }
    ++counts[static_cast<size_t>(margin + 2)];
  }
  auto preview = PreviewPools(3, 2);
  ASSERT_TRUE(preview.has_value());
  for (size_t k = 0; k < counts.size(); ++k) {
    const int divisor = std::gcd(counts[k], 7776);
    EXPECT_EQ(preview->margin[k].exact,
              std::to_string(counts[k] / divisor) + "/" + std::to_string(7776 / divisor))
        << k;
  }
  EXPECT_EQ(PreviewPools(1, 1)->attacker_wins.hundredths_percent, 2222);  // 2/9 = 22.22%
  EXPECT_FALSE(PreviewPools(50, 31).has_value());
  EXPECT_EQ(PreviewPools(8, 2)->overwhelmed, kB);
}

// ---- determinism ----------------------------------------------------------------------------

TEST(CocDeterminismTest, TwoHundredSeedsReplayAndRefoldIdentically) {
  const CocRules rules;
  Unit attacker = MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 4), MakeTeam("a2", 3)},
                           {Junior("a_jl")});
  attacker.aggressive = true;
  Unit support = MakeUnit("s", kB, Role::kSupport, {MakeTeam("s1", 4)});
  support.support_firepower = 3;
  Script script;
  script.options.values = {{"storm_of_steel", "reroll_ones"}};
  script.situation = Contact({attacker, Attacker("b", 4)},
                             MakeUnit("d", kB, Role::kDefender,
                                      {MakeTeam("d1", 4), MakeTeam("d2", 4)}, {Junior("d_jl")}),
                             {support});
  script.declarations[0] = Declare{.together = false};
  script.declarations[1] = Declare{.support = {"s"}};
  int multi_round = 0;
  std::set<OutcomeKind> kinds;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    SplitMix64 first_bits(seed);
    SourceDice first_dice(first_bits);
    auto first = Play(rules, script, first_dice);
    ASSERT_TRUE(first.has_value()) << Describe(first.error());
    SplitMix64 second_bits(seed);
    SourceDice second_dice(second_bits);
    auto second = Play(rules, script, second_dice);
    ASSERT_TRUE(second.has_value());
    EXPECT_EQ(first->events, second->events);
    State folded = *rules.NewState(script.options);
    for (const Event& event : first->events) rules.Apply(folded, event);
    EXPECT_EQ(folded, first->final_state);
    EXPECT_EQ(first->final_state.phase, Phase::kEnded);
    if (first->final_state.outcomes.size() > 1) ++multi_round;
    for (const Outcome& outcome : first->final_state.outcomes) kinds.insert(outcome.kind);
  }
  EXPECT_GT(multi_round, 20);
  EXPECT_GE(kinds.size(), 4u);
}

}  // namespace
}  // namespace melee::engine::coc
