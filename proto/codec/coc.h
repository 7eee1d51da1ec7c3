#pragma once

// The coc close-combat format (melee.coc.v1) <-> engine::coc types: reading a set-up part, a
// declaration, a placement or a whole Contact file (untrusted, usually in its protobuf JSON
// mapping), and turning what the engine reports (events, views, previews) into messages.
// docs/coc-situation-format.md documents the format.
//
// Reading never throws and never trusts its input: every value is range-checked and every
// failure is a RuleError whose message names the offending field, e.g.
// "situation.units[1].teams[0].figures: 40 is out of range 0..30". The engine's own checks
// (ValidateSituation, ValidateDeclaration, ValidatePlacement) still run when commands are played.

#include <string>
#include <string_view>

#include "engine/coc/rules.h"
#include "engine/core/result.h"
#include "melee/coc/v1/coc.pb.h"
#include "proto/codec/field.h"

namespace melee::proto {

// Limits on coc input, beyond which it is refused before the engine sees it.
inline constexpr size_t kCocMaxUnits = 32;
inline constexpr size_t kCocMaxIdBytes = 32;
inline constexpr size_t kCocMaxNameBytes = 64;
inline constexpr size_t kCocMaxListSize = 32;
inline constexpr size_t kCocMaxOptions = 16;
inline constexpr size_t kCocMaxOptionBytes = 128;
inline constexpr size_t kCocMaxJsonBytes = 1 << 20;

// Readers; `field` prefixes every error ("declaration.coc.place.odd_kills[0]: ...").
engine::Result<engine::coc::Unit> CocUnitFromProto(const melee::coc::v1::Unit& message,
                                                   const Field& field);
engine::Result<engine::coc::Situation> CocSituationFromProto(
    const melee::coc::v1::Situation& message, const Field& field);
// Checks one seat's set-up part value by value (the server then checks it against the other's).
engine::Result<void> CocSideSetupFromProto(const melee::coc::v1::SideSetup& message,
                                           const Field& field);
engine::Result<engine::coc::Declare> CocDeclareFromProto(const melee::coc::v1::Declare& message,
                                                         const Field& field);
engine::Result<engine::coc::Place> CocPlaceFromProto(const melee::coc::v1::Place& message,
                                                     const Field& field);

// An engine command as the server logs it, and back (the inverse checks every field).
melee::coc::v1::Command CocCommandToProto(const engine::coc::Command& command);
engine::Result<engine::coc::Command> CocCommandFromProto(const melee::coc::v1::Command& message);

// Parses `json`, the protobuf JSON mapping of a Contact. Unknown fields, unknown enum names and
// input over kCocMaxJsonBytes are refused.
engine::Result<melee::coc::v1::Contact> ContactFromJson(std::string_view json);
// Returns the Script `message` describes, or a RuleError naming the first invalid field.
engine::Result<engine::coc::Script> CocScriptFromProto(const melee::coc::v1::Contact& message);

// Writers (the inverse of the readers above, for reports, logs and round trips).
melee::coc::v1::Unit CocUnitToProto(const engine::coc::Unit& unit);
melee::coc::v1::Situation CocSituationToProto(const engine::coc::Situation& situation);
melee::coc::v1::Declare CocDeclareToProto(const engine::coc::Declare& declare);
melee::coc::v1::Place CocPlaceToProto(const engine::coc::Place& place);

// Returns `event` with every index turned into its id; `before` is the state the event was
// decided in. `text` is DescribeEvent(before, event).
melee::coc::v1::CocEvent CocEventToProto(const engine::coc::State& before,
                                         const engine::coc::Event& event);
// Returns what `view` shows.
melee::coc::v1::CocView CocViewToProto(const engine::coc::View& view);
// Returns the units of a state as a view shows them (current, gone, pinned, broken).
melee::coc::v1::ViewedUnit CocViewedUnitToProto(const engine::coc::Unit& unit, bool gone);
melee::coc::v1::PreviewTable CocPreviewToProto(const engine::coc::Preview& preview);

}  // namespace melee::proto
