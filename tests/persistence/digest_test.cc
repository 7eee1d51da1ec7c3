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

// A thread's context starts again from the key it was last keyed with when the next call has the
// same key (a step's dice): every call must give the MAC of its own key and message, whatever key
// came before. RFC 4231's test cases 3, 4 and 6 (a 131-byte key, longer than the kept one);
// the rest from Python's hmac module.
TEST(DigestTest, HmacSha256OfAKeyUsedAgainOrChangedIsTheMacOfItsOwnKey) {
  const std::string jefe_case = "what do ya want for nothing?";
  const std::string second = "a second message under the same key";
  const std::string long_key(131, '\xaa');
  const struct {
    std::string key;
    std::string message;
    std::string mac;
  } calls[] = {
      {std::string(20, '\xaa'), std::string(50, '\xdd'),
       "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
      {"Jefe", jefe_case, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {"Jefe", jefe_case, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {"Jefe", second, "d1e2d0ffe7bec21577efb741d9908c86f9a7748189002666195fc5597c09db26"},
      // The same length, the last byte changed; then a prefix of the last key.
      {"Jeff", jefe_case, "b756ec8c1f600eb277ee3f04163f581bd1c7e361f34a0727ad79c844ffc4bb83"},
      {"Jef", jefe_case, "89630a7f7bb95aced9efa60255f18a10e7d378665751be11dd40bb9594158c29"},
      {"Jefe", second, "d1e2d0ffe7bec21577efb741d9908c86f9a7748189002666195fc5597c09db26"},
      {long_key, "Test Using Larger Than Block-Size Key - Hash Key First",
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {long_key, second, "f60da10bf67c5ddfb4cad51dfab47798a180dd93ea12434ccbf46f44f2d750ae"},
      {"Jefe", second, "d1e2d0ffe7bec21577efb741d9908c86f9a7748189002666195fc5597c09db26"},
      {std::string("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11"
                   "\x12\x13\x14\x15\x16\x17\x18\x19"),
       std::string(50, '\xcd'), "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
  };
  for (const auto& call : calls) {
    EXPECT_EQ(ToHex(HmacSha256(call.key, call.message)), call.mac)
        << "key of " << call.key.size() << " bytes, message '" << call.message << "'";
  }
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
