#pragma once

// The event log: the product's source of truth (replay, play-by-email, tournament audits).
//
// A match is an append-only sequence of opaque event payloads (serialized
// melee.storage.v1.StoredEvent; the store never parses them) numbered seq = 1, 2, 3 ... without
// gaps. Each event is hash-chained to the one before it:
//
//   hash(seq) = SHA-256(prev_hash || payload),  prev_hash(1) = Genesis(match_id)
//
// and reads verify the chain, reporting the first bad event rather than returning altered data.
// See persistence/FORMAT.md for the on-disk format.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

#include "persistence/outbox_notice.h"

namespace melee::persistence {

class NotificationStore;  // persistence/notification_store.h

// A SHA-256 digest.
using Hash = std::array<unsigned char, 32>;

// Returns `hash` as 64 lowercase hex digits.
std::string ToHex(const Hash& hash);

// Returns the prev_hash of a match's first event: SHA-256("melee/v1/genesis" || match_id), so a
// chain cannot be moved to another match.
Hash Genesis(std::string_view match_id);

// Returns SHA-256(prev_hash || payload).
Hash ChainHash(const Hash& prev_hash, std::string_view payload);

enum class StoreErrorCode {
  kConflict,         // expected_seq is not the match's last seq (optimistic concurrency)
  kNotFound,         // no such match or snapshot
  kCorrupt,          // the log fails verification, or SQLite reports a corrupt file
  kUnavailable,      // I/O error, disk full, read-only file, locked: nothing was acknowledged
  kInvalidArgument,  // a request that can never succeed (empty batch, empty match id)
  kClosed,           // the store is shutting down
  kFenced,  // another node owns the match (its lease moved on, or is held): nothing was written
};

// Returns "conflict", "not_found", "corrupt", "unavailable", "invalid_argument", "closed" or
// "fenced".
std::string_view Name(StoreErrorCode code);

// A storage failure, said so that a person running the server understands it.
struct StoreError {
  StoreErrorCode code = StoreErrorCode::kUnavailable;
  std::string message;
  uint64_t seq = 0;  // kCorrupt: the first bad event's seq (0 when not about one event)
};

template <class T>
using StoreResult = tl::expected<T, StoreError>;

// One stored event.
struct Event {
  std::string match_id;
  uint64_t seq = 0;
  std::string payload;
  Hash prev_hash{};
  Hash hash{};
  int64_t recorded_unix_ms = 0;  // from the appender's clock; not part of the hash
};

// Events to append to one match, atomically: all of them or none.
struct AppendBatch {
  std::string match_id;
  uint64_t expected_seq = 0;          // the match's last seq as the caller knows it (0: new match)
  std::vector<std::string> payloads;  // at least one
  int64_t recorded_unix_ms = 0;       // the caller's (injected) clock
  // When not empty, one time per payload instead (an imported log keeps its own times).
  std::vector<int64_t> recorded_each;
  // Notices the events cause (docs/notifications.md), written in the same transaction; a store
  // without an outbox (notifications() is null) ignores them.
  std::vector<OutboxNotice> notices = {};
  // The fencing token of the lease the appender holds on the match (EventStore::AcquireLease).
  // 0: the store fills in the token of the last lease it took on the match (held, or since
  // released or lost); a batch of a match the store never leased is not fenced (one node on its
  // own store, tools). A batch whose token is no longer the match's current one fails with
  // kFenced and writes nothing.
  uint64_t lease_token = 0;
  // The match is dormant (MarkDormant) once this batch is in: with events, at its last event, in
  // the same transaction (the appender knows the events leave the match owing nothing on a
  // timer, and need not append a marker of its own after them); with none (MarkDormant), a
  // marker at expected_seq.
  bool mark_dormant = false;
  std::string dormant_note = {};
  // A marker only (MarkDormant): no events, so nothing to fence, chain or count.
  bool IsMarker() const { return mark_dormant && payloads.empty(); }
  // Optional: each payload's chain hash, as the appender worked it out from `chained_from`, the
  // head it built the batch on (a server that signs a head has hashed the events already). A
  // store uses them when `chained_from` is the match's head as the store has it and there is one
  // per payload, and works the hashes out itself otherwise.
  std::vector<Hash> hashes = {};
  Hash chained_from{};
};

// Where an appended batch landed.
struct Appended {
  uint64_t first_seq = 0;
  uint64_t last_seq = 0;
  Hash head{};  // hash of the last event: the chain head to sign
};

// Called once per Append, after the transaction holding the batch committed durably (or failed).
// Runs on the store's writer thread: it must not block, and must not call AppendAndWait.
using AppendCallback = std::function<void(StoreResult<Appended>)>;

// The last event of one match.
struct MatchSummary {
  std::string match_id;
  uint64_t last_seq = 0;
  Hash head{};
  int64_t last_recorded_unix_ms = 0;
  // The match was marked dormant at its last event (MarkDormant): a server need not load it
  // until it is asked for. `dormant_note` is what the marker said (e.g. a tournament id).
  bool dormant = false;
  std::string dormant_note;
};

// A folded state of a match after event `seq`, to load a long match without folding everything.
// The events stay the truth: a snapshot that disagrees with them is discarded.
struct Snapshot {
  uint64_t seq = 0;
  std::string state;  // opaque bytes (the caller's encoding of its folded state)
  Hash chain_hash{};  // hash of event `seq` when the snapshot was taken
};

// What a caller needs to rebuild a match: the newest valid snapshot (if any) and every event
// after it, verified.
struct LoadedMatch {
  std::optional<Snapshot> snapshot;
  std::vector<Event> events;                     // after snapshot->seq, or all of them
  std::vector<std::string> discarded_snapshots;  // why snapshots were discarded on the way
};

// How writing fares (GET /healthz, GET /metrics).
struct WriteHealth {
  // Appends refused since the store opened for a reason other than the caller's (conflicts and
  // invalid batches are not counted): disk full, I/O errors, a read-only file, a damaged head.
  uint64_t failed_appends = 0;
  // Transactions committed since the store opened: with the appends acknowledged, how well the
  // group commit shares its fsyncs (each transaction is one).
  uint64_t transactions = 0;
  // Set while writing fails: the error of the last transaction, when it failed as a whole and
  // no transaction or ProbeWrite has succeeded since.
  std::optional<StoreError> failing;
};

// A node's lease on one match (docs/postgresql.md, "Several nodes"): while it holds it, no other
// node takes the match, and every append of the match carries its token, checked by the store in
// the append's own transaction. Taking a lease over gives it a greater token, so a node whose
// lease moved on cannot write the match any more, whatever its clock or however long it slept.
struct Lease {
  std::string match_id;
  std::string node_id;
  uint64_t token = 0;           // the fencing token: grows with every acquisition of the match
  int64_t expires_unix_ms = 0;  // by the database's clock; renewed in the background
};

// One batch and the callback its appender waits on (EventStore::AppendTogether).
struct PendingAppend {
  AppendBatch batch;
  AppendCallback done;
};

// Called when the store finds that a lease it held was lost (a renewal or an append found the
// match's token moved on): `why` (kFenced) names the match, the new holder and both tokens. Runs
// on one of the store's threads: it must not block, and must not call the store.
using LeaseLostCallback = std::function<void(const Lease& lost, const StoreError& why)>;

// Thread-safe: every method may be called from any thread.
class EventStore {
 public:
  virtual ~EventStore() = default;

  // Queues `batch`; `done` runs after it committed durably, or with the reason it did not:
  // kConflict when expected_seq is stale (nothing written), kUnavailable on an I/O failure
  // (nothing acknowledged; after a failed fsync the whole batch, never a part of it, may still
  // reappear when the file is reopened after a crash). Batches of many matches commit together.
  virtual void Append(AppendBatch batch, AppendCallback done) = 0;

  // Queues `appends`, batches of different logs, to commit in one transaction (a match's
  // command and the session journal entries that wait with it: one fsync, not two). Each batch
  // is written or refused on its own, as by Append, and each callback runs as an Append's does,
  // in order. The default, for a store that commits batch by batch, appends them one by one.
  virtual void AppendTogether(std::vector<PendingAppend> appends);

  // Appends and blocks until the batch committed or failed. Not from an AppendCallback.
  StoreResult<Appended> AppendAndWait(AppendBatch batch);

  // Marks `match_id` dormant at event `seq`, with `note`: its owner says that, as of `seq`, the
  // match owes nothing on a timer (no deadline, no close combat being resolved), so a server
  // restarting may leave it unloaded until it is asked for (ListMatches reports it). The marker
  // holds only while `seq` is the match's last event: an append after it makes the match
  // active again by itself, and a marker for a seq that is not the last is ignored. Queued with
  // the appends (it joins their next transaction); `done`, when given, runs as an Append's does.
  void MarkDormant(std::string match_id, uint64_t seq, std::string note,
                   AppendCallback done = nullptr);

  // Returns the events of `match_id` with seq > after_seq (at most `limit`), verified: each
  // one's hash and its link to the event before it. kCorrupt names the first bad event.
  // kNotFound when the match has no events.
  virtual StoreResult<std::vector<Event>> Read(std::string_view match_id, uint64_t after_seq = 0,
                                               uint64_t limit = UINT64_MAX) = 0;

  // Returns every match with its head, sorted by match id.
  virtual StoreResult<std::vector<MatchSummary>> ListMatches() = 0;

  // Stores a snapshot of `match_id` after event `seq` (which must exist).
  virtual StoreResult<void> SaveSnapshot(std::string_view match_id, uint64_t seq,
                                         std::string state) = 0;

  // Returns the newest snapshot that still agrees with the log (its chain hash and its own
  // checksum) and the verified events after it. Snapshots that do not agree are discarded and
  // reported in LoadedMatch::discarded_snapshots.
  virtual StoreResult<LoadedMatch> Load(std::string_view match_id) = 0;

  // Discards the snapshot of `match_id` at `seq`, recording `reason` (a caller whose fold of the
  // events disagrees with the snapshot calls this; see AuditSnapshot).
  virtual StoreResult<void> DiscardSnapshot(std::string_view match_id, uint64_t seq,
                                            std::string reason) = 0;

  // Returns the recorded snapshot discards of `match_id` (seq and reason), oldest first.
  virtual StoreResult<std::vector<std::pair<uint64_t, std::string>>> SnapshotDiscards(
      std::string_view match_id) = 0;

  // Returns success when the store answers a trivial query (GET /healthz).
  virtual StoreResult<void> Ping() = 0;

  // Returns how writing fares. Cheap: no I/O. The default (a store that never fails) is healthy.
  virtual WriteHealth Writes() const { return {}; }

  // Makes one small durable write that leaves the log as it is, so that a store whose writes
  // failed can tell it works again when nothing else writes (a server that load balancers left
  // alone); clears WriteHealth::failing on success. Returns the write's error otherwise.
  virtual StoreResult<void> ProbeWrite() { return {}; }

  // Returns the store's webhooks and outbox, or null when it keeps none (notices then go
  // nowhere). Lives as long as the store.
  virtual NotificationStore* notifications() { return nullptr; }

  // Leases (one node per match). A store that only one process writes (SQLite) is always the
  // owner: the defaults below grant every lease at once, with token 1, forever.

  // Returns true when appends of a match should be made under a lease (several nodes may share
  // the store): the server then takes a match's lease before it loads or creates the match.
  virtual bool SharedByNodes() const { return false; }

  // Takes the lease on `match_id` for this store's node (or takes it again, with a new token,
  // when this node held it before a restart; a lease this store holds already is returned as it
  // is, same token), for the store's lease time; from then on the store renews it in
  // the background and its appends of the match carry the token. Fails with kFenced, naming the
  // holder, its token and how long its lease still runs, while another node's lease has not
  // expired; with kUnavailable when the store cannot be reached.
  virtual StoreResult<Lease> AcquireLease(std::string_view match_id);

  // Lets this node's lease on `match_id` go at once (the match is unloaded, or the node stops),
  // so that another node may take it without waiting for it to expire. The token stays: the
  // next holder's is greater. Succeeds when this node holds no lease on it.
  virtual StoreResult<void> ReleaseLease(std::string_view match_id);

  // Returns the lease this store holds on `match_id`, or nothing.
  virtual std::optional<Lease> HeldLease(std::string_view match_id) const;

  // Renews every lease held now, at once; a lease found lost is dropped and reported to the
  // OnLeaseLost callback. The store calls it itself in the background (a third of the lease
  // time apart); tests call it to renew now.
  virtual StoreResult<void> RenewLeases() { return {}; }

  // Sets what runs when a held lease is found lost (see LeaseLostCallback). Call before the
  // first lease is taken.
  virtual void OnLeaseLost(LeaseLostCallback lost) { (void)lost; }
};

// Folds events (from an optional starting state) into a state's bytes. The engine's fold,
// seen from persistence: used to audit snapshots against the events.
using FoldFunction = std::function<std::string(const std::vector<Event>& events)>;

// Checks the newest snapshot of `match_id` against `fold` of every event up to its seq; when they
// differ, discards it with a reason. Returns true when a snapshot was present and agreed.
StoreResult<bool> AuditSnapshot(EventStore& store, std::string_view match_id,
                                const FoldFunction& fold);

}  // namespace melee::persistence
