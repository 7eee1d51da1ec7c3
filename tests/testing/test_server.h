#pragma once

// A real melee-server on a free loopback port, with its SQLite store in a temporary folder, run
// on its own thread for the length of a test. Including this header does not compile Asio or
// Beast (test_server.cc does); a test that reaches into the server (server()) includes
// server/transport/server.h itself.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "persistence/sqlite_event_store.h"
#include "server/transport/config.h"
#include "server/transport/hooks.h"
#include "tests/testing/temp_dir.h"

namespace melee::server {
class Server;
}  // namespace melee::server

namespace melee::testing {

class TestServer {
 public:
  // `store_options` open the store (a test injects storage faults through its own VFS). A store
  // that does not open, or a server that does not start, fails the test (ADD_FAILURE).
  explicit TestServer(melee::server::ServerConfig config = {},
                      melee::server::ServerHooks hooks = {},
                      std::optional<std::filesystem::path> data_dir = std::nullopt,
                      melee::persistence::SqliteStoreOptions store_options = {});
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  // Stops the server and waits for Run() to return.
  void Stop();

  uint16_t port() const { return port_; }
  std::string ws_url() const { return "ws://127.0.0.1:" + std::to_string(port_) + "/ws"; }
  std::string wss_url() const { return "wss://127.0.0.1:" + std::to_string(port_) + "/ws"; }
  melee::server::Server& server() { return *server_; }

 private:
  TempDir dir_;
  std::shared_ptr<melee::persistence::EventStore> store_;
  std::unique_ptr<melee::server::Server> server_;
  uint16_t port_ = 0;
  std::thread thread_;
};

}  // namespace melee::testing
