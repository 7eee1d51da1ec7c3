#pragma once

// Forces that persist (docs/forces.md) in tests: a unit of a view's forces, and unit updates sent
// as one command.

#include <string>
#include <utility>
#include <vector>

#include "melee/v1/envelope.pb.h"
#include "melee/v1/match.pb.h"

namespace melee::testing {

// The unit `id` of a view's forces (either side), or null.
inline const melee::v1::ForceUnit* InForce(const melee::v1::MatchView& view,
                                           const std::string& id) {
  for (const auto* force : {&view.side_a_force(), &view.side_b_force()}) {
    for (const melee::v1::ForceUnit& unit : *force) {
      if (unit.id() == id) return &unit;
    }
  }
  return nullptr;
}

// One UpdateUnits command holding `updates`, in order.
inline melee::v1::ClientMessage Updates(std::vector<melee::v1::UnitUpdate> updates) {
  melee::v1::ClientMessage message;
  for (melee::v1::UnitUpdate& update : updates) {
    *message.mutable_update_units()->add_updates() = std::move(update);
  }
  return message;
}

}  // namespace melee::testing
