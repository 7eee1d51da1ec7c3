#pragma once

// Counter notation: units as the counters print them ("4-6-7", "8-1 leader", "4-6-5 squad",
// "team 5 lmg"), read into and written from the rulesets' Unit messages, and roster files of
// such units that give one seat's SideSetup. docs/counter-notation.md documents the grammar.
//
//   asl  4-6-7 german          2-3-8 HS broken CX       8-1 leader on A1      6+1 leader
//        1-4-9 hero            6-2-8 assault-engineers  2-2-8 crew with MMG   HS of 4-6-7
//   vv   4-6-5 squad "Rifle"   2-6-2 hs with LMG 3-6 (L)   1-3-1 (-1) leader   afv mg=4 cr=3
//   coc  "1st Section" elite: team 5 lmg, team 4 2 smg; leader senior orders=3
//
// A roster file is UTF-8 text, one unit a line (`<id>: <notation>`), with `#` comments and
// directive lines for the shared facts (`location: G3 woods-or-building`, `attacker: side_a`,
// `force-morale: 9`, `target: C1 terrain=3`, ...) and `side: side_b` sections.
//
// Reading never throws and never trusts its input: every failure is a RuleError whose message
// names the word at fault and, in a roster, the file and line ("roster.txt:4: '4-6' is not a
// counter: expected FP-range-ML like 4-6-7, or a leader's ML-leadership like 8-1"); a rule is
// in rule_ref (and in the message) where one forbids the value. Every unit read is also checked
// by the ruleset's codec (UnitFromProto, CocSideSetupFromProto, VvSideSetupFromProto).

#include <string>
#include <string_view>

#include "engine/core/result.h"
#include "melee/asl/v1/asl.pb.h"
#include "melee/coc/v1/coc.pb.h"
#include "melee/v1/match.pb.h"
#include "melee/vv/v1/vv.pb.h"

namespace melee::proto {

// A roster or set-up file larger than this is refused.
inline constexpr size_t kRosterMaxBytes = 1 << 20;

// ---- units ------------------------------------------------------------------------------------

// Returns the asl unit `notation` describes, with `id` and `owner` (SEAT_SIDE_A or _B), or a
// RuleError naming the word at fault. `name` is the printed counter ("4-6-7", "8-1").
engine::Result<melee::asl::v1::Unit> AslUnitFromNotation(std::string_view id, melee::v1::Seat owner,
                                                         std::string_view notation);

// Returns `unit` in notation, e.g. "2-4-7 HS broken CX", "8-1 leader wounded on G1". A squad
// Reduced to a HS reads "HS of 4-6-7"; a counter whose range is not known reads "4-?-7". Every
// unit AslUnitFromNotation returns reads back into an equal unit, but for nationality `other`,
// which is not written (it plays as none, and the engine's views give it to every unit).
std::string AslNotationOf(const melee::asl::v1::Unit& unit);

// Returns the vv unit `notation` describes, with `id` and `owner`, or a RuleError.
engine::Result<melee::vv::v1::Unit> VvUnitFromNotation(std::string_view id, melee::v1::Seat owner,
                                                       std::string_view notation);

// Returns `unit` in notation, e.g. "4-6-5 squad \"Rifle\"", "1-3-1 (-1) leader".
std::string VvNotationOf(const melee::vv::v1::Unit& unit);

// Returns the coc Unit `notation` describes, with `id` and `side`, or a RuleError. Its role is
// ROLE_UNSPECIFIED when the notation names none (a roster gives it from the attacker); Teams
// and Leaders without an id get "<id>-t1", "<id>-t2", ... and "<id>-l1", ...
engine::Result<melee::coc::v1::Unit> CocUnitFromNotation(std::string_view id, melee::v1::Seat side,
                                                         std::string_view notation);

// Returns `unit` in notation, e.g. "squad defender: team 3 lmg, team 5; leader wounded with 1".
std::string CocNotationOf(const melee::coc::v1::Unit& unit);

// ---- unit updates (docs/forces.md) -------------------------------------------------------------

// Reads one unit update as a player writes it, for `ruleset` and the updating `seat`:
//
//   G1 move H4            G1 move off           G1 break        G1 rally       G1 pin    G1 unpin
//   G1 conceal A12.122    G1 reveal             G1 reduce       G1 eliminate   G1 cx     G1 uncx
//   G5 enter H4 4-6-7 concealed        H1 recombine H2 A1.32 4-6-7         (asl counters)
//   S1 shock 2            S1 kill 1             force-morale 8                  (coc)
//
// and, after any of them, `; what happened` as its note. Errors name the word at fault.
engine::Result<melee::v1::UnitUpdate> UnitUpdateFromText(std::string_view ruleset,
                                                         melee::v1::Seat seat,
                                                         std::string_view text);

// Returns `update` as one line in those words ("G1 move H4", "? entered J5").
std::string UnitUpdateText(const melee::v1::UnitUpdate& update);

// ---- set-ups ----------------------------------------------------------------------------------

// Reads roster `text` (`source` names it in errors, e.g. "roster.txt") for `ruleset` ("asl",
// "coc" or "vv"): the SubmitSetup whose part is that ruleset's SideSetup for `seat` (SEAT_SIDE_A
// or SEAT_SIDE_B): the seat's units and the shared facts. Lines before any `side:` line belong
// to `seat`; a roster with no unit for `seat` is refused.
engine::Result<melee::v1::SubmitSetup> SetupFromRoster(std::string_view ruleset,
                                                       std::string_view text, melee::v1::Seat seat,
                                                       std::string_view source);

// Reads a side's set-up for `seat` from any of: a roster (text), the ruleset's SideSetup in its
// protobuf JSON mapping, or a whole situation file of `melee rules` (asl CloseCombat, coc
// Contact, vv CloseAssault in JSON), of which it takes `seat`'s units, its Force Morale or
// Expendables, and the shared facts. JSON is told from a roster by its first character `{`, and
// a situation file from a SideSetup by its "situation". A roster or a situation file without a
// unit of `seat` is refused (it is the other side's); a SideSetup is sent as it was written,
// once checked. Errors start with `source`.
engine::Result<melee::v1::SubmitSetup> ReadSideSetup(std::string_view ruleset,
                                                     std::string_view text, melee::v1::Seat seat,
                                                     std::string_view source);

// Returns `setup` (a SubmitSetup holding one ruleset's SideSetup) as roster text: its directives,
// then one line per unit. SetupFromRoster reads it back into an equal SideSetup.
std::string RosterOf(const melee::v1::SubmitSetup& setup);

}  // namespace melee::proto
