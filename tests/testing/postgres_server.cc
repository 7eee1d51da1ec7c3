#include "tests/testing/postgres_server.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "tests/testing/subprocess.h"

extern char** environ;

namespace melee::testing {
namespace {

constexpr const char* kSuperuser = "melee";
constexpr const char* kRunuser = "/usr/sbin/runuser";

// The last lines of `file`, to say why a server did not start.
std::string Tail(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  if (all.size() > 2000) all = "..." + all.substr(all.size() - 2000);
  return all;
}

// Where the clusters go: /dev/shm (tmpfs) when there is one, since making, copying and removing
// a cluster's 40 MB of files there takes a tenth of the time it takes on a disk; else $TMPDIR.
// (fsync is then a no-op: these tests check what the store does, not what the disk keeps.)
// A container's /dev/shm may be small (Docker gives 64 MB): it is used with 1 GB free only.
std::filesystem::path ClusterBase() {
  struct statvfs shm {};
  if (access("/dev/shm", W_OK) == 0 && statvfs("/dev/shm", &shm) == 0 &&
      static_cast<uint64_t>(shm.f_bavail) * shm.f_frsize >= (uint64_t{1} << 30)) {
    return "/dev/shm";
  }
  const char* base = std::getenv("TMPDIR");
  return base != nullptr ? base : "/tmp";
}

}  // namespace

PostgresServer::PostgresServer() : dir_(ClusterBase()) {
  if (!std::filesystem::exists(bin_ + "initdb")) {
    error_ = bin_ + "initdb is missing: run scripts/setup (it installs postgresql-15)";
    return;
  }
  if (geteuid() == 0) {
    // PostgreSQL refuses to run as root: the cluster belongs to an unprivileged user.
    const passwd* owner = getpwnam("postgres");
    if (owner == nullptr) owner = getpwnam("nobody");
    if (owner == nullptr) {
      error_ = "running as root, and neither user postgres nor nobody exists to run PostgreSQL";
      return;
    }
    run_as_ = owner->pw_name;
    if (chown(dir_.path().c_str(), owner->pw_uid, owner->pw_gid) != 0) {
      error_ = "cannot give " + dir_.path().string() + " to user " + run_as_;
      return;
    }
  }
  const std::optional<std::filesystem::path> cluster = TemplateCluster();
  if (!cluster) return;
  // A copy of the template is a new cluster (0.07 s on tmpfs, where initdb takes 0.5 s).
  if (!Run("/bin/cp", {"-a", cluster->string(), (dir_.path() / "data").string()})) return;
  StartWatchdog();
  Start();
}

PostgresServer::~PostgresServer() {
  if (watchdog_pipe_ >= 0) {
    // The watchdog stops the server and removes the directory once its pipe closes; wait for it,
    // so that nothing is left when this returns.
    close(watchdog_pipe_);
    int status = 0;
    waitpid(watchdog_, &status, 0);
  } else if (running_) {
    Stop();
  }
}

std::optional<std::filesystem::path> PostgresServer::TemplateCluster() {
  // One per user who owns the clusters and per major version, shared by every test process.
  const std::filesystem::path cluster =
      ClusterBase() / ("melee-postgres-15-template-" + (run_as_.empty() ? std::to_string(geteuid()) : run_as_));
  const std::string lock_path = cluster.string() + ".lock";
  const int lock = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0 || flock(lock, LOCK_EX) != 0) {
    error_ = "cannot lock " + lock_path;
    if (lock >= 0) close(lock);
    return std::nullopt;
  }
  std::optional<std::filesystem::path> made = cluster;
  struct stat owner {};
  if (stat((cluster / "PG_VERSION").c_str(), &owner) != 0 || owner.st_uid != Owner()) {
    // Made under the lock, in a directory of its own, and renamed into place when whole.
    std::error_code ignored;
    std::filesystem::remove_all(cluster, ignored);
    const std::filesystem::path partial = cluster.string() + ".partial";
    std::filesystem::remove_all(partial, ignored);
    // -N: no fsync of the new cluster's files (a test cluster is thrown away); the servers
    // themselves keep fsync on, so commits are durable as in production.
    if (!Run(bin_ + "initdb", {"-D", partial.string(), "-U", kSuperuser, "-A", "trust", "-E",
                               "UTF8", "--locale=C", "-N"})) {
      made.reset();
    } else {
      std::filesystem::rename(partial, cluster, ignored);
      if (ignored) {
        error_ = "cannot rename " + partial.string() + ": " + ignored.message();
        made.reset();
      }
    }
  }
  close(lock);
  return made;
}

uid_t PostgresServer::Owner() const {
  if (run_as_.empty()) return geteuid();
  const passwd* owner = getpwnam(run_as_.c_str());
  return owner != nullptr ? owner->pw_uid : 0;
}

bool PostgresServer::Run(const std::string& program, std::vector<std::string> arguments) {
  std::vector<std::string> argv;
  if (!run_as_.empty()) argv = {kRunuser, "-u", run_as_, "--"};
  argv.push_back(program);
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  Subprocess process(argv);
  if (!process.running()) {
    error_ = "cannot start " + argv.front();
    return false;
  }
  const std::optional<int> code = process.Wait(std::chrono::seconds(60));
  if (code == 0) return true;
  std::string command;
  for (const std::string& part : argv) command += part + " ";
  error_ = command + (code ? "failed with exit code " + std::to_string(*code)
                           : std::string("did not finish within 60 s")) +
           ":\n" + process.output();
  return false;
}

void PostgresServer::StartWatchdog() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return;
  std::string stop = (run_as_.empty() ? std::string() : std::string(kRunuser) + " -u " + run_as_ +
                                                             " -- ") +
                     bin_ + "pg_ctl -D " + (dir_.path() / "data").string() +
                     " -m immediate -w stop";
  // Reads until the test process closes the pipe (or dies), then stops the server and removes
  // its directory.
  const std::string script =
      "cat >/dev/null; " + stop + " >/dev/null 2>&1; rm -rf " + dir_.path().string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  const char* argv[] = {"/bin/sh", "-c", script.c_str(), nullptr};
  pid_t pid = -1;
  if (posix_spawn(&pid, "/bin/sh", &actions, nullptr, const_cast<char**>(argv), environ) == 0) {
    watchdog_ = pid;
    watchdog_pipe_ = fds[1];
  } else {
    close(fds[1]);
  }
  posix_spawn_file_actions_destroy(&actions);
  close(fds[0]);
}

bool PostgresServer::Start() {
  const std::string data = (dir_.path() / "data").string();
  // Only the Unix socket in our directory: -k names it, listen_addresses= turns TCP off.
  running_ = Run(bin_ + "pg_ctl", {"-D", data, "-l", (dir_.path() / "server.log").string(), "-w", "-t",
                            "60", "-o", "-k " + dir_.path().string() + " -c listen_addresses=",
                            "start"});
  if (!running_) error_ += "\nserver log:\n" + Tail(dir_.path() / "server.log");
  return running_;
}

bool PostgresServer::Stop() {
  if (!Run(bin_ + "pg_ctl", {"-D", (dir_.path() / "data").string(), "-m", "fast", "-w", "stop"})) {
    return false;
  }
  running_ = false;
  return true;
}

std::vector<pid_t> PostgresServer::Processes() const {
  std::ifstream pid_file(dir_.path() / "data" / "postmaster.pid");
  pid_t postmaster = 0;
  if (!running_ || !(pid_file >> postmaster) || postmaster <= 0) return {};
  std::vector<pid_t> processes = {postmaster};
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    // /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces, so read after ')'.
    std::ifstream stat(it->path() / "stat");
    std::string content((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = content.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(content.substr(close + 1));
    std::string state;
    pid_t parent = 0;
    if (fields >> state >> parent && parent == postmaster) {
      processes.push_back(static_cast<pid_t>(std::stol(name)));
    }
  }
  return processes;
}

std::string PostgresServer::Uri(const std::string& database) const {
  return "postgresql:///" + database + "?host=" + dir_.path().string() + "&user=" + kSuperuser;
}

std::string PostgresServer::CreateDatabase() {
  const std::string name = "test_" + std::to_string(++databases_);
  if (std::string failed = Execute(Uri("postgres"), "CREATE DATABASE " + name); !failed.empty()) {
    ADD_FAILURE() << "cannot create database " << name << ": " << failed;
    return "";
  }
  return Uri(name);
}

std::string PostgresServer::Execute(const std::string& uri, const std::string& sql) {
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdb(uri.c_str()), &PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK) return PQerrorMessage(conn.get());
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn.get(), sql.c_str()),
                                                        &PQclear);
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    return PQresultErrorMessage(result.get());
  }
  return "";
}

namespace {

std::unique_ptr<PostgresServer>& Shared() {
  static std::unique_ptr<PostgresServer> server;
  return server;
}

// Stops the shared server after the last test of the binary.
class SharedPostgresEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { Shared().reset(); }
};

[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new SharedPostgresEnvironment);

}  // namespace

PostgresServer& SharedPostgres() {
  if (!Shared()) Shared() = std::make_unique<PostgresServer>();
  return *Shared();
}

}  // namespace melee::testing
