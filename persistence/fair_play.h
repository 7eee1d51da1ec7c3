#pragma once

// The cryptography of fair play (docs/fair-play.md): committed dice and the server's signature.
//
// Committed dice. Each match has a hash chain of secret seeds s_N -> s_{N-1} -> ... -> s_0 with
// s_{k-1} = SHA-256(s_k). The first event publishes s_0. Resolution step k (the k-th command of
// the match that rolls dice) draws its dice from s_k:
//
//   draw j = HMAC-SHA256(key = s_k,
//                        "melee/v1/die|<match_id>|<k>|<j>|<hex entropy A>|<hex entropy B>")
//   x = the first 4 bytes of draw j, big-endian;  x < 4294967292 ? die = x mod 6 + 1 : rejected
//
// and the event that closes step k reveals s_k (anyone checks SHA-256(s_k) == s_{k-1}). The
// entropies are the client_entropy each side sent with its latest sealed declaration. So the
// server is bound by s_0 before it sees any declaration, and no player can predict s_k.
//
// Sealed declarations (seal scheme 2). A seal commits to the deterministic protobuf bytes of the
// Declaration with 32 secret random bytes drawn by the server:
//
//   commitment = SHA-256("melee/v2/seal|" || nonce || sealed bytes)
//
// Everybody sees the commitment at once; the nonce and bytes only with the declaration, so a
// viewer who can list every legal declaration still cannot test one against the commitment.
//
// Signatures. The server's Ed25519 key signs "melee/v1/head|<match_id>|<seq>|<hex hash(seq)>".
//
// Pure functions and small value types over OpenSSL; thread-safe.

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/dice.h"
#include "persistence/event_store.h"

namespace melee::persistence {

using Seed = Hash;

// Steps in a match's seed chain. A match that rolls dice in more steps than this is refused a
// further roll with a clear error (a long ASL match uses a few hundred).
inline constexpr uint64_t kDiceChainLength = 4096;

// The nonce of a sealed declaration and the salt of a stored event: 32 random bytes.
inline constexpr size_t kSealNonceBytes = 32;
inline constexpr size_t kEventSaltBytes = 32;

// Returns `count` bytes from OpenSSL's CSPRNG (RAND_bytes). Small draws (a salt, a nonce) come
// from a per-thread pool that RAND_bytes refills 4 KiB at a time; no byte is handed out twice.
// Throws std::runtime_error if the CSPRNG has none, which only a broken system does.
std::string RandomBytes(size_t count);

// The commitment of seal scheme 2: SHA-256("melee/v2/seal|" || nonce || sealed).
Hash SealCommitment(std::string_view nonce, std::string_view sealed);

// Returns SHA-256(seed): the seed of the step before.
Seed PreviousSeed(const Seed& seed);

// The seed chain of one match, from its secret top seed s_N. Keeps a little of it, in three
// levels, so that a match, whose steps ascend, pays about two hashes a step and 1.6 KiB:
// - every 256th seed of the chain (s_0, s_256, ..., and s_N: 576 bytes for a full chain);
// - every 16th seed of the 256-seed block last asked for (512 bytes: 255 hashes to enter it);
// - the 16 seeds of the run last asked for in that block (512 bytes: at most 15 hashes).
// Its seeds never change once built; thread-safe.
class SeedChain {
 public:
  SeedChain(const Seed& top, uint64_t length);
  // s_0: the commitment the match's first event publishes.
  const Seed& commitment() const { return checkpoints_.front(); }
  uint64_t length() const { return length_; }
  // s_step, for 0 <= step <= length().
  Seed At(uint64_t step) const;

 private:
  static constexpr uint64_t kEvery = 256;  // steps between checkpoints
  static constexpr uint64_t kRun = 16;     // steps between a block's sub-checkpoints
  // s_v for a v in `block` that is a checkpoint or sub-checkpoint (or the chain's end).
  Seed Kept(uint64_t v) const;

  uint64_t length_;
  std::vector<Seed> checkpoints_;  // s_0, s_256, s_512, ... and s_N last
  mutable std::mutex mutex_;       // guards the caches below
  // The block cache: s_{256b + 16j} for j = 0..15, for b = block_ (none while block_ is kNone).
  static constexpr uint64_t kNone = UINT64_MAX;
  mutable uint64_t block_ = kNone;
  mutable std::array<Seed, kEvery / kRun> sub_{};
  // The run cache: s_{16r} .. s_{16r + 15} for r = run_ (none while run_ is kNone).
  mutable uint64_t run_ = kNone;
  mutable std::array<Seed, kRun> run_seeds_{};
};

// The message HMAC'd for draw `draw` of step `step` (see the top of this file).
std::string DieMessage(std::string_view match_id, uint64_t step, uint64_t draw,
                       std::string_view entropy_a, std::string_view entropy_b);

// The die that draw gives under `seed`: 1..6, or 0 when the draw is rejected (x >= 4294967292,
// about once in a billion draws) and the next draw decides.
int DieOfDraw(const Seed& seed, std::string_view message);

// The dice of one resolution step, drawn as above. Not thread-safe (one per resolution).
class CommittedDice final : public engine::Dice {
 public:
  CommittedDice(const Seed& seed, std::string_view match_id, uint64_t step,
                std::string_view entropy_a, std::string_view entropy_b);
  // The dice of step `step` of `chain`: its seed is looked up and the draws' message formatted on
  // the first draw, so a step that rolls nothing costs no hashing and no formatting. `chain`,
  // `match_id` and the entropies are not copied: they must outlive the dice.
  CommittedDice(const SeedChain& chain, std::string_view match_id, uint64_t step,
                std::string_view entropy_a, std::string_view entropy_b);
  // How many draws were made (rejected ones included).
  uint64_t draws() const { return draws_; }
  // The step's seed (looked up now if no die was drawn yet).
  const Seed& seed();

 protected:
  int NextD6() override;

 private:
  // DieMessage(match_id, step, draw, entropy_a, entropy_b) is message_head_ + draw +
  // message_tail_: both made once, so a draw formats only its number (into message_, reused).
  void InitMessage(std::string_view match_id, std::string_view entropy_a,
                   std::string_view entropy_b);

  const SeedChain* chain_ = nullptr;  // set while seed_ is still to be looked up
  Seed seed_{};
  uint64_t step_;
  // Set while the message is still to be formatted (the chain's constructor): the caller's.
  struct Unformatted {
    std::string_view match_id, entropy_a, entropy_b;
  };
  std::optional<Unformatted> unformatted_;
  std::string message_head_;  // "melee/v1/die|<match_id>|<step>|"
  std::string message_tail_;  // "|<hex entropy_a>|<hex entropy_b>"
  std::string message_;
  uint64_t draws_ = 0;
};

// The server's secrets, kept in its data directory (each file 0600, created on first start):
//   server-key.pem  the Ed25519 private key that signs chain heads and match files;
//   dice-secret     32 random bytes from which each match's top seed is derived:
//                   s_N = HMAC-SHA256(dice-secret, "melee/v1/dice-seed|<match_id>").
// Losing them does not lose any log, but the server can no longer roll the committed dice of
// its unfinished matches (they become read-only), and its new signatures are by another key.
class ServerSecrets {
 public:
  // Loads the secrets from `dir`, creating what is missing. Errors say which file and why.
  static StoreResult<std::shared_ptr<const ServerSecrets>> LoadOrCreate(
      const std::filesystem::path& dir);
  // Secrets that live only in memory (tests, benchmarks).
  static std::shared_ptr<const ServerSecrets> Ephemeral();

  ~ServerSecrets();
  ServerSecrets(const ServerSecrets&) = delete;
  ServerSecrets& operator=(const ServerSecrets&) = delete;

  // The raw 32-byte Ed25519 public key.
  const std::string& public_key() const { return public_key_; }
  // Signs `message` (Ed25519; 64 bytes).
  std::string Sign(std::string_view message) const;
  // The top seed s_N of `match_id`'s chain.
  Seed TopSeed(std::string_view match_id) const;

 private:
  struct Key;
  ServerSecrets(std::unique_ptr<Key> key, std::string dice_secret);

  std::unique_ptr<Key> key_;
  std::string public_key_;
  std::string dice_secret_;
};

// Returns true when `signature` is `public_key`'s Ed25519 signature of `message`.
bool VerifySignature(std::string_view public_key, std::string_view message,
                     std::string_view signature);

// The signed message for the chain head after event `seq`.
std::string HeadMessage(std::string_view match_id, uint64_t seq, const Hash& hash);

// The PEM (SubjectPublicKeyInfo) form of a raw Ed25519 public key, for `openssl pkeyutl`.
std::string PublicKeyPem(std::string_view public_key);

// Lowercase hex of any bytes.
std::string BytesToHex(std::string_view bytes);
// A short fingerprint of a public key for people: the first 16 hex digits of its SHA-256.
std::string KeyFingerprint(std::string_view public_key);

}  // namespace melee::persistence
