// DescribeEvent: the readable account of each asl event (the CLI's text output, the log viewer).

#include <string>

#include "engine/asl/rules.h"

namespace melee::engine::asl {
namespace {

std::string Signed(int value) {
  return value > 0 ? "+" + std::to_string(value) : std::to_string(value);
}

std::string Drms(const std::vector<Drm>& drms) {
  std::string out;
  for (const Drm& drm : drms) {
    if (!out.empty()) out += ", ";
    out += Signed(drm.value) + " " + std::string(TextOf(drm.cause)) + " [" +
           std::string(RuleOf(drm.cause)) + "]";
  }
  return out.empty() ? "none" : out;
}

std::string Id(const State& state, const Event& event, size_t index) {
  return std::string(UnitId(state, event, index));
}

std::string Ids(const State& state, const Event& event, const std::vector<uint16_t>& units) {
  std::string out;
  for (uint16_t unit : units) {
    if (!out.empty()) out += ", ";
    out += Id(state, event, unit);
  }
  return out;
}

std::string Join(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out.empty() ? "none" : out;
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

std::string EffectText(const State& state, const Event& event, const Effect& effect) {
  const std::string id = Id(state, event, effect.unit);
  switch (effect.kind) {
    case EffectKind::kEliminated:
      return id + " eliminated" + (effect.text.empty() ? "" : " (" + effect.text + ")");
    case EffectKind::kReduced:
      return id + " Reduced to a HS of " + std::to_string(effect.value) + " FP" +
             (effect.text.empty() ? "" : " (" + effect.text + ")");
    case EffectKind::kWounded:
      return id + " wounded (" + effect.text + ")";
    case EffectKind::kCaptured:
      return id + " captured";
    case EffectKind::kCaptureVoided:
      return id + " is free again: " + effect.text;
    case EffectKind::kConcealmentLost:
      return id + " loses concealment (" + effect.text + ")";
    case EffectKind::kWithdrawn:
      return id + " withdraws (" + effect.text + ")";
    case EffectKind::kSupportWeaponLost:
      return id + "'s " + effect.text + " is eliminated [A11.13]";
    case EffectKind::kSupportWeaponDropped:
      return id + "'s " + effect.text + " is left unpossessed in the Location [A11.13]";
    case EffectKind::kLeaderCreated:
      return "leader " + id + " (" + effect.text + ") created, stacked on " +
             (effect.created ? effect.created->stacked_on : std::string("?")) + " [A18.2]";
    case EffectKind::kHalfSquadCreated:
      return "HS " + id + " created (" + effect.text + ")";
    case EffectKind::kPinned:
      return id + " pinned (" + effect.text + ")";
    case EffectKind::kBroken:
      return id + " broken (" + effect.text + ")";
    case EffectKind::kImmobilized:
      return id + " immobilized [A11.5]";
    case EffectKind::kWeaponMalfunctioned:
      return id + "'s " + std::string(Name(static_cast<Weapon>(effect.value))) +
             " malfunctions (" + effect.text + ")";
  }
  return "?";
}

std::string CheckText(const State& state, const Event& event, const TaskCheck& c) {
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
  return Id(state, event, c.unit) + " " + c.check + ": DR " + std::to_string(c.dr.Total()) +
         " (" + Drms(c.drms) + ") = " + std::to_string(c.final_dr) + " vs ML " +
         std::to_string(c.morale) + " -> " + std::string(result);
}

std::string WeaponsText(uint8_t weapons) {
  std::string out;
  for (Weapon weapon : {kCmg, kRmg, kAamg, kSn}) {
    if (weapons & weapon) out += (out.empty() ? "" : "+") + std::string(Name(weapon));
  }
  return out;
}

// The readable account of a resolved attack by or on a vehicle.
std::string VehicleAttackText(const State& state, const Event& event, const AttackReport& r) {
  std::string text;
  const std::string seat(Name(event.seat));
  if (r.close_defense) {
    const CloseDefenseReport& cd = *r.close_defense;
    text = seat + "'s " + Ids(state, event, r.attackers) +
           " fires its Close Defense Weapon System: IFT DR " + std::to_string(cd.dr.Total()) +
           " vs Usage # " + std::to_string(cd.usage) + " -> " +
           (cd.ift ? "16 FP: " + Name(*cd.ift) + " on " + Ids(state, event, cd.targets)
                   : std::string("no effect")) +
           " [A11.622]";
    for (const TaskCheck& check : cd.checks) text += "\n  " + CheckText(state, event, check);
  } else if (r.vs_vehicle) {
    text = seat + " attacks vehicle " + Ids(state, event, r.targets) + " with " +
           Ids(state, event, r.attackers) + ": CCV " + std::to_string(r.kill_number) + " (" +
           std::to_string(r.ccv_base) +
           (r.ccv_modifiers.empty() ? "" : ", " + Drms(r.ccv_modifiers)) + ") [A11.5]";
    if (r.atmm) {
      text += "; ATMM check by " + Id(state, event, r.atmm->unit) + ": dr " +
              std::to_string(r.atmm->dr) + " (" + Drms(r.atmm->drms) + ") = " +
              std::to_string(r.atmm->final_dr) + " -> " + std::string(Name(r.atmm->result)) +
              " [C13.7]";
    }
    text += "; DRM " + Drms(r.drms) + "; DR " + std::to_string(r.dr.Total()) + " (coloured " +
            std::to_string(r.dr.colored) + ", white " + std::to_string(r.dr.white) + ")";
    if (r.unlikely_kill_dr) {
      text += "; Original 2: Unlikely Kill dr " + std::to_string(*r.unlikely_kill_dr) + " [A11.501]";
    }
    if (r.crew_small_arms) text += "; Original 12: Crew Small Arms [A11.621]";
  } else {
    text = seat + "'s " + Ids(state, event, r.attackers) + " attacks " +
           Ids(state, event, r.targets) + " with its " + WeaponsText(r.weapons) + ": " +
           r.attack_strength.ToMixedString() + " FP vs CCV " + r.defence_strength.ToMixedString() +
           " -> " + std::string(Name(r.column)) + ", Kill # " + std::to_string(r.kill_number) +
           " [A11.62]";
    for (const Halving& halving : r.halvings) {
      text += "; " + std::string(TextOf(halving.cause)) + " [" +
              std::string(RuleOf(halving.cause)) + "]";
    }
    text += "; DRM " + Drms(r.drms) + "; DR " + std::to_string(r.dr.Total()) + " (coloured " +
            std::to_string(r.dr.colored) + ", white " + std::to_string(r.dr.white) + ")";
  }
  if (r.leader_creation) {
    const LeaderCreation& c = *r.leader_creation;
    text += "; Original 2: Leader Creation dr " + std::to_string(c.dr) + " = " +
            std::to_string(c.final_dr) + " -> " + (c.leader.empty() ? "none" : c.leader) +
            " [A18.2]";
  }
  for (const TargetResult& t : r.results) {
    text += "\n  " + Id(state, event, t.unit) + ": Final DR " + std::to_string(t.final_dr) +
            (t.drms.empty() ? "" : " (own DRM " + Drms(t.drms) + ")") + " -> " +
            std::string(OutcomeText(t.outcome));
  }
  for (const std::string& note : r.notes) text += "\n  note: " + note;
  return text;
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
  const std::string seat(Name(event.seat));
  switch (event.kind) {
    case EventKind::kSetUp:
      text = "set-up: Location " + event.situation->location.name + ", " +
             std::to_string(event.situation->units.size()) + " units, ATTACKER " +
             std::string(Name(event.situation->attacker)) +
             (event.situation->location.melee ? ", in Melee" : "");
      break;
    case EventKind::kAnnounced:
      text = seat + " announces: withdraw " + Join(event.announce->withdraw) + "; solo SMC " +
             Join(event.announce->solo) +
             (event.announce->cannot_withdraw.empty()
                  ? ""
                  : "; unable to withdraw " + Join(event.announce->cannot_withdraw)) +
             (event.announce->declare_hth ? "; declares HtH" : "");
      break;
    case EventKind::kDummiesRemoved:
      text = "A11.19 Dummies removed before designation";
      break;
    case EventKind::kAmbushChecked: {
      const AmbushReport& r = *event.ambush;
      text = "A11.4 Ambush: side_a dr " + std::to_string(r.dr[0]) + " (" + Drms(r.drms[0]) +
             ") = " + std::to_string(r.final_dr[0]) + ", side_b dr " + std::to_string(r.dr[1]) +
             " (" + Drms(r.drms[1]) + ") = " + std::to_string(r.final_dr[1]) + ": " +
             (r.ambusher ? std::string(Name(*r.ambusher)) + " ambushes; CC is sequential [A11.32]"
                         : std::string("no Ambush"));
      break;
    }
    case EventKind::kHthDeclared:
      text = "Hand-to-Hand CC in this Location: red Kill numbers";
      break;
    case EventKind::kDeclarationSealed:
      text = seat + " designates " + std::to_string(event.seal->attacks.size()) + " attack(s)";
      for (const AttackOrder& order : event.seal->attacks) {
        text += "; " + Join(order.attackers) +
                (order.weapons.empty() ? "" : " (" + Join(order.weapons) + ")") + " -> " +
                (IsCloseDefense(order) ? "every unarmored unit"
                                                                 : Join(order.targets)) +
                (order.capture ? " (capture)" : "") +
                (order.atmm.empty() ? "" : " (ATMM: " + order.atmm + ")");
      }
      if (!event.seal->ambush_withdraw.empty()) {
        text += "; Ambush Withdrawal: " + Join(event.seal->ambush_withdraw);
      }
      break;
    case EventKind::kDeclarationsRevealed:
      text = "declarations revealed; the ATTACKER resolves first [A11.12]";
      break;
    case EventKind::kAttackResolved: {
      const AttackReport& r = *event.attack;
      if (r.vs_vehicle || r.weapons != 0) {
        text = VehicleAttackText(state, event, r);
        break;
      }
      text = seat + " attacks " + Ids(state, event, r.targets) + " with " +
             Ids(state, event, r.attackers) + ": " + r.attack_strength.ToMixedString() + ":" +
             r.defence_strength.ToMixedString() + " -> " + std::string(Name(r.column)) +
             ", Kill # " + std::to_string(r.kill_number) + (r.hth ? " (HtH, red)" : "") +
             " [A11.11]";
      for (const Halving& halving : r.halvings) {
        text += "; " + std::string(TextOf(halving.cause)) +
                (halving.unit.empty() ? "" : " (" + halving.unit + ")") + " [" +
                std::string(RuleOf(halving.cause)) + "]";
      }
      text += "; DRM " + Drms(r.drms) + "; DR " + std::to_string(r.dr.Total()) + " (coloured " +
              std::to_string(r.dr.colored) + ", white " + std::to_string(r.dr.white) + ")";
      if (r.leader_creation) {
        const LeaderCreation& c = *r.leader_creation;
        text += "; Original 2: Leader Creation dr " + std::to_string(c.dr) + " (" + Drms(c.drms) +
                ") = " + std::to_string(c.final_dr) + " -> " +
                (c.leader.empty() ? "none" : c.leader) + " [A18.2]";
      }
      for (const TargetResult& t : r.results) {
        text += "\n  " + Id(state, event, t.unit) + ": Final DR " + std::to_string(t.final_dr) +
                (t.drms.empty() ? "" : " (own DRM " + Drms(t.drms) + ")") + " -> " +
                std::string(OutcomeText(t.outcome));
      }
      for (const std::string& note : r.notes) text += "\n  note: " + note;
      break;
    }
    case EventKind::kAttackVoid:
      text = seat + "'s attack is void";
      break;
    case EventKind::kChoiceRequested:
      text = "choice " + std::to_string(event.choice->id) + " for " +
             std::string(Name(event.choice->seat)) + ": " +
             std::string(ChoiceText(event.choice->kind)) + " (" +
             Ids(state, event, event.choice->options) + ")";
      break;
    case EventKind::kChoiceMade:
      text = seat + " answers choice " + std::to_string(event.choice->id) + ": " +
             (event.selected.empty() ? std::string("none") : Ids(state, event, event.selected));
      break;
    case EventKind::kPassed:
      text = seat + " makes no further attack [A11.3]";
      break;
    case EventKind::kPaatcTaken:
      text = "A11.6 PAATC before advancing onto a manned enemy AFV";
      for (const TaskCheck& check : event.checks) text += "\n  " + CheckText(state, event, check);
      break;
    case EventKind::kVehicleCaptured:
      text = "A11.52 an unarmed vehicle alone with enemy Infantry is captured";
      break;
    case EventKind::kPhaseEnded:
      text = std::string("end of CCPh: ") +
             (event.melee ? "Infantry of both sides remain: Melee [A11.15]" : "no Melee");
      break;
  }
  for (const DieRoll& roll : event.rolls) {
    text += "\n  roll " + roll.purpose + ": " + std::to_string(roll.value) +
            (roll.color == DieColor::kColored ? " (coloured)"
             : roll.color == DieColor::kWhite ? " (white)"
                                              : "");
  }
  for (const Effect& effect : event.effects) text += "\n  " + EffectText(state, event, effect);
  for (const std::string& note : event.notes) text += "\n  note: " + note;
  return text;
}

}  // namespace melee::engine::asl
