// Fair play you can prove (docs/fair-play.md), against a real server with its real committed
// dice: a played match exports to a file that verifies; every kind of tampering is caught with a
// precise message; a seat's export during play hides what that seat may not see; dice are fixed
// by the commitment and both entropies (re-derived here with OpenSSL alone, not the server's
// code); a file imports into another server, read-only.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <random>
#include <thread>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "melee/asl/v1/asl.pb.h"
#include "melee/storage/v1/events.pb.h"
#include "persistence/fair_play.h"
#include "proto/codec/frame.h"
#include "proto/codec/json.h"
#include "server/fair_play/verify.h"
#include "server/match_file.h"
#include "tests/testing/asl_commands.h"
#include "tests/testing/fair_play_match.h"
#include "tests/testing/http_get.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
namespace storage = melee::storage::v1;
using ::testing::HasSubstr;
using testing::MatchClient;

class FairPlayTest : public ::testing::Test {
 protected:
  // Creates an asl match and seats two players.
  void Seat() {
    a_ = MatchClient::Connect(server_.ws_url());
    b_ = MatchClient::Connect(server_.ws_url());
    ASSERT_TRUE(a_ && b_);
    v1::MatchSettings settings;
    settings.set_ruleset("asl");
    created_ = a_->Create(settings);
    ASSERT_TRUE(a_->Join(created_.match_id(), created_.side_a_token()).has_joined());
    ASSERT_TRUE(b_->Join(created_.match_id(), created_.side_b_token()).has_joined());
  }

  // Two close combats (a signed head after each), exported by the director.
  storage::MatchFile PlayAndExport() {
    Seat();
    // J5 last: no Melee goes on before a test sets up a third close combat there.
    testing::OrderLocations(*a_, *b_, {"G3", "H4", "J5"});
    testing::PlayCommittedCombat(*a_, *b_, "G3");
    testing::PlayCommittedCombat(*a_, *b_, "H4", std::string(16, 'c'), std::string(8, 'd'));
    return testing::ExportOver(server_.port(), created_.match_id(), created_.director_token());
  }

  static server::VerifyReport Verify(const storage::MatchFile& file,
                                     std::string_view trusted_key = {}) {
    return server::VerifyMatchFile(file, server::BuiltinHosts(), trusted_key);
  }

  testing::TestServer server_;
  std::unique_ptr<MatchClient> a_;
  std::unique_ptr<MatchClient> b_;
  v1::MatchCreated created_;
};

storage::StoredEvent Stored(const storage::FileEvent& event) {
  storage::StoredEvent stored;
  EXPECT_TRUE(stored.ParseFromString(event.payload()));
  return stored;
}

// Recomputes every hash from the genesis: what a forger without the server's key can do.
void Rechain(storage::MatchFile& file) {
  persistence::Hash prev = persistence::Genesis(file.match_id());
  for (storage::FileEvent& event : *file.mutable_events()) {
    prev = persistence::ChainHash(prev, event.payload());
    event.set_hash(std::string(reinterpret_cast<const char*>(prev.data()), prev.size()));
  }
}

// Rechains the file and signs it again as its exporter with `exporter`'s key: a file exported
// by another server, or by a forger with a key of his own. The log's own HeadSigned events keep
// the referee's signatures, so only what the rules, seeds and dice say can still catch an edit.
void Reexport(storage::MatchFile& file, const persistence::ServerSecrets& exporter) {
  Rechain(file);
  file.set_server_public_key(exporter.public_key());
  for (storage::FileEvent& event : *file.mutable_events()) {
    persistence::Hash hash{};
    std::copy(event.hash().begin(), event.hash().end(), hash.begin());
    event.set_signature(
        exporter.Sign(persistence::HeadMessage(file.match_id(), event.seq(), hash)));
  }
  const storage::FileEvent& last = file.events(file.events_size() - 1);
  persistence::Hash head{};
  std::copy(last.hash().begin(), last.hash().end(), head.begin());
  file.mutable_head_signature()->set_hash(last.hash());
  file.mutable_head_signature()->set_signature(
      exporter.Sign(persistence::HeadMessage(file.match_id(), last.seq(), head)));
  file.set_file_signature(exporter.Sign(server::FileSignedMessage(file)));
}

void Replace(storage::FileEvent& event, const storage::StoredEvent& stored) {
  event.set_payload(proto::SerializeDeterministic(stored));
}

// The index of the first event that closes a dice step.
int FirstClosingStep(const storage::MatchFile& file) {
  for (int i = 0; i < file.events_size(); ++i) {
    const storage::StoredEvent stored = Stored(file.events(i));
    if (stored.has_ruleset_event() && stored.ruleset_event().dice_step() != 0) return i;
  }
  return -1;
}

TEST_F(FairPlayTest, APlayedMatchExportsToAFileThatVerifies) {
  const storage::MatchFile file = PlayAndExport();
  ASSERT_FALSE(file.events().empty());
  EXPECT_EQ(file.exported_for(), "director");
  const server::VerifyReport report = Verify(file);
  ASSERT_TRUE(report.ok) << report.Describe();
  EXPECT_TRUE(report.replayed);
  EXPECT_EQ(report.redacted, 0u);
  EXPECT_GE(report.dice_steps, 2u);      // at least one resolution per combat
  EXPECT_GE(report.dice, 4u);            // two CC DRs at least
  EXPECT_EQ(report.head_signatures, 3u);  // one per combat, and the file's own
  EXPECT_THAT(report.Describe(), HasSubstr("OK: match " + created_.match_id()));

  // The key in the file is the one the server publishes.
  const testing::HttpResult key = testing::HttpGet(server_.port(), "/api/server-key");
  ASSERT_EQ(key.status, 200);
  v1::ServerKey published;
  ASSERT_EQ(proto::FromJson(key.body, published), "");
  EXPECT_EQ(published.public_key(), file.server_public_key());
  EXPECT_EQ(published.algorithm(), "Ed25519");
  EXPECT_THAT(published.public_key_pem(), HasSubstr("BEGIN PUBLIC KEY"));
  EXPECT_TRUE(Verify(file, published.public_key()).ok);
}

TEST_F(FairPlayTest, EveryTamperingIsCaughtWithAPreciseMessage) {
  const storage::MatchFile original = PlayAndExport();
  ASSERT_TRUE(Verify(original).ok);

  // One flipped byte in any event.
  for (int i = 0; i < original.events_size(); ++i) {
    storage::MatchFile file = original;
    std::string payload = file.events(i).payload();
    payload[payload.size() / 2] = static_cast<char>(payload[payload.size() / 2] ^ 0x01);
    file.mutable_events(i)->set_payload(payload);
    const server::VerifyReport report = Verify(file);
    EXPECT_FALSE(report.ok);
    EXPECT_EQ(report.failed_seq, static_cast<uint64_t>(i) + 1);
    EXPECT_THAT(report.reason, HasSubstr("the event was altered")) << "event " << i + 1;
  }
  {  // A removed event.
    storage::MatchFile file = original;
    file.mutable_events()->DeleteSubrange(5, 1);
    const server::VerifyReport report = Verify(file);
    EXPECT_EQ(report.failed_seq, 6u);
    EXPECT_EQ(report.reason, "event 6 is missing: the file goes from 5 to 7");
  }
  {  // A reordered event.
    storage::MatchFile file = original;
    file.mutable_events()->SwapElements(6, 7);
    const server::VerifyReport report = Verify(file);
    EXPECT_EQ(report.failed_seq, 7u);
    EXPECT_EQ(report.reason, "the events are out of order: event 8 comes before event 7");
  }
  const int closing = FirstClosingStep(original);
  ASSERT_GE(closing, 0);
  {  // A changed die, with every hash recomputed.
    storage::MatchFile file = original;
    int changed = -1;
    for (int i = 0; i <= closing && changed < 0; ++i) {
      storage::StoredEvent stored = Stored(file.events(i));
      if (!stored.has_ruleset_event()) continue;
      melee::asl::v1::AslEvent event;
      ASSERT_TRUE(event.ParseFromString(stored.ruleset_event().event()));
      if (event.dice().empty()) continue;
      const uint32_t value = event.dice(0).value();
      event.mutable_dice(0)->set_value(value % 6 + 1);
      stored.mutable_ruleset_event()->set_event(proto::SerializeDeterministic(event));
      Replace(*file.mutable_events(i), stored);
      changed = i;
    }
    ASSERT_GE(changed, 0);
    storage::MatchFile rehashed = file;
    Rechain(rehashed);
    const server::VerifyReport forged = Verify(rehashed);
    EXPECT_EQ(forged.failed_seq, static_cast<uint64_t>(changed) + 1) << forged.Describe();
    EXPECT_THAT(forged.reason, HasSubstr("is not the one the exporting server signed"));
    Reexport(file, *persistence::ServerSecrets::Ephemeral());
    const server::VerifyReport report = Verify(file);
    EXPECT_FALSE(report.ok);
    EXPECT_EQ(report.failed_seq, static_cast<uint64_t>(closing) + 1);
    EXPECT_THAT(report.reason, HasSubstr("die 1 of step 1"));
    EXPECT_THAT(report.reason, HasSubstr("the committed seed and the entropies give"));
  }
  {  // A changed declaration: side A's sealed attack becomes no attack at all.
    storage::MatchFile file = original;
    int changed = -1;
    for (int i = 0; i < file.events_size() && changed < 0; ++i) {
      storage::StoredEvent stored = Stored(file.events(i));
      if (!stored.has_ruleset_event() || stored.ruleset_event().cause().receipt().empty() ||
          stored.ruleset_event().cause().seat() != storage::SEAT_SIDE_A) {
        continue;
      }
      melee::asl::v1::Command command;
      ASSERT_TRUE(command.ParseFromString(stored.ruleset_event().cause().command()));
      ASSERT_TRUE(command.has_seal());
      command.mutable_seal()->clear_attacks();
      stored.mutable_ruleset_event()->mutable_cause()->set_command(
          proto::SerializeDeterministic(command));
      Replace(*file.mutable_events(i), stored);
      changed = i;
    }
    ASSERT_GE(changed, 0);
    Reexport(file, *persistence::ServerSecrets::Ephemeral());
    const server::VerifyReport report = Verify(file);
    EXPECT_FALSE(report.ok);
    EXPECT_EQ(report.failed_seq, static_cast<uint64_t>(changed) + 1);
    EXPECT_THAT(report.reason,
                HasSubstr("side_a's logged command is not the declaration it sealed"));
  }
  {  // A head signed by another key.
    storage::MatchFile file = original;
    const auto other = persistence::ServerSecrets::Ephemeral();
    int signed_at = -1;
    for (int i = 0; i < file.events_size() && signed_at < 0; ++i) {
      storage::StoredEvent stored = Stored(file.events(i));
      if (!stored.has_head_signed()) continue;
      persistence::Hash hash{};
      std::copy(stored.head_signed().hash().begin(), stored.head_signed().hash().end(),
                hash.begin());
      stored.mutable_head_signed()->set_signature(other->Sign(
          persistence::HeadMessage(file.match_id(), stored.head_signed().seq(), hash)));
      Replace(*file.mutable_events(i), stored);
      signed_at = i;
    }
    ASSERT_GE(signed_at, 0);
    const std::string referee = file.server_public_key();
    Reexport(file, *persistence::ServerSecrets::Ephemeral());
    const server::VerifyReport report = Verify(file);
    EXPECT_EQ(report.failed_seq, static_cast<uint64_t>(signed_at) + 1);
    EXPECT_THAT(report.reason, HasSubstr("does not verify with server key " +
                                         persistence::KeyFingerprint(referee)));
  }
  {  // The whole file re-signed by another key: only the trusted key tells.
    storage::MatchFile file = original;
    const auto other = persistence::ServerSecrets::Ephemeral();
    file.set_server_public_key(other->public_key());
    std::vector<persistence::Hash> hashes;
    persistence::Hash prev = persistence::Genesis(file.match_id());
    for (storage::FileEvent& event : *file.mutable_events()) {
      storage::StoredEvent stored = Stored(event);
      if (stored.has_match_created()) {
        stored.mutable_match_created()->set_server_public_key(other->public_key());
        Replace(event, stored);
      }
      if (stored.has_head_signed()) {
        const persistence::Hash& head = hashes[stored.head_signed().seq() - 1];
        stored.mutable_head_signed()->set_hash(std::string(head.begin(), head.end()));
        stored.mutable_head_signed()->set_signature(other->Sign(
            persistence::HeadMessage(file.match_id(), stored.head_signed().seq(), head)));
        Replace(event, stored);
      }
      prev = persistence::ChainHash(prev, event.payload());
      event.set_hash(std::string(prev.begin(), prev.end()));
      hashes.push_back(prev);
    }
    file.mutable_head_signature()->set_hash(std::string(prev.begin(), prev.end()));
    file.mutable_head_signature()->set_signature(other->Sign(persistence::HeadMessage(
        file.match_id(), static_cast<uint64_t>(file.events_size()), prev)));
    for (storage::FileEvent& event : *file.mutable_events()) {
      event.set_signature(other->Sign(
          persistence::HeadMessage(file.match_id(), event.seq(), hashes[event.seq() - 1])));
    }
    file.set_file_signature(other->Sign(server::FileSignedMessage(file)));
    EXPECT_TRUE(Verify(file).ok) << "self-consistent, signed by a key nobody trusts";
    EXPECT_THAT(Verify(file).Describe(), HasSubstr("NO TRUSTED KEY CHECKED"));
    const server::VerifyReport report = Verify(file, original.server_public_key());
    EXPECT_FALSE(report.ok);
    EXPECT_EQ(report.failed_seq, 1u);
    EXPECT_THAT(report.reason, HasSubstr("not by the trusted key"));
  }
  {  // A revealed seed that does not hash to its commitment.
    storage::MatchFile file = original;
    storage::StoredEvent stored = Stored(file.events(closing));
    std::string seed = stored.ruleset_event().revealed_seed();
    seed[0] = static_cast<char>(seed[0] ^ 0x80);
    stored.mutable_ruleset_event()->set_revealed_seed(seed);
    Replace(*file.mutable_events(closing), stored);
    Reexport(file, *persistence::ServerSecrets::Ephemeral());
    const server::VerifyReport report = Verify(file);
    EXPECT_EQ(report.failed_seq, static_cast<uint64_t>(closing) + 1);
    EXPECT_EQ(report.reason,
              "the seed revealed for step 1 does not hash to the commitment: SHA-256(s_1) is not "
              "s_0 (the commitment in event 1)");
  }
}

// The die of draw `draw` of `step`, computed with OpenSSL alone from the published rule
// (docs/fair-play.md), not with the server's code.
int IndependentDie(const std::string& seed, const std::string& match_id, uint64_t step,
                   uint64_t draw, const std::string& entropy_a, const std::string& entropy_b) {
  const auto hex = [](const std::string& bytes) {
    std::string out;
    char buffer[3];
    for (unsigned char c : bytes) {
      std::snprintf(buffer, sizeof buffer, "%02x", c);
      out += buffer;
    }
    return out;
  };
  const std::string message = "melee/v1/die|" + match_id + "|" + std::to_string(step) + "|" +
                              std::to_string(draw) + "|" + hex(entropy_a) + "|" + hex(entropy_b);
  unsigned char mac[32];
  unsigned int length = 0;
  HMAC(EVP_sha256(), seed.data(), static_cast<int>(seed.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &length);
  const uint32_t x = (uint32_t{mac[0]} << 24) | (uint32_t{mac[1]} << 16) | (uint32_t{mac[2]} << 8) |
                     uint32_t{mac[3]};
  return x < 4294967292u ? static_cast<int>(x % 6) + 1 : 0;
}

std::string Sha256Of(const std::string& bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
}

TEST_F(FairPlayTest, DiceAreFixedByTheCommitmentAndBothEntropies) {
  const storage::MatchFile file = PlayAndExport();
  // The commitment is in event 1, before any declaration existed.
  const storage::StoredEvent first = Stored(file.events(0));
  std::string known = first.match_created().dice_commitment();
  ASSERT_EQ(known.size(), 32u);
  std::array<std::string, 2> entropy;
  std::vector<int> pending;  // dice logged since the last closed step
  int steps = 0;
  int checked = 0;
  for (const storage::FileEvent& event : file.events()) {
    const storage::StoredEvent stored = Stored(event);
    if (!stored.has_ruleset_event()) continue;
    const storage::RulesetEvent& logged = stored.ruleset_event();
    if (logged.has_cause() && !logged.cause().client_entropy().empty()) {
      entropy[logged.cause().seat() == storage::SEAT_SIDE_A ? 0 : 1] = logged.cause().client_entropy();
    }
    if (logged.has_cause()) pending.clear();
    melee::asl::v1::AslEvent asl;
    ASSERT_TRUE(asl.ParseFromString(logged.event()));
    for (const auto& die : asl.dice()) pending.push_back(static_cast<int>(die.value()));
    if (logged.dice_step() == 0) continue;
    ++steps;
    const std::string& seed = logged.revealed_seed();
    // s_k hashes to s_{k-1}: the server could not pick s_k after event 1.
    EXPECT_EQ(Sha256Of(seed), known) << "step " << logged.dice_step();
    known = seed;
    uint64_t draw = 0;
    for (const int value : pending) {
      int die = 0;
      while (die == 0) {
        die = IndependentDie(seed, file.match_id(), logged.dice_step(), draw++, entropy[0], entropy[1]);
      }
      EXPECT_EQ(die, value);
      ++checked;
    }
    // Another entropy from either player gives other dice: neither side's choice is ignored.
    std::string first_dice_a;
    std::string first_dice_b;
    for (uint64_t d = 0; d < 8; ++d) {
      first_dice_a += std::to_string(IndependentDie(seed, file.match_id(), logged.dice_step(), d,
                                                    entropy[0] + "x", entropy[1]));
      first_dice_b += std::to_string(IndependentDie(seed, file.match_id(), logged.dice_step(), d,
                                                    entropy[0], entropy[1] + "x"));
    }
    std::string actual;
    for (uint64_t d = 0; d < 8; ++d) {
      actual += std::to_string(
          IndependentDie(seed, file.match_id(), logged.dice_step(), d, entropy[0], entropy[1]));
    }
    EXPECT_NE(first_dice_a, actual);
    EXPECT_NE(first_dice_b, actual);
    pending.clear();
  }
  EXPECT_GE(steps, 2);
  EXPECT_GE(checked, 4);
  // The second combat used the second pair of entropies.
  EXPECT_EQ(entropy[0], std::string(16, 'c'));
  EXPECT_EQ(entropy[1], std::string(8, 'd'));
}

TEST_F(FairPlayTest, ASeatsExportDuringPlayHidesWhatThatSeatMayNotSee) {
  Seat();
  testing::EnterAndConfirm(*a_, *b_);
  testing::AnnounceAndSealSideB(*a_, *b_);
  const uint64_t sealed_seq = b_->last_seq();

  // Side B has sealed, side A not yet: A's file has B's seal as a hash only.
  storage::MatchFile for_a =
      testing::ExportOver(server_.port(), created_.match_id(), created_.side_a_token());
  EXPECT_EQ(for_a.exported_for(), "side_a");
  ASSERT_EQ(static_cast<uint64_t>(for_a.events_size()), sealed_seq);
  EXPECT_TRUE(for_a.events(static_cast<int>(sealed_seq) - 1).redacted());
  EXPECT_TRUE(for_a.events(static_cast<int>(sealed_seq) - 1).payload().empty());
  for (const storage::FileEvent& event : for_a.events()) {
    if (event.redacted()) continue;
    const storage::StoredEvent stored = Stored(event);
    EXPECT_FALSE(stored.has_ruleset_event() &&
                 stored.ruleset_event().cause().seat() == storage::SEAT_SIDE_B &&
                 !stored.ruleset_event().cause().receipt().empty())
        << "side B's sealed declaration is in side A's file";
  }
  server::VerifyReport report = Verify(for_a);
  ASSERT_TRUE(report.ok) << report.Describe();
  EXPECT_EQ(report.redacted, 1u);
  EXPECT_FALSE(report.replayed);
  EXPECT_THAT(report.Describe(), HasSubstr("not checked (redacted events)"));
  // B has its own seal; so does the director's file.
  const storage::MatchFile for_b =
      testing::ExportOver(server_.port(), created_.match_id(), created_.side_b_token());
  EXPECT_FALSE(for_b.events(static_cast<int>(sealed_seq) - 1).redacted());
  EXPECT_TRUE(Verify(for_b).ok);
  // A forged token exports nothing.
  const testing::HttpResult forged = testing::HttpGet(
      server_.port(), "/api/matches/" + created_.match_id() + "/export", http::verb::get, {},
      {{"Authorization", "Bearer " + std::string(64, 'f')}});
  EXPECT_EQ(forged.status, 401);
  EXPECT_THAT(forged.body, HasSubstr("seat or director token"));

  // Once both declarations are revealed, A's file has everything.
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  ASSERT_TRUE(a_->Act(testing::Seal({{{"G1"}, {"R1"}}})).has_ack());
  testing::FinishCombat(*a_, *b_);
  for_a = testing::ExportOver(server_.port(), created_.match_id(), created_.side_a_token());
  report = Verify(for_a);
  ASSERT_TRUE(report.ok) << report.Describe();
  EXPECT_EQ(report.redacted, 0u);
  EXPECT_TRUE(report.replayed);
}

// Recomputes the hashes of events [0, end) from the genesis and leaves the rest as they are:
// a forger editing the events before a redacted one, whose chain link he knows cannot be checked.
void RechainBefore(storage::MatchFile& file, int end) {
  persistence::Hash prev = persistence::Genesis(file.match_id());
  for (int i = 0; i < end; ++i) {
    storage::FileEvent& event = *file.mutable_events(i);
    prev = persistence::ChainHash(prev, event.payload());
    event.set_hash(std::string(reinterpret_cast<const char*>(prev.data()), prev.size()));
  }
}

// The index of side `seat`'s (visible) set-up event in `file`.
int SetupOf(const storage::MatchFile& file, storage::Seat seat) {
  for (int i = 0; i < file.events_size(); ++i) {
    if (file.events(i).redacted()) continue;
    const storage::StoredEvent stored = Stored(file.events(i));
    if (stored.has_setup_submitted() && stored.setup_submitted().seat() == seat) return i;
  }
  return -1;
}

// Issue 22 "a seat's match file must protect every event": in side A's file during play (B's
// seal redacted, the last event), raising G1's firepower 6 -> 7 and recomputing every hash up to
// the redaction is caught at the edited event, and so is every header field changed.
TEST_F(FairPlayTest, ASeatsFileProtectsEveryEventBeforeARedactionAndItsHeader) {
  Seat();
  testing::EnterAndConfirm(*a_, *b_);
  testing::AnnounceAndSealSideB(*a_, *b_);
  const storage::MatchFile original =
      testing::ExportOver(server_.port(), created_.match_id(), created_.side_a_token());
  ASSERT_TRUE(original.events(original.events_size() - 1).redacted());
  EXPECT_EQ(original.events(original.events_size() - 1).redacted_kind(), "declaration_sealed");
  EXPECT_EQ(original.events(original.events_size() - 1).redacted_seat(), storage::SEAT_SIDE_B);
  ASSERT_TRUE(Verify(original, original.server_public_key()).ok);

  const int setup = SetupOf(original, storage::SEAT_SIDE_A);
  ASSERT_GE(setup, 0);
  storage::MatchFile forged = original;
  storage::StoredEvent stored = Stored(forged.events(setup));
  v1::SubmitSetup part;
  ASSERT_TRUE(part.ParseFromString(stored.setup_submitted().part()));
  ASSERT_EQ(part.asl().units(0).firepower(), 6);
  part.mutable_asl()->mutable_units(0)->set_firepower(7);
  stored.mutable_setup_submitted()->set_part(proto::SerializeDeterministic(part));
  Replace(*forged.mutable_events(setup), stored);
  RechainBefore(forged, forged.events_size() - 1);
  server::VerifyReport report = Verify(forged, original.server_public_key());
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.failed_seq, static_cast<uint64_t>(setup) + 1) << report.Describe();
  EXPECT_THAT(report.reason, HasSubstr("not the one the exporting server signed"));
  // Signed again with the forger's own key, it is no longer the referee's export.
  Reexport(forged, *persistence::ServerSecrets::Ephemeral());
  RechainBefore(forged, forged.events_size() - 1);
  report = Verify(forged);
  EXPECT_FALSE(report.ok);
  EXPECT_THAT(report.Describe(), HasSubstr("must be exported by the server that refereed"));

  // Every header field.
  const std::vector<std::pair<std::string, std::function<void(storage::MatchFile&)>>> edits = {
      {"the match was created with", [](auto& f) { f.set_ruleset_version("a11-1"); }},
      {"the file's signature", [](auto& f) { f.set_engine_version("0.0.1"); }},
      {"the file's signature", [](auto& f) { f.set_exported_for("side_b"); }},
      {"the file's signature", [](auto& f) { f.set_exported_unix_ms(f.exported_unix_ms() + 1); }},
      {"the director's file is complete", [](auto& f) { f.set_exported_for("director"); }},
      {"none of director", [](auto& f) { f.set_exported_for("referee"); }},
      {"line break", [](auto& f) { f.set_engine_version("1\nexported_for director"); }},
      {"the match plays", [](auto& f) { f.set_ruleset("coc"); }},
      {"the event was altered", [](auto& f) { f.set_match_id("m0000000000000000000x"); }},
      {"the file's signature", [](auto& f) { f.mutable_events(1)->set_recorded_unix_ms(1); }},
      {"the file's signature",
       [](auto& f) {
         f.mutable_events(f.events_size() - 1)->set_redacted_seat(storage::SEAT_SIDE_A);
       }},
      {"the file's signature", [](auto& f) { f.clear_file_signature(); }},
  };
  for (const auto& [expected, edit] : edits) {
    storage::MatchFile file = original;
    edit(file);
    report = Verify(file, original.server_public_key());
    EXPECT_FALSE(report.ok) << expected;
    EXPECT_THAT(report.Describe(), HasSubstr(expected));
  }
}

// A format-1 file (before seal scheme 2) still verifies when it is complete, and one with
// redacted events is refused with a clear message.
TEST_F(FairPlayTest, OldFormatOneFilesVerifyWhenCompleteAndAreRefusedWithRedactions) {
  storage::MatchFile complete = PlayAndExport();
  complete.set_format("melee-match-file/1");
  complete.clear_file_signature();
  for (storage::FileEvent& event : *complete.mutable_events()) event.clear_signature();
  server::VerifyReport report = Verify(complete);
  ASSERT_TRUE(report.ok) << report.Describe();
  EXPECT_THAT(report.Describe(), HasSubstr("format 1 (before 2026-11)"));

  storage::MatchFile seat = complete;
  seat.set_exported_for("side_a");
  seat.mutable_events(5)->clear_payload();
  seat.mutable_events(5)->set_redacted(true);
  report = Verify(seat);
  EXPECT_FALSE(report.ok);
  EXPECT_THAT(report.reason, HasSubstr("cannot be verified safely"));
  EXPECT_THAT(report.reason, HasSubstr("melee-match-file/2"));
}

// Single-bit flips and semantic edits over a real director's file, a complete seat's file and a
// seat's file during play: every one is caught, at the first event it touches.
TEST_F(FairPlayTest, EveryBitFlipAndEditOfRealFilesIsCaught) {
  const storage::MatchFile director = PlayAndExport();
  const storage::MatchFile complete_seat =
      testing::ExportOver(server_.port(), created_.match_id(), created_.side_b_token());
  // A third combat's set-up and B's seal: A's file now has a redacted event.
  testing::EnterAndConfirm(*a_, *b_, "J5");
  testing::AnnounceAndSealSideB(*a_, *b_, std::string(32, 'b'), "J5");
  const storage::MatchFile during_play =
      testing::ExportOver(server_.port(), created_.match_id(), created_.side_a_token());
  std::mt19937 random(22);
  for (const storage::MatchFile* original : {&director, &complete_seat, &during_play}) {
    const std::string which = original->exported_for();
    ASSERT_TRUE(Verify(*original, original->server_public_key()).ok) << which;
    for (int i = 0; i < original->events_size(); ++i) {
      const storage::FileEvent& event = original->events(i);
      const uint64_t seq = event.seq();
      // One bit of its payload, of its hash, of its signature.
      for (const int part : {0, 1, 2}) {
        storage::MatchFile file = *original;
        storage::FileEvent& target = *file.mutable_events(i);
        std::string bytes = part == 0 ? target.payload() : part == 1 ? target.hash()
                                                                     : target.signature();
        if (bytes.empty()) continue;
        const size_t bit = random() % (bytes.size() * 8);
        bytes[bit / 8] = static_cast<char>(bytes[bit / 8] ^ (1 << (bit % 8)));
        if (part == 0) target.set_payload(bytes);
        if (part == 1) target.set_hash(bytes);
        if (part == 2) target.set_signature(bytes);
        const server::VerifyReport report = Verify(file, original->server_public_key());
        EXPECT_FALSE(report.ok) << which << " event " << seq << " part " << part;
        EXPECT_EQ(report.failed_seq, seq) << which << " part " << part << ": " << report.Describe();
      }
      if (event.redacted()) continue;
      // Its payload rewritten with every hash recomputed (a forger without the key).
      storage::MatchFile file = *original;
      storage::StoredEvent stored = Stored(event);
      stored.set_salt(stored.salt() + "x");
      Replace(*file.mutable_events(i), stored);
      RechainBefore(file, file.events(file.events_size() - 1).redacted() ? file.events_size() - 1
                                                                         : file.events_size());
      const server::VerifyReport report = Verify(file, original->server_public_key());
      EXPECT_FALSE(report.ok) << which << " event " << seq;
      EXPECT_EQ(report.failed_seq, seq) << which << ": " << report.Describe();
    }
    // A dropped event, two swapped, the last ones cut off.
    {
      storage::MatchFile file = *original;
      file.mutable_events()->DeleteSubrange(3, 1);
      EXPECT_EQ(Verify(file).failed_seq, 4u) << which;
    }
    {
      storage::MatchFile file = *original;
      file.mutable_events()->SwapElements(2, 3);
      EXPECT_EQ(Verify(file).failed_seq, 3u) << which;
    }
    {
      storage::MatchFile file = *original;
      const int keep = file.events_size() - 2;
      file.mutable_events()->DeleteSubrange(keep, 2);
      const server::VerifyReport report = Verify(file);
      EXPECT_FALSE(report.ok) << which;
      EXPECT_EQ(report.failed_seq, static_cast<uint64_t>(keep)) << report.Describe();
      EXPECT_THAT(report.reason, HasSubstr("were cut off"));
    }
  }
}

// A redaction hides only what it hides: with side B's flag comment for the director redacted
// in side A's file, every die of both close combats is still derived again, as in the
// director's file; a redacted seal's step would be named (EveryBitFlip... covers a mid-play file).
TEST_F(FairPlayTest, ARedactedFlagLeavesEveryDieCheckable) {
  Seat();
  testing::OrderLocations(*a_, *b_, {"G3", "H4"});
  testing::PlayCommittedCombat(*a_, *b_, "G3");
  v1::ClientMessage flag;
  flag.mutable_flag_for_director()->set_seq(2);
  flag.mutable_flag_for_director()->set_comment("R1 was broken at the end of my last turn");
  ASSERT_TRUE(b_->Act(flag).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  testing::PlayCommittedCombat(*a_, *b_, "H4", std::string(16, 'c'), std::string(8, 'd'));
  const storage::MatchFile for_a =
      testing::ExportOver(server_.port(), created_.match_id(), created_.side_a_token());
  const storage::MatchFile director =
      testing::ExportOver(server_.port(), created_.match_id(), created_.director_token());
  const server::VerifyReport all = Verify(director, director.server_public_key());
  ASSERT_TRUE(all.ok) << all.Describe();
  const server::VerifyReport report = Verify(for_a, for_a.server_public_key());
  ASSERT_TRUE(report.ok) << report.Describe();
  EXPECT_EQ(report.redacted, 1u);
  EXPECT_FALSE(report.replayed);
  EXPECT_GE(report.dice_steps, 2u);
  EXPECT_EQ(report.dice, all.dice) << "every die, as in the director's file";
  EXPECT_TRUE(report.dice_not_derivable.empty()) << report.Describe();
  EXPECT_EQ(report.seals, all.seals);
  bool flag_redacted = false;
  for (const storage::FileEvent& event : for_a.events()) {
    flag_redacted |= event.redacted() && event.redacted_kind() == "director_flag" &&
                     event.redacted_seat() == storage::SEAT_SIDE_B;
  }
  EXPECT_TRUE(flag_redacted);
}

TEST_F(FairPlayTest, TheDirectorsFileJournalsEachSeatsConnections) {
  Seat();
  // Side B drops its connection and comes back.
  b_.reset();
  storage::MatchFile file;
  const auto ended = [](const storage::MatchFile& f) {
    return std::count_if(f.sessions().begin(), f.sessions().end(), [](const auto& record) {
      return record.seat() == storage::SEAT_SIDE_B && record.left_unix_ms() != 0;
    });
  };
  for (int attempt = 0; attempt < 200; ++attempt) {
    file = testing::ExportOver(server_.port(), created_.match_id(), created_.director_token());
    if (ended(file) == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(ended(file), 1) << file.DebugString();
  b_ = MatchClient::Connect(server_.ws_url());
  ASSERT_TRUE(b_->Join(created_.match_id(), created_.side_b_token()).has_joined());
  // The journal is written beside the match, not before the join is answered: wait for it.
  const auto sessions_of_b = [](const storage::MatchFile& f) {
    return std::count_if(f.sessions().begin(), f.sessions().end(), [](const auto& record) {
      return record.seat() == storage::SEAT_SIDE_B;
    });
  };
  for (int attempt = 0; attempt < 200; ++attempt) {
    file = testing::ExportOver(server_.port(), created_.match_id(), created_.director_token());
    if (sessions_of_b(file) == 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::map<storage::Seat, std::vector<storage::SessionRecord>> by_seat;
  for (const storage::SessionRecord& record : file.sessions()) by_seat[record.seat()].push_back(record);
  ASSERT_EQ(by_seat[storage::SEAT_SIDE_A].size(), 1u);
  ASSERT_EQ(by_seat[storage::SEAT_SIDE_B].size(), 2u);
  const storage::SessionRecord& dropped = by_seat[storage::SEAT_SIDE_B][0];
  EXPECT_GE(dropped.left_unix_ms(), dropped.joined_unix_ms());
  EXPECT_FALSE(dropped.reason().empty());
  EXPECT_EQ(by_seat[storage::SEAT_SIDE_B][1].left_unix_ms(), 0);
  EXPECT_EQ(by_seat[storage::SEAT_SIDE_B][1].reason(), "connected when the file was written");
  // The director's own export connection is HTTP, not a session; the match's seq is unchanged
  // by connections (the journal is outside the log).
  EXPECT_EQ(static_cast<uint64_t>(file.events_size()), b_->last_seq());
}

// A seat's join waits for the match's next append and commits in its transaction; a session's
// end commits at once. A play-by-email turn (connect, send, leave) is two transactions, not three.
TEST_F(FairPlayTest, ASeatsJoinCommitsWithTheNextCommandAndItsLeavingAtOnce) {
  Seat();
  const auto transactions = [this] {
    return testing::Metric(server_.port(), "melee_store_transactions_total");
  };
  const double before = transactions();
  ASSERT_TRUE(
      a_->Act(testing::EnterUnits({testing::Squad("G1", v1::SEAT_SIDE_A, 6, "6-4-7")}, true))
          .has_ack());
  EXPECT_EQ(transactions(), before + 1) << "both seats' joins, in side A's set-up's transaction";
  {
    auto turn = MatchClient::Connect(server_.ws_url());
    ASSERT_NE(turn, nullptr);
    ASSERT_TRUE(turn->Join(created_.match_id(), created_.side_b_token()).has_joined());
    ASSERT_TRUE(
        turn->Act(testing::EnterUnits({testing::Squad("R1", v1::SEAT_SIDE_B, 4, "4-4-7")}, false))
            .has_ack());
    EXPECT_EQ(transactions(), before + 2) << "the turn's join, in its command's transaction";
  }
  for (int attempt = 0; attempt < 200 && transactions() < before + 3; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(transactions(), before + 3) << "the turn's end, in a transaction of its own";

  const storage::MatchFile file =
      testing::ExportOver(server_.port(), created_.match_id(), created_.director_token());
  std::map<storage::Seat, std::vector<storage::SessionRecord>> by_seat;
  for (const storage::SessionRecord& record : file.sessions()) {
    by_seat[record.seat()].push_back(record);
  }
  ASSERT_EQ(by_seat[storage::SEAT_SIDE_A].size(), 1u);
  ASSERT_EQ(by_seat[storage::SEAT_SIDE_B].size(), 2u);
  EXPECT_EQ(by_seat[storage::SEAT_SIDE_B][0].reason(), "connected when the file was written");
  const storage::SessionRecord& turn = by_seat[storage::SEAT_SIDE_B][1];
  EXPECT_GE(turn.left_unix_ms(), turn.joined_unix_ms());
  EXPECT_NE(turn.left_unix_ms(), 0);
}

TEST_F(FairPlayTest, AVerifiedFileImportsIntoAnotherServerReadOnly) {
  const storage::MatchFile file = PlayAndExport();
  testing::TestServer other;
  const std::string body = server::MatchFileJson(file);
  testing::HttpResult imported =
      testing::HttpGet(other.port(), "/api/matches/import", http::verb::post, body);
  ASSERT_EQ(imported.status, 201) << imported.body;
  EXPECT_THAT(imported.body, HasSubstr("OK: match " + file.match_id()));

  // The same log, byte for byte, with the times it was recorded at.
  const storage::MatchFile again =
      testing::ExportOver(other.port(), file.match_id(), created_.director_token());
  ASSERT_EQ(again.events_size(), file.events_size());
  for (int i = 0; i < file.events_size(); ++i) {
    EXPECT_EQ(again.events(i).payload(), file.events(i).payload());
    EXPECT_EQ(again.events(i).hash(), file.events(i).hash());
    EXPECT_EQ(again.events(i).recorded_unix_ms(), file.events(i).recorded_unix_ms());
  }
  EXPECT_NE(again.server_public_key(), file.server_public_key());
  const server::VerifyReport re_exported = Verify(again, file.server_public_key());
  EXPECT_TRUE(re_exported.ok) << re_exported.Describe();
  EXPECT_THAT(re_exported.Describe(),
              HasSubstr("exporting server, key " +
                        persistence::KeyFingerprint(again.server_public_key())));

  // Seats can follow it there, not play it: its dice are committed on the first server.
  auto a = MatchClient::Connect(other.ws_url());
  ASSERT_TRUE(a);
  ASSERT_TRUE(a->Join(file.match_id(), created_.side_a_token()).has_joined());
  const v1::ServerMessage refused = a->Act(
      testing::EnterUnits({testing::Squad("G9", v1::SEAT_SIDE_A, 6, "6-4-7")}, true));
  ASSERT_TRUE(refused.has_error());
  EXPECT_THAT(refused.error().message(), HasSubstr("was imported"));

  // Twice is refused, and so is a tampered file.
  imported = testing::HttpGet(other.port(), "/api/matches/import", http::verb::post, body);
  EXPECT_EQ(imported.status, 422);
  EXPECT_THAT(imported.body, HasSubstr("already on this server"));
  testing::TestServer third;
  storage::MatchFile tampered = file;
  tampered.mutable_events(3)->mutable_payload()->back() ^= 0x01;
  imported = testing::HttpGet(third.port(), "/api/matches/import", http::verb::post,
                              server::MatchFileJson(tampered));
  EXPECT_EQ(imported.status, 422);
  EXPECT_THAT(imported.body, HasSubstr("FAILED at event 4"));
  imported = testing::HttpGet(third.port(), "/api/matches/import", http::verb::post, "{\"x\":1}");
  EXPECT_EQ(imported.status, 400);
}

}  // namespace
}  // namespace melee
