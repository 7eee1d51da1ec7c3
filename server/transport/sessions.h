#pragma once

// The two kinds of connection: an HTTP session (plain requests, or the upgrade to WebSocket)
// and a WebSocket session. After Beast's chat-multi example: every handler of a connection runs
// on that connection's strand (the socket is created on one), and each WebSocket session has its
// own write queue.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/any_stream.h"
#include "server/fifo.h"
#include "server/net.h"
#include "server/transport/coalescing_stream.h"
#include "server/transport/connections.h"
#include "server/transport/context.h"
#include "server/transport/dispatcher.h"
#include "server/transport/http_routes.h"
#include "server/transport/rate_limiter.h"
#include "server/transport/ws_frame.h"

namespace melee::server {

// The two transports a session runs on: plain TCP, and TLS over TCP (when the server has a
// certificate), both on the connection's strand (Strand, server/net.h). A session holds either
// as one type, so that Beast's HTTP and WebSocket code is compiled once (server/any_stream.h).
using PlainStream = StrandStream;
using TlsStream = beast::ssl_stream<StrandStream>;
using Stream = AnyStream<StrandStream>;

// Reads HTTP requests on one connection; hands an upgrade to a WebSocketSession.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  // A session on a refused slot (Connections::AdmitRefused) answers one request and closes:
  // GET /healthz as usual, anything else 503 with `refusal` (which limit refused it).
  HttpSession(Stream&& stream, ServerContext& context, Connections::Slot slot,
              std::string refusal = {});
  // Starts the session: the TLS handshake first when the stream is TLS, then reading.
  void Run();

 private:
  void OnHandshake(error_code ec);
  // Answers a plain HTTP request sent to the TLS port with a plain 400 saying to use https://,
  // then drains the connection until the client closes (or the linger timeout).
  void RefusePlainHttp();
  void DoRead();
  void OnRead(error_code ec, std::size_t bytes);
  void Send(HttpResponse&& response);
  void OnWrite(bool keep_alive, error_code ec, std::size_t bytes);
  void DoClose();
  // Reads and discards until the client closes or the linger timeout passes.
  void Linger();

  Stream stream_;
  beast::flat_buffer buffer_;
  ServerContext& context_;
  std::optional<Connections::Slot> slot_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<HttpResponse> response_;  // kept alive while it is written
  std::string refusal_;  // non-empty on a refused slot
};

// One WebSocket connection speaking the melee.v1 protocol.
class WebSocketSession : public Closable,
                         public Subscriber,
                         public std::enable_shared_from_this<WebSocketSession> {
 public:
  WebSocketSession(Stream&& stream, ServerContext& context, Connections::Slot slot);
  ~WebSocketSession() override;

  // Accepts the upgrade `request` and starts reading.
  void Run(HttpRequest request);

  // Queues `message` for this client; may be called from any thread.
  void Send(melee::v1::ServerMessage message);
  void Deliver(std::vector<MessagePtr> messages) override;

  void Shutdown() override;

 private:
  void OnAccept(error_code ec);
  void DoRead();
  void OnRead(error_code ec, std::size_t bytes);
  void HandleFrame(std::string_view frame, bool text);
  void SendError(melee::v1::ErrorCode code, std::string message, std::string command_id = {});
  // Queues `message` (on the strand) and, unless told not to, starts writing.
  void Enqueue(const MessagePtr& message, bool start_writing = true);
  void StartWriting();
  void DoWrite();
  void OnWrite(error_code ec, std::size_t bytes);
  void Close(websocket::close_code code, std::string reason);
  void Fail(error_code ec, const char* what);

  // Beast's stream over the CoalescingStream: Beast reads, answers control frames and closes;
  // DoWrite writes the data frames itself, all those queued in one write of the layer below.
  websocket::stream<CoalescingStream<Stream>> ws_;
  beast::flat_buffer buffer_;
  ServerContext& context_;
  Connections::Slot slot_;
  ConnectionState state_;
  RateLimiter limiter_;
  int rate_limited_ = 0;
  bool reply_as_text_ = false;  // answer in the frame kind the client used last
  bool accepted_ = false;
  bool closing_ = false;
  bool writing_ = false;    // the first `writing_count_` frames of queue_ are being written
  std::string end_reason_;  // why the connection ended, for the match's session journal
  // A frame and its kind: the bytes are the message's own, encoded once and shared with every
  // other session that sends it (Outbound).
  struct Queued {
    std::shared_ptr<const std::string> frame;
    bool text;
  };
  Fifo<Queued> queue_;
  std::size_t queued_bytes_ = 0;
  // The frames being written: how many, and their WebSocket headers (kept until the write ends,
  // as the buffers handed to the layer below point into them).
  static constexpr std::size_t kKeptWriteFrames = 16;  // what the two vectors below keep
  std::size_t writing_count_ = 0;
  std::vector<WsFrameHeader> writing_headers_;
  std::vector<asio::const_buffer> writing_buffers_;
};

}  // namespace melee::server
