#pragma once

// Protocol 2 (Hello.protocol_version 2) leaves the settings and both forces out of a view when
// they are what the connection's last view held (MatchView.forces_as_before; docs/forces.md).
// A client that hands on whole views completes each one with the view before it.

#include "melee/v1/match.pb.h"

namespace melee::client {

// `view` whole: with the settings and forces of `before` (the whole view the same connection
// received before it) when it left them out, without the forces_as_before mark; otherwise as it
// is.
inline melee::v1::MatchView WholeView(melee::v1::MatchView view,
                                      const melee::v1::MatchView& before) {
  if (!view.forces_as_before()) return view;
  view.clear_forces_as_before();
  *view.mutable_settings() = before.settings();
  *view.mutable_side_a_force() = before.side_a_force();
  *view.mutable_side_b_force() = before.side_b_force();
  return view;
}

}  // namespace melee::client
