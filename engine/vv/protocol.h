#pragma once

// Commands, events and views of the vv ruleset: how one close assault (rule 15) is played.
//
//   SetUp(situation)      once: the target hex, the units in it and in the source hex
//   Declare(...)          both seal at once (the defender only when an unpinned unit defends):
//                         the assaulter its group, leader and SW/Grenades/Satchel Charges; the
//                         defender its leader and SW/Grenades/Satchel Charges (15.2, 15.3)
//     -> revealed together, then the engine resolves the assault (15.6-15.9) with one DR
//   Allocate(allocation)  each side that suffers Casualty Points applies them (14.61-14.65,
//                         15.10); after a failed assault both seal at once and are revealed
//                         together. In the pc edition the engine allocates (VV-AMB-13).
//
// Events name units by their index in State::units (units are never erased, only marked).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/core/dice.h"
#include "engine/core/ruleset.h"
#include "engine/vv/model.h"

namespace melee::engine::vv {

// ---- commands -------------------------------------------------------------------------------

struct SetUp {
  Situation situation;
  friend bool operator==(const SetUp&, const SetUp&) = default;
};

// What one unit brings to the assault besides its inherent APFP.
struct UnitUse {
  std::string unit;
  std::string weapon;  // a SW it carries ("" none), 12.3 / 15.2
  bool grenades = false;  // one Grenades counter from the side's pool, 12.52
  bool satchel = false;   // one Satchel Charge from the side's pool, 12.53
  friend bool operator==(const UnitUse&, const UnitUse&) = default;
};

// A side's sealed close-assault declaration.
struct Declare {
  // Assaulter: the assault group, units of the source hex (15.1); empty calls the assault off.
  // Defender: must be empty, every unit in the target hex defends (15.1).
  std::vector<std::string> group;
  // Board edition: the one leader whose Leadership Modifier is used (15.3), "" for none. The pc
  // edition picks the best leader itself, so it must be "".
  std::string leader;
  std::vector<UnitUse> uses;
  friend bool operator==(const Declare&, const Declare&) = default;
};

// One way of fulfilling Casualty Points (14.61-14.65, 15.10).
enum class CpActionKind : uint8_t {
  kIgnore,          // 14.63: a valorous unit (or a Gun Shield facing the assault) ignores 1 CP
  kPin,             // 1 CP
  kReduce,          // squad -> half squad: the difference in Casualty Rating
  kReduceAndPin,    // the reduced half squad is also pinned: +1
  kEliminate,       // its Casualty Rating (+ its passengers' when a vehicle takes them along)
  kSurvivalRoll,    // 14.64: `points` (2..CR) on a Gun or unarmored vehicle, then the survival dr
  kImmobilization,  // 15.10: `points` on an AFV, then the immobilization d6 (3 board: no roll)
};

// Returns "ignore", "pin", "reduce", "reduce_and_pin", "eliminate", "survival_roll",
// "immobilization".
std::string_view Name(CpActionKind kind);

struct CpAction {
  std::string unit;
  CpActionKind kind = CpActionKind::kPin;
  int points = 0;  // kSurvivalRoll and kImmobilization only
  friend bool operator==(const CpAction&, const CpAction&) = default;
};

struct Allocation {
  std::vector<CpAction> actions;
  // After taking a hex that holds fewer units than the group (a Bunker, 20.5): which survivors
  // move in. Empty: the first survivors in group order.
  std::vector<std::string> occupy;
  friend bool operator==(const Allocation&, const Allocation&) = default;
};

struct Allocate {
  Allocation allocation;
  friend bool operator==(const Allocate&, const Allocate&) = default;
};

using Command = std::variant<SetUp, Declare, Allocate>;

// ---- events ---------------------------------------------------------------------------------

// A number that changes a total, and the rule it comes from ("15.3 leader Schmidt", -1).
struct Modifier {
  std::string rule;
  std::string what;
  int value = 0;
  friend bool operator==(const Modifier&, const Modifier&) = default;
};

// How one unit's APFP counts in the assault (12.3, 12.53, 15.4, 15.5, 16.3).
struct Contribution {
  uint16_t unit = 0;
  int apfp = 0;           // what it adds to its side's total
  std::string how;        // e.g. "4 inherent x2 (valor) + 3 LMG1"
  friend bool operator==(const Contribution&, const Contribution&) = default;
};

// 16.2: a unit of the assault group checks for Valor after a natural 2.
struct ValorCheck {
  uint16_t unit = 0;
  TwoDice dr;
  int needed = 0;  // at most this: its Casualty Rating, a leader 6
  bool valorous = false;
  friend bool operator==(const ValorCheck&, const ValorCheck&) = default;
};

// Every number of one close assault.
struct AssaultReport {
  std::vector<uint16_t> pinned_eliminated;  // 15.9, before the odds
  bool automatic = false;     // 15.9: only pinned defenders: no roll, no Casualty Points
  bool called_off = false;    // the assaulter declared no group
  std::vector<Contribution> assault;
  std::vector<Contribution> defence;
  int assault_apfp = 0;
  int defence_apfp = 0;
  Odds odds = Odds::k1to1;
  int printed_kill_number = 0;
  std::vector<Modifier> kill_number_modifiers;  // 15.3 defending leader, 12.52 Grenades
  int kill_number = 0;
  TwoDice dr;
  std::vector<Modifier> dr_modifiers;  // 15.3 assaulting leader, 12.52 Grenades
  int final_dr = 0;
  bool success = false;  // the assault took the hex: by the roll (15.7) or automatically (15.9)
  int margin = 0;  // final DR - Kill Number on a failure (VV-AMB-7)
  std::vector<Modifier> assaulter_cp_parts;  // 15.8, 15.81
  int assaulter_cp = 0;
  std::vector<Modifier> defender_cp_parts;   // 15.8 failure: 1 per assaulting unit
  int defender_cp = 0;
  std::vector<ValorCheck> valor_checks;      // 16.2 on a natural 2 (VV-AMB-8)
  bool sniper_activated = false;             // 17.2 on a natural 12 (VV-AMB-8): the defender's
  std::vector<uint16_t> leaders;             // the leaders whose LM counted (15.3)
  std::vector<std::string> notes;            // defaults and editions applied, labelled
  friend bool operator==(const AssaultReport&, const AssaultReport&) = default;
};

enum class EffectKind : uint8_t {
  kEliminated,
  kPinned,
  kReduced,      // now a half squad: apfp/casualty_rating from its reduced side
  kImmobilized,  // AFV, 15.10
  kValorous,     // 16.2
  kIgnoredCp,    // 14.63: the first CP ignored
  kOccupied,     // moved into the target hex (15.8)
  kExpended,     // Grenades / Satchel Charges used: `value` counters of `text`, side `seat`
};

struct Effect {
  EffectKind kind = EffectKind::kEliminated;
  uint16_t unit = 0;
  int value = 0;
  Seat seat = Seat::kSideA;  // kExpended
  std::string text;
  friend bool operator==(const Effect&, const Effect&) = default;
};

enum class Phase : uint8_t {
  kSetUp,     // Waiting for SetUp.
  kDeclare,   // Waiting for the declarations State::owes names.
  kAllocate,  // Waiting for the Casualty Point allocations State::owes names.
  kEnded,     // The close assault is over.
};

enum class EventKind : uint8_t {
  kSetUp,                 // situation
  kDeclarationSealed,     // seat, declare (hidden from the other seat until revealed)
  kDeclarationsRevealed,  // effects (expended Grenades / Satchel Charges)
  kAssaultResolved,       // report, rolls, effects (pinned defenders, success: all defenders)
  kAllocationSealed,      // seat, allocation (hidden from the other seat until revealed)
  kAllocationsRevealed,   // (both allocations are now public)
  kCasualtiesApplied,     // seat (whose units), cp, actions, rolls, effects, notes
  kAssaultEnded,          // effects (who occupies the hex), notes
};

struct Event {
  EventKind kind = EventKind::kSetUp;
  Seat seat = Seat::kSideA;
  std::optional<Situation> situation;
  std::optional<Declare> declare;
  std::optional<Allocation> allocation;
  std::optional<AssaultReport> report;
  int cp = 0;  // kCasualtiesApplied: the Casualty Points to fulfil
  std::vector<DieRoll> rolls;  // Every die this event rolled, in order.
  std::vector<Effect> effects;
  std::vector<std::string> notes;
  friend bool operator==(const Event&, const Event&) = default;
};

// ---- state ----------------------------------------------------------------------------------

struct State {
  Options options;
  Phase phase = Phase::kSetUp;
  Situation situation;      // as set up
  std::vector<Unit> units;  // now: pinned, reduced, valorous, immobile as the assault left them
  std::vector<bool> eliminated;
  std::vector<bool> in_target;  // in the target hex (the defenders, and assaulters who moved in)
  std::array<Expendables, 2> expendables;
  std::array<bool, 2> owes = {false, false};  // a declaration or an allocation, by Seat
  std::array<std::optional<Declare>, 2> declared;
  bool declarations_revealed = false;
  std::optional<AssaultReport> report;
  std::array<int, 2> cp = {0, 0};  // Casualty Points each side must fulfil
  std::array<std::optional<Allocation>, 2> allocated;
  bool allocations_revealed = false;
  friend bool operator==(const State&, const State&) = default;
};

// What one viewer sees. Everything in a V&V close assault is open except a sealed declaration or
// allocation, shown only to its own seat until both are revealed (the director too sees it only
// after the reveal).
struct View {
  Phase phase = Phase::kSetUp;
  Edition edition = Edition::kBoard;
  Situation situation;
  std::vector<Unit> units;
  std::vector<bool> eliminated;
  std::vector<bool> in_target;
  std::array<Expendables, 2> expendables;
  std::array<bool, 2> owes = {false, false};
  std::array<bool, 2> has_sealed = {false, false};
  std::array<std::optional<Declare>, 2> declarations;  // only those this viewer may see
  std::optional<AssaultReport> report;
  std::array<int, 2> cp = {0, 0};
  std::array<std::optional<Allocation>, 2> allocations;  // only those this viewer may see
};

}  // namespace melee::engine::vv
