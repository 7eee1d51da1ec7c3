#include "engine/core/result.h"

#include <utility>

namespace melee::engine {

tl::unexpected<RuleError> Reject(std::string rule_ref, std::string message) {
  return tl::unexpected<RuleError>(RuleError{std::move(rule_ref), std::move(message)});
}

std::string Describe(const RuleError& error) {
  if (error.rule_ref.empty()) return error.message;
  return error.rule_ref + ": " + error.message;
}

}  // namespace melee::engine
