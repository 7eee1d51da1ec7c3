#pragma once

// Outcome preview (issue 3): the exact probability of every result of one proposed CC attack,
// found by enumerating the dice (the 36 DR, then the Random Selection, Wound Severity, Leader
// Creation and SW drs they lead to), never by sampling.

#include <string>
#include <vector>

#include "engine/asl/attack.h"
#include "engine/asl/protocol.h"
#include "engine/core/rational.h"
#include "engine/core/result.h"

namespace melee::engine::asl {

// What may happen to one target unit, as exact probabilities that sum to 1.
struct TargetOdds {
  std::string unit;
  int final_dr_offset = 0;  // Common + own DRM: Final DR = Original DR + this.
  Rational eliminated;      // Killed outright (or KIA after a wound).
  Rational captured;        // Capture attempts only (A20.22; the partial choice counted as 1/n).
  Rational reduced;         // Casualty Reduction of a squad to a HS.
  Rational wounded;         // SMC wounded and surviving (A17.11).
  Rational no_effect;
  Rational immobilized;     // A vehicle target (A11.5): Final DR == CCV.
  Rational burning;         // A vehicle target: a burning wreck (`eliminated`: a plain wreck).
  friend bool operator==(const TargetOdds&, const TargetOdds&) = default;
};

struct OutcomeTable {
  Rational attack_strength;
  Rational defence_strength;
  Column column = Column::kOneToOne;
  int kill_number = 0;
  std::vector<Drm> drms;
  std::vector<Halving> halvings;  // A11.19 vs concealed, pinned/guarding attackers.
  std::string director;           // A11.141: the leader who directs ("" for none).
  std::vector<TargetOdds> targets;
  Rational original_two;     // A11.22 Infiltration / A18.2 Leader Creation check.
  Rational original_twelve;  // A11.22 Infiltration for the targets.
  Rational leader_created;   // A18.2 (only when an MMC attacks).
  Rational all_eliminated;   // Every target eliminated or captured.
  // An attack on a vehicle (A11.5): `kill_number` is the CCV, `drms` those without ATMM.
  bool vs_vehicle = false;
  Rational atmm_success;     // C13.7: the ATMM check succeeds (-3 DRM)
  Rational crew_small_arms;  // A11.621: an Original 12 vs a crewed vehicle
  // The sN (A11.622): the chance of each IFT result on the 16-FP column ("NE" includes an
  // Original DR above the Usage Number), in DR order; the Morale Checks that follow are not
  // enumerated.
  bool close_defense = false;
  std::vector<std::pair<std::string, Rational>> ift_results;
  friend bool operator==(const OutcomeTable&, const OutcomeTable&) = default;
};

// Vehicles: an attack on a vehicle enumerates the ATMM dr, the 36 DR and the Unlikely Kill dr; a
// vehicle's MG attack is tallied like an Infantry attack; the sN attack gives its IFT results.
// Returns the outcome table of `order` declared by `seat` in `state`, or the RuleError a
// declaration of it would meet (the same checks as Seal). At most 12 targets (exact odds of a
// Random Selection among more would not fit in 64 bits).
Result<OutcomeTable> Preview(const State& state, Seat seat, const AttackOrder& order);

}  // namespace melee::engine::asl
