#include "tests/testing/faulty_vfs.h"

#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include "tests/testing/shim_vfs.h"

namespace melee::testing {
namespace {

// ---- fault settings ---------------------------------------------------------------------------

// Writes to target files that may still succeed; -1: no write fault armed.
std::atomic<int64_t> writes_left{-1};
std::atomic<WriteFault> write_fault{WriteFault::kNone};
std::atomic<bool> fail_syncs{false};
std::atomic<int> injected_count{0};

std::mutex suffix_mutex;
std::string target_suffix;  // guarded by suffix_mutex; empty: every file

// Returns true when faults apply to the file named `name` (null for SQLite's temporary files).
bool IsTarget(const char* name) {
  std::lock_guard lock(suffix_mutex);
  if (target_suffix.empty()) return true;
  return name != nullptr && std::string_view(name).ends_with(target_suffix);
}

// Returns the error the next write to `name` must fail with, or SQLITE_OK; counts the write
// against the armed budget.
int NextWriteFault(const char* name) {
  if (writes_left.load() < 0 || !IsTarget(name)) return SQLITE_OK;
  int64_t left = writes_left.load();
  while (left > 0 && !writes_left.compare_exchange_weak(left, left - 1)) {
  }
  if (left != 0) return SQLITE_OK;  // still in budget (or disarmed meanwhile)
  switch (write_fault.load()) {
    case WriteFault::kDiskFull:
      ++injected_count;
      return SQLITE_FULL;
    case WriteFault::kReadOnly:
      ++injected_count;
      return SQLITE_READONLY;
    case WriteFault::kNone:
      break;
  }
  return SQLITE_OK;
}

// ---- files: the faults; every other call is forwarded (shim_vfs.h) ----------------------------

using shim::Real;
using shim::RealMethods;

int Write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  if (const int rc = NextWriteFault(shim::Name(file)); rc != SQLITE_OK) return rc;
  return RealMethods(file).xWrite(Real(file), data, amount, offset);
}
int Sync(sqlite3_file* file, int flags) {
  if (fail_syncs.load() && IsTarget(shim::Name(file))) {
    ++injected_count;
    return SQLITE_IOERR_FSYNC;
  }
  return RealMethods(file).xSync(Real(file), flags);
}

}  // namespace

void FaultyVfs::Register() {
  static const bool registered = [] {
    shim::Overrides own;
    own.file.xWrite = Write;  // the write faults
    own.file.xSync = Sync;    // the sync faults
    return shim::Register(kName, own);
  }();
  if (!registered) std::abort();
}

void FaultyVfs::FailWritesAfter(int successful_writes, WriteFault fault) {
  write_fault.store(fault);
  writes_left.store(successful_writes < 0 ? 0 : successful_writes);  // arms it: last
}

void FaultyVfs::FailSyncs() { fail_syncs.store(true); }

void FaultyVfs::SetTargetSuffix(std::string suffix) {
  std::lock_guard lock(suffix_mutex);
  target_suffix = std::move(suffix);
}

void FaultyVfs::Clear() {
  writes_left.store(-1);
  write_fault.store(WriteFault::kNone);
  fail_syncs.store(false);
  SetTargetSuffix("");
  injected_count.store(0);
}

int FaultyVfs::injected() { return injected_count.load(); }

}  // namespace melee::testing
