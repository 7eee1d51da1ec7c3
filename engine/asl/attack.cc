#include "engine/asl/attack.h"

#include <algorithm>
#include <array>

#include "engine/core/check.h"

namespace melee::engine::asl {
namespace {

// A11.11: the printed odds of the CCT, as attack:defence, for columns 1-8 .. 10-1.
struct Ratio {
  int64_t attack;
  int64_t defence;
};
constexpr std::array<Ratio, 12> kPrintedOdds = {{
    {1, 8},
    {1, 6},
    {1, 4},
    {1, 2},
    {1, 1},
    {3, 2},
    {2, 1},
    {3, 1},
    {4, 1},
    {6, 1},
    {8, 1},
    {10, 1},
}};

struct DrmInfo {
  std::string_view rule;
  std::string_view text;
};

DrmInfo InfoOf(DrmCause cause) {
  switch (cause) {
    case DrmCause::kLeadership:
      return {"A11.141", "leadership of the directing leader"};
    case DrmCause::kHeroic:
      return {"A15.24", "heroic DRM"};
    case DrmCause::kAmbushAttacking:
      return {"A11.4", "attacking with Ambush status"};
    case DrmCause::kAmbushAttacked:
      return {"A11.4", "vs a side with Ambush status"};
    case DrmCause::kByCx:
      return {"A4.51", "by CX unit"};
    case DrmCause::kVsCx:
      return {"A4.51", "vs CX unit"};
    case DrmCause::kByTi:
      return {"A11", "by TI unit (player aid)"};
    case DrmCause::kVsTi:
      return {"A11", "vs TI unit (player aid)"};
    case DrmCause::kByWire:
      return {"B26.31", "by unit in Wire"};
    case DrmCause::kVsWire:
      return {"B26.31", "vs unit in Wire"};
    case DrmCause::kByCrest:
      return {"A11", "by unit on a Crest (player aid)"};
    case DrmCause::kVsCrest:
      return {"A11", "vs unit on a Crest (player aid)"};
    case DrmCause::kByBankPanji:
      return {"G8.212", "by unit in a Bank/Panji"};
    case DrmCause::kVsBankPanji:
      return {"G8.212", "vs unit in a Bank/Panji"};
    case DrmCause::kByOverstacked:
      return {"A5.131", "by overstacked side, per excess squad"};
    case DrmCause::kVsOverstacked:
      return {"A5.131", "vs overstacked side, per excess squad"};
    case DrmCause::kCapture:
      return {"A20.22", "capture attempt"};
    case DrmCause::kCaptureVsInexperienced:
      return {"A20.22", "capture attempt vs Inexperienced unit"};
    case DrmCause::kVsWithdrawing:
      return {"A11.2", "vs withdrawing unit"};
    case DrmCause::kCovering:
      return {"A11.2", "covering friendly unit not withdrawing"};
    case DrmCause::kVsBroken:
      return {"A11.16", "vs broken unit"};
    case DrmCause::kGurkha:
      return {"A25.43", "by Gurkha vs Infantry"};
    case DrmCause::kIjaHth:
      return {"G1.64", "by armed, unpinned IJA/Dare-Death in HtH"};
    case DrmCause::kDareDeathNonHth:
      return {"G18.62", "by Dare-Death MMC in non-HtH CC (option; ASL-AMB-13)"};
    case DrmCause::kLeaderCreated:
      return {"A18.12", "leadership of the leader created by the Original 2"};
    case DrmCause::kAmbushCx:
      return {"A11.4", "CX"};
    case DrmCause::kAmbushLax:
      return {"A11.18", "Lax"};
    case DrmCause::kAmbushBroken:
      return {"A11.4", "broken"};
    case DrmCause::kAmbushPinned:
      return {"A11.4", "pinned"};
    case DrmCause::kAmbushBerserk:
      return {"A11.4", "berserk"};
    case DrmCause::kAmbushStealthy:
      return {"A11.17", "Stealthy"};
    case DrmCause::kAmbushConcealed:
      return {"A11.4", "concealed"};
    case DrmCause::kAmbushLeadership:
      return {"A11.4", "leadership of the best unpinned Good Order leader"};
    case DrmCause::kCreationNationality:
      return {"A18.2", "nationality"};
    case DrmCause::kCreationOddsBelowOneToOne:
      return {"A18.2", "CC vs Personnel at odds below 1-1"};
    case DrmCause::kCreationHighMorale:
      return {"A18.2", "base unit Morale Level >= 8"};
    case DrmCause::kCreationLowMorale:
      return {"A18.2", "base unit Morale Level <= 6"};
    case DrmCause::kVsUnarmoredVehicle:
      return {"A11.51", "vs unarmored vehicle"};
    case DrmCause::kVsNoMg:
      return {"A11.51", "vs vehicle without manned functioning MG"};
    case DrmCause::kEscort:
      return {"A11.51", "escorting Personnel (+1 per HS/crew, +2 per squad)"};
    case DrmCause::kVsMotion:
      return {"A11.51", "vs Motion/non-stopped vehicle"};
    case DrmCause::kVsOpenTopped:
      return {"A11.61", "vs OT or partially armored AFV"};
    case DrmCause::kVsCeOrAbandoned:
      return {"A11.61", "vs CE CT or Abandoned AFV"};
    case DrmCause::kVsImmobile:
      return {"A11.61", "vs Immobile AFV"};
    case DrmCause::kAtmm:
      return {"C13.7", "ATMM"};
    case DrmCause::kStreetFightingAttacking:
      return {"A11.8", "Street Fighting Ambush"};
    case DrmCause::kStreetFightingAttacked:
      return {"A11.8", "vs Street Fighting unit (Ambush)"};
    case DrmCause::kByRider:
      return {"A11.611", "by Riders"};
    case DrmCause::kVsRider:
      return {"A11.611", "vs Riders"};
    case DrmCause::kCcvAssaultEngineer:
      return {"A11.5", "Assault Engineer"};
    case DrmCause::kCcvInexperienced:
      return {"A11.5", "Inexperienced"};
    case DrmCause::kCcvSmcCombining:
      return {"A11.5", "SMC combining"};
    case DrmCause::kCcvHalved:
      return {"A11.5", "FP-halving penalty"};
    case DrmCause::kAtmmSmc:
      return {"C13.7", "SMC"};
    case DrmCause::kAtmmHalfSquad:
      return {"C13.7", "HS/crew"};
    case DrmCause::kAtmmCx:
      return {"C13.7", "CX"};
    case DrmCause::kAtmmUnarmored:
      return {"C13.7", "vs non-armored vehicle"};
    case DrmCause::kAmbushVehicle:
      return {"A11.4", "vehicle"};
    case DrmCause::kAmbushBuAfv:
      return {"A11.4", "BU or Stunned AFV"};
    case DrmCause::kCheckLeadership:
      return {"A10.7", "leadership"};
    case DrmCause::kCheckInexperienced:
      return {"A11.6", "Inexperienced: 1TC"};
    case DrmCause::kCheckIft:
      return {"A7.3", "IFT result"};
  }
  return {"A11", "?"};
}

bool AnyOf(std::span<const Unit> units, std::span<const uint16_t> indices, bool Unit::*flag) {
  return std::any_of(indices.begin(), indices.end(), [&](uint16_t i) { return units[i].*flag; });
}

bool IsWithdrawing(const AttackContext& context, size_t unit) {
  return context.withdrawing != nullptr && unit < context.withdrawing->size() &&
         (*context.withdrawing)[unit];
}

}  // namespace

std::string_view Name(Column column) {
  static constexpr std::array<std::string_view, 14> kNames = {"<1-8", "1-8", "1-6",  "1-4",  "1-2",
                                                              "1-1",  "3-2", "2-1",  "3-1",  "4-1",
                                                              "6-1",  "8-1", "10-1", ">10-1"};
  return kNames[static_cast<size_t>(column)];
}

Column OddsColumn(const Rational& attack, const Rational& defence, bool above_ten_column) {
  MELEE_CHECK_MSG(defence > 0, "OddsColumn needs a positive defence strength");
  // attack/defence >= a/d  <=>  attack.num * defence.den * d >= defence.num * attack.den * a
  // (both denominators positive); values are small (FP <= 99 halved a few times), no overflow.
  const int64_t lhs = attack.num() * defence.den();
  const int64_t rhs = defence.num() * attack.den();
  // ASL-AMB-1: strictly above 10:1 is the >10-1 column (or 10-1 when the option says so).
  if (lhs > rhs * 10) return above_ten_column ? Column::kAboveTenToOne : Column::kTenToOne;
  // A11.11: rounded down to the nearest printed ratio.
  for (size_t i = kPrintedOdds.size(); i > 0; --i) {
    if (lhs * kPrintedOdds[i - 1].defence >= rhs * kPrintedOdds[i - 1].attack) {
      return static_cast<Column>(i);
    }
  }
  return Column::kBelowOneToEight;
}

int KillNumber(Column column, bool hth) {
  // A11.11: black CC Kill # 0..13 left to right; J2.31: the red HtH Kill # is two higher.
  const int black = static_cast<int>(column);
  return hth ? black + 2 : black;
}

std::string_view RuleOf(DrmCause cause) { return InfoOf(cause).rule; }
std::string_view TextOf(DrmCause cause) { return InfoOf(cause).text; }

int Total(std::span<const Drm> drms) {
  int total = 0;
  for (const Drm& drm : drms) total += drm.value;
  return total;
}

std::string_view RuleOf(HalvingCause cause) {
  switch (cause) {
    case HalvingCause::kVsConcealed:
      return "A11.19";
    case HalvingCause::kByPinned:
      return "A7.8";
    case HalvingCause::kByGuarding:
      return "A20.3";
    case HalvingCause::kByMotion:
      return "A11.62";
  }
  return "A11";
}

std::string_view TextOf(HalvingCause cause) {
  switch (cause) {
    case HalvingCause::kVsConcealed:
      return "FP halved vs a concealed unit";
    case HalvingCause::kByPinned:
      return "FP of a pinned unit halved";
    case HalvingCause::kByGuarding:
      return "FP of a guarding unit halved";
    case HalvingCause::kByMotion:
      return "FP of a vehicle in Motion halved";
  }
  return "?";
}

std::optional<size_t> DirectingLeader(std::span<const Unit> units,
                                      std::span<const uint16_t> attackers,
                                      const AttackOrder& order) {
  // A11.141: one unpinned Good Order leader directs, not when he attacks alone.
  if (attackers.size() < 2) return std::nullopt;
  std::optional<size_t> best;
  for (uint16_t index : attackers) {
    const Unit& unit = units[index];
    if (unit.kind != UnitKind::kLeader || unit.pinned || unit.broken) continue;
    if (!order.director.empty()) {
      if (SameId(unit.id, order.director)) best = index;
      continue;
    }
    if (!best || unit.leadership < units[*best].leadership) best = index;
  }
  // Player aid Q&A: a positive (harmful) leadership DRM may be declined.
  if (best && order.decline_leadership && units[*best].leadership > 0) best.reset();
  return best;
}

void AddAttackerDrms(std::span<const Unit> units, std::span<const uint16_t> attackers,
                     Seat target_side, const AttackContext& context, std::vector<Drm>& drms) {
  const Seat side = units[attackers[0]].owner;
  for (uint16_t index : attackers) {
    if (units[index].kind == UnitKind::kHero) drms.push_back({DrmCause::kHeroic, -1});
  }
  if (context.ambusher == side) drms.push_back({DrmCause::kAmbushAttacking, -1});
  if (context.ambusher == target_side) drms.push_back({DrmCause::kAmbushAttacked, 1});
  if (AnyOf(units, attackers, &Unit::cx)) drms.push_back({DrmCause::kByCx, 1});
  if (AnyOf(units, attackers, &Unit::ti)) drms.push_back({DrmCause::kByTi, 1});
  if (AnyOf(units, attackers, &Unit::in_wire)) drms.push_back({DrmCause::kByWire, 1});
  if (AnyOf(units, attackers, &Unit::on_crest)) drms.push_back({DrmCause::kByCrest, 2});
  if (AnyOf(units, attackers, &Unit::in_bank_or_panji)) {
    drms.push_back({DrmCause::kByBankPanji, 1});
  }
  const bool riders = std::any_of(attackers.begin(), attackers.end(),
                                  [&](uint16_t i) { return !units[i].rider_of.empty(); });
  if (riders) drms.push_back({DrmCause::kByRider, 1});
  const int own_excess = context.excess_squads[side == Seat::kSideA ? 0 : 1];
  if (own_excess > 0) drms.push_back({DrmCause::kByOverstacked, own_excess});
  const int their_excess = context.excess_squads[target_side == Seat::kSideA ? 0 : 1];
  if (their_excess > 0) drms.push_back({DrmCause::kVsOverstacked, -their_excess});
}

std::vector<Drm> TargetDrms(std::span<const Unit> units, uint16_t target,
                            const AttackOrder& order, const AttackContext& context) {
  const Unit& unit = units[target];
  std::vector<Drm> drms;
  if (unit.broken) drms.push_back({DrmCause::kVsBroken, -2});
  if (IsWithdrawing(context, target)) {
    // A11.2: -2, +1 per friendly unit in the Melee that is not withdrawing.
    drms.push_back({DrmCause::kVsWithdrawing, -2});
    int covering = 0;
    for (size_t i = 0; i < units.size(); ++i) {
      const Unit& other = units[i];
      if (other.owner == unit.owner && IsPresent(other) && other.kind != UnitKind::kDummy &&
          !IsVehicle(other) && !IsWithdrawing(context, i)) {
        ++covering;
      }
    }
    if (covering > 0) drms.push_back({DrmCause::kCovering, covering});
  }
  if (unit.cx) drms.push_back({DrmCause::kVsCx, -1});
  if (unit.ti) drms.push_back({DrmCause::kVsTi, -1});
  if (unit.in_wire) drms.push_back({DrmCause::kVsWire, -1});
  if (unit.on_crest) drms.push_back({DrmCause::kVsCrest, -2});
  if (unit.in_bank_or_panji) drms.push_back({DrmCause::kVsBankPanji, -1});
  if (!unit.rider_of.empty()) drms.push_back({DrmCause::kVsRider, -1});
  if (order.capture) {
    // A20.22: +1, or -1 vs Inexperienced Personnel.
    if (unit.inexperienced) {
      drms.push_back({DrmCause::kCaptureVsInexperienced, -1});
    } else {
      drms.push_back({DrmCause::kCapture, 1});
    }
  }
  return drms;
}

AttackPlan PlanAttack(std::span<const Unit> units, std::span<const uint16_t> attackers,
                      std::span<const uint16_t> targets, const AttackOrder& order,
                      const AttackContext& context) {
  MELEE_CHECK(context.options != nullptr);
  MELEE_CHECK(!attackers.empty() && !targets.empty());
  AttackPlan plan;
  // G1.64: HtH is NA by or vs vehicles and their PRC (Riders are the PRC that fight).
  const auto is_prc = [&](uint16_t i) { return IsPrc(units[i]); };
  plan.hth = context.hth && std::none_of(attackers.begin(), attackers.end(), is_prc) &&
             std::none_of(targets.begin(), targets.end(), is_prc);
  const Seat target_side = units[targets[0]].owner;

  // A11.11 attack strength: each unit's FP, halved per application for its own condition.
  for (uint16_t index : attackers) {
    const Unit& unit = units[index];
    Rational strength = context.strength.empty() ? CcStrength(unit) : context.strength[index];
    if (unit.pinned) {
      strength = strength.Half();
      plan.halvings.push_back({HalvingCause::kByPinned, unit.id});
    }
    if (unit.guarding) {
      strength = strength.Half();
      plan.halvings.push_back({HalvingCause::kByGuarding, unit.id});
    }
    plan.attack_strength += strength;
  }
  // A11.19: the whole attack is halved when any target is concealed (ASL-AMB-15).
  if (AnyOf(units, targets, &Unit::concealed)) {
    plan.attack_strength = plan.attack_strength.Half();
    plan.halvings.push_back({HalvingCause::kVsConcealed, ""});
  }
  for (uint16_t index : targets) plan.defence_strength += CcStrength(units[index]);
  plan.column = OddsColumn(plan.attack_strength, plan.defence_strength,
                           context.options->above_ten_to_one_column);
  plan.kill_number = KillNumber(plan.column, plan.hth);

  plan.director = DirectingLeader(units, attackers, order);
  if (plan.director && units[*plan.director].leadership != 0) {
    plan.common.push_back({DrmCause::kLeadership, units[*plan.director].leadership});
  }
  AddAttackerDrms(units, attackers, target_side, context, plan.common);
  // A25.43: Gurkhas vs Infantry (every target in part 1 is Infantry).
  if (AnyOf(units, attackers, &Unit::gurkha)) plan.common.push_back({DrmCause::kGurkha, -1});
  bool any_ija = false;
  bool all_ija_pinned = true;
  bool any_dare_death = false;
  for (uint16_t index : attackers) {
    const Unit& unit = units[index];
    if (unit.nationality == Nationality::kJapanese || unit.dare_death) {
      any_ija = true;
      all_ija_pinned = all_ija_pinned && unit.pinned;
    }
    any_dare_death = any_dare_death || (unit.dare_death && IsMmc(unit.kind));
  }
  // G1.64: an IJA/Dare-Death HtH attack gets -1 unless every such attacking unit is pinned.
  if (plan.hth && any_ija && !all_ija_pinned) plan.common.push_back({DrmCause::kIjaHth, -1});
  if (!plan.hth && any_dare_death) {
    if (context.options->dare_death_non_hth_drm != 0) {
      plan.common.push_back({DrmCause::kDareDeathNonHth, context.options->dare_death_non_hth_drm});
    } else {
      plan.notes.push_back(
          "ASL-AMB-13 placeholder: the G18.62 Dare-Death non-HtH DRM is unknown; 0 applied "
          "(match option dare_death_non_hth_drm)");
    }
  }

  // Per target (SPEC A.5.3): the DRM that belong to one defending unit only.
  plan.per_target.resize(targets.size());
  for (size_t t = 0; t < targets.size(); ++t) {
    plan.per_target[t] = TargetDrms(units, targets[t], order, context);
  }
  return plan;
}

std::optional<CreationCheck> LeaderCreationCheck(std::span<const Unit> units,
                                                 std::span<const uint16_t> attackers, Column column,
                                                 const Options& options) {
  std::optional<uint16_t> base;
  for (uint16_t i : attackers) {
    if (IsMmc(units[i].kind) && (!base || units[i].bpv > units[*base].bpv)) base = i;
  }
  if (!base) return std::nullopt;
  const Unit& mmc = units[*base];
  // ASL-AMB-9: the truncated footnote "NA to Finns or Ja..." read as Finns and Japanese.
  if (options.leader_creation_excludes_finns_japanese &&
      (mmc.nationality == Nationality::kFinnish || mmc.nationality == Nationality::kJapanese)) {
    return std::nullopt;
  }
  CreationCheck check;
  check.base = *base;
  switch (mmc.nationality) {
    case Nationality::kAmerican:
    case Nationality::kBritish:
    case Nationality::kGerman:
      check.drms.push_back({DrmCause::kCreationNationality, -1});
      break;
    case Nationality::kRussian:
    case Nationality::kItalian:
      check.drms.push_back({DrmCause::kCreationNationality, 1});
      break;
    case Nationality::kOther:
    case Nationality::kFinnish:
    case Nationality::kJapanese:
    case Nationality::kChinese:
      break;
  }
  if (column < Column::kOneToOne) {
    check.drms.push_back({DrmCause::kCreationOddsBelowOneToOne, -1});
  }
  if (mmc.morale >= 8) check.drms.push_back({DrmCause::kCreationHighMorale, -1});
  if (mmc.morale <= 6) check.drms.push_back({DrmCause::kCreationLowMorale, 1});
  return check;
}

Unit CreatedLeaderUnit(std::span<const Unit> units, const Unit& mmc, const Unit& host,
                       std::string_view rank) {
  Unit leader;
  leader.id = mmc.id + "-ldr";
  auto taken = [&](const std::string& id) {
    return std::any_of(units.begin(), units.end(), [&](const Unit& u) { return SameId(u.id, id); });
  };
  while (taken(leader.id)) leader.id += "'";
  leader.owner = mmc.owner;
  leader.kind = UnitKind::kLeader;
  leader.nationality = mmc.nationality;
  leader.name = std::string(rank);
  leader.morale = rank.empty() ? 7 : rank[0] - '0';
  leader.leadership = rank == "6+1" ? 1 : rank == "8-1" ? -1 : 0;
  leader.stacked_on = host.id;
  return leader;
}

std::string_view CreatedLeader(int final_dr) {
  // A18.2 Leader Creation Table (SPEC-NOTES A.1.4).
  if (final_dr >= 7) return "";
  if (final_dr == 6) return "6+1";
  if (final_dr >= 4) return "7-0";
  if (final_dr >= 2) return "8-0";
  return "8-1";
}

bool IsMortalWound(int dr, int previous_wounds) {
  // A17.11: 5-6 is mortal; +1 when the SMC is already wounded.
  return dr + (previous_wounds > 0 ? 1 : 0) >= 5;
}

std::vector<size_t> HighestRolls(std::span<const int> drs) {
  std::vector<size_t> highest;
  int best = 0;
  for (size_t i = 0; i < drs.size(); ++i) {
    if (drs[i] > best) {
      best = drs[i];
      highest.clear();
    }
    if (drs[i] == best) highest.push_back(i);
  }
  return highest;
}

}  // namespace melee::engine::asl
