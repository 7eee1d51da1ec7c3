// CoalescingStream: frames written while corked leave in one write of the layer below, in order;
// the buffer is bounded; errors stick; teardown flushes first; the owner may go away mid-write.

#include "server/transport/coalescing_stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace melee::server {
namespace {

namespace asio = boost::asio;
using boost::beast::error_code;

// The layer below: records every write it is given; completes each one when the test says so.
struct Recorder {
  std::vector<std::string> writes;
  std::vector<const void*> first_bytes;   // where each write's first buffer points
  std::size_t accept_at_most = SIZE_MAX;  // a write takes no more than this (a full socket buffer)
  std::size_t buffers_at_most = 16;       // nor more buffers than this (a socket's sendmsg)
  std::vector<std::function<void()>> pending;  // completions the test has not released
  error_code fail_with;
  bool hold = false;  // keep completions until Release()
  bool torn_down = false;

  void Release() {
    auto completions = std::move(pending);
    pending.clear();
    for (auto& complete : completions) complete();
  }
};

class FakeLayer {
 public:
  using executor_type = asio::io_context::executor_type;

  FakeLayer(asio::io_context& io, std::shared_ptr<Recorder> recorder)
      : executor_(io.get_executor()), recorder_(std::move(recorder)) {}

  executor_type get_executor() const { return executor_; }
  Recorder& recorder() { return *recorder_; }

  template <class Buffers, class Handler>
  void async_write_some(const Buffers& buffers, Handler&& handler) {
    std::string taken;
    std::size_t count = 0;
    for (auto it = asio::buffer_sequence_begin(buffers);
         it != asio::buffer_sequence_end(buffers) && count < recorder_->buffers_at_most;
         ++it, ++count) {
      const asio::const_buffer buffer(*it);
      taken.append(static_cast<const char*>(buffer.data()), buffer.size());
    }
    std::string bytes = taken.substr(0, std::min(taken.size(), recorder_->accept_at_most));
    const std::size_t size = bytes.size();
    recorder_->writes.push_back(std::move(bytes));
    recorder_->first_bytes.push_back(asio::buffer_sequence_begin(buffers)->data());
    auto complete = [executor = executor_, ec = recorder_->fail_with, size,
                     handler = std::forward<Handler>(handler)]() mutable {
      asio::post(executor, [ec, size, handler = std::move(handler)]() mutable {
        std::move(handler)(ec, ec ? std::size_t{0} : size);
      });
    };
    if (recorder_->hold) {
      recorder_->pending.push_back(std::move(complete));
    } else {
      complete();
    }
  }

  template <class Buffers, class Handler>
  void async_read_some(const Buffers&, Handler&& handler) {
    asio::post(executor_, [handler = std::forward<Handler>(handler)]() mutable {
      std::move(handler)(error_code{}, std::size_t{0});
    });
  }

 private:
  executor_type executor_;
  std::shared_ptr<Recorder> recorder_;
};

template <class Handler>
void async_teardown(boost::beast::role_type, FakeLayer& layer, Handler&& handler) {
  layer.recorder().torn_down = true;
  asio::post(layer.get_executor(), [handler = std::forward<Handler>(handler)]() mutable {
    std::move(handler)(error_code{});
  });
}

class CoalescingStreamTest : public ::testing::Test {
 protected:
  std::shared_ptr<Recorder> recorder_ = std::make_shared<Recorder>();
  asio::io_context io_;
  CoalescingStream<FakeLayer> stream_{FakeLayer(io_, recorder_)};

  // Runs every handler that is ready, then returns (the io_context may be run again after).
  void Drain() {
    io_.restart();
    io_.poll();
  }

  // Writes `bytes` and records the completion in `results`.
  void Write(const std::string& bytes, std::vector<std::pair<error_code, std::size_t>>& results) {
    stream_.async_write_some(asio::buffer(bytes), [&results](error_code ec, std::size_t n) {
      results.emplace_back(ec, n);
    });
  }
};

TEST_F(CoalescingStreamTest, FramesWrittenWhileCorkedLeaveInOneWriteInOrder) {
  std::vector<std::pair<error_code, std::size_t>> results;
  stream_.Cork(true);
  Write("first ", results);
  Write("second ", results);
  Write("third", results);
  io_.run();
  io_.restart();
  // Each frame is accepted at once; nothing reaches the layer below while corked.
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[1], std::make_pair(error_code{}, std::size_t{7}));
  EXPECT_TRUE(recorder_->writes.empty());

  stream_.Cork(false);
  io_.run();
  ASSERT_EQ(recorder_->writes.size(), 1u);
  EXPECT_EQ(recorder_->writes[0], "first second third");
}

TEST_F(CoalescingStreamTest, AWriteWithNothingAheadOfItGoesDownUncopied) {
  std::vector<std::pair<error_code, std::size_t>> results;
  const std::string frame = "a frame";
  Write(frame, results);
  ASSERT_EQ(recorder_->writes.size(), 1u) << "passed down at once, not scheduled";
  EXPECT_EQ(recorder_->first_bytes[0], frame.data()) << "the caller's own bytes";
  EXPECT_TRUE(results.empty()) << "complete only once the layer below has taken them";
  io_.run();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0], std::make_pair(error_code{}, frame.size()));
  EXPECT_EQ(stream_.buffer_capacity(), 0u);
}

// A session's write of ten frames is twenty buffers, more than a socket's sendmsg gathers (16):
// passed down as they are, the last frames would leave in a second write. Copied into one, they
// leave in one, in order; the writer completes once they are taken, and the buffer goes after.
TEST_F(CoalescingStreamTest, MoreBuffersThanOneWriteBelowTakesLeaveInOneWrite) {
  std::vector<std::string> parts;
  std::string expected;
  for (int i = 0; i < 10; ++i) {
    parts.push_back("h" + std::to_string(i));
    parts.push_back("frame " + std::to_string(i) + ";");
  }
  std::vector<asio::const_buffer> buffers;
  for (const std::string& part : parts) {
    buffers.emplace_back(part.data(), part.size());
    expected += part;
  }
  std::vector<std::pair<error_code, std::size_t>> results;
  stream_.async_write_some(
      buffers, [&results](error_code ec, std::size_t n) { results.emplace_back(ec, n); });
  io_.run();
  ASSERT_EQ(recorder_->writes.size(), 1u);
  EXPECT_EQ(recorder_->writes[0], expected);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0], std::make_pair(error_code{}, expected.size()));
  EXPECT_EQ(stream_.buffer_capacity(), 0u);

  // Sixteen buffers still go down as they are, uncopied.
  buffers.resize(16);
  io_.restart();
  stream_.async_write_some(
      buffers, [&results](error_code ec, std::size_t n) { results.emplace_back(ec, n); });
  ASSERT_EQ(recorder_->writes.size(), 2u);
  EXPECT_EQ(recorder_->first_bytes[1], parts[0].data());
  io_.run();
  EXPECT_EQ(results.size(), 2u);
}

TEST_F(CoalescingStreamTest, WhatArrivesDuringAWriteIsFlushedTogetherBeforeTheFlushRuns) {
  std::vector<std::pair<error_code, std::size_t>> results;
  Write("a", results);  // passed down
  Write("b", results);  // while "a" is under way: joins whatever follows before the flush
  Write("c", results);
  io_.run();
  ASSERT_EQ(recorder_->writes.size(), 2u);
  EXPECT_EQ(recorder_->writes[0], "a");
  EXPECT_EQ(recorder_->writes[1], "bc");
  EXPECT_EQ(results.size(), 3u);
}

TEST_F(CoalescingStreamTest, WhatTheLayerBelowLeavesOfAWriteGoesFirstAndWhole) {
  // The layer below takes 4 bytes a write (a socket buffer nearly full). The caller is told
  // every byte is taken, and the rest of its bytes leave before a frame written meanwhile, so
  // that no other writer's bytes land inside a frame.
  std::vector<std::pair<error_code, std::size_t>> results;
  recorder_->accept_at_most = 4;
  recorder_->hold = true;
  const std::string first = "0123456789";
  Write(first, results);
  Write("|close|", results);  // arrives while the first write is under way
  recorder_->Release();
  Drain();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0], std::make_pair(error_code{}, std::size_t{7}));  // copied: at once
  EXPECT_EQ(results[1], std::make_pair(error_code{}, first.size()));
  recorder_->hold = false;
  recorder_->Release();
  Drain();
  std::string written;
  for (const std::string& w : recorder_->writes) written += w;
  EXPECT_EQ(written, "0123456789|close|");
  EXPECT_EQ(stream_.buffer_capacity(), 0u);
}

TEST_F(CoalescingStreamTest, BytesArrivingDuringAWriteFollowInTheNextOne) {
  std::vector<std::pair<error_code, std::size_t>> results;
  recorder_->hold = true;
  Write("one", results);
  Drain();  // the flush starts and waits in the layer below
  ASSERT_EQ(recorder_->writes.size(), 1u);
  Write("two", results);
  Write("three", results);
  Drain();
  EXPECT_EQ(recorder_->writes.size(), 1u);  // still one write under way
  recorder_->hold = false;
  recorder_->Release();
  Drain();
  ASSERT_EQ(recorder_->writes.size(), 2u);
  EXPECT_EQ(recorder_->writes[1], "twothree");
}

TEST_F(CoalescingStreamTest, PastTheHighWaterMarkAWriterWaitsForTheLayerBelow) {
  using Stream = CoalescingStream<FakeLayer>;
  std::vector<std::pair<error_code, std::size_t>> results;
  recorder_->hold = true;
  stream_.Cork(true);
  const std::string half(Stream::kHighWater / 2 + 1, 'x');
  Write(half, results);
  Drain();
  EXPECT_EQ(results.size(), 1u);           // under the mark: accepted at once
  EXPECT_TRUE(recorder_->writes.empty());  // corked
  Write(half, results);                    // over the mark: a write starts even though corked
  Drain();
  EXPECT_EQ(results.size(), 1u) << "the second writer must wait for the layer below";
  EXPECT_EQ(recorder_->writes.size(), 1u);
  recorder_->hold = false;
  recorder_->Release();
  Drain();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[1], std::make_pair(error_code{}, half.size()));
  std::string written;
  for (const std::string& w : recorder_->writes) written += w;
  EXPECT_EQ(written, half + half);
}

TEST_F(CoalescingStreamTest, AFailedWriteFailsEveryLaterWrite) {
  std::vector<std::pair<error_code, std::size_t>> results;
  recorder_->fail_with = asio::error::connection_reset;
  Write("lost", results);  // passed down: its own failure is its answer
  io_.run();
  io_.restart();
  Write("after", results);
  io_.run();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].first, asio::error::connection_reset);
  EXPECT_EQ(results[1].first, asio::error::connection_reset);
  EXPECT_EQ(recorder_->writes.size(), 1u);
}

TEST_F(CoalescingStreamTest, AFailedFlushFailsTheWritesAfterIt) {
  std::vector<std::pair<error_code, std::size_t>> results;
  stream_.Cork(true);
  Write("copied", results);  // accepted into the buffer at once
  recorder_->fail_with = asio::error::connection_reset;
  stream_.Cork(false);
  io_.run();
  io_.restart();
  Write("after", results);
  io_.run();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(results[0].first);  // accepted before the failure was known
  EXPECT_EQ(results[1].first, asio::error::connection_reset);
  EXPECT_EQ(recorder_->writes.size(), 1u);
}

TEST_F(CoalescingStreamTest, TeardownSendsWhatIsBufferedFirst) {
  std::vector<std::pair<error_code, std::size_t>> results;
  stream_.Cork(true);
  Write("close frame", results);
  bool done = false;
  async_teardown(boost::beast::role_type::server, stream_, [&](error_code ec) {
    EXPECT_FALSE(ec);
    // By the time the layer below is torn down, the close frame has been written to it.
    EXPECT_EQ(recorder_->writes, std::vector<std::string>{"close frame"});
    done = true;
  });
  io_.run();
  EXPECT_TRUE(done);
  EXPECT_TRUE(recorder_->torn_down);
}

TEST_F(CoalescingStreamTest, AConnectionBetweenBurstsHoldsNoBuffer) {
  std::vector<std::pair<error_code, std::size_t>> results;
  recorder_->hold = true;
  const std::string frame(8 * 1024, 'x');
  stream_.Cork(true);
  for (int i = 0; i < 4; ++i) Write(frame, results);
  stream_.Cork(false);
  Drain();  // the burst is in the layer below, not yet written
  ASSERT_EQ(recorder_->writes.size(), 1u);
  EXPECT_GE(stream_.buffer_capacity(), 4 * frame.size());
  Write(frame, results);  // joins the next write
  recorder_->Release();
  Drain();
  recorder_->Release();
  Drain();
  ASSERT_EQ(recorder_->writes.size(), 2u);
  EXPECT_EQ(recorder_->writes[1], frame);
  // Everything is written: the 40 KiB the burst needed are given back.
  EXPECT_EQ(stream_.buffer_capacity(), 0u);
}

TEST_F(CoalescingStreamTest, TheOwnerMayGoAwayWhileAWriteIsUnderWay) {
  recorder_->hold = true;
  const std::string bytes = "in flight";  // the caller's, kept until its write completes
  {
    CoalescingStream<FakeLayer> owned{FakeLayer(io_, recorder_)};
    owned.async_write_some(asio::buffer(bytes), [](error_code, std::size_t) {});
    Drain();
    ASSERT_EQ(recorder_->writes.size(), 1u);
  }  // destroyed with its write still in the layer below
  recorder_->Release();
  Drain();  // the completion runs against the shared state it kept alive (ASan checks)
  EXPECT_EQ(recorder_->writes.size(), 1u);
}

}  // namespace
}  // namespace melee::server
