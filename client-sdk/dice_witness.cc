#include "client-sdk/dice_witness.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <memory>

namespace melee::client {
namespace {

std::string Sha256(const std::string& bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
}

std::string Hex(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 15];
  }
  return hex;
}

bool VerifyEd25519(const std::string& key, const std::string& message,
                   const std::string& signature) {
  if (key.size() != 32 || signature.size() != 64) return false;
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> pkey(
      EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                  reinterpret_cast<const unsigned char*>(key.data()), key.size()),
      &EVP_PKEY_free);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!pkey || !ctx ||
      EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) != 1) {
    return false;
  }
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                          signature.size(), reinterpret_cast<const unsigned char*>(message.data()),
                          message.size()) == 1;
}

}  // namespace

std::optional<std::string> DiceWitness::Observe(const melee::v1::MatchEvent& event) {
  const std::string at = "event " + std::to_string(event.seq()) + ": ";
  if (event.has_match_opened()) {
    known_seed_ = event.match_opened().dice_commitment();
    known_step_ = 0;
    public_key_ = event.match_opened().server_public_key();
    fingerprint_ = Hex(Sha256(public_key_)).substr(0, 16);
    return std::nullopt;
  }
  if (!has_commitment()) return std::nullopt;
  if (event.dice_step() != 0) {
    const uint64_t step = event.dice_step();
    if (step <= known_step_) {
      return at + "dice step " + std::to_string(step) + " after step " +
             std::to_string(known_step_);
    }
    std::string down = event.revealed_seed();
    for (uint64_t k = step; k > known_step_; --k) down = Sha256(down);
    if (down != known_seed_) {
      return at + "the seed revealed for dice step " + std::to_string(step) +
             " does not hash to the match's commitment: the server broke its commitment";
    }
    known_seed_ = event.revealed_seed();
    known_step_ = step;
    ++steps_checked_;
  }
  if (event.has_head_signed()) {
    const melee::v1::HeadSigned& head = event.head_signed();
    const std::string message = "melee/v1/head|" + event.match_id() + "|" +
                                std::to_string(head.seq()) + "|" + Hex(head.hash());
    if (!VerifyEd25519(public_key_, message, head.signature())) {
      return at + "the server's signature of the head after event " + std::to_string(head.seq()) +
             " does not verify with its key " + fingerprint_;
    }
    ++heads_checked_;
  }
  return std::nullopt;
}

}  // namespace melee::client
