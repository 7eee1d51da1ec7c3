#pragma once

// `melee inbox [PATH...]`: over all of a player's seat files (given, or found under the given
// folders; default: the current folder), which matches wait for the player and by when, which
// wait for the other side, and what happened in each since the player last looked. One request
// per server (POST /api/inbox, docs/inbox.md); the seat files' marks are not moved (`melee match
// status` moves them).
//
// Exit codes: 0 asked (even if some matches answered an error), 2 usage (no seat file, an
// unreadable one), 3 a server could not be reached.

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

namespace melee::cli {

struct InboxArgs {
  std::string ca_file;  // wss:// and https://: certificates to trust
  std::vector<std::string> paths;
  bool json = false;
};

class InboxCommand {
 public:
  InboxCommand(CLI::App& app, InboxArgs& args);

  bool chosen() const { return inbox_->parsed(); }
  int Run(std::ostream& out, std::ostream& err) const;

 private:
  InboxArgs& args_;
  CLI::App* inbox_ = nullptr;
};

}  // namespace melee::cli
