// Rosters (docs/counter-notation.md): a side's set-up from roster lines (directives and units,
// each unit read by its ruleset's file: notation_asl.cc, notation_vv.cc, notation_coc.cc), from
// the ruleset's SideSetup JSON or from a whole situation file; a set-up back into a roster; and
// unit updates in words ("G1 move H4").

#include "proto/codec/notation.h"

#include <google/protobuf/struct.pb.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "proto/codec/asl.h"
#include "proto/codec/checks.h"
#include "proto/codec/coc.h"
#include "proto/codec/json.h"
#include "proto/codec/notation_detail.h"
#include "proto/codec/vv.h"

namespace melee::proto {
namespace {

namespace aslpb = melee::asl::v1;
namespace cocpb = melee::coc::v1;
namespace vvpb = melee::vv::v1;
namespace v1 = melee::v1;

using namespace notation_detail;  // NOLINT(google-build-using-namespace): the notation's words

// ---- rosters ------------------------------------------------------------------------------------

// One non-empty line of a roster: a directive (`key` normalised, e.g. "force-morale") or a unit
// (`key` its id), with the side whose section it is in.
struct RosterLine {
  int number = 0;
  bool directive = false;
  std::string key;
  std::string rest;
  v1::Seat section = v1::SEAT_UNSPECIFIED;
  bool before_sides = false;  // before the first `side:` line
};

// Where an error is: "roster.txt:4: ". A rule, when one forbids the value, leads the message.
RuleError At(std::string_view source, int line, const RuleError& error) {
  std::string where = std::string(source);
  if (line > 0) where += ":" + std::to_string(line);
  std::string message = error.message;
  if (!message.empty() && message[0] == '.') message.erase(0, 1);  // a codec field under ""
  if (!error.rule_ref.empty() && message.find(error.rule_ref) != 0) {
    message = error.rule_ref + ": " + message;
  }
  return RuleError{error.rule_ref, where + ": " + message};
}

tl::unexpected<RuleError> FailAt(std::string_view source, int line, const RuleError& error) {
  return tl::unexpected(At(source, line, error));
}

tl::unexpected<RuleError> FailAt(std::string_view source, int line, std::string message,
                                 std::string rule = "") {
  return tl::unexpected(At(source, line, RuleError{std::move(rule), std::move(message)}));
}

std::string Trim(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && IsSpace(text[begin])) ++begin;
  while (end > begin && IsSpace(text[end - 1])) --end;
  return std::string(text.substr(begin, end - begin));
}

// "Force Morale" -> "force-morale".
std::string Normalised(std::string_view key) {
  std::string out;
  for (char c : Lower(key)) {
    const char d = c == ' ' || c == '_' || c == '\t' ? '-' : c;
    if (d == '-' && (out.empty() || out.back() == '-')) continue;
    out += d;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::optional<v1::Seat> SeatOf(std::string_view text) {
  const std::string word = Normalised(text);
  if (word == "side-a" || word == "a" || word == "seat-side-a") return v1::SEAT_SIDE_A;
  if (word == "side-b" || word == "b" || word == "seat-side-b") return v1::SEAT_SIDE_B;
  return std::nullopt;
}

std::string SeatWord(v1::Seat seat) { return seat == v1::SEAT_SIDE_B ? "side_b" : "side_a"; }

struct Directives {
  std::string_view ruleset;
  std::vector<std::string_view> names;
};

const Directives kDirectives[] = {
    {"asl", {"location", "nationality"}},
    {"coc", {"force-morale", "engagement", "obstacle", "position", "cover", "location"}},
    {"vv",
     {"source", "target", "uphill", "source-assaulted", "grenades", "satchel-charges",
      "satchel-apfp"}},
};

std::string DirectiveList(std::string_view ruleset) {
  std::string out;
  for (const Directives& each : kDirectives) {
    if (each.ruleset != ruleset) continue;
    for (std::string_view name : each.names) out += std::string(name) + ", ";
  }
  return out + "attacker, side, ruleset";
}

// Splits `text` into lines and sections; checks the `ruleset:` line and that every line is a
// directive of `ruleset` or a unit.
Result<std::vector<RosterLine>> RosterLines(std::string_view ruleset, std::string_view text,
                                            v1::Seat seat, std::string_view source) {
  if (text.size() > kRosterMaxBytes) {
    return FailAt(source, 0, "larger than " + std::to_string(kRosterMaxBytes) + " bytes");
  }
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<RosterLine> lines;
  v1::Seat section = seat;
  bool sided = false;
  int number = 0;
  while (!text.empty() || number == 0) {
    ++number;
    const size_t end = text.find('\n');
    std::string_view raw = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    // A '#' outside quotes starts a comment.
    bool quoted = false;
    size_t colon = std::string_view::npos;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '"') quoted = !quoted;
      if (!quoted && raw[i] == '#') {
        raw = raw.substr(0, i);
        break;
      }
      if (!quoted && raw[i] == ':' && colon == std::string_view::npos) colon = i;
    }
    for (char c : raw) {
      const auto byte = static_cast<unsigned char>(c);
      if ((byte < 0x20 && c != '\t' && c != '\r') || byte == 0x7F) {
        return FailAt(source, number, "control characters are not allowed");
      }
    }
    const std::string line = Trim(raw);
    if (line.empty()) {
      if (end == std::string_view::npos) break;
      continue;
    }
    if (colon == std::string_view::npos) {
      return FailAt(source, number,
                    Shown(line) + ": expected '<id>: <counter>' (e.g. 'A1: " +
                        std::string(ruleset == "coc"  ? "squad: team 5 lmg"
                                    : ruleset == "vv" ? "4-6-5 squad"
                                                      : "4-6-7") +
                        "') or a directive such as 'attacker: side_a'");
    }
    RosterLine entry;
    entry.number = number;
    entry.key = Trim(raw.substr(0, colon));
    entry.rest = Trim(raw.substr(colon + 1));
    const std::string key = Normalised(entry.key);
    if (key == "side") {
      const auto side = SeatOf(entry.rest);
      if (!side) return FailAt(source, number, "side: side_a or side_b, not " + Shown(entry.rest));
      section = *side;
      sided = true;
      if (end == std::string_view::npos) break;
      continue;
    }
    if (key == "ruleset") {
      if (Lower(entry.rest) != ruleset) {
        return FailAt(source, number,
                      "this roster is for " + Shown(entry.rest) + "; the match plays " +
                          std::string(ruleset));
      }
      if (end == std::string_view::npos) break;
      continue;
    }
    entry.section = section;
    entry.before_sides = !sided;
    bool known = key == "attacker";
    // A line some rulesets share (asl's and coc's `location`) is this roster's when it is one of
    // this ruleset's.
    bool mine = false;
    for (const Directives& each : kDirectives) {
      if (each.ruleset != ruleset) continue;
      for (std::string_view name : each.names) mine = mine || key == name;
    }
    for (const Directives& each : kDirectives) {
      for (std::string_view name : each.names) {
        if (key != name && !(name == "source" && key == "source-hex")) continue;
        if (each.ruleset != ruleset && !mine) {
          return FailAt(source, number,
                        Shown(entry.key) + " is a line of a " + std::string(each.ruleset) +
                            " roster; this one is " + std::string(ruleset) + " (" +
                            DirectiveList(ruleset) + ")");
        }
        known = true;
      }
    }
    if (known) {
      entry.directive = true;
      entry.key = key == "source-hex" ? "source" : key;
    } else if (!checks::CheckId(entry.key, "id", 32)) {
      return FailAt(source, number,
                    Shown(entry.key) +
                        " is neither a unit id (1..32 characters, "
                        "no spaces) nor a line of an " +
                        std::string(ruleset) + " roster (" + DirectiveList(ruleset) + ")");
    }
    lines.push_back(std::move(entry));
    if (end == std::string_view::npos) break;
  }
  // In a roster with sides, whose is a unit before the first `side:` line? Nobody's.
  for (const RosterLine& line : lines) {
    if (!sided || !line.before_sides) continue;
    const bool shared = line.directive && line.key != "nationality" && line.key != "force-morale" &&
                        line.key != "grenades" && line.key != "satchel-charges" &&
                        line.key != "satchel-apfp";
    if (!shared) {
      return FailAt(source, line.number,
                    Shown(line.key) +
                        " comes before the first 'side:' "
                        "line: in a roster with sides, put it under its side");
    }
  }
  return lines;
}

// Checks that a directive is given once (per side for a side's own facts).
class Once {
 public:
  Result<void> Check(const RosterLine& line, std::string_view source, bool per_side) {
    const std::string key = line.key + (per_side ? "/" + SeatWord(line.section) : "");
    auto [it, inserted] = seen_.emplace(key, line.number);
    if (!inserted) {
      return tl::unexpected(At(source, line.number,
                               RuleError{"", line.key + " is given twice (also on line " +
                                                 std::to_string(it->second) + ")"}));
    }
    return {};
  }

 private:
  std::map<std::string, int> seen_;
};

// Checks that unit (or team or leader) `id` is used once in the whole roster.
class Ids {
 public:
  Result<void> Add(const std::string& id, int line, std::string_view source) {
    auto [it, inserted] = seen_.emplace(id, line);
    if (!inserted) {
      return FailAt(source, line,
                    "id " + Shown(id) + " is already used on line " + std::to_string(it->second));
    }
    return {};
  }

 private:
  std::map<std::string, int> seen_;
};

Result<v1::Seat> AttackerOf(const RosterLine& line, std::string_view source) {
  const auto seat = SeatOf(line.rest);
  if (!seat)
    return FailAt(source, line.number, "attacker: side_a or side_b, not " + Shown(line.rest));
  return *seat;
}

Result<int> DirectiveNumber(const RosterLine& line, std::string_view source, int low, int high) {
  const auto value = Number(line.rest);
  if (!value || *value < low || *value > high) {
    return FailAt(source, line.number,
                  line.key + ": a number " + std::to_string(low) + ".." + std::to_string(high) +
                      ", not " + Shown(line.rest));
  }
  return *value;
}

// Reads "NAME word word key=N ...": the name (quoted, or a first bare word that is not one of
// `keywords` and has no '='), then the other words.
struct Named {
  std::string name;
  std::vector<Token> words;
};

Result<Named> NamedWords(std::string_view text, const std::set<std::string_view>& keywords) {
  auto tokens = Tokenize(text, "");
  if (!tokens) return tl::unexpected(tokens.error());
  Named out;
  size_t i = 0;
  if (!tokens->empty()) {
    const Token& first = tokens->front();
    if (first.quoted ||
        (!keywords.contains(first.word) && first.word.find('=') == std::string::npos)) {
      out.name = first.text;
      i = 1;
    }
  }
  for (; i < tokens->size(); ++i) {
    if ((*tokens)[i].quoted) return Reject("", "one name only: " + Shown((*tokens)[i].text));
    out.words.push_back((*tokens)[i]);
  }
  return out;
}

std::string NameWord(const std::string& name, const std::set<std::string_view>& keywords) {
  const bool bare = !name.empty() && name.find_first_of(" \t\"=#") == std::string::npos &&
                    !keywords.contains(Lower(name));
  return bare ? name : Quoted(name);
}

const std::set<std::string_view> kLocationWords = {
    "woods-or-building", "woods", "building", "melee", "hth", "reaction-fire"};

Result<aslpb::Location> LocationOf(const RosterLine& line, std::string_view source) {
  auto named = NamedWords(line.rest, kLocationWords);
  if (!named) return FailAt(source, line.number, named.error());
  aslpb::Location location;
  location.set_name(named->name);
  for (const Token& token : named->words) {
    const std::string& w = token.word;
    if (w == "woods-or-building" || w == "woods" || w == "building") {
      location.set_woods_or_building(true);
    } else if (w == "melee") {
      location.set_melee(true);
    } else if (w == "hth") {
      location.set_hth(true);
    } else if (w == "reaction-fire") {
      location.set_reaction_fire(true);
    } else if (auto pair = KeyValue(token); pair && pair->first == "ambusher") {
      const auto seat = SeatOf(pair->second);
      if (!seat) return FailAt(source, line.number, "ambusher=side_a or ambusher=side_b");
      location.set_ambusher(*seat);
    } else if (pair && (pair->first == "excess-side-a" || pair->first == "excess-side-b")) {
      auto n = KeyNumber(token, pair->second, 0, 9);
      if (!n) return FailAt(source, line.number, n.error());
      if (pair->first == "excess-side-a") {
        location.set_excess_squads_side_a(*n);
      } else {
        location.set_excess_squads_side_b(*n);
      }
    } else {
      return FailAt(source, line.number,
                    Shown(token.text) +
                        " is not a word of a Location (woods-or-building, melee, "
                        "hth, reaction-fire, ambusher=side_a, excess-side-a=N, "
                        "excess-side-b=N)");
    }
  }
  if (auto ok = LocationFromProto(location, "location"); !ok) {
    return FailAt(source, line.number, ok.error());
  }
  return location;
}

std::string LocationNotation(const aslpb::Location& location) {
  std::vector<std::string> parts;
  if (!location.name().empty()) parts.push_back(NameWord(location.name(), kLocationWords));
  if (location.woods_or_building()) parts.push_back("woods-or-building");
  if (location.melee()) parts.push_back("melee");
  if (location.hth()) parts.push_back("hth");
  if (location.reaction_fire()) parts.push_back("reaction-fire");
  if (location.ambusher() != v1::SEAT_UNSPECIFIED) {
    parts.push_back("ambusher=" + SeatWord(location.ambusher()));
  }
  if (location.excess_squads_side_a() != 0) {
    parts.push_back("excess-side-a=" + std::to_string(location.excess_squads_side_a()));
  }
  if (location.excess_squads_side_b() != 0) {
    parts.push_back("excess-side-b=" + std::to_string(location.excess_squads_side_b()));
  }
  return Join(parts);
}

Result<void> NoUnitsFor(v1::Seat seat, bool others, std::string_view source) {
  return FailAt(
      source, 0,
      others ? "no unit of " + SeatWord(seat) + " in this roster (its units are the other side's)"
             : "no unit of " + SeatWord(seat) + " in this roster");
}

Result<v1::SubmitSetup> AslRoster(const std::vector<RosterLine>& lines, v1::Seat seat,
                                  std::string_view source) {
  Once once;
  Ids ids;
  aslpb::SideSetup setup;
  std::map<v1::Seat, aslpb::Nationality> nationality;
  struct Entry {
    int line;
    aslpb::Unit unit;
  };
  std::vector<Entry> units;
  for (const RosterLine& line : lines) {
    if (line.directive) {
      const bool per_side = line.key == "nationality";
      if (auto ok = once.Check(line, source, per_side); !ok) return tl::unexpected(ok.error());
      if (line.key == "attacker") {
        auto attacker = AttackerOf(line, source);
        if (!attacker) return tl::unexpected(attacker.error());
        setup.set_attacker(*attacker);
      } else if (line.key == "location") {
        auto location = LocationOf(line, source);
        if (!location) return tl::unexpected(location.error());
        *setup.mutable_location() = std::move(*location);
      } else {
        const auto value = AslNationality(Lower(line.rest));
        if (!value) {
          return FailAt(source, line.number,
                        "nationality: german, russian, american, british, "
                        "italian, finnish, japanese, chinese or other, not " +
                            Shown(line.rest));
        }
        nationality[line.section] = *value;
      }
      continue;
    }
    auto unit = AslUnitFromNotation(line.key, line.section, line.rest);
    if (!unit) return FailAt(source, line.number, unit.error());
    if (auto ok = ids.Add(unit->id(), line.number, source); !ok) return tl::unexpected(ok.error());
    units.push_back({line.number, std::move(*unit)});
  }
  const auto find = [&](const std::string& id, v1::Seat owner) -> const aslpb::Unit* {
    for (const Entry& entry : units) {
      if (entry.unit.id() == id && entry.unit.owner() == owner) return &entry.unit;
    }
    return nullptr;
  };
  bool others = false;
  for (Entry& entry : units) {
    aslpb::Unit& unit = entry.unit;
    if (unit.nationality() == aslpb::NATIONALITY_UNSPECIFIED &&
        nationality.contains(unit.owner())) {
      unit.set_nationality(nationality[unit.owner()]);
    }
    if (!unit.stacked_on().empty()) {
      const aslpb::Unit* mmc = find(unit.stacked_on(), unit.owner());
      if (mmc == nullptr ||
          (mmc->kind() != aslpb::UNIT_KIND_SQUAD && mmc->kind() != aslpb::UNIT_KIND_HALF_SQUAD &&
           mmc->kind() != aslpb::UNIT_KIND_CREW)) {
        return FailAt(source, entry.line,
                      "'on " + unit.stacked_on() + "': no MMC " + unit.stacked_on() + " of " +
                          SeatWord(unit.owner()) + " in this roster",
                      "A11.14");
      }
    }
    for (const std::string* carrier : {&unit.rider_of(), &unit.passenger_of()}) {
      if (carrier->empty()) continue;
      const aslpb::Unit* vehicle = find(*carrier, unit.owner());
      if (vehicle == nullptr || vehicle->kind() != aslpb::UNIT_KIND_VEHICLE) {
        return FailAt(source, entry.line,
                      "'" + *carrier + "': no vehicle " + *carrier + " of " +
                          SeatWord(unit.owner()) + " in this roster",
                      "A11.611");
      }
    }
    if (unit.owner() == seat) {
      *setup.add_units() = unit;
    } else {
      others = true;
    }
  }
  if (setup.units().empty()) return tl::unexpected(NoUnitsFor(seat, others, source).error());
  v1::SubmitSetup out;
  *out.mutable_asl() = std::move(setup);
  return out;
}

template <class Enum, size_t N>
Result<Enum> Choice(const RosterLine& line, std::string_view source,
                    const std::pair<std::string_view, Enum> (&choices)[N]) {
  const std::string value = Normalised(line.rest);
  std::string known;
  for (const auto& [word, choice] : choices) {
    if (value == word) return choice;
    known += (known.empty() ? "" : ", ") + std::string(word);
  }
  return FailAt(source, line.number, line.key + ": " + known + ", not " + Shown(line.rest));
}

constexpr std::pair<std::string_view, cocpb::Engagement> kEngagements[] = {
    {"close-combat", cocpb::ENGAGEMENT_CLOSE_COMBAT},
    {"overrun", cocpb::ENGAGEMENT_OVERRUN},
    {"ram", cocpb::ENGAGEMENT_RAM},
};
constexpr std::pair<std::string_view, cocpb::Obstacle> kObstacles[] = {
    {"none", cocpb::OBSTACLE_NONE},     {"minor", cocpb::OBSTACLE_MINOR},
    {"medium", cocpb::OBSTACLE_MEDIUM}, {"path-around", cocpb::OBSTACLE_PATH_AROUND},
    {"major", cocpb::OBSTACLE_MAJOR},
};
constexpr std::pair<std::string_view, cocpb::Position> kPositions[] = {
    {"open", cocpb::POSITION_OPEN},
    {"building-from-outside", cocpb::POSITION_BUILDING_FROM_OUTSIDE},
    {"building-upper-from-outside", cocpb::POSITION_BUILDING_UPPER_FROM_OUTSIDE},
    {"building-other-floor", cocpb::POSITION_BUILDING_OTHER_FLOOR},
    {"building-same-floor", cocpb::POSITION_BUILDING_SAME_FLOOR},
    {"bunker-entrance", cocpb::POSITION_BUNKER_ENTRANCE},
    {"bunker-no-entrance", cocpb::POSITION_BUNKER_NO_ENTRANCE},
};
constexpr std::pair<std::string_view, cocpb::Cover> kCovers[] = {
    {"none", cocpb::COVER_NONE},
    {"light", cocpb::COVER_LIGHT},
    {"hard", cocpb::COVER_HARD},
};

template <class Enum, size_t N>
std::string_view ChoiceWord(Enum value, const std::pair<std::string_view, Enum> (&choices)[N]) {
  for (const auto& [word, choice] : choices) {
    if (choice == value) return word;
  }
  return "";
}

Result<v1::SubmitSetup> CocRoster(const std::vector<RosterLine>& lines, v1::Seat seat,
                                  std::string_view source) {
  Once once;
  Ids ids;
  cocpb::SideSetup setup;
  std::map<v1::Seat, int> force_morale;
  struct Entry {
    int line;
    cocpb::Unit unit;
  };
  std::vector<Entry> units;
  for (const RosterLine& line : lines) {
    if (line.directive) {
      if (auto ok = once.Check(line, source, line.key == "force-morale"); !ok) {
        return tl::unexpected(ok.error());
      }
      if (line.key == "attacker") {
        auto attacker = AttackerOf(line, source);
        if (!attacker) return tl::unexpected(attacker.error());
        setup.set_attacker(*attacker);
      } else if (line.key == "force-morale") {
        auto value = DirectiveNumber(line, source, 1, 11);
        if (!value) return tl::unexpected(value.error());
        force_morale[line.section] = *value;
      } else if (line.key == "engagement") {
        auto value = Choice(line, source, kEngagements);
        if (!value) return tl::unexpected(value.error());
        setup.set_engagement(*value);
      } else if (line.key == "obstacle") {
        auto value = Choice(line, source, kObstacles);
        if (!value) return tl::unexpected(value.error());
        setup.set_obstacle(*value);
      } else if (line.key == "position") {
        auto value = Choice(line, source, kPositions);
        if (!value) return tl::unexpected(value.error());
        setup.set_position(*value);
      } else if (line.key == "location") {
        // The place of the contact (docs/forces.md): Units carried there join it.
        auto named = NamedWords(line.rest, {});
        if (!named) return FailAt(source, line.number, named.error());
        if (named->name.empty() || !named->words.empty()) {
          return FailAt(source, line.number, "location: one name, e.g. 'location: farmhouse'");
        }
        setup.set_location(named->name);
      } else {
        auto value = Choice(line, source, kCovers);
        if (!value) return tl::unexpected(value.error());
        setup.set_cover(*value);
      }
      continue;
    }
    auto unit = CocUnitFromNotation(line.key, line.section, line.rest);
    if (!unit) return FailAt(source, line.number, unit.error());
    if (auto ok = ids.Add(unit->id(), line.number, source); !ok) return tl::unexpected(ok.error());
    for (const cocpb::Team& team : unit->teams()) {
      if (auto ok = ids.Add(team.id(), line.number, source); !ok) return tl::unexpected(ok.error());
    }
    for (const cocpb::Leader& leader : unit->leaders()) {
      if (auto ok = ids.Add(leader.id(), line.number, source); !ok) {
        return tl::unexpected(ok.error());
      }
    }
    units.push_back({line.number, std::move(*unit)});
  }
  // 17.2: the roles. The attacker's Units attack; of the other side's, the one not marked
  // support is the defender.
  const v1::Seat attacker = setup.attacker();
  std::map<v1::Seat, int> defenders;
  for (const Entry& entry : units) {
    if (entry.unit.role() == cocpb::ROLE_DEFENDER) ++defenders[entry.unit.side()];
  }
  bool others = false;
  for (Entry& entry : units) {
    cocpb::Unit& unit = entry.unit;
    if (attacker == v1::SEAT_UNSPECIFIED) {
      if (unit.role() == cocpb::ROLE_UNSPECIFIED) {
        return FailAt(source, entry.line,
                      "give the Unit's role (attacker, defender or support), "
                      "or an 'attacker:' line");
      }
    } else if (unit.side() == attacker) {
      if (unit.role() == cocpb::ROLE_UNSPECIFIED) unit.set_role(cocpb::ROLE_ATTACKER);
      if (unit.role() != cocpb::ROLE_ATTACKER) {
        return FailAt(source, entry.line,
                      SeatWord(attacker) +
                          " is the attacker: its Units "
                          "attack",
                      "17.1");
      }
    } else {
      if (unit.role() == cocpb::ROLE_ATTACKER) {
        return FailAt(source, entry.line,
                      SeatWord(unit.side()) + " defends (the attacker is " + SeatWord(attacker) +
                          "): its Units are the defender or support",
                      "17.2");
      }
      if (unit.role() == cocpb::ROLE_UNSPECIFIED) {
        if (defenders[unit.side()] > 0) {
          unit.set_role(cocpb::ROLE_SUPPORT);
        } else {
          unit.set_role(cocpb::ROLE_DEFENDER);
          ++defenders[unit.side()];
        }
      }
    }
    if (unit.side() == seat) {
      *setup.add_units() = unit;
    } else {
      others = true;
    }
  }
  if (setup.units().empty()) return tl::unexpected(NoUnitsFor(seat, others, source).error());
  if (!force_morale.contains(seat)) {
    return FailAt(source, 0,
                  SeatWord(seat) +
                      "'s Force Morale is missing: add a line "
                      "'force-morale: N' (1..11)");
  }
  setup.set_force_morale(force_morale[seat]);
  if (auto ok = CocSideSetupFromProto(setup, ""); !ok) return FailAt(source, 0, ok.error());
  v1::SubmitSetup out;
  *out.mutable_coc() = std::move(setup);
  return out;
}

const std::set<std::string_view> kTargetWords = {};

Result<vvpb::TargetHex> TargetOf(const RosterLine& line, std::string_view source) {
  auto named = NamedWords(line.rest, kTargetWords);
  if (!named) return FailAt(source, line.number, named.error());
  vvpb::TargetHex target;
  target.set_name(named->name);
  if (target.name().empty()) {
    return FailAt(source, line.number, "target: the hex's name first, e.g. target: C1 terrain=3",
                  "15.1");
  }
  for (const Token& token : named->words) {
    auto pair = KeyValue(token);
    const std::string key = pair ? pair->first : token.word;
    void (vvpb::TargetHex::*set)(int32_t) =
        key == "terrain"         ? &vvpb::TargetHex::set_terrain_cover
        : key == "hexside"       ? &vvpb::TargetHex::set_hexside_cover
        : key == "fortification" ? &vvpb::TargetHex::set_fortification_cover
        : key == "hindrance"     ? &vvpb::TargetHex::set_hindrance_cover
        : key == "capacity"      ? &vvpb::TargetHex::set_capacity
                                 : nullptr;
    if (!pair || set == nullptr) {
      return FailAt(source, line.number,
                    Shown(token.text) +
                        " is not a word of a target hex (terrain=N, hexside=N, "
                        "fortification=N, hindrance=N, capacity=N)");
    }
    auto n = KeyNumber(token, pair->second, 0, 9);
    if (!n) return FailAt(source, line.number, n.error());
    (target.*set)(*n);
  }
  return target;
}

std::string TargetNotation(const vvpb::TargetHex& target) {
  std::vector<std::string> parts = {NameWord(target.name(), kTargetWords)};
  const std::pair<const char*, int> values[] = {{"terrain", target.terrain_cover()},
                                                {"hexside", target.hexside_cover()},
                                                {"fortification", target.fortification_cover()},
                                                {"hindrance", target.hindrance_cover()},
                                                {"capacity", target.capacity()}};
  for (const auto& [key, value] : values) {
    if (value != 0) parts.push_back(std::string(key) + "=" + std::to_string(value));
  }
  return Join(parts);
}

Result<v1::SubmitSetup> VvRoster(const std::vector<RosterLine>& lines, v1::Seat seat,
                                 std::string_view source) {
  Once once;
  Ids ids;
  vvpb::SideSetup setup;
  std::map<v1::Seat, vvpb::Expendables> pools;
  struct Entry {
    int line;
    vvpb::Unit unit;
  };
  std::vector<Entry> units;
  for (const RosterLine& line : lines) {
    if (line.directive) {
      const bool per_side =
          line.key == "grenades" || line.key == "satchel-charges" || line.key == "satchel-apfp";
      if (auto ok = once.Check(line, source, per_side); !ok) return tl::unexpected(ok.error());
      if (line.key == "attacker") {
        auto attacker = AttackerOf(line, source);
        if (!attacker) return tl::unexpected(attacker.error());
        setup.set_attacker(*attacker);
      } else if (line.key == "source") {
        auto named = NamedWords(line.rest, {});
        if (!named || !named->words.empty() || named->name.empty()) {
          return FailAt(source, line.number,
                        "source: the hex the assault comes from, e.g. "
                        "source: B1");
        }
        setup.set_source_hex(named->name);
      } else if (line.key == "target") {
        auto target = TargetOf(line, source);
        if (!target) return tl::unexpected(target.error());
        *setup.mutable_target() = std::move(*target);
      } else if (line.key == "uphill") {
        auto value = DirectiveNumber(line, source, 0, 4);
        if (!value) return tl::unexpected(value.error());
        setup.set_uphill_levels(*value);
      } else if (line.key == "source-assaulted") {
        const std::string value = Lower(line.rest);
        if (value != "yes" && value != "no" && value != "true" && value != "false") {
          return FailAt(source, line.number, "source-assaulted: yes or no");
        }
        setup.set_source_assaulted_this_turn(value == "yes" || value == "true");
      } else {
        auto value = DirectiveNumber(line, source, 0, 99);
        if (!value) return tl::unexpected(value.error());
        vvpb::Expendables& pool = pools[line.section];
        if (line.key == "grenades") {
          pool.set_grenades(*value);
        } else if (line.key == "satchel-charges") {
          pool.set_satchel_charges(*value);
        } else {
          pool.set_satchel_apfp(*value);
        }
      }
      continue;
    }
    auto unit = VvUnitFromNotation(line.key, line.section, line.rest);
    if (!unit) return FailAt(source, line.number, unit.error());
    if (auto ok = ids.Add(unit->id(), line.number, source); !ok) return tl::unexpected(ok.error());
    units.push_back({line.number, std::move(*unit)});
  }
  bool others = false;
  for (const Entry& entry : units) {
    const vvpb::Unit& unit = entry.unit;
    if (!unit.carrier().empty()) {
      const auto carrier = std::find_if(units.begin(), units.end(), [&](const Entry& other) {
        return other.unit.id() == unit.carrier() && other.unit.owner() == unit.owner();
      });
      if (carrier == units.end() || (carrier->unit.kind() != vvpb::UNIT_KIND_AFV &&
                                     carrier->unit.kind() != vvpb::UNIT_KIND_VEHICLE)) {
        return FailAt(source, entry.line,
                      "'on " + unit.carrier() + "': no vehicle " + unit.carrier() + " of " +
                          SeatWord(unit.owner()) + " in this roster",
                      "8");
      }
    }
    if (unit.owner() == seat) {
      *setup.add_units() = unit;
    } else {
      others = true;
    }
  }
  if (setup.units().empty()) return tl::unexpected(NoUnitsFor(seat, others, source).error());
  if (pools.contains(seat)) *setup.mutable_expendables() = pools[seat];
  if (auto ok = VvSideSetupFromProto(setup, ""); !ok) return FailAt(source, 0, ok.error());
  v1::SubmitSetup out;
  *out.mutable_vv() = std::move(setup);
  return out;
}

// ---- JSON set-ups -------------------------------------------------------------------------------

Result<void> CheckRuleset(std::string_view ruleset) {
  if (ruleset != "asl" && ruleset != "coc" && ruleset != "vv") {
    return Reject("", "unknown ruleset " + Shown(ruleset) + " (asl, coc or vv)");
  }
  return {};
}

Result<void> CheckSeat(v1::Seat seat) {
  if (seat != v1::SEAT_SIDE_A && seat != v1::SEAT_SIDE_B) {
    return Reject("", "only side_a and side_b enter units");
  }
  return {};
}

// A SideSetup in JSON (today's form, sent as it was written): read strictly, every value
// checked, every unit `seat`'s own.
Result<v1::SubmitSetup> SideSetupFromJson(std::string_view ruleset, std::string_view json,
                                          v1::Seat seat, std::string_view source) {
  v1::SubmitSetup out;
  google::protobuf::Message& part =
      ruleset == "coc"  ? static_cast<google::protobuf::Message&>(*out.mutable_coc())
      : ruleset == "vv" ? static_cast<google::protobuf::Message&>(*out.mutable_vv())
                        : *out.mutable_asl();
  if (std::string wrong = FromJson(json, part); !wrong.empty()) {
    return FailAt(source, 0, "not a valid " + part.GetTypeName() + ": " + wrong);
  }
  std::vector<std::pair<std::string, v1::Seat>> owners;
  if (ruleset == "asl") {
    const aslpb::SideSetup& setup = out.asl();
    if (setup.has_location()) {
      if (auto ok = LocationFromProto(setup.location(), "location"); !ok) {
        return FailAt(source, 0, ok.error());
      }
    }
    if (setup.attacker() != v1::SEAT_UNSPECIFIED) {
      if (auto ok = SideFromProto(setup.attacker(), "attacker"); !ok) {
        return FailAt(source, 0, ok.error());
      }
    }
    for (int i = 0; i < setup.units_size(); ++i) {
      if (auto ok = UnitFromProto(setup.units(i), "units[" + std::to_string(i) + "]"); !ok) {
        return FailAt(source, 0, ok.error());
      }
      owners.emplace_back(setup.units(i).id(), setup.units(i).owner());
    }
  } else if (ruleset == "coc") {
    if (auto ok = CocSideSetupFromProto(out.coc(), ""); !ok) return FailAt(source, 0, ok.error());
    for (const cocpb::Unit& unit : out.coc().units()) owners.emplace_back(unit.id(), unit.side());
  } else {
    if (auto ok = VvSideSetupFromProto(out.vv(), ""); !ok) return FailAt(source, 0, ok.error());
    for (const vvpb::Unit& unit : out.vv().units()) owners.emplace_back(unit.id(), unit.owner());
  }
  for (const auto& [id, owner] : owners) {
    if (owner != seat) {
      return FailAt(source, 0,
                    "unit " + Shown(id) + " is " + SeatWord(owner) + "'s; " + SeatWord(seat) +
                        " enters only its own units");
    }
  }
  return out;
}

// A whole situation file of `melee rules`: `seat`'s units and the shared facts.
Result<v1::SubmitSetup> SituationSetup(std::string_view ruleset, std::string_view json,
                                       v1::Seat seat, std::string_view source) {
  v1::SubmitSetup out;
  bool others = false;
  if (ruleset == "asl") {
    auto file = CloseCombatFromJson(json);
    if (!file) return FailAt(source, 0, file.error());
    const aslpb::Situation& situation = file->situation();
    if (auto ok = SituationFromProto(situation, "situation"); !ok) {
      return FailAt(source, 0, ok.error());
    }
    aslpb::SideSetup& setup = *out.mutable_asl();
    if (situation.has_location()) *setup.mutable_location() = situation.location();
    setup.set_attacker(situation.attacker());
    for (const aslpb::Unit& unit : situation.units()) {
      if (unit.owner() == seat) {
        *setup.add_units() = unit;
      } else {
        others = true;
      }
    }
    if (setup.units().empty()) return tl::unexpected(NoUnitsFor(seat, others, source).error());
  } else if (ruleset == "coc") {
    auto file = ContactFromJson(json);
    if (!file) return FailAt(source, 0, file.error());
    const cocpb::Situation& situation = file->situation();
    if (auto ok = CocSituationFromProto(situation, "situation"); !ok) {
      return FailAt(source, 0, ok.error());
    }
    cocpb::SideSetup& setup = *out.mutable_coc();
    setup.set_attacker(situation.attacker());
    setup.set_engagement(situation.engagement());
    setup.set_obstacle(situation.obstacle());
    setup.set_position(situation.position());
    setup.set_cover(situation.cover());
    setup.set_force_morale(seat == v1::SEAT_SIDE_A ? situation.side_a_force_morale()
                                                   : situation.side_b_force_morale());
    for (const cocpb::Unit& unit : situation.units()) {
      if (unit.side() == seat) {
        *setup.add_units() = unit;
      } else {
        others = true;
      }
    }
    if (setup.units().empty()) return tl::unexpected(NoUnitsFor(seat, others, source).error());
  } else {
    auto file = CloseAssaultFromJson(json);
    if (!file) return FailAt(source, 0, file.error());
    const vvpb::Situation& situation = file->situation();
    if (auto ok = VvSituationFromProto(situation, "situation"); !ok) {
      return FailAt(source, 0, ok.error());
    }
    vvpb::SideSetup& setup = *out.mutable_vv();
    setup.set_attacker(situation.attacker());
    setup.set_source_hex(situation.source_hex());
    if (situation.has_target()) *setup.mutable_target() = situation.target();
    setup.set_uphill_levels(situation.uphill_levels());
    setup.set_source_assaulted_this_turn(situation.source_assaulted_this_turn());
    const vvpb::Expendables& pool =
        seat == v1::SEAT_SIDE_A ? situation.side_a_expendables() : situation.side_b_expendables();
    if (pool.ByteSizeLong() > 0) *setup.mutable_expendables() = pool;
    for (const vvpb::Unit& unit : situation.units()) {
      if (unit.owner() == seat) {
        *setup.add_units() = unit;
      } else {
        others = true;
      }
    }
    if (setup.units().empty()) return tl::unexpected(NoUnitsFor(seat, others, source).error());
  }
  return out;
}

}  // namespace


Result<v1::SubmitSetup> SetupFromRoster(std::string_view ruleset, std::string_view text,
                                        v1::Seat seat, std::string_view source) {
  if (auto ok = CheckRuleset(ruleset); !ok) return FailAt(source, 0, ok.error());
  if (auto ok = CheckSeat(seat); !ok) return FailAt(source, 0, ok.error());
  auto lines = RosterLines(ruleset, text, seat, source);
  if (!lines) return tl::unexpected(lines.error());
  if (ruleset == "coc") return CocRoster(*lines, seat, source);
  if (ruleset == "vv") return VvRoster(*lines, seat, source);
  return AslRoster(*lines, seat, source);
}

Result<v1::SubmitSetup> ReadSideSetup(std::string_view ruleset, std::string_view text,
                                      v1::Seat seat, std::string_view source) {
  if (auto ok = CheckRuleset(ruleset); !ok) return FailAt(source, 0, ok.error());
  if (auto ok = CheckSeat(seat); !ok) return FailAt(source, 0, ok.error());
  if (text.size() > kRosterMaxBytes) {
    return FailAt(source, 0, "larger than " + std::to_string(kRosterMaxBytes) + " bytes");
  }
  std::string_view body = text;
  if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);
  while (!body.empty() && IsSpace(body.front())) body.remove_prefix(1);
  if (body.empty() || body.front() != '{') return SetupFromRoster(ruleset, text, seat, source);
  // JSON: a whole situation file has a "situation"; a SideSetup never does.
  google::protobuf::Struct object;
  if (std::string wrong = FromJson(body, object); !wrong.empty()) {
    return FailAt(source, 0, "not valid JSON: " + wrong);
  }
  if (object.fields().count("situation") > 0) return SituationSetup(ruleset, body, seat, source);
  return SideSetupFromJson(ruleset, body, seat, source);
}

std::string RosterOf(const v1::SubmitSetup& setup) {
  std::vector<std::string> lines;
  const auto seat_line = [&](v1::Seat seat) {
    if (seat == v1::SEAT_SIDE_A || seat == v1::SEAT_SIDE_B)
      lines.push_back("side: " + SeatWord(seat));
  };
  if (setup.has_coc()) {
    const cocpb::SideSetup& part = setup.coc();
    lines.push_back("ruleset: coc");
    if (!part.units().empty()) seat_line(part.units(0).side());
    if (part.attacker() != v1::SEAT_UNSPECIFIED)
      lines.push_back("attacker: " + SeatWord(part.attacker()));
    if (part.force_morale() != 0) {
      lines.push_back("force-morale: " + std::to_string(part.force_morale()));
    }
    if (part.engagement() != 0) {
      lines.push_back("engagement: " + std::string(ChoiceWord(part.engagement(), kEngagements)));
    }
    if (part.obstacle() != 0) {
      lines.push_back("obstacle: " + std::string(ChoiceWord(part.obstacle(), kObstacles)));
    }
    if (part.position() != 0) {
      lines.push_back("position: " + std::string(ChoiceWord(part.position(), kPositions)));
    }
    if (part.cover() != 0)
      lines.push_back("cover: " + std::string(ChoiceWord(part.cover(), kCovers)));
    if (!part.location().empty()) lines.push_back("location: " + NameWord(part.location(), {}));
    for (const cocpb::Unit& unit : part.units())
      lines.push_back(unit.id() + ": " + CocNotationOf(unit));
  } else if (setup.has_vv()) {
    const vvpb::SideSetup& part = setup.vv();
    lines.push_back("ruleset: vv");
    if (!part.units().empty()) seat_line(part.units(0).owner());
    if (part.attacker() != v1::SEAT_UNSPECIFIED)
      lines.push_back("attacker: " + SeatWord(part.attacker()));
    if (!part.source_hex().empty()) lines.push_back("source: " + NameWord(part.source_hex(), {}));
    if (part.has_target()) lines.push_back("target: " + TargetNotation(part.target()));
    if (part.uphill_levels() != 0)
      lines.push_back("uphill: " + std::to_string(part.uphill_levels()));
    if (part.source_assaulted_this_turn()) lines.push_back("source-assaulted: yes");
    const vvpb::Expendables& pool = part.expendables();
    if (pool.grenades() != 0) lines.push_back("grenades: " + std::to_string(pool.grenades()));
    if (pool.satchel_charges() != 0) {
      lines.push_back("satchel-charges: " + std::to_string(pool.satchel_charges()));
    }
    if (pool.satchel_apfp() != 0) {
      lines.push_back("satchel-apfp: " + std::to_string(pool.satchel_apfp()));
    }
    for (const vvpb::Unit& unit : part.units())
      lines.push_back(unit.id() + ": " + VvNotationOf(unit));
  } else {
    const aslpb::SideSetup& part = setup.asl();
    lines.push_back("ruleset: asl");
    if (!part.units().empty()) seat_line(part.units(0).owner());
    if (part.attacker() != v1::SEAT_UNSPECIFIED)
      lines.push_back("attacker: " + SeatWord(part.attacker()));
    if (part.has_location())
      lines.push_back(Trim("location: " + LocationNotation(part.location())));
    for (const aslpb::Unit& unit : part.units())
      lines.push_back(unit.id() + ": " + AslNotationOf(unit));
  }
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace melee::proto

// ---- unit updates ---------------------------------------------------------------------------------

namespace melee::proto {
namespace {

struct UpdateWord {
  std::string_view word;
  melee::v1::UpdateKind kind;
};

constexpr UpdateWord kUpdateWords[] = {
    {"enter", melee::v1::UPDATE_KIND_ENTER},         {"move", melee::v1::UPDATE_KIND_MOVE},
    {"break", melee::v1::UPDATE_KIND_BREAK},         {"rally", melee::v1::UPDATE_KIND_RALLY},
    {"pin", melee::v1::UPDATE_KIND_PIN},             {"unpin", melee::v1::UPDATE_KIND_UNPIN},
    {"conceal", melee::v1::UPDATE_KIND_CONCEAL},     {"reveal", melee::v1::UPDATE_KIND_REVEAL},
    {"reduce", melee::v1::UPDATE_KIND_REDUCE},       {"eliminate", melee::v1::UPDATE_KIND_ELIMINATE},
    {"recombine", melee::v1::UPDATE_KIND_RECOMBINE}, {"cx", melee::v1::UPDATE_KIND_SET_CX},
    {"uncx", melee::v1::UPDATE_KIND_CLEAR_CX},       {"shock", melee::v1::UPDATE_KIND_SHOCK},
    {"kill", melee::v1::UPDATE_KIND_KILL},
};

std::vector<std::string> SplitWords(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (c == ' ' || c == '\t') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::string Rest(const std::vector<std::string>& words, size_t from) {
  std::string rest;
  for (size_t i = from; i < words.size(); ++i) rest += (rest.empty() ? "" : " ") + words[i];
  return rest;
}

engine::Result<int> Number(const std::string& word, std::string_view what) {
  int value = 0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (word.empty() || error != std::errc() || end != word.data() + word.size()) {
    return engine::Reject("", "'" + word + "' is not a number (" + std::string(what) + ")");
  }
  return value;
}

}  // namespace

engine::Result<melee::v1::UnitUpdate> UnitUpdateFromText(std::string_view ruleset,
                                                         melee::v1::Seat seat,
                                                         std::string_view text) {
  melee::v1::UnitUpdate update;
  std::string_view body = text;
  if (const size_t semicolon = text.find(';'); semicolon != std::string_view::npos) {
    std::string_view note = text.substr(semicolon + 1);
    while (!note.empty() && note.front() == ' ') note.remove_prefix(1);
    update.set_note(std::string(note));
    body = text.substr(0, semicolon);
  }
  const std::vector<std::string> words = SplitWords(body);
  const std::string usage =
      "expected '<unit> <what> ...', e.g. 'G1 move H4', 'G1 break', 'G1 conceal A12.122'";
  if (words.size() == 2 && words[0] == "force-morale") {
    auto value = Number(words[1], "the side's Force Morale");
    if (!value) return tl::unexpected(value.error());
    update.set_kind(melee::v1::UPDATE_KIND_FORCE_MORALE);
    update.set_value(*value);
    return update;
  }
  if (words.size() < 2) return engine::Reject("", "'" + std::string(text) + "': " + usage);
  update.set_unit(words[0]);
  const std::string& verb = words[1];
  const auto known = std::find_if(std::begin(kUpdateWords), std::end(kUpdateWords),
                                  [&](const UpdateWord& w) { return w.word == verb; });
  if (known == std::end(kUpdateWords)) {
    std::string all;
    for (const UpdateWord& w : kUpdateWords) all += (all.empty() ? "" : ", ") + std::string(w.word);
    return engine::Reject("", "'" + verb + "' is not an update: one of " + all +
                                  ", force-morale");
  }
  update.set_kind(known->kind);
  const auto need = [&](size_t count, std::string_view what) -> engine::Result<void> {
    if (words.size() < count) {
      return engine::Reject("", "'" + std::string(body) + "': " + verb + " needs " +
                                    std::string(what));
    }
    return {};
  };
  switch (known->kind) {
    case melee::v1::UPDATE_KIND_MOVE: {
      if (auto ok = need(3, "a Location (or off)"); !ok) return tl::unexpected(ok.error());
      update.set_location(words[2] == "off" ? "" : words[2]);
      break;
    }
    case melee::v1::UPDATE_KIND_CONCEAL:
      if (words.size() > 2) update.set_rule(words[2]);
      break;
    case melee::v1::UPDATE_KIND_SHOCK:
    case melee::v1::UPDATE_KIND_KILL: {
      if (auto ok = need(3, "a number"); !ok) return tl::unexpected(ok.error());
      auto value = Number(words[2], verb == "shock" ? "Shock" : "figures killed");
      if (!value) return tl::unexpected(value.error());
      update.set_value(*value);
      break;
    }
    case melee::v1::UPDATE_KIND_ENTER: {
      if (auto ok = need(4, "a Location and the counter, e.g. 'G5 enter H4 4-6-7'"); !ok) {
        return tl::unexpected(ok.error());
      }
      update.set_location(words[2]);
      if (ruleset != "asl") {
        return engine::Reject("", "enter: counter notation for new units is asl's; in a " +
                                      std::string(ruleset) + " match enter units with a set-up");
      }
      auto unit = AslUnitFromNotation(words[0], seat, Rest(words, 3));
      if (!unit) return tl::unexpected(unit.error());
      *update.mutable_asl() = std::move(*unit);
      break;
    }
    case melee::v1::UPDATE_KIND_RECOMBINE: {
      if (auto ok = need(5, "the other HS, the rule and the squad, e.g. "
                            "'H1 recombine H2 A1.32 4-6-7'");
          !ok) {
        return tl::unexpected(ok.error());
      }
      update.set_with(words[2]);
      update.set_rule(words[3]);
      auto unit = AslUnitFromNotation(words[0], seat, Rest(words, 4));
      if (!unit) return tl::unexpected(unit.error());
      *update.mutable_asl() = std::move(*unit);
      break;
    }
    default:
      if (words.size() > 2) {
        return engine::Reject("", "'" + std::string(body) + "': " + verb +
                                      " takes no more words (a note follows a ';')");
      }
      break;
  }
  return update;
}

std::string UnitUpdateText(const melee::v1::UnitUpdate& update) {
  const std::string unit = update.hidden() ? "? " + update.unit() : update.unit();
  std::string text;
  switch (update.kind()) {
    case melee::v1::UPDATE_KIND_FORCE_MORALE:
      return "Force Morale " + std::to_string(update.value());
    case melee::v1::UPDATE_KIND_ENTER:
      text = unit + " entered " + update.location();
      if (update.has_asl()) text += " (" + AslNotationOf(update.asl()) + ")";
      break;
    case melee::v1::UPDATE_KIND_MOVE:
      text = unit + (update.location().empty() ? " left the board" : " moved to " + update.location());
      break;
    case melee::v1::UPDATE_KIND_UNSPECIFIED:
      text = unit + " changed";  // a "?" whose change this viewer may not know
      break;
    case melee::v1::UPDATE_KIND_RECOMBINE:
      text = unit + " recombined with " + update.with();
      break;
    case melee::v1::UPDATE_KIND_SHOCK:
    case melee::v1::UPDATE_KIND_KILL:
      text = unit + " " + (update.kind() == melee::v1::UPDATE_KIND_SHOCK ? "shock " : "kill ") +
             std::to_string(update.value());
      break;
    default: {
      std::string_view word = "updated";
      for (const UpdateWord& w : kUpdateWords) {
        if (w.kind == update.kind()) word = w.word;
      }
      text = unit + " " + std::string(word);
      break;
    }
  }
  if (!update.rule().empty()) text += " (" + update.rule() + ")";
  if (!update.note().empty()) text += "; " + update.note();
  return text;
}

}  // namespace melee::proto
