#pragma once

// Commands, events and views of the asl ruleset: how a CC Location is played as a match.
//
//   SetUp(situation)                       once, by either seat: the Location and its units
//   Announce(withdraw, solo, hth, ...)     each seat, ATTACKER first (A11.2, A11.14, J2.31)
//     -> the engine removes Dummies, checks Ambush (A11.4) and, when due, declares HtH
//   Seal(declaration)                      simultaneous CC: both seal, then everything resolves;
//                                          sequential CC (A11.32): the side to act declares and
//                                          resolves attacks in turns until it passes
//   Choose(choice)                         answers a choice the rules give a seat mid-resolution
//                                          (Infiltration A11.22, which unit is captured A20.22,
//                                          Ambush Withdrawal after CC A11.41)
//
// Units are referred to by their index in State::units inside events (fast, stable: units are
// never erased, only marked), and by id in commands.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/asl/attack.h"
#include "engine/asl/model.h"
#include "engine/asl/vehicle.h"
#include "engine/core/dice.h"
#include "engine/core/rational.h"
#include "engine/core/ruleset.h"
#include "engine/core/shared_value.h"

namespace melee::engine::asl {

// ---- commands -------------------------------------------------------------------------------

struct SetUp {
  Situation situation;
};

// What a side announces at the start of the CCPh, before anyone designates attacks.
struct Announce {
  std::vector<std::string> withdraw;         // A11.2: Withdrawal from Melee attempts.
  std::vector<std::string> cannot_withdraw;  // A11.16: broken units unable to withdraw.
  std::vector<std::string> solo;             // A11.14: SMC attacking (and defending) alone.
  bool declare_hth = false;                  // J2.31 optional HtH (ATTACKER, DASL/RB only).
  friend bool operator==(const Announce&, const Announce&) = default;
};

// A side's CC attacks in the Location (A11.12), or in sequential CC the attacks of one turn.
struct Seal {
  std::vector<AttackOrder> attacks;
  std::vector<std::string> ambush_withdraw;  // A11.41: the ambusher declines CC and withdraws.
  friend bool operator==(const Seal&, const Seal&) = default;
};

// The answer to a ChoiceRequested event.
struct Choose {
  uint32_t choice_id = 0;
  std::vector<std::string> selected;  // Unit ids from the choice's options.
};

using Command = std::variant<SetUp, Announce, Seal, Choose>;

// ---- events ---------------------------------------------------------------------------------

// One change to a unit, in the order it happens. Events carry these; Apply folds them.
enum class EffectKind : uint8_t {
  kEliminated,            // CC kill, KIA, Failure to Rout (A11.16), withdrawal into hidden enemy.
  kReduced,               // Casualty Reduction of a squad: now a HS with `value` FP (A7.302).
  kWounded,               // SMC wound, minor (A17.11); `value` = wounds now.
  kCaptured,              // Captured (A20.22), provisional until the end of the CCPh (ASL-AMB-7).
  kCaptureVoided,         // Every captor was eliminated: the unit stays free (ASL-AMB-7).
  kConcealmentLost,       // A11.19 / A11.4 / CR on a concealed unit.
  kWithdrawn,             // Left the Location (A11.2, A11.22, A11.41).
  kSupportWeaponLost,     // A SW/Gun destroyed (A11.13); `text` names it.
  kSupportWeaponDropped,  // A SW left unpossessed in the Location (A11.13, A20.24).
  kLeaderCreated,         // A18.2: new unit appended (index = `unit`), `text` = "8-0" etc.
  kHalfSquadCreated,      // A20.22: a squad split so one HS is captured; new unit = `unit`.
  kPinned,                // A failed PAATC (A11.6), ATMM dr 6 (C13.7), PTC or MC (A7.8).
  kBroken,                // A failed MC (A10) after the sN attack (A11.622).
  kImmobilized,           // A vehicle immobilized in CC (A11.5).
  kWeaponMalfunctioned,   // A vehicle weapon (`value` = Weapon bit) malfunctions (ASL-AMB-11).
};

struct Effect {
  EffectKind kind = EffectKind::kEliminated;
  uint16_t unit = 0;  // Index into State::units (for creations: the new unit's index).
  int value = 0;
  std::string text;
  std::optional<Unit> created;  // kLeaderCreated / kHalfSquadCreated: the new unit.
  std::vector<uint16_t> by;     // kCaptured: the capturing units (A20.22).
  friend bool operator==(const Effect&, const Effect&) = default;
};

// The result of one CC DR for one target unit (A11.11).
enum class Outcome : uint8_t {
  kNoEffect,    // Final DR > Kill #
  kPartial,     // Final DR == Kill #: in the Random Selection (or capture choice) set
  kEliminated,  // Final DR < Kill #
  kCaptured,    // Final DR < Kill # on a capture attempt
  // A vehicle attacked in CC (A11.5, A11.501).
  kImmobilized,  // Final DR == CCV (kEliminated: Final DR < CCV, a wreck)
  kBurning,      // Final DR <= half the CCV: a burning wreck
};

struct TargetResult {
  uint16_t unit = 0;
  std::vector<Drm> drms;  // DRM that apply to this target only (broken, withdrawing, CX, ...).
  int final_dr = 0;
  Outcome outcome = Outcome::kNoEffect;
  friend bool operator==(const TargetResult&, const TargetResult&) = default;
};

// A18.2 Leader Creation after an MMC's Original 2.
struct LeaderCreation {
  int dr = 0;
  std::vector<Drm> drms;
  int final_dr = 0;
  std::string leader;  // "8-0", or "" when none is created.
  friend bool operator==(const LeaderCreation&, const LeaderCreation&) = default;
};

// A Task or Morale Check: the PAATC (A11.6) and the checks the sN attack's IFT result calls for
// (A11.622, A7.3, A10).
enum class CheckResult : uint8_t {
  kPassed,
  kPinned,      // PAATC/PTC failed, or a MC passed with Final DR == ML (A7.8)
  kBroken,      // MC failed (A10)
  kEliminated,  // a broken unit failed a MC, or a KIA result
};

struct TaskCheck {
  uint16_t unit = 0;
  std::string check;  // "PAATC", "1TC", "PTC", "NMC", "2MC"
  TwoDice dr;
  std::vector<Drm> drms;
  int final_dr = 0;
  int morale = 0;
  CheckResult result = CheckResult::kPassed;
  friend bool operator==(const TaskCheck&, const TaskCheck&) = default;
};

// C13.7: the ATMM check before an attack on a vehicle.
struct AtmmReport {
  uint16_t unit = 0;
  int dr = 0;
  std::vector<Drm> drms;
  int final_dr = 0;
  AtmmResult result = AtmmResult::kNone;
  friend bool operator==(const AtmmReport&, const AtmmReport&) = default;
};

// A11.622: a Close Defense Weapon System attack on every unarmored unit in the Location.
struct CloseDefenseReport {
  TwoDice dr;
  int usage = 0;                 // the sN Usage Number: an Original DR above it has no effect
  std::optional<IftResult> ift;  // the 16-FP IFT result, when it fired
  bool placeholder = false;      // the IFT column is the placeholder (no sn_ift option)
  std::vector<uint16_t> targets;
  std::vector<int> selection_drs;  // A.9 Random Selection for a K/ or KIA result
  std::vector<TaskCheck> checks;
  friend bool operator==(const CloseDefenseReport&, const CloseDefenseReport&) = default;
};

// Every number of one resolved CC attack.
struct AttackReport {
  Seat side = Seat::kSideA;
  std::vector<uint16_t> attackers;
  std::vector<uint16_t> targets;
  std::optional<uint16_t> director;  // A11.141
  bool capture = false;
  bool hth = false;
  Rational attack_strength;
  Rational defence_strength;
  std::vector<Halving> halvings;
  Column column = Column::kOneToOne;
  int kill_number = 0;
  std::vector<Drm> drms;  // Common to every target.
  TwoDice dr;
  std::optional<LeaderCreation> leader_creation;
  std::vector<TargetResult> results;
  std::vector<std::string> notes;  // Defaults applied and placeholders, labelled.
  // Vehicles (A11.5-A11.622).
  uint8_t weapons = 0;     // A11.62: the attacking vehicle's weapons (Weapon bits)
  bool vs_vehicle = false;  // A11.5: `kill_number` is the CCV; no odds
  int ccv_base = 0;
  std::vector<Drm> ccv_modifiers;
  std::optional<AtmmReport> atmm;
  std::optional<int> unlikely_kill_dr;  // A11.501
  bool crew_small_arms = false;         // A11.621
  std::optional<CloseDefenseReport> close_defense;
  friend bool operator==(const AttackReport&, const AttackReport&) = default;
};

struct AmbushReport {
  std::array<int, 2> dr = {0, 0};  // By Seat.
  std::array<std::vector<Drm>, 2> drms;
  std::array<int, 2> final_dr = {0, 0};
  std::optional<Seat> ambusher;
  friend bool operator==(const AmbushReport&, const AmbushReport&) = default;
};

// Which question a choice asks.
enum class ChoiceKind : uint8_t {
  kInfiltration,      // A11.22: withdraw these units now? (selected: the ones that go)
  kCaptureSelection,  // A20.22: which unit of the partial set is captured (exactly one)
  kAmbushWithdrawal,  // A11.41: withdraw after all CC by/against them, before Melee
};

struct PendingChoice {
  uint32_t id = 0;
  Seat seat = Seat::kSideA;
  ChoiceKind kind = ChoiceKind::kInfiltration;
  std::vector<uint16_t> options;
  int min_selected = 0;
  int max_selected = 0;
  std::vector<uint16_t> captors;  // kCaptureSelection: the units that capture (A20.22).
  friend bool operator==(const PendingChoice&, const PendingChoice&) = default;
};

enum class Phase : uint8_t {
  kSetUp,     // Waiting for SetUp.
  kAnnounce,  // Waiting for the seat in State::to_act to announce (ATTACKER first).
  kDeclare,   // Waiting for declarations (sealed: both; attacker_first / sequential: to_act).
  kChoice,    // Waiting for State::pending's seat.
  kEnded,     // The CCPh in this Location is over.
};

enum class EventKind : uint8_t {
  kSetUp,                 // situation
  kAnnounced,             // seat, announce
  kDummiesRemoved,        // effects
  kAmbushChecked,         // ambush, effects (ambushed side loses concealment)
  kHthDeclared,           // notes (why)
  kDeclarationSealed,     // seat, seal (hidden from the other seat until revealed)
  kDeclarationsRevealed,  // effects (attackers lose concealment, A11.19)
  kAttackResolved,        // attack, rolls, effects
  kAttackVoid,            // seat, notes: every target withdrew (ASL-AMB-5)
  kChoiceRequested,       // choice
  kChoiceMade,            // choice, selected, effects
  kPassed,                // seat: done attacking in sequential CC
  kPhaseEnded,            // effects (captures, withdrawals, Failure to Rout), melee
  kPaatcTaken,            // checks, effects: A11.6 PAATC of the units that advanced onto an AFV
  kVehicleCaptured,       // effects: A11.52 an unarmed vehicle alone with enemy Infantry
};

struct Event {
  EventKind kind = EventKind::kSetUp;
  Seat seat = Seat::kSideA;
  std::optional<Situation> situation;
  std::optional<Announce> announce;
  // Shared with the states the event is folded into (a sealed declaration is never modified).
  SharedValue<Seal> seal;
  std::optional<AttackReport> attack;
  std::optional<AmbushReport> ambush;
  std::optional<PendingChoice> choice;
  std::vector<uint16_t> selected;
  std::vector<DieRoll> rolls;  // Every die this event rolled, in order.
  std::vector<Effect> effects;
  std::vector<std::string> notes;
  bool melee = false;  // kPhaseEnded: a Melee marker is placed/kept (A11.15).
  std::vector<TaskCheck> checks;  // kPaatcTaken
  friend bool operator==(const Event&, const Event&) = default;
};

// ---- state ----------------------------------------------------------------------------------

// A run of unit indices in State::queued_units.
struct IndexRange {
  uint32_t first = 0;
  uint32_t count = 0;
  friend bool operator==(const IndexRange&, const IndexRange&) = default;
};

// One declared attack waiting for resolution (queue[0, next_attack) are resolved). Its units are
// kept in State::queued_units, one vector for the whole queue, so that the copy of a state that
// Decide works on reuses the storage of the last one instead of allocating two lists an attack
// (read them with QueuedAttackers and QueuedTargets in rules.h).
struct QueuedAttack {
  Seat side = Seat::kSideA;
  SharedValue<Seal> seal;    // The declaration it is part of, shared with the state and events.
  uint32_t order_index = 0;  // Its place in seal->attacks.
  IndexRange attackers;      // The ids of the order, resolved.
  IndexRange targets;
  const AttackOrder& order() const { return seal->attacks[order_index]; }
  friend bool operator==(const QueuedAttack&, const QueuedAttack&) = default;
};

struct State {
  Options options;
  Phase phase = Phase::kSetUp;
  Location location;
  Seat attacker = Seat::kSideA;
  std::vector<Unit> units;
  // IdKey(units[i].id) by index: a lookup by id compares these numbers, not the strings.
  std::vector<uint64_t> unit_keys;
  // Strength as declared: simultaneous CC attacks with it even after losses (A11.12).
  std::vector<int> declared_strength;
  Seat to_act = Seat::kSideA;
  std::array<std::optional<Announce>, 2> announced;
  std::array<SharedValue<Seal>, 2> sealed;  // Shared with the events that sealed them.
  std::array<bool, 2> passed = {false, false};  // Sequential CC: done attacking.
  bool sequential = false;
  bool hth = false;
  std::optional<Seat> ambusher;
  UnitFlags withdrawing;  // A11.2 announced, by unit index.
  UnitFlags cannot_withdraw;
  UnitFlags solo;
  UnitFlags has_attacked;
  UnitFlags is_attacked;
  std::vector<std::vector<uint16_t>> captors;  // A20.22: who captured each unit (provisional).
  std::vector<QueuedAttack> queue;             // Simultaneous: ATTACKER's first, then DEFENDER's.
  std::vector<uint16_t> queued_units;          // The queue's attackers and targets (IndexRange).
  size_t next_attack = 0;
  std::optional<PendingChoice> pending;
  std::vector<PendingChoice> later_choices;  // Asked after `pending` is answered, in order.
  uint32_t next_choice_id = 1;
  bool end_choices_offered = false;
  bool melee = false;
  // A11.31: a vehicle is in the Location: the sides alternate single attacks.
  bool alternating = false;
  std::vector<uint8_t> weapons_used;  // A11.62: Weapon bits each vehicle has used this CCPh.
  friend bool operator==(const State&, const State&) = default;
};

// A unit as one viewer sees it. A concealed unit of the other side is `hidden` (A11.19, A12):
// its `unit` keeps only the id, owner, presence and concealment, plus, once Dummies are gone and
// attacks are about to be designated, the Strength Factor that A11.19 reveals (in `firepower`).
// Before that a Dummy and a real unit look the same.
struct ViewedUnit {
  Unit unit;
  bool hidden = false;
  friend bool operator==(const ViewedUnit&, const ViewedUnit&) = default;
};

// What one viewer sees. A sealed declaration is shown only to its own seat until both are
// revealed (the director too sees it only after the reveal); concealed units are hidden from
// the other side and from spectators (the director sees them).
struct View {
  Phase phase = Phase::kSetUp;
  Location location;
  Seat attacker = Seat::kSideA;
  std::vector<ViewedUnit> units;
  // The seat the step waits for: the one to announce, to declare (sealed declarations: the
  // ATTACKER until it has sealed, then the DEFENDER if it has not) or to answer the choice.
  Seat to_act = Seat::kSideA;
  std::array<bool, 2> has_sealed = {false, false};
  std::array<SharedValue<Seal>, 2> declarations;  // Only those this viewer may see (shared).
  std::optional<PendingChoice> pending;
  std::optional<Seat> ambusher;
  bool sequential = false;
  bool alternating = false;
  bool hth = false;
  bool melee = false;
};

}  // namespace melee::engine::asl
