#include "engine/core/dice.h"

#include <cstdint>
#include <iterator>
#include <limits>
#include <utility>

#include "engine/core/check.h"

namespace melee::engine {

int FairDie(BitSource& source, int sides) {
  MELEE_CHECK_MSG(sides >= 2 && sides <= 255, "FairDie needs 2..255 sides");
  const auto n = static_cast<uint64_t>(sides);
  // 2^64 mod n, computed without 2^64: (2^64 - 1) mod n + 1, wrapped into 0..n-1.
  const uint64_t excess = (std::numeric_limits<uint64_t>::max() % n + 1) % n;
  // Accept x < 2^64 - excess, i.e. x <= UINT64_MAX - excess: a whole number of n-sized blocks.
  const uint64_t last_accepted = std::numeric_limits<uint64_t>::max() - excess;
  for (;;) {
    const uint64_t x = source.Next64();
    if (x <= last_accepted) return static_cast<int>(x % n) + 1;
  }
}

int FairD6(BitSource& source) { return FairDie(source, 6); }

uint64_t SplitMix64::Next64() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

int Dice::Roll(std::string_view purpose, DieColor color) {
  const int value = NextD6();
  MELEE_CHECK_MSG(value >= 1 && value <= 6, "Dice::NextD6 returned a value outside 1..6");
  // After TakeRolls the record starts afresh, with room for an event's few dice.
  if (rolls_.capacity() == 0) rolls_.reserve(4);
  DieRoll& roll = rolls_.emplace_back();  // Built in place: the purpose is copied once.
  roll.purpose = purpose;
  roll.color = color;
  roll.value = value;
  return value;
}

int Dice::RollDie(std::string_view purpose) { return Roll(purpose, DieColor::kSingle); }

TwoDice Dice::RollTwoDice(std::string_view purpose) {
  TwoDice dice;
  dice.colored = Roll(purpose, DieColor::kColored);
  dice.white = Roll(purpose, DieColor::kWhite);
  return dice;
}

std::vector<int> Dice::RollDice(int count, std::string_view purpose) {
  MELEE_CHECK_MSG(count >= 0, "Dice::RollDice needs count >= 0");
  std::vector<int> values;
  values.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) values.push_back(Roll(purpose, DieColor::kSingle));
  return values;
}

std::vector<DieRoll> Dice::TakeRolls() {
  // The record itself, not a copy: its rolls are not moved one by one, and the next roll
  // reserves a new record (one allocation either way).
  std::vector<DieRoll> taken;
  taken.swap(rolls_);
  return taken;
}

int SourceDice::NextD6() { return FairD6(source_); }

ScriptedDice::ScriptedDice(std::vector<int> values) : values_(std::move(values)) {
  for (int value : values_) {
    MELEE_CHECK_MSG(value >= 1 && value <= 6, "ScriptedDice value outside 1..6");
  }
}

int ScriptedDice::NextD6() {
  MELEE_CHECK_MSG(next_ < values_.size(), "ScriptedDice ran out of scripted values");
  return values_[next_++];
}

}  // namespace melee::engine
