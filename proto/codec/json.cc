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

}  // namespace melee::proto
