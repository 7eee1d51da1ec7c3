#pragma once

// What a client can check of fair play as the events arrive (docs/fair-play.md), without the
// match file: each seed a step reveals hashes down to the commitment the match's first event
// published, steps come in order, each head the server signs verifies with the key that
// first event named, and each sealed declaration, when it is opened, opens the commitment every
// viewer was shown when it was sealed. A client that joined late (after event 1) learns the
// commitment and key from a Witness state it kept, or checks nothing until `melee verify` reads
// the whole file.
//
// The SDK's MatchSession and Client feed it every event they deliver; a violation is a server
// that broke its commitment, and is reported as an error naming the event.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "melee/v1/match.pb.h"

namespace melee::client {

// The commitment of seal scheme 2: SHA-256("melee/v2/seal|" || nonce || sealed), computed here
// apart from the server's code.
std::string SealCommitment(const std::string& nonce, const std::string& sealed);

// Checks the answer to a SealDeclaration whose Declaration serialized (deterministically) to
// `sealed`: the server committed to exactly those bytes, with a 32-byte nonce. Returns what is
// wrong, if anything.
std::optional<std::string> CheckReceipt(const melee::v1::CommandAck& ack,
                                        const std::string& sealed);

class DiceWitness {
 public:
  // Checks `event` (events in seq order). Returns why it breaks the commitment, if it does.
  std::optional<std::string> Observe(const melee::v1::MatchEvent& event);

  // Steps whose seed was checked against the commitment, and heads whose signature was checked.
  uint64_t steps_checked() const { return steps_checked_; }
  uint64_t heads_checked() const { return heads_checked_; }
  // Sealed declarations whose opening was checked against their commitment.
  uint64_t seals_checked() const { return seals_checked_; }
  // Whether the match's first event was seen (else nothing can be checked).
  bool has_commitment() const { return !known_seed_.empty(); }
  // The referee's key fingerprint (16 hex digits), once event 1 was seen.
  const std::string& key_fingerprint() const { return fingerprint_; }

 private:
  std::string known_seed_;  // the seed of known_step_ (s_0: the commitment)
  uint64_t known_step_ = 0;
  std::string public_key_;
  std::string fingerprint_;
  uint64_t steps_checked_ = 0;
  uint64_t heads_checked_ = 0;
  uint64_t seals_checked_ = 0;
  // Each side's last commitment shown (DeclarationSealed.receipt) and the event that showed it.
  std::array<std::pair<uint64_t, std::string>, 2> commitments_;

  std::optional<std::string> CheckOpening(const std::string& at,
                                          const melee::v1::SealOpening& opening);
};

}  // namespace melee::client
