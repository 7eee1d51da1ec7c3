// Random play: thousands of generated Locations and declarations — legal or not — driven through
// Decide. Every command either is refused with a RuleError or yields events that fold to the
// state Decide reached; a CHECK failure (a bug) aborts the test. Seeded, so a failure replays.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/engine/asl/fixtures.h"

namespace melee::engine::asl {
namespace {

// Draws small integers from a SplitMix64 stream (test data only; the engine's dice are apart).
class Draw {
 public:
  explicit Draw(uint64_t seed) : source_(seed) {}
  int Below(int n) { return n <= 1 ? 0 : FairDie(source_, n) - 1; }
  bool Chance(int percent) { return Below(100) < percent; }

 private:
  SplitMix64 source_;
};

Situation RandomSituation(Draw& draw) {
  Situation situation;
  situation.attacker = draw.Chance(50) ? Seat::kSideA : Seat::kSideB;
  situation.location.woods_or_building = draw.Chance(40);
  situation.location.melee = draw.Chance(30);
  situation.location.hth = draw.Chance(10);
  for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
    const std::string prefix = seat == Seat::kSideA ? "A" : "B";
    const int mmcs = 1 + draw.Below(3);
    for (int m = 0; m < mmcs; ++m) {
      Unit unit;
      unit.id = prefix + std::to_string(m);
      unit.owner = seat;
      unit.kind = draw.Chance(70) ? UnitKind::kSquad
                                  : (draw.Chance(50) ? UnitKind::kHalfSquad : UnitKind::kCrew);
      unit.nationality = static_cast<Nationality>(draw.Below(9));
      unit.firepower = 1 + draw.Below(7);
      unit.morale = 5 + draw.Below(5);
      unit.broken = draw.Chance(15);
      unit.pinned = draw.Chance(15);
      unit.cx = draw.Chance(10);
      unit.advanced = seat == situation.attacker && draw.Chance(70);
      unit.concealed = draw.Chance(20);
      unit.inexperienced = draw.Chance(15);
      unit.gurkha = draw.Chance(5);
      unit.dare_death = draw.Chance(5);
      if (draw.Chance(20)) unit.support_weapons = {"LMG"};
      situation.units.push_back(unit);
    }
    if (draw.Chance(60)) {
      Unit leader;
      leader.id = prefix + "L";
      leader.owner = seat;
      leader.kind = draw.Chance(80) ? UnitKind::kLeader : UnitKind::kHero;
      leader.leadership = leader.kind == UnitKind::kLeader ? draw.Below(4) - 3 : 0;
      leader.morale = 8;
      leader.stacked_on = prefix + "0";
      leader.concealed = situation.units[situation.units.size() - mmcs].concealed;
      situation.units.push_back(leader);
    }
    if (draw.Chance(10)) {
      Unit dummy;
      dummy.id = prefix + "D";
      dummy.owner = seat;
      dummy.kind = UnitKind::kDummy;
      dummy.concealed = true;
      situation.units.push_back(dummy);
    }
  }
  return situation;
}

std::vector<std::string> Pick(Draw& draw, const State& state, Seat owner) {
  std::vector<std::string> ids;
  for (const Unit& unit : state.units) {
    if (unit.owner == owner && draw.Chance(45)) ids.push_back(unit.id);
  }
  return ids;
}

// Returns a group that is often legal: one present MMC of `owner` and the SMC stacked on it.
std::vector<std::string> Group(Draw& draw, const State& state, Seat owner) {
  std::vector<const Unit*> mmcs;
  for (const Unit& unit : state.units) {
    if (unit.owner == owner && IsMmc(unit.kind) && IsPresent(unit)) mmcs.push_back(&unit);
  }
  if (mmcs.empty()) return Pick(draw, state, owner);
  const Unit& mmc = *mmcs[static_cast<size_t>(draw.Below(static_cast<int>(mmcs.size())))];
  std::vector<std::string> ids = {mmc.id};
  for (const Unit& unit : state.units) {
    if (unit.stacked_on == mmc.id && IsPresent(unit)) ids.push_back(unit.id);
  }
  return ids;
}

Command RandomCommand(Draw& draw, const State& state, Seat seat) {
  if (state.phase == Phase::kAnnounce) {
    Announce announce;
    for (const Unit& unit : state.units) {
      if (unit.owner != seat) continue;
      if (unit.broken && state.location.melee) {
        (draw.Chance(50) ? announce.withdraw : announce.cannot_withdraw).push_back(unit.id);
      } else if (state.location.melee && draw.Chance(20)) {
        announce.withdraw.push_back(unit.id);
      } else if (IsSmc(unit.kind) && draw.Chance(20)) {
        announce.solo.push_back(unit.id);
      }
    }
    announce.declare_hth = draw.Chance(10);
    return announce;
  }
  if (state.phase == Phase::kChoice && state.pending) {
    Choose choose;
    choose.choice_id = state.pending->id;
    for (uint16_t option : state.pending->options) {
      if (draw.Chance(50)) choose.selected.push_back(state.units[option].id);
    }
    if (state.pending->kind == ChoiceKind::kCaptureSelection) {
      choose.selected = {state.units[state.pending->options.front()].id};
    }
    return choose;
  }
  Seal seal;
  const int attacks = 1 + draw.Below(2) - (draw.Chance(10) ? 1 : 0);
  for (int k = 0; k < attacks; ++k) {
    AttackOrder order;
    const bool structured = draw.Chance(80);
    order.attackers = structured ? Group(draw, state, seat) : Pick(draw, state, seat);
    order.targets =
        structured ? Group(draw, state, Opponent(seat)) : Pick(draw, state, Opponent(seat));
    order.capture = draw.Chance(15);
    seal.attacks.push_back(order);
  }
  if (draw.Chance(10)) seal.ambush_withdraw = Pick(draw, state, seat);
  return seal;
}

TEST(AslRandomPlay, EveryCommandIsRefusedOrFoldsCleanly) {
  const AslRules rules;
  int finished = 0;
  int refused = 0;
  int attacks = 0;
  int choices = 0;
  for (uint64_t seed = 1; seed <= 1500; ++seed) {
    Draw draw(seed);
    State state = *rules.NewState({});
    const State initial = state;
    std::vector<Event> log;
    SplitMix64 source(seed);
    SourceDice dice(source);
    const Situation situation = RandomSituation(draw);
    auto setup = rules.Decide(state, situation.attacker, asl::SetUp{situation}, dice);
    if (!setup) {
      ++refused;
      continue;
    }
    for (Event& event : *setup) {
      rules.Apply(state, event);
      log.push_back(std::move(event));
    }
    for (int step = 0; step < 60 && state.phase != Phase::kEnded; ++step) {
      const Seat seat = draw.Chance(80) ? (state.pending ? state.pending->seat : state.to_act)
                                        : Opponent(state.to_act);
      const Command command = RandomCommand(draw, state, seat);
      auto events = rules.Decide(state, seat, command, dice);
      if (!events) {
        ++refused;
        EXPECT_FALSE(events.error().message.empty());
        continue;
      }
      for (Event& event : *events) {
        rules.Apply(state, event);
        log.push_back(std::move(event));
      }
    }
    if (state.phase == Phase::kEnded) ++finished;
    State replay = initial;
    for (const Event& event : log) {
      EXPECT_FALSE(DescribeEvent(replay, event).empty());  // the state before the event
      rules.Apply(replay, event);
    }
    ASSERT_EQ(replay, state) << "seed " << seed;
    for (const Event& event : log) {
      attacks += event.kind == EventKind::kAttackResolved ? 1 : 0;
      choices += event.kind == EventKind::kChoiceMade ? 1 : 0;
    }
  }
  // The generator reaches the end of the CCPh often, and meets refusals often.
  EXPECT_GT(finished, 300);
  EXPECT_GT(refused, 300);
  EXPECT_GT(attacks, 1000);
  EXPECT_GT(choices, 50);
  std::printf("random play: %d ended, %d refused, %d attacks, %d choices\n", finished, refused,
              attacks, choices);
}

}  // namespace
}  // namespace melee::engine::asl
