#pragma once

// WsConnection: one client WebSocket connection of the load generators (match_bench, ws_bench),
// compiled once.
//
// Why: Beast's WebSocket operations are templates over their completion handler, so each lambda
// handed to `async_read`, `async_write` or `async_handshake` compiled its own copy of the whole
// operation, in each load generator (match_bench.cc took 67 s and ws_bench.cc 54 s of a fresh
// build; docs/benchmarks.md, "the build"). Here they take std::function handlers and are compiled
// once, in ws_connection.cc, and the load generators no longer read Beast's headers at all. The
// cost, one std::function a read or write, is the load generator's, not the server's.
//
// Every handler runs on the io_context's thread. The owner keeps the connection alive until its
// handlers have run (the load generators capture their own shared_ptr in them).

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "proto/codec/frame.h"

namespace melee::bench {

class WsConnection {
 public:
  using ErrorCode = boost::system::error_code;
  // `step` names what failed ("connect" or "handshake"); empty when the connection is open.
  using Opened = std::function<void(ErrorCode, std::string_view step)>;
  using Done = std::function<void(ErrorCode)>;
  // `frame` is the frame's payload, valid only during the call; `kind` the kind it came as.
  using Received = std::function<void(ErrorCode, std::string_view frame, proto::FrameKind kind)>;

  explicit WsConnection(boost::asio::io_context& ioc);
  ~WsConnection();
  WsConnection(const WsConnection&) = delete;
  WsConnection& operator=(const WsConnection&) = delete;

  // Connects to `endpoint` (with TCP_NODELAY) and opens the WebSocket at `target` ("/ws", or
  // "/ws?match=<id>"); the frames it sends are `kind`.
  void Open(const boost::asio::ip::tcp::endpoint& endpoint, std::string target,
            proto::FrameKind kind, Opened opened);
  // Sends `frame` as one message; its bytes must stay alive until `done` runs.
  void Write(std::string_view frame, Done done);
  // Receives the next message.
  void Read(Received received);
  // Sends a close frame (normal closure); `done`, if given, runs once the server has answered.
  void Close(Done done = nullptr);
  bool is_open() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace melee::bench
