#pragma once

// Small text checks the tests share (one definition, so that a test folder compiled as one
// translation unit, CMake's unity build, meets each helper once).

#include <string_view>

namespace melee::testing {

// Whether `part` occurs in `text`.
inline bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace melee::testing
