#include "server/transport/sessions.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "proto/codec/errors.h"
#include "proto/codec/frame.h"
#include "server/match_file.h"
#include "server/transport/tls_failure.h"
#include "server/version.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;
using melee::proto::FrameKind;

constexpr auto kHttpReadTimeout = std::chrono::seconds(30);
// The request line and header fields of one HTTP request at most; more is answered 431.
constexpr std::uint32_t kMaxHttpHeaderBytes = 16 * 1024;
// How long a closing connection may keep sending before it is dropped (see DoClose).
constexpr auto kLingerTimeout = std::chrono::seconds(2);

std::string ServerHeader() { return std::string(kServerName) + "/" + kServerVersion; }

// The name of a command as it appears in the protocol (the oneof field name), for metrics.
const std::string& CommandName(const v1::ClientMessage& message) {
  static const std::string kNone = "none";
  const auto* field = v1::ClientMessage::descriptor()->FindFieldByNumber(message.command_case());
  return field != nullptr ? field->name() : kNone;
}

}  // namespace

// ---- HttpSession ------------------------------------------------------------------------------

HttpSession::HttpSession(Stream&& stream, ServerContext& context, Connections::Slot slot,
                         std::string refusal)
    : stream_(std::move(stream)),
      context_(context),
      slot_(std::move(slot)),
      refusal_(std::move(refusal)) {}

void HttpSession::Run() {
  asio::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
    if (self->stream_.is_tls()) {
      self->stream_.tcp().expires_after(kHttpReadTimeout);
      self->stream_.async_handshake(asio::ssl::stream_base::server,
                                    beast::bind_front_handler(&HttpSession::OnHandshake, self));
    } else {
      self->DoRead();
    }
  });
}

void HttpSession::OnHandshake(error_code ec) {
  if (ec) {
    const TlsFailure failure = DescribeTlsFailure(ec);
    context_.metrics.CountError("TLS_HANDSHAKE_FAILED");
    context_.metrics.CountTlsHandshakeFailure(failure.reason);
    spdlog::info("TLS handshake with {} failed ({}): {}", slot_->address(), failure.reason,
                 failure.explanation);
    if (failure.plain_http) RefusePlainHttp();
    return;
  }
  DoRead();
}

void HttpSession::RefusePlainHttp() {
  // OpenSSL read the start of an HTTP request where the ClientHello belongs and sent nothing
  // back: answer in plain HTTP, as nginx does, so that curl or a browser shows what to change.
  // The connection goes on as plain TCP: the answer, then the close and the linger (DoClose).
  stream_.DropTls();
  HttpRequest request;
  request.keep_alive(false);
  Send(HttpError(request, http::status::bad_request, v1::ERROR_CODE_PROTOCOL_MISMATCH,
                 "this port speaks TLS only: use https:// (wss:// for the WebSocket)"));
}

void HttpSession::DoRead() {
  parser_.emplace();
  parser_->header_limit(kMaxHttpHeaderBytes);
  parser_->body_limit(context_.config.max_http_body_bytes);
  stream_.tcp().expires_after(kHttpReadTimeout);
  http::async_read(stream_, buffer_, *parser_,
                   beast::bind_front_handler(&HttpSession::OnRead, this->shared_from_this()));
}

void HttpSession::OnRead(error_code ec, std::size_t) {
  if (ec == http::error::end_of_stream) return DoClose();
  if (ec == http::error::body_limit) {
    HttpRequest request;
    request.keep_alive(false);
    return Send(HttpError(
        request, http::status::payload_too_large, v1::ERROR_CODE_MESSAGE_TOO_LARGE,
        "request body exceeds " + std::to_string(context_.config.max_http_body_bytes) + " bytes"));
  }
  if (ec == http::error::header_limit) {
    HttpRequest request;
    request.keep_alive(false);
    return Send(HttpError(request, http::status::request_header_fields_too_large,
                          v1::ERROR_CODE_MESSAGE_TOO_LARGE,
                          "the request line and header fields exceed " +
                              std::to_string(kMaxHttpHeaderBytes) + " bytes"));
  }
  if (ec.category() == http::make_error_code(http::error::bad_method).category() &&
      ec != http::error::partial_message && ec != http::error::short_read) {
    // Bytes that are not an HTTP/1.x request (a bad request line, method token, header field,
    // Content-Length or chunk): one 400 saying what, then the connection closes.
    HttpRequest request;
    request.keep_alive(false);
    return Send(HttpError(request, http::status::bad_request, v1::ERROR_CODE_MALFORMED_FRAME,
                          "not an HTTP/1.1 request: " + ec.message()));
  }
  if (ec) {
    if (ec != beast::error::timeout && ec != asio::error::operation_aborted) {
      spdlog::debug("http read from {}: {}", slot_->address(), ec.message());
    }
    return;
  }
  HttpRequest request = parser_->release();
  if (!refusal_.empty()) {
    // Over a connection limit: a load balancer's health check still gets its answer.
    const std::string_view target = request.target();
    if (request.method() != http::verb::get || target.substr(0, target.find('?')) != "/healthz") {
      context_.metrics.http_requests.Increment();
      request.keep_alive(false);
      HttpResponse refused = HttpError(request, http::status::service_unavailable,
                                       v1::ERROR_CODE_UNAVAILABLE,
                                       "connection refused: " + refusal_ +
                                           "; close one or try again later");
      refused.set(http::field::retry_after, "5");
      return Send(std::move(refused));
    }
  }
  if (websocket::is_upgrade(request)) {
    const std::string_view target = request.target();
    if (target.substr(0, target.find('?')) != kWebSocketPath) {
      return Send(HttpError(request, http::status::not_found, v1::ERROR_CODE_NOT_FOUND,
                            "WebSocket endpoint is " + std::string(kWebSocketPath)));
    }
    context_.metrics.http_requests.Increment();
    stream_.tcp().expires_never();
    auto session =
        std::make_shared<WebSocketSession>(std::move(stream_), context_, std::move(*slot_));
    slot_.reset();
    session->Run(std::move(request));
    return;
  }
  HandleHttpRequest(request, slot_->address(), context_,
                    [self = this->shared_from_this()](HttpResponse response) {
    asio::post(self->stream_.get_executor(), [self, response = std::move(response)]() mutable {
      if (!self->refusal_.empty()) response.keep_alive(false);  // one answer, then close
      self->Send(std::move(response));
    });
  });
}

void HttpSession::Send(HttpResponse&& response) {
  const bool keep_alive = response.keep_alive();
  response_ = std::make_shared<HttpResponse>(std::move(response));
  http::async_write(
      stream_, *response_,
      beast::bind_front_handler(&HttpSession::OnWrite, this->shared_from_this(), keep_alive));
}

void HttpSession::OnWrite(bool keep_alive, error_code ec, std::size_t) {
  response_.reset();
  if (ec) {
    spdlog::debug("http write to {}: {}", slot_->address(), ec.message());
    return;
  }
  if (!keep_alive) return DoClose();
  DoRead();
}

void HttpSession::DoClose() {
  if (stream_.is_tls()) {
    stream_.tcp().expires_after(std::chrono::seconds(5));
    stream_.async_shutdown([self = this->shared_from_this()](error_code) {});
    return;
  }
  error_code ignored;
  stream_.tcp().socket().shutdown(tcp::socket::shutdown_send, ignored);
  // Read what the client still sends until it closes: closing with unread bytes would reset
  // the connection, and a reset can discard the answer (a 413 or 431) before it is read.
  stream_.tcp().expires_after(kLingerTimeout);
  Linger();
}

void HttpSession::Linger() {
  auto drain = std::make_shared<std::array<char, 4096>>();
  stream_.tcp().async_read_some(
      asio::buffer(*drain), [self = this->shared_from_this(), drain](error_code ec, std::size_t) {
        if (!ec) self->Linger();
      });
}

// ---- WebSocketSession -------------------------------------------------------------------------

WebSocketSession::WebSocketSession(Stream&& stream, ServerContext& context, Connections::Slot slot)
    : ws_(std::move(stream)),
      context_(context),
      slot_(std::move(slot)),
      limiter_(context.config.messages_per_second, context.config.message_burst,
               std::chrono::steady_clock::now()) {}

WebSocketSession::~WebSocketSession() {
  if (accepted_) context_.metrics.websocket_open.Decrement();
  // A seat's or the director's connection ends: the match journals it for the audit.
  if (state_.match && state_.viewer && *state_.viewer != engine::Viewer::kSpectator) {
    state_.match->SessionEnded(state_.subscriber,
                               end_reason_.empty() ? "connection lost" : end_reason_);
  }
}

void WebSocketSession::Run(HttpRequest request) {
  ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
  ws_.set_option(websocket::stream_base::decorator([](websocket::response_type& response) {
    response.set(http::field::server, ServerHeader());
  }));
  ws_.read_message_max(context_.config.hard_max_message_bytes);
  ws_.async_accept(request,
                   beast::bind_front_handler(&WebSocketSession::OnAccept, this->shared_from_this()));
}

void WebSocketSession::OnAccept(error_code ec) {
  if (ec) return Fail(ec, "accept");
  accepted_ = true;
  context_.metrics.websocket_open.Increment();
  context_.connections.Attach(slot_, this->weak_from_this());
  state_.subscriber = std::weak_ptr<Subscriber>(this->shared_from_this());
  DoRead();
}

void WebSocketSession::DoRead() {
  ws_.async_read(buffer_, beast::bind_front_handler(&WebSocketSession::OnRead, this->shared_from_this()));
}

void WebSocketSession::OnRead(error_code ec, std::size_t bytes) {
  if (ec == websocket::error::message_too_big) {
    // Beast has already started the close with 1009 (message too big).
    context_.metrics.CountError(v1::ErrorCode_Name(v1::ERROR_CODE_MESSAGE_TOO_LARGE));
    spdlog::info("closing {}: a message exceeded the hard limit of {} bytes", slot_.address(),
                 context_.config.hard_max_message_bytes);
    return;
  }
  if (ec) return Fail(ec, "read");
  context_.metrics.messages_received.Increment();
  context_.metrics.bytes_received.Increment(static_cast<double>(bytes));
  // The frame is decoded where Beast read it (a flat buffer is one piece), then dropped.
  const auto data = buffer_.data();
  HandleFrame(std::string_view(static_cast<const char*>(data.data()), data.size()), ws_.got_text());
  buffer_.consume(buffer_.size());
  if (!closing_) DoRead();
}

void WebSocketSession::HandleFrame(std::string_view frame, bool text) {
  reply_as_text_ = text;
  if (!limiter_.TryTake(std::chrono::steady_clock::now())) {
    if (++rate_limited_ > context_.config.max_rate_limited_before_close) {
      context_.metrics.CountError(v1::ErrorCode_Name(v1::ERROR_CODE_RATE_LIMITED));
      return Close(websocket::close_code::policy_error, "message rate limit exceeded");
    }
    return SendError(v1::ERROR_CODE_RATE_LIMITED,
                     "more than " + std::to_string(context_.config.messages_per_second) +
                         " messages per second; this message was dropped");
  }
  if (frame.size() > context_.config.max_message_bytes) {
    return SendError(v1::ERROR_CODE_MESSAGE_TOO_LARGE,
                     "message of " + std::to_string(frame.size()) + " bytes exceeds the limit of " +
                         std::to_string(context_.config.max_message_bytes) +
                         " bytes; it was dropped");
  }
  auto message =
      melee::proto::DecodeClientMessage(frame, text ? FrameKind::kText : FrameKind::kBinary);
  if (!message) return SendError(message.error().code, message.error().message);
  context_.metrics.CountCommand(message->command_case(), CommandName(*message));
  if (message->has_create_match()) {
    long retry_after = 0;
    if (auto refused = LimitMatchCreation(context_, slot_.address(), &retry_after)) {
      // Counted by LimitMatchCreation; Send, not SendError, so it is counted once.
      v1::ServerMessage reply;
      reply.set_command_id(message->command_id());
      *reply.mutable_error() = melee::proto::MakeError(v1::ERROR_CODE_RATE_LIMITED,
                                                       std::move(*refused), message->command_id());
      return Send(std::move(reply));
    }
  }
  context_.dispatcher.Handle(*message, state_,
                             [self = this->weak_from_this()](std::vector<MessagePtr> replies) {
                               auto session = self.lock();
                               if (!session) return;
                               for (const MessagePtr& reply : replies) {
                                 if (reply->message().has_error()) {
                                   session->context_.metrics.CountError(
                                       v1::ErrorCode_Name(reply->message().error().code()));
                                 }
                               }
                               session->Deliver(std::move(replies));
                             });
}

void WebSocketSession::Deliver(std::vector<MessagePtr> messages) {
  if (messages.empty()) return;
  // Writing starts in a handler of its own, queued behind what is already on its way to this
  // session, so that deliveries that arrive together (a match's commit and another match's, or
  // an error answer just behind them) leave in one write. (A command's own answer comes inside
  // its commit's delivery: Match::Render.)
  asio::dispatch(ws_.get_executor(),
                 [self = this->shared_from_this(), messages = std::move(messages)] {
                   for (const MessagePtr& message : messages) self->Enqueue(message, false);
                   if (self->writing_) return;
                   asio::post(self->ws_.get_executor(), [self] { self->StartWriting(); });
                 });
}

void WebSocketSession::SendError(v1::ErrorCode code, std::string message, std::string command_id) {
  context_.metrics.CountError(v1::ErrorCode_Name(code));
  v1::ServerMessage reply;
  reply.set_command_id(command_id);
  *reply.mutable_error() = melee::proto::MakeError(code, std::move(message), command_id);
  Send(std::move(reply));
}

void WebSocketSession::Send(v1::ServerMessage message) {
  asio::dispatch(ws_.get_executor(),
                 [self = this->shared_from_this(), message = MakeMessage(std::move(message))] {
                   self->Enqueue(message);
                 });
}

void WebSocketSession::Enqueue(const MessagePtr& message, bool start_writing) {
  if (closing_) return;
  const bool text = reply_as_text_;
  queue_.push_back(
      {message->Frame(text ? melee::proto::FrameKind::kText : melee::proto::FrameKind::kBinary),
       text});
  queued_bytes_ += queue_.back().frame->size();
  if (queued_bytes_ > context_.config.max_queued_bytes) {
    // A reader this slow would hold the server's memory; the match goes on without it, and the
    // client resumes from its last seq when it reconnects.
    context_.metrics.slow_readers_closed.Increment();
    spdlog::info("closing {}: {} bytes queued, the client does not read", slot_.address(),
                 queued_bytes_);
    return Close(websocket::close_code::policy_error,
                 "slow reader: too many unsent messages; reconnect and resume");
  }
  if (start_writing) StartWriting();
}

void WebSocketSession::StartWriting() {
  // (Once the peer has started the close, Beast answers it and no data frame may follow.)
  if (!writing_ && !closing_ && ws_.is_open() && !queue_.empty()) DoWrite();
}

void WebSocketSession::DoWrite() {
  // Every queued frame leaves in one write of the layer below Beast: each message's WebSocket
  // header, then its bytes (ws_frame.h says why). Beast writes only control frames, each whole,
  // and the layer below takes each write whole, so frames never interleave.
  writing_ = true;
  writing_count_ = queue_.size();
  writing_headers_.clear();
  writing_buffers_.clear();
  writing_headers_.reserve(writing_count_);
  writing_buffers_.reserve(2 * writing_count_);
  for (std::size_t i = 0; i < writing_count_; ++i) {
    const Queued& queued = queue_[i];
    const WsFrameHeader& header =
        writing_headers_.emplace_back(ServerFrameHeader(queued.text, queued.frame->size()));
    writing_buffers_.emplace_back(header.bytes.data(), header.size);
    writing_buffers_.emplace_back(queued.frame->data(), queued.frame->size());
  }
  // One write_some is the whole write: the CoalescingStream takes every byte it is given (what
  // the socket leaves, it keeps). asio::async_write would hand it 16 buffers at a time (its
  // consuming_buffers), and the frames after the 8th would leave in a write of their own.
  ws_.next_layer().async_write_some(
      writing_buffers_,
      beast::bind_front_handler(&WebSocketSession::OnWrite, this->shared_from_this()));
}

void WebSocketSession::OnWrite(error_code ec, std::size_t) {
  if (ec) return Fail(ec, "write");
  context_.metrics.messages_sent.Increment(static_cast<double>(writing_count_));
  for (; writing_count_ > 0; --writing_count_) {
    queued_bytes_ -= queue_.front().frame->size();
    queue_.pop_front();
  }
  if (queue_.empty() && writing_headers_.capacity() > kKeptWriteFrames) {
    // A burst's worth is not kept by a connection that goes quiet (as CoalescingStream does).
    writing_headers_ = {};
    writing_buffers_ = {};
  }
  writing_ = false;
  StartWriting();
}

void WebSocketSession::Shutdown() {
  asio::dispatch(ws_.get_executor(), [self = this->shared_from_this()] {
    self->Close(websocket::close_code::going_away, std::string(kServerShuttingDown));
  });
}

void WebSocketSession::Close(websocket::close_code code, std::string reason) {
  if (closing_ || !accepted_) return;
  closing_ = true;
  end_reason_ = std::string(kClosedByServer) + reason;
  ws_.async_close(websocket::close_reason(code, reason),
                  [self = this->shared_from_this()](error_code ec) {
                    if (ec) self->Fail(ec, "close");
                  });
}

void WebSocketSession::Fail(error_code ec, const char* what) {
  if (end_reason_.empty()) {
    end_reason_ = ec == websocket::error::closed ? std::string(kClosedByClient)
                  : ec == asio::error::eof       ? "closed by the client (without a close frame)"
                  : ec == beast::error::timeout  ? "idle timeout"
                                                 : "connection lost (" + ec.message() + ")";
  }
  if (ec == websocket::error::closed || ec == asio::error::operation_aborted ||
      ec == beast::error::timeout || ec == asio::error::eof ||
      ec == asio::error::connection_reset) {
    return;
  }
  spdlog::debug("websocket {} with {}: {}", what, slot_.address(), ec.message());
}

}  // namespace melee::server
