#pragma once

// A real PostgreSQL 15 for tests, from Debian's binaries (/usr/lib/postgresql/15/bin): a cluster
// in a fresh temporary directory in /dev/shm (else $TMPDIR), a copy of one that initdb made once
// and left there for the next test processes; the server listening only on a Unix socket in that
// directory
// (no TCP port, so parallel test processes never collide), a superuser `melee` trusted on that
// socket. When the tests run as root, which PostgreSQL refuses, the cluster belongs to and runs
// as the unprivileged user `postgres` (made by Debian's postgresql-common; `nobody` without it).
//
// Stopped and removed when destroyed, and also when the test process dies without destroying it
// (a watchdog process waits for the test process's end). Not thread-safe: one test thread uses
// it.

#include <libpq-fe.h>
#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/testing/temp_dir.h"

namespace melee::testing {

class PostgresServer {
 public:
  // Creates the cluster and starts the server; ok() says whether that worked, error() why not.
  PostgresServer();
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // Creates a new, empty database and returns its connection URI (each call a new one, so each
  // test has its own). Returns an empty string and records a test failure when it cannot.
  std::string CreateDatabase();

  // Returns the connection URI of `database` on this server.
  std::string Uri(const std::string& database) const;

  // Runs `sql` on the database of `uri` as the superuser, as an attacker or a broken disk would
  // change it. Returns the error message, or an empty string on success.
  static std::string Execute(const std::string& uri, const std::string& sql);

  // The server's processes now: the postmaster (from data/postmaster.pid) and its children, the
  // backends and background workers (for a benchmark's CPU accounting). Empty when it is not
  // running.
  std::vector<pid_t> Processes() const;

  // Stops the server (fast shutdown: open connections are cut, their transactions rolled back),
  // and starts it again. Return false, with error() saying why, when that fails.
  bool Stop();
  bool Start();

 private:
  // Runs `program` as the cluster's owner; false (and error_ set) when it fails.
  bool Run(const std::string& program, std::vector<std::string> arguments);
  // Returns a cluster made by initdb, to copy: made once (under a lock) and kept beside the test
  // clusters for the test processes that follow. Nullopt, with error_ set, when it cannot be made.
  std::optional<std::filesystem::path> TemplateCluster();
  // Returns the uid that owns and runs the clusters.
  uid_t Owner() const;
  void StartWatchdog();

  TempDir dir_;
  std::string bin_ = "/usr/lib/postgresql/15/bin/";
  std::string run_as_;  // the owner when the tests run as root; empty otherwise
  std::string error_;
  bool running_ = false;
  int databases_ = 0;
  pid_t watchdog_ = -1;
  int watchdog_pipe_ = -1;  // its write end; the watchdog cleans up when it closes
};

// Returns the server the tests of this binary share, started on first use and stopped after the
// last test (a GoogleTest environment). Each test takes its own database of it.
PostgresServer& SharedPostgres();

}  // namespace melee::testing
