// Fifo: the vector-backed queue of a match's waiting commands and a session's frames.

#include "server/fifo.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace melee::server {
namespace {

TEST(FifoTest, GivesItemsBackInTheOrderTheyCame) {
  Fifo<std::string> fifo;
  EXPECT_TRUE(fifo.empty());
  fifo.push_back("a");
  fifo.push_back("b");
  fifo.push_back("c");
  EXPECT_EQ(fifo.size(), 3u);
  EXPECT_EQ(fifo.front(), "a");
  EXPECT_EQ(fifo.back(), "c");
  fifo.pop_front();
  EXPECT_EQ(fifo.front(), "b");
  fifo.push_back("d");
  fifo.pop_front();
  fifo.pop_front();
  EXPECT_EQ(fifo.front(), "d");
  fifo.pop_front();
  EXPECT_TRUE(fifo.empty());
  EXPECT_EQ(fifo.size(), 0u);
}

TEST(FifoTest, AQueueThatNeverDrainsStaysInOrderAndReleasesWhatItGaveBack) {
  // Always a few behind: the consumed prefix is dropped as it goes, never the order.
  Fifo<std::unique_ptr<int>> fifo;
  int next_in = 0;
  int next_out = 0;
  for (int round = 0; round < 1000; ++round) {
    fifo.push_back(std::make_unique<int>(next_in++));
    fifo.push_back(std::make_unique<int>(next_in++));
    ASSERT_EQ(*fifo.front(), next_out++);
    fifo.pop_front();
    if (round % 3 == 0) {
      ASSERT_EQ(*fifo.front(), next_out++);
      fifo.pop_front();
    }
    ASSERT_EQ(fifo.size(), static_cast<size_t>(next_in - next_out));
  }
  while (!fifo.empty()) {
    ASSERT_EQ(*fifo.front(), next_out++);
    fifo.pop_front();
  }
  EXPECT_EQ(next_out, next_in);
}

TEST(FifoTest, APoppedItemIsReleasedAtOnce) {
  Fifo<std::shared_ptr<int>> fifo;
  auto held = std::make_shared<int>(7);
  std::weak_ptr<int> watch = held;
  fifo.push_back(std::move(held));
  fifo.push_back(std::make_shared<int>(8));
  fifo.pop_front();
  EXPECT_TRUE(watch.expired());  // not kept alive in the consumed prefix
  EXPECT_EQ(*fifo.front(), 8);
  fifo.pop_front();
  EXPECT_TRUE(fifo.empty());
}

}  // namespace
}  // namespace melee::server
