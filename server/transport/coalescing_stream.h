#pragma once

// A stream layer that gathers the bytes of several WebSocket frames and hands them to the layer
// below in one write (one `sendmsg`, or one TLS write) instead of one per frame.
//
// Why: a command fans out into several frames per connection (its events, the seat's new view,
// the answer). Written one by one, each costs a system call on the server and a wakeup on the
// client; the load benchmark spent most of the server's CPU in the kernel doing exactly that.
// The WebSocket session now hands over all the frames queued for it in one write (ws_frame.h),
// which goes down as it is when nothing is ahead of it; what is written while a write is under
// way (Beast's control frames, the session's next batch) is gathered here and follows in one
// write. Corking is for an owner that writes frame by frame; the session does not need it.
//
// How: when nothing waits to be written and the layer is not corked, `async_write_some` hands
// the caller's bytes to the layer below as they are (no copy), unless they come in more buffers
// than one write below takes (kMaxPassedDownBuffers: then copied, and written at once); a write
// that leaves some of them behind (a full socket buffer) keeps the rest, first in line, and
// completes, so one caller's bytes are never split by another's. Otherwise the bytes are copied
// into a buffer and the write completes at once. While the owner holds the layer corked (it knows
// more frames follow), bytes only accumulate; otherwise a flush is scheduled on the executor, so
// every frame written before it runs goes out together. A flush also starts when the buffer passes
// `kHighWater`, and writers then wait for it, so memory stays bounded and a slow reader still backs
// up into the owner's queue, where it is detected.
//
// Once everything is written the buffers are freed, so an idle connection holds none.
//
// The buffers and the layer below live in a shared state that an in-flight flush keeps alive, so
// the owner may be destroyed at any time. `async_teardown` flushes before tearing the layer below
// down, so a close frame is never lost.

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/append.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_suffix.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/role.hpp>
#include <boost/beast/websocket/teardown.hpp>
#include <cstddef>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace melee::server {

template <class NextLayer>
class CoalescingStream {
 public:
  using next_layer_type = NextLayer;
  using executor_type = typename NextLayer::executor_type;

  // Past this many buffered bytes a flush starts even while corked, and writers wait for it.
  static constexpr std::size_t kHighWater = 64 * 1024;
  // The most buffers a write passed down as it is may hold. A socket takes at most 16 in one
  // `sendmsg` (Asio's max_iov_len when the platform's IOV_MAX is not in sight, as here), so a
  // session's 9th frame (header and bytes, two buffers each) would leave in a second `sendmsg`
  // of its own: more buffers than this are copied into one and leave in one write.
  static constexpr std::size_t kMaxPassedDownBuffers = 16;

  explicit CoalescingStream(NextLayer&& next) : impl_(std::make_shared<Impl>(std::move(next))) {}

  executor_type get_executor() noexcept { return impl_->next.get_executor(); }
  NextLayer& next_layer() noexcept { return impl_->next; }
  const NextLayer& next_layer() const noexcept { return impl_->next; }

  // Bytes of buffer the layer holds now (capacity, written or not): none once all is written.
  std::size_t buffer_capacity() const noexcept {
    return impl_->pending.capacity() + impl_->in_flight.capacity();
  }

  // While corked, written bytes wait for more; uncorking schedules a flush of what waits.
  // Called on the stream's executor.
  void Cork(bool corked) {
    impl_->corked = corked;
    if (!corked) Impl::Schedule(impl_);
  }

  template <class MutableBuffers, class Token>
  auto async_read_some(const MutableBuffers& buffers, Token&& token) {
    return impl_->next.async_read_some(buffers, std::forward<Token>(token));
  }

  // Takes every byte of `buffers` (what the layer below leaves, it keeps and writes next): the
  // completion reports them all written, or an error. So one call is a whole write, however
  // many buffers it holds.
  template <class ConstBuffers, class Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::beast::error_code, std::size_t)>(
        [](auto handler, std::shared_ptr<Impl> impl, const ConstBuffers& data) {
          const std::size_t size = boost::asio::buffer_size(data);
          if (impl->error) {
            return boost::asio::post(
                impl->next.get_executor(),
                boost::asio::append(std::move(handler), impl->error, std::size_t{0}));
          }
          const bool idle = !impl->corked && !impl->writing && impl->pending.empty();
          if (idle && Impl::Count(data) <= kMaxPassedDownBuffers) {
            return Impl::PassDown(impl, data, size, std::move(handler));
          }
          Impl::Append(impl->pending, data);
          if (impl->pending.size() + impl->in_flight.size() > kHighWater) {
            impl->waiting.push_back(Waiting{std::move(handler), size});
            Impl::Start(impl);
            return;
          }
          if (idle) {
            Impl::Start(impl);  // too many buffers to pass down: copied, they leave now, in one
          } else if (!impl->corked) {
            Impl::Schedule(impl);
          }
          boost::asio::post(
              impl->next.get_executor(),
              boost::asio::append(std::move(handler), boost::beast::error_code{}, size));
        },
        token, impl_, buffers);
  }

  // Completes once every byte written so far has reached the layer below (or failed).
  template <class Token>
  auto async_flush(Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::beast::error_code)>(
        [](auto handler, std::shared_ptr<Impl> impl) {
          impl->corked = false;
          if (impl->pending.empty() && !impl->writing) {
            return boost::asio::post(impl->next.get_executor(),
                                     boost::asio::append(std::move(handler), impl->error));
          }
          impl->flushed.push_back(std::move(handler));
          Impl::Start(impl);
        },
        token, impl_);
  }

 private:
  struct Waiting {
    boost::asio::any_completion_handler<void(boost::beast::error_code, std::size_t)> handler;
    std::size_t size;
  };

  struct Impl {
    explicit Impl(NextLayer&& layer) : next(std::move(layer)) {}

    // Starts a flush on the executor unless one is scheduled or under way.
    static void Schedule(const std::shared_ptr<Impl>& impl) {
      if (impl->scheduled || impl->writing || impl->pending.empty()) return;
      impl->scheduled = true;
      boost::asio::post(impl->next.get_executor(), [impl] {
        impl->scheduled = false;
        if (!impl->corked) Start(impl);
      });
    }

    template <class ConstBuffers>
    static std::size_t Count(const ConstBuffers& data) {
      return static_cast<std::size_t>(std::distance(boost::asio::buffer_sequence_begin(data),
                                                    boost::asio::buffer_sequence_end(data)));
    }

    // Copies `data` to the end of `to` (without first zeroing the room it takes).
    template <class ConstBuffers>
    static void Append(std::vector<char>& to, const ConstBuffers& data) {
      to.reserve(to.size() + boost::asio::buffer_size(data));
      for (auto it = boost::asio::buffer_sequence_begin(data);
           it != boost::asio::buffer_sequence_end(data); ++it) {
        const boost::asio::const_buffer buffer(*it);
        const char* bytes = static_cast<const char*>(buffer.data());
        to.insert(to.end(), bytes, bytes + buffer.size());
      }
    }

    // Nothing waits to go first: the caller's bytes go to the layer below as they are. What that
    // write leaves behind is kept, ahead of whatever arrived meanwhile, before the caller is told
    // all `size` bytes are taken; past the high-water mark the caller waits, as a copying writer.
    template <class ConstBuffers, class Handler>
    static void PassDown(const std::shared_ptr<Impl>& impl, const ConstBuffers& data,
                         std::size_t size, Handler&& handler) {
      impl->writing = true;
      impl->next.async_write_some(
          data, [impl, data, size, handler = std::forward<Handler>(handler)](
                    boost::beast::error_code ec, std::size_t written) mutable {
            impl->writing = false;
            if (!ec && written < size) {
              boost::beast::buffers_suffix<ConstBuffers> rest(data);
              rest.consume(written);
              std::vector<char> ahead;
              ahead.reserve(size - written + impl->pending.size());
              Append(ahead, rest);
              ahead.insert(ahead.end(), impl->pending.begin(), impl->pending.end());
              impl->pending.swap(ahead);
              if (impl->pending.size() > kHighWater) {
                impl->waiting.push_back(Waiting{std::move(handler), size});
                return Start(impl);
              }
            }
            Written(impl, ec);
            std::move(handler)(ec, ec ? std::size_t{0} : size);
          });
    }

    // Writes everything pending now, unless a write is under way (its completion goes on).
    static void Start(const std::shared_ptr<Impl>& impl) {
      if (impl->writing || impl->pending.empty()) return;
      impl->writing = true;
      impl->in_flight.swap(impl->pending);
      boost::asio::async_write(impl->next, boost::asio::buffer(impl->in_flight),
                               [impl](boost::beast::error_code ec, std::size_t) {
                                 impl->writing = false;
                                 impl->in_flight.clear();
                                 Written(impl, ec);
                               });
    }

    // A write of the layer below has ended (a flush, or bytes passed down): wakes the writers
    // that waited for it and goes on with what is pending, or, all written, frees the buffers.
    static void Written(const std::shared_ptr<Impl>& impl, boost::beast::error_code ec) {
      if (ec && !impl->error) impl->error = ec;
      if (impl->error) impl->pending.clear();
      // Writers past the high-water mark go on once their bytes are on their way.
      auto woken = std::move(impl->waiting);
      impl->waiting.clear();
      for (Waiting& w : woken) {
        std::move(w.handler)(impl->error, impl->error ? std::size_t{0} : w.size);
      }
      if (impl->writing) return;  // a writer woken above started the next write
      if (!impl->pending.empty() &&
          (!impl->corked || !impl->flushed.empty() || impl->pending.size() > kHighWater)) {
        return Start(impl);
      }
      if (!impl->pending.empty()) return;  // corked: the owner uncorks later
      // All written: a connection between bursts holds no buffer (a burst's capacity,
      // kept, cost some 27 KiB per connection at 1000 matches).
      impl->pending.shrink_to_fit();
      impl->in_flight.shrink_to_fit();
      auto done = std::move(impl->flushed);
      impl->flushed.clear();
      for (auto& handler : done) std::move(handler)(impl->error);
    }

    NextLayer next;
    std::vector<char> pending;    // accepted, not yet handed to `next`
    std::vector<char> in_flight;  // being written to `next`
    std::vector<Waiting> waiting;
    std::vector<boost::asio::any_completion_handler<void(boost::beast::error_code)>> flushed;
    boost::beast::error_code error;  // the first write error; every later write fails with it
    bool corked = false;
    bool scheduled = false;
    bool writing = false;
  };

  std::shared_ptr<Impl> impl_;
};

// WebSocket close: send what is buffered (the close frame among it), then tear down the layer
// below as Beast does for it (TCP shutdown, or the TLS close_notify).
template <class NextLayer, class TeardownHandler>
void async_teardown(boost::beast::role_type role, CoalescingStream<NextLayer>& stream,
                    TeardownHandler&& handler) {
  stream.async_flush(
      [role, &next = stream.next_layer(),
       handler = std::forward<TeardownHandler>(handler)](boost::beast::error_code) mutable {
        using boost::beast::websocket::async_teardown;
        async_teardown(role, next, std::move(handler));
      });
}

}  // namespace melee::server
