#include "proto/codec/errors.h"

#include <boost/locale/encoding_utf.hpp>
#include <utility>

namespace melee::proto {

melee::v1::Error MakeError(melee::v1::ErrorCode code, std::string message, std::string command_id,
                           std::string rule_ref) {
  melee::v1::Error error;
  error.set_code(code);
  // A message may quote untrusted bytes (a request's path, a cut id) that are not UTF-8: those
  // are dropped, since a string field must be UTF-8 (a client's protobuf refuses the whole
  // message otherwise, and JSON must be UTF-8).
  error.set_message(boost::locale::conv::utf_to_utf<char>(message));
  error.set_command_id(std::move(command_id));
  error.set_rule_ref(std::move(rule_ref));
  return error;
}

melee::v1::Error ToWireError(const melee::engine::RuleError& error, std::string command_id) {
  const bool unsupported = error.message.rfind("not supported", 0) == 0;
  return MakeError(
      unsupported ? melee::v1::ERROR_CODE_NOT_SUPPORTED : melee::v1::ERROR_CODE_RULE_VIOLATION,
      error.message, std::move(command_id), error.rule_ref);
}

melee::v1::Error ToWireError(const FrameError& error, std::string command_id) {
  return MakeError(error.code, error.message, std::move(command_id));
}

}  // namespace melee::proto
