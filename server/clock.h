#pragma once

// Wall-clock time for the server's deadlines and event timestamps, injected so that tests move
// time by hand instead of sleeping.

#include <atomic>
#include <chrono>
#include <cstdint>

namespace melee::server {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch. Thread-safe.
  virtual int64_t NowUnixMs() const = 0;
};

// The system clock.
class SystemClock final : public Clock {
 public:
  int64_t NowUnixMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

// A clock that only moves when told to (tests). Thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_unix_ms = 1'790'000'000'000) : now_(start_unix_ms) {}
  int64_t NowUnixMs() const override { return now_.load(); }
  void Advance(std::chrono::milliseconds by) { now_ += by.count(); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace melee::server
