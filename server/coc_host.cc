// The coc ruleset on the server: what differs from the other sealed-declaration rulesets
// (server/sealed_host.h). Nothing on a Chain of Command table is hidden; only a sealed declaration
// or odd-hit placement is, until both are revealed. Its set-up part names the Units of both sides
// and the table-top facts either side may give (17.1).

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "engine/coc/rules.h"
#include "proto/codec/asl.h"  // SideToProto, SideFromProto
#include "proto/codec/coc.h"
#include "server/forces.h"
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
    if (!mine.location().empty() && !theirs.location().empty() &&
        mine.location() != theirs.location()) {
      return Reject("", field + ".location: differs from the place " + them + " entered ('" +
                            theirs.location() + "'); leave it empty or enter the same");
    }
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
    if (!side.location().empty()) situation.set_location(side.location());
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
  SetupFacts facts;  // the Location: the place the players named ("" none)
  for (const auto& part : parts) {
    if (!part || !part->has_coc()) continue;
    if (facts.location.empty()) facts.location = part->coc().location();
    if (!facts.attacker && part->coc().attacker() != v1::SEAT_UNSPECIFIED) {
      auto attacker = proto::SideFromProto(part->coc().attacker(), "attacker");
      if (attacker) facts.attacker = *attacker;
    }
  }
  return facts;
}

// ---- forces that persist (docs/forces.md) -------------------------------------------------
//
// A coc Unit carries its Teams with their figures (a Kill removes one for good) and Shock, its
// Leaders with their status, its quality, traits and Broken status; its role and approach are
// each contact's (InContact). Each side's Force Morale carries too. A contact's Location is the
// place the players named; a Unit that retreated, retired or fled (17.5) left it and is on the
// table at no named place ("") until a MOVE names one.

size_t Index(Seat seat) { return seat == Seat::kSideA ? 0 : 1; }

// A Unit as its force carries it: without this contact's role and approach.
cocpb::Unit Carried(cocpb::Unit unit) {
  unit.clear_role();
  unit.clear_movement_dice();
  unit.clear_through_arcs();
  unit.clear_through_suppressing_fire();
  unit.clear_hit_in_rear();
  unit.clear_support_firepower();
  return unit;
}

std::vector<v1::ForceUnit> UnitsOfPart(const v1::SubmitSetup& part) {
  std::vector<v1::ForceUnit> units;
  if (!part.has_coc()) return units;
  for (const cocpb::Unit& unit : part.coc().units()) {
    v1::ForceUnit& entered = units.emplace_back();
    entered.set_id(unit.id());
    entered.set_owner(unit.side());
    entered.set_location(part.coc().location());
    entered.set_fate(v1::FORCE_FATE_PRESENT);
    *entered.mutable_coc() = Carried(unit);
  }
  return units;
}

// A Unit's id, its Teams' and its Leaders': each is the Unit's for good.
std::vector<std::string> IdsOf(const v1::ForceUnit& unit) {
  std::vector<std::string> ids = {unit.id()};
  for (const cocpb::Team& team : unit.coc().teams()) ids.push_back(team.id());
  for (const cocpb::Leader& leader : unit.coc().leaders()) ids.push_back(leader.id());
  return ids;
}

std::string CarriedMorale(Seat seat, int32_t morale) {
  return SeatName(seat) + "'s Force Morale is " + std::to_string(morale) +
         " as the match carries it; leave force_morale out (0) and report a change with "
         "update_units FORCE_MORALE";
}

// A part's Force Morale and InContact entries against the forces.
Result<void> CheckPart(Seat seat, const v1::SubmitSetup& part, const Forces& forces) {
  if (!part.has_coc()) return {};
  const cocpb::SideSetup& mine = part.coc();
  const std::optional<int32_t>& carried = forces[Index(seat)].force_morale;
  if (mine.force_morale() != 0 && carried && *carried != mine.force_morale()) {
    return Reject("", "submit_setup.coc.force_morale: " + CarriedMorale(seat, *carried));
  }
  for (int i = 0; i < mine.in_contact_size(); ++i) {
    const std::string& id = mine.in_contact(i).unit();
    const v1::ForceUnit* held = FindForceUnit(forces, id);
    if (held == nullptr || held->owner() != proto::SideToProto(seat) ||
        held->fate() != v1::FORCE_FATE_PRESENT) {
      return Reject("", "submit_setup.coc.in_contact[" + std::to_string(i) + "].unit: '" + id +
                            "' is not a Unit of " + SeatName(seat) +
                            "'s force on the table (a new Unit is entered in units)");
    }
  }
  return {};
}

// Adds what the forces carry into the contact at `location`: each side's Force Morale, and
// every Unit the match carries there with this contact's role (InContact, else from the
// attacker: its Units attack; the other side's defend, or support when another of its Units is
// attacked, 17.2).
Result<SetupParts> WithCarried(const SetupParts& parts, const Forces& forces,
                               const std::string& location) {
  std::array<v1::SubmitSetup, 2> out = CopyParts(parts);
  for (size_t i = 0; i < out.size(); ++i) {
    const Seat seat = i == 0 ? Seat::kSideA : Seat::kSideB;
    cocpb::SideSetup& part = *out[i].mutable_coc();
    const std::optional<int32_t>& carried = forces[i].force_morale;
    const std::string field = "submit_setup.coc.force_morale";
    if (part.force_morale() != 0) {
      if (carried && *carried != part.force_morale()) {
        return Reject("", field + ": " + CarriedMorale(seat, *carried));
      }
      continue;
    }
    if (!carried) {
      return Reject("", field + ": " + SeatName(seat) +
                            "'s Force Morale is not known yet: give it (1..11)");
    }
    if (*carried == 0) {
      return Reject("", field + ": " + SeatName(seat) +
                            "'s Force Morale is 0: its force has lost and fights no more contacts");
    }
    part.set_force_morale(*carried);
  }
  const std::optional<Seat> attacker = FactsOf(parts).attacker;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].coc().in_contact().empty()) continue;
    if (location.empty()) {
      return Reject("", "submit_setup.coc.in_contact: name the contact's place (location): "
                        "carried Units join the contact where the match carries them");
    }
  }
  // No place, no carried Units; without an attacker, StartCommand says what is missing.
  if (location.empty() || !attacker) return ShareParts(std::move(out));
  const size_t defender = Index(engine::Opponent(*attacker));
  std::array<std::vector<int>, 2> in_contact_used;
  bool defender_named = false;
  for (const cocpb::Unit& unit : out[defender].coc().units()) {
    defender_named = defender_named || unit.role() == cocpb::ROLE_DEFENDER;
  }
  std::vector<int> undecided;  // the defender's carried Units whose role is to decide
  for (const v1::ForceUnit* present : PresentAt(forces, location)) {
    const v1::ForceUnit& carried = *present;
    const size_t side = carried.owner() == v1::SEAT_SIDE_A ? 0 : 1;
    cocpb::SideSetup& part = *out[side].mutable_coc();
    cocpb::Unit unit = carried.coc();
    for (int k = 0; k < part.in_contact_size(); ++k) {
      const cocpb::InContact& in = part.in_contact(k);
      if (in.unit() != carried.id()) continue;
      in_contact_used[side].push_back(k);
      unit.set_role(in.role());
      unit.set_movement_dice(in.movement_dice());
      *unit.mutable_through_arcs() = in.through_arcs();
      *unit.mutable_through_suppressing_fire() = in.through_suppressing_fire();
      unit.set_hit_in_rear(in.hit_in_rear());
      unit.set_support_firepower(in.support_firepower());
    }
    if (unit.role() == cocpb::ROLE_UNSPECIFIED) {
      if (side == defender) {
        undecided.push_back(part.units_size());
      } else {
        unit.set_role(cocpb::ROLE_ATTACKER);
      }
    } else if (side == defender && unit.role() == cocpb::ROLE_DEFENDER) {
      defender_named = true;
    }
    *part.add_units() = std::move(unit);
  }
  for (size_t side = 0; side < out.size(); ++side) {
    const cocpb::SideSetup& part = out[side].coc();
    for (int k = 0; k < part.in_contact_size(); ++k) {
      if (std::find(in_contact_used[side].begin(), in_contact_used[side].end(), k) ==
          in_contact_used[side].end()) {
        return Reject("", "submit_setup.coc.in_contact[" + std::to_string(k) + "].unit: '" +
                              part.in_contact(k).unit() + "' is not one of " +
                              SeatName(side == 0 ? Seat::kSideA : Seat::kSideB) +
                              "'s Units the match carries in " + location);
      }
    }
  }
  cocpb::SideSetup& defending = *out[defender].mutable_coc();
  if (!defender_named && undecided.size() > 1) {
    std::string names;
    for (int u : undecided) names += (names.empty() ? "" : ", ") + defending.units(u).id();
    return Reject("17.2", "submit_setup.coc.in_contact: " +
                              SeatName(engine::Opponent(*attacker)) + " has Units " + names +
                              " in " + location +
                              ": name the one attacked (role ROLE_DEFENDER); the others support "
                              "it");
  }
  for (int u : undecided) {
    defending.mutable_units(u)->set_role(defender_named ? cocpb::ROLE_SUPPORT
                                                        : cocpb::ROLE_DEFENDER);
    defender_named = true;
  }
  return ShareParts(std::move(out));
}

CombatOutcome OutcomeOf(const coc::State& s) {
  CombatOutcome outcome;
  outcome.location = s.situation.location;
  outcome.attacker = s.situation.attacker;
  outcome.force_morale = {s.force_morale[0], s.force_morale[1]};
  for (size_t i = 0; i < s.units.size(); ++i) {
    const coc::Unit& unit = s.units[i];
    v1::ForceUnit& carried = outcome.units.emplace_back();
    carried.set_id(unit.id);
    carried.set_owner(proto::SideToProto(unit.side));
    carried.set_location(s.situation.location);
    *carried.mutable_coc() = Carried(proto::CocUnitToProto(unit));
    const coc::Left left = i < s.left.size() ? s.left[i] : coc::Left::kStayed;
    if (left == coc::Left::kSurrendered) {
      carried.set_fate(v1::FORCE_FATE_CAPTURED);  // 17.5.6: prisoners leave play
    } else if (left == coc::Left::kRemoved || coc::WipedOut(unit)) {
      carried.set_fate(v1::FORCE_FATE_ELIMINATED);  // 17.5.5, or no figure left
    } else {
      carried.set_fate(v1::FORCE_FATE_PRESENT);
      // 17.5: it retreated, retired or fled: it left the contact's ground.
      if (left == coc::Left::kRetreated) carried.clear_location();
    }
  }
  return outcome;
}

// What a coc update names: the Unit itself, one of its Teams or one of its Leaders.
struct Named {
  bool unit = false;
  cocpb::Team* team = nullptr;
  cocpb::Leader* leader = nullptr;
};

Named NameIn(const std::string& id, v1::ForceUnit& unit) {
  Named named;
  named.unit = id == unit.id();
  for (cocpb::Team& team : *unit.mutable_coc()->mutable_teams()) {
    if (team.id() == id) named.team = &team;
  }
  for (cocpb::Leader& leader : *unit.mutable_coc()->mutable_leaders()) {
    if (leader.id() == id) named.leader = &leader;
  }
  return named;
}

// The Team a SHOCK or KILL falls on: the one named, or a one-Team Unit's.
Result<cocpb::Team*> TeamHit(const Named& named, v1::ForceUnit& unit, const std::string& kind,
                             const std::string& field) {
  if (named.team != nullptr) return named.team;
  cocpb::Unit& counter = *unit.mutable_coc();
  if (counter.teams_size() == 1) return counter.mutable_teams(0);
  return Reject("17.4.1", field + ".unit: '" + unit.id() + "' has " +
                              std::to_string(counter.teams_size()) + " Teams: name the Team the " +
                              kind + " falls on (Kills and Shock fall on Teams)");
}

// Checks a new Unit's own ids: its Teams and Leaders unique, a Leader with one of its Teams.
Result<void> CheckOwnIds(const cocpb::Unit& unit, const std::string& field) {
  std::set<std::string> ids = {unit.id()};
  std::set<std::string> teams;
  for (int t = 0; t < unit.teams_size(); ++t) {
    if (!ids.insert(unit.teams(t).id()).second) {
      return Reject("", field + ".teams[" + std::to_string(t) + "].id: '" + unit.teams(t).id() +
                            "' twice");
    }
    teams.insert(unit.teams(t).id());
  }
  for (int l = 0; l < unit.leaders_size(); ++l) {
    const cocpb::Leader& leader = unit.leaders(l);
    const std::string leader_field = field + ".leaders[" + std::to_string(l) + "]";
    if (!ids.insert(leader.id()).second) {
      return Reject("", leader_field + ".id: '" + leader.id() + "' twice");
    }
    if (!leader.team().empty() && !teams.contains(leader.team())) {
      return Reject("", leader_field + ".team: '" + leader.team() + "' is not a Team of " +
                            unit.id());
    }
  }
  if (!unit.vehicle() && unit.teams().empty()) {
    return Reject("", field + ".teams: an infantry Unit needs at least one Team");
  }
  if (unit.vehicle() && (!unit.teams().empty() || !unit.leaders().empty())) {
    return Reject("", field + ": a vehicle has no Teams or Leaders here (its crew is the vehicle)");
  }
  return {};
}

Result<void> ApplyUpdate(const v1::UnitUpdate& update, v1::ForceUnit& unit,
                         const std::string& field) {
  cocpb::Unit& counter = *unit.mutable_coc();
  const Named named = NameIn(update.unit(), unit);
  const std::string name = "'" + update.unit() + "'";
  const std::string kind = v1::UpdateKind_Name(update.kind()).substr(12);  // after UPDATE_KIND_
  switch (update.kind()) {
    case v1::UPDATE_KIND_MOVE:
    case v1::UPDATE_KIND_BREAK:
    case v1::UPDATE_KIND_RALLY:
    case v1::UPDATE_KIND_ELIMINATE:
      if (!named.unit) {
        return Reject("", field + ".unit: " + kind + " names the Unit ('" + unit.id() +
                              "'), not one of its Teams or Leaders" +
                              (update.kind() == v1::UPDATE_KIND_ELIMINATE
                                   ? " (a Team's figures are killed with KILL)"
                                   : ""));
      }
      break;
    default:
      break;
  }
  switch (update.kind()) {
    case v1::UPDATE_KIND_ENTER: {
      if (!update.has_coc()) {
        return Reject("", field + ".coc: ENTER gives the new Unit (its Teams, Leaders, quality)");
      }
      cocpb::Unit entered = Carried(update.coc());
      entered.set_id(unit.id());
      entered.set_side(unit.owner());
      entered.set_role(cocpb::ROLE_ATTACKER);  // a role is each contact's; any reads the Unit
      auto read = proto::CocUnitFromProto(entered, field + ".coc");
      if (!read) return tl::unexpected(read.error());
      if (auto ok = CheckOwnIds(entered, field + ".coc"); !ok) return ok;
      counter = Carried(proto::CocUnitToProto(*read));  // as a contact will give it back
      return {};
    }
    case v1::UPDATE_KIND_MOVE:
      return {};
    case v1::UPDATE_KIND_BREAK:
      if (counter.vehicle()) return Reject("17.5", field + ": only infantry Units Break");
      if (counter.broken()) return Reject("17.5", field + ": " + name + " is already Broken");
      counter.set_broken(true);
      return {};
    case v1::UPDATE_KIND_RALLY:
      if (!counter.broken()) return Reject("17.5", field + ": " + name + " is not Broken");
      counter.set_broken(false);
      return {};
    case v1::UPDATE_KIND_ELIMINATE:
      unit.set_fate(v1::FORCE_FATE_ELIMINATED);
      return {};
    case v1::UPDATE_KIND_SHOCK: {
      if (update.value() == 0) {
        return Reject("17.4.1", field + ".value: the Shock added (negative: removed), not 0");
      }
      if (named.leader != nullptr) {
        return Reject("17.4.1", field + ".unit: Shock falls on Teams, not on a Leader (" + name +
                                    ")");
      }
      if (named.unit && counter.vehicle()) {
        const int32_t shock = counter.vehicle_shock() + update.value();
        if (shock < 0 || shock > 99) {
          return Reject("17.8", field + ".value: " + name + " has " +
                                    std::to_string(counter.vehicle_shock()) +
                                    " Shock; it would have " + std::to_string(shock) + " (0..99)");
        }
        counter.set_vehicle_shock(shock);
        return {};
      }
      auto team = TeamHit(named, unit, "Shock", field);
      if (!team) return tl::unexpected(team.error());
      if ((*team)->figures() == 0) {
        return Reject("17.4.1", field + ".unit: Team '" + (*team)->id() +
                                    "' has no figure left, and a wiped-out Team holds no Shock");
      }
      const int32_t shock = (*team)->shock() + update.value();
      if (shock < 0 || shock > 99) {
        return Reject("17.4.1", field + ".value: Team '" + (*team)->id() + "' has " +
                                    std::to_string((*team)->shock()) + " Shock; it would have " +
                                    std::to_string(shock) + " (0..99)");
      }
      (*team)->set_shock(shock);
      return {};
    }
    case v1::UPDATE_KIND_KILL: {
      if (named.leader != nullptr) {
        // 17.5.1 / 13.2.7: a Leader hit and killed.
        if (update.value() != 1) {
          return Reject("13.2.7", field + ".value: a Leader is killed once: 1");
        }
        if (named.leader->status() == cocpb::LEADER_STATUS_KILLED ||
            named.leader->status() == cocpb::LEADER_STATUS_CAPTURED) {
          return Reject("13.2.7", field + ".unit: Leader " + name + " is already " +
                                      (named.leader->status() == cocpb::LEADER_STATUS_KILLED
                                           ? "killed"
                                           : "captured"));
        }
        named.leader->set_status(cocpb::LEADER_STATUS_KILLED);
        return {};
      }
      if (named.unit && counter.vehicle()) {
        return Reject("17.4.1", field + ".unit: a vehicle has no figures; ELIMINATE it when it "
                                        "is knocked out");
      }
      auto team = TeamHit(named, unit, "Kill", field);
      if (!team) return tl::unexpected(team.error());
      const int32_t figures = (*team)->figures();
      if (update.value() < 1 || update.value() > figures) {
        return Reject("17.4.1", field + ".value: Team '" + (*team)->id() + "' has " +
                                    std::to_string(figures) + " figure(s): kill 1.." +
                                    std::to_string(figures));
      }
      // 17.4.1: each Kill removes a figure for good; a wiped-out Team's Shock goes (C.1).
      (*team)->set_figures(figures - update.value());
      (*team)->set_smgs(std::min((*team)->smgs(), (*team)->figures()));
      if ((*team)->figures() == 0) (*team)->set_shock(0);
      const bool wiped_out = std::all_of(counter.teams().begin(), counter.teams().end(),
                                         [](const cocpb::Team& t) { return t.figures() == 0; });
      if (wiped_out) unit.set_fate(v1::FORCE_FATE_ELIMINATED);
      return {};
    }
    case v1::UPDATE_KIND_FORCE_MORALE:
      return Reject("", field + ".unit: FORCE_MORALE is the side's: it names no unit (leave unit "
                            "empty)");
    default:
      return Reject("", field + ".kind: not a coc unit update (coc takes ENTER, MOVE, SHOCK, "
                            "KILL, BREAK, RALLY, ELIMINATE and FORCE_MORALE)");
  }
}

// FORCE_MORALE: the side's Force Morale becomes `value`.
Result<void> ApplySideUpdate(const v1::UnitUpdate& update, Force& force,
                             const std::string& field) {
  if (update.kind() != v1::UPDATE_KIND_FORCE_MORALE) {
    return Reject("", field + ".unit: required: only FORCE_MORALE names no unit (it is the "
                              "side's)");
  }
  if (update.value() < 0 || update.value() > 11) {
    return Reject("", field + ".value: Force Morale is 0..11 (0: the force has lost); not " +
                          std::to_string(update.value()));
  }
  force.force_morale = update.value();
  return {};
}

// The kinds of update a coc Unit never takes.
constexpr NotAnUpdate kCocNotUpdates[] = {
    {v1::UPDATE_KIND_PIN, "17.3",
     "PIN is not a coc update: a Unit is Pinned while its Shock exceeds its figures; report "
     "SHOCK"},
    {v1::UPDATE_KIND_UNPIN, "17.3",
     "UNPIN is not a coc update: a Unit is Pinned while its Shock exceeds its figures; report "
     "SHOCK with a negative value"},
    {v1::UPDATE_KIND_REDUCE, "17.4.1",
     "REDUCE is not a coc update: a Unit loses figures to Kills; report KILL on its Team"},
    {v1::UPDATE_KIND_CONCEAL, "",
     "nothing is concealed in a coc match: every Unit is on the table"},
    {v1::UPDATE_KIND_REVEAL, "",
     "nothing is concealed in a coc match: every Unit is on the table"},
    {v1::UPDATE_KIND_RECOMBINE, "", "RECOMBINE is asl's (A1.32), not a coc update"},
    {v1::UPDATE_KIND_SET_CX, "", "CX is asl's (A4.51), not a coc update"},
    {v1::UPDATE_KIND_CLEAR_CX, "", "CX is asl's (A4.51), not a coc update"},
};

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
     .owed = [](const coc::State& state, Seat seat) -> std::string {
       if (!state.report) return {};
       const size_t i = seat == Seat::kSideA ? 0 : 1;
       const auto count = [](int n, const char* one, const char* many) {
         return std::to_string(n) + " " + (n == 1 ? one : many);
       };
       std::string owed;
       if (state.report->odd_kills[i] > 0) {
         owed = count(state.report->odd_kills[i], "odd Kill", "odd Kills");
       }
       if (state.report->odd_shock[i] > 0) {
         owed += (owed.empty() ? "" : " and ") + std::to_string(state.report->odd_shock[i]) +
                 " odd Shock";
       }
       return " — " + owed + " on its own fighting Teams, no Team twice in a list";
     },
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
    .units_of_part = &UnitsOfPart,
    .ids_of = &IdsOf,
    .check_part = &CheckPart,
    .with_carried = &WithCarried,
    .outcome_of = &OutcomeOf,
    // 17.2: a contact is fought to its result ("concluding that Close Combat").
    .played_rule = "17.2",
    .not_updates = kCocNotUpdates,
    .apply_update = &ApplyUpdate,
    .apply_side_update = &ApplySideUpdate,
};

}  // namespace

std::unique_ptr<const RulesetHost> MakeCocHost() {
  return std::make_unique<SealedHost<CocTypes>>(kCoc);
}

}  // namespace melee::server
