// The worked examples of Chain of Command rule 17 (SPEC-NOTES C.5, CoC-T1 ... CoC-T12), each with
// the rulebook's own numbers and dice.

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/engine/coc/fixtures.h"

namespace melee::engine::coc {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): test fixtures

const Effect* FindEffect(const Event& event, EffectKind kind) {
  for (const Effect& effect : event.effects) {
    if (effect.kind == kind) return &effect;
  }
  return nullptr;
}

size_t CountEffects(const Event& event, EffectKind kind) {
  return static_cast<size_t>(std::count_if(event.effects.begin(), event.effects.end(),
                                           [&](const Effect& e) { return e.kind == kind; }));
}

// Both sides declare the defaults (fight, no support, hold) and the combat starts.
std::vector<Event> DeclareBoth(State& state, Dice& dice, Declare attacker = {},
                               Declare defender = {}) {
  std::vector<Event> events = Act(state, kA, attacker, dice);
  std::vector<Event> more = Act(state, kB, defender, dice);
  events.insert(events.end(), more.begin(), more.end());
  return events;
}

// ---- CoC-T1 ---------------------------------------------------------------------------------

TEST(CocExamples, T1InActionSovietDiceFollowTheTableTo8) {
  // 17.3 "In action": 7 men, +2 Orders, +8 SMGs including the Leader's = 17; the Germans defend
  // Hard Cover (17.6, attacked from outside a building): half, rounded down, is 8.
  const State state = SetUpState(InAction());
  const Pool soviet = CombatDice(state, kA, {0}, {}, 1);
  EXPECT_EQ(Totals(soviet), (std::vector<int>{7, 9, 17, 8}));
  EXPECT_EQ(soviet.dice, 8);
  EXPECT_EQ(soviet.rows.back().rule, "17.6");
}

TEST(CocExamples, T1InActionGermanDiceAre13ByTheTableWhereTheTextSays11) {
  // 8 men, +1 for the wounded Leader's one Order, +1 for the Soviets' D6 of movement, +3 for
  // the LMG whose arc they crossed = 13. The text says "11 Combat Dice in all" (CoC-AMB-1):
  // the table wins by default, and lmg_arc_dice = 1 reproduces the text.
  const State state = SetUpState(InAction());
  const Pool german = CombatDice(state, kB, {0}, {}, 1);
  EXPECT_EQ(Totals(german), (std::vector<int>{8, 9, 10, 13}));
  EXPECT_EQ(german.dice, 13);

  const State text = SetUpState(InAction(), MatchOptions{.variant = "", .values = {{"lmg_arc_dice", "1"}}});
  EXPECT_EQ(CombatDice(text, kB, {0}, {}, 1).dice, 11);
}

TEST(CocExamples, T1InActionIsNotOverwhelming) {
  // 17.3.1: 13 is less than 4 x 8.
  const State state = SetUpState(InAction());
  auto preview = PreviewCombat(state, Declare{}, Declare{});
  ASSERT_TRUE(preview.has_value()) << Describe(preview.error());
  EXPECT_EQ(preview->attacker_dice, 8);
  EXPECT_EQ(preview->defender_dice, 13);
  EXPECT_FALSE(preview->overwhelmed.has_value());
}

// ---- CoC-T2 ---------------------------------------------------------------------------------

TEST(CocExamples, T2OverwhelmedWithoutALeaderSurrenders) {
  // 17.3.1: 12 dice against 3, no Leader: the defender surrenders, a Force Morale test for a Unit
  // wiped out, and (17.5.6) one guard for its three prisoners.
  State state = SetUpState(Contact({MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 12)})},
                                   MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 3)})));
  ScriptedDice dice({1});  // the Force Morale d6 (placeholder: 1 drops it by 1)
  const std::vector<Event> events = DeclareBoth(state, dice);
  const Event* rolled = Find(events, EventKind::kRoundRolled);
  ASSERT_NE(rolled, nullptr);
  EXPECT_EQ(rolled->report->overwhelmed, kB);
  EXPECT_TRUE(rolled->report->faces[0].empty());
  const Event* ended = Find(events, EventKind::kRoundEnded);
  ASSERT_NE(ended, nullptr);
  EXPECT_EQ(ended->outcome->kind, OutcomeKind::kSurrendered);
  EXPECT_EQ(ended->outcome->winner, kA);
  ASSERT_EQ(ended->morale.size(), 1u);
  EXPECT_EQ(ended->morale[0].cause, "unit_wiped_out");
  EXPECT_EQ(ended->morale[0].level, 8);
  ASSERT_NE(FindEffect(*ended, EffectKind::kGuards), nullptr);
  EXPECT_EQ(FindEffect(*ended, EffectKind::kGuards)->value, 1);
  EXPECT_TRUE(state.gone[1]);
  EXPECT_EQ(state.units[0].teams[0].figures, 11);
  EXPECT_EQ(state.force_morale[1], 8);
  EXPECT_EQ(state.phase, Phase::kEnded);
  EXPECT_EQ(dice.remaining(), 0u);
}

TEST(CocExamples, T2OverwhelmedWithALeaderBreaksAndFlees) {
  // 20 dice against 3 men + a Junior Leader's 2 Orders = 5: a Leader is present, so the Unit
  // Breaks: 18" away, facing away, three Shock per Team, a Force Morale test for Breaking.
  State state = SetUpState(
      Contact({MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 20)})},
              MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 3)}, {Junior("d_jl")})));
  ScriptedDice dice({6});
  const std::vector<Event> events = DeclareBoth(state, dice);
  const Event* ended = Find(events, EventKind::kRoundEnded);
  ASSERT_NE(ended, nullptr);
  EXPECT_EQ(ended->outcome->kind, OutcomeKind::kBroken);
  EXPECT_EQ(ended->outcome->retreat_inches, 18);
  EXPECT_TRUE(ended->outcome->facing_away);
  const Effect* retreat = FindEffect(*ended, EffectKind::kRetreat);
  ASSERT_NE(retreat, nullptr);
  EXPECT_EQ(retreat->value, 18);
  EXPECT_EQ(retreat->text, "facing away from the enemy");
  EXPECT_EQ(state.units[1].teams[0].shock, 3);
  EXPECT_TRUE(state.units[1].broken);
  ASSERT_EQ(ended->morale.size(), 1u);
  EXPECT_EQ(ended->morale[0].cause, "unit_broken");
  EXPECT_EQ(ended->morale[0].loss, 0);
}

TEST(CocExamples, T2ElevenAgainstThreeIsFoughtNormally) {
  State state = SetUpState(Contact({MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 11)})},
                                   MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 3)})));
  ScriptedDice dice(std::vector<int>(28, 1));  // two drawn rounds of 11 + 3 misses
  const std::vector<Event> events = DeclareBoth(state, dice);
  const Event* rolled = Find(events, EventKind::kRoundRolled);
  ASSERT_NE(rolled, nullptr);
  EXPECT_FALSE(rolled->report->overwhelmed.has_value());
  EXPECT_EQ(rolled->report->faces[0].size(), 11u);
  EXPECT_EQ(rolled->report->faces[1].size(), 3u);
}

// ---- CoC-T3 ---------------------------------------------------------------------------------

TEST(CocExamples, T3ThreeHitsToOneIsADefeatByTwo) {
  // 17.4: [6,6,5,3,1] is 3 hits (2 Kills, 1 Shock); [5,2,2] is 1. 17.5 Defeated by Two: the
  // defender retreats 9" facing the enemy with one more Shock per Team.
  State state = SetUpState(Contact({MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 5)})},
                                   MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 3)})));
  ScriptedDice dice({6, 6, 5, 3, 1, 5, 2, 2});
  const std::vector<Event> events = DeclareBoth(state, dice);
  const Event* rolled = Find(events, EventKind::kRoundRolled);
  ASSERT_NE(rolled, nullptr);
  EXPECT_EQ(rolled->report->kills[0], 2);
  EXPECT_EQ(rolled->report->shock[0], 1);
  EXPECT_EQ(Hits(*rolled->report, kA), 3);
  EXPECT_EQ(Hits(*rolled->report, kB), 1);
  const Event* ended = Find(events, EventKind::kRoundEnded);
  ASSERT_NE(ended, nullptr);
  EXPECT_EQ(ended->outcome->kind, OutcomeKind::kDefeated);
  EXPECT_EQ(ended->outcome->margin, 2);
  EXPECT_EQ(ended->outcome->retreat_inches, 9);
  EXPECT_FALSE(ended->outcome->facing_away);
  EXPECT_EQ(state.units[1].teams[0].figures, 1);
  EXPECT_EQ(state.units[1].teams[0].shock, 2);  // 1 from the 5, 1 from the result
  EXPECT_EQ(state.units[0].teams[0].shock, 1);
  EXPECT_EQ(dice.remaining(), 0u);
}

TEST(CocExamples, T3BreakingDueToShockWinsWhateverTheMargin) {
  // The same dice on a 4-figure Team that already has 3 Shock: 2 Kills and 1 Shock leave 2
  // figures with 4 Shock, twice their number: the defender breaks and the attacker wins.
  State state = SetUpState(Contact({MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 5)})},
                                   MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 4, 3)})));
  ScriptedDice dice({6, 6, 5, 3, 1, 5, 2, 2, 6});  // + the Force Morale d6
  const std::vector<Event> events = DeclareBoth(state, dice);
  const Event* rolled = Find(events, EventKind::kRoundRolled);
  ASSERT_NE(rolled, nullptr);
  EXPECT_EQ(rolled->report->pools[1].dice, 3);  // 4 figures, -1 for 3 Shock
  const Event* ended = Find(events, EventKind::kRoundEnded);
  ASSERT_NE(ended, nullptr);
  EXPECT_EQ(ended->outcome->kind, OutcomeKind::kBrokeByShock);
  EXPECT_EQ(ended->outcome->winner, kA);
  EXPECT_TRUE(state.units[1].broken);
  EXPECT_EQ(dice.remaining(), 0u);
}

// ---- CoC-T4 ---------------------------------------------------------------------------------

TEST(CocExamples, T4TwoDrawnRoundsThenBothRetire) {
  // Round 1 2-2, round 2 1-1: after the maximum of two rounds both retire 6" (CoC-AMB-3).
  State state = SetUpState(Contact({MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 4)})},
                                   MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 4)})));
  ScriptedDice dice({5, 5, 1, 1, 5, 5, 1, 1,  // round 1: 4 dice each
                     5, 1, 1, 5, 1, 1});      // round 2: 3 each (2 Shock: -1)
  DeclareBoth(state, dice);
  ASSERT_EQ(state.outcomes.size(), 2u);
  EXPECT_EQ(state.outcomes[0].kind, OutcomeKind::kFightAgain);
  EXPECT_EQ(state.outcomes[1].kind, OutcomeKind::kRetire);
  EXPECT_EQ(state.outcomes[1].retreat_inches, 6);
  EXPECT_EQ(state.phase, Phase::kEnded);
  EXPECT_EQ(dice.remaining(), 0u);
}

// ---- CoC-T5 ---------------------------------------------------------------------------------

TEST(CocExamples, T5AnAggressiveAttackerLosingByOneFightsAgain) {
  Unit attacker = MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 4)});
  attacker.aggressive = true;
  State state = SetUpState(Contact({attacker}, MakeUnit("d", kB, Role::kDefender,
                                                         {MakeTeam("d1", 4)})));
  ScriptedDice dice({5, 5, 1, 1, 5, 5, 5, 1,  // 2 hits to 3
                     1, 1, 1, 1, 1, 1});      // round 2: 3 dice each, a draw
  const std::vector<Event> events = DeclareBoth(state, dice);
  ASSERT_EQ(state.outcomes.size(), 2u);
  EXPECT_EQ(state.outcomes[0].kind, OutcomeKind::kFightAgain);
  const Event* ended = Find(events, EventKind::kRoundEnded);
  ASSERT_NE(ended, nullptr);
  EXPECT_NE(std::find_if(ended->notes.begin(), ended->notes.end(),
                         [](const std::string& note) {
                           return note.find("treat a Defeat by One as a Draw") !=
                                  std::string::npos;
                         }),
            ended->notes.end());
  EXPECT_EQ(dice.remaining(), 0u);
}

TEST(CocExamples, T5AStubbornAttackerLosingByOneRetreats6) {
  // Stubborn counts only in defence (17.5.3).
  Unit attacker = MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 4)});
  attacker.stubborn = true;
  State state = SetUpState(Contact({attacker}, MakeUnit("d", kB, Role::kDefender,
                                                         {MakeTeam("d1", 4)})));
  ScriptedDice dice({5, 1, 1, 1, 5, 5, 1, 1});
  DeclareBoth(state, dice);
  ASSERT_EQ(state.outcomes.size(), 1u);
  EXPECT_EQ(state.outcomes[0].kind, OutcomeKind::kDefeated);
  EXPECT_EQ(state.outcomes[0].winner, kB);
  EXPECT_EQ(state.outcomes[0].retreat_inches, 6);
  EXPECT_EQ(state.outcomes[0].shock_per_team, 0);
}

TEST(CocExamples, T5AStubbornDefenderLosingByOneFightsAgain) {
  Unit defender = MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 4)});
  defender.stubborn = true;
  State state = SetUpState(
      Contact({MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 4)})}, defender));
  ScriptedDice dice({5, 5, 1, 1, 5, 1, 1, 1,  // 2 hits to 1
                     1, 1, 1, 1, 1, 1, 1});  // round 2: 4 dice to 3, a draw
  DeclareBoth(state, dice);
  ASSERT_EQ(state.outcomes.size(), 2u);
  EXPECT_EQ(state.outcomes[0].kind, OutcomeKind::kFightAgain);
}

// ---- CoC-T6, T7 -----------------------------------------------------------------------------

TEST(CocExamples, T6TheRunningTotalIsRoundedDownRowByRow) {
  // 10 figures + 2 Orders = 12, +2 (C.5 gives it to Supporting Fire of 5 dice; Supporting Fire
  // is the defender's, CoC-AMB-8, so two SMGs stand in for it here) = 14, -1 for 3 Shock
  // (one per two) = 13, Light Cover removes a third: floor(2 x 13 / 3) = 8 (CoC-AMB-2).
  Unit attacker = MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 10, 3)}, {Junior("jl")});
  attacker.teams[0].smgs = 2;
  Situation situation = Contact({attacker}, MakeUnit("d", kB, Role::kDefender,
                                                     {MakeTeam("d1", 4)}));
  situation.cover = Cover::kLight;
  const State state = SetUpState(situation);
  EXPECT_EQ(Totals(CombatDice(state, kA, {0}, {}, 1)), (std::vector<int>{10, 12, 11, 13, 8}));
  const State other = SetUpState(
      situation, MatchOptions{.variant = "", .values = {{"light_cover_rounding", "remove_floor_third"}}});
  EXPECT_EQ(CombatDice(other, kA, {0}, {}, 1).dice, 9);  // 13 - floor(13/3)
}

TEST(CocExamples, T6SupportingFireAddsOnePerTwoFirepowerDice) {
  // The Supporting Fire row of C.5's chain, on the defender's side: 5 Firepower dice -> +2.
  Unit support = MakeUnit("s", kB, Role::kSupport, {MakeTeam("s1", 5)});
  support.support_firepower = 5;
  const State state = SetUpState(
      Contact({MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 4)})},
              MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 10, 3)}, {Junior("jl")}),
              {support}));
  EXPECT_EQ(Totals(CombatDice(state, kB, {0}, {2}, 1)), (std::vector<int>{10, 12, 14, 13}));
}

TEST(CocExamples, T7GreenUnitsLoseADiePerShockRegularOnePerTwo) {
  Unit green = MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 6, 3)});
  green.quality = Quality::kGreen;
  const State state = SetUpState(Contact({green}, MakeUnit("d", kB, Role::kDefender,
                                                            {MakeTeam("d1", 6, 3)})));
  EXPECT_EQ(Totals(CombatDice(state, kA, {0}, {}, 1)), (std::vector<int>{6, 4, 1}));  // -2, -3
  EXPECT_EQ(Totals(CombatDice(state, kB, {0}, {}, 1)), (std::vector<int>{6, 5}));     // -1
}

// ---- CoC-T8 ---------------------------------------------------------------------------------

TEST(CocExamples, T8ThreeKillsOnTwoTeamsLeaveOneOddKillForTheOwner) {
  State state = SetUpState(
      Contact({MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 6)})},
              MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 3), MakeTeam("d2", 3)})));
  ScriptedDice dice({6, 6, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  const std::vector<Event> events = DeclareBoth(state, dice);
  const Event* rolled = Find(events, EventKind::kRoundRolled);
  ASSERT_NE(rolled, nullptr);
  ASSERT_EQ(rolled->report->shares[1].size(), 2u);
  EXPECT_EQ(rolled->report->shares[1][0].kills, 1);
  EXPECT_EQ(rolled->report->shares[1][1].kills, 1);
  EXPECT_EQ(rolled->report->odd_kills[1], 1);
  EXPECT_EQ(state.phase, Phase::kPlace);
  EXPECT_TRUE(state.owes[1]);
  EXPECT_FALSE(state.owes[0]);

  const CocRules rules;
  ScriptedDice none({});
  auto twice = rules.Decide(state, kB, Place{.odd_kills = {"d1", "d2"}, .odd_shock = {}}, none);
  ASSERT_FALSE(twice.has_value());
  EXPECT_EQ(twice.error().rule_ref, "17.4.1");
  auto attacker = rules.Decide(state, kB, Place{.odd_kills = {"a1"}, .odd_shock = {}}, none);
  ASSERT_FALSE(attacker.has_value());
  EXPECT_NE(attacker.error().message.find("not a fighting Team"), std::string::npos);

  Act(state, kB, Place{.odd_kills = {"d2"}, .odd_shock = {}}, dice);
  EXPECT_EQ(state.units[1].teams[0].figures, 2);
  EXPECT_EQ(state.units[1].teams[1].figures, 1);
}

TEST(CocExamples, T8FiveShockOnThreeTeamsGoTwoOddToDifferentTeams) {
  State state = SetUpState(Contact(
      {MakeUnit("a", kA, Role::kAttacker, {MakeTeam("a1", 6)})},
      MakeUnit("d", kB, Role::kDefender, {MakeTeam("d1", 2), MakeTeam("d2", 2), MakeTeam("d3", 2)})));
  ScriptedDice dice({5, 5, 5, 5, 5, 1, 1, 1, 1, 1, 1, 1,  //
                     6});  // won by 5, no Leader: surrender, a Force Morale test
  const std::vector<Event> events = DeclareBoth(state, dice);
  const Event* rolled = Find(events, EventKind::kRoundRolled);
  ASSERT_NE(rolled, nullptr);
  ASSERT_EQ(rolled->report->shares[1].size(), 3u);
  EXPECT_EQ(rolled->report->odd_shock[1], 2);
  const CocRules rules;
  ScriptedDice none({});
  auto same = rules.Decide(state, kB, Place{.odd_kills = {}, .odd_shock = {"d1", "d1"}}, none);
  ASSERT_FALSE(same.has_value());
  EXPECT_EQ(same.error().rule_ref, "17.4.1");
  EXPECT_NE(same.error().message.find("only one odd Shock"), std::string::npos);
  Act(state, kB, Place{.odd_kills = {}, .odd_shock = {"d1", "d3"}}, dice);
  EXPECT_EQ(state.units[1].teams[0].shock, 2);
  EXPECT_EQ(state.units[1].teams[1].shock, 1);
  EXPECT_EQ(state.units[1].teams[2].shock, 2);
}

// ---- CoC-T9 ---------------------------------------------------------------------------------

TEST(CocExamples, T9PinnedAndBrokenThresholds) {
  // Section 4's example: an LMG Team of 3 and a Rifle Team of 6 with a Junior Leader: 4 + 3 = 7
  // Shock on 10 figures is not Pinned; after a Kill in each Team and 2 more Shock, 9 on 8 is.
  Unit section = MakeUnit("s", kA, Role::kAttacker,
                          {MakeTeam("lmg", 3, 4), MakeTeam("rifles", 6, 3)}, {Junior("jl")});
  EXPECT_EQ(Figures(section), 10);
  EXPECT_FALSE(Pinned(section));
  section.teams[0].figures = 2;
  section.teams[1].figures = 5;
  section.teams[0].shock = 6;
  EXPECT_EQ(Figures(section), 8);
  EXPECT_TRUE(Pinned(section));
  EXPECT_FALSE(BrokenByShock(section));
  // A lone 2-figure Team with 4 Shock is Broken (Shock >= 2 x figures).
  const Unit pair = MakeUnit("p", kA, Role::kAttacker, {MakeTeam("p1", 2, 4)});
  EXPECT_TRUE(BrokenByShock(pair));
  EXPECT_FALSE(BrokenByShock(MakeUnit("q", kA, Role::kAttacker, {MakeTeam("q1", 2, 3)})));
}

// ---- CoC-T10, T11, T12 ----------------------------------------------------------------------

Situation Overrun(std::vector<Team> teams) {
  Situation situation;
  situation.engagement = Engagement::kOverrun;
  situation.attacker = kA;
  situation.force_morale = {9, 9};
  situation.units = {Vehicle("tank", kA, Role::kAttacker, 3),
                     MakeUnit("d", kB, Role::kDefender, std::move(teams))};
  return situation;
}

TEST(CocExamples, T10ATeamRollingAboveItsShockEvades2D6) {
  const CocRules rules;
  State fresh = *rules.NewState({});
  ScriptedDice dice({3, 4, 5});
  const std::vector<Event> events = Act(fresh, kA, coc::SetUp{Overrun({MakeTeam("t1", 5, 2)})}, dice);
  const Event* overrun = Find(events, EventKind::kOverrun);
  ASSERT_NE(overrun, nullptr);
  const Effect* evaded = FindEffect(*overrun, EffectKind::kEvaded);
  ASSERT_NE(evaded, nullptr);
  EXPECT_EQ(evaded->value, 9);
  EXPECT_EQ(fresh.phase, Phase::kEnded);
}

TEST(CocExamples, T10ATeamFailingTakes1D6HitsVsLightCoverThenMoves4) {
  const CocRules rules;
  State state = *rules.NewState({});
  // d6 2 (not above Shock 2); 3 hits; effects 6 (Kill), 4 (Shock), 1 (none) by the placeholder
  // Light Cover table.
  ScriptedDice dice({2, 3, 6, 4, 1});
  const std::vector<Event> events = Act(state, kA, coc::SetUp{Overrun({MakeTeam("t1", 5, 2)})}, dice);
  const Event* overrun = Find(events, EventKind::kOverrun);
  ASSERT_NE(overrun, nullptr);
  EXPECT_EQ(FindEffect(*overrun, EffectKind::kKills)->value, 1);
  EXPECT_EQ(FindEffect(*overrun, EffectKind::kShock)->value, 1);
  EXPECT_EQ(FindEffect(*overrun, EffectKind::kMovedAway)->value, 4);
  EXPECT_EQ(state.units[1].teams[0].figures, 4);
  EXPECT_EQ(state.units[1].teams[0].shock, 3);
  EXPECT_NE(overrun->notes.front().find("[DEFAULT - NOT FROM RULES]"), std::string::npos);
  EXPECT_EQ(dice.remaining(), 0u);
}

TEST(CocExamples, T11ACrewedWeaponAvoidsTheTankOnlyOnA6) {
  Team gun = MakeTeam("gun", 3);
  gun.crewed_weapon = true;
  const CocRules rules;
  State avoid = *rules.NewState({});
  ScriptedDice six({6});
  const std::vector<Event> avoided = Act(avoid, kA, coc::SetUp{Overrun({gun})}, six);
  EXPECT_EQ(FindEffect(*Find(avoided, EventKind::kOverrun), EffectKind::kEvaded)->value, 3);

  State lose = *rules.NewState({});
  ScriptedDice five({5, 2});  // destroyed; Force Morale d6 2 drops it by 1
  const std::vector<Event> lost = Act(lose, kA, coc::SetUp{Overrun({gun})}, five);
  const Event* overrun = Find(lost, EventKind::kOverrun);
  ASSERT_NE(FindEffect(*overrun, EffectKind::kDestroyed), nullptr);
  ASSERT_GE(overrun->morale.size(), 1u);
  EXPECT_EQ(overrun->morale[0].cause, "support_weapon_destroyed");
  EXPECT_EQ(lose.force_morale[1], 8);
  EXPECT_EQ(lose.units[1].teams[0].figures, 0);
}

Situation Ram() {
  Situation situation;
  situation.engagement = Engagement::kRam;
  situation.attacker = kA;
  situation.force_morale = {9, 9};
  situation.units = {Vehicle("t34", kA, Role::kAttacker, 3), Vehicle("pz", kB, Role::kDefender, 2)};
  return situation;
}

TEST(CocExamples, T12EqualCrashHitsGiveBothTwoShock) {
  const CocRules rules;
  State state = *rules.NewState({});
  ScriptedDice dice({5, 1, 6, 6, 5});
  const std::vector<Event> events = Act(state, kA, coc::SetUp{Ram()}, dice);
  ASSERT_NE(Find(events, EventKind::kRam), nullptr);
  EXPECT_EQ(state.units[0].vehicle_shock, 2);
  EXPECT_EQ(state.units[1].vehicle_shock, 2);
}

TEST(CocExamples, T12MoreCrashHitsGiveTheWinnerTwoTheLoserThree) {
  const CocRules rules;
  State state = *rules.NewState({});
  ScriptedDice dice({5, 5, 6, 1, 2});
  const std::vector<Event> events = Act(state, kA, coc::SetUp{Ram()}, dice);
  const Event* ram = Find(events, EventKind::kRam);
  ASSERT_NE(ram, nullptr);
  EXPECT_EQ(CountEffects(*ram, EffectKind::kVehicleShock), 2u);
  EXPECT_EQ(state.units[0].vehicle_shock, 2);
  EXPECT_EQ(state.units[1].vehicle_shock, 3);
}

}  // namespace
}  // namespace melee::engine::coc
