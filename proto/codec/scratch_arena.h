#pragma once

// A protobuf arena for messages that are built, serialized and dropped on one thread (an event
// the server logs): their parts come from a block of memory the thread keeps, so that building
// one allocates nothing but its strings too long to fit in a std::string, and dropping them all
// at once frees nothing. (A message kept and cleared instead keeps its repeated fields and
// strings, but a proto3 message's Clear() deletes its singular sub-messages.)

#include <google/protobuf/arena.h>

#include <cstddef>

namespace melee::proto {

class ScratchArena {
 public:
  // Takes this thread's block, or, when a ScratchArena already holds it on this thread, none
  // (the arena then allocates its blocks as any arena does).
  ScratchArena();
  ~ScratchArena();
  ScratchArena(const ScratchArena&) = delete;
  ScratchArena& operator=(const ScratchArena&) = delete;

  // A new, empty message on the arena, valid while the arena lives.
  template <class Message>
  Message& Create() {
    return *google::protobuf::Arena::CreateMessage<Message>(&arena_);
  }

  // The size of the block each thread keeps.
  static constexpr size_t kBlockBytes = 32 * 1024;

 private:
  bool holds_block_;
  google::protobuf::Arena arena_;
};

}  // namespace melee::proto
