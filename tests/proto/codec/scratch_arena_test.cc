#include "proto/codec/scratch_arena.h"

#include <gtest/gtest.h>

#include <string>

#include "melee/asl/v1/asl.pb.h"

namespace melee::proto {
namespace {

namespace aslpb = melee::asl::v1;

// Fills a situation with `units` units, their ids and names long enough to leave a
// std::string's own room (so that they are allocated apart from the arena's block).
void Fill(aslpb::Situation& out, int units, const std::string& tag) {
  out.mutable_location()->set_name("Location " + tag);
  for (int i = 0; i < units; ++i) {
    aslpb::Unit& unit = *out.add_units();
    unit.set_id(tag + "-" + std::to_string(i));
    unit.set_name("a name longer than a short string's room, " + tag + std::to_string(i));
  }
}

TEST(ScratchArena, AMessageOnItIsTheSameBytesAsOneOnTheHeap) {
  aslpb::Situation heap;
  Fill(heap, 12, "x");
  for (int round = 0; round < 3; ++round) {  // the thread's block, taken again each time
    ScratchArena scratch;
    auto& on_arena = scratch.Create<aslpb::Situation>();
    EXPECT_EQ(on_arena.units_size(), 0);  // empty, whatever the block held before
    Fill(on_arena, 12, "x");
    EXPECT_EQ(on_arena.SerializeAsString(), heap.SerializeAsString());
  }
}

TEST(ScratchArena, OneInsideAnotherHasItsOwnMessages) {
  ScratchArena outer;
  auto& first = outer.Create<aslpb::Situation>();
  Fill(first, 5, "outer");
  {
    ScratchArena inner;  // the block is held: this one allocates its own
    auto& second = inner.Create<aslpb::Situation>();
    Fill(second, 200, "inner");  // more than the block would hold
    EXPECT_EQ(second.units_size(), 200);
    EXPECT_EQ(second.units(199).id(), "inner-199");
  }
  EXPECT_EQ(first.units_size(), 5);
  EXPECT_EQ(first.units(4).name(), "a name longer than a short string's room, outer4");
  // Once both are gone, the block serves the next one.
  auto& third = outer.Create<aslpb::Situation>();
  Fill(third, 3, "third");
  EXPECT_EQ(third.units(2).id(), "third-2");
}

TEST(ScratchArena, AMessageLargerThanTheBlockIsWhole) {
  aslpb::Situation heap;
  Fill(heap, 2000, "big");
  ScratchArena scratch;
  auto& big = scratch.Create<aslpb::Situation>();
  Fill(big, 2000, "big");
  EXPECT_GT(big.ByteSizeLong(), ScratchArena::kBlockBytes);
  EXPECT_EQ(big.SerializeAsString(), heap.SerializeAsString());
}

}  // namespace
}  // namespace melee::proto
