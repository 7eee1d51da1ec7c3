#pragma once

// What the load generators read about the server process and their samples.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace melee::bench {

// Reads VmRSS (KiB) of a process from /proc.
inline long RssKiB(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// Reads utime and stime, in clock ticks, from a /proc/.../stat file ("pid (comm) state ...": comm
// may hold spaces, so the fields are counted after the last ')'); zeros if unreadable.
struct CpuTicks {
  double user = 0;
  double system = 0;
};
inline CpuTicks StatCpuTicks(const std::filesystem::path& stat_file) {
  std::ifstream stat(stat_file);
  std::string content((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close = content.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream fields(content.substr(close + 2));
  std::string field;
  CpuTicks ticks;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) ticks.user = std::stod(field);
    if (i == 15) ticks.system = std::stod(field);
  }
  return ticks;
}

// utime + stime, in clock ticks (see StatCpuTicks).
inline double StatTicks(const std::filesystem::path& stat_file) {
  const CpuTicks ticks = StatCpuTicks(stat_file);
  return ticks.user + ticks.system;
}

// Reads user + system CPU seconds of a process from /proc.
inline double CpuSeconds(pid_t pid) {
  return StatTicks("/proc/" + std::to_string(pid) + "/stat") /
         static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Reads the system CPU seconds of a process from /proc: its time in the kernel (system calls,
// the network stack's work done on its threads, page faults).
inline double SystemCpuSeconds(pid_t pid) {
  return StatCpuTicks("/proc/" + std::to_string(pid) + "/stat").system /
         static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Reads user + system CPU seconds of the threads of a process whose name (/proc/PID/task/TID/comm)
// is one of `names`: the store's threads of a melee-server (persistence/thread_name.h). A thread
// that has ended no longer counts.
inline double ThreadsCpuSeconds(pid_t pid, std::initializer_list<std::string_view> names) {
  double ticks = 0;
  std::error_code ec;
  const std::string task = "/proc/" + std::to_string(pid) + "/task";
  for (std::filesystem::directory_iterator it(task, ec), end; !ec && it != end; it.increment(ec)) {
    std::ifstream comm_file(it->path() / "comm");
    std::string comm;
    std::getline(comm_file, comm);
    if (std::find(names.begin(), names.end(), comm) != names.end()) {
      ticks += StatTicks(it->path() / "stat");
    }
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// The sums of RssKiB and CpuSeconds over several processes (the nodes of a cluster).
inline long RssKiB(const std::vector<pid_t>& pids) {
  long sum = 0;
  for (const pid_t pid : pids) sum += RssKiB(pid);
  return sum;
}
inline double CpuSeconds(const std::vector<pid_t>& pids) {
  double sum = 0;
  for (const pid_t pid : pids) sum += CpuSeconds(pid);
  return sum;
}
inline double SystemCpuSeconds(const std::vector<pid_t>& pids) {
  double sum = 0;
  for (const pid_t pid : pids) sum += SystemCpuSeconds(pid);
  return sum;
}

// Counts the open file descriptors of a process (its entries in /proc/PID/fd; -1 if unreadable).
inline long OpenFiles(pid_t pid) {
  std::error_code ec;
  long count = 0;
  for (std::filesystem::directory_iterator it("/proc/" + std::to_string(pid) + "/fd", ec), end;
       !ec && it != end; it.increment(ec)) {
    ++count;
  }
  return ec ? -1 : count;
}

// Returns the size of `path` in bytes, 0 when it does not exist.
inline long long FileBytes(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<long long>(size);
}

// Returns the p-quantile (0..1) of `values` (reorders them).
inline double Percentile(std::vector<double>& values, double p) {
  if (values.empty()) return 0;
  const auto at = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<long>(at), values.end());
  return values[at];
}

}  // namespace melee::bench
