#include "client-sdk/cli/match_command.h"
#include "client-sdk/cli/render.h"

#include <sys/stat.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>
#include <utility>

#include "client-sdk/match_session.h"
#include "client-sdk/sync_client.h"
#include "melee/asl/v1/asl.pb.h"
#include "melee/v1/match.pb.h"
#include "proto/codec/json.h"

namespace melee::cli {

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;
using client::ClientError;
using client::MatchSession;

namespace {

constexpr int kExitRefused = 1;
constexpr int kExitUsage = 2;
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

// Joins the match of the seat file with the events after its mark.
client::ClientResult<std::unique_ptr<MatchSession>> JoinSeat(const v1::SeatLink& link,
                                                              bool from_start) {
  client::JoinOptions options;
  options.after_seq = from_start ? 0 : link.last_seq();
  options.spectate = link.seat() == v1::SEAT_DIRECTOR || link.seat() == v1::SEAT_SPECTATOR;
  return MatchSession::Join(link.server(), link.match_id(), link.token(), options);
}

// Prints the events `session` received from index `from` on.
void PrintEvents(std::ostream& out, const MatchSession& session, std::size_t from) {
  for (std::size_t i = from; i < session.events().size(); ++i) PrintEvent(out, session.events()[i]);
}

// Moves the seat file's mark to what the session has shown.
int SaveMark(const std::string& path, v1::SeatLink link, const MatchSession& session,
             std::ostream& err, int code) {
  if (session.last_seq() <= link.last_seq()) return code;
  link.set_last_seq(session.last_seq());
  Failure failure;
  if (!WriteSeatFile(path, link, failure)) return Report(err, failure);
  return code;
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

}  // namespace

MatchCommands::MatchCommands(CLI::App& app, MatchArgs& args) : args_(args) {
  match_ = app.add_subcommand("match", "Create, join and follow matches on a server");
  match_->require_subcommand(1);

  create_ = match_->add_subcommand(
      "create", "Create a match and write one seat file per seat into --out DIR");
  create_->add_option("--out", args_.out, "Directory for the seat files (created if missing)")
      ->required();
  create_->add_option("--title", args_.title, "A title shown to every seat");
  create_->add_option("--declaration-order", args_.declaration_order,
                      "sealed: both declarations revealed together; attacker_first: A11.12 as "
                      "written")
      ->check(CLI::IsMember({"sealed", "attacker_first"}))
      ->capture_default_str();
  create_->add_option("--choice-deadline", args_.choice_deadline_seconds,
                      "Seconds a seat has to answer a choice (0: the server's default)");
  create_->add_option("--declaration-deadline", args_.declaration_deadline_seconds,
                      "Seconds a seat has for each announcement and declaration (0: the "
                      "server's default, usually none)");

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
                      "Enter your units: a JSON file of melee.asl.v1.SideSetup");
  submit_->add_flag("--confirm", args_.confirm, "Confirm the set-up as both sides entered it");
  announce_ = submit_->add_option("--announce", args_.announce_file,
                                  "Announce (A11.2, A11.14): a JSON file of melee.asl.v1.Announce; "
                                  "with no file, announce nothing");
  announce_->expected(0, 1);
  submit_->add_option("--declaration", args_.declaration_file,
                      "Seal your declaration: a JSON file of melee.asl.v1.Seal");
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
}

bool MatchCommands::chosen() const { return *match_ || *submit_ || *choose_; }

int MatchCommands::Run(std::ostream& out, std::ostream& err) const {
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
    auto connection = client::SyncClient::Connect(args_.server);
    if (!connection) return Report(err, FromClient(connection.error()));
    v1::ClientMessage create;
    v1::MatchSettings& settings = *create.mutable_create_match()->mutable_settings();
    settings.set_ruleset("asl");
    settings.set_title(args_.title);
    settings.set_declaration_order(args_.declaration_order == "attacker_first"
                                       ? v1::DECLARATION_ORDER_ATTACKER_FIRST
                                       : v1::DECLARATION_ORDER_SEALED);
    settings.set_choice_deadline_seconds(args_.choice_deadline_seconds);
    settings.set_declaration_deadline_seconds(args_.declaration_deadline_seconds);
    auto answer = (*connection)->Call(create);
    if (!answer) return Report(err, FromClient(answer.error()));
    if (answer->has_error()) {
      return Report(err, {kExitRefused, "the server refused: " + answer->error().message()});
    }
    const v1::MatchCreated& created = answer->match_created();
    out << "Created match " << created.match_id() << " (asl) on " << args_.server << "\n";
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
    auto session = MatchSession::Join(args_.server, args_.match_id, args_.token, options);
    if (!session) return Report(err, FromClient(session.error()));
    v1::SeatLink link;
    link.set_server(args_.server);
    link.set_match_id(args_.match_id);
    link.set_seat((*session)->seat());
    link.set_token(args_.token);
    link.set_title((*session)->view().settings().title());
    if (!WriteSeatFile(args_.out, link, failure)) return Report(err, failure);
    out << "Joined match " << args_.match_id << " as " << SeatName((*session)->seat())
        << "; seat file " << args_.out << "\n";
    PrintView(out, (*session)->view());
    return EXIT_SUCCESS;
  }

  v1::SeatLink link;
  if (!ReadSeatFile(args_.seat_file, link, failure)) return Report(err, failure);

  if (*status_ || *watch_) {
    auto session = JoinSeat(link, args_.all);
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
      while (!(args_.until_ended && match.view().stage() == v1::STAGE_ENDED)) {
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
        if (match.view().stage() == v1::STAGE_ENDED || !match.view().waiting_for().empty()) {
          PrintView(out, match.view());
        }
        out.flush();
      }
    }
    return SaveMark(args_.seat_file, link, match, err, EXIT_SUCCESS);
  }

  // submit / choose: exactly one action.
  v1::ClientMessage command;
  if (*submit_) {
    const int actions = (!args_.setup_file.empty() ? 1 : 0) + (args_.confirm ? 1 : 0) +
                        (announce_->count() > 0 ? 1 : 0) +
                        (!args_.declaration_file.empty() ? 1 : 0) + (!args_.order.empty() ? 1 : 0) +
                        (args_.flag_seq != 0 ? 1 : 0);
    if (actions != 1) {
      return Report(err, {kExitUsage, "submit: give exactly one of --setup, --confirm, "
                                      "--announce, --declaration, --order, --flag"});
    }
    if (!args_.setup_file.empty()) {
      if (!ReadJsonFile(args_.setup_file, *command.mutable_submit_setup()->mutable_asl(),
                        failure)) {
        return Report(err, failure);
      }
    } else if (args_.confirm) {
      command.mutable_confirm_setup();
    } else if (announce_->count() > 0) {
      aslpb::Announce& announce = *command.mutable_announce()->mutable_asl();
      if (!args_.announce_file.empty() && !args_.announce_file.front().empty() &&
          !ReadJsonFile(args_.announce_file.front(), announce, failure)) {
        return Report(err, failure);
      }
    } else if (!args_.declaration_file.empty()) {
      if (!ReadJsonFile(args_.declaration_file,
                        *command.mutable_seal_declaration()->mutable_declaration()->mutable_asl(),
                        failure)) {
        return Report(err, failure);
      }
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

  auto session = JoinSeat(link, false);
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
    const v1::Error& error = answer->error();
    std::string message = error.message();
    if (!error.rule_ref().empty() && message.find(error.rule_ref()) == std::string::npos) {
      message = error.rule_ref() + ": " + message;
    }
    (void)SaveMark(args_.seat_file, link, match, err, 0);
    return Report(err, {kExitRefused, "refused: " + message});
  }
  out << "Done (event #" << answer->ack().seq() << ")";
  if (!answer->ack().receipt().empty()) {
    static const char* const kHex = "0123456789abcdef";
    std::string hex;
    for (unsigned char byte : answer->ack().receipt()) {
      hex += kHex[byte >> 4];
      hex += kHex[byte & 15];
    }
    out << "; receipt " << hex << " (SHA-256 of what you sealed)";
  }
  out << ".\n";
  if (match.events().size() > before) {
    out << "What happened:\n";
    PrintEvents(out, match, before);
  }
  PrintView(out, match.view());
  return SaveMark(args_.seat_file, link, match, err, EXIT_SUCCESS);
}

}  // namespace melee::cli
