#pragma once

// Match files (proto/melee/storage/v1/match_file.proto; docs/fair-play.md): reading, writing, and
// verifying one without trusting the server that wrote it.
//
// VerifyMatchFile checks, event by event, and reports the first failing event:
//   1. the events run 1, 2, 3 ... (a missing or reordered event is named);
//   2. each event's bytes hash to its recorded hash, chained from the match's genesis;
//   3. each revealed seed hashes down to the seed before it, and to the commitment in event 1;
//   4. every die is the die the step's seed and both sides' entropies give;
//   5. the server's signatures of chain heads (HeadSigned events and the file's own) verify with
//      the server key in the file (and it is the trusted key, when one is given);
//   6. replaying every logged command through the rules engine gives exactly the logged events.
// A seat's export during play has redacted events: 1, 2, 3 and 5 still hold for the whole file
// (a redacted event keeps its hash); 4 and 6 need every event, so they are skipped and the report
// says so.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "engine/core/result.h"
#include "melee/storage/v1/match_file.pb.h"
#include "persistence/event_store.h"
#include "server/ruleset_host.h"

namespace melee::server {

inline constexpr std::string_view kMatchFileFormat = "melee-match-file/1";

// Reads a match file (its JSON form); the error says what is wrong.
engine::Result<melee::storage::v1::MatchFile> ParseMatchFile(std::string_view text);
// The JSON form of `file`, indented for people, ending in a newline.
std::string MatchFileJson(const melee::storage::v1::MatchFile& file);

// The events of a file as the event store holds them (for import and replay).
std::vector<persistence::Event> EventsOf(const melee::storage::v1::MatchFile& file);

using HostLookup = std::function<const RulesetHost*(std::string_view ruleset)>;
// The hosts of every ruleset this build plays.
HostLookup BuiltinHosts();

struct VerifyReport {
  bool ok = false;
  uint64_t failed_seq = 0;  // the first failing event; 0 when the file as a whole fails
  std::string reason;       // why, precisely
  // What was checked (when ok: everything listed here holds).
  std::string match_id;
  std::string ruleset;
  std::string exported_for;
  std::string key_fingerprint;       // the referee's key (event 1)
  std::string exporter_fingerprint;  // the exporting server's, when it is another one
  uint64_t events = 0;
  uint64_t redacted = 0;
  uint64_t head_signatures = 0;  // HeadSigned events, plus the file's own signature
  uint64_t dice_steps = 0;
  uint64_t dice = 0;             // dice derived again from their seeds
  bool replayed = false;         // the engine replay ran (no redacted events)

  // "OK: ..." with the summary, or "FAILED at event N: reason".
  std::string Describe() const;
};

// Verifies `file` (see the top of this file). `trusted_key`: the raw 32-byte Ed25519 key the
// reader trusts (e.g. from GET /api/server-key); empty: the file's own key.
VerifyReport VerifyMatchFile(const melee::storage::v1::MatchFile& file, const HostLookup& hosts,
                             std::string_view trusted_key = {});

}  // namespace melee::server
