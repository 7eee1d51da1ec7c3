#include "client-sdk/cli/rules_command.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "engine/asl/preview.h"
#include "engine/asl/rules.h"
#include "engine/asl/script.h"
#include "engine/core/dice.h"
#include "engine/core/registry.h"
#include "engine/coc/rules.h"
#include "engine/vv/rules.h"
#include "proto/codec/asl.h"
#include "proto/codec/json.h"
#include "proto/codec/coc.h"
#include "proto/codec/vv.h"

namespace melee::cli {
namespace {

namespace asl = engine::asl;
namespace coc = engine::coc;
namespace vv = engine::vv;
namespace v1 = melee::asl::v1;
namespace cocpb = melee::coc::v1;
namespace vvpb = melee::vv::v1;

// Why a command stops early, and the exit code it stops with.
struct Failure {
  int code = kExitUsage;
  std::string message;
};

template <class T>
using Checked = tl::expected<T, Failure>;

tl::unexpected<Failure> Fail(int code, std::string message) {
  return tl::unexpected(Failure{code, std::move(message)});
}

// A situation file the rules refuse (the error names a rule: a Close Combat across a Major
// Obstacle, 17.1) is a rules refusal, exit 1; one that is malformed is a usage error, exit 2.
tl::unexpected<Failure> FailSituation(const std::string& path, const engine::RuleError& error) {
  return Fail(error.rule_ref.empty() ? kExitUsage : kExitRuleError,
              path + ": " + engine::Describe(error));
}

// Dice that return the --dice values in order. Running out is the user's mistake, not a bug (as
// ScriptedDice treats it): each missing die reads 1 and is counted, and the command refuses a
// result that needed one. Not thread-safe.
class ListedDice final : public engine::Dice {
 public:
  explicit ListedDice(std::vector<int> values) : values_(std::move(values)) {}

  size_t size() const { return values_.size(); }
  size_t missing() const { return missing_; }
  size_t unused() const { return values_.size() - next_; }

 protected:
  int NextD6() override {
    if (next_ < values_.size()) return values_[next_++];
    ++missing_;
    return 1;
  }

 private:
  std::vector<int> values_;
  size_t next_ = 0;
  size_t missing_ = 0;
};

// The dice of one command: the --dice list, or fair dice from SplitMix64(--seed).
class CommandDice {
 public:
  // Returns the dice `args` ask for; `listed` tells whether --dice was given.
  static Checked<std::unique_ptr<CommandDice>> Make(const RulesArgs& args, bool listed) {
    auto dice = std::unique_ptr<CommandDice>(new CommandDice(args.seed));
    if (!listed) {
      dice->fair_.emplace(dice->source_);
      return dice;
    }
    std::vector<int> values;
    std::string_view rest = args.dice;
    while (true) {
      const size_t comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      if (item.size() != 1 || item[0] < '1' || item[0] > '6') {
        return Fail(kExitUsage, "--dice: '" + std::string(item.substr(0, 8)) +
                                    "' is not a die; give values 1..6 separated by commas, "
                                    "e.g. --dice 2,2,3,3");
      }
      values.push_back(item[0] - '0');
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    dice->listed_.emplace(std::move(values));
    return dice;
  }

  engine::Dice& dice() {
    if (listed_) return *listed_;
    return *fair_;
  }
  bool listed() const { return listed_.has_value(); }

  // Returns the failure of a command that needed more dice than --dice lists.
  std::optional<Failure> Shortage() const {
    if (!listed_ || listed_->missing() == 0) return std::nullopt;
    return Failure{kExitUsage, "--dice: the script needs more than " +
                                   std::to_string(listed_->size()) + " dice"};
  }

  // Returns a note on --dice values left over, or "".
  std::string UnusedNote() const {
    if (!listed_ || listed_->unused() == 0) return "";
    return "note: the last " + std::to_string(listed_->unused()) + " of the " +
           std::to_string(listed_->size()) + " --dice values were not needed";
  }

 private:
  explicit CommandDice(uint64_t seed) : source_(seed) {}

  engine::SplitMix64 source_;
  std::optional<engine::SourceDice> fair_;
  std::optional<ListedDice> listed_;
};

// Returns nothing when `id` is a ruleset these commands play, else why not.
std::optional<Failure> CheckRuleset(const std::string& id) {
  for (std::string_view known : engine::KnownRulesetIds()) {
    if (known == id) return std::nullopt;
  }
  std::string known_ids;
  for (std::string_view known : engine::KnownRulesetIds()) {
    known_ids += (known_ids.empty() ? "" : ", ") + std::string(known);
  }
  return Failure{kExitUsage, "unknown ruleset '" + id.substr(0, 32) + "' (known: " + known_ids + ")"};
}

// Returns the contents of the situation file at `path`, at most `limit` bytes.
Checked<std::string> ReadSituation(const std::string& path, size_t limit) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return Fail(kExitUsage, "--situation: " + path + " is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail(kExitUsage, "--situation: cannot open " + path);
  std::string json(limit + 1, '\0');
  in.read(json.data(), static_cast<std::streamsize>(json.size()));
  if (in.bad()) return Fail(kExitUsage, "--situation: cannot read " + path);
  json.resize(static_cast<size_t>(in.gcount()));
  return json;
}

// A situation file, read and checked.
struct Loaded {
  v1::CloseCombat message;
  asl::Script script;
};

Checked<Loaded> Load(const std::string& path) {
  auto json = ReadSituation(path, proto::kAslMaxJsonBytes);
  if (!json) return tl::unexpected(json.error());
  auto message = proto::CloseCombatFromJson(*json);
  if (!message) return Fail(kExitUsage, path + ": " + engine::Describe(message.error()));
  auto script = proto::ScriptFromProto(*message);
  if (!script) return FailSituation(path, script.error());
  return Loaded{std::move(*message), std::move(*script)};
}

std::string Join(std::span<const std::string> values, std::string_view separator = ", ") {
  std::string out;
  for (const std::string& value : values) {
    if (!out.empty()) out += separator;
    out += value;
  }
  return out;
}

// "G1 4-6-7 (side_a)": the unit's id, label (or kind) and side.
std::string Label(const asl::Unit& unit) {
  return unit.id + " " + (unit.name.empty() ? std::string(asl::Name(unit.kind)) : unit.name) +
         " (" + std::string(engine::Name(unit.owner)) + ")";
}

// What the CCPh did to `unit`, which started as `initial` (null: created during it).
std::string Fate(const asl::Unit* initial, const asl::Unit& unit) {
  switch (unit.presence) {
    case asl::Presence::kEliminated:
      return "eliminated";
    case asl::Presence::kCaptured:
      return "captured";
    case asl::Presence::kPresent:
    case asl::Presence::kWithdrawn:
      break;
  }
  std::vector<std::string> parts;
  if (initial == nullptr) parts.push_back("created during the CCPh");
  if (initial != nullptr && initial->kind != unit.kind && unit.kind == asl::UnitKind::kHalfSquad) {
    parts.push_back("Reduced to a HS of " + std::to_string(unit.firepower) + " FP");
  }
  if (initial != nullptr && unit.wounds > initial->wounds) parts.push_back("wounded");
  if (initial != nullptr && unit.broken && !initial->broken) parts.push_back("broken");
  if (initial != nullptr && unit.pinned && !initial->pinned) parts.push_back("pinned");
  if (initial != nullptr && unit.vehicle.immobile && !initial->vehicle.immobile) {
    parts.push_back("immobilized");
  }
  if (initial != nullptr && unit.vehicle.malfunctioned != initial->vehicle.malfunctioned) {
    parts.push_back("a weapon malfunctioned");
  }
  if (initial != nullptr && initial->concealed && !unit.concealed) {
    parts.push_back("lost concealment");
  }
  if (unit.presence == asl::Presence::kWithdrawn) parts.push_back("withdrawn from the Location");
  return parts.empty() ? "unharmed" : Join(parts);
}

const asl::Unit* FindUnit(const std::vector<asl::Unit>& units, const std::string& id) {
  for (const asl::Unit& unit : units) {
    if (unit.id == id) return &unit;
  }
  return nullptr;
}

std::string DiceSource(const CommandDice& dice, const RulesArgs& args) {
  return dice.listed() ? "dice: --dice " + args.dice
                       : "dice: SplitMix64 seed " + std::to_string(args.seed) +
                             " (--seed; give --dice to script them)";
}

int Report(std::ostream& err, const Failure& failure) {
  err << "melee: " << failure.message << "\n";
  return failure.code;
}

// `melee rules resolve`: plays the whole CCPh of the file.
int RunResolve(const RulesArgs& args, bool listed, std::ostream& out, std::ostream& err) {
  auto loaded = Load(args.situation);
  if (!loaded) return Report(err, loaded.error());
  auto dice = CommandDice::Make(args, listed);
  if (!dice) return Report(err, dice.error());
  const asl::AslRules rules;
  auto played = asl::Play(rules, loaded->script, (*dice)->dice());
  if (auto shortage = (*dice)->Shortage()) return Report(err, *shortage);
  if (!played) {
    return Report(err, Failure{kExitRuleError, engine::Describe(played.error())});
  }
  if (const std::string note = (*dice)->UnusedNote(); !note.empty()) {
    err << "melee: " << note << "\n";
  }

  const std::vector<asl::Unit>& initial = loaded->script.situation.units;
  if (args.json) {
    v1::Resolution resolution;
    resolution.set_ruleset(std::string(asl::AslRules::kId));
    resolution.set_ruleset_version(std::string(asl::AslRules::kVersion));
    if (!listed) resolution.set_seed(args.seed);
    for (size_t i = 0; i < played->events.size(); ++i) {
      *resolution.add_events() = proto::EventToProto(played->states[i], played->events[i]);
    }
    for (const asl::Unit& unit : played->final_state.units) {
      v1::UnitFate* fate = resolution.add_units();
      *fate->mutable_unit() = proto::UnitToProto(unit);
      fate->set_presence(proto::PresenceToProto(unit.presence));
      fate->set_summary(Fate(FindUnit(initial, unit.id), unit));
    }
    resolution.set_melee(played->final_state.melee);
    for (const std::string& note : played->defaults) resolution.add_defaults(note);
    out << proto::ToJson(resolution, proto::JsonStyle::kPretty);
    return 0;
  }
  out << asl::AslRules::kId << " " << asl::AslRules::kVersion << ", " << DiceSource(**dice, args)
      << "\n";
  for (size_t i = 0; i < played->events.size(); ++i) {
    out << asl::DescribeEvent(played->states[i], played->events[i]) << "\n";
  }
  for (const std::string& note : played->defaults) out << "default: " << note << "\n";
  out << "result:\n";
  for (const asl::Unit& unit : played->final_state.units) {
    out << "  " << Label(unit) << ": " << Fate(FindUnit(initial, unit.id), unit) << "\n";
  }
  out << "  Melee: " << (played->final_state.melee ? "yes [A11.15]" : "no") << "\n";
  return 0;
}

// Returns `p` as "8.33% (1/12)", or right-aligned as " 8.33%  (1/12)" for a table column.
std::string Percent(const v1::Probability& p, bool aligned = false) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, aligned ? "%6.2f%%  " : "%.2f%% ", p.percent());
  return std::string(buffer) + "(" + p.exact() + ")";
}

std::string Drms(const google::protobuf::RepeatedPtrField<v1::Drm>& drms) {
  std::string out;
  for (const v1::Drm& drm : drms) {
    if (!out.empty()) out += ", ";
    out += (drm.value() > 0 ? "+" : "") + std::to_string(drm.value()) + " " + drm.cause() + " [" +
           drm.rule() + "]";
  }
  return out.empty() ? "none" : out;
}


// `melee rules preview`: the exact outcome table of the file's `preview` attack at designation.
int RunPreview(const RulesArgs& args, bool listed, std::ostream& out, std::ostream& err) {
  auto loaded = Load(args.situation);
  if (!loaded) return Report(err, loaded.error());
  auto request = proto::PreviewFromProto(loaded->message);
  if (!request) {
    return Report(err,
                  Failure{kExitUsage, args.situation + ": " + engine::Describe(request.error())});
  }
  if (!*request) {
    return Report(err,
                  Failure{kExitUsage, args.situation + ": no \"preview\" request to preview (see "
                                                       "docs/asl-situation-format.md)"});
  }
  auto dice = CommandDice::Make(args, listed);
  if (!dice) return Report(err, dice.error());

  // The Location at designation: set-up, then each side's announcement, ATTACKER first (an
  // A11.4 Ambush check rolls its drs here).
  const asl::AslRules rules;
  auto state = rules.NewState(loaded->script.options);
  if (!state) return Report(err, Failure{kExitRuleError, engine::Describe(state.error())});
  const asl::Script& script = loaded->script;
  const engine::Seat attacker = script.situation.attacker;
  const engine::Seat defender = engine::Opponent(attacker);
  const std::pair<engine::Seat, asl::Command> commands[] = {
      {attacker, asl::SetUp{script.situation}},
      {attacker, script.announce[attacker == engine::Seat::kSideA ? 0 : 1]},
      {defender, script.announce[defender == engine::Seat::kSideA ? 0 : 1]}};
  v1::OutcomeTable before;
  std::vector<std::string> lines;
  bool rolled = false;
  for (const auto& [seat, command] : commands) {
    auto events = rules.Decide(*state, seat, command, (*dice)->dice());
    if (auto shortage = (*dice)->Shortage()) return Report(err, *shortage);
    if (!events) return Report(err, Failure{kExitRuleError, engine::Describe(events.error())});
    for (const asl::Event& event : *events) {
      *before.add_before() = proto::EventToProto(*state, event);
      lines.push_back(asl::DescribeEvent(*state, event));
      rolled = rolled || !event.rolls.empty();
      rules.Apply(*state, event);
    }
  }
  auto table = asl::Preview(*state, (*request)->seat, (*request)->order);
  if (!table) return Report(err, Failure{kExitRuleError, engine::Describe(table.error())});
  if (const std::string note = (*dice)->UnusedNote(); !note.empty()) {
    err << "melee: " << note << "\n";
  }

  v1::OutcomeTable message = proto::OutcomeTableToProto(*table);
  message.set_seat((*request)->seat == engine::Seat::kSideA ? melee::v1::SEAT_SIDE_A
                                                            : melee::v1::SEAT_SIDE_B);
  *message.mutable_attack() = proto::AttackOrderToProto((*request)->order);
  *message.mutable_before() = std::move(*before.mutable_before());
  if (args.json) {
    out << proto::ToJson(message, proto::JsonStyle::kPretty);
    return 0;
  }
  out << asl::AslRules::kId << " " << asl::AslRules::kVersion;
  if (rolled)
    out << ", " << DiceSource(**dice, args) << " (for the dice rolled before designation)";
  out << "\n";
  for (const std::string& line : lines) out << line << "\n";
  PrintOutcomeTable(message, out);
  return 0;
}

// ---- coc -------------------------------------------------------------------------------------

// A contact file, read and checked.
Checked<coc::Script> LoadContact(const std::string& path) {
  auto json = ReadSituation(path, proto::kCocMaxJsonBytes);
  if (!json) return tl::unexpected(json.error());
  auto message = proto::ContactFromJson(*json);
  if (!message) return Fail(kExitUsage, path + ": " + engine::Describe(message.error()));
  auto script = proto::CocScriptFromProto(*message);
  if (!script) return FailSituation(path, script.error());
  return std::move(*script);
}

// What the contact did to the unit at `index`.
std::string CocFate(const coc::State& end, size_t index) {
  const coc::Unit& unit = end.units[index];
  const coc::Unit& initial = end.situation.units[index];
  if (unit.vehicle) {
    return unit.vehicle_shock == initial.vehicle_shock
               ? "unharmed"
               : std::to_string(unit.vehicle_shock) + " Shock";
  }
  std::vector<std::string> parts;
  const int lost = coc::TeamFigures(initial) - coc::TeamFigures(unit);
  if (lost > 0) parts.push_back(std::to_string(lost) + " figure(s) lost or guarding");
  parts.push_back(std::to_string(coc::TeamFigures(unit)) + " figures, " +
                  std::to_string(coc::Shock(unit)) + " Shock");
  for (const coc::Leader& leader : unit.leaders) {
    if (leader.status != coc::LeaderStatus::kActive) {
      parts.push_back("Leader " + leader.id + " " + std::string(coc::Name(leader.status)));
    }
  }
  if (end.gone[index]) parts.push_back("left play");
  if (unit.broken) parts.push_back("Broken");
  else if (coc::Pinned(unit)) parts.push_back("Pinned");
  return Join(parts);
}

// `melee rules resolve --ruleset coc`: plays the whole contact of the file.
int RunCocResolve(const RulesArgs& args, bool listed, std::ostream& out, std::ostream& err) {
  auto script = LoadContact(args.situation);
  if (!script) return Report(err, script.error());
  auto dice = CommandDice::Make(args, listed);
  if (!dice) return Report(err, dice.error());
  const coc::CocRules rules;
  auto played = coc::Play(rules, *script, (*dice)->dice());
  if (auto shortage = (*dice)->Shortage()) return Report(err, *shortage);
  if (!played) return Report(err, Failure{kExitRuleError, engine::Describe(played.error())});
  if (const std::string note = (*dice)->UnusedNote(); !note.empty()) {
    err << "melee: " << note << "\n";
  }
  const coc::State& end = played->final_state;
  if (args.json) {
    cocpb::Resolution resolution;
    resolution.set_ruleset(std::string(coc::CocRules::kId));
    resolution.set_ruleset_version(std::string(coc::CocRules::kVersion));
    if (!listed) resolution.set_seed(args.seed);
    for (size_t i = 0; i < played->events.size(); ++i) {
      *resolution.add_events() = proto::CocEventToProto(played->states[i], played->events[i]);
    }
    for (size_t i = 0; i < end.units.size(); ++i) {
      *resolution.add_units() = proto::CocViewedUnitToProto(end.units[i], end.gone[i]);
    }
    for (const std::string& note : played->defaults) resolution.add_defaults(note);
    resolution.set_side_a_force_morale(end.force_morale[0]);
    resolution.set_side_b_force_morale(end.force_morale[1]);
    out << proto::ToJson(resolution, proto::JsonStyle::kPretty);
    return 0;
  }
  out << coc::CocRules::kId << " " << coc::CocRules::kVersion << ", " << DiceSource(**dice, args)
      << "\n";
  for (size_t i = 0; i < played->events.size(); ++i) {
    out << coc::DescribeEvent(played->states[i], played->events[i]) << "\n";
  }
  for (const std::string& note : played->defaults) out << "default: " << note << "\n";
  out << "result:\n";
  for (size_t i = 0; i < end.units.size(); ++i) {
    const coc::Unit& unit = end.units[i];
    out << "  " << unit.id << (unit.name.empty() ? "" : " " + unit.name) << " ("
        << engine::Name(unit.side) << "): " << CocFate(end, i) << "\n";
  }
  out << "Force Morale: side_a " << end.force_morale[0] << ", side_b " << end.force_morale[1]
      << "\n";
  return 0;
}

// Returns "40.74% (11/27)".
std::string CocPercent(const cocpb::Probability& p) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f%% ", p.percent());
  return std::string(buffer) + "(" + p.exact() + ")";
}

// Prints the margin distribution of `table` and who scores more hits.
void PrintMargins(const cocpb::PreviewTable& table, std::ostream& out) {
  out << "hits margin (attacker - defender), exact [17.4]:\n";
  for (const cocpb::MarginChance& m : table.margins()) {
    if (m.chance().exact() == "0") continue;
    out << "  " << (m.margin() > 0 ? "+" : "") << m.margin() << ": " << CocPercent(m.chance())
        << "\n";
  }
  out << "attacker scores more hits: " << CocPercent(table.attacker_wins()) << "\n";
  out << "draw: " << CocPercent(table.draw()) << "\n";
  out << "defender scores more hits: " << CocPercent(table.defender_wins()) << "\n";
  out << "(before Shock breaks, Aggressive/Stubborn re-fights and Leader hits; 17.5)\n";
}

}  // namespace

void PrintCocPreview(const engine::coc::Preview& preview, engine::Seat attacker,
                     std::ostream& out) {
  const size_t a = attacker == engine::Seat::kSideA ? 0 : 1;
  for (size_t i : {a, 1 - a}) {
    const engine::Seat seat = i == 0 ? engine::Seat::kSideA : engine::Seat::kSideB;
    out << engine::Name(seat) << (i == a ? " (attacker)" : " (defender)") << ": "
        << preview.pools[i].dice << " Combat Dice [17.3]\n";
    for (const coc::DiceRow& row : preview.pools[i].rows) {
      out << "  " << row.rule << " " << row.what << ": " << row.before << " -> " << row.after
          << "\n";
    }
  }
  if (preview.overwhelmed) {
    out << "17.3.1 Overwhelming Numbers: " << engine::Name(*preview.overwhelmed)
        << " has a quarter of the other's dice or less; no dice are rolled\n";
    return;
  }
  PrintMargins(proto::CocPreviewToProto(preview), out);
}

namespace {

// `melee rules preview --ruleset coc --pools A,D`: the exact margin of two given pools.
int RunCocPoolsPreview(const RulesArgs& args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> parts(1);
  for (char c : args.pools) {
    if (c == ',') {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  int pools[2] = {-1, -1};
  for (size_t i = 0; i < parts.size() && i < 2; ++i) {
    const std::string& part = parts[i];
    int value = -1;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (error == std::errc() && end == part.data() + part.size()) pools[i] = value;
  }
  if (parts.size() != 2 || pools[0] < 0 || pools[1] < 0) {
    return Report(err, Failure{kExitUsage, "--pools: '" + args.pools.substr(0, 32) +
                                               "' is not ATTACKER,DEFENDER (two dice counts)"});
  }
  auto preview = coc::PreviewPools(pools[0], pools[1]);
  if (!preview) return Report(err, Failure{kExitUsage, "--pools: " + preview.error().message});
  const cocpb::PreviewTable table = proto::CocPreviewToProto(*preview);
  if (args.json) {
    out << proto::ToJson(table, proto::JsonStyle::kPretty);
    return 0;
  }
  out << coc::CocRules::kId << " " << coc::CocRules::kVersion << ": " << pools[0]
      << " attacker Combat Dice against " << pools[1] << "\n";
  if (preview->overwhelmed) {
    out << "17.3.1 Overwhelming Numbers: the "
        << (*preview->overwhelmed == engine::Seat::kSideA ? "attacker" : "defender")
        << " has a quarter of the other's dice or less; no dice are rolled\n";
    return 0;
  }
  PrintMargins(table, out);
  return 0;
}

// `melee rules preview --ruleset coc`: the Combat Dice of the file's first round and the exact
// distribution of its hits margin.
int RunCocPreview(const RulesArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.pools.empty()) return RunCocPoolsPreview(args, out, err);
  if (args.situation.empty()) {
    return Report(err, Failure{kExitUsage, "preview --ruleset coc: give --situation FILE or "
                                           "--pools ATTACKER,DEFENDER"});
  }
  auto script = LoadContact(args.situation);
  if (!script) return Report(err, script.error());
  const coc::CocRules rules;
  if (script->situation.engagement != coc::Engagement::kCloseCombat) {
    return Report(err, Failure{kExitUsage, "preview: only a Close Combat has Combat Dice to "
                                           "preview (this file is an " +
                                               std::string(coc::Name(script->situation.engagement)) +
                                               ")"});
  }
  auto state = rules.NewState(script->options);
  if (!state) return Report(err, Failure{kExitRuleError, engine::Describe(state.error())});
  engine::ScriptedDice no_dice({});
  auto events = rules.Decide(*state, script->situation.attacker, coc::SetUp{script->situation},
                             no_dice);
  if (!events) return Report(err, Failure{kExitRuleError, engine::Describe(events.error())});
  for (const coc::Event& event : *events) rules.Apply(*state, event);
  const size_t a = script->situation.attacker == engine::Seat::kSideA ? 0 : 1;
  auto preview = coc::PreviewCombat(*state, script->declarations[a], script->declarations[1 - a]);
  if (!preview) return Report(err, Failure{kExitRuleError, engine::Describe(preview.error())});
  const cocpb::PreviewTable table = proto::CocPreviewToProto(*preview);
  if (args.json) {
    out << proto::ToJson(table, proto::JsonStyle::kPretty);
    return 0;
  }
  out << coc::CocRules::kId << " " << coc::CocRules::kVersion << ": round 1 of the first combat\n";
  PrintCocPreview(*preview, script->situation.attacker, out);
  return 0;
}

// ---- vv --------------------------------------------------------------------------------------

// A close-assault file, read and checked.
struct LoadedAssault {
  vvpb::CloseAssault message;
  vv::Script script;
};

Checked<LoadedAssault> LoadAssault(const std::string& path) {
  auto json = ReadSituation(path, proto::kVvMaxJsonBytes);
  if (!json) return tl::unexpected(json.error());
  auto message = proto::CloseAssaultFromJson(*json);
  if (!message) return Fail(kExitUsage, path + ": " + engine::Describe(message.error()));
  auto script = proto::VvScriptFromProto(*message);
  if (!script) return FailSituation(path, script.error());
  return LoadedAssault{std::move(*message), std::move(*script)};
}

// What the close assault did to the unit at `index`.
std::string VvFate(const vv::State& end, size_t index) {
  const vv::Unit& unit = end.units[index];
  const vv::Unit& initial = end.situation.units[index];
  if (end.eliminated[index]) return "eliminated";
  std::vector<std::string> parts;
  if (initial.kind == vv::UnitKind::kSquad && unit.kind == vv::UnitKind::kHalfSquad) {
    parts.push_back("reduced to a half squad (" + std::to_string(unit.apfp) + " APFP, CR " +
                    std::to_string(unit.casualty_rating) + ")");
  }
  if (unit.pinned && !initial.pinned) parts.push_back("pinned");
  if (unit.immobile && !initial.immobile) parts.push_back("Immobile");
  if (unit.valorous && !initial.valorous) parts.push_back("valorous");
  if (unit.owner == end.situation.attacker && end.in_target[index]) {
    parts.push_back("in " + end.situation.target.name);
  }
  return parts.empty() ? "unharmed" : Join(parts);
}

// `melee rules resolve --ruleset vv`: plays the whole close assault of the file.
int RunVvResolve(const RulesArgs& args, bool listed, std::ostream& out, std::ostream& err) {
  auto loaded = LoadAssault(args.situation);
  if (!loaded) return Report(err, loaded.error());
  auto dice = CommandDice::Make(args, listed);
  if (!dice) return Report(err, dice.error());
  const vv::VvRules rules;
  auto played = vv::Play(rules, loaded->script, (*dice)->dice());
  if (auto shortage = (*dice)->Shortage()) return Report(err, *shortage);
  if (!played) return Report(err, Failure{kExitRuleError, engine::Describe(played.error())});
  if (const std::string note = (*dice)->UnusedNote(); !note.empty()) {
    err << "melee: " << note << "\n";
  }
  const vv::State& end = played->final_state;
  if (args.json) {
    vvpb::Resolution resolution;
    resolution.set_ruleset(std::string(vv::VvRules::kId));
    resolution.set_ruleset_version(std::string(vv::VvRules::kVersion));
    if (!listed) resolution.set_seed(args.seed);
    for (size_t i = 0; i < played->events.size(); ++i) {
      *resolution.add_events() = proto::VvEventToProto(played->states[i], played->events[i]);
    }
    for (size_t i = 0; i < end.units.size(); ++i) {
      vvpb::UnitFate* fate = resolution.add_units();
      *fate->mutable_unit() = proto::VvUnitToProto(end.units[i]);
      fate->set_eliminated(end.eliminated[i]);
      fate->set_in_target(end.in_target[i]);
      fate->set_summary(VvFate(end, i));
    }
    for (const std::string& note : played->defaults) resolution.add_defaults(note);
    out << proto::ToJson(resolution, proto::JsonStyle::kPretty);
    return 0;
  }
  out << vv::VvRules::kId << " " << vv::VvRules::kVersion << " ("
      << vv::Name(end.options.edition) << "), " << DiceSource(**dice, args) << "\n";
  for (size_t i = 0; i < played->events.size(); ++i) {
    out << vv::DescribeEvent(played->states[i], played->events[i]) << "\n";
  }
  for (const std::string& note : played->defaults) out << "default: " << note << "\n";
  out << "result:\n";
  for (size_t i = 0; i < end.units.size(); ++i) {
    const vv::Unit& unit = end.units[i];
    out << "  " << unit.id << " " << (unit.name.empty() ? std::string(vv::Name(unit.kind)) : unit.name)
        << " (" << engine::Name(unit.owner) << "): " << VvFate(end, i) << "\n";
  }
  return 0;
}

// Returns "58.33% (21/36)".
std::string VvPercent(const engine::Rational& p) {
  const vvpb::Probability shown = proto::VvProbabilityToProto(p);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f%% ", shown.percent());
  return std::string(buffer) + "(" + shown.exact() + ")";
}

// `melee rules preview --ruleset vv`: the exact odds of the file's two declarations.
int RunVvPreview(const RulesArgs& args, std::ostream& out, std::ostream& err) {
  auto loaded = LoadAssault(args.situation);
  if (!loaded) return Report(err, loaded.error());
  const vv::VvRules rules;
  const vv::Script& script = loaded->script;
  auto state = rules.NewState(script.options);
  if (!state) return Report(err, Failure{kExitRuleError, engine::Describe(state.error())});
  engine::ScriptedDice no_dice({});
  auto events = rules.Decide(*state, script.situation.attacker, vv::SetUp{script.situation},
                             no_dice);
  if (!events) return Report(err, Failure{kExitRuleError, engine::Describe(events.error())});
  for (const vv::Event& event : *events) rules.Apply(*state, event);
  const engine::Seat attacker = script.situation.attacker;
  const size_t a = attacker == engine::Seat::kSideA ? 0 : 1;
  auto preview = vv::PreviewAssault(*state, script.declarations[a], script.declarations[1 - a]);
  if (!preview) return Report(err, Failure{kExitRuleError, engine::Describe(preview.error())});
  if (args.json) {
    out << proto::ToJson(proto::VvPreviewToProto(*preview), proto::JsonStyle::kPretty);
    return 0;
  }
  out << vv::VvRules::kId << " " << vv::VvRules::kVersion << " ("
      << vv::Name(state->options.edition) << ")\n";
  out << "preview: " << engine::Name(attacker) << " close assaults "
      << script.situation.target.name << "\n";
  if (preview->automatic) {
    out << "15.9: only pinned units defend: the hex is taken with no roll and no Casualty "
           "Points\n";
    return 0;
  }
  out << preview->assault_apfp << " vs " << preview->defence_apfp << " -> "
      << vv::Name(preview->odds) << ", Kill # " << preview->kill_number << " [15.6, 15.3, 12.52]"
      << "; DR modifier " << preview->dr_modifier << "\n";
  out << "assault succeeds: " << VvPercent(preview->success) << "\n";
  out << engine::Name(attacker) << " Casualty Points:\n";
  for (size_t k = 0; k < preview->assaulter_cp.size(); ++k) {
    if (preview->assaulter_cp[k] == engine::Rational(0)) continue;
    out << "  " << k << " CP: " << VvPercent(preview->assaulter_cp[k]) << "\n";
  }
  out << engine::Name(engine::Opponent(attacker)) << " Casualty Points:\n";
  for (size_t k = 0; k < preview->defender_cp.size(); ++k) {
    if (preview->defender_cp[k] == engine::Rational(0)) continue;
    out << "  " << k << " CP: " << VvPercent(preview->defender_cp[k]) << "\n";
  }
  out << "natural 2, Valor check (16.2): " << VvPercent(preview->valor_check) << "\n";
  out << "natural 12, Sniper (17.2): " << VvPercent(preview->sniper) << "\n";
  return 0;
}

}  // namespace

void PrintOutcomeTable(const v1::OutcomeTable& table, std::ostream& out) {
  const v1::AttackOrder& attack = table.attack();
  out << "preview: "
      << engine::Name(table.seat() == melee::v1::SEAT_SIDE_A ? engine::Seat::kSideA
                                                             : engine::Seat::kSideB)
      << " attacks "
      << Join(std::vector<std::string>(attack.targets().begin(), attack.targets().end()))
      << " with "
      << Join(std::vector<std::string>(attack.attackers().begin(), attack.attackers().end()))
      << (attack.director().empty() ? "" : ", directed by " + attack.director())
      << (attack.capture() ? " (capture attempt)" : "")
      << (attack.weapons().empty()
              ? ""
              : " using " + Join(std::vector<std::string>(attack.weapons().begin(),
                                                           attack.weapons().end())))
      << (attack.atmm().empty() ? "" : ", ATMM check by " + attack.atmm()) << "\n";
  if (table.close_defense()) {
    out << "the sN attacks every unarmored unit with 16 FP on the IFT, no DRM [A11.622]; "
           "IFT results ([DEFAULT - NOT FROM RULES] column unless the match's sn_ift replaces it):\n";
    for (const v1::IftOdds& odds : table.ift_results()) {
      char label[24];
      std::snprintf(label, sizeof label, "  %-16s", odds.result().c_str());
      out << label << Percent(odds.probability(), /*aligned=*/true) << "\n";
    }
    out << "then each unit's Task or Morale Check (A10; leaders first), not enumerated\n";
    return;
  }
  if (table.vs_vehicle()) {
    out << "vs a vehicle: no odds, Kill # = CCV " << table.kill_number() << " [A11.5]; DRM "
        << Drms(table.drms()) << (attack.atmm().empty() ? "" : " (without the ATMM -3)") << "\n";
  } else {
    out << table.attack_strength_mixed() << ":" << table.defence_strength_mixed() << " -> "
        << table.column() << ", Kill # " << table.kill_number()
        << (attack.weapons().empty() ? " [A11.11]" : " (FP vs the targets' CCV) [A11.62]")
        << "; DRM " << Drms(table.drms()) << "\n";
  }
  if (!table.director().empty()) out << "directed by " << table.director() << " [A11.141]\n";
  for (const v1::Halving& halving : table.halvings()) {
    out << halving.cause() << (halving.unit().empty() ? "" : " (" + halving.unit() + ")") << " ["
        << halving.rule() << "]\n";
  }
  for (const v1::TargetOdds& odds : table.targets()) {
    const int offset = odds.final_dr_offset();
    out << odds.unit() << " (Final DR = Original DR"
        << (offset == 0 ? "" : (offset > 0 ? " + " : " - ") + std::to_string(std::abs(offset)))
        << "):\n";
    const std::pair<const char*, const v1::Probability*> rows[] = {
        {"eliminated", &odds.eliminated()},
        {"captured", &odds.captured()},
        {"reduced to HS", &odds.reduced()},
        {"wounded", &odds.wounded()},
        {"burning wreck", &odds.burning()},
        {"immobilized", &odds.immobilized()},
        {"no effect", &odds.no_effect()}};
    for (const auto& [name, p] : rows) {
      if (p->exact() == "0" && std::string_view(name) != "eliminated" &&
          std::string_view(name) != "no effect") {
        continue;
      }
      char label[24];
      std::snprintf(label, sizeof label, "  %-16s", name);
      out << label << Percent(*p, /*aligned=*/true) << "\n";
    }
  }
  if (table.vs_vehicle()) {
    if (!attack.atmm().empty()) {
      out << "ATMM check succeeds (C13.7): " << Percent(table.atmm_success()) << "\n";
    }
    out << "Original 2 (A11.501 Unlikely Kill dr included, A11.22 Infiltration): "
        << Percent(table.original_two()) << "\n";
    out << "Original 12, Crew Small Arms (A11.621): " << Percent(table.crew_small_arms()) << "\n";
    return;
  }
  const std::pair<const char*, const v1::Probability*> summary[] = {
      {"every target eliminated or captured", &table.all_eliminated()},
      {"Original 2 (A11.22 Infiltration, A18.2 Leader Creation check)", &table.original_two()},
      {"Original 12 (A11.22 Infiltration by the targets)", &table.original_twelve()},
      {"leader created (A18.2)", &table.leader_created()}};
  for (const auto& [name, p] : summary) out << name << ": " << Percent(*p) << "\n";
}

RulesCommand::RulesCommand(CLI::App& app, RulesArgs& args) : args_(args) {
  rules_ = app.add_subcommand("rules",
                              "Play close-combat situations offline (no server): resolve, preview");
  rules_->require_subcommand(1);
  resolve_ = rules_->add_subcommand(
      "resolve", "Play a situation file's whole CCPh and print every event and each unit's fate");
  preview_ = rules_->add_subcommand(
      "preview", "Print the exact outcome table of the situation file's \"preview\" attack");
  for (CLI::App* command : {resolve_, preview_}) {
    command->add_option("--ruleset", args_.ruleset, "Ruleset id (asl, coc, vv)")
        ->capture_default_str();
    CLI::Option* situation =
        command->add_option("--situation", args_.situation,
                            "Situation file as protobuf JSON: asl, melee.asl.v1.CloseCombat "
                            "(docs/asl-situation-format.md); coc, melee.coc.v1.Contact "
                            "(docs/coc-situation-format.md); vv, melee.vv.v1.CloseAssault "
                            "(docs/vv-situation-format.md)");
    // A coc preview may give the two pools instead of a file.
    if (command == resolve_) situation->required();
    command->add_option("--dice", args_.dice,
                        "Dice to use in order, e.g. 2,2,3,3 (a DR is coloured then white die); "
                        "default: fair dice from --seed");
    command->add_option("--seed", args_.seed, "SplitMix64 seed of the fair dice")
        ->capture_default_str();
    command->add_flag("--json", args_.json, "Print the report as JSON");
  }
  preview_->add_option("--pools", args_.pools,
                       "coc only: ATTACKER,DEFENDER Combat Dice, e.g. 8,13, instead of a file");
}

bool RulesCommand::chosen() const { return rules_->parsed(); }

int RulesCommand::Run(std::ostream& out, std::ostream& err) const {
  if (auto failure = CheckRuleset(args_.ruleset)) return Report(err, *failure);
  const bool coc_ruleset = args_.ruleset == coc::CocRules::kId;
  if (!args_.pools.empty() && !coc_ruleset) {
    return Report(err, Failure{kExitUsage, "--pools: only a coc preview takes dice pools"});
  }
  if (preview_->parsed() && args_.situation.empty() && args_.pools.empty()) {
    return Report(err, Failure{kExitUsage, std::string("--situation is required") +
                                               (coc_ruleset ? " (or --pools A,D)" : "")});
  }
  if (coc_ruleset) {
    if (resolve_->parsed()) return RunCocResolve(args_, resolve_->count("--dice") > 0, out, err);
    return RunCocPreview(args_, out, err);
  }
  if (args_.ruleset == vv::VvRules::kId) {
    if (resolve_->parsed()) return RunVvResolve(args_, resolve_->count("--dice") > 0, out, err);
    return RunVvPreview(args_, out, err);
  }
  if (resolve_->parsed()) {
    return RunResolve(args_, resolve_->count("--dice") > 0, out, err);
  }
  return RunPreview(args_, preview_->count("--dice") > 0, out, err);
}

}  // namespace melee::cli
