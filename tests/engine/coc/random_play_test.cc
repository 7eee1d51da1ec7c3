// Random contacts played to the end: thousands of situations, declarations and placements, legal
// and not, drawn from seeds. Whatever the input, Decide either refuses with a RuleError or returns
// events; the contact always ends; the log folds to the same state; no count goes negative.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tests/engine/coc/fixtures.h"

namespace melee::engine::coc {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): test fixtures

// Draws from a SplitMix64 stream.
class Draw {
 public:
  explicit Draw(uint64_t seed) : bits_(seed) {}
  int Int(int low, int high) {
    return low + static_cast<int>(bits_.Next64() % static_cast<uint64_t>(high - low + 1));
  }
  bool Chance(int percent) { return Int(1, 100) <= percent; }
  template <class T>
  const T& Pick(const std::vector<T>& from) {
    return from[static_cast<size_t>(Int(0, static_cast<int>(from.size()) - 1))];
  }

 private:
  SplitMix64 bits_;
};

Unit RandomUnit(Draw& draw, const std::string& id, Seat side, Role role) {
  std::vector<Team> teams;
  const int count = draw.Int(1, 3);
  for (int t = 0; t < count; ++t) {
    Team team = MakeTeam(id + "_t" + std::to_string(t), draw.Int(0, 8), draw.Int(0, 6));
    team.smgs = draw.Int(0, team.figures);
    team.lmgs = draw.Int(0, 1);
    team.mmgs = draw.Chance(15) ? 1 : 0;
    team.crewed_weapon = draw.Chance(10);
    teams.push_back(team);
  }
  std::vector<Leader> leaders;
  for (int l = draw.Int(0, 2); l > 0; --l) {
    Leader leader = Junior(id + "_l" + std::to_string(l));
    leader.status = static_cast<LeaderStatus>(draw.Int(0, 4));
    leader.orders = draw.Int(0, 3);
    leader.smg = draw.Chance(40);
    if (draw.Chance(50)) leader.team = teams[static_cast<size_t>(draw.Int(0, count - 1))].id;
    leaders.push_back(leader);
  }
  Unit unit = MakeUnit(id, side, role, teams, leaders);
  unit.quality = static_cast<Quality>(draw.Int(0, 2));
  unit.aggressive = draw.Chance(20);
  unit.stubborn = draw.Chance(20);
  unit.hit_in_rear = draw.Chance(10);
  if (role == Role::kAttacker) unit.movement_dice = draw.Int(0, 2);
  if (role == Role::kSupport) unit.support_firepower = draw.Int(0, 6);
  if (role != Role::kAttacker) unit.broken = draw.Chance(10);
  return unit;
}

Situation RandomSituation(Draw& draw) {
  Situation situation;
  situation.attacker = draw.Chance(50) ? kA : kB;
  const Seat defender = Opponent(situation.attacker);
  situation.force_morale = {draw.Int(1, 11), draw.Int(1, 11)};
  const int kind = draw.Int(1, 10);
  if (kind == 1) {
    situation.engagement = Engagement::kRam;
    situation.units = {Vehicle("v_a", situation.attacker, Role::kAttacker, draw.Int(1, 4)),
                       Vehicle("v_d", defender, Role::kDefender, draw.Int(1, 4))};
    return situation;
  }
  if (kind == 2) {
    situation.engagement = Engagement::kOverrun;
    situation.units = {Vehicle("tank", situation.attacker, Role::kAttacker, 3),
                       RandomUnit(draw, "d", defender, Role::kDefender)};
    return situation;
  }
  // Now and then a contact 17.1 forbids: refused at set-up.
  situation.obstacle = draw.Chance(3) ? Obstacle::kMajor : static_cast<Obstacle>(draw.Int(0, 3));
  situation.position = draw.Pick(std::vector<Position>{
      Position::kOpen, Position::kBuildingFromOutside, Position::kBuildingOtherFloor,
      Position::kBuildingSameFloor, Position::kBunkerEntrance});
  if (situation.position == Position::kOpen) situation.cover = static_cast<Cover>(draw.Int(0, 2));
  for (int a = draw.Int(1, 3); a > 0; --a) {
    situation.units.push_back(
        RandomUnit(draw, "a" + std::to_string(a), situation.attacker, Role::kAttacker));
  }
  Unit target = RandomUnit(draw, "d", defender, Role::kDefender);
  situation.units.push_back(target);
  for (int s = draw.Int(0, 2); s > 0; --s) {
    situation.units.push_back(RandomUnit(draw, "s" + std::to_string(s), defender, Role::kSupport));
  }
  for (Unit& unit : situation.units) {
    if (unit.role != Role::kAttacker) continue;
    for (const Team& team : target.teams) {
      if (team.lmgs + team.mmgs > 0 && draw.Chance(40)) unit.through_arcs.push_back(team.id);
      if (team.lmgs + team.mmgs > 0 && draw.Chance(15)) {
        unit.through_suppressing_fire.push_back(team.id);
      }
    }
  }
  return situation;
}

MatchOptions RandomOptions(Draw& draw) {
  MatchOptions options;
  options.values["max_rounds"] = std::to_string(draw.Int(1, 3));
  options.values["storm_of_steel"] =
      draw.Pick(std::vector<std::string>{"none", "reroll_ones", "reroll_misses"});
  options.values["lmg_arc_dice"] = std::to_string(draw.Int(0, 3));
  if (draw.Chance(30)) options.values["leader_hit_on"] = "5,6";
  return options;
}

// A declaration that may or may not be legal.
Declare RandomDeclaration(Draw& draw, const State& state, Seat seat) {
  Declare declare;
  declare.engage = !draw.Chance(15);
  declare.together = !draw.Chance(30);
  declare.advance = draw.Chance(50);
  for (const Unit& unit : state.units) {
    if (unit.role == Role::kAttacker && !declare.together && draw.Chance(50)) {
      declare.sequence.push_back(unit.id);
    }
    if (unit.role == Role::kSupport && draw.Chance(60)) declare.support.push_back(unit.id);
  }
  if (seat == state.situation.attacker && draw.Chance(10)) declare.support.push_back("s1");
  return declare;
}

// A placement that may or may not be legal: random Teams of either side.
Place RandomPlacement(Draw& draw, const State& state, Seat seat) {
  Place place = DefaultPlacement(state, seat);
  if (draw.Chance(60)) return place;
  std::vector<std::string> ids;
  for (const Unit& unit : state.units) {
    for (const Team& team : unit.teams) ids.push_back(team.id);
  }
  if (ids.empty()) return place;
  for (std::string& id : place.odd_kills) id = draw.Pick(ids);
  for (std::string& id : place.odd_shock) id = draw.Pick(ids);
  if (draw.Chance(20)) place.odd_kills.push_back(draw.Pick(ids));
  return place;
}

TEST(CocRandomPlayTest, EveryContactEndsAndFoldsToTheSameState) {
  const CocRules rules;
  int played = 0;
  int refused_setups = 0;
  int refused_commands = 0;
  std::set<OutcomeKind> outcomes;
  for (uint64_t seed = 1; seed <= 3000; ++seed) {
    Draw draw(seed);
    const MatchOptions options = RandomOptions(draw);
    State state = *rules.NewState(options);
    SplitMix64 bits(seed * 7919);
    SourceDice dice(bits);
    std::vector<Event> log;
    const auto run = [&](Seat seat, const Command& command) {
      auto events = rules.Decide(state, seat, command, dice);
      if (!events) {
        EXPECT_FALSE(events.error().message.empty());
        dice.TakeRolls();  // a refusal rolls nothing (checked below)
        return false;
      }
      for (const Event& event : *events) {
        rules.Apply(state, event);
        log.push_back(event);
      }
      return true;
    };
    if (!run(kA, coc::SetUp{RandomSituation(draw)})) {
      ++refused_setups;
      continue;
    }
    ++played;
    for (int step = 0; step < 200 && state.phase != Phase::kEnded; ++step) {
      for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
        const size_t i = seat == Seat::kSideA ? 0 : 1;
        if (!state.owes[i]) continue;
        const bool declaring = state.phase == Phase::kDeclare;
        const Command attempt = declaring ? Command(RandomDeclaration(draw, state, seat))
                                          : Command(RandomPlacement(draw, state, seat));
        const size_t rolls_before = dice.rolls().size();
        if (run(seat, attempt)) continue;
        EXPECT_EQ(dice.rolls().size(), rolls_before) << "seed " << seed;
        ++refused_commands;
        const Command fallback = declaring ? Command(DefaultDeclaration(state, seat))
                                           : Command(DefaultPlacement(state, seat));
        ASSERT_TRUE(run(seat, fallback)) << "seed " << seed << ": the default was refused";
      }
    }
    ASSERT_EQ(state.phase, Phase::kEnded) << "seed " << seed;
    State folded = *rules.NewState(options);
    for (const Event& event : log) rules.Apply(folded, event);
    ASSERT_EQ(folded, state) << "seed " << seed;
    for (const Unit& unit : state.units) {
      for (const Team& team : unit.teams) {
        EXPECT_GE(team.figures, 0) << "seed " << seed;
        EXPECT_GE(team.shock, 0) << "seed " << seed;
      }
    }
    for (int level : state.force_morale) {
      EXPECT_GE(level, 0) << "seed " << seed;
      EXPECT_LE(level, 11) << "seed " << seed;
    }
    for (const Outcome& outcome : state.outcomes) outcomes.insert(outcome.kind);
  }
  // The generator reaches the whole rule: most contacts are legal, every outcome occurs.
  EXPECT_GT(played, 2000);
  EXPECT_GT(refused_setups, 0);
  EXPECT_GT(refused_commands, 100);
  EXPECT_EQ(outcomes.size(), 9u);
}

}  // namespace
}  // namespace melee::engine::coc
