#include "server/fair_play/pooled_audit.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

namespace melee::server {
namespace {

namespace v1 = melee::v1;

// Below this p-value a test says the dice look unlike fair dice (1 in 100 fair samples do).
constexpr double kUnusualP = 0.01;

constexpr const char* kCriterion =
    "a chi-square test is judged only when every outcome expects at least 5 rolls (Cochran's "
    "rule): at least 30 dice for a d6 test, 180 DRs for a DR test (a 2 or a 12 is 1 DR in 36); "
    "below that the report says \"too few dice to judge\" and its p-value is only a hint";

// One player's figures while the matches are added up.
struct Pool {
  std::vector<std::string> seats;
  std::map<std::pair<std::string, DiceShape>, std::vector<uint64_t>> dice;
  std::vector<uint64_t> faces = std::vector<uint64_t>(6, 0);
  uint64_t invalid = 0;
  std::vector<int64_t> waits;
  uint64_t missed = 0;
  uint64_t sessions = 0;
  uint64_t closed = 0;
  uint64_t disconnects = 0;
};

void Add(std::vector<uint64_t>& into, const std::vector<uint64_t>& counts) {
  if (into.size() < counts.size()) into.resize(counts.size(), 0);
  for (size_t i = 0; i < counts.size(); ++i) into[i] += counts[i];
}

void AddSide(Pool& pool, const MatchAudit& audit, size_t side) {
  pool.seats.push_back(audit.match_id + (side == 0 ? " side_a" : " side_b"));
  const PlayerDice& dice = audit.dice[side];
  for (const DiceTest& test : dice.by_purpose) Add(pool.dice[{test.label, test.shape}], test.counts);
  Add(pool.faces, dice.all_dice.counts);
  pool.invalid += dice.invalid_dice;
  const SeatTiming& timing = audit.timing[side];
  for (const Response& response : timing.responses) pool.waits.push_back(response.waited_ms);
  pool.missed += timing.missed_deadlines.size();
  const SeatSessions& sessions = audit.sessions[side];
  pool.sessions += sessions.sessions;
  pool.closed += sessions.closed;
  pool.disconnects += sessions.disconnects.size();
}

v1::PooledDiceTest Tested(std::string label, DiceShape shape, std::vector<uint64_t> counts) {
  return DiceTestProto(TestDice(std::move(label), shape, std::move(counts)));
}

int64_t Median(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

v1::PooledPlayer Finish(const std::string& name, Pool pool) {
  v1::PooledPlayer player;
  player.set_player(name);
  for (std::string& seat : pool.seats) player.add_seats(std::move(seat));
  for (auto& [key, counts] : pool.dice) {
    *player.add_dice() = Tested(key.first, key.second, std::move(counts));
  }
  *player.mutable_all_dice() = Tested("all dice", DiceShape::kD6, std::move(pool.faces));
  player.set_invalid_dice(pool.invalid);
  player.set_responses(pool.waits.size());
  player.set_max_response_ms(
      pool.waits.empty() ? 0 : *std::max_element(pool.waits.begin(), pool.waits.end()));
  player.set_median_response_ms(Median(std::move(pool.waits)));
  player.set_deadlines_missed(pool.missed);
  player.set_sessions(pool.sessions);
  player.set_closed_sessions(pool.closed);
  player.set_disconnects(pool.disconnects);
  return player;
}

std::string Seconds(int64_t ms) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f s", static_cast<double>(ms) / 1000.0);
  return buffer;
}

void WriteTest(const v1::PooledDiceTest& test, std::ostream& out) {
  char figures[96];
  std::snprintf(figures, sizeof figures, "chi-square %.2f, %u df, p = %.3f",
                test.chi_square(), test.degrees_of_freedom(), test.p_value());
  out << "    " << test.purpose() << " (" << test.shape() << "): " << test.rolls()
      << (test.shape() == "DR" ? (test.rolls() == 1 ? " DR" : " DRs")
                               : (test.rolls() == 1 ? " die" : " dice"))
      << ", " << figures << ": " << test.verdict()
      << "\n";
}

}  // namespace

v1::PooledDiceTest DiceTestProto(const DiceTest& test) {
  v1::PooledDiceTest out;
  out.set_purpose(test.label);
  out.set_shape(test.shape == DiceShape::kTwoDice ? "DR" : "d6");
  out.set_lowest(static_cast<uint32_t>(test.lowest));
  for (uint64_t count : test.counts) out.add_counts(count);
  for (double expected : test.expected) out.add_expected(expected);
  out.set_rolls(test.rolls);
  out.set_chi_square(test.chi_square);
  out.set_degrees_of_freedom(static_cast<uint32_t>(test.degrees_of_freedom));
  out.set_p_value(test.p_value);
  out.set_judged(!test.indicative_only);
  out.set_verdict(test.indicative_only ? "too few dice to judge"
                  : test.p_value < kUnusualP
                      ? "unusual for fair dice (p < 0.01): look closer"
                      : "consistent with fair dice");
  return out;
}

const char* DiceCriterion() { return kCriterion; }

std::string PlayerOf(const MatchAudit& audit, size_t side) {
  if (!audit.names[side].empty()) return audit.names[side];
  return audit.match_id + (side == 0 ? " side_a" : " side_b");
}

v1::PooledAudit PoolAudits(const std::string& tournament_id,
                           const std::vector<MatchAudit>& audits) {
  v1::PooledAudit pooled;
  pooled.set_tournament_id(tournament_id);
  pooled.set_criterion(DiceCriterion());
  std::map<std::string, Pool> pools;
  for (const MatchAudit& audit : audits) {
    if (!audit.verification.ok) {
      pooled.add_not_verified(audit.match_id + ": " + audit.verification.reason);
      continue;
    }
    pooled.add_matches(audit.match_id);
    v1::PooledMatch& match = *pooled.add_match_results();
    match.set_match_id(audit.match_id);
    match.set_side_a(PlayerOf(audit, 0));
    match.set_side_b(PlayerOf(audit, 1));
    for (const v1::MatchResult& result : audit.results) *match.add_results() = result;
    for (size_t side = 0; side < 2; ++side) AddSide(pools[PlayerOf(audit, side)], audit, side);
  }
  for (auto& [name, pool] : pools) *pooled.add_players() = Finish(name, std::move(pool));
  return pooled;
}

void WritePooledText(const v1::PooledAudit& pooled, std::ostream& out) {
  out << "Pooled audit of tournament " << pooled.tournament_id() << ": "
      << pooled.matches_size() << " match" << (pooled.matches_size() == 1 ? "" : "es")
      << " pooled\n";
  for (const std::string& failed : pooled.not_verified()) {
    out << "  NOT VERIFIED, left out of the pool: " << failed << "\n";
  }
  out << "  (" << pooled.criterion() << ")\n";
  for (const v1::PooledMatch& match : pooled.match_results()) {
    out << "  " << match.match_id() << ": " << match.side_a() << " (side_a) vs "
        << match.side_b() << " (side_b)\n";
    for (const v1::MatchResult& result : match.results()) {
      out << "    result of "
          << (result.combat() == 0 ? std::string("the match")
                                   : "close combat " + std::to_string(result.combat()))
          << ": " << result.status() << "\n";
    }
  }
  for (const v1::PooledPlayer& player : pooled.players()) {
    out << "\n" << player.player() << " (" << player.seats_size() << " seat"
        << (player.seats_size() == 1 ? "" : "s") << ":";
    for (const std::string& seat : player.seats()) out << " " << seat << ";";
    out << ")\n  dice\n";
    for (const v1::PooledDiceTest& test : player.dice()) WriteTest(test, out);
    WriteTest(player.all_dice(), out);
    if (player.invalid_dice() != 0) {
      out << "    " << player.invalid_dice() << " dice outside 1..6 (counted nowhere else)\n";
    }
    out << "  responses: " << player.responses();
    if (player.responses() != 0) {
      out << ", median " << Seconds(player.median_response_ms()) << ", max "
          << Seconds(player.max_response_ms());
    }
    out << "\n  deadlines missed: " << player.deadlines_missed() << "\n";
    out << "  connections: " << player.sessions() << " sessions, " << player.disconnects()
        << " disconnects (" << player.closed_sessions()
        << " closed cleanly, as every one-shot command does: not disconnects)\n";
  }
}

}  // namespace melee::server
