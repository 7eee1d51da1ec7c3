#include "client-sdk/cli/match_command.h"
#include "client-sdk/cli/live_seat.h"
#include "client-sdk/cli/render.h"
#include "client-sdk/cli/rules_command.h"

#include <sys/stat.h>

#include <chrono>
#include <cctype>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "client-sdk/match_session.h"
#include "client-sdk/sync_client.h"
#include "melee/asl/v1/asl.pb.h"
#include "melee/coc/v1/coc.pb.h"
#include "melee/v1/match.pb.h"
#include "melee/v1/tournament.pb.h"
#include "engine/asl/preview.h"
#include "engine/asl/rules.h"
#include "engine/coc/rules.h"
#include "engine/core/dice.h"
#include "proto/codec/asl.h"
#include "proto/codec/coc.h"
#include "proto/codec/json.h"
#include "proto/codec/notation.h"
#include "proto/codec/view_preview.h"

namespace melee::cli {

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;
namespace cocpb = melee::coc::v1;
using client::ClientError;
using client::MatchSession;

namespace {

constexpr int kExitRefused = kExitRuleError;  // 1: the server refused
constexpr int kExitUnreachable = 3;
constexpr std::size_t kMaxFileBytes = 1 << 20;

// A failure with its exit code, said for a person.
struct Failure {
  int code;
  std::string message;
};

int Report(std::ostream& err, const Failure& failure) {
  err << "melee: " << failure.message << "\n";
  return failure.code;
}

Failure FromClient(const ClientError& error) {
  if (error.refused) return {kExitRefused, "the server refused: " + error.message};
  return {kExitUnreachable, error.message};
}

// Reads a duration as "90s", "30m", "12h" or "3d" (a bare number: seconds) into `seconds`.
bool ParseDuration(const std::string& flag, const std::string& text, uint32_t& seconds,
                   Failure& failure) {
  static constexpr std::pair<char, uint64_t> kUnits[] = {{'s', 1}, {'m', 60}, {'h', 3600},
                                                         {'d', 86400}};
  uint64_t unit = 1;
  std::string digits = text;
  for (const auto& [suffix, factor] : kUnits) {
    if (!text.empty() && text.back() == suffix) {
      unit = factor;
      digits.pop_back();
    }
  }
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos ||
      std::stoull(digits) * unit > UINT32_MAX) {
    failure = {kExitUsage, flag + " '" + text + "': give a duration such as 90s, 30m, 12h or 3d"};
    return false;
  }
  seconds = static_cast<uint32_t>(std::stoull(digits) * unit);
  return true;
}

// Sets `settings.pace` from the pace options of `melee match create`, when any is given.
bool PaceFromArgs(const MatchArgs& args, v1::MatchSettings& settings, Failure& failure) {
  const bool paced = !args.pace.empty() || !args.step_time.empty() || !args.choice_time.empty() ||
                     !args.bank.empty() || args.pace_vacation_days != 0 ||
                     !args.on_expiry.empty() || !args.reminders.empty();
  if (!paced) return true;
  v1::Pace& pace = *settings.mutable_pace();
  pace.set_preset(args.pace);
  uint32_t seconds = 0;
  for (const auto& [flag, text, set] :
       {std::tuple{"--step-time", &args.step_time, &v1::Pace::set_declaration_seconds},
        std::tuple{"--choice-time", &args.choice_time, &v1::Pace::set_choice_seconds},
        std::tuple{"--bank", &args.bank, &v1::Pace::set_bank_seconds}}) {
    if (text->empty()) continue;
    if (!ParseDuration(flag, *text, seconds, failure)) return false;
    (pace.*set)(seconds);
  }
  pace.set_vacation_days(args.pace_vacation_days);
  if (!args.on_expiry.empty()) {
    pace.set_on_expiry(args.on_expiry == "loss" ? v1::ON_EXPIRY_LOSS : v1::ON_EXPIRY_DEFAULT);
  }
  for (const std::string& text : args.reminders) {
    if (!ParseDuration("--reminder", text, seconds, failure)) return false;
    pace.add_reminder_seconds(seconds);
  }
  return true;
}

// Reads a whole (small) file.
bool ReadFile(const std::string& path, std::string& contents, std::string& problem) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    problem = path + " is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    problem = "cannot open " + path;
    return false;
  }
  contents.assign(kMaxFileBytes + 1, '\0');
  in.read(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (in.bad()) {
    problem = "cannot read " + path;
    return false;
  }
  contents.resize(static_cast<std::size_t>(in.gcount()));
  if (contents.size() > kMaxFileBytes) {
    problem = path + " is larger than 1 MiB";
    return false;
  }
  return true;
}

// Reads a JSON file into `message` (strict: unknown fields are refused).
bool ReadJsonFile(const std::string& path, google::protobuf::Message& message,
                  Failure& failure) {
  std::string contents;
  std::string problem;
  if (!ReadFile(path, contents, problem)) {
    failure = {kExitUsage, problem};
    return false;
  }
  if (std::string wrong = proto::FromJson(contents, message); !wrong.empty()) {
    failure = {kExitUsage, path + ": not a valid " + message.GetTypeName() + ": " + wrong};
    return false;
  }
  return true;
}

// The ruleset a seat file plays (files written before it was recorded play asl).
std::string RulesetOf(const v1::SeatLink& link) {
  return link.ruleset().empty() ? "asl" : link.ruleset();
}

// Reads a side's set-up for `seat` from `path`: a roster in counter notation, the ruleset's
// SideSetup in JSON, or a whole situation file of `melee rules` (docs/counter-notation.md).
bool ReadSetupFile(const std::string& path, const std::string& ruleset, v1::Seat seat,
                   v1::SubmitSetup& setup, Failure& failure) {
  std::string contents;
  std::string problem;
  if (!ReadFile(path, contents, problem)) {
    failure = {kExitUsage, problem};
    return false;
  }
  auto read = proto::ReadSideSetup(ruleset, contents, seat, path);
  if (!read) {
    failure = {kExitUsage, read.error().message};
    return false;
  }
  setup = std::move(*read);
  return true;
}

// The set-up entered with --unit, --location, --attacker, ... : each option one roster line,
// read as a roster; an error names the option it comes from.
bool SetupFromOptions(const MatchArgs& args, const std::string& ruleset, v1::Seat seat,
                      v1::SubmitSetup& setup, Failure& failure) {
  struct Line {
    std::string shown;  // the option as given, e.g. "--unit 'G1: 4-6-7'"
    std::string line;   // its roster line
  };
  std::vector<Line> lines;
  const std::pair<const char*, const std::string*> named[] = {
      {"location", &args.location},         {"attacker", &args.attacker},
      {"force-morale", &args.force_morale}, {"target", &args.target},
      {"source", &args.source_hex}};
  for (const auto& [key, value] : named) {
    if (!value->empty()) {
      lines.push_back({"--" + std::string(key) + " '" + *value + "'", key + (": " + *value)});
    }
  }
  for (const std::string& fact : args.facts) lines.push_back({"--fact '" + fact + "'", fact});
  for (const std::string& unit : args.units) lines.push_back({"--unit '" + unit + "'", unit});
  std::string roster;
  for (const Line& each : lines) {
    if (each.line.find('\n') != std::string::npos) {
      failure = {kExitUsage, each.shown + ": one line only"};
      return false;
    }
    roster += each.line + "\n";
  }
  const std::string source = "command line";
  auto read = proto::SetupFromRoster(ruleset, roster, seat, source);
  if (!read) {
    // "command line:3: ..." -> "--unit 'G1: 4-6': ...".
    std::string message = read.error().message;
    size_t line = 0;
    if (message.rfind(source + ":", 0) == 0) {
      size_t at = source.size() + 1;
      while (at < message.size() && std::isdigit(static_cast<unsigned char>(message[at]))) {
        line = line * 10 + static_cast<size_t>(message[at++] - '0');
      }
      if (line >= 1 && line <= lines.size() && message.compare(at, 2, ": ") == 0) {
        message = lines[line - 1].shown + message.substr(at);
      } else if (message.compare(source.size(), 2, ": ") == 0) {
        message = "--unit" + message.substr(source.size());
      }
    }
    failure = {kExitUsage, message};
    return false;
  }
  setup = std::move(*read);
  return true;
}

// Writes a seat file readable by its owner only (it holds a secret token); replaces atomically.
bool WriteSeatFile(const std::string& path, const v1::SeatLink& link, Failure& failure) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) {
      failure = {kExitUsage, "cannot write " + temporary};
      return false;
    }
    chmod(temporary.c_str(), S_IRUSR | S_IWUSR);
    out << proto::ToJson(link, proto::JsonStyle::kPretty);
    if (!out.flush()) {
      failure = {kExitUsage, "cannot write " + temporary};
      return false;
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    failure = {kExitUsage, "cannot write " + path + ": " + error.message()};
    return false;
  }
  return true;
}

bool ReadSeatFile(const std::string& path, v1::SeatLink& link, Failure& failure) {
  if (!ReadJsonFile(path, link, failure)) return false;
  if (link.server().empty() || link.match_id().empty() || link.token().empty()) {
    failure = {kExitUsage, path + ": a seat file needs server, match_id and token"};
    return false;
  }
  return true;
}

}  // namespace

bool ReadSeatLink(const std::string& path, v1::SeatLink& link, std::string& problem) {
  Failure failure{0, ""};
  if (ReadSeatFile(path, link, failure)) return true;
  problem = failure.message;
  return false;
}

namespace {


// The server's refusal, led by the rule it names.
std::string Refusal(const v1::Error& error) {
  if (error.rule_ref().empty() || error.message().find(error.rule_ref()) != std::string::npos) {
    return error.message();
  }
  return error.rule_ref() + ": " + error.message();
}

// Joins the match of the seat file with the events after its mark.
client::ClientResult<std::unique_ptr<MatchSession>> JoinSeat(const v1::SeatLink& link,
                                                              bool from_start,
                                                              const std::string& ca_file) {
  client::JoinOptions options;
  options.after_seq = from_start ? 0 : link.last_seq();
  options.spectate = link.seat() == v1::SEAT_DIRECTOR || link.seat() == v1::SEAT_SPECTATOR;
  options.tls.ca_file = ca_file;
  return MatchSession::Join(link.server(), link.match_id(), link.token(), options);
}

// Prints the events `session` received from index `from` on.
void PrintEvents(std::ostream& out, const MatchSession& session, std::size_t from) {
  for (std::size_t i = from; i < session.events().size(); ++i) PrintEvent(out, session.events()[i]);
}

// Moves the seat file's mark to `seq`, the last event shown.
int SaveSeq(const std::string& path, v1::SeatLink link, uint64_t seq, std::ostream& err,
            int code) {
  if (seq <= link.last_seq()) return code;
  link.set_last_seq(seq);
  Failure failure;
  if (!WriteSeatFile(path, link, failure)) return Report(err, failure);
  return code;
}

// Moves the seat file's mark to what the session has shown.
int SaveMark(const std::string& path, const v1::SeatLink& link, const MatchSession& session,
             std::ostream& err, int code) {
  return SaveSeq(path, link, session.last_seq(), err, code);
}

std::vector<std::string> SplitList(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& value : values) {
    std::stringstream stream(value);
    std::string item;
    while (std::getline(stream, item, ',')) {
      if (!item.empty()) out.push_back(item);
    }
  }
  return out;
}

// The words of a line, split at spaces.
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream stream(line);
  std::string word;
  while (stream >> word) words.push_back(word);
  return words;
}

}  // namespace

MatchCommands::MatchCommands(CLI::App& app, MatchArgs& args) : args_(args) {
  match_ = app.add_subcommand("match", "Create, join and follow matches on a server");
  match_->require_subcommand(1);

  create_ = match_->add_subcommand(
      "create", "Create a match and write one seat file per seat into --out DIR");
  create_->add_option("--out", args_.out, "Directory for the seat files (created if missing)")
      ->required();
  create_->add_option("--title", args_.title, "A title shown to every seat");
  create_->add_option("--ruleset", args_.ruleset, "asl, coc or vv")->capture_default_str();
  create_->add_option("--variant", args_.variant, "The ruleset's variant (vv: board or pc)");
  create_->add_option("--declaration-order", args_.declaration_order,
                      "sealed: both declarations revealed together; attacker_first: A11.12 as "
                      "written")
      ->check(CLI::IsMember({"sealed", "attacker_first"}))
      ->capture_default_str();
  create_->add_option("--option", args_.options,
                      "A ruleset option KEY=VALUE, repeatable (README, Rules coverage: e.g. "
                      "asl's melee_withdrawal=none, the SSR 'no voluntary Withdrawal from Melee'; "
                      "coc's leader_hit_effects, vv's grenades_per_assault_max)");
  create_->add_option("--choice-deadline", args_.choice_deadline_seconds,
                      "Seconds a seat has to answer a choice (0: the server's default)");
  create_->add_option("--tournament", args_.tournament_file,
                      "Create the match in a tournament: its director file (from `melee "
                      "tournament create`), whose token then opens this match too")
      ->check(CLI::ExistingFile);
  create_->add_option("--tournament-id", args_.tournament_id,
                      "A tournament label only (no tournament on the server needed)")
      ->excludes("--tournament");
  create_->add_option("--name-a", args_.name_a, "Side A's player, as every report names it");
  create_->add_option("--name-b", args_.name_b, "Side B's player");
  create_->add_option("--declaration-deadline", args_.declaration_deadline_seconds,
                      "Seconds a seat has for each announcement and declaration (0: the "
                      "server's default, usually none)");
  create_->add_option("--pace", args_.pace,
                      "A correspondence clock (docs/clocks.md): live, daily or weekly; the "
                      "options below override the preset's values")
      ->check(CLI::IsMember({"live", "daily", "weekly"}));
  create_->add_option("--step-time", args_.step_time,
                      "With a pace: the time for each announcement and declaration, e.g. 1d");
  create_->add_option("--choice-time", args_.choice_time,
                      "With a pace: the time for each choice, e.g. 12h");
  create_->add_option("--bank", args_.bank,
                      "With a pace: each seat's time bank, drawn on past a step's time, e.g. 2d");
  create_->add_option("--vacation-days", args_.pace_vacation_days,
                      "With a pace: each seat's vacation days");
  create_->add_option("--on-expiry", args_.on_expiry,
                      "With a pace: when a seat's time runs out, take the rules default or the "
                      "seat loses the match")
      ->check(CLI::IsMember({"default", "loss"}));
  create_->add_option("--reminder", args_.reminders,
                      "With a pace: tell the seat this long before its time runs out, "
                      "repeatable, e.g. --reminder 24h --reminder 1h");

  join_ = match_->add_subcommand(
      "join", "Check a seat token (from a link or an email) and write it into a seat file");
  join_->add_option("--match", args_.match_id, "The match id")->required();
  join_->add_option("--token", args_.token, "The seat token (or spectator key)")->required();
  join_->add_flag("--spectate", args_.spectate,
                  "The token is the spectator key or the director token");
  join_->add_option("--out", args_.out, "The seat file to write")->required();

  status_ = match_->add_subcommand(
      "status", "Print what happened since this seat last looked, and what the match waits for");
  status_->add_option("--seat", args_.seat_file, "The seat file")->required();
  status_->add_flag("--all", args_.all, "Print every event from the start");

  watch_ = match_->add_subcommand("watch", "Follow a match live, printing each event");
  watch_->add_option("--seat", args_.seat_file, "The seat file")->required();
  watch_->add_flag("--until-ended", args_.until_ended, "Stop when the close combat is over");
  watch_->add_option("--idle-timeout", args_.idle_timeout_seconds,
                     "Stop after this many seconds without an event (0: never)");

  submit_ = app.add_subcommand(
      "submit", "One action for your seat (play by email): enter units, confirm, announce, "
                "declare, order Locations or flag an event");
  submit_->add_option("--seat", args_.seat_file, "The seat file")->required();
  submit_->add_option("--setup", args_.setup_file,
                      "Enter your units: a roster in counter notation (docs/counter-notation.md: "
                      "'G1: 4-6-7' a line), the ruleset's SideSetup in JSON (melee.asl.v1, "
                      "melee.coc.v1 or melee.vv.v1), or a whole situation file of `melee rules` "
                      "(your side's units and the shared facts)");
  submit_->add_option("--unit", args_.units,
                      "Enter a unit on the command line, in counter notation, repeatable: "
                      "'G1: 4-6-7 german', 'L1: 8-1 leader on G1' (coc: 's1: section: team 5 "
                      "lmg, team 4; leader'; vv: 'G1: 4-6-5 squad')");
  submit_->add_option("--location", args_.location,
                      "With --unit (asl): the Location, e.g. 'G3 woods-or-building'");
  submit_->add_option("--attacker", args_.attacker,
                      "With --unit: the ATTACKER (coc: the active player; vv: the assaulting "
                      "side), side_a or side_b");
  submit_->add_option("--force-morale", args_.force_morale,
                      "With --unit (coc): your side's Force Morale, 1..11");
  submit_->add_option("--target", args_.target,
                      "With --unit (vv): the hex assaulted, e.g. 'C1 terrain=3'");
  submit_->add_option("--source", args_.source_hex,
                      "With --unit (vv): the hex the assault comes from");
  submit_->add_option("--fact", args_.facts,
                      "With --unit: any other roster line 'KEY: VALUE', repeatable (asl "
                      "nationality; coc obstacle, position, cover, engagement; vv uphill, "
                      "grenades, satchel-charges, satchel-apfp)");
  submit_->add_flag("--confirm", args_.confirm, "Confirm the set-up as both sides entered it");
  submit_->add_option("--update", args_.updates,
                      "Report what happened to your units outside CC, one update each "
                      "(repeatable, all or none): 'G1 move H4', 'G1 break', 'G1 rally', "
                      "'G1 reduce', 'G1 conceal A12.122', 'G5 enter H4 4-6-7'; a note after "
                      "';' (docs/forces.md)");
  announce_ = submit_->add_option("--announce", args_.announce_file,
                                  "Announce (A11.2, A11.14): a JSON file of melee.asl.v1.Announce; "
                                  "with no file, announce nothing");
  announce_->expected(0, 1);
  submit_->add_option("--attack", args_.attacks,
                      "asl: seal your declaration in words, one attack each (repeatable): "
                      "'G1 L1 > R1 R2' (attackers > targets); 'none' declares no attack");
  submit_->add_option("--declaration", args_.declaration_file,
                      "Seal your declaration: a JSON file of melee.asl.v1.Seal (vv: "
                      "melee.vv.v1.Declaration, a declare or your Casualty Point allocation; "
                      "coc: melee.coc.v1.Declaration, a declare or your odd-hit placement)");
  submit_->add_option("--order", args_.order,
                      "A11.12: the ATTACKER's order of this CCPh's Locations, e.g. G3,H4")
      ->delimiter(',');
  submit_->add_option("--flag", args_.flag_seq, "Flag event SEQ for the director (with --comment)");
  submit_->add_option("--comment", args_.comment, "The comment of --flag");

  choose_ = app.add_subcommand("choose", "Answer a choice the rules give your seat");
  choose_->add_option("--seat", args_.seat_file, "The seat file")->required();
  choose_->add_option("--choice", args_.choice_id, "The choice id (from status)")->required();
  choose_->add_option("--select", args_.selected, "The unit ids you select, e.g. G1,G2")
      ->delimiter(',');

  vacation_ = app.add_subcommand(
      "vacation", "Take DAYS of your seat's vacation days now: your clock stops and your "
                  "deadlines move (docs/clocks.md); 0 comes back early");
  vacation_->add_option("--seat", args_.seat_file, "The seat file")->required();
  vacation_->add_option("days", args_.vacation_days, "Whole days (0: end a vacation now)")
      ->required();

  play_ = app.add_subcommand(
      "play", "An interactive session for one seat: see the Location, declare attacks with their "
              "outcome preview, seal, answer choices, watch every roll (type help)");
  play_->add_option("--seat", args_.seat_file, "The seat file")->required();
}

bool MatchCommands::chosen() const {
  return *match_ || *submit_ || *choose_ || *vacation_ || *play_;
}

int MatchCommands::Run(std::ostream& out, std::ostream& err) const {
  if (*play_) return Play(std::cin, out, err);
  Failure failure{0, ""};
  if (*create_) {
    std::error_code error;
    std::filesystem::create_directories(args_.out, error);
    if (error) return Report(err, {kExitUsage, "cannot create " + args_.out + ": " + error.message()});
    for (const char* name : {"side_a.seat", "side_b.seat", "director.seat", "spectator.seat"}) {
      if (std::filesystem::exists(std::filesystem::path(args_.out) / name)) {
        return Report(err, {kExitUsage, (std::filesystem::path(args_.out) / name).string() +
                                            " exists; choose another --out"});
      }
    }
    auto connection = client::SyncClient::Connect(args_.server, proto::FrameKind::kBinary,
                                                  client::SyncClient::kDefaultTimeout,
                                                  {.ca_file = args_.ca_file, .verify_peer = true});
    if (!connection) return Report(err, FromClient(connection.error()));
    v1::ClientMessage create;
    v1::MatchSettings& settings = *create.mutable_create_match()->mutable_settings();
    settings.set_ruleset(args_.ruleset);
    settings.set_variant(args_.variant);
    settings.set_title(args_.title);
    settings.set_declaration_order(args_.declaration_order == "attacker_first"
                                       ? v1::DECLARATION_ORDER_ATTACKER_FIRST
                                       : v1::DECLARATION_ORDER_SEALED);
    settings.set_choice_deadline_seconds(args_.choice_deadline_seconds);
    settings.set_declaration_deadline_seconds(args_.declaration_deadline_seconds);
    settings.set_side_a_name(args_.name_a);
    settings.set_side_b_name(args_.name_b);
    settings.set_tournament_id(args_.tournament_id);
    if (!args_.tournament_file.empty()) {
      v1::TournamentLink tournament;
      if (!ReadJsonFile(args_.tournament_file, tournament, failure)) return Report(err, failure);
      if (tournament.tournament_id().empty() || tournament.token().empty()) {
        return Report(err, {kExitUsage, args_.tournament_file +
                                            ": a director file needs tournament_id and token"});
      }
      settings.set_tournament_id(tournament.tournament_id());
      create.mutable_create_match()->set_tournament_token(tournament.token());
    }
    if (!PaceFromArgs(args_, settings, failure)) return Report(err, failure);
    for (const std::string& option : args_.options) {
      const size_t equals = option.find('=');
      if (equals == std::string::npos || equals == 0) {
        return Report(err, {kExitUsage, "--option " + option + ": give KEY=VALUE"});
      }
      (*settings.mutable_options())[option.substr(0, equals)] = option.substr(equals + 1);
    }
    auto answer = (*connection)->Call(create);
    if (!answer) return Report(err, FromClient(answer.error()));
    if (answer->has_error()) {
      return Report(err, {kExitRefused, "the server refused: " + answer->error().message()});
    }
    const v1::MatchCreated& created = answer->match_created();
    out << "Created match " << created.match_id() << " (" << args_.ruleset << ") on "
        << args_.server << "\n";
    for (const auto& [name, seat, token, who] :
         {std::tuple{"side_a.seat", v1::SEAT_SIDE_A, created.side_a_token(), "side A's player"},
          std::tuple{"side_b.seat", v1::SEAT_SIDE_B, created.side_b_token(), "side B's player"},
          std::tuple{"director.seat", v1::SEAT_DIRECTOR, created.director_token(),
                     "the tournament director (sees everything)"},
          std::tuple{"spectator.seat", v1::SEAT_SPECTATOR, created.spectator_key(),
                     "anyone who may watch"}}) {
      v1::SeatLink link;
      link.set_server(args_.server);
      link.set_match_id(created.match_id());
      link.set_seat(seat);
      link.set_token(token);
      link.set_title(args_.title);
      link.set_ruleset(args_.ruleset);
      const std::string path = (std::filesystem::path(args_.out) / name).string();
      if (!WriteSeatFile(path, link, failure)) return Report(err, failure);
      out << "  " << path << "  for " << who << "\n";
    }
    out << "A seat file holds its seat's secret token: give each one only to its holder.\n";
    return EXIT_SUCCESS;
  }

  if (*join_) {
    client::JoinOptions options;
    options.spectate = args_.spectate;
    options.tls.ca_file = args_.ca_file;
    auto session = MatchSession::Join(args_.server, args_.match_id, args_.token, options);
    if (!session) return Report(err, FromClient(session.error()));
    v1::SeatLink link;
    link.set_server(args_.server);
    link.set_match_id(args_.match_id);
    link.set_seat((*session)->seat());
    link.set_token(args_.token);
    link.set_title((*session)->view().settings().title());
    link.set_ruleset((*session)->view().settings().ruleset());
    if (!WriteSeatFile(args_.out, link, failure)) return Report(err, failure);
    out << "Joined match " << args_.match_id << " as " << SeatName((*session)->seat())
        << "; seat file " << args_.out << "\n";
    PrintView(out, (*session)->view());
    return EXIT_SUCCESS;
  }

  v1::SeatLink link;
  if (!ReadSeatFile(args_.seat_file, link, failure)) return Report(err, failure);

  if (*status_ || *watch_) {
    auto session = JoinSeat(link, args_.all, args_.ca_file);
    if (!session) return Report(err, FromClient(session.error()));
    MatchSession& match = **session;
    if (!match.events().empty()) {
      out << (args_.all ? "Every event:\n" : "Since you last looked:\n");
      PrintEvents(out, match, 0);
    } else {
      out << "Nothing new since you last looked (event #" << match.last_seq() << ").\n";
    }
    PrintView(out, match.view());
    if (*watch_) {
      out.flush();
      std::size_t shown = match.events().size();
      // A close combat is over when it ends, or when its Melee goes on into the next CCPh.
      const uint32_t ccph = match.view().ccph();
      const auto over = [&] {
        return match.view().stage() == v1::STAGE_ENDED || match.view().ccph() != ccph;
      };
      while (!(args_.until_ended && over())) {
        const auto wait = args_.idle_timeout_seconds != 0
                              ? std::chrono::milliseconds(args_.idle_timeout_seconds * 1000LL)
                              : std::chrono::milliseconds(3'600'000);
        auto got = match.WaitForEvent(wait);
        if (!got) {
          (void)SaveMark(args_.seat_file, link, match, err, 0);
          return Report(err, FromClient(got.error()));
        }
        if (!*got) {
          if (args_.idle_timeout_seconds != 0) break;
          continue;
        }
        PrintEvents(out, match, shown);
        shown = match.events().size();
        if (over() || !match.view().waiting_for().empty()) {
          PrintView(out, match.view());
        }
        out.flush();
      }
    }
    return SaveMark(args_.seat_file, link, match, err, EXIT_SUCCESS);
  }

  // submit / choose / vacation: exactly one action.
  v1::ClientMessage command;
  if (*vacation_) {
    command.mutable_take_vacation()->set_days(args_.vacation_days);
  } else if (*submit_) {
    const bool from_options = !args_.units.empty() || !args_.location.empty() ||
                              !args_.attacker.empty() || !args_.force_morale.empty() ||
                              !args_.target.empty() || !args_.source_hex.empty() ||
                              !args_.facts.empty();
    if (from_options && !args_.setup_file.empty()) {
      return Report(err, {kExitUsage, "submit: give --setup FILE or --unit lines, not both"});
    }
    if (from_options && args_.units.empty()) {
      return Report(err, {kExitUsage, "submit: --location, --attacker, --force-morale, --target, "
                                      "--source and --fact go with --unit"});
    }
    const int actions = (!args_.setup_file.empty() || from_options ? 1 : 0) +
                        (args_.confirm ? 1 : 0) +
                        (announce_->count() > 0 ? 1 : 0) +
                        (!args_.declaration_file.empty() || !args_.attacks.empty() ? 1 : 0) +
                        (!args_.order.empty() ? 1 : 0) +
                        (args_.flag_seq != 0 ? 1 : 0) + (!args_.updates.empty() ? 1 : 0);
    if (actions != 1) {
      return Report(err, {kExitUsage, "submit: give exactly one of --setup (or --unit), "
                                      "--confirm, --announce, --declaration (or --attack), "
                                      "--order, --flag, --update"});
    }
    const bool vv = link.ruleset() == "vv";
    const bool coc = link.ruleset() == "coc";
    if (!args_.setup_file.empty() || from_options) {
      const bool read =
          from_options
              ? SetupFromOptions(args_, RulesetOf(link), link.seat(),
                                 *command.mutable_submit_setup(), failure)
              : ReadSetupFile(args_.setup_file, RulesetOf(link), link.seat(),
                              *command.mutable_submit_setup(), failure);
      if (!read) return Report(err, failure);
    } else if (args_.confirm) {
      command.mutable_confirm_setup();
    } else if (!args_.updates.empty()) {
      for (const std::string& text : args_.updates) {
        auto update = proto::UnitUpdateFromText(RulesetOf(link), link.seat(), text);
        if (!update) {
          return Report(err, {kExitUsage, "--update '" + text + "': " +
                                              engine::Describe(update.error())});
        }
        *command.mutable_update_units()->add_updates() = std::move(*update);
      }
    } else if (announce_->count() > 0) {
      aslpb::Announce& announce = *command.mutable_announce()->mutable_asl();
      if (!args_.announce_file.empty() && !args_.announce_file.front().empty() &&
          !ReadJsonFile(args_.announce_file.front(), announce, failure)) {
        return Report(err, failure);
      }
    } else if (!args_.attacks.empty()) {
      if (vv || coc) {
        return Report(err, {kExitUsage, "--attack: asl declarations; in a " + link.ruleset() +
                                            " match seal with --declaration FILE"});
      }
      aslpb::Seal& seal =
          *command.mutable_seal_declaration()->mutable_declaration()->mutable_asl();
      for (const std::string& text : args_.attacks) {
        if (text == "none" && args_.attacks.size() == 1) break;
        aslpb::AttackOrder& order = *seal.add_attacks();
        bool targets = false;
        for (const std::string& word : Words(text)) {
          if (word == ">") {
            targets = true;
          } else {
            *(targets ? order.add_targets() : order.add_attackers()) = word;
          }
        }
        if (!targets || order.attackers().empty() || order.targets().empty()) {
          return Report(err, {kExitUsage, "--attack '" + text +
                                              "': expected 'ATTACKERS > TARGETS', e.g. "
                                              "'G1 L1 > R1', or 'none'"});
        }
      }
    } else if (!args_.declaration_file.empty()) {
      v1::Declaration& declaration = *command.mutable_seal_declaration()->mutable_declaration();
      const bool read =
          vv    ? ReadJsonFile(args_.declaration_file, *declaration.mutable_vv(), failure)
          : coc ? ReadJsonFile(args_.declaration_file, *declaration.mutable_coc(), failure)
                : ReadJsonFile(args_.declaration_file, *declaration.mutable_asl(), failure);
      if (!read) return Report(err, failure);
    } else if (!args_.order.empty()) {
      for (const std::string& name : SplitList(args_.order)) {
        command.mutable_order_locations()->add_locations(name);
      }
    } else {
      if (args_.comment.empty()) return Report(err, {kExitUsage, "--flag needs --comment"});
      command.mutable_flag_for_director()->set_seq(args_.flag_seq);
      command.mutable_flag_for_director()->set_comment(args_.comment);
    }
  } else {
    command.mutable_make_choice()->set_choice_id(args_.choice_id);
    for (const std::string& id : SplitList(args_.selected)) {
      command.mutable_make_choice()->add_selected(id);
    }
  }

  auto session = JoinSeat(link, false, args_.ca_file);
  if (!session) return Report(err, FromClient(session.error()));
  MatchSession& match = **session;
  if (!match.events().empty()) {
    out << "Since you last looked:\n";
    PrintEvents(out, match, 0);
  }
  const std::size_t before = match.events().size();
  auto answer = match.Act(command);
  if (!answer) {
    (void)SaveMark(args_.seat_file, link, match, err, 0);
    return Report(err, FromClient(answer.error()));
  }
  if (answer->has_error()) {
    const std::string message = Refusal(answer->error());
    (void)SaveMark(args_.seat_file, link, match, err, 0);
    return Report(err, {kExitRefused, "refused: " + message});
  }
  out << "Done (event #" << answer->ack().seq() << ")";
  if (!answer->ack().receipt().empty()) {
    out << "; receipt " << Hex(answer->ack().receipt()) << " (SHA-256 of what you sealed)";
  }
  out << ".\n";
  if (match.events().size() > before) {
    out << "What happened:\n";
    PrintEvents(out, match, before);
  }
  PrintView(out, match.view());
  return SaveMark(args_.seat_file, link, match, err, EXIT_SUCCESS);
}

// ---- melee play ------------------------------------------------------------------------------

namespace {

constexpr const char* kPlayHelp =
    "  look                     the Location and the units as your seat sees them\n"
    "  wait [SECONDS]           wait for the other side (default 600 s)\n"
    "  setup FILE               enter your units: a roster in counter notation\n"
    "                           (docs/counter-notation.md), the ruleset's SideSetup in\n"
    "                           JSON, or a situation file of melee rules (your units)\n"
    "  confirm                  confirm the set-up\n"
    "  update G1 move H4, G2 break   report what happened to your units outside CC (all or\n"
    "                           none): move, break, rally, pin, unpin, conceal RULE, reveal,\n"
    "                           reduce, eliminate, cx, uncx, enter LOC COUNTER; '; note'\n"
    "  order G3 H4 ...          A11.12: the ATTACKER's order of this CCPh's Locations\n"
    "  announce [FILE]          announce (A11.2, A11.14); no file: nothing\n"
    "  attack G1 [L1] > R1 [R2] add an attack to your declaration and show its odds\n"
    "  attack G1 L1 > T1 atmm G1  vs a vehicle (A11.5), with an ATMM check (C13.7)\n"
    "  attack T1 with cmg > R1   a vehicle's weapons (cmg, rmg, aamg; A11.62); with sn: the\n"
    "                           Close Defense Weapon System (A11.622). With a vehicle in the\n"
    "                           Location the sides alternate one attack each (A11.31)\n"
    "  draft | clear            show | empty your declaration\n"
    "  seal                     asl: seal your declaration (no attack if empty)\n"
    "  seal FILE                coc, vv: seal a JSON file of the ruleset's Declaration (a\n"
    "                           declare; then a coc placement or a vv allocation)\n"
    "  odds                     coc: your first round's Combat Dice and the exact hits margin\n"
    "  choose ID [G1 ...]       answer a choice (no unit: decline)\n"
    "  quit                     leave (the match goes on; play again to come back)\n";

// `odds` in a coc match: the first round's Combat Dice of the contact as set up and the exact
// margin of its hits, with the attacker fighting and the defender's default choices (its Units
// able to give Supporting Fire give it). Everything on a CoC table is in plain sight, so this is
// what the server will compute, up to the choices not yet revealed.
void PrintCocOdds(const v1::MatchView& view, std::ostream& out) {
  auto round = proto::CocFirstRoundFromView(view);
  if (!round) {
    out << "odds: " << engine::Describe(round.error()) << "\n";
    return;
  }
  out << "(the first round, the attacker fighting with all its Units together, the defender's "
         "supporting Units giving Supporting Fire where they can)\n";
  PrintCocPreview(round->preview, round->attacker, out);
}

}  // namespace

int MatchCommands::Play(std::istream& in, std::ostream& out, std::ostream& err) const {
  Failure failure{0, ""};
  v1::SeatLink link;
  if (!ReadSeatFile(args_.seat_file, link, failure)) return Report(err, failure);
  auto opened = LiveSeat::Open(link, args_.ca_file, out);
  if (!opened) return Report(err, FromClient(opened.error()));
  LiveSeat& match = **opened;
  if (match.last_seq() > link.last_seq()) out << "Since you last looked:\n";
  match.End(/*view_too=*/true);
  out << "Type help for the commands. What the other side does shows as it happens.\n";
  aslpb::Seal draft;
  const std::string ruleset = match.view().settings().ruleset();
  bool applied = false;    // the last command was acknowledged
  bool show_view = false;  // the command asks for the view (look, an acknowledged command)
  const auto act = [&](v1::ClientMessage command) -> bool {
    applied = false;
    auto answer = match.Act(std::move(command), std::chrono::seconds(30));
    if (!answer) {
      std::string why;
      if (match.stopped(&why)) {
        Report(err, FromClient(answer.error()));
        return false;
      }
      out << answer.error().message << "\n";
      return true;
    }
    if (answer->has_error()) {
      out << "refused: " << Refusal(answer->error()) << "\n";
      return true;
    }
    applied = true;
    show_view = true;
    if (!answer->ack().receipt().empty()) {
      out << "sealed; receipt " << Hex(answer->ack().receipt()) << "\n";
    }
    return true;
  };

  std::string line;
  for (;;) {
    match.Prompt();
    if (!std::getline(in, line)) break;
    match.Begin();
    show_view = false;
    const v1::MatchView now = match.view();  // as the line was typed
    const std::vector<std::string> words = Words(line);
    if (words.empty()) continue;
    const std::string& verb = words[0];
    bool connected = true;
    const bool asl_only = verb == "attack" || verb == "draft" || verb == "clear" ||
                          verb == "announce" || verb == "order" || verb == "choose";
    if (asl_only && ruleset != "asl") {
      out << verb << ": a command of asl matches; in a " << ruleset
          << " match, seal FILE (type help)\n";
      continue;
    }
    if (verb == "quit" || verb == "exit") {
      break;
    } else if (verb == "help") {
      out << kPlayHelp;
    } else if (verb == "look") {
      show_view = true;
    } else if (verb == "wait") {
      // Events show by themselves; `wait` is for scripts that want to block until one comes.
      const int seconds = words.size() > 1 ? std::atoi(words[1].c_str()) : 600;
      if (!match.WaitForEvent(std::chrono::seconds(seconds > 0 ? seconds : 600))) {
        std::string why;
        if (match.stopped(&why)) {
          err << "melee: " << why << "\n";
          connected = false;
        } else {
          out << "nothing happened\n";
        }
      }
    } else if (verb == "setup" && words.size() == 2) {
      v1::ClientMessage command;
      const bool read = ReadSetupFile(words[1], ruleset.empty() ? "asl" : ruleset, match.seat(),
                                      *command.mutable_submit_setup(), failure);
      if (!read) {
        out << failure.message << "\n";
      } else {
        connected = act(std::move(command));
      }
    } else if (verb == "confirm") {
      v1::ClientMessage command;
      command.mutable_confirm_setup();
      connected = act(std::move(command));
    } else if (verb == "update" && words.size() > 2) {
      // update G1 move H4; update G1 break, G2 pin   (one line, all or none)
      v1::ClientMessage command;
      const std::string text = line.substr(line.find("update") + 6);
      bool read = true;
      std::size_t from = 0;
      while (read && from <= text.size()) {
        const std::size_t comma = text.find(',', from);
        const std::string one = text.substr(from, comma == std::string::npos ? std::string::npos
                                                                              : comma - from);
        from = comma == std::string::npos ? text.size() + 1 : comma + 1;
        auto update = proto::UnitUpdateFromText(ruleset.empty() ? "asl" : ruleset, match.seat(),
                                                one);
        if (!update) {
          out << "update '" << one << "': " << engine::Describe(update.error()) << "\n";
          read = false;
        } else {
          *command.mutable_update_units()->add_updates() = std::move(*update);
        }
      }
      if (read) connected = act(std::move(command));
    } else if (verb == "order" && words.size() > 1) {
      v1::ClientMessage command;
      for (std::size_t i = 1; i < words.size(); ++i) {
        command.mutable_order_locations()->add_locations(words[i]);
      }
      connected = act(std::move(command));
    } else if (verb == "announce") {
      v1::ClientMessage command;
      aslpb::Announce& announce = *command.mutable_announce()->mutable_asl();
      if (words.size() > 1 && !ReadJsonFile(words[1], announce, failure)) {
        out << failure.message << "\n";
      } else {
        connected = act(std::move(command));
      }
    } else if (verb == "attack") {
      // attack G1 L1 > R1 [atmm G1]; a vehicle: attack T1 with cmg aamg > R1, attack T1 with sn
      aslpb::AttackOrder order;
      enum class Part { kAttackers, kWeapons, kTargets, kAtmm } part = Part::kAttackers;
      for (std::size_t i = 1; i < words.size(); ++i) {
        if (words[i] == ">") {
          part = Part::kTargets;
        } else if (words[i] == "with") {
          part = Part::kWeapons;
        } else if (words[i] == "atmm") {
          part = Part::kAtmm;
        } else if (part == Part::kWeapons) {
          order.add_weapons(words[i]);
        } else if (part == Part::kAtmm) {
          order.set_atmm(words[i]);
        } else {
          (part == Part::kTargets ? order.add_targets() : order.add_attackers())->assign(words[i]);
        }
      }
      const bool close_defense = order.weapons_size() == 1 && order.weapons(0) == "sn";
      if (order.attackers().empty() || (order.targets().empty() && !close_defense)) {
        out << "attack: say who attacks whom, e.g. attack G1 > R1, attack G1 L1 > T1 atmm G1, "
               "attack T1 with cmg > R1, attack T1 with sn\n";
        continue;
      }
      // A11.12: no unit attacks or is attacked more than once (a vehicle may: A11.5, A11.62).
      std::set<std::string> vehicles;
      if (now.has_asl()) {
        for (const aslpb::ViewedUnit& unit : now.asl().units()) {
          if (unit.unit().kind() == aslpb::UNIT_KIND_VEHICLE) vehicles.insert(unit.unit().id());
        }
      }
      std::string reused;
      for (const aslpb::AttackOrder& earlier : draft.attacks()) {
        for (const std::string& id : order.attackers()) {
          for (const std::string& other : earlier.attackers()) {
            if (id == other && !vehicles.contains(id)) reused = "unit " + id + " already attacks";
          }
        }
        for (const std::string& id : order.targets()) {
          for (const std::string& other : earlier.targets()) {
            if (id == other && !vehicles.contains(id)) {
              reused = "unit " + id + " is already attacked";
            }
          }
        }
      }
      if (!reused.empty()) {
        out << "refused: A11.12: " << reused << " in your declaration (clear, then declare "
            << "again)\n";
        continue;
      }
      if (!now.has_asl() || now.asl().phase() != aslpb::PHASE_DECLARE) {
        out << "attack: attacks are declared at designation (after both announcements)\n";
        continue;
      }
      auto state = proto::AslStateFromView(now.asl());
      auto attack = proto::AttackOrderFromProto(order, "attack");
      if (!state || !attack) {
        out << "attack: " << engine::Describe(!state ? state.error() : attack.error()) << "\n";
        continue;
      }
      const engine::Seat me =
          match.seat() == v1::SEAT_SIDE_A ? engine::Seat::kSideA : engine::Seat::kSideB;
      if (close_defense) {
        // A11.622: whether it may fire yet (after an attack on the AFV or its escort) is known to
        // the server, which checks it on sealing; the odds of its IFT result are shown.
        if (auto table = engine::asl::Preview(*state, me, *attack); table) {
          aslpb::OutcomeTable shown_table = proto::OutcomeTableToProto(*table);
          shown_table.set_seat(match.seat());
          *shown_table.mutable_attack() = order;
          PrintOutcomeTable(shown_table, out);
        }
        *draft.add_attacks() = order;
        out << "added: your declaration has " << draft.attacks_size()
            << " attack(s); seal when it is complete\n";
        continue;
      }
      auto table = engine::asl::Preview(*state, me, *attack);
      if (!table) {
        out << "refused: " << engine::Describe(table.error()) << "\n";
        continue;
      }
      aslpb::OutcomeTable shown_table = proto::OutcomeTableToProto(*table);
      shown_table.set_seat(match.seat());
      *shown_table.mutable_attack() = order;
      out << "(odds from what your seat can see; a concealed unit counts at the strength A11.19 "
             "reveals)\n";
      PrintOutcomeTable(shown_table, out);
      *draft.add_attacks() = order;
      out << "added: your declaration has " << draft.attacks_size()
          << " attack(s); seal when it is complete\n";
    } else if (verb == "draft") {
      if (draft.attacks().empty()) out << "no attack yet\n";
      for (const aslpb::AttackOrder& attack : draft.attacks()) {
        std::string attackers;
        std::string targets;
        for (const std::string& id : attack.attackers()) attackers += (attackers.empty() ? "" : "+") + id;
        for (const std::string& id : attack.targets()) targets += (targets.empty() ? "" : "+") + id;
        std::string weapons;
        for (const std::string& w : attack.weapons()) weapons += (weapons.empty() ? "" : "+") + w;
        out << "  " << attackers << (weapons.empty() ? "" : " with " + weapons) << " -> "
            << (targets.empty() ? std::string("every unarmored unit") : targets)
            << (attack.atmm().empty() ? "" : " (ATMM: " + attack.atmm() + ")") << "\n";
      }
    } else if (verb == "clear") {
      draft.Clear();
      out << "declaration emptied\n";
    } else if (verb == "seal" && ruleset != "asl") {
      v1::ClientMessage command;
      v1::Declaration& declaration = *command.mutable_seal_declaration()->mutable_declaration();
      if (words.size() != 2) {
        out << "seal FILE: a JSON file of melee." << ruleset << ".v1.Declaration\n";
      } else if (!(ruleset == "coc" ? ReadJsonFile(words[1], *declaration.mutable_coc(), failure)
                                    : ReadJsonFile(words[1], *declaration.mutable_vv(), failure))) {
        out << failure.message << "\n";
      } else {
        connected = act(std::move(command));
      }
    } else if (verb == "odds" && ruleset == "coc") {
      PrintCocOdds(now, out);
    } else if (verb == "seal") {
      v1::ClientMessage command;
      *command.mutable_seal_declaration()->mutable_declaration()->mutable_asl() = draft;
      connected = act(std::move(command));
      if (applied) draft.Clear();
    } else if (verb == "choose" && words.size() >= 2) {
      v1::ClientMessage command;
      command.mutable_make_choice()->set_choice_id(words[1]);
      for (std::size_t i = 2; i < words.size(); ++i) command.mutable_make_choice()->add_selected(words[i]);
      connected = act(std::move(command));
    } else {
      out << "unknown command '" << line << "'; type help\n";
    }
    match.End(show_view);
    (void)SaveSeq(args_.seat_file, link, match.last_seq(), err, 0);
    link.set_last_seq(std::max(link.last_seq(), match.last_seq()));
    if (!connected) return kExitUnreachable;
  }
  out << "\n";
  return SaveSeq(args_.seat_file, link, match.last_seq(), err, EXIT_SUCCESS);
}

}  // namespace melee::cli
