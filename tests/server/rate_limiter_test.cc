#include <gtest/gtest.h>

#include "server/sessions.h"

namespace melee::server {
namespace {

using std::chrono::milliseconds;

TEST(RateLimiterTest, BurstThenRefillAtTheRate) {
  const auto start = std::chrono::steady_clock::now();
  RateLimiter limiter(10.0, 3.0, start);  // 10 per second, burst 3
  EXPECT_TRUE(limiter.TryTake(start));
  EXPECT_TRUE(limiter.TryTake(start));
  EXPECT_TRUE(limiter.TryTake(start));
  EXPECT_FALSE(limiter.TryTake(start));
  EXPECT_FALSE(limiter.TryTake(start + milliseconds(50)));  // half a token
  EXPECT_TRUE(limiter.TryTake(start + milliseconds(110)));  // a whole one by now
  EXPECT_FALSE(limiter.TryTake(start + milliseconds(110)));
}

TEST(RateLimiterTest, NeverHoldsMoreThanTheBurst) {
  const auto start = std::chrono::steady_clock::now();
  RateLimiter limiter(1000.0, 2.0, start);
  const auto later = start + std::chrono::seconds(60);
  EXPECT_TRUE(limiter.TryTake(later));
  EXPECT_TRUE(limiter.TryTake(later));
  EXPECT_FALSE(limiter.TryTake(later));
}

}  // namespace
}  // namespace melee::server
