#include "engine/core/ruleset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "engine/core/dice.h"
#include "tests/engine/testing/duel_rules.h"

namespace melee::engine {
namespace {

using ::melee::engine::testing::DuelRules;
using ::testing::ElementsAre;

using Duel = TypedRuleset<DuelRules>;

// Returns the events of one accepted command; fails the test on a rejection.
std::vector<AnyEvent> MustDecide(const Ruleset& rules, const AnyState& state, Seat seat, int dice,
                                 Dice& roller) {
  Result<std::vector<AnyEvent>> events =
      rules.Decide(state, seat, DuelRules::Command{dice}, roller);
  EXPECT_TRUE(events.has_value()) << Describe(events.error());
  return events.value_or(std::vector<AnyEvent>{});
}

// Plays one round (A declares 2 dice, then B declares 3) and returns every event, in order.
std::vector<AnyEvent> PlayRound(const Ruleset& rules, Dice& dice) {
  AnyState state = rules.NewState({}).value();
  std::vector<AnyEvent> log;
  for (auto [seat, count] : {std::pair{Seat::kSideA, 2}, std::pair{Seat::kSideB, 3}}) {
    for (AnyEvent& event : MustDecide(rules, state, seat, count, dice)) {
      rules.Apply(state, event);
      log.push_back(std::move(event));
    }
  }
  return log;
}

const DuelRules::Event& Typed(const AnyEvent& event) {
  const auto* typed = event.As<DuelRules::Event>();
  EXPECT_NE(typed, nullptr);
  return *typed;
}

TEST(SeatTest, NamesAndOpponents) {
  EXPECT_EQ(Opponent(Seat::kSideA), Seat::kSideB);
  EXPECT_EQ(Opponent(Seat::kSideB), Seat::kSideA);
  EXPECT_EQ(ViewerOf(Seat::kSideA), Viewer::kSideA);
  EXPECT_EQ(ViewerOf(Seat::kSideB), Viewer::kSideB);
  EXPECT_EQ(Name(Seat::kSideA), "side_a");
  EXPECT_EQ(Name(Seat::kSideB), "side_b");
  EXPECT_EQ(Name(Viewer::kSideA), "side_a");
  EXPECT_EQ(Name(Viewer::kSideB), "side_b");
  EXPECT_EQ(Name(Viewer::kDirector), "director");
  EXPECT_EQ(Name(Viewer::kSpectator), "spectator");
}

TEST(AnyValueTest, WrapsAndUnwrapsByType) {
  AnyState empty;
  EXPECT_FALSE(empty.has_value());
  EXPECT_EQ(empty.As<int>(), nullptr);

  AnyState state(DuelRules::State{});
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state.As<int>(), nullptr);
  ASSERT_NE(state.As<DuelRules::State>(), nullptr);
  state.As<DuelRules::State>()->round = 5;

  const AnyState copy = state;  // A copy is a deep copy of the value.
  state.As<DuelRules::State>()->round = 6;
  EXPECT_EQ(copy.As<DuelRules::State>()->round, 5);

  const AnyCommand command(std::string("hello"));
  ASSERT_NE(command.As<std::string>(), nullptr);
  EXPECT_EQ(*command.As<std::string>(), "hello");
}

TEST(TypedRulesetTest, ReportsIdentity) {
  const Duel duel;
  EXPECT_EQ(duel.id(), "duel");
  EXPECT_EQ(duel.version(), "1");
  EXPECT_THAT(duel.variants(), ElementsAre("standard"));
}

TEST(TypedRulesetTest, NewStateValidatesOptions) {
  const Duel duel;
  EXPECT_TRUE(duel.NewState({}).has_value());
  EXPECT_TRUE(duel.NewState({.variant = "standard", .values = {}}).has_value());
  const Result<AnyState> bad = duel.NewState({.variant = "deluxe", .values = {}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message, "duel has no variant 'deluxe'");
}

TEST(TypedRulesetTest, DecideThenApply) {
  const Duel duel;
  ScriptedDice dice({6, 5, 1, 2, 3});
  AnyState state = duel.NewState({}).value();

  std::vector<AnyEvent> first = MustDecide(duel, state, Seat::kSideA, 2, dice);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(Typed(first[0]), DuelRules::Event(DuelRules::Declared{Seat::kSideA, 2}));
  EXPECT_TRUE(dice.rolls().empty());  // Nothing is rolled until both sides have declared.
  duel.Apply(state, first[0]);

  std::vector<AnyEvent> second = MustDecide(duel, state, Seat::kSideB, 3, dice);
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(Typed(second[0]), DuelRules::Event(DuelRules::Declared{Seat::kSideB, 3}));
  const auto& rolled = std::get<DuelRules::Rolled>(Typed(second[1]));
  EXPECT_EQ(rolled.gained, (std::array<int, 2>{11, 6}));
  // Every die rolled is inside the event, with its purpose.
  EXPECT_EQ(rolled.rolls, dice.rolls());
  EXPECT_THAT(rolled.rolls, ElementsAre(DieRoll{"D3 side A", DieColor::kSingle, 6},
                                        DieRoll{"D3 side A", DieColor::kSingle, 5},
                                        DieRoll{"D3 side B", DieColor::kSingle, 1},
                                        DieRoll{"D3 side B", DieColor::kSingle, 2},
                                        DieRoll{"D3 side B", DieColor::kSingle, 3}));
  for (const AnyEvent& event : second) duel.Apply(state, event);

  const auto& final_state = *state.As<DuelRules::State>();
  EXPECT_EQ(final_state.score, (std::array<int, 2>{11, 6}));
  EXPECT_EQ(final_state.round, 2);
  EXPECT_FALSE(final_state.declared[0].has_value());
}

TEST(TypedRulesetTest, RejectionsNameTheRule) {
  const Duel duel;
  ScriptedDice dice({});
  AnyState state = duel.NewState({}).value();
  const auto too_many = duel.Decide(state, Seat::kSideA, DuelRules::Command{7}, dice);
  ASSERT_FALSE(too_many.has_value());
  EXPECT_EQ(Describe(too_many.error()), "D1: declare between 1 and 6 dice");

  for (const AnyEvent& event : MustDecide(duel, state, Seat::kSideA, 1, dice)) {
    duel.Apply(state, event);
  }
  const auto twice = duel.Decide(state, Seat::kSideA, DuelRules::Command{1}, dice);
  ASSERT_FALSE(twice.has_value());
  EXPECT_EQ(twice.error().rule_ref, "D2");
}

TEST(TypedRulesetTest, WrongCommandTypeIsARuleError) {
  const Duel duel;
  ScriptedDice dice({});
  const AnyState state = duel.NewState({}).value();
  for (const AnyCommand& command :
       {AnyCommand(std::string("attack")), AnyCommand(42), AnyCommand()}) {
    const auto events = duel.Decide(state, Seat::kSideA, command, dice);
    ASSERT_FALSE(events.has_value());
    EXPECT_EQ(events.error(), (RuleError{"", "command is not a duel command"}));
  }
}

TEST(TypedRulesetTest, FoldReproducesTheState) {
  const Duel duel;
  ScriptedDice dice({1, 2, 3, 4, 5});
  const std::vector<AnyEvent> log = PlayRound(duel, dice);
  ASSERT_EQ(log.size(), 3u);

  const AnyState replayed = Fold(duel, duel.NewState({}).value(), log);
  const auto& state = *replayed.As<DuelRules::State>();
  EXPECT_EQ(state.score, (std::array<int, 2>{3, 12}));
  EXPECT_EQ(state.round, 2);

  // Folding a prefix gives the state at that point.
  const AnyState halfway = Fold(duel, duel.NewState({}).value(), std::span(log).first(1));
  EXPECT_EQ(halfway.As<DuelRules::State>()->declared[0], 2);
  EXPECT_EQ(halfway.As<DuelRules::State>()->round, 1);
}

TEST(TypedRulesetTest, SameDiceSameEvents) {
  const Duel duel;
  ScriptedDice first_dice({4, 4, 2, 6, 1});
  ScriptedDice second_dice({4, 4, 2, 6, 1});
  const std::vector<AnyEvent> first = PlayRound(duel, first_dice);
  const std::vector<AnyEvent> second = PlayRound(duel, second_dice);
  ASSERT_EQ(first.size(), second.size());
  for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(Typed(first[i]), Typed(second[i]));

  SplitMix64 source_a(99);
  SplitMix64 source_b(99);
  SourceDice seeded_a(source_a);
  SourceDice seeded_b(source_b);
  const std::vector<AnyEvent> third = PlayRound(duel, seeded_a);
  const std::vector<AnyEvent> fourth = PlayRound(duel, seeded_b);
  ASSERT_EQ(third.size(), fourth.size());
  for (size_t i = 0; i < third.size(); ++i) EXPECT_EQ(Typed(third[i]), Typed(fourth[i]));
}

TEST(TypedRulesetTest, ViewHidesTheOpponentsDeclaration) {
  const Duel duel;
  ScriptedDice dice({});
  AnyState state = duel.NewState({}).value();
  for (const AnyEvent& event : MustDecide(duel, state, Seat::kSideA, 4, dice)) {
    duel.Apply(state, event);
  }
  auto view_of = [&](Viewer viewer) {
    const AnyView view = duel.View(state, viewer);
    const auto* typed = view.As<DuelRules::View>();
    EXPECT_NE(typed, nullptr);
    return *typed;
  };
  const DuelRules::View own = view_of(Viewer::kSideA);
  EXPECT_EQ(own.declared[0], 4);
  const DuelRules::View opponent = view_of(Viewer::kSideB);
  EXPECT_FALSE(opponent.declared[0].has_value());
  EXPECT_TRUE(opponent.sealed[0]);  // B knows that A has sealed, not what.
  EXPECT_FALSE(opponent.sealed[1]);
  EXPECT_FALSE(view_of(Viewer::kSpectator).declared[0].has_value());
  EXPECT_EQ(view_of(Viewer::kDirector).declared[0], 4);
}

class TypedRulesetDeathTest : public ::testing::Test {
 protected:
  TypedRulesetDeathTest() { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(TypedRulesetDeathTest, ForeignStateIsABug) {
  const Duel duel;
  ScriptedDice dice({});
  const AnyState foreign(std::string("not a duel state"));
  EXPECT_DEATH((void)duel.Decide(foreign, Seat::kSideA, DuelRules::Command{1}, dice),
               "state does not belong");
  EXPECT_DEATH((void)duel.View(foreign, Viewer::kDirector), "state does not belong");
}

TEST_F(TypedRulesetDeathTest, ForeignEventIsABug) {
  const Duel duel;
  AnyState state = duel.NewState({}).value();
  EXPECT_DEATH(duel.Apply(state, AnyEvent(3)), "event does not belong");
}

}  // namespace
}  // namespace melee::engine
