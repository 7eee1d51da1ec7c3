#pragma once

// Who won each close combat of a match and the match itself (docs/tournaments.md): every entry
// recorded in the log (RecordResult, by a player or the director), and what they come to. The
// director's entry decides; else the players' when both entered the same; when they differ, the
// summary says so. A result the log gives by itself (a rule that ends the match, a loss on time)
// enters through Decide and counts unless the director decided otherwise. Not thread-safe: a
// match keeps one on its strand.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "melee/v1/match.pb.h"

namespace melee::server {

// Who entered a result.
enum class ResultSource { kSideA = 0, kSideB = 1, kDirector = 2 };

// Returns "side_a won", "side_b won", "a draw" or "none".
std::string OutcomeWords(melee::v1::ResultOutcome outcome);

class Results {
 public:
  // Records `source`'s entry for `combat` (0: the match), replacing its earlier one.
  void Record(ResultSource source, uint32_t combat, melee::v1::ResultOutcome outcome);

  // Records a result the log gives by itself (`why`, e.g. "side_b lost on time").
  void Decide(uint32_t combat, melee::v1::ResultOutcome outcome, std::string why);

  // Returns one summary per close combat with an entry, the match (0) first; `location_of`
  // names a close combat's Location ("" when unknown).
  std::vector<melee::v1::MatchResult> Summaries(
      const std::function<std::string(uint32_t combat)>& location_of) const;

 private:
  struct Entries {
    std::array<melee::v1::ResultOutcome, 3> by{};  // by ResultSource
    melee::v1::ResultOutcome from_log = melee::v1::RESULT_OUTCOME_UNSPECIFIED;
    std::string why;
  };
  static melee::v1::MatchResult Summary(uint32_t combat, const Entries& entries);

  std::map<uint32_t, Entries> entries_;
};

}  // namespace melee::server
