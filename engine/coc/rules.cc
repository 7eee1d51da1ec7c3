#include "engine/coc/rules.h"

#include <algorithm>
#include <set>
#include <utility>

#include "engine/core/check.h"
#include "engine/coc/internal.h"

namespace melee::engine::coc {

using internal::SeatIndex;

namespace {

std::string SeatName(Seat seat) { return std::string(Name(seat)); }

using internal::Emit;

Event Make(EventKind kind, Seat seat) { return internal::MakeEvent(kind, seat); }

// Checks that `ids` name distinct Teams of `teams` in `state`; `what` names the list.
Result<void> CheckTeams(const State& state, const std::vector<TeamRef>& teams,
                        const std::vector<std::string>& ids, size_t expected,
                        const std::string& what, Seat seat) {
  if (ids.size() != expected) {
    return Reject("17.4.1", "place." + what + ": " + SeatName(seat) + " places " +
                                std::to_string(expected) + " odd " +
                                (what == "odd_kills" ? "Kill(s)" : "Shock") + ", not " +
                                std::to_string(ids.size()));
  }
  std::set<std::string> seen;
  for (const std::string& id : ids) {
    const bool fighting = std::any_of(teams.begin(), teams.end(), [&](TeamRef team) {
      return state.units[team.unit].teams[team.team].id == id;
    });
    if (!fighting) {
      return Reject("17.4.1", "place." + what + ": '" + id + "' is not a fighting Team of " +
                                  SeatName(seat) + " (Supporting Units never suffer hits)");
    }
    if (!seen.insert(id).second) {
      return Reject("17.4.1", "place." + what + ": only one odd " +
                                  std::string(what == "odd_kills" ? "Kill" : "Shock") +
                                  " can be apportioned to any single Team ('" + id + "' twice)");
    }
  }
  return {};
}

}  // namespace

std::string_view Name(OutcomeKind kind) {
  switch (kind) {
    case OutcomeKind::kNone: return "none";
    case OutcomeKind::kFightAgain: return "fight_again";
    case OutcomeKind::kRetire: return "retire";
    case OutcomeKind::kDefeated: return "defeated";
    case OutcomeKind::kBroken: return "broken";
    case OutcomeKind::kSurrendered: return "surrendered";
    case OutcomeKind::kWipedOut: return "wiped_out";
    case OutcomeKind::kBrokeByShock: return "broke_by_shock";
    case OutcomeKind::kMutual: return "mutual";
  }
  return "?";
}

std::vector<std::string_view> CocRules::Variants() const { return {"2e"}; }

Result<State> CocRules::NewState(const MatchOptions& options) const {
  auto parsed = ParseOptions(options);
  if (!parsed) return tl::unexpected(parsed.error());
  State state;
  state.options = *parsed;
  return state;
}

Result<void> ValidateDeclaration(const State& state, Seat seat, const Declare& declare) {
  if (state.phase != Phase::kDeclare || !state.owes[SeatIndex(seat)]) {
    return Reject("17.2", SeatName(seat) + " has no Close Combat declaration to make now");
  }
  const bool attacking = seat == state.situation.attacker;
  if (attacking) {
    if (!declare.support.empty()) {
      return Reject("17.2", "declaration.support: only the defender's Units within 4\" of it "
                            "choose their support (CoC-AMB-8)");
    }
    if (!declare.engage && !Optional(state.situation)) {
      return Reject("17.1", "declaration.engage: with nothing greater than a single Minor "
                            "Obstacle between the Units, Close Combat occurs automatically");
    }
    const std::vector<uint16_t> attackers = internal::AttackingUnits(state);
    if (declare.together && !declare.sequence.empty()) {
      return Reject("17.2", "declaration.sequence: only for Units fighting in sequence "
                            "(together false)");
    }
    if (!declare.together && !declare.sequence.empty()) {
      std::set<std::string> seen;
      for (const std::string& id : declare.sequence) {
        const auto unit = internal::FindUnit(state, id);
        if (!unit || state.units[*unit].role != Role::kAttacker) {
          return Reject("17.2", "declaration.sequence: '" + id + "' is not an attacking Unit");
        }
        if (!seen.insert(id).second) {
          return Reject("17.2", "declaration.sequence: '" + id + "' is listed twice");
        }
      }
      if (seen.size() != attackers.size()) {
        return Reject("17.2", "declaration.sequence: list every attacking Unit (" +
                                  std::to_string(attackers.size()) + ") or none");
      }
    }
    return {};
  }
  if (!declare.engage) {
    return Reject("17.1", "declaration.engage: only the active player chooses whether an "
                          "optional Close Combat occurs");
  }
  if (!declare.together || !declare.sequence.empty()) {
    return Reject("17.2", "declaration.together/sequence: only the attacker chooses whether its "
                          "Units fight together or in sequence");
  }
  std::set<std::string> seen;
  for (const std::string& id : declare.support) {
    const auto unit = internal::FindUnit(state, id);
    if (!unit || state.units[*unit].role != Role::kSupport) {
      return Reject("17.2", "declaration.support: '" + id +
                                "' is not a Unit of the defender's within 4\" of it");
    }
    if (!seen.insert(id).second) {
      return Reject("17.2", "declaration.support: '" + id + "' is listed twice");
    }
    if (!state.options.support_fire_allowed) {
      return Reject("17.2", "declaration.support: this match's supporting_options do not "
                            "include supporting_fire");
    }
    if (state.units[*unit].support_firepower == 0) {
      return Reject("17.2", "declaration.support: " + id +
                                " has no figures with Line of Sight to the attacking enemy "
                                "(support_firepower 0); only those may fire Supporting Fire");
    }
  }
  return {};
}

Result<void> ValidatePlacement(const State& state, Seat seat, const Place& place) {
  if (state.phase != Phase::kPlace || !state.owes[SeatIndex(seat)] || !state.report) {
    return Reject("17.4.1", SeatName(seat) + " has no odd hits to place now");
  }
  const RoundReport& report = *state.report;
  const std::vector<TeamRef> teams = internal::FightingTeams(state, seat, report.combat);
  const size_t i = SeatIndex(seat);
  if (auto ok = CheckTeams(state, teams, place.odd_kills,
                           static_cast<size_t>(report.odd_kills[i]), "odd_kills", seat);
      !ok) {
    return ok;
  }
  return CheckTeams(state, teams, place.odd_shock, static_cast<size_t>(report.odd_shock[i]),
                    "odd_shock", seat);
}

Declare DefaultDeclaration(const State& state, Seat seat) {
  Declare declare;
  if (seat == state.situation.attacker) {
    declare.engage = !Optional(state.situation);
    return declare;
  }
  if (!state.options.support_fire_allowed) return declare;
  for (const Unit& unit : state.units) {
    if (unit.role == Role::kSupport && unit.support_firepower > 0) {
      declare.support.push_back(unit.id);
    }
  }
  return declare;
}

Place DefaultPlacement(const State& state, Seat seat) {
  Place place;
  if (!state.report) return place;
  const size_t i = SeatIndex(seat);
  const std::vector<TeamRef> teams = internal::FightingTeams(state, seat, state.report->combat);
  for (int k = 0; k < state.report->odd_kills[i]; ++k) {
    place.odd_kills.push_back(state.units[teams[static_cast<size_t>(k)].unit]
                                  .teams[teams[static_cast<size_t>(k)].team].id);
  }
  for (int k = 0; k < state.report->odd_shock[i]; ++k) {
    place.odd_shock.push_back(state.units[teams[static_cast<size_t>(k)].unit]
                                  .teams[teams[static_cast<size_t>(k)].team].id);
  }
  return place;
}

Result<std::vector<Event>> CocRules::Decide(const State& state, Seat seat, const Command& command,
                                            Dice& dice) const {
  State work = state;
  std::vector<Event> events;
  if (const auto* setup = std::get_if<SetUp>(&command)) {
    if (state.phase != Phase::kSetUp) return Reject("", "the contact is already set up");
    if (auto ok = ValidateSituation(setup->situation); !ok) return tl::unexpected(ok.error());
    Event event = Make(EventKind::kSetUp, seat);
    event.situation = setup->situation;
    Emit(*this, work, dice, events, std::move(event));
    if (setup->situation.engagement != Engagement::kCloseCombat) {
      internal::ResolveVehicleContact(*this, work, dice, events);
    }
    return events;
  }
  if (const auto* declare = std::get_if<Declare>(&command)) {
    if (auto ok = ValidateDeclaration(state, seat, *declare); !ok) {
      return tl::unexpected(ok.error());
    }
    Event sealed = Make(EventKind::kDeclarationSealed, seat);
    sealed.declare = *declare;
    Emit(*this, work, dice, events, std::move(sealed));
    if (work.owes[SeatIndex(Opponent(seat))]) return events;
    Emit(*this, work, dice, events, Make(EventKind::kDeclarationsRevealed, seat));
    internal::Advance(*this, work, dice, events);
    return events;
  }
  const Place& place = std::get<Place>(command);
  if (auto ok = ValidatePlacement(state, seat, place); !ok) return tl::unexpected(ok.error());
  Event sealed = Make(EventKind::kPlacementSealed, seat);
  sealed.place = place;
  Emit(*this, work, dice, events, std::move(sealed));
  if (work.owes[SeatIndex(Opponent(seat))]) return events;
  Emit(*this, work, dice, events, Make(EventKind::kPlacementsRevealed, seat));
  internal::Advance(*this, work, dice, events);
  return events;
}

void CocRules::Apply(State& state, const Event& event) const {
  switch (event.kind) {
    case EventKind::kSetUp:
      MELEE_CHECK(event.situation.has_value());
      state.situation = *event.situation;
      state.units = state.situation.units;
      state.gone.assign(state.units.size(), false);
      state.left.assign(state.units.size(), Left::kStayed);
      state.force_morale = state.situation.force_morale;
      if (state.situation.engagement == Engagement::kCloseCombat) {
        state.phase = Phase::kDeclare;
        state.owes = {true, true};
      }
      break;
    case EventKind::kDeclarationSealed:
      MELEE_CHECK(event.declare.has_value());
      state.declared[SeatIndex(event.seat)] = *event.declare;
      state.owes[SeatIndex(event.seat)] = false;
      break;
    case EventKind::kDeclarationsRevealed: {
      state.declarations_revealed = true;
      const Declare& attacker = *state.declared[SeatIndex(state.situation.attacker)];
      const Declare& defender = *state.declared[SeatIndex(Opponent(state.situation.attacker))];
      state.combats.clear();
      if (attacker.engage) {
        const std::vector<uint16_t> units = internal::AttackingUnits(state);
        if (attacker.together) {
          state.combats.push_back(units);
        } else if (attacker.sequence.empty()) {
          for (uint16_t u : units) state.combats.push_back({u});
        } else {
          for (const std::string& id : attacker.sequence) {
            state.combats.push_back({*internal::FindUnit(state, id)});
          }
        }
      }
      state.supporters.clear();
      for (const std::string& id : defender.support) {
        state.supporters.push_back(*internal::FindUnit(state, id));
      }
      break;
    }
    case EventKind::kRoundRolled:
      MELEE_CHECK(event.report.has_value());
      state.report = *event.report;
      state.phase = Phase::kPlace;
      for (size_t i = 0; i < 2; ++i) {
        state.owes[i] = event.report->odd_kills[i] > 0 || event.report->odd_shock[i] > 0;
      }
      break;
    case EventKind::kPlacementSealed:
      MELEE_CHECK(event.place.has_value());
      state.placed[SeatIndex(event.seat)] = *event.place;
      state.owes[SeatIndex(event.seat)] = false;
      break;
    case EventKind::kPlacementsRevealed:
      state.placements_revealed = true;
      break;
    case EventKind::kRoundEnded:
    case EventKind::kOverrun:
    case EventKind::kRam:
      for (const Effect& effect : event.effects) internal::ApplyEffect(state, effect);
      for (const ForceMoraleTest& test : event.morale) {
        state.force_morale[SeatIndex(test.seat)] = test.level;
      }
      if (event.kind == EventKind::kRoundEnded) {
        MELEE_CHECK(event.outcome.has_value());
        state.outcomes.push_back(*event.outcome);
        state.report.reset();
        state.placed = {};
        state.placements_revealed = false;
        state.round += 1;
        if (event.outcome->kind != OutcomeKind::kFightAgain) {
          state.combat += 1;
          state.round = 0;
        }
      }
      break;
    case EventKind::kContactEnded:
      state.phase = Phase::kEnded;
      state.owes = {false, false};
      break;
  }
}

View CocRules::MakeView(const State& state, Viewer viewer) const {
  View view;
  view.phase = state.phase;
  view.situation = state.situation;
  view.units = state.units;
  view.gone = state.gone;
  view.force_morale = state.force_morale;
  view.owes = state.owes;
  view.report = state.report;
  view.outcomes = state.outcomes;
  for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
    const size_t i = SeatIndex(seat);
    const bool own = viewer == ViewerOf(seat);
    view.has_sealed[i] = (state.phase == Phase::kDeclare && state.declared[i].has_value()) ||
                         (state.phase == Phase::kPlace && state.placed[i].has_value());
    if (state.declared[i] && (own || state.declarations_revealed)) {
      view.declarations[i] = state.declared[i];
    }
    if (state.placed[i] && (own || state.placements_revealed)) view.placements[i] = state.placed[i];
  }
  return view;
}

std::unique_ptr<const Ruleset> MakeCocRuleset() {
  return std::make_unique<TypedRuleset<CocRules>>();
}

std::string_view UnitId(const State& state, size_t index) {
  return index < state.units.size() ? std::string_view(state.units[index].id) : "?";
}

std::string TeamName(const State& state, TeamRef team) {
  if (team.unit >= state.units.size() || team.team >= state.units[team.unit].teams.size()) {
    return "?";
  }
  return state.units[team.unit].teams[team.team].id;
}

}  // namespace melee::engine::coc
