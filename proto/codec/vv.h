#pragma once

// The vv close-assault format (melee.vv.v1) <-> engine::vv types: reading a set-up part, a
// declaration, an allocation or a whole CloseAssault file (untrusted, usually in its protobuf
// JSON mapping), and turning what the engine reports (events, views, previews) into messages.
// docs/vv-situation-format.md documents the format.
//
// Reading never throws and never trusts its input: every value is range-checked and every
// failure is a RuleError whose message names the offending field, e.g.
// "situation.units[2].apfp: 120 is out of range 0..99". The engine's own checks
// (ValidateSituation, ValidateDeclaration, ValidateAllocation) still run when commands are played.

#include <string>
#include <string_view>

#include "engine/core/rational.h"
#include "engine/core/result.h"
#include "engine/vv/rules.h"
#include "melee/vv/v1/vv.pb.h"
#include "proto/codec/field.h"

namespace melee::proto {

// Limits on vv input, beyond which it is refused before the engine sees it.
inline constexpr size_t kVvMaxUnits = 64;
inline constexpr size_t kVvMaxIdBytes = 32;
inline constexpr size_t kVvMaxNameBytes = 64;
inline constexpr size_t kVvMaxListSize = 64;
inline constexpr size_t kVvMaxWeapons = 8;
inline constexpr size_t kVvMaxOptions = 16;
inline constexpr size_t kVvMaxJsonBytes = 1 << 20;

// Readers; `field` prefixes every error ("declaration.vv.declare.group[0]: ...").
engine::Result<engine::vv::Unit> VvUnitFromProto(const melee::vv::v1::Unit& message,
                                                 const Field& field);
engine::Result<engine::vv::Situation> VvSituationFromProto(const melee::vv::v1::Situation& message,
                                                           const Field& field);
// Checks one seat's set-up part value by value (the server then checks it against the other's).
engine::Result<void> VvSideSetupFromProto(const melee::vv::v1::SideSetup& message,
                                          const Field& field);
engine::Result<engine::vv::Declare> VvDeclareFromProto(const melee::vv::v1::Declare& message,
                                                       const Field& field);
engine::Result<engine::vv::Allocation> VvAllocationFromProto(
    const melee::vv::v1::Allocation& message, const Field& field);

// An engine command as the server logs it, and back (the inverse checks every field).
melee::vv::v1::Command VvCommandToProto(const engine::vv::Command& command);
engine::Result<engine::vv::Command> VvCommandFromProto(const melee::vv::v1::Command& message);

// Parses `json`, the protobuf JSON mapping of a CloseAssault. Unknown fields, unknown enum names
// and input over kVvMaxJsonBytes are refused.
engine::Result<melee::vv::v1::CloseAssault> CloseAssaultFromJson(std::string_view json);
// Returns the Script `message` describes, or a RuleError naming the first invalid field.
engine::Result<engine::vv::Script> VvScriptFromProto(const melee::vv::v1::CloseAssault& message);

// Writers (the inverse of the readers above, for reports, logs and round trips).
melee::vv::v1::Unit VvUnitToProto(const engine::vv::Unit& unit);
melee::vv::v1::Situation VvSituationToProto(const engine::vv::Situation& situation);
melee::vv::v1::Declare VvDeclareToProto(const engine::vv::Declare& declare);
melee::vv::v1::Allocation VvAllocationToProto(const engine::vv::Allocation& allocation);

// Returns `event` with every unit index turned into its id; `before` is the state the event was
// decided in. `text` is DescribeEvent(before, event).
melee::vv::v1::VvEvent VvEventToProto(const engine::vv::State& before,
                                      const engine::vv::Event& event);
// Returns what `view` shows, units by id.
melee::vv::v1::VvView VvViewToProto(const engine::vv::View& view);
// Returns `value` as an exact fraction ("7/36") and a percentage rounded to two decimals.
melee::vv::v1::Probability VvProbabilityToProto(const engine::Rational& value);
melee::vv::v1::PreviewTable VvPreviewToProto(const engine::vv::Preview& preview);

}  // namespace melee::proto
