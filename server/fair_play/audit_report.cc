#include "server/fair_play/audit_report.h"

#include <string>

#include "server/fair_play/pooled_audit.h"

namespace melee::server {

namespace v1 = melee::v1;

v1::MatchAuditReport AuditReport(const MatchAudit& audit) {
  v1::MatchAuditReport report;
  report.set_match_id(audit.match_id);
  report.set_ruleset(audit.ruleset);
  report.set_exported_for(audit.exported_for);
  report.set_tournament_id(audit.tournament_id);
  report.set_side_a_name(audit.names[0]);
  report.set_side_b_name(audit.names[1]);
  for (const v1::MatchResult& result : audit.results) *report.add_results() = result;
  report.set_first_event_unix_ms(audit.first_event_unix_ms);
  if (audit.first_attacker)
    report.set_first_attacker(std::string(engine::Name(*audit.first_attacker)));
  report.set_redacted(audit.redacted);

  const VerifyReport& verification = audit.verification;
  report.set_verified(verification.ok);
  report.set_failed_seq(verification.failed_seq);
  if (!verification.ok) report.set_failure(verification.reason);
  report.set_verification(verification.Describe());
  report.set_key_fingerprint(verification.key_fingerprint);
  report.set_criterion(DiceCriterion());

  for (const PlayerDice& dice : audit.dice) {
    v1::AuditDice& out = *report.add_dice();
    out.set_player(dice.player);
    for (const DiceTest& test : dice.by_purpose) *out.add_by_purpose() = DiceTestProto(test);
    *out.mutable_all_dice() = DiceTestProto(dice.all_dice);
    out.set_invalid_dice(dice.invalid_dice);
  }
  for (const SeatTiming& timing : audit.timing) {
    v1::AuditSeatTiming& out = *report.add_timing();
    out.set_seat(timing.seat);
    for (const Response& response : timing.responses) {
      v1::AuditResponse& each = *out.add_responses();
      each.set_seq(response.seq);
      each.set_what(response.what);
      each.set_unix_ms(response.unix_ms);
      each.set_waited_ms(response.waited_ms);
    }
    out.set_median_ms(timing.median_ms);
    out.set_max_ms(timing.max_ms);
    for (const MissedDeadline& missed : timing.missed_deadlines) {
      v1::AuditMissedDeadline& each = *out.add_missed_deadlines();
      each.set_seq(missed.seq);
      each.set_unix_ms(missed.unix_ms);
      each.set_what(missed.what);
    }
    out.set_bank_draws(timing.bank_draws);
    out.set_bank_drawn_ms(timing.bank_drawn_ms);
    out.set_expired(timing.expired);
    out.set_vacations(timing.vacations);
    out.set_vacation_days(timing.vacation_days);
  }
  report.set_clocked(audit.clocked);
  for (const SeatSessions& sessions : audit.sessions) {
    v1::AuditSeatSessions& out = *report.add_sessions();
    out.set_seat(sessions.seat);
    out.set_sessions(sessions.sessions);
    out.set_closed(sessions.closed);
    for (const Disconnect& disconnect : sessions.disconnects) {
      v1::AuditDisconnect& each = *out.add_disconnects();
      each.set_joined_unix_ms(disconnect.joined_unix_ms);
      each.set_left_unix_ms(disconnect.left_unix_ms);
      each.set_reason(disconnect.reason);
    }
  }
  for (const TimelineEntry& entry : audit.timeline) {
    v1::AuditTimelineEntry& out = *report.add_timeline();
    out.set_seq(entry.seq);
    out.set_unix_ms(entry.unix_ms);
    out.set_who(entry.who);
    out.set_what(entry.what);
  }
  if (HasAslprRow(audit)) {
    report.set_aslpr_csv(AslprCsvHeader() + "\r\n" + AslprCsvRow(audit, AslprFields{}) + "\r\n");
  }
  return report;
}

}  // namespace melee::server
