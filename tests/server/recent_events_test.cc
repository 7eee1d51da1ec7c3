// RecentEvents: the last events of a match as each viewer saw them, kept serialized; viewers
// who saw the same bytes share one copy; a resume gets back exactly what was rendered.

#include "server/recent_events.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace melee::server {
namespace {

using engine::Viewer;

MessagePtr EventMessage(uint64_t seq, const std::string& waiting_for) {
  v1::ServerMessage message;
  v1::MatchEvent& event = *message.mutable_event();
  event.set_match_id("m-recent");
  event.set_seq(seq);
  event.set_recorded_unix_ms(1'700'000'000'000 + static_cast<int64_t>(seq));
  event.mutable_head_signed()->set_seq(seq);
  event.mutable_head_signed()->set_hash(waiting_for);
  return MakeMessage(std::move(message));
}

// Event `seq` as the four viewers see it: the seats differ, the director and spectator see
// what side A sees.
RenderedEvent Rendered(uint64_t seq) {
  const MessagePtr a = EventMessage(seq, "as side A sees event " + std::to_string(seq));
  const MessagePtr b = EventMessage(seq, "as side B sees event " + std::to_string(seq));
  RenderedEvent rendered;
  rendered[static_cast<size_t>(Viewer::kSideA)] = a;
  rendered[static_cast<size_t>(Viewer::kSideB)] = b;
  rendered[static_cast<size_t>(Viewer::kDirector)] =
      EventMessage(seq, a->message().event().head_signed().hash());
  rendered[static_cast<size_t>(Viewer::kSpectator)] = a;
  return rendered;
}

bool Same(const Outbound& x, const Outbound& y) {
  return google::protobuf::util::MessageDifferencer::Equals(x.message(), y.message()) &&
         *x.Frame(proto::FrameKind::kBinary) == *y.Frame(proto::FrameKind::kBinary);
}

TEST(RecentEventsTest, GivesBackEachViewersEventAsItWasRendered) {
  RecentEvents recent(8);
  for (uint64_t seq = 1; seq <= 3; ++seq) recent.Push(seq, Rendered(seq));
  EXPECT_EQ(recent.last_seq(), 3u);
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    const RenderedEvent expected = Rendered(seq);
    for (Viewer viewer : {Viewer::kSideA, Viewer::kSideB, Viewer::kDirector, Viewer::kSpectator}) {
      EXPECT_TRUE(Same(*recent.At(seq, viewer), *expected[static_cast<size_t>(viewer)]))
          << "event " << seq << " as viewer " << static_cast<int>(viewer);
    }
  }
  // Each call parses anew: the caller owns what it gets.
  EXPECT_NE(recent.At(2, Viewer::kSideA), recent.At(2, Viewer::kSideA));
}

TEST(RecentEventsTest, ViewersWhoSawTheSameBytesShareOneCopy) {
  RecentEvents recent(8);
  const RenderedEvent rendered = Rendered(1);
  recent.Push(1, rendered);
  // Three viewers saw side A's bytes, one saw side B's: two copies are kept, not four.
  const size_t a = rendered[0]->message().ByteSizeLong();
  const size_t b = rendered[1]->message().ByteSizeLong();
  ASSERT_EQ(a, b);  // the same length, different bytes
  EXPECT_LT(recent.bytes(), 3 * a + 128);
  EXPECT_GE(recent.bytes(), 2 * a);
}

TEST(RecentEventsTest, KeepsOnlyTheLastEventsUpToItsLimit) {
  RecentEvents recent(4);
  for (uint64_t seq = 1; seq <= 10; ++seq) recent.Push(seq, Rendered(seq));
  EXPECT_EQ(recent.size(), 4u);  // events 7..10
  EXPECT_TRUE(recent.HoldsAfter(6));
  EXPECT_TRUE(recent.HoldsAfter(9));
  EXPECT_TRUE(recent.HoldsAfter(10));  // nothing after the last: nothing missing
  EXPECT_TRUE(recent.HoldsAfter(12));
  EXPECT_FALSE(recent.HoldsAfter(5));  // event 6 is gone
  EXPECT_FALSE(recent.HoldsAfter(0));
  // The ring went round twice and a half: every kept event is still the right one.
  for (uint64_t seq = 7; seq <= 10; ++seq) {
    const RenderedEvent expected = Rendered(seq);
    for (Viewer viewer : {Viewer::kSideA, Viewer::kSideB, Viewer::kDirector, Viewer::kSpectator}) {
      EXPECT_TRUE(Same(*recent.At(seq, viewer), *expected[static_cast<size_t>(viewer)]))
          << "event " << seq << " as viewer " << static_cast<int>(viewer);
    }
  }
  EXPECT_THROW(recent.At(6, Viewer::kSideA), std::out_of_range);
  EXPECT_THROW(recent.At(11, Viewer::kSideA), std::out_of_range);
}

TEST(RecentEventsTest, ALimitOfZeroStillKeepsTheLastEvent) {
  RecentEvents recent(0);
  recent.Push(1, Rendered(1));
  recent.Push(2, Rendered(2));
  EXPECT_EQ(recent.size(), 1u);
  EXPECT_TRUE(recent.HoldsAfter(1));
  EXPECT_FALSE(recent.HoldsAfter(0));
}

TEST(RecentEventsTest, ARecordMayStartAfterEventOneButHasNoGaps) {
  RecentEvents recent(8);
  recent.Push(41, Rendered(41));  // a match recovered from a snapshot
  recent.Push(42, Rendered(42));
  EXPECT_TRUE(recent.HoldsAfter(40));
  EXPECT_FALSE(recent.HoldsAfter(39));
  EXPECT_THROW(recent.Push(44, Rendered(44)), std::logic_error);
  EXPECT_THROW(recent.Push(42, Rendered(42)), std::logic_error);
  EXPECT_EQ(recent.last_seq(), 42u);
}

}  // namespace
}  // namespace melee::server
