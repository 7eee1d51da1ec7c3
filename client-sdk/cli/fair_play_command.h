#pragma once

// The `melee` commands of fair play (docs/fair-play.md):
//
//   melee export (--seat FILE | --match ID --token TOKEN) [--out FILE]
//       the match file as that seat may have it (the director's is complete)
//   melee import FILE          loads a complete, verified file into the server (read-only there)
//   melee verify FILE [--key HEX]
//       offline: the hash chain, the seeds, every die, the signatures and the engine replay
//   melee audit FILE... [--csv OUT] [--tournament ID] [--round R] [--round-date D]
//       [--scenario S] [--players A B] [--allied-axis A B] [--results A B] [--pool]
//       the tournament director's report, and ASL Player Ratings CSV rows; --pool adds the
//       pooled report of all the files per player (docs/tournaments.md)
//
// Exit codes: 0 done / verified; 1 the file does not verify, or the server refused; 2 usage (bad
// arguments, an unreadable file); 3 the server could not be reached.

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

namespace melee::cli {

inline constexpr int kExitNotVerified = 1;

struct FairPlayArgs {
  std::string server;   // the server's WebSocket (or HTTP) URL, from the global --server
  std::string ca_file;  // wss:// and https://: certificates to trust
  // export
  std::string seat_file;
  std::string match_id;
  std::string token;
  std::string out;
  // import, verify, audit
  std::vector<std::string> files;
  std::string key_hex;  // verify: the trusted server key (64 hex digits)
  // audit
  std::string csv;
  std::string tournament_id;
  std::string round;
  std::string round_date;
  std::string scenario;
  std::vector<std::string> players;
  std::vector<std::string> allied_axis;
  std::vector<std::string> results;
  bool pool = false;
};

class FairPlayCommands {
 public:
  // Adds `export`, `import`, `verify` and `audit` to `app`.
  FairPlayCommands(CLI::App& app, FairPlayArgs& args);

  bool chosen() const;
  // Runs the chosen command; returns the exit code.
  int Run(std::ostream& out, std::ostream& err) const;

 private:
  int Export(std::ostream& out, std::ostream& err) const;
  int Import(std::ostream& out, std::ostream& err) const;
  int Verify(std::ostream& out, std::ostream& err) const;
  int Audit(std::ostream& out, std::ostream& err) const;

  FairPlayArgs& args_;
  CLI::App* export_ = nullptr;
  CLI::App* import_ = nullptr;
  CLI::App* verify_ = nullptr;
  CLI::App* audit_ = nullptr;
};

}  // namespace melee::cli
