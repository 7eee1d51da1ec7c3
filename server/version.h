#pragma once

namespace melee::server {

inline constexpr const char* kServerName = "melee-server";
inline constexpr const char* kServerVersion = "0.1.0";
// 2: a view leaves out forces the connection already holds (MatchView.forces_as_before).
inline constexpr unsigned kProtocolVersion = 2;
inline constexpr unsigned kMinProtocolVersion = 1;

}  // namespace melee::server
