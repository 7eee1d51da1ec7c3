#pragma once

// The audit of one match (AuditMatch) as the wire carries it: GET /api/matches/{id}/audit
// answers it to the director, and the director's audit page (client-sdk/web/audit.html) draws
// it. Every figure is the MatchAudit's; dice tests are mapped as the pooled audit maps them
// (DiceTestProto), with their verdicts in words.

#include "melee/v1/tournament.pb.h"
#include "server/fair_play/audit.h"

namespace melee::server {

// Returns `audit` as a MatchAuditReport. Its ASL Player Ratings CSV (header and row, each line
// ending "\r\n") is the row AslprCsvRow writes with no fields added, set only for an asl match.
melee::v1::MatchAuditReport AuditReport(const MatchAudit& audit);

}  // namespace melee::server
