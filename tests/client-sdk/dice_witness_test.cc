// The SDK's live fair-play checks (client-sdk/dice_witness.h): a revealed seed must hash down to
// the commitment of the match's first event, steps come in order, and signed heads verify with
// the key that first event named. The seeds and signatures here are made with the server's own
// primitives (persistence/fair_play.h), then forged.

#include "client-sdk/dice_witness.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "persistence/fair_play.h"

namespace melee::client {
namespace {

using ::testing::HasSubstr;

std::string Bytes(const persistence::Hash& hash) { return std::string(hash.begin(), hash.end()); }

class DiceWitnessTest : public ::testing::Test {
 protected:
  DiceWitnessTest() : chain_(persistence::Seed{7, 7, 7}, 10) {
    melee::v1::MatchEvent opened;
    opened.set_match_id("m1");
    opened.set_seq(1);
    opened.mutable_match_opened()->set_dice_commitment(Bytes(chain_.commitment()));
    opened.mutable_match_opened()->set_server_public_key(secrets_->public_key());
    EXPECT_EQ(witness_.Observe(opened), std::nullopt);
  }

  melee::v1::MatchEvent Step(uint64_t seq, uint64_t step, const persistence::Seed& seed) {
    melee::v1::MatchEvent event;
    event.set_match_id("m1");
    event.set_seq(seq);
    event.set_dice_step(step);
    event.set_revealed_seed(Bytes(seed));
    return event;
  }

  melee::v1::MatchEvent Head(uint64_t seq, uint64_t signed_seq, const persistence::ServerSecrets& by) {
    const persistence::Hash hash{1, 2, 3};
    melee::v1::MatchEvent event;
    event.set_match_id("m1");
    event.set_seq(seq);
    event.mutable_head_signed()->set_seq(signed_seq);
    event.mutable_head_signed()->set_hash(Bytes(hash));
    event.mutable_head_signed()->set_signature(
        by.Sign(persistence::HeadMessage("m1", signed_seq, hash)));
    return event;
  }

  persistence::SeedChain chain_;
  std::shared_ptr<const persistence::ServerSecrets> secrets_ =
      persistence::ServerSecrets::Ephemeral();
  DiceWitness witness_;
};

TEST_F(DiceWitnessTest, SeedsThatHashToTheCommitmentAndTrueSignaturesPass) {
  EXPECT_EQ(witness_.Observe(Step(5, 1, chain_.At(1))), std::nullopt);
  EXPECT_EQ(witness_.Observe(Step(9, 2, chain_.At(2))), std::nullopt);
  EXPECT_EQ(witness_.Observe(Head(10, 9, *secrets_)), std::nullopt);
  // A step this seat did not see (a skipped step) still hashes down.
  EXPECT_EQ(witness_.Observe(Step(14, 4, chain_.At(4))), std::nullopt);
  EXPECT_EQ(witness_.steps_checked(), 3u);
  EXPECT_EQ(witness_.heads_checked(), 1u);
  EXPECT_EQ(witness_.key_fingerprint(), persistence::KeyFingerprint(secrets_->public_key()));
}

TEST_F(DiceWitnessTest, ASeedOutsideTheChainIsABrokenCommitment) {
  const auto broken = witness_.Observe(Step(5, 1, persistence::Seed{9}));
  ASSERT_TRUE(broken.has_value());
  EXPECT_THAT(*broken, HasSubstr("event 5: the seed revealed for dice step 1 does not hash"));
}

TEST_F(DiceWitnessTest, AStepGoingBackIsRefused) {
  ASSERT_EQ(witness_.Observe(Step(5, 2, chain_.At(2))), std::nullopt);
  const auto broken = witness_.Observe(Step(6, 2, chain_.At(2)));
  ASSERT_TRUE(broken.has_value());
  EXPECT_THAT(*broken, HasSubstr("dice step 2 after step 2"));
}

TEST_F(DiceWitnessTest, AHeadSignedByAnotherKeyIsRefused) {
  const auto other = persistence::ServerSecrets::Ephemeral();
  const auto broken = witness_.Observe(Head(7, 6, *other));
  ASSERT_TRUE(broken.has_value());
  EXPECT_THAT(*broken, HasSubstr("signature of the head after event 6 does not verify"));
}

// Seal scheme 2: the reveal must open the commitment shown when the declaration was sealed;
// the commitment is the server's SealCommitment, checked here by the SDK's own SHA-256.
TEST_F(DiceWitnessTest, ARevealMustOpenTheCommitmentShownAtTheSeal) {
  const std::string nonce(32, 'n');
  const std::string sealed = "\x0a\x02G1";
  const std::string receipt = Bytes(persistence::SealCommitment(nonce, sealed));
  EXPECT_EQ(SealCommitment(nonce, sealed), receipt);
  melee::v1::MatchEvent seal;
  seal.set_seq(5);
  seal.mutable_declaration_sealed()->set_seat(melee::v1::SEAT_SIDE_B);
  seal.mutable_declaration_sealed()->set_receipt(receipt);
  EXPECT_EQ(witness_.Observe(seal), std::nullopt);

  const auto reveal = [&](const std::string& opened_bytes) {
    melee::v1::MatchEvent event;
    event.set_seq(6);
    melee::v1::SealOpening& opening = *event.mutable_declarations_revealed()->add_openings();
    opening.set_seat(melee::v1::SEAT_SIDE_B);
    opening.set_sealed_seq(5);
    opening.set_receipt(receipt);
    opening.set_nonce(nonce);
    opening.set_sealed(opened_bytes);
    return event;
  };
  const auto changed = witness_.Observe(reveal("\x0a\x02G2"));
  ASSERT_TRUE(changed.has_value());
  EXPECT_THAT(*changed, HasSubstr("side_b's revealed declaration does not open its commitment"));
  EXPECT_EQ(witness_.Observe(reveal(sealed)), std::nullopt);
  EXPECT_EQ(witness_.seals_checked(), 1u);

  // The ack of one's own seal: the bytes sent, a 32-byte nonce, their commitment.
  melee::v1::CommandAck ack;
  ack.set_sealed(sealed);
  ack.set_seal_nonce(nonce);
  ack.set_receipt(receipt);
  EXPECT_EQ(CheckReceipt(ack, sealed), std::nullopt);
  EXPECT_THAT(CheckReceipt(ack, "other").value_or(""), HasSubstr("other bytes"));
  ack.set_receipt(Bytes(persistence::SealCommitment(nonce, "")));
  EXPECT_THAT(CheckReceipt(ack, sealed).value_or(""), HasSubstr("committed to something else"));
}

TEST(DiceWitness, WithoutTheFirstEventNothingIsChecked) {
  DiceWitness witness;
  melee::v1::MatchEvent event;
  event.set_seq(8);
  event.set_dice_step(3);
  event.set_revealed_seed(std::string(32, 'x'));
  EXPECT_EQ(witness.Observe(event), std::nullopt);
  EXPECT_FALSE(witness.has_commitment());
  EXPECT_EQ(witness.steps_checked(), 0u);
}

}  // namespace
}  // namespace melee::client
