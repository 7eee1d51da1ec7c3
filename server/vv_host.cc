// The vv ruleset on the server: what differs from the other sealed-declaration rulesets
// (server/sealed_host.h). In a V&V close assault nothing on the map is hidden; only a sealed
// declaration or allocation is, until both are revealed. Its set-up part names the units of both
// sides, the target hex and the hex the assault comes from (15.1).

#include <array>
#include <set>
#include <string>
#include <utility>

#include "engine/vv/rules.h"
#include "proto/codec/asl.h"  // SideToProto, SideFromProto
#include "proto/codec/frame.h"
#include "proto/codec/vv.h"
#include "server/forces.h"
#include "server/sealed_host.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;
namespace vvpb = melee::vv::v1;
namespace vv = melee::engine::vv;
using engine::Reject;
using engine::Result;
using engine::Seat;

constexpr size_t kMaxUnits = 64;

std::string Serialize(const google::protobuf::MessageLite& message) {
  return proto::SerializeDeterministic(message);
}

std::string SeatName(Seat seat) { return std::string(engine::Name(seat)); }

// ---- set-up -------------------------------------------------------------------------------

// Checks one side's part (RulesetHost::CheckSetup): its own units, ids unique across the
// assault, the assault's facts as the other side gave them.
Result<void> CheckSetup(Seat seat, const v1::SubmitSetup& part, const SetupParts& parts) {
  if (!part.has_vv()) return Reject("", "submit_setup.vv: required for a vv match");
  const vvpb::SideSetup& mine = part.vv();
  const std::string field = "submit_setup.vv";
  auto read = proto::VvSideSetupFromProto(mine, field);
  if (!read) return tl::unexpected(read.error());
  const auto& other = parts[seat == Seat::kSideA ? 1 : 0];
  std::set<std::string> taken;
  size_t other_units = 0;
  if (other && other->has_vv()) {
    const vvpb::SideSetup& theirs = other->vv();
    other_units = static_cast<size_t>(theirs.units_size());
    for (const vvpb::Unit& unit : theirs.units()) taken.insert(unit.id());
    const std::string them = SeatName(engine::Opponent(seat));
    if (mine.attacker() != v1::SEAT_UNSPECIFIED && theirs.attacker() != v1::SEAT_UNSPECIFIED &&
        mine.attacker() != theirs.attacker()) {
      return Reject("", field + ".attacker: differs from the assaulting side " + them + " entered");
    }
    if (mine.has_target() && theirs.has_target() &&
        Serialize(mine.target()) != Serialize(theirs.target())) {
      return Reject("", field + ".target: differs from the target hex " + them +
                            " entered; leave it empty or enter the same");
    }
    if (!mine.source_hex().empty() && !theirs.source_hex().empty() &&
        mine.source_hex() != theirs.source_hex()) {
      return Reject("", field + ".source_hex: differs from the one " + them + " entered");
    }
    if (mine.uphill_levels() != 0 && theirs.uphill_levels() != 0 &&
        mine.uphill_levels() != theirs.uphill_levels()) {
      return Reject("", field + ".uphill_levels: differs from the " +
                            std::to_string(theirs.uphill_levels()) + " " + them + " entered");
    }
  }
  if (static_cast<size_t>(mine.units_size()) + other_units > kMaxUnits) {
    return Reject("", field + ".units: a close assault holds at most " +
                          std::to_string(kMaxUnits) + " units");
  }
  std::set<std::string> seen;
  for (int i = 0; i < mine.units_size(); ++i) {
    const vvpb::Unit& unit = mine.units(i);
    const std::string unit_field = field + ".units[" + std::to_string(i) + "]";
    if (unit.owner() != proto::SideToProto(seat)) {
      return Reject("", unit_field + ".owner: " + SeatName(seat) + " enters only its own units");
    }
    if (!seen.insert(unit.id()).second || taken.contains(unit.id())) {
      return Reject("", unit_field + ".id: '" + unit.id() + "' is already used in this assault");
    }
  }
  return {};
}

// Returns the SetUp of the close assault both parts describe.
Result<vv::Command> StartCommand(const SetupParts& parts) {
  vvpb::Situation situation;
  bool attacker_given = false;
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto& part = parts[i];
    if (!part || !part->has_vv()) return Reject("", "both sides must enter their units first");
    const vvpb::SideSetup& side = part->vv();
    if (side.attacker() != v1::SEAT_UNSPECIFIED) {
      situation.set_attacker(side.attacker());
      attacker_given = true;
    }
    if (!side.source_hex().empty()) situation.set_source_hex(side.source_hex());
    if (side.has_target() && !situation.has_target()) *situation.mutable_target() = side.target();
    if (side.uphill_levels() != 0) situation.set_uphill_levels(side.uphill_levels());
    if (side.source_assaulted_this_turn()) situation.set_source_assaulted_this_turn(true);
    for (const vvpb::Unit& unit : side.units()) *situation.add_units() = unit;
    *(i == 0 ? situation.mutable_side_a_expendables() : situation.mutable_side_b_expendables()) =
        side.expendables();
  }
  if (!attacker_given) {
    return Reject("15.1", "set-up: neither side named the assaulting side (attacker)");
  }
  if (!situation.has_target() || situation.target().name().empty()) {
    return Reject("15.1", "set-up: neither side named the target hex (target.name)");
  }
  auto read = proto::VvSituationFromProto(situation, "set-up");
  if (!read) return tl::unexpected(read.error());
  return vv::SetUp{std::move(*read)};
}

SetupFacts FactsOf(const SetupParts& parts) {
  SetupFacts facts;
  for (const auto& part : parts) {
    if (!part || !part->has_vv()) continue;
    if (facts.location.empty()) facts.location = part->vv().target().name();
    if (!facts.attacker && part->vv().attacker() != v1::SEAT_UNSPECIFIED) {
      auto attacker = proto::SideFromProto(part->vv().attacker(), "attacker");
      if (attacker) facts.attacker = *attacker;
    }
  }
  return facts;
}

// ---- forces that persist (docs/forces.md) -------------------------------------------------
//
// A close assault's Location is its target hex (15.1: it "affects all units in the target hex,
// and all units in the target hex defend"); the assaulters fight from the one hex the assault
// comes from. A unit carries its kind and counter (a squad reduced to a half squad stays one,
// 14.61), its pin (14.7), valor, immobilization and support weapons; it ends where the assault
// left it: in the target hex (the defenders, and assaulters that took it, 15.8) or its source
// hex. What held only for one Advance and Assault Phase or one assault (`advanced`, a Gun
// Shield facing the assault) does not carry.

size_t Index(Seat seat) { return seat == Seat::kSideA ? 0 : 1; }

// A unit as its force carries it.
vvpb::Unit Carried(vvpb::Unit unit) {
  unit.clear_advanced();
  unit.clear_gun_shield_faces_assault();
  return unit;
}

std::vector<v1::ForceUnit> UnitsOfPart(const v1::SubmitSetup& part) {
  std::vector<v1::ForceUnit> units;
  if (!part.has_vv()) return units;
  const vvpb::SideSetup& side = part.vv();
  for (const vvpb::Unit& unit : side.units()) {
    v1::ForceUnit& entered = units.emplace_back();
    entered.set_id(unit.id());
    entered.set_owner(unit.owner());
    entered.set_location(side.attacker() == unit.owner() ? side.source_hex()
                                                         : side.target().name());
    entered.set_fate(v1::FORCE_FATE_PRESENT);
    *entered.mutable_vv() = Carried(unit);
  }
  return units;
}

// Adds the units the forces carry into the close assault on `location` (the target hex): every
// unit there defends (15.1), and the assaulting side's units in the source hex may assault.
Result<SetupParts> WithCarried(const SetupParts& parts, const Forces& forces,
                               const std::string& location) {
  std::array<v1::SubmitSetup, 2> out = CopyParts(parts);
  for (v1::SubmitSetup& part : out) part.mutable_vv();
  const SetupFacts facts = FactsOf(parts);
  if (!facts.attacker || location.empty()) return ShareParts(std::move(out));
  const Seat attacker = *facts.attacker;
  std::string source;
  for (const v1::SubmitSetup& part : out) {
    if (source.empty()) source = part.vv().source_hex();
  }
  for (const v1::ForceUnit* unit : PresentAt(forces, location)) {
    if (unit->owner() == proto::SideToProto(attacker)) {
      return Reject("15.1", "submit_setup.vv.target: " + SeatName(attacker) + "'s " + unit->id() +
                                " is in " + location +
                                ": a close assault is made against an adjacent, enemy occupied "
                                "hex");
    }
    *out[Index(engine::Opponent(attacker))].mutable_vv()->add_units() = unit->vv();
  }
  if (!source.empty() && source != location) {
    for (const v1::ForceUnit* unit : PresentAt(forces, source)) {
      if (unit->owner() != proto::SideToProto(attacker)) continue;
      *out[Index(attacker)].mutable_vv()->add_units() = unit->vv();
    }
  }
  return ShareParts(std::move(out));
}

CombatOutcome OutcomeOf(const vv::State& s) {
  CombatOutcome outcome;
  outcome.location = s.situation.target.name;
  outcome.attacker = s.situation.attacker;
  for (size_t i = 0; i < s.units.size(); ++i) {
    const vv::Unit& unit = s.units[i];
    v1::ForceUnit& carried = outcome.units.emplace_back();
    carried.set_id(unit.id);
    carried.set_owner(proto::SideToProto(unit.owner));
    const bool in_target = i < s.in_target.size() && s.in_target[i];
    // 15.8: assaulters that took the hex are in it; the others stay in their source hex.
    carried.set_location(in_target ? s.situation.target.name : s.situation.source_hex);
    const bool eliminated = i < s.eliminated.size() && s.eliminated[i];
    carried.set_fate(eliminated ? v1::FORCE_FATE_ELIMINATED : v1::FORCE_FATE_PRESENT);
    *carried.mutable_vv() = Carried(proto::VvUnitToProto(unit));
  }
  return outcome;
}

Result<void> ApplyUpdate(const v1::UnitUpdate& update, v1::ForceUnit& unit,
                         const std::string& field) {
  vvpb::Unit& counter = *unit.mutable_vv();
  const std::string name = "'" + unit.id() + "'";
  switch (update.kind()) {
    case v1::UPDATE_KIND_ENTER: {
      if (!update.has_vv()) return Reject("", field + ".vv: ENTER gives the new unit's counter");
      vvpb::Unit entered = Carried(update.vv());
      entered.set_id(unit.id());
      entered.set_owner(unit.owner());
      auto read = proto::VvUnitFromProto(entered, field + ".vv");
      if (!read) return tl::unexpected(read.error());
      counter = Carried(proto::VvUnitToProto(*read));  // as an assault will give it back
      return {};
    }
    case v1::UPDATE_KIND_MOVE:
      return {};
    case v1::UPDATE_KIND_PIN:
      if (counter.pinned()) return Reject("14.7", field + ": " + name + " is already pinned");
      counter.set_pinned(true);
      return {};
    case v1::UPDATE_KIND_UNPIN:
      if (!counter.pinned()) return Reject("14.8", field + ": " + name + " is not pinned");
      counter.set_pinned(false);
      return {};
    case v1::UPDATE_KIND_REDUCE:
      if (counter.kind() != vvpb::UNIT_KIND_SQUAD) {
        return Reject("14.61", field + ": only a squad is reduced (to a half squad); " + name +
                                   " is a " + std::string(vv::Name(static_cast<vv::UnitKind>(
                                                  counter.kind() - 1))) +
                                   ": ELIMINATE it when fire takes its full Casualty Rating");
      }
      if (counter.pinned()) {
        return Reject("14.62", field + ": " + name +
                                   " is pinned, and a pinned unit cannot be reduced: it is "
                                   "eliminated at its Casualty Rating (ELIMINATE)");
      }
      // 14.61: the squad becomes the half squad printed on its back.
      counter.set_kind(vvpb::UNIT_KIND_HALF_SQUAD);
      counter.set_apfp(counter.reduced_apfp());
      counter.set_casualty_rating(counter.reduced_casualty_rating());
      counter.clear_reduced_apfp();
      counter.clear_reduced_casualty_rating();
      return {};
    case v1::UPDATE_KIND_ELIMINATE:
      unit.set_fate(v1::FORCE_FATE_ELIMINATED);
      return {};
    default:
      return Reject("", field + ".kind: not a vv unit update (vv takes ENTER, MOVE, PIN, UNPIN, "
                            "REDUCE and ELIMINATE)");
  }
}

// The kinds of update a vv unit never takes.
constexpr NotAnUpdate kVvNotUpdates[] = {
    {v1::UPDATE_KIND_BREAK, "14.7",
     "V&V units do not break: fire pins (PIN, 14.7) or reduces (REDUCE, 14.61) them"},
    {v1::UPDATE_KIND_RALLY, "14.8", "V&V units do not break: a pinned unit rallies (UNPIN)"},
    {v1::UPDATE_KIND_SHOCK, "", "SHOCK is coc's, not a vv update"},
    {v1::UPDATE_KIND_KILL, "", "KILL is coc's, not a vv update (REDUCE or ELIMINATE)"},
    {v1::UPDATE_KIND_FORCE_MORALE, "", "FORCE_MORALE is coc's, not a vv update"},
    {v1::UPDATE_KIND_CONCEAL, "", "nothing is concealed in a vv match: every unit is on the map"},
    {v1::UPDATE_KIND_REVEAL, "", "nothing is concealed in a vv match: every unit is on the map"},
    {v1::UPDATE_KIND_RECOMBINE, "", "RECOMBINE is asl's (A1.32), not a vv update"},
    {v1::UPDATE_KIND_SET_CX, "", "CX is asl's (A4.51), not a vv update"},
    {v1::UPDATE_KIND_CLEAR_CX, "", "CX is asl's (A4.51), not a vv update"},
};

// ---- what differs from the other sealed-declaration rulesets ------------------------------

struct VvTypes {
  using State = vv::State;
  using Event = vv::Event;
  using Command = vv::Command;
  using View = vv::View;
  using Rules = vv::VvRules;
  using Phase = vv::Phase;
  using EventKind = vv::EventKind;
  using WireDeclaration = vvpb::Declaration;
  using LoggedCommand = vvpb::Command;
  using LoggedEvent = vvpb::VvEvent;
};

constexpr SealedStep<VvTypes> kVvSteps[] = {
    // 15.6: each side declares the units that assault or defend, and their weapons.
    {.phase = vv::Phase::kDeclare,
     .part = vvpb::Declaration::kDeclare,
     .field = "declare",
     .sealed = vv::EventKind::kDeclarationSealed,
     .revealed = vv::EventKind::kDeclarationsRevealed,
     .prompt = ": seal a close-assault declaration (15.6)",
     .sealed_text = "sealed its declaration",
     .read = [](const vvpb::Declaration& message,
                const std::string& field) -> Result<vv::Command> {
       return proto::VvDeclareFromProto(message.declare(), field);
     },
     .fallback = [](const vv::State& state, Seat seat) -> vv::Command {
       return vv::DefaultDeclaration(state, seat);
     },
     .shown = [](const vv::View& view, size_t i) { return view.declarations[i].has_value(); },
     .reveal = [](const vv::View& view, size_t i, vvpb::Declaration& out) {
       *out.mutable_declare() = proto::VvDeclareToProto(*view.declarations[i]);
     },
     .clear = [](vvpb::VvEvent& event) { event.clear_declare(); }},
    // 14.61: each side that suffered Casualty Points allocates them to its units.
    {.phase = vv::Phase::kAllocate,
     .part = vvpb::Declaration::kAllocate,
     .field = "allocate",
     .sealed = vv::EventKind::kAllocationSealed,
     .revealed = vv::EventKind::kAllocationsRevealed,
     .prompt = ": seal a Casualty Point allocation (14.61)",
     .owed = [](const vv::State& state, Seat seat) -> std::string {
       const int cp = state.cp[seat == Seat::kSideA ? 0 : 1];
       return " — " + std::to_string(cp) + (cp == 1 ? " Casualty Point" : " Casualty Points") +
              ", no more than they need (14.61)";
     },
     .sealed_text = "sealed its Casualty Point allocation",
     .read = [](const vvpb::Declaration& message,
                const std::string& field) -> Result<vv::Command> {
       return proto::VvAllocationFromProto(message.allocate(), field)
           .map([](vv::Allocation allocation) -> vv::Command {
             return vv::Allocate{std::move(allocation)};
           });
     },
     .fallback = [](const vv::State& state, Seat seat) -> vv::Command {
       return vv::Allocate{vv::AutoAllocation(state, seat)};
     },
     .shown = [](const vv::View& view, size_t i) { return view.allocations[i].has_value(); },
     .reveal = [](const vv::View& view, size_t i, vvpb::Declaration& out) {
       *out.mutable_allocate() = proto::VvAllocationToProto(*view.allocations[i]);
     },
     .clear = [](vvpb::VvEvent& event) { event.clear_allocation(); }},
};

constexpr SealedRuleset<VvTypes> kVv = {
    .id = "vv",
    .make_ruleset = &vv::MakeVvRuleset,
    .no_announcements = {"15.6", "a vv close assault has no announcements: each side seals its "
                                 "declaration (seal_declaration with declaration.vv.declare)"},
    .no_choices = {"14.61", "a vv close assault asks no choices: Casualty Points are sealed as a "
                            "declaration (declaration.vv.allocate)"},
    .ended = vv::EventKind::kAssaultEnded,
    .check_setup = &CheckSetup,
    .start = &StartCommand,
    .facts = &FactsOf,
    .command_to_proto = &proto::VvCommandToProto,
    .command_from_proto = &proto::VvCommandFromProto,
    .event_to_proto = &proto::VvEventToProto,
    .part_of = [](const v1::Declaration& message) {
      return message.has_vv() ? &message.vv() : nullptr;
    },
    .mutable_part_of = [](v1::Declaration& message) { return message.mutable_vv(); },
    .set_event = [](v1::MatchEvent& out, vvpb::VvEvent event) {
      *out.mutable_vv() = std::move(event);
    },
    .set_view = [](v1::MatchView& out, const vv::View& view) {
      *out.mutable_vv() = proto::VvViewToProto(view);
    },
    .steps = kVvSteps,
    .units_of_part = &UnitsOfPart,
    .ids_of = nullptr,
    .check_part = nullptr,
    .with_carried = &WithCarried,
    .outcome_of = &OutcomeOf,
    // 15.1: each close assault is resolved separately.
    .played_rule = "15.1",
    .not_updates = kVvNotUpdates,
    .apply_update = &ApplyUpdate,
    .apply_side_update = nullptr,
};

}  // namespace

std::unique_ptr<const RulesetHost> MakeVvHost() {
  return std::make_unique<SealedHost<VvTypes>>(kVv);
}

}  // namespace melee::server
