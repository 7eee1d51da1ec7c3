#pragma once

// The pooled audit of a tournament (docs/tournaments.md): the audits of its matches' director
// files (AuditMatch) added up per player across the event. A player is named by the display name
// of its seat, so one person's dice of every match they played are tested together; an unnamed
// seat is a player of its own ("<match id> side_a"). Per player: the dice of each roll purpose
// pooled and tested against fair dice (TestDice), response times, deadlines missed, and
// connections (clean closes, a one-shot command's every time, apart from disconnects).

#include <ostream>
#include <string>
#include <vector>

#include "melee/v1/tournament.pb.h"
#include "server/fair_play/audit.h"

namespace melee::server {

// Returns `test` as the wire has it, with its verdict in words: "too few dice to judge" (some
// outcome expects fewer than 5 rolls), "unusual for fair dice (p < 0.01): look closer" or
// "consistent with fair dice".
melee::v1::PooledDiceTest DiceTestProto(const DiceTest& test);

// When a chi-square test is judged, in words (Cochran's rule).
const char* DiceCriterion();

// Returns the player who held `side` (0: side A) of the audited match.
std::string PlayerOf(const MatchAudit& audit, size_t side);

// Pools `audits` (one per match) for tournament `tournament_id`. Files that do not verify are
// listed in `not_verified` and pooled nowhere: their dice prove nothing.
melee::v1::PooledAudit PoolAudits(const std::string& tournament_id,
                                  const std::vector<MatchAudit>& audits);

// Writes the pooled report for people.
void WritePooledText(const melee::v1::PooledAudit& pooled, std::ostream& out);

}  // namespace melee::server
