#pragma once

// Builders for Chain of Command contacts in tests: Units of Teams and Leaders as the table holds
// them, and the "In action" example of rule 17.

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/core/dice.h"
#include "engine/coc/rules.h"

namespace melee::engine::coc::testing {

inline constexpr Seat kA = Seat::kSideA;
inline constexpr Seat kB = Seat::kSideB;

inline Team MakeTeam(std::string id, int figures, int shock = 0) {
  Team team;
  team.id = std::move(id);
  team.figures = figures;
  team.shock = shock;
  return team;
}

inline Leader Junior(std::string id, LeaderStatus status = LeaderStatus::kActive,
                     bool smg = false) {
  Leader leader;
  leader.id = std::move(id);
  leader.rank = LeaderRank::kJunior;
  leader.orders = 2;
  leader.status = status;
  leader.smg = smg;
  return leader;
}

inline Unit MakeUnit(std::string id, Seat side, Role role, std::vector<Team> teams,
                     std::vector<Leader> leaders = {}) {
  Unit unit;
  unit.id = std::move(id);
  unit.side = side;
  unit.role = role;
  unit.teams = std::move(teams);
  unit.leaders = std::move(leaders);
  return unit;
}

inline Unit Vehicle(std::string id, Seat side, Role role, int armour, bool tracked = true) {
  Unit unit;
  unit.id = std::move(id);
  unit.side = side;
  unit.role = role;
  unit.vehicle = true;
  unit.tracked = tracked;
  unit.armour = armour;
  return unit;
}

// A close combat of side A's `attackers` against side B's `defender` in the open.
inline Situation Contact(std::vector<Unit> attackers, Unit defender,
                         std::vector<Unit> support = {}) {
  Situation situation;
  situation.attacker = kA;
  situation.force_morale = {9, 9};
  for (Unit& unit : attackers) situation.units.push_back(std::move(unit));
  situation.units.push_back(std::move(defender));
  for (Unit& unit : support) situation.units.push_back(std::move(unit));
  return situation;
}

// Rule 17.3 "In action": a Soviet SMG Section (seven men with SMGs, an unwounded Junior Leader
// with one too) moves within 4" of a German Squad (eight men, an LMG, a wounded Leader) in a
// small farmhouse, through the LMG's arc with one D6 of visible movement.
inline Situation InAction() {
  Unit soviet = MakeUnit("soviet_smg", kA, Role::kAttacker, {MakeTeam("soviet_team", 7)},
                         {Junior("soviet_jl", LeaderStatus::kActive, /*smg=*/true)});
  soviet.teams[0].smgs = 7;
  soviet.movement_dice = 1;
  soviet.through_arcs = {"german_lmg"};
  Team lmg = MakeTeam("german_lmg", 3);
  lmg.lmgs = 1;
  Unit german = MakeUnit("german_squad", kB, Role::kDefender,
                         {lmg, MakeTeam("german_rifles", 5)},
                         {Junior("german_jl", LeaderStatus::kWounded)});
  german.leaders[0].team = "german_lmg";
  Situation situation = Contact({soviet}, german);
  situation.position = Position::kBuildingFromOutside;
  return situation;
}

// A state set up with `situation`.
inline State SetUpState(const Situation& situation, MatchOptions options = {}) {
  const CocRules rules;
  auto state = rules.NewState(options);
  EXPECT_TRUE(state.has_value());
  ScriptedDice dice({});
  auto events = rules.Decide(*state, situation.attacker, SetUp{situation}, dice);
  EXPECT_TRUE(events.has_value()) << (events ? "" : Describe(events.error()));
  if (events) {
    for (const Event& event : *events) rules.Apply(*state, event);
  }
  return *state;
}

// Applies `command` from `seat`; fails the test on a RuleError.
inline std::vector<Event> Act(State& state, Seat seat, const Command& command, Dice& dice) {
  const CocRules rules;
  auto events = rules.Decide(state, seat, command, dice);
  EXPECT_TRUE(events.has_value()) << (events ? "" : Describe(events.error()));
  if (!events) return {};
  for (const Event& event : *events) rules.Apply(state, event);
  return *events;
}

// The first event of `kind` in `events`, or nullptr.
inline const Event* Find(const std::vector<Event>& events, EventKind kind) {
  for (const Event& event : events) {
    if (event.kind == kind) return &event;
  }
  return nullptr;
}

// The numbers a pool's rows run through: {7, 9, 17, 8}.
inline std::vector<int> Totals(const Pool& pool) {
  std::vector<int> totals;
  for (const DiceRow& row : pool.rows) totals.push_back(row.after);
  return totals;
}

}  // namespace melee::engine::coc::testing
