// ws_bench: a closed-loop load generator for melee-server's WebSocket transport.
//
// Starts the real melee-server binary on a free loopback port (or uses --url), opens N
// connections, and on each sends Ping, waits for its Pong, and sends the next, for a fixed time.
// Reports messages/s, round-trip percentiles, and the server's RSS and CPU seconds (read from
// /proc). The reference workload of ../shared/bench-workload.md ("the round") needs matches and
// lands with the game server; this measures the transport floor under it.
//
//   build/bench/ws_bench                       # N = 1, 10, 100, 5 s each
//   build/bench/ws_bench --connections 100 --seconds 10 --text

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench/process_stats.h"
#include "bench/ws_connection.h"
#include "melee/v1/envelope.pb.h"
#include "proto/codec/frame.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace melee::bench {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
using Clock = std::chrono::steady_clock;
using proto::FrameKind;

// One connection running Ping/Pong in a closed loop.
class PingLoop : public std::enable_shared_from_this<PingLoop> {
 public:
  PingLoop(asio::io_context& ioc, FrameKind kind, Clock::time_point stop,
           std::vector<double>& latencies_us)
      : ws_(ioc), kind_(kind), stop_(stop), latencies_us_(latencies_us) {}

  void Start(const tcp::endpoint& endpoint) {
    ws_.Open(endpoint, "/ws", kind_,
             [self = shared_from_this()](error_code ec, std::string_view step) {
               if (ec) return self->Fail(step, ec);
               self->SendPing();
             });
  }

  std::size_t done() const { return done_; }

 private:
  void SendPing() {
    if (Clock::now() >= stop_) {
      ws_.Close([self = shared_from_this()](error_code) {});
      return;
    }
    melee::v1::ClientMessage ping;
    ping.set_command_id("b");
    ping.mutable_ping()->set_nonce(done_);
    frame_ = proto::EncodeClientMessage(ping, kind_);
    sent_at_ = Clock::now();
    ws_.Write(frame_, [self = shared_from_this()](error_code ec) {
      if (ec) return self->Fail("write", ec);
      self->ws_.Read([self](error_code rec, std::string_view, FrameKind) {
        if (rec) return self->Fail("read", rec);
        self->latencies_us_.push_back(
            std::chrono::duration<double, std::micro>(Clock::now() - self->sent_at_).count());
        ++self->done_;
        self->SendPing();
      });
    });
  }

  void Fail(std::string_view what, error_code ec) {
    std::cerr << "ws_bench: " << what << ": " << ec.message() << "\n";
  }

  WsConnection ws_;
  FrameKind kind_;
  Clock::time_point stop_;
  std::vector<double>& latencies_us_;
  std::string frame_;
  Clock::time_point sent_at_;
  std::size_t done_ = 0;
};


}  // namespace
}  // namespace melee::bench

int main(int argc, char** argv) {
  using namespace melee;
  using namespace melee::bench;
  std::vector<int> connection_counts = {1, 10, 100};
  double seconds = 5;
  bool text = false;
  std::string server_binary = MELEE_SERVER_BINARY;
  CLI::App app{"ws_bench — closed-loop Ping/Pong load on a real melee-server"};
  app.add_option("--connections", connection_counts, "Connection counts to run, one after another")
      ->capture_default_str();
  app.add_option("--seconds", seconds, "Duration of each run")->capture_default_str();
  app.add_flag("--text", text, "Use JSON text frames instead of binary protobuf");
  app.add_option("--server-binary", server_binary, "melee-server to start")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  testing::TempDir dir;
  testing::Subprocess server(
      {server_binary, "--port", "0", "--data-dir", (dir.path() / "data").string(), "--threads", "1",
       "--messages-per-second", "1000000", "--max-connections-per-address", "100000"});
  const std::string marker = "listening on http://127.0.0.1:";
  if (!server.WaitForOutput("(WebSocket at /ws)", std::chrono::seconds(20))) {
    std::cerr << "ws_bench: " << server_binary << " did not start:\n" << server.output();
    return 1;
  }
  const auto at = server.output().find(marker);
  const auto port = static_cast<uint16_t>(std::atoi(server.output().c_str() + at + marker.size()));
  const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);

  std::printf(
      "ws_bench: melee-server (1 I/O thread), closed-loop Ping/Pong, %s frames, %.0f s per run\n",
      text ? "JSON text" : "binary protobuf", seconds);
  std::printf("%6s %12s %10s %10s %10s %12s %12s %10s\n", "conns", "msgs/s", "p50 us", "p95 us",
              "p99 us", "RSS before", "RSS after", "CPU s");
  for (int connections : connection_counts) {
    const long rss_before = RssKiB(server.pid());
    const double cpu_before = CpuSeconds(server.pid());
    asio::io_context ioc;
    std::vector<double> latencies;
    latencies.reserve(1 << 20);
    const auto start = Clock::now();
    const auto stop =
        start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    std::vector<std::shared_ptr<PingLoop>> loops;
    for (int i = 0; i < connections; ++i) {
      loops.push_back(std::make_shared<PingLoop>(ioc, text ? FrameKind::kText : FrameKind::kBinary,
                                                 stop, latencies));
      loops.back()->Start(endpoint);
    }
    ioc.run();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    std::size_t total = 0;
    for (const auto& loop : loops) total += loop->done();
    std::printf("%6d %12.0f %10.1f %10.1f %10.1f %9ld KiB %9ld KiB %10.2f\n", connections,
                static_cast<double>(total) / elapsed, Percentile(latencies, 0.50),
                Percentile(latencies, 0.95), Percentile(latencies, 0.99), rss_before,
                RssKiB(server.pid()), CpuSeconds(server.pid()) - cpu_before);
  }
  const auto code = server.SignalAndWait(SIGTERM, std::chrono::seconds(10));
  return code == 0 ? 0 : 1;
}
