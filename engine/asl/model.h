#pragma once

// The close-combat world of ASL chapter A11 as the engine sees it: one Location, the Personnel
// in it, and the match options that settle the gaps SPEC-NOTES.md part A lists.
//
// Scope (part 1): Infantry and SMC. Vehicles, Cavalry, Pillboxes and Prisoners are refused with
// "not supported: A11.5" etc. when a situation names them; their extension points are the
// UnitKind enum, the DrmCause list and AttackPlan (attack.h), which part 2 extends.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/rational.h"
#include "engine/core/ruleset.h"

namespace melee::engine::asl {

// What a counter is. Vehicles (part 2) will add kVehicle; every switch over UnitKind is
// exhaustive so the compiler finds each place that must learn about it.
enum class UnitKind : uint8_t {
  kSquad,      // MMC
  kHalfSquad,  // MMC
  kCrew,       // MMC
  kLeader,     // SMC: leadership DRM, ML
  kHero,       // SMC: heroic DRM -1 (A15.24), always Stealthy (A11.17)
  kOtherSmc,   // SMC without leadership (e.g. a commissar or a wounded hero's other roles)
  kDummy,      // A "?" with no unit under it: removed before designation (A11.19)
};

// Returns true for squads, half-squads and crews (Multi-Man Counters).
bool IsMmc(UnitKind kind);
// Returns true for leaders, heroes and other Single-Man Counters.
bool IsSmc(UnitKind kind);
// Returns "squad", "half_squad", "crew", "leader", "hero", "other_smc" or "dummy".
std::string_view Name(UnitKind kind);

// Nationalities the rules of A11 and A18.2 distinguish (Leader Creation drm, IJA/Dare-Death HtH,
// Gurkha and Finnish Stealth). Others play as kOther.
enum class Nationality : uint8_t {
  kOther,
  kGerman,
  kAmerican,
  kBritish,
  kRussian,
  kItalian,
  kFinnish,
  kJapanese,
  kChinese,
};

// Returns "other", "german", "american", ... (the situation file's spelling).
std::string_view Name(Nationality nationality);

// Why a unit is no longer (fully) in the Location.
enum class Presence : uint8_t {
  kPresent,
  kEliminated,  // Killed, KIA, Failure to Rout, or removed as a Dummy.
  kCaptured,    // A prisoner of the other side (A20.22), final at the end of the CCPh.
  kWithdrawn,   // Left the Location: Withdrawal from Melee, Infiltration, Ambush Withdrawal.
};

// One counter in the CC Location. Strength is what the counter prints (its unbroken side); the
// engine derives everything else (inherent SMC FP 1, halving, CCV).
struct Unit {
  std::string id;  // Unique in the situation, e.g. "G1"; players name units by it.
  Seat owner = Seat::kSideA;
  UnitKind kind = UnitKind::kSquad;
  Nationality nationality = Nationality::kOther;
  std::string name;            // Optional label, e.g. "4-6-7" or "8-1"; shown in reports.
  int firepower = 0;           // Printed FP of an MMC (SMC attack and defend with 1; A11.14).
  int reduced_firepower = -1;  // FP of the HS it becomes on Casualty Reduction; -1: FP / 2.
  int morale = 7;              // ML: the Leader Creation drm (A18.2) reads the MMC's.
  int leadership = 0;          // Leaders: the leadership DRM (-3..+1).
  int bpv = 0;                 // Basic Point Value: picks the MMC whose A18.2 drm applies.
  std::string stacked_on;      // SMC: the friendly MMC it is stacked on (A11.14); "" if none.
  std::vector<std::string> support_weapons;  // SW/Guns it possesses (A11.13), e.g. "LMG".

  // Unit class.
  bool inexperienced = false;  // Green/Conscript: Lax (A11.18), capture -1 (A20.22).
  bool assault_engineer = false;
  bool stealthy = false;  // By SSR; Gurkhas, Finns, Heroes, Commandos, Partisans always.
  bool lax = false;       // By SSR; Inexperienced units always.
  bool gurkha = false;    // -1 CC DRM vs Infantry (A25.43).
  bool commando = false;
  bool partisan = false;
  bool dare_death = false;  // Chinese Dare-Death MMC (G18.62).

  // Status.
  bool broken = false;            // A11.16
  bool pinned = false;            // FP halved (per application), no withdrawal, no Infiltration.
  bool concealed = false;         // "?" (A11.19); HIP units are placed concealed.
  bool cx = false;                // A4.51: -1 attacked, +1 attacking.
  bool ti = false;                // Task Initiated: -1 attacked, +1 attacking.
  bool guarding = false;          // Guarding prisoners: FP halved, exempt from broken withdrawal.
  bool berserk = false;           // No withdrawal, no capture either way (A20.2).
  bool disrupted = false;         // No withdrawal (player aid; ASL-AMB-14).
  bool in_wire = false;           // B26.31: -1 attacked, +1 attacking.
  bool on_crest = false;          // Crest: -2 attacked, +2 attacking.
  bool in_bank_or_panji = false;  // G8.212 / G9.21: -1 attacked, +1 attacking.
  bool advanced = false;          // Advanced into this CC in this APh (A11.4 Ambush eligibility).
  int wounds = 0;                 // SMC wounds taken (A17.11 Wound Severity +1 once wounded).

  Presence presence = Presence::kPresent;

  friend bool operator==(const Unit&, const Unit&) = default;
};

// Returns true when `unit` is an Infantry MMC/SMC still in the Location.
inline bool IsPresent(const Unit& unit) { return unit.presence == Presence::kPresent; }

// Returns the FP `unit` contributes to a CC attack or defence before halving: printed FP for an
// MMC (a broken one defends with its unbroken side, A11.16), the inherent 1 of a SMC (A11.14).
int CcStrength(const Unit& unit);

// Returns the FP of the HS a squad becomes on Casualty Reduction or a capture split (A7.302):
// its `reduced_firepower`, or half its FP rounded down (a 5-4-8 becomes a 2-3-8).
int HalfSquadFirepower(const Unit& unit);

// Returns true when `unit` is Stealthy for A11.17 (by SSR, or Gurkha, Finn, Hero, Commando,
// Partisan).
bool IsStealthy(const Unit& unit);
// Returns true when `unit` is Lax for A11.18 (by SSR, or Inexperienced).
bool IsLax(const Unit& unit);

// The Location where CC takes place and what the rules need to know about it.
struct Location {
  std::string name;                // e.g. "G3"; shown in reports.
  bool woods_or_building = false;  // A11.4: Ambush can occur here on an advance into CC.
  bool melee = false;              // Already in Melee when this CCPh starts (A11.15, A11.2).
  bool hth = false;                // HtH CC already declared here (J2.31; G1.64).
  std::optional<Seat> ambusher;    // Ambush status from earlier this Player Turn (A11.4).
  std::array<int, 2> excess_squads = {0, 0};  // A5.131 overstacking, by Seat.
  friend bool operator==(const Location&, const Location&) = default;
};

// A complete CC situation: the input of a match (SetUp) and of `melee rules resolve`.
struct Situation {
  Location location;
  Seat attacker = Seat::kSideA;  // The ATTACKER of this Player Turn; the other is the DEFENDER.
  std::vector<Unit> units;
  friend bool operator==(const Situation&, const Situation&) = default;
};

// How the two sides' declarations meet (A11.12).
enum class DeclarationOrder : uint8_t {
  kSealed,         // Both seal in secret; revealed together (the default).
  kAttackerFirst,  // As written: the ATTACKER designates, the DEFENDER sees it, then designates.
};

// Whether players may declare HtH CC (J2.31): only in Deluxe ASL and Red Barricades.
enum class OptionalHth : uint8_t { kNone, kDeluxe, kRedBarricades };

// Match options of the asl ruleset, parsed from MatchOptions::values. Every field is a gap or an
// ambiguity of SPEC-NOTES.md part A with its default (README's rules-coverage table lists them).
struct Options {
  DeclarationOrder declaration_order = DeclarationOrder::kSealed;
  OptionalHth optional_hth = OptionalHth::kNone;
  // ASL-AMB-3: a SW is destroyed when the subsequent dr is <= the black Kill # (seed 001), or
  // only when < (the seed 000 text).
  bool sw_destruction_inclusive = true;
  // ASL-AMB-1: a ratio above 10-1 uses the >10-1 column (true) or rounds down to 10-1.
  bool above_ten_to_one_column = true;
  // ASL-AMB-9: Finns and Japanese never create leaders (the truncated A18.2 footnote).
  bool leader_creation_excludes_finns_japanese = true;
  // ASL-AMB-13: the DRM of a Dare-Death MMC attacking in non-HtH CC (G18.62); unknown, 0.
  int dare_death_non_hth_drm = 0;
  friend bool operator==(const Options&, const Options&) = default;
};

// The option names NewState accepts in MatchOptions::values, with their allowed values.
//   declaration_order      sealed | attacker_first
//   optional_hth           none | deluxe | red_barricades
//   sw_destruction         le | lt
//   above_ten_to_one       column | ten_to_one
//   leader_creation_finns_japanese   excluded | included
//   dare_death_non_hth_drm -3..3
Result<Options> ParseOptions(const MatchOptions& options);

// Returns the situation's problems as a RuleError naming the rule, or nothing when it is a legal
// CC Location for part 1 (known enums, unique ids, SMC stacking, A11.14 concealment pairing,
// range-checked values, both sides present).
Result<void> ValidateSituation(const Situation& situation);

}  // namespace melee::engine::asl
