#pragma once

// Translation of engine rule errors and frame errors into wire Errors.

#include <string>

#include "engine/core/result.h"
#include "melee/v1/common.pb.h"
#include "proto/codec/frame.h"

namespace melee::proto {

// Builds the wire Error for a rule the engine refused ("not supported: ..." becomes
// ERROR_CODE_NOT_SUPPORTED, every other refusal ERROR_CODE_RULE_VIOLATION).
melee::v1::Error ToWireError(const melee::engine::RuleError& error, std::string command_id);

// Builds the wire Error for a frame that could not be decoded.
melee::v1::Error ToWireError(const FrameError& error, std::string command_id);

// Builds a wire Error from its parts.
melee::v1::Error MakeError(melee::v1::ErrorCode code, std::string message,
                           std::string command_id = {}, std::string rule_ref = {});

}  // namespace melee::proto
