// AslRules: NewState, Apply (folding events into the state) and MakeView. Decide lives in
// resolver.cc; DescribeEvent in describe.cc.

#include "engine/asl/rules.h"

#include <algorithm>
#include <bit>

#include "engine/core/check.h"

namespace melee::engine::asl {
namespace {

size_t SeatIndex(Seat seat) { return seat == Seat::kSideA ? 0 : 1; }

// Appends to `out` the indices, in unit order and each once, of the units whose id is one of
// `ids` (a declaration names units by id; the queue keeps indices), and returns where they are.
// `keys`: IdKey of each unit.
IndexRange AppendIndicesNamed(const std::vector<Unit>& units, const std::vector<uint64_t>& keys,
                              const std::vector<std::string>& ids, std::vector<uint16_t>& out) {
  const auto first = static_cast<uint32_t>(out.size());
  if (keys.size() <= 64) {
    // The units named, as bits: read out in order, each once, without sorting.
    uint64_t named = 0;
    for (const std::string& id : ids) {
      const uint64_t key = IdKey(id);
      for (size_t i = 0; i < keys.size(); ++i) {
        if (IsNamed(keys[i], units[i].id, key, id)) named |= uint64_t{1} << i;
      }
    }
    for (; named != 0; named &= named - 1) {
      out.push_back(static_cast<uint16_t>(std::countr_zero(named)));
    }
  } else {
    for (const std::string& id : ids) {
      const uint64_t key = IdKey(id);
      for (size_t i = 0; i < keys.size(); ++i) {
        if (IsNamed(keys[i], units[i].id, key, id)) out.push_back(static_cast<uint16_t>(i));
      }
    }
    std::sort(out.begin() + first, out.end());
    out.erase(std::unique(out.begin() + first, out.end()), out.end());
  }
  return IndexRange{first, static_cast<uint32_t>(out.size() - first)};
}

// Grows the per-unit vectors of `state` to its unit count (units are only appended, and never
// renamed).
void SizePerUnit(State& state) {
  const size_t n = state.units.size();
  for (size_t i = state.unit_keys.size(); i < n; ++i) {
    state.unit_keys.push_back(IdKey(state.units[i].id));
  }
  state.declared_strength.resize(n, 0);
  state.withdrawing.resize(n, 0);
  state.cannot_withdraw.resize(n, 0);
  state.solo.resize(n, 0);
  state.has_attacked.resize(n, 0);
  state.is_attacked.resize(n, 0);
  state.captors.resize(n);
  state.weapons_used.resize(n, 0);
}

// A11.31: the side that attacks first when a vehicle is in the Location: the non-vehicular
// side; the ATTACKER when both (or, after losses, neither) have one. An Abandoned vehicle counts
// for its last possessor.
std::optional<Seat> FirstWithVehicles(const State& state) {
  std::array<bool, 2> has = {false, false};
  for (const Unit& unit : state.units) {
    if (IsVehicle(unit) && IsPresent(unit)) has[SeatIndex(unit.owner)] = true;
  }
  if (!has[0] && !has[1]) return std::nullopt;
  if (has[0] && has[1]) return state.attacker;
  return has[0] ? Seat::kSideB : Seat::kSideA;
}

void ApplyEffect(State& state, const Effect& effect) {
  if (effect.kind == EffectKind::kLeaderCreated || effect.kind == EffectKind::kHalfSquadCreated) {
    MELEE_CHECK(effect.created.has_value() && effect.unit == state.units.size());
    state.units.push_back(*effect.created);
    SizePerUnit(state);
    Unit& created = state.units.back();
    state.declared_strength[effect.unit] = CcStrength(created);
    if (effect.kind == EffectKind::kLeaderCreated) {
      // A18.12: the new leader defends with his MMC in every attack not yet resolved against it.
      for (size_t q = state.next_attack + 1; q < state.queue.size(); ++q) {
        IndexRange& targets = state.queue[q].targets;
        const std::span<const uint16_t> now = QueuedTargets(state, state.queue[q]);
        const bool hits_mmc = std::any_of(now.begin(), now.end(), [&](uint16_t t) {
          return SameId(state.units[t].id, created.stacked_on);
        });
        if (!hits_mmc) continue;
        // The list grows at the end of queued_units: moved there first unless it is there.
        std::vector<uint16_t>& kept = state.queued_units;
        if (targets.first + targets.count != kept.size()) {
          const auto moved = static_cast<uint32_t>(kept.size());
          for (uint32_t k = 0; k < targets.count; ++k) {
            const uint16_t unit = kept[targets.first + k];  // By value: push_back may reallocate.
            kept.push_back(unit);
          }
          targets.first = moved;
        }
        kept.push_back(effect.unit);
        ++targets.count;
      }
    }
    return;
  }
  MELEE_CHECK(effect.unit < state.units.size());
  Unit& unit = state.units[effect.unit];
  switch (effect.kind) {
    case EffectKind::kEliminated:
      unit.presence = Presence::kEliminated;
      unit.concealed = false;
      return;
    case EffectKind::kReduced:
      // A7.302: a squad is Reduced to a HS of the same type.
      unit.kind = UnitKind::kHalfSquad;
      unit.firepower = effect.value;
      unit.reduced_firepower = -1;
      unit.concealed = false;
      return;
    case EffectKind::kWounded:
      // A17.11: a wounded leader loses one ML and his modifier worsens by one, once only.
      if (unit.wounds == 0 && unit.kind == UnitKind::kLeader) {
        unit.morale -= 1;
        unit.leadership += 1;
      }
      unit.wounds = effect.value;
      unit.concealed = false;
      return;
    case EffectKind::kCaptured:
      unit.presence = Presence::kCaptured;
      state.captors[effect.unit] = effect.by;
      unit.concealed = false;
      return;
    case EffectKind::kCaptureVoided:
      unit.presence = Presence::kPresent;
      return;
    case EffectKind::kConcealmentLost:
      unit.concealed = false;
      return;
    case EffectKind::kWithdrawn:
      unit.presence = Presence::kWithdrawn;
      return;
    case EffectKind::kSupportWeaponLost:
    case EffectKind::kSupportWeaponDropped: {
      auto& weapons = unit.support_weapons;
      auto it = std::find(weapons.begin(), weapons.end(), effect.text);
      if (it != weapons.end()) weapons.erase(it);
      return;
    }
    case EffectKind::kPinned:
      unit.pinned = true;
      return;
    case EffectKind::kBroken:
      unit.broken = true;
      unit.concealed = false;
      return;
    case EffectKind::kImmobilized:
      unit.vehicle.immobile = true;
      return;
    case EffectKind::kWeaponMalfunctioned:
      unit.vehicle.malfunctioned |= static_cast<uint8_t>(effect.value);
      return;
    case EffectKind::kLeaderCreated:
    case EffectKind::kHalfSquadCreated:
      return;  // Handled above.
  }
}

// A11.19: a concealed unit in CC reveals its Strength Factor before designation, once Dummies
// (which cannot) have been removed.
bool StrengthRevealed(Phase phase) { return phase != Phase::kSetUp && phase != Phase::kAnnounce; }

ViewedUnit ViewUnit(const State& state, const Unit& unit, Viewer viewer) {
  const bool entitled = viewer == Viewer::kDirector || viewer == ViewerOf(unit.owner);
  if (entitled || !unit.concealed || unit.presence != Presence::kPresent) {
    return ViewedUnit{.unit = unit, .hidden = false};
  }
  Unit shown;
  shown.id = unit.id;
  shown.owner = unit.owner;
  shown.concealed = true;
  shown.presence = unit.presence;
  shown.firepower = StrengthRevealed(state.phase) ? CcStrength(unit) : 0;
  return ViewedUnit{.unit = std::move(shown), .hidden = true};
}

// The seat a view names as the one to act (View::to_act). State::to_act is the engine's turn
// order; for sealed declarations, which both sides owe at once, it stays the ATTACKER, so the
// view names the side that still owes one.
Seat ToAct(const State& state) {
  if (state.phase == Phase::kChoice && state.pending) return state.pending->seat;
  if (state.phase == Phase::kDeclare && !state.sequential &&
      state.options.declaration_order == DeclarationOrder::kSealed &&
      state.sealed[SeatIndex(state.to_act)] && !state.sealed[SeatIndex(Opponent(state.to_act))]) {
    return Opponent(state.to_act);
  }
  return state.to_act;
}

}  // namespace

std::vector<std::string_view> AslRules::Variants() const { return {"standard", "deluxe"}; }

Result<State> AslRules::NewState(const MatchOptions& options) const {
  if (!options.variant.empty() && options.variant != "standard" && options.variant != "deluxe") {
    return Reject("", "unknown asl variant '" + options.variant.substr(0, 32) +
                          "' (known: standard, deluxe)");
  }
  Result<Options> parsed = ParseOptions(options);
  if (!parsed) return tl::unexpected(parsed.error());
  State state;
  state.options = *parsed;
  return state;
}

void AslRules::Apply(State& state, const Event& event) const {
  switch (event.kind) {
    case EventKind::kSetUp: {
      MELEE_CHECK(event.situation.has_value());
      state.location = event.situation->location;
      state.attacker = event.situation->attacker;
      state.units = event.situation->units;
      state.unit_keys.clear();
      SizePerUnit(state);
      for (size_t i = 0; i < state.units.size(); ++i) {
        state.declared_strength[i] = CcStrength(state.units[i]);
      }
      state.ambusher = state.location.ambusher;
      state.hth = state.location.hth;
      state.melee = state.location.melee;
      state.to_act = state.attacker;
      state.phase = Phase::kAnnounce;
      break;
    }
    case EventKind::kAnnounced: {
      MELEE_CHECK(event.announce.has_value());
      state.announced[SeatIndex(event.seat)] = event.announce;
      for (size_t i = 0; i < state.units.size(); ++i) {
        const std::string& id = state.units[i].id;
        auto named = [&](const std::vector<std::string>& ids) {
          return std::any_of(ids.begin(), ids.end(),
                             [&](const std::string& other) { return SameId(other, id); });
        };
        if (state.units[i].owner != event.seat) continue;
        if (named(event.announce->withdraw)) state.withdrawing[i] = true;
        if (named(event.announce->cannot_withdraw)) state.cannot_withdraw[i] = true;
        if (named(event.announce->solo)) state.solo[i] = true;
      }
      state.to_act = Opponent(event.seat);
      if (state.announced[0] && state.announced[1]) {
        state.phase = Phase::kDeclare;
        state.to_act = state.attacker;
        // A11.32: an Ambush from earlier this Player Turn keeps CC sequential, the ambusher
        // first; A11.31: so does a vehicle, with the sides alternating single attacks.
        const std::optional<Seat> first = FirstWithVehicles(state);
        state.sequential = state.ambusher.has_value() || first.has_value();
        state.alternating = !state.ambusher && first.has_value();
        if (first) state.to_act = *first;
        if (state.ambusher) state.to_act = *state.ambusher;
      }
      break;
    }
    case EventKind::kAmbushChecked:
      MELEE_CHECK(event.ambush.has_value());
      if (event.ambush->ambusher) {
        state.ambusher = event.ambush->ambusher;
        state.sequential = true;     // A11.32, which outranks A11.31 (A11.34)
        state.alternating = false;
        state.to_act = *state.ambusher;
      }
      break;
    case EventKind::kHthDeclared:
      state.hth = true;
      break;
    case EventKind::kDeclarationSealed: {
      MELEE_CHECK(event.seal.has_value());
      state.sealed[SeatIndex(event.seat)] = event.seal;
      if (state.sequential) {
        // Sequential CC: the attacks of this turn are queued and resolved at once.
        for (size_t k = 0; k < event.seal->attacks.size(); ++k) {
          const AttackOrder& order = event.seal->attacks[k];
          // In the order the seal names them: a vehicle's attack names the vehicle first.
          auto append = [&](const std::vector<std::string>& ids) {
            const auto first = static_cast<uint32_t>(state.queued_units.size());
            for (const std::string& id : ids) {
              for (size_t i = 0; i < state.units.size(); ++i) {
                if (SameId(state.units[i].id, id)) {
                  state.queued_units.push_back(static_cast<uint16_t>(i));
                }
              }
            }
            return IndexRange{first, static_cast<uint32_t>(state.queued_units.size() - first)};
          };
          const QueuedAttack& queued = state.queue.emplace_back(
              QueuedAttack{event.seat, event.seal, static_cast<uint32_t>(k),
                           append(order.attackers), append(order.targets)});
          const std::span<const uint16_t> attackers = QueuedAttackers(state, queued);
          for (uint16_t i : attackers) state.declared_strength[i] = CcStrength(state.units[i]);
          for (uint16_t i : QueuedTargets(state, queued)) state.is_attacked[i] = true;
          if (!attackers.empty()) {
            state.weapons_used[attackers[0]] |= WeaponBits(order.weapons);
          }
        }
        // A11.31: the other side makes the next single attack, unless it has passed.
        if (state.alternating && !state.passed[SeatIndex(Opponent(event.seat))]) {
          state.to_act = Opponent(event.seat);
        }
      } else if (state.options.declaration_order == DeclarationOrder::kAttackerFirst) {
        state.to_act = Opponent(event.seat);
      }
      break;
    }
    case EventKind::kDeclarationsRevealed: {
      // A11.12: the ATTACKER's attacks are resolved first, then the DEFENDER's.
      MELEE_CHECK(state.sealed[0].has_value() && state.sealed[1].has_value());
      state.queue.reserve(state.queue.size() + state.sealed[0]->attacks.size() +
                          state.sealed[1]->attacks.size());
      for (Seat side : {state.attacker, Opponent(state.attacker)}) {
        const auto& seal = state.sealed[SeatIndex(side)];
        MELEE_CHECK(seal.has_value());
        for (size_t k = 0; k < seal->attacks.size(); ++k) {
          const AttackOrder& order = seal->attacks[k];
          const QueuedAttack& queued = state.queue.emplace_back(QueuedAttack{
              side, seal, static_cast<uint32_t>(k),
              AppendIndicesNamed(state.units, state.unit_keys, order.attackers, state.queued_units),
              AppendIndicesNamed(state.units, state.unit_keys, order.targets, state.queued_units)});
          for (uint16_t i : QueuedTargets(state, queued)) state.is_attacked[i] = true;
        }
      }
      for (size_t i = 0; i < state.units.size(); ++i) {
        state.declared_strength[i] = CcStrength(state.units[i]);
      }
      break;
    }
    case EventKind::kAttackResolved:
    case EventKind::kAttackVoid: {
      MELEE_CHECK(state.next_attack < state.queue.size());
      for (uint16_t i : QueuedAttackers(state, state.queue[state.next_attack])) {
        state.has_attacked[i] = true;
      }
      break;
    }
    case EventKind::kChoiceRequested:
      MELEE_CHECK(event.choice.has_value());
      if (state.pending) {
        state.later_choices.push_back(*event.choice);
      } else {
        state.pending = event.choice;
        state.phase = Phase::kChoice;
      }
      state.next_choice_id = event.choice->id + 1;
      if (event.choice->kind == ChoiceKind::kAmbushWithdrawal) state.end_choices_offered = true;
      break;
    case EventKind::kChoiceMade:
      state.pending.reset();
      state.phase = Phase::kDeclare;
      if (!state.later_choices.empty()) {
        state.pending = state.later_choices.front();
        state.later_choices.erase(state.later_choices.begin());
        state.phase = Phase::kChoice;
      }
      break;
    case EventKind::kPassed:
      state.passed[SeatIndex(event.seat)] = true;
      state.to_act = Opponent(event.seat);
      break;
    case EventKind::kPhaseEnded:
      state.phase = Phase::kEnded;
      state.melee = event.melee;
      break;
    case EventKind::kDummiesRemoved:
    case EventKind::kPaatcTaken:
    case EventKind::kVehicleCaptured:
      break;
  }
  for (const Effect& effect : event.effects) ApplyEffect(state, effect);
  if (event.kind == EventKind::kAttackResolved || event.kind == EventKind::kAttackVoid) {
    ++state.next_attack;
  }
}

View AslRules::MakeView(const State& state, Viewer viewer) const {
  View view;
  view.phase = state.phase;
  view.location = state.location;
  view.attacker = state.attacker;
  view.units.reserve(state.units.size());
  for (const Unit& unit : state.units) view.units.push_back(ViewUnit(state, unit, viewer));
  view.to_act = ToAct(state);
  view.ambusher = state.ambusher;
  view.sequential = state.sequential;
  view.alternating = state.alternating;
  view.hth = state.hth;
  view.melee = state.melee;
  for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
    view.has_sealed[SeatIndex(seat)] = state.sealed[SeatIndex(seat)].has_value();
  }
  view.declarations = DeclarationsShown(state, viewer);
  if (state.pending && (viewer == Viewer::kDirector || viewer == ViewerOf(state.pending->seat))) {
    view.pending = state.pending;
  }
  return view;
}

std::array<SharedValue<Seal>, 2> DeclarationsShown(const State& state, Viewer viewer) {
  // Declarations are public once revealed: at once in sequential CC and for the ATTACKER's in
  // attacker_first order, for both when the queue is built in sealed order.
  const bool revealed = !state.queue.empty() || state.phase == Phase::kEnded;
  std::array<SharedValue<Seal>, 2> shown;
  for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
    const bool public_now = revealed || state.sequential ||
                            (state.options.declaration_order == DeclarationOrder::kAttackerFirst &&
                             seat == state.attacker);
    // The director sees everything else, but a sealed declaration only once it is revealed.
    const bool entitled = viewer == ViewerOf(seat) || public_now;
    if (entitled) shown[SeatIndex(seat)] = state.sealed[SeatIndex(seat)];
  }
  return shown;
}

bool CanAnnounce(const State& state, Seat seat) {
  if (seat == state.attacker && state.options.optional_hth != OptionalHth::kNone && !state.hth) {
    return true;  // J2.31
  }
  for (const Unit& unit : state.units) {
    if (unit.owner != seat || !IsPresent(unit) || IsVehicle(unit)) continue;
    if (IsSmc(unit.kind)) return true;  // A11.14
    if (!state.melee) continue;
    if (unit.broken) return true;  // A11.16
    if (!state.options.melee_withdrawal) continue;  // the SSR: no voluntary Withdrawal
    if (!unit.berserk && !unit.pinned && !unit.disrupted) return true;  // A11.2
  }
  return false;
}

std::unique_ptr<const Ruleset> MakeAslRuleset() {
  return std::make_unique<TypedRuleset<AslRules>>();
}

std::string_view UnitId(const State& state, size_t index) {
  static constexpr std::string_view kUnknown = "?";
  return index < state.units.size() ? std::string_view(state.units[index].id) : kUnknown;
}

}  // namespace melee::engine::asl
