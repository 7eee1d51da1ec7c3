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

std::string SealCommitment(const std::string& nonce, const std::string& sealed) {
  return Sha256("melee/v2/seal|" + nonce + sealed);
}

std::optional<std::string> CheckReceipt(const melee::v1::CommandAck& ack,
                                        const std::string& sealed) {
  if (ack.sealed() != sealed) {
    return "commits to other bytes than the declaration sent: the server sealed something else";
  }
  if (ack.seal_nonce().size() != 32) {
    return "comes with a nonce of " + std::to_string(ack.seal_nonce().size()) +
           " bytes, not 32: the commitment would not hide the declaration";
  }
  if (ack.receipt() != SealCommitment(ack.seal_nonce(), ack.sealed())) {
    return "is not SHA-256(\"melee/v2/seal|\" || nonce || declaration): the server committed "
           "to something else";
  }
  return std::nullopt;
}

std::optional<std::string> DiceWitness::CheckOpening(const std::string& at,
                                                     const melee::v1::SealOpening& opening) {
  const std::string who = opening.seat() == melee::v1::SEAT_SIDE_B ? "side_b" : "side_a";
  if (opening.seat() != melee::v1::SEAT_SIDE_A && opening.seat() != melee::v1::SEAT_SIDE_B) {
    return at + "a sealed declaration is opened for no side";
  }
  const auto& [seq, shown] = commitments_[opening.seat() == melee::v1::SEAT_SIDE_A ? 0 : 1];
  if (!shown.empty() && seq == opening.sealed_seq() && shown != opening.receipt()) {
    return at + who + "'s declaration is opened against another commitment than the one event " +
           std::to_string(seq) + " showed";
  }
  if (opening.nonce().size() != 32 ||
      SealCommitment(opening.nonce(), opening.sealed()) != opening.receipt()) {
    return at + who + "'s revealed declaration does not open its commitment of event " +
           std::to_string(opening.sealed_seq()) + ": the server changed a sealed declaration";
  }
  ++seals_checked_;
  return std::nullopt;
}

std::optional<std::string> DiceWitness::Observe(const melee::v1::MatchEvent& event) {
  const std::string at = "event " + std::to_string(event.seq()) + ": ";
  if (event.has_declaration_sealed()) {
    const melee::v1::DeclarationSealed& sealed = event.declaration_sealed();
    if (sealed.seat() == melee::v1::SEAT_SIDE_A || sealed.seat() == melee::v1::SEAT_SIDE_B) {
      commitments_[sealed.seat() == melee::v1::SEAT_SIDE_A ? 0 : 1] = {event.seq(),
                                                                       sealed.receipt()};
    }
    if (sealed.has_opening()) {
      if (auto broken = CheckOpening(at, sealed.opening())) return broken;
    }
  }
  if (event.has_declarations_revealed()) {
    for (const melee::v1::SealOpening& opening : event.declarations_revealed().openings()) {
      if (auto broken = CheckOpening(at, opening)) return broken;
    }
  }
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
