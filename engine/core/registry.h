#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/result.h"
#include "engine/core/ruleset.h"

namespace melee::engine {

// Returns the ids of every ruleset Melee knows, sorted: "asl" (ASL chapter A11 Close Combat),
// "coc" (Chain of Command rule 17 Close Combat), "vv" (Valor & Victory rule 15 Close Assaults).
// A known id may still be missing from a build (see BuiltinRegistry).
std::span<const std::string_view> KnownRulesetIds();

// The rulesets available to a server, by id. Owns them; hands out const pointers that stay valid
// while the Registry lives (also across moves). Move-only value, no global instance: main() builds
// one and passes it down. Thread-compatible: after setup, concurrent Find calls are safe.
class Registry {
 public:
  Registry() = default;
  Registry(Registry&&) = default;
  Registry& operator=(Registry&&) = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Adds `ruleset`. Requires a non-null ruleset with a non-empty id not already registered.
  void Add(std::unique_ptr<const Ruleset> ruleset);

  // Returns the ruleset registered as `id` (untrusted: it comes from a client), or a RuleError:
  // "not supported: ruleset 'asl' is not implemented in this build" for a known id that is not
  // registered, "unknown ruleset 'xyz' (known: asl, coc, vv)" otherwise.
  Result<const Ruleset*> Find(std::string_view id) const;

  // Returns the registered ids, sorted. The views stay valid while the Registry lives.
  std::vector<std::string_view> Ids() const;

 private:
  std::map<std::string, std::unique_ptr<const Ruleset>, std::less<>> rulesets_;
};

// Returns a Registry holding every ruleset compiled into this build (none yet: asl, coc and vv
// each add one line to registry.cc).
Registry BuiltinRegistry();

}  // namespace melee::engine
