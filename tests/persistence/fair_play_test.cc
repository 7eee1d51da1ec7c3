// The cryptography of fair play (persistence/fair_play.h): the worked example of
// docs/fair-play.md number for number (computed there with openssl, sha256sum and bash), the seed
// chain against hashing down by hand, a million committed dice against fair dice, and the
// server's secrets on disk (files, modes, reloading, signatures, refusals).

#include "persistence/fair_play.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <boost/math/distributions/chi_squared.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "tests/testing/temp_dir.h"
#include "tests/testing/text.h"

namespace melee::persistence {
namespace {

// ---- helpers ----------------------------------------------------------------------------------

// Returns the bytes that `hex` (lowercase, an even number of digits) spells.
std::string HexBytes(std::string_view hex) {
  EXPECT_EQ(hex.size() % 2, 0u) << hex;
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return bytes;
}

// Returns the 32-byte seed (or hash) that `hex` spells.
Seed SeedOfHex(std::string_view hex) {
  const std::string bytes = HexBytes(hex);
  Seed seed{};
  EXPECT_EQ(bytes.size(), seed.size()) << hex;
  for (size_t i = 0; i < seed.size() && i < bytes.size(); ++i) {
    seed[i] = static_cast<unsigned char>(bytes[i]);
  }
  return seed;
}

// Returns the seed of `bytes` (32 of them).
Seed SeedOfBytes(std::string_view bytes) {
  Seed seed{};
  EXPECT_EQ(bytes.size(), seed.size());
  for (size_t i = 0; i < seed.size() && i < bytes.size(); ++i) {
    seed[i] = static_cast<unsigned char>(bytes[i]);
  }
  return seed;
}

// Returns `seed` as a string of its 32 raw bytes.
std::string BytesOf(const Seed& seed) {
  return std::string(reinterpret_cast<const char*>(seed.data()), seed.size());
}

using testing::Contains;

bool IsLowercaseHex(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// Returns the permission bits of `path` (e.g. 0600).
unsigned PermissionsOf(const std::filesystem::path& path) {
  return static_cast<unsigned>(std::filesystem::status(path).permissions() &
                               std::filesystem::perms::all);
}

// Writes `bytes` to `path`, replacing it.
void WriteFile(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.flush();
  ASSERT_TRUE(out.good()) << path;
}

// Returns s_0 .. s_length of the chain whose top is `top`, hashing down one step at a time.
std::vector<Seed> ChainByHand(const Seed& top, uint64_t length) {
  std::vector<Seed> seeds(length + 1);
  seeds[length] = top;
  for (uint64_t step = length; step > 0; --step) seeds[step - 1] = PreviousSeed(seeds[step]);
  return seeds;
}

// Returns P(X >= statistic) for X chi-square distributed with `degrees_of_freedom`.
double UpperTail(double statistic, double degrees_of_freedom) {
  const boost::math::chi_squared distribution(degrees_of_freedom);
  return boost::math::cdf(boost::math::complement(distribution, statistic));
}

// ---- the worked example of docs/fair-play.md -------------------------------------------------

// The values of the worked example: match id, step 1's seed 01 02 ... 20, entropies 16 x aa
// and 8 x bb.
constexpr std::string_view kExampleMatch = "m0123456789abcdef0123";
constexpr std::string_view kExampleS1 =
    "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";

Seed ExampleS1() { return SeedOfHex(kExampleS1); }
std::string ExampleEntropyA() { return std::string(16, static_cast<char>(0xaa)); }
std::string ExampleEntropyB() { return std::string(8, static_cast<char>(0xbb)); }

TEST(FairPlayExampleTest, DocsFairPlayMdSeedHashesToItsCommitment) {
  // docs/fair-play.md: printf '%s' "$S1" | xxd -r -p | sha256sum
  EXPECT_EQ(ToHex(PreviousSeed(ExampleS1())),
            "ae216c2ef5247a3782c135efa279a3e4cdc61094270f5d2be58c6204b7a612c9");
}

TEST(FairPlayExampleTest, DocsFairPlayMdDieMessageIsTheExactText) {
  const std::string message = DieMessage(kExampleMatch, 1, 0, ExampleEntropyA(), ExampleEntropyB());
  EXPECT_EQ(message,
            "melee/v1/die|m0123456789abcdef0123|1|0|aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa|"
            "bbbbbbbbbbbbbbbb");
  EXPECT_EQ(message.size(), 88u);  // "exactly these 88 characters"
  EXPECT_EQ(DieMessage(kExampleMatch, 1, 1, ExampleEntropyA(), ExampleEntropyB()),
            "melee/v1/die|m0123456789abcdef0123|1|1|aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa|"
            "bbbbbbbbbbbbbbbb");
  // A side that has not sealed yet contributes the empty string.
  EXPECT_EQ(DieMessage(kExampleMatch, 1, 0, ExampleEntropyA(), ""),
            "melee/v1/die|m0123456789abcdef0123|1|0|aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa|");
  // Decimal step and draw numbers.
  EXPECT_EQ(DieMessage("m", 4096, 12, "", ""), "melee/v1/die|m|4096|12||");
}

TEST(FairPlayExampleTest, DocsFairPlayMdFirstDrawsGiveFiveTwoThree) {
  // docs/fair-play.md: HMAC 4014be42... -> x = 1075101250 -> 5; a76887bd... -> 2808645565 -> 2;
  // 23c9b5e6... -> 600421862 -> 3.
  const Seed s1 = ExampleS1();
  EXPECT_EQ(DieOfDraw(s1, DieMessage(kExampleMatch, 1, 0, ExampleEntropyA(), ExampleEntropyB())),
            5);
  EXPECT_EQ(DieOfDraw(s1, DieMessage(kExampleMatch, 1, 1, ExampleEntropyA(), ExampleEntropyB())),
            2);
  EXPECT_EQ(DieOfDraw(s1, DieMessage(kExampleMatch, 1, 2, ExampleEntropyA(), ExampleEntropyB())),
            3);
}

TEST(FairPlayExampleTest, DocsFairPlayMdDrIsColouredFiveWhiteTwo) {
  CommittedDice dice(ExampleS1(), std::string(kExampleMatch), 1, ExampleEntropyA(),
                     ExampleEntropyB());
  const engine::TwoDice dr = dice.RollTwoDice("A11.11 CC DR");
  EXPECT_EQ(dr.colored, 5);
  EXPECT_EQ(dr.white, 2);
  EXPECT_EQ(dr.Total(), 7);
  EXPECT_FALSE(dr.IsDoubles());
  EXPECT_EQ(dice.draws(), 2u);
  ASSERT_EQ(dice.rolls().size(), 2u);
  EXPECT_EQ(dice.rolls()[0].color, engine::DieColor::kColored);
  EXPECT_EQ(dice.rolls()[0].value, 5);
  EXPECT_EQ(dice.rolls()[0].purpose, "A11.11 CC DR");
  EXPECT_EQ(dice.rolls()[1].color, engine::DieColor::kWhite);
  EXPECT_EQ(dice.rolls()[1].value, 2);
}

TEST(FairPlayExampleTest, DocsFairPlayMdFirstTenDiceOfStepOne) {
  // docs/fair-play.md: "Draws 0 to 9 of this step give 5, 2, 3, 2, 4, 4, 5, 3, 5, 1".
  CommittedDice dice(ExampleS1(), std::string(kExampleMatch), 1, ExampleEntropyA(),
                     ExampleEntropyB());
  std::vector<int> values;
  for (int i = 0; i < 10; ++i) values.push_back(dice.RollDie("dr"));
  EXPECT_EQ(values, (std::vector<int>{5, 2, 3, 2, 4, 4, 5, 3, 5, 1}));
  EXPECT_EQ(dice.draws(), 10u);
  for (const engine::DieRoll& roll : dice.rolls()) {
    EXPECT_EQ(roll.color, engine::DieColor::kSingle);
  }
}

TEST(FairPlayExampleTest, CommittedDiceDrawWhatDieMessageSaysForEveryDrawNumber) {
  // CommittedDice formats only the draw's number per die; whatever the step's digits, the
  // entropies (one empty) and the draw's digits, each die is DieOfDraw of DieMessage's text.
  const Seed s1 = ExampleS1();
  for (const uint64_t step : {uint64_t{0}, uint64_t{1}, uint64_t{4096}, uint64_t{123456789}}) {
    for (const std::string& entropy_b : {ExampleEntropyB(), std::string()}) {
      CommittedDice dice(s1, std::string(kExampleMatch), step, ExampleEntropyA(), entropy_b);
      uint64_t draw = 0;
      for (int i = 0; i < 120; ++i) {
        int expected = 0;
        while (expected == 0) {
          expected = DieOfDraw(
              s1, DieMessage(kExampleMatch, step, draw++, ExampleEntropyA(), entropy_b));
        }
        ASSERT_EQ(dice.RollDie("dr"), expected) << "step " << step << ", die " << i;
      }
      EXPECT_EQ(dice.draws(), draw);
    }
  }
}

TEST(FairPlayExampleTest, DocsFairPlayMdWithoutEntropyBTheDiceAreOthers) {
  // docs/fair-play.md: "the dice would be others entirely (6, 5, 5, 3, ... for this seed)".
  CommittedDice dice(ExampleS1(), std::string(kExampleMatch), 1, ExampleEntropyA(), "");
  EXPECT_EQ(dice.RollDice(4, "dr"), (std::vector<int>{6, 5, 5, 3}));
}

TEST(FairPlayExampleTest, EveryPartOfTheMessageChangesTheDice) {
  // Returns the first 20 dice of a step.
  const auto twenty = [](const Seed& with_seed, std::string with_match, uint64_t with_step,
                         std::string with_a, std::string with_b) {
    CommittedDice dice(with_seed, std::move(with_match), with_step, std::move(with_a),
                       std::move(with_b));
    return dice.RollDice(20, "dr");
  };
  const Seed s1 = ExampleS1();
  const std::string match(kExampleMatch);
  const std::vector<int> base = twenty(s1, match, 1, ExampleEntropyA(), ExampleEntropyB());
  Seed other_seed = s1;
  other_seed[31] ^= 1;
  std::string other_b = ExampleEntropyB();
  other_b[0] = static_cast<char>(0xbc);
  EXPECT_NE(twenty(other_seed, match, 1, ExampleEntropyA(), ExampleEntropyB()), base);
  EXPECT_NE(twenty(s1, "m0123456789abcdef0124", 1, ExampleEntropyA(), ExampleEntropyB()), base);
  EXPECT_NE(twenty(s1, match, 2, ExampleEntropyA(), ExampleEntropyB()), base);
  EXPECT_NE(twenty(s1, match, 1, ExampleEntropyA(), other_b), base);
  EXPECT_NE(twenty(s1, match, 1, ExampleEntropyB(), ExampleEntropyA()), base);
  // And the same inputs give the same dice.
  EXPECT_EQ(twenty(s1, match, 1, ExampleEntropyA(), ExampleEntropyB()), base);
}

TEST(FairPlayExampleTest, DocsFairPlayMdGenesisAndHeadMessage) {
  // docs/fair-play.md: printf '%s' 'melee/v1/genesism0123456789abcdef0123' | sha256sum
  EXPECT_EQ(ToHex(Genesis(kExampleMatch)),
            "55aea5fd5b543dd079a83a650e0aadc2ccd6c6237c616c344a64d352bac53e59");
  const Hash head = SeedOfHex("a62e7b98cdc0b6136986e1df8724b8737d7e19404c1fc5f55d75a3b7cc293c3d");
  EXPECT_EQ(HeadMessage(kExampleMatch, 42, head),
            "melee/v1/head|m0123456789abcdef0123|42|"
            "a62e7b98cdc0b6136986e1df8724b8737d7e19404c1fc5f55d75a3b7cc293c3d");
}

TEST(FairPlayExampleTest, DocsFairPlayMdSignatureMadeByOpensslVerifies) {
  // docs/fair-play.md: the throwaway key's signature, made with `openssl pkeyutl -sign`.
  const std::string key =
      HexBytes("3e34f1cd4a79de178d91d6200981e99df8b23ba755e3980840eb571719e44f68");
  const std::string signature = HexBytes(
      "c5c274ae983fc7f10c238f4e05d51dc668d6af85d29f69081e0dd71f605cb6c0"
      "fe82bfbf8986c963c855569084d75086d3bc2246ceaf4398fb2c21fed566a308");
  const Hash head = SeedOfHex("a62e7b98cdc0b6136986e1df8724b8737d7e19404c1fc5f55d75a3b7cc293c3d");
  EXPECT_TRUE(VerifySignature(key, HeadMessage(kExampleMatch, 42, head), signature));
  // "Change ... the 42 to 43": Signature Verification Failure.
  EXPECT_FALSE(VerifySignature(key, HeadMessage(kExampleMatch, 43, head), signature));
  // The PEM and the fingerprint the page builds by hand.
  EXPECT_EQ(PublicKeyPem(key),
            "-----BEGIN PUBLIC KEY-----\n"
            "MCowBQYDK2VwAyEAPjTxzUp53heNkdYgCYHpnfiyO6dV45gIQOtXFxnkT2g=\n"
            "-----END PUBLIC KEY-----\n");
  EXPECT_EQ(KeyFingerprint(key), "10978f3b25de5363");
}

TEST(FairPlayExampleTest, DocsFairPlayMdTopSeedOfTheOperatorExample) {
  // docs/fair-play.md: a dice-secret of 32 bytes 11 gives the example match's top seed
  // 3d0a0b02... (openssl dgst -sha256 -mac HMAC).
  testing::TempDir dir;
  WriteFile(dir.path() / "dice-secret", std::string(32, static_cast<char>(0x11)));
  auto secrets = ServerSecrets::LoadOrCreate(dir.path());
  ASSERT_TRUE(secrets.has_value()) << secrets.error().message;
  EXPECT_EQ(ToHex((*secrets)->TopSeed(kExampleMatch)),
            "3d0a0b02ba7853421f3bf23ca369c1f482a1437c880289db6a69017d534b9568");
}

TEST(FairPlayExampleTest, BytesToHexIsLowercaseHex) {
  EXPECT_EQ(BytesToHex(std::string("\x00\x01\xab\xff", 4)), "0001abff");
  EXPECT_EQ(BytesToHex(""), "");
}

// ---- the seed chain ---------------------------------------------------------------------------

Seed SomeTopSeed() {
  Seed top{};
  for (size_t i = 0; i < top.size(); ++i) top[i] = static_cast<unsigned char>(0x30 + 3 * i);
  return top;
}

TEST(SeedChainTest, AtIsTheTopHashedDownForAFullChain) {
  const Seed top = SomeTopSeed();
  const SeedChain chain(top, kDiceChainLength);
  const std::vector<Seed> by_hand = ChainByHand(top, kDiceChainLength);
  EXPECT_EQ(kDiceChainLength, 4096u);
  EXPECT_EQ(chain.length(), 4096u);
  // Both ends, and each side of checkpoints (every 256th seed) and of runs (every 16th).
  constexpr std::array<uint64_t, 16> kSteps = {0,   1,   15,   16,   17,   255,  256,  257,
                                               511, 512, 3839, 3840, 3841, 4095, 4081, 4096};
  for (const uint64_t step : kSteps) {
    EXPECT_EQ(ToHex(chain.At(step)), ToHex(by_hand[step])) << "step " << step;
  }
  EXPECT_EQ(ToHex(chain.At(4096)), ToHex(top));
  EXPECT_EQ(ToHex(chain.commitment()), ToHex(chain.At(0)));
  EXPECT_EQ(ToHex(chain.commitment()), ToHex(by_hand[0]));
}

TEST(SeedChainTest, EveryStepOfAFullChainHashesToTheStepBefore) {
  const SeedChain chain(SomeTopSeed(), kDiceChainLength);
  const std::vector<Seed> by_hand = ChainByHand(SomeTopSeed(), kDiceChainLength);
  int wrong = 0;
  for (uint64_t step = 1; step <= kDiceChainLength; ++step) {
    const Seed seed = chain.At(step);
    if (seed != by_hand[step] || PreviousSeed(seed) != chain.At(step - 1)) ++wrong;
  }
  EXPECT_EQ(wrong, 0);
}

TEST(SeedChainTest, ShortChains) {
  // Lengths below, at and around a run (16) and a checkpoint interval (256).
  constexpr std::array<uint64_t, 11> kLengths = {1, 10, 15, 16, 17, 63, 100, 255, 256, 257, 300};
  for (const uint64_t length : kLengths) {
    const Seed top = SomeTopSeed();
    const SeedChain chain(top, length);
    const std::vector<Seed> by_hand = ChainByHand(top, length);
    EXPECT_EQ(chain.length(), length);
    for (uint64_t step = 0; step <= length; ++step) {
      EXPECT_EQ(ToHex(chain.At(step)), ToHex(by_hand[step]))
          << "length " << length << ", step " << step;
    }
    EXPECT_EQ(ToHex(chain.commitment()), ToHex(by_hand[0])) << "length " << length;
    EXPECT_EQ(ToHex(chain.At(length)), ToHex(top)) << "length " << length;
  }
}

TEST(SeedChainTest, ChainOfTenIsTenHashesDeep) {
  const Seed top = SomeTopSeed();
  const SeedChain chain(top, 10);
  Seed seed = top;
  for (int i = 0; i < 10; ++i) seed = PreviousSeed(seed);
  EXPECT_EQ(ToHex(chain.commitment()), ToHex(seed));
  EXPECT_EQ(ToHex(chain.At(9)), ToHex(PreviousSeed(top)));
}

TEST(SeedChainTest, StepBeyondTheChainThrows) {
  const SeedChain chain(SomeTopSeed(), 10);
  EXPECT_THROW(static_cast<void>(chain.At(11)), std::out_of_range);
}

TEST(SeedChainTest, ChainsOfDifferentTopsDiffer) {
  Seed other = SomeTopSeed();
  other[0] ^= 1;
  EXPECT_NE(SeedChain(SomeTopSeed(), 100).commitment(), SeedChain(other, 100).commitment());
}

TEST(SeedChainTest, CachesGiveTheSameSeedsInAnyOrder) {
  // The chain caches every 16th seed of the 256-seed block last asked for and the 16 seeds of
  // the run last asked for: jumping between blocks and runs, backwards, onto checkpoints and
  // into the last, short block and run must not change any seed.
  const Seed top = SomeTopSeed();
  const SeedChain chain(top, 600);
  const std::vector<Seed> by_hand = ChainByHand(top, 600);
  constexpr std::array<uint64_t, 22> kSteps = {5,   130, 6,   599, 600, 128, 129, 63,
                                               64,  0,   1,   592, 593, 70,  256, 255,
                                               257, 511, 512, 513, 17,  16};
  for (const uint64_t step : kSteps) {
    EXPECT_EQ(ToHex(chain.At(step)), ToHex(by_hand[step])) << "step " << step;
  }
}

TEST(CommittedDiceTest, ChainDiceLookUpTheirSeedOnlyWhenTheyRoll) {
  const SeedChain chain(SomeTopSeed(), 100);
  CommittedDice by_seed(chain.At(37), "m-lazy", 37, "a", "b");
  CommittedDice by_chain(chain, "m-lazy", 37, "a", "b");
  EXPECT_EQ(ToHex(by_chain.seed()), ToHex(chain.At(37)));
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(by_seed.RollDie("t"), by_chain.RollDie("t")) << "die " << i;
  CommittedDice unrolled(chain, "m-lazy", 38, "a", "b");
  EXPECT_EQ(unrolled.draws(), 0u);
  EXPECT_EQ(ToHex(unrolled.seed()), ToHex(chain.At(38)));
}

// ---- a million committed dice -----------------------------------------------------------------

// 200 steps of 2,500 ASL DRs each: 1,000,000 dice from a fixed seed chain and fixed entropies, so
// the statistics are the same on every run (the test never flakes). Each face is tested for
// uniformity (chi-square, 5 degrees of freedom) and the coloured and white dice of each DR, two
// consecutive rolls, for independence: the 6 x 6 table of (coloured, white) against 1/36 each
// (35 degrees of freedom). The pairs do not overlap, so they are independent under fair dice and
// the chi-square distribution applies exactly.
TEST(CommittedDiceTest, AMillionDiceAreUniformAndConsecutiveDiceIndependent) {
  constexpr uint64_t kSteps = 200;
  constexpr int kDrsPerStep = 2500;
  Seed top{};
  for (size_t i = 0; i < top.size(); ++i) top[i] = static_cast<unsigned char>(0xa0 + i);
  const SeedChain chain(top, kSteps);
  const std::string entropy_a(16, static_cast<char>(0xaa));
  const std::string entropy_b(8, static_cast<char>(0xbb));

  std::array<int64_t, 6> faces{};
  std::array<std::array<int64_t, 6>, 6> pairs{};
  int64_t dice = 0;
  int64_t out_of_range = 0;
  uint64_t draws = 0;
  bool every_step_drew_enough = true;
  for (uint64_t step = 1; step <= kSteps; ++step) {
    CommittedDice committed(chain.At(step), "m-fair-play-statistics", step, entropy_a, entropy_b);
    for (int i = 0; i < kDrsPerStep; ++i) {
      const engine::TwoDice dr = committed.RollTwoDice("statistics DR");
      dice += 2;
      if (dr.colored < 1 || dr.colored > 6 || dr.white < 1 || dr.white > 6) {
        ++out_of_range;
        continue;
      }
      const auto colored = static_cast<size_t>(dr.colored - 1);
      const auto white = static_cast<size_t>(dr.white - 1);
      ++faces[colored];
      ++faces[white];
      ++pairs[colored][white];
    }
    if (committed.draws() < static_cast<uint64_t>(2 * kDrsPerStep)) every_step_drew_enough = false;
    draws += committed.draws();
  }
  ASSERT_EQ(dice, 1000000);
  EXPECT_EQ(out_of_range, 0);
  EXPECT_TRUE(every_step_drew_enough);
  EXPECT_GE(draws, static_cast<uint64_t>(dice));

  const double per_face = static_cast<double>(dice) / 6;
  double uniformity = 0;
  for (const int64_t seen : faces) {
    const double off = static_cast<double>(seen) - per_face;
    uniformity += off * off / per_face;
  }
  const double per_pair = static_cast<double>(dice / 2) / 36;
  double independence = 0;
  for (const auto& row : pairs) {
    for (const int64_t seen : row) {
      const double off = static_cast<double>(seen) - per_pair;
      independence += off * off / per_pair;
    }
  }
  const double uniformity_p = UpperTail(uniformity, 5);
  const double independence_p = UpperTail(independence, 35);
  std::cout << "1,000,000 committed dice: faces";
  for (const int64_t seen : faces) std::cout << " " << seen;
  std::cout << " (" << draws << " draws)\n"
            << "  uniformity:   chi-square " << uniformity << ", 5 df, p = " << uniformity_p << "\n"
            << "  independence: chi-square " << independence << ", 35 df, p = " << independence_p
            << "\n";
  EXPECT_GT(uniformity_p, 0.001);
  EXPECT_GT(independence_p, 0.001);

  // The same dice, derived independently from the scheme of docs/fair-play.md with Python's
  // hmac module: these counts (chi-square 3.044936) and no rejected draw.
  EXPECT_EQ(faces, (std::array<int64_t, 6>{166942, 166715, 166754, 166131, 166477, 166981}));
  EXPECT_EQ(draws, 1000000u);
}

// ---- the CSPRNG's draws (salts, nonces) --------------------------------------------------------

// Small draws come from a per-thread pool of 4 KiB that RAND_bytes refills. A pool handing out a
// byte twice, or a wiped byte, would repeat a seal's nonce or an event's salt: a seal whose
// receipt could be guessed. Sizes that do not divide 4096 make draws straddle every refill.
TEST(RandomBytesTest, DrawsNeverRepeatAndStraddleRefillsWithoutZeros) {
  std::set<std::string> seen;
  std::array<int64_t, 256> counts{};
  int64_t total = 0;
  size_t worst_zeros = 0;
  for (const size_t size : {size_t{32}, size_t{24}, size_t{48}, size_t{7}, size_t{512}}) {
    for (int i = 0; i < 3000; ++i) {
      const std::string bytes = RandomBytes(size);
      ASSERT_EQ(bytes.size(), size);
      if (size >= 24) {
        EXPECT_TRUE(seen.insert(bytes).second) << "a draw of " << size << " bytes repeated";
      }
      for (const char c : bytes) ++counts[static_cast<unsigned char>(c)];
      total += static_cast<int64_t>(size);
      if (size >= 24 && size <= 48) {
        worst_zeros = std::max<size_t>(worst_zeros, std::count(bytes.begin(), bytes.end(), '\0'));
      }
    }
  }
  // 24 to 48 random bytes hold 8 or more zero bytes with probability below 1e-10; a draw that
  // straddles a refill with wiped bytes (24 and 48 do not divide 4096) would hold them.
  EXPECT_LT(worst_zeros, 8u);
  const double expected = static_cast<double>(total) / 256;
  double chi_square = 0;
  for (const int64_t count : counts) {
    chi_square += (static_cast<double>(count) - expected) * (static_cast<double>(count) - expected) /
                  expected;
  }
  // The bytes are truly random, so any bound fails now and then: this one once in 10^9 runs
  // (chi-square > ~415 with 255 degrees of freedom). A pool that handed out wiped bytes would
  // push the zero byte's count, and the chi-square, far beyond it.
  EXPECT_GT(UpperTail(chi_square, 255), 1e-9) << "chi-square " << chi_square;
}

TEST(RandomBytesTest, LargeDrawsAndZeroAreServed) {
  EXPECT_EQ(RandomBytes(0), "");
  const std::string big = RandomBytes(10000);
  ASSERT_EQ(big.size(), 10000u);
  EXPECT_LT(std::count(big.begin(), big.end(), '\0'), 100);  // ~39 expected
  EXPECT_NE(RandomBytes(4096), RandomBytes(4096));
}

TEST(RandomBytesTest, ThreadsDrawFromTheirOwnPoolsAndNeverTheSameBytes) {
  constexpr int kThreads = 4;
  constexpr int kDraws = 2000;
  std::vector<std::vector<std::string>> drawn(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&drawn, t] {
      for (int i = 0; i < kDraws; ++i) drawn[static_cast<size_t>(t)].push_back(RandomBytes(32));
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<std::string> seen;
  for (const auto& draws : drawn) {
    for (const std::string& bytes : draws) EXPECT_TRUE(seen.insert(bytes).second);
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kThreads * kDraws));
}

// ---- the server's secrets ---------------------------------------------------------------------

TEST(ServerSecretsTest, FirstStartCreatesBothSecretsReadableByTheOwnerOnly) {
  testing::TempDir dir;
  const auto data = dir.path() / "nested" / "data";
  auto secrets = ServerSecrets::LoadOrCreate(data);
  ASSERT_TRUE(secrets.has_value()) << secrets.error().message;
  ASSERT_TRUE(std::filesystem::exists(data / "server-key.pem"));
  ASSERT_TRUE(std::filesystem::exists(data / "dice-secret"));
  EXPECT_EQ(PermissionsOf(data / "server-key.pem"), 0600u);
  EXPECT_EQ(PermissionsOf(data / "dice-secret"), 0600u);
  EXPECT_EQ(std::filesystem::file_size(data / "dice-secret"), 32u);
  EXPECT_FALSE(std::filesystem::exists(data / "server-key.pem.new"));
  EXPECT_FALSE(std::filesystem::exists(data / "dice-secret.new"));
  EXPECT_EQ((*secrets)->public_key().size(), 32u);
}

TEST(ServerSecretsTest, LoadingAgainGivesTheSameKeyAndTopSeeds) {
  testing::TempDir dir;
  auto first = ServerSecrets::LoadOrCreate(dir.path());
  ASSERT_TRUE(first.has_value()) << first.error().message;
  auto again = ServerSecrets::LoadOrCreate(dir.path());
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_EQ(BytesToHex((*again)->public_key()), BytesToHex((*first)->public_key()));
  EXPECT_EQ(ToHex((*again)->TopSeed("m-one")), ToHex((*first)->TopSeed("m-one")));
  EXPECT_NE((*first)->TopSeed("m-one"), (*first)->TopSeed("m-two"));
  // Ed25519 signatures are deterministic: the reloaded private key is the same key.
  const std::string message = "melee/v1/head|m-one|1|" + ToHex(Genesis("m-one"));
  EXPECT_EQ((*again)->Sign(message), (*first)->Sign(message));
  // Another data directory is another server.
  testing::TempDir other_dir;
  auto other = ServerSecrets::LoadOrCreate(other_dir.path());
  ASSERT_TRUE(other.has_value()) << other.error().message;
  EXPECT_NE((*other)->public_key(), (*first)->public_key());
  EXPECT_NE((*other)->TopSeed("m-one"), (*first)->TopSeed("m-one"));
}

// The server signs with libsodium and reads its key file with OpenSSL: RFC 8032's first Ed25519
// test vector (section 7.1, TEST 1: its secret key as the key file, the empty message) gives
// the RFC's public key and signature, byte for byte.
TEST(ServerSecretsTest, SignsRfc8032TestOneFromItsKeyFile) {
  testing::TempDir dir;
  {
    std::ofstream pem(dir.path() / "server-key.pem");
    pem << "-----BEGIN PRIVATE KEY-----\n"
           "MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g\n"
           "-----END PRIVATE KEY-----\n";
  }
  auto secrets = ServerSecrets::LoadOrCreate(dir.path());
  ASSERT_TRUE(secrets.has_value()) << secrets.error().message;
  EXPECT_EQ(BytesToHex((*secrets)->public_key()),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  EXPECT_EQ(BytesToHex((*secrets)->Sign("")),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
            "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b");
  const std::string message = HeadMessage("m-rfc", 3, Genesis("m-rfc"));
  EXPECT_TRUE(VerifySignature((*secrets)->public_key(), message, (*secrets)->Sign(message)));
}

TEST(ServerSecretsTest, SignatureVerifiesOnlyWithItsKeyMessageAndBytes) {
  const auto secrets = ServerSecrets::Ephemeral();
  const auto stranger = ServerSecrets::Ephemeral();
  const std::string message = HeadMessage("m-sign", 7, Genesis("m-sign"));
  const std::string signature = secrets->Sign(message);
  ASSERT_EQ(signature.size(), 64u);
  EXPECT_TRUE(VerifySignature(secrets->public_key(), message, signature));
  EXPECT_FALSE(VerifySignature(stranger->public_key(), message, signature));
  for (const size_t at : {size_t{0}, message.size() / 2, message.size() - 1}) {
    std::string altered = message;
    altered[at] = static_cast<char>(altered[at] ^ 0x01);
    EXPECT_FALSE(VerifySignature(secrets->public_key(), altered, signature)) << "byte " << at;
  }
  for (const size_t at : {size_t{0}, size_t{31}, size_t{32}, size_t{63}}) {
    std::string altered = signature;
    altered[at] = static_cast<char>(altered[at] ^ 0x01);
    EXPECT_FALSE(VerifySignature(secrets->public_key(), message, altered)) << "byte " << at;
  }
  EXPECT_FALSE(VerifySignature(secrets->public_key(), message, signature.substr(0, 63)));
  EXPECT_FALSE(VerifySignature(secrets->public_key().substr(0, 31), message, signature));
  EXPECT_FALSE(VerifySignature(secrets->public_key(), message + "x", signature));
}

TEST(ServerSecretsTest, DiceSecretOfTheWrongSizeIsRefusedNamingTheFile) {
  for (const size_t size : {size_t{0}, size_t{31}, size_t{33}}) {
    testing::TempDir dir;
    const auto path = dir.path() / "dice-secret";
    WriteFile(path, std::string(size, 'x'));
    auto secrets = ServerSecrets::LoadOrCreate(dir.path());
    ASSERT_FALSE(secrets.has_value()) << "size " << size;
    EXPECT_TRUE(Contains(secrets.error().message, path.string())) << secrets.error().message;
    EXPECT_TRUE(Contains(secrets.error().message, "32 bytes")) << secrets.error().message;
    EXPECT_TRUE(Contains(secrets.error().message, "it has " + std::to_string(size)))
        << secrets.error().message;
    // The refused secret is left as it was, for the operator to look at.
    EXPECT_EQ(std::filesystem::file_size(path), size);
  }
}

TEST(ServerSecretsTest, ServerKeyThatIsNotAnEd25519KeyIsRefusedNamingTheFile) {
  testing::TempDir dir;
  const auto path = dir.path() / "server-key.pem";
  WriteFile(path, "this is not a PEM private key\n");
  auto secrets = ServerSecrets::LoadOrCreate(dir.path());
  ASSERT_FALSE(secrets.has_value());
  EXPECT_TRUE(Contains(secrets.error().message, path.string())) << secrets.error().message;
  EXPECT_TRUE(Contains(secrets.error().message, "Ed25519")) << secrets.error().message;
}

TEST(ServerSecretsTest, PublicKeyPemAndFingerprint) {
  const auto secrets = ServerSecrets::Ephemeral();
  const std::string& key = secrets->public_key();
  const std::string pem = PublicKeyPem(key);
  EXPECT_EQ(pem.rfind("-----BEGIN PUBLIC KEY-----", 0), 0u) << pem;
  EXPECT_TRUE(Contains(pem, "-----END PUBLIC KEY-----")) << pem;
  const std::string fingerprint = KeyFingerprint(key);
  EXPECT_EQ(fingerprint.size(), 16u);
  EXPECT_TRUE(IsLowercaseHex(fingerprint)) << fingerprint;
  // The first 16 hex digits of SHA-256 of the raw key (PreviousSeed is SHA-256 of 32 bytes).
  EXPECT_EQ(fingerprint, ToHex(PreviousSeed(SeedOfBytes(key))).substr(0, 16));
  EXPECT_NE(KeyFingerprint(ServerSecrets::Ephemeral()->public_key()), fingerprint);
}

TEST(ServerSecretsTest, TopSeedDependsOnTheMatchOnly) {
  const auto secrets = ServerSecrets::Ephemeral();
  EXPECT_EQ(secrets->TopSeed("m-a"), secrets->TopSeed("m-a"));
  EXPECT_NE(secrets->TopSeed("m-a"), secrets->TopSeed("m-b"));
  EXPECT_NE(BytesOf(secrets->TopSeed("m-a")), std::string(32, '\0'));
}

}  // namespace
}  // namespace melee::persistence
