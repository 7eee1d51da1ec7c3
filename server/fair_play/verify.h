#pragma once

// Verifying a match file (docs/fair-play.md) without trusting the server that wrote it; the
// file's format is server/match_file.h.
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
// (a redacted event keeps its hash, and every hash is signed); 4 checks every die whose step is
// fully visible with both entropies, and the report names the steps it cannot derive and why; 6
// needs every event, so it is skipped and the report says so. Format 2 also checks every sealed
// declaration against its commitment, every event's signed hash, and the file's signature over
// its header, times, redactions and journal.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/result.h"
#include "melee/storage/v1/match_file.pb.h"
#include "server/hosts.h"

namespace melee::server {

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
  // Steps whose dice this file cannot derive again, each with why ("step 4: side_b's entropy
  // is in redacted event 31").
  std::vector<std::string> dice_not_derivable;
  uint64_t seals = 0;            // sealed declarations opened and checked against their receipt
  uint64_t unsalted_seals = 0;   // seals of scheme 1 (no nonce), from before 2026-11
  bool replayed = false;         // the engine replay ran (no redacted events)
  bool trusted_key_checked = false;  // a trusted key was given, and the match's key is it
  bool format_v1 = false;            // an old file: its header and journal are signed by nothing

  // "OK: ..." with the summary, or "FAILED at event N: reason".
  std::string Describe() const;
};

// Verifies `file` (see the top of this file). `trusted_key`: the raw 32-byte Ed25519 key the
// reader trusts (e.g. from GET /api/server-key); empty: the file's own key.
VerifyReport VerifyMatchFile(const melee::storage::v1::MatchFile& file, const HostLookup& hosts,
                             std::string_view trusted_key = {});

// Checks a file this server is asked to import: it must verify completely, and a seat's export
// (with redacted events) is refused. Returns the verification summary, or why it is refused.
engine::Result<std::string> CheckImport(const melee::storage::v1::MatchFile& file,
                                        const HostLookup& hosts);

}  // namespace melee::server
