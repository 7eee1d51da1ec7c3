#pragma once

// What the server needs from one ruleset beyond the engine's Decide/Apply/View: reading its wire
// commands, logging them, and rendering its events and views for each seat. One per ruleset;
// stateless and immutable, so one instance serves every match on every thread.
//
// The engine decides what each viewer may see (Ruleset::View); a host only renders that view and
// masks each event with it, so visibility has one source of truth.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/dice.h"
#include "engine/core/result.h"
#include "engine/core/ruleset.h"
#include "melee/v1/envelope.pb.h"
#include "melee/v1/match.pb.h"
#include "server/force_units.h"

namespace melee::server {

// An engine command read from the wire, with the bytes the log keeps for it (its cause).
struct DecodedCommand {
  engine::AnyCommand command;
  std::string logged;
};

// The set-up parts both sides entered, by seat (side A first; null: none yet). Shared and
// immutable, so that a match's every command does not copy them.
using SetupPart = std::shared_ptr<const melee::v1::SubmitSetup>;
using SetupParts = std::array<SetupPart, 2>;

// The Location and the ATTACKER a set-up names, where it names them.
struct SetupFacts {
  std::string location;
  std::optional<engine::Seat> attacker;
};

// What the rules wait for, and from whom.
struct Awaiting {
  enum class Kind { kNothing, kAnnouncement, kDeclaration, kChoice };
  Kind kind = Kind::kNothing;
  std::vector<engine::Seat> seats;  // who owes it, in the order the default is taken
  // Names the step. A new step (another name) starts a new deadline; a seat acting within the
  // same step (one side sealing while the other still owes) does not.
  std::string step;
};

// One die of a logged event, and the seat it was rolled for (an attack's DR is the attacker's;
// none when the rules roll for nobody in particular).
struct LoggedDie {
  engine::DieRoll roll;
  std::optional<engine::Seat> seat;
};

// Returns the die a ruleset event logged in its wire form, rolled for `seat`.
inline LoggedDie LoggedDieOf(const melee::v1::DieRoll& die, std::optional<engine::Seat> seat) {
  LoggedDie logged;
  logged.roll.purpose = die.purpose();
  logged.roll.color = die.color() == melee::v1::DieRoll::COLOR_COLORED ? engine::DieColor::kColored
                      : die.color() == melee::v1::DieRoll::COLOR_WHITE ? engine::DieColor::kWhite
                                                                       : engine::DieColor::kSingle;
  logged.roll.value = static_cast<int>(die.value());
  logged.seat = seat;
  return logged;
}

// An event as some viewers see it, rendered around its logged bytes (RulesetHost::RenderAround):
// for each viewer, the MatchEvent without the ruleset's own field (`around`), and that field's
// bytes: the logged event as it is (`as_logged`), or as it is masked for the viewer (`masked`).
// The viewer's MatchEvent is `around` serialized, then that field after it
// (proto::SerializeDeterministicWith): a ruleset's field (32..34) is above every other field a
// ruleset event sets.
// Parts the viewers share (a reveal's declarations, one a side) are serialized once, as MatchEvents
// of their own (`parts`), and written after the viewer's message, which protobuf merges (a
// sub-message met twice is merged): bit i of `parts_to[k]` gives `parts[i]` to the k-th viewer,
// whose `around` then marks the sub-message (an empty side_a, say) that the part fills.
struct ShownAround {
  std::array<melee::v1::MatchEvent, 4> around;
  std::array<std::string, 4> masked;
  std::array<bool, 4> as_logged{};
  std::array<std::string, 2> parts;
  std::array<uint8_t, 4> parts_to{};
};

// Returns the logged event `Message` that a host's own LogEvent wrote as `logged`, for
// RenderEvent. The match hands back only bytes LogEvent wrote (or that a replay checked equal to
// them), so bytes that do not parse are a defect of the server: it throws std::logic_error.
template <class Message>
Message LoggedForm(std::string_view logged) {
  Message event;
  if (!event.ParseFromArray(logged.data(), static_cast<int>(logged.size()))) {
    throw std::logic_error("RenderEvent: the logged event is not a " + event.GetTypeName());
  }
  return event;
}

// Returns the dice a ruleset's logged event `Message` rolled (a message with `seat` and `dice`,
// as the host's LogEvent wrote it), each for the event's seat; the log is untrusted.
template <class Message>
engine::Result<std::vector<LoggedDie>> DiceOfLoggedEvent(std::string_view logged) {
  Message event;
  if (!event.ParseFromArray(logged.data(), static_cast<int>(logged.size()))) {
    return engine::Reject("", "logged event: not a " + event.GetTypeName());
  }
  std::optional<engine::Seat> seat;
  if (event.seat() == melee::v1::SEAT_SIDE_A) seat = engine::Seat::kSideA;
  if (event.seat() == melee::v1::SEAT_SIDE_B) seat = engine::Seat::kSideB;
  std::vector<LoggedDie> dice;
  for (const melee::v1::DieRoll& die : event.dice()) dice.push_back(LoggedDieOf(die, seat));
  return dice;
}

// Returns the engine command a ruleset's logged `Message` holds, read back by `read` (the codec's
// FromProto, which checks every field: the log is untrusted).
template <class Message, class Read>
engine::Result<engine::AnyCommand> CommandOfLogged(std::string_view logged, Read read) {
  Message command;
  if (!command.ParseFromArray(logged.data(), static_cast<int>(logged.size()))) {
    return engine::Reject("", "logged command: not a " + command.GetTypeName());
  }
  auto decoded = read(command);
  if (!decoded) return tl::unexpected(decoded.error());
  return engine::AnyCommand(std::move(*decoded));
}

// A side's force as the match carries it: its units, by id (shared with the force's copies),
// and what the side itself carries from one close combat to the next (coc: its Force Morale; none
// until a set-up or an update gives it).
struct Force {
  ForceUnits units;
  std::optional<int32_t> force_morale;
};
// Both sides' forces (index 0 is side A).
using Forces = std::array<Force, 2>;

// What a close combat leaves behind: every unit it held, with its status and fate now, and
// whether the Location is in Melee (A11.15: the Melee goes on into the next CCPh).
struct CombatOutcome {
  std::string location;
  std::vector<melee::v1::ForceUnit> units;
  bool melee = false;
  std::optional<engine::Seat> attacker;
  std::string facts;  // the Location's facts to carry (the ruleset's message, serialized)
  // Each side's Force Morale as the close combat holds it (coc); none: not carried.
  std::array<std::optional<int32_t>, 2> force_morale;
};

class RulesetHost {
 public:
  virtual ~RulesetHost() = default;

  virtual const engine::Ruleset& ruleset() const = 0;

  // Checks one side's set-up part: every unit is that seat's own, and it agrees with the other
  // side's part (shared fields, no id used twice). Errors name the field.
  virtual engine::Result<void> CheckSetup(engine::Seat seat, const melee::v1::SubmitSetup& part,
                                          const SetupParts& parts) const = 0;
  // Returns the engine command that starts the close combat from both confirmed parts.
  virtual engine::Result<DecodedCommand> StartCommand(const SetupParts& parts) const = 0;
  // Returns `part` (entered by `owner`) as `viewer` may see it: the owner's concealed units are
  // "?" to everyone but the owner and the director.
  virtual melee::v1::SubmitSetup MaskSetup(const melee::v1::SubmitSetup& part, engine::Seat owner,
                                           engine::Viewer viewer) const = 0;

  // Read wire commands; errors name the field.
  virtual engine::Result<DecodedCommand> FromAnnounce(const melee::v1::Announce& message) const = 0;
  virtual engine::Result<DecodedCommand> FromDeclaration(
      const melee::v1::Declaration& message) const = 0;
  virtual engine::Result<DecodedCommand> FromChoice(const melee::v1::MakeChoice& message) const = 0;
  // Reads a logged command back (replay); the log is untrusted, so errors are possible.
  virtual engine::Result<engine::AnyCommand> FromLogged(std::string_view logged) const = 0;

  // What the rules wait for in `state` (a close combat under way).
  virtual Awaiting AwaitingOf(const engine::AnyState& state) const = 0;
  // The rules default for what `seat` owes in `state`, taken when its deadline passes: announce
  // nothing, declare no attack (a pass in sequential CC), the documented default of a choice.
  virtual DecodedCommand DefaultAction(const engine::AnyState& state, engine::Seat seat) const = 0;
  // Whether `seat`, owing an announcement in `state`, has anything it could announce; a Melee
  // that goes on by itself takes "nothing" (DefaultAction) for a side that has not (A11.2).
  virtual bool CanAnnounce(const engine::AnyState& /*state*/, engine::Seat /*seat*/) const {
    return true;
  }
  // Whether a close combat started from a set-up asks each side to announce even when it has
  // nothing it could announce. The rules as written ask both at the start of every CCPh; a match
  // whose options take announcements away (asl's SSR melee_withdrawal = none) asks only a side
  // that can announce something there too, as a Melee that goes on always does.
  virtual bool AsksEverySideAtStart(const engine::AnyState& /*state*/) const { return true; }
  // The facts the set-up parts give so far (either side may give them; CheckSetup keeps them
  // consistent).
  virtual SetupFacts FactsOf(const SetupParts& parts) const = 0;
  // Whether the close combat is over.
  virtual bool Ended(const engine::AnyState& state) const = 0;
  // Who the match waits for, in words ("side_b: announce").
  virtual std::vector<std::string> WaitingFor(const engine::AnyState& state) const = 0;

  // The log form of `event` (decided in `before`): every detail, for replay and audit.
  virtual std::string LogEvent(const engine::AnyState& before,
                               const engine::AnyEvent& event) const = 0;
  // The dice a logged event rolled, in order (replay feeds them back to Decide; verify derives
  // them again from the committed seeds; audit counts them).
  virtual engine::Result<std::vector<LoggedDie>> DiceOfLogged(std::string_view logged) const = 0;
  // Whether `event` changes what `seat` is deciding on: anything but the other side sealing.
  // A command whose expected_seq is older than such an event is stale.
  virtual bool Material(const engine::AnyEvent& event, engine::Seat seat) const = 0;

  // Fills `out` with `event` as `viewer` may see it: the ruleset's own message and, where one
  // exists, the generic kind. `logged` is the event's log form (LogEvent's bytes, which hold what
  // the state before it adds), `after` the state after it. (So a match renders an event as it
  // applies it, and keeps no copy of the states around it.)
  virtual void RenderEvent(std::string_view logged, const engine::AnyState& after,
                           const engine::AnyEvent& event, engine::Viewer viewer,
                           melee::v1::MatchEvent& out) const = 0;
  // Whether RenderEvent shows `event` alike to every viewer (nothing in it is hidden from
  // anyone), so that it is rendered once for all. False, the safe answer, renders it for each.
  virtual bool SameForEveryViewer(const engine::AnyEvent&) const { return false; }
  // The MatchEvent field under which RenderEvent shows `event` to every viewer as exactly the
  // bytes LogEvent logs, with no field of the generic kinds: the match then sends those bytes
  // without building the event again. 0, the safe answer: RenderEvent builds it.
  virtual int LoggedEventField(const engine::AnyEvent&) const { return 0; }
  // The MatchEvent field of the ruleset's own message when the host renders its events around
  // the logged bytes (RenderAround): a viewer who sees the event as logged is then sent those
  // bytes, without a tree of them built, copied and serialized again for each viewer. 0, the
  // default: the match renders a tree for each viewer (RenderEvent).
  virtual int AroundField() const { return 0; }
  // RenderEvent for each of `viewers` (at most four; the k-th fills `out`'s k-th entries), with
  // the ruleset's message left out of the tree and given as bytes: see ShownAround. Called only
  // when AroundField() is not 0.
  virtual void RenderAround(std::string_view /*logged*/, const engine::AnyState& /*after*/,
                            const engine::AnyEvent& /*event*/,
                            std::span<const engine::Viewer> /*viewers*/,
                            ShownAround& /*out*/) const {
    throw std::logic_error("RenderAround: this host renders trees (AroundField is 0)");
  }
  // Fills the ruleset part of `out` with what `viewer` sees of `state`.
  virtual void RenderView(const engine::AnyState& state, engine::Viewer viewer,
                          melee::v1::MatchView& out) const = 0;

  // ---- forces that persist (docs/forces.md) ----
  // Whether this ruleset carries forces from one close combat to the next. A host that does not
  // refuses unit updates with a "not supported" error and plays each close combat alone.
  virtual bool CarriesForces() const { return false; }
  // The units a set-up part enters, as force units in the part's Location (id, owner, unit).
  virtual std::vector<melee::v1::ForceUnit> UnitsOfPart(const melee::v1::SubmitSetup&) const {
    return {};
  }
  // The ids `unit` holds, its own first: every one is the match's for good (coc: its Teams' and
  // Leaders' too). An update may name any of them.
  virtual std::vector<std::string> IdsOf(const melee::v1::ForceUnit& unit) const {
    return {unit.id()};
  }
  // Whether `id` is one of IdsOf(unit), without listing them.
  virtual bool Holds(const melee::v1::ForceUnit& unit, std::string_view id) const {
    return unit.id() == id;
  }
  // Checks what `seat`'s set-up part gives against what the forces carry, beyond its units being
  // new (coc: its Force Morale). Errors name the field.
  virtual engine::Result<void> CheckPartAgainstForces(engine::Seat seat,
                                                      const melee::v1::SubmitSetup& part,
                                                      const Forces& forces) const {
    (void)seat;
    (void)part;
    (void)forces;
    return {};
  }
  // Returns `parts` with what the forces carry into the close combat in `location` added: the
  // units present there (or, as the ruleset reads its set-up, where they fight from) in their
  // owners' parts, each side's carried values (coc: Force Morale), and the Location's carried
  // facts (a Melee goes on). `facts`: what OutcomeOf carried for the Location ("" none);
  // `attacker`: the ATTACKER when the match decides it (a Melee going on into the next CCPh).
  virtual engine::Result<SetupParts> WithCarried(const SetupParts& parts, const Forces& forces,
                                                 const std::string& location,
                                                 const std::string& facts,
                                                 std::optional<engine::Seat> attacker) const {
    (void)forces;
    (void)location;
    (void)facts;
    (void)attacker;
    return parts;
  }
  // What the close combat in `state` holds (at its start) or leaves behind (once it ended).
  virtual CombatOutcome OutcomeOf(const engine::AnyState& state) const {
    (void)state;
    return {};
  }
  // Refuses an update whose kind this ruleset does not take, naming the field and the rule;
  // checked before anything else of the update.
  virtual engine::Result<void> CheckUpdateKind(const melee::v1::UnitUpdate& update,
                                               const std::string& field) const {
    (void)update;
    (void)field;
    return {};
  }
  // The rule that keeps the units of the close combat being played out of unit updates
  // ("A11.15": they change only through CC).
  virtual std::string_view PlayedRule() const { return ""; }
  // Applies one update to `unit` (one of the updating side's own, present units; the update's
  // `unit` is one of IdsOf(unit)) or checks a new unit (ENTER, `unit` freshly made from the
  // update); errors name the field and the rule. RECOMBINE: `partner` is the other unit named by
  // `with` (own, present, same Location).
  virtual engine::Result<void> ApplyUpdate(const melee::v1::UnitUpdate& update,
                                           melee::v1::ForceUnit& unit,
                                           melee::v1::ForceUnit* partner,
                                           const std::string& field) const {
    (void)update;
    (void)unit;
    (void)partner;
    return engine::Reject("", field + ": not supported: unit updates for this ruleset");
  }
  // Applies an update that names no unit to the updating side's `force` (coc: FORCE_MORALE);
  // errors name the field and the rule.
  virtual engine::Result<void> ApplySideUpdate(const melee::v1::UnitUpdate& update, Force& force,
                                               const std::string& field) const {
    (void)update;
    (void)force;
    return engine::Reject("", field + ".unit: required: the unit the update is about");
  }
  // Whether `viewer` sees `unit` only as "?" (the other side's concealed unit).
  virtual bool HiddenFrom(const melee::v1::ForceUnit& unit, engine::Viewer viewer) const {
    (void)unit;
    (void)viewer;
    return false;
  }
};

// The host of the asl ruleset (A11 Close Combat).
std::unique_ptr<const RulesetHost> MakeAslHost();
// The host of the coc ruleset (Chain of Command rule 17 Close Combat).
std::unique_ptr<const RulesetHost> MakeCocHost();
// The host of the vv ruleset (V&V rule 15 Close Assaults).
std::unique_ptr<const RulesetHost> MakeVvHost();

}  // namespace melee::server
