#include "proto/codec/json.h"

#include <google/protobuf/util/json_util.h>

namespace melee::proto {

std::string ToJson(const google::protobuf::Message& message, JsonStyle style) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = style == JsonStyle::kReport;
  options.add_whitespace = style == JsonStyle::kPretty;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

std::string FromJson(std::string_view json, google::protobuf::Message& message) {
  message.Clear();
  const google::protobuf::util::JsonParseOptions strict;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &message, strict);
  if (status.ok()) return {};
  const std::string problem(status.message());
  return problem.empty() ? "not valid JSON for " + message.GetTypeName() : problem;
}

}  // namespace melee::proto
