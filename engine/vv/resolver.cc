// VvRules: Decide, Apply and MakeView — the flow of one close assault (protocol.h).

#include <algorithm>
#include <type_traits>
#include <utility>

#include "engine/core/check.h"
#include "engine/vv/internal.h"
#include "engine/vv/rules.h"

namespace melee::engine::vv {
namespace {

using internal::FindUnit;
using internal::SeatIndex;

// Decides the events of one command on a working copy of the state, applying each as it goes.
class Resolver {
 public:
  Resolver(const VvRules& rules, const State& state, Dice& dice)
      : rules_(rules), work_(state), dice_(dice) {}

  Result<std::vector<Event>> SetUp(const vv::SetUp& command);
  Result<std::vector<Event>> Declare(Seat seat, const vv::Declare& command);
  Result<std::vector<Event>> Allocate(Seat seat, const vv::Allocate& command);

 private:
  Event& Emit(Event event) {
    event.rolls = dice_.TakeRolls();
    rules_.Apply(work_, event);
    events_.push_back(std::move(event));
    return events_.back();
  }
  static Event Make(EventKind kind, Seat seat) {
    Event event;
    event.kind = kind;
    event.seat = seat;
    return event;
  }

  void ResolveAssault();
  // Applies each owing side's allocation (attacker first), then ends the assault.
  void ApplyCasualties(const std::array<std::optional<Allocation>, 2>& allocations);
  Event Casualties(Seat seat, const Allocation& allocation, std::vector<std::string> notes);
  void EndAssault(std::vector<std::string> notes);
  // Moves the surviving assaulters into the target hex, at most its capacity.
  void Occupy(Event& event, const std::vector<std::string>& chosen);

  const VvRules& rules_;
  State work_;
  Dice& dice_;
  std::vector<Event> events_;
};

Result<std::vector<Event>> Resolver::SetUp(const vv::SetUp& command) {
  if (work_.phase != Phase::kSetUp) return Reject("", "the close assault is already set up");
  if (auto ok = ValidateSituation(command.situation); !ok) return tl::unexpected(ok.error());
  if (command.situation.source_assaulted_this_turn && work_.options.one_assault_per_hex) {
    return Reject("15.1", "only one close assault may be conducted from a hex each turn, and " +
                              (command.situation.source_hex.empty()
                                   ? std::string("the source hex")
                                   : command.situation.source_hex) +
                              " has already assaulted (option one_assault_per_hex)");
  }
  Event event = Make(EventKind::kSetUp, command.situation.attacker);
  event.situation = command.situation;
  Emit(std::move(event));
  return std::move(events_);
}

Result<std::vector<Event>> Resolver::Declare(Seat seat, const vv::Declare& command) {
  if (auto ok = ValidateDeclaration(work_, seat, command); !ok) return tl::unexpected(ok.error());
  Event sealed = Make(EventKind::kDeclarationSealed, seat);
  sealed.declare = command;
  Emit(std::move(sealed));
  if (work_.owes[0] || work_.owes[1]) return std::move(events_);

  // Both have sealed: reveal, spend the expendables, resolve.
  Event revealed = Make(EventKind::kDeclarationsRevealed, work_.situation.attacker);
  for (Seat side : {Seat::kSideA, Seat::kSideB}) {
    const auto& declared = work_.declared[SeatIndex(side)];
    if (!declared) continue;
    int grenades = 0;
    int satchels = 0;
    for (const UnitUse& use : declared->uses) {
      grenades += use.grenades ? 1 : 0;
      satchels += use.satchel ? 1 : 0;
    }
    if (grenades > 0) {
      revealed.effects.push_back(Effect{.kind = EffectKind::kExpended, .unit = 0, .value = grenades,
                                        .seat = side, .text = "Grenades"});
    }
    if (satchels > 0) {
      revealed.effects.push_back(Effect{.kind = EffectKind::kExpended, .unit = 0, .value = satchels,
                                        .seat = side, .text = "Satchel Charges"});
    }
  }
  Emit(std::move(revealed));
  ResolveAssault();
  return std::move(events_);
}

void Resolver::ResolveAssault() {
  const Seat attacker = work_.situation.attacker;
  const Seat defender = Opponent(attacker);
  const vv::Declare& assault = *work_.declared[SeatIndex(attacker)];
  const vv::Declare defence = work_.declared[SeatIndex(defender)].value_or(vv::Declare{});
  Event event = Make(EventKind::kAssaultResolved, attacker);
  AssaultReport report;
  if (assault.group.empty()) {
    report.called_off = true;
    event.notes.push_back("the assaulter declared no assault group: the close assault is called "
                          "off");
    event.report = std::move(report);
    Emit(std::move(event));
    EndAssault({});
    return;
  }
  // 15.9: pinned defenders are eliminated before the odds are calculated.
  report.pinned_eliminated = internal::PinnedDefenders(work_);
  for (uint16_t unit : report.pinned_eliminated) {
    event.effects.push_back(Effect{.kind = EffectKind::kEliminated, .unit = unit, .value = 0,
                                   .seat = defender, .text = "15.9 pinned"});
  }
  // The odds and CP below count only the units left, so apply the pinned eliminations first.
  State after_pinned = work_;
  for (uint16_t unit : report.pinned_eliminated) after_pinned.eliminated[unit] = true;
  if (internal::UnpinnedDefenders(after_pinned).empty()) {
    // 15.9: the assault succeeds without a roll: the assaulters take the hex.
    report.automatic = true;
    report.success = true;
    event.notes.push_back("15.9: only pinned units defended: they are eliminated, the assaulters "
                          "take the hex with no dice roll and no Casualty Points");
    event.report = std::move(report);
    Emit(std::move(event));
    EndAssault({});
    return;
  }
  internal::Assessment a = internal::Assess(after_pinned, assault, defence);
  report.assault = std::move(a.assault);
  report.defence = std::move(a.defence);
  report.assault_apfp = a.assault_apfp;
  report.defence_apfp = a.defence_apfp;
  report.odds = a.odds;
  report.printed_kill_number = a.printed_kill_number;
  report.kill_number_modifiers = std::move(a.kill_number_modifiers);
  report.kill_number = a.kill_number;
  report.dr_modifiers = std::move(a.dr_modifiers);
  report.leaders = std::move(a.leaders);
  report.notes = std::move(a.notes);
  report.dr = dice_.RollTwoDice("15.7 close assault DR");
  report.final_dr = report.dr.Total() + internal::Sum(report.dr_modifiers);
  report.success = report.final_dr <= report.kill_number;
  report.margin = report.success ? 0 : report.final_dr - report.kill_number;
  report.assaulter_cp_parts = internal::AssaulterCpParts(after_pinned, report.margin);
  report.assaulter_cp = internal::Sum(report.assaulter_cp_parts);
  if (!report.success) {
    const int group = static_cast<int>(assault.group.size());
    report.defender_cp_parts.push_back(Modifier{"15.8", "1 per assaulting unit", group});
    report.defender_cp = group;
  }
  // 16.2 / VV-AMB-8: a natural 2 is an infantry attack's Valor check for the whole group.
  if (report.dr.colored == 1 && report.dr.white == 1 && work_.options.valor_check) {
    for (uint16_t unit : internal::Receivers(work_, attacker)) {
      const Unit& u = work_.units[unit];
      if (u.valorous) continue;
      ValorCheck check;
      check.unit = unit;
      check.dr = dice_.RollTwoDice("16.2 valor check " + u.id);
      check.needed = u.kind == UnitKind::kLeader ? 6 : u.casualty_rating;
      check.valorous = check.dr.Total() <= check.needed;
      if (check.valorous) {
        event.effects.push_back(Effect{.kind = EffectKind::kValorous, .unit = unit, .value = 0,
                                       .seat = attacker, .text = "16.2"});
      }
      report.valor_checks.push_back(check);
    }
  }
  if (report.dr.colored == 6 && report.dr.white == 6 && work_.options.sniper_check) {
    report.sniper_activated = true;
    event.notes.push_back("17.2: a natural 12 activates " + std::string(Name(defender)) +
                          "'s Sniper (VV-AMB-8); resolve it on the board");
  }
  if (report.success) {
    for (uint16_t unit : internal::UnpinnedDefenders(after_pinned)) {
      event.effects.push_back(Effect{.kind = EffectKind::kEliminated, .unit = unit, .value = 0,
                                     .seat = defender, .text = "15.7"});
    }
  }
  if (work_.options.edition == Edition::kPc) {
    event.notes.push_back("pc edition: the best leader of each side was chosen automatically");
  }
  event.report = std::move(report);
  Emit(std::move(event));

  // Casualty Points: who owes an allocation.
  std::array<std::optional<Allocation>, 2> automatic;
  bool anyone_owes = false;
  for (Seat side : {attacker, defender}) {
    if (work_.cp[SeatIndex(side)] == 0 || Absorbable(work_, side) == 0) continue;
    if (work_.options.edition == Edition::kPc) {
      automatic[SeatIndex(side)] = AutoAllocation(work_, side);
    } else {
      anyone_owes = true;
    }
  }
  if (anyone_owes) return;  // Apply opened the allocation phase
  ApplyCasualties(automatic);
}

Result<std::vector<Event>> Resolver::Allocate(Seat seat, const vv::Allocate& command) {
  if (auto ok = ValidateAllocation(work_, seat, command.allocation); !ok) {
    return tl::unexpected(ok.error());
  }
  Event sealed = Make(EventKind::kAllocationSealed, seat);
  sealed.allocation = command.allocation;
  Emit(std::move(sealed));
  if (work_.owes[0] || work_.owes[1]) return std::move(events_);
  Emit(Make(EventKind::kAllocationsRevealed, work_.situation.attacker));
  ApplyCasualties(work_.allocated);
  return std::move(events_);
}

void Resolver::ApplyCasualties(const std::array<std::optional<Allocation>, 2>& allocations) {
  const Seat attacker = work_.situation.attacker;
  std::vector<std::string> occupy;
  for (Seat side : {attacker, Opponent(attacker)}) {
    const auto& allocation = allocations[SeatIndex(side)];
    if (!allocation) continue;
    std::vector<std::string> notes;
    if (work_.options.edition == Edition::kPc) {
      notes.push_back("pc edition: Casualty Points allocated automatically, [DEFAULT - NOT FROM "
                      "RULES] VV-AMB-13 least-valuable-first order, not the game's Units Points "
                      "Table");
    }
    if (side == attacker) occupy = allocation->occupy;
    Emit(Casualties(side, *allocation, std::move(notes)));
  }
  EndAssault(std::move(occupy));
}

Event Resolver::Casualties(Seat seat, const Allocation& allocation, std::vector<std::string> notes) {
  Event event = Make(EventKind::kCasualtiesApplied, seat);
  event.cp = work_.cp[SeatIndex(seat)];
  event.allocation = allocation;
  event.notes = std::move(notes);
  const auto fate_of_passengers = [&](uint16_t vehicle, EffectKind kind, const std::string& why) {
    for (uint16_t passenger : internal::PassengersOf(work_, vehicle)) {
      event.effects.push_back(
          Effect{.kind = kind, .unit = passenger, .value = 0, .seat = seat, .text = why});
    }
  };
  for (const CpAction& action : allocation.actions) {
    const uint16_t unit = *FindUnit(work_, action.unit);
    const Unit& u = work_.units[unit];
    const auto effect = [&](EffectKind kind, int value, std::string text) {
      event.effects.push_back(
          Effect{.kind = kind, .unit = unit, .value = value, .seat = seat, .text = std::move(text)});
    };
    switch (action.kind) {
      case CpActionKind::kIgnore:
        effect(EffectKind::kIgnoredCp, 1,
               u.kind == UnitKind::kGun ? "14.63 Gun Shield" : "14.63 valor");
        break;
      case CpActionKind::kPin:
        effect(EffectKind::kPinned, 1, "14.61");
        if (u.kind == UnitKind::kVehicle) fate_of_passengers(unit, EffectKind::kPinned, "14.7");
        break;
      case CpActionKind::kReduce:
        effect(EffectKind::kReduced, u.casualty_rating - u.reduced_casualty_rating, "14.61");
        break;
      case CpActionKind::kReduceAndPin:
        effect(EffectKind::kReduced, u.casualty_rating - u.reduced_casualty_rating, "14.61");
        effect(EffectKind::kPinned, 1, "14.61");
        break;
      case CpActionKind::kEliminate:
        effect(EffectKind::kEliminated, u.casualty_rating, "14.61");
        if (!IsInfantry(u.kind)) fate_of_passengers(unit, EffectKind::kEliminated, "14.64");
        break;
      case CpActionKind::kSurvivalRoll: {
        const int dr = dice_.RollDie("14.64 survival dr " + u.id);
        if (dr <= u.casualty_rating) {
          effect(EffectKind::kPinned, action.points,
                 "14.64 survival dr " + std::to_string(dr) + " <= CR " +
                     std::to_string(u.casualty_rating));
          fate_of_passengers(unit, EffectKind::kPinned, "14.64");
        } else {
          effect(EffectKind::kEliminated, action.points,
                 "14.64 survival dr " + std::to_string(dr) + " > CR " +
                     std::to_string(u.casualty_rating));
          fate_of_passengers(unit, EffectKind::kEliminated, "14.64");
        }
        break;
      }
      case CpActionKind::kImmobilization: {
        const bool capped = work_.options.afv_cp_cap && action.points >= 3;
        if (capped || action.points >= 6) {
          effect(EffectKind::kImmobilized, action.points,
                 "15.10 " + std::to_string(action.points) + " CP: Immobile, no roll");
          break;
        }
        const int dr = dice_.RollDie("15.10 immobilization dr " + u.id);
        if (dr <= action.points) {
          effect(EffectKind::kImmobilized, action.points,
                 "15.10 dr " + std::to_string(dr) + " <= " + std::to_string(action.points) +
                     " CP: Immobile");
        } else {
          event.notes.push_back("15.10 " + u.id + ": dr " + std::to_string(dr) + " > " +
                                std::to_string(action.points) + " CP: no effect");
        }
        break;
      }
    }
  }
  const int fulfilled = Fulfilled(work_, allocation);
  if (fulfilled < event.cp) {
    event.notes.push_back(std::to_string(event.cp - fulfilled) +
                          " Casualty Points could not be applied: no unit was left to take them");
  }
  return event;
}

void Resolver::Occupy(Event& event, const std::vector<std::string>& chosen) {
  const Seat attacker = work_.situation.attacker;
  std::vector<uint16_t> survivors = internal::Receivers(work_, attacker);
  std::vector<uint16_t> movers;
  if (!chosen.empty()) {
    for (const std::string& id : chosen) movers.push_back(*FindUnit(work_, id));
  } else {
    movers = survivors;
    const int capacity = work_.situation.target.capacity;
    if (capacity > 0 && movers.size() > static_cast<size_t>(capacity)) {
      movers.resize(static_cast<size_t>(capacity));
      event.notes.push_back("20.5: " + work_.situation.target.name + " holds " +
                            std::to_string(capacity) +
                            " units; the first survivors moved in, the rest stay in " +
                            work_.situation.source_hex + " (SPEC-NOTES B.3 step 10 default)");
    }
  }
  for (uint16_t unit : movers) {
    event.effects.push_back(Effect{.kind = EffectKind::kOccupied, .unit = unit, .value = 0,
                                   .seat = attacker, .text = "15.8"});
  }
}

void Resolver::EndAssault(std::vector<std::string> chosen) {
  Event event = Make(EventKind::kAssaultEnded, work_.situation.attacker);
  const AssaultReport& report = *work_.report;
  const bool defenders_gone = internal::UnpinnedDefenders(work_).empty() &&
                              internal::PinnedDefenders(work_).empty();
  if (report.called_off) {
    event.notes.push_back("no close assault was made");
  } else if (report.automatic || report.success) {
    Occupy(event, chosen);
    event.notes.push_back(report.automatic ? "15.9: the assaulters take the hex"
                                           : "15.8: the defenders are eliminated and the "
                                             "assaulters occupy the hex");
  } else if (defenders_gone && work_.options.advance_after_failed_wipeout) {
    Occupy(event, chosen);
    event.notes.push_back("the assault failed but its Casualty Points eliminated every defender: "
                          "the surviving assaulters advance (VV-AMB-6, option "
                          "advance_after_failed_wipeout)");
  } else {
    event.notes.push_back("15.8: the assault failed; the defenders hold the hex");
  }
  Emit(std::move(event));
}

}  // namespace

std::vector<std::string_view> VvRules::Variants() const { return {"board", "pc"}; }

Result<State> VvRules::NewState(const MatchOptions& options) const {
  auto parsed = ParseOptions(options);
  if (!parsed) return tl::unexpected(parsed.error());
  State state;
  state.options = *parsed;
  return state;
}

Result<std::vector<Event>> VvRules::Decide(const State& state, Seat seat, const Command& command,
                                           Dice& dice) const {
  Resolver resolver(*this, state, dice);
  return std::visit(
      [&](const auto& typed) -> Result<std::vector<Event>> {
        using T = std::decay_t<decltype(typed)>;
        if constexpr (std::is_same_v<T, vv::SetUp>) {
          return resolver.SetUp(typed);
        } else if constexpr (std::is_same_v<T, vv::Declare>) {
          return resolver.Declare(seat, typed);
        } else {
          if (state.phase != Phase::kAllocate) {
            return Reject("14.61", "no Casualty Points are waiting to be applied");
          }
          return resolver.Allocate(seat, typed);
        }
      },
      command);
}

void VvRules::Apply(State& state, const Event& event) const {
  const Seat attacker = state.situation.attacker;
  for (const Effect& effect : event.effects) {
    if (effect.kind == EffectKind::kExpended) {
      Expendables& pool = state.expendables[SeatIndex(effect.seat)];
      (effect.text == "Grenades" ? pool.grenades : pool.satchel_charges) -= effect.value;
      continue;
    }
    MELEE_CHECK(effect.unit < state.units.size());
    Unit& unit = state.units[effect.unit];
    switch (effect.kind) {
      case EffectKind::kEliminated:
        state.eliminated[effect.unit] = true;
        break;
      case EffectKind::kPinned:
        unit.pinned = true;
        break;
      case EffectKind::kReduced:
        unit.kind = UnitKind::kHalfSquad;
        unit.apfp = unit.reduced_apfp;
        unit.casualty_rating = unit.reduced_casualty_rating;
        unit.reduced_apfp = 0;
        unit.reduced_casualty_rating = 0;
        break;
      case EffectKind::kImmobilized:
        unit.immobile = true;
        break;
      case EffectKind::kValorous:
        unit.valorous = true;
        break;
      case EffectKind::kOccupied:
        state.in_target[effect.unit] = true;
        break;
      case EffectKind::kIgnoredCp:
      case EffectKind::kExpended:
        break;
    }
  }
  switch (event.kind) {
    case EventKind::kSetUp: {
      MELEE_CHECK(event.situation.has_value());
      state.situation = *event.situation;
      state.units = state.situation.units;
      state.eliminated.assign(state.units.size(), false);
      state.in_target.assign(state.units.size(), false);
      for (size_t i = 0; i < state.units.size(); ++i) {
        state.in_target[i] = state.units[i].owner != state.situation.attacker;
      }
      state.expendables = state.situation.expendables;
      state.phase = Phase::kDeclare;
      state.owes[SeatIndex(state.situation.attacker)] = true;
      state.owes[SeatIndex(Opponent(state.situation.attacker))] =
          !internal::UnpinnedDefenders(state).empty();
      break;
    }
    case EventKind::kDeclarationSealed:
      MELEE_CHECK(event.declare.has_value());
      state.declared[SeatIndex(event.seat)] = event.declare;
      state.owes[SeatIndex(event.seat)] = false;
      break;
    case EventKind::kDeclarationsRevealed:
      state.declarations_revealed = true;
      break;
    case EventKind::kAssaultResolved: {
      MELEE_CHECK(event.report.has_value());
      state.report = event.report;
      state.cp[SeatIndex(attacker)] = event.report->assaulter_cp;
      state.cp[SeatIndex(Opponent(attacker))] = event.report->defender_cp;
      if (state.options.edition == Edition::kBoard) {
        for (Seat side : {Seat::kSideA, Seat::kSideB}) {
          state.owes[SeatIndex(side)] =
              state.cp[SeatIndex(side)] > 0 && Absorbable(state, side) > 0;
        }
        if (state.owes[0] || state.owes[1]) state.phase = Phase::kAllocate;
      }
      break;
    }
    case EventKind::kAllocationSealed:
      MELEE_CHECK(event.allocation.has_value());
      state.allocated[SeatIndex(event.seat)] = event.allocation;
      state.owes[SeatIndex(event.seat)] = false;
      break;
    case EventKind::kAllocationsRevealed:
      state.allocations_revealed = true;
      break;
    case EventKind::kCasualtiesApplied:
      if (!state.allocated[SeatIndex(event.seat)]) state.allocated[SeatIndex(event.seat)] = event.allocation;
      break;
    case EventKind::kAssaultEnded:
      state.phase = Phase::kEnded;
      state.owes = {false, false};
      break;
  }
}

View VvRules::MakeView(const State& state, Viewer viewer) const {
  View view;
  view.phase = state.phase;
  view.edition = state.options.edition;
  view.situation = state.situation;
  view.units = state.units;
  view.eliminated = state.eliminated;
  view.in_target = state.in_target;
  view.expendables = state.expendables;
  view.owes = state.owes;
  view.report = state.report;
  view.cp = state.cp;
  for (Seat side : {Seat::kSideA, Seat::kSideB}) {
    const size_t i = SeatIndex(side);
    const bool own = viewer == ViewerOf(side);
    view.has_sealed[i] = state.phase == Phase::kAllocate ? state.allocated[i].has_value()
                                                         : state.declared[i].has_value();
    if (state.declared[i] && (own || state.declarations_revealed)) {
      view.declarations[i] = state.declared[i];
    }
    if (state.allocated[i] && (own || state.allocations_revealed ||
                               state.phase == Phase::kEnded)) {
      view.allocations[i] = state.allocated[i];
    }
  }
  return view;
}

}  // namespace melee::engine::vv
