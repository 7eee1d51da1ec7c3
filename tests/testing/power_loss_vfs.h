#pragma once

// A SQLite VFS that models a disk with a volatile write cache, so that a test can cut the power
// at a random moment and "reboot" the files the way a real disk would hold them afterwards.
//
//   PowerLossVfs::Register();                                 // once; then open with the name
//   PowerLossVfs::CutPowerAfter(n);                           // the n+1-th write/sync/truncate
//   auto store = SqliteEventStore::Open(path, {.vfs = PowerLossVfs::kName});
//   ... PowerLossVfs::WaitForPowerLoss(...) ...
//   store.reset();                                            // closes with no further I/O
//   PowerLossVfs::Reboot(random, LossMode::kScramble);        // the files as the disk kept them
//
// It wraps the default (unix) VFS. Every xWrite and xTruncate of a named file reaches the real
// file at once (so reads see it, as they would see the OS cache), but is also recorded, with the
// bytes it replaced, as not yet durable; xSync of a file makes every recorded change of that file
// durable (through any handle: a sync is per file, as fsync is per inode). No real fsync is made:
// durability is what this model says it is, which keeps a cycle fast.
//
// The power loss happens on a counted call (xWrite, xTruncate or xSync of any file): that call is
// not performed, and from then on every xRead, xWrite, xTruncate, xSync and xDelete fails with an
// I/O error and changes nothing, so the code above sees a dead disk and the files keep the state
// they had at the cut. Locks and the shared-memory index are still forwarded (they hold nothing
// durable; the wal-index is rebuilt from the WAL by the next first connection).
//
// Reboot (every connection closed first) rewrites each file as the disk could hold it after the
// cut: first every change since the file's last sync is undone; then, in LossMode::kInOrder, the
// changes are replayed in the order they were made up to a random one (all of them, sometimes),
// which is torn at a sector; in LossMode::kScramble, each of them is replayed piece by piece,
// where each 512-byte sector of a write is
// either lost, written, or torn (a prefix of it written: sector writes are linear, not atomic),
// independently of the other sectors (the disk may reorder writes); a truncation is kept or lost.
// Bytes of a torn sector past the old end of the file are garbage (a file that grew may hold
// garbage where its data did not land). Nothing outside a write's own range is ever changed.
// This is what SQLite assumes of a disk whose xDeviceCharacteristics is the unix VFS's
// SQLITE_IOCAP_POWERSAFE_OVERWRITE alone (no ATOMIC*, no SEQUENTIAL, no SAFE_APPEND), with
// xSync as a full barrier for the file (synchronous=FULL). Not modelled: a file created and
// never made durable through a sync of its directory disappearing (SQLite syncs the directory of
// a new WAL; the database file is created once, by the first Open), and data lost after a sync
// returned (a disk that lies about flushing is outside what any database can survive).
//
// Thread-safety: every function may be called from any thread; the VFS methods may run on many
// threads at once (changes to files are serialised by one mutex). Reboot requires that no
// connection through this VFS is open.

#include <chrono>
#include <cstdint>
#include <random>
#include <string>

namespace melee::testing {

// What a power loss keeps of the writes that were not synced.
enum class LossMode {
  kDropAll,   // none of them
  kInOrder,   // those before a random one, in the order made; that one torn; none after it
  kScramble,  // each 512-byte piece of each one lost, written or torn, independently
};

// What a Reboot did (for the test's report).
struct RebootReport {
  int files = 0;              // files with changes that were not synced
  int changes = 0;            // those changes (writes and truncations)
  int main_file_changes = 0;  // ... of them to a database file (a checkpoint's), not its WAL
  int sectors_lost = 0;       // 512-byte pieces of writes not written
  int sectors_written = 0;    // ... written whole
  int sectors_torn = 0;       // ... torn (a prefix written)
  int truncations = 0;        // truncations among the changes
  int truncations_kept = 0;   // ... that reached the disk anyway
};

class PowerLossVfs {
 public:
  // The name to pass to sqlite3_open_v2 (or SqliteStoreOptions::vfs).
  static constexpr const char* kName = "melee-power-loss";

  // Registers the VFS under kName (not as the default); idempotent. Aborts when SQLite has no
  // default VFS or refuses the registration (a broken test environment).
  static void Register();

  // Cuts the power at the counted call after `calls` more counted calls (xWrite, xTruncate,
  // xSync, on any file through this VFS) succeeded: 0 cuts it at the next one.
  static void CutPowerAfter(uint64_t calls);

  // Cuts the power `calls` counted calls after the next xTruncate of a named file (the writer's
  // truncation of a full WAL): 0 cuts it at the call right after the truncation.
  static void CutPowerAfterNextTruncate(uint64_t calls);

  // Cuts the power now (nothing further reaches the files).
  static void CutPower();

  // Returns true once the power is cut (until Reboot).
  static bool power_lost();

  // Waits until the power is cut or `timeout` passed; returns power_lost().
  static bool WaitForPowerLoss(std::chrono::milliseconds timeout);

  // Returns the counted calls since the last Reboot (or Register).
  static uint64_t counted_calls();

  // Rewrites every file that has changes not synced as the disk holds it after the power loss
  // (see the head of this file), choosing with `random`; forgets every pending change; restores
  // the power (no cut armed). Precondition: no connection through this VFS is open. Aborts on a
  // failure of the real file system (the test cannot go on).
  static RebootReport Reboot(std::mt19937_64& random, LossMode mode);
};

}  // namespace melee::testing
