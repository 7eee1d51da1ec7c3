#include "tests/testing/test_server.h"

#include <gtest/gtest.h>

#include "engine/core/registry.h"
#include "server/transport/server.h"

namespace melee::testing {

TestServer::TestServer(melee::server::ServerConfig config, melee::server::ServerHooks hooks,
                       std::optional<std::filesystem::path> data_dir,
                       melee::persistence::SqliteStoreOptions store_options) {
  config.address = "127.0.0.1";
  // A free port, unless the test asks for one (to restart a server where clients expect it).
  if (config.port == melee::server::ServerConfig{}.port) config.port = 0;
  config.data_dir = data_dir.value_or(dir_.path() / "data");
  auto store =
      melee::persistence::SqliteEventStore::OpenDataDirectory(config.data_dir, store_options);
  if (!store) ADD_FAILURE() << store.error().message;
  store_ = std::move(*store);
  server_ = std::make_unique<melee::server::Server>(
      config, store_, melee::engine::BuiltinRegistry(), std::move(hooks));
  auto port = server_->Start();
  if (!port) ADD_FAILURE() << port.error();
  port_ = port.value_or(0);
  thread_ = std::thread([this] { server_->Run(); });
}

TestServer::~TestServer() { Stop(); }

void TestServer::Stop() {
  if (!thread_.joinable()) return;
  server_->Stop();
  thread_.join();
}

}  // namespace melee::testing
