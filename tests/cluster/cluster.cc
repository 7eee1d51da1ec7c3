#include "tests/cluster/cluster.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <utility>

#include "tests/testing/http_get.h"

namespace melee::testing {
namespace {

using namespace std::chrono_literals;

// Returns a TCP port free on 127.0.0.1 now (HAProxy binds it next; nothing else on this
// machine takes ports in that moment but other tests, which bind port 0 themselves).
uint16_t FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  uint16_t port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

}  // namespace

Cluster::Cluster(double lease_seconds, std::vector<std::string> node_arguments)
    : node_arguments_(std::move(node_arguments)) {
  if (!postgres_.ok()) {
    error_ = "PostgreSQL: " + postgres_.error();
    return;
  }
  uri_ = postgres_.CreateDatabase();
  if (uri_.empty()) {
    error_ = "cannot create the cluster's database";
    return;
  }
  std::ostringstream seconds;
  seconds << lease_seconds;
  lease_seconds_ = seconds.str();
  // node-a makes the signing key and dice secret on its first start; node-b gets copies, so
  // that either node can roll the dice of a match the other created.
  if (!StartNode(0)) return;
  std::error_code ec;
  std::filesystem::create_directories(dir_.path() / "node-b", ec);
  for (const char* secret : {"server-key.pem", "dice-secret"}) {
    std::filesystem::copy_file(dir_.path() / "node-a" / secret, dir_.path() / "node-b" / secret,
                               ec);
    if (ec) {
      error_ = std::string("cannot copy node-a's ") + secret + ": " + ec.message();
      return;
    }
  }
  if (!StartNode(1)) return;

  proxy_port_ = FreePort();
  proxy_ = std::make_unique<Subprocess>(std::vector<std::string>{
      "/usr/bin/env", "MELEE_LISTEN=127.0.0.1:" + std::to_string(proxy_port_),
      "MELEE_NODE_A=127.0.0.1:" + std::to_string(node_ports_[0]),
      "MELEE_NODE_B=127.0.0.1:" + std::to_string(node_ports_[1]), "/usr/sbin/haproxy", "-db", "-f",
      std::string(MELEE_SOURCE_DIR) + "/docker/haproxy.cfg"});
  const auto give_up = std::chrono::steady_clock::now() + 20s;
  while (HttpGet(proxy_port_, "/healthz").status != 200) {
    if (!proxy_->running() || std::chrono::steady_clock::now() > give_up) {
      proxy_->Wait(1s);
      error_ =
          "HAProxy did not answer on port " + std::to_string(proxy_port_) + ": " + proxy_->output();
      return;
    }
    std::this_thread::sleep_for(50ms);
  }
}

bool Cluster::StartNode(int index) {
  const std::filesystem::path data = dir_.path() / Name(index);
  std::vector<std::string> argv = {
      MELEE_SERVER_BINARY, "--port", "0", "--data-dir", data.string(), "--threads", "2", "--store",
      uri_, "--node-id", Name(index), "--lease-seconds", lease_seconds_};
  argv.insert(argv.end(), node_arguments_.begin(), node_arguments_.end());
  nodes_[index] = std::make_unique<Subprocess>(std::move(argv));
  node_ports_[index] = ServerPort(*nodes_[index]);
  if (node_ports_[index] == 0) {
    error_ = std::string(Name(index)) + " did not start: " + nodes_[index]->output();
    return false;
  }
  return true;
}

std::string Cluster::ProxyUrl(const std::string& match_id) const {
  return "ws://127.0.0.1:" + std::to_string(proxy_port_) + "/ws" +
         (match_id.empty() ? "" : "?match=" + match_id);
}

std::string Cluster::NodeUrl(int index) const {
  return "ws://127.0.0.1:" + std::to_string(node_ports_[index]) + "/ws";
}

std::string Cluster::Query(const std::string& sql) const {
  std::unique_ptr<PGconn, decltype(&PQfinish)> db(PQconnectdb(uri_.c_str()), &PQfinish);
  if (PQstatus(db.get()) != CONNECTION_OK) {
    return std::string("error: ") + PQerrorMessage(db.get());
  }
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(db.get(), sql.c_str()), &PQclear);
  if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) {
    return std::string("error: ") + PQresultErrorMessage(result.get());
  }
  if (PQntuples(result.get()) == 0) return "";
  return PQgetvalue(result.get(), 0, 0);
}

std::string Cluster::Holder(const std::string& match_id) const {
  return Query("SELECT node_id FROM melee.leases WHERE match_id = '" + match_id +
               "' AND expires_at > clock_timestamp()");
}

}  // namespace melee::testing
