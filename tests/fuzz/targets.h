#pragma once

// The fuzz targets (docs/fuzzing.md): each takes arbitrary bytes, runs them through one surface
// of Melee that reads untrusted input, and checks what must hold whatever the bytes. A broken
// invariant aborts (MELEE_CHECK), as does anything the sanitizers catch.
//
// The libFuzzer entry points (fuzz_*.cc) call these, and so does the normal test suite, on the
// seed corpora and every crash's reproducer (replay_test.cc), so a target cannot rot unseen.
// Each returns what its input reached, which the replay test uses to check that the seeds still
// reach the code behind the parsers.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace melee::fuzz {

// How far one input went.
struct Reached {
  size_t parsed = 0;    // units that parsed: frames, commands, requests, files
  size_t accepted = 0;  // those the server or the rules accepted (a command applied, a 2xx, a
                        // file that verifies)
};

// Frames from WebSocket clients: decoded (binary or JSON), then handed to the dispatcher of an
// in-process server whose matches are real (frame_target.cc gives the input's layout).
Reached FuzzFrame(std::string_view input);

// A ruleset's command codec and Decide/Apply on states reached by playing the ruleset's examples
// (ruleset_target.cc gives the input's layout).
Reached FuzzRuleset(std::string_view input);

// For the seeds of FuzzRuleset: how many reachable states `ruleset` (0 asl, 1 coc, 2 vv) starts
// from, and the rules defaults in the `state`-th of them: for each seat the rules wait for, the
// seat (0 side_a, 1 side_b) and the logged Command message.
size_t RulesetStates(size_t ruleset);
std::vector<std::pair<int, std::string>> RulesetDefaults(size_t ruleset, size_t state);

// A match file (its JSON form) through the parser and `melee verify`'s VerifyMatchFile.
Reached FuzzMatchFile(std::string_view input);

// Bytes from an HTTP client: Beast's request parser as the server sets it up, then the server's
// routes (HandleHttpRequest) of an in-process server.
Reached FuzzHttp(std::string_view input);

}  // namespace melee::fuzz
