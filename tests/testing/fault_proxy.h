#pragma once

// A fault-injecting TCP proxy on loopback, between WebSocket clients and a server: it forwards
// every connection to the server's port and, on demand, does to it what a bad network does.
//
//   testing::FaultProxy proxy(server.port());
//   Client::Create(executor, {.url = proxy.ws_url(), ...});
//   proxy.SetDelay(20ms);                              // every chunk arrives 20 ms late
//   proxy.SetTrickle(true);                            // ... and a few bytes at a time
//   proxy.DropAfterFrames(Direction::kToClient, 3);    // each connection: cut after 3 frames
//   proxy.ResetAll();                                  // RST on every open connection
//   proxy.Blackhole();                                 // half-open: nothing gets through
//   proxy.Heal();                                      // new connections work again
//
// Faults (see each setter) apply to the connections open now and to later ones, until changed.
// "Frames" are WebSocket frames: the proxy reads the HTTP upgrade in each direction, then each
// frame's header (RFC 6455 section 5.2), so a cut falls exactly on a frame boundary, as when a
// connection dies between two messages.
//
// Thread-safety: the proxy runs on its own thread; every public function may be called from any
// thread (each waits until the proxy thread has applied it).

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace melee::testing {

class FaultProxy {
 public:
  enum class Direction {
    kToServer,  // what the client sends
    kToClient,  // what the server sends
  };

  // Listens on 127.0.0.1 (a free port) and forwards to 127.0.0.1:`upstream_port`.
  explicit FaultProxy(uint16_t upstream_port);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  uint16_t port() const;
  std::string ws_url() const;  // ws://127.0.0.1:PORT/ws

  // Every chunk waits this long before it is forwarded (0: none). Order is kept.
  void SetDelay(std::chrono::milliseconds delay);
  // Chunks are forwarded a few bytes at a time, with a pause between writes.
  void SetTrickle(bool on);
  // Each connection (the open ones counting from now, and every later one) is closed at the
  // frame boundary after `frames` more frames in `direction`: those frames are forwarded, the
  // rest is not, and both sides see the connection end. 0: no cut.
  void DropAfterFrames(Direction direction, int frames);
  // Resets every open connection at once (both sides get an RST).
  void ResetAll();
  // A network partition: from now on nothing is forwarded on the connections open now (they stay
  // open, half-open for both sides, until a side gives up), and new connections are accepted
  // but forward nothing either.
  void Blackhole();
  // Ends Blackhole for new connections (the ones it caught stay silent).
  void Heal();

  // Connections accepted so far.
  int connections() const;
  // Connections cut by DropAfterFrames, reset by ResetAll.
  int cuts() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace melee::testing
