#pragma once

// The ruleset hosts this build plays: the one place where the server registers a ruleset (the
// engine registers its own in engine/core/registry.cc). Matches serves matches with them; the
// verifier and the audit (server/fair_play/) replay and read match files with them.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "server/ruleset_host.h"

namespace melee::server {

// Returns the host of a ruleset id ("asl"), or null when this build does not play it.
using HostLookup = std::function<const RulesetHost*(std::string_view ruleset)>;

// Returns the hosts of every ruleset this build plays, made now and shared by the lookup's
// copies. Hosts are immutable, so the lookup may be called on any thread.
HostLookup BuiltinHosts();

// The ids of the rulesets this build plays, in the order they were added: asl, coc, vv.
std::vector<std::string> BuiltinRulesets();

}  // namespace melee::server
