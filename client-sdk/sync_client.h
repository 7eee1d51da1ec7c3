#pragma once

// melee::client — a blocking WebSocket client of the melee.v1 protocol, for scripts, the CLI
// and tests. Every call takes a timeout; nothing blocks forever. Not thread-safe: one thread
// uses one SyncClient.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <tl/expected.hpp>

#include "melee/v1/envelope.pb.h"
#include "proto/codec/frame.h"

namespace melee::client {

// A failure to connect, send or receive, said for a person.
struct ClientError {
  std::string message;
  // Set when the server closed the WebSocket: its close code (e.g. 1009) and reason.
  std::optional<int> close_code;
  std::string close_reason;
  // The server answered with an Error (a refusal, not a transport failure).
  bool refused = false;
};

template <class T>
using ClientResult = tl::expected<T, ClientError>;

// Returns `url` with the match named in its query (?match=<id>): a load balancer in front of
// several nodes sends every connection of a match to the node that serves it by hashing that
// (docs/postgresql.md, "Several nodes"); a single server ignores it. Unchanged when `url` has a
// query already or the id is not URL-safe as it is.
std::string MatchUrl(const std::string& url, const std::string& match_id);

// wss://: the certificates to trust (a PEM file; empty: the system's) and whether to check the
// server's certificate at all (only for throwaway test certificates).
struct TlsOptions {
  std::string ca_file;
  bool verify_peer = true;
};

class SyncClient {
 public:
  // Default time to wait for a connection or an answer.
  static constexpr std::chrono::milliseconds kDefaultTimeout{5000};

  // Connects to `url` (ws://host:port/ws, or wss:// with the certificate checked against the
  // host name) and completes the WebSocket handshake. `kind` picks binary (protobuf) or text
  // (JSON mapping) frames for everything this client sends.
  static ClientResult<std::unique_ptr<SyncClient>> Connect(
      const std::string& url, melee::proto::FrameKind kind = melee::proto::FrameKind::kBinary,
      std::chrono::milliseconds timeout = kDefaultTimeout, const TlsOptions& tls = {});

  ~SyncClient();
  SyncClient(const SyncClient&) = delete;
  SyncClient& operator=(const SyncClient&) = delete;

  // Sends `message`, giving it a fresh command_id (random prefix, then 1, 2, ...) when it has
  // none, and
  // returns the first answer that carries that command_id. Pushed events that arrive before
  // it are kept for Receive().
  ClientResult<melee::v1::ServerMessage> Call(melee::v1::ClientMessage message,
                                              std::chrono::milliseconds timeout = kDefaultTimeout);

  // Sends one message without waiting for an answer.
  ClientResult<void> Send(const melee::v1::ClientMessage& message);

  // Sends raw frame bytes as they are (tests use this for malformed frames).
  ClientResult<void> SendRaw(const std::string& bytes, bool text);

  // Waits for the next message from the server.
  ClientResult<melee::v1::ServerMessage> Receive(
      std::chrono::milliseconds timeout = kDefaultTimeout);

  // Closes the WebSocket politely (1000 normal).
  ClientResult<void> Close();

  melee::proto::FrameKind frame_kind() const { return kind_; }

 private:
  struct Impl;
  SyncClient(std::unique_ptr<Impl> impl, melee::proto::FrameKind kind);

  std::unique_ptr<Impl> impl_;
  melee::proto::FrameKind kind_;
  // command_ids are unique per seat across connections (the server answers a repeated id with
  // its first answer): a random prefix per client, then a counter, e.g. "3f9a0c1d-7".
  std::string command_prefix_;
  unsigned next_command_ = 1;
};

}  // namespace melee::client
