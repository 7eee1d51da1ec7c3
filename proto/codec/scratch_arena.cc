#include "proto/codec/scratch_arena.h"

#include <memory>

namespace melee::proto {
namespace {

struct ThreadBlock {
  std::unique_ptr<char[]> bytes = std::make_unique<char[]>(ScratchArena::kBlockBytes);
  bool held = false;
};

ThreadBlock& Block() {
  thread_local ThreadBlock block;
  return block;
}

google::protobuf::ArenaOptions OptionsFor(bool holds_block) {
  google::protobuf::ArenaOptions options;
  if (holds_block) {
    options.initial_block = Block().bytes.get();
    options.initial_block_size = ScratchArena::kBlockBytes;
  }
  return options;
}

}  // namespace

ScratchArena::ScratchArena() : holds_block_(!Block().held), arena_(OptionsFor(holds_block_)) {
  if (holds_block_) Block().held = true;
}

ScratchArena::~ScratchArena() {
  // The arena's destructor runs first only after this body: reset it now, so that the block is
  // free before another ScratchArena may take it.
  arena_.Reset();
  if (holds_block_) Block().held = false;
}

}  // namespace melee::proto
