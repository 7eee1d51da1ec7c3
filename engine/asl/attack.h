#pragma once

// One CC attack vs Personnel (A11.11): strengths, odds column, Kill Number, DRM. The resolver
// (rules.cc) rolls the dice and applies the results; the preview (preview.h) enumerates them.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/asl/model.h"
#include "engine/core/rational.h"

namespace melee::engine::asl {

// The printed odds columns of the CCT (A11.11), left to right. There is no 1-3, 2-3, 3-4 or 5-1.
enum class Column : uint8_t {
  kBelowOneToEight,  // <1-8
  kOneToEight,
  kOneToSix,
  kOneToFour,
  kOneToTwo,
  kOneToOne,
  kThreeToTwo,
  kTwoToOne,
  kThreeToOne,
  kFourToOne,
  kSixToOne,
  kEightToOne,
  kTenToOne,
  kAboveTenToOne,  // >10-1
};

// Returns "<1-8", "1-8", ..., ">10-1".
std::string_view Name(Column column);

// A11.11: `attack`:`defence` rounded down to the nearest printed column. Exact: compares
// rationals, never floating point. `above_ten_column` settles ASL-AMB-1. Requires defence > 0.
Column OddsColumn(const Rational& attack, const Rational& defence, bool above_ten_column = true);

// A11.11 / J2.31: the black CC Kill # (0..13), or the red HtH Kill # (2..15).
int KillNumber(Column column, bool hth);

// Every cause of a CC DRM (A11 and the player aid's CC DRM table), of an Ambush drm (A11.4), of
// a CCV modifier (A11.5), an ATMM drm (C13.7) and a Task or Morale Check drm.
enum class DrmCause : uint8_t {
  kLeadership,              // A11.141: directing leader
  kHeroic,                  // A15.24: -1 per attacking hero
  kAmbushAttacking,         // A11.4: -1 by the side with Ambush status
  kAmbushAttacked,          // A11.4: +1 vs the side with Ambush status
  kByCx,                    // A4.51 (player aid): +1 by CX
  kVsCx,                    // -1 vs CX
  kByTi,                    // +1 by TI
  kVsTi,                    // -1 vs TI
  kByWire,                  // B26.31: +1 by a unit in Wire
  kVsWire,                  // -1 vs a unit in Wire
  kByCrest,                 // +2 by a unit on a Crest
  kVsCrest,                 // -2 vs a unit on a Crest
  kByBankPanji,             // G8.212 / G9.21: +1
  kVsBankPanji,             // -1
  kByOverstacked,           // A5.131: +1 per excess squad
  kVsOverstacked,           // A5.131: -1 per excess squad
  kCapture,                 // A20.22: +1
  kCaptureVsInexperienced,  // A20.22: -1
  kVsWithdrawing,           // A11.2: -2
  kCovering,                // A11.2: +1 per friendly unit in the Melee not withdrawing
  kVsBroken,                // A11.16: -2
  kGurkha,                  // A25.43: -1 by Gurkha vs Infantry
  kIjaHth,                  // G1.64: -1 by armed, unpinned IJA/Dare-Death in HtH
  kDareDeathNonHth,         // G18.62: value unknown (ASL-AMB-13), option, default 0
  kLeaderCreated,           // A18.12: the created leader's modifier on the Original 2
  // A11.4 Ambush status drm.
  kAmbushCx,
  kAmbushLax,
  kAmbushBroken,
  kAmbushPinned,
  kAmbushBerserk,
  kAmbushStealthy,
  kAmbushConcealed,
  kAmbushLeadership,
  // A18.2 Leader Creation drm.
  kCreationNationality,
  kCreationOddsBelowOneToOne,
  kCreationHighMorale,
  kCreationLowMorale,
  // A11.5 / A11.61 CC vs a vehicle.
  kVsUnarmoredVehicle,        // A11.51: -3
  kVsNoMg,                    // A11.51: -1 vs a vehicle without manned functioning MG
  kEscort,                    // A11.51: +1 per escorting HS/crew, +2 per squad
  kVsMotion,                  // A11.51: +2 vs a Motion/non-stopped vehicle
  kVsOpenTopped,              // A11.61: -2 vs an OT or partially armored AFV
  kVsCeOrAbandoned,           // A11.61: -1 vs a CE CT or Abandoned AFV
  kVsImmobile,                // A11.61: -1 vs an Immobile AFV, once
  kAtmm,                      // C13.7: -3 with a successful ATMM check
  kStreetFightingAttacking,   // A11.8: -1, automatic Ambush benefits
  kStreetFightingAttacked,    // A11.8: +1 vs a Street Fighting unit
  kByRider,                   // A11.611: +1 by Riders
  kVsRider,                   // A11.611: -1 vs Riders
  // A11.5 CCV modifiers.
  kCcvAssaultEngineer,  // +1
  kCcvInexperienced,    // -1
  kCcvSmcCombining,     // +1
  kCcvHalved,           // -1 per FP-halving penalty (pinned, guarding)
  // C13.7 ATMM check drm.
  kAtmmSmc,         // +2 SMC
  kAtmmHalfSquad,   // +1 HS/crew
  kAtmmCx,          // +1 CX
  kAtmmUnarmored,   // +1 vs a non-armored vehicle
  // A11.4 Ambush drm for vehicles.
  kAmbushVehicle,  // +2 a side with a vehicle
  kAmbushBuAfv,    // +1 each BU or Stunned AFV
  // A11.6 PAATC and A11.622 Morale Checks.
  kCheckLeadership,     // A10.7: the leader's modifier
  kCheckInexperienced,  // A11.6: Inexperienced take a 1TC
  kCheckIft,            // A7.3: the IFT's +N
};

// Returns the rule the cause comes from, e.g. "A11.16".
std::string_view RuleOf(DrmCause cause);
// Returns a short text, e.g. "vs broken unit".
std::string_view TextOf(DrmCause cause);

// One modifier with its cause (the rule number and text come from the cause).
struct Drm {
  DrmCause cause = DrmCause::kLeadership;
  int value = 0;
  friend bool operator==(const Drm&, const Drm&) = default;
};

// Returns the sum of `drms`.
int Total(std::span<const Drm> drms);

// Why FP was halved (A11.19, player aid "by Guarding/Motion/Pinned, per application").
enum class HalvingCause : uint8_t {
  kVsConcealed,  // A11.19: the whole attack
  kByPinned,     // A7.8: the pinned unit's own FP
  kByGuarding,   // A20.3: the guard's own FP
  kByMotion,     // A11.62: a vehicle in Motion
};

// Returns "A11.19" etc. and a short text.
std::string_view RuleOf(HalvingCause cause);
std::string_view TextOf(HalvingCause cause);

struct Halving {
  HalvingCause cause = HalvingCause::kVsConcealed;
  std::string unit;  // The halved unit for per-unit causes; "" for the whole attack.
  friend bool operator==(const Halving&, const Halving&) = default;
};

// One attack as a player declares it.
struct AttackOrder {
  std::vector<std::string> attackers;
  std::vector<std::string> targets;
  bool capture = false;             // A20.22: a predesignated capture attempt.
  std::string director;             // A11.141: the leader who directs; "" picks the best.
  bool decline_leadership = false;  // Player aid Q&A: a positive leadership DRM may be declined.
  std::string atmm;                 // C13.7: the attacker making the ATMM check vs a vehicle.
  std::vector<std::string> weapons;  // A11.62: a vehicle's weapons ("cmg", "rmg", "aamg", "sn").
  friend bool operator==(const AttackOrder&, const AttackOrder&) = default;
};

// A11.622: true when `order` fires a vehicle's Close Defense Weapon System (its only weapon,
// no targets named).
inline bool IsCloseDefense(const AttackOrder& order) {
  return order.weapons.size() == 1 && order.weapons[0] == "sn";
}

// What a CC DR is compared against, computed from the units as they stand when it is rolled.
struct AttackPlan {
  Rational attack_strength;
  Rational defence_strength;
  std::vector<Halving> halvings;
  Column column = Column::kOneToOne;
  int kill_number = 0;
  bool hth = false;
  std::optional<size_t> director;            // Index into the unit span.
  std::vector<Drm> common;                   // DRM for every target.
  std::vector<std::vector<Drm>> per_target;  // Parallel to the targets.
  std::vector<std::string> notes;
  // A11.5: an attack on a vehicle has no odds: its Kill Number is the attackers' CCV.
  bool vs_vehicle = false;
  int ccv_base = 0;
  std::vector<Drm> ccv_modifiers;
};

// One flag a unit, by unit index (1: set). Bytes rather than std::vector<bool>, whose copy goes
// bit by bit: the state holding these is copied for every command a match decides.
using UnitFlags = std::vector<uint8_t>;

// The facts about the Location an attack plan reads beyond the units themselves.
struct AttackContext {
  bool hth = false;
  std::optional<Seat> ambusher;
  std::array<int, 2> excess_squads = {0, 0};
  const Options* options = nullptr;  // Required.
  // A11.2: withdrawal announced, by unit index (null or shorter: not withdrawing).
  const UnitFlags* withdrawing = nullptr;
  // Strength override by unit index (simultaneous CC attacks with declared strength); empty:
  // use CcStrength.
  std::span<const int> strength;
};

// Computes the plan of an attack by `attackers` on `targets` (indices into `units`) with the
// order's flags. Requires non-empty, valid indices (the declaration was validated).
AttackPlan PlanAttack(std::span<const Unit> units, std::span<const uint16_t> attackers,
                      std::span<const uint16_t> targets, const AttackOrder& order,
                      const AttackContext& context);

// Building blocks of an attack plan, shared with the vehicle attacks (vehicle.h).
// A11.141: the leader who directs `attackers` (an index into `units`), if any.
std::optional<size_t> DirectingLeader(std::span<const Unit> units,
                                      std::span<const uint16_t> attackers,
                                      const AttackOrder& order);
// The DRM that come from the attackers and the sides (Hero, Ambush, CX, TI, Wire, Crest, Bank,
// Riders, overstacking), appended to `drms`.
void AddAttackerDrms(std::span<const Unit> units, std::span<const uint16_t> attackers,
                     Seat target_side, const AttackContext& context, std::vector<Drm>& drms);
// The DRM that belong to one defending Personnel unit (broken, withdrawing, CX, Riders, ...).
std::vector<Drm> TargetDrms(std::span<const Unit> units, uint16_t target,
                            const AttackOrder& order, const AttackContext& context);

// A18.12: the MMC whose Leader Creation drm apply after an attack's Original 2 (the attacking
// MMC with the highest BPV) and those drm.
struct CreationCheck {
  uint16_t base = 0;
  std::vector<Drm> drms;
};

// Returns the Leader Creation check of an attack by `attackers` at `column`, or nothing when no
// MMC takes part or the nationality creates no leaders (ASL-AMB-9 option).
std::optional<CreationCheck> LeaderCreationCheck(std::span<const Unit> units,
                                                 std::span<const uint16_t> attackers, Column column,
                                                 const Options& options);

// Returns the leader `rank` ("8-0", ...) created by the MMC `mmc`, stacked on `host`, with an
// id unused in `units`.
Unit CreatedLeaderUnit(std::span<const Unit> units, const Unit& mmc, const Unit& host,
                       std::string_view rank);

// A18.2 Leader Creation Table: the leader a Final dr creates ("6+1", "7-0", "8-0", "8-1"), or
// "" for none (Final dr >= 7).
std::string_view CreatedLeader(int final_dr);

// A17.11: true when a Wound Severity dr (with +1 when already wounded) is mortal (Final >= 5).
bool IsMortalWound(int dr, int previous_wounds);

// A.9 Random Selection: the indices (into `drs`) of every die tied for the highest value.
std::vector<size_t> HighestRolls(std::span<const int> drs);

}  // namespace melee::engine::asl
