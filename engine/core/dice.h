#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace melee::engine {

// Which die of a roll a value came from. ASL reads the coloured die of a DR on its own
// (A11.13: a coloured dr of 6 can eliminate a SW), so a two-dice roll keeps both dice apart.
enum class DieColor : uint8_t {
  kSingle,   // A lone d6 (a "dr"), or one die of a pool.
  kColored,  // The coloured die of a DR.
  kWhite,    // The white die of a DR.
};

// One die as it was rolled: why, which die, and the result 1..6. Every roll a ruleset makes ends
// up inside one of the events it returns, so a replay and an audit see exactly these values.
struct DieRoll {
  std::string purpose;  // The rule that asked for it, e.g. "A11.11 CC DR", "17.2 combat dice".
  DieColor color = DieColor::kSingle;
  int value = 0;

  friend bool operator==(const DieRoll&, const DieRoll&) = default;
};

// An ASL "DR": two dice read apart and together. An "Original 2" is both dice showing 1.
struct TwoDice {
  int colored = 0;
  int white = 0;

  // Returns colored + white.
  int Total() const { return colored + white; }
  // Returns true when both dice show the same value.
  bool IsDoubles() const { return colored == white; }

  friend bool operator==(const TwoDice&, const TwoDice&) = default;
};

// A source of uniformly distributed 64-bit values. The engine never owns randomness: the server
// implements this with its committed HMAC-SHA256 stream, tests and benchmarks with SplitMix64.
// Implementations decide their own thread-safety; the engine uses one from a single thread.
class BitSource {
 public:
  virtual ~BitSource() = default;
  // Returns the next uniformly distributed 64-bit value.
  virtual uint64_t Next64() = 0;
};

// Returns a fair die 1..`sides` from `source` by rejection sampling: draws x and accepts it when
// x < 2^64 - (2^64 mod sides), returning x % sides + 1; otherwise draws again. Identical on every
// platform. Requires 2 <= sides <= 255.
int FairDie(BitSource& source, int sides);

// Returns a fair d6 from `source`. 2^64 mod 6 == 4, so the top 4 values are rejected.
int FairD6(BitSource& source);

// SplitMix64 (Steele, Lea and Flood 2014; Vigna's reference constants): a small deterministic
// seeded BitSource for tests and benchmarks. Not for real matches (it is predictable).
// Thread-compatible.
class SplitMix64 final : public BitSource {
 public:
  // Creates the stream for `seed`; seed 0 starts 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, ...
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  // Returns the next value of the stream.
  uint64_t Next64() override;

 private:
  uint64_t state_;
};

// The dice a ruleset rolls while it resolves one command. Every roll is recorded with its purpose
// and colour, in order; the ruleset copies the rolls it made into the events it returns.
// Subclasses only say where the next d6 comes from.
// Not thread-safe: create one per resolution. Not copyable (a copy would duplicate the record).
class Dice {
 public:
  virtual ~Dice() = default;
  Dice(const Dice&) = delete;
  Dice& operator=(const Dice&) = delete;

  // Rolls one d6 (a "dr") for `purpose`, records it as kSingle and returns it (1..6).
  int RollDie(std::string_view purpose);
  // Rolls a DR for `purpose`: the coloured die first, then the white; records both.
  TwoDice RollTwoDice(std::string_view purpose);
  // Rolls a pool of `count` d6 for `purpose` (e.g. Chain of Command combat dice), recording each
  // as kSingle, and returns them in the order rolled. Requires count >= 0.
  std::vector<int> RollDice(int count, std::string_view purpose);

  // Returns every roll recorded since construction or the last TakeRolls(), in order.
  const std::vector<DieRoll>& rolls() const { return rolls_; }
  // Returns the recorded rolls and clears the record.
  std::vector<DieRoll> TakeRolls();

 protected:
  Dice() = default;
  // Returns the next d6 value; must be in 1..6.
  virtual int NextD6() = 0;

 private:
  int Roll(std::string_view purpose, DieColor color);

  std::vector<DieRoll> rolls_;
};

// Dice drawn from a BitSource with FairD6. Does not own the source: `source` must outlive this
// object. Not thread-safe.
class SourceDice final : public Dice {
 public:
  explicit SourceDice(BitSource& source) : source_(source) {}

 protected:
  int NextD6() override;

 private:
  BitSource& source_;
};

// Dice that return a fixed script of values in order, for tests. Every value must be in 1..6 and
// the script must not run out (both checked: a wrong script is a bug in the test). Not thread-safe.
class ScriptedDice final : public Dice {
 public:
  explicit ScriptedDice(std::vector<int> values);

  // Returns how many scripted values are left.
  size_t remaining() const { return values_.size() - next_; }

 protected:
  int NextD6() override;

 private:
  std::vector<int> values_;
  size_t next_ = 0;
};

}  // namespace melee::engine
