#pragma once

namespace melee::server {

inline constexpr const char* kServerName = "melee-server";
inline constexpr const char* kServerVersion = "0.1.0";
inline constexpr unsigned kProtocolVersion = 1;
inline constexpr unsigned kMinProtocolVersion = 1;

}  // namespace melee::server
