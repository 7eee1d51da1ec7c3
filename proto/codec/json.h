#pragma once

// The protobuf JSON mapping as Melee prints it everywhere: proto field names (`command_id`),
// one place so HTTP bodies, the CLI and text frames agree.

#include <google/protobuf/message.h>

#include <string>
#include <string_view>

namespace melee::proto {

enum class JsonStyle {
  kCompact,  // one line, default values omitted (text frames)
  kReport,   // one line, every field printed even when default (HTTP bodies)
  kPretty,   // indented, for people (CLI)
};

// Returns `message` in the protobuf JSON mapping. Never fails for Melee's messages (no Any).
std::string ToJson(const google::protobuf::Message& message, JsonStyle style = JsonStyle::kCompact);

// Reads `json` (the protobuf JSON mapping, strict: unknown fields are refused) into `message`.
// Returns an empty string on success, else what is wrong, e.g. "attacks[0].attackers: ...".
std::string FromJson(std::string_view json, google::protobuf::Message& message);

}  // namespace melee::proto
