#pragma once

// Forces that persist (docs/forces.md): each side's units as the match carries them from one
// close combat to the next, the unit updates a side reports between close combats, and what each
// viewer may see of both. Pure functions of the log: a match folds the same forces live and when
// it replays its log after a restart.

#include <google/protobuf/io/coded_stream.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/result.h"
#include "engine/core/ruleset.h"
#include "melee/v1/match.pb.h"
#include "server/ruleset_host.h"

namespace melee::server {

constexpr size_t kMaxUnitUpdates = 64;
constexpr size_t kMaxForceUnits = 512;

// The unit `id` of either force, or null.
const melee::v1::ForceUnit* FindForceUnit(const Forces& forces, std::string_view id);

// The unit of either force that holds `id` (its own id, or one of host.IdsOf: a coc Team or
// Leader; host.Holds), or null.
const melee::v1::ForceUnit* FindHolder(const RulesetHost& host, const Forces& forces,
                                       std::string_view id);

// The units of both forces present in `location`, side A's first (the forces' own, not copies:
// valid while `forces` is unchanged).
std::vector<const melee::v1::ForceUnit*> PresentAt(const Forces& forces, std::string_view location);

// Whether `seat` has a unit present in `location`.
bool HasUnitsAt(const Forces& forces, engine::Seat seat, std::string_view location);

// Refuses what `seat`'s set-up `part` enters that the match already holds: a unit's state comes
// from its force (a HS stays a HS, a unit that lost "?" stays Known, a coc Team keeps its dead)
// and an eliminated or captured unit never returns; no id a unit holds (host.IdsOf) is entered
// again. Then the host checks the rest of the part against the forces (coc: Force Morale).
engine::Result<void> CheckNewUnits(const RulesetHost& host, const Forces& forces,
                                   engine::Seat seat, const melee::v1::SubmitSetup& part);

// Returns `forces` with `seat`'s updates applied (all or none), event `seq` changing them.
// `playing`: the state of the close combat being played (null: none): its units change only
// through it, and no unit moves or enters into its Location. Errors name the update and, for
// rule errors, the rule.
engine::Result<Forces> ApplyUpdates(const RulesetHost& host, Forces forces, engine::Seat seat,
                                    const melee::v1::UpdateUnits& updates, uint64_t seq,
                                    const engine::AnyState* playing);

// Folds what a close combat holds (at its start) or left (once ended) into the forces: new units
// join, every unit takes its status and fate from the combat, each side its carried values (coc:
// Force Morale); event `seq` changed them. Returns whether any of it changed the forces (a Melee
// that goes on with the same units, or a close combat that left every unit unharmed, does not).
bool FoldOutcome(Forces& forces, const CombatOutcome& outcome, uint64_t seq, bool ended);

// `updates` (reported by `owner`) as `viewer` sees them: an update of a unit the viewer sees only
// as "?" (before or after it) shows only that the "?" changed (and where it moved).
melee::v1::UnitsUpdated MaskUpdates(const RulesetHost& host, const melee::v1::UpdateUnits& updates,
                                    engine::Seat owner, const Forces& before, const Forces& after,
                                    engine::Viewer viewer);

// The serialized bytes of each unit of both forces, as a viewer who sees it whole sees it, kept by
// the unit's version (ForceUnits::version): a view serializes only the units changed since the
// last one. A long match's forces hold every unit it has met, and change a few at a time.
class UnitBytes {
 public:
  // The bytes of unit `i` of `forces[side]`, serialized again only if it changed since.
  const std::string& Of(const Forces& forces, size_t side, size_t i);

 private:
  struct Kept {
    uint64_t version = 0;  // no unit has version 0
    std::string bytes;
  };
  std::array<std::vector<Kept>, 2> kept_;  // by side, then by the unit's index in its force
};

// Writes the view's forces as `viewer` may see them: the MatchView fields side_a_force,
// side_b_force and the sides' Force Morale, serialized in field order (the bytes of a MatchView
// holding only them), each unit straight from its force, not copied into a message first. With
// `kept`, a unit the viewer sees whole is written from the bytes kept for it.
void WriteForces(const RulesetHost& host, const Forces& forces, engine::Viewer viewer,
                 google::protobuf::io::CodedOutputStream& out, UnitBytes* kept = nullptr);

// A short account of one update ("broken", "moved to H4"), for the force's last_change.
std::string DescribeUpdate(const melee::v1::UnitUpdate& update);

}  // namespace melee::server
