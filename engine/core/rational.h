#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace melee::engine {

// An exact fraction num/den of 64-bit integers, always normalised: den > 0 and gcd(num, den) == 1,
// so equal values have equal representations. Used where the rules divide: ASL firepower that is
// halved more than once (5 -> 5/2 -> 5/4), V&V attack:defence odds (7:3 is 7/3, whose Floor picks
// the printed 2:1 column). Rules values never use floating point.
//
// Arithmetic is exact. A result that does not fit in 64 bits, or a division by zero, is a bug and
// fails a MELEE_CHECK (rules values are small; untrusted input must be range-checked first).
// A value type; thread-compatible.
class Rational {
 public:
  // Creates the integer `n` (implicit, so `Rational r = 5;` and `r < 2` read naturally).
  Rational(int64_t n = 0) : num_(n), den_(1) {}  // NOLINT(google-explicit-constructor)
  // Creates n/d, normalised. Requires d != 0 and the normalised value to fit (not INT64_MIN/-1).
  Rational(int64_t n, int64_t d);

  // Returns the numerator (carries the sign).
  int64_t num() const { return num_; }
  // Returns the denominator, always > 0.
  int64_t den() const { return den_; }

  // Returns the largest integer <= *this (Floor of -5/2 is -3).
  int64_t Floor() const;
  // Returns the smallest integer >= *this (Ceil of -5/2 is -2).
  int64_t Ceil() const;
  // Returns *this / 2, exactly: Half of 5 is 5/2, Half of 5/2 is 5/4 (ASL halves FP cumulatively).
  Rational Half() const;
  // Returns true when den() == 1.
  bool IsInteger() const { return den_ == 1; }

  // Returns "5", "5/2" or "-3/4".
  std::string ToString() const;
  // Returns the mixed-number form ASL prints: "2 1/2" for 5/2, "-1 1/4" for -5/4, "3/4", "5".
  std::string ToMixedString() const;

  Rational operator-() const;
  Rational& operator+=(const Rational& other);
  Rational& operator-=(const Rational& other);
  Rational& operator*=(const Rational& other);
  // Divides by `other`; requires other != 0.
  Rational& operator/=(const Rational& other);

  friend Rational operator+(Rational a, const Rational& b) { return a += b; }
  friend Rational operator-(Rational a, const Rational& b) { return a -= b; }
  friend Rational operator*(Rational a, const Rational& b) { return a *= b; }
  friend Rational operator/(Rational a, const Rational& b) { return a /= b; }

  // Normalisation makes member-wise equality exact equality.
  friend bool operator==(const Rational&, const Rational&) = default;
  // Compares exactly (never overflows).
  friend std::strong_ordering operator<=>(const Rational& a, const Rational& b);

 private:
  struct Normalised {};
  Rational(int64_t n, int64_t d, Normalised) : num_(n), den_(d) {}

  int64_t num_;
  int64_t den_;
};

}  // namespace melee::engine
