#include "server/hosts.h"

#include <map>
#include <memory>
#include <utility>

namespace melee::server {
namespace {

// Every ruleset this build plays, and the function that makes its host (ruleset_host.h).
struct Registered {
  std::string_view id;
  std::unique_ptr<const RulesetHost> (*make)();
};

constexpr Registered kRegistered[] = {
    {"asl", &MakeAslHost},
    {"coc", &MakeCocHost},
    {"vv", &MakeVvHost},
};

}  // namespace

HostLookup BuiltinHosts() {
  using Hosts = std::map<std::string, std::unique_ptr<const RulesetHost>, std::less<>>;
  auto hosts = std::make_shared<Hosts>();
  for (const Registered& ruleset : kRegistered) hosts->emplace(ruleset.id, ruleset.make());
  return [hosts = std::shared_ptr<const Hosts>(std::move(hosts))](
             std::string_view ruleset) -> const RulesetHost* {
    const auto it = hosts->find(ruleset);
    return it == hosts->end() ? nullptr : it->second.get();
  };
}

std::vector<std::string> BuiltinRulesets() {
  std::vector<std::string> ids;
  for (const Registered& ruleset : kRegistered) ids.emplace_back(ruleset.id);
  return ids;
}

}  // namespace melee::server
