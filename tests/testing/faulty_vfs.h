#pragma once

// A SQLite VFS for failure injection: it wraps the default VFS, forwards every call to it, and
// fails writes or syncs on demand, so tests see the errors a full disk, a failing disk or a
// read-only file would give, without needing one.
//
//   FaultyVfs::Register();                                  // once; then open with the name
//   SqliteEventStore::Open(path, {.vfs = FaultyVfs::kName});
//   FaultyVfs::FailWritesAfter(0, WriteFault::kDiskFull);   // the next write fails
//   ...
//   FaultyVfs::Clear();                                     // the disk is healthy again
//
// Faults are process-wide (one VFS) and sticky: once a fault has fired, every later matching
// call fails the same way until Clear(). Files opened through other VFSs are never affected.
//
// Thread-safety: every function may be called from any thread, also while SQLite uses the VFS on
// others (the settings are atomics; the file-name filter is behind a mutex). A call that races
// with a setter sees either the old or the new setting.

#include <string>

namespace melee::testing {

// How a write fails.
enum class WriteFault {
  kNone,
  kDiskFull,  // SQLITE_FULL, as the unix VFS reports ENOSPC
  kReadOnly,  // SQLITE_READONLY, a file that cannot be written
};

class FaultyVfs {
 public:
  // The name to pass to sqlite3_open_v2 (or SqliteStoreOptions::vfs).
  static constexpr const char* kName = "melee-faulty";

  // Registers the VFS under kName (not as the default); idempotent. Aborts when SQLite has no
  // default VFS or refuses the registration (a broken test environment).
  static void Register();

  // Makes writes fail with `fault` after `successful_writes` more writes succeeded (0: the next
  // one fails). Only writes to target files count (see SetTargetSuffix).
  static void FailWritesAfter(int successful_writes, WriteFault fault);

  // Makes every sync (fsync) of a target file fail with SQLITE_IOERR_FSYNC.
  static void FailSyncs();

  // Restricts the faults to files whose name ends with `suffix` ("-wal": the write-ahead log
  // only; "melee.db": the main database only). Empty (the default): every file.
  static void SetTargetSuffix(std::string suffix);

  // Removes every fault and the target filter, and resets injected().
  static void Clear();

  // Returns how many calls failed because of a fault since the last Clear().
  static int injected();
};

}  // namespace melee::testing
