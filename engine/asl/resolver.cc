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

bool Contains(std::span<const uint16_t> list, uint16_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// The state one Decide call folds its events into: a copy of the state it was given. The copy
// is assigned into a State kept on the thread, so it reuses the units, strings and per-unit
// vectors of the previous call's copy instead of allocating its own (the engine stays pure: what
// is kept is overwritten before it is read). A Decide called while another runs on the same
// thread (none is today) copies into a State of its own.
class WorkingState {
 public:
  explicit WorkingState(const State& state) {
    if (kept_in_use_) {
      own_.emplace(state);
      return;
    }
    kept_in_use_ = true;
    uses_kept_ = true;
    kept_ = state;
  }
  ~WorkingState() {
    if (uses_kept_) kept_in_use_ = false;
  }
  WorkingState(const WorkingState&) = delete;
  WorkingState& operator=(const WorkingState&) = delete;

  State& state() { return uses_kept_ ? kept_ : *own_; }

 private:
  static thread_local State kept_;
  static thread_local bool kept_in_use_;
  bool uses_kept_ = false;
  std::optional<State> own_;
};

thread_local State WorkingState::kept_;
thread_local bool WorkingState::kept_in_use_ = false;

// Carries the working state and the events made so far through one Decide call.
class Play {
 public:
  Play(const AslRules& rules, const State& state, Dice& dice)
      : rules_(rules), working_(state), work_(working_.state()), dice_(dice) {
    events_.reserve(16);
  }

  std::vector<Event> TakeEvents() { return std::move(events_); }

  Result<void> SetUp(Seat seat, const asl::SetUp& command);
  int LeaderHelp(Seat seat, std::optional<uint16_t> except) const;
  void TakePaatc();
  void CaptureUnarmedVehicles();
  Result<void> Announce(Seat seat, const asl::Announce& command);
  Result<void> Seal(Seat seat, const asl::Seal& command);
  Result<void> Choose(Seat seat, const asl::Choose& command);
  Result<void> ValidateAttacks(Seat seat, const asl::Seal& seal) const;
  Result<void> ValidateAttackOnVehicle(const AttackOrder& order, const std::string& which,
                                       const std::vector<uint16_t>& attackers,
                                       const std::vector<uint16_t>& targets) const;
  Result<void> ValidateVehicleFire(Seat seat, const AttackOrder& order, const std::string& which,
                                   const std::vector<uint16_t>& attackers, UnitFlags& attacked,
                                   std::vector<uint8_t>& seal_weapons) const;

 private:
  // Keeps `event` in the record and folds it into the working state (with the dice rolled since
  // the last one). Takes an rvalue, not a value: the event is moved once, into the record.
  void Emit(Event&& event) {
    MELEE_CHECK(!drafting_);
    Fold(events_.emplace_back(std::move(event)));
  }
  // Starts the next event where the record keeps it, so that it is built in place instead of
  // moved there (an attack's event is large): fill it in, then EmitDraft(). Nothing is emitted
  // in between, and the reference is not kept past EmitDraft().
  Event& Draft(EventKind kind, Seat seat = Seat::kSideA) {
    MELEE_CHECK(!drafting_);
    drafting_ = true;
    Event& event = events_.emplace_back();
    event.kind = kind;
    event.seat = seat;
    return event;
  }
  void EmitDraft() {
    MELEE_CHECK(drafting_);
    drafting_ = false;
    Fold(events_.back());
  }
  void Fold(Event& kept) {
    if (!dice_.rolls().empty()) {
      std::vector<DieRoll> rolls = dice_.TakeRolls();
      if (kept.rolls.empty()) {
        kept.rolls = std::move(rolls);
      } else {
        kept.rolls.insert(kept.rolls.end(), std::make_move_iterator(rolls.begin()),
                          std::make_move_iterator(rolls.end()));
      }
    }
    rules_.Apply(work_, kept);
  }

  Result<uint16_t> Find(std::string_view id) const;
  // Resolve `ids` into `out` (cleared first), so that a caller checking many lists reuses one
  // vector.
  Result<void> Targets(const std::vector<std::string>& ids, Seat seat,
                       std::vector<uint16_t>& out) const;
  Result<void> Units(const std::vector<std::string>& ids, Seat owner, std::string_view what,
                     std::vector<uint16_t>& out) const;
  void StartCc();
  void CheckAmbush();
  void CheckHth();
  std::vector<Effect> LoseConcealment(Seat seat, const std::vector<AttackOrder>& attacks) const;
  void Resolve();
  void ResolveNext();
  struct KillResults {
    bool all_removed = true;
    std::optional<std::vector<uint16_t>> capture_choice;
  };
  KillResults ApplyKills(AttackPlan& plan, const TwoDice& dr, const std::vector<uint16_t>& targets,
                         bool capture, const std::vector<uint16_t>& attackers,
                         std::span<const Unit> units, AttackReport& report,
                         std::vector<Effect>& effects);
  std::optional<Unit> RollLeaderCreation(const CreationCheck& check,
                                         const std::vector<uint16_t>& attackers,
                                         LeaderCreation& creation, uint16_t& host);
  void ResolveAttackOnVehicle(const QueuedAttack& queued, const std::vector<uint16_t>& attackers,
                              uint16_t vehicle);
  void ResolveVehicleFire(const QueuedAttack& queued, const std::vector<uint16_t>& targets);
  void ResolveCloseDefense(const QueuedAttack& queued);
  TaskCheck MoraleCheck(uint16_t unit, int level, int leader_drm, std::vector<Effect>& effects);
  void OfferInfiltration(const TwoDice& dr, Seat side, const std::vector<uint16_t>& attackers,
                         const std::vector<uint16_t>& targets);
  AttackContext VehicleContext() const;
  void AmbusherKeepsConcealment(Seat side, bool succeeded, const std::vector<uint16_t>& attackers,
                                std::span<const Unit> units, std::vector<Effect>& effects) const;
  void CasualtyReduction(uint16_t unit, std::vector<Effect>& effects);
  void CaptureOne(uint16_t unit, const std::vector<uint16_t>& captors,
                  std::vector<Effect>& effects) const;
  void RequestChoice(Seat seat, ChoiceKind kind, std::vector<uint16_t> options, int min, int max,
                     std::vector<uint16_t> captors = {});
  bool CanStillAttack(Seat seat) const;
  void EndPhase();

  const AslRules& rules_;
  WorkingState working_;
  State& work_;
  Dice& dice_;
  std::vector<Event> events_;
  bool drafting_ = false;  // events_.back() is being built (Draft).
};

Result<uint16_t> Play::Find(std::string_view id) const {
  const uint64_t key = IdKey(id);
  for (size_t i = 0; i < work_.unit_keys.size(); ++i) {
    if (IsNamed(work_.unit_keys[i], work_.units[i].id, key, id) &&
        work_.units[i].kind != UnitKind::kDummy) {
      return static_cast<uint16_t>(i);
    }
  }
  return Reject("", "no unit '" + std::string(id.substr(0, 32)) + "' in this Location");
}

// Resolves `ids` to present units of `owner`, each once.
Result<void> Play::Units(const std::vector<std::string>& ids, Seat owner, std::string_view what,
                         std::vector<uint16_t>& out) const {
  if (ids.size() > kMaxIdsPerList) return Reject("", "too many unit ids in one list");
  out.clear();
  out.reserve(ids.size());
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
  return {};
}

// Resolves `ids`, the targets of an attack by `seat`, to present units of the other side.
Result<void> Play::Targets(const std::vector<std::string>& ids, Seat seat,
                           std::vector<uint16_t>& out) const {
  for (const std::string& id : ids) {
    Result<uint16_t> index = Find(id);
    if (index && work_.units[*index].owner == seat) {
      // A11.12: a side designates its attacks against enemy units.
      return Reject("A11.12", work_.units[*index].id + " is " + std::string(Name(seat)) +
                                  "'s own unit: a declaration attacks only the other side's "
                                  "units");
    }
  }
  return Units(ids, Opponent(seat), "be attacked by this side", out);
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
  TakePaatc();
  CaptureUnarmedVehicles();
  return {};
}

// The best modifier of an unbroken, unpinned leader of `seat` in the Location other than
// `except` (A10.7; A11.6: a leader aids the PAATC of units in his Location).
int Play::LeaderHelp(Seat seat, std::optional<uint16_t> except) const {
  int best = 0;
  for (size_t i = 0; i < work_.units.size(); ++i) {
    const Unit& unit = work_.units[i];
    if (unit.owner != seat || !IsPresent(unit) || unit.kind != UnitKind::kLeader || unit.broken ||
        unit.pinned || (except && *except == i)) {
      continue;
    }
    best = std::min(best, unit.leadership);
  }
  return best;
}

// A11.6: an MMC advancing into a Location with a manned Known enemy AFV must first pass a PAATC
// (an NTC; a 1TC when Inexperienced), aided by a leader; failing, it is pinned and stays where
// it was. SMC, Fanatic and Berserk units are exempt.
void Play::TakePaatc() {
  if (work_.location.melee) return;
  Event event = MakeEvent(EventKind::kPaatcTaken);
  for (size_t i = 0; i < work_.units.size(); ++i) {
    const Unit& unit = work_.units[i];
    if (!IsPresent(unit) || !IsMmc(unit.kind) || !unit.advanced || unit.fanatic || unit.berserk ||
        IsPrc(unit)) {
      continue;
    }
    const bool afv = std::any_of(work_.units.begin(), work_.units.end(), [&](const Unit& v) {
      return IsAfv(v) && v.owner != unit.owner && IsPresent(v) && !v.vehicle.abandoned;
    });
    if (!afv) continue;
    TaskCheck check;
    check.unit = static_cast<uint16_t>(i);
    check.check = unit.inexperienced ? "1TC" : "PAATC";
    check.morale = unit.morale;
    if (unit.inexperienced) check.drms.push_back({DrmCause::kCheckInexperienced, 1});
    if (const int help = LeaderHelp(unit.owner, std::nullopt); help != 0) {
      check.drms.push_back({DrmCause::kCheckLeadership, help});
    }
    check.dr = dice_.RollTwoDice("A11.6 PAATC DR");
    check.final_dr = check.dr.Total() + Total(check.drms);
    if (check.final_dr > check.morale) {
      check.result = CheckResult::kPinned;
      event.effects.push_back(MakeEffect(EffectKind::kPinned, check.unit, "failed PAATC", 0));
      event.effects.push_back(MakeEffect(EffectKind::kWithdrawn, check.unit,
                                         "A11.6 failed PAATC: it never advanced", 0));
    }
    event.checks.push_back(std::move(check));
  }
  if (!event.checks.empty()) Emit(std::move(event));
}

// A11.52: an unarmed, stopped vehicle without Personnel Escort is captured at once when it is
// alone with opposing Infantry.
void Play::CaptureUnarmedVehicles() {
  Event event = MakeEvent(EventKind::kVehicleCaptured);
  for (size_t v = 0; v < work_.units.size(); ++v) {
    const Unit& vehicle = work_.units[v];
    if (!IsVehicle(vehicle) || !IsPresent(vehicle) || !vehicle.vehicle.unarmed ||
        vehicle.vehicle.movement != Movement::kStopped) {
      continue;
    }
    std::vector<uint16_t> captors;
    bool escorted = false;
    for (size_t i = 0; i < work_.units.size(); ++i) {
      const Unit& unit = work_.units[i];
      if (!IsPresent(unit) || IsVehicle(unit) || unit.kind == UnitKind::kDummy) continue;
      if (unit.owner == vehicle.owner) escorted = true;
      if (unit.owner != vehicle.owner && !unit.broken) captors.push_back(static_cast<uint16_t>(i));
    }
    if (escorted || captors.empty()) continue;
    event.effects.push_back(WithCaptors(
        MakeEffect(EffectKind::kCaptured, static_cast<uint16_t>(v),
                   "A11.52 unarmed vehicle alone with enemy Infantry", 0),
        captors));
  }
  if (!event.effects.empty()) Emit(std::move(event));
}

Result<void> Play::Announce(Seat seat, const asl::Announce& command) {
  if (work_.phase == Phase::kSetUp) return Reject("", "the Location is not set up yet");
  if (work_.phase != Phase::kAnnounce) {
    return Reject("A11.2", "announcements are made at the start of the CCPh, before designation");
  }
  if (seat != work_.to_act) {
    return Reject("A11.2", "the ATTACKER announces first, then the DEFENDER");
  }
  std::vector<uint16_t> withdraw;
  if (Result<void> named = Units(command.withdraw, seat, "withdraw", withdraw); !named) {
    return named;
  }
  for (const auto* list : {&command.withdraw, &command.cannot_withdraw, &command.solo}) {
    for (const std::string& id : *list) {
      Result<uint16_t> index = Find(id);
      if (index && IsVehicle(work_.units[*index])) {
        return Reject("A11.7", "vehicle " + id +
                                   " is never held in Melee: it leaves in its MPh, and announces "
                                   "nothing here");
      }
    }
  }
  for (uint16_t i : withdraw) {
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
    if (!work_.options.melee_withdrawal && !unit.broken) {
      return Reject("A11.2", Named(unit) +
                                 " cannot withdraw: this match's SSR (option melee_withdrawal = "
                                 "none) allows no voluntary Withdrawal from Melee; only a broken "
                                 "unit withdraws (A11.16)");
    }
  }
  std::vector<uint16_t> unable;
  if (Result<void> named =
          Units(command.cannot_withdraw, seat, "be declared unable to withdraw", unable);
      !named) {
    return named;
  }
  for (uint16_t i : unable) {
    const Unit& unit = work_.units[i];
    if (!unit.broken || !work_.location.melee || Contains(withdraw, i)) {
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
      if (!Contains(withdraw, index) && !Contains(unable, index)) {
        return Reject("A11.16", "broken " + Named(unit) +
                                    " in Melee must withdraw (announce it, or list it as unable "
                                    "to withdraw: it is then eliminated for Failure to Rout)");
      }
    }
  }
  std::vector<uint16_t> solo;
  if (Result<void> named = Units(command.solo, seat, "attack alone", solo); !named) return named;
  for (uint16_t i : solo) {
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
    bool vehicle = false;
    int bu_afv = 0;
    for (const Unit& unit : work_.units) {
      if (unit.owner != seat || !IsPresent(unit)) continue;
      if (IsVehicle(unit)) {
        vehicle = true;
        if (IsAfv(unit) && (!unit.vehicle.crew_exposed || unit.vehicle.stunned)) ++bu_afv;
        continue;
      }
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
    if (vehicle) drms.push_back({DrmCause::kAmbushVehicle, 2});
    if (bu_afv > 0) drms.push_back({DrmCause::kAmbushBuAfv, bu_afv});
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
  const bool any_concealed =
      std::any_of(work_.units.begin(), work_.units.end(),
                  [&](const Unit& u) { return u.owner == seat && u.concealed; });
  if (!any_concealed) return effects;  // Nobody to name: no id looked up.
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
  UnitFlags attacks(work_.units.size(), 0);
  UnitFlags attacked(work_.units.size(), 0);
  std::vector<uint8_t> seal_weapons(work_.units.size(), 0);
  // The units of the attack checked now, reused from one attack to the next.
  std::vector<uint16_t> attackers;
  std::vector<uint16_t> targets;
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
    if (Result<void> named = Units(order.attackers, seat, "attack", attackers); !named) {
      // Sequential CC: a unit eliminated before it attacks forfeits its attack (A11.3).
      return named;
    }
    const bool by_vehicle = std::any_of(attackers.begin(), attackers.end(),
                                        [&](uint16_t i) { return IsVehicle(work_.units[i]); });
    if (by_vehicle) {
      if (Result<void> valid =
              ValidateVehicleFire(seat, order, which(), attackers, attacked, seal_weapons);
          !valid) {
        return valid;
      }
      continue;
    }
    if (order.targets.empty()) return Reject("A11.12", which() + " names no target");
    if (!order.weapons.empty()) {
      return Reject("A11.62", which() + ": only a vehicle attacks with weapons");
    }
    if (Result<void> named = Targets(order.targets, seat, targets); !named) return named;
    const bool vs_vehicle = std::any_of(targets.begin(), targets.end(),
                                        [&](uint16_t i) { return IsVehicle(work_.units[i]); });
    if (vs_vehicle) {
      if (Result<void> valid = ValidateAttackOnVehicle(order, which(), attackers, targets);
          !valid) {
        return valid;
      }
    } else if (!order.atmm.empty()) {
      return Reject("C13.7", which() + ": an ATMM check is made only against a vehicle");
    }
    bool has_mmc = false;
    for (uint16_t i : attackers) {
      const Unit& unit = work_.units[i];
      if (!unit.passenger_of.empty()) {
        return Reject("A11.611", "Passenger " + unit.id +
                                     " shares the fate of its vehicle and cannot attack "
                                     "(not supported: A11.62 CE halftrack Passengers' FP)");
      }
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
    for (uint16_t i : attackers) {
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
      if (!Contains(attackers, *mmc)) {
        return Reject("A11.14", Named(unit) + " is stacked on " + work_.units[*mmc].id +
                                    " and can combine only with it");
      }
    }
    for (uint16_t i : attackers) {
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
      if (!director || !Contains(attackers, *director) ||
          work_.units[*director].kind != UnitKind::kLeader) {
        return Reject("A11.141", "director " + order.director.substr(0, 32) +
                                     " is not a leader taking part in " + which());
      }
    }
    if (vs_vehicle) continue;  // A vehicle may be attacked again (player aid FAQ).
    for (uint16_t i : targets) {
      const Unit& unit = work_.units[i];
      if (!unit.passenger_of.empty()) {
        if (order.capture) {
          return Reject("A11.52", "not supported: A11.52 capture of Passengers (" + unit.id + ")");
        }
        return Reject("A11.611",
                      "Passenger " + unit.id + " cannot be attacked apart from its vehicle");
      }
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
      const bool has_smc = Contains(targets, static_cast<uint16_t>(i));
      const bool has_mmc_target = Contains(targets, *mmc);
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
  if (work_.alternating && seal.attacks.size() > 1) {
    return Reject("A11.31", "with a vehicle in the Location the sides alternate single attacks: "
                            "declare one attack at a time");
  }
  if (!seal.ambush_withdraw.empty()) {
    if (!work_.sequential || work_.ambusher != seat || work_.next_attack > 0) {
      return Reject("A11.41", "only the side that Ambushed may withdraw, before CC is resolved");
    }
    std::vector<uint16_t> leaving;
    if (Result<void> named = Units(seal.ambush_withdraw, seat, "withdraw", leaving); !named) {
      return named;
    }
    for (uint16_t i : leaving) {
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

// A11.5 / A11.52 / C13.7: an Infantry attack on a vehicle.
Result<void> Play::ValidateAttackOnVehicle(const AttackOrder& order, const std::string& which,
                                           const std::vector<uint16_t>& attackers,
                                           const std::vector<uint16_t>& targets) const {
  if (targets.size() != 1) {
    return Reject("A11.5", which + ": a single CC attack cannot affect both a vehicle and "
                                   "Personnel, nor two vehicles");
  }
  const Unit& vehicle = work_.units[targets[0]];
  if (order.capture) {
    if (!vehicle.vehicle.abandoned || vehicle.vehicle.movement != Movement::kStopped) {
      return Reject("A11.52", which + ": Infantry may not attempt to capture a manned AFV or a "
                                      "Motion/non-stopped vehicle");
    }
    return Reject("A11.52", "not supported: A11.52 capture of an Abandoned vehicle (A21.2)");
  }
  if (attackers.size() > 2) {
    return Reject("A11.5", which + ": no more than two units combine in a CC attack vs a vehicle");
  }
  if (attackers.size() == 2 && !IsSmc(work_.units[attackers[0]].kind) &&
      !IsSmc(work_.units[attackers[1]].kind)) {
    return Reject("A11.5", which + ": one of two units attacking a vehicle must be a SMC");
  }
  if (!order.atmm.empty()) {
    Result<uint16_t> atmm = Find(order.atmm);
    if (!atmm || !Contains(attackers, *atmm)) {
      return Reject("C13.7", which + ": the ATMM check is made by one of the attacking units");
    }
    if (!work_.units[*atmm].atmm) {
      return Reject("C13.7", Named(work_.units[*atmm]) +
                                 " has no ATMM (Germans 1944-45: set atmm in the situation)");
    }
  }
  return {};
}

// A11.62 / A11.622 / A11.8: a vehicle's attack on Infantry.
Result<void> Play::ValidateVehicleFire(Seat seat, const AttackOrder& order,
                                       const std::string& which,
                                       const std::vector<uint16_t>& attackers, UnitFlags& attacked,
                                       std::vector<uint8_t>& seal_weapons) const {
  if (attackers.size() != 1) {
    return Reject("A11.62", which + ": a vehicle attacks with its own weapons only, alone");
  }
  const uint16_t v = attackers[0];
  const Unit& vehicle = work_.units[v];
  if (work_.location.reaction_fire) {
    return Reject("A11.8", "in Reaction Fire the vehicle has no CC attack");
  }
  if (order.capture || !order.atmm.empty() || !order.director.empty()) {
    return Reject("A11.62", which + ": a vehicle makes no capture, ATMM or led attack");
  }
  if (order.weapons.empty()) {
    return Reject("A11.62", which + ": name the vehicle's weapons (cmg, rmg, aamg or sn)");
  }
  uint8_t bits = 0;
  for (const std::string& name : order.weapons) {
    std::optional<Weapon> weapon = ParseWeapon(name);
    if (!weapon) {
      return Reject("A11.62", which + ": unknown weapon '" + name.substr(0, 16) +
                                  "' (cmg, rmg, aamg, sn; a BMG is never used in CC)");
    }
    if (bits & *weapon) return Reject("A11.62", which + ": " + name + " is named twice");
    bits |= *weapon;
  }
  const VehicleFacts& facts = vehicle.vehicle;
  if (facts.abandoned) return Reject("A11.62", Named(vehicle) + " is Abandoned: no CC attack");
  if (facts.shocked || facts.stunned) {
    return Reject(facts.shocked ? "C7.42" : "D5.34",
                  Named(vehicle) + " is " + (facts.shocked ? "Shocked" : "Stunned") +
                      " and may not attack in CC");
  }
  const uint8_t used =
      static_cast<uint8_t>((v < work_.weapons_used.size() ? work_.weapons_used[v] : 0) |
                           seal_weapons[v]);
  const uint8_t usable = UsableWeapons(vehicle, 0);
  for (Weapon weapon : {kCmg, kRmg, kAamg, kSn}) {
    if ((bits & weapon) == 0) continue;
    const std::string name(Name(weapon));
    if (used & weapon) {
      return Reject("A11.62", Named(vehicle) + "'s " + name + " has already attacked this CCPh");
    }
    if ((usable & weapon) == 0) {
      std::string why = " has none";
      if (facts.malfunctioned & weapon) why = " has malfunctioned";
      if (weapon == kCmg && facts.cmg_vca_only) why = " fires through the VCA only (D1.82)";
      if (weapon == kAamg && facts.aamg > 0) why = " is usable only when the vehicle is CE";
      if (weapon == kSn && facts.sn_usage > 0) why = " is usable only when the AFV is BU";
      return Reject(weapon == kSn ? "A11.622" : "A11.62", Named(vehicle) + "'s " + name + why);
    }
  }
  seal_weapons[v] |= bits;
  if (bits & kSn) {
    if (bits != kSn) {
      return Reject("A11.622", which + ": a Close Defense Weapon System attack cannot be "
                                       "combined with any other FP");
    }
    if (!order.targets.empty()) {
      return Reject("A11.622", which + ": the sN attacks every unarmored unit in the Location; "
                                       "name no targets");
    }
    bool provoked = work_.ambusher == seat || work_.is_attacked[v];
    for (size_t i = 0; i < work_.units.size(); ++i) {
      const Unit& unit = work_.units[i];
      if (unit.owner == seat && !IsVehicle(unit) && work_.is_attacked[i]) provoked = true;
    }
    if (!provoked) {
      return Reject("A11.622", "the sN is fired only after the AFV or its Personnel Escort has "
                               "been attacked in this CCPh (or when it Ambushed)");
    }
    return {};
  }
  if (order.targets.empty()) return Reject("A11.12", which + " names no target");
  std::vector<uint16_t> targets;
  if (Result<void> named = Targets(order.targets, seat, targets); !named) return named;
  for (uint16_t i : targets) {
    const Unit& unit = work_.units[i];
    if (IsVehicle(unit)) return Reject("A11.5", "only Infantry may attack a vehicle in CC");
    if (!unit.passenger_of.empty()) {
      return Reject("A11.611", "Passenger " + unit.id + " cannot be attacked apart from its "
                                                        "vehicle");
    }
    if (attacked[i] || work_.is_attacked[i]) {
      return Reject("A11.12", Named(unit) + " is already attacked");
    }
    attacked[i] = true;
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
    Event& reveal = Draft(EventKind::kDeclarationsRevealed);
    if (sealed_order) {
      for (Seat side : {work_.attacker, Opponent(work_.attacker)}) {
        std::vector<Effect> lost = LoseConcealment(side, work_.sealed[SeatIndex(side)]->attacks);
        reveal.effects.insert(reveal.effects.end(), lost.begin(), lost.end());
      }
    }
    EmitDraft();
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
    case UnitKind::kVehicle:  // Never a Personnel target; listed for exhaustiveness.
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

// A11.11: Final DR < Kill # eliminates (or captures), == Kill # is a Partial Kill resolved by
// Random Selection (A.9) and Casualty Reduction; A11.13 SW of the units removed.
Play::KillResults Play::ApplyKills(AttackPlan& plan, const TwoDice& dr,
                                   const std::vector<uint16_t>& targets, bool capture,
                                   const std::vector<uint16_t>& attackers,
                                   std::span<const Unit> units, AttackReport& report,
                                   std::vector<Effect>& effects) {
  const int common = Total(plan.common);
  std::vector<uint16_t> partial;
  bool all_removed = true;
  report.results.reserve(targets.size());
  for (size_t t = 0; t < targets.size(); ++t) {
    TargetResult result;
    result.unit = targets[t];
    result.drms = std::move(plan.per_target[t]);
    result.final_dr = dr.Total() + common + Total(result.drms);
    if (result.final_dr < plan.kill_number) {
      result.outcome = capture ? Outcome::kCaptured : Outcome::kEliminated;
      // Nothing else is appended to `effects` in this loop: they come in target order.
      effects.push_back(WithCaptors(
          MakeEffect(capture ? EffectKind::kCaptured : EffectKind::kEliminated, targets[t], "",
                     0),
          capture ? attackers : std::vector<uint16_t>{}));
    } else if (result.final_dr == plan.kill_number) {
      result.outcome = Outcome::kPartial;
      partial.push_back(targets[t]);
      all_removed = false;
    } else {
      all_removed = false;
    }
    report.results.push_back(std::move(result));
  }
  std::optional<std::vector<uint16_t>> capture_choice;
  if (!partial.empty() && capture) {
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
    // By value: the loop appends to `effects`.
    const EffectKind kind = effects[e].kind;
    const uint16_t unit = effects[e].unit;
    if (kind != EffectKind::kEliminated && kind != EffectKind::kCaptured) continue;
    if (unit >= units.size()) continue;  // A HS created by this attack carries no SW.
    for (const std::string& weapon : units[unit].support_weapons) {
      bool destroyed = false;
      if (kind == EffectKind::kEliminated && dr.colored == 1) {
        const int sw_dr = dice_.RollDie("A11.13 SW dr");
        destroyed =
            work_.options.sw_destruction_inclusive ? sw_dr <= black_kill : sw_dr < black_kill;
      }
      effects.push_back(
          MakeEffect(destroyed ? EffectKind::kSupportWeaponLost : EffectKind::kSupportWeaponDropped,
                     unit, weapon, 0));
    }
  }
  return KillResults{all_removed, std::move(capture_choice)};
}

// A18.2: the Leader Creation dr after an MMC's Original 2 (`creation` records it); returns the
// new leader, stacked on `host` (Random Selection among the attacking MMC).
std::optional<Unit> Play::RollLeaderCreation(const CreationCheck& check,
                                             const std::vector<uint16_t>& attackers,
                                             LeaderCreation& creation, uint16_t& host) {
  creation.drms = check.drms;
  creation.dr = dice_.RollDie("A18.2 leader dr");
  creation.final_dr = creation.dr + Total(creation.drms);
  creation.leader = std::string(CreatedLeader(creation.final_dr));
  if (creation.leader.empty()) return std::nullopt;
  // If several MMC made the attack, Random Selection picks the one he stacks on.
  host = check.base;
  std::vector<uint16_t> mmcs;
  for (uint16_t i : attackers) {
    if (IsMmc(work_.units[i].kind)) mmcs.push_back(i);
  }
  if (mmcs.size() > 1) {
    std::vector<int> drs;
    for (size_t m = 0; m < mmcs.size(); ++m) drs.push_back(dice_.RollDie("A.9 RS dr"));
    host = mmcs[HighestRolls(drs).front()];
  }
  return CreatedLeaderUnit(work_.units, work_.units[check.base], work_.units[host],
                           creation.leader);
}

void Play::ResolveNext() {
  // A reference: the queue is not resized while this attack is resolved, and nothing reads it
  // after the attack's event is folded in.
  const QueuedAttack& queued = work_.queue[work_.next_attack];
  const Seat side = queued.side;
  // A11.22 / ASL-AMB-5: units that withdrew before this attack are out of it; it is
  // recalculated without them, and void if nobody is left on one side.
  const std::span<const uint16_t> queued_attackers = QueuedAttackers(work_, queued);
  const std::span<const uint16_t> queued_targets = QueuedTargets(work_, queued);
  std::vector<uint16_t> attackers;
  attackers.reserve(queued_attackers.size() + 1);  // + 1: a leader created by an Original 2.
  for (uint16_t i : queued_attackers) {
    if (work_.units[i].presence != Presence::kWithdrawn) attackers.push_back(i);
  }
  std::vector<uint16_t> targets;
  targets.reserve(queued_targets.size());
  for (uint16_t i : queued_targets) {
    if (IsPresent(work_.units[i])) targets.push_back(i);
  }
  const bool by_vehicle = IsVehicle(work_.units[queued_attackers[0]]);
  if (by_vehicle && IsCloseDefense(queued.order())) {
    ResolveCloseDefense(queued);
    return;
  }
  if (attackers.empty() || targets.empty()) {
    Event event = MakeEvent(EventKind::kAttackVoid, side);
    event.notes.push_back(attackers.empty()
                              ? "A11.22: every attacking unit withdrew before attacking"
                              : "ASL-AMB-5: every target withdrew; the attack is void");
    Emit(std::move(event));
    return;
  }

  if (by_vehicle) {
    ResolveVehicleFire(queued, targets);
    return;
  }
  if (IsVehicle(work_.units[targets[0]])) {
    ResolveAttackOnVehicle(queued, attackers, targets[0]);
    return;
  }
  // Built where the record keeps it, not moved there.
  Event& event = Draft(EventKind::kAttackResolved, side);
  AttackReport& report = event.attack.emplace();
  report.side = side;
  report.capture = queued.order().capture;
  if (attackers.size() != queued_attackers.size() || targets.size() != queued_targets.size()) {
    report.notes.push_back("A11.22 / ASL-AMB-5: recalculated without the units that withdrew");
  }
  AttackContext context{.hth = work_.hth,
                        .ambusher = work_.ambusher,
                        .excess_squads = work_.location.excess_squads,
                        .options = &work_.options,
                        .withdrawing = &work_.withdrawing,
                        .strength = work_.declared_strength};
  AttackPlan plan = PlanAttack(work_.units, attackers, targets, queued.order(), context);
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
    LeaderCreation creation;
    uint16_t host = check->base;
    if (std::optional<Unit> created = RollLeaderCreation(*check, attackers, creation, host)) {
      const Unit leader = std::move(*created);
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
      AttackOrder order = queued.order();
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
        if (work_.queue[r].side != side && Contains(QueuedTargets(work_, work_.queue[r]), host)) {
          report.notes.push_back("A18.12 placeholder: the attack already resolved against " +
                                 work_.units[host].id + " is not re-figured with the new leader");
        }
      }
    }
    report.leader_creation = std::move(creation);
  }

  if (plan.director) report.director = static_cast<uint16_t>(*plan.director);
  report.hth = plan.hth;
  report.attack_strength = plan.attack_strength;
  report.defence_strength = plan.defence_strength;
  report.halvings = std::move(plan.halvings);
  report.column = plan.column;
  report.kill_number = plan.kill_number;
  report.dr = dr;
  report.notes.insert(report.notes.end(), plan.notes.begin(), plan.notes.end());

  const KillResults kills =
      ApplyKills(plan, dr, targets, queued.order().capture, attackers, units, report, effects);
  report.drms = std::move(plan.common);  // Read by ApplyKills.
  const bool all_removed = kills.all_removed;
  const std::optional<std::vector<uint16_t>>& capture_choice = kills.capture_choice;
  AmbusherKeepsConcealment(side, all_removed, attackers, units, effects);

  // The report keeps the lists; copies stay here only for the choices asked after it.
  const bool choices = capture_choice || dr.Total() == 2 || dr.Total() == 12;
  if (choices) {
    report.attackers = attackers;
    report.targets = targets;
  } else {
    report.attackers = std::move(attackers);
    report.targets = std::move(targets);
  }
  event.effects = std::move(effects);
  EmitDraft();
  if (!choices) return;

  if (capture_choice) {
    RequestChoice(Opponent(side), ChoiceKind::kCaptureSelection, *capture_choice, 1, 1, attackers);
  }
  OfferInfiltration(dr, side, attackers, targets);
}

// A11.22 Infiltration: after an Original 2 the attacking units, after an Original 12 the
// attacked units, if still there, unpinned Infantry, may withdraw at once.
// The context of an attack on or by a vehicle: never HtH (G1.64), strength as it stands.
AttackContext Play::VehicleContext() const {
  return AttackContext{.hth = false,
                       .ambusher = work_.ambusher,
                       .excess_squads = work_.location.excess_squads,
                       .options = &work_.options,
                       .withdrawing = &work_.withdrawing,
                       .strength = {}};
}

// A11.4: the ambusher keeps its concealment unless it attacks without eliminating/capturing its
// target (`succeeded`).
void Play::AmbusherKeepsConcealment(Seat side, bool succeeded,
                                    const std::vector<uint16_t>& attackers,
                                    std::span<const Unit> units,
                                    std::vector<Effect>& effects) const {
  if (work_.ambusher != side || succeeded) return;
  for (uint16_t i : attackers) {
    if (units[i].concealed) {
      effects.push_back(MakeEffect(EffectKind::kConcealmentLost, i,
                                   "ambusher failed to eliminate its target", 0));
    }
  }
}

void Play::OfferInfiltration(const TwoDice& dr, Seat side, const std::vector<uint16_t>& attackers,
                             const std::vector<uint16_t>& targets) {
  std::vector<uint16_t> may_leave;
  Seat leaving_side = side;
  if (dr.Total() == 2 || dr.Total() == 12) {
    const std::vector<uint16_t>& candidates = dr.Total() == 2 ? attackers : targets;
    leaving_side = dr.Total() == 2 ? side : Opponent(side);
    for (uint16_t i : candidates) {
      const Unit& unit = work_.units[i];
      if (IsPresent(unit) && !IsVehicle(unit) && !unit.pinned && !unit.berserk &&
          !unit.disrupted && unit.passenger_of.empty()) {
        may_leave.push_back(i);
      }
    }
  }
  if (!may_leave.empty()) {
    const int count = static_cast<int>(may_leave.size());
    RequestChoice(leaving_side, ChoiceKind::kInfiltration, std::move(may_leave), 0, count);
  }
}

// A11.5-A11.621: an Infantry attack on a vehicle: the ATMM check (C13.7), the CCV as Kill Number,
// Unlikely Kill, Crew Small Arms, PRC sharing the vehicle's fate, Street Fighters returning.
void Play::ResolveAttackOnVehicle(const QueuedAttack& queued,
                                  const std::vector<uint16_t>& attackers, uint16_t vehicle) {
  const Seat side = queued.side;
  AttackReport report;
  report.side = side;
  report.vs_vehicle = true;
  std::vector<Effect> effects;
  std::vector<Unit> units = work_.units;  // The ATMM check may pin a unit before the CC DR.
  bool atmm_success = false;
  if (!queued.order().atmm.empty()) {
    Result<uint16_t> who = Find(queued.order().atmm);
    if (who && Contains(attackers, *who)) {
      AtmmReport atmm;
      atmm.unit = *who;
      atmm.drms = AtmmDrms(units[*who], units[vehicle]);
      atmm.dr = dice_.RollDie("C13.7 ATMM dr");
      atmm.final_dr = atmm.dr + Total(atmm.drms);
      atmm.result = AtmmResultOf(atmm.final_dr);
      atmm_success = atmm.result == AtmmResult::kSuccess;
      if (atmm.result == AtmmResult::kPinned && !units[*who].pinned) {
        units[*who].pinned = true;
        effects.push_back(MakeEffect(EffectKind::kPinned, *who, "C13.7 ATMM dr 6", 0));
      }
      report.atmm = std::move(atmm);
    }
  }
  AttackPlan plan = PlanAttackOnVehicle(units, attackers, vehicle, queued.order(), VehicleContext(),
                                        atmm_success);
  const TwoDice dr = dice_.RollTwoDice("A11.5 CC DR vs vehicle");
  if (dr.Total() == 2) {
    // A18.12: the MMC's Original 2 may create a leader; he does not join this attack, since at
    // most two units attack a vehicle together (A11.5).
    if (std::optional<CreationCheck> check =
            LeaderCreationCheck(work_.units, attackers, Column::kOneToOne, work_.options)) {
      LeaderCreation creation;
      uint16_t host = check->base;
      if (std::optional<Unit> leader = RollLeaderCreation(*check, attackers, creation, host)) {
        const auto index = static_cast<uint16_t>(work_.units.size());
        effects.push_back(WithCreated(
            MakeEffect(EffectKind::kLeaderCreated, index, creation.leader, leader->leadership),
            *leader));
        report.notes.push_back("A18.12: the new leader does not join an attack on a vehicle "
                               "(A11.5: at most two units)");
      }
      report.leader_creation = std::move(creation);
    }
  }
  const int final_dr = dr.Total() + Total(plan.common);
  VehicleResult result =
      VehicleResultOf(final_dr, plan.kill_number, work_.options.burning_inclusive);
  if (dr.Total() == 2) {
    // A11.501 Unlikely Kill: a third die; the better of the two results stands.
    const int kill_dr = dice_.RollDie("A11.501 Unlikely Kill dr");
    report.unlikely_kill_dr = kill_dr;
    result = std::max(result, UnlikelyKillResult(kill_dr));
  }
  TargetResult target{.unit = vehicle, .drms = {}, .final_dr = final_dr,
                      .outcome = Outcome::kNoEffect};
  const Unit& v = work_.units[vehicle];
  switch (result) {
    case VehicleResult::kNoEffect:
      break;
    case VehicleResult::kImmobilized:
      target.outcome = Outcome::kImmobilized;
      if (v.vehicle.immobile) {
        report.notes.push_back("another Immobilization result: the crew takes the D5.5 TC on the "
                               "players' board (outside A11)");
      } else {
        effects.push_back(MakeEffect(EffectKind::kImmobilized, vehicle, "A11.5", 0));
        report.notes.push_back("D5.5 Immobilization TC, when due, is taken on the players' board "
                               "(outside A11)");
      }
      break;
    case VehicleResult::kEliminated:
    case VehicleResult::kBurning: {
      const bool burning = result == VehicleResult::kBurning;
      target.outcome = burning ? Outcome::kBurning : Outcome::kEliminated;
      effects.push_back(MakeEffect(EffectKind::kEliminated, vehicle,
                                   burning ? "burning wreck" : "wreck; Crew Survival NA", 0));
      // A11.611: its PRC are eliminated with no chance of survival.
      for (size_t i = 0; i < work_.units.size(); ++i) {
        const Unit& unit = work_.units[i];
        if (IsPresent(unit) && (unit.rider_of == v.id || unit.passenger_of == v.id)) {
          effects.push_back(MakeEffect(EffectKind::kEliminated, static_cast<uint16_t>(i),
                                       "A11.611 PRC of a vehicle destroyed in CC", 0));
        }
      }
      break;
    }
  }
  // A11.621 Crew Small Arms: an Original 12 vs a crewed vehicle neither Shocked nor Stunned.
  if (dr.Total() == 12 && !v.vehicle.abandoned && !v.vehicle.shocked && !v.vehicle.stunned) {
    report.crew_small_arms = true;
    for (uint16_t i : attackers) CasualtyReduction(i, effects);
  }
  // A11.8: unbroken, unpinned Street Fighters go back where they came from, unless held (Wire).
  for (uint16_t i : attackers) {
    const Unit& unit = units[i];
    const bool removed = std::any_of(effects.begin(), effects.end(), [&](const Effect& e) {
      return e.unit == i && e.kind == EffectKind::kEliminated;
    });
    if (unit.street_fighting != StreetFighting::kFromBuilding || removed || unit.broken ||
        unit.pinned) {
      continue;
    }
    if (unit.in_wire) {
      report.notes.push_back(unit.id + " stays in the Location: the Wire holds it (B26.31)");
      continue;
    }
    effects.push_back(
        MakeEffect(EffectKind::kWithdrawn, i, "A11.8 returned to the Location it came from", 0));
  }
  report.attackers = attackers;
  report.targets = {vehicle};
  if (plan.director) report.director = static_cast<uint16_t>(*plan.director);
  report.kill_number = plan.kill_number;
  report.ccv_base = plan.ccv_base;
  report.ccv_modifiers = std::move(plan.ccv_modifiers);
  report.drms = std::move(plan.common);
  report.dr = dr;
  report.results.push_back(std::move(target));
  report.notes.insert(report.notes.end(), plan.notes.begin(), plan.notes.end());
  AmbusherKeepsConcealment(side, result != VehicleResult::kNoEffect, attackers, units, effects);
  Event event = MakeEvent(EventKind::kAttackResolved, side);
  event.attack = std::move(report);
  event.effects = std::move(effects);
  Emit(std::move(event));
  OfferInfiltration(dr, side, attackers, {});
}

// A11.62: a vehicle's attack on Infantry with its CMG/RMG/AAMG, odds vs the targets' CCV.
void Play::ResolveVehicleFire(const QueuedAttack& queued, const std::vector<uint16_t>& targets) {
  const Seat side = queued.side;
  const uint16_t vehicle = QueuedAttackers(work_, queued)[0];
  const uint8_t weapons = WeaponBits(queued.order().weapons);
  AttackPlan plan =
      PlanVehicleFire(work_.units, vehicle, weapons, targets, queued.order(), VehicleContext());
  const TwoDice dr = dice_.RollTwoDice("A11.62 CC DR");
  AttackReport report;
  report.side = side;
  report.weapons = weapons;
  report.attackers = {vehicle};
  report.targets = targets;
  report.attack_strength = plan.attack_strength;
  report.defence_strength = plan.defence_strength;
  report.halvings = plan.halvings;
  report.column = plan.column;
  report.kill_number = plan.kill_number;
  report.drms = plan.common;
  report.dr = dr;
  std::vector<Effect> effects;
  const KillResults kills =
      ApplyKills(plan, dr, targets, false, report.attackers, work_.units, report, effects);
  (void)kills;
  if (dr.Total() == 12 && (weapons & kCmg)) {
    // ASL-AMB-11: the H3 example's CMG malfunctions on an Original 12.
    effects.push_back(MakeEffect(EffectKind::kWeaponMalfunctioned, vehicle,
                                 "CMG malfunctions on an Original 12 (ASL-AMB-11)", kCmg));
  }
  report.notes.insert(report.notes.end(), plan.notes.begin(), plan.notes.end());
  Event event = MakeEvent(EventKind::kAttackResolved, side);
  event.attack = std::move(report);
  event.effects = std::move(effects);
  Emit(std::move(event));
  OfferInfiltration(dr, side, {}, targets);
}

// A Morale Check with +`level` (or a Pin Task Check when `level` < 0) for `index` (A10, A7.8).
TaskCheck Play::MoraleCheck(uint16_t index, int level, int leader_drm,
                            std::vector<Effect>& effects) {
  const Unit& unit = work_.units[index];
  TaskCheck check;
  check.unit = index;
  check.check = level < 0 ? "PTC" : level == 0 ? "NMC" : std::to_string(level) + "MC";
  check.morale = unit.morale;
  if (level > 0) check.drms.push_back({DrmCause::kCheckIft, level});
  if (leader_drm != 0) check.drms.push_back({DrmCause::kCheckLeadership, leader_drm});
  check.dr = dice_.RollTwoDice(level < 0 ? "A7.8 PTC DR" : "A10 MC DR");
  check.final_dr = check.dr.Total() + Total(check.drms);
  if (level < 0) {
    if (check.final_dr > check.morale) {
      check.result = CheckResult::kPinned;
      if (!unit.pinned) effects.push_back(MakeEffect(EffectKind::kPinned, index, "PTC", 0));
    }
    return check;
  }
  if (check.final_dr > check.morale) {
    if (unit.broken) {
      check.result = CheckResult::kEliminated;
      effects.push_back(MakeEffect(EffectKind::kEliminated, index, "broken unit fails a MC", 0));
      return check;
    }
    check.result = CheckResult::kBroken;
    effects.push_back(MakeEffect(EffectKind::kBroken, index, "fails its " + check.check, 0));
    // A10.31: an Original 12 on a MC is a Casualty MC: Casualty Reduction as well.
    if (check.dr.Total() == 12) CasualtyReduction(index, effects);
  } else if (check.final_dr == check.morale) {
    check.result = CheckResult::kPinned;
    if (!unit.pinned) {
      effects.push_back(MakeEffect(EffectKind::kPinned, index, "passes with Final DR = ML", 0));
    }
  }
  return check;
}

// A11.622: the sN Close Defense Weapon System: 16 FP on the IFT against every unarmored unit in
// the Location, friend or foe, no DRM or TEM; no effect when the Original DR > its Usage Number.
void Play::ResolveCloseDefense(const QueuedAttack& queued) {
  const Seat side = queued.side;
  const uint16_t vehicle = QueuedAttackers(work_, queued)[0];
  CloseDefenseReport cd;
  cd.usage = work_.units[vehicle].vehicle.sn_usage;
  cd.placeholder = !work_.options.sn_ift_from_option;
  for (size_t i = 0; i < work_.units.size(); ++i) {
    const Unit& unit = work_.units[i];
    if (!IsPresent(unit) || IsVehicle(unit) || unit.kind == UnitKind::kDummy) continue;
    if (!unit.passenger_of.empty()) {
      Result<uint16_t> carrier = Find(unit.passenger_of);
      if (carrier && IsAfv(work_.units[*carrier])) continue;  // Armored PRC are not vulnerable.
    }
    cd.targets.push_back(static_cast<uint16_t>(i));
  }
  cd.dr = dice_.RollTwoDice("A11.622 sN IFT DR");
  AttackReport report;
  report.side = side;
  report.weapons = kSn;
  report.attackers = {vehicle};
  report.targets = cd.targets;
  report.dr = cd.dr;
  std::vector<Effect> effects;
  const bool fired = cd.dr.Total() <= cd.usage;
  if (!fired) {
    report.notes.push_back("A11.622: the Original IFT DR is above the sN Usage Number: no effect "
                           "(D13.34)");
  } else {
    const IftResult ift = work_.options.sn_ift[cd.dr.Total() - 2];
    cd.ift = ift;
    if (cd.placeholder) {
      report.notes.push_back(
          "[DEFAULT - NOT FROM RULES] the 16-FP IFT column is a placeholder (only DR 7 = 2MC is "
          "from the rulebook's examples); match option sn_ift replaces it");
    }
    report.notes.push_back("A11.622: no TEM, DRM or LOS hindrance applies; no LLMC/LLTC in CC "
                           "(A11.141); Heat of Battle and ELR are outside A11 (not supported)");
    auto removed = [&](uint16_t i) {
      return std::any_of(effects.begin(), effects.end(), [&](const Effect& e) {
        return e.unit == i && e.kind == EffectKind::kEliminated;
      });
    };
    using Kind = IftResult::Kind;
    if ((ift.kind == Kind::kKia || ift.kind == Kind::kCasualty) && !cd.targets.empty()) {
      for (size_t t = 0; t < cd.targets.size(); ++t) {
        cd.selection_drs.push_back(dice_.RollDie("A.9 RS dr"));
      }
    }
    if (ift.kind == Kind::kKia) {
      // A7.301: the N units selected (highest drs first) are eliminated, the rest break.
      std::vector<size_t> order(cd.targets.size());
      for (size_t t = 0; t < order.size(); ++t) order[t] = t;
      std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        return cd.selection_drs[x] > cd.selection_drs[y];
      });
      for (size_t k = 0; k < order.size(); ++k) {
        const uint16_t i = cd.targets[order[k]];
        const Unit& unit = work_.units[i];
        if (static_cast<int>(k) < ift.n || unit.broken) {
          effects.push_back(MakeEffect(EffectKind::kEliminated, i, Name(ift) + " (A7.301)", 0));
        } else {
          effects.push_back(MakeEffect(EffectKind::kBroken, i, Name(ift) + " (A7.301)", 0));
        }
      }
    } else if (ift.kind != Kind::kNoEffect) {
      if (ift.kind == Kind::kCasualty) {
        // A7.302: Casualty Reduction of the unit(s) selected, then a MC for all.
        for (size_t t : HighestRolls(cd.selection_drs)) {
          CasualtyReduction(cd.targets[t], effects);
        }
      }
      const int level = ift.kind == Kind::kPtc ? -1 : ift.n;
      // A10.7: leaders check first; an unbroken leader's modifier helps the others of his side.
      std::array<int, 2> help = {0, 0};
      for (bool leaders : {true, false}) {
        for (uint16_t i : cd.targets) {
          const Unit& unit = work_.units[i];
          if ((unit.kind == UnitKind::kLeader) != leaders || removed(i)) continue;
          const size_t s = SeatIndex(unit.owner);
          TaskCheck check = MoraleCheck(i, level, leaders ? 0 : help[s], effects);
          if (leaders && check.result != CheckResult::kBroken &&
              check.result != CheckResult::kEliminated && !unit.broken) {
            help[s] = std::min(help[s], unit.leadership);
          }
          cd.checks.push_back(std::move(check));
        }
      }
    }
    for (const Unit& unit : work_.units) {
      if (IsVehicle(unit) && IsPresent(unit) && unit.vehicle.armor == Armor::kUnarmored) {
        report.notes.push_back("not supported: the sN attack's effect on unarmored vehicle " +
                               unit.id + " (A11.622 / D13.3): apply it on the board");
      }
    }
  }
  report.close_defense = std::move(cd);
  Event event = MakeEvent(EventKind::kAttackResolved, side);
  event.attack = std::move(report);
  event.effects = std::move(effects);
  Emit(std::move(event));
}

// Whether `seat` has an attack left: Infantry that has not attacked against an enemy not yet
// attacked (A11.12) or an enemy vehicle (attacked any number of times), or a vehicle weapon not
// yet used (A11.62; the sN once provoked, A11.622).
bool Play::CanStillAttack(Seat seat) const {
  bool infantry = false, vehicle_fire = false, sn_ready = false;
  bool infantry_target = false, enemy_infantry = false, vehicle_target = false;
  bool provoked = work_.ambusher == seat;
  for (size_t i = 0; i < work_.units.size(); ++i) {
    const Unit& unit = work_.units[i];
    if (unit.owner == seat && work_.is_attacked[i]) provoked = true;
  }
  for (size_t i = 0; i < work_.units.size(); ++i) {
    const Unit& unit = work_.units[i];
    if (!IsPresent(unit) || unit.kind == UnitKind::kDummy) continue;
    if (unit.owner == seat) {
      if (IsVehicle(unit)) {
        if (work_.location.reaction_fire) continue;
        const uint8_t usable = UsableWeapons(unit, work_.weapons_used[i]);
        vehicle_fire = vehicle_fire || (usable & (kCmg | kRmg | kAamg)) != 0;
        sn_ready = sn_ready || ((usable & kSn) != 0 && provoked);
      } else if (!unit.broken && !work_.withdrawing[i] && !work_.has_attacked[i] &&
                 unit.passenger_of.empty()) {
        infantry = true;
      }
    } else if (IsVehicle(unit)) {
      vehicle_target = true;
    } else if (unit.passenger_of.empty()) {
      enemy_infantry = true;
      if (!work_.is_attacked[i]) infantry_target = true;
    }
  }
  return (infantry && (infantry_target || vehicle_target)) || (vehicle_fire && infantry_target) ||
         (sn_ready && enemy_infantry);
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
  Event& event = Draft(EventKind::kPhaseEnded);
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
  UnitFlags stays(work_.units.size(), 0);
  for (size_t i = 0; i < work_.units.size(); ++i) stays[i] = IsPresent(work_.units[i]);
  for (const Effect& effect : event.effects) {
    if (effect.kind == EffectKind::kWithdrawn || effect.kind == EffectKind::kEliminated) {
      stays[effect.unit] = false;
    }
    if (effect.kind == EffectKind::kCaptureVoided) stays[effect.unit] = true;
  }
  // A11.7 / A11.71: a vehicle is never held in Melee, but one that stays (not in Motion) holds
  // Known enemy Infantry in Melee.
  std::array<bool, 2> in_melee = {false, false};
  std::array<bool, 2> holding_vehicle = {false, false};
  bool vehicle_present = false;
  for (size_t i = 0; i < work_.units.size(); ++i) {
    const Unit& unit = work_.units[i];
    if (!stays[i]) continue;
    if (IsVehicle(unit)) {
      vehicle_present = true;
      if (unit.vehicle.movement == Movement::kStopped) holding_vehicle[SeatIndex(unit.owner)] = true;
      continue;
    }
    if (!unit.concealed && unit.passenger_of.empty()) in_melee[SeatIndex(unit.owner)] = true;
  }
  event.melee = (in_melee[0] && in_melee[1]) || (holding_vehicle[0] && in_melee[1]) ||
                (holding_vehicle[1] && in_melee[0]);
  if (event.melee && vehicle_present) {
    event.notes.push_back("A11.7: a vehicle is never held in Melee; a stationary one holds Known "
                          "enemy Infantry in Melee while it stays (A11.71: a Mobile vehicle may "
                          "leave in its MPh)");
  }
  EmitDraft();
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
