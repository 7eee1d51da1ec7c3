#pragma once

// The `melee` commands that play a match on a server, one shot each — what a play-by-email
// player runs, and what a live player can script:
//
//   melee match create [--title T] [--declaration-order sealed|attacker_first]
//                      [--choice-deadline S] [--declaration-deadline S]
//                      [--tournament DIRECTOR_FILE | --tournament-id LABEL]
//                      [--name-a NAME] [--name-b NAME] --out DIR
//   melee match join --match ID --token TOKEN [--spectate] --out FILE
//   melee match status --seat FILE [--all]
//   melee match watch --seat FILE [--until-ended] [--idle-timeout S]
//   melee submit --seat FILE (--setup FILE | --unit 'ID: NOTATION'... [--location ...]
//                             [--attacker SIDE] [--force-morale N] [--target ...] [--source HEX]
//                             [--fact 'KEY: VALUE']... | --confirm | --announce [FILE]
//                             | --declaration FILE | --order G3,H4 | --flag SEQ --comment TEXT)
//   melee choose --seat FILE --choice ID [--select G1,G2]
//   melee play --seat FILE          (an interactive session for one seat; `help` lists its words)
//
// A set-up (--setup, and `setup FILE` in `melee play`) is a roster in counter notation
// (docs/counter-notation.md), the ruleset's SideSetup in its protobuf JSON mapping, or a whole
// situation file of `melee rules`, of which the seat's units are taken; --unit and the options
// beside it enter the same roster lines on the command line.
//
// A seat file (melee.v1.SeatLink in the JSON mapping) holds the server, the match, the seat's
// secret token and the last event its holder was shown; every command prints the events since
// then and what the match now waits for, and moves the mark. Exit codes: 0 done; 1 the server
// refused (the message names the rule); 2 usage (bad arguments, an unreadable or malformed
// file); 3 the server could not be reached.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "melee/v1/match.pb.h"

namespace melee::cli {

// The parsed arguments of the match commands. Filled by CLI11 while it parses.
struct MatchArgs {
  std::string server;  // the WebSocket URL for `match create` and `match join`
  std::string ca_file;  // wss://: certificates to trust (empty: the system's)
  // match create
  std::string title;
  std::string ruleset = "asl";
  std::string variant;
  std::string declaration_order = "sealed";
  std::vector<std::string> options;  // KEY=VALUE, the ruleset's match options
  uint32_t choice_deadline_seconds = 0;
  uint32_t declaration_deadline_seconds = 0;
  std::string tournament_file;  // a director file of `melee tournament create`
  std::string tournament_id;    // a plain label, as before tournaments existed
  std::string name_a;           // the players' display names
  std::string name_b;
  // match create: a correspondence clock (docs/clocks.md); durations as "90s", "30m", "12h", "3d"
  std::string pace;
  std::string step_time;
  std::string choice_time;
  std::string bank;
  uint32_t pace_vacation_days = 0;
  std::string on_expiry;
  std::vector<std::string> reminders;
  std::string out;  // create: a directory; join: a seat file
  // match join
  std::string match_id;
  std::string token;
  bool spectate = false;
  // commands on a seat file
  std::string seat_file;
  bool all = false;
  bool until_ended = false;
  uint32_t idle_timeout_seconds = 0;
  // submit
  std::string setup_file;
  std::vector<std::string> units;  // --unit 'G1: 4-6-7': roster lines
  std::vector<std::string> updates;  // --update 'G1 move H4': unit updates (docs/forces.md)
  std::string location;            // the roster directives, each a line of its own
  std::string attacker;
  std::string force_morale;
  std::string target;
  std::string source_hex;
  std::vector<std::string> facts;  // --fact 'KEY: VALUE': any other directive
  bool confirm = false;
  std::vector<std::string> announce_file;  // given with no value: announce nothing
  std::string declaration_file;
  std::vector<std::string> attacks;  // --attack 'G1 L1 > R1' (asl), or none
  std::vector<std::string> order;
  uint64_t flag_seq = 0;
  std::string comment;
  // vacation
  uint32_t vacation_days = 0;
  // choose
  std::string choice_id;
  std::vector<std::string> selected;
};

// Reads the seat file at `path` (it must name a server, a match and a token); on failure
// `problem` says what is wrong with it. For the commands that read seat files too (inbox).
bool ReadSeatLink(const std::string& path, melee::v1::SeatLink& link, std::string& problem);

class MatchCommands {
 public:
  // Adds `match` (create, join, status, watch), `submit`, `choose` and `vacation` to `app`.
  MatchCommands(CLI::App& app, MatchArgs& args);

  bool chosen() const;

  // Runs the chosen command; returns the exit code.
  int Run(std::ostream& out, std::ostream& err) const;
  // `melee play`: reads commands from `in` until `quit` or the end of the input.
  int Play(std::istream& in, std::ostream& out, std::ostream& err) const;

 private:
  MatchArgs& args_;
  CLI::App* match_ = nullptr;
  CLI::App* create_ = nullptr;
  CLI::App* join_ = nullptr;
  CLI::App* status_ = nullptr;
  CLI::App* watch_ = nullptr;
  CLI::App* submit_ = nullptr;
  CLI::App* choose_ = nullptr;
  CLI::App* vacation_ = nullptr;
  CLI::App* play_ = nullptr;
  CLI::Option* announce_ = nullptr;
};

}  // namespace melee::cli
