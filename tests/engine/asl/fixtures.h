#pragma once

// Builders for ASL CC situations in tests: counters as the rulebook prints them.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/asl/rules.h"
#include "engine/asl/script.h"
#include "engine/core/dice.h"

namespace melee::engine::asl::testing {

inline constexpr Seat kA = Seat::kSideA;
inline constexpr Seat kB = Seat::kSideB;
inline constexpr Nationality kGerman = Nationality::kGerman;
inline constexpr Nationality kRussian = Nationality::kRussian;

// An MMC "fp-range-morale", e.g. Mmc("G1", kA, 4, 7) for a 4-6-7 squad.
inline Unit Mmc(std::string id, Seat owner, int firepower, int morale,
                Nationality nationality = Nationality::kOther, UnitKind kind = UnitKind::kSquad) {
  Unit unit;
  unit.id = std::move(id);
  unit.owner = owner;
  unit.kind = kind;
  unit.nationality = nationality;
  unit.firepower = firepower;
  unit.morale = morale;
  return unit;
}

// A leader "morale-modifier" stacked on `mmc`, e.g. Leader("L1", kA, 8, -1, "G1") for an 8-1.
inline Unit Leader(std::string id, Seat owner, int morale, int leadership, std::string mmc,
                   Nationality nationality = Nationality::kOther) {
  Unit unit;
  unit.id = std::move(id);
  unit.owner = owner;
  unit.kind = UnitKind::kLeader;
  unit.nationality = nationality;
  unit.morale = morale;
  unit.leadership = leadership;
  unit.stacked_on = std::move(mmc);
  return unit;
}

// A vehicle counter: a stationary, BU, CT AFV with a `cmg` FP CMG and a BMG unless changed.
inline Unit Vehicle(std::string id, Seat owner, int cmg, Nationality nationality = Nationality::kOther) {
  Unit unit;
  unit.id = std::move(id);
  unit.owner = owner;
  unit.kind = UnitKind::kVehicle;
  unit.nationality = nationality;
  unit.vehicle.cmg = cmg;
  unit.vehicle.bmg = true;
  return unit;
}

// A vehicle's attack with `weapons` ("cmg", "sn", ...) on `targets`.
inline AttackOrder Fire(std::string vehicle, std::vector<std::string> weapons,
                        std::vector<std::string> targets = {}) {
  AttackOrder order;
  order.attackers = {std::move(vehicle)};
  order.weapons = std::move(weapons);
  order.targets = std::move(targets);
  return order;
}

inline AttackOrder Attack(std::vector<std::string> attackers, std::vector<std::string> targets) {
  AttackOrder order;
  order.attackers = std::move(attackers);
  order.targets = std::move(targets);
  return order;
}

inline Seal Declare(std::vector<AttackOrder> attacks) {
  Seal seal;
  seal.attacks = std::move(attacks);
  return seal;
}

// Plays `script` with exactly `dice` (every scripted die must be used).
inline Played MustPlay(const Script& script, std::vector<int> dice) {
  ScriptedDice scripted(std::move(dice));
  Result<Played> played = Play(AslRules{}, script, scripted);
  if (!played) ADD_FAILURE() << Describe(played.error());
  EXPECT_EQ(scripted.remaining(), 0u) << "unused scripted dice";
  return played ? std::move(*played) : Played{};
}

// Returns the state after SetUp and both sides' `announce` (ATTACKER first): the Location at
// designation when no Ambush check is due (an Ambush check would need dice: pass them).
inline State AtDeclaration(const Situation& situation, std::vector<int> dice = {},
                           const MatchOptions& options = {},
                           std::array<Announce, 2> announce = {}) {
  const AslRules rules;
  Result<State> initial = rules.NewState(options);
  EXPECT_TRUE(initial);
  State state = initial ? *initial : State{};
  ScriptedDice scripted(std::move(dice));
  auto run = [&](Seat seat, const Command& command) {
    auto events = rules.Decide(state, seat, command, scripted);
    if (!events) {
      ADD_FAILURE() << Describe(events.error());
      return;
    }
    for (const Event& event : *events) rules.Apply(state, event);
  };
  const Seat attacker = situation.attacker;
  run(attacker, asl::SetUp{situation});
  run(attacker, announce[attacker == kA ? 0 : 1]);
  run(Opponent(attacker), announce[attacker == kA ? 1 : 0]);
  EXPECT_EQ(scripted.remaining(), 0u);
  return state;
}

// Returns the unit `id` of `state`; fails the test when missing.
inline const Unit& UnitOf(const State& state, std::string_view id) {
  for (const Unit& unit : state.units) {
    if (unit.id == id) return unit;
  }
  ADD_FAILURE() << "no unit " << id;
  static const Unit kNone;
  return kNone;
}

// Returns the reports of every resolved attack, in order.
inline std::vector<AttackReport> Attacks(const Played& played) {
  std::vector<AttackReport> reports;
  for (const Event& event : played.events) {
    if (event.kind == EventKind::kAttackResolved) reports.push_back(*event.attack);
  }
  return reports;
}

// Returns the events of `kind`.
inline std::vector<Event> EventsOf(const Played& played, EventKind kind) {
  std::vector<Event> out;
  for (const Event& event : played.events) {
    if (event.kind == kind) out.push_back(event);
  }
  return out;
}

// Returns the DRM value of `cause` in `drms`, or 0 when absent.
inline int DrmOf(const std::vector<Drm>& drms, DrmCause cause) {
  for (const Drm& drm : drms) {
    if (drm.cause == cause) return drm.value;
  }
  return 0;
}

}  // namespace melee::engine::asl::testing
