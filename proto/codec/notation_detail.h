#pragma once

// The words every counter notation is made of (docs/counter-notation.md), shared by the
// ruleset readers (notation_asl.cc, notation_vv.cc, notation_coc.cc) and the roster reader
// (notation.cc): tokens, numbers, key=value, quoting, and printed counter values ("4-6-7",
// "8-1"). Internal to proto/codec.

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/result.h"
#include "melee/asl/v1/asl.pb.h"
#include "proto/codec/checks.h"

namespace melee::proto::notation_detail {

using engine::Reject;
using engine::Result;
using engine::RuleError;

// ---- words ------------------------------------------------------------------------------------

// One word of a notation: as written (quotes removed), and lower-cased for keywords.
struct Token {
  std::string text;
  std::string word;
  bool quoted = false;
  bool separator = false;  // one of the separators Tokenize was given
};

inline std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Returns `text` as a player sees it in an error: at most 32 bytes, in single quotes.
inline std::string Shown(std::string_view text) {
  std::string out = "'";
  for (char c : text.substr(0, 32)) {
    const auto byte = static_cast<unsigned char>(c);
    out += byte >= 0x20 && byte != 0x7F ? c : '?';
  }
  return out + (text.size() > 32 ? "...'" : "'");
}

inline bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Splits `text` into words: whitespace separates them, "..." is one word (a name), and each
// character of `separators` is a word of its own.
inline Result<std::vector<Token>> Tokenize(std::string_view text, std::string_view separators) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (IsSpace(c)) {
      ++i;
    } else if (c == '"') {
      const size_t close = text.find('"', i + 1);
      if (close == std::string_view::npos) {
        return Reject("", "a name in quotes has no closing \": " + Shown(text.substr(i)));
      }
      Token token;
      token.text = std::string(text.substr(i + 1, close - i - 1));
      token.word = Lower(token.text);
      token.quoted = true;
      tokens.push_back(std::move(token));
      i = close + 1;
    } else if (separators.find(c) != std::string_view::npos) {
      tokens.push_back(Token{std::string(1, c), std::string(1, c), false, true});
      ++i;
    } else {
      size_t end = i;
      // A key=value word keeps the commas of its list: malfunctioned=cmg,sn.
      const auto in_list = [&](size_t at) {
        return text[at] == ',' && at + 1 < text.size() && !IsSpace(text[at + 1]) &&
               text.substr(i, at - i).find('=') != std::string_view::npos;
      };
      while (end < text.size() && !IsSpace(text[end]) && text[end] != '"' &&
             (separators.find(text[end]) == std::string_view::npos || in_list(end))) {
        ++end;
      }
      Token token;
      token.text = std::string(text.substr(i, end - i));
      token.word = Lower(token.text);
      tokens.push_back(std::move(token));
      i = end;
    }
  }
  return tokens;
}

// A non-negative decimal number of at most 4 digits.
inline std::optional<int> Number(std::string_view text) {
  if (text.empty() || text.size() > 4) return std::nullopt;
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// Reads the number of `key=value` word `token`, in `low`..`high`.
inline Result<int> KeyNumber(const Token& token, std::string_view value, int low, int high) {
  const std::optional<int> number = Number(value);
  const std::string key = token.word.substr(0, token.word.find('='));
  if (!number) return Reject("", Shown(token.text) + ": " + key + " must be a number");
  if (*number < low || *number > high) {
    return Reject("", Shown(token.text) + ": " + key + " " + std::to_string(*number) +
                          " is out of range " + std::to_string(low) + ".." + std::to_string(high));
  }
  return *number;
}

// Splits "key=value"; nothing when the word has no '='.
inline std::optional<std::pair<std::string, std::string>> KeyValue(const Token& token) {
  if (token.quoted) return std::nullopt;
  const size_t equals = token.word.find('=');
  if (equals == std::string::npos) return std::nullopt;
  return std::pair{token.word.substr(0, equals), token.text.substr(equals + 1)};
}

inline Result<void> CheckWordId(const Token& token, std::string_view what) {
  if (token.quoted || token.separator) {
    return Reject("", std::string(what) + " needs an id, not " + Shown(token.text));
  }
  if (auto ok = checks::CheckId(token.text, std::string(what), 32); !ok) {
    return tl::unexpected(ok.error());
  }
  return {};
}

inline std::string Unknown(const Token& token, std::string_view ruleset) {
  return Shown(token.text) + " is not a word of the " + std::string(ruleset) +
         " notation (docs/counter-notation.md)";
}

// A name as the formatters write it: bare when it is one plain word that is not `keyword`,
// else in quotes (a quote inside a name becomes ').
inline std::string Quoted(std::string name) {
  std::replace(name.begin(), name.end(), '"', '\'');
  return "\"" + name + "\"";
}

inline std::string Join(const std::vector<std::string>& parts, std::string_view separator = " ") {
  std::string out;
  for (const std::string& part : parts) {
    if (part.empty()) continue;
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

// "4-6-7 Rifles" -> {"4-6-7", "Rifles"}: the first word of a name, and the rest.
inline std::pair<std::string, std::string> FirstWord(std::string_view name) {
  size_t begin = 0;
  while (begin < name.size() && IsSpace(name[begin])) ++begin;
  size_t end = begin;
  while (end < name.size() && !IsSpace(name[end])) ++end;
  size_t rest = end;
  while (rest < name.size() && IsSpace(name[rest])) ++rest;
  return {std::string(name.substr(begin, end - begin)), std::string(name.substr(rest))};
}

inline std::string Label(const std::string& counter, const std::string& label) {
  if (counter.empty()) return label;
  return label.empty() ? counter : counter + " " + label;
}

// ---- printed counters ---------------------------------------------------------------------------

// "A-B-C" with B a number or "?" (unknown), optionally "/D-E-F" (the back of the counter).
struct Printed {
  int first = 0;
  int range = -1;  // -1: "?"
  int last = 0;
  bool has_back = false;
  int back_first = 0;
  int back_range = -1;
  int back_last = 0;

  std::string Front() const {
    return std::to_string(first) + "-" + (range < 0 ? "?" : std::to_string(range)) + "-" +
           std::to_string(last);
  }
};

inline bool ParseThree(std::string_view text, int& first, int& range, int& last) {
  const size_t a = text.find('-');
  if (a == std::string_view::npos) return false;
  const size_t b = text.find('-', a + 1);
  if (b == std::string_view::npos || text.find('-', b + 1) != std::string_view::npos) return false;
  const auto f = Number(text.substr(0, a));
  const std::string_view middle = text.substr(a + 1, b - a - 1);
  const auto r = middle == "?" ? std::optional<int>(-1) : Number(middle);
  const auto l = Number(text.substr(b + 1));
  if (!f || !r || !l) return false;
  first = *f;
  range = *r;
  last = *l;
  return true;
}

// Reads "A-B-C[/D-E-F]"; nothing when `text` is not of that form.
inline std::optional<Printed> ParsePrinted(std::string_view text) {
  Printed printed;
  const size_t slash = text.find('/');
  if (!ParseThree(text.substr(0, slash), printed.first, printed.range, printed.last)) {
    return std::nullopt;
  }
  if (slash != std::string_view::npos) {
    printed.has_back = true;
    if (!ParseThree(text.substr(slash + 1), printed.back_first, printed.back_range,
                    printed.back_last)) {
      return std::nullopt;
    }
  }
  return printed;
}

// An ASL leader's "ML-leadership": "8-1" is ML 8 and leadership -1, "6+1" ML 6 and +1.
struct LeaderCounter {
  int morale = 0;
  int leadership = 0;
};

inline std::optional<LeaderCounter> ParseLeaderCounter(std::string_view text) {
  const size_t sign = text.find_first_of("+-");
  if (sign == std::string_view::npos || sign == 0) return std::nullopt;
  const auto morale = Number(text.substr(0, sign));
  const auto drm = Number(text.substr(sign + 1));
  if (!morale || !drm) return std::nullopt;
  return LeaderCounter{*morale, text[sign] == '-' ? -*drm : *drm};
}

inline std::string LeaderText(int morale, int leadership) {
  return std::to_string(morale) + (leadership > 0 ? "+" : "-") +
         std::to_string(std::abs(leadership));
}

inline bool StartsWithDigit(std::string_view text) {
  return !text.empty() && std::isdigit(static_cast<unsigned char>(text[0])) != 0;
}

inline Result<void> InRange(const Token& token, std::string_view what, int value, int low, int high,
                     std::string_view rule = "") {
  if (value < low || value > high) {
    return Reject(std::string(rule), Shown(token.text) + ": " + std::string(what) + " " +
                                         std::to_string(value) + " is out of range " +
                                         std::to_string(low) + ".." + std::to_string(high));
  }
  return {};
}


// The nationality a roster's word names ("german", "soviet", ...), from notation_asl.cc.
std::optional<melee::asl::v1::Nationality> AslNationality(std::string_view word);

}  // namespace melee::proto::notation_detail
