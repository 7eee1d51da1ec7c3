#pragma once

// Close combat with vehicles (A11.5-A11.8): the CCV, an attack on a vehicle, a vehicle's attack
// on Infantry, the ATMM check (C13.7), and the Task and Morale Checks the PAATC (A11.6) and the
// sN attack (A11.622) call for. Pure functions; the resolver rolls the dice.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/asl/attack.h"
#include "engine/asl/model.h"

namespace melee::engine::asl {

// A11.5: the CCV of one unit attacking alone or defending against a vehicle: squad 5, crew 4,
// HS 3, SMC 2; +1 Assault Engineer, -1 Inexperienced, -1 per FP-halving penalty.
struct Ccv {
  int base = 0;
  std::vector<Drm> modifiers;
  int Value() const { return base + Total(modifiers); }
};
Ccv UnitCcv(const Unit& unit);

// A11.5: the CCV of `attackers` (one unit, or a unit and a SMC that adds +1).
Ccv AttackerCcv(std::span<const Unit> units, std::span<const uint16_t> attackers);

// A11.62: the CCV the `targets` of a vehicle's attack defend with: each MMC's CCV, +1 per SMC
// defending with its MMC, 2 for a SMC on its own (A.1.3; 11.622 EX: "1-2 (5-6) vs squad A and
// the leader").
int DefenceCcv(std::span<const Unit> units, std::span<const uint16_t> targets);

// The FP of `weapons` (Weapon bits) of `vehicle` (A11.62), before halving.
int WeaponFp(const Unit& vehicle, uint8_t weapons);

// Returns the Weapon bits a vehicle may use in CC now: CMG (not VCA only), RMG, AAMG when CE, sN
// when it has one and is BU; minus malfunctioned ones and `used`.
uint8_t UsableWeapons(const Unit& vehicle, uint8_t used);

// The plan of an Infantry attack on a vehicle (A11.5, A11.51, A11.61): no odds, the Kill Number
// is the CCV. `atmm_success` adds the C13.7 -3.
AttackPlan PlanAttackOnVehicle(std::span<const Unit> units, std::span<const uint16_t> attackers,
                               uint16_t vehicle, const AttackOrder& order,
                               const AttackContext& context, bool atmm_success);

// The plan of a vehicle's attack with `weapons` on Infantry (A11.62): its FP (halved for Motion
// and vs concealed units, never increased) against the targets' CCV, black Kill Numbers.
AttackPlan PlanVehicleFire(std::span<const Unit> units, uint16_t vehicle, uint8_t weapons,
                           std::span<const uint16_t> targets, const AttackOrder& order,
                           const AttackContext& context);

// A11.5 / A11.501: what a CC DR does to a vehicle, best last.
enum class VehicleResult : uint8_t { kNoEffect, kImmobilized, kEliminated, kBurning };

// A11.5: Final DR < CCV eliminates (burns when <= half the CCV, or < with `burning_inclusive`
// false: ASL-AMB-2), == CCV immobilizes.
VehicleResult VehicleResultOf(int final_dr, int ccv, bool burning_inclusive);

// A11.501: the Unlikely Kill dr after an Original 2: 1 burns, 2 eliminates, 3 immobilizes.
VehicleResult UnlikelyKillResult(int dr);

// C13.7: the ATMM check drm of `unit` against `vehicle`.
std::vector<Drm> AtmmDrms(const Unit& unit, const Unit& vehicle);

// C13.7: Final dr 1-3 succeeds (-3 DRM), 4-5 no ATMM, 6 (or more) no ATMM and the unit is pinned.
enum class AtmmResult : uint8_t { kSuccess, kNone, kPinned };
AtmmResult AtmmResultOf(int final_dr);

// Returns "burning wreck", "eliminated", "immobilized" or "no effect".
std::string_view Name(VehicleResult result);
// Returns "success", "no ATMM" or "no ATMM, unit pinned".
std::string_view Name(AtmmResult result);
// Returns "NE", "PTC", "NMC", "2MC", "K/2", "1KIA": the IFT's own spelling.
std::string Name(const IftResult& result);

}  // namespace melee::engine::asl
