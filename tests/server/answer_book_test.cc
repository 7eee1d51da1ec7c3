// AnswerBook: the answer to each applied command, found again by viewer and command_id for a
// retry, packed into one byte string.

#include "server/answer_book.h"

#include <gtest/gtest.h>

#include <string>

namespace melee::server {
namespace {

using engine::Viewer;

TEST(AnswerBookTest, FindsEachAnswerByViewerAndCommandId) {
  AnswerBook book;
  book.Record(Viewer::kSideA, "c1", {.seq = 4, .receipt = {}, .seal_nonce = {}, .sealed = {}});
  book.Record(Viewer::kSideB, "c1", {.seq = 7, .receipt = {}, .seal_nonce = {}, .sealed = {}});
  book.Record(Viewer::kDirector, "r1", {.seq = 9, .receipt = {}, .seal_nonce = {}, .sealed = {}});

  ASSERT_TRUE(book.Find(Viewer::kSideA, "c1"));
  EXPECT_EQ(book.Find(Viewer::kSideA, "c1")->seq, 4u);
  EXPECT_EQ(book.Find(Viewer::kSideB, "c1")->seq, 7u);
  EXPECT_EQ(book.Find(Viewer::kDirector, "r1")->seq, 9u);
  // Another viewer's command with the same id, and an id never answered, are not found.
  EXPECT_FALSE(book.Find(Viewer::kSideA, "r1"));
  EXPECT_FALSE(book.Find(Viewer::kSpectator, "c1"));
  EXPECT_FALSE(book.Find(Viewer::kSideA, "c"));
  EXPECT_FALSE(book.Find(Viewer::kSideA, ""));
  EXPECT_EQ(book.size(), 3u);
}

TEST(AnswerBookTest, KeepsASealsReceiptNonceAndSealedBytesExactly) {
  AnswerBook book;
  const std::string receipt(32, '\xab');
  std::string nonce(32, '\0');  // binary, with NULs
  nonce[7] = '\x01';
  const std::string sealed = std::string("\x0a\x03", 2) + "abc" + std::string(300, 'x');
  book.Record(Viewer::kSideB, "seal-1",
              {.seq = 12, .receipt = receipt, .seal_nonce = nonce, .sealed = sealed});
  const auto answer = book.Find(Viewer::kSideB, "seal-1");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->seq, 12u);
  EXPECT_EQ(answer->receipt, receipt);
  EXPECT_EQ(answer->seal_nonce, nonce);
  EXPECT_EQ(answer->sealed, sealed);
}

TEST(AnswerBookTest, ANewAnswerToTheSameCommandReplacesTheOld) {
  AnswerBook book;
  book.Record(Viewer::kSideA, "c1", {.seq = 3, .receipt = "r", .seal_nonce = "n", .sealed = "s"});
  book.Record(Viewer::kSideA, "c1", {.seq = 5, .receipt = {}, .seal_nonce = {}, .sealed = {}});
  const auto answer = book.Find(Viewer::kSideA, "c1");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->seq, 5u);
  EXPECT_TRUE(answer->receipt.empty());
  EXPECT_EQ(book.size(), 1u);
}

TEST(AnswerBookTest, ThousandsOfAnswersAllFoundAndPacked) {
  AnswerBook book;
  constexpr uint64_t kCommands = 5000;
  for (uint64_t i = 1; i <= kCommands; ++i) {
    const Viewer viewer = i % 2 == 0 ? Viewer::kSideA : Viewer::kSideB;
    book.Record(viewer, "cmd-" + std::to_string(i),
                {.seq = i * 3, .receipt = {}, .seal_nonce = {}, .sealed = {}});
  }
  for (uint64_t i = 1; i <= kCommands; ++i) {
    const Viewer viewer = i % 2 == 0 ? Viewer::kSideA : Viewer::kSideB;
    const Viewer other = i % 2 == 0 ? Viewer::kSideB : Viewer::kSideA;
    const std::string id = "cmd-" + std::to_string(i);
    const auto answer = book.Find(viewer, id);
    ASSERT_TRUE(answer) << id;
    EXPECT_EQ(answer->seq, i * 3) << id;
    EXPECT_FALSE(book.Find(other, id)) << id;
  }
  // An answer without a seal weighs its command_id and a few bytes, not a hash node of strings
  // (about 170 bytes): here under 40 bytes each, slack included.
  EXPECT_LT(book.bytes(), kCommands * 40);
}

TEST(AnswerBookTest, LongCommandIdsRoundTrip) {
  AnswerBook book;
  const std::string id(1000, 'k');
  book.Record(Viewer::kSideA, id, {.seq = 1, .receipt = {}, .seal_nonce = {}, .sealed = {}});
  book.Record(Viewer::kSideA, id + "2", {.seq = 2, .receipt = {}, .seal_nonce = {}, .sealed = {}});
  EXPECT_EQ(book.Find(Viewer::kSideA, id)->seq, 1u);
  EXPECT_EQ(book.Find(Viewer::kSideA, id + "2")->seq, 2u);
  EXPECT_FALSE(book.Find(Viewer::kSideA, id.substr(1)));
}

}  // namespace
}  // namespace melee::server
