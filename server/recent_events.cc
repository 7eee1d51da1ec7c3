#include "server/recent_events.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace melee::server {

RecentEvents::RecentEvents(size_t limit) : limit_(std::max<size_t>(limit, 1)) {}

void RecentEvents::Push(uint64_t seq, const RenderedEvent& event) {
  if (!kept_.empty() && seq != last_seq_ + 1) {
    throw std::logic_error("RecentEvents::Push: event " + std::to_string(seq) +
                           " does not follow " + std::to_string(last_seq_));
  }
  Kept kept;
  size_t total = 0;
  for (size_t i = 0; i < event.size(); ++i) {
    total += event[i]->Frame(proto::FrameKind::kBinary)->size();
  }
  kept.bytes.reserve(total);
  for (size_t i = 0; i < event.size(); ++i) {
    const std::string& serialized = *event[i]->Frame(proto::FrameKind::kBinary);
    const std::string_view all(kept.bytes);
    const auto same =
        std::find_if(kept.span.begin(), kept.span.begin() + static_cast<long>(i),
                     [&](const Span& s) { return all.substr(s.offset, s.size) == serialized; });
    if (same != kept.span.begin() + static_cast<long>(i)) {
      kept.span[i] = *same;
      continue;
    }
    kept.span[i] = Span{.offset = static_cast<uint32_t>(kept.bytes.size()),
                        .size = static_cast<uint32_t>(serialized.size())};
    kept.bytes += serialized;
  }
  kept.bytes.shrink_to_fit();
  kept_.push_back(std::move(kept));
  last_seq_ = seq;
  while (kept_.size() > limit_) kept_.pop_front();
}

bool RecentEvents::HoldsAfter(uint64_t after_seq) const {
  return after_seq + kept_.size() >= last_seq_;
}

MessagePtr RecentEvents::At(uint64_t seq, engine::Viewer viewer) const {
  if (seq > last_seq_ || seq + kept_.size() <= last_seq_) {
    throw std::out_of_range("RecentEvents::At: event " + std::to_string(seq) + " is not kept");
  }
  const Kept& kept = kept_[kept_.size() - 1 - static_cast<size_t>(last_seq_ - seq)];
  const Span span = kept.span[static_cast<size_t>(viewer)];
  melee::v1::ServerMessage message;
  std::string bytes(kept.bytes, span.offset, span.size);
  if (!message.ParseFromString(bytes)) {
    throw std::runtime_error("RecentEvents::At: event " + std::to_string(seq) +
                             " does not parse back");
  }
  return std::make_shared<const Outbound>(std::move(message), std::move(bytes));
}

size_t RecentEvents::bytes() const {
  size_t total = 0;
  for (const Kept& kept : kept_) total += sizeof(Kept) + kept.bytes.capacity();
  return total;
}

}  // namespace melee::server
