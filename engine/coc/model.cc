#include "engine/coc/model.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <tuple>
#include <utility>

namespace melee::engine::coc {
namespace {

constexpr size_t kMaxUnits = 32;
constexpr size_t kMaxTeams = 16;
constexpr size_t kMaxLeaders = 8;
constexpr int kMaxFigures = 30;
constexpr int kMaxShock = 99;
constexpr int kMaxOrders = 6;
constexpr int kMaxArmour = 9;
constexpr int kMaxMovementDice = 4;
constexpr int kMaxFirepower = 60;
constexpr int kMaxForceMorale = 11;

Result<int> ParseInt(const std::string& key, const std::string& value, int low, int high) {
  int parsed = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (error != std::errc() || end != value.data() + value.size() || parsed < low ||
      parsed > high) {
    return Reject("", "option " + key + ": '" + value + "' is not " + std::to_string(low) + ".." +
                          std::to_string(high));
  }
  return parsed;
}

std::vector<std::string> SplitList(const std::string& value) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : value) {
    if (c == ',') {
      parts.push_back(part);
      part.clear();
    } else if (c != ' ') {
      part += c;
    }
  }
  parts.push_back(part);
  return parts;
}

// "5,6" -> faces 5 and 6.
Result<std::array<bool, 6>> ParseFaces(const std::string& key, const std::string& value) {
  std::array<bool, 6> faces = {false, false, false, false, false, false};
  if (value.empty()) return faces;
  for (const std::string& part : SplitList(value)) {
    auto face = ParseInt(key, part, 1, 6);
    if (!face) return Reject("", "option " + key + ": '" + value + "' is not a list of faces 1..6");
    faces[static_cast<size_t>(*face - 1)] = true;
  }
  return faces;
}

// Six names, one per d6 face, each one of `known`.
template <class E, size_t N>
Result<std::array<E, 6>> ParseSix(const std::string& key, const std::string& value,
                                  const std::array<E, N>& known) {
  const std::vector<std::string> parts = SplitList(value);
  std::string names;
  for (E e : known) names += (names.empty() ? "" : "|") + std::string(Name(e));
  if (parts.size() != 6) {
    return Reject("", "option " + key + ": '" + value + "' needs six values (" + names +
                          "), one per d6 face");
  }
  std::array<E, 6> table{};
  for (size_t i = 0; i < 6; ++i) {
    const auto found = std::find_if(known.begin(), known.end(),
                                    [&](E e) { return Name(e) == parts[i]; });
    if (found == known.end()) {
      return Reject("", "option " + key + ": '" + parts[i] + "' is not one of " + names);
    }
    table[i] = *found;
  }
  return table;
}

Result<void> InRange(const std::string& field, int value, int low, int high) {
  if (value < low || value > high) {
    return Reject("", field + ": " + std::to_string(value) + " is not in " + std::to_string(low) +
                          ".." + std::to_string(high));
  }
  return {};
}

Result<void> CheckId(const std::string& field, const std::string& id,
                     std::set<std::string>& seen) {
  if (id.empty()) return Reject("", field + ".id: required");
  if (!seen.insert(id).second) return Reject("", field + ".id: '" + id + "' is used twice");
  return {};
}

}  // namespace

std::string_view Name(Engagement value) {
  switch (value) {
    case Engagement::kCloseCombat: return "close_combat";
    case Engagement::kOverrun: return "overrun";
    case Engagement::kRam: return "ram";
  }
  return "?";
}

std::string_view Name(Quality value) {
  switch (value) {
    case Quality::kGreen: return "green";
    case Quality::kRegular: return "regular";
    case Quality::kElite: return "elite";
  }
  return "?";
}

std::string_view Name(Obstacle value) {
  switch (value) {
    case Obstacle::kNone: return "none";
    case Obstacle::kMinor: return "minor";
    case Obstacle::kMedium: return "medium";
    case Obstacle::kPathAround: return "path_around";
    case Obstacle::kMajor: return "major";
  }
  return "?";
}

std::string_view Name(Position value) {
  switch (value) {
    case Position::kOpen: return "open";
    case Position::kBuildingFromOutside: return "building_from_outside";
    case Position::kBuildingUpperFromOutside: return "building_upper_from_outside";
    case Position::kBuildingOtherFloor: return "building_other_floor";
    case Position::kBuildingSameFloor: return "building_same_floor";
    case Position::kBunkerEntrance: return "bunker_entrance";
    case Position::kBunkerNoEntrance: return "bunker_no_entrance";
  }
  return "?";
}

std::string_view Name(Cover value) {
  switch (value) {
    case Cover::kNone: return "none";
    case Cover::kLight: return "light";
    case Cover::kHard: return "hard";
  }
  return "?";
}

std::string_view Name(Role value) {
  switch (value) {
    case Role::kAttacker: return "attacker";
    case Role::kDefender: return "defender";
    case Role::kSupport: return "support";
  }
  return "?";
}

std::string_view Name(LeaderRank value) {
  return value == LeaderRank::kJunior ? "junior" : "senior";
}

std::string_view Name(LeaderStatus value) {
  switch (value) {
    case LeaderStatus::kActive: return "active";
    case LeaderStatus::kWounded: return "wounded";
    case LeaderStatus::kStunned: return "stunned";
    case LeaderStatus::kKilled: return "killed";
    case LeaderStatus::kCaptured: return "captured";
  }
  return "?";
}

std::string_view Name(StormOfSteel value) {
  switch (value) {
    case StormOfSteel::kNone: return "none";
    case StormOfSteel::kRerollOnes: return "reroll_ones";
    case StormOfSteel::kRerollMisses: return "reroll_misses";
  }
  return "?";
}

std::string_view Name(HitEffect value) {
  switch (value) {
    case HitEffect::kNone: return "none";
    case HitEffect::kShock: return "shock";
    case HitEffect::kKill: return "kill";
  }
  return "?";
}

std::string_view Name(LeaderHit value) {
  switch (value) {
    case LeaderHit::kKilled: return "killed";
    case LeaderHit::kWounded: return "wounded";
    case LeaderHit::kStunned: return "stunned";
  }
  return "?";
}

Result<Options> ParseOptions(const MatchOptions& match) {
  Options options;
  if (!match.variant.empty() && match.variant != "2e") {
    return Reject("", "unknown coc variant '" + match.variant + "' (known: 2e)");
  }
  for (const auto& [key, value] : match.values) {
    if (key == "declaration_order") {
      // 17.2 and 17.4.1 make both sides' choices at the same moment: sealed, revealed together.
      if (value == "sealed") continue;
      return Reject("17.2", "declaration_order '" + value +
                                "' is not supported for coc: both sides' choices are sealed and "
                                "revealed together");
    }
    Result<void> ok;
    if (key == "lmg_arc_dice") {
      auto parsed = ParseInt(key, value, 0, 9);
      if (!parsed) return tl::unexpected(parsed.error());
      options.lmg_arc_dice = *parsed;
    } else if (key == "light_cover_rounding") {
      if (value != "floor_two_thirds" && value != "remove_floor_third") {
        return Reject("", "option light_cover_rounding: '" + value +
                              "' is not floor_two_thirds or remove_floor_third");
      }
      options.light_cover_floor_two_thirds = value == "floor_two_thirds";
    } else if (key == "max_rounds") {
      auto parsed = ParseInt(key, value, 1, 9);
      if (!parsed) return tl::unexpected(parsed.error());
      options.max_rounds = *parsed;
    } else if (key == "supporting_options") {
      options.support_fire_allowed = false;
      for (const std::string& part : SplitList(value)) {
        if (part == "supporting_fire") {
          options.support_fire_allowed = true;
        } else if (part == "join") {
          return Reject("17.2", "not supported: 17.2 'join the combat' (the option list is "
                                "missing from the rule text, CoC-AMB-8)");
        } else if (part != "none") {
          return Reject("", "option supporting_options: '" + part +
                                "' is not supporting_fire or none");
        }
      }
    } else if (key == "storm_of_steel") {
      constexpr std::array<StormOfSteel, 3> kKnown = {
          StormOfSteel::kNone, StormOfSteel::kRerollOnes, StormOfSteel::kRerollMisses};
      const auto found = std::find_if(kKnown.begin(), kKnown.end(),
                                      [&value = value](StormOfSteel s) { return Name(s) == value; });
      if (found == kKnown.end()) {
        return Reject("", "option storm_of_steel: '" + value +
                              "' is not none, reroll_ones or reroll_misses");
      }
      options.storm_of_steel = *found;
    } else if (key == "leader_hit_on" || key == "force_morale_drop_on") {
      auto faces = ParseFaces(key, value);
      if (!faces) return tl::unexpected(faces.error());
      (key == "leader_hit_on" ? options.leader_hit_on : options.force_morale_drop_on) = *faces;
    } else if (key == "leader_hit_effects") {
      constexpr std::array<LeaderHit, 3> kKnown = {LeaderHit::kKilled, LeaderHit::kWounded,
                                                   LeaderHit::kStunned};
      auto table = ParseSix(key, value, kKnown);
      if (!table) return tl::unexpected(table.error());
      options.leader_hit_effects = *table;
    } else if (key == "overrun_hit_effects") {
      constexpr std::array<HitEffect, 3> kKnown = {HitEffect::kNone, HitEffect::kShock,
                                                   HitEffect::kKill};
      auto table = ParseSix(key, value, kKnown);
      if (!table) return tl::unexpected(table.error());
      options.overrun_hit_effects = *table;
    } else if (key == "wounded_orders_delta" || key == "force_morale_loss") {
      auto parsed = ParseInt(key, value, 0, 3);
      if (!parsed) return tl::unexpected(parsed.error());
      (key == "wounded_orders_delta" ? options.wounded_orders_delta : options.force_morale_loss) =
          *parsed;
    } else if (key == "prisoners_guard_ratio") {
      auto parsed = ParseInt(key, value, 1, 9);
      if (!parsed) return tl::unexpected(parsed.error());
      options.prisoners_guard_ratio = *parsed;
    } else {
      return Reject("", "unknown coc option '" + key +
                            "' (known: declaration_order, lmg_arc_dice, light_cover_rounding, "
                            "max_rounds, supporting_options, storm_of_steel, leader_hit_on, "
                            "leader_hit_effects, wounded_orders_delta, force_morale_drop_on, "
                            "force_morale_loss, prisoners_guard_ratio, overrun_hit_effects)");
    }
  }
  return options;
}

Result<void> ValidateSituation(const Situation& situation) {
  if (situation.units.size() > kMaxUnits) {
    return Reject("", "situation.units: at most " + std::to_string(kMaxUnits) + " units");
  }
  for (size_t s = 0; s < 2; ++s) {
    auto ok = InRange("situation.force_morale[" + std::string(s == 0 ? "side_a" : "side_b") + "]",
                      situation.force_morale[s], 1, kMaxForceMorale);
    if (!ok) return ok;
  }
  std::set<std::string> unit_ids;
  std::set<std::string> team_ids;
  std::set<std::string> leader_ids;
  std::set<std::string> defender_teams;
  const Seat defender = Opponent(situation.attacker);
  for (size_t u = 0; u < situation.units.size(); ++u) {
    const Unit& unit = situation.units[u];
    const std::string field = "situation.units[" + std::to_string(u) + "]";
    if (auto ok = CheckId(field, unit.id, unit_ids); !ok) return ok;
    const Seat expected = unit.role == Role::kAttacker ? situation.attacker : defender;
    if (unit.side != expected) {
      return Reject("", field + ".side: a " + std::string(Name(unit.role)) + " Unit belongs to " +
                            std::string(Name(expected)));
    }
    if (unit.teams.size() > kMaxTeams) {
      return Reject("", field + ".teams: at most " + std::to_string(kMaxTeams));
    }
    if (unit.leaders.size() > kMaxLeaders) {
      return Reject("", field + ".leaders: at most " + std::to_string(kMaxLeaders));
    }
    for (const auto& [name, value, high] :
         {std::tuple{"armour", unit.armour, kMaxArmour},
          std::tuple{"vehicle_shock", unit.vehicle_shock, kMaxShock},
          std::tuple{"movement_dice", unit.movement_dice, kMaxMovementDice},
          std::tuple{"support_firepower", unit.support_firepower, kMaxFirepower}}) {
      if (auto ok = InRange(field + "." + name, value, 0, high); !ok) return ok;
    }
    if (unit.vehicle && (!unit.teams.empty() || !unit.leaders.empty())) {
      return Reject("", field + ": a vehicle has no Teams or Leaders here (its crew is the "
                                "vehicle)");
    }
    if (!unit.vehicle && unit.teams.empty()) {
      return Reject("", field + ".teams: an infantry Unit needs at least one Team");
    }
    if (unit.vehicle && situation.engagement == Engagement::kCloseCombat) {
      return Reject("17.1", field + ": no Unit can enter Close Combat with a vehicle; vehicles "
                                    "never fight in Close Combat");
    }
    std::set<std::string> own_teams;
    for (size_t t = 0; t < unit.teams.size(); ++t) {
      const Team& team = unit.teams[t];
      const std::string team_field = field + ".teams[" + std::to_string(t) + "]";
      if (auto ok = CheckId(team_field, team.id, team_ids); !ok) return ok;
      own_teams.insert(team.id);
      if (unit.role == Role::kDefender) defender_teams.insert(team.id);
      for (const auto& [name, value, high] :
           {std::tuple{"figures", team.figures, kMaxFigures},
            std::tuple{"shock", team.shock, kMaxShock}, std::tuple{"smgs", team.smgs, kMaxFigures},
            std::tuple{"lmgs", team.lmgs, kMaxFigures}, std::tuple{"mmgs", team.mmgs, kMaxFigures}}) {
        if (auto ok = InRange(team_field + "." + name, value, 0, high); !ok) return ok;
      }
      if (team.smgs > team.figures) {
        return Reject("", team_field + ".smgs: more SMGs than figures");
      }
    }
    for (size_t l = 0; l < unit.leaders.size(); ++l) {
      const Leader& leader = unit.leaders[l];
      const std::string leader_field = field + ".leaders[" + std::to_string(l) + "]";
      if (auto ok = CheckId(leader_field, leader.id, leader_ids); !ok) return ok;
      if (auto ok = InRange(leader_field + ".orders", leader.orders, 0, kMaxOrders); !ok) {
        return ok;
      }
      if (!leader.team.empty() && !own_teams.contains(leader.team)) {
        return Reject("", leader_field + ".team: '" + leader.team + "' is not a Team of " +
                              unit.id);
      }
    }
  }
  // Everything an attacker moved through is a defender Team with a machine gun.
  for (size_t u = 0; u < situation.units.size(); ++u) {
    const Unit& unit = situation.units[u];
    const std::string field = "situation.units[" + std::to_string(u) + "]";
    for (const auto* list : {&unit.through_arcs, &unit.through_suppressing_fire}) {
      if (list->empty()) continue;
      if (unit.role != Role::kAttacker) {
        return Reject("", field + ": only an attacking Unit moves through arcs or Suppressing "
                                  "Fire");
      }
      for (const std::string& id : *list) {
        if (!defender_teams.contains(id)) {
          return Reject("", field + ": '" + id + "' is not a Team of the defending Unit");
        }
      }
    }
    if (unit.movement_dice > 0 && unit.role != Role::kAttacker) {
      return Reject("", field + ".movement_dice: only an attacking Unit moved into contact");
    }
    if (unit.support_firepower > 0 && unit.role != Role::kSupport) {
      return Reject("17.2", field + ".support_firepower: only the defender's Units within 4\" "
                                    "give Supporting Fire (CoC-AMB-8)");
    }
  }

  const auto count = [&](Role role) {
    return std::count_if(situation.units.begin(), situation.units.end(),
                         [&](const Unit& unit) { return unit.role == role; });
  };
  const auto first = [&](Role role) {
    return std::find_if(situation.units.begin(), situation.units.end(),
                        [&](const Unit& unit) { return unit.role == role; });
  };
  switch (situation.engagement) {
    case Engagement::kCloseCombat: {
      if (count(Role::kAttacker) == 0) return Reject("17.1", "situation: no attacking Unit");
      if (count(Role::kDefender) != 1) {
        return Reject("17.2", "situation: exactly one Unit is attacked (the defender)");
      }
      if (situation.obstacle == Obstacle::kMajor) {
        return Reject("17.1", "Close Combat cannot take place across a Major Obstacle or greater");
      }
      if (situation.position == Position::kBuildingUpperFromOutside) {
        return Reject("17.6", "troops attacking from outside a building can only engage an "
                              "enemy on the ground floor");
      }
      if (situation.position == Position::kBunkerNoEntrance) {
        return Reject("17.6", "Units in Bunkers can only be engaged in Close Combat if the "
                              "entrance is contacted");
      }
      if (situation.position != Position::kOpen && situation.cover != Cover::kNone) {
        return Reject("17.6", "situation.cover: the position (" +
                                  std::string(Name(situation.position)) +
                                  ") already sets the cover; leave cover none");
      }
      for (const Unit& unit : situation.units) {
        if (unit.role == Role::kAttacker && unit.broken) {
          return Reject("17.1", "attacking Unit " + unit.id +
                                    " is Broken: a Broken Unit may not activate");
        }
      }
      break;
    }
    case Engagement::kOverrun: {
      if (count(Role::kAttacker) != 1 || !first(Role::kAttacker)->vehicle) {
        return Reject("17.7", "an over-run is made by one vehicle (the attacking Unit)");
      }
      if (!first(Role::kAttacker)->tracked) {
        return Reject("17.7", "only tracked vehicles can over-run infantry positions");
      }
      if (count(Role::kDefender) == 0) return Reject("17.7", "situation: no Unit is over-run");
      for (const Unit& unit : situation.units) {
        if (unit.role == Role::kDefender && unit.vehicle) {
          return Reject("17.7", "an over-run contacts infantry; vehicles ram (17.8)");
        }
        if (unit.role == Role::kSupport) {
          return Reject("17.7", "an over-run has no supporting Units");
        }
      }
      break;
    }
    case Engagement::kRam: {
      if (count(Role::kAttacker) != 1 || count(Role::kDefender) != 1 ||
          count(Role::kSupport) != 0) {
        return Reject("17.8", "ramming is two armoured vehicles: one attacking, one defending");
      }
      for (const Unit& unit : situation.units) {
        if (!unit.vehicle || unit.armour < 1) {
          return Reject("17.8", "Unit " + unit.id + " is not an armoured vehicle (armour >= 1)");
        }
      }
      break;
    }
  }
  return {};
}

Cover DefendedCover(const Situation& situation) {
  switch (situation.position) {
    case Position::kOpen: return situation.cover;
    case Position::kBuildingFromOutside: return Cover::kHard;
    case Position::kBuildingOtherFloor: return Cover::kLight;
    case Position::kBuildingSameFloor: return Cover::kNone;
    case Position::kBunkerEntrance: return Cover::kHard;
    case Position::kBuildingUpperFromOutside:
    case Position::kBunkerNoEntrance: return Cover::kNone;
  }
  return Cover::kNone;
}

bool Optional(const Situation& situation) {
  return situation.obstacle == Obstacle::kMedium || situation.obstacle == Obstacle::kPathAround;
}

bool Present(const Leader& leader) {
  return leader.status != LeaderStatus::kKilled && leader.status != LeaderStatus::kCaptured;
}

bool Active(const Leader& leader) {
  return leader.status == LeaderStatus::kActive || leader.status == LeaderStatus::kWounded;
}

int TeamFigures(const Unit& unit) {
  int figures = 0;
  for (const Team& team : unit.teams) figures += team.figures;
  return figures;
}

int Figures(const Unit& unit) {
  return TeamFigures(unit) + static_cast<int>(std::count_if(
                                 unit.leaders.begin(), unit.leaders.end(),
                                 [](const Leader& leader) { return Present(leader); }));
}

int Shock(const Unit& unit) {
  int shock = 0;
  for (const Team& team : unit.teams) shock += team.shock;
  return shock;
}

bool Pinned(const Unit& unit) { return !unit.vehicle && Shock(unit) > Figures(unit); }

bool BrokenByShock(const Unit& unit) {
  return !unit.vehicle && TeamFigures(unit) > 0 && Shock(unit) >= 2 * Figures(unit);
}

bool WipedOut(const Unit& unit) { return !unit.vehicle && TeamFigures(unit) == 0; }

int OrdersNow(const Leader& leader, const Options& options) {
  switch (leader.status) {
    case LeaderStatus::kActive: return leader.orders;
    case LeaderStatus::kWounded: return std::max(0, leader.orders - options.wounded_orders_delta);
    case LeaderStatus::kStunned:
    case LeaderStatus::kKilled:
    case LeaderStatus::kCaptured: return 0;
  }
  return 0;
}

}  // namespace melee::engine::coc
