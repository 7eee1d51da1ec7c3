// The rounds of a Chain of Command Close Combat (17.3-17.5), and the vehicle contacts (17.7,
// 17.8): every die, every hit and every result, as events applied one by one to a working state.

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

#include "engine/core/check.h"
#include "engine/coc/internal.h"

namespace melee::engine::coc::internal {
namespace {

std::string SeatName(Seat seat) { return std::string(Name(seat)); }

Event Make(EventKind kind, Seat seat) { return MakeEvent(kind, seat); }

// ---- 17.3 -----------------------------------------------------------------------------------

// The running total of one side's 17.3 table: each row that changes it is recorded with the total
// before and after.
struct Pooler {
  Pool pool;
  int total = 0;

  void Row(std::string rule, std::string what, int after) {
    if (after == total) return;
    pool.rows.push_back(DiceRow{.rule = std::move(rule), .what = std::move(what),
                                .before = total, .after = after});
    total = after;
  }
  void Add(std::string rule, std::string what, int delta) {
    Row(std::move(rule), std::move(what), total + delta);
  }
};

std::string Plural(int n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// Adds to `event` the Force Morale test (placeholder table, C.7) `seat` takes for `cause`,
// starting from the level the event's earlier tests left.
void AddMorale(const State& state, Event& event, Seat seat, std::string cause, Dice& dice) {
  int level = state.force_morale[SeatIndex(seat)];
  for (const ForceMoraleTest& earlier : event.morale) {
    if (earlier.seat == seat) level = earlier.level;
  }
  ForceMoraleTest test;
  test.seat = seat;
  test.cause = std::move(cause);
  test.die = dice.RollDie("Force Morale test (" + test.cause + ") [DEFAULT - NOT FROM RULES]");
  const bool drops = state.options.force_morale_drop_on[static_cast<size_t>(test.die - 1)];
  test.loss = drops ? std::min(level, state.options.force_morale_loss) : 0;
  test.level = level - test.loss;
  event.morale.push_back(std::move(test));
}

constexpr std::string_view kMoraleNote =
    "[DEFAULT - NOT FROM RULES] Force Morale tests use the placeholder table (C.7: a d6, on "
    "force_morale_drop_on Force Morale drops by force_morale_loss); the Bad Things Happen table "
    "was not found";

bool HasMoraleNote(const Event& event) {
  return std::find(event.notes.begin(), event.notes.end(), std::string(kMoraleNote)) !=
         event.notes.end();
}

void NoteMorale(Event& event) {
  if (!event.morale.empty() && !HasMoraleNote(event)) event.notes.emplace_back(kMoraleNote);
}

}  // namespace

Event MakeEvent(EventKind kind, Seat seat) {
  Event event;
  event.kind = kind;
  event.seat = seat;
  return event;
}

void Emit(const CocRules& rules, State& state, Dice& dice, std::vector<Event>& events,
          Event event) {
  event.rolls = dice.TakeRolls();
  rules.Apply(state, event);
  events.push_back(std::move(event));
}

std::optional<uint16_t> FindUnit(const State& state, std::string_view id) {
  for (size_t i = 0; i < state.units.size(); ++i) {
    if (state.units[i].id == id) return static_cast<uint16_t>(i);
  }
  return std::nullopt;
}

uint16_t DefenderUnit(const State& state) {
  for (size_t i = 0; i < state.units.size(); ++i) {
    if (state.units[i].role == Role::kDefender) return static_cast<uint16_t>(i);
  }
  MELEE_CHECK_MSG(false, "a coc close combat has a defending Unit");
  return 0;
}

std::vector<uint16_t> AttackingUnits(const State& state) {
  std::vector<uint16_t> attackers;
  for (size_t i = 0; i < state.units.size(); ++i) {
    if (state.units[i].role == Role::kAttacker) attackers.push_back(static_cast<uint16_t>(i));
  }
  return attackers;
}

std::vector<uint16_t> FightingUnits(const State& state, Seat seat, int combat) {
  std::vector<uint16_t> units;
  if (seat == state.situation.attacker) {
    if (combat < static_cast<int>(state.combats.size())) {
      units = state.combats[static_cast<size_t>(combat)];
    }
  } else {
    units.push_back(DefenderUnit(state));
  }
  std::erase_if(units, [&](uint16_t u) { return state.gone[u]; });
  return units;
}

std::vector<TeamRef> FightingTeams(const State& state, Seat seat, int combat) {
  std::vector<TeamRef> teams;
  for (uint16_t u : FightingUnits(state, seat, combat)) {
    const Unit& unit = state.units[u];
    for (size_t t = 0; t < unit.teams.size(); ++t) {
      if (unit.teams[t].figures > 0) teams.push_back(TeamRef{u, static_cast<uint16_t>(t)});
    }
  }
  return teams;
}

}  // namespace melee::engine::coc::internal

namespace melee::engine::coc {

using internal::SeatIndex;

Pool CombatDice(const State& state, Seat seat, const std::vector<uint16_t>& attackers,
                const std::vector<uint16_t>& supporters, int round) {
  const bool attacking = seat == state.situation.attacker;
  const bool first = round == 1;
  std::vector<uint16_t> fighting = attacking ? attackers
                                             : std::vector<uint16_t>{internal::DefenderUnit(state)};
  std::erase_if(fighting, [&](uint16_t u) { return state.gone[u]; });
  const Options& options = state.options;
  internal::Pooler p;

  int figures = 0;
  int orders = 0;
  int smgs = 0;
  int elite = 0;
  int green = 0;
  int shock_regular = 0;
  int shock_green = 0;
  bool pinned = false;
  bool rear = false;
  for (uint16_t u : fighting) {
    const Unit& unit = state.units[u];
    figures += TeamFigures(unit);
    for (const Team& team : unit.teams) smgs += team.figures > 0 ? std::min(team.smgs, team.figures) : 0;
    for (const Leader& leader : unit.leaders) {
      orders += OrdersNow(leader, options);
      if (leader.smg && Present(leader)) ++smgs;
    }
    if (unit.quality == Quality::kElite) ++elite;
    if (unit.quality == Quality::kGreen) {
      ++green;
      shock_green += Shock(unit);
    } else {
      shock_regular += Shock(unit) / 2;
    }
    pinned = pinned || Pinned(unit);
    rear = rear || unit.hit_in_rear;
  }
  p.Row("17.3", internal::Plural(figures, "figure", "figures") + " (Leaders not counted)",
        figures);
  p.Add("17.3", internal::Plural(orders, "Order", "Orders") + " the Leaders can issue", orders);
  if (!attacking) {
    int firepower = 0;
    for (uint16_t u : supporters) {
      if (!state.gone[u]) firepower += state.units[u].support_firepower;
    }
    p.Add("17.3", "Supporting Fire: " + internal::Plural(firepower, "Firepower die", "Firepower dice") +
                      ", +1 per two",
          firepower / 2);
  }
  p.Add("17.3", internal::Plural(elite, "Elite Unit", "Elite Units") + " (CoC-AMB-6: +2 each)",
        2 * elite);
  p.Add("17.3", internal::Plural(green, "Green Unit", "Green Units") + " (CoC-AMB-6: -2 each)",
        -2 * green);
  if (!attacking && first) {
    int movement = 0;
    for (uint16_t u : attackers) movement += state.units[u].movement_dice;
    p.Add("17.3", "the attacker used " + internal::Plural(movement, "D6", "D6") +
                      " of fully visible movement (first round, CoC-AMB-7)",
          movement);
  }
  p.Add("17.3", "Shock on Regular or Elite Units: -1 per two", -shock_regular);
  p.Add("17.3", "Shock on Green Units: -1 each", -shock_green);
  p.Add("17.3", internal::Plural(smgs, "SMG or assault rifle", "SMGs and assault rifles"), smgs);
  if (!attacking) {
    int lmg_arcs = 0;
    int mmg_arcs = 0;
    int suppressing = 0;
    const Unit& defender = state.units[internal::DefenderUnit(state)];
    for (const Team& team : defender.teams) {
      if (team.figures == 0) continue;
      bool arc = false;
      bool suppressed = false;
      for (uint16_t u : attackers) {
        const Unit& attacker = state.units[u];
        arc = arc || std::find(attacker.through_arcs.begin(), attacker.through_arcs.end(),
                               team.id) != attacker.through_arcs.end();
        suppressed = suppressed || std::find(attacker.through_suppressing_fire.begin(),
                                             attacker.through_suppressing_fire.end(),
                                             team.id) != attacker.through_suppressing_fire.end();
      }
      if (arc && first) {
        lmg_arcs += team.lmgs;
        mmg_arcs += team.mmgs;
      }
      if (suppressed) suppressing += team.lmgs + team.mmgs;
    }
    p.Add("17.3", internal::Plural(lmg_arcs, "LMG", "LMGs") +
                      " whose arc the attacker moved through (first round, +" +
                      std::to_string(options.lmg_arc_dice) + " each)",
          options.lmg_arc_dice * lmg_arcs);
    p.Add("17.3", internal::Plural(mmg_arcs, "MMG/HMG", "MMGs/HMGs") +
                      " whose arc the attacker moved through (first round, +4 each)",
          4 * mmg_arcs);
    p.Add("17.3", internal::Plural(suppressing, "machine gun", "machine guns") +
                      " whose Suppressing Fire the attacker moved through (+3 each)",
          3 * suppressing);
  }
  const Cover cover = DefendedCover(state.situation);
  if (attacking && first && cover == Cover::kLight) {
    const int n = std::max(p.total, 0);
    p.Row("17.3", options.light_cover_floor_two_thirds
                      ? "attacking an enemy in Light Cover: remove 1/3 (CoC-AMB-2: floor(2n/3))"
                      : "attacking an enemy in Light Cover: remove 1/3 (n - floor(n/3))",
          options.light_cover_floor_two_thirds ? 2 * n / 3 : n - n / 3);
  }
  if (attacking && first && cover == Cover::kHard) {
    p.Row(state.situation.position == Position::kOpen ? "17.3" : "17.6",
          "attacking an enemy in Hard Cover: remove half", std::max(p.total, 0) / 2);
  }
  if (first && rear && state.situation.position != Position::kBunkerEntrance) {
    p.Row("17.3", "hit in the rear in the first round: remove half", std::max(p.total, 0) / 2);
  }
  if (pinned) p.Row("17.3", "Pinned: remove half", std::max(p.total, 0) / 2);
  if (p.total < 0) p.Row("CoC-AMB-12", "no fewer than 0 dice", 0);
  p.pool.dice = p.total;
  return p.pool;
}

}  // namespace melee::engine::coc

namespace melee::engine::coc::internal {
namespace {

// Storm of Steel Bonus: Aggressive Units always (17.5.2), Stubborn ones when defending (17.5.3).
bool StormOfSteelApplies(const State& state, Seat seat, int combat) {
  const bool defending = seat != state.situation.attacker;
  for (uint16_t u : FightingUnits(state, seat, combat)) {
    const Unit& unit = state.units[u];
    if (unit.aggressive || (defending && unit.stubborn)) return true;
  }
  return false;
}

RoundReport RollRound(const State& state, Dice& dice) {
  RoundReport report;
  report.combat = state.combat;
  report.round = state.round + 1;
  const Seat attacker = state.situation.attacker;
  const Seat defender = Opponent(attacker);
  const std::vector<uint16_t>& attackers = state.combats[static_cast<size_t>(state.combat)];
  for (Seat seat : {attacker, defender}) {
    report.pools[SeatIndex(seat)] = CombatDice(state, seat, attackers, state.supporters,
                                               report.round);
  }
  const int a = report.pools[SeatIndex(attacker)].dice;
  const int d = report.pools[SeatIndex(defender)].dice;
  if (a == 0 && d == 0) {
    report.notes.emplace_back("CoC-AMB-12: 0 Combat Dice against 0: the Close Combat has no effect");
    return report;
  }
  if (a >= 4 * d) report.overwhelmed = defender;
  if (d >= 4 * a) report.overwhelmed = attacker;
  if (report.overwhelmed) {
    report.notes.push_back("17.3.1 Overwhelming Numbers: " + std::to_string(std::max(a, d)) +
                           " dice against " + std::to_string(std::min(a, d)) +
                           " (four times as many or more): no dice are rolled");
    return report;
  }
  for (Seat seat : {attacker, defender}) {
    const size_t i = SeatIndex(seat);
    std::vector<int> faces =
        dice.RollDice(report.pools[i].dice, "17.4 Combat Dice " + SeatName(seat));
    if (StormOfSteelApplies(state, seat, state.combat)) {
      const StormOfSteel storm = state.options.storm_of_steel;
      std::string note = std::string(kPlaceholder) + " CoC-AMB-9: the Storm of Steel Bonus " +
                         "(17.5.2/17.5.3) applies to " + SeatName(seat) + "; its effect is '" +
                         std::string(Name(storm)) + "' (option storm_of_steel)";
      int rerolled = 0;
      for (int& face : faces) {
        const bool reroll = (storm == StormOfSteel::kRerollOnes && face == 1) ||
                            (storm == StormOfSteel::kRerollMisses && face <= 4);
        if (!reroll) continue;
        face = dice.RollDie("Storm of Steel reroll " + SeatName(seat) +
                            " [DEFAULT - NOT FROM RULES]");
        ++rerolled;
      }
      if (storm != StormOfSteel::kNone) note += ": " + std::to_string(rerolled) + " rerolled";
      report.notes.push_back(std::move(note));
    }
    report.kills[i] = static_cast<int>(std::count(faces.begin(), faces.end(), 6));
    report.shock[i] = static_cast<int>(std::count(faces.begin(), faces.end(), 5));
    report.faces[i] = std::move(faces);
  }
  // 17.4.1: the hits each side receives, spread equally over its fighting Teams.
  for (Seat receiver : {attacker, defender}) {
    const size_t r = SeatIndex(receiver);
    const size_t from = SeatIndex(Opponent(receiver));
    const std::vector<TeamRef> teams = FightingTeams(state, receiver, state.combat);
    if (teams.empty()) continue;
    const int n = static_cast<int>(teams.size());
    const int kills = report.kills[from];
    const int shock = report.shock[from];
    for (TeamRef team : teams) {
      if (kills / n == 0 && shock / n == 0) continue;
      report.shares[r].push_back(TeamHits{.team = team, .kills = kills / n, .shock = shock / n});
    }
    report.odd_kills[r] = kills % n;
    report.odd_shock[r] = shock % n;
  }
  return report;
}

// The hits `receiver` takes this round: the even shares plus its placement of the odd ones.
std::vector<TeamHits> HitsOn(const State& state, Seat receiver) {
  const RoundReport& report = *state.report;
  const size_t r = SeatIndex(receiver);
  std::vector<TeamHits> hits;
  for (TeamRef team : FightingTeams(state, receiver, report.combat)) {
    hits.push_back(TeamHits{.team = team, .kills = 0, .shock = 0});
  }
  const auto at = [&](TeamRef team) -> TeamHits& {
    return *std::find_if(hits.begin(), hits.end(),
                         [&](const TeamHits& h) { return h.team == team; });
  };
  for (const TeamHits& share : report.shares[r]) {
    at(share.team).kills += share.kills;
    at(share.team).shock += share.shock;
  }
  if (const auto& place = state.placed[r]) {
    const auto ref = [&](const std::string& id) {
      for (const TeamHits& h : hits) {
        if (state.units[h.team.unit].teams[h.team.team].id == id) return h.team;
      }
      MELEE_CHECK_MSG(false, "a validated placement names fighting Teams");
      return TeamRef{};
    };
    for (const std::string& id : place->odd_kills) ++at(ref(id)).kills;
    for (const std::string& id : place->odd_shock) ++at(ref(id)).shock;
  }
  return hits;
}

// Applies `effect` to the working state and records it.
void Record(State& work, Event& event, Effect effect) {
  ApplyEffect(work, effect);
  event.effects.push_back(std::move(effect));
}

Effect OnTeam(EffectKind kind, TeamRef team, int value, std::string text = {}) {
  return Effect{.kind = kind, .team = team, .index = 0, .value = value, .text = std::move(text)};
}
Effect OnUnit(EffectKind kind, uint16_t unit, int value = 0, std::string text = {}) {
  return Effect{.kind = kind, .team = TeamRef{unit, 0}, .index = 0, .value = value,
                .text = std::move(text)};
}

// 17.4.1 with the overflow default, then 13.2.7 (placeholder) on the Teams that lost figures.
void TakeHits(State& work, Event& event, Seat receiver, const std::vector<TeamHits>& hits,
              Dice& dice) {
  std::vector<int> kills(hits.size(), 0);
  int overflow = 0;
  for (size_t i = 0; i < hits.size(); ++i) {
    const int figures = work.units[hits[i].team.unit].teams[hits[i].team.team].figures;
    kills[i] = std::min(hits[i].kills, figures);
    overflow += hits[i].kills - kills[i];
  }
  if (overflow > 0) {
    int lost = overflow;
    for (size_t i = 0; i < hits.size() && lost > 0; ++i) {
      const int left = work.units[hits[i].team.unit].teams[hits[i].team.team].figures - kills[i];
      const int extra = std::min(left, lost);
      kills[i] += extra;
      lost -= extra;
    }
    event.notes.push_back(std::string(kPlaceholder) + " C.3 step 6: " +
                          std::to_string(overflow) + " Kill(s) beyond a Team's figures went to " +
                          SeatName(receiver) + "'s other fighting Teams" +
                          (lost > 0 ? "; " + std::to_string(lost) + " found nobody" : ""));
  }
  for (size_t i = 0; i < hits.size(); ++i) {
    if (kills[i] > 0) Record(work, event, OnTeam(EffectKind::kKills, hits[i].team, kills[i]));
  }
  for (size_t i = 0; i < hits.size(); ++i) {
    if (hits[i].shock == 0) continue;
    const Team& team = work.units[hits[i].team.unit].teams[hits[i].team.team];
    if (team.figures == 0) {
      event.notes.push_back("C.1: " + team.id + " is wiped out; its " +
                            std::to_string(hits[i].shock) + " Shock is not transferred");
      continue;
    }
    Record(work, event, OnTeam(EffectKind::kShock, hits[i].team, hits[i].shock));
  }
  // 17.5.1: hits on Leaders, one d6 per Kill on the Team a Leader is with (placeholder, C.7).
  bool checked = false;
  for (size_t i = 0; i < hits.size(); ++i) {
    if (kills[i] == 0) continue;
    Unit& unit = work.units[hits[i].team.unit];
    for (size_t l = 0; l < unit.leaders.size(); ++l) {
      const Leader& leader = unit.leaders[l];
      const bool with_team = leader.team.empty() ? hits[i].team.team == 0
                                                 : leader.team == unit.teams[hits[i].team.team].id;
      if (!with_team || !Present(leader)) continue;
      checked = true;
      for (int k = 0; k < kills[i]; ++k) {
        const int die = dice.RollDie("13.2.7 hit on Leader " + leader.id +
                                     "? [DEFAULT - NOT FROM RULES]");
        if (!work.options.leader_hit_on[static_cast<size_t>(die - 1)]) continue;
        const int effect_die = dice.RollDie("13.2.7 effect on Leader " + leader.id +
                                            " [DEFAULT - NOT FROM RULES]");
        const LeaderHit hit = work.options.leader_hit_effects[static_cast<size_t>(effect_die - 1)];
        Effect effect = OnUnit(EffectKind::kLeaderHit, hits[i].team.unit, 0,
                               std::string(Name(hit)));
        effect.index = static_cast<uint16_t>(l);
        Record(work, event, effect);
        if (hit == LeaderHit::kKilled) AddMorale(work, event, receiver, "leader_killed", dice);
        break;
      }
    }
  }
  if (checked) {
    event.notes.push_back(std::string(kPlaceholder) +
                          " 17.5.1: hits on Leaders use the placeholder table (C.7: a d6 per "
                          "Kill on the Leader's Team, hit on leader_hit_on, effect by "
                          "leader_hit_effects); 13.2.7 was not found");
  }
}

bool SideOut(const State& work, Seat seat, int combat) {
  const std::vector<uint16_t> units = FightingUnits(work, seat, combat);
  return std::all_of(units.begin(), units.end(), [&](uint16_t u) {
    return WipedOut(work.units[u]) || BrokenByShock(work.units[u]);
  });
}

bool AllWipedOut(const State& work, Seat seat, int combat) {
  const std::vector<uint16_t> units = FightingUnits(work, seat, combat);
  return std::all_of(units.begin(), units.end(),
                     [&](uint16_t u) { return WipedOut(work.units[u]); });
}

bool AnyLeader(const State& work, const std::vector<uint16_t>& units,
               bool (*counts)(const Leader&)) {
  for (uint16_t u : units) {
    for (const Leader& leader : work.units[u].leaders) {
      if (counts(leader)) return true;
    }
  }
  return false;
}

// The losing Units retreat (17.5); `shock` more on each of their Teams; crewed weapons are
// abandoned (17.5.5); supporters withdraw with a losing defender (17.5.4).
void Withdraw(State& work, Event& event, Seat loser, const std::vector<uint16_t>& units,
              int inches, bool facing_away, int shock, Dice& dice, bool lost = true) {
  std::vector<uint16_t> withdrawing = units;
  if (lost && loser != work.situation.attacker) {
    for (uint16_t u : work.supporters) {
      if (work.gone[u]) continue;
      Record(work, event, OnUnit(EffectKind::kWithdrew, u, inches));
      withdrawing.push_back(u);
    }
  }
  for (uint16_t u : withdrawing) {
    if (work.gone[u]) continue;
    if (shock > 0) {
      const Unit& unit = work.units[u];
      for (size_t t = 0; t < unit.teams.size(); ++t) {
        if (unit.teams[t].figures == 0) continue;
        Record(work, event, OnTeam(EffectKind::kShock, TeamRef{u, static_cast<uint16_t>(t)},
                                   shock));
      }
    }
    Record(work, event, OnUnit(EffectKind::kRetreat, u, inches,
                               facing_away ? "facing away from the enemy" : "facing the enemy"));
    const Unit& unit = work.units[u];
    const bool crewed = std::any_of(unit.teams.begin(), unit.teams.end(), [](const Team& team) {
      return team.crewed_weapon && team.figures > 0;
    });
    if (crewed) {
      Record(work, event, OnUnit(EffectKind::kAbandoned, u));
      AddMorale(work, event, loser, "support_unit_lost", dice);
    }
  }
}

// 17.5.6: the loser's figures and Leaders still present are prisoners; the winner's guards
// (1 per prisoners_guard_ratio, rounded up) leave play with them.
void Surrender(State& work, Event& event, Seat loser, const std::vector<uint16_t>& units,
               Dice& dice) {
  int prisoners = 0;
  for (uint16_t u : units) {
    Unit& unit = work.units[u];
    prisoners += Figures(unit);
    for (size_t l = 0; l < unit.leaders.size(); ++l) {
      if (!Present(unit.leaders[l])) continue;
      Effect effect = OnUnit(EffectKind::kLeaderCaptured, u);
      effect.index = static_cast<uint16_t>(l);
      Record(work, event, effect);
      AddMorale(work, event, loser, "leader_captured", dice);
    }
    Record(work, event, OnUnit(EffectKind::kSurrendered, u, 0));
    AddMorale(work, event, loser, "unit_wiped_out", dice);
  }
  if (loser == Opponent(work.situation.attacker)) {
    for (uint16_t u : work.supporters) {
      if (!work.gone[u]) Record(work, event, OnUnit(EffectKind::kWithdrew, u, 0));
    }
  }
  const int ratio = work.options.prisoners_guard_ratio;
  int guards = (prisoners + ratio - 1) / ratio;
  std::vector<TeamRef> teams = FightingTeams(work, Opponent(loser), work.combat);
  std::stable_sort(teams.begin(), teams.end(), [&](TeamRef x, TeamRef y) {
    return work.units[x.unit].teams[x.team].figures > work.units[y.unit].teams[y.team].figures;
  });
  int taken = 0;
  for (TeamRef team : teams) {
    if (guards == 0) break;
    const int n = std::min(guards, work.units[team.unit].teams[team.team].figures);
    if (n == 0) continue;
    Record(work, event, OnTeam(EffectKind::kGuards, team, n));
    guards -= n;
    taken += n;
  }
  event.notes.push_back("17.5.6: " + std::to_string(prisoners) + " prisoner(s), " +
                        std::to_string(taken) + " guard(s) at 1 to " + std::to_string(ratio) +
                        " (" + std::string(kPlaceholder) + " C.7: rounded up, taken from the winner's largest "
                        "Teams); prisoners and guards are removed from play");
}

void Break(State& work, Event& event, Seat loser, const std::vector<uint16_t>& units, int shock,
           Dice& dice) {
  for (uint16_t u : units) {
    if (!work.units[u].broken) Record(work, event, OnUnit(EffectKind::kBroken, u));
  }
  Withdraw(work, event, loser, units, 18, true, shock, dice);
  for (size_t i = 0; i < units.size(); ++i) AddMorale(work, event, loser, "unit_broken", dice);
}

void WinnerMoves(State& work, Event& event, Seat winner, const std::vector<uint16_t>& units) {
  const auto& declared = work.declared[SeatIndex(winner)];
  const bool advance = declared && declared->advance;
  for (uint16_t u : units) {
    if (work.gone[u] || WipedOut(work.units[u])) continue;
    Record(work, event, OnUnit(advance ? EffectKind::kAdvanced : EffectKind::kHeld, u));
  }
}

Event EndRound(const State& state, Dice& dice) {
  State work = state;
  const RoundReport& report = *state.report;
  const Seat attacker = state.situation.attacker;
  const Seat defender = Opponent(attacker);
  const int combat = report.combat;
  const std::vector<uint16_t> units_a = FightingUnits(state, attacker, combat);
  const std::vector<uint16_t> units_d = FightingUnits(state, defender, combat);
  const auto units_of = [&](Seat seat) { return seat == attacker ? units_a : units_d; };
  Event event = Make(EventKind::kRoundEnded, attacker);
  Outcome outcome;

  const int a = report.pools[SeatIndex(attacker)].dice;
  const int d = report.pools[SeatIndex(defender)].dice;
  if (a == 0 && d == 0) {
    outcome.kind = OutcomeKind::kNone;
  } else if (report.overwhelmed) {
    // 17.3.1: surrender without a Leader present; with one, Break and flee 18".
    const Seat loser = *report.overwhelmed;
    const Seat winner = Opponent(loser);
    outcome.winner = winner;
    if (AnyLeader(work, units_of(loser), &Present)) {
      outcome.kind = OutcomeKind::kBroken;
      outcome.retreat_inches = 18;
      outcome.facing_away = true;
      outcome.shock_per_team = 3;
      Break(work, event, loser, units_of(loser), 3, dice);
    } else {
      outcome.kind = OutcomeKind::kSurrendered;
      Surrender(work, event, loser, units_of(loser), dice);
    }
    WinnerMoves(work, event, winner, units_of(winner));
  } else {
    for (Seat receiver : {attacker, defender}) {
      TakeHits(work, event, receiver, HitsOn(state, receiver), dice);
    }
    const bool out_a = SideOut(work, attacker, combat);
    const bool out_d = SideOut(work, defender, combat);
    const int hits_a = Hits(report, attacker);
    const int hits_d = Hits(report, defender);
    if (out_a && out_d) {
      outcome.kind = OutcomeKind::kMutual;
      event.notes.emplace_back("CoC-AMB-5: both sides wiped out or broken: no winner, no advance");
      for (Seat seat : {attacker, defender}) {
        for (uint16_t u : units_of(seat)) {
          if (WipedOut(work.units[u])) {
            AddMorale(work, event, seat, "unit_wiped_out", dice);
          } else {
            Record(work, event, OnUnit(EffectKind::kBroken, u));
            AddMorale(work, event, seat, "unit_broken", dice);
          }
        }
      }
    } else if (out_a || out_d) {
      // 17.5: wiped out or broken by Shock: the opponent wins whatever the hits.
      const Seat loser = out_a ? attacker : defender;
      const Seat winner = Opponent(loser);
      outcome.winner = winner;
      outcome.margin = Hits(report, winner) - Hits(report, loser);
      if (AllWipedOut(work, loser, combat)) {
        outcome.kind = OutcomeKind::kWipedOut;
        for (size_t i = 0; i < units_of(loser).size(); ++i) {
          AddMorale(work, event, loser, "unit_wiped_out", dice);
        }
        if (loser == defender) {
          for (uint16_t u : work.supporters) {
            if (!work.gone[u]) Record(work, event, OnUnit(EffectKind::kWithdrew, u, 0));
          }
        }
      } else {
        outcome.kind = OutcomeKind::kBrokeByShock;
        outcome.retreat_inches = 18;
        outcome.facing_away = true;
        event.notes.push_back(std::string(kPlaceholder) +
                              " 17.5: a side broken by Shock flees as a Broken Unit does "
                              "(18\", facing away, a Force Morale test for a Unit Breaking)");
        std::vector<uint16_t> standing;
        for (uint16_t u : units_of(loser)) {
          if (!WipedOut(work.units[u])) standing.push_back(u);
          else AddMorale(work, event, loser, "unit_wiped_out", dice);
        }
        Break(work, event, loser, standing, 0, dice);
      }
      WinnerMoves(work, event, winner, units_of(winner));
    } else {
      const int margin = hits_a - hits_d;
      const Seat loser = margin > 0 ? defender : attacker;
      const Seat winner = Opponent(loser);
      const std::vector<uint16_t> losers = units_of(loser);
      bool draw = margin == 0;
      if (std::abs(margin) == 1) {
        const bool refights = std::all_of(losers.begin(), losers.end(), [&](uint16_t u) {
          const Unit& unit = work.units[u];
          return unit.aggressive || (unit.stubborn && loser == defender);
        });
        if (refights) {
          draw = true;
          event.notes.push_back(std::string("17.5: ") + SeatName(loser) +
                                "'s Aggressive or Stubborn (defending) Units treat a Defeat by "
                                "One as a Draw");
        }
      }
      if (draw) {
        if (report.round < state.options.max_rounds) {
          outcome.kind = OutcomeKind::kFightAgain;
        } else {
          outcome.kind = OutcomeKind::kRetire;
          outcome.retreat_inches = 6;
          event.notes.push_back("17.5: a Draw after " + std::to_string(report.round) +
                                " round(s) (max_rounds, CoC-AMB-3): both sides retire 6\"");
          for (Seat seat : {attacker, defender}) {
            std::vector<uint16_t> retiring = units_of(seat);
            Withdraw(work, event, seat, retiring, 6, false, 0, dice, /*lost=*/false);
          }
        }
      } else {
        outcome.winner = winner;
        outcome.margin = std::abs(margin);
        if (outcome.margin >= 4) {
          // CoC-AMB-4: "Defeated by Four" is four or more.
          if (AnyLeader(work, losers, &Active)) {
            outcome.kind = OutcomeKind::kBroken;
            outcome.retreat_inches = 18;
            outcome.facing_away = true;
            outcome.shock_per_team = 3;
            Break(work, event, loser, losers, 3, dice);
          } else {
            outcome.kind = OutcomeKind::kSurrendered;
            Surrender(work, event, loser, losers, dice);
          }
        } else {
          outcome.kind = OutcomeKind::kDefeated;
          outcome.retreat_inches = outcome.margin == 1 ? 6 : outcome.margin == 2 ? 9 : 12;
          outcome.facing_away = outcome.margin == 3;
          outcome.shock_per_team = outcome.margin - 1;
          Withdraw(work, event, loser, losers, outcome.retreat_inches, outcome.facing_away,
                   outcome.shock_per_team, dice);
        }
        WinnerMoves(work, event, winner, units_of(winner));
      }
    }
  }
  NoteMorale(event);
  event.outcome = outcome;
  return event;
}

// Whether the next combat of a sequence is fought [DEFAULT - NOT FROM RULES]: only when the
// defender won the last one and still stands.
bool NextCombat(const State& state) {
  if (state.combat >= static_cast<int>(state.combats.size())) return false;
  if (state.combat == 0) return true;
  const Outcome& last = state.outcomes.back();
  const uint16_t defender = DefenderUnit(state);
  const Unit& unit = state.units[defender];
  return last.winner == Opponent(state.situation.attacker) && !state.gone[defender] &&
         !WipedOut(unit) && !unit.broken;
}

}  // namespace

void ApplyEffect(State& state, const Effect& effect) {
  Unit& unit = state.units[effect.team.unit];
  switch (effect.kind) {
    case EffectKind::kKills: {
      Team& team = unit.teams[effect.team.team];
      team.figures = std::max(0, team.figures - effect.value);
      team.smgs = std::min(team.smgs, team.figures);
      if (team.figures == 0) team.shock = 0;  // C.1: a wiped-out Team's Shock is removed
      break;
    }
    case EffectKind::kGuards: {
      Team& team = unit.teams[effect.team.team];
      team.figures = std::max(0, team.figures - effect.value);
      team.smgs = std::min(team.smgs, team.figures);
      if (team.figures == 0) team.shock = 0;
      break;
    }
    case EffectKind::kShock:
      unit.teams[effect.team.team].shock += effect.value;
      break;
    case EffectKind::kLeaderHit: {
      Leader& leader = unit.leaders[effect.index];
      leader.status = effect.text == "killed"    ? LeaderStatus::kKilled
                      : effect.text == "wounded" ? LeaderStatus::kWounded
                                                 : LeaderStatus::kStunned;
      break;
    }
    case EffectKind::kLeaderCaptured:
      unit.leaders[effect.index].status = LeaderStatus::kCaptured;
      break;
    case EffectKind::kBroken:
      unit.broken = true;
      break;
    case EffectKind::kSurrendered:
    case EffectKind::kAbandoned:
      state.gone[effect.team.unit] = true;
      if (effect.team.unit < state.left.size()) {
        state.left[effect.team.unit] =
            effect.kind == EffectKind::kSurrendered ? Left::kSurrendered : Left::kRemoved;
      }
      break;
    case EffectKind::kDestroyed: {
      Team& team = unit.teams[effect.team.team];
      team.figures = 0;
      team.shock = 0;
      team.smgs = 0;
      break;
    }
    case EffectKind::kVehicleShock:
      unit.vehicle_shock += effect.value;
      break;
    case EffectKind::kRetreat:
    case EffectKind::kWithdrew:
      if (effect.team.unit < state.left.size() && state.left[effect.team.unit] == Left::kStayed) {
        state.left[effect.team.unit] = Left::kRetreated;
      }
      break;
    case EffectKind::kAdvanced:
    case EffectKind::kHeld:
    case EffectKind::kEvaded:
    case EffectKind::kMovedAway:
      break;
  }
}

void Advance(const CocRules& rules, State& state, Dice& dice, std::vector<Event>& events) {
  while (state.phase != Phase::kEnded && !state.owes[0] && !state.owes[1]) {
    if (state.report) {
      Emit(rules, state, dice, events, EndRound(state, dice));
      continue;
    }
    const bool fight_again = state.round > 0 && !state.outcomes.empty() &&
                             state.outcomes.back().kind == OutcomeKind::kFightAgain;
    if (fight_again || NextCombat(state)) {
      Event event = Make(EventKind::kRoundRolled, state.situation.attacker);
      event.report = RollRound(state, dice);
      Emit(rules, state, dice, events, std::move(event));
      continue;
    }
    Event end = Make(EventKind::kContactEnded, state.situation.attacker);
    if (state.combats.empty()) {
      end.notes.emplace_back("17.1: the attacker chose not to fight: no Close Combat");
    } else if (state.combat < static_cast<int>(state.combats.size())) {
      end.notes.push_back(std::string(kPlaceholder) + " 17.2: the defender no longer holds its "
                          "ground, so the attacking Units still in sequence do not fight");
    }
    Emit(rules, state, dice, events, std::move(end));
  }
}

void ResolveVehicleContact(const CocRules& rules, State& state, Dice& dice,
                           std::vector<Event>& events) {
  const Seat attacker = state.situation.attacker;
  State work = state;
  if (state.situation.engagement == Engagement::kRam) {
    Event event = Make(EventKind::kRam, attacker);
    const uint16_t a = AttackingUnits(state).front();
    const uint16_t d = DefenderUnit(state);
    const auto crash = [&](uint16_t u) {
      const Unit& unit = state.units[u];
      const std::vector<int> faces =
          dice.RollDice(unit.armour, "17.8 Crash Hits " + unit.id);
      return static_cast<int>(std::count_if(faces.begin(), faces.end(),
                                            [](int face) { return face >= 5; }));
    };
    const int hits_a = crash(a);
    const int hits_d = crash(d);
    event.notes.push_back("17.8: " + state.units[a].id + " " + std::to_string(hits_a) +
                          " Crash Hit(s), " + state.units[d].id + " " + std::to_string(hits_d) +
                          "; both vehicles bounce off");
    Record(work, event, OnUnit(EffectKind::kVehicleShock, a, hits_a >= hits_d ? 2 : 3));
    Record(work, event, OnUnit(EffectKind::kVehicleShock, d, hits_d >= hits_a ? 2 : 3));
    Emit(rules, state, dice, events, std::move(event));
  } else {
    Event event = Make(EventKind::kOverrun, attacker);
    bool fired = false;
    for (size_t u = 0; u < state.units.size(); ++u) {
      const Unit& unit = state.units[u];
      if (unit.role != Role::kDefender) continue;
      const Seat owner = unit.side;
      const bool was_wiped = WipedOut(work.units[u]);
      bool weapon_lost = false;  // its own Force Morale test, not a second one for the Unit
      for (size_t t = 0; t < unit.teams.size(); ++t) {
        const TeamRef ref{static_cast<uint16_t>(u), static_cast<uint16_t>(t)};
        const Team& team = work.units[u].teams[t];
        if (team.figures == 0) continue;
        if (team.crewed_weapon) {
          if (dice.RollDie("17.7.1 crewed weapon " + team.id + " avoids on a 6") == 6) {
            Record(work, event, OnTeam(EffectKind::kEvaded, ref, 3));
          } else {
            Record(work, event, OnTeam(EffectKind::kDestroyed, ref, 0));
            weapon_lost = true;
            AddMorale(work, event, owner, "support_weapon_destroyed", dice);
          }
          continue;
        }
        const int shock = team.shock;
        if (dice.RollDie("17.7 " + team.id + " evades above its Shock " +
                         std::to_string(shock)) > shock) {
          const std::vector<int> distance = dice.RollDice(2, "17.7 evade distance " + team.id);
          Record(work, event, OnTeam(EffectKind::kEvaded, ref, distance[0] + distance[1]));
          continue;
        }
        fired = true;
        const int hits = dice.RollDie("17.7 over-run hits on " + team.id);
        int kills = 0;
        int added = 0;
        for (int h = 0; h < hits; ++h) {
          const int face = dice.RollDie("17.7 over-run hit effect vs Light Cover on " + team.id +
                                        " [DEFAULT - NOT FROM RULES]");
          const HitEffect effect = state.options.overrun_hit_effects[static_cast<size_t>(face - 1)];
          if (effect == HitEffect::kKill) ++kills;
          if (effect == HitEffect::kShock) ++added;
        }
        kills = std::min(kills, team.figures);
        if (kills > 0) Record(work, event, OnTeam(EffectKind::kKills, ref, kills));
        if (added > 0 && work.units[u].teams[t].figures > 0) {
          Record(work, event, OnTeam(EffectKind::kShock, ref, added));
        }
        if (work.units[u].teams[t].figures > 0) {
          Record(work, event, OnTeam(EffectKind::kMovedAway, ref, 4));
        }
      }
      if (!was_wiped && !weapon_lost && WipedOut(work.units[u])) {
        AddMorale(work, event, owner, "unit_wiped_out", dice);
      }
    }
    if (fired) {
      event.notes.push_back(std::string(kPlaceholder) +
                            " 17.7: each over-run hit's effect vs Light Cover uses the "
                            "placeholder table overrun_hit_effects (the firing rules were not "
                            "found, SPEC-NOTES D.1)");
    }
    NoteMorale(event);
    Emit(rules, state, dice, events, std::move(event));
  }
  Emit(rules, state, dice, events, Make(EventKind::kContactEnded, attacker));
}

}  // namespace melee::engine::coc::internal
