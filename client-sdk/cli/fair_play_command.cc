#include "client-sdk/cli/fair_play_command.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "client-sdk/cli/rules_command.h"
#include "client-sdk/http_call.h"
#include "melee/v1/envelope.pb.h"
#include "proto/codec/json.h"
#include "server/fair_play/audit.h"
#include "server/fair_play/pooled_audit.h"
#include "server/fair_play/verify.h"
#include "server/match_file.h"

namespace melee::cli {
namespace {

namespace v1 = melee::v1;
constexpr int kExitUnreachable = 3;

bool ReadFile(const std::string& path, std::string& text, std::ostream& err) {
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

// The raw bytes of 64 hex digits, or empty when `hex` is not that.
std::string KeyFromHex(const std::string& hex) {
  if (hex.size() != 64) return {};
  std::string raw;
  for (size_t i = 0; i < hex.size(); i += 2) {
    const auto digit = [](char c) {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    const int high = digit(hex[i]);
    const int low = digit(hex[i + 1]);
    if (high < 0 || low < 0) return {};
    raw.push_back(static_cast<char>(high * 16 + low));
  }
  return raw;
}

// The error message in an HTTP error body (a melee.v1.Error in JSON), else the body.
std::string ErrorOf(const client::HttpReply& reply) {
  v1::Error error;
  if (proto::FromJson(reply.body, error).empty() && !error.message().empty()) {
    return error.message();
  }
  return reply.body;
}

}  // namespace

FairPlayCommands::FairPlayCommands(CLI::App& app, FairPlayArgs& args) : args_(args) {
  export_ = app.add_subcommand(
      "export", "Write the match file (docs/fair-play.md) as a seat may have it; the director's "
                "is complete");
  export_->add_option("--seat", args_.seat_file, "A seat file (from `melee match create|join`)")
      ->check(CLI::ExistingFile);
  export_->add_option("--match", args_.match_id, "The match (with --token, without a seat file)");
  export_->add_option("--token", args_.token, "A seat or director token of the match");
  export_->add_option("--out", args_.out,
                      "Where to write it (default: <match>-<seat>.melee.json here)");

  import_ = app.add_subcommand(
      "import", "Load a complete match file into the server: it must verify; it is served "
                "read-only there");
  import_->add_option("file", args_.files, "The match file")->required()->expected(1);

  verify_ = app.add_subcommand(
      "verify", "Check a match file offline: sequence, hash chain, seeds, every die, "
                "signatures, engine replay. Exit 0 OK, 1 it does not verify, 2 unreadable");
  verify_->add_option("file", args_.files, "The match file")->required()->expected(1);
  verify_->add_option("--key", args_.key_hex,
                      "The server key you trust, 64 hex digits (public_key_hex of GET "
                      "/api/server-key); default: the file's own");

  audit_ = app.add_subcommand(
      "audit", "The tournament director's report on match files: verification, dice against "
               "fair dice (chi-square), response times, deadlines missed, disconnects, timeline; "
               "ASL Player Ratings CSV rows with --csv. Exit 1 when a file does not verify");
  audit_->add_option("files", args_.files, "Match files")->required();
  audit_->add_option("--csv", args_.csv, "Write the ASL Player Ratings CSV (one row per match)");
  audit_->add_option("--tournament", args_.tournament_id,
                     "Tournament ID (default: the one the match was created with)");
  audit_->add_option("--round", args_.round, "Round");
  audit_->add_option("--round-date", args_.round_date, "Round Date");
  audit_->add_option("--scenario", args_.scenario, "Scenario");
  audit_->add_option("--players", args_.players, "Player 1 (side A) and Player 2 (side B)")
      ->expected(2);
  audit_->add_option("--allied-axis", args_.allied_axis, "Allied or Axis, for side A and side B")
      ->expected(2);
  audit_->add_option("--results", args_.results, "Win, Loss or Draw, for side A and side B")
      ->expected(2);
  audit_->add_flag("--pool", args_.pool,
                   "Then the pooled report of all the files: per player (by display name), the "
                   "dice of every match per roll purpose, response times, deadlines, connections");
}

bool FairPlayCommands::chosen() const { return *export_ || *import_ || *verify_ || *audit_; }

int FairPlayCommands::Run(std::ostream& out, std::ostream& err) const {
  if (*export_) return Export(out, err);
  if (*import_) return Import(out, err);
  if (*audit_) return Audit(out, err);
  return Verify(out, err);
}

int FairPlayCommands::Export(std::ostream& out, std::ostream& err) const {
  std::string server = args_.server;
  std::string match_id = args_.match_id;
  std::string token = args_.token;
  if (!args_.seat_file.empty()) {
    std::string text;
    if (!ReadFile(args_.seat_file, text, err)) return kExitUsage;
    v1::SeatLink link;
    if (const std::string error = proto::FromJson(text, link); !error.empty()) {
      err << "melee: " << args_.seat_file << " is not a seat file: " << error << "\n";
      return kExitUsage;
    }
    server = link.server();
    match_id = link.match_id();
    token = link.token();
  }
  if (match_id.empty() || token.empty()) {
    err << "melee export: give --seat FILE, or --match ID and --token TOKEN\n";
    return kExitUsage;
  }
  client::HttpRequestSpec request;
  request.path = "/api/matches/" + match_id + "/export";
  request.bearer_token = token;
  auto reply = client::HttpCall(server, request, {.ca_file = args_.ca_file, .verify_peer = true});
  if (!reply) {
    err << "melee: " << reply.error().message << "\n";
    return kExitUnreachable;
  }
  if (reply->status != 200) {
    err << "melee: the server refused the export (" << reply->status << "): " << ErrorOf(*reply)
        << "\n";
    return kExitNotVerified;
  }
  auto file = server::ParseMatchFile(reply->body);
  if (!file) {
    err << "melee: the server's answer is not a match file: " << engine::Describe(file.error())
        << "\n";
    return kExitNotVerified;
  }
  const std::string path =
      args_.out.empty() ? match_id + "-" + file->exported_for() + ".melee.json" : args_.out;
  std::ofstream written(path, std::ios::binary | std::ios::trunc);
  written << reply->body;
  if (!written.flush()) {
    err << "melee: cannot write " << path << "\n";
    return kExitUsage;
  }
  size_t redacted = 0;
  for (const auto& event : file->events()) redacted += event.redacted() ? 1 : 0;
  out << "wrote " << path << ": match " << match_id << " for " << file->exported_for() << ", "
      << file->events_size() << " events";
  if (redacted != 0) out << " (" << redacted << " redacted: not yours to see yet)";
  out << "\n";
  return EXIT_SUCCESS;
}

int FairPlayCommands::Import(std::ostream& out, std::ostream& err) const {
  std::string text;
  if (!ReadFile(args_.files.front(), text, err)) return kExitUsage;
  client::HttpRequestSpec request;
  request.method = "POST";
  request.path = "/api/matches/import";
  request.body = std::move(text);
  auto reply =
      client::HttpCall(args_.server, request, {.ca_file = args_.ca_file, .verify_peer = true});
  if (!reply) {
    err << "melee: " << reply.error().message << "\n";
    return kExitUnreachable;
  }
  if (reply->status != 201) {
    err << "melee: the server refused the import: " << ErrorOf(*reply) << "\n";
    return kExitNotVerified;
  }
  v1::ImportReport report;
  if (const std::string error = proto::FromJson(reply->body, report); !error.empty()) {
    err << "melee: unexpected answer: " << reply->body << "\n";
    return kExitNotVerified;
  }
  out << "imported match " << report.match_id() << "\n" << report.summary() << "\n";
  return EXIT_SUCCESS;
}

int FairPlayCommands::Verify(std::ostream& out, std::ostream& err) const {
  std::string text;
  if (!ReadFile(args_.files.front(), text, err)) return kExitUsage;
  std::string trusted;
  if (!args_.key_hex.empty()) {
    trusted = KeyFromHex(args_.key_hex);
    if (trusted.empty()) {
      err << "melee verify: --key needs the 64 hex digits of an Ed25519 public key\n";
      return kExitUsage;
    }
  }
  auto file = server::ParseMatchFile(text);
  if (!file) {
    err << "melee: " << args_.files.front() << ": " << engine::Describe(file.error()) << "\n";
    return kExitUsage;
  }
  const server::VerifyReport report =
      server::VerifyMatchFile(*file, server::BuiltinHosts(), trusted);
  (report.ok ? out : err) << report.Describe() << "\n";
  return report.ok ? EXIT_SUCCESS : kExitNotVerified;
}

int FairPlayCommands::Audit(std::ostream& out, std::ostream& err) const {
  server::AslprFields fields;
  fields.tournament_id = args_.tournament_id;
  fields.round = args_.round;
  fields.round_date = args_.round_date;
  fields.scenario = args_.scenario;
  const auto pair = [](const std::vector<std::string>& given, std::array<std::string, 2>& into) {
    if (given.size() == 2) into = {given[0], given[1]};
  };
  pair(args_.players, fields.players);
  pair(args_.allied_axis, fields.allied_axis);
  pair(args_.results, fields.results);
  const server::HostLookup hosts = server::BuiltinHosts();
  std::string csv = server::AslprCsvHeader() + "\r\n";
  bool all_verified = true;
  size_t rows = 0;
  std::vector<server::MatchAudit> audits;
  for (const std::string& path : args_.files) {
    std::string text;
    if (!ReadFile(path, text, err)) return kExitUsage;
    auto file = server::ParseMatchFile(text);
    if (!file) {
      err << "melee: " << path << ": " << engine::Describe(file.error()) << "\n";
      return kExitUsage;
    }
    auto audit = server::AuditMatch(*file, hosts);
    if (!audit) {
      err << "melee: " << path << ": " << engine::Describe(audit.error()) << "\n";
      return kExitUsage;
    }
    out << "== " << path << "\n";
    server::WriteAuditText(*audit, out);
    out << "\n";
    all_verified = all_verified && audit->verification.ok;
    if (server::HasAslprRow(*audit)) {
      csv += server::AslprCsvRow(*audit, fields) + "\r\n";
      ++rows;
    }
    if (args_.pool) audits.push_back(std::move(*audit));
  }
  if (args_.pool) {
    std::string tournament = args_.tournament_id;
    if (tournament.empty() && !audits.empty()) tournament = audits.front().tournament_id;
    server::WritePooledText(server::PoolAudits(tournament, audits), out);
    out << "\n";
  }
  if (!args_.csv.empty()) {
    std::ofstream written(args_.csv, std::ios::binary | std::ios::trunc);
    written << csv;
    if (!written.flush()) {
      err << "melee: cannot write " << args_.csv << "\n";
      return kExitUsage;
    }
    out << "wrote " << args_.csv << " (" << rows << " match" << (rows == 1 ? "" : "es");
    if (const size_t others = args_.files.size() - rows; others != 0) {
      out << "; " << others << " coc or vv match" << (others == 1 ? " has" : "es have")
          << " no ASL Player Ratings row";
    }
    out << ")\n";
  }
  return all_verified ? EXIT_SUCCESS : kExitNotVerified;
}

}  // namespace melee::cli
