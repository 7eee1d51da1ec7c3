#include "server/transport/rate_limiter.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace melee::server {

// ---- RateLimiter ------------------------------------------------------------------------------

RateLimiter::RateLimiter(double rate, double burst, std::chrono::steady_clock::time_point now)
    : rate_(rate), burst_(burst), tokens_(burst), last_(now) {}

bool RateLimiter::TryTake(std::chrono::steady_clock::time_point now) {
  if (now < last_) now = last_;
  const std::chrono::duration<double> elapsed = now - last_;
  last_ = now;
  tokens_ = std::min(burst_, tokens_ + elapsed.count() * rate_);
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

std::chrono::duration<double> RateLimiter::UntilNextToken() const {
  if (tokens_ >= 1.0 || rate_ <= 0) return std::chrono::duration<double>(0);
  return std::chrono::duration<double>((1.0 - tokens_) / rate_);
}

bool RateLimiter::FullAt(std::chrono::steady_clock::time_point now) const {
  const std::chrono::duration<double> elapsed = std::max(now, last_) - last_;
  return tokens_ + elapsed.count() * rate_ >= burst_;
}

// ---- AddressRateLimiter -----------------------------------------------------------------------

AddressRateLimiter::AddressRateLimiter(double per_minute, double burst)
    : rate_(per_minute / 60.0), burst_(std::max(1.0, burst)) {}

bool AddressRateLimiter::TryTake(const std::string& address,
                                 std::chrono::steady_clock::time_point now, long* retry_after) {
  if (!enabled()) return true;
  std::lock_guard lock(mutex_);
  auto it = buckets_.find(address);
  if (it == buckets_.end()) {
    if (buckets_.size() >= kMaxAddresses) {
      std::erase_if(buckets_, [&](const auto& entry) { return entry.second.FullAt(now); });
      if (buckets_.size() >= kMaxAddresses) buckets_.clear();
    }
    it = buckets_.emplace(address, RateLimiter(rate_, burst_, now)).first;
  }
  if (it->second.TryTake(now)) return true;
  if (retry_after != nullptr) {
    *retry_after = std::max(1L, static_cast<long>(std::ceil(it->second.UntilNextToken().count())));
  }
  return false;
}

}  // namespace melee::server
