#include "proto/codec/frame.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/unknown_field_set.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "proto/codec/json.h"

namespace melee::proto {
namespace {

namespace pb = google::protobuf;

// Lists the unknown top-level field numbers of a parsed message, e.g. " (unknown fields: 99)".
std::string DescribeUnknownFields(const pb::Message& message) {
  const pb::UnknownFieldSet& unknown = message.GetReflection()->GetUnknownFields(message);
  if (unknown.empty()) return "";
  std::vector<int> numbers;
  for (int i = 0; i < unknown.field_count(); ++i) numbers.push_back(unknown.field(i).number());
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  std::string out = " (unknown field numbers:";
  for (int n : numbers) out += " " + std::to_string(n);
  return out + ")";
}

using google::protobuf::internal::WireFormatLite;

// Returns false only when `bytes`, a serialized `type` that parsed, holds no field protobuf's
// parser would keep as an unknown field, at any depth: a field number `type` does not have, or a
// known one on another wire type (packed and unpacked repeated scalars are both known). In doubt
// (a group, an enum of a proto2 file, whose unknown values are kept aside) it returns true, and
// the caller walks the parsed message instead. This reads the bytes once, with the descriptors;
// Message::DiscardUnknownFields walks every set field of every message by reflection (skipping
// it took a command's decoding from ~11.6k to ~7.6k instructions under callgrind).
bool MayHoldUnknownFields(std::string_view bytes, const pb::Descriptor& type, int depth = 0) {
  if (depth > 100) return true;  // deeper than protobuf's own parser goes
  pb::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                 static_cast<int>(bytes.size()));
  while (const uint32_t tag = input.ReadTag()) {
    const pb::FieldDescriptor* field = type.FindFieldByNumber(static_cast<int>(tag >> 3));
    if (field == nullptr) return true;
    const auto wire = WireFormatLite::GetTagWireType(tag);
    const auto expected =
        WireFormatLite::WireTypeForFieldType(static_cast<WireFormatLite::FieldType>(field->type()));
    if (field->type() == pb::FieldDescriptor::TYPE_GROUP ||
        (field->enum_type() != nullptr &&
         field->enum_type()->file()->syntax() != pb::FileDescriptor::SYNTAX_PROTO3)) {
      return true;
    }
    const bool packed = field->is_packable() && wire == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
    if (wire != expected && !packed) return true;
    if (field->type() == pb::FieldDescriptor::TYPE_MESSAGE) {
      uint32_t size = 0;
      const void* data = nullptr;
      int available = 0;
      if (!input.ReadVarint32(&size) || !input.GetDirectBufferPointer(&data, &available) ||
          static_cast<uint32_t>(available) < size) {
        return true;
      }
      if (MayHoldUnknownFields({static_cast<const char*>(data), size}, *field->message_type(),
                               depth + 1)) {
        return true;
      }
      input.Skip(static_cast<int>(size));
    } else if (!WireFormatLite::SkipField(&input, tag)) {
      return true;
    }
  }
  return !input.ConsumedEntireMessage() ||
         input.CurrentPosition() != static_cast<int>(bytes.size());
}

// Parses `frame` into `message`; `what` names the envelope in error messages. `is_empty`
// tells whether the parsed envelope holds no payload this protocol knows.
template <class Message, class IsEmpty>
tl::expected<Message, FrameError> Decode(std::string_view frame, FrameKind kind,
                                         std::string_view what, IsEmpty is_empty) {
  Message message;
  if (kind == FrameKind::kBinary) {
    if (!message.ParseFromArray(frame.data(), static_cast<int>(frame.size()))) {
      return tl::unexpected(FrameError{melee::v1::ERROR_CODE_MALFORMED_FRAME,
                                       "binary frame of " + std::to_string(frame.size()) +
                                           " bytes is not a valid " + std::string(what) +
                                           " (protobuf parse failed)"});
    }
    if (is_empty(message)) {
      return tl::unexpected(FrameError{melee::v1::ERROR_CODE_UNKNOWN_MESSAGE,
                                       std::string(what) + " carries no message this protocol " +
                                           "knows" + DescribeUnknownFields(message)});
    }
    return message;
  }

  pb::util::JsonParseOptions strict;
  const pb::util::Status status = pb::util::JsonStringToMessage(frame, &message, strict);
  if (status.ok()) {
    if (is_empty(message)) {
      return tl::unexpected(
          FrameError{melee::v1::ERROR_CODE_UNKNOWN_MESSAGE,
                     std::string(what) + " carries no message this protocol knows"});
    }
    return message;
  }
  // Not strictly valid. If it is valid JSON apart from unknown fields and names no known
  // message, it is a message from a newer protocol: say so rather than "malformed".
  Message lenient;
  pb::util::JsonParseOptions ignore_unknown;
  ignore_unknown.ignore_unknown_fields = true;
  if (pb::util::JsonStringToMessage(frame, &lenient, ignore_unknown).ok() && is_empty(lenient)) {
    return tl::unexpected(FrameError{
        melee::v1::ERROR_CODE_UNKNOWN_MESSAGE,
        std::string(what) +
            " carries no message this protocol knows: " + std::string(status.message())});
  }
  return tl::unexpected(
      FrameError{melee::v1::ERROR_CODE_MALFORMED_FRAME,
                 "text frame is not a valid " + std::string(what) +
                     " in the protobuf JSON mapping: " + std::string(status.message())});
}

std::string Encode(const pb::Message& message, FrameKind kind) {
  if (kind == FrameKind::kBinary) return message.SerializeAsString();
  return ToJson(message, JsonStyle::kCompact);
}

}  // namespace

tl::expected<melee::v1::ClientMessage, FrameError> DecodeClientMessage(std::string_view frame,
                                                                       FrameKind kind) {
  auto decoded =
      Decode<melee::v1::ClientMessage>(frame, kind, "ClientMessage", [](const auto& m) {
        return m.command_case() == melee::v1::ClientMessage::COMMAND_NOT_SET;
      });
  // Fields this protocol does not know are dropped, at every depth, as the JSON mapping refuses
  // them: the server cannot check or mask what it does not know, and a command's parts are
  // stored and shown to the other seats (a set-up part is).
  if (decoded && (kind == FrameKind::kText ||
                  MayHoldUnknownFields(frame, *melee::v1::ClientMessage::descriptor()))) {
    decoded->DiscardUnknownFields();
  }
  return decoded;
}

tl::expected<melee::v1::ServerMessage, FrameError> DecodeServerMessage(std::string_view frame,
                                                                       FrameKind kind) {
  return Decode<melee::v1::ServerMessage>(frame, kind, "ServerMessage", [](const auto& m) {
    return m.message_case() == melee::v1::ServerMessage::MESSAGE_NOT_SET;
  });
}

std::string EncodeServerMessage(const melee::v1::ServerMessage& message, FrameKind kind) {
  return Encode(message, kind);
}

std::string EncodeClientMessage(const melee::v1::ClientMessage& message, FrameKind kind) {
  return Encode(message, kind);
}

std::string SerializeDeterministic(const google::protobuf::MessageLite& message) {
  // Sized first, then written in one pass into a string of that size: a StringOutputStream
  // grows its string a doubling at a time, zeroing each new part, and the message is written
  // through the buffered slow path across the parts (every logged event passes here).
  const size_t size = message.ByteSizeLong();
  std::string bytes(size, '\0');
  {
    google::protobuf::io::ArrayOutputStream array(bytes.data(), static_cast<int>(size));
    google::protobuf::io::CodedOutputStream coded(&array);
    coded.SetSerializationDeterministic(true);
    message.SerializeWithCachedSizes(&coded);
    if (coded.HadError() || static_cast<size_t>(coded.ByteCount()) != size) {
      throw std::logic_error("SerializeDeterministic: the message changed while it was written");
    }
  }
  return bytes;
}

std::string SerializeDeterministicWith(const google::protobuf::MessageLite& message,
                                       int field_number, std::string_view bytes) {
  using google::protobuf::internal::WireFormatLite;
  using google::protobuf::io::CodedOutputStream;
  const size_t size = message.ByteSizeLong();
  const uint32_t tag =
      WireFormatLite::MakeTag(field_number, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  const size_t field = CodedOutputStream::VarintSize32(tag) +
                       CodedOutputStream::VarintSize32(static_cast<uint32_t>(bytes.size())) +
                       bytes.size();
  std::string out(size + field, '\0');
  {
    google::protobuf::io::ArrayOutputStream array(out.data(), static_cast<int>(out.size()));
    google::protobuf::io::CodedOutputStream coded(&array);
    coded.SetSerializationDeterministic(true);
    message.SerializeWithCachedSizes(&coded);
    coded.WriteTag(tag);
    coded.WriteVarint32(static_cast<uint32_t>(bytes.size()));
    coded.WriteRaw(bytes.data(), static_cast<int>(bytes.size()));
    if (coded.HadError() || static_cast<size_t>(coded.ByteCount()) != out.size()) {
      throw std::logic_error(
          "SerializeDeterministicWith: the message changed while it was written");
    }
  }
  return out;
}

std::string LengthDelimited(int field_number, std::string_view bytes) {
  using google::protobuf::internal::WireFormatLite;
  std::string out;
  out.reserve(bytes.size() + 10);
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.WriteTag(
        WireFormatLite::MakeTag(field_number, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
    coded.WriteVarint32(static_cast<uint32_t>(bytes.size()));
    coded.WriteRaw(bytes.data(), static_cast<int>(bytes.size()));
  }
  return out;
}

void WriteSubmessage(int field_number, const google::protobuf::MessageLite& message,
                     google::protobuf::io::CodedOutputStream& out) {
  using google::protobuf::internal::WireFormatLite;
  out.WriteTag(WireFormatLite::MakeTag(field_number, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
  out.WriteVarint32(static_cast<uint32_t>(message.ByteSizeLong()));
  message.SerializeWithCachedSizes(&out);
}

}  // namespace melee::proto
