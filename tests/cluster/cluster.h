#pragma once

// A cluster for tests: a real PostgreSQL 15 (tests/testing/postgres_server.h), two real
// melee-server nodes on it (node-a, node-b, on loopback, sharing one signing key and dice
// secret), and a real HAProxy in front of them with the project's own docker/haproxy.cfg
// (consistent hash of the match id). Not thread-safe: one test thread uses it.

#include <libpq-fe.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tests/testing/postgres_server.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace melee::testing {

class Cluster {
 public:
  // Starts PostgreSQL, both nodes (leases of `lease_seconds`, and `node_arguments` added to
  // each node's command line) and HAProxy; ok() says whether that worked, error() why not.
  explicit Cluster(double lease_seconds, std::vector<std::string> node_arguments = {});
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // The node named "node-a" (0) or "node-b" (1): its process and port.
  static const char* Name(int node) { return node == 0 ? "node-a" : "node-b"; }
  Subprocess& node(int index) { return *nodes_[index]; }
  Subprocess& proxy() { return *proxy_; }
  uint16_t node_port(int index) const { return node_ports_[index]; }
  // Returns the index of the node called `name`, or -1.
  static int IndexOf(const std::string& name) {
    return name == "node-a" ? 0 : name == "node-b" ? 1 : -1;
  }

  // HAProxy's port, and the WebSocket URL of `match_id` through it (/ws?match=...; without a
  // match, /ws).
  uint16_t proxy_port() const { return proxy_port_; }
  std::string ProxyUrl(const std::string& match_id = {}) const;
  // A node's own WebSocket URL, past HAProxy.
  std::string NodeUrl(int index) const;

  PostgresServer& postgres() { return postgres_; }
  const std::string& uri() const { return uri_; }

  // Runs `sql` on the cluster's database and returns the first column of the first row ("" when
  // there is none, or the error prefixed with "error: ").
  std::string Query(const std::string& sql) const;
  // Returns the node holding a live lease on `match_id` ("node-a", "node-b"), or "".
  std::string Holder(const std::string& match_id) const;

 private:
  // Starts node `index` (its data directory made beforehand); false with error_ when it fails.
  bool StartNode(int index);

  PostgresServer postgres_;
  TempDir dir_;
  std::string uri_;
  std::string lease_seconds_;
  std::vector<std::string> node_arguments_;
  std::array<std::unique_ptr<Subprocess>, 2> nodes_;
  std::array<uint16_t, 2> node_ports_{};
  std::unique_ptr<Subprocess> proxy_;
  uint16_t proxy_port_ = 0;
  std::string error_;
};

}  // namespace melee::testing
