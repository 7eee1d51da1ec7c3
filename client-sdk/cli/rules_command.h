#pragma once

// `melee rules`: plays close-combat situations offline, without a server.
//
//   melee rules resolve --ruleset asl|coc|vv --situation FILE.json [--dice 3,4,...] [--seed S]
//                       [--json]
//   melee rules preview --ruleset asl|coc|vv --situation FILE.json [--dice ...] [--seed S] [--json]
//   melee rules preview --ruleset coc --pools ATTACKER,DEFENDER [--json]
//
// The situation file is the protobuf JSON mapping of melee.asl.v1.CloseCombat
// (docs/asl-situation-format.md), for coc of melee.coc.v1.Contact (docs/coc-situation-format.md),
// for vv of melee.vv.v1.CloseAssault (docs/vv-situation-format.md). Exit codes: 0 success; 1 the rules refused the situation or a
// declaration (the message names the rule); 2 usage error (an unknown or unsupported ruleset, an
// unreadable or malformed file, bad or too few --dice).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "engine/coc/rules.h"
#include "melee/asl/v1/asl.pb.h"

namespace melee::cli {

inline constexpr int kExitRuleError = 1;
inline constexpr int kExitUsage = 2;

// Prints an outcome preview for a person: odds column, Kill #, every DRM with its rule, and each
// target's exact chances.
void PrintOutcomeTable(const melee::asl::v1::OutcomeTable& table, std::ostream& out);

// Prints a coc round's preview: both pools row by row (17.3), then Overwhelming Numbers or the
// exact margin distribution (17.4). Shared by `melee rules preview` and `melee play`.
void PrintCocPreview(const engine::coc::Preview& preview, engine::Seat attacker,
                     std::ostream& out);

// The parsed arguments of `melee rules ...`. Filled by CLI11 while it parses.
struct RulesArgs {
  std::string ruleset = "asl";
  std::string situation;  // Path of the situation file.
  std::string pools;      // coc preview: "8,13", the attacker's and the defender's Combat Dice
  std::string dice;       // "3,4,..."; empty: roll with SplitMix64(seed).
  uint64_t seed = 1;
  bool json = false;
};

// The `rules` subcommand group added to a CLI11 app. Does not own the app; the app and `args`
// must outlive it.
class RulesCommand {
 public:
  // Adds `rules` with its `resolve` and `preview` subcommands to `app`; their options write
  // into `args`.
  RulesCommand(CLI::App& app, RulesArgs& args);

  // Returns true when the parsed command line chose `rules`.
  bool chosen() const;

  // Runs the chosen subcommand, writing the report to `out` and problems to `err`; returns the
  // exit code. Requires chosen().
  int Run(std::ostream& out, std::ostream& err) const;

 private:
  RulesArgs& args_;
  CLI::App* rules_ = nullptr;
  CLI::App* resolve_ = nullptr;
  CLI::App* preview_ = nullptr;
};

}  // namespace melee::cli
