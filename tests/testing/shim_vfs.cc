#include "tests/testing/shim_vfs.h"

#include <map>
#include <memory>
#include <mutex>

namespace melee::testing::shim {
namespace {

// ---- the file methods, forwarded --------------------------------------------------------------

int Close(sqlite3_file* file) { return RealMethods(file).xClose(Real(file)); }
int Read(sqlite3_file* file, void* data, int amount, sqlite3_int64 offset) {
  return RealMethods(file).xRead(Real(file), data, amount, offset);
}
int Write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  return RealMethods(file).xWrite(Real(file), data, amount, offset);
}
int Truncate(sqlite3_file* file, sqlite3_int64 size) {
  return RealMethods(file).xTruncate(Real(file), size);
}
int Sync(sqlite3_file* file, int flags) { return RealMethods(file).xSync(Real(file), flags); }
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

// ---- a registered shim: its VFS, what it wraps, what it makes its own -------------------------

struct Shim {
  sqlite3_vfs vfs;  // pAppData points back at this Shim
  sqlite3_vfs* real;
  Overrides own;
  std::mutex mutex;  // guards tables
  std::map<const sqlite3_io_methods*, std::unique_ptr<sqlite3_io_methods>> tables;
};

Shim& ShimOf(sqlite3_vfs* vfs) { return *static_cast<Shim*>(vfs->pAppData); }

// Returns `own` where the VFS made the method its own, else `forward`.
template <typename Method>
Method Pick(Method own, Method forward) {
  return own != nullptr ? own : forward;
}

// Returns the method for an optional slot: none where the real file has none.
template <typename Method>
Method PickOptional(Method real, Method own, Method forward) {
  return real != nullptr ? Pick(own, forward) : nullptr;
}

// Returns the methods for a file of `shim` whose real file uses `real`: the same iVersion (up to
// 3, the highest this shim knows) and an optional method exactly where the real file has one.
// One table per distinct real table, built on first use and kept for the life of the process.
const sqlite3_io_methods* MethodsFor(Shim& shim, const sqlite3_io_methods* real) {
  std::lock_guard lock(shim.mutex);
  auto& table = shim.tables[real];
  if (table) return table.get();
  const sqlite3_io_methods& own = shim.own.file;
  table = std::make_unique<sqlite3_io_methods>(sqlite3_io_methods{
      real->iVersion < 3 ? real->iVersion : 3, Pick(own.xClose, Close), Pick(own.xRead, Read),
      Pick(own.xWrite, Write), Pick(own.xTruncate, Truncate), Pick(own.xSync, Sync),
      Pick(own.xFileSize, FileSize), Pick(own.xLock, Lock), Pick(own.xUnlock, Unlock),
      Pick(own.xCheckReservedLock, CheckReservedLock), Pick(own.xFileControl, FileControl),
      Pick(own.xSectorSize, SectorSize), Pick(own.xDeviceCharacteristics, DeviceCharacteristics),
      nullptr, nullptr, nullptr, nullptr, nullptr, nullptr});
  if (real->iVersion >= 2) {
    table->xShmMap = PickOptional(real->xShmMap, own.xShmMap, ShmMap);
    table->xShmLock = PickOptional(real->xShmLock, own.xShmLock, ShmLock);
    table->xShmBarrier = PickOptional(real->xShmBarrier, own.xShmBarrier, ShmBarrier);
    table->xShmUnmap = PickOptional(real->xShmUnmap, own.xShmUnmap, ShmUnmap);
  }
  if (real->iVersion >= 3) {
    table->xFetch = PickOptional(real->xFetch, own.xFetch, Fetch);
    table->xUnfetch = PickOptional(real->xUnfetch, own.xUnfetch, Unfetch);
  }
  return table.get();
}

// ---- the VFS: opens wrapped files, forwards everything else -----------------------------------

int OpenFile(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  File* wrapper = reinterpret_cast<File*>(file);
  wrapper->base.pMethods = nullptr;
  wrapper->name = name;
  sqlite3_file* real = wrapper->real();
  real->pMethods = nullptr;
  Shim& shim = ShimOf(vfs);
  if (shim.own.open_error != nullptr) {
    if (const int rc = shim.own.open_error(name); rc != SQLITE_OK) return rc;
  }
  const int rc = shim.real->xOpen(shim.real, name, real, flags, out_flags);
  // SQLite calls xClose exactly when pMethods is set, even after a failed open: mirror the real
  // file so that its xClose runs too.
  if (real->pMethods != nullptr) wrapper->base.pMethods = MethodsFor(shim, real->pMethods);
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

sqlite3_vfs* RealVfs(sqlite3_vfs* vfs) { return ShimOf(vfs).real; }

bool Register(const char* name, const Overrides& own) {
  sqlite3_vfs* real = sqlite3_vfs_find(nullptr);
  if (real == nullptr || real->iVersion < 2) return false;
  // Kept for the life of the process, as SQLite keeps the VFS.
  Shim* shim = new Shim{};
  shim->real = real;
  shim->own = own;
  // Version 2: the system-call hooks of version 3 are for testing the unix VFS itself.
  shim->vfs = sqlite3_vfs{2,
                          static_cast<int>(sizeof(File)) + real->szOsFile,
                          real->mxPathname,
                          nullptr,
                          name,
                          shim,
                          OpenFile,
                          Pick(own.xDelete, Delete),
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
  return sqlite3_vfs_register(&shim->vfs, /*makeDflt=*/0) == SQLITE_OK;
}

}  // namespace melee::testing::shim
