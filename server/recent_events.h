#pragma once

// The last events of a match as each viewer saw them, kept for quick resumes: a client that
// reconnects after missing a few events gets them from here instead of a replay of the log.
//
// They are kept serialized, not as message trees: an event's four renderings (side A, side B,
// director, spectator) as protobuf bytes, one copy for viewers who saw the same bytes. A tree
// of a few hundred bytes of content takes about a kilobyte of heap in small allocations; the
// bytes take what they weigh. The bytes are the ones the sessions send (Outbound's binary frame,
// serialized once); a resume parses what it sends anew, which is rare next to the events sent as
// they are committed (Match::Render and Match::Send deliver what it just rendered).

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/ruleset.h"
#include "server/outbound.h"

namespace melee::server {

// One event as each viewer sees it, indexed by static_cast<size_t>(engine::Viewer). Viewers who
// see it alike may share one message.
using RenderedEvent = std::array<MessagePtr, 4>;

class RecentEvents {
 public:
  // Keeps at most `limit` events (at least one).
  explicit RecentEvents(size_t limit);

  // Keeps `event` as event `seq`, which follows the last one kept (or starts the record), and
  // forgets the oldest beyond the limit.
  void Push(uint64_t seq, const RenderedEvent& event);

  // Whether every event from after_seq + 1 to the last is kept (true when there are none).
  bool HoldsAfter(uint64_t after_seq) const;

  // Event `seq` as `viewer` saw it, parsed from its bytes. `seq` must be kept.
  MessagePtr At(uint64_t seq, engine::Viewer viewer) const;

  uint64_t last_seq() const { return last_seq_; }
  size_t size() const { return ring_.size(); }

  // Heap bytes held by the kept events (for tests and benchmarks).
  size_t bytes() const;

 private:
  struct Kept {
    std::unique_ptr<char[]> bytes;  // the distinct renderings, one after another
    std::array<uint32_t, 4> end{};  // where distinct rendering i ends in `bytes`
    std::array<uint8_t, 4> which{};  // the distinct rendering each viewer saw
  };
  const Kept& KeptAt(uint64_t seq) const;

  // A ring: once it holds `limit_` events, the next one takes the oldest one's place at first_.
  std::vector<Kept> ring_;
  size_t first_ = 0;
  uint64_t last_seq_ = 0;
  size_t limit_;
};

}  // namespace melee::server
