#pragma once

// The close-combat world of ASL chapter A11 as the engine sees it: one Location, the Personnel
// in it, and the match options that settle the gaps SPEC-NOTES.md part A lists.
//
// Scope: Infantry, SMC and vehicles (A11.5-A11.8). Cavalry, Pillboxes and Prisoners are not
// modelled; the README's rules-coverage table lists every rule with its status.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/rational.h"
#include "engine/core/ruleset.h"

namespace melee::engine::asl {

// What a counter is. Every switch over UnitKind is exhaustive, so the compiler finds each place
// that must learn about a new kind.
enum class UnitKind : uint8_t {
  kSquad,      // MMC
  kHalfSquad,  // MMC
  kCrew,       // MMC
  kLeader,     // SMC: leadership DRM, ML
  kHero,       // SMC: heroic DRM -1 (A15.24), always Stealthy (A11.17)
  kOtherSmc,   // SMC without leadership (e.g. a commissar or a wounded hero's other roles)
  kDummy,      // A "?" with no unit under it: removed before designation (A11.19)
  kVehicle,    // A vehicle (A11.5-A11.8); its facts are in Unit::vehicle
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

// A vehicle's armour as CC sees it (A11.51, A11.61; AF itself is ignored, A11.612).
enum class Armor : uint8_t {
  kClosedTop,          // CT AFV
  kOpenTopped,         // OT AFV: -2 (A11.61)
  kPartiallyArmored,   // e.g. a halftrack: -2 (A11.61)
  kUnarmored,          // truck, jeep: -3 (A11.51)
};

// Returns "closed_top", "open_topped", "partially_armored" or "unarmored".
std::string_view Name(Armor armor);

// Whether a vehicle is moving (A11.51 +2; A11.62 FP halved; A11.7 holds no one in Melee).
enum class Movement : uint8_t { kStopped, kMotion, kNonStopped };

// Returns "stopped", "motion" or "non_stopped".
std::string_view Name(Movement movement);

// The weapons a vehicle may use in CC (A11.62, A11.622), as bits of VehicleFacts::malfunctioned
// and of State::weapons_used.
enum Weapon : uint8_t {
  kCmg = 1,   // co-axial MG (not when "CMG: VCA only")
  kRmg = 2,   // remote MG
  kAamg = 4,  // anti-aircraft MG: only when CE (A11.62)
  kSn = 8,    // Close Defense Weapon System (A11.622)
};

// Returns "cmg", "rmg", "aamg" or "sn"; ParseWeapon is its inverse.
std::string_view Name(Weapon weapon);
std::optional<Weapon> ParseWeapon(std::string_view name);
// Returns the Weapon bits of `names`, skipping unknown ones (declarations are validated first).
uint8_t WeaponBits(const std::vector<std::string>& names);

// What CC needs to know about a vehicle counter (UnitKind::kVehicle).
struct VehicleFacts {
  Armor armor = Armor::kClosedTop;
  bool crew_exposed = false;  // CE; otherwise BU (A11.51 escort DRM, A11.61, A11.62 AAMG, sN)
  bool abandoned = false;     // no crew (A11.61 -1, A11.621 NA, A11.31 last possessor)
  bool shocked = false;       // C7.42: no CC attack, no Crew Small Arms
  bool stunned = false;       // D5.34: no CC attack, no Crew Small Arms
  bool immobile = false;      // A11.61 -1; A11.7
  bool unarmed = false;       // no armament at all: captured when alone with enemy (A11.52)
  Movement movement = Movement::kStopped;
  int cmg = 0;                // CMG FP
  bool cmg_vca_only = false;  // "CMG: VCA only" (D1.82): not usable in CC
  int rmg = 0;                // RMG FP
  int aamg = 0;               // AAMG FP
  bool bmg = false;           // has a BMG: never fires in CC, but voids the no-MG DRM (A11.61)
  int sn_usage = 0;           // sN Usage Number (A11.622); 0: no Close Defense Weapon System
  uint8_t malfunctioned = 0;  // Weapon bits that malfunctioned
  friend bool operator==(const VehicleFacts&, const VehicleFacts&) = default;
};

// One result of the Infantry Fire Table, as the A11.622 sN attack reads it (A7.3): "ne" no
// effect, "ptc" Pin Task Check, "nmc"/"Nmc" a Morale Check (+N), "k/N" Casualty Reduction of one
// unit by Random Selection and an N MC for all, "Nkia" N units eliminated by Random Selection
// and the rest broken.
struct IftResult {
  enum class Kind : uint8_t { kNoEffect, kPtc, kMc, kCasualty, kKia };
  Kind kind = Kind::kNoEffect;
  int n = 0;  // The MC's +N (kMc, kCasualty) or the units killed (kKia).
  friend bool operator==(const IftResult&, const IftResult&) = default;
};

// Parses "ne", "ptc", "nmc", "1mc".."9mc", "k/1".."k/9", "1kia".."9kia"; nothing otherwise.
std::optional<IftResult> ParseIftResult(std::string_view text);

// A11.8 Street Fighting: Infantry with automatic Ambush benefits against a vehicle.
enum class StreetFighting : uint8_t {
  kNone,
  // Advanced onto a vehicle in a road Location from ground level of an adjacent building; it is
  // returned there after its attack unless broken or pinned (or held by Wire).
  kFromBuilding,
  // Attacks a vehicle in stationary Bypass or using VBM from the Bypassed obstacle of its hex,
  // where it stays.
  kInObstacle,
};

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
  int reduced_firepower = -1;  // FP of the HS it becomes on Casualty Reduction (1..); -1: FP / 2.
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
  bool fanatic = false;           // Exempt from PAATC (A11.6).
  bool atmm = false;              // Has ATMM (C13.7): Germans 1944-45 by scenario.
  StreetFighting street_fighting = StreetFighting::kNone;  // A11.8
  std::string rider_of;      // A11.611: a Rider of this friendly vehicle (attacked separately).
  std::string passenger_of;  // A11.611: a Passenger of this friendly vehicle (shares its fate).
  VehicleFacts vehicle;      // kVehicle only.

  Presence presence = Presence::kPresent;

  friend bool operator==(const Unit&, const Unit&) = default;
};

// Returns true when `a` and `b` are the same unit id. Ids are a few characters, compared often
// (a declaration names units by id): compared here inline, without a call to memcmp.
inline bool SameId(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// Returns `id`'s length and first seven characters packed into one number. Ids with different
// keys differ; ids of up to seven characters (a Location's "G1", "8-1", "G1-hs") with the same
// key are the same, and longer ones are the same when SameId says so too. A lookup compares
// numbers kept in an array instead of strings spread over the units.
inline uint64_t IdKey(std::string_view id) {
  uint64_t key = id.size() & 0xff;
  const size_t packed = id.size() < 7 ? id.size() : 7;
  for (size_t i = 0; i < packed; ++i) {
    key |= uint64_t{static_cast<unsigned char>(id[i])} << (8 * (i + 1));
  }
  return key;
}

// Returns true when the unit whose id is `unit_id` (with key `unit_key`) is named `id` (key
// `key`). The unit's id is read only when the keys match and are not the whole id.
inline bool IsNamed(uint64_t unit_key, const std::string& unit_id, uint64_t key,
                    std::string_view id) {
  return unit_key == key && (id.size() <= 7 || SameId(unit_id, id));
}

// Returns true for a vehicle counter.
inline bool IsVehicle(const Unit& unit) { return unit.kind == UnitKind::kVehicle; }
// Returns true for a Rider or Passenger (A11.611).
inline bool IsPrc(const Unit& unit) { return !unit.rider_of.empty() || !unit.passenger_of.empty(); }
// Returns true for an armored vehicle (AFV).
inline bool IsAfv(const Unit& unit) {
  return IsVehicle(unit) && unit.vehicle.armor != Armor::kUnarmored;
}

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
  // A11.8 / D7.2: this is Reaction Fire against a vehicle in the MPh, not the CCPh: Street
  // Fighting procedure, but the vehicle has no CC attack.
  bool reaction_fire = false;
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
  // ASL-AMB-2: a vehicle eliminated in CC burns when the Final DR <= half the CCV (the rule
  // text), or only when < (as the 11.622 EX reads).
  bool burning_inclusive = true;
  // ASL-AMB-16: the +1/+2 Personnel Escort DRM (A11.51) is void when the vehicle is BU (false),
  // or applies whatever the vehicle's crew status (true).
  bool escort_drm_when_bu = false;
  // A scenario special rule the players may agree on (not a gap of the rulebook): "no voluntary
  // Withdrawal from Melee". With it no unit may announce A11.2 Withdrawal; a broken unit in Melee
  // still must withdraw, or be announced unable to (A11.16). A side with nothing else to announce
  // (no SMC that may attack alone, A11.14; no HtH to declare, J2.31) is then not asked.
  bool melee_withdrawal = true;
  // ATMM-AMB (README): the C13.7 table pins on a dr of 6; a Final dr above 6 pins as well.
  // The A11.622 sN attack reads the 16-FP column of the IFT for Original DR 2..12. The column
  // is not in the shared sources: this is a placeholder [DEFAULT - NOT FROM RULES] except DR 7
  // = 2MC, which A11.622 EX and the comprehensive example give. Option sn_ift replaces it.
  // Parsed once, when the options are (the state holding them is copied for every command).
  std::array<IftResult, 11> sn_ift = {{{IftResult::Kind::kKia, 2},
                                       {IftResult::Kind::kKia, 1},
                                       {IftResult::Kind::kCasualty, 4},
                                       {IftResult::Kind::kMc, 4},
                                       {IftResult::Kind::kMc, 3},
                                       {IftResult::Kind::kMc, 2},
                                       {IftResult::Kind::kMc, 1},
                                       {IftResult::Kind::kMc, 0},
                                       {IftResult::Kind::kPtc, 0},
                                       {IftResult::Kind::kNoEffect, 0},
                                       {IftResult::Kind::kNoEffect, 0}}};
  bool sn_ift_from_option = false;
  friend bool operator==(const Options&, const Options&) = default;
};

// The option names NewState accepts in MatchOptions::values, with their allowed values.
//   declaration_order      sealed | attacker_first
//   optional_hth           none | deluxe | red_barricades
//   sw_destruction         le | lt
//   above_ten_to_one       column | ten_to_one
//   leader_creation_finns_japanese   excluded | included
//   dare_death_non_hth_drm -3..3
//   burning_wreck          le | lt
//   escort_drm_when_bu     void | applies
//   melee_withdrawal       allowed | none (an SSR: no voluntary Withdrawal from Melee, A11.2)
//   sn_ift                 11 comma-separated IFT results for DR 2..12: Nkia, k/N, Nmc, nmc,
//                          ptc, ne
Result<Options> ParseOptions(const MatchOptions& options);

// Returns the situation's problems as a RuleError naming the rule, or nothing when it is a legal
// CC Location for part 1 (known enums, unique ids, SMC stacking, A11.14 concealment pairing,
// range-checked values, both sides present).
Result<void> ValidateSituation(const Situation& situation);

}  // namespace melee::engine::asl
