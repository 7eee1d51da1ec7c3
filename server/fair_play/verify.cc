#include "server/fair_play/verify.h"

#include <boost/asio/io_context.hpp>
#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "persistence/fair_play.h"
#include "server/clock.h"
#include "server/match.h"
#include "server/match_file.h"
#include "server/metrics.h"

namespace melee::server {
namespace {

namespace storage = melee::storage::v1;
namespace v1 = melee::v1;
using persistence::Hash;

// Failures are ranked so that, at one event, the most basic one is reported.
// kAltered: an event whose hash the exporting server did not sign (format 2).
enum Rank { kSequence, kChain, kAltered, kUnreadable, kSeed, kDice, kReplay, kSignature };

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

std::string VerifyReport::Describe() const {
  if (!ok) {
    return "FAILED" + (failed_seq != 0 ? " at event " + std::to_string(failed_seq) : std::string()) +
           ": " + reason;
  }
  std::string text = "OK: match " + match_id + " (" + ruleset + "), exported for " +
                     exported_for + "\n";
  text += "  " + std::to_string(events) + " events hash-chained from the genesis";
  if (redacted != 0) text += " (" + std::to_string(redacted) + " redacted for this seat)";
  if (!format_v1) text += "; every event's hash and the whole file signed at export";
  text += "\n  " + std::to_string(head_signatures) + " head signatures by server key " +
          key_fingerprint;
  if (!exporter_fingerprint.empty()) {
    text += " (the file's own by the exporting server, key " + exporter_fingerprint + ")";
  }
  text += trusted_key_checked ? ", the trusted key\n"
                              : "\n  NO TRUSTED KEY CHECKED: the file names its own key, so a "
                                "forger could have signed it; give --key with the server's "
                                "public_key_hex (GET /api/server-key)\n";
  text += "  " + std::to_string(dice_steps) + " dice steps: every seed hashes to the commitment";
  text += "\n  " + std::to_string(dice) + " dice derived again from the seeds and entropies";
  for (const std::string& step : dice_not_derivable) text += "\n  not derivable here: " + step;
  text += "\n  " + std::to_string(seals) + " sealed declarations open their commitments";
  if (unsalted_seals != 0) {
    text += "\n  " + std::to_string(unsalted_seals) +
            " seals of scheme 1 (before 2026-11: an unsalted SHA-256, no nonce) not checked";
  }
  if (replayed) {
    text += "\n  the rules engine, replaying every command, gives exactly the logged events";
  } else {
    text += "\n  not checked (redacted events): the engine replay; the director's file has it";
  }
  if (format_v1) {
    text += "\n  format 1 (before 2026-11): its header fields and session journal are signed by "
            "nothing";
  }
  return text;
}

namespace {

// A header string that could make two manifests read alike (a line break, a control byte).
bool HasControlBytes(const std::string& text) {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

std::string SideName(size_t i) { return i == 0 ? "side_a" : "side_b"; }

}  // namespace

VerifyReport VerifyMatchFile(const storage::MatchFile& file, const HostLookup& hosts,
                             std::string_view trusted_key) {
  VerifyReport report;
  report.match_id = file.match_id();
  report.ruleset = file.ruleset() + " " + file.ruleset_version();
  report.exported_for = file.exported_for();
  report.key_fingerprint = persistence::KeyFingerprint(file.server_public_key());
  report.events = static_cast<uint64_t>(file.events_size());
  report.format_v1 = file.format() == kMatchFileFormatV1;
  const auto fail_file = [&](std::string reason) {
    report.ok = false;
    report.failed_seq = 0;
    report.reason = std::move(reason);
    return report;
  };
  if (file.format() != kMatchFileFormat && !report.format_v1) {
    return fail_file("not a " + std::string(kMatchFileFormat) + " file");
  }
  if (file.match_id().empty()) return fail_file("the file names no match");
  if (file.server_public_key().size() != 32) {
    return fail_file("the server key is not a 32-byte Ed25519 public key");
  }
  if (file.events().empty()) return fail_file("the file holds no events");
  for (const auto& [name, value] :
       {std::pair<std::string_view, const std::string*>{"match_id", &file.match_id()},
        {"ruleset", &file.ruleset()},
        {"ruleset_version", &file.ruleset_version()},
        {"engine_version", &file.engine_version()},
        {"exported_for", &file.exported_for()}}) {
    if (HasControlBytes(*value)) {
      return fail_file("the header's " + std::string(name) + " holds a line break or control "
                       "character: the file was altered");
    }
  }
  if (file.exported_for() != "director" && file.exported_for() != "side_a" &&
      file.exported_for() != "side_b" && file.exported_for() != "spectator") {
    return fail_file("exported_for '" + file.exported_for() +
                     "' is none of director, side_a, side_b, spectator");
  }
  for (const storage::FileEvent& event : file.events()) {
    if (!event.redacted()) continue;
    ++report.redacted;
    if (file.exported_for() == "director") {
      return fail_file("the file says it is the director's, yet event " +
                       std::to_string(event.seq()) +
                       " is redacted: the director's file is complete, so this one was altered");
    }
    if (report.format_v1) {
      return fail_file(
          "a " + std::string(kMatchFileFormatV1) +
          " file with redacted events cannot be verified safely (the events before a redacted "
          "one were signed by nothing and could have been rewritten); export it again from the "
          "server, which writes " + std::string(kMatchFileFormat));
    }
  }
  if (const uint64_t last = file.events(file.events_size() - 1).seq();
      file.head_signature().seq() > last) {
    report.ok = false;
    report.failed_seq = last;
    report.reason = "the file ends at event " + std::to_string(last) +
                    ", yet its head signature is of event " +
                    std::to_string(file.head_signature().seq()) + ": the events after " +
                    std::to_string(last) + " were cut off";
    return report;
  }
  const std::string& id = file.match_id();
  // The referee's key (event 1) signs the log's heads; the exporter's (the file's) signs the file.
  std::string key = file.server_public_key();

  FirstFailure failures;
  // 1 and 2: the sequence and the hash chain; format 2: every event's hash signed at export.
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
    const std::optional<Hash> recorded = HashOfBytes(event.hash());
    if (!recorded) {
      failures.Add(expected, kChain, "its recorded hash is not 32 bytes");
      break;
    }
    if (!report.format_v1 &&
        !persistence::VerifySignature(file.server_public_key(),
                                      persistence::HeadMessage(id, expected, *recorded),
                                      event.signature())) {
      failures.Add(expected, kAltered,
                   "its hash is not the one the exporting server signed (key " +
                       persistence::KeyFingerprint(file.server_public_key()) +
                       "): the event, or its hash, was altered after export");
    }
    if (event.redacted()) {
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

  // 3, 4 and 5: seeds, dice, seals and signatures, in event order.
  const RulesetHost* host = hosts(file.ruleset());
  if (host == nullptr) return fail_file("this build does not play ruleset '" + file.ruleset() + "'");
  Hash known_seed{};
  uint64_t known_step = 0;
  bool have_commitment = false;
  // Each side's entropy in effect, and the redacted event that hides it (0: it is known).
  std::array<std::string, 2> entropy;
  std::array<uint64_t, 2> entropy_hidden_in{};
  bool redacted_since_step = false;  // a step may have closed out of sight
  OpenBatch batch;
  uint64_t batch_first_die_seq = 0;
  uint64_t batch_hidden_in = 0;  // a redacted event of the open command (its dice are unknown)
  const auto close_batch_without_step = [&]() {
    if (!batch.dice.empty() && batch_hidden_in == 0) {
      failures.Add(batch_first_die_seq, kDice,
                   std::to_string(batch.dice.size()) +
                       " dice were rolled without a committed step: they were not drawn from "
                       "the seed chain");
    }
    batch.dice.clear();
    batch_hidden_in = 0;
  };
  for (size_t i = 0; i < hashes.size(); ++i) {
    const storage::FileEvent& event = file.events(static_cast<int>(i));
    const uint64_t seq = event.seq();
    if (event.redacted()) {
      redacted_since_step = true;
      const std::string& kind = event.redacted_kind();
      if (kind == "declaration_sealed" || kind == "command") {
        // Another command starts out of sight: its dice are unknown, and a seal's entropy too.
        batch.dice.clear();
        batch_hidden_in = seq;
        const storage::Seat by = event.redacted_seat();
        if (kind == "declaration_sealed" && by == storage::SEAT_SIDE_A) entropy_hidden_in[0] = seq;
        if (kind == "declaration_sealed" && by == storage::SEAT_SIDE_B) entropy_hidden_in[1] = seq;
      } else if (kind != "director_flag" && kind != "setup_submitted") {
        batch_hidden_in = seq;  // a ruleset event: it may hold dice of the open command
      }
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
      const storage::MatchCreated& created = stored.match_created();
      if (created.ruleset() != file.ruleset()) {
        failures.Add(seq, kUnreadable, "the match plays " + created.ruleset() +
                                           ", the file's header says " + file.ruleset());
      }
      if (created.ruleset_version() != file.ruleset_version()) {
        failures.Add(seq, kUnreadable, "the match was created with " + created.ruleset() + " " +
                                           created.ruleset_version() +
                                           ", the file's header says " + file.ruleset_version());
      }
      key = created.server_public_key();
      report.key_fingerprint = persistence::KeyFingerprint(key);
      if (key.size() != 32) {
        failures.Add(seq, kSignature, "the match names no 32-byte Ed25519 server key");
      } else if (!trusted_key.empty() && trusted_key != key) {
        failures.Add(seq, kSignature, "the match was refereed by server key " +
                                          report.key_fingerprint + ", not by the trusted key " +
                                          persistence::KeyFingerprint(trusted_key));
      } else {
        report.trusted_key_checked = !trusted_key.empty();
      }
      if (key != file.server_public_key()) {
        report.exporter_fingerprint = persistence::KeyFingerprint(file.server_public_key());
        // Only the referee's server can redact: another server's redactions (and the hashes
        // before them) would be vouched for by a key the reader did not choose to trust.
        if (report.redacted != 0) {
          failures.Add(seq, kSignature,
                       "a seat's file must be exported by the server that refereed the match "
                       "(key " + report.key_fingerprint + "); this one was exported by key " +
                           report.exporter_fingerprint);
        }
      }
      const std::optional<Hash> commitment = HashOfBytes(created.dice_commitment());
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
      if (head.seq() == 0 || head.seq() >= seq || HashOfBytes(head.hash()) != hashes[head.seq() - 1]) {
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
      const storage::Cause& cause = logged.cause();
      const size_t side = cause.seat() == storage::SEAT_SIDE_B ? 1 : 0;
      if (!cause.client_entropy().empty() &&
          (cause.seat() == storage::SEAT_SIDE_A || cause.seat() == storage::SEAT_SIDE_B)) {
        entropy[side] = cause.client_entropy();
        entropy_hidden_in[side] = 0;
      }
      // A sealed declaration: its commitment opens to the bytes sealed, which are the command.
      if (!cause.receipt().empty() && cause.seal_nonce().empty()) {
        ++report.unsalted_seals;
      } else if (!cause.receipt().empty()) {
        v1::Declaration declaration;
        if (cause.seal_nonce().size() != persistence::kSealNonceBytes ||
            HashOfBytes(cause.receipt()) !=
                persistence::SealCommitment(cause.seal_nonce(), cause.sealed())) {
          failures.Add(seq, kSeed,
                       SideName(side) + "'s sealed declaration does not open its commitment: "
                                        "SHA-256(\"melee/v2/seal|\" || nonce || sealed bytes) is "
                                        "not the receipt every viewer was shown");
        } else if (!declaration.ParseFromString(cause.sealed())) {
          failures.Add(seq, kUnreadable, SideName(side) + "'s sealed bytes are not a Declaration");
        } else if (auto decoded = host->FromDeclaration(declaration);
                   !decoded || decoded->logged != cause.command()) {
          failures.Add(seq, kSeed, SideName(side) + "'s logged command is not the declaration it "
                                                     "sealed");
        } else {
          ++report.seals;
        }
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
    const std::optional<Hash> seed = HashOfBytes(logged.revealed_seed());
    bool seed_ok = false;
    if (!seed) {
      failures.Add(seq, kSeed, "the seed revealed for step " + std::to_string(step) +
                                   " is not 32 bytes");
    } else if (!have_commitment || step <= known_step) {
      failures.Add(seq, kSeed, "step " + std::to_string(step) + " comes after step " +
                                   std::to_string(known_step) + ": steps must increase");
    } else if (step != known_step + 1 && !redacted_since_step) {
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
        for (uint64_t hidden = known_step + 1; hidden < step; ++hidden) {
          report.dice_not_derivable.push_back("step " + std::to_string(hidden) +
                                              ": it closed in a redacted event");
        }
        seed_ok = true;
        known_seed = *seed;
        known_step = step;
        redacted_since_step = false;
      }
    }
    const std::string step_name = "step " + std::to_string(step) + " (event " +
                                  std::to_string(seq) + ")";
    if (batch.dice.empty() && batch_hidden_in == 0) {
      failures.Add(seq, kDice, "it closes step " + std::to_string(step) + " but no die was rolled");
    } else if (!seed_ok) {
      // Reported above.
    } else if (batch_hidden_in != 0) {
      report.dice_not_derivable.push_back(step_name + ": some of its dice are in redacted event " +
                                          std::to_string(batch_hidden_in));
    } else if (entropy_hidden_in[0] != 0 || entropy_hidden_in[1] != 0) {
      const size_t side = entropy_hidden_in[0] != 0 ? 0 : 1;
      report.dice_not_derivable.push_back(step_name + ": " + SideName(side) +
                                          "'s entropy is in redacted event " +
                                          std::to_string(entropy_hidden_in[side]));
    } else {
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
    batch_hidden_in = 0;
  }
  if (hashes.size() == static_cast<size_t>(file.events_size())) close_batch_without_step();

  // 5: the file's own signature of its last event.
  const storage::HeadSigned& final_head = file.head_signature();
  const uint64_t last_seq = hashes.empty() ? 0 : hashes.size();
  if (hashes.size() == static_cast<size_t>(file.events_size()) &&
      (!failures.get() || failures.get()->seq > last_seq)) {
    if (final_head.seq() != static_cast<uint64_t>(file.events_size()) ||
               HashOfBytes(final_head.hash()) !=
                   (hashes.empty() ? std::nullopt : std::optional(hashes.back()))) {
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
  // Format 2: the header, times, redactions, head and journal, as the server exported them.
  if (!report.format_v1 && !persistence::VerifySignature(file.server_public_key(),
                                                         FileSignedMessage(file),
                                                         file.file_signature())) {
    return fail_file("the file's signature does not verify with the exporting server's key " +
                     persistence::KeyFingerprint(file.server_public_key()) +
                     ": a header field (ruleset, versions, exported_for, time), an event's time "
                     "or redaction, or the session journal was changed after export");
  }
  report.ok = true;
  return report;
}

engine::Result<std::string> CheckImport(const storage::MatchFile& file, const HostLookup& hosts) {
  const VerifyReport report = VerifyMatchFile(file, hosts);
  if (!report.ok) return engine::Reject("", "the file does not verify: " + report.Describe());
  if (report.redacted != 0) {
    return engine::Reject("", "this is " + file.exported_for() + "'s export, with " +
                                  std::to_string(report.redacted) +
                                  " redacted events; import the director's file");
  }
  return report.Describe();
}

}  // namespace melee::server
