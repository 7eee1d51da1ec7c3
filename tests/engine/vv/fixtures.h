#pragma once

// Builders for V&V close assaults in tests: counters as the game prints them
// (APFP - Range - Casualty Rating).

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/core/dice.h"
#include "engine/vv/rules.h"

namespace melee::engine::vv::testing {

inline constexpr Seat kA = Seat::kSideA;
inline constexpr Seat kB = Seat::kSideB;

// A squad "apfp-range-cr" that reduces to a half squad "reduced_apfp-range-reduced_cr".
inline Unit Squad(std::string id, Seat owner, int apfp, int cr, int reduced_apfp, int reduced_cr) {
  Unit unit;
  unit.id = std::move(id);
  unit.owner = owner;
  unit.kind = UnitKind::kSquad;
  unit.apfp = apfp;
  unit.casualty_rating = cr;
  unit.reduced_apfp = reduced_apfp;
  unit.reduced_casualty_rating = reduced_cr;
  return unit;
}

inline Unit HalfSquad(std::string id, Seat owner, int apfp, int cr) {
  Unit unit;
  unit.id = std::move(id);
  unit.owner = owner;
  unit.kind = UnitKind::kHalfSquad;
  unit.apfp = apfp;
  unit.casualty_rating = cr;
  return unit;
}

// A leader "apfp-range-cr (-lm)", e.g. Schmidt 1-3-1 (-1).
inline Unit Leader(std::string id, Seat owner, int apfp, int cr, int lm) {
  Unit unit;
  unit.id = std::move(id);
  unit.owner = owner;
  unit.kind = UnitKind::kLeader;
  unit.apfp = apfp;
  unit.casualty_rating = cr;
  unit.leadership = lm;
  return unit;
}

inline Unit Vehicle(std::string id, Seat owner, UnitKind kind, int mg_apfp, int cr) {
  Unit unit;
  unit.id = std::move(id);
  unit.owner = owner;
  unit.kind = kind;
  unit.apfp = mg_apfp;
  unit.casualty_rating = cr;
  return unit;
}

inline SupportWeapon Lmg(std::string id, int apfp) {
  return SupportWeapon{.id = std::move(id), .name = "LMG", .apfp = apfp, .heavy = false,
                       .machine_gun = true};
}

inline SupportWeapon Hmg(std::string id, int apfp) {
  return SupportWeapon{.id = std::move(id), .name = "HMG", .apfp = apfp, .heavy = true,
                       .machine_gun = true};
}

inline UnitUse Use(std::string unit, std::string weapon = "", bool grenades = false,
                   bool satchel = false) {
  return UnitUse{.unit = std::move(unit), .weapon = std::move(weapon), .grenades = grenades,
                 .satchel = satchel};
}

inline CpAction Act(std::string unit, CpActionKind kind, int points = 0) {
  return CpAction{.unit = std::move(unit), .kind = kind, .points = points};
}

inline Allocation AllocationOf(std::vector<CpAction> actions) {
  Allocation allocation;
  allocation.actions = std::move(actions);
  return allocation;
}

// Plays `script` with scripted dice; fails the test (and returns an empty Played) on an error or
// when a scripted die is left over.
inline Played MustPlay(const Script& script, std::vector<int> dice) {
  ScriptedDice scripted(std::move(dice));
  auto played = Play(VvRules{}, script, scripted);
  EXPECT_TRUE(played.has_value()) << (played ? "" : Describe(played.error()));
  EXPECT_EQ(scripted.remaining(), 0u) << "scripted dice left over";
  return played ? *played : Played{};
}

// Returns the error `script` meets, or fails the test when it plays.
inline RuleError MustFail(const Script& script, std::vector<int> dice) {
  ScriptedDice scripted(std::move(dice));
  auto played = Play(VvRules{}, script, scripted);
  EXPECT_FALSE(played.has_value());
  return played ? RuleError{} : played.error();
}

// Returns the report of the assault `played` resolved.
inline AssaultReport ReportOf(const Played& played) {
  for (const Event& event : played.events) {
    if (event.kind == EventKind::kAssaultResolved) return *event.report;
  }
  ADD_FAILURE() << "no AssaultResolved event";
  return {};
}

// Returns the state just before the first allocation is sealed: set up, declared and resolved
// with `dice`, waiting for Casualty Points.
inline State AwaitingAllocation(const Script& script, std::vector<int> dice) {
  const VvRules rules;
  State state = *rules.NewState(script.options);
  ScriptedDice scripted(std::move(dice));
  const auto run = [&](Seat seat, const Command& command) {
    auto events = rules.Decide(state, seat, command, scripted);
    EXPECT_TRUE(events.has_value()) << (events ? "" : Describe(events.error()));
    if (!events) return;
    for (const Event& event : *events) rules.Apply(state, event);
  };
  run(script.situation.attacker, SetUp{script.situation});
  for (Seat seat : {kA, kB}) {
    if (state.owes[seat == kA ? 0 : 1]) run(seat, script.declarations[seat == kA ? 0 : 1]);
  }
  EXPECT_EQ(state.phase, Phase::kAllocate);
  return state;
}

// Returns the state of `script` set up, waiting for declarations.
inline State SetUpState(const Script& script) {
  const VvRules rules;
  State state = *rules.NewState(script.options);
  ScriptedDice none({});
  auto events = rules.Decide(state, script.situation.attacker, SetUp{script.situation}, none);
  EXPECT_TRUE(events.has_value()) << (events ? "" : Describe(events.error()));
  if (events) {
    for (const Event& event : *events) rules.Apply(state, event);
  }
  return state;
}

// Returns the unit named `id` in `state`.
inline const Unit& UnitOf(const State& state, const std::string& id) {
  for (const Unit& unit : state.units) {
    if (unit.id == id) return unit;
  }
  ADD_FAILURE() << "no unit " << id;
  static const Unit kNone;
  return kNone;
}

inline bool Eliminated(const State& state, const std::string& id) {
  for (size_t i = 0; i < state.units.size(); ++i) {
    if (state.units[i].id == id) return state.eliminated[i];
  }
  ADD_FAILURE() << "no unit " << id;
  return false;
}

inline bool InTarget(const State& state, const std::string& id) {
  for (size_t i = 0; i < state.units.size(); ++i) {
    if (state.units[i].id == id) return state.in_target[i];
  }
  ADD_FAILURE() << "no unit " << id;
  return false;
}

}  // namespace melee::engine::vv::testing
