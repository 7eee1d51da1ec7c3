// DescribeEvent, PreviewAssault and Play: the readable, the exact and the scripted views of a
// close assault.

#include <algorithm>
#include <utility>

#include "engine/core/check.h"
#include "engine/vv/internal.h"
#include "engine/vv/rules.h"

namespace melee::engine::vv {
namespace {

using internal::SeatIndex;

std::string Signed(int value) {
  return value < 0 ? " " + std::to_string(value) : " +" + std::to_string(value);
}

std::string Modifiers(const std::vector<Modifier>& modifiers) {
  std::string text;
  for (const Modifier& m : modifiers) text += Signed(m.value) + " (" + m.rule + " " + m.what + ")";
  return text;
}

std::string Ids(const State& state, const std::vector<uint16_t>& units) {
  std::string text;
  for (uint16_t unit : units) text += (text.empty() ? "" : ", ") + std::string(UnitId(state, unit));
  return text;
}

std::string EffectText(const State& state, const Effect& effect) {
  const std::string id(UnitId(state, effect.unit));
  switch (effect.kind) {
    case EffectKind::kEliminated:
      return id + " eliminated (" + effect.text + ")";
    case EffectKind::kPinned:
      return id + " pinned (" + effect.text + ")";
    case EffectKind::kReduced:
      return id + " reduced to a half squad (" + effect.text + ")";
    case EffectKind::kImmobilized:
      return id + " Immobile (" + effect.text + ")";
    case EffectKind::kValorous:
      return id + " becomes valorous (16.2)";
    case EffectKind::kIgnoredCp:
      return id + " ignores the first Casualty Point (" + effect.text + ")";
    case EffectKind::kOccupied:
      return id + " moves into " + state.situation.target.name;
    case EffectKind::kExpended:
      return std::string(Name(effect.seat)) + " expends " + std::to_string(effect.value) + " " +
             effect.text;
  }
  return "";
}

}  // namespace

std::string DescribeEvent(const State& state, const Event& event) {
  std::string text;
  const std::string seat(Name(event.seat));
  switch (event.kind) {
    case EventKind::kSetUp: {
      const Situation& s = *event.situation;
      text = "15.1 " + std::string(Name(s.attacker)) + " close assaults " + s.target.name +
             (s.source_hex.empty() ? "" : " from " + s.source_hex) + " with " +
             std::to_string(std::count_if(s.units.begin(), s.units.end(),
                                          [&](const Unit& u) { return u.owner == s.attacker; })) +
             " units";
      break;
    }
    case EventKind::kDeclarationSealed:
      text = seat + " sealed its declaration";
      if (event.declare && event.seat == state.situation.attacker) {
        text += event.declare->group.empty() ? " (no assault)" : "";
      }
      break;
    case EventKind::kDeclarationsRevealed:
      text = "declarations revealed";
      break;
    case EventKind::kAssaultResolved: {
      const AssaultReport& r = *event.report;
      if (r.called_off) {
        text = "the close assault is called off";
        break;
      }
      if (!r.pinned_eliminated.empty()) {
        text = "15.9 pinned defenders eliminated first: " + Ids(state, r.pinned_eliminated) + "\n";
      }
      if (r.automatic) {
        text += "15.9 only pinned units defended: the hex is taken, no roll, no Casualty Points";
        break;
      }
      text += "15.6 " + std::to_string(r.assault_apfp) + " vs " + std::to_string(r.defence_apfp) +
              " -> " + std::string(Name(r.odds)) + ", Kill # " +
              std::to_string(r.printed_kill_number) + Modifiers(r.kill_number_modifiers) + " = " +
              std::to_string(r.kill_number) + "; DR " + std::to_string(r.dr.Total()) +
              Modifiers(r.dr_modifiers) + " = " + std::to_string(r.final_dr) +
              (r.success ? " <= " : " > ") + std::to_string(r.kill_number) +
              (r.success ? ": the assault succeeds" : ": the assault fails by " +
                                                         std::to_string(r.margin));
      text += "\n15.8 " + std::string(Name(state.situation.attacker)) + " suffers " +
              std::to_string(r.assaulter_cp) + " CP:" + Modifiers(r.assaulter_cp_parts);
      if (!r.success) {
        text += "; " + std::string(Name(Opponent(state.situation.attacker))) + " suffers " +
                std::to_string(r.defender_cp) + " CP (1 per assaulting unit)";
      }
      for (const ValorCheck& check : r.valor_checks) {
        text += "\n16.2 valor check " + std::string(UnitId(state, check.unit)) + ": DR " +
                std::to_string(check.dr.Total()) + (check.valorous ? " <= " : " > ") +
                std::to_string(check.needed);
      }
      break;
    }
    case EventKind::kAllocationSealed:
      text = seat + " sealed its Casualty Point allocation";
      break;
    case EventKind::kAllocationsRevealed:
      text = "allocations revealed";
      break;
    case EventKind::kCasualtiesApplied: {
      text = "14.61 " + seat + " applies " + std::to_string(event.cp) + " CP:";
      for (const CpAction& action : event.allocation->actions) {
        text += " " + std::string(Name(action.kind)) + " " + action.unit;
        if (action.points > 0) text += "(" + std::to_string(action.points) + ")";
      }
      break;
    }
    case EventKind::kAssaultEnded:
      text = "the close assault is over";
      break;
  }
  for (const Effect& effect : event.effects) text += "\n  " + EffectText(state, effect);
  for (const std::string& note : event.notes) text += "\n  note: " + note;
  return text;
}

Result<Preview> PreviewAssault(const State& state, const Declare& assaulter,
                               const Declare& defender) {
  if (state.phase != Phase::kDeclare) return Reject("", "preview needs a close assault set up");
  const Seat attacker = state.situation.attacker;
  // Check both declarations as sealed in this order (the defender's only when it owes one).
  State work = state;
  work.declared = {std::nullopt, std::nullopt};
  work.owes[SeatIndex(attacker)] = true;
  if (auto ok = ValidateDeclaration(work, attacker, assaulter); !ok) return tl::unexpected(ok.error());
  if (work.owes[SeatIndex(Opponent(attacker))]) {
    if (auto ok = ValidateDeclaration(work, Opponent(attacker), defender); !ok) {
      return tl::unexpected(ok.error());
    }
  }
  if (assaulter.group.empty()) return Reject("15.1", "preview: the assault group is empty");
  Preview preview;
  for (uint16_t unit : internal::PinnedDefenders(work)) work.eliminated[unit] = true;
  if (internal::UnpinnedDefenders(work).empty()) {
    preview.automatic = true;
    preview.success = Rational(1);
    preview.assaulter_cp = {Rational(1)};
    preview.defender_cp = {Rational(1)};
    return preview;
  }
  const internal::Assessment a = internal::Assess(work, assaulter, defender);
  preview.assault_apfp = a.assault_apfp;
  preview.defence_apfp = a.defence_apfp;
  preview.odds = a.odds;
  preview.kill_number = a.kill_number;
  preview.dr_modifier = internal::Sum(a.dr_modifiers);
  const int group = static_cast<int>(assaulter.group.size());
  const int base_cp = internal::Sum(internal::AssaulterCpParts(work, 0));
  std::vector<int64_t> assaulter_cp;
  std::vector<int64_t> defender_cp;
  int64_t successes = 0;
  const auto count = [](std::vector<int64_t>& histogram, int value) {
    if (histogram.size() <= static_cast<size_t>(value)) histogram.resize(value + 1, 0);
    ++histogram[value];
  };
  for (int colored = 1; colored <= 6; ++colored) {
    for (int white = 1; white <= 6; ++white) {
      const int final_dr = colored + white + preview.dr_modifier;
      const bool success = final_dr <= a.kill_number;
      const int margin = success ? 0 : final_dr - a.kill_number;
      successes += success ? 1 : 0;
      count(assaulter_cp, base_cp + margin);  // 15.8: the failure margin adds to the rest
      count(defender_cp, success ? 0 : group);
    }
  }
  preview.success = Rational(successes, 36);
  for (int64_t n : assaulter_cp) preview.assaulter_cp.push_back(Rational(n, 36));
  for (int64_t n : defender_cp) preview.defender_cp.push_back(Rational(n, 36));
  preview.valor_check = state.options.valor_check ? Rational(1, 36) : Rational(0);
  preview.sniper = state.options.sniper_check ? Rational(1, 36) : Rational(0);
  return preview;
}

Result<Played> Play(const VvRules& rules, const Script& script, Dice& dice) {
  auto initial = rules.NewState(script.options);
  if (!initial) return tl::unexpected(initial.error());
  Played played;
  played.final_state = std::move(*initial);
  const auto run = [&](Seat seat, const Command& command, std::string_view what) -> Result<void> {
    auto events = rules.Decide(played.final_state, seat, command, dice);
    if (!events) {
      return Reject(events.error().rule_ref,
                    std::string(what) + " of " + std::string(Name(seat)) + ": " +
                        events.error().message);
    }
    for (Event& event : *events) {
      played.states.push_back(played.final_state);
      rules.Apply(played.final_state, event);
      played.events.push_back(std::move(event));
    }
    return {};
  };
  if (auto ok = run(script.situation.attacker, SetUp{script.situation}, "the set-up"); !ok) {
    return tl::unexpected(ok.error());
  }
  const Seat attacker = script.situation.attacker;
  for (Seat seat : {attacker, Opponent(attacker)}) {
    if (!played.final_state.owes[SeatIndex(seat)]) continue;
    if (auto ok = run(seat, script.declarations[SeatIndex(seat)], "the declaration"); !ok) {
      return tl::unexpected(ok.error());
    }
  }
  for (Seat seat : {attacker, Opponent(attacker)}) {
    if (played.final_state.phase != Phase::kAllocate ||
        !played.final_state.owes[SeatIndex(seat)]) {
      continue;
    }
    Allocation allocation;
    if (script.allocations[SeatIndex(seat)]) {
      allocation = *script.allocations[SeatIndex(seat)];
    } else {
      allocation = AutoAllocation(played.final_state, seat);
      played.defaults.push_back(std::string(Name(seat)) +
                                ": Casualty Points allocated by the engine's default "
                                "(VV-AMB-13, not from the rules)");
    }
    if (auto ok = run(seat, Allocate{allocation}, "the allocation"); !ok) {
      return tl::unexpected(ok.error());
    }
  }
  MELEE_CHECK(played.final_state.phase == Phase::kEnded);
  return played;
}

}  // namespace melee::engine::vv
