// Readable accounts of coc events, the exact preview of a round, and Play.

#include <algorithm>
#include <string>
#include <utility>

#include "engine/coc/internal.h"
#include "engine/core/check.h"

namespace melee::engine::coc {

using internal::SeatIndex;

namespace {

// Counts of outcomes out of 3^n, n <= kMaxPreviewDice = 80 (3^80 < 2^127).
__extension__ typedef unsigned __int128 U128;

std::string SeatName(Seat seat) { return std::string(Name(seat)); }

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

std::string DescribePool(const Pool& pool) {
  std::vector<std::string> rows;
  for (const DiceRow& row : pool.rows) {
    rows.push_back(row.what + " -> " + std::to_string(row.after));
  }
  return std::to_string(pool.dice) + " Combat Dice (" + (rows.empty() ? "none" : Join(rows, "; ")) +
         ")";
}

std::string Faces(const std::vector<int>& faces) {
  std::string out = "[";
  for (size_t i = 0; i < faces.size(); ++i) {
    out += (i == 0 ? "" : " ") + std::to_string(faces[i]);
  }
  return out + "]";
}

std::string DescribeEffect(const State& state, const Effect& effect) {
  const std::string unit(UnitId(state, effect.team.unit));
  const std::string team = TeamName(state, effect.team);
  const auto leader = [&] {
    if (effect.team.unit >= state.units.size() ||
        effect.index >= state.units[effect.team.unit].leaders.size()) {
      return std::string("?");
    }
    return state.units[effect.team.unit].leaders[effect.index].id;
  };
  switch (effect.kind) {
    case EffectKind::kKills: return team + " loses " + std::to_string(effect.value) + " figure(s)";
    case EffectKind::kShock: return team + " takes " + std::to_string(effect.value) + " Shock";
    case EffectKind::kLeaderHit: return "Leader " + leader() + " is " + effect.text;
    case EffectKind::kLeaderCaptured: return "Leader " + leader() + " is captured";
    case EffectKind::kRetreat:
      return unit + " retreats " + std::to_string(effect.value) + "\" " + effect.text;
    case EffectKind::kBroken: return unit + " Breaks";
    case EffectKind::kSurrendered: return unit + " surrenders";
    case EffectKind::kGuards:
      return std::to_string(effect.value) + " figure(s) of " + team + " guard the prisoners";
    case EffectKind::kAbandoned: return unit + " abandons its crewed weapon and is removed (17.5.5)";
    case EffectKind::kWithdrew: return unit + " gave Supporting Fire and withdraws (17.5.4)";
    case EffectKind::kAdvanced: return unit + " advances into the loser's ground";
    case EffectKind::kHeld: return unit + " holds its position";
    case EffectKind::kEvaded:
      return team + " evades, moving " + std::to_string(effect.value) + "\"";
    case EffectKind::kMovedAway: return team + " is moved " + std::to_string(effect.value) +
                                        "\" directly away from the tank";
    case EffectKind::kDestroyed: return team + "'s crewed weapon is destroyed and its crew removed";
    case EffectKind::kVehicleShock:
      return unit + " takes " + std::to_string(effect.value) + " Shock";
  }
  return "?";
}

std::string DescribeOutcome(const Outcome& outcome) {
  const std::string winner = outcome.winner ? SeatName(*outcome.winner) : "nobody";
  const std::string loser = outcome.winner ? SeatName(Opponent(*outcome.winner)) : "";
  switch (outcome.kind) {
    case OutcomeKind::kNone: return "no effect";
    case OutcomeKind::kFightAgain: return "a Draw: fight again";
    case OutcomeKind::kRetire: return "a Draw for the last round: both sides retire 6\"";
    case OutcomeKind::kDefeated:
      return winner + " wins by " + std::to_string(outcome.margin) + ": " + loser +
             " retreats " + std::to_string(outcome.retreat_inches) + "\"" +
             (outcome.shock_per_team > 0
                  ? ", +" + std::to_string(outcome.shock_per_team) + " Shock per Team"
                  : "");
    case OutcomeKind::kBroken: return winner + " wins: " + loser + " Breaks and flees 18\"";
    case OutcomeKind::kSurrendered: return winner + " wins: " + loser + " surrenders";
    case OutcomeKind::kWipedOut: return winner + " wins: " + loser + " is wiped out";
    case OutcomeKind::kBrokeByShock: return winner + " wins: " + loser + " breaks due to Shock";
    case OutcomeKind::kMutual: return "both sides are wiped out or broken: no winner";
  }
  return "?";
}

U128 Power3(int n) {
  U128 p = 1;
  for (int i = 0; i < n; ++i) p *= 3;
  return p;
}

std::string ToString(U128 value) {
  if (value == 0) return "0";
  std::string digits;
  while (value > 0) {
    digits += static_cast<char>('0' + static_cast<int>(value % 10));
    value /= 10;
  }
  std::reverse(digits.begin(), digits.end());
  return digits;
}

Chance ChanceOf(U128 count, int dice) {
  U128 den = Power3(dice);
  if (count == 0) return Chance{.exact = "0", .hundredths_percent = 0};
  // Percent x 100, rounded half up, in integers (the engine uses no floating point).
  const auto hundredths = static_cast<int64_t>((count * 20000 / den + 1) / 2);
  while (den % 3 == 0 && count % 3 == 0) {
    den /= 3;
    count /= 3;
  }
  return Chance{.exact = den == 1 ? ToString(count) : ToString(count) + "/" + ToString(den),
                .hundredths_percent = hundredths};
}

// Outcomes (out of 3^n) with h hits, h = 0..n: C(n,h) 2^(n-h).
std::vector<U128> HitCounts(int n) {
  std::vector<U128> counts(static_cast<size_t>(n) + 1, 0);
  counts[0] = 1;
  for (int die = 0; die < n; ++die) {
    for (int h = die + 1; h >= 0; --h) {
      const U128 miss = counts[static_cast<size_t>(h)] * 2;
      const U128 hit = h > 0 ? counts[static_cast<size_t>(h - 1)] : 0;
      counts[static_cast<size_t>(h)] = miss + hit;
    }
  }
  return counts;
}

}  // namespace

std::string DescribeEvent(const State& state, const Event& event) {
  switch (event.kind) {
    case EventKind::kSetUp: {
      const Situation& s = *event.situation;
      std::vector<std::string> attackers;
      std::vector<std::string> defenders;
      for (const Unit& unit : s.units) {
        (unit.role == Role::kAttacker ? attackers : defenders)
            .push_back(unit.id + (unit.role == Role::kSupport ? " (support)" : ""));
      }
      std::string text = std::string(Name(s.engagement)) + " set up" +
                         (s.location.empty() ? "" : " in " + s.location) + ": " +
                         SeatName(s.attacker) +
                         " attacks with " + Join(attackers, ", ") + "; " +
                         SeatName(Opponent(s.attacker)) + ": " + Join(defenders, ", ");
      if (s.engagement == Engagement::kCloseCombat) {
        text += "; the defender is in " + std::string(Name(DefendedCover(s))) + " cover (" +
                std::string(Name(s.position)) + "), Close Combat is " +
                (Optional(s) ? "optional" : "automatic") + " (17.1)";
      }
      return text;
    }
    case EventKind::kDeclarationSealed:
      return SeatName(event.seat) + " sealed its Close Combat declaration";
    case EventKind::kDeclarationsRevealed: {
      const Declare& a = *state.declared[SeatIndex(state.situation.attacker)];
      const Declare& d = *state.declared[SeatIndex(Opponent(state.situation.attacker))];
      if (!a.engage) return "declarations revealed: the attacker does not fight (17.1)";
      return "declarations revealed: the attacker's Units fight " +
             std::string(a.together ? "together" : "in sequence") +
             "; Supporting Fire from " + (d.support.empty() ? "none" : Join(d.support, ", ")) +
             " (17.2)";
    }
    case EventKind::kRoundRolled: {
      const RoundReport& r = *event.report;
      const Seat attacker = state.situation.attacker;
      std::string text = "combat " + std::to_string(r.combat + 1) + ", round " +
                         std::to_string(r.round) + ": ";
      std::vector<std::string> parts;
      for (Seat seat : {attacker, Opponent(attacker)}) {
        const size_t i = SeatIndex(seat);
        std::string part = SeatName(seat) + " " + DescribePool(r.pools[i]);
        if (!r.faces[i].empty() || (!r.overwhelmed && r.pools[i].dice > 0)) {
          part += " rolls " + Faces(r.faces[i]) + ": " + std::to_string(Hits(r, seat)) +
                  " hit(s), " + std::to_string(r.kills[i]) + " Kill(s) " +
                  std::to_string(r.shock[i]) + " Shock";
        }
        parts.push_back(std::move(part));
      }
      text += Join(parts, "; ");
      for (const std::string& note : r.notes) text += "; " + note;
      return text;
    }
    case EventKind::kPlacementSealed:
      return SeatName(event.seat) + " sealed its placement of odd hits";
    case EventKind::kPlacementsRevealed: return "odd-hit placements revealed (17.4.1)";
    case EventKind::kRoundEnded:
    case EventKind::kOverrun:
    case EventKind::kRam: {
      std::vector<std::string> parts;
      for (const Effect& effect : event.effects) parts.push_back(DescribeEffect(state, effect));
      for (const ForceMoraleTest& test : event.morale) {
        parts.push_back(SeatName(test.seat) + " Force Morale test (" + test.cause + ") d6 " +
                        std::to_string(test.die) + ": " +
                        (test.loss > 0 ? "-" + std::to_string(test.loss) : "no change") +
                        ", now " + std::to_string(test.level));
      }
      std::string text = event.kind == EventKind::kOverrun ? "17.7 over-run: "
                         : event.kind == EventKind::kRam   ? "17.8 ramming: "
                                                           : "";
      if (event.outcome) text += DescribeOutcome(*event.outcome) + (parts.empty() ? "" : ": ");
      text += Join(parts, "; ");
      for (const std::string& note : event.notes) text += "; " + note;
      return text;
    }
    case EventKind::kContactEnded: {
      std::string text = "the contact is over";
      for (const std::string& note : event.notes) text += "; " + note;
      return text;
    }
  }
  return "?";
}

Result<Preview> PreviewPools(int attacker_dice, int defender_dice) {
  if (attacker_dice < 0 || defender_dice < 0 ||
      attacker_dice + defender_dice > kMaxPreviewDice) {
    return Reject("17.4", "preview: pools of 0.." + std::to_string(kMaxPreviewDice) +
                              " dice in all");
  }
  Preview preview;
  preview.attacker_dice = attacker_dice;
  preview.defender_dice = defender_dice;
  const int a = attacker_dice;
  const int d = defender_dice;
  if ((a > 0 || d > 0) && a >= 4 * d) preview.overwhelmed = Seat::kSideB;
  if ((a > 0 || d > 0) && d >= 4 * a) preview.overwhelmed = Seat::kSideA;
  const std::vector<U128> hits_a = HitCounts(a);
  const std::vector<U128> hits_d = HitCounts(d);
  preview.lowest_margin = -d;
  std::vector<U128> margin(static_cast<size_t>(a + d) + 1, 0);
  for (int i = 0; i <= a; ++i) {
    for (int j = 0; j <= d; ++j) {
      margin[static_cast<size_t>(i - j + d)] +=
          hits_a[static_cast<size_t>(i)] * hits_d[static_cast<size_t>(j)];
    }
  }
  U128 wins = 0;
  U128 losses = 0;
  for (int k = -d; k <= a; ++k) {
    const U128 count = margin[static_cast<size_t>(k + d)];
    preview.margin.push_back(ChanceOf(count, a + d));
    if (k > 0) wins += count;
    if (k < 0) losses += count;
  }
  preview.attacker_wins = ChanceOf(wins, a + d);
  preview.defender_wins = ChanceOf(losses, a + d);
  preview.draw = ChanceOf(margin[static_cast<size_t>(d)], a + d);
  return preview;
}

Result<Preview> PreviewCombat(const State& state, const Declare& attacker,
                              const Declare& defender) {
  const Seat a = state.situation.attacker;
  if (auto ok = ValidateDeclaration(state, a, attacker); !ok) return tl::unexpected(ok.error());
  if (auto ok = ValidateDeclaration(state, Opponent(a), defender); !ok) {
    return tl::unexpected(ok.error());
  }
  // Reveal both on a copy to learn the first combat and the supporters.
  const CocRules rules;
  State work = state;
  for (const auto& [seat, declare] : {std::pair{a, attacker}, std::pair{Opponent(a), defender}}) {
    Event sealed;
    sealed.kind = EventKind::kDeclarationSealed;
    sealed.seat = seat;
    sealed.declare = declare;
    rules.Apply(work, sealed);
  }
  Event revealed;
  revealed.kind = EventKind::kDeclarationsRevealed;
  rules.Apply(work, revealed);
  if (work.combats.empty()) {
    return Reject("17.1", "preview: the attacker declines the Close Combat");
  }
  const std::vector<uint16_t>& first = work.combats.front();
  const Pool pool_a = CombatDice(work, a, first, work.supporters, 1);
  const Pool pool_d = CombatDice(work, Opponent(a), first, work.supporters, 1);
  auto preview = PreviewPools(pool_a.dice, pool_d.dice);
  if (!preview) return preview;
  if (preview->overwhelmed) preview->overwhelmed = *preview->overwhelmed == Seat::kSideB
                                                       ? Opponent(a)
                                                       : a;
  preview->pools[SeatIndex(a)] = pool_a;
  preview->pools[SeatIndex(Opponent(a))] = pool_d;
  return preview;
}

Result<Played> Play(const CocRules& rules, const Script& script, Dice& dice) {
  auto initial = rules.NewState(script.options);
  if (!initial) return tl::unexpected(initial.error());
  Played played;
  played.final_state = std::move(*initial);
  std::array<size_t, 2> next_place = {0, 0};
  const auto run = [&](Seat seat, const Command& command) -> Result<void> {
    auto events = rules.Decide(played.final_state, seat, command, dice);
    if (!events) return tl::unexpected(events.error());
    for (Event& event : *events) {
      played.states.push_back(played.final_state);
      rules.Apply(played.final_state, event);
      played.events.push_back(std::move(event));
    }
    return {};
  };
  const Seat attacker = script.situation.attacker;
  if (auto ok = run(attacker, SetUp{script.situation}); !ok) return tl::unexpected(ok.error());
  for (Seat seat : {attacker, Opponent(attacker)}) {
    if (played.final_state.phase != Phase::kDeclare) break;
    if (auto ok = run(seat, script.declarations[SeatIndex(seat)]); !ok) {
      return tl::unexpected(ok.error());
    }
  }
  while (played.final_state.phase == Phase::kPlace) {
    for (Seat seat : {attacker, Opponent(attacker)}) {
      const size_t i = SeatIndex(seat);
      if (!played.final_state.owes[i]) continue;
      Place place;
      if (next_place[i] < script.placements[i].size()) {
        place = script.placements[i][next_place[i]++];
      } else {
        place = DefaultPlacement(played.final_state, seat);
        played.defaults.push_back("[DEFAULT - NOT FROM RULES] " + SeatName(seat) +
                                  "'s odd hits placed on its first Teams");
      }
      if (auto ok = run(seat, place); !ok) return tl::unexpected(ok.error());
    }
  }
  return played;
}

}  // namespace melee::engine::coc
