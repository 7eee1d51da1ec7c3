#pragma once

// Commands, events and views of the coc ruleset: how one Chain of Command contact (rule 17) is
// played.
//
//   SetUp(situation)   once: the Units in contact and the table-top facts. An over-run (17.7) or
//                      a ramming (17.8) is resolved at once: it has no choices.
//   Declare(...)       both seal at once, before any die (17.2): the attacker whether it fights
//                      (when 17.1 makes it optional) and, with several Units, together or in
//                      sequence; the defender what each supporting Unit does. Each also says
//                      whether it advances if it wins (17.5).
//     -> revealed together; then each round: Combat Dice (17.3), Overwhelming Numbers (17.3.1),
//        the roll (17.4)
//   Place(odd hits)    each side that received hits which do not spread equally over its Teams
//                      places the odd Kills and Shock (17.4.1); both seal at once, revealed
//                      together. Then the hits, the Leaders (17.5.1) and the result (17.5).
//
// Events name Units, Teams and Leaders by index (units are never erased, only marked).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/core/dice.h"
#include "engine/core/ruleset.h"
#include "engine/coc/model.h"

namespace melee::engine::coc {

// ---- commands -------------------------------------------------------------------------------

struct SetUp {
  Situation situation;
  friend bool operator==(const SetUp&, const SetUp&) = default;
};

// A side's sealed choices before the roll.
struct Declare {
  // Attacker: false declines a Close Combat 17.1 makes optional (refused when it is automatic).
  bool engage = true;
  // Attacker with several Units: fight together (true) or in sequence (17.2).
  bool together = true;
  // Attacker in sequence: the order its Units fight in (empty: set-up order).
  std::vector<std::string> sequence = {};
  // Defender: its Units within 4" that give Supporting Fire; the others take no part (17.2).
  std::vector<std::string> support = {};
  // Either side: advance into the loser's ground if it wins (17.5); otherwise hold.
  bool advance = false;
  friend bool operator==(const Declare&, const Declare&) = default;
};

// The odd Kills and Shock a side places on its own Teams (17.4.1), by Team id: each list as long
// as the odd hits, no Team twice in one list.
struct Place {
  std::vector<std::string> odd_kills = {};
  std::vector<std::string> odd_shock = {};
  friend bool operator==(const Place&, const Place&) = default;
};

using Command = std::variant<SetUp, Declare, Place>;

// ---- events ---------------------------------------------------------------------------------

// A Team, by its Unit's index in State::units and its index in Unit::teams.
struct TeamRef {
  uint16_t unit = 0;
  uint16_t team = 0;
  friend bool operator==(const TeamRef&, const TeamRef&) = default;
  friend auto operator<=>(const TeamRef&, const TeamRef&) = default;
};

// One row of the 17.3 table as it applied: the running total before and after.
struct DiceRow {
  std::string rule;  // "17.3", "17.6", CoC-AMB-*
  std::string what;  // e.g. "8 SMGs and assault rifles"
  int before = 0;
  int after = 0;
  friend bool operator==(const DiceRow&, const DiceRow&) = default;
};

struct Pool {
  std::vector<DiceRow> rows;
  int dice = 0;
  friend bool operator==(const Pool&, const Pool&) = default;
};

// Hits one Team takes.
struct TeamHits {
  TeamRef team;
  int kills = 0;
  int shock = 0;
  friend bool operator==(const TeamHits&, const TeamHits&) = default;
};

// One round's Combat Dice and roll.
struct RoundReport {
  int combat = 0;  // index in State::combats
  int round = 1;
  std::array<Pool, 2> pools;  // By Seat.
  std::optional<Seat> overwhelmed;  // 17.3.1: this side has a quarter of the other's dice or less
  std::array<std::vector<int>, 2> faces;  // By Seat: the dice each side rolled, after rerolls
  std::array<int, 2> kills = {0, 0};  // By Seat: the 6s it rolled (Kills on the other side)
  std::array<int, 2> shock = {0, 0};  // By Seat: the 5s it rolled (Shock on the other side)
  // By Seat: the even share of the hits the side *receives*, per fighting Team, and the odd
  // ones its owner places (17.4.1).
  std::array<std::vector<TeamHits>, 2> shares;
  std::array<int, 2> odd_kills = {0, 0};
  std::array<int, 2> odd_shock = {0, 0};
  std::vector<std::string> notes;
  friend bool operator==(const RoundReport&, const RoundReport&) = default;
};

// 17.4 hits() = 5s and 6s.
inline int Hits(const RoundReport& report, Seat seat) {
  const size_t i = seat == Seat::kSideA ? 0 : 1;
  return report.kills[i] + report.shock[i];
}

enum class OutcomeKind : uint8_t {
  kNone,          // no Close Combat (the attacker declined, or nobody left to fight)
  kFightAgain,    // a Draw (or a Defeat by One for Aggressive / Stubborn, 17.5): another round
  kRetire,        // Draws for the maximum of rounds: both retire 6" (CoC-AMB-3)
  kDefeated,      // Defeated by 1, 2 or 3: the loser retreats 6", 9" or 12"
  kBroken,        // Defeated by 4+ with an active Leader, or overwhelmed with a Leader: Breaks
  kSurrendered,   // Defeated by 4+ with no active Leader, or overwhelmed without a Leader
  kWipedOut,      // the loser has no figure left
  kBrokeByShock,  // the loser's Shock reached twice its figures
  kMutual,        // both wiped out or broken in the same round: no winner (CoC-AMB-5)
};

std::string_view Name(OutcomeKind kind);

struct Outcome {
  OutcomeKind kind = OutcomeKind::kNone;
  std::optional<Seat> winner;
  int margin = 0;  // the winner's hits minus the loser's
  int retreat_inches = 0;
  bool facing_away = false;
  int shock_per_team = 0;  // added to each losing Team
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

// One Force Morale test (placeholder table, C.7).
struct ForceMoraleTest {
  Seat seat = Seat::kSideA;
  std::string cause;  // unit_wiped_out, unit_broken, leader_captured, support_unit_lost, ...
  int die = 0;
  int loss = 0;
  int level = 0;  // after the test
  friend bool operator==(const ForceMoraleTest&, const ForceMoraleTest&) = default;
};

enum class EffectKind : uint8_t {
  kKills,        // team, value figures killed
  kShock,        // team, value Shock added
  kLeaderHit,    // unit, index (leader), text (killed | wounded | stunned)
  kLeaderCaptured,  // unit, index (leader)
  kRetreat,      // unit, value inches, text (facing the enemy | facing away)
  kBroken,       // unit
  kSurrendered,  // unit: its figures are prisoners and leave play with their guards (17.5.6)
  kGuards,       // team, value figures leave play guarding prisoners (17.5.6)
  kAbandoned,    // unit: its crewed weapon abandoned, the Unit removed (17.5.5)
  kWithdrew,     // unit: gave Supporting Fire and withdraws with the losers (17.5.4)
  kAdvanced,     // unit: occupies the loser's ground
  kHeld,         // unit: holds its position
  kEvaded,       // team, value inches (2D6, 17.7) or 3 (17.7.1)
  kMovedAway,    // team, value inches (4", 17.7)
  kDestroyed,    // team: crewed weapon destroyed and its crew removed (17.7.1)
  kVehicleShock, // unit, value Shock (17.8)
};

struct Effect {
  EffectKind kind = EffectKind::kKills;
  TeamRef team;  // kKills, kShock, kGuards, kEvaded, kMovedAway, kDestroyed: team; others: unit
  uint16_t index = 0;
  int value = 0;
  std::string text;
  friend bool operator==(const Effect&, const Effect&) = default;
};

enum class Phase : uint8_t {
  kSetUp,    // Waiting for SetUp.
  kDeclare,  // Waiting for the declarations State::owes names.
  kPlace,    // Waiting for the odd-hit placements State::owes names.
  kEnded,    // The contact is over.
};

enum class EventKind : uint8_t {
  kSetUp,                 // situation
  kDeclarationSealed,     // seat, declare (hidden from the other seat until revealed)
  kDeclarationsRevealed,  // notes (the combats, in order, and who supports)
  kRoundRolled,           // report, rolls
  kPlacementSealed,       // seat, place (hidden from the other seat until revealed)
  kPlacementsRevealed,
  kRoundEnded,            // effects, outcome, morale, rolls (Leaders, Force Morale), notes
  kOverrun,               // effects, morale, rolls, notes (17.7, 17.7.1)
  kRam,                   // effects, rolls, notes (17.8)
  kContactEnded,          // notes
};

struct Event {
  EventKind kind = EventKind::kSetUp;
  Seat seat = Seat::kSideA;
  std::optional<Situation> situation;
  std::optional<Declare> declare;
  std::optional<Place> place;
  std::optional<RoundReport> report;
  std::optional<Outcome> outcome;
  std::vector<DieRoll> rolls;  // Every die this event rolled, in order.
  std::vector<Effect> effects;
  std::vector<ForceMoraleTest> morale;
  std::vector<std::string> notes;
  friend bool operator==(const Event&, const Event&) = default;
};

// ---- state ----------------------------------------------------------------------------------

// Whether, and how, a Unit left the ground of the contact (what forces that persist carry on).
enum class Left : uint8_t {
  kStayed,       // advanced, held, or took no part
  kRetreated,    // retreated, retired, fled Broken or withdrew with the losers (17.5, 17.5.4)
  kSurrendered,  // its figures and Leaders are prisoners (17.3.1, 17.5, 17.5.6)
  kRemoved,      // abandoned its crewed weapon and was removed from the game (17.5.5)
};

struct State {
  Options options;
  Phase phase = Phase::kSetUp;
  Situation situation;      // as set up
  std::vector<Unit> units;  // now: figures, Shock, Leaders as the contact left them
  std::vector<bool> gone;   // left play (surrendered, guards' Units are not, abandoned)
  std::vector<Left> left;   // By Unit: whether and how it left the contact's ground
  std::array<int, 2> force_morale = {0, 0};
  std::array<bool, 2> owes = {false, false};  // a declaration or a placement, by Seat
  std::array<std::optional<Declare>, 2> declared;
  bool declarations_revealed = false;
  std::vector<std::vector<uint16_t>> combats;  // the attacking Units of each combat, in order
  std::vector<uint16_t> supporters;            // the defender's Units giving Supporting Fire
  int combat = 0;  // the combat being fought (index in `combats`)
  int round = 0;   // rounds fought in it so far
  std::optional<RoundReport> report;  // the round being resolved
  std::array<std::optional<Place>, 2> placed;
  bool placements_revealed = false;
  std::vector<Outcome> outcomes;  // each round's
  friend bool operator==(const State&, const State&) = default;
};

// What one viewer sees. Everything in a CoC contact is on the table except a sealed declaration
// or placement, shown only to its own seat until both are revealed (the director too sees it
// only after the reveal).
struct View {
  Phase phase = Phase::kSetUp;
  Situation situation;
  std::vector<Unit> units;
  std::vector<bool> gone;
  std::array<int, 2> force_morale = {0, 0};
  std::array<bool, 2> owes = {false, false};
  std::array<bool, 2> has_sealed = {false, false};
  std::array<std::optional<Declare>, 2> declarations;  // only those this viewer may see
  std::optional<RoundReport> report;
  std::array<std::optional<Place>, 2> placements;  // only those this viewer may see
  std::vector<Outcome> outcomes;
};

}  // namespace melee::engine::coc
