// crash_child DATA_DIR MATCHES: a writer for crash_test.cc to kill.
//
// Opens the event store in DATA_DIR, resumes each of the matches m0 .. m<MATCHES-1> from its
// head (ListMatches), and appends to them from a few threads until it is killed. Each thread owns
// some matches and keeps one batch in flight for each; event seq N of match m<k> has the payload
// "m<k>-e<N>|" followed by random padding. After every acknowledged batch the callback prints
//
//   ack <match_id> <last_seq>
//
// with a single write(2) to stdout, so the line is out before the next acknowledgement. Any
// failure prints "error ..." and exits with status 3.

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "persistence/sqlite_event_store.h"

namespace {

using melee::persistence::AppendBatch;
using melee::persistence::Appended;
using melee::persistence::SqliteEventStore;
using melee::persistence::StoreResult;

constexpr int kThreads = 3;

// Writes `line` to stdout in one write(2) (atomic on a pipe up to PIPE_BUF bytes).
void Print(const std::string& line) {
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = write(STDOUT_FILENO, line.data() + done, line.size() - done);
    if (n <= 0) std::_Exit(4);
    done += static_cast<std::size_t>(n);
  }
}

[[noreturn]] void Fail(const std::string& what) {
  Print("error " + what + "\n");
  std::_Exit(3);
}

struct Match {
  std::string id;
  uint64_t last_seq = 0;  // written by the append callback, read after it signalled
};

// Appends to `matches` forever: one batch of 1-4 events in flight per match.
void AppendLoop(SqliteEventStore& store, std::vector<Match*> matches, unsigned seed) {
  std::mt19937 random(seed);
  std::mutex mutex;
  std::condition_variable done;
  while (true) {
    std::size_t pending = matches.size();
    for (Match* match : matches) {
      AppendBatch batch{match->id, match->last_seq, {}, 0, {}};
      batch.recorded_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count();
      const uint64_t count = 1 + random() % 4;
      for (uint64_t seq = match->last_seq + 1; seq <= match->last_seq + count; ++seq) {
        std::string payload = match->id + "-e" + std::to_string(seq) + "|";
        payload.append(random() % 300, static_cast<char>('a' + random() % 26));
        batch.payloads.push_back(std::move(payload));
      }
      store.Append(std::move(batch), [&, match](StoreResult<Appended> appended) {
        if (!appended) Fail(match->id + ": " + appended.error().message);
        Print("ack " + match->id + " " + std::to_string(appended->last_seq) + "\n");
        std::lock_guard lock(mutex);
        match->last_seq = appended->last_seq;
        if (--pending == 0) done.notify_one();
      });
    }
    std::unique_lock lock(mutex);
    done.wait(lock, [&] { return pending == 0; });
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || std::atoi(argv[2]) <= 0) {
    Print("usage: crash_child DATA_DIR MATCHES\n");
    return 2;
  }
  const int match_count = std::atoi(argv[2]);
  auto store = SqliteEventStore::OpenDataDirectory(argv[1]);
  if (!store) Fail("cannot open: " + store.error().message);
  auto heads = (*store)->ListMatches();
  if (!heads) Fail("cannot list matches: " + heads.error().message);

  std::vector<Match> matches(static_cast<std::size_t>(match_count));
  for (int k = 0; k < match_count; ++k)
    matches[static_cast<std::size_t>(k)].id = "m" + std::to_string(k);
  for (const auto& head : *heads) {
    for (Match& match : matches) {
      if (match.id == head.match_id) match.last_seq = head.last_seq;
    }
  }
  Print("ready\n");

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    std::vector<Match*> owned;
    for (int k = t; k < match_count; k += kThreads)
      owned.push_back(&matches[static_cast<std::size_t>(k)]);
    if (owned.empty()) continue;
    const unsigned seed = static_cast<unsigned>(getpid()) * 31u + static_cast<unsigned>(t);
    threads.emplace_back(AppendLoop, std::ref(**store), std::move(owned), seed);
  }
  for (std::thread& thread : threads) thread.join();  // never: the process is killed
  return 0;
}
