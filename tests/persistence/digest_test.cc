// SHA-256 and HMAC-SHA256 (persistence/digest.h) against the standards' test vectors, from many
// threads at once (each keeps its own OpenSSL context).

#include "persistence/digest.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "persistence/event_store.h"

namespace melee::persistence {
namespace {

TEST(DigestTest, Sha256MatchesFips180Vectors) {
  EXPECT_EQ(ToHex(Sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(ToHex(Sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // The parts are hashed as one message.
  EXPECT_EQ(ToHex(Sha256({"ab", "", "c"})), ToHex(Sha256("abc")));
}

TEST(DigestTest, HmacSha256MatchesRfc4231Vectors) {
  // RFC 4231, test case 2.
  EXPECT_EQ(ToHex(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // Test case 1: a 20-byte key of 0x0b; the context is re-keyed for each call.
  EXPECT_EQ(ToHex(HmacSha256(std::string(20, '\x0b'), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(ToHex(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(DigestTest, ThreadsHashAtOnceWithoutSharingState) {
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (size_t t = 0; t < wrong.size(); ++t) {
    threads.emplace_back([&wrong, t] {
      for (int i = 0; i < 2000; ++i) {
        if (ToHex(Sha256({"a", "bc"})) !=
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" ||
            ToHex(HmacSha256("Jefe", "what do ya want for nothing?")) !=
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843") {
          ++wrong[t];
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace melee::persistence
