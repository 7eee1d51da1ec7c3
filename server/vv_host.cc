// The vv ruleset on the server: what differs from the other sealed-declaration rulesets
// (server/sealed_host.h). In a V&V close assault nothing on the map is hidden; only a sealed
// declaration or allocation is, until both are revealed. Its set-up part names the units of both
// sides, the target hex and the hex the assault comes from (15.1).

#include <set>
#include <string>
#include <utility>

#include "engine/vv/rules.h"
#include "proto/codec/asl.h"  // SideToProto, SideFromProto
#include "proto/codec/frame.h"
#include "proto/codec/vv.h"
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
};

}  // namespace

std::unique_ptr<const RulesetHost> MakeVvHost() {
  return std::make_unique<SealedHost<VvTypes>>(kVv);
}

}  // namespace melee::server
