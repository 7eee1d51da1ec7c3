#pragma once

// Runs a real executable for a test: stdout and stderr merged into one pipe, read with a
// timeout; the process is killed if the test forgets it.

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

extern char** environ;

namespace melee::testing {

class Subprocess {
 public:
  // Starts `argv[0]` with `argv`. Check running() for success.
  explicit Subprocess(const std::vector<std::string>& argv) {
    int fds[2];
    if (pipe(fds) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    if (posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    out_ = fds[0];
  }

  ~Subprocess() {
    if (pid_ > 0 && !exit_code_) {
      kill(pid_, SIGKILL);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
    if (out_ >= 0) close(out_);
  }
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  bool running() const { return pid_ > 0 && !exit_code_; }
  pid_t pid() const { return pid_; }

  // Reads output until it contains `needle` (returns true) or the timeout passes.
  bool WaitForOutput(const std::string& needle, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (output_.find(needle) == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !ReadSome(static_cast<int>(left.count()))) return false;
    }
    return true;
  }

  // Sends `signal` and waits for the exit; returns the exit code, or nullopt on a timeout or
  // death by signal (the code is then 128 + signal).
  std::optional<int> SignalAndWait(int signal, std::chrono::milliseconds timeout) {
    kill(pid_, signal);
    return Wait(timeout);
  }

  // Waits for the process to exit, collecting its output meanwhile.
  std::optional<int> Wait(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!exit_code_) {
      int status = 0;
      const pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
      ReadSome(20);
    }
    while (ReadSome(0)) {
    }
    return exit_code_;
  }

  const std::string& output() const { return output_; }

 private:
  // Reads what is available within `timeout_ms`; false at end of output or on a timeout.
  bool ReadSome(int timeout_ms) {
    pollfd pfd{out_, POLLIN, 0};
    if (poll(&pfd, 1, timeout_ms) <= 0) return false;
    char buffer[4096];
    const ssize_t n = read(out_, buffer, sizeof buffer);
    if (n <= 0) return false;
    output_.append(buffer, static_cast<std::size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  int out_ = -1;
  std::string output_;
  std::optional<int> exit_code_;
};

// A program run to its end: its exit code (nullopt when it outlived the timeout or died by a
// signal) and its output, stdout and stderr merged.
struct CliRun {
  std::optional<int> code;
  std::string output;
};

inline CliRun RunToEnd(const std::vector<std::string>& argv,
                       std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  Subprocess process(argv);
  CliRun run;
  run.code = process.Wait(timeout);
  run.output = process.output();
  return run;
}

// Waits for a melee-server started as `server` (with --port 0) to say where it listens;
// returns its port, or 0 when it did not start within 20 s.
inline uint16_t ServerPort(Subprocess& server) {
  if (!server.WaitForOutput("(WebSocket at /ws)", std::chrono::seconds(20))) return 0;
  const std::string marker = "listening on http://127.0.0.1:";
  const std::size_t at = server.output().find(marker);
  if (at == std::string::npos) return 0;
  return static_cast<uint16_t>(std::atoi(server.output().c_str() + at + marker.size()));
}

}  // namespace melee::testing
