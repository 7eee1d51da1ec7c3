#include "tests/testing/power_loss_vfs.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "tests/testing/shim_vfs.h"

namespace melee::testing {
namespace {

constexpr int64_t kSector = 512;

// One change to a file since its last sync: a write of `data` at `offset`, or a truncation to
// `size`, with what it replaced, so that it can be undone.
struct Change {
  bool truncate = false;
  int64_t offset = 0;  // write: where; truncate: the new size
  std::string data;    // write: the bytes written
  int64_t size_before = 0;
  std::string replaced;  // the bytes it overwrote (write) or cut off (truncate)
};

// ---- the disk's state: guarded by disk_mutex --------------------------------------------------

std::mutex disk_mutex;
std::condition_variable power_cv;
bool dead = false;            // the power is cut
int64_t calls_left = -1;      // counted calls before the cut; -1: no cut armed
int64_t after_truncate = -1;  // calls_left to arm at the next truncation; -1: none
uint64_t calls_counted = 0;
std::map<std::string, std::vector<Change>> pending;  // by file name: changes not synced

// Counts one call; returns true when the power is (now) cut and the call must not happen.
bool CountCall() {
  if (dead) return true;
  ++calls_counted;
  if (calls_left == 0) {
    dead = true;
    calls_left = -1;
    power_cv.notify_all();
    return true;
  }
  if (calls_left > 0) --calls_left;
  return false;
}

// ---- files: the write cache; every other call is forwarded (shim_vfs.h) -----------------------

using shim::Real;
using shim::RealMethods;

// Reads [offset, offset + amount) of the real file, clipped to `size` (its current size).
std::string ReadRange(sqlite3_file* file, int64_t offset, int64_t amount, int64_t size) {
  const int64_t end = std::min(offset + amount, size);
  if (end <= offset) return {};
  std::string bytes(static_cast<std::size_t>(end - offset), '\0');
  if (RealMethods(file).xRead(Real(file), bytes.data(), static_cast<int>(bytes.size()), offset) !=
      SQLITE_OK) {
    std::abort();  // the real file system failed under the model
  }
  return bytes;
}

int64_t RealSize(sqlite3_file* file) {
  sqlite3_int64 size = 0;
  if (RealMethods(file).xFileSize(Real(file), &size) != SQLITE_OK) std::abort();
  return size;
}

int Read(sqlite3_file* file, void* data, int amount, sqlite3_int64 offset) {
  {
    std::lock_guard lock(disk_mutex);
    if (dead) return SQLITE_IOERR_READ;
  }
  return RealMethods(file).xRead(Real(file), data, amount, offset);
}
int Write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  std::lock_guard lock(disk_mutex);
  if (CountCall()) return SQLITE_IOERR_WRITE;
  const char* name = shim::Name(file);
  if (name == nullptr) return RealMethods(file).xWrite(Real(file), data, amount, offset);
  Change change;
  change.offset = offset;
  change.data.assign(static_cast<const char*>(data), static_cast<std::size_t>(amount));
  change.size_before = RealSize(file);
  change.replaced = ReadRange(file, offset, amount, change.size_before);
  const int rc = RealMethods(file).xWrite(Real(file), data, amount, offset);
  // A failed real write may still have written a part: keep the record either way.
  pending[name].push_back(std::move(change));
  return rc;
}
int Truncate(sqlite3_file* file, sqlite3_int64 size) {
  std::lock_guard lock(disk_mutex);
  if (CountCall()) return SQLITE_IOERR_TRUNCATE;
  const char* name = shim::Name(file);
  if (name == nullptr) return RealMethods(file).xTruncate(Real(file), size);
  Change change;
  change.truncate = true;
  change.offset = size;
  change.size_before = RealSize(file);
  change.replaced = ReadRange(file, size, change.size_before - size, change.size_before);
  const int rc = RealMethods(file).xTruncate(Real(file), size);
  pending[name].push_back(std::move(change));
  if (after_truncate >= 0) {
    calls_left = after_truncate;
    after_truncate = -1;
  }
  return rc;
}
int Sync(sqlite3_file* file, int) {
  std::lock_guard lock(disk_mutex);
  if (CountCall()) return SQLITE_IOERR_FSYNC;
  // Everything written to this file, through any handle, is durable now.
  if (const char* name = shim::Name(file); name != nullptr) pending.erase(name);
  return SQLITE_OK;
}
int Fetch(sqlite3_file* file, sqlite3_int64 offset, int amount, void** out) {
  // No memory-mapped reads: every read goes through Read, which a dead disk fails.
  (void)file;
  (void)offset;
  (void)amount;
  *out = nullptr;
  return SQLITE_OK;
}
int Unfetch(sqlite3_file* file, sqlite3_int64 offset, void* page) {
  if (page != nullptr) return RealMethods(file).xUnfetch(Real(file), offset, page);
  return SQLITE_OK;
}

// ---- the VFS: a dead disk opens and deletes nothing -------------------------------------------

int OpenError(const char*) {
  std::lock_guard lock(disk_mutex);
  return dead ? SQLITE_CANTOPEN : SQLITE_OK;
}
int Delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
  std::lock_guard lock(disk_mutex);
  if (dead) return SQLITE_IOERR_DELETE;
  // Modelled as durable at once (SQLite deletes the WAL only at a clean close).
  pending.erase(name);
  return shim::RealVfs(vfs)->xDelete(shim::RealVfs(vfs), name, sync_dir);
}

// ---- rebooting: the real file as the disk kept it ---------------------------------------------

void WriteAt(int fd, const char* data, int64_t size, int64_t offset) {
  while (size > 0) {
    const ssize_t n = pwrite(fd, data, static_cast<std::size_t>(size), offset);
    if (n <= 0) std::abort();
    data += n;
    size -= n;
    offset += n;
  }
}

void TruncateTo(int fd, int64_t size) {
  if (ftruncate(fd, size) != 0) std::abort();
}

int64_t SizeOf(int fd) {
  struct stat info {};
  if (fstat(fd, &info) != 0) std::abort();
  return info.st_size;
}

// Undoes `changes` (newest first): the file as it was at its last sync.
void Undo(int fd, const std::vector<Change>& changes) {
  for (auto it = changes.rbegin(); it != changes.rend(); ++it) {
    const Change& change = *it;
    if (change.truncate) {
      TruncateTo(fd, change.size_before);
      WriteAt(fd, change.replaced.data(), static_cast<int64_t>(change.replaced.size()),
              change.offset);
    } else {
      WriteAt(fd, change.replaced.data(), static_cast<int64_t>(change.replaced.size()),
              change.offset);
      TruncateTo(fd, change.size_before);
    }
  }
}

// Writes the first `landed` bytes of the sector piece [at, piece_end) of `bytes`; past the old
// end of the file, the rest of the piece is garbage.
void Tear(int fd, const char* bytes, int64_t at, int64_t piece_end, int64_t landed,
          std::mt19937_64& random) {
  WriteAt(fd, bytes, landed, at);
  const int64_t size = SizeOf(fd);
  if (piece_end > size) {
    const int64_t from = std::max(size, at + landed);
    std::string garbage(static_cast<std::size_t>(piece_end - from), '\0');
    for (char& c : garbage) c = static_cast<char>(random());
    WriteAt(fd, garbage.data(), static_cast<int64_t>(garbage.size()), from);
  }
}

// Replays `changes` in order up to a random one, which is torn at a random sector (kInOrder).
void ReplayInOrder(int fd, const std::vector<Change>& changes, std::mt19937_64& random,
                   RebootReport& report) {
  const std::size_t stop = std::uniform_int_distribution<std::size_t>(0, changes.size())(random);
  for (std::size_t i = 0; i < changes.size() && i <= stop; ++i) {
    const Change& change = changes[i];
    if (change.truncate) {
      if (i < stop) {
        TruncateTo(fd, change.offset);
        ++report.truncations_kept;
      }
      continue;
    }
    int64_t at = change.offset;
    const int64_t end = change.offset + static_cast<int64_t>(change.data.size());
    // The change at `stop` lands up to a random byte of a random sector; the rest of it is lost.
    const int64_t cut =
        i < stop ? end : std::uniform_int_distribution<int64_t>(change.offset, end)(random);
    while (at < end) {
      const int64_t piece_end = std::min(end, (at / kSector + 1) * kSector);
      const char* bytes = change.data.data() + (at - change.offset);
      if (piece_end <= cut) {
        WriteAt(fd, bytes, piece_end - at, at);
        ++report.sectors_written;
      } else if (at < cut) {
        Tear(fd, bytes, at, piece_end, cut - at, random);
        ++report.sectors_torn;
      } else {
        ++report.sectors_lost;
      }
      at = piece_end;
    }
  }
}

// Replays what of `changes` the disk may have written before the power went (kScramble).
void Scramble(int fd, const std::vector<Change>& changes, std::mt19937_64& random,
              RebootReport& report) {
  std::uniform_int_distribution<int> percent(0, 99);
  for (const Change& change : changes) {
    if (change.truncate) {
      if (percent(random) < 50) {
        TruncateTo(fd, change.offset);
        ++report.truncations_kept;
      }
      continue;
    }
    // Pieces cut at the sectors of the file (absolute 512-byte boundaries).
    int64_t at = change.offset;
    const int64_t end = change.offset + static_cast<int64_t>(change.data.size());
    while (at < end) {
      const int64_t piece_end = std::min(end, (at / kSector + 1) * kSector);
      const char* bytes = change.data.data() + (at - change.offset);
      const int64_t length = piece_end - at;
      const int roll = percent(random);
      if (roll < 40) {
        ++report.sectors_lost;
      } else if (roll < 85) {
        WriteAt(fd, bytes, length, at);
        ++report.sectors_written;
      } else {
        // Torn: a prefix landed; past the old end of the file, the rest is garbage.
        Tear(fd, bytes, at, piece_end,
             std::uniform_int_distribution<int64_t>(0, length - 1)(random), random);
        ++report.sectors_torn;
      }
      at = piece_end;
    }
  }
}

}  // namespace

void PowerLossVfs::Register() {
  static const bool registered = [] {
    shim::Overrides own;
    own.file.xRead = Read;          // a dead disk reads nothing
    own.file.xWrite = Write;        // recorded as not yet durable; counted
    own.file.xTruncate = Truncate;  // the same
    own.file.xSync = Sync;          // makes the file's changes durable; counted
    own.file.xFetch = Fetch;        // no memory-mapped reads
    own.file.xUnfetch = Unfetch;
    own.open_error = OpenError;  // a dead disk opens nothing
    own.xDelete = Delete;        // ... and deletes nothing
    return shim::Register(kName, own);
  }();
  if (!registered) std::abort();
}

void PowerLossVfs::CutPowerAfter(uint64_t calls) {
  std::lock_guard lock(disk_mutex);
  calls_left = static_cast<int64_t>(calls);
}

void PowerLossVfs::CutPowerAfterNextTruncate(uint64_t calls) {
  std::lock_guard lock(disk_mutex);
  after_truncate = static_cast<int64_t>(calls);
}

void PowerLossVfs::CutPower() {
  std::lock_guard lock(disk_mutex);
  dead = true;
  calls_left = -1;
  power_cv.notify_all();
}

bool PowerLossVfs::power_lost() {
  std::lock_guard lock(disk_mutex);
  return dead;
}

bool PowerLossVfs::WaitForPowerLoss(std::chrono::milliseconds timeout) {
  std::unique_lock lock(disk_mutex);
  return power_cv.wait_for(lock, timeout, [] { return dead; });
}

uint64_t PowerLossVfs::counted_calls() {
  std::lock_guard lock(disk_mutex);
  return calls_counted;
}

RebootReport PowerLossVfs::Reboot(std::mt19937_64& random, LossMode mode) {
  std::lock_guard lock(disk_mutex);
  RebootReport report;
  for (const auto& [name, changes] : pending) {
    if (changes.empty()) continue;
    const int fd = open(name.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) std::abort();
    ++report.files;
    report.changes += static_cast<int>(changes.size());
    if (!name.ends_with("-wal")) report.main_file_changes += static_cast<int>(changes.size());
    for (const Change& change : changes) report.truncations += change.truncate ? 1 : 0;
    Undo(fd, changes);
    if (mode == LossMode::kInOrder) ReplayInOrder(fd, changes, random, report);
    if (mode == LossMode::kScramble) Scramble(fd, changes, random, report);
    close(fd);
  }
  pending.clear();
  dead = false;
  calls_left = -1;
  after_truncate = -1;
  calls_counted = 0;
  return report;
}

}  // namespace melee::testing
