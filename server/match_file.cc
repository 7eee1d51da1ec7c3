#include "server/match_file.h"

#include <optional>
#include <utility>

#include "persistence/fair_play.h"
#include "proto/codec/json.h"
#include "server/clock.h"
#include "server/match.h"
#include "server/metrics.h"

namespace melee::server {
namespace {

namespace storage = melee::storage::v1;
using persistence::Hash;

// Failures are ranked so that, at one event, the most basic one is reported.
enum Rank { kSequence, kChain, kUnreadable, kSeed, kDice, kReplay, kSignature };

struct Failure {
  uint64_t seq = 0;
  int rank = 0;
  std::string reason;
};

class FirstFailure {
 public:
  void Add(uint64_t seq, Rank rank, std::string reason) {
    if (!failure_ || seq < failure_->seq || (seq == failure_->seq && rank < failure_->rank)) {
      failure_ = Failure{.seq = seq, .rank = rank, .reason = std::move(reason)};
    }
  }
  const std::optional<Failure>& get() const { return failure_; }

 private:
  std::optional<Failure> failure_;
};

std::optional<Hash> HashOf(const std::string& bytes) {
  if (bytes.size() != Hash{}.size()) return std::nullopt;
  Hash hash{};
  std::copy(bytes.begin(), bytes.end(), hash.begin());
  return hash;
}

std::string_view ColorName(engine::DieColor color) {
  switch (color) {
    case engine::DieColor::kColored:
      return "coloured die";
    case engine::DieColor::kWhite:
      return "white die";
    case engine::DieColor::kSingle:
      break;
  }
  return "dr";
}

// A store for replaying a file: Recover reads nothing from it, and nothing is appended.
class NoStore final : public persistence::EventStore {
 public:
  void Append(persistence::AppendBatch, persistence::AppendCallback done) override {
    done(tl::unexpected(Unavailable()));
  }
  persistence::StoreResult<std::vector<persistence::Event>> Read(std::string_view, uint64_t,
                                                                 uint64_t) override {
    return tl::unexpected(Unavailable());
  }
  persistence::StoreResult<std::vector<persistence::MatchSummary>> ListMatches() override {
    return tl::unexpected(Unavailable());
  }
  persistence::StoreResult<void> SaveSnapshot(std::string_view, uint64_t, std::string) override {
    return tl::unexpected(Unavailable());
  }
  persistence::StoreResult<persistence::LoadedMatch> Load(std::string_view) override {
    return tl::unexpected(Unavailable());
  }
  persistence::StoreResult<void> DiscardSnapshot(std::string_view, uint64_t,
                                                 std::string) override {
    return tl::unexpected(Unavailable());
  }
  persistence::StoreResult<std::vector<std::pair<uint64_t, std::string>>> SnapshotDiscards(
      std::string_view) override {
    return tl::unexpected(Unavailable());
  }
  persistence::StoreResult<void> Ping() override { return {}; }

 private:
  static persistence::StoreError Unavailable() {
    return persistence::StoreError{.code = persistence::StoreErrorCode::kUnavailable,
                                   .message = "a verification has no store",
                                   .seq = 0};
  }
};

// The seq an engine replay error names ("event 12: ..."), else 0.
uint64_t SeqOfReplayError(const std::string& message) {
  const std::string_view prefix = "event ";
  const size_t at = message.find(prefix);
  if (at == std::string::npos) return 0;
  uint64_t seq = 0;
  for (size_t i = at + prefix.size(); i < message.size() && message[i] >= '0' && message[i] <= '9';
       ++i) {
    seq = seq * 10 + static_cast<uint64_t>(message[i] - '0');
  }
  return seq;
}

// The dice one command rolled, waiting for the event that closes its step.
struct OpenBatch {
  std::vector<std::pair<uint64_t, LoggedDie>> dice;  // (seq of the event, die)
};

}  // namespace

engine::Result<storage::MatchFile> ParseMatchFile(std::string_view text) {
  storage::MatchFile file;
  const std::string error = proto::FromJson(text, file);
  if (!error.empty()) return engine::Reject("", "not a Melee match file: " + error);
  if (file.format() != kMatchFileFormat) {
    return engine::Reject("", "format '" + file.format() + "' is not " +
                                  std::string(kMatchFileFormat));
  }
  return file;
}

std::string MatchFileJson(const storage::MatchFile& file) {
  return proto::ToJson(file, proto::JsonStyle::kPretty) + "\n";
}

std::vector<persistence::Event> EventsOf(const storage::MatchFile& file) {
  std::vector<persistence::Event> events;
  Hash prev = persistence::Genesis(file.match_id());
  for (const storage::FileEvent& in : file.events()) {
    persistence::Event event;
    event.match_id = file.match_id();
    event.seq = in.seq();
    event.payload = in.payload();
    event.prev_hash = prev;
    event.hash = HashOf(in.hash()).value_or(Hash{});
    event.recorded_unix_ms = in.recorded_unix_ms();
    prev = event.hash;
    events.push_back(std::move(event));
  }
  return events;
}

HostLookup BuiltinHosts() {
  auto asl = std::shared_ptr<const RulesetHost>(MakeAslHost());
  auto coc = std::shared_ptr<const RulesetHost>(MakeCocHost());
  auto vv = std::shared_ptr<const RulesetHost>(MakeVvHost());
  return [asl, coc, vv](std::string_view ruleset) -> const RulesetHost* {
    if (ruleset == "asl") return asl.get();
    if (ruleset == "coc") return coc.get();
    if (ruleset == "vv") return vv.get();
    return nullptr;
  };
}

std::string VerifyReport::Describe() const {
  if (!ok) {
    return "FAILED" + (failed_seq != 0 ? " at event " + std::to_string(failed_seq) : std::string()) +
           ": " + reason;
  }
  std::string text = "OK: match " + match_id + " (" + ruleset + "), exported for " +
                     exported_for + "\n";
  text += "  " + std::to_string(events) + " events hash-chained from the genesis";
  if (redacted != 0) text += " (" + std::to_string(redacted) + " redacted for this seat)";
  text += "\n  " + std::to_string(head_signatures) + " head signatures by server key " +
          key_fingerprint;
  if (!exporter_fingerprint.empty()) {
    text += " (the file's own by the exporting server, key " + exporter_fingerprint + ")";
  }
  text += "\n";
  text += "  " + std::to_string(dice_steps) + " dice steps: every seed hashes to the commitment";
  if (replayed) {
    text += "\n  " + std::to_string(dice) + " dice derived again from the seeds and entropies\n";
    text += "  the rules engine, replaying every command, gives exactly the logged events";
  } else {
    text += "\n  not checked (redacted events): the dice derivation and the engine replay; the "
            "director's file has them";
  }
  return text;
}

VerifyReport VerifyMatchFile(const storage::MatchFile& file, const HostLookup& hosts,
                             std::string_view trusted_key) {
  VerifyReport report;
  report.match_id = file.match_id();
  report.ruleset = file.ruleset() + " " + file.ruleset_version();
  report.exported_for = file.exported_for();
  report.key_fingerprint = persistence::KeyFingerprint(file.server_public_key());
  report.events = static_cast<uint64_t>(file.events_size());
  const auto fail_file = [&](std::string reason) {
    report.ok = false;
    report.failed_seq = 0;
    report.reason = std::move(reason);
    return report;
  };
  if (file.format() != kMatchFileFormat) return fail_file("not a " + std::string(kMatchFileFormat) + " file");
  if (file.match_id().empty()) return fail_file("the file names no match");
  if (file.server_public_key().size() != 32) {
    return fail_file("the server key is not a 32-byte Ed25519 public key");
  }
  if (file.events().empty()) return fail_file("the file holds no events");
  const std::string& id = file.match_id();
  // The referee's key (event 1) signs the log's heads; the exporter's (the file's) signs the file.
  std::string key = file.server_public_key();

  FirstFailure failures;
  // 1 and 2: the sequence and the hash chain.
  std::vector<Hash> hashes;
  Hash prev = persistence::Genesis(id);
  for (int i = 0; i < file.events_size(); ++i) {
    const storage::FileEvent& event = file.events(i);
    const uint64_t expected = static_cast<uint64_t>(i) + 1;
    if (event.seq() != expected) {
      bool later = false;
      for (int k = i + 1; k < file.events_size(); ++k) later |= file.events(k).seq() == expected;
      if (later) {
        failures.Add(expected, kSequence,
                     "the events are out of order: event " + std::to_string(event.seq()) +
                         " comes before event " + std::to_string(expected));
      } else if (event.seq() > expected) {
        failures.Add(expected, kSequence,
                     "event " + std::to_string(expected) + " is missing: the file goes from " +
                         std::to_string(expected - 1) + " to " + std::to_string(event.seq()));
      } else {
        failures.Add(expected, kSequence,
                     "the events are out of order: event " + std::to_string(event.seq()) +
                         " comes after event " + std::to_string(expected - 1));
      }
      break;
    }
    const std::optional<Hash> recorded = HashOf(event.hash());
    if (!recorded) {
      failures.Add(expected, kChain, "its recorded hash is not 32 bytes");
      break;
    }
    if (event.redacted()) {
      ++report.redacted;
      if (!event.payload().empty()) failures.Add(expected, kChain, "redacted, yet it has bytes");
      prev = *recorded;
    } else {
      const Hash computed = persistence::ChainHash(prev, event.payload());
      if (computed != *recorded) {
        failures.Add(expected, kChain,
                     "its bytes do not hash to its recorded hash (SHA-256 of the previous hash "
                     "and its bytes is " +
                         persistence::ToHex(computed) + "): the event was altered");
        break;
      }
      prev = computed;
    }
    hashes.push_back(prev);
  }

  // 3, 4 and 5: seeds, dice and signatures, in event order.
  const RulesetHost* host = hosts(file.ruleset());
  if (host == nullptr) return fail_file("this build does not play ruleset '" + file.ruleset() + "'");
  Hash known_seed{};
  uint64_t known_step = 0;
  bool have_commitment = false;
  std::array<std::string, 2> entropy;
  bool entropy_known = true;
  OpenBatch batch;
  uint64_t batch_first_die_seq = 0;
  const auto close_batch_without_step = [&]() {
    if (!batch.dice.empty()) {
      failures.Add(batch_first_die_seq, kDice,
                   std::to_string(batch.dice.size()) +
                       " dice were rolled without a committed step: they were not drawn from "
                       "the seed chain");
    }
    batch.dice.clear();
  };
  for (size_t i = 0; i < hashes.size(); ++i) {
    const storage::FileEvent& event = file.events(static_cast<int>(i));
    const uint64_t seq = event.seq();
    if (event.redacted()) {
      entropy_known = false;
      batch.dice.clear();
      continue;
    }
    storage::StoredEvent stored;
    if (!stored.ParseFromString(event.payload())) {
      failures.Add(seq, kUnreadable, "its bytes are not a melee.storage.v1.StoredEvent");
      break;
    }
    if (i == 0) {
      if (!stored.has_match_created() || stored.match_created().match_id() != id) {
        failures.Add(seq, kUnreadable, "the first event is not the creation of match " + id);
        break;
      }
      if (stored.match_created().ruleset() != file.ruleset()) {
        failures.Add(seq, kUnreadable, "the match plays " + stored.match_created().ruleset() +
                                           ", the file's header says " + file.ruleset());
      }
      key = stored.match_created().server_public_key();
      report.key_fingerprint = persistence::KeyFingerprint(key);
      if (key.size() != 32) {
        failures.Add(seq, kSignature, "the match names no 32-byte Ed25519 server key");
      } else if (!trusted_key.empty() && trusted_key != key) {
        failures.Add(seq, kSignature, "the match was refereed by server key " +
                                          report.key_fingerprint + ", not by the trusted key " +
                                          persistence::KeyFingerprint(trusted_key));
      }
      if (key != file.server_public_key()) {
        report.exporter_fingerprint = persistence::KeyFingerprint(file.server_public_key());
      }
      const std::optional<Hash> commitment = HashOf(stored.match_created().dice_commitment());
      if (!commitment) {
        failures.Add(seq, kSeed, "the match commits to no dice seed chain");
      } else {
        known_seed = *commitment;
        have_commitment = true;
      }
      continue;
    }
    if (stored.has_head_signed()) {
      const storage::HeadSigned& head = stored.head_signed();
      ++report.head_signatures;
      if (head.seq() == 0 || head.seq() >= seq || HashOf(head.hash()) != hashes[head.seq() - 1]) {
        failures.Add(seq, kSignature,
                     "the server signed a head that is not the hash of event " +
                         std::to_string(head.seq()));
      } else if (!persistence::VerifySignature(
                     key, persistence::HeadMessage(id, head.seq(), hashes[head.seq() - 1]),
                     head.signature())) {
        failures.Add(seq, kSignature,
                     "the server's signature of the head after event " + std::to_string(head.seq()) +
                         " does not verify with server key " + report.key_fingerprint);
      }
      close_batch_without_step();
      continue;
    }
    if (!stored.has_ruleset_event()) {
      close_batch_without_step();
      continue;
    }
    const storage::RulesetEvent& logged = stored.ruleset_event();
    if (logged.has_cause()) {
      close_batch_without_step();
      if (!logged.cause().client_entropy().empty()) {
        if (logged.cause().seat() == storage::SEAT_SIDE_A) entropy[0] = logged.cause().client_entropy();
        if (logged.cause().seat() == storage::SEAT_SIDE_B) entropy[1] = logged.cause().client_entropy();
      }
    }
    auto dice = host->DiceOfLogged(logged.event());
    if (!dice) {
      failures.Add(seq, kUnreadable, engine::Describe(dice.error()));
      break;
    }
    for (LoggedDie& die : *dice) {
      if (batch.dice.empty()) batch_first_die_seq = seq;
      batch.dice.emplace_back(seq, std::move(die));
    }
    if (logged.dice_step() == 0) continue;
    // This event closes a step: its seed, then its dice.
    const uint64_t step = logged.dice_step();
    ++report.dice_steps;
    const std::optional<Hash> seed = HashOf(logged.revealed_seed());
    bool seed_ok = false;
    if (!seed) {
      failures.Add(seq, kSeed, "the seed revealed for step " + std::to_string(step) +
                                   " is not 32 bytes");
    } else if (!have_commitment || step <= known_step) {
      failures.Add(seq, kSeed, "step " + std::to_string(step) + " comes after step " +
                                   std::to_string(known_step) + ": steps must increase");
    } else if (step != known_step + 1 && entropy_known) {
      failures.Add(seq, kSeed, "step " + std::to_string(known_step + 1) +
                                   " is missing: this event closes step " + std::to_string(step));
    } else {
      Hash down = *seed;
      for (uint64_t k = step; k > known_step; --k) down = persistence::PreviousSeed(down);
      if (down != known_seed) {
        failures.Add(seq, kSeed,
                     "the seed revealed for step " + std::to_string(step) +
                         " does not hash to the commitment: SHA-256(s_" + std::to_string(step) +
                         ") is not s_" + std::to_string(step - 1) +
                         (known_step == 0 ? " (the commitment in event 1)" : ""));
      } else {
        seed_ok = true;
        known_seed = *seed;
        known_step = step;
      }
    }
    if (batch.dice.empty()) {
      failures.Add(seq, kDice, "it closes step " + std::to_string(step) + " but no die was rolled");
    } else if (seed_ok && entropy_known) {
      uint64_t draw = 0;
      for (size_t d = 0; d < batch.dice.size(); ++d) {
        int value = 0;
        while (value == 0) {
          value = persistence::DieOfDraw(
              *seed, persistence::DieMessage(id, step, draw++, entropy[0], entropy[1]));
        }
        const auto& [die_seq, die] = batch.dice[d];
        ++report.dice;
        if (die.roll.value != value) {
          failures.Add(seq, kDice,
                       "die " + std::to_string(d + 1) + " of step " + std::to_string(step) + " (" +
                           die.roll.purpose + ", " + std::string(ColorName(die.roll.color)) +
                           ", in event " + std::to_string(die_seq) + ") is " +
                           std::to_string(die.roll.value) +
                           "; the committed seed and the entropies give " +
                           std::to_string(value));
          break;
        }
      }
    }
    batch.dice.clear();
  }
  if (hashes.size() == static_cast<size_t>(file.events_size())) close_batch_without_step();

  // 5: the file's own signature of its last event.
  const storage::HeadSigned& final_head = file.head_signature();
  const uint64_t last_seq = hashes.empty() ? 0 : hashes.size();
  if (hashes.size() == static_cast<size_t>(file.events_size()) &&
      (!failures.get() || failures.get()->seq > last_seq)) {
    if (final_head.seq() != static_cast<uint64_t>(file.events_size()) ||
        HashOf(final_head.hash()) != (hashes.empty() ? std::nullopt : std::optional(hashes.back()))) {
      failures.Add(last_seq, kSignature,
                   "the file's head signature is not of its last event's hash");
    } else if (!persistence::VerifySignature(
                   file.server_public_key(),
                   persistence::HeadMessage(id, final_head.seq(), hashes.back()),
                   final_head.signature())) {
      failures.Add(last_seq, kSignature,
                   "the file's head signature does not verify with the exporting server's key " +
                       persistence::KeyFingerprint(file.server_public_key()));
    } else {
      ++report.head_signatures;
    }
  }

  // 6: the engine replay, when every event is in the file and nothing more basic failed (a
  // changed die is named as such, not as the replay it also breaks; a bad signature is not).
  if (report.redacted == 0 && (!failures.get() || failures.get()->rank == kSignature)) {
    NoStore store;
    SystemClock clock;
    Metrics metrics;
    asio::io_context io;
    MatchServices services{.store = store,
                           .clock = clock,
                           .metrics = metrics,
                           .default_choice_deadline_seconds = 300,
                           .default_declaration_deadline_seconds = 0,
                           .secrets = persistence::ServerSecrets::Ephemeral(),
                           .dice_source = {},
                           .recent_events = 1};
    auto replayed = Match::Recover(io.get_executor(), services, hosts, EventsOf(file));
    if (!replayed) {
      const std::string message = engine::Describe(replayed.error());
      failures.Add(SeqOfReplayError(message), kReplay, "the engine replay: " + message);
    } else {
      report.replayed = true;
    }
  }

  if (const auto& failure = failures.get()) {
    report.ok = false;
    report.failed_seq = failure->seq;
    report.reason = failure->reason;
    return report;
  }
  report.ok = true;
  return report;
}

}  // namespace melee::server
