#include "tests/testing/faulty_vfs.h"

#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>

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

// ---- files ------------------------------------------------------------------------------------

// An open file: what SQLite sees (`base`, which must come first) followed in the same allocation
// by the real VFS's file, of the real VFS's szOsFile bytes.
struct FaultyFile {
  sqlite3_file base;
  const char* name;  // SQLite keeps it valid until xClose; null for temporary files

  sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(this + 1); }
};
// SQLite aligns file objects to 8 bytes; the real file after the wrapper must stay aligned too.
static_assert(sizeof(FaultyFile) % 8 == 0);

FaultyFile* Wrapper(sqlite3_file* file) { return reinterpret_cast<FaultyFile*>(file); }
sqlite3_file* Real(sqlite3_file* file) { return Wrapper(file)->real(); }
const sqlite3_io_methods& RealMethods(sqlite3_file* file) { return *Real(file)->pMethods; }

int Close(sqlite3_file* file) { return RealMethods(file).xClose(Real(file)); }
int Read(sqlite3_file* file, void* data, int amount, sqlite3_int64 offset) {
  return RealMethods(file).xRead(Real(file), data, amount, offset);
}
int Write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  if (const int rc = NextWriteFault(Wrapper(file)->name); rc != SQLITE_OK) return rc;
  return RealMethods(file).xWrite(Real(file), data, amount, offset);
}
int Truncate(sqlite3_file* file, sqlite3_int64 size) {
  return RealMethods(file).xTruncate(Real(file), size);
}
int Sync(sqlite3_file* file, int flags) {
  if (fail_syncs.load() && IsTarget(Wrapper(file)->name)) {
    ++injected_count;
    return SQLITE_IOERR_FSYNC;
  }
  return RealMethods(file).xSync(Real(file), flags);
}
int FileSize(sqlite3_file* file, sqlite3_int64* size) {
  return RealMethods(file).xFileSize(Real(file), size);
}
int Lock(sqlite3_file* file, int level) { return RealMethods(file).xLock(Real(file), level); }
int Unlock(sqlite3_file* file, int level) { return RealMethods(file).xUnlock(Real(file), level); }
int CheckReservedLock(sqlite3_file* file, int* out) {
  return RealMethods(file).xCheckReservedLock(Real(file), out);
}
int FileControl(sqlite3_file* file, int op, void* arg) {
  return RealMethods(file).xFileControl(Real(file), op, arg);
}
int SectorSize(sqlite3_file* file) { return RealMethods(file).xSectorSize(Real(file)); }
int DeviceCharacteristics(sqlite3_file* file) {
  return RealMethods(file).xDeviceCharacteristics(Real(file));
}
int ShmMap(sqlite3_file* file, int page, int page_size, int extend, void volatile** out) {
  return RealMethods(file).xShmMap(Real(file), page, page_size, extend, out);
}
int ShmLock(sqlite3_file* file, int offset, int n, int flags) {
  return RealMethods(file).xShmLock(Real(file), offset, n, flags);
}
void ShmBarrier(sqlite3_file* file) { RealMethods(file).xShmBarrier(Real(file)); }
int ShmUnmap(sqlite3_file* file, int delete_flag) {
  return RealMethods(file).xShmUnmap(Real(file), delete_flag);
}
int Fetch(sqlite3_file* file, sqlite3_int64 offset, int amount, void** out) {
  return RealMethods(file).xFetch(Real(file), offset, amount, out);
}
int Unfetch(sqlite3_file* file, sqlite3_int64 offset, void* page) {
  return RealMethods(file).xUnfetch(Real(file), offset, page);
}

// Returns the methods for a file whose real file uses `real`: the same iVersion (up to 3, the
// highest this shim knows) and an optional method exactly where the real file has one. One table
// per distinct real table, built on first use and kept for the life of the process.
const sqlite3_io_methods* MethodsFor(const sqlite3_io_methods* real) {
  static std::mutex mutex;
  static std::map<const sqlite3_io_methods*, std::unique_ptr<sqlite3_io_methods>> tables;
  std::lock_guard lock(mutex);
  auto& table = tables[real];
  if (table) return table.get();
  table = std::make_unique<sqlite3_io_methods>(sqlite3_io_methods{
      real->iVersion < 3 ? real->iVersion : 3, Close, Read, Write, Truncate, Sync, FileSize, Lock,
      Unlock, CheckReservedLock, FileControl, SectorSize, DeviceCharacteristics, nullptr, nullptr,
      nullptr, nullptr, nullptr, nullptr});
  if (real->iVersion >= 2) {
    table->xShmMap = real->xShmMap != nullptr ? ShmMap : nullptr;
    table->xShmLock = real->xShmLock != nullptr ? ShmLock : nullptr;
    table->xShmBarrier = real->xShmBarrier != nullptr ? ShmBarrier : nullptr;
    table->xShmUnmap = real->xShmUnmap != nullptr ? ShmUnmap : nullptr;
  }
  if (real->iVersion >= 3) {
    table->xFetch = real->xFetch != nullptr ? Fetch : nullptr;
    table->xUnfetch = real->xUnfetch != nullptr ? Unfetch : nullptr;
  }
  return table.get();
}

// ---- the VFS: opens wrapped files, forwards everything else -----------------------------------

sqlite3_vfs* RealVfs(sqlite3_vfs* vfs) { return static_cast<sqlite3_vfs*>(vfs->pAppData); }

int OpenFile(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  FaultyFile* wrapper = Wrapper(file);
  wrapper->base.pMethods = nullptr;
  wrapper->name = name;
  sqlite3_file* real = wrapper->real();
  real->pMethods = nullptr;
  const int rc = RealVfs(vfs)->xOpen(RealVfs(vfs), name, real, flags, out_flags);
  // SQLite calls xClose exactly when pMethods is set, even after a failed open: mirror the real
  // file so that its xClose runs too.
  if (real->pMethods != nullptr) wrapper->base.pMethods = MethodsFor(real->pMethods);
  return rc;
}
int Delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
  return RealVfs(vfs)->xDelete(RealVfs(vfs), name, sync_dir);
}
int Access(sqlite3_vfs* vfs, const char* name, int flags, int* out) {
  return RealVfs(vfs)->xAccess(RealVfs(vfs), name, flags, out);
}
int FullPathname(sqlite3_vfs* vfs, const char* name, int size, char* out) {
  return RealVfs(vfs)->xFullPathname(RealVfs(vfs), name, size, out);
}
void* DlOpen(sqlite3_vfs* vfs, const char* name) {
  return RealVfs(vfs)->xDlOpen(RealVfs(vfs), name);
}
void DlError(sqlite3_vfs* vfs, int size, char* out) {
  RealVfs(vfs)->xDlError(RealVfs(vfs), size, out);
}
using Symbol = void (*)();
Symbol DlSym(sqlite3_vfs* vfs, void* handle, const char* name) {
  return RealVfs(vfs)->xDlSym(RealVfs(vfs), handle, name);
}
void DlClose(sqlite3_vfs* vfs, void* handle) { RealVfs(vfs)->xDlClose(RealVfs(vfs), handle); }
int Randomness(sqlite3_vfs* vfs, int size, char* out) {
  return RealVfs(vfs)->xRandomness(RealVfs(vfs), size, out);
}
int Sleep(sqlite3_vfs* vfs, int micros) { return RealVfs(vfs)->xSleep(RealVfs(vfs), micros); }
int CurrentTime(sqlite3_vfs* vfs, double* out) {
  return RealVfs(vfs)->xCurrentTime(RealVfs(vfs), out);
}
int GetLastError(sqlite3_vfs* vfs, int size, char* out) {
  return RealVfs(vfs)->xGetLastError(RealVfs(vfs), size, out);
}
int CurrentTimeInt64(sqlite3_vfs* vfs, sqlite3_int64* out) {
  return RealVfs(vfs)->xCurrentTimeInt64(RealVfs(vfs), out);
}

}  // namespace

void FaultyVfs::Register() {
  static const bool registered = [] {
    sqlite3_vfs* real = sqlite3_vfs_find(nullptr);
    if (real == nullptr || real->iVersion < 2) std::abort();
    // Version 2: the system-call hooks of version 3 are for testing the unix VFS itself.
    static sqlite3_vfs vfs{2,
                           static_cast<int>(sizeof(FaultyFile)) + real->szOsFile,
                           real->mxPathname,
                           nullptr,
                           kName,
                           real,
                           OpenFile,
                           Delete,
                           Access,
                           FullPathname,
                           DlOpen,
                           DlError,
                           DlSym,
                           DlClose,
                           Randomness,
                           Sleep,
                           CurrentTime,
                           GetLastError,
                           CurrentTimeInt64,
                           nullptr,
                           nullptr,
                           nullptr};
    return sqlite3_vfs_register(&vfs, /*makeDflt=*/0) == SQLITE_OK;
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
