#include "engine/core/registry.h"

#include <algorithm>
#include <array>
#include <utility>

#include "engine/asl/rules.h"
#include "engine/coc/rules.h"
#include "engine/vv/rules.h"
#include "engine/core/check.h"

namespace melee::engine {
namespace {

constexpr std::array<std::string_view, 3> kKnownRulesetIds = {"asl", "coc", "vv"};

// Ids come from clients: quote at most this many bytes of one in an error message.
constexpr size_t kMaxQuotedIdBytes = 64;

// Returns `id` safe to put in a message: printable ASCII only, truncated.
std::string Quote(std::string_view id) {
  std::string out = "'";
  for (char c : id.substr(0, kMaxQuotedIdBytes)) {
    const bool printable = c >= 0x20 && c < 0x7f;
    out += printable ? c : '?';
  }
  if (id.size() > kMaxQuotedIdBytes) out += "...";
  return out + "'";
}

}  // namespace

std::span<const std::string_view> KnownRulesetIds() { return kKnownRulesetIds; }

void Registry::Add(std::unique_ptr<const Ruleset> ruleset) {
  MELEE_CHECK_MSG(ruleset != nullptr, "Registry::Add needs a ruleset");
  std::string id(ruleset->id());
  MELEE_CHECK_MSG(!id.empty(), "Registry::Add needs a non-empty ruleset id");
  const bool inserted = rulesets_.emplace(std::move(id), std::move(ruleset)).second;
  MELEE_CHECK_MSG(inserted, "Registry::Add: ruleset id already registered");
}

Result<const Ruleset*> Registry::Find(std::string_view id) const {
  if (auto it = rulesets_.find(id); it != rulesets_.end()) return it->second.get();
  const auto known = KnownRulesetIds();
  if (std::find(known.begin(), known.end(), id) != known.end()) {
    return Reject("", "not supported: ruleset " + Quote(id) + " is not implemented in this build");
  }
  // The known ids and the registered ones (a test or an extension may register others), sorted.
  std::vector<std::string_view> names(known.begin(), known.end());
  for (const auto& [name, ruleset] : rulesets_) {
    if (std::find(known.begin(), known.end(), name) == known.end()) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  std::string list;
  for (std::string_view name : names) {
    if (!list.empty()) list += ", ";
    list += name;
  }
  return Reject("", "unknown ruleset " + Quote(id) + " (known: " + list + ")");
}

std::vector<std::string_view> Registry::Ids() const {
  std::vector<std::string_view> ids;
  ids.reserve(rulesets_.size());
  for (const auto& [id, ruleset] : rulesets_) ids.push_back(id);
  return ids;  // std::map iterates in sorted order.
}

Registry BuiltinRegistry() {
  Registry registry;
  // Each ruleset compiled into this build adds one Add line here, in id order, passing a
  // std::make_unique of its TypedRuleset (the coc and vv issues add theirs).
  registry.Add(asl::MakeAslRuleset());
  registry.Add(coc::MakeCocRuleset());
  registry.Add(vv::MakeVvRuleset());
  return registry;
}

}  // namespace melee::engine
