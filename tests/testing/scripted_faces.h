#pragma once

// Dice a test decides, for a server under test (ServerHooks::dice): faces from a queue, then
// `fallback` once it runs out. Thread-safe (the server rolls on its own threads).

#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/core/dice.h"

namespace melee::testing {

class ScriptedFaces {
 public:
  explicit ScriptedFaces(int fallback = 3) : fallback_(fallback) {}
  void Push(std::initializer_list<int> faces) {
    std::lock_guard lock(mutex_);
    faces_.insert(faces_.end(), faces);
  }
  void Push(const std::vector<int>& faces) {
    std::lock_guard lock(mutex_);
    faces_.insert(faces_.end(), faces.begin(), faces.end());
  }
  std::function<std::unique_ptr<engine::BitSource>()> Source() {
    return [this] { return std::make_unique<Bits>(*this); };
  }

 private:
  // FairD6 turns x into x % 6 + 1.
  class Bits final : public engine::BitSource {
   public:
    explicit Bits(ScriptedFaces& faces) : faces_(faces) {}
    uint64_t Next64() override { return static_cast<uint64_t>(faces_.Next() - 1); }

   private:
    ScriptedFaces& faces_;
  };
  int Next() {
    std::lock_guard lock(mutex_);
    if (faces_.empty()) return fallback_;
    const int face = faces_.front();
    faces_.pop_front();
    return face;
  }
  std::mutex mutex_;
  std::deque<int> faces_;
  int fallback_;
};

}  // namespace melee::testing
