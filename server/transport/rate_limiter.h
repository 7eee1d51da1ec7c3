#pragma once

// Token buckets: one per WebSocket connection for its messages (RateLimiter), and one per client
// address for the costly requests, such as creating a match (AddressRateLimiter).

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>

namespace melee::server {

// A token bucket: `rate` tokens per second up to `burst`. Not thread-safe (one per session).
class RateLimiter {
 public:
  // Starts full at time `now`.
  RateLimiter(double rate, double burst, std::chrono::steady_clock::time_point now);
  // Takes one token at time `now`; false when the bucket is empty.
  bool TryTake(std::chrono::steady_clock::time_point now);
  // Returns how long from the last TryTake until a whole token is back (zero if one is).
  std::chrono::duration<double> UntilNextToken() const;
  // Whether the bucket would be full at `now` (then it is the same as a new one).
  bool FullAt(std::chrono::steady_clock::time_point now) const;

 private:
  double rate_;
  double burst_;
  double tokens_;
  std::chrono::steady_clock::time_point last_;
};

// A RateLimiter per client address, for requests each of which costs the server real work and
// a durable write (POST /api/matches, CreateMatch). Thread-safe: every member locks mutex_.
// Holds at most kMaxAddresses buckets: full ones are forgotten first (a full bucket is a new
// one); if every bucket is in use, all are forgotten, which lets a burst through again.
class AddressRateLimiter {
 public:
  static constexpr std::size_t kMaxAddresses = 10000;

  // `per_minute` requests a minute from one address, up to `burst` at once; 0: no limit.
  AddressRateLimiter(double per_minute, double burst);

  // Takes one token of `address` at `now`: true when the request may go on. When it may not,
  // `*retry_after` (when given) is set to the whole seconds until it may, at least 1.
  bool TryTake(const std::string& address, std::chrono::steady_clock::time_point now,
               long* retry_after = nullptr);

  bool enabled() const { return rate_ > 0; }
  double per_minute() const { return rate_ * 60; }

 private:
  const double rate_;  // per second
  const double burst_;
  std::mutex mutex_;
  std::map<std::string, RateLimiter> buckets_;
};

}  // namespace melee::server
