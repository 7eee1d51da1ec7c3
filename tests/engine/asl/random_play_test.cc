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

// A11.5-A11.8: a vehicle of a random side, with random facts, sometimes carrying PRC.
void AddVehicle(Draw& draw, Situation& situation) {
  const Seat seat = draw.Chance(50) ? Seat::kSideA : Seat::kSideB;
  Unit vehicle;
  vehicle.id = "V";
  vehicle.owner = seat;
  vehicle.kind = UnitKind::kVehicle;
  VehicleFacts& v = vehicle.vehicle;
  v.armor = static_cast<Armor>(draw.Below(4));
  v.crew_exposed = draw.Chance(40);
  v.abandoned = draw.Chance(10);
  v.shocked = draw.Chance(5);
  v.stunned = draw.Chance(5);
  v.immobile = draw.Chance(20);
  v.movement = static_cast<Movement>(draw.Below(3));
  v.unarmed = draw.Chance(10);
  if (!v.unarmed) {
    v.cmg = draw.Below(6);
    v.cmg_vca_only = draw.Chance(10);
    v.rmg = draw.Chance(20) ? 1 + draw.Below(2) : 0;
    v.aamg = draw.Chance(40) ? 1 + draw.Below(3) : 0;
    v.bmg = draw.Chance(50);
    v.sn_usage = draw.Chance(40) ? 5 + draw.Below(4) : 0;
  }
  situation.units.push_back(vehicle);
  for (Unit& unit : situation.units) {
    if (IsVehicle(unit) || unit.kind == UnitKind::kDummy) continue;
    if (unit.owner == seat && IsMmc(unit.kind) && !unit.concealed && draw.Chance(15)) {
      (draw.Chance(50) ? unit.rider_of : unit.passenger_of) = "V";
    }
    if (unit.owner != seat) {
      unit.street_fighting = static_cast<StreetFighting>(draw.Below(3));
      unit.fanatic = draw.Chance(10);
      unit.atmm = draw.Chance(40);
    }
  }
}

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
    // A11.5-A11.62: the side's vehicle fires, or its Infantry attack the enemy's.
    for (const Unit& unit : state.units) {
      if (!IsVehicle(unit) || !draw.Chance(50)) continue;
      if (unit.owner == seat) {
        order.attackers = {unit.id};
        order.capture = false;
        order.weapons.clear();
        for (std::string_view weapon : {"cmg", "rmg", "aamg", "sn"}) {
          if (draw.Chance(35)) order.weapons.emplace_back(weapon);
        }
        if (order.weapons == std::vector<std::string>{"sn"} && draw.Chance(80)) {
          order.targets.clear();
        }
      } else {
        order.targets = {unit.id};
        order.capture = draw.Chance(5);
        if (draw.Chance(50) && !order.attackers.empty()) order.atmm = order.attackers.front();
      }
    }
    seal.attacks.push_back(order);
  }
  if (draw.Chance(10)) seal.ambush_withdraw = Pick(draw, state, seat);
  return seal;
}

struct Tally {
  int finished = 0;
  int refused = 0;
  int attacks = 0;
  int choices = 0;
  int vehicle_attacks = 0;
  int close_defense = 0;
};

// Plays `seeds` random Locations (with a vehicle when `vehicles`) and checks every fold.
Tally PlayRandomly(uint64_t seeds, bool vehicles) {
  Tally tally;
  const AslRules rules;
  int& finished = tally.finished;
  int& refused = tally.refused;
  int& attacks = tally.attacks;
  int& choices = tally.choices;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    Draw draw(seed);
    State state = *rules.NewState({});
    const State initial = state;
    std::vector<Event> log;
    SplitMix64 source(seed);
    SourceDice dice(source);
    Situation situation = RandomSituation(draw);
    if (vehicles) AddVehicle(draw, situation);
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
    EXPECT_EQ(replay, state) << "seed " << seed;
    if (replay != state) return tally;
    for (const Event& event : log) {
      attacks += event.kind == EventKind::kAttackResolved ? 1 : 0;
      choices += event.kind == EventKind::kChoiceMade ? 1 : 0;
      if (event.kind == EventKind::kAttackResolved &&
          (event.attack->vs_vehicle || event.attack->weapons != 0)) {
        ++tally.vehicle_attacks;
        tally.close_defense += event.attack->close_defense ? 1 : 0;
      }
    }
  }
  return tally;
}

TEST(AslRandomPlay, EveryCommandIsRefusedOrFoldsCleanly) {
  const Tally tally = PlayRandomly(1500, false);
  const int finished = tally.finished;
  const int refused = tally.refused;
  const int attacks = tally.attacks;
  const int choices = tally.choices;
  // The generator reaches the end of the CCPh often, and meets refusals often.
  EXPECT_GT(finished, 300);
  EXPECT_GT(refused, 300);
  EXPECT_GT(attacks, 1000);
  EXPECT_GT(choices, 50);
  std::printf("random play: %d ended, %d refused, %d attacks, %d choices\n", finished, refused,
              attacks, choices);
}

// A11.5-A11.8: the same with a vehicle in every Location (A11.31 alternating attacks, vehicle
// fire, the sN, PAATC, PRC, Street Fighting).
TEST(AslRandomPlay, WithVehiclesEveryCommandIsRefusedOrFoldsCleanly) {
  const Tally tally = PlayRandomly(1500, true);
  EXPECT_GT(tally.finished, 300);
  EXPECT_GT(tally.refused, 300);
  EXPECT_GT(tally.vehicle_attacks, 300);
  EXPECT_GT(tally.close_defense, 10);
  std::printf("random play with vehicles: %d ended, %d refused, %d vehicle attacks, %d sN\n",
              tally.finished, tally.refused, tally.vehicle_attacks, tally.close_defense);
}

}  // namespace
}  // namespace melee::engine::asl
