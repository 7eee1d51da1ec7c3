#pragma once

// Test helpers for melee::client::Client (the asynchronous client): an io_context on its own
// thread, and a Seat that records everything its client's callbacks saw so that the test
// thread can send a command and wait for its answer, or wait for an event, a view or a state.

#include <boost/asio.hpp>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client-sdk/client.h"
#include "melee/v1/envelope.pb.h"

namespace melee::testing {

namespace asio = boost::asio;

// An io_context on its own thread for the clients of one test.
class Loop {
 public:
  Loop() : guard_(asio::make_work_guard(io_)), thread_([this] { io_.run(); }) {}
  ~Loop() {
    guard_.reset();
    io_.stop();
    thread_.join();
  }
  asio::any_io_executor executor() { return io_.get_executor(); }

 private:
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::thread thread_;
};

// A client with everything its callbacks saw, for the test thread to wait on.
class Seat {
 public:
  // `timeout`: how long each wait below waits.
  Seat(asio::any_io_executor executor, client::SeatAddress address,
       client::ClientOptions options = {},
       std::chrono::milliseconds timeout = std::chrono::seconds(10))
      : client_(
            client::Client::Create(std::move(executor), std::move(address), std::move(options))),
        timeout_(timeout) {
    client_->OnEvent([this](const melee::v1::MatchEvent& event) {
      std::lock_guard lock(mutex_);
      events_.push_back(event);
      changed_.notify_all();
    });
    client_->OnView([this](const melee::v1::MatchView& view) {
      std::lock_guard lock(mutex_);
      view_ = view;
      views_.push_back(view);
      changed_.notify_all();
    });
    client_->OnState([this](client::ConnectionState state, const std::string& detail) {
      std::lock_guard lock(mutex_);
      states_.push_back(state);
      detail_ = detail;
      changed_.notify_all();
    });
  }
  // Stops the client and waits for its last callback (kStopped), which touches this object.
  ~Seat() {
    client_->Stop();
    WaitForState(client::ConnectionState::kStopped);
  }

  client::Client& client() { return *client_; }

  // Sends `command` and waits for its answer.
  client::ClientResult<melee::v1::ServerMessage> Send(melee::v1::ClientMessage command) {
    auto answer = std::make_shared<std::promise<client::ClientResult<melee::v1::ServerMessage>>>();
    auto future = answer->get_future();
    client_->Send(std::move(command),
                  [answer](client::ClientResult<melee::v1::ServerMessage> result) {
                    answer->set_value(std::move(result));
                  });
    if (future.wait_for(timeout_) != std::future_status::ready) {
      return tl::unexpected(
          client::ClientError{.message = "no answer in " + std::to_string(timeout_.count()) + " ms",
                              .close_code = {},
                              .close_reason = {},
                              .refused = false});
    }
    return future.get();
  }

  // Waits until the view covers event `seq`.
  bool WaitForSeq(uint64_t seq) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout_, [&] {
      return !events_.empty() && events_.back().seq() >= seq && view_.seq() >= seq;
    });
  }

  bool WaitForState(client::ConnectionState state) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout_,
                             [&] { return !states_.empty() && states_.back() == state; });
  }

  uint64_t last_seq() {
    std::lock_guard lock(mutex_);
    return events_.empty() ? 0 : events_.back().seq();
  }
  std::vector<uint64_t> seqs() {
    std::lock_guard lock(mutex_);
    std::vector<uint64_t> out;
    for (const melee::v1::MatchEvent& event : events_) out.push_back(event.seq());
    return out;
  }
  std::vector<melee::v1::MatchEvent> events() {
    std::lock_guard lock(mutex_);
    return events_;
  }
  melee::v1::MatchView view() {
    std::lock_guard lock(mutex_);
    return view_;
  }
  // Every view the client handed to OnView, in order.
  std::vector<melee::v1::MatchView> views() {
    std::lock_guard lock(mutex_);
    return views_;
  }
  std::string detail() {
    std::lock_guard lock(mutex_);
    return detail_;
  }

 private:
  std::shared_ptr<client::Client> client_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<melee::v1::MatchEvent> events_;
  std::vector<client::ConnectionState> states_;
  std::string detail_;
  melee::v1::MatchView view_;
  std::vector<melee::v1::MatchView> views_;
};

}  // namespace melee::testing
