#pragma once

// ForceUnits: a side's units as the match carries them (Force::units), shared between copies.
//
// The match copies its forces often: an update is applied to a copy (all or none), the plan of
// the next close combat folds the last one's outcome into a copy, a view of the update keeps the
// forces before and after it. Most units are the same in every copy, so a copy shares them: it
// copies a pointer for each, and a unit is copied only when one copy changes it (Mutable).
// Thread-safety: as std::vector<std::shared_ptr<T>>; a unit shared between copies is never
// changed, so copies may be read on different threads.
//
// Each unit held has a version, new whenever it is added or changed (Mutable) and never given
// twice in the process: the same version is the same unit with the same content, in any copy. A
// view keeps each unit's bytes by its version (UnitBytes) and serializes only what changed.

#include <atomic>
#include <boost/iterator/indirect_iterator.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "melee/v1/match.pb.h"

namespace melee::server {

class ForceUnits {
 public:
  using Unit = melee::v1::ForceUnit;
  using const_iterator =
      boost::indirect_iterator<std::vector<std::shared_ptr<Unit>>::const_iterator, const Unit>;

  const_iterator begin() const { return const_iterator(units_.begin()); }
  const_iterator end() const { return const_iterator(units_.end()); }
  size_t size() const { return units_.size(); }
  bool empty() const { return units_.empty(); }
  const Unit& operator[](size_t i) const { return *units_[i]; }
  // Unit `i`'s version: it changes whenever the unit does.
  uint64_t version(size_t i) const { return versions_[i]; }

  // Unit `i`, to change: copied first when another ForceUnits shares it. References to the
  // other units stay valid.
  Unit& Mutable(size_t i) {
    std::shared_ptr<Unit>& unit = units_[i];
    if (unit.use_count() != 1) unit = std::make_shared<Unit>(*unit);
    versions_[i] = NextVersion();
    return *unit;
  }
  // Adds `unit` last; returns it, to change.
  Unit& push_back(Unit unit) {
    versions_.push_back(NextVersion());
    return *units_.emplace_back(std::make_shared<Unit>(std::move(unit)));
  }

 private:
  static uint64_t NextVersion() {
    static std::atomic<uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }

  std::vector<std::shared_ptr<Unit>> units_;
  std::vector<uint64_t> versions_;  // versions_[i] is units_[i]'s
};

}  // namespace melee::server
