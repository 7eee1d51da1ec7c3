#pragma once

// A real HTTP receiver of webhooks on 127.0.0.1 for tests (Beast, one thread): records every
// POST (its headers and body) and answers 200, or `status` when a test wants it to fail. It can
// be stopped and started again on the same port (a receiver that is down for a while).

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace melee::testing {

class WebhookReceiver {
 public:
  struct Request {
    std::string target;
    std::string delivery;   // X-Melee-Delivery
    std::string signature;  // X-Melee-Signature
    std::string content_type;
    std::string body;
    std::chrono::steady_clock::time_point arrived;
  };

  // Listens on `port` (0: a free one).
  explicit WebhookReceiver(uint16_t port = 0) { Start(port); }
  ~WebhookReceiver() { Stop(); }

  void Start(uint16_t port) {
    namespace asio = boost::asio;
    acceptor_ = std::make_unique<asio::ip::tcp::acceptor>(ioc_);
    const asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);
    acceptor_->open(endpoint.protocol());
    acceptor_->set_option(asio::socket_base::reuse_address(true));
    acceptor_->bind(endpoint);
    acceptor_->listen();
    port_ = acceptor_->local_endpoint().port();
    stopping_ = false;
    thread_ = std::thread([this] { Serve(); });
  }

  // Closes the listening socket: connections are refused until Start() again.
  void Stop() {
    if (!thread_.joinable()) return;
    stopping_ = true;
    boost::system::error_code ignored;
    // Wakes the blocking accept with a connection of our own.
    boost::asio::ip::tcp::socket poke(ioc_);
    poke.connect({boost::asio::ip::make_address("127.0.0.1"), port_}, ignored);
    thread_.join();
    acceptor_->close(ignored);
  }

  uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  void set_status(int status) {
    std::lock_guard lock(mutex_);
    status_ = status;
  }

  // Waits until at least `count` requests arrived (or `timeout`); returns them all.
  std::vector<Request> WaitFor(size_t count,
                               std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, timeout, [&] { return requests_.size() >= count; });
    return requests_;
  }
  std::vector<Request> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  void Serve() {
    namespace http = boost::beast::http;
    while (!stopping_) {
      boost::system::error_code ec;
      boost::asio::ip::tcp::socket socket(ioc_);
      acceptor_->accept(socket, ec);
      if (ec || stopping_) continue;
      boost::beast::flat_buffer buffer;
      http::request<http::string_body> request;
      http::read(socket, buffer, request, ec);
      if (ec) continue;
      int status = 200;
      {
        std::lock_guard lock(mutex_);
        status = status_;
        if (status == 200) {
          requests_.push_back(Request{std::string(request.target()),
                                      std::string(request["X-Melee-Delivery"]),
                                      std::string(request["X-Melee-Signature"]),
                                      std::string(request[http::field::content_type]),
                                      request.body(), std::chrono::steady_clock::now()});
        }
      }
      cv_.notify_all();
      http::response<http::string_body> response{static_cast<http::status>(status), 11};
      response.body() = "ok";
      response.prepare_payload();
      http::write(socket, response, ec);
      socket.shutdown(boost::asio::ip::tcp::socket::shutdown_both, ec);
    }
  }

  boost::asio::io_context ioc_;
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  int status_ = 200;
  std::vector<Request> requests_;
};

}  // namespace melee::testing
