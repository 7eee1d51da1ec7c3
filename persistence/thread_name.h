#pragma once

#include <pthread.h>

namespace melee::persistence {

// The names the store gives its threads, so that `top -H`, `perf` and /proc/PID/task/*/comm tell
// them apart from the server's I/O threads (bench/match_bench splits the server's CPU by them).
// Linux keeps at most 15 characters.
inline constexpr char kWriterThreadName[] = "melee-store";
inline constexpr char kCheckpointThreadName[] = "melee-ckpt";
inline constexpr char kLeaseThreadName[] = "melee-lease";

// Names the calling thread.
inline void NameThisThread(const char* name) { pthread_setname_np(pthread_self(), name); }

}  // namespace melee::persistence
