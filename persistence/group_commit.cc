#include "persistence/group_commit.h"

#include <utility>

#include "persistence/thread_name.h"

namespace melee::persistence {
namespace {

tl::unexpected<StoreError> Closed() {
  return tl::unexpected(StoreError{StoreErrorCode::kClosed, "the event store is shutting down", 0});
}

}  // namespace

GroupCommit::GroupCommit(std::size_t max_batch_events, CommitHook commit, AfterHook after)
    : max_batch_events_(max_batch_events == 0 ? 1 : max_batch_events),
      commit_(std::move(commit)),
      after_(std::move(after)) {}

GroupCommit::~GroupCommit() { Stop(); }

void GroupCommit::Start() {
  writer_thread_ = std::thread([this] {
    NameThisThread(kWriterThreadName);
    WriterLoop();
  });
}

void GroupCommit::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (writer_thread_.joinable()) writer_thread_.join();
}

void GroupCommit::Append(AppendBatch batch, AppendCallback done) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      queue_.push_back({{std::move(batch), std::move(done)}});
      wake_.notify_one();
      return;
    }
  }
  done(Closed());
}

void GroupCommit::AppendTogether(std::vector<PendingAppend> appends) {
  if (appends.empty()) return;
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      for (std::size_t i = 0; i < appends.size(); ++i) {
        queue_.push_back({std::move(appends[i]), i + 1 < appends.size()});
      }
      wake_.notify_one();
      return;
    }
  }
  for (PendingAppend& append : appends) append.done(Closed());
}

void GroupCommit::WriterLoop() {
  while (true) {
    std::deque<PendingAppend> work;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything queued has been written
      std::size_t events = 0;
      bool joined = false;  // the last append taken goes with the next one
      while (!queue_.empty() &&
             (work.empty() || joined ||
              events + queue_.front().append.batch.payloads.size() <= max_batch_events_)) {
        events += queue_.front().append.batch.payloads.size();
        joined = queue_.front().with_next;
        work.push_back(std::move(queue_.front().append));
        queue_.pop_front();
      }
    }
    GroupOutcome outcome = commit_(work);
    Finish(work, outcome);
    if (after_) after_();
  }
}

void GroupCommit::Finish(std::deque<PendingAppend>& work, GroupOutcome& outcome) {
  {
    std::lock_guard lock(mutex_);
    if (outcome.committed) {
      ++commits_;
      committed_events_ += outcome.events;
      // Only a transaction that wrote shows that writing works again (one whose every batch
      // failed on its own commits without touching the disk).
      if (outcome.events > 0) failing_.reset();
    }
    for (const auto& result : outcome.results) {
      if (!result && (result.error().code == StoreErrorCode::kUnavailable ||
                      result.error().code == StoreErrorCode::kCorrupt)) {
        ++failed_appends_;
      }
    }
    if (outcome.transaction_failed) {
      failing_ = std::move(outcome.transaction_failed);
      ++failures_;
    }
  }
  for (std::size_t i = 0; i < work.size(); ++i) {
    work[i].done(i < outcome.results.size()
                     ? std::move(outcome.results[i])
                     : tl::unexpected(StoreError{StoreErrorCode::kUnavailable,
                                                 "the append was not attempted", 0}));
  }
}

WriteHealth GroupCommit::Health() const {
  std::lock_guard lock(mutex_);
  return WriteHealth{
      .failed_appends = failed_appends_, .transactions = commits_, .failing = failing_};
}

uint64_t GroupCommit::failures() const {
  std::lock_guard lock(mutex_);
  return failures_;
}

void GroupCommit::ProbeSucceeded(uint64_t failures_before) {
  std::lock_guard lock(mutex_);
  if (failures_ == failures_before) failing_.reset();  // no transaction failed meanwhile
}

std::size_t GroupCommit::commits() const {
  std::lock_guard lock(mutex_);
  return commits_;
}

std::size_t GroupCommit::committed_events() const {
  std::lock_guard lock(mutex_);
  return committed_events_;
}

}  // namespace melee::persistence
