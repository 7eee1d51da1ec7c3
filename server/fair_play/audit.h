#pragma once

// The tournament director's audit of a match file (`melee audit`): whether the file verifies,
// how each player's dice compare with fair dice, how long each seat took to answer the rules,
// the deadlines it let pass, its disconnects, and every event on one timeline. It reads only the
// file, so a director audits a match without trusting the server that refereed it.
//
// A file that fails verification is still audited (a director wants to see what it claims), but
// its report starts by saying that it does not verify.

#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/core/result.h"
#include "engine/core/ruleset.h"
#include "melee/storage/v1/match_file.pb.h"
#include "melee/v1/match.pb.h"
#include "server/fair_play/verify.h"

namespace melee::server {

// What counted dice are compared with.
enum class DiceShape {
  kD6,       // lone dice: faces 1..6, each 1/6
  kTwoDice,  // a DR (a coloured die then a white die): totals 2..12, (1,2,3,4,5,6,5,4,3,2,1)/36
};

// Pearson's chi-square goodness-of-fit test of counted dice against fair dice.
struct DiceTest {
  std::string label;  // the rolls' purpose ("A11.11 CC DR"), or "all dice"
  DiceShape shape = DiceShape::kD6;
  int lowest = 1;                // the outcome counts[0] counts: 1 (a d6) or 2 (a DR)
  std::vector<uint64_t> counts;  // seen, per outcome from `lowest` up
  std::vector<double> expected;  // expected of fair dice, per outcome
  uint64_t rolls = 0;
  double chi_square = 0;
  int degrees_of_freedom = 0;
  double p_value = 1;
  // Some outcome expects fewer than 5 rolls: the chi-square approximation is rough there.
  bool indicative_only = true;
};

// Returns the test of `counts` (lowest outcome first: 6 for kD6, 11 for kTwoDice; another size
// is a bug). The p-value is P(chi-square >= the statistic) with outcomes - 1 degrees of freedom.
DiceTest TestDice(std::string label, DiceShape shape, std::vector<uint64_t> counts);

// The dice rolled for one player, or for nobody (rolls the rules make for no side), or for the
// whole match.
struct PlayerDice {
  std::string player;                // "side_a", "side_b", "nobody", "the whole match"
  std::vector<DiceTest> by_purpose;  // one per purpose and shape, by purpose
  DiceTest all_dice;                 // every die on its own (both of a DR) against 1..6
  uint64_t invalid_dice = 0;         // values outside 1..6: counted nowhere else
};

// A seat's answer to what the rules waited for.
struct Response {
  uint64_t seq = 0;       // the first event it caused
  std::string what;       // "declaration", "announcement", "choice" (or "command")
  int64_t unix_ms = 0;    // when that event was recorded
  int64_t waited_ms = 0;  // since the event before it was recorded
};

// A step whose deadline passed: the server took the rules default for the seat.
struct MissedDeadline {
  uint64_t seq = 0;  // the first event of the default
  int64_t unix_ms = 0;
  std::string what;  // what the seat owed: "declaration", "announcement", "choice"
};

// One seat's timing.
struct SeatTiming {
  std::string seat;                 // "side_a", "side_b"
  std::vector<Response> responses;  // in event order
  int64_t median_ms = 0;            // of the responses' waits; 0 without responses
  int64_t max_ms = 0;
  std::vector<MissedDeadline> missed_deadlines;  // in event order
  // Its correspondence clock (docs/clocks.md): answers past a step's time paid from the bank,
  // the time they took from it, how often its time ran out, and its vacations.
  uint32_t bank_draws = 0;
  int64_t bank_drawn_ms = 0;
  uint32_t expired = 0;
  uint32_t vacations = 0;
  uint32_t vacation_days = 0;
};

// One connection of a seat that ended.
struct Disconnect {
  int64_t joined_unix_ms = 0;
  int64_t left_unix_ms = 0;
  std::string reason;
};

// The connections of one seat (the file's session journal, outside the hash chain).
struct SeatSessions {
  std::string seat;  // "side_a", "side_b", "director"
  uint64_t sessions = 0;
  // Sessions that ended cleanly: the player closed the connection (a one-shot PBEM command does,
  // every time) or the server shut down. Not disconnects.
  uint64_t closed = 0;
  // The sessions that ended otherwise (connection lost, idle timeout, closed by the server for
  // cause), in the file's order.
  std::vector<Disconnect> disconnects;
};

// One event of the replay timeline.
struct TimelineEntry {
  uint64_t seq = 0;
  int64_t unix_ms = 0;
  std::string who;   // "side_a", "side_b", "director", "server", or "?" when redacted
  std::string what;  // one line
};

struct MatchAudit {
  VerifyReport verification;
  std::string match_id;
  std::string ruleset;  // "asl 1.0"
  std::string exported_for;
  std::string tournament_id;                   // as the match was created
  std::array<std::string, 2> names;            // the players' display names ("" unnamed)
  // The results recorded in the log (RecordResult), the match's (combat 0) first.
  std::vector<melee::v1::MatchResult> results;
  int64_t first_event_unix_ms = 0;             // when event 1 was recorded
  std::optional<engine::Seat> first_attacker;  // the ATTACKER of the first close combat
  uint64_t redacted = 0;                       // events whose dice and words this file leaves out
  std::array<PlayerDice, 4> dice;              // side A, side B, nobody, the whole match
  std::array<SeatTiming, 2> timing;            // side A, side B
  bool clocked = false;                        // the match has a pace (docs/clocks.md)
  std::array<SeatSessions, 3> sessions;        // side A, side B, the director
  std::vector<TimelineEntry> timeline;         // every event of the file, in order
};

// Returns the audit of `file`, whether or not it verifies (see `verification`); an error only
// when `hosts` has no host for the file's ruleset, so that none of its events can be read.
// Session records of no seat are not counted.
engine::Result<MatchAudit> AuditMatch(const melee::storage::v1::MatchFile& file,
                                      const HostLookup& hosts);

// Writes the report for people: verification, dice, response times, deadlines, connections,
// timeline. Its first line says "this file does NOT verify: ..." when it does not.
void WriteAuditText(const MatchAudit& audit, std::ostream& out);

// Facts the director adds for the ASL Player Ratings CSV (not in the log).
struct AslprFields {
  std::string tournament_id;  // empty: the tournament the match was created for
  std::string round;
  std::string round_date;
  std::string scenario;
  // Side A, side B; empty: the display name the match was created with, else "side_a"/"side_b".
  std::array<std::string, 2> players;
  // "Attacker"/"Defender"; empty: from the log (the ATTACKER of the first close combat).
  std::array<std::string, 2> att_def;
  std::array<std::string, 2> allied_axis;  // "Allied"/"Axis" or empty
  // "Win"/"Loss"/"Draw"; empty: the match's result as the log decides it (the director's entry,
  // or both players' when they agree), else empty.
  std::array<std::string, 2> results;
};

// Returns the ASLPR CSV header, without a line ending: "Tournament ID,Round,Round Date,Scenario,
// Player 1,P1AttDef,P1AlorAx,P1 Result,Player 2,P2AttDef,P2AlorAx,P2 Result,Date,game id".
std::string AslprCsvHeader();

// Returns the match's ASLPR CSV row, without a line ending, fields quoted as RFC 4180 says.
// Player 1 is side A. Date: the UTC date (YYYY-MM-DD) of the match's first event; game id: the
// match id.
std::string AslprCsvRow(const MatchAudit& audit, const AslprFields& fields);
// Whether the audited match has a row in the ASL Player Ratings CSV: asl matches only (a coc or
// vv match is not an ASL game).
bool HasAslprRow(const MatchAudit& audit);

}  // namespace melee::server
