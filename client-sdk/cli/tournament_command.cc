#include "client-sdk/cli/tournament_command.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "client-sdk/cli/match_command.h"
#include "client-sdk/cli/rules_command.h"
#include "client-sdk/http_call.h"
#include "melee/v1/envelope.pb.h"
#include "melee/v1/tournament.pb.h"
#include "proto/codec/json.h"
#include "server/fair_play/pooled_audit.h"

namespace melee::cli {
namespace {

namespace v1 = melee::v1;
constexpr int kExitRefused = 1;
constexpr int kExitUnreachable = 3;

bool ReadText(const std::string& path, std::string& text, std::ostream& err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err << "melee: cannot read " << path << "\n";
    return false;
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  text = bytes.str();
  return true;
}

// Writes `text` to `path` readable by its owner only (it may hold a token); replaces atomically.
bool WritePrivate(const std::string& path, const std::string& text, std::ostream& err) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) {
      err << "melee: cannot write " << temporary << "\n";
      return false;
    }
    chmod(temporary.c_str(), S_IRUSR | S_IWUSR);
    out << text;
    if (!out.flush()) {
      err << "melee: cannot write " << temporary << "\n";
      return false;
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    err << "melee: cannot write " << path << ": " << error.message() << "\n";
    return false;
  }
  return true;
}

bool ReadDirectorFile(const std::string& path, v1::TournamentLink& link, std::ostream& err) {
  std::string text;
  if (!ReadText(path, text, err)) return false;
  if (const std::string problem = proto::FromJson(text, link); !problem.empty()) {
    err << "melee: " << path << " is not a director file: " << problem << "\n";
    return false;
  }
  if (link.server().empty() || link.tournament_id().empty() || link.token().empty()) {
    err << "melee: " << path << ": a director file needs server, tournament_id and token\n";
    return false;
  }
  return true;
}

// The error message in an HTTP error body (a melee.v1.Error in JSON), else the body.
std::string ErrorOf(const client::HttpReply& reply) {
  v1::Error error;
  if (proto::FromJson(reply.body, error).empty() && !error.message().empty()) {
    return error.message();
  }
  return reply.body;
}

// Calls the server; on failure writes why to `err` and sets `code`.
std::optional<client::HttpReply> Call(const std::string& server, const client::HttpRequestSpec& spec,
                                      const std::string& ca_file, int expected_status,
                                      std::ostream& err, int& code) {
  auto reply = client::HttpCall(server, spec, {.ca_file = ca_file, .verify_peer = true});
  if (!reply) {
    err << "melee: " << reply.error().message << "\n";
    code = kExitUnreachable;
    return std::nullopt;
  }
  if (reply->status != expected_status) {
    err << "melee: the server refused (" << reply->status << "): " << ErrorOf(*reply) << "\n";
    code = kExitRefused;
    return std::nullopt;
  }
  return std::move(*reply);
}

// The tournament's list of matches, from the server.
std::optional<v1::Tournament> FetchList(const v1::TournamentLink& link, const std::string& ca_file,
                                        std::ostream& err, int& code) {
  client::HttpRequestSpec spec;
  spec.path = "/api/tournaments/" + link.tournament_id();
  spec.bearer_token = link.token();
  auto reply = Call(link.server(), spec, ca_file, 200, err, code);
  if (!reply) return std::nullopt;
  v1::Tournament tournament;
  if (const std::string problem = proto::FromJson(reply->body, tournament); !problem.empty()) {
    err << "melee: unexpected answer: " << problem << "\n";
    code = kExitRefused;
    return std::nullopt;
  }
  return tournament;
}

std::string Player(const std::string& name, const char* seat) {
  return name.empty() ? std::string(seat) : name + " (" + seat + ")";
}

void PrintMatch(const v1::TournamentMatch& match, std::ostream& out) {
  out << "  " << match.match_id();
  if (!match.title().empty()) out << " \"" << match.title() << "\"";
  out << " (" << match.ruleset() << "): " << Player(match.side_a_name(), "side_a") << " vs "
      << Player(match.side_b_name(), "side_b") << "\n";
  if (!match.error().empty()) {
    out << "    could not be read: " << match.error() << "\n";
    return;
  }
  if (match.ended()) {
    out << "    its close combat is over, nothing awaited (last event #" << match.seq() << ")\n";
  } else {
    out << "    waiting for: ";
    for (int i = 0; i < match.waiting_for_size(); ++i) {
      out << (i == 0 ? "" : "; ") << match.waiting_for(i);
    }
    out << (match.waiting_for().empty() ? "nobody" : "") << " (last event #" << match.seq()
        << ")\n";
  }
  for (const v1::MatchResult& result : match.results()) {
    out << "    result of "
        << (result.combat() == 0 ? std::string("the match")
                                 : "close combat " + std::to_string(result.combat()) +
                                       (result.location().empty() ? "" : " in " + result.location()))
        << ": " << result.status() << "\n";
  }
}

}  // namespace

TournamentCommands::TournamentCommands(CLI::App& app, TournamentArgs& args) : args_(args) {
  tournament_ = app.add_subcommand(
      "tournament", "Direct a tournament: one director token for every match of the event");
  tournament_->require_subcommand(1);
  create_ = tournament_->add_subcommand(
      "create", "Create a tournament and write its director file (it holds the token)");
  create_->add_option("--title", args_.title, "The tournament's title");
  create_->add_option("--out", args_.out, "The director file to write")->required();
  list_ = tournament_->add_subcommand(
      "list", "List the tournament's matches: players, whose turn, results");
  export_ = tournament_->add_subcommand(
      "export", "Write every match's complete match file into --out DIR");
  export_->add_option("--out", args_.out, "Directory for the match files (created if missing)")
      ->required();
  audit_ = tournament_->add_subcommand(
      "audit", "The pooled audit of every match: per player, dice per roll purpose against "
               "fair dice, response times, deadlines missed, disconnects");
  for (CLI::App* command : {list_, export_, audit_}) {
    command->add_option("--director", args_.director_file, "The director file")
        ->required()
        ->check(CLI::ExistingFile);
  }
  list_->add_flag("--json", args_.json, "Print the server's melee.v1.Tournament as JSON");
  audit_->add_flag("--json", args_.json, "Print the melee.v1.PooledAudit as JSON");

  result_ = app.add_subcommand(
      "result", "Record who won a close combat (--combat N) or the match: a player with its "
                "seat file, the director with the director file and --match");
  result_->add_option("--seat", args_.seat_file, "A player's (or a match director's) seat file")
      ->check(CLI::ExistingFile);
  result_->add_option("--director", args_.director_file, "The tournament's director file")
      ->check(CLI::ExistingFile)
      ->excludes("--seat");
  result_->add_option("--match", args_.match_id, "The match (with --director)");
  result_->add_option("--winner", args_.winner, "side_a, side_b or draw")
      ->required()
      ->check(CLI::IsMember({"side_a", "side_b", "draw"}));
  result_->add_option("--combat", args_.combat,
                      "The close combat (1 for the match's first, ...); 0, the default: the match");
  result_->add_option("--note", args_.note, "A note for the record (at most 200 bytes)");
}

bool TournamentCommands::chosen() const { return *tournament_ || *result_; }

int TournamentCommands::Run(std::ostream& out, std::ostream& err) const {
  if (*result_) return Result(out, err);
  if (*create_) return Create(out, err);
  if (*list_) return List(out, err);
  if (*export_) return Export(out, err);
  return Audit(out, err);
}

int TournamentCommands::Create(std::ostream& out, std::ostream& err) const {
  if (std::filesystem::exists(args_.out)) {
    err << "melee: " << args_.out << " exists; choose another --out\n";
    return kExitUsage;
  }
  v1::CreateTournament asked;
  asked.set_title(args_.title);
  client::HttpRequestSpec spec;
  spec.method = "POST";
  spec.path = "/api/tournaments";
  spec.body = proto::ToJson(asked, proto::JsonStyle::kReport);
  int code = 0;
  auto reply = Call(args_.server, spec, args_.ca_file, 201, err, code);
  if (!reply) return code;
  v1::TournamentCreated created;
  if (const std::string problem = proto::FromJson(reply->body, created); !problem.empty()) {
    err << "melee: unexpected answer: " << problem << "\n";
    return kExitRefused;
  }
  v1::TournamentLink link;
  link.set_server(args_.server);
  link.set_tournament_id(created.tournament_id());
  link.set_token(created.director_token());
  link.set_title(created.title());
  if (!WritePrivate(args_.out, proto::ToJson(link, proto::JsonStyle::kPretty), err)) {
    return kExitUsage;
  }
  out << "Created tournament " << created.tournament_id() << " on " << args_.server
      << "\n  " << args_.out
      << "  the director file: its token opens every match of the tournament; keep it to "
         "yourself\n"
      << "Create its matches with: melee match create --tournament " << args_.out
      << " --name-a NAME --name-b NAME --out DIR\n";
  return EXIT_SUCCESS;
}

int TournamentCommands::List(std::ostream& out, std::ostream& err) const {
  v1::TournamentLink link;
  if (!ReadDirectorFile(args_.director_file, link, err)) return kExitUsage;
  int code = 0;
  const std::optional<v1::Tournament> tournament = FetchList(link, args_.ca_file, err, code);
  if (!tournament) return code;
  if (args_.json) {
    out << proto::ToJson(*tournament, proto::JsonStyle::kPretty);
    return EXIT_SUCCESS;
  }
  out << "Tournament " << tournament->tournament_id();
  if (!tournament->title().empty()) out << " \"" << tournament->title() << "\"";
  out << ": " << tournament->matches_size() << " match"
      << (tournament->matches_size() == 1 ? "" : "es") << "\n";
  for (const v1::TournamentMatch& match : tournament->matches()) PrintMatch(match, out);
  return EXIT_SUCCESS;
}

int TournamentCommands::Export(std::ostream& out, std::ostream& err) const {
  v1::TournamentLink link;
  if (!ReadDirectorFile(args_.director_file, link, err)) return kExitUsage;
  std::error_code error;
  std::filesystem::create_directories(args_.out, error);
  if (error) {
    err << "melee: cannot create " << args_.out << ": " << error.message() << "\n";
    return kExitUsage;
  }
  int code = 0;
  const std::optional<v1::Tournament> tournament = FetchList(link, args_.ca_file, err, code);
  if (!tournament) return code;
  for (const v1::TournamentMatch& match : tournament->matches()) {
    client::HttpRequestSpec spec;
    spec.path = "/api/matches/" + match.match_id() + "/export";
    spec.bearer_token = link.token();
    auto reply = Call(link.server(), spec, args_.ca_file, 200, err, code);
    if (!reply) return code;
    const std::string path =
        (std::filesystem::path(args_.out) / (match.match_id() + "-director.melee.json")).string();
    if (!WritePrivate(path, reply->body, err)) return kExitUsage;
    out << "wrote " << path << "\n";
  }
  out << tournament->matches_size() << " match file"
      << (tournament->matches_size() == 1 ? "" : "s") << " of tournament "
      << tournament->tournament_id() << " in " << args_.out << "\n";
  return EXIT_SUCCESS;
}

int TournamentCommands::Audit(std::ostream& out, std::ostream& err) const {
  v1::TournamentLink link;
  if (!ReadDirectorFile(args_.director_file, link, err)) return kExitUsage;
  client::HttpRequestSpec spec;
  spec.path = "/api/tournaments/" + link.tournament_id() + "/audit";
  spec.bearer_token = link.token();
  int code = 0;
  auto reply = Call(link.server(), spec, args_.ca_file, 200, err, code);
  if (!reply) return code;
  v1::PooledAudit pooled;
  if (const std::string problem = proto::FromJson(reply->body, pooled); !problem.empty()) {
    err << "melee: unexpected answer: " << problem << "\n";
    return kExitRefused;
  }
  if (args_.json) {
    out << proto::ToJson(pooled, proto::JsonStyle::kPretty);
  } else {
    server::WritePooledText(pooled, out);
  }
  return pooled.not_verified().empty() ? EXIT_SUCCESS : kExitRefused;
}

int TournamentCommands::Result(std::ostream& out, std::ostream& err) const {
  std::string server;
  std::string token;
  std::string match_id = args_.match_id;
  if (!args_.seat_file.empty()) {
    v1::SeatLink seat;
    std::string problem;
    if (!ReadSeatLink(args_.seat_file, seat, problem)) {
      err << "melee: " << problem << "\n";
      return kExitUsage;
    }
    server = seat.server();
    token = seat.token();
    match_id = seat.match_id();
  } else if (!args_.director_file.empty() && !match_id.empty()) {
    v1::TournamentLink link;
    if (!ReadDirectorFile(args_.director_file, link, err)) return kExitUsage;
    server = link.server();
    token = link.token();
  } else {
    err << "melee result: give --seat FILE, or --director FILE and --match ID\n";
    return kExitUsage;
  }
  v1::RecordResult result;
  result.set_match_id(match_id);
  result.set_combat(args_.combat);
  result.set_outcome(args_.winner == "side_a"   ? v1::RESULT_OUTCOME_SIDE_A_WON
                     : args_.winner == "side_b" ? v1::RESULT_OUTCOME_SIDE_B_WON
                                                : v1::RESULT_OUTCOME_DRAW);
  result.set_note(args_.note);
  client::HttpRequestSpec spec;
  spec.method = "POST";
  spec.path = "/api/matches/" + match_id + "/result";
  spec.body = proto::ToJson(result, proto::JsonStyle::kReport);
  spec.bearer_token = token;
  int code = 0;
  auto reply = Call(server, spec, args_.ca_file, 200, err, code);
  if (!reply) return code;
  out << "recorded: " << (args_.combat == 0 ? std::string("the match")
                                            : "close combat " + std::to_string(args_.combat))
      << " of " << match_id << ": "
      << (args_.winner == "draw" ? std::string("a draw") : args_.winner + " won") << "\n";
  return EXIT_SUCCESS;
}

}  // namespace melee::cli
