#include "proto/codec/coc.h"

#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "proto/codec/asl.h"  // SideFromProto, SideToProto
#include "proto/codec/checks.h"

namespace melee::proto {
namespace {

namespace coc = engine::coc;
namespace pb = google::protobuf;
namespace cocpb = melee::coc::v1;

using checks::Bad;
using checks::CheckRange;
using checks::CheckText;
using checks::DieToProto;
using engine::Reject;
using engine::Result;

Result<void> CheckId(std::string_view id, const Field& field) {
  return checks::CheckId(id, field, kCocMaxIdBytes);
}

Result<void> CheckList(int size, const Field& field) {
  if (static_cast<size_t>(size) > kCocMaxListSize) {
    return Bad(field, "at most " + std::to_string(kCocMaxListSize) + " entries");
  }
  return {};
}

// Reads a list of ids.
Result<std::vector<std::string>> IdsFromProto(const pb::RepeatedPtrField<std::string>& ids,
                                              const Field& field) {
  if (auto ok = CheckList(ids.size(), field); !ok) return tl::unexpected(ok.error());
  std::vector<std::string> out;
  for (int i = 0; i < ids.size(); ++i) {
    if (auto ok = CheckId(ids.Get(i), field.Item(i)); !ok) return tl::unexpected(ok.error());
    out.push_back(ids.Get(i));
  }
  return out;
}

template <class Repeated>
void IdsToProto(const std::vector<std::string>& ids, Repeated* out) {
  for (const std::string& id : ids) out->Add(std::string(id));
}

// An enum value from the wire: `valid` is the generated *_IsValid; the engine's value is the
// wire's minus `offset` (the wire's UNSPECIFIED, where it has one, is refused).
template <class E>
Result<E> EnumFromProto(int value, bool (*valid)(int), int offset, int count, const Field& field) {
  if (!valid(value) || value - offset < 0 || value - offset >= count) {
    return Bad(field, std::to_string(value) + " is not a valid value");
  }
  return static_cast<E>(value - offset);
}

Result<coc::Quality> QualityFromProto(cocpb::Quality quality, const Field& field) {
  switch (quality) {
    case cocpb::QUALITY_REGULAR: return coc::Quality::kRegular;
    case cocpb::QUALITY_GREEN: return coc::Quality::kGreen;
    case cocpb::QUALITY_ELITE: return coc::Quality::kElite;
    default: break;
  }
  return Bad(field, std::to_string(quality) + " is not a valid value");
}

cocpb::Quality QualityToProto(coc::Quality quality) {
  switch (quality) {
    case coc::Quality::kGreen: return cocpb::QUALITY_GREEN;
    case coc::Quality::kElite: return cocpb::QUALITY_ELITE;
    case coc::Quality::kRegular: break;
  }
  return cocpb::QUALITY_REGULAR;
}

Result<coc::Team> TeamFromProto(const cocpb::Team& message, const Field& field) {
  coc::Team team;
  if (auto ok = CheckId(message.id(), field.Child("id")); !ok) return tl::unexpected(ok.error());
  team.id = message.id();
  for (const auto& [name, value, high] : {std::tuple{"figures", message.figures(), 30},
                                          std::tuple{"shock", message.shock(), 99},
                                          std::tuple{"smgs", message.smgs(), 30},
                                          std::tuple{"lmgs", message.lmgs(), 30},
                                          std::tuple{"mmgs", message.mmgs(), 30}}) {
    if (auto ok = CheckRange(value, 0, high, field.Child(name)); !ok) {
      return tl::unexpected(ok.error());
    }
  }
  team.figures = message.figures();
  team.shock = message.shock();
  team.smgs = message.smgs();
  team.lmgs = message.lmgs();
  team.mmgs = message.mmgs();
  team.crewed_weapon = message.crewed_weapon();
  return team;
}

Result<coc::Leader> LeaderFromProto(const cocpb::Leader& message, const Field& field) {
  coc::Leader leader;
  if (auto ok = CheckId(message.id(), field.Child("id")); !ok) return tl::unexpected(ok.error());
  leader.id = message.id();
  auto rank = EnumFromProto<coc::LeaderRank>(message.rank(), cocpb::LeaderRank_IsValid, 0, 2,
                                             field.Child("rank"));
  if (!rank) return tl::unexpected(rank.error());
  leader.rank = *rank;
  auto status = EnumFromProto<coc::LeaderStatus>(message.status(), cocpb::LeaderStatus_IsValid, 0,
                                                 5, field.Child("status"));
  if (!status) return tl::unexpected(status.error());
  leader.status = *status;
  if (message.has_orders()) {
    if (auto ok = CheckRange(message.orders(), 0, 6, field.Child("orders")); !ok) {
      return tl::unexpected(ok.error());
    }
    leader.orders = message.orders();
  }
  leader.smg = message.smg();
  if (!message.team().empty()) {
    if (auto ok = CheckId(message.team(), field.Child("team")); !ok)
      return tl::unexpected(ok.error());
  }
  leader.team = message.team();
  return leader;
}

}  // namespace

Result<coc::Unit> CocUnitFromProto(const cocpb::Unit& message, const Field& field) {
  coc::Unit unit;
  if (auto ok = CheckId(message.id(), field.Child("id")); !ok) return tl::unexpected(ok.error());
  unit.id = message.id();
  auto side = SideFromProto(message.side(), field.Child("side"));
  if (!side) return tl::unexpected(side.error());
  unit.side = *side;
  auto role =
      EnumFromProto<coc::Role>(message.role(), cocpb::Role_IsValid, 1, 3, field.Child("role"));
  if (!role) return tl::unexpected(role.error());
  unit.role = *role;
  if (auto ok = CheckText(message.name(), field.Child("name"), kCocMaxNameBytes); !ok) {
    return tl::unexpected(ok.error());
  }
  unit.name = message.name();
  auto quality = QualityFromProto(message.quality(), field.Child("quality"));
  if (!quality) return tl::unexpected(quality.error());
  unit.quality = *quality;
  unit.aggressive = message.aggressive();
  unit.stubborn = message.stubborn();
  unit.broken = message.broken();
  unit.vehicle = message.vehicle();
  unit.tracked = message.tracked();
  for (const auto& [name, value, high] :
       {std::tuple{"armour", message.armour(), 9},
        std::tuple{"vehicle_shock", message.vehicle_shock(), 99},
        std::tuple{"movement_dice", message.movement_dice(), 4},
        std::tuple{"support_firepower", message.support_firepower(), 60}}) {
    if (auto ok = CheckRange(value, 0, high, field.Child(name)); !ok) {
      return tl::unexpected(ok.error());
    }
  }
  unit.armour = message.armour();
  unit.vehicle_shock = message.vehicle_shock();
  unit.movement_dice = message.movement_dice();
  unit.support_firepower = message.support_firepower();
  unit.hit_in_rear = message.hit_in_rear();
  if (auto ok = CheckList(message.teams_size(), field.Child("teams")); !ok) {
    return tl::unexpected(ok.error());
  }
  for (int i = 0; i < message.teams_size(); ++i) {
    auto team = TeamFromProto(message.teams(i), field.Child("teams", i));
    if (!team) return tl::unexpected(team.error());
    unit.teams.push_back(std::move(*team));
  }
  if (auto ok = CheckList(message.leaders_size(), field.Child("leaders")); !ok) {
    return tl::unexpected(ok.error());
  }
  for (int i = 0; i < message.leaders_size(); ++i) {
    auto leader = LeaderFromProto(message.leaders(i), field.Child("leaders", i));
    if (!leader) return tl::unexpected(leader.error());
    unit.leaders.push_back(std::move(*leader));
  }
  auto arcs = IdsFromProto(message.through_arcs(), field.Child("through_arcs"));
  if (!arcs) return tl::unexpected(arcs.error());
  unit.through_arcs = std::move(*arcs);
  auto suppressing =
      IdsFromProto(message.through_suppressing_fire(), field.Child("through_suppressing_fire"));
  if (!suppressing) return tl::unexpected(suppressing.error());
  unit.through_suppressing_fire = std::move(*suppressing);
  return unit;
}

namespace {

// The shared facts of a situation or a set-up part.
struct Facts {
  coc::Engagement engagement = coc::Engagement::kCloseCombat;
  coc::Obstacle obstacle = coc::Obstacle::kNone;
  coc::Position position = coc::Position::kOpen;
  coc::Cover cover = coc::Cover::kNone;
};

template <class Message>
Result<Facts> FactsFromProto(const Message& message, const Field& field) {
  Facts facts;
  auto engagement = EnumFromProto<coc::Engagement>(message.engagement(), cocpb::Engagement_IsValid,
                                                   0, 3, field.Child("engagement"));
  if (!engagement) return tl::unexpected(engagement.error());
  facts.engagement = *engagement;
  auto obstacle = EnumFromProto<coc::Obstacle>(message.obstacle(), cocpb::Obstacle_IsValid, 0, 5,
                                               field.Child("obstacle"));
  if (!obstacle) return tl::unexpected(obstacle.error());
  facts.obstacle = *obstacle;
  auto position = EnumFromProto<coc::Position>(message.position(), cocpb::Position_IsValid, 0, 7,
                                               field.Child("position"));
  if (!position) return tl::unexpected(position.error());
  facts.position = *position;
  auto cover =
      EnumFromProto<coc::Cover>(message.cover(), cocpb::Cover_IsValid, 0, 3, field.Child("cover"));
  if (!cover) return tl::unexpected(cover.error());
  facts.cover = *cover;
  return facts;
}

Result<void> UnitsFromProto(const pb::RepeatedPtrField<cocpb::Unit>& units, const Field& field,
                            std::vector<coc::Unit>* out) {
  if (static_cast<size_t>(units.size()) > kCocMaxUnits) {
    return Bad(field, "at most " + std::to_string(kCocMaxUnits) + " units");
  }
  for (int i = 0; i < units.size(); ++i) {
    auto unit = CocUnitFromProto(units.Get(i), field.Item(i));
    if (!unit) return tl::unexpected(unit.error());
    if (out != nullptr) out->push_back(std::move(*unit));
  }
  return {};
}

}  // namespace

Result<coc::Situation> CocSituationFromProto(const cocpb::Situation& message, const Field& field) {
  coc::Situation situation;
  auto facts = FactsFromProto(message, field);
  if (!facts) return tl::unexpected(facts.error());
  situation.engagement = facts->engagement;
  situation.obstacle = facts->obstacle;
  situation.position = facts->position;
  situation.cover = facts->cover;
  auto attacker = SideFromProto(message.attacker(), field.Child("attacker"));
  if (!attacker) return tl::unexpected(attacker.error());
  situation.attacker = *attacker;
  if (auto ok = UnitsFromProto(message.units(), field.Child("units"), &situation.units); !ok) {
    return tl::unexpected(ok.error());
  }
  for (const auto& [name, value] :
       {std::pair{"side_a_force_morale", message.side_a_force_morale()},
        std::pair{"side_b_force_morale", message.side_b_force_morale()}}) {
    if (auto ok = CheckRange(value, 1, 11, field.Child(name)); !ok)
      return tl::unexpected(ok.error());
  }
  situation.force_morale = {message.side_a_force_morale(), message.side_b_force_morale()};
  if (auto ok = CheckText(message.location(), field.Child("location"), kCocMaxNameBytes); !ok) {
    return tl::unexpected(ok.error());
  }
  situation.location = message.location();
  return situation;
}

Result<void> CocSideSetupFromProto(const cocpb::SideSetup& message, const Field& field) {
  if (message.attacker() != melee::v1::SEAT_UNSPECIFIED) {
    if (auto side = SideFromProto(message.attacker(), field.Child("attacker")); !side) {
      return tl::unexpected(side.error());
    }
  }
  if (auto facts = FactsFromProto(message, field); !facts) return tl::unexpected(facts.error());
  // 0: the Force Morale the match carries for this seat (docs/forces.md).
  if (auto ok = CheckRange(message.force_morale(), 0, 11, field.Child("force_morale")); !ok) {
    return tl::unexpected(ok.error());
  }
  if (auto ok = CheckText(message.location(), field.Child("location"), kCocMaxNameBytes); !ok) {
    return tl::unexpected(ok.error());
  }
  if (auto ok = CheckList(message.in_contact_size(), field.Child("in_contact")); !ok) {
    return tl::unexpected(ok.error());
  }
  for (int i = 0; i < message.in_contact_size(); ++i) {
    const cocpb::InContact& in = message.in_contact(i);
    const Field in_field = field.Child("in_contact", i);
    if (auto ok = CheckId(in.unit(), in_field.Child("unit")); !ok)
      return tl::unexpected(ok.error());
    if (in.role() != cocpb::ROLE_UNSPECIFIED) {
      auto role =
          EnumFromProto<coc::Role>(in.role(), cocpb::Role_IsValid, 1, 3, in_field.Child("role"));
      if (!role) return tl::unexpected(role.error());
    }
    if (auto ok = CheckRange(in.movement_dice(), 0, 4, in_field.Child("movement_dice")); !ok) {
      return tl::unexpected(ok.error());
    }
    if (auto ok = CheckRange(in.support_firepower(), 0, 60, in_field.Child("support_firepower"));
        !ok) {
      return tl::unexpected(ok.error());
    }
    for (const auto& [name, ids] :
         {std::pair{"through_arcs", &in.through_arcs()},
          std::pair{"through_suppressing_fire", &in.through_suppressing_fire()}}) {
      if (auto read = IdsFromProto(*ids, in_field.Child(name)); !read) {
        return tl::unexpected(read.error());
      }
    }
    for (int k = 0; k < i; ++k) {
      if (message.in_contact(k).unit() == in.unit()) {
        return Bad(in_field.Child("unit"), "'" + in.unit() + "' twice");
      }
    }
  }
  return UnitsFromProto(message.units(), field.Child("units"), nullptr);
}

Result<coc::Declare> CocDeclareFromProto(const cocpb::Declare& message, const Field& field) {
  coc::Declare declare;
  declare.engage = !message.decline();
  declare.together = !message.in_sequence();
  auto sequence = IdsFromProto(message.sequence(), field.Child("sequence"));
  if (!sequence) return tl::unexpected(sequence.error());
  declare.sequence = std::move(*sequence);
  auto support = IdsFromProto(message.support(), field.Child("support"));
  if (!support) return tl::unexpected(support.error());
  declare.support = std::move(*support);
  declare.advance = message.advance();
  return declare;
}

Result<coc::Place> CocPlaceFromProto(const cocpb::Place& message, const Field& field) {
  coc::Place place;
  auto kills = IdsFromProto(message.odd_kills(), field.Child("odd_kills"));
  if (!kills) return tl::unexpected(kills.error());
  place.odd_kills = std::move(*kills);
  auto shock = IdsFromProto(message.odd_shock(), field.Child("odd_shock"));
  if (!shock) return tl::unexpected(shock.error());
  place.odd_shock = std::move(*shock);
  return place;
}

cocpb::Command CocCommandToProto(const coc::Command& command) {
  cocpb::Command out;
  if (const auto* setup = std::get_if<coc::SetUp>(&command)) {
    *out.mutable_set_up() = CocSituationToProto(setup->situation);
  } else if (const auto* declare = std::get_if<coc::Declare>(&command)) {
    *out.mutable_declare() = CocDeclareToProto(*declare);
  } else {
    *out.mutable_place() = CocPlaceToProto(std::get<coc::Place>(command));
  }
  return out;
}

Result<coc::Command> CocCommandFromProto(const cocpb::Command& message) {
  switch (message.command_case()) {
    case cocpb::Command::kSetUp: {
      auto situation = CocSituationFromProto(message.set_up(), "command.set_up");
      if (!situation) return tl::unexpected(situation.error());
      return coc::Command(coc::SetUp{std::move(*situation)});
    }
    case cocpb::Command::kDeclare: {
      auto declare = CocDeclareFromProto(message.declare(), "command.declare");
      if (!declare) return tl::unexpected(declare.error());
      return coc::Command(std::move(*declare));
    }
    case cocpb::Command::kPlace: {
      auto place = CocPlaceFromProto(message.place(), "command.place");
      if (!place) return tl::unexpected(place.error());
      return coc::Command(std::move(*place));
    }
    case cocpb::Command::COMMAND_NOT_SET:
      break;
  }
  return Bad("command", "required: set_up, declare or place");
}

Result<cocpb::Contact> ContactFromJson(std::string_view json) {
  if (json.size() > kCocMaxJsonBytes) {
    return Reject("", "the contact is " + std::to_string(json.size()) + " bytes; at most " +
                          std::to_string(kCocMaxJsonBytes) + " are read");
  }
  cocpb::Contact message;
  pb::util::JsonParseOptions strict;  // Unknown fields and enum names are errors.
  const auto status = pb::util::JsonStringToMessage(json, &message, strict);
  if (!status.ok()) {
    return Reject("", "not a melee.coc.v1.Contact in the protobuf JSON mapping: " +
                          std::string(status.message()));
  }
  return message;
}

Result<coc::Script> CocScriptFromProto(const cocpb::Contact& message) {
  coc::Script script;
  if (auto ok = CheckText(message.variant(), "variant", kCocMaxIdBytes); !ok) {
    return tl::unexpected(ok.error());
  }
  script.options.variant = message.variant();
  if (static_cast<size_t>(message.options_size()) > kCocMaxOptions) {
    return Bad("options", "at most " + std::to_string(kCocMaxOptions) + " entries");
  }
  for (const auto& [key, value] : message.options()) {
    if (auto ok = CheckText(key, "options", kCocMaxIdBytes); !ok) return tl::unexpected(ok.error());
    if (auto ok = CheckText(value, "options." + key, kCocMaxOptionBytes); !ok) {
      return tl::unexpected(ok.error());
    }
    script.options.values[key] = value;
  }
  auto situation = CocSituationFromProto(message.situation(), "situation");
  if (!situation) return tl::unexpected(situation.error());
  script.situation = std::move(*situation);
  if (auto ok = coc::ValidateSituation(script.situation); !ok) return tl::unexpected(ok.error());
  const size_t attacker = script.situation.attacker == engine::Seat::kSideA ? 0 : 1;
  auto attacking = CocDeclareFromProto(message.attacker_declaration(), "attacker_declaration");
  if (!attacking) return tl::unexpected(attacking.error());
  auto defending = CocDeclareFromProto(message.defender_declaration(), "defender_declaration");
  if (!defending) return tl::unexpected(defending.error());
  script.declarations[attacker] = std::move(*attacking);
  script.declarations[1 - attacker] = std::move(*defending);
  for (const auto& [list, index, name] :
       {std::tuple{&message.attacker_placements(), attacker, "attacker_placements"},
        std::tuple{&message.defender_placements(), 1 - attacker, "defender_placements"}}) {
    if (auto ok = CheckList(list->size(), name); !ok) return tl::unexpected(ok.error());
    const Field placements(name);
    for (int i = 0; i < list->size(); ++i) {
      auto place = CocPlaceFromProto(list->Get(i), placements.Item(i));
      if (!place) return tl::unexpected(place.error());
      script.placements[index].push_back(std::move(*place));
    }
  }
  return script;
}

// ---- writers ----------------------------------------------------------------------------------

cocpb::Unit CocUnitToProto(const coc::Unit& unit) {
  cocpb::Unit out;
  out.set_id(unit.id);
  out.set_side(SideToProto(unit.side));
  out.set_role(static_cast<cocpb::Role>(static_cast<int>(unit.role) + 1));
  out.set_name(unit.name);
  out.set_quality(QualityToProto(unit.quality));
  out.set_aggressive(unit.aggressive);
  out.set_stubborn(unit.stubborn);
  out.set_broken(unit.broken);
  out.set_vehicle(unit.vehicle);
  out.set_tracked(unit.tracked);
  out.set_armour(unit.armour);
  out.set_vehicle_shock(unit.vehicle_shock);
  for (const coc::Team& team : unit.teams) {
    cocpb::Team* t = out.add_teams();
    t->set_id(team.id);
    t->set_figures(team.figures);
    t->set_shock(team.shock);
    t->set_smgs(team.smgs);
    t->set_lmgs(team.lmgs);
    t->set_mmgs(team.mmgs);
    t->set_crewed_weapon(team.crewed_weapon);
  }
  for (const coc::Leader& leader : unit.leaders) {
    cocpb::Leader* l = out.add_leaders();
    l->set_id(leader.id);
    l->set_rank(static_cast<cocpb::LeaderRank>(leader.rank));
    l->set_orders(leader.orders);
    l->set_status(static_cast<cocpb::LeaderStatus>(leader.status));
    l->set_smg(leader.smg);
    l->set_team(leader.team);
  }
  out.set_movement_dice(unit.movement_dice);
  IdsToProto(unit.through_arcs, out.mutable_through_arcs());
  IdsToProto(unit.through_suppressing_fire, out.mutable_through_suppressing_fire());
  out.set_hit_in_rear(unit.hit_in_rear);
  out.set_support_firepower(unit.support_firepower);
  return out;
}

cocpb::Situation CocSituationToProto(const coc::Situation& situation) {
  cocpb::Situation out;
  out.set_engagement(static_cast<cocpb::Engagement>(situation.engagement));
  out.set_attacker(SideToProto(situation.attacker));
  out.set_obstacle(static_cast<cocpb::Obstacle>(situation.obstacle));
  out.set_position(static_cast<cocpb::Position>(situation.position));
  out.set_cover(static_cast<cocpb::Cover>(situation.cover));
  for (const coc::Unit& unit : situation.units) *out.add_units() = CocUnitToProto(unit);
  out.set_side_a_force_morale(situation.force_morale[0]);
  out.set_side_b_force_morale(situation.force_morale[1]);
  out.set_location(situation.location);
  return out;
}

cocpb::Declare CocDeclareToProto(const coc::Declare& declare) {
  cocpb::Declare out;
  out.set_decline(!declare.engage);
  out.set_in_sequence(!declare.together);
  IdsToProto(declare.sequence, out.mutable_sequence());
  IdsToProto(declare.support, out.mutable_support());
  out.set_advance(declare.advance);
  return out;
}

cocpb::Place CocPlaceToProto(const coc::Place& place) {
  cocpb::Place out;
  IdsToProto(place.odd_kills, out.mutable_odd_kills());
  IdsToProto(place.odd_shock, out.mutable_odd_shock());
  return out;
}

namespace {

cocpb::Pool PoolToProto(const coc::Pool& pool) {
  cocpb::Pool out;
  for (const coc::DiceRow& row : pool.rows) {
    cocpb::DiceRow* r = out.add_rows();
    r->set_rule(row.rule);
    r->set_what(row.what);
    r->set_before(row.before);
    r->set_after(row.after);
  }
  out.set_dice(pool.dice);
  return out;
}

cocpb::RoundReport ReportToProto(const coc::State& state, const coc::RoundReport& report) {
  cocpb::RoundReport out;
  out.set_combat(report.combat + 1);
  out.set_round(report.round);
  for (size_t i = 0; i < 2; ++i) {
    cocpb::SideRound* side = i == 0 ? out.mutable_side_a() : out.mutable_side_b();
    *side->mutable_pool() = PoolToProto(report.pools[i]);
    for (int face : report.faces[i]) side->add_faces(face);
    side->set_kills(report.kills[i]);
    side->set_shock(report.shock[i]);
    for (const coc::TeamHits& hits : report.shares[i]) {
      cocpb::TeamHits* h = side->add_received();
      h->set_team(coc::TeamName(state, hits.team));
      h->set_kills(hits.kills);
      h->set_shock(hits.shock);
    }
    side->set_odd_kills(report.odd_kills[i]);
    side->set_odd_shock(report.odd_shock[i]);
  }
  if (report.overwhelmed) out.set_overwhelmed(SideToProto(*report.overwhelmed));
  for (const std::string& note : report.notes) out.add_notes(note);
  return out;
}

cocpb::Outcome OutcomeToProto(const coc::Outcome& outcome) {
  cocpb::Outcome out;
  out.set_kind(static_cast<cocpb::OutcomeKind>(outcome.kind));
  if (outcome.winner) out.set_winner(SideToProto(*outcome.winner));
  out.set_margin(outcome.margin);
  out.set_retreat_inches(outcome.retreat_inches);
  out.set_facing_away(outcome.facing_away);
  out.set_shock_per_team(outcome.shock_per_team);
  return out;
}

bool OnTeam(coc::EffectKind kind) {
  switch (kind) {
    case coc::EffectKind::kKills:
    case coc::EffectKind::kShock:
    case coc::EffectKind::kGuards:
    case coc::EffectKind::kEvaded:
    case coc::EffectKind::kMovedAway:
    case coc::EffectKind::kDestroyed:
      return true;
    default:
      return false;
  }
}

}  // namespace

cocpb::CocEvent CocEventToProto(const coc::State& before, const coc::Event& event) {
  cocpb::CocEvent out;
  out.set_kind(static_cast<cocpb::EventKind>(static_cast<int>(event.kind) + 1));
  out.set_seat(SideToProto(event.seat));
  // A set-up event names its own units; every other event those of the state it changes.
  coc::State named = before;
  if (event.situation) {
    named.units = event.situation->units;
    *out.mutable_situation() = CocSituationToProto(*event.situation);
  }
  if (event.declare) *out.mutable_declare() = CocDeclareToProto(*event.declare);
  if (event.place) *out.mutable_place() = CocPlaceToProto(*event.place);
  if (event.report) *out.mutable_report() = ReportToProto(named, *event.report);
  if (event.outcome) *out.mutable_outcome() = OutcomeToProto(*event.outcome);
  for (const engine::DieRoll& roll : event.rolls) *out.add_dice() = DieToProto(roll);
  for (const coc::Effect& effect : event.effects) {
    cocpb::Effect* shown = out.add_effects();
    shown->set_kind(static_cast<cocpb::EffectKind>(static_cast<int>(effect.kind) + 1));
    shown->set_unit(std::string(coc::UnitId(named, effect.team.unit)));
    if (OnTeam(effect.kind)) shown->set_team(coc::TeamName(named, effect.team));
    if (effect.kind == coc::EffectKind::kLeaderHit ||
        effect.kind == coc::EffectKind::kLeaderCaptured) {
      const auto& leaders = named.units[effect.team.unit].leaders;
      shown->set_leader(effect.index < leaders.size() ? leaders[effect.index].id : "?");
    }
    shown->set_value(effect.value);
    shown->set_text(effect.text);
  }
  for (const coc::ForceMoraleTest& test : event.morale) {
    cocpb::ForceMoraleTest* t = out.add_morale();
    t->set_seat(SideToProto(test.seat));
    t->set_cause(test.cause);
    t->set_die(test.die);
    t->set_loss(test.loss);
    t->set_level(test.level);
  }
  for (const std::string& note : event.notes) out.add_notes(note);
  out.set_text(coc::DescribeEvent(before, event));
  return out;
}

cocpb::ViewedUnit CocViewedUnitToProto(const coc::Unit& unit, bool gone) {
  cocpb::ViewedUnit out;
  *out.mutable_unit() = CocUnitToProto(unit);
  out.set_gone(gone);
  out.set_pinned(coc::Pinned(unit));
  out.set_broken(unit.broken || coc::BrokenByShock(unit));
  return out;
}

cocpb::CocView CocViewToProto(const coc::View& view) {
  cocpb::CocView out;
  out.set_phase(static_cast<cocpb::Phase>(static_cast<int>(view.phase) + 1));
  if (view.phase == coc::Phase::kSetUp) return out;
  *out.mutable_situation() = CocSituationToProto(view.situation);
  for (size_t i = 0; i < view.units.size(); ++i) {
    *out.add_units() = CocViewedUnitToProto(view.units[i], i < view.gone.size() && view.gone[i]);
  }
  out.set_side_a_force_morale(view.force_morale[0]);
  out.set_side_b_force_morale(view.force_morale[1]);
  out.set_side_a_owes(view.owes[0]);
  out.set_side_b_owes(view.owes[1]);
  out.set_side_a_sealed(view.has_sealed[0]);
  out.set_side_b_sealed(view.has_sealed[1]);
  if (view.declarations[0]) *out.mutable_side_a_declaration() = CocDeclareToProto(*view.declarations[0]);
  if (view.declarations[1]) *out.mutable_side_b_declaration() = CocDeclareToProto(*view.declarations[1]);
  if (view.report) {
    coc::State named;
    named.units = view.units;
    *out.mutable_report() = ReportToProto(named, *view.report);
  }
  if (view.placements[0]) *out.mutable_side_a_placement() = CocPlaceToProto(*view.placements[0]);
  if (view.placements[1]) *out.mutable_side_b_placement() = CocPlaceToProto(*view.placements[1]);
  for (const coc::Outcome& outcome : view.outcomes) *out.add_outcomes() = OutcomeToProto(outcome);
  return out;
}

cocpb::PreviewTable CocPreviewToProto(const coc::Preview& preview) {
  cocpb::PreviewTable out;
  const auto chance = [](const coc::Chance& c) {
    cocpb::Probability p;
    p.set_exact(c.exact);
    p.set_percent(static_cast<double>(c.hundredths_percent) / 100.0);
    return p;
  };
  out.set_attacker_dice(preview.attacker_dice);
  out.set_defender_dice(preview.defender_dice);
  if (preview.overwhelmed) out.set_overwhelmed(SideToProto(*preview.overwhelmed));
  for (size_t k = 0; k < preview.margin.size(); ++k) {
    cocpb::MarginChance* m = out.add_margins();
    m->set_margin(preview.lowest_margin + static_cast<int>(k));
    *m->mutable_chance() = chance(preview.margin[k]);
  }
  *out.mutable_attacker_wins() = chance(preview.attacker_wins);
  *out.mutable_draw() = chance(preview.draw);
  *out.mutable_defender_wins() = chance(preview.defender_wins);
  *out.mutable_side_a_pool() = PoolToProto(preview.pools[0]);
  *out.mutable_side_b_pool() = PoolToProto(preview.pools[1]);
  return out;
}

}  // namespace melee::proto
