// DescribeEvent: the readable account of each asl event (the CLI's text output, the log viewer).

#include <string>
#include <string_view>

#include "engine/asl/rules.h"
#include "engine/core/text.h"

namespace melee::engine::asl {
namespace {

// Each helper appends to `out` (engine/core/text.h): an event's account is written into one
// string.

void AppendSigned(std::string& out, int value) {
  if (value > 0) out += '+';
  Append(out, value);
}

void AppendDrms(std::string& out, const std::vector<Drm>& drms) {
  if (drms.empty()) {
    out += "none";
    return;
  }
  bool first = true;
  for (const Drm& drm : drms) {
    if (!first) out += ", ";
    first = false;
    AppendSigned(out, drm.value);
    Append(out, ' ', TextOf(drm.cause), " [", RuleOf(drm.cause), ']');
  }
}

std::string_view Id(const State& state, const Event& event, size_t index) {
  return UnitId(state, event, index);
}

void AppendIds(std::string& out, const State& state, const Event& event,
               const std::vector<uint16_t>& units) {
  const size_t start = out.size();
  for (uint16_t unit : units) {
    if (out.size() != start) out += ", ";
    out += Id(state, event, unit);
  }
}

void AppendJoined(std::string& out, const std::vector<std::string>& ids) {
  const size_t start = out.size();
  for (const std::string& id : ids) Append(out, out.size() == start ? "" : ", ", id);
  if (out.size() == start) out += "none";
}

std::string_view OutcomeText(Outcome outcome) {
  switch (outcome) {
    case Outcome::kNoEffect:
      return "no effect";
    case Outcome::kPartial:
      return "Partial Kill";
    case Outcome::kEliminated:
      return "eliminated";
    case Outcome::kCaptured:
      return "captured";
    case Outcome::kImmobilized:
      return "immobilized [A11.5]";
    case Outcome::kBurning:
      return "eliminated: a burning wreck [A11.5]";
  }
  return "?";
}

// " (<text>)", or nothing when `text` is empty.
void AppendAside(std::string& out, const std::string& text) {
  if (!text.empty()) Append(out, " (", text, ')');
}

void AppendEffect(std::string& out, const State& state, const Event& event, const Effect& effect) {
  const std::string_view id = Id(state, event, effect.unit);
  switch (effect.kind) {
    case EffectKind::kEliminated:
      Append(out, id, " eliminated");
      AppendAside(out, effect.text);
      return;
    case EffectKind::kReduced:
      Append(out, id, " Reduced to a HS of ", effect.value, " FP");
      AppendAside(out, effect.text);
      return;
    case EffectKind::kWounded:
      return Append(out, id, " wounded (", effect.text, ')');
    case EffectKind::kCaptured:
      return Append(out, id, " captured");
    case EffectKind::kCaptureVoided:
      return Append(out, id, " is free again: ", effect.text);
    case EffectKind::kConcealmentLost:
      return Append(out, id, " loses concealment (", effect.text, ')');
    case EffectKind::kWithdrawn:
      return Append(out, id, " withdraws (", effect.text, ')');
    case EffectKind::kSupportWeaponLost:
      return Append(out, id, "'s ", effect.text, " is eliminated [A11.13]");
    case EffectKind::kSupportWeaponDropped:
      return Append(out, id, "'s ", effect.text, " is left unpossessed in the Location [A11.13]");
    case EffectKind::kLeaderCreated:
      return Append(out, "leader ", id, " (", effect.text, ") created, stacked on ",
                    effect.created ? std::string_view(effect.created->stacked_on) : "?",
                    " [A18.2]");
    case EffectKind::kHalfSquadCreated:
      return Append(out, "HS ", id, " created (", effect.text, ')');
    case EffectKind::kPinned:
      return Append(out, id, " pinned (", effect.text, ')');
    case EffectKind::kBroken:
      return Append(out, id, " broken (", effect.text, ')');
    case EffectKind::kImmobilized:
      return Append(out, id, " immobilized [A11.5]");
    case EffectKind::kWeaponMalfunctioned:
      return Append(out, id, "'s ", Name(static_cast<Weapon>(effect.value)), " malfunctions (",
                    effect.text, ')');
  }
  out += '?';
}

void AppendCheck(std::string& out, const State& state, const Event& event, const TaskCheck& c) {
  std::string_view result = "passed";
  switch (c.result) {
    case CheckResult::kPassed:
      break;
    case CheckResult::kPinned:
      result = "pinned";
      break;
    case CheckResult::kBroken:
      result = "broken";
      break;
    case CheckResult::kEliminated:
      result = "eliminated";
      break;
  }
  Append(out, Id(state, event, c.unit), ' ', c.check, ": DR ", c.dr.Total(), " (");
  AppendDrms(out, c.drms);
  Append(out, ") = ", c.final_dr, " vs ML ", c.morale, " -> ", result);
}

void AppendWeapons(std::string& out, uint8_t weapons) {
  const size_t start = out.size();
  for (Weapon weapon : {kCmg, kRmg, kAamg, kSn}) {
    if (weapons & weapon) Append(out, out.size() == start ? "" : "+", Name(weapon));
  }
}

// "; DRM <drms>; DR <total> (coloured <c>, white <w>)"
void AppendDrmAndDr(std::string& out, const std::vector<Drm>& drms, const TwoDice& dr) {
  out += "; DRM ";
  AppendDrms(out, drms);
  Append(out, "; DR ", dr.Total(), " (coloured ", dr.colored, ", white ", dr.white, ')');
}

// The final DR against each target and its outcome, then the attack's notes.
void AppendResults(std::string& out, const State& state, const Event& event,
                   const AttackReport& r) {
  for (const TargetResult& t : r.results) {
    Append(out, "\n  ", Id(state, event, t.unit), ": Final DR ", t.final_dr);
    if (!t.drms.empty()) {
      out += " (own DRM ";
      AppendDrms(out, t.drms);
      out += ')';
    }
    Append(out, " -> ", OutcomeText(t.outcome));
  }
  for (const std::string& note : r.notes) Append(out, "\n  note: ", note);
}

// The readable account of a resolved attack by or on a vehicle.
void AppendVehicleAttack(std::string& out, const State& state, const Event& event,
                         const AttackReport& r) {
  const std::string_view seat = Name(event.seat);
  if (r.close_defense) {
    const CloseDefenseReport& cd = *r.close_defense;
    Append(out, seat, "'s ");
    AppendIds(out, state, event, r.attackers);
    Append(out, " fires its Close Defense Weapon System: IFT DR ", cd.dr.Total(), " vs Usage # ",
           cd.usage, " -> ");
    if (cd.ift) {
      Append(out, "16 FP: ", Name(*cd.ift), " on ");
      AppendIds(out, state, event, cd.targets);
    } else {
      out += "no effect";
    }
    out += " [A11.622]";
    for (const TaskCheck& check : cd.checks) {
      out += "\n  ";
      AppendCheck(out, state, event, check);
    }
  } else if (r.vs_vehicle) {
    Append(out, seat, " attacks vehicle ");
    AppendIds(out, state, event, r.targets);
    out += " with ";
    AppendIds(out, state, event, r.attackers);
    Append(out, ": CCV ", r.kill_number, " (", r.ccv_base);
    if (!r.ccv_modifiers.empty()) {
      out += ", ";
      AppendDrms(out, r.ccv_modifiers);
    }
    out += ") [A11.5]";
    if (r.atmm) {
      Append(out, "; ATMM check by ", Id(state, event, r.atmm->unit), ": dr ", r.atmm->dr, " (");
      AppendDrms(out, r.atmm->drms);
      Append(out, ") = ", r.atmm->final_dr, " -> ", Name(r.atmm->result), " [C13.7]");
    }
    AppendDrmAndDr(out, r.drms, r.dr);
    if (r.unlikely_kill_dr) {
      Append(out, "; Original 2: Unlikely Kill dr ", *r.unlikely_kill_dr, " [A11.501]");
    }
    if (r.crew_small_arms) out += "; Original 12: Crew Small Arms [A11.621]";
  } else {
    Append(out, seat, "'s ");
    AppendIds(out, state, event, r.attackers);
    out += " attacks ";
    AppendIds(out, state, event, r.targets);
    out += " with its ";
    AppendWeapons(out, r.weapons);
    Append(out, ": ", r.attack_strength.ToMixedString(), " FP vs CCV ",
           r.defence_strength.ToMixedString(), " -> ", Name(r.column), ", Kill # ", r.kill_number,
           " [A11.62]");
    for (const Halving& halving : r.halvings) {
      Append(out, "; ", TextOf(halving.cause), " [", RuleOf(halving.cause), ']');
    }
    AppendDrmAndDr(out, r.drms, r.dr);
  }
  if (r.leader_creation) {
    const LeaderCreation& c = *r.leader_creation;
    Append(out, "; Original 2: Leader Creation dr ", c.dr, " = ", c.final_dr, " -> ",
           c.leader.empty() ? std::string_view("none") : std::string_view(c.leader), " [A18.2]");
  }
  AppendResults(out, state, event, r);
}

std::string_view ChoiceText(ChoiceKind kind) {
  switch (kind) {
    case ChoiceKind::kInfiltration:
      return "A11.22 Infiltration: withdraw any of these units now?";
    case ChoiceKind::kCaptureSelection:
      return "A20.22 capture: pick the one unit that is captured";
    case ChoiceKind::kAmbushWithdrawal:
      return "A11.41 Ambush Withdrawal: withdraw any of these units before Melee?";
  }
  return "?";
}

}  // namespace

std::string_view UnitId(const State& before, const Event& event, size_t index) {
  if (index < before.units.size()) return before.units[index].id;
  for (const Effect& effect : event.effects) {
    if (effect.created && effect.unit == index) return effect.created->id;
  }
  return "?";
}

std::string DescribeEvent(const State& state, const Event& event) {
  std::string text;
  const std::string_view seat = Name(event.seat);
  switch (event.kind) {
    case EventKind::kSetUp:
      Append(text, "set-up: Location ", event.situation->location.name, ", ",
             event.situation->units.size(), " units, ATTACKER ", Name(event.situation->attacker),
             event.situation->location.melee ? ", in Melee" : "");
      break;
    case EventKind::kAnnounced:
      Append(text, seat, " announces: withdraw ");
      AppendJoined(text, event.announce->withdraw);
      text += "; solo SMC ";
      AppendJoined(text, event.announce->solo);
      if (!event.announce->cannot_withdraw.empty()) {
        text += "; unable to withdraw ";
        AppendJoined(text, event.announce->cannot_withdraw);
      }
      if (event.announce->declare_hth) text += "; declares HtH";
      break;
    case EventKind::kDummiesRemoved:
      text = "A11.19 Dummies removed before designation";
      break;
    case EventKind::kAmbushChecked: {
      const AmbushReport& r = *event.ambush;
      Append(text, "A11.4 Ambush: side_a dr ", r.dr[0], " (");
      AppendDrms(text, r.drms[0]);
      Append(text, ") = ", r.final_dr[0], ", side_b dr ", r.dr[1], " (");
      AppendDrms(text, r.drms[1]);
      Append(text, ") = ", r.final_dr[1], ": ");
      if (r.ambusher) {
        Append(text, Name(*r.ambusher), " ambushes; CC is sequential [A11.32]");
      } else {
        text += "no Ambush";
      }
      break;
    }
    case EventKind::kHthDeclared:
      text = "Hand-to-Hand CC in this Location: red Kill numbers";
      break;
    case EventKind::kDeclarationSealed:
      Append(text, seat, " designates ", event.seal->attacks.size(), " attack(s)");
      for (const AttackOrder& order : event.seal->attacks) {
        text += "; ";
        AppendJoined(text, order.attackers);
        if (!order.weapons.empty()) {
          text += " (";
          AppendJoined(text, order.weapons);
          text += ')';
        }
        text += " -> ";
        if (IsCloseDefense(order)) {
          text += "every unarmored unit";
        } else {
          AppendJoined(text, order.targets);
        }
        if (order.capture) text += " (capture)";
        if (!order.atmm.empty()) Append(text, " (ATMM: ", order.atmm, ')');
      }
      if (!event.seal->ambush_withdraw.empty()) {
        text += "; Ambush Withdrawal: ";
        AppendJoined(text, event.seal->ambush_withdraw);
      }
      break;
    case EventKind::kDeclarationsRevealed:
      text = "declarations revealed; the ATTACKER resolves first [A11.12]";
      break;
    case EventKind::kAttackResolved: {
      const AttackReport& r = *event.attack;
      if (r.vs_vehicle || r.weapons != 0) {
        AppendVehicleAttack(text, state, event, r);
        break;
      }
      Append(text, seat, " attacks ");
      AppendIds(text, state, event, r.targets);
      text += " with ";
      AppendIds(text, state, event, r.attackers);
      Append(text, ": ", r.attack_strength.ToMixedString(), ":", r.defence_strength.ToMixedString(),
             " -> ", Name(r.column), ", Kill # ", r.kill_number, r.hth ? " (HtH, red)" : "",
             " [A11.11]");
      for (const Halving& halving : r.halvings) {
        Append(text, "; ", TextOf(halving.cause));
        if (!halving.unit.empty()) Append(text, " (", halving.unit, ')');
        Append(text, " [", RuleOf(halving.cause), ']');
      }
      AppendDrmAndDr(text, r.drms, r.dr);
      if (r.leader_creation) {
        const LeaderCreation& c = *r.leader_creation;
        Append(text, "; Original 2: Leader Creation dr ", c.dr, " (");
        AppendDrms(text, c.drms);
        Append(text, ") = ", c.final_dr, " -> ",
               c.leader.empty() ? std::string_view("none") : std::string_view(c.leader),
               " [A18.2]");
      }
      AppendResults(text, state, event, r);
      break;
    }
    case EventKind::kAttackVoid:
      Append(text, seat, "'s attack is void");
      break;
    case EventKind::kChoiceRequested:
      Append(text, "choice ", event.choice->id, " for ", Name(event.choice->seat), ": ",
             ChoiceText(event.choice->kind), " (");
      AppendIds(text, state, event, event.choice->options);
      text += ')';
      break;
    case EventKind::kChoiceMade:
      Append(text, seat, " answers choice ", event.choice->id, ": ");
      if (event.selected.empty()) {
        text += "none";
      } else {
        AppendIds(text, state, event, event.selected);
      }
      break;
    case EventKind::kPassed:
      Append(text, seat, " makes no further attack [A11.3]");
      break;
    case EventKind::kPaatcTaken:
      text = "A11.6 PAATC before advancing onto a manned enemy AFV";
      for (const TaskCheck& check : event.checks) {
        text += "\n  ";
        AppendCheck(text, state, event, check);
      }
      break;
    case EventKind::kVehicleCaptured:
      text = "A11.52 an unarmed vehicle alone with enemy Infantry is captured";
      break;
    case EventKind::kPhaseEnded:
      Append(text, "end of CCPh: ",
             event.melee ? "Infantry of both sides remain: Melee [A11.15]" : "no Melee");
      break;
  }
  for (const DieRoll& roll : event.rolls) {
    Append(text, "\n  roll ", roll.purpose, ": ", roll.value,
           roll.color == DieColor::kColored ? " (coloured)"
           : roll.color == DieColor::kWhite ? " (white)"
                                            : "");
  }
  for (const Effect& effect : event.effects) {
    text += "\n  ";
    AppendEffect(text, state, event, effect);
  }
  for (const std::string& note : event.notes) Append(text, "\n  note: ", note);
  return text;
}

}  // namespace melee::engine::asl
