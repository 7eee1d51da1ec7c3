#pragma once

// The value checks every ruleset codec makes on untrusted input (asl.cc, coc.cc, vv.cc): each
// failure is a RuleError with no rule, "<field>: <what is wrong>". Internal to proto/codec, but for
// Quoted, which the server uses too for every untrusted id it echoes back.

#include <google/protobuf/repeated_ptr_field.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/core/dice.h"
#include "engine/core/rational.h"
#include "engine/core/result.h"
#include "melee/v1/common.pb.h"
#include "proto/codec/field.h"

namespace melee::proto::checks {

// Returns the error "`field`: `problem`" for untrusted input (no rule: the input is malformed).
inline tl::unexpected<engine::RuleError> Bad(const Field& field, const std::string& problem) {
  return engine::Reject("", field.Text() + ": " + problem);
}

// Quotes at most the first 32 bytes of untrusted `value` for an error message, cut before a
// character rather than inside it (error messages are UTF-8).
inline std::string Quoted(std::string_view value) {
  std::string out = "\"";
  size_t cut = std::min<size_t>(value.size(), 32);
  while (cut > 0 && cut < value.size() && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) {
    --cut;  // value[cut] continues a character: cut before the character
  }
  for (char c : value.substr(0, cut)) {
    const auto byte = static_cast<unsigned char>(c);
    out += byte >= 0x20 && byte != 0x7F ? c : '?';
  }
  return out + (value.size() > cut ? "...\"" : "\"");
}

// An id: 1..`max_bytes` printable ASCII characters without spaces (ids appear in reports and on
// command lines).
inline engine::Result<void> CheckId(std::string_view id, const Field& field, size_t max_bytes) {
  bool printable = !id.empty() && id.size() <= max_bytes;
  for (char c : id) printable = printable && c > 0x20 && c < 0x7F;
  if (!printable) {
    return Bad(field, Quoted(id) + " is not a unit id: ids are 1.." + std::to_string(max_bytes) +
                          " printable ASCII characters without spaces");
  }
  return {};
}

// An optional id: "" or CheckId.
inline engine::Result<void> CheckOptionalId(std::string_view id, const Field& field,
                                            size_t max_bytes) {
  return id.empty() ? engine::Result<void>{} : CheckId(id, field, max_bytes);
}

// Free text shown in reports: at most `max_bytes`, no control characters.
inline engine::Result<void> CheckText(std::string_view text, const Field& field, size_t max_bytes) {
  if (text.size() > max_bytes) return Bad(field, "at most " + std::to_string(max_bytes) + " bytes");
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) return Bad(field, "control characters are not allowed");
  }
  return {};
}

inline engine::Result<void> CheckRange(int64_t value, int64_t low, int64_t high,
                                       const Field& field) {
  if (value < low || value > high) {
    return Bad(field, std::to_string(value) + " is out of range " + std::to_string(low) + ".." +
                          std::to_string(high));
  }
  return {};
}

// Returns `value` as a Probability message (`exact` fraction, `percent` rounded to 2 decimals).
template <class Probability>
Probability ProbabilityOf(const engine::Rational& value) {
  Probability out;
  out.set_exact(value.ToString());
  const long double percent =
      static_cast<long double>(value.num()) * 100.0L / static_cast<long double>(value.den());
  out.set_percent(static_cast<double>(std::round(percent * 100.0L) / 100.0L));
  return out;
}

// Returns a die the engine rolled as the log and the reports show it.
inline melee::v1::DieRoll DieToProto(const engine::DieRoll& roll) {
  melee::v1::DieRoll out;
  out.set_purpose(roll.purpose);
  out.set_color(roll.color == engine::DieColor::kColored ? melee::v1::DieRoll::COLOR_COLORED
                : roll.color == engine::DieColor::kWhite ? melee::v1::DieRoll::COLOR_WHITE
                                                         : melee::v1::DieRoll::COLOR_SINGLE);
  out.set_value(static_cast<uint32_t>(roll.value));
  return out;
}

}  // namespace melee::proto::checks
