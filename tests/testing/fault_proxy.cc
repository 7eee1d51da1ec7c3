#include "tests/testing/fault_proxy.h"

#include <algorithm>
#include <array>
#include <boost/asio.hpp>
#include <deque>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace melee::testing {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kTrickleBytes = 7;
constexpr auto kTricklePause = std::chrono::milliseconds(1);

// Follows one direction of a WebSocket connection byte by byte: the HTTP upgrade, then frame
// headers and payloads (RFC 6455 5.2), to find frame boundaries.
class FrameBoundaries {
 public:
  // Walks `size` bytes; returns how many of them come before the cut, which falls at the end of
  // the frame that brings `cut_in` down to 0 (`size` when that frame does not end here).
  // `cut_in` < 0: no cut.
  std::size_t Walk(const char* data, std::size_t size, int& cut_in) {
    std::size_t i = 0;
    while (i < size) {
      if (in_upgrade_) {
        static constexpr char kEnd[] = "\r\n\r\n";
        const char c = data[i++];
        matched_ = c == kEnd[matched_] ? matched_ + 1 : (c == '\r' ? 1 : 0);
        if (matched_ == 4) in_upgrade_ = false;
        continue;
      }
      if (payload_left_ > 0) {
        const auto take = static_cast<std::size_t>(
            std::min<uint64_t>(payload_left_, static_cast<uint64_t>(size - i)));
        i += take;
        payload_left_ -= take;
        if (payload_left_ == 0 && FrameEnded(cut_in)) return i;
        continue;
      }
      header_.push_back(static_cast<unsigned char>(data[i++]));
      if (header_.size() < 2) continue;
      const unsigned length7 = header_[1] & 0x7F;
      const std::size_t extended = length7 == 126 ? 2 : (length7 == 127 ? 8 : 0);
      const std::size_t mask = (header_[1] & 0x80) != 0 ? 4 : 0;
      if (header_.size() < 2 + extended + mask) continue;
      uint64_t length = length7;
      if (extended > 0) {
        length = 0;
        for (std::size_t k = 0; k < extended; ++k) length = (length << 8) | header_[2 + k];
      }
      header_.clear();
      payload_left_ = length;
      if (payload_left_ == 0 && FrameEnded(cut_in)) return i;
    }
    return size;
  }

 private:
  bool FrameEnded(int& cut_in) { return cut_in > 0 && --cut_in == 0; }

  bool in_upgrade_ = true;
  int matched_ = 0;
  std::vector<unsigned char> header_;
  uint64_t payload_left_ = 0;
};

struct Settings {
  std::chrono::milliseconds delay{0};
  bool trickle = false;
  FaultProxy::Direction cut_direction = FaultProxy::Direction::kToClient;
  int cut_frames = 0;
  bool blackhole = false;
};

class Connection;

// One direction of a connection: reads from one socket, writes to the other.
struct Pipe {
  FaultProxy::Direction direction;
  tcp::socket* from = nullptr;
  tcp::socket* to = nullptr;
  std::array<char, 16384> buffer{};
  FrameBoundaries boundaries;
  int cut_in = -1;
  struct Chunk {
    std::string bytes;
    Clock::time_point due;
  };
  std::deque<Chunk> queue;
  std::size_t written = 0;  // of queue.front()
  bool writing = false;
  bool ended = false;  // the read side is done (or the cut is reached): close after the queue
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket down, asio::io_context& io, const Settings& settings,
             std::function<void()> on_cut)
      : down_(std::move(down)),
        up_(io),
        timer_to_server_(io),
        timer_to_client_(io),
        settings_(settings),
        on_cut_(std::move(on_cut)) {
    pipes_[0].direction = FaultProxy::Direction::kToServer;
    pipes_[0].from = &down_;
    pipes_[0].to = &up_;
    pipes_[1].direction = FaultProxy::Direction::kToClient;
    pipes_[1].from = &up_;
    pipes_[1].to = &down_;
    silent_ = settings.blackhole;
    Cut(settings.cut_direction, settings.cut_frames);
  }

  void Start(const tcp::endpoint& upstream) {
    up_.async_connect(upstream, [self = shared_from_this()](error_code ec) {
      if (ec) return self->Close(false);
      self->Read(self->pipes_[0]);
      self->Read(self->pipes_[1]);
    });
  }

  void Cut(FaultProxy::Direction direction, int frames) {
    for (Pipe& pipe : pipes_) {
      pipe.cut_in = pipe.direction == direction && frames > 0 ? frames : -1;
    }
  }

  void Silence() { silent_ = true; }

  // Both sides get an RST.
  void Reset() {
    error_code ignored;
    for (tcp::socket* socket : {&down_, &up_}) {
      if (!socket->is_open()) continue;
      socket->set_option(asio::socket_base::linger(true, 0), ignored);
      socket->close(ignored);
    }
    closed_ = true;
  }

  bool closed() const { return closed_; }

 private:
  asio::steady_timer& TimerOf(const Pipe& pipe) {
    return pipe.direction == FaultProxy::Direction::kToServer ? timer_to_server_ : timer_to_client_;
  }

  void Read(Pipe& pipe) {
    pipe.from->async_read_some(asio::buffer(pipe.buffer), [self = shared_from_this(), &pipe](
                                                              error_code ec, std::size_t size) {
      if (self->closed_) return;
      if (ec) {
        pipe.ended = true;
        return self->Flush(pipe);
      }
      if (self->silent_) return self->Read(pipe);  // lost in the partition
      std::size_t keep = pipe.boundaries.Walk(pipe.buffer.data(), size, pipe.cut_in);
      const bool cut = pipe.cut_in == 0;
      if (keep > 0) {
        pipe.queue.push_back(Pipe::Chunk{std::string(pipe.buffer.data(), keep),
                                         Clock::now() + self->settings_.delay});
      }
      if (cut) {
        pipe.ended = true;
        self->cut_ = true;
        return self->Flush(pipe);
      }
      self->Flush(pipe);
      self->Read(pipe);
    });
  }

  // Writes what is queued, in order, each chunk once it is due; closes the connection when the
  // pipe has ended and nothing is left.
  void Flush(Pipe& pipe) {
    if (pipe.writing || closed_) return;
    if (pipe.queue.empty()) {
      if (pipe.ended) Close(cut_);
      return;
    }
    if (silent_) return;
    Pipe::Chunk& chunk = pipe.queue.front();
    if (Clock::now() < chunk.due) {
      pipe.writing = true;
      TimerOf(pipe).expires_at(chunk.due);
      TimerOf(pipe).async_wait([self = shared_from_this(), &pipe](error_code) {
        pipe.writing = false;
        self->Flush(pipe);
      });
      return;
    }
    const std::size_t left = chunk.bytes.size() - pipe.written;
    const std::size_t size = settings_.trickle ? std::min(left, kTrickleBytes) : left;
    pipe.writing = true;
    asio::async_write(*pipe.to, asio::buffer(chunk.bytes.data() + pipe.written, size),
                      [self = shared_from_this(), &pipe](error_code ec, std::size_t written) {
                        pipe.writing = false;
                        if (ec) return self->Close(false);
                        pipe.written += written;
                        if (pipe.written == pipe.queue.front().bytes.size()) {
                          pipe.queue.pop_front();
                          pipe.written = 0;
                        }
                        if (self->settings_.trickle && !pipe.queue.empty()) {
                          pipe.queue.front().due =
                              std::max(pipe.queue.front().due, Clock::now() + kTricklePause);
                        }
                        self->Flush(pipe);
                      });
  }

  void Close(bool cut) {
    if (closed_) return;
    closed_ = true;
    error_code ignored;
    for (tcp::socket* socket : {&down_, &up_}) {
      socket->shutdown(tcp::socket::shutdown_both, ignored);
      socket->close(ignored);
    }
    timer_to_server_.cancel();
    timer_to_client_.cancel();
    if (cut) on_cut_();
  }

  tcp::socket down_;
  tcp::socket up_;
  asio::steady_timer timer_to_server_;
  asio::steady_timer timer_to_client_;
  const Settings& settings_;
  std::function<void()> on_cut_;
  std::array<Pipe, 2> pipes_;
  bool silent_ = false;
  bool cut_ = false;
  bool closed_ = false;
};

}  // namespace

struct FaultProxy::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  tcp::endpoint upstream;
  Settings settings;
  std::vector<std::weak_ptr<Connection>> connections;
  int accepted = 0;
  int cuts = 0;
  std::thread thread;

  void Accept() {
    acceptor.async_accept([this](error_code ec, tcp::socket socket) {
      if (ec) return;  // closed
      ++accepted;
      socket.set_option(tcp::no_delay(true));
      auto connection =
          std::make_shared<Connection>(std::move(socket), io, settings, [this] { ++cuts; });
      std::erase_if(connections, [](const std::weak_ptr<Connection>& c) { return c.expired(); });
      connections.push_back(connection);
      connection->Start(upstream);
      Accept();
    });
  }

  // Runs `change` on the proxy thread and waits for it.
  template <class F>
  void Apply(F change) {
    std::promise<void> done;
    asio::post(io, [&] {
      change();
      done.set_value();
    });
    done.get_future().wait();
  }

  template <class F>
  void ForEachOpen(F action) {
    for (const auto& weak : connections) {
      if (auto connection = weak.lock(); connection && !connection->closed()) action(*connection);
    }
  }
};

FaultProxy::FaultProxy(uint16_t upstream_port) : impl_(std::make_shared<Impl>()) {
  impl_->upstream = tcp::endpoint(asio::ip::address_v4::loopback(), upstream_port);
  const tcp::endpoint local(asio::ip::address_v4::loopback(), 0);
  impl_->acceptor.open(local.protocol());
  impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  impl_->acceptor.bind(local);
  impl_->acceptor.listen();
  impl_->Accept();
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

FaultProxy::~FaultProxy() {
  impl_->Apply([&] {
    error_code ignored;
    impl_->acceptor.close(ignored);
    impl_->ForEachOpen([](Connection& connection) { connection.Reset(); });
  });
  impl_->io.stop();
  impl_->thread.join();
}

uint16_t FaultProxy::port() const { return impl_->acceptor.local_endpoint().port(); }

std::string FaultProxy::ws_url() const {
  return "ws://127.0.0.1:" + std::to_string(port()) + "/ws";
}

void FaultProxy::SetDelay(std::chrono::milliseconds delay) {
  impl_->Apply([&] { impl_->settings.delay = delay; });
}

void FaultProxy::SetTrickle(bool on) {
  impl_->Apply([&] { impl_->settings.trickle = on; });
}

void FaultProxy::DropAfterFrames(Direction direction, int frames) {
  impl_->Apply([&] {
    impl_->settings.cut_direction = direction;
    impl_->settings.cut_frames = frames;
    impl_->ForEachOpen([&](Connection& connection) { connection.Cut(direction, frames); });
  });
}

void FaultProxy::ResetAll() {
  impl_->Apply([&] {
    impl_->ForEachOpen([&](Connection& connection) {
      connection.Reset();
      ++impl_->cuts;
    });
  });
}

void FaultProxy::Blackhole() {
  impl_->Apply([&] {
    impl_->settings.blackhole = true;
    impl_->ForEachOpen([](Connection& connection) { connection.Silence(); });
  });
}

void FaultProxy::Heal() {
  impl_->Apply([&] { impl_->settings.blackhole = false; });
}

int FaultProxy::connections() const {
  int count = 0;
  impl_->Apply([&] { count = impl_->accepted; });
  return count;
}

int FaultProxy::cuts() const {
  int count = 0;
  impl_->Apply([&] { count = impl_->cuts; });
  return count;
}

}  // namespace melee::testing
