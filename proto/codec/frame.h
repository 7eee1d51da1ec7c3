#pragma once

// Frame codec: WebSocket frame bytes <-> envelope messages.
//
// A binary frame carries the protobuf encoding of a message; a text frame carries its protobuf
// JSON mapping (so a browser or a script needs no protobuf runtime). Decoding never throws and
// never trusts its input: every failure is a FrameError naming the problem.

#include <google/protobuf/io/coded_stream.h>

#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "melee/v1/envelope.pb.h"

namespace melee::proto {

// How a message travels in a WebSocket frame.
enum class FrameKind { kBinary, kText };

// Why a frame could not be turned into a message.
struct FrameError {
  melee::v1::ErrorCode code = melee::v1::ERROR_CODE_MALFORMED_FRAME;
  std::string message;
};

// Decodes a frame from a client. An empty envelope (no command this protocol knows, e.g. a
// newer client's command) is ERROR_CODE_UNKNOWN_MESSAGE; bytes that are not a ClientMessage at
// all are ERROR_CODE_MALFORMED_FRAME. The caller enforces size limits before calling.
tl::expected<melee::v1::ClientMessage, FrameError> DecodeClientMessage(std::string_view frame,
                                                                       FrameKind kind);

// Decodes a frame from the server (used by clients and tests).
tl::expected<melee::v1::ServerMessage, FrameError> DecodeServerMessage(std::string_view frame,
                                                                       FrameKind kind);

// Encodes a message for a frame of the given kind (JSON uses proto field names).
std::string EncodeServerMessage(const melee::v1::ServerMessage& message, FrameKind kind);
std::string EncodeClientMessage(const melee::v1::ClientMessage& message, FrameKind kind);

// Returns `message` serialized deterministically (map entries sorted), so that equal messages
// give equal bytes: what the event log hashes and what receipts are computed over.
std::string SerializeDeterministic(const google::protobuf::MessageLite& message);

// Returns `message` serialized deterministically, then `bytes` as its length-delimited field
// `field_number`, in one string: the deterministic serialization of `message` with that field set
// to the submessage whose bytes are `bytes`, when `field_number` is above every field `message`
// has set (protobuf writes fields in number order). So a message can carry a submessage already
// serialized (a logged event) without parsing it into a tree and serializing it again.
std::string SerializeDeterministicWith(const google::protobuf::MessageLite& message,
                                       int field_number, std::string_view bytes);

// Returns `bytes` as field `field_number` of a message, length-delimited (tag, length, bytes):
// the serialization of a message whose only field is the submessage serialized as `bytes`.
std::string LengthDelimited(int field_number, std::string_view bytes);

// Writes `message` to `out` as field `field_number` (tag, length, bytes) of the message being
// written there: its bytes as if that message held it in that field.
void WriteSubmessage(int field_number, const google::protobuf::MessageLite& message,
                     google::protobuf::io::CodedOutputStream& out);

}  // namespace melee::proto
