#include "engine/asl/vehicle.h"

#include <algorithm>

#include "engine/core/check.h"

namespace melee::engine::asl {
namespace {

bool IsWithdrawing(const AttackContext& context, size_t unit) {
  return context.withdrawing != nullptr && unit < context.withdrawing->size() &&
         (*context.withdrawing)[unit];
}

// A11.51 / A11.61: the vehicle has inherent manned functioning MG armament (a BMG counts).
bool HasMannedMg(const VehicleFacts& v) {
  if (v.abandoned) return false;
  auto works = [&](int fp, Weapon weapon) { return fp > 0 && (v.malfunctioned & weapon) == 0; };
  return works(v.cmg, kCmg) || works(v.rmg, kRmg) || works(v.aamg, kAamg) || v.bmg;
}

}  // namespace

Ccv UnitCcv(const Unit& unit) {
  Ccv ccv;
  switch (unit.kind) {
    case UnitKind::kSquad:
      ccv.base = 5;
      break;
    case UnitKind::kCrew:
      ccv.base = 4;
      break;
    case UnitKind::kHalfSquad:
      ccv.base = 3;
      break;
    case UnitKind::kLeader:
    case UnitKind::kHero:
    case UnitKind::kOtherSmc:
      ccv.base = 2;
      break;
    case UnitKind::kDummy:
    case UnitKind::kVehicle:
      ccv.base = 0;
      break;
  }
  if (unit.assault_engineer) ccv.modifiers.push_back({DrmCause::kCcvAssaultEngineer, 1});
  if (unit.inexperienced) ccv.modifiers.push_back({DrmCause::kCcvInexperienced, -1});
  if (unit.pinned) ccv.modifiers.push_back({DrmCause::kCcvHalved, -1});
  if (unit.guarding) ccv.modifiers.push_back({DrmCause::kCcvHalved, -1});
  return ccv;
}

Ccv AttackerCcv(std::span<const Unit> units, std::span<const uint16_t> attackers) {
  MELEE_CHECK(!attackers.empty() && attackers.size() <= 2);
  // The main unit is the MMC (a SMC combining with it adds +1), or the first of two SMC.
  uint16_t main = attackers[0];
  for (uint16_t i : attackers) {
    if (IsMmc(units[i].kind)) main = i;
  }
  Ccv ccv = UnitCcv(units[main]);
  for (uint16_t i : attackers) {
    if (i == main) continue;
    ccv.modifiers.push_back({DrmCause::kCcvSmcCombining, 1});
    if (units[i].pinned) ccv.modifiers.push_back({DrmCause::kCcvHalved, -1});
  }
  return ccv;
}

int DefenceCcv(std::span<const Unit> units, std::span<const uint16_t> targets) {
  int total = 0;
  for (uint16_t i : targets) {
    const Unit& unit = units[i];
    if (IsSmc(unit.kind) && !unit.stacked_on.empty()) {
      const bool with_mmc = std::any_of(targets.begin(), targets.end(), [&](uint16_t t) {
        return units[t].id == unit.stacked_on;
      });
      if (with_mmc) {
        total += 1;
        continue;
      }
    }
    total += UnitCcv(unit).Value();
  }
  return std::max(total, 1);
}

int WeaponFp(const Unit& vehicle, uint8_t weapons) {
  int fp = 0;
  if (weapons & kCmg) fp += vehicle.vehicle.cmg;
  if (weapons & kRmg) fp += vehicle.vehicle.rmg;
  if (weapons & kAamg) fp += vehicle.vehicle.aamg;
  return fp;
}

uint8_t UsableWeapons(const Unit& vehicle, uint8_t used) {
  const VehicleFacts& v = vehicle.vehicle;
  // C7.42 / D5.34: a Shocked or Stunned vehicle has no CC attack; nor has an Abandoned one.
  if (!IsVehicle(vehicle) || v.abandoned || v.shocked || v.stunned) return 0;
  uint8_t usable = 0;
  if (v.cmg > 0 && !v.cmg_vca_only) usable |= kCmg;
  if (v.rmg > 0) usable |= kRmg;
  if (v.aamg > 0 && v.crew_exposed) usable |= kAamg;
  if (v.sn_usage > 0 && !v.crew_exposed) usable |= kSn;
  return static_cast<uint8_t>(usable & ~v.malfunctioned & ~used);
}

AttackPlan PlanAttackOnVehicle(std::span<const Unit> units, std::span<const uint16_t> attackers,
                               uint16_t vehicle, const AttackOrder& order,
                               const AttackContext& context, bool atmm_success) {
  MELEE_CHECK(context.options != nullptr);
  const Unit& target = units[vehicle];
  const VehicleFacts& v = target.vehicle;
  const Seat side = units[attackers[0]].owner;
  AttackPlan plan;
  plan.vs_vehicle = true;
  const Ccv ccv = AttackerCcv(units, attackers);
  plan.ccv_base = ccv.base;
  plan.ccv_modifiers = ccv.modifiers;
  plan.kill_number = ccv.Value();

  // A11.51: leadership only when the leader combines with another unit.
  plan.director = DirectingLeader(units, attackers, order);
  if (plan.director && units[*plan.director].leadership != 0) {
    plan.common.push_back({DrmCause::kLeadership, units[*plan.director].leadership});
  }
  AddAttackerDrms(units, attackers, target.owner, context, plan.common);
  // A11.8: Street Fighting units get the Ambush benefits automatically.
  const bool street = std::any_of(attackers.begin(), attackers.end(),
                                  [&](uint16_t i) {
                                    return units[i].street_fighting != StreetFighting::kNone;
                                  });
  if (street && context.ambusher != side) {
    plan.common.push_back({DrmCause::kStreetFightingAttacking, -1});
  }
  if (v.armor == Armor::kUnarmored) plan.common.push_back({DrmCause::kVsUnarmoredVehicle, -3});
  if (!HasMannedMg(v)) plan.common.push_back({DrmCause::kVsNoMg, -1});
  // A11.51: +1 per unbroken, unpinned, armed escorting HS/crew (+2 per squad), not withdrawing,
  // unless the vehicle is BU (ASL-AMB-16).
  int escort = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    const Unit& unit = units[i];
    if (unit.owner != target.owner || !IsPresent(unit) || !IsMmc(unit.kind) || IsPrc(unit) ||
        unit.broken || unit.pinned || IsWithdrawing(context, i)) {
      continue;
    }
    escort += unit.kind == UnitKind::kSquad ? 2 : 1;
  }
  if (escort > 0) {
    if (v.crew_exposed || context.options->escort_drm_when_bu) {
      plan.common.push_back({DrmCause::kEscort, escort});
    } else {
      plan.notes.push_back(
          "ASL-AMB-16: the escort DRM (A11.51) is void because the vehicle is BU (option "
          "escort_drm_when_bu)");
    }
  }
  if (v.movement != Movement::kStopped) plan.common.push_back({DrmCause::kVsMotion, 2});
  if (IsAfv(target)) {
    if (v.armor == Armor::kOpenTopped || v.armor == Armor::kPartiallyArmored) {
      plan.common.push_back({DrmCause::kVsOpenTopped, -2});
    }
    if ((v.armor == Armor::kClosedTop && v.crew_exposed) || v.abandoned) {
      plan.common.push_back({DrmCause::kVsCeOrAbandoned, -1});
    }
    if (v.immobile) plan.common.push_back({DrmCause::kVsImmobile, -1});
  }
  if (atmm_success) plan.common.push_back({DrmCause::kAtmm, -3});
  plan.per_target.resize(1);
  return plan;
}

AttackPlan PlanVehicleFire(std::span<const Unit> units, uint16_t vehicle, uint8_t weapons,
                           std::span<const uint16_t> targets, const AttackOrder& order,
                           const AttackContext& context) {
  MELEE_CHECK(context.options != nullptr && !targets.empty());
  const Unit& firer = units[vehicle];
  const Seat target_side = units[targets[0]].owner;
  AttackPlan plan;
  // A11.62: FP never increased, halved for Motion and vs concealed units (cumulatively).
  plan.attack_strength = Rational(WeaponFp(firer, weapons));
  if (firer.vehicle.movement != Movement::kStopped) {
    plan.attack_strength = plan.attack_strength.Half();
    plan.halvings.push_back({HalvingCause::kByMotion, firer.id});
  }
  const bool concealed = std::any_of(targets.begin(), targets.end(),
                                     [&](uint16_t i) { return units[i].concealed; });
  if (concealed) {
    plan.attack_strength = plan.attack_strength.Half();
    plan.halvings.push_back({HalvingCause::kVsConcealed, ""});
  }
  plan.defence_strength = Rational(DefenceCcv(units, targets));
  plan.column = OddsColumn(plan.attack_strength, plan.defence_strength,
                           context.options->above_ten_to_one_column);
  plan.kill_number = KillNumber(plan.column, false);  // Black Kill Numbers only.
  const uint16_t firers[] = {vehicle};
  AddAttackerDrms(units, firers, target_side, context, plan.common);
  plan.per_target.resize(targets.size());
  for (size_t t = 0; t < targets.size(); ++t) {
    plan.per_target[t] = TargetDrms(units, targets[t], order, context);
    const Unit& unit = units[targets[t]];
    // A11.8: a Street Fighting unit has the Ambush benefits against the vehicle's attack.
    if (unit.street_fighting != StreetFighting::kNone && context.ambusher != unit.owner) {
      plan.per_target[t].push_back({DrmCause::kStreetFightingAttacked, 1});
    }
  }
  return plan;
}

VehicleResult VehicleResultOf(int final_dr, int ccv, bool burning_inclusive) {
  if (final_dr < ccv) {
    const bool burns = burning_inclusive ? final_dr * 2 <= ccv : final_dr * 2 < ccv;
    return burns ? VehicleResult::kBurning : VehicleResult::kEliminated;
  }
  return final_dr == ccv ? VehicleResult::kImmobilized : VehicleResult::kNoEffect;
}

VehicleResult UnlikelyKillResult(int dr) {
  switch (dr) {
    case 1:
      return VehicleResult::kBurning;
    case 2:
      return VehicleResult::kEliminated;
    case 3:
      return VehicleResult::kImmobilized;
    default:
      return VehicleResult::kNoEffect;
  }
}

std::vector<Drm> AtmmDrms(const Unit& unit, const Unit& vehicle) {
  std::vector<Drm> drms;
  if (IsSmc(unit.kind)) drms.push_back({DrmCause::kAtmmSmc, 2});
  if (unit.kind == UnitKind::kHalfSquad || unit.kind == UnitKind::kCrew) {
    drms.push_back({DrmCause::kAtmmHalfSquad, 1});
  }
  if (unit.cx) drms.push_back({DrmCause::kAtmmCx, 1});
  if (!IsAfv(vehicle)) drms.push_back({DrmCause::kAtmmUnarmored, 1});
  return drms;
}

AtmmResult AtmmResultOf(int final_dr) {
  if (final_dr <= 3) return AtmmResult::kSuccess;
  return final_dr <= 5 ? AtmmResult::kNone : AtmmResult::kPinned;
}

std::string_view Name(VehicleResult result) {
  switch (result) {
    case VehicleResult::kNoEffect:
      return "no effect";
    case VehicleResult::kImmobilized:
      return "immobilized";
    case VehicleResult::kEliminated:
      return "eliminated";
    case VehicleResult::kBurning:
      return "burning wreck";
  }
  return "?";
}

std::string_view Name(AtmmResult result) {
  switch (result) {
    case AtmmResult::kSuccess:
      return "success";
    case AtmmResult::kNone:
      return "no ATMM";
    case AtmmResult::kPinned:
      return "no ATMM, unit pinned";
  }
  return "?";
}

std::string Name(const IftResult& result) {
  using Kind = IftResult::Kind;
  switch (result.kind) {
    case Kind::kNoEffect:
      return "NE";
    case Kind::kPtc:
      return "PTC";
    case Kind::kMc:
      return result.n == 0 ? "NMC" : std::to_string(result.n) + "MC";
    case Kind::kCasualty:
      return "K/" + std::to_string(result.n);
    case Kind::kKia:
      return std::to_string(result.n) + "KIA";
  }
  return "?";
}

}  // namespace melee::engine::asl
