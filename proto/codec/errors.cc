#include "proto/codec/errors.h"

#include <utility>

namespace melee::proto {

melee::v1::Error MakeError(melee::v1::ErrorCode code, std::string message, std::string command_id,
                           std::string rule_ref) {
  melee::v1::Error error;
  error.set_code(code);
  error.set_message(std::move(message));
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
