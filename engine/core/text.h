#pragma once

// Text built in one string: Append(out, pieces...) and Concat(pieces...) write strings, string
// views, C strings, single characters and integers (in decimal, as std::to_string writes them)
// one after the other, after reserving room for all of them.
//
//   Append(text, "; DR ", roll.Total(), " (coloured ", roll.colored, ")");
//
// where `text += "; DR " + std::to_string(roll.Total()) + " (coloured " + ...` makes a string
// for each `+` and copies the text so far into each (an event's account is a few hundred bytes
// made of a dozen pieces: its `+`s were most of what describing it cost).

#include <charconv>
#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

namespace melee::engine {
namespace text_detail {

template <class T>
concept Integer = std::integral<T> && !std::same_as<T, char> && !std::same_as<T, bool>;

inline size_t MaxSize(std::string_view piece) { return piece.size(); }
inline size_t MaxSize(const char* piece) { return std::char_traits<char>::length(piece); }
inline size_t MaxSize(char) { return 1; }
template <Integer T>
size_t MaxSize(T) {
  return 20;  // the digits of a 64-bit integer, or 19 and a sign
}

inline void Put(std::string& out, std::string_view piece) { out.append(piece); }
inline void Put(std::string& out, const char* piece) { out.append(piece); }  // not as a bool
inline void Put(std::string& out, char piece) { out.push_back(piece); }
template <Integer T>
void Put(std::string& out, T value) {
  char digits[24];
  const auto written = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, written.ptr);
}
void Put(std::string& out, bool) = delete;  // a bool is no text: say what it means

}  // namespace text_detail

template <class... Pieces>
void Append(std::string& out, const Pieces&... pieces) {
  out.reserve(out.size() + (text_detail::MaxSize(pieces) + ... + 0));
  (text_detail::Put(out, pieces), ...);
}

template <class... Pieces>
std::string Concat(const Pieces&... pieces) {
  std::string out;
  Append(out, pieces...);
  return out;
}

}  // namespace melee::engine
