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
#include "proto/codec/vv.h"

namespace melee::proto {
namespace {

namespace aslpb = melee::asl::v1;
namespace cocpb = melee::coc::v1;
namespace vvpb = melee::vv::v1;
namespace v1 = melee::v1;

using engine::Reject;
using engine::Result;
using engine::RuleError;

// ---- words ------------------------------------------------------------------------------------

// One word of a notation: as written (quotes removed), and lower-cased for keywords.
struct Token {
  std::string text;
  std::string word;
  bool quoted = false;
  bool separator = false;  // one of the separators Tokenize was given
};

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Returns `text` as a player sees it in an error: at most 32 bytes, in single quotes.
std::string Shown(std::string_view text) {
  std::string out = "'";
  for (char c : text.substr(0, 32)) {
    const auto byte = static_cast<unsigned char>(c);
    out += byte >= 0x20 && byte != 0x7F ? c : '?';
  }
  return out + (text.size() > 32 ? "...'" : "'");
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Splits `text` into words: whitespace separates them, "..." is one word (a name), and each
// character of `separators` is a word of its own.
Result<std::vector<Token>> Tokenize(std::string_view text, std::string_view separators) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (IsSpace(c)) {
      ++i;
    } else if (c == '"') {
      const size_t close = text.find('"', i + 1);
      if (close == std::string_view::npos) {
        return Reject("", "a name in quotes has no closing \": " + Shown(text.substr(i)));
      }
      Token token;
      token.text = std::string(text.substr(i + 1, close - i - 1));
      token.word = Lower(token.text);
      token.quoted = true;
      tokens.push_back(std::move(token));
      i = close + 1;
    } else if (separators.find(c) != std::string_view::npos) {
      tokens.push_back(Token{std::string(1, c), std::string(1, c), false, true});
      ++i;
    } else {
      size_t end = i;
      // A key=value word keeps the commas of its list: malfunctioned=cmg,sn.
      const auto in_list = [&](size_t at) {
        return text[at] == ',' && at + 1 < text.size() && !IsSpace(text[at + 1]) &&
               text.substr(i, at - i).find('=') != std::string_view::npos;
      };
      while (end < text.size() && !IsSpace(text[end]) && text[end] != '"' &&
             (separators.find(text[end]) == std::string_view::npos || in_list(end))) {
        ++end;
      }
      Token token;
      token.text = std::string(text.substr(i, end - i));
      token.word = Lower(token.text);
      tokens.push_back(std::move(token));
      i = end;
    }
  }
  return tokens;
}

// A non-negative decimal number of at most 4 digits.
std::optional<int> Number(std::string_view text) {
  if (text.empty() || text.size() > 4) return std::nullopt;
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// Reads the number of `key=value` word `token`, in `low`..`high`.
Result<int> KeyNumber(const Token& token, std::string_view value, int low, int high) {
  const std::optional<int> number = Number(value);
  const std::string key = token.word.substr(0, token.word.find('='));
  if (!number) return Reject("", Shown(token.text) + ": " + key + " must be a number");
  if (*number < low || *number > high) {
    return Reject("", Shown(token.text) + ": " + key + " " + std::to_string(*number) +
                          " is out of range " + std::to_string(low) + ".." + std::to_string(high));
  }
  return *number;
}

// Splits "key=value"; nothing when the word has no '='.
std::optional<std::pair<std::string, std::string>> KeyValue(const Token& token) {
  if (token.quoted) return std::nullopt;
  const size_t equals = token.word.find('=');
  if (equals == std::string::npos) return std::nullopt;
  return std::pair{token.word.substr(0, equals), token.text.substr(equals + 1)};
}

Result<void> CheckWordId(const Token& token, std::string_view what) {
  if (token.quoted || token.separator) {
    return Reject("", std::string(what) + " needs an id, not " + Shown(token.text));
  }
  if (auto ok = checks::CheckId(token.text, std::string(what), 32); !ok) {
    return tl::unexpected(ok.error());
  }
  return {};
}

std::string Unknown(const Token& token, std::string_view ruleset) {
  return Shown(token.text) + " is not a word of the " + std::string(ruleset) +
         " notation (docs/counter-notation.md)";
}

// A name as the formatters write it: bare when it is one plain word that is not `keyword`,
// else in quotes (a quote inside a name becomes ').
std::string Quoted(std::string name) {
  std::replace(name.begin(), name.end(), '"', '\'');
  return "\"" + name + "\"";
}

std::string Join(const std::vector<std::string>& parts, std::string_view separator = " ") {
  std::string out;
  for (const std::string& part : parts) {
    if (part.empty()) continue;
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

// "4-6-7 Rifles" -> {"4-6-7", "Rifles"}: the first word of a name, and the rest.
std::pair<std::string, std::string> FirstWord(std::string_view name) {
  size_t begin = 0;
  while (begin < name.size() && IsSpace(name[begin])) ++begin;
  size_t end = begin;
  while (end < name.size() && !IsSpace(name[end])) ++end;
  size_t rest = end;
  while (rest < name.size() && IsSpace(name[rest])) ++rest;
  return {std::string(name.substr(begin, end - begin)), std::string(name.substr(rest))};
}

std::string Label(const std::string& counter, const std::string& label) {
  if (counter.empty()) return label;
  return label.empty() ? counter : counter + " " + label;
}

// ---- printed counters ---------------------------------------------------------------------------

// "A-B-C" with B a number or "?" (unknown), optionally "/D-E-F" (the back of the counter).
struct Printed {
  int first = 0;
  int range = -1;  // -1: "?"
  int last = 0;
  bool has_back = false;
  int back_first = 0;
  int back_range = -1;
  int back_last = 0;

  std::string Front() const {
    return std::to_string(first) + "-" + (range < 0 ? "?" : std::to_string(range)) + "-" +
           std::to_string(last);
  }
};

bool ParseThree(std::string_view text, int& first, int& range, int& last) {
  const size_t a = text.find('-');
  if (a == std::string_view::npos) return false;
  const size_t b = text.find('-', a + 1);
  if (b == std::string_view::npos || text.find('-', b + 1) != std::string_view::npos) return false;
  const auto f = Number(text.substr(0, a));
  const std::string_view middle = text.substr(a + 1, b - a - 1);
  const auto r = middle == "?" ? std::optional<int>(-1) : Number(middle);
  const auto l = Number(text.substr(b + 1));
  if (!f || !r || !l) return false;
  first = *f;
  range = *r;
  last = *l;
  return true;
}

// Reads "A-B-C[/D-E-F]"; nothing when `text` is not of that form.
std::optional<Printed> ParsePrinted(std::string_view text) {
  Printed printed;
  const size_t slash = text.find('/');
  if (!ParseThree(text.substr(0, slash), printed.first, printed.range, printed.last)) {
    return std::nullopt;
  }
  if (slash != std::string_view::npos) {
    printed.has_back = true;
    if (!ParseThree(text.substr(slash + 1), printed.back_first, printed.back_range,
                    printed.back_last)) {
      return std::nullopt;
    }
  }
  return printed;
}

// An ASL leader's "ML-leadership": "8-1" is ML 8 and leadership -1, "6+1" ML 6 and +1.
struct LeaderCounter {
  int morale = 0;
  int leadership = 0;
};

std::optional<LeaderCounter> ParseLeaderCounter(std::string_view text) {
  const size_t sign = text.find_first_of("+-");
  if (sign == std::string_view::npos || sign == 0) return std::nullopt;
  const auto morale = Number(text.substr(0, sign));
  const auto drm = Number(text.substr(sign + 1));
  if (!morale || !drm) return std::nullopt;
  return LeaderCounter{*morale, text[sign] == '-' ? -*drm : *drm};
}

std::string LeaderText(int morale, int leadership) {
  return std::to_string(morale) + (leadership > 0 ? "+" : "-") +
         std::to_string(std::abs(leadership));
}

bool StartsWithDigit(std::string_view text) {
  return !text.empty() && std::isdigit(static_cast<unsigned char>(text[0])) != 0;
}

Result<void> InRange(const Token& token, std::string_view what, int value, int low, int high,
                     std::string_view rule = "") {
  if (value < low || value > high) {
    return Reject(std::string(rule), Shown(token.text) + ": " + std::string(what) + " " +
                                         std::to_string(value) + " is out of range " +
                                         std::to_string(low) + ".." + std::to_string(high));
  }
  return {};
}

// ---- asl ----------------------------------------------------------------------------------------

constexpr std::string_view kAslCounterHelp =
    " is not a counter: expected FP-range-ML like 4-6-7, or a leader's ML-leadership like 8-1";

struct AslFlag {
  std::string_view word;
  std::string_view alias;
  void (aslpb::Unit::*set)(bool);
  bool (aslpb::Unit::*get)() const;
};

// Class and status words, in the order AslNotationOf writes them.
constexpr AslFlag kAslFlags[] = {
    {"inexperienced", "green", &aslpb::Unit::set_inexperienced, &aslpb::Unit::inexperienced},
    {"assault-engineer", "assault-engineers", &aslpb::Unit::set_assault_engineer,
     &aslpb::Unit::assault_engineer},
    {"stealthy", "", &aslpb::Unit::set_stealthy, &aslpb::Unit::stealthy},
    {"lax", "", &aslpb::Unit::set_lax, &aslpb::Unit::lax},
    {"commando", "commandos", &aslpb::Unit::set_commando, &aslpb::Unit::commando},
    {"gurkha", "gurkhas", &aslpb::Unit::set_gurkha, &aslpb::Unit::gurkha},
    {"partisan", "partisans", &aslpb::Unit::set_partisan, &aslpb::Unit::partisan},
    {"dare-death", "", &aslpb::Unit::set_dare_death, &aslpb::Unit::dare_death},
    {"fanatic", "", &aslpb::Unit::set_fanatic, &aslpb::Unit::fanatic},
    {"broken", "", &aslpb::Unit::set_broken, &aslpb::Unit::broken},
    {"pinned", "", &aslpb::Unit::set_pinned, &aslpb::Unit::pinned},
    {"cx", "", &aslpb::Unit::set_cx, &aslpb::Unit::cx},
    {"ti", "", &aslpb::Unit::set_ti, &aslpb::Unit::ti},
    {"guarding", "", &aslpb::Unit::set_guarding, &aslpb::Unit::guarding},
    {"berserk", "", &aslpb::Unit::set_berserk, &aslpb::Unit::berserk},
    {"disrupted", "", &aslpb::Unit::set_disrupted, &aslpb::Unit::disrupted},
    {"in-wire", "wire", &aslpb::Unit::set_in_wire, &aslpb::Unit::in_wire},
    {"on-crest", "crest", &aslpb::Unit::set_on_crest, &aslpb::Unit::on_crest},
    {"in-bank-or-panji", "panji", &aslpb::Unit::set_in_bank_or_panji,
     &aslpb::Unit::in_bank_or_panji},
    {"advanced", "", &aslpb::Unit::set_advanced, &aslpb::Unit::advanced},
    {"atmm", "", &aslpb::Unit::set_atmm, &aslpb::Unit::atmm},
};

struct AslVehicleFlag {
  std::string_view word;
  void (aslpb::Vehicle::*set)(bool);
  bool (aslpb::Vehicle::*get)() const;
};

constexpr AslVehicleFlag kAslVehicleFlags[] = {
    {"ce", &aslpb::Vehicle::set_crew_exposed, &aslpb::Vehicle::crew_exposed},
    {"abandoned", &aslpb::Vehicle::set_abandoned, &aslpb::Vehicle::abandoned},
    {"shocked", &aslpb::Vehicle::set_shocked, &aslpb::Vehicle::shocked},
    {"stunned", &aslpb::Vehicle::set_stunned, &aslpb::Vehicle::stunned},
    {"immobile", &aslpb::Vehicle::set_immobile, &aslpb::Vehicle::immobile},
    {"unarmed", &aslpb::Vehicle::set_unarmed, &aslpb::Vehicle::unarmed},
    {"bmg", &aslpb::Vehicle::set_bmg, &aslpb::Vehicle::bmg},
    {"cmg-vca", &aslpb::Vehicle::set_cmg_vca_only, &aslpb::Vehicle::cmg_vca_only},
};

constexpr std::pair<std::string_view, aslpb::Nationality> kNationalities[] = {
    {"german", aslpb::NATIONALITY_GERMAN},     {"american", aslpb::NATIONALITY_AMERICAN},
    {"british", aslpb::NATIONALITY_BRITISH},   {"russian", aslpb::NATIONALITY_RUSSIAN},
    {"italian", aslpb::NATIONALITY_ITALIAN},   {"finnish", aslpb::NATIONALITY_FINNISH},
    {"japanese", aslpb::NATIONALITY_JAPANESE}, {"chinese", aslpb::NATIONALITY_CHINESE},
    {"other", aslpb::NATIONALITY_OTHER},       {"soviet", aslpb::NATIONALITY_RUSSIAN},
    {"us", aslpb::NATIONALITY_AMERICAN},       {"finn", aslpb::NATIONALITY_FINNISH},
};

std::optional<aslpb::Nationality> NationalityOf(std::string_view word) {
  for (const auto& [name, value] : kNationalities) {
    if (word == name) return value;
  }
  return std::nullopt;
}

std::string_view NationalityWord(aslpb::Nationality nationality) {
  for (const auto& [name, value] : kNationalities) {
    if (value == nationality) return name;
  }
  return "";
}

constexpr std::pair<std::string_view, aslpb::UnitKind> kAslKinds[] = {
    {"squad", aslpb::UNIT_KIND_SQUAD},           {"hs", aslpb::UNIT_KIND_HALF_SQUAD},
    {"half-squad", aslpb::UNIT_KIND_HALF_SQUAD}, {"crew", aslpb::UNIT_KIND_CREW},
    {"leader", aslpb::UNIT_KIND_LEADER},         {"hero", aslpb::UNIT_KIND_HERO},
    {"smc", aslpb::UNIT_KIND_OTHER_SMC},         {"dummy", aslpb::UNIT_KIND_DUMMY},
    {"vehicle", aslpb::UNIT_KIND_VEHICLE},
};

constexpr std::pair<std::string_view, aslpb::Armor> kArmors[] = {
    {"ct", aslpb::ARMOR_CLOSED_TOP},
    {"ot", aslpb::ARMOR_OPEN_TOPPED},
    {"partially-armored", aslpb::ARMOR_PARTIALLY_ARMORED},
    {"unarmored", aslpb::ARMOR_UNARMORED},
};

constexpr std::pair<std::string_view, aslpb::Movement> kMovements[] = {
    {"stopped", aslpb::MOVEMENT_STOPPED},
    {"motion", aslpb::MOVEMENT_MOTION},
    {"non-stopped", aslpb::MOVEMENT_NON_STOPPED},
};

// Every word the asl notation knows (a vehicle's bare name must not be one).
bool IsAslKeyword(std::string_view word) {
  for (const AslFlag& flag : kAslFlags) {
    if (word == flag.word || (!flag.alias.empty() && word == flag.alias)) return true;
  }
  for (const AslVehicleFlag& flag : kAslVehicleFlags) {
    if (word == flag.word) return true;
  }
  for (const auto& [name, value] : kAslKinds) {
    if (word == name) return true;
  }
  for (const auto& [name, value] : kArmors) {
    if (word == name) return true;
  }
  for (const auto& [name, value] : kMovements) {
    if (word == name) return true;
  }
  static const std::set<std::string_view> kOthers = {
      "of",        "on",      "with",    "rider",    "passenger", "concealed",
      "?",         "wounded", "assault", "elite",    "bu",        "street-fighting",
      "conscript", "crest",   "bank",    "engineer", "engineers"};
  return NationalityOf(word).has_value() || kOthers.contains(word) ||
         word.find('=') != std::string_view::npos;
}

// An ASL half squad's FP when its squad's HS side is not given (A7.302: FP / 2, at least 1).
int HalfOf(int firepower) { return std::max(1, firepower / 2); }

// The words an asl unit is made of, before they become a Unit.
struct AslWords {
  std::optional<Printed> printed;
  std::optional<LeaderCounter> leader;
  std::string counter_text;
  std::optional<aslpb::UnitKind> kind;
  bool half_squad_of = false;
  std::optional<int> hs_fp;
  bool wounded = false;
  std::string label;
  std::vector<std::string> unknown;
};

Result<void> ReadWeapons(const std::vector<Token>& tokens, size_t& i, aslpb::Unit& unit) {
  // with LMG[, MMG ...]
  for (;;) {
    if (i + 1 >= tokens.size()) return Reject("", "'with' needs a support weapon, e.g. with LMG");
    const Token& weapon = tokens[++i];
    if (weapon.separator || weapon.quoted) {
      return Reject("", "'with' needs a support weapon, e.g. with LMG, not " + Shown(weapon.text));
    }
    if (auto ok = checks::CheckText(weapon.text, Shown(weapon.text), 32); !ok) {
      return tl::unexpected(ok.error());
    }
    unit.add_support_weapons(weapon.text);
    if (i + 1 < tokens.size() && tokens[i + 1].text == ",") {
      ++i;
      continue;
    }
    return {};
  }
}

Result<aslpb::Unit> AslUnit(std::string_view id, v1::Seat owner, std::string_view notation) {
  auto tokens = Tokenize(notation, ",");
  if (!tokens) return tl::unexpected(tokens.error());
  if (tokens->empty()) {
    return Reject("",
                  "no counter: write FP-range-ML like 4-6-7, a leader's ML-leadership like "
                  "8-1, dummy or vehicle");
  }
  aslpb::Unit unit;
  unit.set_id(std::string(id));
  unit.set_owner(owner);
  AslWords words;
  aslpb::Vehicle vehicle;
  bool vehicle_words = false;
  std::optional<std::string> personnel_word;
  const std::vector<Token>& t = *tokens;
  for (size_t i = 0; i < t.size(); ++i) {
    const Token& token = t[i];
    const std::string& w = token.word;
    const auto personnel = [&] {
      if (!personnel_word) personnel_word = token.text;
    };
    if (token.quoted) {
      if (!words.label.empty()) return Reject("", "two names: " + Shown(token.text));
      words.label = token.text;
      if (words.label.empty()) return Reject("", "an empty name \"\"");
      continue;
    }
    if (token.separator) return Reject("", "a ',' belongs in a list of support weapons");
    if (StartsWithDigit(w)) {
      if (words.printed || words.leader) return Reject("", "two counters: " + Shown(token.text));
      if (auto printed = ParsePrinted(w)) {
        if (auto ok = InRange(token, "FP", printed->first, 0, 99); !ok)
          return tl::unexpected(ok.error());
        if (auto ok = InRange(token, "range", printed->range, -1, 99); !ok)
          return tl::unexpected(ok.error());
        if (auto ok = InRange(token, "ML", printed->last, 1, 12); !ok)
          return tl::unexpected(ok.error());
        if (printed->has_back) {
          if (auto ok = InRange(token, "the HS's FP", printed->back_first, 1, 99); !ok) {
            return tl::unexpected(ok.error());
          }
        }
        words.printed = printed;
        words.counter_text = printed->range < 0 ? "" : printed->Front();
        continue;
      }
      if (auto leader = ParseLeaderCounter(w)) {
        if (leader->morale < 1 || leader->morale > 12 || leader->leadership < -5 ||
            leader->leadership > 3) {
          return Reject("", Shown(token.text) + std::string(kAslCounterHelp) +
                                " leader (ML 1..12, leadership -5..+3)");
        }
        words.leader = leader;
        words.counter_text = LeaderText(leader->morale, leader->leadership);
        continue;
      }
      return Reject("", Shown(token.text) + std::string(kAslCounterHelp));
    }
    if (w == "of") {
      if (words.kind != aslpb::UNIT_KIND_HALF_SQUAD || i == 0 || t[i - 1].word == "of") {
        return Reject("", "'of' follows HS, rider or passenger (HS of 4-6-7, rider of T1)");
      }
      words.half_squad_of = true;
      continue;
    }
    bool matched = false;
    for (const auto& [name, kind] : kAslKinds) {
      if (w == name) {
        if (words.kind && *words.kind != kind) {
          return Reject("", "two kinds of unit: " + Shown(token.text));
        }
        words.kind = kind;
        matched = true;
      }
    }
    if (matched) continue;
    if (auto nationality = NationalityOf(w)) {
      if (unit.nationality() != aslpb::NATIONALITY_UNSPECIFIED) {
        return Reject("", "two nationalities: " + Shown(token.text));
      }
      unit.set_nationality(*nationality);
      continue;
    }
    for (const AslFlag& flag : kAslFlags) {
      if (w == flag.word || (!flag.alias.empty() && w == flag.alias)) {
        (unit.*flag.set)(true);
        matched = true;
      }
    }
    if (w == "conscript" || w == "bank") {
      if (w == "bank") {
        unit.set_in_bank_or_panji(true);
      } else {
        unit.set_inexperienced(true);
      }
      matched = true;
    }
    if (matched) {
      personnel();
      continue;
    }
    if (w == "assault") {
      if (i + 1 >= t.size() || (t[i + 1].word != "engineer" && t[i + 1].word != "engineers")) {
        return Reject("", "'assault' is followed by engineers (assault engineers)");
      }
      unit.set_assault_engineer(true);
      personnel();
      ++i;
      continue;
    }
    if (w == "engineer" || w == "engineers") {
      unit.set_assault_engineer(true);
      personnel();
      continue;
    }
    if (w == "elite") {
      return Reject("",
                    "'elite': the CC rules have no elite class; an elite squad's printed "
                    "FP-range-ML (e.g. 4-6-8) says it all");
    }
    if (w == "concealed" || w == "?") {
      unit.set_concealed(true);
      continue;
    }
    if (w == "wounded") {
      words.wounded = true;
      personnel();
      continue;
    }
    if (w == "with" || (w.size() > 1 && w[0] == '+')) {
      if (w == "with") {
        if (auto ok = ReadWeapons(t, i, unit); !ok) return tl::unexpected(ok.error());
      } else {
        unit.add_support_weapons(token.text.substr(1));
      }
      personnel();
      continue;
    }
    if (w == "on" || w == "rider" || w == "passenger") {
      size_t at = i + 1;
      if (w != "on" && at < t.size() && t[at].word == "of") ++at;
      if (at >= t.size()) return Reject("", Shown(token.text) + " needs a unit id, e.g. on G1");
      if (auto ok = CheckWordId(t[at], "'" + w + "'"); !ok) return tl::unexpected(ok.error());
      std::string* target = w == "on"      ? unit.mutable_stacked_on()
                            : w == "rider" ? unit.mutable_rider_of()
                                           : unit.mutable_passenger_of();
      if (!target->empty()) return Reject("", "'" + w + "' is given twice");
      *target = t[at].text;
      personnel();
      i = at;
      continue;
    }
    if (w == "street-fighting") {
      unit.set_street_fighting(aslpb::STREET_FIGHTING_FROM_BUILDING);
      personnel();
      continue;
    }
    if (w == "bu") {
      vehicle_words = true;
      continue;
    }
    for (const auto& [name, armor] : kArmors) {
      if (w == name || (w == "open-topped" && armor == aslpb::ARMOR_OPEN_TOPPED) ||
          (w == "closed-top" && armor == aslpb::ARMOR_CLOSED_TOP) ||
          (w == "pa" && armor == aslpb::ARMOR_PARTIALLY_ARMORED)) {
        vehicle.set_armor(armor);
        matched = true;
      }
    }
    for (const auto& [name, movement] : kMovements) {
      if (w == name) {
        vehicle.set_movement(movement);
        matched = true;
      }
    }
    for (const AslVehicleFlag& flag : kAslVehicleFlags) {
      if (w == flag.word) {
        (vehicle.*flag.set)(true);
        matched = true;
      }
    }
    if (matched) {
      vehicle_words = true;
      continue;
    }
    if (auto pair = KeyValue(token)) {
      const auto& [key, value] = *pair;
      if (key == "bpv") {
        auto n = KeyNumber(token, value, 0, 999);
        if (!n) return tl::unexpected(n.error());
        unit.set_bpv(*n);
      } else if (key == "hs-fp") {
        auto n = KeyNumber(token, value, 1, 99);
        if (!n) return tl::unexpected(n.error());
        words.hs_fp = *n;
      } else if (key == "street-fighting") {
        const std::string where = Lower(value);
        if (where != "building" && where != "obstacle") {
          return Reject("A11.8", Shown(token.text) +
                                     ": street-fighting=building or street-fighting=obstacle");
        }
        unit.set_street_fighting(where == "building" ? aslpb::STREET_FIGHTING_FROM_BUILDING
                                                     : aslpb::STREET_FIGHTING_IN_OBSTACLE);
        personnel();
      } else if (key == "cmg" || key == "rmg" || key == "aamg") {
        auto n = KeyNumber(token, value, 0, 99);
        if (!n) return tl::unexpected(n.error());
        if (key == "cmg") {
          vehicle.set_cmg(*n);
        } else if (key == "rmg") {
          vehicle.set_rmg(*n);
        } else {
          vehicle.set_aamg(*n);
        }
        vehicle_words = true;
      } else if (key == "sn") {
        auto n = KeyNumber(token, value, 1, 12);
        if (!n) return tl::unexpected(n.error());
        vehicle.set_sn_usage(*n);
        vehicle_words = true;
      } else if (key == "malfunctioned") {
        std::string_view rest = value;
        while (!rest.empty()) {
          const std::string item = Lower(rest.substr(0, rest.find(',')));
          if (item != "cmg" && item != "rmg" && item != "aamg" && item != "sn") {
            return Reject("", Shown(token.text) +
                                  ": malfunctioned weapons are cmg, rmg, aamg "
                                  "or sn, separated by commas");
          }
          vehicle.add_malfunctioned(item);
          rest.remove_prefix(std::min(rest.size(), item.size() + 1));
        }
        vehicle_words = true;
      } else {
        return Reject("", Unknown(token, "asl"));
      }
      continue;
    }
    words.unknown.push_back(token.text);
  }

  // The kind, from the counter and the kind word.
  const bool is_vehicle = words.kind == aslpb::UNIT_KIND_VEHICLE;
  if (!words.unknown.empty() && !(is_vehicle && words.unknown.size() == 1 && words.label.empty())) {
    Token shown;
    shown.text = words.unknown.front();
    return Reject("", Unknown(shown, "asl"));
  }
  if (is_vehicle || words.kind == aslpb::UNIT_KIND_DUMMY) {
    if (words.printed || words.leader) {
      return Reject("", "a " + std::string(is_vehicle ? "vehicle" : "dummy") +
                            " has no FP-range-ML counter: " + Shown(words.counter_text));
    }
    if (is_vehicle && personnel_word) {
      return Reject("A11.5", "a vehicle has no Personnel status, class, SW or stacking: " +
                                 Shown(*personnel_word));
    }
    if (unit.concealed() && is_vehicle) {
      return Reject("A11.5", "a concealed vehicle is not supported");
    }
  } else if (vehicle_words) {
    return Reject("",
                  "vehicle words (CE, motion, cmg=...) are for a vehicle: write "
                  "vehicle NAME ...");
  }
  if (words.half_squad_of && !words.printed) {
    return Reject("", "HS of needs the squad's counter, e.g. HS of 4-6-7");
  }
  aslpb::UnitKind kind;
  if (words.leader) {
    // Two numbers alone are too easily a squad's counter mistyped: a leader says so.
    if (!words.kind) {
      return Reject("", Shown(words.counter_text) + std::string(kAslCounterHelp) + " leader");
    }
    if (*words.kind != aslpb::UNIT_KIND_LEADER) {
      return Reject("", Shown(words.counter_text) +
                            " is a leader's ML-leadership; FP-range-ML "
                            "like 4-6-7 is the counter of other units");
    }
    kind = aslpb::UNIT_KIND_LEADER;
  } else if (words.printed) {
    if (words.kind == aslpb::UNIT_KIND_LEADER) {
      return Reject(
          "", "a leader's counter is ML-leadership like 8-1, not " + Shown(words.printed->Front()));
    }
    kind = words.kind.value_or(aslpb::UNIT_KIND_SQUAD);
  } else if (words.kind == aslpb::UNIT_KIND_DUMMY || is_vehicle) {
    kind = *words.kind;
  } else {
    return Reject("",
                  "no counter: write FP-range-ML like 4-6-7, a leader's ML-leadership like "
                  "8-1, dummy or vehicle");
  }
  unit.set_kind(kind);
  if (words.half_squad_of && (!words.printed || kind != aslpb::UNIT_KIND_HALF_SQUAD)) {
    return Reject("", "HS of needs the squad's counter, e.g. HS of 4-6-7");
  }
  if (words.printed && words.printed->has_back &&
      (kind != aslpb::UNIT_KIND_SQUAD && !words.half_squad_of)) {
    return Reject("", Shown(words.counter_text) + ": only a squad has a HS side (4-6-7/2-4-7)");
  }
  if (words.hs_fp && kind != aslpb::UNIT_KIND_SQUAD && !words.half_squad_of) {
    return Reject("", "hs-fp= is the FP of a squad's HS (4-6-7 hs-fp=2, HS of 4-6-7 hs-fp=2)");
  }

  if (words.printed) {
    const Printed& p = *words.printed;
    unit.set_morale(p.last);
    if (words.half_squad_of) {
      // A squad Reduced to a HS (A7.302): its HS side's FP, or FP / 2.
      const int half = words.hs_fp ? *words.hs_fp : p.has_back ? p.back_first : HalfOf(p.first);
      unit.set_firepower(half);
    } else {
      unit.set_firepower(p.first);
      if (kind == aslpb::UNIT_KIND_SQUAD) {
        const int half = words.hs_fp ? *words.hs_fp : p.has_back ? p.back_first : HalfOf(p.first);
        if (half != HalfOf(p.first)) unit.set_reduced_firepower(half);
      }
    }
    if (p.range < 0 && p.has_back) {
      return Reject("", Shown(words.counter_text) + ": give the range of a counter with a HS side");
    }
  }
  if (words.leader) {
    unit.set_morale(words.leader->morale);
    unit.set_leadership(words.leader->leadership);
  }
  if (words.wounded) {
    if (kind != aslpb::UNIT_KIND_LEADER && kind != aslpb::UNIT_KIND_HERO &&
        kind != aslpb::UNIT_KIND_OTHER_SMC) {
      return Reject("A17.11", "'wounded': only a SMC is wounded; an MMC is Reduced (A7.302)");
    }
    unit.set_wounds(1);
    if (kind == aslpb::UNIT_KIND_LEADER) {
      // A17.11: the counter is as printed; a wounded leader's ML is one less and his modifier
      // one worse.
      if (unit.morale() <= 1 || unit.leadership() >= 3) {
        return Reject("A17.11", Shown(words.counter_text) + " wounded would leave ML " +
                                    std::to_string(unit.morale() - 1) + ", leadership " +
                                    std::to_string(unit.leadership() + 1));
      }
      unit.set_morale(unit.morale() - 1);
      unit.set_leadership(unit.leadership() + 1);
    }
  }
  if (kind == aslpb::UNIT_KIND_DUMMY) unit.set_concealed(true);
  if (is_vehicle) {
    *unit.mutable_vehicle() = vehicle;
    unit.set_name(words.label.empty() && !words.unknown.empty() ? words.unknown.front()
                                                                : words.label);
  } else {
    unit.set_name(Label(words.counter_text, words.label));
  }
  if (!unit.stacked_on().empty() && kind != aslpb::UNIT_KIND_LEADER &&
      kind != aslpb::UNIT_KIND_HERO && kind != aslpb::UNIT_KIND_OTHER_SMC) {
    return Reject("A11.14", "'on " + unit.stacked_on() +
                                "': only a SMC is stacked on an MMC (A11.14); write the SMC's "
                                "line with on <MMC id>");
  }
  if (auto checked = UnitFromProto(unit, std::string(id)); !checked) {
    return tl::unexpected(checked.error());
  }
  return unit;
}

// Splits an asl unit's name into its printed counter and the rest.
struct AslName {
  std::optional<Printed> printed;
  std::optional<LeaderCounter> leader;
  std::string label;
};

AslName SplitAslName(const std::string& name) {
  AslName out;
  auto [first, rest] = FirstWord(name);
  if (auto printed = ParsePrinted(first); printed && !printed->has_back && printed->range >= 0) {
    out.printed = printed;
    out.label = rest;
  } else if (auto leader = ParseLeaderCounter(first)) {
    out.leader = leader;
    out.label = rest;
  } else {
    out.label = name;
  }
  return out;
}

std::string AslNotation(const aslpb::Unit& unit) {
  std::vector<std::string> parts;
  const int morale = unit.has_morale() ? unit.morale() : 7;
  AslName name = SplitAslName(unit.name());
  switch (unit.kind()) {
    case aslpb::UNIT_KIND_VEHICLE: {
      parts.push_back("vehicle");
      const std::string label = unit.name();
      const bool bare = !label.empty() && label.find_first_of(" \t\",=") == std::string::npos &&
                        !StartsWithDigit(label) && label[0] != '+' && !IsAslKeyword(Lower(label));
      parts.push_back(label.empty() ? "" : bare ? label : Quoted(label));
      name.label.clear();
      break;
    }
    case aslpb::UNIT_KIND_DUMMY:
      parts.push_back("dummy");
      if (name.printed || name.leader) name.label = unit.name();
      break;
    case aslpb::UNIT_KIND_LEADER: {
      const int wound = unit.wounds() > 0 ? 1 : 0;
      parts.push_back(LeaderText(morale + wound, unit.leadership() - wound) + " leader");
      if (name.printed) name.label = unit.name();
      break;
    }
    default: {
      const int fp = unit.firepower();
      const bool reduced = unit.kind() == aslpb::UNIT_KIND_HALF_SQUAD && name.printed &&
                           name.printed->first != fp && name.printed->last == morale;
      if (reduced) {
        parts.push_back("HS of " + name.printed->Front());
        if (fp != HalfOf(name.printed->first)) parts.push_back("hs-fp=" + std::to_string(fp));
      } else {
        if (name.printed && name.printed->first == fp && name.printed->last == morale) {
          parts.push_back(name.printed->Front());
        } else {
          parts.push_back(std::to_string(fp) + "-?-" + std::to_string(morale));
          name.label = unit.name();
        }
        switch (unit.kind()) {
          case aslpb::UNIT_KIND_HALF_SQUAD:
            parts.push_back("HS");
            break;
          case aslpb::UNIT_KIND_CREW:
            parts.push_back("crew");
            break;
          case aslpb::UNIT_KIND_HERO:
            parts.push_back("hero");
            break;
          case aslpb::UNIT_KIND_OTHER_SMC:
            parts.push_back("smc");
            break;
          default:
            break;
        }
        if (unit.kind() == aslpb::UNIT_KIND_SQUAD && unit.has_reduced_firepower()) {
          parts.push_back("hs-fp=" + std::to_string(unit.reduced_firepower()));
        }
      }
      if (name.leader) name.label = unit.name();
      break;
    }
  }
  // NATIONALITY_OTHER plays as none (the engine's views give it to every unit without one).
  if (unit.nationality() != aslpb::NATIONALITY_OTHER) {
    parts.push_back(std::string(NationalityWord(unit.nationality())));
  }
  for (const AslFlag& flag : kAslFlags) {
    if ((unit.*flag.get)()) parts.push_back(std::string(flag.word));
  }
  if (unit.wounds() > 0) parts.push_back("wounded");
  if (unit.street_fighting() == aslpb::STREET_FIGHTING_FROM_BUILDING) {
    parts.push_back("street-fighting");
  } else if (unit.street_fighting() == aslpb::STREET_FIGHTING_IN_OBSTACLE) {
    parts.push_back("street-fighting=obstacle");
  }
  if (unit.concealed() && unit.kind() != aslpb::UNIT_KIND_DUMMY) parts.push_back("concealed");
  if (unit.bpv() != 0) parts.push_back("bpv=" + std::to_string(unit.bpv()));
  if (!unit.support_weapons().empty()) {
    std::vector<std::string> weapons(unit.support_weapons().begin(), unit.support_weapons().end());
    parts.push_back("with " + Join(weapons, ", "));
  }
  if (!unit.stacked_on().empty()) parts.push_back("on " + unit.stacked_on());
  if (!unit.rider_of().empty()) parts.push_back("rider of " + unit.rider_of());
  if (!unit.passenger_of().empty()) parts.push_back("passenger of " + unit.passenger_of());
  if (unit.kind() == aslpb::UNIT_KIND_VEHICLE) {
    const aslpb::Vehicle& v = unit.vehicle();
    for (const auto& [word, armor] : kArmors) {
      if (armor == v.armor() && armor != aslpb::ARMOR_CLOSED_TOP)
        parts.push_back(std::string(word));
    }
    for (const auto& [word, movement] : kMovements) {
      if (movement == v.movement() && movement != aslpb::MOVEMENT_STOPPED) {
        parts.push_back(std::string(word));
      }
    }
    for (const AslVehicleFlag& flag : kAslVehicleFlags) {
      if ((v.*flag.get)()) parts.push_back(std::string(flag.word));
    }
    if (v.cmg() != 0) parts.push_back("cmg=" + std::to_string(v.cmg()));
    if (v.rmg() != 0) parts.push_back("rmg=" + std::to_string(v.rmg()));
    if (v.aamg() != 0) parts.push_back("aamg=" + std::to_string(v.aamg()));
    if (v.sn_usage() != 0) parts.push_back("sn=" + std::to_string(v.sn_usage()));
    if (!v.malfunctioned().empty()) {
      std::vector<std::string> weapons(v.malfunctioned().begin(), v.malfunctioned().end());
      parts.push_back("malfunctioned=" + Join(weapons, ","));
    }
  }
  if (!name.label.empty()) parts.push_back(Quoted(name.label));
  return Join(parts);
}

}  // namespace

namespace {

// ---- vv -----------------------------------------------------------------------------------------

constexpr std::string_view kVvCounterHelp =
    " is not a counter: expected APFP-range-CR like 4-6-5 (a squad may add its half-squad side: "
    "4-6-5/2-6-2)";

struct VvFlag {
  std::string_view word;
  void (vvpb::Unit::*set)(bool);
  bool (vvpb::Unit::*get)() const;
};

constexpr VvFlag kVvFlags[] = {
    {"valorous", &vvpb::Unit::set_valorous, &vvpb::Unit::valorous},
    {"pinned", &vvpb::Unit::set_pinned, &vvpb::Unit::pinned},
    {"advanced", &vvpb::Unit::set_advanced, &vvpb::Unit::advanced},
    {"immobile", &vvpb::Unit::set_immobile, &vvpb::Unit::immobile},
    {"gun-shield", &vvpb::Unit::set_gun_shield_faces_assault,
     &vvpb::Unit::gun_shield_faces_assault},
};

constexpr std::pair<std::string_view, vvpb::UnitKind> kVvKinds[] = {
    {"squad", vvpb::UNIT_KIND_SQUAD},           {"hs", vvpb::UNIT_KIND_HALF_SQUAD},
    {"half-squad", vvpb::UNIT_KIND_HALF_SQUAD}, {"leader", vvpb::UNIT_KIND_LEADER},
    {"hero", vvpb::UNIT_KIND_LEADER},           {"afv", vvpb::UNIT_KIND_AFV},
    {"vehicle", vvpb::UNIT_KIND_VEHICLE},       {"gun", vvpb::UNIT_KIND_GUN},
};

bool IsVvKeyword(std::string_view word) {
  for (const VvFlag& flag : kVvFlags) {
    if (word == flag.word) return true;
  }
  for (const auto& [name, kind] : kVvKinds) {
    if (word == name) return true;
  }
  return word == "of" || word == "on" || word == "with" || word == "mg" || word == "l" ||
         word == "h" || word == "(l)" || word == "(h)" || word.find('=') != std::string_view::npos;
}

// A V&V half squad's values when its squad's back is not given: APFP and CR halved, rounded
// down (every counter of rule 15's example: 4-6-5 and 5-6-4 reduce to 2-6-2).
int VvHalf(int value) { return value / 2; }

// The Leadership Modifier as V&V prints it: "(-1)" or "-1"; nothing when `word` is not one.
std::optional<int> VvModifier(std::string_view word, bool& positive) {
  if (word.size() >= 2 && word.front() == '(' && word.back() == ')') {
    word = word.substr(1, word.size() - 2);
  }
  if (word.size() < 2 || (word[0] != '-' && word[0] != '+')) return std::nullopt;
  positive = word[0] == '+';
  return Number(word.substr(1));
}

// "with LMG 3-6 (L) [mg] ["M1919A6"]": one support weapon.
Result<vvpb::SupportWeapon> VvWeapon(const std::vector<Token>& t, size_t& i) {
  vvpb::SupportWeapon weapon;
  if (i + 1 >= t.size()) return Reject("", "'with' needs a weapon, e.g. with LMG 3-6 (L)");
  if (auto ok = CheckWordId(t[++i], "'with'"); !ok) return tl::unexpected(ok.error());
  weapon.set_id(t[i].text);
  const std::string id = Lower(weapon.id());
  // 15.2: the ids of machine guns say what they are.
  weapon.set_machine_gun(id == "lmg" || id == "mmg" || id == "hmg" || id == "mg");
  std::string label;
  std::string printed;
  bool valued = false;
  while (i + 1 < t.size()) {
    const Token& next = t[i + 1];
    if (next.quoted && label.empty()) {
      label = next.text;
    } else if (!valued && StartsWithDigit(next.word)) {
      const size_t dash = next.word.find('-');
      const auto apfp = Number(next.word.substr(0, dash));
      const auto range =
          dash == std::string::npos ? std::optional<int>(0) : Number(next.word.substr(dash + 1));
      if (!apfp || !range) {
        return Reject("", Shown(next.text) + " is not a weapon's APFP-range like 3-6");
      }
      if (auto ok = InRange(next, "APFP", *apfp, 0, 99); !ok) return tl::unexpected(ok.error());
      weapon.set_apfp(*apfp);
      if (dash != std::string::npos) printed = next.text;
      valued = true;
    } else if (next.word == "(l)" || next.word == "l" || next.word == "(h)" || next.word == "h") {
      weapon.set_heavy(next.word.find('h') != std::string::npos);
    } else if (next.word == "mg") {
      weapon.set_machine_gun(true);
    } else {
      break;
    }
    ++i;
  }
  if (!valued) {
    return Reject("", "with " + weapon.id() + ": give its APFP-range as printed, e.g. with " +
                          weapon.id() + " 3-6 (L)");
  }
  if (!printed.empty()) printed += weapon.heavy() ? " (H)" : " (L)";
  weapon.set_name(Label(label, printed));
  return weapon;
}

Result<vvpb::Unit> VvUnit(std::string_view id, v1::Seat owner, std::string_view notation) {
  auto tokens = Tokenize(notation, "");
  if (!tokens) return tl::unexpected(tokens.error());
  vvpb::Unit unit;
  unit.set_id(std::string(id));
  unit.set_owner(owner);
  const std::vector<Token>& t = *tokens;
  std::optional<Printed> printed;
  std::string printed_text;
  std::optional<vvpb::UnitKind> kind;
  bool hero = false;
  bool half_squad_of = false;
  std::optional<int> modifier;
  std::optional<int> apfp;
  std::optional<int> cr;
  std::string label;
  std::vector<std::string> unknown;
  for (size_t i = 0; i < t.size(); ++i) {
    const Token& token = t[i];
    const std::string& w = token.word;
    if (token.quoted) {
      if (!label.empty()) return Reject("", "two names: " + Shown(token.text));
      label = token.text;
      if (label.empty()) return Reject("", "an empty name \"\"");
      continue;
    }
    if (StartsWithDigit(w)) {
      if (printed) return Reject("", "two counters: " + Shown(token.text));
      printed = ParsePrinted(w);
      if (!printed) return Reject("", Shown(token.text) + std::string(kVvCounterHelp));
      if (auto ok = InRange(token, "APFP", printed->first, 0, 99); !ok) {
        return tl::unexpected(ok.error());
      }
      if (auto ok = InRange(token, "CR", printed->last, 0, 20); !ok) {
        return tl::unexpected(ok.error());
      }
      if (printed->has_back) {
        if (auto ok = InRange(token, "the half squad's APFP", printed->back_first, 0, 99); !ok) {
          return tl::unexpected(ok.error());
        }
        if (auto ok = InRange(token, "the half squad's CR", printed->back_last, 0, 20); !ok) {
          return tl::unexpected(ok.error());
        }
      }
      printed_text = printed->range < 0 ? "" : printed->Front();
      continue;
    }
    bool positive = false;
    if (auto lm = VvModifier(w, positive)) {
      if (positive) {
        return Reject("15.3", Shown(token.text) +
                                  ": a V&V Leadership Modifier is subtracted, "
                                  "e.g. (-1) (VV-AMB-2)");
      }
      if (modifier) return Reject("", "two Leadership Modifiers: " + Shown(token.text));
      if (auto ok = InRange(token, "the Leadership Modifier", *lm, 0, 3, "15.3"); !ok) {
        return tl::unexpected(ok.error());
      }
      modifier = *lm;
      continue;
    }
    if (w == "of") {
      if (kind != vvpb::UNIT_KIND_HALF_SQUAD) return Reject("", "'of' follows hs (hs of 4-6-5)");
      half_squad_of = true;
      continue;
    }
    bool matched = false;
    for (const auto& [name, value] : kVvKinds) {
      if (w == name) {
        if (kind && *kind != value) return Reject("", "two kinds of unit: " + Shown(token.text));
        kind = value;
        hero = hero || w == "hero";
        matched = true;
      }
    }
    for (const VvFlag& flag : kVvFlags) {
      if (w == flag.word) {
        (unit.*flag.set)(true);
        matched = true;
      }
    }
    if (matched) continue;
    if (w == "on") {
      if (i + 1 >= t.size()) return Reject("", "'on' needs the vehicle's id, e.g. on T1");
      if (auto ok = CheckWordId(t[++i], "'on'"); !ok) return tl::unexpected(ok.error());
      unit.set_carrier(t[i].text);
      continue;
    }
    if (w == "with") {
      auto weapon = VvWeapon(t, i);
      if (!weapon) return tl::unexpected(weapon.error());
      *unit.add_weapons() = std::move(*weapon);
      continue;
    }
    if (auto pair = KeyValue(token)) {
      const auto& [key, value] = *pair;
      if (key == "apfp" || key == "mg") {
        auto n = KeyNumber(token, value, 0, 99);
        if (!n) return tl::unexpected(n.error());
        apfp = *n;
      } else if (key == "cr") {
        auto n = KeyNumber(token, value, 0, 20);
        if (!n) return tl::unexpected(n.error());
        cr = *n;
      } else if (key == "main-gun") {
        auto n = KeyNumber(token, value, 0, 99);
        if (!n) return tl::unexpected(n.error());
        unit.set_main_gun_apfp(*n);
      } else {
        return Reject("", Unknown(token, "vv"));
      }
      continue;
    }
    unknown.push_back(token.text);
  }
  if (!kind) {
    if (!printed) {
      return Reject("",
                    "no counter: write APFP-range-CR like 4-6-5 (squad, hs, leader) or "
                    "afv, vehicle or gun with mg=, cr=");
    }
    kind = modifier ? vvpb::UNIT_KIND_LEADER : vvpb::UNIT_KIND_SQUAD;
  }
  const bool infantry = *kind == vvpb::UNIT_KIND_SQUAD || *kind == vvpb::UNIT_KIND_HALF_SQUAD ||
                        *kind == vvpb::UNIT_KIND_LEADER;
  if (!unknown.empty() && !(!infantry && unknown.size() == 1 && label.empty())) {
    Token shown;
    shown.text = unknown.front();
    return Reject("", Unknown(shown, "vv"));
  }
  unit.set_kind(*kind);
  if (infantry && !printed) {
    return Reject("", "a " + std::string(*kind == vvpb::UNIT_KIND_LEADER ? "leader" : "squad") +
                          " needs its counter: APFP-range-CR like 4-6-5");
  }
  if (modifier && *kind != vvpb::UNIT_KIND_LEADER) {
    return Reject("15.3", "only a leader has a Leadership Modifier");
  }
  if (half_squad_of && !printed) return Reject("", "hs of needs the squad's counter: hs of 4-6-5");
  if (printed && printed->has_back && *kind != vvpb::UNIT_KIND_SQUAD && !half_squad_of) {
    return Reject("", Shown(printed->Front()) + ": only a squad has a half-squad side");
  }
  if (unit.valorous() && !infantry) {
    return Reject("16.1", "'valorous': valor applies to infantry units only");
  }
  if (unit.gun_shield_faces_assault() && *kind != vvpb::UNIT_KIND_GUN) {
    return Reject("14.63", "'gun-shield': only a Gun has a Gun Shield");
  }
  if (unit.immobile() && *kind != vvpb::UNIT_KIND_AFV) {
    return Reject("15.10", "'immobile': only an AFV is marked Immobile");
  }
  if (!unit.weapons().empty() &&
      (*kind == vvpb::UNIT_KIND_AFV || *kind == vvpb::UNIT_KIND_VEHICLE)) {
    return Reject("15.4", "a vehicle carries no support weapon: its machine guns are its mg=");
  }
  for (const vvpb::SupportWeapon& weapon : unit.weapons()) {
    if (weapon.heavy() && *kind == vvpb::UNIT_KIND_LEADER) {
      return Reject("12.3", "a leader cannot use a Heavy (H) weapon (" + weapon.id() + ")");
    }
  }
  if (printed) {
    unit.set_apfp(printed->first);
    unit.set_casualty_rating(printed->last);
  }
  if (apfp) unit.set_apfp(*apfp);
  if (cr) unit.set_casualty_rating(*cr);
  if (*kind == vvpb::UNIT_KIND_SQUAD || half_squad_of) {
    const int half_apfp = printed->has_back ? printed->back_first : VvHalf(printed->first);
    const int half_cr = printed->has_back ? printed->back_last : VvHalf(printed->last);
    if (half_squad_of) {
      unit.set_apfp(half_apfp);
      unit.set_casualty_rating(half_cr);
    } else {
      if (half_cr < 1 || half_cr >= unit.casualty_rating()) {
        return Reject("14.61",
                      "a squad reduces to a half squad with a CR from 1 to less than "
                      "its own: give its half-squad side, e.g. " +
                          printed->Front() + "/2-6-2");
      }
      unit.set_reduced_apfp(half_apfp);
      unit.set_reduced_casualty_rating(half_cr);
    }
  }
  if (*kind == vvpb::UNIT_KIND_LEADER) {
    unit.set_leadership(modifier.value_or(0));
    if (hero) unit.set_valorous(true);
  }
  if (infantry) {
    std::string counter = printed_text;
    if (modifier && !counter.empty()) counter += " (-" + std::to_string(*modifier) + ")";
    unit.set_name(Label(counter, label));
  } else {
    unit.set_name(label.empty() && !unknown.empty() ? unknown.front() : label);
  }
  if (auto checked = VvUnitFromProto(unit, std::string(id)); !checked) {
    return tl::unexpected(checked.error());
  }
  return unit;
}

// A vv name split into its printed counter, its Leadership Modifier and the rest.
struct VvName {
  std::optional<Printed> printed;
  std::string label;
};

VvName SplitVvName(const std::string& name) {
  VvName out;
  auto [first, rest] = FirstWord(name);
  auto printed = ParsePrinted(first);
  if (!printed || printed->has_back || printed->range < 0) {
    out.label = name;
    return out;
  }
  out.printed = printed;
  auto [second, after] = FirstWord(rest);
  bool positive = false;
  out.label = VvModifier(second, positive) ? after : rest;
  return out;
}

std::string VvWeaponNotation(const vvpb::SupportWeapon& weapon) {
  std::vector<std::string> parts = {"with", weapon.id()};
  std::string label = weapon.name();
  std::string printed = std::to_string(weapon.apfp());
  // The name ends with the printed "3-6 (L)" when the notation wrote it.
  const std::string tail = weapon.heavy() ? " (H)" : " (L)";
  if (label.size() >= tail.size() &&
      label.compare(label.size() - tail.size(), tail.size(), tail) == 0) {
    const std::string head = label.substr(0, label.size() - tail.size());
    const size_t space = head.rfind(' ');
    const std::string value = space == std::string::npos ? head : head.substr(space + 1);
    const size_t dash = value.find('-');
    if (dash != std::string::npos && Number(value.substr(0, dash)) == weapon.apfp() &&
        Number(value.substr(dash + 1))) {
      printed = value;
      label = space == std::string::npos ? "" : head.substr(0, space);
    }
  }
  parts.push_back(printed);
  parts.push_back(weapon.heavy() ? "(H)" : "(L)");
  const std::string id = Lower(weapon.id());
  const bool implied = id == "lmg" || id == "mmg" || id == "hmg" || id == "mg";
  if (weapon.machine_gun() && !implied) parts.push_back("mg");
  if (!label.empty()) parts.push_back(Quoted(label));
  return Join(parts);
}

std::string VvNotation(const vvpb::Unit& unit) {
  std::vector<std::string> parts;
  VvName name = SplitVvName(unit.name());
  const auto counter = [&](int apfp, int cr) {
    if (name.printed && name.printed->first == apfp && name.printed->last == cr) {
      return name.printed->Front();
    }
    name.label = unit.name();
    return std::to_string(apfp) + "-?-" + std::to_string(cr);
  };
  bool valorous_said = false;
  switch (unit.kind()) {
    case vvpb::UNIT_KIND_SQUAD: {
      std::string text = counter(unit.apfp(), unit.casualty_rating());
      if (unit.reduced_apfp() != VvHalf(unit.apfp()) ||
          unit.reduced_casualty_rating() != VvHalf(unit.casualty_rating())) {
        const int range = name.printed && name.label != unit.name() ? name.printed->range : -1;
        text += "/" + std::to_string(unit.reduced_apfp()) + "-" +
                (range < 0 ? "?" : std::to_string(range)) + "-" +
                std::to_string(unit.reduced_casualty_rating());
      }
      parts = {text, "squad"};
      break;
    }
    case vvpb::UNIT_KIND_HALF_SQUAD:
      if (name.printed &&
          (name.printed->first != unit.apfp() || name.printed->last != unit.casualty_rating())) {
        std::string text = "hs of " + name.printed->Front();
        if (unit.apfp() != VvHalf(name.printed->first) ||
            unit.casualty_rating() != VvHalf(name.printed->last)) {
          text += "/" + std::to_string(unit.apfp()) + "-" + std::to_string(name.printed->range) +
                  "-" + std::to_string(unit.casualty_rating());
        }
        parts = {text};
      } else {
        parts = {counter(unit.apfp(), unit.casualty_rating()), "hs"};
      }
      break;
    case vvpb::UNIT_KIND_LEADER:
      parts = {counter(unit.apfp(), unit.casualty_rating()),
               unit.leadership() > 0 ? "(-" + std::to_string(unit.leadership()) + ")" : "",
               unit.valorous() ? "hero" : "leader"};
      valorous_said = unit.valorous();
      break;
    default: {
      const std::string_view word = unit.kind() == vvpb::UNIT_KIND_AFV       ? "afv"
                                    : unit.kind() == vvpb::UNIT_KIND_VEHICLE ? "vehicle"
                                                                             : "gun";
      parts.push_back(std::string(word));
      const std::string& label = unit.name();
      const bool bare = !label.empty() && label.find_first_of(" \t\",=()") == std::string::npos &&
                        !StartsWithDigit(label) && label[0] != '-' && label[0] != '+' &&
                        !IsVvKeyword(Lower(label));
      parts.push_back(label.empty() ? "" : bare ? label : Quoted(label));
      name.label.clear();
      if (unit.kind() == vvpb::UNIT_KIND_GUN) {
        if (unit.apfp() != 0) parts.push_back("apfp=" + std::to_string(unit.apfp()));
      } else {
        parts.push_back("mg=" + std::to_string(unit.apfp()));
      }
      if (unit.main_gun_apfp() != 0) {
        parts.push_back("main-gun=" + std::to_string(unit.main_gun_apfp()));
      }
      parts.push_back("cr=" + std::to_string(unit.casualty_rating()));
      break;
    }
  }
  // The unit's name comes before its weapons: a name after a weapon is the weapon's.
  if (!name.label.empty()) parts.push_back(Quoted(name.label));
  for (const VvFlag& flag : kVvFlags) {
    if ((unit.*flag.get)() && !(valorous_said && flag.word == "valorous")) {
      parts.push_back(std::string(flag.word));
    }
  }
  if (!unit.carrier().empty()) parts.push_back("on " + unit.carrier());
  for (const vvpb::SupportWeapon& weapon : unit.weapons())
    parts.push_back(VvWeaponNotation(weapon));
  return Join(parts);
}

}  // namespace

namespace {

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

namespace {

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
        const auto value = NationalityOf(Lower(line.rest));
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
      if (auto ok = UnitFromProto(setup.units(i), checks::Indexed("units", i)); !ok) {
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

// ---- public -------------------------------------------------------------------------------------

Result<aslpb::Unit> AslUnitFromNotation(std::string_view id, v1::Seat owner,
                                        std::string_view notation) {
  return AslUnit(id, owner, notation);
}

std::string AslNotationOf(const aslpb::Unit& unit) { return AslNotation(unit); }

Result<vvpb::Unit> VvUnitFromNotation(std::string_view id, v1::Seat owner,
                                      std::string_view notation) {
  return VvUnit(id, owner, notation);
}

std::string VvNotationOf(const vvpb::Unit& unit) { return VvNotation(unit); }

Result<cocpb::Unit> CocUnitFromNotation(std::string_view id, v1::Seat side,
                                        std::string_view notation) {
  return CocUnit(id, side, notation);
}

std::string CocNotationOf(const cocpb::Unit& unit) { return CocNotation(unit); }

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
      lines.push_back(unit.id() + ": " + CocNotation(unit));
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
      lines.push_back(unit.id() + ": " + VvNotation(unit));
  } else {
    const aslpb::SideSetup& part = setup.asl();
    lines.push_back("ruleset: asl");
    if (!part.units().empty()) seat_line(part.units(0).owner());
    if (part.attacker() != v1::SEAT_UNSPECIFIED)
      lines.push_back("attacker: " + SeatWord(part.attacker()));
    if (part.has_location())
      lines.push_back(Trim("location: " + LocationNotation(part.location())));
    for (const aslpb::Unit& unit : part.units())
      lines.push_back(unit.id() + ": " + AslNotation(unit));
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
