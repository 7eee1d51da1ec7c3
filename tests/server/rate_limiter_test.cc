#include <gtest/gtest.h>

#include "server/transport/rate_limiter.h"

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

TEST(AddressRateLimiterTest, EachAddressHasItsBucketAndARetryAfter) {
  const auto start = std::chrono::steady_clock::now();
  AddressRateLimiter limiter(6.0, 2.0);  // 6 a minute: one every 10 s, burst 2
  long retry_after = 0;
  EXPECT_TRUE(limiter.TryTake("a", start, &retry_after));
  EXPECT_TRUE(limiter.TryTake("a", start, &retry_after));
  EXPECT_FALSE(limiter.TryTake("a", start + std::chrono::seconds(3), &retry_after));
  EXPECT_EQ(retry_after, 7);
  EXPECT_TRUE(limiter.TryTake("b", start, &retry_after)) << "another address has its own";
  EXPECT_TRUE(limiter.TryTake("a", start + std::chrono::seconds(10), &retry_after));
  AddressRateLimiter unlimited(0, 1);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(unlimited.TryTake("a", start));
}

}  // namespace
}  // namespace melee::server
