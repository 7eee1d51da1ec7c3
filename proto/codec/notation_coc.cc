// Chain of Command Units (docs/counter-notation.md): one unit from its counter notation, and a unit
// back into it.

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "proto/codec/checks.h"
#include "proto/codec/coc.h"
#include "proto/codec/notation.h"
#include "proto/codec/notation_detail.h"

namespace melee::proto {
namespace {

namespace aslpb = melee::asl::v1;
namespace cocpb = melee::coc::v1;
namespace vvpb = melee::vv::v1;
namespace v1 = melee::v1;

using namespace notation_detail;  // NOLINT(google-build-using-namespace): the notation's words

// ---- coc ----------------------------------------------------------------------------------------

constexpr std::pair<std::string_view, cocpb::Role> kCocRoles[] = {
    {"attacker", cocpb::ROLE_ATTACKER},
    {"defender", cocpb::ROLE_DEFENDER},
    {"support", cocpb::ROLE_SUPPORT},
    {"supporting", cocpb::ROLE_SUPPORT},
};

constexpr std::pair<std::string_view, cocpb::Quality> kCocQualities[] = {
    {"regular", cocpb::QUALITY_REGULAR},
    {"green", cocpb::QUALITY_GREEN},
    {"elite", cocpb::QUALITY_ELITE},
};

constexpr std::pair<std::string_view, cocpb::LeaderStatus> kCocStatuses[] = {
    {"active", cocpb::LEADER_STATUS_ACTIVE},     {"wounded", cocpb::LEADER_STATUS_WOUNDED},
    {"stunned", cocpb::LEADER_STATUS_STUNNED},   {"killed", cocpb::LEADER_STATUS_KILLED},
    {"captured", cocpb::LEADER_STATUS_CAPTURED},
};

bool IsCocElementStart(std::string_view word) {
  return word == "team" || word == "leader" || word == "junior" || word == "senior";
}

bool IsCocTeamWord(std::string_view word) {
  return word == "smg" || word == "lmg" || word == "mmg" || word == "hmg" || word == "crewed";
}

std::string CocTeamId(std::string_view unit, int index) {
  return std::string(unit) + "-t" + std::to_string(index + 1);
}

std::string CocLeaderId(std::string_view unit, int index) {
  return std::string(unit) + "-l" + std::to_string(index + 1);
}

Result<void> CheckGeneratedId(const std::string& id, std::string_view what) {
  if (id.size() > kCocMaxIdBytes) {
    return Reject("", "the " + std::string(what) + " id " + Shown(id) + " would be longer than " +
                          std::to_string(kCocMaxIdBytes) + " characters: give the " +
                          std::string(what) + " an id (" + std::string(what) + " ID ...)");
  }
  return {};
}

Result<void> CocTeam(const std::vector<Token>& t, std::string_view unit_id, int index,
                     cocpb::Team& team) {
  size_t i = 1;
  if (i < t.size() && !StartsWithDigit(t[i].word) && !t[i].quoted && !IsCocTeamWord(t[i].word) &&
      t[i].word.find('=') == std::string::npos) {
    if (auto ok = CheckWordId(t[i], "team"); !ok) return ok;
    team.set_id(t[i].text);
    ++i;
  } else {
    team.set_id(CocTeamId(unit_id, index));
    if (auto ok = CheckGeneratedId(team.id(), "team"); !ok) return ok;
  }
  if (i >= t.size() || !StartsWithDigit(t[i].word)) {
    return Reject("", "a team needs its figures (Leaders not counted): team 5 lmg, team 4");
  }
  const auto figures = Number(t[i].word);
  if (!figures) return Reject("", Shown(t[i].text) + " is not a number of figures");
  if (auto ok = InRange(t[i], "figures", *figures, 0, 30); !ok) return ok;
  team.set_figures(*figures);
  for (++i; i < t.size(); ++i) {
    const Token& token = t[i];
    int count = 1;
    if (StartsWithDigit(token.word)) {
      const auto n = Number(token.word);
      if (!n || i + 1 >= t.size() || !IsCocTeamWord(t[i + 1].word) || t[i + 1].word == "crewed") {
        return Reject("", Shown(token.text) + " needs a weapon after it, e.g. 2 smg");
      }
      if (auto ok = InRange(token, "weapons", *n, 0, 30); !ok) return ok;
      count = *n;
      ++i;
    }
    const std::string& w = t[i].word;
    if (w == "smg") {
      team.set_smgs(team.smgs() + count);
    } else if (w == "lmg") {
      team.set_lmgs(team.lmgs() + count);
    } else if (w == "mmg" || w == "hmg") {
      team.set_mmgs(team.mmgs() + count);
    } else if (w == "crewed") {
      team.set_crewed_weapon(true);
    } else if (auto pair = KeyValue(t[i]); pair && pair->first == "shock") {
      auto n = KeyNumber(t[i], pair->second, 0, 99);
      if (!n) return tl::unexpected(n.error());
      team.set_shock(*n);
    } else {
      return Reject("", Unknown(t[i], "coc") + " (in a team: N smg, lmg, mmg, crewed, shock=N)");
    }
  }
  return {};
}

Result<void> CocLeader(const std::vector<Token>& t, std::string_view unit_id, int index,
                       const cocpb::Unit& unit, cocpb::Leader& leader) {
  bool said_leader = false;
  bool said_rank = false;
  for (size_t i = 0; i < t.size(); ++i) {
    const Token& token = t[i];
    const std::string& w = token.word;
    if (w == "leader") {
      said_leader = true;
    } else if (w == "junior" || w == "senior") {
      if (said_rank) return Reject("", "two ranks: " + Shown(token.text));
      said_rank = true;
      leader.set_rank(w == "senior" ? cocpb::LEADER_RANK_SENIOR : cocpb::LEADER_RANK_JUNIOR);
    } else if (w == "smg") {
      leader.set_smg(true);
    } else if (w == "with") {
      if (i + 1 >= t.size()) return Reject("", "'with' needs a team: with 1, with rifles");
      const Token& team = t[++i];
      if (StartsWithDigit(team.word)) {
        const auto n = Number(team.word);
        if (!n || *n < 1 || *n > unit.teams_size()) {
          return Reject("", "'with " + team.text + "': this Unit has teams 1.." +
                                std::to_string(unit.teams_size()));
        }
        leader.set_team(unit.teams(*n - 1).id());
      } else {
        if (auto ok = CheckWordId(team, "'with'"); !ok) return ok;
        const bool found =
            std::any_of(unit.teams().begin(), unit.teams().end(),
                        [&](const cocpb::Team& each) { return each.id() == team.text; });
        if (!found) return Reject("", "'with " + team.text + "': no such team in this Unit");
        leader.set_team(team.text);
      }
    } else if (auto pair = KeyValue(token); pair && pair->first == "orders") {
      auto n = KeyNumber(token, pair->second, 0, 6);
      if (!n) return tl::unexpected(n.error());
      leader.set_orders(*n);
    } else {
      bool matched = false;
      for (const auto& [name, status] : kCocStatuses) {
        if (w == name) {
          leader.set_status(status);
          matched = true;
        }
      }
      if (matched) continue;
      if (leader.id().empty() && !token.quoted && !token.separator && !StartsWithDigit(w) &&
          w.find('=') == std::string::npos) {
        if (auto ok = CheckWordId(token, "leader"); !ok) return ok;
        leader.set_id(token.text);
        continue;
      }
      return Reject("", Unknown(token, "coc") +
                            " (a leader: junior or senior, orders=N, smg, wounded, stunned, "
                            "killed, captured, with TEAM)");
    }
  }
  if (!said_leader) return Reject("", "write 'leader' in a leader's part: senior leader, leader");
  if (leader.id().empty()) {
    leader.set_id(CocLeaderId(unit_id, index));
    if (auto ok = CheckGeneratedId(leader.id(), "leader"); !ok) return ok;
  }
  return {};
}

Result<cocpb::Unit> CocUnit(std::string_view id, v1::Seat side, std::string_view notation) {
  auto tokens = Tokenize(notation, ",;:");
  if (!tokens) return tl::unexpected(tokens.error());
  const std::vector<Token>& t = *tokens;
  cocpb::Unit unit;
  unit.set_id(std::string(id));
  unit.set_side(side);
  std::string label;
  std::string noun;
  bool role_said = false;
  bool quality_said = false;
  size_t i = 0;
  for (; i < t.size(); ++i) {
    const Token& token = t[i];
    const std::string& w = token.word;
    if (token.quoted) {
      if (!label.empty()) return Reject("", "two names: " + Shown(token.text));
      label = token.text;
      if (label.empty()) return Reject("", "an empty name \"\"");
      continue;
    }
    if (w == ":") {
      ++i;
      break;
    }
    if (IsCocElementStart(w)) break;
    if (token.separator) {
      return Reject("", "a '" + token.text +
                            "' separates teams and leaders, after ':' (squad: "
                            "team 5 lmg, team 4; leader)");
    }
    if (w == "section" || w == "squad") {
      noun = token.text;
      continue;
    }
    bool matched = false;
    for (const auto& [name, role] : kCocRoles) {
      if (w == name) {
        if (role_said) return Reject("", "two roles: " + Shown(token.text));
        unit.set_role(role);
        role_said = matched = true;
      }
    }
    for (const auto& [name, quality] : kCocQualities) {
      if (w == name) {
        if (quality_said) return Reject("", "two qualities: " + Shown(token.text));
        unit.set_quality(quality);
        quality_said = matched = true;
      }
    }
    if (matched) continue;
    if (w == "aggressive") {
      unit.set_aggressive(true);
    } else if (w == "stubborn") {
      unit.set_stubborn(true);
    } else if (w == "broken") {
      unit.set_broken(true);
    } else if (w == "hit-in-rear" || w == "rear") {
      unit.set_hit_in_rear(true);
    } else if (w == "vehicle") {
      unit.set_vehicle(true);
    } else if (w == "tank") {
      unit.set_vehicle(true);
      unit.set_tracked(true);
    } else if (w == "tracked") {
      unit.set_tracked(true);
    } else if (auto pair = KeyValue(token)) {
      const auto& [key, value] = *pair;
      if (key == "armour" || key == "armor") {
        auto n = KeyNumber(token, value, 0, 9);
        if (!n) return tl::unexpected(n.error());
        unit.set_armour(*n);
      } else if (key == "shock") {
        auto n = KeyNumber(token, value, 0, 99);
        if (!n) return tl::unexpected(n.error());
        unit.set_vehicle_shock(*n);
      } else if (key == "movement") {
        auto n = KeyNumber(token, value, 0, 4);
        if (!n) return tl::unexpected(n.error());
        unit.set_movement_dice(*n);
      } else if (key == "support-dice") {
        auto n = KeyNumber(token, value, 0, 60);
        if (!n) return tl::unexpected(n.error());
        unit.set_support_firepower(*n);
      } else if (key == "through-arc" || key == "through-fire") {
        std::string_view rest = value;
        do {
          const std::string item(rest.substr(0, rest.find(',')));
          rest.remove_prefix(std::min(rest.size(), item.size() + 1));
          Token team = token;
          team.text = item;
          team.word = Lower(item);
          if (auto ok = CheckWordId(team, key); !ok) return tl::unexpected(ok.error());
          *(key == "through-arc" ? unit.add_through_arcs() : unit.add_through_suppressing_fire()) =
              item;
        } while (!rest.empty());
      } else {
        return Reject("", Unknown(token, "coc"));
      }
    } else {
      return Reject("", Unknown(token, "coc"));
    }
  }
  unit.set_name(label.empty() ? noun : label);
  // Teams and Leaders, separated by ',' or ';'.
  std::vector<std::vector<Token>> parts(1);
  for (; i < t.size(); ++i) {
    if (t[i].word == "," || t[i].word == ";") {
      parts.emplace_back();
    } else if (t[i].word == ":") {
      return Reject("",
                    "one ':' ends the Unit's words; teams and leaders are separated by ',' "
                    "or ';'");
    } else {
      parts.back().push_back(t[i]);
    }
  }
  for (const std::vector<Token>& part : parts) {
    if (part.empty()) continue;
    if (part[0].word == "team") {
      cocpb::Team team;
      if (auto ok = CocTeam(part, id, unit.teams_size(), team); !ok) {
        return tl::unexpected(ok.error());
      }
      *unit.add_teams() = std::move(team);
    } else if (IsCocElementStart(part[0].word)) {
      cocpb::Leader leader;
      if (auto ok = CocLeader(part, id, unit.leaders_size(), unit, leader); !ok) {
        return tl::unexpected(ok.error());
      }
      *unit.add_leaders() = std::move(leader);
    } else {
      return Reject("", Shown(part[0].text) +
                            " starts neither a team nor a leader (team 5 lmg, senior leader)");
    }
  }
  if (unit.teams().empty() && !unit.vehicle()) {
    return Reject("",
                  "an infantry Unit needs its teams after ':' (squad: team 5 lmg, team 4); "
                  "a vehicle says vehicle or tank");
  }
  cocpb::Unit checked = unit;  // a roster gives the role later, from the attacker
  if (checked.role() == cocpb::ROLE_UNSPECIFIED) checked.set_role(cocpb::ROLE_ATTACKER);
  if (auto ok = CocUnitFromProto(checked, std::string(id)); !ok) return tl::unexpected(ok.error());
  return unit;
}

std::string CocNotation(const cocpb::Unit& unit) {
  std::vector<std::string> header;
  if (unit.name() == "section" || unit.name() == "squad") {
    header.push_back(unit.name());
  } else if (!unit.name().empty()) {
    header.push_back(Quoted(unit.name()));
  }
  for (const auto& [word, role] : kCocRoles) {
    if (role == unit.role() && word != "supporting") header.push_back(std::string(word));
  }
  for (const auto& [word, quality] : kCocQualities) {
    if (quality == unit.quality() && quality != cocpb::QUALITY_REGULAR) {
      header.push_back(std::string(word));
    }
  }
  if (unit.aggressive()) header.push_back("aggressive");
  if (unit.stubborn()) header.push_back("stubborn");
  if (unit.broken()) header.push_back("broken");
  if (unit.hit_in_rear()) header.push_back("hit-in-rear");
  if (unit.vehicle() && unit.tracked()) {
    header.push_back("tank");
  } else {
    if (unit.vehicle()) header.push_back("vehicle");
    if (unit.tracked()) header.push_back("tracked");
  }
  if (unit.armour() != 0) header.push_back("armour=" + std::to_string(unit.armour()));
  if (unit.vehicle_shock() != 0) header.push_back("shock=" + std::to_string(unit.vehicle_shock()));
  if (unit.movement_dice() != 0) {
    header.push_back("movement=" + std::to_string(unit.movement_dice()));
  }
  for (const std::string& team : unit.through_arcs()) header.push_back("through-arc=" + team);
  for (const std::string& team : unit.through_suppressing_fire()) {
    header.push_back("through-fire=" + team);
  }
  if (unit.support_firepower() != 0) {
    header.push_back("support-dice=" + std::to_string(unit.support_firepower()));
  }
  const auto count = [](int n, std::string_view weapon) -> std::string {
    if (n == 0) return "";
    return n == 1 ? std::string(weapon) : std::to_string(n) + " " + std::string(weapon);
  };
  std::vector<std::string> teams;
  for (int i = 0; i < unit.teams_size(); ++i) {
    const cocpb::Team& team = unit.teams(i);
    teams.push_back(
        Join({"team", team.id() == CocTeamId(unit.id(), i) ? "" : team.id(),
              std::to_string(team.figures()), count(team.smgs(), "smg"), count(team.lmgs(), "lmg"),
              count(team.mmgs(), "mmg"), team.crewed_weapon() ? "crewed" : "",
              team.shock() != 0 ? "shock=" + std::to_string(team.shock()) : ""}));
  }
  std::vector<std::string> leaders;
  for (int i = 0; i < unit.leaders_size(); ++i) {
    const cocpb::Leader& leader = unit.leaders(i);
    std::string with;
    if (!leader.team().empty()) {
      with = "with " + leader.team();
      for (int k = 0; k < unit.teams_size(); ++k) {
        if (unit.teams(k).id() == leader.team() && leader.team() == CocTeamId(unit.id(), k)) {
          with = "with " + std::to_string(k + 1);
        }
      }
    }
    std::string status;
    for (const auto& [word, value] : kCocStatuses) {
      if (value == leader.status() && value != cocpb::LEADER_STATUS_ACTIVE) status = word;
    }
    leaders.push_back(Join({leader.rank() == cocpb::LEADER_RANK_SENIOR ? "senior" : "", "leader",
                            leader.id() == CocLeaderId(unit.id(), i) ? "" : leader.id(),
                            leader.has_orders() ? "orders=" + std::to_string(leader.orders()) : "",
                            leader.smg() ? "smg" : "", status, with}));
  }
  std::string body = Join(teams, ", ");
  if (!leaders.empty()) body += (body.empty() ? "" : "; ") + Join(leaders, ", ");
  std::string out = Join(header);
  if (!body.empty()) out += (out.empty() ? ": " : ": ") + body;
  return out;
}


}  // namespace

Result<cocpb::Unit> CocUnitFromNotation(std::string_view id, v1::Seat side,
                                        std::string_view notation) {
  return CocUnit(id, side, notation);
}

std::string CocNotationOf(const cocpb::Unit& unit) { return CocNotation(unit); }


}  // namespace melee::proto
