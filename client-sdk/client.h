#pragma once

// melee::client::Client — the asynchronous client of one seat of one match, over ws:// or
// wss://, for programs that play live (a GUI, a bot, a relay). It runs on an Asio executor the
// caller owns; every callback runs on that executor (on the client's strand), one at a time.
//
//   asio::io_context io;
//   auto client = Client::Create(io.get_executor(), {.url = "ws://host:8080/ws",
//                                                    .match_id = id, .token = token});
//   client->OnEvent([](const v1::MatchEvent& e) { ... });
//   client->OnView([](const v1::MatchView& v) { ... });
//   client->Start();
//   client->Send(seal_command, [](ClientResult<v1::ServerMessage> answer) { ... });
//   io.run();
//
// What it does for the caller:
// - command ids: every command gets a fresh id (a random prefix per client, then a counter);
// - match_id and expected_seq (the last seq seen) are filled in, and a SealDeclaration gets
//   32 bytes of client entropy;
// - a lost connection is reconnected with a growing delay, the seat joined again from the last
//   seq seen (so every event arrives once, in order), and every command not yet answered is
//   sent again with its id: the server applies a command at most once and answers a retry with
//   its first answer;
// - the receipt of a sealed declaration is checked against SHA-256 of what was sealed.
// Signatures of the server (design.md "Verifiable dice") are checked once the server signs.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>

#include "client-sdk/sync_client.h"
#include "melee/v1/envelope.pb.h"
#include "proto/codec/frame.h"

namespace melee::client {

// Which seat to follow, and where.
struct SeatAddress {
  std::string url;       // ws://host:port/ws or wss://host:port/ws
  std::string match_id;
  std::string token;     // the seat token, or the spectator key / director token
  bool spectate = false;  // true: `token` is the spectator key or the director token
};

struct ClientOptions {
  melee::proto::FrameKind kind = melee::proto::FrameKind::kBinary;
  // The first reconnection waits this long; each further one twice as long, up to the maximum.
  std::chrono::milliseconds reconnect_delay{100};
  std::chrono::milliseconds max_reconnect_delay{5000};
  // wss://: a PEM file of certificates to trust instead of the system's; and whether to check
  // the server's certificate at all (only for tests against a throwaway certificate).
  std::string ca_file;
  bool verify_peer = true;
  // A connection that receives nothing for this long is taken for dead and reconnected: a ping
  // goes out at half of it, and a live server answers. This is how a half-open connection (a
  // network partition, a NAT that forgot it) is noticed. 0: wait for TCP to say so.
  std::chrono::milliseconds idle_timeout{20000};
};

enum class ConnectionState {
  kConnecting,    // opening the connection and joining the seat
  kJoined,        // following the match live
  kReconnecting,  // the connection was lost; waiting to try again
  kStopped,       // Stop() was called
};

class Client : public std::enable_shared_from_this<Client> {
 public:
  using EventHandler = std::function<void(const melee::v1::MatchEvent&)>;
  using ViewHandler = std::function<void(const melee::v1::MatchView&)>;
  using StateHandler = std::function<void(ConnectionState, const std::string& detail)>;
  using AnswerHandler = std::function<void(ClientResult<melee::v1::ServerMessage>)>;

  static std::shared_ptr<Client> Create(boost::asio::any_io_executor executor, SeatAddress seat,
                                        ClientOptions options = {});
  ~Client();

  // Set before Start().
  void OnEvent(EventHandler handler);
  void OnView(ViewHandler handler);
  void OnState(StateHandler handler);

  // Connects and joins the seat, receiving the events after `after_seq`; keeps reconnecting
  // until Stop().
  void Start(uint64_t after_seq = 0);

  // Sends a match command (see above). `done` gets the server's answer (an ack or an Error), or
  // a ClientError when the client is stopped first or a receipt does not match.
  void Send(melee::v1::ClientMessage command, AnswerHandler done);

  // Closes the connection; pending commands get a ClientError. Thread-safe; asynchronous: the
  // state callback's kStopped is the last callback the client makes.
  void Stop();

  // Only in callbacks (or on the executor): the last seq received.
  uint64_t last_seq() const;

 private:
  struct Impl;
  explicit Client(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace melee::client
