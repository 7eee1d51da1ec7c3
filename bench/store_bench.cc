// store_bench: a closed-loop load test of the event store's durable appends.
//
// For each match count N in --matches and each mode, opens a fresh SqliteEventStore in a temporary
// data directory (a real file opened as the server opens it: WAL, synchronous=FULL) and runs N
// matches for --seconds. Each match keeps exactly one append outstanding: when its callback fires
// (on the store's writer thread) it records the latency from the Append() call and issues the next
// append for that match from the callback. Modes:
//
//   group     default SqliteStoreOptions: the writer commits everything waiting in one transaction
//   baseline  max_batch_events = 1: one transaction (one fsync) per append, the same run's floor
//
// Reports durable events/s and appends/s, p50/p95/p99/max append latency, transactions committed
// and events per transaction, the process's CPU use, and group/baseline for the same N. After every
// run each match is read back and verified (chain, seq count equal to the acknowledged count, and
// every payload byte); a lost or altered event makes the program exit non-zero.
//
//   build/bench/store_bench                         # N = 1, 10, 100, 1000; 3 s per run
//   build/bench/store_bench --matches 100 --seconds 10 --events-per-append 4
//   build/bench/store_bench --postgres postgresql:///scratch   # PostgresEventStore instead
//   build/bench/store_bench --postgres postgresql:///scratch --leases   # ... appends fenced
//
// With --postgres the runs share the database (a scratch one: the bench leaves its matches in
// it), each run's matches under a prefix of their own.

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "persistence/event_store.h"
#include "persistence/postgres_event_store.h"
#include "persistence/sqlite_event_store.h"
#include "tests/testing/temp_dir.h"

namespace melee::bench {
namespace {

using Clock = std::chrono::steady_clock;
using persistence::AppendBatch;
using persistence::Appended;
using persistence::EventStore;
using persistence::PostgresEventStore;
using persistence::PostgresStoreOptions;
using persistence::SqliteEventStore;
using persistence::SqliteStoreOptions;
using persistence::StoreResult;

enum class Mode { kGroup, kBaseline };

const char* ModeName(Mode mode) { return mode == Mode::kGroup ? "group" : "baseline"; }

struct Config {
  std::vector<int> matches = {1, 10, 100, 1000};
  std::vector<std::string> modes = {"group", "baseline"};
  double seconds = 3;
  std::size_t payload_bytes = 200;
  std::size_t events_per_append = 1;
  std::string postgres;  // a PostgreSQL URI: bench PostgresEventStore instead of SQLite
  bool leases = false;   // with postgres: every match's appends fenced under its lease
};

// The payload of event `seq` of match number `match`: the two numbers, then filler, so a read-back
// can check every byte.
std::string MakePayload(uint64_t match, uint64_t seq, std::size_t bytes) {
  std::string payload(bytes, static_cast<char>('a' + (seq + match) % 26));
  const uint64_t header[2] = {match, seq};
  std::memcpy(payload.data(), header, std::min(bytes, sizeof header));
  return payload;
}

// One match's state. Only one append of a match is outstanding at a time, and the store's queue
// orders each callback after the Append that issued it, so a match's fields need no lock.
struct MatchLoad {
  uint64_t index = 0;
  std::string id;
  uint64_t last_seq = 0;  // acknowledged
  uint64_t appends = 0;   // acknowledged
  Clock::time_point issued;
  Clock::time_point last_done;
  std::vector<int64_t> latencies_ns;
  std::string error;  // the first failure; the match stops on it
};

// N matches, each with one append outstanding, until a deadline.
class LoadRun {
 public:
  // `prefix` keeps the matches of runs that share a database apart.
  LoadRun(int matches, const Config& config, const std::string& prefix)
      : config_(config), matches_(matches) {
    for (int i = 0; i < matches; ++i) {
      MatchLoad& match = matches_[static_cast<std::size_t>(i)];
      match.index = static_cast<uint64_t>(i);
      char id[32];
      std::snprintf(id, sizeof id, "bench-%05d", i);
      match.id = prefix + id;
    }
  }

  // Issues the first append of every match; each issues its next from its callback until
  // `deadline`.
  void Start(EventStore& store, Clock::time_point deadline) {
    store_ = &store;
    deadline_ = deadline;
    recorded_unix_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    in_flight_ = matches_.size();
    for (MatchLoad& match : matches_) Issue(match);
  }

  // Waits until no append is in flight; false on timeout.
  bool WaitIdle(Clock::duration timeout) {
    std::unique_lock lock(mutex_);
    return idle_cv_.wait_for(lock, timeout, [this] { return idle_; });
  }

  std::vector<MatchLoad>& matches() { return matches_; }
  std::size_t in_flight() const { return in_flight_.load(); }

 private:
  void Issue(MatchLoad& match) {
    AppendBatch batch;
    batch.match_id = match.id;
    batch.expected_seq = match.last_seq;
    batch.recorded_unix_ms = recorded_unix_ms_;
    batch.payloads.reserve(config_.events_per_append);
    for (std::size_t k = 1; k <= config_.events_per_append; ++k) {
      batch.payloads.push_back(MakePayload(match.index, match.last_seq + k, config_.payload_bytes));
    }
    match.issued = Clock::now();
    store_->Append(std::move(batch), [this, &match](StoreResult<Appended> result) {
      OnDone(match, std::move(result));
    });
  }

  void OnDone(MatchLoad& match, StoreResult<Appended> result) {
    const Clock::time_point now = Clock::now();
    match.latencies_ns.push_back(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - match.issued).count());
    match.last_done = now;
    if (!result) {
      match.error = "append failed: " + std::string(persistence::Name(result.error().code)) + ": " +
                    result.error().message;
      return Finish();
    }
    const uint64_t expected_last = match.last_seq + config_.events_per_append;
    if (result->first_seq != match.last_seq + 1 || result->last_seq != expected_last) {
      match.error = "append acknowledged seq " + std::to_string(result->first_seq) + ".." +
                    std::to_string(result->last_seq) + ", expected " +
                    std::to_string(match.last_seq + 1) + ".." + std::to_string(expected_last);
      return Finish();
    }
    match.last_seq = result->last_seq;
    ++match.appends;
    if (now < deadline_) return Issue(match);
    Finish();
  }

  void Finish() {
    if (in_flight_.fetch_sub(1) == 1) {
      std::lock_guard lock(mutex_);
      idle_ = true;
      idle_cv_.notify_all();
    }
  }

  const Config& config_;
  std::vector<MatchLoad> matches_;
  EventStore* store_ = nullptr;
  Clock::time_point deadline_;
  int64_t recorded_unix_ms_ = 0;
  std::atomic<std::size_t> in_flight_{0};
  std::mutex mutex_;
  std::condition_variable idle_cv_;
  bool idle_ = false;
};

struct RunResult {
  int matches = 0;
  Mode mode = Mode::kGroup;
  double seconds = 0;
  uint64_t events = 0;
  uint64_t appends = 0;
  double p50_us = 0, p95_us = 0, p99_us = 0, max_us = 0;
  std::size_t commits = 0;
  double cpu_cores = 0;  // process CPU seconds / wall seconds during the load
  std::vector<std::string> problems;

  double events_per_second() const {
    return seconds > 0 ? static_cast<double>(events) / seconds : 0;
  }
  double appends_per_second() const {
    return seconds > 0 ? static_cast<double>(appends) / seconds : 0;
  }
};

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The nearest-rank percentile of sorted `values`, in µs.
double PercentileUs(const std::vector<int64_t>& sorted, double percentile) {
  if (sorted.empty()) return 0;
  auto rank = static_cast<std::size_t>(percentile / 100.0 * static_cast<double>(sorted.size()));
  if (rank >= sorted.size()) rank = sorted.size() - 1;
  return static_cast<double>(sorted[rank]) / 1e3;
}

// Reads every match back and checks it against what was acknowledged.
void Verify(EventStore& store, std::size_t committed_events, const std::vector<MatchLoad>& matches,
            const Config& config, uint64_t acknowledged_events, RunResult& result) {
  for (const MatchLoad& match : matches) {
    if (!match.error.empty()) result.problems.push_back(match.id + ": " + match.error);
    if (match.last_seq == 0) {
      result.problems.push_back(match.id + ": no append was acknowledged");
      continue;
    }
    auto events = store.Read(match.id);
    if (!events) {
      result.problems.push_back(
          match.id + ": read back failed: " + std::string(persistence::Name(events.error().code)) +
          ": " + events.error().message);
      continue;
    }
    if (events->size() != match.last_seq) {
      result.problems.push_back(match.id + ": " + std::to_string(match.last_seq) +
                                " events acknowledged, " + std::to_string(events->size()) +
                                " read back");
      continue;
    }
    for (std::size_t i = 0; i < events->size(); ++i) {
      const persistence::Event& event = (*events)[i];
      if (event.seq != i + 1 ||
          event.payload != MakePayload(match.index, event.seq, config.payload_bytes)) {
        result.problems.push_back(match.id + ": event seq " + std::to_string(event.seq) +
                                  " read back differs from what was appended");
        break;
      }
    }
  }
  if (committed_events != acknowledged_events) {
    result.problems.push_back("the store counts " + std::to_string(committed_events) +
                              " committed events, the callbacks acknowledged " +
                              std::to_string(acknowledged_events));
  }
}

RunResult RunOnce(int matches, Mode mode, const Config& config) {
  RunResult result;
  result.matches = matches;
  result.mode = mode;

  // Declared before the store, so the store (whose destructor drains its queue) goes first.
  const std::string prefix =
      config.postgres.empty()
          ? std::string()
          : "run-" + std::to_string(std::chrono::system_clock::now().time_since_epoch().count()) +
                "-";
  LoadRun load(matches, config, prefix);
  testing::TempDir dir;
  std::unique_ptr<EventStore> opened_store;
  std::function<std::pair<std::size_t, std::size_t>()> counters;  // commits, committed events
  if (config.postgres.empty()) {
    SqliteStoreOptions options;
    if (mode == Mode::kBaseline) options.max_batch_events = 1;
    auto opened = SqliteEventStore::OpenDataDirectory(dir.path() / "data", options);
    if (!opened) {
      result.problems.push_back("cannot open the store: " + opened.error().message);
      return result;
    }
    if (auto journal = (*opened)->JournalMode(); !journal || *journal != "wal") {
      result.problems.push_back("the store is not in WAL mode");
      return result;
    }
    counters = [raw = opened->get()] {
      return std::pair(raw->commits(), raw->committed_events());
    };
    opened_store = std::move(*opened);
  } else {
    PostgresStoreOptions options;
    if (mode == Mode::kBaseline) options.max_batch_events = 1;
    auto opened = PostgresEventStore::Open(config.postgres, options);
    if (!opened) {
      result.problems.push_back("cannot open the store: " + opened.error().message);
      return result;
    }
    counters = [raw = opened->get()] {
      return std::pair(raw->commits(), raw->committed_events());
    };
    opened_store = std::move(*opened);
  }
  EventStore& store = *opened_store;
  if (config.leases) {
    for (const MatchLoad& match : load.matches()) {
      if (auto lease = store.AcquireLease(match.id); !lease) {
        result.problems.push_back("cannot take a lease: " + lease.error().message);
        return result;
      }
    }
  }

  const std::size_t commits_before = counters().first;
  const double cpu_before = CpuSeconds();
  const Clock::time_point start = Clock::now();
  const auto duration =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(config.seconds));
  load.Start(store, start + duration);
  if (!load.WaitIdle(duration + std::chrono::seconds(120))) {
    std::fprintf(stderr,
                 "store_bench: %zu appends still unacknowledged 120 s after the deadline "
                 "(N=%d, %s); the store lost callbacks\n",
                 load.in_flight(), matches, ModeName(mode));
    std::fflush(stdout);
    std::_Exit(3);
  }
  const double cpu_after = CpuSeconds();
  result.commits = counters().first - commits_before;

  Clock::time_point end = start;
  std::vector<int64_t> latencies;
  for (const MatchLoad& match : load.matches()) {
    end = std::max(end, match.last_done);
    result.appends += match.appends;
    result.events += match.last_seq;
    latencies.insert(latencies.end(), match.latencies_ns.begin(), match.latencies_ns.end());
  }
  result.seconds = std::chrono::duration<double>(end - start).count();
  result.cpu_cores = result.seconds > 0 ? (cpu_after - cpu_before) / result.seconds : 0;
  std::sort(latencies.begin(), latencies.end());
  result.p50_us = PercentileUs(latencies, 50);
  result.p95_us = PercentileUs(latencies, 95);
  result.p99_us = PercentileUs(latencies, 99);
  result.max_us = latencies.empty() ? 0 : static_cast<double>(latencies.back()) / 1e3;

  Verify(store, counters().second, load.matches(), config, result.events, result);
  return result;
}

std::string FirstLineWith(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? line
                                        : line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "?";
}

// The file system holding `path` (the longest mount point that is a prefix of it), from
// /proc/mounts.
std::string FileSystemOf(const std::filesystem::path& path) {
  std::ifstream mounts("/proc/mounts");
  std::string device, mount_point, type, rest, best = "?";
  std::size_t best_length = 0;
  const std::string target = path.string();
  while (mounts >> device >> mount_point >> type && std::getline(mounts, rest)) {
    const bool covers = target.rfind(mount_point, 0) == 0 &&
                        (target.size() == mount_point.size() || mount_point == "/" ||
                         target[mount_point.size()] == '/');
    if (covers && mount_point.size() >= best_length) {
      best_length = mount_point.size();
      best = type + " on " + mount_point + " (" + device + ")";
    }
  }
  return best;
}

void PrintHeader(const Config& config, const std::string& command) {
  utsname name{};
  uname(&name);
  std::string load = "?";
  if (std::ifstream in("/proc/loadavg"); in) std::getline(in, load);
  testing::TempDir probe;
  if (config.postgres.empty()) {
    std::printf("store_bench — durable appends to SqliteEventStore (WAL, synchronous=FULL)\n");
  } else {
    std::printf("store_bench — durable appends to PostgresEventStore (synchronous_commit=on)\n");
  }
  std::printf("command:   %s\n", command.c_str());
  std::printf("machine:   nproc=%ld (hardware_concurrency=%u), %s, %s %s\n",
              sysconf(_SC_NPROCESSORS_ONLN), std::thread::hardware_concurrency(),
              FirstLineWith("/proc/cpuinfo", "model name").c_str(), name.sysname, name.release);
  if (config.postgres.empty()) {
    std::printf("data dir:  %s on %s\n", probe.path().parent_path().c_str(),
                FileSystemOf(probe.path()).c_str());
  } else {
    std::printf("database:  %s\n", config.postgres.c_str());
  }
  std::printf("load avg:  %s (at start; the machine is shared)\n", load.c_str());
  std::printf(
      "workload:  each match keeps 1 append outstanding (closed loop), %zu event(s) of %zu bytes "
      "per append, %.1f s per run, fresh store per run\n",
      config.events_per_append, config.payload_bytes, config.seconds);
  std::printf(
      "modes:     group = default options (max_batch_events=%zu); baseline = max_batch_events=1 "
      "(one commit per append)\n\n",
      SqliteStoreOptions{}.max_batch_events);
  std::fflush(stdout);
}

void PrintTable(const std::vector<RunResult>& results) {
  std::printf("%7s %-8s %11s %11s %9s %9s %9s %9s %8s %9s %5s %9s\n", "matches", "mode", "events/s",
              "appends/s", "p50 us", "p95 us", "p99 us", "max us", "commits", "ev/commit", "cpu",
              "vs base");
  std::map<int, double> baseline;
  for (const RunResult& r : results) {
    if (r.mode == Mode::kBaseline) baseline[r.matches] = r.events_per_second();
  }
  for (const RunResult& r : results) {
    char ratio[32] = "-";
    if (auto it = baseline.find(r.matches); it != baseline.end() && it->second > 0) {
      std::snprintf(ratio, sizeof ratio, "%.2fx", r.events_per_second() / it->second);
    }
    const double per_commit =
        r.commits > 0 ? static_cast<double>(r.events) / static_cast<double>(r.commits) : 0;
    std::printf("%7d %-8s %11.0f %11.0f %9.0f %9.0f %9.0f %9.0f %8zu %9.1f %5.2f %9s\n", r.matches,
                ModeName(r.mode), r.events_per_second(), r.appends_per_second(), r.p50_us, r.p95_us,
                r.p99_us, r.max_us, r.commits, per_commit, r.cpu_cores, ratio);
  }
  std::printf("(cpu = process CPU seconds per wall second during the load, all threads)\n");
}

// The issue's target: >= 100k durable events/s at >= 100 concurrent matches with p99 <= 5 ms.
void PrintTarget(const std::vector<RunResult>& results) {
  bool any = false;
  for (const RunResult& r : results) {
    if (r.mode != Mode::kGroup || r.matches < 100) continue;
    any = true;
    const bool rate = r.events_per_second() >= 100'000;
    const bool tail = r.p99_us <= 5'000;
    std::printf("target N=%d: %.0f events/s %s 100000, p99 %.0f us %s 5000 -> %s\n", r.matches,
                r.events_per_second(), rate ? ">=" : "<", r.p99_us, tail ? "<=" : ">",
                rate && tail ? "MET" : "NOT MET");
  }
  if (!any) std::printf("target: not evaluated (needs a group run with >= 100 matches)\n");
}

}  // namespace
}  // namespace melee::bench

int main(int argc, char** argv) {
  using namespace melee::bench;  // NOLINT(build/namespaces): a benchmark's main
  Config config;
  CLI::App app{"store_bench — closed-loop durable appends to the SQLite event store"};
  app.add_option("--matches", config.matches, "Concurrent match counts, one run each")
      ->delimiter(',')
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--modes", config.modes, "Modes to run: group, baseline")
      ->delimiter(',')
      ->check(CLI::IsMember({"group", "baseline"}))
      ->capture_default_str();
  app.add_option("--seconds", config.seconds, "Duration of each run")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--payload-bytes", config.payload_bytes, "Bytes per event payload")
      ->check(CLI::Range(16, 1 << 20))
      ->capture_default_str();
  app.add_option("--events-per-append", config.events_per_append, "Events in each AppendBatch")
      ->check(CLI::Range(1, 1 << 16))
      ->capture_default_str();
  app.add_option("--postgres", config.postgres,
                 "Bench PostgresEventStore on this PostgreSQL URI (a scratch database: the runs "
                 "leave their matches in it) instead of SQLite");
  app.add_flag("--leases", config.leases,
               "With --postgres: take each match's lease first, so that every append is fenced "
               "by its token (as melee-server's are on PostgreSQL)");
  CLI11_PARSE(app, argc, argv);

  std::string command;
  for (int i = 0; i < argc; ++i) command += (i > 0 ? " " : "") + std::string(argv[i]);
  PrintHeader(config, command);

  std::vector<RunResult> results;
  bool ok = true;
  for (int matches : config.matches) {
    for (const std::string& name : config.modes) {
      const Mode mode = name == "group" ? Mode::kGroup : Mode::kBaseline;
      std::fprintf(stderr, "running N=%d %s ...\n", matches, ModeName(mode));
      RunResult result = RunOnce(matches, mode, config);
      for (const std::string& problem : result.problems) {
        std::fprintf(stderr, "VERIFY FAILED (N=%d %s): %s\n", matches, ModeName(mode),
                     problem.c_str());
        ok = false;
      }
      results.push_back(std::move(result));
    }
  }
  PrintTable(results);
  PrintTarget(results);
  std::printf("verification: %s\n",
              ok ? "every acknowledged event read back, chain-verified, byte-identical"
                 : "FAILED (see stderr)");
  return ok ? 0 : 1;
}
