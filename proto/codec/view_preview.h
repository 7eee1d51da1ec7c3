#pragma once

// Outcome previews from a seat's own view (issue 24: `melee play`'s odds and the web page's bars
// while a player picks). Each one is worked out from the MatchView the seat already holds and
// nothing else, so a preview can tell a seat nothing its view does not: a concealed enemy unit
// counts as a squad of the Strength Factor A11.19 reveals, and its real counter never enters.
//
// Pure: no I/O; no dice are rolled (the Ambush and PAATC results come from the view).

#include "engine/asl/preview.h"
#include "engine/asl/rules.h"
#include "engine/coc/rules.h"
#include "engine/core/result.h"
#include "melee/asl/v1/asl.pb.h"
#include "melee/coc/v1/coc.pb.h"
#include "melee/v1/match.pb.h"

namespace melee::proto {

// The Location at designation as `view` shows it to its seat: its own units and the visible
// enemy exactly, a concealed enemy unit as a squad of the strength factor A11.19 reveals.
engine::Result<engine::asl::State> AslStateFromView(const melee::asl::v1::AslView& view);

// The exact outcome table of `order` declared by `seat`, from `view` (designation only): the
// table, or the RuleError the same declaration would meet when sealed (A11.12, A11.14, ...).
engine::Result<melee::asl::v1::OutcomeTable> AslPreviewFromView(
    const melee::asl::v1::AslView& view, melee::v1::Seat seat,
    const melee::asl::v1::AttackOrder& order);

// A coc contact's first round as set up in `view` (everything on a CoC table is in plain sight):
// the attacker fighting with all its Units, the defender's default choices (its Units able to
// give Supporting Fire give it), and the exact margin of hits (17.3, 17.4).
struct CocFirstRound {
  engine::coc::Preview preview;
  engine::Seat attacker = engine::Seat::kSideA;
};
engine::Result<CocFirstRound> CocFirstRoundFromView(const melee::v1::MatchView& view);

}  // namespace melee::proto
