// libFuzzer's entry point of fuzz_match_file: see FuzzMatchFile in tests/fuzz/targets.h.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  melee::fuzz::FuzzMatchFile(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
