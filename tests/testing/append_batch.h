#pragma once

// The store tests' batch: `payloads` appended to `match_id` after its event `expected_seq`,
// recorded at a fixed time.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "persistence/event_store.h"

namespace melee::testing {

inline persistence::AppendBatch Batch(std::string match_id, uint64_t expected_seq,
                                      std::vector<std::string> payloads) {
  return persistence::AppendBatch{
      std::move(match_id), expected_seq, std::move(payloads), 1700000000000, {}};
}

}  // namespace melee::testing
