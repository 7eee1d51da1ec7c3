#pragma once

// The asl situation format (melee.asl.v1) <-> engine::asl types: reading a situation file (an
// untrusted CloseCombat, usually in its protobuf JSON mapping) into a Script, and turning what
// the engine reports (events, outcome tables) into messages. docs/asl-situation-format.md
// documents the format.
//
// Reading never throws and never trusts its input: every value is range-checked and every
// failure is a RuleError whose message names the offending field, e.g.
// "situation.units[2].id: must be 1..32 printable ASCII characters". The engine's own checks
// (ValidateSituation, ParseOptions, the rules) still run when the script is played.

#include <optional>
#include <string_view>

#include "engine/asl/preview.h"
#include "engine/asl/protocol.h"
#include "engine/asl/script.h"
#include "engine/core/result.h"
#include "melee/asl/v1/asl.pb.h"
#include "proto/codec/field.h"

namespace melee::proto {

// Limits on a situation file, beyond which it is refused before the engine sees it.
inline constexpr size_t kAslMaxUnits = 64;
inline constexpr size_t kAslMaxIdBytes = 32;
inline constexpr size_t kAslMaxNameBytes = 64;
inline constexpr size_t kAslMaxListSize = 64;  // ids in one list, attacks, declarations, choices
inline constexpr size_t kAslMaxOptions = 16;
inline constexpr size_t kAslMaxJsonBytes = 1 << 20;

// The `preview` request of a situation file.
struct AslPreviewRequest {
  engine::Seat seat = engine::Seat::kSideA;
  engine::asl::AttackOrder order;
};

// Returns the Script `message` describes, or a RuleError naming the first invalid field.
engine::Result<engine::asl::Script> ScriptFromProto(const melee::asl::v1::CloseCombat& message);

// Returns the preview request of `message` (nothing when it has none), or a RuleError naming
// the first invalid field.
engine::Result<std::optional<AslPreviewRequest>> PreviewFromProto(
    const melee::asl::v1::CloseCombat& message);

// Parses `json`, the protobuf JSON mapping of a CloseCombat (proto or lowerCamel field names).
// Unknown fields, unknown enum names and input over kAslMaxJsonBytes are refused; the error
// says what the parser found wrong. Does not validate values (ScriptFromProto does).
engine::Result<melee::asl::v1::CloseCombat> CloseCombatFromJson(std::string_view json);

// Returns ScriptFromProto(CloseCombatFromJson(json)).
engine::Result<engine::asl::Script> ScriptFromJson(std::string_view json);

// Readers of single messages, for the server's wire commands. `field` prefixes every error
// ("declaration.asl.attacks[0].targets: ...").
engine::Result<engine::Seat> SideFromProto(melee::v1::Seat seat, const Field& field);
melee::v1::Seat SideToProto(engine::Seat seat);
engine::Result<engine::asl::Unit> UnitFromProto(const melee::asl::v1::Unit& message,
                                                const Field& field);
engine::Result<engine::asl::Location> LocationFromProto(const melee::asl::v1::Location& message,
                                                        const Field& field);
engine::Result<engine::asl::Situation> SituationFromProto(const melee::asl::v1::Situation& message,
                                                          const Field& field);
engine::Result<engine::asl::Announce> AnnounceFromProto(const melee::asl::v1::Announce& message,
                                                        const Field& field);
engine::Result<engine::asl::AttackOrder> AttackOrderFromProto(
    const melee::asl::v1::AttackOrder& message, const Field& field);
engine::Result<engine::asl::Seal> SealFromProto(const melee::asl::v1::Seal& message,
                                                const Field& field);

// An engine command as the server logs it, and back (the inverse checks every field).
melee::asl::v1::Command CommandToProto(const engine::asl::Command& command);
engine::Result<engine::asl::Command> CommandFromProto(const melee::asl::v1::Command& message);

// Returns what `view` shows, units by id.
melee::asl::v1::AslView ViewToProto(const engine::asl::View& view, const engine::asl::State& state);
// The same into `out`, which must be clear: a cleared message that is filled again reuses the
// units and strings it held (the server renders its views so), and the units' messages, the
// Location and the declarations are taken from those KeepPartsOf set aside on this thread.
void ViewToProto(const engine::asl::View& view, const engine::asl::State& state,
                 melee::asl::v1::AslView& out);
// Sets aside the messages inside `view` that proto3's Clear() would delete (each unit's, the
// Location, the declarations), for the next ViewToProto on this thread to fill again, each
// cleared first but keeping its strings' buffers. Call it just before clearing `view`, which is
// left without them.
void KeepPartsOf(melee::asl::v1::AslView& view);

// Returns the message form of engine values (the inverse of the readers above, for reports and
// round trips). Units keep everything but their presence.
melee::asl::v1::Unit UnitToProto(const engine::asl::Unit& unit);
void UnitToProto(const engine::asl::Unit& unit, melee::asl::v1::Unit& out);  // `out` clear
melee::asl::v1::Location LocationToProto(const engine::asl::Location& location);
melee::asl::v1::Situation SituationToProto(const engine::asl::Situation& situation);
melee::asl::v1::Announce AnnounceToProto(const engine::asl::Announce& announce);
melee::asl::v1::AttackOrder AttackOrderToProto(const engine::asl::AttackOrder& order);
melee::asl::v1::Seal SealToProto(const engine::asl::Seal& seal);
melee::asl::v1::CloseCombat ScriptToProto(const engine::asl::Script& script);
melee::asl::v1::Presence PresenceToProto(engine::asl::Presence presence);

// Returns `event` with every unit index turned into its id. `before` is the state the event was
// decided in (Played::states[i] for Played::events[i]); units the event creates are named from
// the event itself. `text` is DescribeEvent(before, event).
melee::asl::v1::AslEvent EventToProto(const engine::asl::State& before,
                                      const engine::asl::Event& event);
// The same, filled into `out`, which must be empty: a message on an arena (the asl host logs
// through a proto::ScratchArena) or one kept and cleared between events, so that converting an
// event does not allocate its every part.
void EventToProto(const engine::asl::State& before, const engine::asl::Event& event,
                  melee::asl::v1::AslEvent& out);

// Returns `table` with exact fractions and rounded percentages.
melee::asl::v1::OutcomeTable OutcomeTableToProto(const engine::asl::OutcomeTable& table);

// Returns `value` as an exact fraction ("7/36") and a percentage rounded to two decimals.
melee::asl::v1::Probability ProbabilityToProto(const engine::Rational& value);

}  // namespace melee::proto
