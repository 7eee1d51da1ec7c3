#pragma once

// A real melee server on 127.0.0.1:<free port>, running on its own threads for one test, with
// its SQLite file in a temporary data directory.

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "engine/core/registry.h"
#include "persistence/sqlite_event_store.h"
#include "server/transport/server.h"
#include "tests/testing/temp_dir.h"

namespace melee::testing {

class TestServer {
 public:
  // `store_options` open the store (a test injects storage faults through its own VFS).
  explicit TestServer(melee::server::ServerConfig config = {},
                      melee::server::ServerHooks hooks = {},
                      std::optional<std::filesystem::path> data_dir = std::nullopt,
                      melee::persistence::SqliteStoreOptions store_options = {}) {
    config.address = "127.0.0.1";
    // A free port, unless the test asks for one (to restart a server where clients expect it).
    if (config.port == melee::server::ServerConfig{}.port) config.port = 0;
    config.data_dir = data_dir.value_or(dir_.path() / "data");
    auto store = melee::persistence::SqliteEventStore::OpenDataDirectory(config.data_dir,
                                                                          store_options);
    if (!store) ADD_FAILURE() << store.error().message;
    store_ = std::move(*store);
    server_ = std::make_unique<melee::server::Server>(
        config, store_, melee::engine::BuiltinRegistry(), std::move(hooks));
    auto port = server_->Start();
    if (!port) ADD_FAILURE() << port.error();
    port_ = port.value_or(0);
    thread_ = std::thread([this] { server_->Run(); });
  }

  ~TestServer() { Stop(); }

  // Stops the server and waits for Run() to return.
  void Stop() {
    if (!thread_.joinable()) return;
    server_->Stop();
    thread_.join();
  }

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
