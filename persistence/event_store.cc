#include "persistence/event_store.h"

#include <future>
#include <limits>
#include <utility>

#include "persistence/digest.h"

namespace melee::persistence {
namespace {

std::string_view AsBytes(const Hash& hash) {
  return {reinterpret_cast<const char*>(hash.data()), hash.size()};
}

}  // namespace

std::string ToHex(const Hash& hash) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(hash.size() * 2);
  for (unsigned char byte : hash) {
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 0x0f]);
  }
  return hex;
}

Hash Genesis(std::string_view match_id) { return Sha256({"melee/v1/genesis", match_id}); }

Hash ChainHash(const Hash& prev_hash, std::string_view payload) {
  return Sha256({AsBytes(prev_hash), payload});
}

std::string_view Name(StoreErrorCode code) {
  switch (code) {
    case StoreErrorCode::kConflict:
      return "conflict";
    case StoreErrorCode::kNotFound:
      return "not_found";
    case StoreErrorCode::kCorrupt:
      return "corrupt";
    case StoreErrorCode::kUnavailable:
      return "unavailable";
    case StoreErrorCode::kInvalidArgument:
      return "invalid_argument";
    case StoreErrorCode::kFenced:
      return "fenced";
    case StoreErrorCode::kClosed:
      return "closed";
  }
  return "unknown";
}

void EventStore::AppendTogether(std::vector<PendingAppend> appends) {
  for (PendingAppend& append : appends) Append(std::move(append.batch), std::move(append.done));
}

StoreResult<Appended> EventStore::AppendAndWait(AppendBatch batch) {
  std::promise<StoreResult<Appended>> promise;
  auto future = promise.get_future();
  Append(std::move(batch),
         [&promise](StoreResult<Appended> result) { promise.set_value(std::move(result)); });
  return future.get();
}

void EventStore::MarkDormant(std::string match_id, uint64_t seq, std::string note,
                             AppendCallback done) {
  AppendBatch batch;
  batch.match_id = std::move(match_id);
  batch.expected_seq = seq;
  batch.mark_dormant = true;
  batch.dormant_note = std::move(note);
  Append(std::move(batch), done ? std::move(done) : [](StoreResult<Appended>) {});
}

// One process writes the store (SQLite): it is always the owner of every match.
StoreResult<Lease> EventStore::AcquireLease(std::string_view match_id) {
  if (match_id.empty()) {
    return tl::unexpected(
        StoreError{StoreErrorCode::kInvalidArgument, "a lease needs a match id", 0});
  }
  return Lease{std::string(match_id), "local", 1, std::numeric_limits<int64_t>::max()};
}

StoreResult<void> EventStore::ReleaseLease(std::string_view) { return {}; }

std::optional<Lease> EventStore::HeldLease(std::string_view match_id) const {
  return Lease{std::string(match_id), "local", 1, std::numeric_limits<int64_t>::max()};
}

StoreResult<bool> AuditSnapshot(EventStore& store, std::string_view match_id,
                                const FoldFunction& fold) {
  auto loaded = store.Load(match_id);
  if (!loaded) return tl::unexpected(loaded.error());
  if (!loaded->snapshot) return false;
  const Snapshot& snapshot = *loaded->snapshot;
  auto events = store.Read(match_id, 0, snapshot.seq);
  if (!events) return tl::unexpected(events.error());
  if (fold(*events) == snapshot.state) return true;
  auto discarded = store.DiscardSnapshot(match_id, snapshot.seq,
                                         "snapshot at seq " + std::to_string(snapshot.seq) +
                                             " disagrees with the fold of events 1.." +
                                             std::to_string(snapshot.seq));
  if (!discarded) return tl::unexpected(discarded.error());
  return false;
}

}  // namespace melee::persistence
