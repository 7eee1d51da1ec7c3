#include "server/forces.h"

#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <set>
#include <utility>

#include "proto/codec/checks.h"
#include "proto/codec/frame.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;
using engine::Reject;
using engine::Result;
using engine::Seat;
using engine::Viewer;

constexpr size_t kMaxLocationBytes = 64;
constexpr size_t kMaxNoteBytes = 200;
constexpr size_t kMaxRuleBytes = 32;

size_t SideIndex(v1::Seat owner) { return owner == v1::SEAT_SIDE_B ? 1 : 0; }
v1::Seat WireSide(Seat seat) { return seat == Seat::kSideA ? v1::SEAT_SIDE_A : v1::SEAT_SIDE_B; }

// The unit `id` of either force, to change (copied first when another Forces shares it), or null.
v1::ForceUnit* FindMutable(Forces& forces, std::string_view id) {
  for (Force& force : forces) {
    for (size_t i = 0; i < force.units.size(); ++i) {
      if (force.units[i].id() == id) return &force.units.Mutable(i);
    }
  }
  return nullptr;
}

// The unit that holds `id` (FindHolder), to change, or null.
v1::ForceUnit* FindMutableHolder(const RulesetHost& host, Forces& forces, std::string_view id) {
  if (v1::ForceUnit* unit = FindMutable(forces, id)) return unit;
  for (Force& force : forces) {
    for (size_t i = 0; i < force.units.size(); ++i) {
      if (host.Holds(force.units[i], id)) return &force.units.Mutable(i);
    }
  }
  return nullptr;
}

std::string FateWords(v1::ForceFate fate) {
  switch (fate) {
    case v1::FORCE_FATE_ELIMINATED:
      return "eliminated";
    case v1::FORCE_FATE_CAPTURED:
      return "captured";
    case v1::FORCE_FATE_WITHDRAWN:
      return "withdrawn";
    case v1::FORCE_FATE_RECOMBINED:
      return "recombined into another unit";
    default:
      return "present";
  }
}

// Whether `unit` is gone for good.
bool Gone(const v1::ForceUnit& unit) {
  return unit.fate() == v1::FORCE_FATE_ELIMINATED || unit.fate() == v1::FORCE_FATE_CAPTURED ||
         unit.fate() == v1::FORCE_FATE_RECOMBINED;
}

std::string Where(const v1::ForceUnit& unit) {
  return unit.location().empty() ? std::string("no Location") : unit.location();
}

// Whether `held` and `now` are the same unit in the same state: equal but for when and how each
// last changed (changed_seq, last_change). Compared without copying either, for this runs for
// every unit of every close combat that ends; the rules' parts as bytes, in buffers kept on the
// thread. (FoldOutcomeTest.EveryFieldButTheLastChangeIsCompared keeps the list of fields whole.)
bool SameButForItsLastChange(const v1::ForceUnit& held, const v1::ForceUnit& now) {
  const auto same = [](const google::protobuf::MessageLite& a,
                       const google::protobuf::MessageLite& b) {
    thread_local std::string a_bytes;
    thread_local std::string b_bytes;
    a.SerializeToString(&a_bytes);
    b.SerializeToString(&b_bytes);
    return a_bytes == b_bytes;
  };
  return held.id() == now.id() && held.owner() == now.owner() &&
         held.location() == now.location() && held.fate() == now.fate() &&
         held.hidden() == now.hidden() && held.has_asl() == now.has_asl() &&
         held.has_vv() == now.has_vv() && held.has_coc() == now.has_coc() &&
         same(held.asl(), now.asl()) && same(held.vv(), now.vv()) && same(held.coc(), now.coc());
}

Result<void> CheckText(const std::string& text, size_t max, const std::string& field) {
  return proto::checks::CheckText(text, field, max);
}

}  // namespace

const v1::ForceUnit* FindForceUnit(const Forces& forces, std::string_view id) {
  for (const Force& force : forces) {
    for (const v1::ForceUnit& unit : force.units) {
      if (unit.id() == id) return &unit;
    }
  }
  return nullptr;
}

const v1::ForceUnit* FindHolder(const RulesetHost& host, const Forces& forces,
                                std::string_view id) {
  if (const v1::ForceUnit* unit = FindForceUnit(forces, id)) return unit;
  for (const Force& force : forces) {
    for (const v1::ForceUnit& unit : force.units) {
      if (host.Holds(unit, id)) return &unit;
    }
  }
  return nullptr;
}

std::vector<const v1::ForceUnit*> PresentAt(const Forces& forces, std::string_view location) {
  std::vector<const v1::ForceUnit*> present;
  for (const Force& force : forces) {
    for (const v1::ForceUnit& unit : force.units) {
      if (unit.fate() == v1::FORCE_FATE_PRESENT && unit.location() == location) {
        present.push_back(&unit);
      }
    }
  }
  return present;
}

bool HasUnitsAt(const Forces& forces, Seat seat, std::string_view location) {
  const Force& force = forces[seat == Seat::kSideA ? 0 : 1];
  return std::any_of(force.units.begin(), force.units.end(), [&](const v1::ForceUnit& unit) {
    return unit.fate() == v1::FORCE_FATE_PRESENT && unit.location() == location;
  });
}

Result<void> CheckNewUnits(const RulesetHost& host, const Forces& forces, Seat seat,
                           const v1::SubmitSetup& part) {
  const std::vector<v1::ForceUnit> entered = host.UnitsOfPart(part);
  const std::string field = "submit_setup." + std::string(host.ruleset().id()) + ".units";
  for (size_t i = 0; i < entered.size(); ++i) {
    const std::string unit_field = field + "[" + std::to_string(i) + "]";
    const std::vector<std::string> ids = host.IdsOf(entered[i]);
    for (const std::string& id : ids) {
      const v1::ForceUnit* held = FindHolder(host, forces, id);
      if (held == nullptr) continue;
      // A coc Team or Leader of a unit the match holds is that unit's for good.
      const std::string what = id == held->id() ? "'" + id + "'"
                                                : "'" + id + "' (of " + held->id() + ")";
      if (Gone(*held)) {
        return Reject("", unit_field + ": " + what + " was " + FateWords(held->fate()) +
                              " (event " + std::to_string(held->changed_seq()) +
                              ") and never returns; a new unit needs a new id");
      }
      return Reject("", unit_field + ": " + what + " is already in the match (" + Where(*held) +
                            ", since event " + std::to_string(held->changed_seq()) + ": " +
                            held->last_change() +
                            "); its state comes from its force: leave it out of the set-up (it "
                            "joins the close combat in its Location by itself) and report changes "
                            "with update_units");
    }
  }
  return host.CheckPartAgainstForces(seat, part, forces);
}

Result<Forces> ApplyUpdates(const RulesetHost& host, Forces forces, Seat seat,
                            const v1::UpdateUnits& updates, uint64_t seq,
                            const engine::AnyState* playing) {
  if (!host.CarriesForces()) {
    return Reject("", "update_units: not supported: this ruleset does not carry forces yet");
  }
  if (updates.updates().empty() || static_cast<size_t>(updates.updates_size()) > kMaxUnitUpdates) {
    return Reject("", "update_units.updates: 1.." + std::to_string(kMaxUnitUpdates) + " updates");
  }
  // The close combat being played: its units change only through it.
  std::string busy_location;
  std::set<std::string, std::less<>> busy_units;
  if (playing != nullptr) {
    const CombatOutcome combat = host.OutcomeOf(*playing);
    busy_location = combat.location;
    for (const v1::ForceUnit& unit : combat.units) busy_units.insert(unit.id());
  }
  const std::string played_rule(host.PlayedRule());
  const v1::Seat own = WireSide(seat);
  Force& own_force = forces[SideIndex(own)];
  for (int i = 0; i < updates.updates_size(); ++i) {
    const v1::UnitUpdate& update = updates.updates(i);
    const std::string field = "update_units.updates[" + std::to_string(i) + "]";
    if (auto ok = CheckText(update.location(), kMaxLocationBytes, field + ".location"); !ok) {
      return tl::unexpected(ok.error());
    }
    if (auto ok = CheckText(update.note(), kMaxNoteBytes, field + ".note"); !ok) {
      return tl::unexpected(ok.error());
    }
    if (auto ok = CheckText(update.rule(), kMaxRuleBytes, field + ".rule"); !ok) {
      return tl::unexpected(ok.error());
    }
    if (update.hidden()) return Reject("", field + ".hidden: set by the server only");
    if (update.kind() == v1::UPDATE_KIND_UNSPECIFIED) {
      return Reject("", field + ".kind: required (ENTER, MOVE, BREAK, RALLY, ...)");
    }
    if (auto ok = host.CheckUpdateKind(update, field); !ok) return tl::unexpected(ok.error());
    const std::string id = update.unit();
    if (id.empty()) {
      // An update of the side itself (coc: FORCE_MORALE).
      if (!update.with().empty()) {
        return Reject("", field + ".with: only RECOMBINE names a second unit");
      }
      if (playing != nullptr) {
        // What the close combat carries for the side (its Force Morale) it leaves at its end.
        return Reject(played_rule, field + ": a close combat is being played; the side's own "
                                           "values change only through it until it ends");
      }
      if (auto ok = host.ApplySideUpdate(update, own_force, field); !ok) {
        return tl::unexpected(ok.error());
      }
      continue;
    }
    if (auto ok = proto::checks::CheckId(id, field + ".unit", 32); !ok) {
      return tl::unexpected(ok.error());
    }
    const std::string quoted = "'" + id + "'";
    const bool busy = playing != nullptr;
    const auto into_busy = [&](const std::string& location) {
      return busy && !location.empty() && location == busy_location;
    };
    if (update.kind() == v1::UPDATE_KIND_ENTER) {
      if (FindHolder(host, forces, id) != nullptr) {
        return Reject("", field + ".unit: " + quoted +
                              " is already in the match; ENTER brings in a new unit");
      }
      if (update.location().empty()) {
        return Reject("", field + ".location: ENTER names the Location the unit enters");
      }
      if (into_busy(update.location())) {
        return Reject(played_rule, field + ": the close combat in " + update.location() +
                                       " is being played; units join it only before it starts");
      }
      if (own_force.units.size() >= kMaxForceUnits) {
        return Reject("", field + ": a force holds at most " + std::to_string(kMaxForceUnits) +
                              " units");
      }
      v1::ForceUnit unit;
      unit.set_id(id);
      unit.set_owner(own);
      unit.set_location(update.location());
      unit.set_fate(v1::FORCE_FATE_PRESENT);
      v1::UnitUpdate entered = update;
      if (entered.has_asl()) {
        entered.mutable_asl()->set_id(id);
        entered.mutable_asl()->set_owner(own);
      }
      if (auto ok = host.ApplyUpdate(entered, unit, nullptr, field); !ok) {
        return tl::unexpected(ok.error());
      }
      // Every id the new unit holds is new to the match (coc: its Teams and Leaders).
      for (const std::string& held_id : host.IdsOf(unit)) {
        if (held_id != id && FindHolder(host, forces, held_id) != nullptr) {
          return Reject("", field + ": '" + held_id +
                                "' is already in the match; a new unit needs new ids");
        }
      }
      unit.set_changed_seq(seq);
      unit.set_last_change(DescribeUpdate(update));
      own_force.units.push_back(std::move(unit));
      continue;
    }
    v1::ForceUnit* unit = FindMutableHolder(host, forces, id);
    if (unit == nullptr) return Reject("", field + ".unit: no unit " + quoted + " in the match");
    if (unit->owner() != own) {
      return Reject("", field + ".unit: " + quoted + " is " +
                            (own == v1::SEAT_SIDE_A ? "side_b" : "side_a") +
                            "'s; a side reports only its own units");
    }
    if (Gone(*unit)) {
      return Reject("", field + ".unit: " + quoted + " was " + FateWords(unit->fate()) +
                            " (event " + std::to_string(unit->changed_seq()) +
                            ") and never returns");
    }
    if (busy_units.contains(unit->id())) {
      return Reject(played_rule, field + ": " + quoted + " is in the close combat being played" +
                                     (busy_location.empty() ? "" : " in " + busy_location) +
                                     "; it changes only through the close combat");
    }
    if (update.kind() == v1::UPDATE_KIND_MOVE) {
      if (into_busy(update.location())) {
        return Reject(played_rule, field + ": the close combat in " + update.location() +
                                       " is being played; units join it only before it starts");
      }
    } else if (unit->fate() == v1::FORCE_FATE_WITHDRAWN) {
      return Reject("", field + ": " + quoted +
                            " withdrew from CC and is in no Location: MOVE it first");
    }
    v1::ForceUnit* partner = nullptr;
    if (update.kind() == v1::UPDATE_KIND_RECOMBINE) {
      partner = FindMutable(forces, update.with());
      if (partner == nullptr || partner == unit || partner->owner() != own || Gone(*partner) ||
          partner->fate() != v1::FORCE_FATE_PRESENT || partner->location() != unit->location()) {
        return Reject("A1.32", field + ".with: name another of your HS in " + Where(*unit));
      }
    } else if (!update.with().empty()) {
      return Reject("", field + ".with: only RECOMBINE names a second unit");
    }
    if (auto ok = host.ApplyUpdate(update, *unit, partner, field); !ok) {
      return tl::unexpected(ok.error());
    }
    if (update.kind() == v1::UPDATE_KIND_MOVE) {
      unit->set_location(update.location());
      unit->set_fate(update.location().empty() ? v1::FORCE_FATE_WITHDRAWN
                                               : v1::FORCE_FATE_PRESENT);
    }
    unit->set_changed_seq(seq);
    unit->set_last_change(DescribeUpdate(update));
    if (partner != nullptr) {
      partner->set_changed_seq(seq);
      partner->set_last_change("recombined into " + unit->id() + " (" + update.rule() + ")");
    }
  }
  return forces;
}

bool FoldOutcome(Forces& forces, const CombatOutcome& outcome, uint64_t seq, bool ended) {
  bool changed = false;
  for (size_t side = 0; side < forces.size(); ++side) {
    if (outcome.force_morale[side] && forces[side].force_morale != outcome.force_morale[side]) {
      forces[side].force_morale = outcome.force_morale[side];
      changed = true;
    }
  }
  const std::string in = outcome.location.empty() ? "" : " in " + outcome.location;
  for (const v1::ForceUnit& unit : outcome.units) {
    const v1::ForceUnit* held = FindForceUnit(forces, unit.id());
    if (held == nullptr) {
      v1::ForceUnit& added = forces[SideIndex(unit.owner())].units.push_back(unit);
      added.set_changed_seq(seq);
      added.set_last_change(ended ? "created in CC" + in : "entered" + in);
      changed = true;
      continue;
    }
    if (!ended) continue;  // a carried unit enters the close combat as its force holds it
    // Unharmed: the unit stays as its force holds it (and shared with the forces' other copies).
    if (SameButForItsLastChange(*held, unit)) continue;
    v1::ForceUnit& now = *FindMutable(forces, unit.id());
    now = unit;
    now.set_changed_seq(seq);
    now.set_last_change(unit.fate() == v1::FORCE_FATE_PRESENT
                            ? "changed in CC" + in
                            : FateWords(unit.fate()) + " in CC" + in);
    changed = true;
  }
  return changed;
}

std::string DescribeUpdate(const v1::UnitUpdate& update) {
  std::string text;
  switch (update.kind()) {
    case v1::UPDATE_KIND_ENTER:
      text = "entered " + update.location();
      break;
    case v1::UPDATE_KIND_MOVE:
      text = update.location().empty() ? "left the board" : "moved to " + update.location();
      break;
    case v1::UPDATE_KIND_BREAK:
      text = "broken";
      break;
    case v1::UPDATE_KIND_RALLY:
      text = "rallied";
      break;
    case v1::UPDATE_KIND_PIN:
      text = "pinned";
      break;
    case v1::UPDATE_KIND_UNPIN:
      text = "no longer pinned";
      break;
    case v1::UPDATE_KIND_CONCEAL:
      text = "gained concealment";
      break;
    case v1::UPDATE_KIND_REVEAL:
      text = "lost concealment";
      break;
    case v1::UPDATE_KIND_REDUCE:
      text = "Casualty Reduction by fire";
      break;
    case v1::UPDATE_KIND_ELIMINATE:
      text = "eliminated by fire";
      break;
    case v1::UPDATE_KIND_RECOMBINE:
      text = "recombined with " + update.with();
      break;
    case v1::UPDATE_KIND_SET_CX:
      text = "CX";
      break;
    case v1::UPDATE_KIND_CLEAR_CX:
      text = "no longer CX";
      break;
    case v1::UPDATE_KIND_SHOCK:
      text = std::to_string(update.value()) + " Shock";
      break;
    case v1::UPDATE_KIND_KILL:
      text = std::to_string(update.value()) + " killed";
      break;
    case v1::UPDATE_KIND_FORCE_MORALE:
      text = "Force Morale " + std::to_string(update.value());
      break;
    default:
      text = "updated";
      break;
  }
  if (!update.rule().empty()) text += " (" + update.rule() + ")";
  if (!update.note().empty()) text += ": " + update.note();
  return text;
}

v1::UnitsUpdated MaskUpdates(const RulesetHost& host, const v1::UpdateUnits& updates, Seat owner,
                             const Forces& before, const Forces& after, Viewer viewer) {
  v1::UnitsUpdated shown;
  shown.set_seat(WireSide(owner));
  const bool sees_all = viewer == Viewer::kDirector || viewer == engine::ViewerOf(owner);
  for (const v1::UnitUpdate& update : updates.updates()) {
    v1::UnitUpdate& out = *shown.add_updates();
    out = update;
    if (sees_all) continue;
    const v1::ForceUnit* was = FindHolder(host, before, update.unit());
    const v1::ForceUnit* now = FindHolder(host, after, update.unit());
    const bool hidden_before = was != nullptr && host.HiddenFrom(*was, viewer);
    const bool hidden_after = now != nullptr && host.HiddenFrom(*now, viewer);
    if (!hidden_after) continue;  // a unit revealed by the update (e.g. broken) is seen
    // Only that a "?" changed: where it moved, that it entered or that it gained "?".
    v1::UnitUpdate masked;
    masked.set_unit(update.unit());
    masked.set_hidden(true);
    const v1::UpdateKind kind = update.kind();
    if (kind == v1::UPDATE_KIND_MOVE || kind == v1::UPDATE_KIND_ENTER) {
      masked.set_kind(kind);
      masked.set_location(update.location());
    } else if (kind == v1::UPDATE_KIND_CONCEAL && !hidden_before) {
      masked.set_kind(kind);
    }
    out = std::move(masked);
  }
  return shown;
}

const std::string& UnitBytes::Of(const Forces& forces, size_t side, size_t i) {
  std::vector<Kept>& kept = kept_[side];
  const ForceUnits& units = forces[side].units;
  if (kept.size() != units.size()) kept.resize(units.size());
  Kept& unit = kept[i];
  if (unit.version != units.version(i)) {
    units[i].SerializeToString(&unit.bytes);
    unit.version = units.version(i);
  }
  return unit.bytes;
}

void WriteForces(const RulesetHost& host, const Forces& forces, Viewer viewer,
                 google::protobuf::io::CodedOutputStream& out, UnitBytes* kept) {
  using google::protobuf::internal::WireFormatLite;
  // A unit the viewer sees whole is written as its force holds it; one it sees only as "?" as
  // a unit built here with only what it may see, kept on the thread from one to the next.
  thread_local v1::ForceUnit masked;
  for (size_t side = 0; side < forces.size(); ++side) {
    const int field =
        side == 0 ? v1::MatchView::kSideAForceFieldNumber : v1::MatchView::kSideBForceFieldNumber;
    const ForceUnits& units = forces[side].units;
    for (size_t i = 0; i < units.size(); ++i) {
      const v1::ForceUnit& unit = units[i];
      const v1::ForceUnit* shown = &unit;
      if (host.HiddenFrom(unit, viewer)) {
        masked.Clear();
        masked.set_id(unit.id());
        masked.set_owner(unit.owner());
        masked.set_location(unit.location());
        masked.set_fate(unit.fate());
        masked.set_hidden(true);
        shown = &masked;
      } else if (kept != nullptr) {
        WireFormatLite::WriteBytes(field, kept->Of(forces, side, i), &out);
        continue;
      }
      proto::WriteSubmessage(field, *shown, out);
    }
  }
  for (size_t side = 0; side < forces.size(); ++side) {
    if (const auto& morale = forces[side].force_morale) {
      WireFormatLite::WriteInt32(side == 0 ? v1::MatchView::kSideAForceMoraleFieldNumber
                                           : v1::MatchView::kSideBForceMoraleFieldNumber,
                                 *morale, &out);
    }
  }
}

}  // namespace melee::server
