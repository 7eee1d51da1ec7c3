#pragma once

// How the `melee` command line shows a match to a person: each event in one line (or a few, for
// an attack with its dice), and a seat's view as the Location, the units this seat may see, the
// ATTACKER's order of Locations, what the match waits for and its deadline.

#include <cstdint>
#include <iosfwd>
#include <string>

#include "melee/v1/match.pb.h"

namespace melee::cli {

// "side_a", "side_b", "director", "spectator".
std::string SeatName(melee::v1::Seat seat);
// "2026-11-23 00:43:14 UTC".
std::string Time(int64_t unix_ms);
// "  #12 side_b sealed its declaration".
void PrintEvent(std::ostream& out, const melee::v1::MatchEvent& event);
void PrintView(std::ostream& out, const melee::v1::MatchView& view);

}  // namespace melee::cli
