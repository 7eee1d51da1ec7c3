#pragma once

// Ruleset-independent helpers of the match tests: the set-up confirmation every ruleset sends,
// and every frame a client received as bytes, for leak searches.

#include <string>

#include "melee/v1/envelope.pb.h"
#include "proto/codec/frame.h"
#include "tests/testing/match_client.h"

namespace melee::testing {

inline melee::v1::ClientMessage Confirm() {
  melee::v1::ClientMessage message;
  message.mutable_confirm_setup();
  return message;
}

// Every frame `client` received, in both encodings (binary protobuf and JSON text), so that a
// search finds a leaked value whichever encoding the seat uses.
inline std::string AllBytes(const MatchClient& client) {
  std::string all;
  for (const melee::v1::ServerMessage& message : client.received()) {
    all += proto::EncodeServerMessage(message, proto::FrameKind::kBinary);
    all += proto::EncodeServerMessage(message, proto::FrameKind::kText);
  }
  return all;
}

}  // namespace melee::testing
