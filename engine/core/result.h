#pragma once

#include <string>
#include <tl/expected.hpp>

namespace melee::engine {

// A command rejected by the rules, or any other untrusted input the engine refuses: a value, never
// a crash. Shown to players, so `message` is written for them.
struct RuleError {
  // The rule as the rulebook numbers it ("A11.16", "17.3", "15.2"); empty when the error is not
  // about a specific rule (a malformed command, an unknown ruleset).
  std::string rule_ref;
  // A human sentence, e.g. "a broken unit cannot attack".
  std::string message;

  friend bool operator==(const RuleError&, const RuleError&) = default;
};

// The outcome of anything that judges untrusted input: a T, or the rule that forbids it.
template <class T>
using Result = tl::expected<T, RuleError>;

// Returns an error value for a `Result<T>`: `return Reject("A11.16", "a broken unit ...");`.
[[nodiscard]] tl::unexpected<RuleError> Reject(std::string rule_ref, std::string message);

// Returns "A11.16: a broken unit cannot attack", or just the message when `rule_ref` is empty.
[[nodiscard]] std::string Describe(const RuleError& error);

}  // namespace melee::engine
