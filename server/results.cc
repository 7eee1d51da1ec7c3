#include "server/results.h"

#include <utility>

namespace melee::server {
namespace {

namespace v1 = melee::v1;
constexpr v1::ResultOutcome kNone = v1::RESULT_OUTCOME_UNSPECIFIED;

}  // namespace

std::string OutcomeWords(v1::ResultOutcome outcome) {
  switch (outcome) {
    case v1::RESULT_OUTCOME_SIDE_A_WON:
      return "side_a won";
    case v1::RESULT_OUTCOME_SIDE_B_WON:
      return "side_b won";
    case v1::RESULT_OUTCOME_DRAW:
      return "a draw";
    default:
      return "none";
  }
}

void Results::Record(ResultSource source, uint32_t combat, v1::ResultOutcome outcome) {
  entries_[combat].by[static_cast<size_t>(source)] = outcome;
}

void Results::Decide(uint32_t combat, v1::ResultOutcome outcome, std::string why) {
  Entries& entries = entries_[combat];
  entries.from_log = outcome;
  entries.why = std::move(why);
}

v1::MatchResult Results::Summary(uint32_t combat, const Entries& entries) {
  v1::MatchResult result;
  result.set_combat(combat);
  const v1::ResultOutcome a = entries.by[0];
  const v1::ResultOutcome b = entries.by[1];
  const v1::ResultOutcome director = entries.by[2];
  result.set_side_a_says(a);
  result.set_side_b_says(b);
  result.set_director_says(director);
  if (director != kNone) {
    result.set_decided(director);
    result.set_status("decided by the director: " + OutcomeWords(director) +
                      (a != kNone && b != kNone && a != b ? " (the players disagreed)" : ""));
  } else if (entries.from_log != kNone) {
    result.set_decided(entries.from_log);
    result.set_status("from the log: " + entries.why);
  } else if (a != kNone && b != kNone && a == b) {
    result.set_decided(a);
    result.set_status("agreed by both players: " + OutcomeWords(a));
  } else if (a != kNone && b != kNone) {
    result.set_status("the players disagree (side_a: " + OutcomeWords(a) +
                      ", side_b: " + OutcomeWords(b) + "); the director decides");
  } else {
    const bool by_a = a != kNone;
    result.set_status(std::string(by_a ? "side_a" : "side_b") + "'s entry: " +
                      OutcomeWords(by_a ? a : b) + "; " + (by_a ? "side_b" : "side_a") +
                      " has not entered one");
  }
  return result;
}

std::vector<v1::MatchResult> Results::Summaries(
    const std::function<std::string(uint32_t)>& location_of) const {
  std::vector<v1::MatchResult> out;
  for (const auto& [combat, entries] : entries_) {
    v1::MatchResult result = Summary(combat, entries);
    if (combat != 0) result.set_location(location_of(combat));
    out.push_back(std::move(result));
  }
  return out;
}

}  // namespace melee::server
