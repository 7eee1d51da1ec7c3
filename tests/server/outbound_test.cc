// Outbound: a message's frames, encoded once and shared by every session that sends it.

#include "server/outbound.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace melee::server {
namespace {

namespace v1 = melee::v1;
using proto::FrameKind;

v1::ServerMessage Event(uint64_t seq) {
  v1::ServerMessage message;
  v1::MatchEvent& event = *message.mutable_event();
  event.set_match_id("m-outbound");
  event.set_seq(seq);
  event.mutable_head_signed()->set_hash("head " + std::to_string(seq));
  return message;
}

TEST(OutboundTest, EachFrameDecodesToTheMessageAndIsEncodedOnce) {
  const MessagePtr sent = MakeMessage(Event(7));
  for (FrameKind kind : {FrameKind::kBinary, FrameKind::kText}) {
    const auto& frame = sent->Frame(kind);
    ASSERT_NE(frame, nullptr);
    EXPECT_EQ(frame.get(), sent->Frame(kind).get()) << "the same bytes every time";
    auto back = proto::DecodeServerMessage(*frame, kind);
    ASSERT_TRUE(back.has_value()) << back.error().message;
    EXPECT_EQ(proto::SerializeDeterministic(*back), proto::SerializeDeterministic(Event(7)));
  }
}

TEST(OutboundTest, BytesGivenAreTheBinaryFrame) {
  const std::string bytes = Event(3).SerializeAsString();
  const auto sent = std::make_shared<const Outbound>(Event(3), bytes);
  EXPECT_EQ(*sent->Frame(FrameKind::kBinary), bytes);
}

// A view is sent from bytes (Match::RenderView): its tree is parsed only when asked for, for a
// text frame or a join.
TEST(OutboundTest, AMessageMadeFromBytesParsesItsTreeWhenAskedFor) {
  const std::string bytes = Event(9).SerializeAsString();
  const MessagePtr sent = Outbound::FromBinary(bytes);
  EXPECT_EQ(*sent->Frame(FrameKind::kBinary), bytes);
  EXPECT_EQ(sent->message().event().seq(), 9u);
  auto back = proto::DecodeServerMessage(*sent->Frame(FrameKind::kText), FrameKind::kText);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->event().head_signed().hash(), "head 9");
}

// Sessions on both I/O threads may ask for a frame at once: one encoding, seen by all.
TEST(OutboundTest, SessionsAskingAtOnceShareOneEncoding) {
  for (int round = 0; round < 50; ++round) {
    const MessagePtr sent =
        Outbound::FromBinary(Event(static_cast<uint64_t>(round)).SerializeAsString());
    std::vector<const std::string*> seen(8);
    std::vector<std::thread> sessions;
    for (size_t i = 0; i < seen.size(); ++i) {
      sessions.emplace_back([&, i] { seen[i] = sent->Frame(FrameKind::kText).get(); });
    }
    for (std::thread& session : sessions) session.join();
    for (const std::string* frame : seen) EXPECT_EQ(frame, seen[0]);
  }
}

}  // namespace
}  // namespace melee::server
