#include "engine/core/rational.h"

#include <cstdint>
#include <limits>

#include "engine/core/check.h"

namespace melee::engine {
namespace {

// Intermediate products of two int64 values need 127 bits; GCC and Clang provide them.
__extension__ using Int128 = __int128;
__extension__ using Uint128 = unsigned __int128;

Uint128 Magnitude(Int128 x) {
  return x < 0 ? Uint128{0} - static_cast<Uint128>(x) : static_cast<Uint128>(x);
}

uint64_t Gcd64(uint64_t a, uint64_t b) {
  while (b != 0) {
    const uint64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

Uint128 Gcd(Uint128 a, Uint128 b) {
  // 128-bit division is a slow library call: finish in 64 bits as soon as both operands fit.
  constexpr auto kMax64 = static_cast<Uint128>(std::numeric_limits<uint64_t>::max());
  while (b != 0 && (a > kMax64 || b > kMax64)) {
    const Uint128 r = a % b;
    a = b;
    b = r;
  }
  if (b == 0) return a;
  return Gcd64(static_cast<uint64_t>(a), static_cast<uint64_t>(b));
}

// A normalised numerator and denominator.
struct Parts {
  int64_t num;
  int64_t den;
};

// Returns the normalised parts of -n/d (negative) or n/d. Requires d != 0; checks the result fits.
Parts Normalise64(bool negative, uint64_t n, uint64_t d) {
  MELEE_CHECK_MSG(d != 0, "Rational division by zero");
  if (n == 0) return {0, 1};
  const uint64_t g = Gcd64(n, d);
  n /= g;
  d /= g;
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  MELEE_CHECK_MSG(d <= kMax, "Rational overflow: denominator does not fit in int64");
  MELEE_CHECK_MSG(n <= (negative ? kMax + 1 : kMax),
                  "Rational overflow: numerator does not fit in int64");
  // Two's complement negation of the magnitude; well defined for every n <= 2^63.
  return {negative ? static_cast<int64_t>(uint64_t{0} - n) : static_cast<int64_t>(n),
          static_cast<int64_t>(d)};
}

// Returns the normalised parts of num/den. Requires den != 0; checks the result fits.
Parts Normalise128(Int128 num, Int128 den) {
  MELEE_CHECK_MSG(den != 0, "Rational division by zero");
  const bool negative = (num < 0) != (den < 0);
  Uint128 n = Magnitude(num);
  Uint128 d = Magnitude(den);
  constexpr auto kMax64 = static_cast<Uint128>(std::numeric_limits<uint64_t>::max());
  if (n > kMax64 || d > kMax64) {  // Rare: reduce in 128 bits first (slow library division).
    const Uint128 g = Gcd(n, d);
    n /= g;
    d /= g;
    MELEE_CHECK_MSG(d <= kMax64, "Rational overflow: denominator does not fit in int64");
    MELEE_CHECK_MSG(n <= kMax64, "Rational overflow: numerator does not fit in int64");
  }
  return Normalise64(negative, static_cast<uint64_t>(n), static_cast<uint64_t>(d));
}

// Returns |x| as an unsigned value (correct for INT64_MIN).
uint64_t Magnitude64(int64_t x) {
  return x < 0 ? uint64_t{0} - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
}

}  // namespace

Rational::Rational(int64_t n, int64_t d) : num_(0), den_(1) {
  MELEE_CHECK_MSG(d != 0, "Rational with zero denominator");
  const Parts parts = Normalise64((n < 0) != (d < 0), Magnitude64(n), Magnitude64(d));
  num_ = parts.num;
  den_ = parts.den;
}

int64_t Rational::Floor() const {
  const int64_t q = num_ / den_;  // Truncates toward zero; cannot overflow because den_ >= 1.
  return (num_ % den_ != 0 && num_ < 0) ? q - 1 : q;
}

int64_t Rational::Ceil() const {
  const int64_t q = num_ / den_;
  return (num_ % den_ != 0 && num_ > 0) ? q + 1 : q;
}

Rational Rational::Half() const {
  const Parts parts = Normalise128(num_, Int128{den_} * 2);
  return Rational(parts.num, parts.den, Normalised{});
}

std::string Rational::ToString() const {
  if (den_ == 1) return std::to_string(num_);
  return std::to_string(num_) + "/" + std::to_string(den_);
}

std::string Rational::ToMixedString() const {
  if (den_ == 1) return std::to_string(num_);
  const uint64_t magnitude = Magnitude64(num_);
  const uint64_t den = static_cast<uint64_t>(den_);
  const uint64_t whole = magnitude / den;
  const uint64_t rest = magnitude % den;
  std::string out = num_ < 0 ? "-" : "";
  if (whole != 0) out += std::to_string(whole) + " ";
  out += std::to_string(rest) + "/" + std::to_string(den);
  return out;
}

Rational Rational::operator-() const {
  const Parts parts = Normalise128(-Int128{num_}, den_);
  return Rational(parts.num, parts.den, Normalised{});
}

Rational& Rational::operator+=(const Rational& other) {
  if (den_ == 1 && other.den_ == 1) {  // Integers: the common case, no gcd needed.
    MELEE_CHECK_MSG(!__builtin_add_overflow(num_, other.num_, &num_), "Rational overflow");
    return *this;
  }
  const Parts parts = Normalise128(Int128{num_} * other.den_ + Int128{other.num_} * den_,
                                   Int128{den_} * other.den_);
  num_ = parts.num;
  den_ = parts.den;
  return *this;
}

Rational& Rational::operator-=(const Rational& other) {
  if (den_ == 1 && other.den_ == 1) {  // Integers: the common case, no gcd needed.
    MELEE_CHECK_MSG(!__builtin_sub_overflow(num_, other.num_, &num_), "Rational overflow");
    return *this;
  }
  const Parts parts = Normalise128(Int128{num_} * other.den_ - Int128{other.num_} * den_,
                                   Int128{den_} * other.den_);
  num_ = parts.num;
  den_ = parts.den;
  return *this;
}

Rational& Rational::operator*=(const Rational& other) {
  if (den_ == 1 && other.den_ == 1) {  // Integers: the common case, no gcd needed.
    MELEE_CHECK_MSG(!__builtin_mul_overflow(num_, other.num_, &num_), "Rational overflow");
    return *this;
  }
  const Parts parts = Normalise128(Int128{num_} * other.num_, Int128{den_} * other.den_);
  num_ = parts.num;
  den_ = parts.den;
  return *this;
}

Rational& Rational::operator/=(const Rational& other) {
  MELEE_CHECK_MSG(other.num_ != 0, "Rational division by zero");
  const Parts parts = Normalise128(Int128{num_} * other.den_, Int128{den_} * other.num_);
  num_ = parts.num;
  den_ = parts.den;
  return *this;
}

std::strong_ordering operator<=>(const Rational& a, const Rational& b) {
  // Both denominators are positive, so cross-multiplying keeps the order; 128 bits cannot overflow.
  return Int128{a.num_} * b.den_ <=> Int128{b.num_} * a.den_;
}

}  // namespace melee::engine
