#include "server/recent_events.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string_view>

namespace melee::server {

RecentEvents::RecentEvents(size_t limit) : limit_(std::max<size_t>(limit, 1)) {}

void RecentEvents::Push(uint64_t seq, const RenderedEvent& event) {
  if (!ring_.empty() && seq != last_seq_ + 1) {
    throw std::logic_error("RecentEvents::Push: event " + std::to_string(seq) +
                           " does not follow " + std::to_string(last_seq_));
  }
  // The distinct renderings first, so that their bytes take one allocation of their size.
  Kept kept;
  std::array<const std::string*, 4> distinct{};
  size_t count = 0;
  size_t total = 0;
  for (size_t i = 0; i < event.size(); ++i) {
    const std::string& serialized = *event[i]->Frame(proto::FrameKind::kBinary);
    size_t j = 0;
    while (j < count && *distinct[j] != serialized) ++j;
    if (j == count) {
      distinct[count++] = &serialized;
      total += serialized.size();
      if (total > UINT32_MAX) throw std::length_error("RecentEvents::Push: an event over 4 GiB");
      kept.end[j] = static_cast<uint32_t>(total);
    }
    kept.which[i] = static_cast<uint8_t>(j);
  }
  kept.bytes = std::make_unique_for_overwrite<char[]>(total);
  for (size_t j = 0; j < count; ++j) {
    std::copy(distinct[j]->begin(), distinct[j]->end(),
              kept.bytes.get() + (j == 0 ? 0 : kept.end[j - 1]));
  }
  if (ring_.size() < limit_) {
    // Grown by doubling up to the limit, never past it.
    if (ring_.size() == ring_.capacity()) {
      ring_.reserve(std::min(limit_, std::max<size_t>(4, ring_.capacity() * 2)));
    }
    ring_.push_back(std::move(kept));
  } else {
    ring_[first_] = std::move(kept);
    first_ = (first_ + 1) % ring_.size();
  }
  last_seq_ = seq;
}

bool RecentEvents::HoldsAfter(uint64_t after_seq) const {
  return after_seq + ring_.size() >= last_seq_;
}

const RecentEvents::Kept& RecentEvents::KeptAt(uint64_t seq) const {
  if (seq > last_seq_ || seq + ring_.size() <= last_seq_) {
    throw std::out_of_range("RecentEvents::At: event " + std::to_string(seq) + " is not kept");
  }
  const size_t from_oldest = ring_.size() - 1 - static_cast<size_t>(last_seq_ - seq);
  return ring_[(first_ + from_oldest) % ring_.size()];
}

MessagePtr RecentEvents::At(uint64_t seq, engine::Viewer viewer) const {
  const Kept& kept = KeptAt(seq);
  const size_t j = kept.which[static_cast<size_t>(viewer)];
  const size_t begin = j == 0 ? 0 : kept.end[j - 1];
  std::string bytes(kept.bytes.get() + begin, kept.end[j] - begin);
  melee::v1::ServerMessage message;
  if (!message.ParseFromString(bytes)) {
    throw std::runtime_error("RecentEvents::At: event " + std::to_string(seq) +
                             " does not parse back");
  }
  return std::make_shared<const Outbound>(std::move(message), std::move(bytes));
}

size_t RecentEvents::bytes() const {
  size_t total = ring_.capacity() * sizeof(Kept);
  for (const Kept& kept : ring_) total += kept.end[*std::max_element(kept.which.begin(),
                                                                     kept.which.end())];
  return total;
}

}  // namespace melee::server
