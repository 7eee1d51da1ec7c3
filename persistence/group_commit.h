#pragma once

// The group-commit writer both event stores share (SQLite and PostgreSQL): appends of every
// match wait in one queue; one writer thread takes everything waiting (up to max_batch_events
// events, and always at least one batch), hands it to the store's commit hook, which writes it
// in one transaction, keeps the write-health counters, and only then runs the callbacks.
//
// Thread-safe: Append, the counters and Health may be called from any thread; the hooks run on
// the writer thread only. Stop drains the queue: every queued append is committed or failed
// before it returns; an Append after Stop fails at once with kClosed.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "persistence/event_store.h"

namespace melee::persistence {

// What a store's commit hook did with one group of appends.
struct GroupOutcome {
  // One result per batch of the group, in order.
  std::vector<StoreResult<Appended>> results;
  // The transaction committed; `events` is how many events it wrote.
  bool committed = false;
  std::size_t events = 0;
  // Set when the transaction failed as a whole (every batch not refused on its own failed with
  // it): WriteHealth::failing until a transaction that writes, or a probe, succeeds.
  std::optional<StoreError> transaction_failed;
};

class GroupCommit {
 public:
  // Writes `work` in one transaction and says how each batch fared. Runs on the writer thread.
  using CommitHook = std::function<GroupOutcome(std::deque<PendingAppend>& work)>;
  // Runs on the writer thread after each group's callbacks (SQLite bounds its WAL there).
  using AfterHook = std::function<void()>;

  // `commit` (and `after`, when given) must stay callable until Stop returns.
  GroupCommit(std::size_t max_batch_events, CommitHook commit, AfterHook after = nullptr);
  // Stops (as Stop) if the owner did not.
  ~GroupCommit();
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;

  // Starts the writer thread. Once.
  void Start();
  // Drains the queue and joins the writer thread. The owner calls it before anything its hooks
  // use is destroyed. Idempotent.
  void Stop();

  // Queues `batch`; `done` runs on the writer thread after the group holding it committed or
  // failed, or at once with kClosed after Stop.
  void Append(AppendBatch batch, AppendCallback done);
  // Queues `appends` so that the writer takes them into one group, whatever max_batch_events
  // says (EventStore::AppendTogether).
  void AppendTogether(std::vector<PendingAppend> appends);

  // Returns how writing fares: appends refused for the store's reasons (kUnavailable,
  // kCorrupt), and the failure of the last transaction while writing fails.
  WriteHealth Health() const;
  // Returns how many transactions failed as a whole since Start (for ProbeWrite: a probe
  // clears WriteHealth::failing only when no transaction failed while it ran).
  uint64_t failures() const;
  // Records that a probe write begun when failures() was `failures_before` succeeded.
  void ProbeSucceeded(uint64_t failures_before);

  // Transactions committed and events committed since Start.
  std::size_t commits() const;
  std::size_t committed_events() const;

 private:
  void WriterLoop();
  // Updates the counters with `outcome` and runs `work`'s callbacks.
  void Finish(std::deque<PendingAppend>& work, GroupOutcome& outcome);

  const std::size_t max_batch_events_;
  const CommitHook commit_;
  const AfterHook after_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  // A queued append; `with_next`: the append after it joins the same group (AppendTogether).
  struct Queued {
    PendingAppend append;
    bool with_next = false;
  };
  std::deque<Queued> queue_;  // guarded by mutex_, as every field below
  bool stopping_ = false;
  std::size_t commits_ = 0;
  std::size_t committed_events_ = 0;
  uint64_t failed_appends_ = 0;
  std::optional<StoreError> failing_;
  uint64_t failures_ = 0;

  std::thread writer_thread_;
};

}  // namespace melee::persistence
