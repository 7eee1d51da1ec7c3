#pragma once

// How the `melee` command line shows a match to a person: each event in one line (or a few, for
// an attack with its dice), and a seat's view as the Location, the units this seat may see, the
// ATTACKER's order of Locations, what the match waits for, its deadline and each seat's
// correspondence clock (docs/clocks.md).

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
// "45s", "3m 5s", "23h 0m", "3d 0h": a duration for a person.
std::string Duration(int64_t ms);
// A seat's clock in words, counted from `now_unix_ms`: "23h 0m left for this step, then a bank
// of 3d 0h (all gone at ...)"; "its step's time is over; 2m 3s of its bank left (...)".
std::string ClockLeft(const melee::v1::SeatClock& clock, const melee::v1::Pace& pace,
                      int64_t now_unix_ms);
// `bytes` in lower-case hex (a receipt, a hash).
std::string Hex(const std::string& bytes);
// This machine's clock, in milliseconds since the Unix epoch.
int64_t NowUnixMs();
// Prints `view`; time left on the clocks is counted from `now_unix_ms` (0: this machine's clock).
void PrintView(std::ostream& out, const melee::v1::MatchView& view, int64_t now_unix_ms = 0);

}  // namespace melee::cli
