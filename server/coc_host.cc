// The coc ruleset on the server: what differs from the other sealed-declaration rulesets
// (server/sealed_host.h). Nothing on a Chain of Command table is hidden; only a sealed declaration
// or odd-hit placement is, until both are revealed. Its set-up part names the Units of both sides
// and the table-top facts either side may give (17.1).

#include <set>
#include <string>
#include <utility>

#include "engine/coc/rules.h"
#include "proto/codec/asl.h"  // SideToProto, SideFromProto
#include "proto/codec/coc.h"
#include "server/sealed_host.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;
namespace cocpb = melee::coc::v1;
namespace coc = melee::engine::coc;
using engine::Reject;
using engine::Result;
using engine::Seat;

std::string SeatName(Seat seat) { return std::string(engine::Name(seat)); }

// A shared fact of the set-up: either seat may give it (0 is "not given"); where both give one
// they must agree.
template <class Value>
Result<void> Agrees(Value mine, Value theirs, const std::string& field, const std::string& them) {
  if (static_cast<int>(mine) != 0 && static_cast<int>(theirs) != 0 && mine != theirs) {
    return Reject("", field + ": differs from what " + them + " entered; leave it out or enter "
                              "the same");
  }
  return {};
}

// ---- set-up -------------------------------------------------------------------------------

// Checks one side's part (RulesetHost::CheckSetup): its own Units, ids unique across the contact
// (Teams and Leaders too), the table-top facts as the other side gave them.
Result<void> CheckSetup(Seat seat, const v1::SubmitSetup& part, const SetupParts& parts) {
  if (!part.has_coc()) return Reject("", "submit_setup.coc: required for a coc match");
  const cocpb::SideSetup& mine = part.coc();
  const std::string field = "submit_setup.coc";
  if (auto read = proto::CocSideSetupFromProto(mine, field); !read) {
    return tl::unexpected(read.error());
  }
  const auto& other = parts[seat == Seat::kSideA ? 1 : 0];
  std::set<std::string> taken;
  size_t other_units = 0;
  if (other && other->has_coc()) {
    const cocpb::SideSetup& theirs = other->coc();
    other_units = static_cast<size_t>(theirs.units_size());
    for (const cocpb::Unit& unit : theirs.units()) {
      taken.insert(unit.id());
      for (const cocpb::Team& team : unit.teams()) taken.insert(team.id());
      for (const cocpb::Leader& leader : unit.leaders()) taken.insert(leader.id());
    }
    const std::string them = SeatName(engine::Opponent(seat));
    for (auto ok : {Agrees(mine.attacker(), theirs.attacker(), field + ".attacker", them),
                    Agrees(mine.engagement(), theirs.engagement(), field + ".engagement", them),
                    Agrees(mine.obstacle(), theirs.obstacle(), field + ".obstacle", them),
                    Agrees(mine.position(), theirs.position(), field + ".position", them),
                    Agrees(mine.cover(), theirs.cover(), field + ".cover", them)}) {
      if (!ok) return ok;
    }
  }
  if (static_cast<size_t>(mine.units_size()) + other_units > proto::kCocMaxUnits) {
    return Reject("", field + ".units: a contact holds at most " +
                          std::to_string(proto::kCocMaxUnits) + " units");
  }
  std::set<std::string> seen;
  for (int i = 0; i < mine.units_size(); ++i) {
    const cocpb::Unit& unit = mine.units(i);
    const std::string unit_field = field + ".units[" + std::to_string(i) + "]";
    if (unit.side() != proto::SideToProto(seat)) {
      return Reject("", unit_field + ".side: " + SeatName(seat) + " enters only its own units");
    }
    std::vector<std::string> ids = {unit.id()};
    for (const cocpb::Team& team : unit.teams()) ids.push_back(team.id());
    for (const cocpb::Leader& leader : unit.leaders()) ids.push_back(leader.id());
    for (const std::string& id : ids) {
      if (!seen.insert(id).second || taken.contains(id)) {
        return Reject("", unit_field + ": id '" + id + "' is already used in this contact");
      }
    }
  }
  return {};
}

// Returns the SetUp of the contact both parts describe.
Result<coc::Command> StartCommand(const SetupParts& parts) {
  cocpb::Situation situation;
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto& part = parts[i];
    if (!part || !part->has_coc()) return Reject("", "both sides must enter their units first");
    const cocpb::SideSetup& side = part->coc();
    if (side.attacker() != v1::SEAT_UNSPECIFIED) situation.set_attacker(side.attacker());
    if (side.engagement() != 0) situation.set_engagement(side.engagement());
    if (side.obstacle() != 0) situation.set_obstacle(side.obstacle());
    if (side.position() != 0) situation.set_position(side.position());
    if (side.cover() != 0) situation.set_cover(side.cover());
    for (const cocpb::Unit& unit : side.units()) *situation.add_units() = unit;
    if (i == 0) {
      situation.set_side_a_force_morale(side.force_morale());
    } else {
      situation.set_side_b_force_morale(side.force_morale());
    }
  }
  if (situation.attacker() == v1::SEAT_UNSPECIFIED) {
    return Reject("17.1", "set-up: neither side named the active player (attacker)");
  }
  auto read = proto::CocSituationFromProto(situation, "set-up");
  if (!read) return tl::unexpected(read.error());
  return coc::SetUp{std::move(*read)};
}

SetupFacts FactsOf(const SetupParts& parts) {
  SetupFacts facts;  // a CoC contact has no named Location
  for (const auto& part : parts) {
    if (!part || !part->has_coc() || facts.attacker) continue;
    if (part->coc().attacker() != v1::SEAT_UNSPECIFIED) {
      auto attacker = proto::SideFromProto(part->coc().attacker(), "attacker");
      if (attacker) facts.attacker = *attacker;
    }
  }
  return facts;
}

// ---- what differs from the other sealed-declaration rulesets ------------------------------

struct CocTypes {
  using State = coc::State;
  using Event = coc::Event;
  using Command = coc::Command;
  using View = coc::View;
  using Rules = coc::CocRules;
  using Phase = coc::Phase;
  using EventKind = coc::EventKind;
  using WireDeclaration = cocpb::Declaration;
  using LoggedCommand = cocpb::Command;
  using LoggedEvent = cocpb::CocEvent;
};

constexpr SealedStep<CocTypes> kCocSteps[] = {
    // 17.2: each side declares which Units fight and which support.
    {.phase = coc::Phase::kDeclare,
     .part = cocpb::Declaration::kDeclare,
     .field = "declare",
     .sealed = coc::EventKind::kDeclarationSealed,
     .revealed = coc::EventKind::kDeclarationsRevealed,
     .prompt = ": seal a Close Combat declaration (17.2)",
     .sealed_text = "sealed its Close Combat declaration",
     .read = [](const cocpb::Declaration& message,
                const std::string& field) -> Result<coc::Command> {
       return proto::CocDeclareFromProto(message.declare(), field);
     },
     .fallback = [](const coc::State& state, Seat seat) -> coc::Command {
       return coc::DefaultDeclaration(state, seat);
     },
     .shown = [](const coc::View& view, size_t i) { return view.declarations[i].has_value(); },
     .reveal = [](const coc::View& view, size_t i, cocpb::Declaration& out) {
       *out.mutable_declare() = proto::CocDeclareToProto(*view.declarations[i]);
     },
     .clear = [](cocpb::CocEvent& event) { event.clear_declare(); }},
    // 17.4.1: each side places the odd Kills and Shock it inflicts; each round's placement
    // is a step with its own deadline.
    {.phase = coc::Phase::kPlace,
     .part = cocpb::Declaration::kPlace,
     .field = "place",
     .sealed = coc::EventKind::kPlacementSealed,
     .revealed = coc::EventKind::kPlacementsRevealed,
     .prompt = ": seal the placement of odd hits (17.4.1)",
     .sealed_text = "sealed its placement of odd hits",
     .name = [](const coc::State& state) {
       return "place " + std::to_string(state.combat) + "." + std::to_string(state.round);
     },
     .read = [](const cocpb::Declaration& message,
                const std::string& field) -> Result<coc::Command> {
       return proto::CocPlaceFromProto(message.place(), field);
     },
     .fallback = [](const coc::State& state, Seat seat) -> coc::Command {
       return coc::DefaultPlacement(state, seat);
     },
     .shown = [](const coc::View& view, size_t i) { return view.placements[i].has_value(); },
     .reveal = [](const coc::View& view, size_t i, cocpb::Declaration& out) {
       *out.mutable_place() = proto::CocPlaceToProto(*view.placements[i]);
     },
     .clear = [](cocpb::CocEvent& event) { event.clear_place(); }},
};

constexpr SealedRuleset<CocTypes> kCoc = {
    .id = "coc",
    .make_ruleset = &coc::MakeCocRuleset,
    .no_announcements = {"17.2", "a coc close combat has no announcements: each side seals its "
                                 "declaration (seal_declaration with declaration.coc.declare)"},
    .no_choices = {"17.4.1", "a coc close combat asks no choices: odd Kills and Shock are sealed "
                             "as a declaration (declaration.coc.place)"},
    .ended = coc::EventKind::kContactEnded,
    .check_setup = &CheckSetup,
    .start = &StartCommand,
    .facts = &FactsOf,
    .command_to_proto = &proto::CocCommandToProto,
    .command_from_proto = &proto::CocCommandFromProto,
    .event_to_proto = &proto::CocEventToProto,
    .part_of = [](const v1::Declaration& message) {
      return message.has_coc() ? &message.coc() : nullptr;
    },
    .mutable_part_of = [](v1::Declaration& message) { return message.mutable_coc(); },
    .set_event = [](v1::MatchEvent& out, cocpb::CocEvent event) {
      *out.mutable_coc() = std::move(event);
    },
    .set_view = [](v1::MatchView& out, const coc::View& view) {
      *out.mutable_coc() = proto::CocViewToProto(view);
    },
    .steps = kCocSteps,
};

}  // namespace

std::unique_ptr<const RulesetHost> MakeCocHost() {
  return std::make_unique<SealedHost<CocTypes>>(kCoc);
}

}  // namespace melee::server
