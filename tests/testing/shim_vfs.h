#pragma once

// What the test VFSs (faulty_vfs.h, power_loss_vfs.h) share: a SQLite VFS that wraps the default
// VFS and forwards every call to it, except the calls a VFS makes its own. A VFS built on it
// writes only what it adds (a fault, a model of the disk) and registers it:
//
//   shim::Overrides own;
//   own.file.xWrite = Write;   // this VFS's xWrite; every other file method is forwarded
//   if (!shim::Register(kName, own)) std::abort();
//
// Each open file is a shim::File (what SQLite sees) followed in the same allocation by the real
// VFS's file; an override reaches the real file through Real(file) and RealMethods(file), and the
// real VFS through RealVfs(vfs).
//
// The io-methods table of a wrapped file has the real file's iVersion (up to 3, the highest the
// shim knows) and an optional method (the shared-memory ones of version 2, xFetch and xUnfetch of
// version 3) exactly where the real file has one; an override of an optional method the real
// file lacks is left out too. As SQLite calls xClose exactly when pMethods is set, also after a
// failed open, a wrapped file gets methods exactly when the real VFS gave its file some.
//
// Thread-safety: the functions here may be called from any thread; the shim itself keeps only
// the io-methods tables, behind a mutex. The overrides bring their own guarding.

#include <sqlite3.h>

namespace melee::testing::shim {

// An open file: what SQLite sees (`base`, which must come first) followed in the same allocation
// by the real VFS's file, of the real VFS's szOsFile bytes.
struct File {
  sqlite3_file base;
  const char* name;  // SQLite keeps it valid until xClose; null for temporary files

  sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(this + 1); }
};
// SQLite aligns file objects to 8 bytes; the real file after the wrapper must stay aligned too.
static_assert(sizeof(File) % 8 == 0);

// Returns the name `file` (a file of a shim VFS) was opened with; null for temporary files.
inline const char* Name(sqlite3_file* file) { return reinterpret_cast<File*>(file)->name; }

// Returns the real VFS's file behind `file` (a file of a shim VFS).
inline sqlite3_file* Real(sqlite3_file* file) { return reinterpret_cast<File*>(file)->real(); }

// Returns the io methods of the real file behind `file`.
inline const sqlite3_io_methods& RealMethods(sqlite3_file* file) { return *Real(file)->pMethods; }

// Returns the real VFS that `vfs` (a shim VFS) wraps.
sqlite3_vfs* RealVfs(sqlite3_vfs* vfs);

// What a VFS makes its own; every null member is forwarded to the real file or VFS.
struct Overrides {
  // File methods: a non-null member replaces the forwarding one (iVersion is not used).
  sqlite3_io_methods file{};
  // Returns the error an xOpen fails with before it reaches the real VFS (the file then has no
  // methods, so SQLite does not close it), or SQLITE_OK to open the real file.
  int (*open_error)(const char* name) = nullptr;
  // Replaces the forwarding xDelete.
  int (*xDelete)(sqlite3_vfs* vfs, const char* name, int sync_dir) = nullptr;
};

// Registers a VFS named `name` (not as the default) that wraps the current default VFS, with
// `own` made its own; `name` must stay valid for the life of the process (a literal). Not
// idempotent: the caller registers once. Returns false when SQLite has no default VFS of
// iVersion 2 or more, or refuses the registration.
[[nodiscard]] bool Register(const char* name, const Overrides& own);

}  // namespace melee::testing::shim
