#include "engine/core/ruleset.h"

#include <utility>

namespace melee::engine {

Seat Opponent(Seat seat) { return seat == Seat::kSideA ? Seat::kSideB : Seat::kSideA; }

Viewer ViewerOf(Seat seat) { return seat == Seat::kSideA ? Viewer::kSideA : Viewer::kSideB; }

std::string_view Name(Seat seat) { return seat == Seat::kSideA ? "side_a" : "side_b"; }

std::string_view Name(Viewer viewer) {
  switch (viewer) {
    case Viewer::kSideA:
      return "side_a";
    case Viewer::kSideB:
      return "side_b";
    case Viewer::kDirector:
      return "director";
    case Viewer::kSpectator:
      return "spectator";
  }
  MELEE_CHECK_MSG(false, "invalid Viewer value");
  return {};
}

AnyState Fold(const Ruleset& ruleset, AnyState initial, std::span<const AnyEvent> events) {
  for (const AnyEvent& event : events) ruleset.Apply(initial, event);
  return initial;
}

}  // namespace melee::engine
