#pragma once

// The close-assault world of Valor & Victory rule 15 as the engine sees it: the target hex, the
// units in it and in the one hex the assault comes from, each side's expendable support weapons,
// and the match options that settle the gaps SPEC-NOTES.md part B lists (VV-AMB-*).
//
// Every table-top fact the server cannot see (terrain, hexsides crossed, hill levels, who
// advanced this phase, whether this hex already assaulted this turn) is an input both sides
// enter and both see; the engine checks what the rules let it check.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/result.h"
#include "engine/core/ruleset.h"

namespace melee::engine::vv {

// The two editions of rule 15 (MatchOptions::variant).
enum class Edition : uint8_t {
  kBoard,  // Standard Game Rules (rev. 2021): players choose leaders and apply Casualty Points.
  kPc,     // The PC game: best leaders and Casualty Points chosen automatically, no 3-CP cap.
};

// Returns "board" or "pc".
std::string_view Name(Edition edition);

// The settings a match may override (MatchOptions::values), each a default of B.6.
struct Options {
  Edition edition = Edition::kBoard;
  // VV-AMB-3: Grenades counters one side may use in one close assault (12.52 allows one per
  // unit). "grenades_per_assault_max", 0..16, default 1.
  int grenades_per_assault_max = 1;
  // VV-AMB-5: what the "cover modifier of the hex assaulted" (15.8) counts beside the terrain
  // and the hexside crossed. "cp_count_fortification" / "cp_count_hindrance", default true.
  bool cp_count_fortification = true;
  bool cp_count_hindrance = true;
  // VV-AMB-6: a failed assault whose 1 CP per assaulter wipes out the defenders lets the
  // survivors advance. "advance_after_failed_wipeout", default true.
  bool advance_after_failed_wipeout = true;
  // VV-AMB-8: the assault DR is an infantry AP attack for Valor (16.2, natural 2) and Sniper
  // activation (17.2, natural 12). "valor_check", "sniper_check", default true.
  bool valor_check = true;
  bool sniper_check = true;
  // VV-AMB-9 / 15.1: one close assault per source hex per turn. Default: on in board, off in pc.
  // "one_assault_per_hex".
  bool one_assault_per_hex = true;
  // 15.10: at most 3 CP go to an AFV (board); the PC text has no cap. "afv_cp_cap", default
  // true in board, false in pc.
  bool afv_cp_cap = true;
  friend bool operator==(const Options&, const Options&) = default;
};

// Returns the options `match` asks for, or a RuleError naming the bad value.
Result<Options> ParseOptions(const MatchOptions& match);

// What a counter is.
enum class UnitKind : uint8_t {
  kSquad,
  kHalfSquad,
  kLeader,   // Also a hero (16.5): a leader with `valorous`.
  kAfv,      // Armoured fighting vehicle: defends with its MG APFP only (15.4).
  kVehicle,  // Unarmored vehicle: MG APFP, or 2 without MGs (15.5).
  kGun,      // Defends with 2 (15.5), 0 while transported.
};

// Returns "squad", "half_squad", "leader", "afv", "vehicle" or "gun".
std::string_view Name(UnitKind kind);
// Returns true for squads, half squads and leaders.
bool IsInfantry(UnitKind kind);

// A support weapon a unit carries (12.3). Expendables (Grenades, Satchel Charges) are not carried:
// they are in the side's pool (12.5).
struct SupportWeapon {
  std::string id;    // e.g. "LMG1"
  std::string name;  // e.g. "M1919A6"
  int apfp = 0;
  bool heavy = false;        // (H); otherwise (L)
  bool machine_gun = false;  // 15.2: the only (L) weapons an assaulter may use
  friend bool operator==(const SupportWeapon&, const SupportWeapon&) = default;
};

// One counter, as printed (APFP - Range - Casualty Rating) plus its status markers.
struct Unit {
  std::string id;  // Unique in the situation; players name units by it.
  Seat owner = Seat::kSideA;
  UnitKind kind = UnitKind::kSquad;
  std::string name;  // Optional label, e.g. "4-6-5 Rifle" or "Schmidt 1-3-1".
  // Inherent APFP. AFV and vehicle: the APFP of their machine guns (the main Gun's is
  // `main_gun_apfp`, never used in a close assault, 15.4).
  int apfp = 0;
  int main_gun_apfp = 0;
  int casualty_rating = 0;
  // Squads: the half squad they are reduced to (13.10, 14.61).
  int reduced_apfp = 0;
  int reduced_casualty_rating = 0;
  int leadership = 0;  // Leaders: the magnitude of the Leadership Modifier (VV-AMB-2), 0..3.
  bool valorous = false;
  bool pinned = false;
  bool advanced = false;  // Advanced this Advance and Assault Phase: cannot assault (15.1).
  bool immobile = false;  // AFV
  bool gun_shield_faces_assault = false;  // 14.63: a Gun Shield and the assault within its FFA
  std::string carrier;    // A passenger (or a transported Gun): the vehicle carrying it.
  std::vector<SupportWeapon> weapons;
  friend bool operator==(const Unit&, const Unit&) = default;
};

// The hex assaulted: what its cover modifier is made of (15.8, VV-AMB-5).
struct TargetHex {
  std::string name;             // e.g. "C1"
  int terrain_cover = 0;        // building +3, woods +2, open 0, ...
  int hexside_cover = 0;        // the hexside crossed by the assault (wall, hedge +1)
  int fortification_cover = 0;  // foxhole +1, trench +2, bunker +3/+4, sandbags +2
  int hindrance_cover = 0;      // orchard, crops, ... (+1 each)
  int capacity = 0;             // 0: no limit; a Bunker holds 2 infantry units (20.5)
  friend bool operator==(const TargetHex&, const TargetHex&) = default;
};

// Each side's expendable support weapons available (12.5).
struct Expendables {
  int grenades = 0;
  int satchel_charges = 0;
  int satchel_apfp = 0;  // the APFP one Satchel Charge adds (12.53)
  friend bool operator==(const Expendables&, const Expendables&) = default;
};

// One close assault as both sides entered it.
struct Situation {
  Seat attacker = Seat::kSideA;  // The assaulting (phasing) side.
  std::string source_hex;        // The one hex the assault comes from (15.1).
  TargetHex target;
  int uphill_levels = 0;         // 15.81: levels climbed into a hill hex, 0..4
  bool source_assaulted_this_turn = false;  // 15.1 (board): a close assault already came from it
  std::vector<Unit> units;  // The attacker's units in the source hex, the defender's in the target.
  std::array<Expendables, 2> expendables;  // By Seat.
  friend bool operator==(const Situation&, const Situation&) = default;
};

// Returns nothing when `situation` is consistent (ids unique, values in range, carriers exist,
// each side has a unit), else a RuleError naming the unit and field.
Result<void> ValidateSituation(const Situation& situation);

// The Close Assault Table (B.1.1) and the odds of 15.6 (B.1.2).
enum class Odds : uint8_t { k1to4, k1to3, k1to2, k1to1, k2to1, k3to1, k4to1 };

// Returns "1-4" ... "4-1".
std::string_view Name(Odds odds);
// 15.6: the larger total over the smaller, rounded down and clamped to 4 (VV-AMB-1). Requires
// both totals > 0.
Odds OddsOf(int assault_apfp, int defence_apfp);
// The Kill Number printed under `odds`: 3, 4, 5, 6, 8, 9, 10.
int KillNumber(Odds odds);

}  // namespace melee::engine::vv
