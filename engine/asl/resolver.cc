// AslRules::Decide: validates each command against A11 and plays the CC Location forward until
// it needs the next command (a declaration, a choice) or the CCPh ends there.
//
// Decide works on a copy of the state and folds every event into it as soon as it is made, so
// later steps read exactly the state a replay will have: the state is always the fold of events.

#include <algorithm>
#include <string>

#include "engine/asl/rules.h"
#include "engine/core/check.h"

namespace melee::engine::asl {
namespace {

size_t SeatIndex(Seat seat) { return seat == Seat::kSideA ? 0 : 1; }

constexpr size_t kMaxAttacksPerSeal = 32;
constexpr size_t kMaxIdsPerList = 64;

Event MakeEvent(EventKind kind, Seat seat = Seat::kSideA) {
  Event event;
  event.kind = kind;
  event.seat = seat;
  return event;
}

Effect MakeEffect(EffectKind kind, uint16_t unit, std::string text, int value) {
  Effect effect;
  effect.kind = kind;
  effect.unit = unit;
  effect.text = std::move(text);
  effect.value = value;
  return effect;
}

Effect WithCreated(Effect effect, Unit created) {
  effect.created = std::move(created);
  return effect;
}

Effect WithCaptors(Effect effect, std::vector<uint16_t> captors) {
  effect.by = std::move(captors);
  return effect;
}

// Returns "unit G1" / "leader L1" etc. for messages.
std::string Named(const Unit& unit) {
  return std::string(IsSmc(unit.kind) ? Name(unit.kind) : std::string_view("unit")) + " " + unit.id;
}

bool Contains(const std::vector<uint16_t>& list, uint16_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Carries the working state and the events made so far through one Decide call.
class Play {
 public:
  Play(const AslRules& rules, const State& state, Dice& dice)
      : rules_(rules), work_(state), dice_(dice) {
    events_.reserve(16);
  }

  std::vector<Event> TakeEvents() { return std::move(events_); }

  Result<void> SetUp(Seat seat, const asl::SetUp& command);
  Result<void> Announce(Seat seat, const asl::Announce& command);
  Result<void> Seal(Seat seat, const asl::Seal& command);
  Result<void> Choose(Seat seat, const asl::Choose& command);
  Result<void> ValidateAttacks(Seat seat, const asl::Seal& seal) const;

 private:
  // Folds `event` into the working state and keeps it (with the dice rolled since the last one).
  void Emit(Event event) {
    std::vector<DieRoll> rolls = dice_.TakeRolls();
    if (event.rolls.empty()) {
      event.rolls = std::move(rolls);
    } else {
      event.rolls.insert(event.rolls.end(), std::make_move_iterator(rolls.begin()),
                         std::make_move_iterator(rolls.end()));
    }
    rules_.Apply(work_, event);
    events_.push_back(std::move(event));
  }

  Result<uint16_t> Find(std::string_view id) const;
  Result<std::vector<uint16_t>> Units(const std::vector<std::string>& ids, Seat owner,
                                      std::string_view what) const;
  void StartCc();
  void CheckAmbush();
  void CheckHth();
  std::vector<Effect> LoseConcealment(Seat seat, const std::vector<AttackOrder>& attacks) const;
  void Resolve();
  void ResolveNext();
  void CasualtyReduction(uint16_t unit, std::vector<Effect>& effects);
  void CaptureOne(uint16_t unit, const std::vector<uint16_t>& captors,
                  std::vector<Effect>& effects) const;
  void RequestChoice(Seat seat, ChoiceKind kind, std::vector<uint16_t> options, int min, int max,
                     std::vector<uint16_t> captors = {});
  bool CanStillAttack(Seat seat) const;
  void EndPhase();

  const AslRules& rules_;
  State work_;
  Dice& dice_;
  std::vector<Event> events_;
};

Result<uint16_t> Play::Find(std::string_view id) const {
  for (size_t i = 0; i < work_.units.size(); ++i) {
    if (work_.units[i].id == id && work_.units[i].kind != UnitKind::kDummy) {
      return static_cast<uint16_t>(i);
    }
  }
  return Reject("", "no unit '" + std::string(id.substr(0, 32)) + "' in this Location");
}

// Resolves `ids` to present units of `owner`, each once.
Result<std::vector<uint16_t>> Play::Units(const std::vector<std::string>& ids, Seat owner,
                                          std::string_view what) const {
  if (ids.size() > kMaxIdsPerList) return Reject("", "too many unit ids in one list");
  std::vector<uint16_t> out;
  for (const std::string& id : ids) {
    Result<uint16_t> index = Find(id);
    if (!index) return tl::unexpected(index.error());
    const Unit& unit = work_.units[*index];
    if (unit.owner != owner) {
      return Reject("A11.1",
                    Named(unit) + " belongs to the other side and cannot " + std::string(what));
    }
    if (!IsPresent(unit)) {
      return Reject("A11.3",
                    Named(unit) + " is no longer in the Location and cannot " + std::string(what));
    }
    if (Contains(out, *index)) return Reject("", Named(unit) + " is named twice");
    out.push_back(*index);
  }
  return out;
}

Result<void> Play::SetUp(Seat, const asl::SetUp& command) {
  if (work_.phase != Phase::kSetUp) return Reject("", "the Location is already set up");
  const Situation& situation = command.situation;
  if (Result<void> valid = ValidateSituation(situation); !valid) return valid;
  if (situation.location.ambusher && situation.location.melee) {
    return Reject("A11.4", "Ambush status ends when the CC becomes a Melee");
  }
  Event setup = MakeEvent(EventKind::kSetUp);
  setup.situation = situation;
  Emit(std::move(setup));
  // A11.19: Dummies cannot reveal a Strength Factor and are removed before designation.
  Event dummies = MakeEvent(EventKind::kDummiesRemoved);
  for (size_t i = 0; i < work_.units.size(); ++i) {
    if (work_.units[i].kind == UnitKind::kDummy) {
      dummies.effects.push_back(
          MakeEffect(EffectKind::kEliminated, static_cast<uint16_t>(i), "Dummy removed", 0));
    }
  }
  if (!dummies.effects.empty()) Emit(std::move(dummies));
  return {};
}

Result<void> Play::Announce(Seat seat, const asl::Announce& command) {
  if (work_.phase == Phase::kSetUp) return Reject("", "the Location is not set up yet");
  if (work_.phase != Phase::kAnnounce) {
    return Reject("A11.2", "announcements are made at the start of the CCPh, before designation");
  }
  if (seat != work_.to_act) {
    return Reject("A11.2", "the ATTACKER announces first, then the DEFENDER");
  }
  auto withdraw = Units(command.withdraw, seat, "withdraw");
  if (!withdraw) return tl::unexpected(withdraw.error());
  for (uint16_t i : *withdraw) {
    const Unit& unit = work_.units[i];
    if (!work_.location.melee) {
      return Reject("A11.2", Named(unit) +
                                 " cannot withdraw: Withdrawal is only from a Melee, not in the "
                                 "first round of CC");
    }
    if (unit.berserk) return Reject("A11.2", "berserk " + Named(unit) + " cannot withdraw");
    if (unit.pinned) return Reject("A11.2", "pinned " + Named(unit) + " cannot withdraw");
    if (unit.disrupted) {
      return Reject("A11.2", "Disrupted " + Named(unit) + " cannot withdraw (ASL-AMB-14)");
    }
  }
  auto unable = Units(command.cannot_withdraw, seat, "be declared unable to withdraw");
  if (!unable) return tl::unexpected(unable.error());
  for (uint16_t i : *unable) {
    const Unit& unit = work_.units[i];
    if (!unit.broken || !work_.location.melee || Contains(*withdraw, i)) {
      return Reject("A11.16", Named(unit) +
                                  ": only a broken unit in Melee that does not withdraw is "
                                  "eliminated for Failure to Rout");
    }
  }
  // A11.16: broken Infantry in Melee must attempt to withdraw unless Disrupted or guarding.
  if (work_.location.melee) {
    for (size_t i = 0; i < work_.units.size(); ++i) {
      const Unit& unit = work_.units[i];
      if (unit.owner != seat || !IsPresent(unit) || !unit.broken || unit.disrupted ||
          unit.guarding) {
        continue;
      }
      const auto index = static_cast<uint16_t>(i);
      if (!Contains(*withdraw, index) && !Contains(*unable, index)) {
        return Reject("A11.16", "broken " + Named(unit) +
                                    " in Melee must withdraw (announce it, or list it as unable "
                                    "to withdraw: it is then eliminated for Failure to Rout)");
      }
    }
  }
  auto solo = Units(command.solo, seat, "attack alone");
  if (!solo) return tl::unexpected(solo.error());
  for (uint16_t i : *solo) {
    if (!IsSmc(work_.units[i].kind)) {
      return Reject("A11.14", Named(work_.units[i]) + " is not a SMC; only a SMC attacks solo");
    }
  }
  if (command.declare_hth) {
    if (work_.options.optional_hth == OptionalHth::kNone) {
      return Reject("J2.31",
                    "HtH CC may be declared only in Deluxe ASL or Red Barricades "
                    "(variant deluxe or option optional_hth)");
    }
    if (seat != work_.attacker) return Reject("J2.31", "only the ATTACKER may declare HtH CC");
  }
  Event event = MakeEvent(EventKind::kAnnounced, seat);
  event.announce = command;
  Emit(std::move(event));
  if (work_.phase == Phase::kDeclare) StartCc();
  return {};
}

// A11.4: an Ambush can occur when Infantry advance into CC (not to reinforce a Melee) in a
// woods/building Location or with/against a concealed unit.
void Play::CheckAmbush() {
  if (work_.location.melee || work_.ambusher) return;
  bool advanced = false;
  bool concealed = false;
  for (const Unit& unit : work_.units) {
    if (!IsPresent(unit)) continue;
    // Player aid: Berserk/Human Wave/Banzai units did not advance into the Location.
    advanced = advanced || (unit.advanced && !unit.berserk);
    concealed = concealed || unit.concealed;
  }
  if (!advanced || !(work_.location.woods_or_building || concealed)) return;

  AmbushReport report;
  for (Seat seat : {work_.attacker, Opponent(work_.attacker)}) {
    const size_t s = SeatIndex(seat);
    bool cx = false, lax = false, broken = false, pinned = false, berserk = false;
    bool stealthy = false, hidden = false;
    std::optional<int> best_leader;
    int units_of_side = 0;
    for (const Unit& unit : work_.units) {
      if (unit.owner != seat || !IsPresent(unit)) continue;
      ++units_of_side;
      cx = cx || unit.cx;
      lax = lax || IsLax(unit);
      broken = broken || unit.broken;
      pinned = pinned || unit.pinned;
      berserk = berserk || unit.berserk;
      stealthy = stealthy || IsStealthy(unit);
      hidden = hidden || unit.concealed;
      if (unit.kind == UnitKind::kLeader && !unit.pinned && !unit.broken &&
          (!best_leader || unit.leadership < *best_leader)) {
        best_leader = unit.leadership;
      }
    }
    // "even if only a portion of a player's CC force is qualified to use it"
    std::vector<Drm>& drms = report.drms[s];
    if (cx) drms.push_back({DrmCause::kAmbushCx, 1});
    if (lax) drms.push_back({DrmCause::kAmbushLax, 1});
    if (broken) drms.push_back({DrmCause::kAmbushBroken, 1});
    if (pinned) drms.push_back({DrmCause::kAmbushPinned, 1});
    if (berserk) drms.push_back({DrmCause::kAmbushBerserk, 1});
    if (stealthy) drms.push_back({DrmCause::kAmbushStealthy, -1});
    if (hidden) drms.push_back({DrmCause::kAmbushConcealed, -2});
    // A10.7: not when the leader is alone.
    if (best_leader && units_of_side > 1 && *best_leader != 0) {
      drms.push_back({DrmCause::kAmbushLeadership, *best_leader});
    }
    report.dr[s] = dice_.RollDie("A11.4 ambush dr");
    report.final_dr[s] = report.dr[s] + Total(drms);
  }
  // "at least three < the other"
  if (report.final_dr[0] + 3 <= report.final_dr[1]) report.ambusher = Seat::kSideA;
  if (report.final_dr[1] + 3 <= report.final_dr[0]) report.ambusher = Seat::kSideB;
  Event event = MakeEvent(EventKind::kAmbushChecked);
  if (report.ambusher) {
    // The side being ambushed loses all concealment.
    for (size_t i = 0; i < work_.units.size(); ++i) {
      const Unit& unit = work_.units[i];
      if (unit.owner != *report.ambusher && IsPresent(unit) && unit.concealed) {
        event.effects.push_back(
            MakeEffect(EffectKind::kConcealmentLost, static_cast<uint16_t>(i), "ambushed", 0));
      }
    }
  }
  event.ambush = std::move(report);
  Emit(std::move(event));
}

// J2.31 / G1.64: HtH is mandatory for some units, optional for a DASL/RB ATTACKER.
void Play::CheckHth() {
  if (work_.hth) return;
  std::string reason;
  for (const Unit& unit : work_.units) {
    if (!IsPresent(unit)) continue;
    const size_t index = static_cast<size_t>(&unit - work_.units.data());
    const bool ambushed = work_.ambusher && *work_.ambusher != unit.owner;
    const bool ija =
        (unit.nationality == Nationality::kJapanese || unit.dare_death) && IsMmc(unit.kind);
    const bool leads = work_.ambusher == unit.owner || unit.owner == work_.attacker;
    if (ija && !ambushed && !work_.withdrawing[index] && !unit.pinned && leads) {
      reason = "G1.64: HtH is mandatory: IJA/Dare-Death MMC " + unit.id +
               (work_.ambusher == unit.owner ? " ambushes the enemy" : " is the ATTACKER");
      break;
    }
    if (unit.berserk && work_.options.optional_hth == OptionalHth::kDeluxe) {
      reason = "J2.31: HtH is mandatory: berserk unit " + unit.id + " in Deluxe ASL";
      break;
    }
  }
  const auto& attacker_announce = work_.announced[SeatIndex(work_.attacker)];
  if (reason.empty() && attacker_announce && attacker_announce->declare_hth) {
    const bool ambushed = work_.ambusher && *work_.ambusher != work_.attacker;
    if (ambushed) {
      // A note on the Ambush event (notes change no state); a kHthDeclared would set HtH.
      events_.back().notes.push_back(
          "J2.31: an ambushed ATTACKER cannot declare HtH; the CC stays normal");
      return;
    }
    reason = "J2.31: the ATTACKER declared HtH CC";
  }
  if (reason.empty()) return;
  Event event = MakeEvent(EventKind::kHthDeclared, work_.attacker);
  event.notes.push_back(std::move(reason));
  event.notes.push_back(
      "placeholder: J2.31 as summarised in the player aid (red Kill #, mandatory and optional "
      "cases)");
  Emit(std::move(event));
}

void Play::StartCc() {
  CheckAmbush();
  CheckHth();
}

// A11.19: units that make or direct a CC attack lose concealment [EXC: an ambusher, A11.4].
std::vector<Effect> Play::LoseConcealment(Seat seat,
                                          const std::vector<AttackOrder>& attacks) const {
  std::vector<Effect> effects;
  if (work_.ambusher == seat) return effects;  // Decided per attack, after its result.
  for (const AttackOrder& order : attacks) {
    for (const std::string& id : order.attackers) {
      Result<uint16_t> index = Find(id);
      MELEE_CHECK(index.has_value());
      if (work_.units[*index].concealed) {
        effects.push_back(MakeEffect(EffectKind::kConcealmentLost, *index, "attacks in CC", 0));
      }
    }
  }
  return effects;
}

// A11.12 / A11.14 / A11.16 / A11.2 / A20.22: the legality of a side's attacks.
Result<void> Play::ValidateAttacks(Seat seat, const asl::Seal& seal) const {
  if (seal.attacks.size() > kMaxAttacksPerSeal) return Reject("", "too many attacks");
  std::vector<bool> attacks(work_.units.size(), false);
  std::vector<bool> attacked(work_.units.size(), false);
  const Seat enemy = Opponent(seat);
  bool enemy_mmc = false;
  bool friendly_mmc = false;
  for (const Unit& unit : work_.units) {
    if (!IsPresent(unit) || !IsMmc(unit.kind)) continue;
    (unit.owner == enemy ? enemy_mmc : friendly_mmc) = true;
  }
  auto stacked_on = [&](const Unit& smc) -> std::optional<uint16_t> {
    if (smc.stacked_on.empty()) return std::nullopt;
    Result<uint16_t> mmc = Find(smc.stacked_on);
    if (!mmc || !IsPresent(work_.units[*mmc])) return std::nullopt;
    return *mmc;
  };
  for (size_t k = 0; k < seal.attacks.size(); ++k) {
    const AttackOrder& order = seal.attacks[k];
    auto which = [k] { return "attack " + std::to_string(k + 1); };
    if (order.attackers.empty()) return Reject("A11.12", which() + " names no attacking unit");
    if (order.targets.empty()) return Reject("A11.12", which() + " names no target");
    auto attackers = Units(order.attackers, seat, "attack");
    if (!attackers) {
      // Sequential CC: a unit eliminated before it attacks forfeits its attack (A11.3).
      return tl::unexpected(attackers.error());
    }
    auto targets = Units(order.targets, enemy, "be attacked by this side");
    if (!targets) return tl::unexpected(targets.error());
    bool has_mmc = false;
    for (uint16_t i : *attackers) {
      const Unit& unit = work_.units[i];
      if (attacks[i] || work_.has_attacked[i]) {
        return Reject("A11.12", Named(unit) + " already attacks");
      }
      attacks[i] = true;
      if (unit.broken) return Reject("A11.16", "broken " + Named(unit) + " cannot attack");
      if (work_.withdrawing[i]) {
        return Reject("A11.2", "withdrawing " + Named(unit) + " cannot attack");
      }
      if (order.capture && unit.berserk) {
        return Reject("A20.2", "berserk " + Named(unit) + " cannot take prisoners");
      }
      has_mmc = has_mmc || IsMmc(unit.kind);
    }
    for (uint16_t i : *attackers) {
      const Unit& unit = work_.units[i];
      if (!IsSmc(unit.kind) || !has_mmc) continue;
      // A11.14: a SMC combines with an MMC only with the one it is stacked on.
      if (work_.solo[i]) {
        return Reject("A11.14", Named(unit) +
                                    " announced a solo attack and cannot combine with "
                                    "an MMC");
      }
      std::optional<uint16_t> mmc = stacked_on(unit);
      if (!mmc) {
        return Reject("A11.14", Named(unit) +
                                    " is not stacked on an MMC, so it cannot combine "
                                    "with one");
      }
      if (!Contains(*attackers, *mmc)) {
        return Reject("A11.14", Named(unit) + " is stacked on " + work_.units[*mmc].id +
                                    " and can combine only with it");
      }
    }
    for (uint16_t i : *attackers) {
      const Unit& unit = work_.units[i];
      if (!IsSmc(unit.kind) || has_mmc || work_.solo[i] || !friendly_mmc) continue;
      if (stacked_on(unit)) {
        return Reject("A11.14", Named(unit) +
                                    " attacks without an MMC: it must announce a solo "
                                    "attack before designation");
      }
    }
    if (!order.director.empty()) {
      Result<uint16_t> director = Find(order.director);
      if (!director || !Contains(*attackers, *director) ||
          work_.units[*director].kind != UnitKind::kLeader) {
        return Reject("A11.141", "director " + order.director.substr(0, 32) +
                                     " is not a leader taking part in " + which());
      }
    }
    for (uint16_t i : *targets) {
      const Unit& unit = work_.units[i];
      if (attacked[i] || work_.is_attacked[i]) {
        return Reject("A11.12", Named(unit) + " is already attacked");
      }
      attacked[i] = true;
      if (order.capture && unit.berserk) {
        return Reject("A20.2", "berserk " + Named(unit) + " cannot be captured");
      }
    }
    // A11.14: the smallest target is an MMC with the SMC stacked on it; A11.2: a SMC withdrawing
    // without (or standing without) its MMC is a separate target.
    for (size_t i = 0; i < work_.units.size(); ++i) {
      const Unit& smc = work_.units[i];
      if (smc.owner != enemy || !IsSmc(smc.kind) || !IsPresent(smc) || work_.solo[i]) continue;
      std::optional<uint16_t> mmc = stacked_on(smc);
      if (!mmc || work_.withdrawing[i] != work_.withdrawing[*mmc]) continue;
      const bool has_smc = Contains(*targets, static_cast<uint16_t>(i));
      const bool has_mmc_target = Contains(*targets, *mmc);
      if (has_smc && !has_mmc_target && enemy_mmc) {
        return Reject("A11.14", Named(smc) + " defends with " + work_.units[*mmc].id +
                                    "; it cannot be singled out");
      }
      if (has_mmc_target && !has_smc) {
        return Reject("A11.14", Named(smc) + " defends with " + work_.units[*mmc].id +
                                    "; an attack on " + work_.units[*mmc].id + " includes it");
      }
    }
  }
  if (!seal.ambush_withdraw.empty()) {
    if (!work_.sequential || work_.ambusher != seat || work_.next_attack > 0) {
      return Reject("A11.41", "only the side that Ambushed may withdraw, before CC is resolved");
    }
    auto leaving = Units(seal.ambush_withdraw, seat, "withdraw");
    if (!leaving) return tl::unexpected(leaving.error());
    for (uint16_t i : *leaving) {
      if (work_.units[i].pinned) {
        return Reject("A11.41", "pinned " + Named(work_.units[i]) + " cannot withdraw");
      }
      if (attacks[i]) {
        return Reject("A11.41", Named(work_.units[i]) + " cannot both attack and withdraw");
      }
    }
  }
  return {};
}

Result<void> Play::Seal(Seat seat, const asl::Seal& command) {
  if (work_.phase == Phase::kChoice) {
    return Reject("", "a choice is pending: " + std::string(Name(work_.pending->seat)) +
                          " must answer it first");
  }
  if (work_.phase != Phase::kDeclare) {
    return Reject("A11.12", work_.phase == Phase::kEnded
                                ? "the CCPh in this Location is over"
                                : "attacks are designated after both sides' announcements");
  }
  const bool sealed_order =
      !work_.sequential && work_.options.declaration_order == DeclarationOrder::kSealed;
  if (work_.sequential || !sealed_order) {
    if (seat != work_.to_act) {
      return Reject(work_.sequential ? "A11.3" : "A11.12",
                    std::string(Name(work_.to_act)) + " designates now" +
                        (work_.sequential ? " (sequential CC)" : " (the ATTACKER first)"));
    }
  }
  if (!work_.sequential && work_.sealed[SeatIndex(seat)]) {
    return Reject("A11.12", "this side has already designated its attacks");
  }
  if (Result<void> valid = ValidateAttacks(seat, command); !valid) return valid;

  Event event = MakeEvent(EventKind::kDeclarationSealed, seat);
  event.seal = command;
  if (work_.sequential) {
    if (command.attacks.empty() && command.ambush_withdraw.empty()) {
      Emit(MakeEvent(EventKind::kPassed, seat));
      Resolve();
      return {};
    }
    event.effects = LoseConcealment(seat, command.attacks);
    for (const std::string& id : command.ambush_withdraw) {
      event.effects.push_back(
          MakeEffect(EffectKind::kWithdrawn, *Find(id), "A11.41 Ambush Withdrawal before CC", 0));
    }
    Emit(std::move(event));
    Resolve();
    return {};
  }
  if (!sealed_order) event.effects = LoseConcealment(seat, command.attacks);
  Emit(std::move(event));
  if (work_.sealed[0] && work_.sealed[1]) {
    Event reveal = MakeEvent(EventKind::kDeclarationsRevealed);
    if (sealed_order) {
      for (Seat side : {work_.attacker, Opponent(work_.attacker)}) {
        std::vector<Effect> lost = LoseConcealment(side, work_.sealed[SeatIndex(side)]->attacks);
        reveal.effects.insert(reveal.effects.end(), lost.begin(), lost.end());
      }
    }
    Emit(std::move(reveal));
    Resolve();
  }
  return {};
}

Result<void> Play::Choose(Seat seat, const asl::Choose& command) {
  if (work_.phase != Phase::kChoice || !work_.pending) return Reject("", "no choice is pending");
  const PendingChoice choice = *work_.pending;
  if (seat != choice.seat) {
    return Reject("", "this choice belongs to " + std::string(Name(choice.seat)));
  }
  if (command.choice_id != choice.id) {
    return Reject("", "choice " + std::to_string(command.choice_id) + " is not the pending one (" +
                          std::to_string(choice.id) + ")");
  }
  if (command.selected.size() < static_cast<size_t>(choice.min_selected) ||
      command.selected.size() > static_cast<size_t>(choice.max_selected)) {
    return Reject("", "select " + std::to_string(choice.min_selected) + ".." +
                          std::to_string(choice.max_selected) + " units");
  }
  Event event = MakeEvent(EventKind::kChoiceMade, seat);
  event.choice = choice;
  for (const std::string& id : command.selected) {
    Result<uint16_t> index = Find(id);
    if (!index || !Contains(choice.options, *index)) {
      return Reject("", "'" + id.substr(0, 32) + "' is not one of the options");
    }
    if (Contains(event.selected, *index)) return Reject("", id + " is selected twice");
    event.selected.push_back(*index);
  }
  for (uint16_t i : event.selected) {
    switch (choice.kind) {
      case ChoiceKind::kInfiltration:
      case ChoiceKind::kAmbushWithdrawal:
        event.effects.push_back(MakeEffect(EffectKind::kWithdrawn, i,
                                           choice.kind == ChoiceKind::kInfiltration
                                               ? "A11.22 Infiltration"
                                               : "A11.41 Ambush Withdrawal after CC",
                                           0));
        break;
      case ChoiceKind::kCaptureSelection: {
        CaptureOne(i, choice.captors, event.effects);
        break;
      }
    }
  }
  Emit(std::move(event));
  Resolve();
  return {};
}

void Play::RequestChoice(Seat seat, ChoiceKind kind, std::vector<uint16_t> options, int min,
                         int max, std::vector<uint16_t> captors) {
  const uint32_t id = work_.next_choice_id;
  Event event = MakeEvent(EventKind::kChoiceRequested, seat);
  event.choice = PendingChoice{.id = id,
                               .seat = seat,
                               .kind = kind,
                               .options = std::move(options),
                               .min_selected = min,
                               .max_selected = max,
                               .captors = std::move(captors)};
  Emit(std::move(event));
}

// A20.22: the unit the defender picked from a capture attempt's partial set is captured; a squad
// splits into two HS and only one of them is captured.
void Play::CaptureOne(uint16_t index, const std::vector<uint16_t>& captors,
                      std::vector<Effect>& effects) const {
  const Unit& unit = work_.units[index];
  if (unit.kind != UnitKind::kSquad) {
    effects.push_back(WithCaptors(MakeEffect(EffectKind::kCaptured, index, "", 0), captors));
    return;
  }
  const int half = HalfSquadFirepower(unit);
  effects.push_back(MakeEffect(EffectKind::kReduced, index, "split: one HS is captured", half));
  Unit prisoner = unit;
  prisoner.id = unit.id + "-hs";
  while (Find(prisoner.id)) prisoner.id += "'";
  prisoner.kind = UnitKind::kHalfSquad;
  prisoner.firepower = half;
  prisoner.reduced_firepower = -1;
  prisoner.support_weapons.clear();
  prisoner.concealed = false;
  size_t created = 0;
  for (const Effect& effect : effects) {
    if (effect.created) ++created;
  }
  const auto new_index = static_cast<uint16_t>(work_.units.size() + created);
  effects.push_back(WithCreated(
      MakeEffect(EffectKind::kHalfSquadCreated, new_index, "HS of " + unit.id, half), prisoner));
  effects.push_back(WithCaptors(MakeEffect(EffectKind::kCaptured, new_index, "", 0), captors));
}

// Casualty Reduction (A7.302, SPEC A.1.7): squad -> HS; HS/crew -> eliminated (ASL-AMB-10);
// SMC -> wounded, with a Wound Severity dr (A17.11).
void Play::CasualtyReduction(uint16_t index, std::vector<Effect>& effects) {
  const Unit& unit = work_.units[index];
  switch (unit.kind) {
    case UnitKind::kSquad: {
      const int half = HalfSquadFirepower(unit);
      effects.push_back(MakeEffect(EffectKind::kReduced, index, "Casualty Reduction", half));
      return;
    }
    case UnitKind::kHalfSquad:
    case UnitKind::kCrew:
    case UnitKind::kDummy:
      effects.push_back(MakeEffect(
          EffectKind::kEliminated, index,
          "Casualty Reduction; placeholder: A7.302 as summarised, a HS/crew is eliminated "
          "(ASL-AMB-10)",
          0));
      return;
    case UnitKind::kLeader:
    case UnitKind::kHero:
    case UnitKind::kOtherSmc: {
      const int dr = dice_.RollDie("A17.11 wound dr");
      if (IsMortalWound(dr, unit.wounds)) {
        effects.push_back(MakeEffect(EffectKind::kEliminated, index,
                                     "wounded, Wound Severity dr " + std::to_string(dr) +
                                         (unit.wounds > 0 ? " +1" : "") + ": KIA",
                                     dr));
      } else {
        effects.push_back(MakeEffect(EffectKind::kWounded, index,
                                     "Wound Severity dr " + std::to_string(dr) + ": minor wound",
                                     unit.wounds + 1));
      }
      return;
    }
  }
}

void Play::ResolveNext() {
  // A reference: the queue is not resized while this attack is resolved, and nothing reads it
  // after the attack's event is folded in.
  const QueuedAttack& queued = work_.queue[work_.next_attack];
  const Seat side = queued.side;
  // A11.22 / ASL-AMB-5: units that withdrew before this attack are out of it; it is
  // recalculated without them, and void if nobody is left on one side.
  std::vector<uint16_t> attackers;
  for (uint16_t i : queued.attackers) {
    if (work_.units[i].presence != Presence::kWithdrawn) attackers.push_back(i);
  }
  std::vector<uint16_t> targets;
  for (uint16_t i : queued.targets) {
    if (IsPresent(work_.units[i])) targets.push_back(i);
  }
  if (attackers.empty() || targets.empty()) {
    Event event = MakeEvent(EventKind::kAttackVoid, side);
    event.notes.push_back(attackers.empty()
                              ? "A11.22: every attacking unit withdrew before attacking"
                              : "ASL-AMB-5: every target withdrew; the attack is void");
    Emit(std::move(event));
    return;
  }

  AttackReport report;
  report.side = side;
  report.capture = queued.order.capture;
  if (attackers.size() != queued.attackers.size() || targets.size() != queued.targets.size()) {
    report.notes.push_back("A11.22 / ASL-AMB-5: recalculated without the units that withdrew");
  }
  AttackContext context{.hth = work_.hth,
                        .ambusher = work_.ambusher,
                        .excess_squads = work_.location.excess_squads,
                        .options = &work_.options,
                        .withdrawing = &work_.withdrawing,
                        .strength = work_.declared_strength};
  AttackPlan plan = PlanAttack(work_.units, attackers, targets, queued.order, context);
  const TwoDice dr = dice_.RollTwoDice("A11.11 CC DR");
  std::vector<Effect> effects;

  // A18.12 Field Promotion: an MMC that attacks in CC with an Original 2 may create a leader.
  std::vector<Unit> with_leader;
  std::vector<int> strength_with_leader;
  std::span<const Unit> units = work_.units;
  std::optional<CreationCheck> check;
  if (dr.Total() == 2) {
    check = LeaderCreationCheck(work_.units, attackers, plan.column, work_.options);
  }
  if (check) {
    const Unit& mmc = work_.units[check->base];
    LeaderCreation creation;
    creation.drms = check->drms;
    creation.dr = dice_.RollDie("A18.2 leader dr");
    creation.final_dr = creation.dr + Total(creation.drms);
    creation.leader = std::string(CreatedLeader(creation.final_dr));
    if (!creation.leader.empty()) {
      // If several MMC made the attack, Random Selection picks the one he stacks on.
      uint16_t host = check->base;
      std::vector<uint16_t> mmcs;
      for (uint16_t i : attackers) {
        if (IsMmc(work_.units[i].kind)) mmcs.push_back(i);
      }
      if (mmcs.size() > 1) {
        std::vector<int> drs;
        for (size_t m = 0; m < mmcs.size(); ++m) drs.push_back(dice_.RollDie("A.9 RS dr"));
        host = mmcs[HighestRolls(drs).front()];
      }
      const Unit leader = CreatedLeaderUnit(work_.units, mmc, work_.units[host], creation.leader);
      const auto index = static_cast<uint16_t>(work_.units.size());
      effects.push_back(WithCreated(
          MakeEffect(EffectKind::kLeaderCreated, index, creation.leader, leader.leadership),
          leader));
      // Re-figure the attack as if he had been present all along; his modifier must be added
      // to the Original 2 unless another leader already directs it.
      with_leader = work_.units;
      with_leader.push_back(leader);
      strength_with_leader = work_.declared_strength;
      strength_with_leader.push_back(1);
      std::vector<uint16_t> refigured = attackers;
      refigured.push_back(index);
      AttackOrder order = queued.order;
      if (plan.director) {
        order.director = work_.units[*plan.director].id;
      } else {
        order.director = leader.id;
        order.decline_leadership = false;
      }
      context.strength = strength_with_leader;
      plan = PlanAttack(with_leader, refigured, targets, order, context);
      if (plan.director == index) {
        for (Drm& drm : plan.common) {
          if (drm.cause == DrmCause::kLeadership) drm.cause = DrmCause::kLeaderCreated;
        }
      }
      units = with_leader;
      attackers = std::move(refigured);
      for (size_t r = 0; r < work_.next_attack; ++r) {
        if (work_.queue[r].side != side && Contains(work_.queue[r].targets, host)) {
          report.notes.push_back("A18.12 placeholder: the attack already resolved against " +
                                 work_.units[host].id + " is not re-figured with the new leader");
        }
      }
    }
    report.leader_creation = std::move(creation);
  }

  report.attackers = attackers;
  report.targets = targets;
  if (plan.director) report.director = static_cast<uint16_t>(*plan.director);
  report.hth = plan.hth;
  report.attack_strength = plan.attack_strength;
  report.defence_strength = plan.defence_strength;
  report.halvings = std::move(plan.halvings);
  report.column = plan.column;
  report.kill_number = plan.kill_number;
  report.drms = plan.common;  // Kept in `plan` too: read below.
  report.dr = dr;
  report.notes.insert(report.notes.end(), plan.notes.begin(), plan.notes.end());

  // A11.11: Final DR < Kill # eliminates (or captures), == Kill # is a Partial Kill.
  const int common = Total(plan.common);
  std::vector<uint16_t> partial;
  std::vector<uint16_t> eliminated;
  bool all_removed = true;
  report.results.reserve(targets.size());
  for (size_t t = 0; t < targets.size(); ++t) {
    TargetResult result;
    result.unit = targets[t];
    result.drms = std::move(plan.per_target[t]);
    result.final_dr = dr.Total() + common + Total(result.drms);
    if (result.final_dr < plan.kill_number) {
      result.outcome = queued.order.capture ? Outcome::kCaptured : Outcome::kEliminated;
      eliminated.push_back(targets[t]);
    } else if (result.final_dr == plan.kill_number) {
      result.outcome = Outcome::kPartial;
      partial.push_back(targets[t]);
      all_removed = false;
    } else {
      all_removed = false;
    }
    report.results.push_back(std::move(result));
  }
  for (uint16_t i : eliminated) {
    effects.push_back(WithCaptors(
        MakeEffect(queued.order.capture ? EffectKind::kCaptured : EffectKind::kEliminated, i, "",
                   0),
        queued.order.capture ? attackers : std::vector<uint16_t>{}));
  }
  std::optional<std::vector<uint16_t>> capture_choice;
  if (!partial.empty() && queued.order.capture) {
    // A20.22: Final DR == Kill # captures one unit of the defender's choice.
    if (partial.size() == 1) {
      CaptureOne(partial.front(), attackers, effects);
    } else {
      capture_choice = partial;
    }
  } else if (!partial.empty()) {
    // A.9 Random Selection: a dr per unit; the highest (all tied) suffer Casualty Reduction.
    std::vector<int> drs;
    if (partial.size() > 1) {
      for (size_t p = 0; p < partial.size(); ++p) drs.push_back(dice_.RollDie("A.9 RS dr"));
    } else {
      drs.push_back(0);
    }
    // 11.4 EX: a concealed squad Reduced to a HS also loses its concealment (the fold does it).
    for (size_t p : HighestRolls(drs)) CasualtyReduction(partial[p], effects);
  }
  // A11.13: SW/Guns of a unit eliminated on an Original coloured dr 1 may be eliminated too;
  // other SW of eliminated or captured units stay unpossessed in the Location.
  const int black_kill = KillNumber(plan.column, false);
  const size_t result_effects = effects.size();
  for (size_t e = 0; e < result_effects; ++e) {
    const Effect effect = effects[e];
    if (effect.kind != EffectKind::kEliminated && effect.kind != EffectKind::kCaptured) continue;
    if (effect.unit >= units.size()) continue;  // A HS created by this attack carries no SW.
    for (const std::string& weapon : units[effect.unit].support_weapons) {
      bool destroyed = false;
      if (effect.kind == EffectKind::kEliminated && dr.colored == 1) {
        const int sw_dr = dice_.RollDie("A11.13 SW dr");
        destroyed =
            work_.options.sw_destruction_inclusive ? sw_dr <= black_kill : sw_dr < black_kill;
      }
      effects.push_back(
          MakeEffect(destroyed ? EffectKind::kSupportWeaponLost : EffectKind::kSupportWeaponDropped,
                     effect.unit, weapon, 0));
    }
  }
  // A11.4: the ambusher keeps its concealment unless it attacks without eliminating/capturing
  // its target.
  if (work_.ambusher == side && !all_removed) {
    for (uint16_t i : attackers) {
      if (units[i].concealed) {
        effects.push_back(MakeEffect(EffectKind::kConcealmentLost, i,
                                     "ambusher failed to eliminate its target", 0));
      }
    }
  }

  Event event = MakeEvent(EventKind::kAttackResolved, side);
  event.attack = std::move(report);
  event.effects = std::move(effects);
  Emit(std::move(event));

  if (capture_choice) {
    RequestChoice(Opponent(side), ChoiceKind::kCaptureSelection, *capture_choice, 1, 1, attackers);
  }
  // A11.22 Infiltration: after an Original 2 the attacking units, after an Original 12 the
  // attacked units, if still there and unpinned, may withdraw at once.
  std::vector<uint16_t> may_leave;
  Seat leaving_side = side;
  if (dr.Total() == 2 || dr.Total() == 12) {
    const std::vector<uint16_t>& candidates = dr.Total() == 2 ? attackers : targets;
    leaving_side = dr.Total() == 2 ? side : Opponent(side);
    for (uint16_t i : candidates) {
      const Unit& unit = work_.units[i];
      if (IsPresent(unit) && !unit.pinned && !unit.berserk && !unit.disrupted) {
        may_leave.push_back(i);
      }
    }
  }
  if (!may_leave.empty()) {
    const int count = static_cast<int>(may_leave.size());
    RequestChoice(leaving_side, ChoiceKind::kInfiltration, std::move(may_leave), 0, count);
  }
}

bool Play::CanStillAttack(Seat seat) const {
  bool has_attacker = false;
  bool has_target = false;
  for (size_t i = 0; i < work_.units.size(); ++i) {
    const Unit& unit = work_.units[i];
    if (!IsPresent(unit)) continue;
    if (unit.owner == seat && !unit.broken && !work_.withdrawing[i] && !work_.has_attacked[i]) {
      has_attacker = true;
    }
    if (unit.owner != seat && !work_.is_attacked[i]) has_target = true;
  }
  return has_attacker && has_target;
}

void Play::Resolve() {
  while (work_.phase == Phase::kDeclare && work_.next_attack < work_.queue.size()) {
    ResolveNext();
  }
  if (work_.phase != Phase::kDeclare) return;
  if (work_.sequential) {
    // A11.3: a side that cannot attack any more passes; when both have passed, CC is over.
    while (!(work_.passed[0] && work_.passed[1])) {
      const Seat seat = work_.to_act;
      if (CanStillAttack(seat)) return;
      Emit(MakeEvent(EventKind::kPassed, seat));
    }
  } else if (!(work_.sealed[0] && work_.sealed[1])) {
    return;
  }
  EndPhase();
}

void Play::EndPhase() {
  // A11.41: a side that Ambushed may withdraw after all CC by and against it, before Melee.
  if (work_.ambusher && !work_.end_choices_offered && !work_.location.melee) {
    std::vector<uint16_t> may_leave;
    bool enemy_left = false;
    for (size_t i = 0; i < work_.units.size(); ++i) {
      const Unit& unit = work_.units[i];
      if (!IsPresent(unit)) continue;
      if (unit.owner == *work_.ambusher) {
        if (!unit.pinned && !unit.berserk) may_leave.push_back(static_cast<uint16_t>(i));
      } else {
        enemy_left = true;
      }
    }
    if (!may_leave.empty() && enemy_left) {
      const int count = static_cast<int>(may_leave.size());
      RequestChoice(*work_.ambusher, ChoiceKind::kAmbushWithdrawal, std::move(may_leave), 0, count);
      return;
    }
  }
  Event event = MakeEvent(EventKind::kPhaseEnded);
  for (size_t i = 0; i < work_.units.size(); ++i) {
    const Unit& unit = work_.units[i];
    const auto index = static_cast<uint16_t>(i);
    if (unit.presence == Presence::kCaptured) {
      // ASL-AMB-7: a capture stands only if a captor is still in the Location (or withdrew
      // with its prisoners).
      bool captor_left = false;
      for (uint16_t a : work_.captors[i]) {
        captor_left = captor_left || work_.units[a].presence == Presence::kPresent ||
                      work_.units[a].presence == Presence::kWithdrawn;
      }
      if (!captor_left) {
        event.effects.push_back(MakeEffect(EffectKind::kCaptureVoided, index,
                                           "every captor was eliminated (ASL-AMB-7)", 0));
      }
      continue;
    }
    if (!IsPresent(unit)) continue;
    if (work_.withdrawing[i]) {
      event.effects.push_back(
          MakeEffect(EffectKind::kWithdrawn, index, "A11.2 Withdrawal from Melee", 0));
    } else if (work_.cannot_withdraw[i]) {
      event.effects.push_back(
          MakeEffect(EffectKind::kEliminated, index, "A11.16 Failure to Rout", 0));
    }
  }
  // A11.15: Infantry of both sides still in the Location are locked in Melee; a unit that kept
  // its concealment is not held and holds nobody.
  std::vector<bool> stays(work_.units.size(), false);
  for (size_t i = 0; i < work_.units.size(); ++i) stays[i] = IsPresent(work_.units[i]);
  for (const Effect& effect : event.effects) {
    if (effect.kind == EffectKind::kWithdrawn || effect.kind == EffectKind::kEliminated) {
      stays[effect.unit] = false;
    }
    if (effect.kind == EffectKind::kCaptureVoided) stays[effect.unit] = true;
  }
  std::array<bool, 2> in_melee = {false, false};
  for (size_t i = 0; i < work_.units.size(); ++i) {
    if (stays[i] && !work_.units[i].concealed) in_melee[SeatIndex(work_.units[i].owner)] = true;
  }
  event.melee = in_melee[0] && in_melee[1];
  Emit(std::move(event));
}

// Dice for code paths that must not roll (validation).
class NoDice final : public Dice {
 protected:
  int NextD6() override {
    MELEE_CHECK_MSG(false, "validation must not roll dice");
    return 1;
  }
};

}  // namespace

Result<void> ValidateDeclaration(const State& state, Seat seat, const asl::Seal& seal) {
  NoDice dice;
  const AslRules rules;
  const Play play(rules, state, dice);
  return play.ValidateAttacks(seat, seal);
}

Result<std::vector<Event>> AslRules::Decide(const State& state, Seat seat, const Command& command,
                                            Dice& dice) const {
  Play play(*this, state, dice);
  Result<void> result = std::visit(
      [&](const auto& typed) -> Result<void> {
        using T = std::decay_t<decltype(typed)>;
        if constexpr (std::is_same_v<T, asl::SetUp>) return play.SetUp(seat, typed);
        if constexpr (std::is_same_v<T, asl::Announce>) return play.Announce(seat, typed);
        if constexpr (std::is_same_v<T, asl::Seal>) return play.Seal(seat, typed);
        if constexpr (std::is_same_v<T, asl::Choose>) return play.Choose(seat, typed);
      },
      command);
  if (!result) return tl::unexpected(result.error());
  return play.TakeEvents();
}

}  // namespace melee::engine::asl
