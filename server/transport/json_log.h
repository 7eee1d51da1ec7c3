#pragma once

// Structured logs: `--log-format json` makes every log line one JSON object
//   {"time":"2026-11-22T21:37:52.013Z","level":"info","thread":1234,"msg":"..."}
// for log shippers. The message is JSON-escaped by a custom spdlog flag (%*).

namespace melee::server {

// Switches the default spdlog logger to one JSON object per line (UTC timestamps).
void UseJsonLogs();

}  // namespace melee::server
