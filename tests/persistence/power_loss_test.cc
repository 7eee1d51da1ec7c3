// Power loss under a running SqliteEventStore (tests/testing/power_loss_vfs.h): several matches
// append concurrently through the writer's group commit, with outbox notices in their batches,
// dormant markers between them, snapshots and notice deliveries beside them, until the power is
// cut after a random number of writes and syncs (one cycle in kLongCycleEvery first fills the WAL
// to SqliteEventStore::kWalLimitPages and cuts in the writer's checkpoint and truncation of it,
// or just after the truncation). The store is then closed without any further I/O, the files
// are rebooted as the disk kept them (writes not synced dropped, replayed in order up to a torn
// one, or scrambled: lost, written or torn sector by sector), and the store is opened again the
// normal way. After every cycle:
//   - the store opens, and every match's chain verifies from seq 1 (Read);
//   - every batch acknowledged before the cut is there, at its seqs, byte for byte;
//   - a batch not acknowledged is there whole or not at all (never a part, never garbled), and
//     its outbox notice with it;
//   - every acknowledged snapshot loads, no snapshot is discarded, an acknowledged dormant marker
//     still holds when its match did not move, a delivered notice stays delivered;
//   - appends go on (the next cycle's, and a last one after the last cycle).
//
// The normal suite runs a few dozen cycles. MELEE_POWER_LOSS_CYCLES=N runs N (scripts/power-loss
// --cycles 1000); MELEE_POWER_LOSS_SEED=S repeats a run's choices (the power-cut points and what
// each reboot keeps; the threads' interleaving is the machine's). The seed is printed first.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "persistence/notification_store.h"
#include "persistence/sqlite_event_store.h"
#include "tests/testing/power_loss_vfs.h"
#include "tests/testing/temp_dir.h"

namespace melee::persistence {
namespace {

using testing::LossMode;
using testing::PowerLossVfs;
using testing::RebootReport;

constexpr int kDefaultCycles = 40;
constexpr int kAppendThreads = 3;
constexpr int kActiveMatches = 6;
// Events after which a match is finished (no more appends) and a new one takes its place, so
// that a long run's full reads stay short. Finished matches are read in full a few per cycle.
constexpr uint64_t kMatchLength = 1500;
constexpr int kFinishedReadsPerCycle = 3;
// A cut lands after 0 .. kMaxCallsBeforeCut counted VFS calls (a commit of a few pages is ~10).
constexpr uint64_t kMaxCallsBeforeCut = 400;
// One cycle in kLongCycleEvery runs until the WAL is full and the writer truncates it.
constexpr int kLongCycleEvery = 20;
constexpr const char* kSeat = "side_a";

uint64_t FromEnvironment(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  return std::strtoull(text, nullptr, 10);
}

// ---- what the test asked of the store, and what the store acknowledged -------------------------

enum class Fate { kPending, kDurable, kGone };

struct BatchRecord {
  std::string match_id;
  uint64_t first_seq = 0;
  std::vector<std::string> payloads;
  std::string notice_id;  // empty: the batch carries no notice
  bool acknowledged = false;
  Fate fate = Fate::kPending;  // kDurable once acknowledged or found after a reboot
};

struct MarkerRecord {
  uint64_t seq = 0;
  std::string note;  // "b<id>": the batch whose last event it marks
  bool acknowledged = false;
};

struct MatchRecord {
  uint64_t acknowledged_seq = 0;  // highest seq acknowledged (or found after a reboot)
  uint64_t head_batch = 0;        // the batch of that event
  Hash head{};                    // the head at the last full read
  uint64_t read_seq = 0;          // last_seq at the last full read
  bool finished = false;
  uint64_t snapshot_seq = 0;          // newest acknowledged SaveSnapshot (0: none)
  std::vector<MarkerRecord> markers;  // since the last reboot
  std::vector<uint64_t> batches;      // ids of the batches submitted to it
};

struct Totals {
  uint64_t batches_acknowledged = 0;
  uint64_t events_acknowledged = 0;
  uint64_t unacknowledged_found = 0;  // batches not acknowledged, found whole after a reboot
  uint64_t unacknowledged_lost = 0;   // ... and found absent
  uint64_t markers_acknowledged = 0;
  uint64_t markers_found = 0;  // matches found dormant after a reboot
  uint64_t snapshots_acknowledged = 0;
  uint64_t notices_acknowledged = 0;
  uint64_t notices_delivered = 0;
  uint64_t counted_calls = 0;
  uint64_t wal_truncations = 0;  // by the writer (kWalLimitPages reached), before the cut
  RebootReport reboots;
};

// Shared between the cycle's threads and the checks; every member under `mutex`.
struct Ledger {
  std::mutex mutex;
  std::map<uint64_t, BatchRecord> batches;  // by id, from 1
  std::map<std::string, MatchRecord> matches;
  std::set<std::string> delivered;           // NoticeDelivered acknowledged
  std::set<std::string> delivery_uncertain;  // NoticeDelivered failed: either way
  Totals totals;
  uint64_t next_batch = 1;
  uint64_t next_match = 0;
};

std::string Payload(const std::string& match_id, uint64_t batch, std::size_t k,
                    std::mt19937_64& random) {
  std::string payload = match_id + "|b" + std::to_string(batch) + "|" + std::to_string(k) + "|";
  payload.append(random() % 200, static_cast<char>('a' + random() % 26));
  return payload;
}

// Returns the batch id of a payload made by Payload (0 when it is not one).
uint64_t BatchOf(const std::string& payload, std::size_t* k) {
  const std::size_t b = payload.find("|b");
  if (b == std::string::npos) return 0;
  const std::size_t bar = payload.find('|', b + 2);
  const std::size_t bar2 = bar == std::string::npos ? bar : payload.find('|', bar + 1);
  if (bar2 == std::string::npos) return 0;
  *k = std::strtoull(payload.c_str() + bar + 1, nullptr, 10);
  return std::strtoull(payload.c_str() + b + 2, nullptr, 10);
}

// A match as its appending thread sees it during a cycle.
struct ActiveMatch {
  std::string id;
  uint64_t last_seq = 0;
  uint64_t head_batch = 0;
};

// Appends to `matches` (one batch, or a dormant marker, in flight per match) until an append
// fails (the power is gone) or `stop`.
void AppendLoop(SqliteEventStore& store, Ledger& ledger, std::vector<ActiveMatch*> matches,
                uint64_t seed, const std::atomic<bool>& stop) {
  std::mt19937_64 random(seed);
  std::mutex mutex;
  std::condition_variable done;
  bool failed = false;
  while (!stop.load() && !failed) {
    std::size_t pending = matches.size();
    for (ActiveMatch* match : matches) {
      const auto finish = [&](bool ok) {
        std::lock_guard lock(mutex);
        if (!ok) failed = true;
        if (--pending == 0) done.notify_one();
      };
      if (match->last_seq > 0 && random() % 8 == 0) {
        const std::string note = "b" + std::to_string(match->head_batch);
        const uint64_t seq = match->last_seq;
        {
          std::lock_guard lock(ledger.mutex);
          ledger.matches[match->id].markers.push_back({seq, note, false});
        }
        store.MarkDormant(match->id, seq, note,
                          [&, match, seq, note, finish](StoreResult<Appended> marked) {
                            if (marked) {
                              std::lock_guard lock(ledger.mutex);
                              for (MarkerRecord& marker : ledger.matches[match->id].markers) {
                                if (marker.seq == seq && marker.note == note) {
                                  marker.acknowledged = true;
                                }
                              }
                              ++ledger.totals.markers_acknowledged;
                            }
                            finish(marked.has_value());
                          });
        continue;
      }
      AppendBatch batch{match->id, match->last_seq, {}, 1700000000000, {}};
      uint64_t id = 0;
      {
        std::lock_guard lock(ledger.mutex);
        id = ledger.next_batch++;
        BatchRecord record;
        record.match_id = match->id;
        record.first_seq = match->last_seq + 1;
        const std::size_t count = 1 + random() % 4;
        for (std::size_t k = 0; k < count; ++k) {
          record.payloads.push_back(Payload(match->id, id, k, random));
        }
        if (random() % 3 == 0) {
          record.notice_id = "n" + std::to_string(id);
          batch.notices.push_back(OutboxNotice{record.notice_id, match->id, kSeat,
                                               "{\"batch\":" + std::to_string(id) + "}",
                                               kWebhookChannel, 1700000000000, 0, 0});
        }
        batch.payloads = record.payloads;
        ledger.batches.emplace(id, std::move(record));
        ledger.matches[match->id].batches.push_back(id);
      }
      store.Append(std::move(batch), [&, match, id, finish](StoreResult<Appended> appended) {
        if (appended) {
          std::lock_guard lock(ledger.mutex);
          BatchRecord& record = ledger.batches.at(id);
          record.acknowledged = true;
          record.fate = Fate::kDurable;
          MatchRecord& owner = ledger.matches[match->id];
          owner.acknowledged_seq = appended->last_seq;
          owner.head_batch = id;
          ++ledger.totals.batches_acknowledged;
          ledger.totals.events_acknowledged += record.payloads.size();
          if (!record.notice_id.empty()) ++ledger.totals.notices_acknowledged;
          match->last_seq = appended->last_seq;
          match->head_batch = id;
        }
        finish(appended.has_value());
      });
    }
    std::unique_lock lock(mutex);
    done.wait(lock, [&] { return pending == 0; });
  }
}

// Beside the appends, on the reader connection: snapshots of acknowledged events, and deliveries
// of due notices. Until an operation fails (the power is gone) or `stop`.
void SideLoop(SqliteEventStore& store, Ledger& ledger, std::vector<std::string> match_ids,
              uint64_t seed, const std::atomic<bool>& stop) {
  std::mt19937_64 random(seed);
  while (!stop.load()) {
    if (random() % 2 == 0) {
      const std::string& match_id = match_ids[random() % match_ids.size()];
      uint64_t seq = 0;
      {
        std::lock_guard lock(ledger.mutex);
        seq = ledger.matches[match_id].acknowledged_seq;
      }
      if (seq > 0) {
        const std::string state = "snap|" + match_id + "|" + std::to_string(seq);
        if (!store.SaveSnapshot(match_id, seq, state)) return;
        std::lock_guard lock(ledger.mutex);
        MatchRecord& match = ledger.matches[match_id];
        match.snapshot_seq = std::max(match.snapshot_seq, seq);
        ++ledger.totals.snapshots_acknowledged;
      }
    } else {
      auto due = store.DueNotices(kWebhookChannel, 1800000000000, 2);
      if (!due) return;
      for (const OutboxNotice& notice : *due) {
        const bool ok = store.NoticeDelivered(notice.delivery_id).has_value();
        std::lock_guard lock(ledger.mutex);
        (ok ? ledger.delivered : ledger.delivery_uncertain).insert(notice.delivery_id);
        if (ok) ++ledger.totals.notices_delivered;
        if (!ok) return;
      }
    }
    // Pacing, so that the appends make most of the writes; not a condition of the test.
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

class PowerLossTest : public ::testing::Test {
 protected:
  void SetUp() override { PowerLossVfs::Register(); }

  StoreResult<std::unique_ptr<SqliteEventStore>> Open() {
    return SqliteEventStore::OpenDataDirectory(dir_.path() / "data", {.vfs = PowerLossVfs::kName});
  }

  // Checks a match's whole chain against the ledger; resolves its pending batches and markers.
  void CheckMatch(SqliteEventStore& store, const std::string& match_id,
                  const MatchSummary* summary) {
    SCOPED_TRACE("match " + match_id);
    MatchRecord& match = ledger_.matches[match_id];
    std::vector<Event> events;
    if (summary != nullptr) {
      auto read = store.Read(match_id);
      ASSERT_TRUE(read.has_value()) << read.error().message;
      events = std::move(*read);
      ASSERT_EQ(events.size(), summary->last_seq);
      ASSERT_EQ(events.back().hash, summary->head);
    }
    // Every event is a submitted batch's, at its seq, byte for byte; batches are whole.
    std::vector<uint64_t> batch_at(events.size() + 1, 0);
    std::set<uint64_t> present;
    uint64_t open_batch = 0;  // the batch whose events are being walked, until its last one
    std::size_t open_k = 0;
    for (const Event& event : events) {
      std::size_t k = 0;
      const uint64_t id = BatchOf(event.payload, &k);
      const auto it = ledger_.batches.find(id);
      ASSERT_TRUE(it != ledger_.batches.end())
          << "seq " << event.seq << " holds no submitted event: " << event.payload.substr(0, 40);
      const BatchRecord& batch = it->second;
      ASSERT_NE(batch.fate, Fate::kGone)
          << "seq " << event.seq << ": batch " << id << " was found lost at an earlier reboot";
      ASSERT_EQ(batch.match_id, match_id) << "seq " << event.seq;
      ASSERT_LT(k, batch.payloads.size()) << "seq " << event.seq;
      ASSERT_EQ(event.seq, batch.first_seq + k) << "batch " << id;
      ASSERT_EQ(event.payload, batch.payloads[k]) << "seq " << event.seq << " is garbled";
      if (open_batch != 0) {
        ASSERT_TRUE(id == open_batch && k == open_k + 1)
            << "batch " << open_batch << " is there in part: it stops at seq " << event.seq - 1;
      } else {
        ASSERT_EQ(k, 0u) << "batch " << id << " starts in its middle at seq " << event.seq;
      }
      open_batch = k + 1 == batch.payloads.size() ? 0 : id;
      open_k = k;
      batch_at[event.seq] = id;
      present.insert(id);
    }
    ASSERT_EQ(open_batch, 0u) << "batch " << open_batch << " is there in part (the log ends)";
    // Acknowledged batches are all there; the others are there whole or gone.
    for (const uint64_t id : match.batches) {
      BatchRecord& batch = ledger_.batches.at(id);
      if (batch.fate == Fate::kDurable) {
        const uint64_t last = batch.first_seq + batch.payloads.size() - 1;
        ASSERT_TRUE(last < batch_at.size() && batch_at[batch.first_seq] == id)
            << (batch.acknowledged ? "acknowledged" : "durable") << " batch " << id << " (seq "
            << batch.first_seq << ".." << last << ") is lost; the match has " << events.size()
            << " events";
      } else if (batch.fate == Fate::kPending) {
        if (present.contains(id)) {
          batch.fate = Fate::kDurable;
          ++ledger_.totals.unacknowledged_found;
        } else {
          batch.fate = Fate::kGone;
          ++ledger_.totals.unacknowledged_lost;
        }
      }
    }
    const uint64_t last_seq = events.size();
    const uint64_t head_batch = last_seq == 0 ? 0 : batch_at[last_seq];
    // A dormant match was marked at its head; an acknowledged marker at the head still holds.
    if (summary != nullptr) {
      bool marked = false;
      bool must_be_dormant = false;
      for (const MarkerRecord& marker : match.markers) {
        if (marker.seq != last_seq || marker.note != "b" + std::to_string(head_batch)) continue;
        marked = true;
        must_be_dormant = must_be_dormant || marker.acknowledged;
      }
      if (summary->dormant) {
        EXPECT_TRUE(marked) << "dormant at seq " << last_seq << " ('" << summary->dormant_note
                            << "') without a marker submitted there";
        EXPECT_EQ(summary->dormant_note, "b" + std::to_string(head_batch));
        ++ledger_.totals.markers_found;
      } else {
        EXPECT_FALSE(must_be_dormant)
            << "an acknowledged dormant marker at seq " << last_seq << " is lost";
      }
    }
    // Markers elsewhere than at the head are spent (the match moved on, or their batch is gone).
    std::erase_if(match.markers, [&](const MarkerRecord& marker) {
      return marker.seq != last_seq || marker.note != "b" + std::to_string(head_batch);
    });
    // The newest acknowledged snapshot loads, and agrees with the log.
    if (match.snapshot_seq > 0) {
      auto loaded = store.Load(match_id);
      ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
      EXPECT_TRUE(loaded->discarded_snapshots.empty()) << loaded->discarded_snapshots.front();
      ASSERT_TRUE(loaded->snapshot.has_value())
          << "acknowledged snapshot at seq " << match.snapshot_seq << " is lost";
      EXPECT_GE(loaded->snapshot->seq, match.snapshot_seq);
      EXPECT_EQ(loaded->snapshot->state,
                "snap|" + match_id + "|" + std::to_string(loaded->snapshot->seq));
      EXPECT_EQ(loaded->events.size(), last_seq - loaded->snapshot->seq);
    }
    match.acknowledged_seq = last_seq;
    match.head_batch = head_batch;
    match.read_seq = last_seq;
    match.head = events.empty() ? Hash{} : events.back().hash;
  }

  // Checks the outbox of `match_id`: a notice is waiting exactly when its batch is in the log and
  // it was not delivered.
  void CheckOutbox(SqliteEventStore& store, const std::string& match_id) {
    SCOPED_TRACE("outbox of match " + match_id);
    auto waiting = store.SeatNotices(kWebhookChannel, match_id, kSeat);
    ASSERT_TRUE(waiting.has_value()) << waiting.error().message;
    std::set<std::string> ids;
    for (const OutboxNotice& notice : *waiting) ids.insert(notice.delivery_id);
    for (const uint64_t id : ledger_.matches[match_id].batches) {
      const BatchRecord& batch = ledger_.batches.at(id);
      if (batch.notice_id.empty()) continue;
      const bool there = ids.erase(batch.notice_id) > 0;
      if (batch.fate == Fate::kGone) {
        EXPECT_FALSE(there) << "notice " << batch.notice_id << " of a lost batch";
      } else if (ledger_.delivered.contains(batch.notice_id)) {
        EXPECT_FALSE(there) << "notice " << batch.notice_id << " was delivered, and is back";
      } else if (!ledger_.delivery_uncertain.contains(batch.notice_id)) {
        EXPECT_TRUE(there) << "notice " << batch.notice_id << " of batch " << id << " is lost";
      }
    }
    EXPECT_TRUE(ids.empty()) << ids.size() << " notices in the outbox that no batch made, e.g. "
                             << *ids.begin();
  }

  // Checks the whole store against the ledger after a reboot; picks the next cycle's matches.
  void CheckStore(SqliteEventStore& store, int cycle, bool everything) {
    auto summaries = store.ListMatches();
    ASSERT_TRUE(summaries.has_value()) << summaries.error().message;
    std::map<std::string, const MatchSummary*> by_id;
    for (const MatchSummary& summary : *summaries) by_id[summary.match_id] = &summary;
    int finished_reads = 0;
    for (auto& [match_id, match] : ledger_.matches) {
      const auto found = by_id.find(match_id);
      const MatchSummary* summary = found == by_id.end() ? nullptr : found->second;
      const bool rotate = finished_reads < kFinishedReadsPerCycle &&
                          (std::hash<std::string>{}(match_id) + cycle) % 7 == 0;
      if (!match.finished || everything || rotate) {
        if (match.finished) ++finished_reads;
        CheckMatch(store, match_id, summary);
        if (HasFailure()) return;
      } else {
        // Finished: nothing appends to it; its head is the one its last full read found.
        ASSERT_TRUE(summary != nullptr) << "finished match " << match_id << " is lost";
        EXPECT_EQ(summary->last_seq, match.read_seq) << match_id;
        EXPECT_EQ(summary->head, match.head) << match_id;
      }
      CheckOutbox(store, match_id);
      if (HasFailure()) return;
    }
    for (auto& [match_id, match] : ledger_.matches) {
      if (match.read_seq >= kMatchLength) match.finished = true;
    }
    active_.clear();
    for (auto& [match_id, match] : ledger_.matches) {
      if (!match.finished) active_.push_back({match_id, match.read_seq, match.head_batch});
    }
    while (active_.size() < static_cast<std::size_t>(kActiveMatches)) {
      const std::string id = "m" + std::to_string(ledger_.next_match++);
      ledger_.matches[id];
      active_.push_back({id, 0, 0});
    }
  }

  // Runs the workload on `store` until the power is cut, `calls` counted calls after it starts.
  // A long cycle first holds a read transaction open on a connection of its own, so that no
  // checkpoint can finish and the WAL grows past SqliteEventStore::kWalLimitPages; then lets go,
  // so that the writer's next BoundWal checkpoints and truncates it, and the cut lands somewhere
  // in that (`calls` after letting go, or a few calls after the truncation).
  void RunUntilPowerLoss(SqliteEventStore& store, uint64_t seed, uint64_t calls, bool long_cycle) {
    sqlite3* pin = nullptr;
    if (long_cycle) {
      const int rc =
          sqlite3_open_v2(store.path().c_str(), &pin, SQLITE_OPEN_READWRITE, PowerLossVfs::kName);
      ASSERT_EQ(rc, SQLITE_OK) << sqlite3_errstr(rc);
      ASSERT_EQ(sqlite3_exec(pin, "BEGIN; SELECT count(*) FROM meta;", nullptr, nullptr, nullptr),
                SQLITE_OK)
          << sqlite3_errmsg(pin);
    } else {
      PowerLossVfs::CutPowerAfter(calls);
    }
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    std::vector<std::string> ids;
    for (const ActiveMatch& match : active_) ids.push_back(match.id);
    for (int t = 0; t < kAppendThreads; ++t) {
      std::vector<ActiveMatch*> owned;
      for (std::size_t k = static_cast<std::size_t>(t); k < active_.size(); k += kAppendThreads)
        owned.push_back(&active_[k]);
      threads.emplace_back(AppendLoop, std::ref(store), std::ref(ledger_), std::move(owned),
                           seed + static_cast<uint64_t>(t), std::cref(stop));
    }
    threads.emplace_back(SideLoop, std::ref(store), std::ref(ledger_), ids, seed + 99,
                         std::cref(stop));
    bool grew = true;
    if (pin != nullptr) {
      // The WAL's size once it holds kWalLimitPages frames (a 32-byte header, 24 per frame).
      constexpr std::uintmax_t kWalLimitBytes =
          32 + std::uintmax_t{SqliteEventStore::kWalLimitPages} * (4096 + 24);
      const std::string wal = store.path() + "-wal";
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      std::error_code ignored;
      while (std::filesystem::file_size(wal, ignored) < kWalLimitBytes &&
             std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      grew = std::filesystem::file_size(wal, ignored) >= kWalLimitBytes;
      sqlite3_exec(pin, "COMMIT", nullptr, nullptr, nullptr);
      sqlite3_close_v2(pin);
      // Half the long cycles cut in the checkpoint, half just after the truncation (before the
      // new WAL's first sync: the window in which the truncation itself is not durable).
      if (seed % 2 == 0) {
        PowerLossVfs::CutPowerAfter(calls);
      } else {
        // The next write is the new WAL's header, then SQLite syncs it (synchronous=FULL).
        PowerLossVfs::CutPowerAfterNextTruncate(calls % 4);
      }
    }
    const bool cut = PowerLossVfs::WaitForPowerLoss(std::chrono::seconds(60));
    if (!cut) PowerLossVfs::CutPower();  // unblocks the threads; reported below
    stop.store(true);
    for (std::thread& thread : threads) thread.join();
    ledger_.totals.wal_truncations += store.wal_truncations();
    EXPECT_TRUE(grew) << "the WAL never reached kWalLimitPages in a long cycle";
    EXPECT_TRUE(cut) << "the power cut never came: the workload stalled";
  }

  melee::testing::TempDir dir_;
  Ledger ledger_;  // the threads hold ledger_.mutex; the checks run with no thread left
  std::vector<ActiveMatch> active_;
};

TEST_F(PowerLossTest, AcknowledgedEventsSurviveEveryPowerLoss) {
  const int cycles = static_cast<int>(FromEnvironment("MELEE_POWER_LOSS_CYCLES", kDefaultCycles));
  const uint64_t seed = FromEnvironment("MELEE_POWER_LOSS_SEED", std::random_device{}());
  std::printf("power loss: %d cycles, seed %llu (MELEE_POWER_LOSS_SEED=%llu repeats the choices)\n",
              cycles, static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed));
  std::fflush(stdout);
  RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 random(seed);
  const auto start = std::chrono::steady_clock::now();

  for (int cycle = 0; cycle < cycles; ++cycle) {
    SCOPED_TRACE("cycle " + std::to_string(cycle) + " of seed " + std::to_string(seed));
    if (cycle > 0 && cycle % 100 == 0) {
      const auto so_far = std::chrono::duration<double>(std::chrono::steady_clock::now() - start);
      std::printf("power loss: %d cycles in %.1f s\n", cycle, so_far.count());
      std::fflush(stdout);
    }
    auto store = Open();
    ASSERT_TRUE(store.has_value())
        << "the store does not open after a power loss: " << store.error().message;
    CheckStore(**store, cycle, /*everything=*/false);
    if (HasFailure()) return;

    // A long cycle cuts during or after the truncation of a full WAL: a checkpoint of
    // kWalLimitPages pages is about as many writes, then a sync and the truncation.
    const bool long_cycle = cycle % kLongCycleEvery == kLongCycleEvery / 2;
    const uint64_t calls =
        random() % ((long_cycle ? 2 * SqliteEventStore::kWalLimitPages : kMaxCallsBeforeCut) + 1);
    RunUntilPowerLoss(**store, random(), calls, long_cycle);
    store->reset();  // the disk is dead: closes without any further I/O
    ledger_.totals.counted_calls += PowerLossVfs::counted_calls();
    const LossMode modes[] = {LossMode::kDropAll, LossMode::kInOrder, LossMode::kScramble};
    const LossMode mode = modes[random() % 3];
    const RebootReport report = PowerLossVfs::Reboot(random, mode);
    RebootReport& sum = ledger_.totals.reboots;
    sum.files += report.files;
    sum.changes += report.changes;
    sum.main_file_changes += report.main_file_changes;
    sum.sectors_lost += report.sectors_lost;
    sum.sectors_written += report.sectors_written;
    sum.sectors_torn += report.sectors_torn;
    sum.truncations += report.truncations;
    sum.truncations_kept += report.truncations_kept;
    if (HasFailure()) return;
  }

  // After the last power loss: everything, every match in full, and appends go on.
  auto store = Open();
  ASSERT_TRUE(store.has_value()) << store.error().message;
  CheckStore(**store, cycles, /*everything=*/true);
  if (HasFailure()) return;
  for (const ActiveMatch& match : active_) {
    auto appended = (*store)->AppendAndWait({match.id, match.last_seq, {"after|b0|0|"}, 0, {}});
    ASSERT_TRUE(appended.has_value()) << match.id << ": " << appended.error().message;
    EXPECT_EQ(appended->first_seq, match.last_seq + 1);
    auto events = (*store)->Read(match.id);
    ASSERT_TRUE(events.has_value()) << events.error().message;
    EXPECT_EQ(events->size(), match.last_seq + 1);
  }

  const Totals& t = ledger_.totals;
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start);
  EXPECT_GT(t.batches_acknowledged, 0u);
  std::printf(
      "power loss: %d cycles in %.1f s, seed %llu; %zu matches; acknowledged: %llu batches "
      "(%llu events), %llu dormant markers, %llu snapshots, %llu notices (%llu delivered); "
      "not acknowledged: %llu batches found whole, %llu gone; %llu matches found dormant; "
      "%llu counted VFS calls, %llu WAL truncations; reboots: %d changes not synced in %d files "
      "(%d to the database "
      "file), sectors %d lost, %d "
      "written, %d torn, %d of %d truncations kept\n",
      cycles, seconds.count(), static_cast<unsigned long long>(seed), ledger_.matches.size(),
      static_cast<unsigned long long>(t.batches_acknowledged),
      static_cast<unsigned long long>(t.events_acknowledged),
      static_cast<unsigned long long>(t.markers_acknowledged),
      static_cast<unsigned long long>(t.snapshots_acknowledged),
      static_cast<unsigned long long>(t.notices_acknowledged),
      static_cast<unsigned long long>(t.notices_delivered),
      static_cast<unsigned long long>(t.unacknowledged_found),
      static_cast<unsigned long long>(t.unacknowledged_lost),
      static_cast<unsigned long long>(t.markers_found),
      static_cast<unsigned long long>(t.counted_calls),
      static_cast<unsigned long long>(t.wal_truncations), t.reboots.changes, t.reboots.files,
      t.reboots.main_file_changes, t.reboots.sectors_lost, t.reboots.sectors_written,
      t.reboots.sectors_torn, t.reboots.truncations_kept, t.reboots.truncations);
}

}  // namespace
}  // namespace melee::persistence
