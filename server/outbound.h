#pragma once

// A server message on its way to clients, with each of its frames encoded at most once.
//
// A match renders an event once for every way a viewer may see it (all four viewers share one
// rendering when the rules hide nothing in it), and every session that sends that rendering
// sends the same bytes: the binary frame is given when the bytes are at hand already (the match
// serializes each rendering once, for its recent events) or encoded by the first session that
// sends it; the text frame (protobuf JSON, for browsers and scripts) is encoded by the first
// text session. Sessions on different threads may ask at once: each frame is encoded once.
// A session queues the frame, not the message: the message tree is freed as soon as every
// session has its frame, while it is still warm in the cache (freeing trees after their writes
// cost more than encoding them twice).
//
// Not std::call_once: glibc's pthread_once wakes waiters with a futex system call every time a
// flag is first set, which made every message cost up to three system calls.

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "melee/v1/envelope.pb.h"
#include "proto/codec/frame.h"

namespace melee::server {

class Outbound {
 public:
  explicit Outbound(melee::v1::ServerMessage message);
  // `binary` must be `message` serialized (SerializeAsString or deterministically).
  Outbound(melee::v1::ServerMessage message, std::string binary);

  // A message known by its bytes only (`binary` must parse as a ServerMessage): its tree is
  // parsed the first time it is asked for (message(), or a text frame).
  static std::shared_ptr<const Outbound> FromBinary(std::string binary);

  Outbound(const Outbound&) = delete;
  Outbound& operator=(const Outbound&) = delete;

  const melee::v1::ServerMessage& message() const;

  // The message as a frame of `kind`, encoded the first time it is asked for.
  const std::shared_ptr<const std::string>& Frame(proto::FrameKind kind) const;

 private:
  Outbound() = default;

  // Each part is written once, under mutex_, before its flag is set (release); a reader that
  // sees the flag set (acquire) reads it without the lock.
  mutable std::mutex mutex_;
  mutable std::atomic<bool> has_tree_{false};
  mutable std::atomic<bool> has_binary_{false};
  mutable std::atomic<bool> has_text_{false};
  mutable melee::v1::ServerMessage message_;
  mutable std::shared_ptr<const std::string> binary_;
  mutable std::shared_ptr<const std::string> text_;
};

using MessagePtr = std::shared_ptr<const Outbound>;

// A message to send, shared and immutable from here on.
MessagePtr MakeMessage(melee::v1::ServerMessage message);

}  // namespace melee::server
