#pragma once

// The `melee` commands of a tournament director (docs/tournaments.md), and results:
//
//   melee tournament create [--title T] --out FILE     a tournament; FILE is its director file
//   melee tournament list --director FILE [--json]     its matches: players, whose turn, results
//   melee tournament export --director FILE --out DIR  every match's (complete) match file
//   melee tournament audit --director FILE [--json]    the pooled audit of every match
//   melee result (--seat FILE | --director FILE --match ID) --winner side_a|side_b|draw
//                [--combat N] [--note TEXT]            records who won (a close combat, the match)
//
// A director file (melee.v1.TournamentLink in the JSON mapping) holds the server, the tournament
// and its director token: whoever holds it directs every match of the event, so it is written
// readable by its owner only. Exit codes: 0 done; 1 the server refused; 2 usage; 3 the server
// could not be reached.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace melee::cli {

struct TournamentArgs {
  std::string server;   // from the global --server (tournament create)
  std::string ca_file;  // wss:// and https://: certificates to trust
  std::string title;
  std::string out;            // create: the director file; export: a directory
  std::string director_file;  // the director file of the other commands
  bool json = false;
  // result
  std::string seat_file;
  std::string match_id;
  std::string winner;
  uint32_t combat = 0;
  std::string note;
};

class TournamentCommands {
 public:
  // Adds `tournament` (create, list, export, audit) and `result` to `app`.
  TournamentCommands(CLI::App& app, TournamentArgs& args);

  bool chosen() const;
  // Runs the chosen command; returns the exit code.
  int Run(std::ostream& out, std::ostream& err) const;

 private:
  int Create(std::ostream& out, std::ostream& err) const;
  int List(std::ostream& out, std::ostream& err) const;
  int Export(std::ostream& out, std::ostream& err) const;
  int Audit(std::ostream& out, std::ostream& err) const;
  int Result(std::ostream& out, std::ostream& err) const;

  TournamentArgs& args_;
  CLI::App* tournament_ = nullptr;
  CLI::App* create_ = nullptr;
  CLI::App* list_ = nullptr;
  CLI::App* export_ = nullptr;
  CLI::App* audit_ = nullptr;
  CLI::App* result_ = nullptr;
};

}  // namespace melee::cli
