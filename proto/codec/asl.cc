#include "proto/codec/asl.h"

#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "engine/asl/rules.h"
#include "proto/codec/checks.h"

namespace melee::proto {
namespace {

namespace asl = engine::asl;
namespace pb = google::protobuf;
namespace v1 = melee::asl::v1;

using engine::Reject;
using engine::Result;
using engine::Seat;

using checks::Bad;
using checks::CheckRange;
using checks::CheckText;
using checks::Quoted;

Result<void> CheckId(std::string_view id, const Field& field) {
  return checks::CheckId(id, field, kAslMaxIdBytes);
}

Result<void> CheckOptionalId(std::string_view id, const Field& field) {
  return checks::CheckOptionalId(id, field, kAslMaxIdBytes);
}

// A list of unit ids of at most kAslMaxListSize entries.
Result<void> CheckIds(const pb::RepeatedPtrField<std::string>& ids, const Field& field) {
  if (static_cast<size_t>(ids.size()) > kAslMaxListSize) {
    return Bad(field, "at most " + std::to_string(kAslMaxListSize) + " entries");
  }
  for (int i = 0; i < ids.size(); ++i) {
    if (auto r = CheckId(ids[i], field.Item(i)); !r) return r;
  }
  return {};
}

std::vector<std::string> Strings(const pb::RepeatedPtrField<std::string>& values) {
  return {values.begin(), values.end()};
}

void AddStrings(const std::vector<std::string>& values, pb::RepeatedPtrField<std::string>* out) {
  // Assigned into the field's next element, which a kept, cleared message reuses.
  for (const std::string& value : values) *out->Add() = value;
}

// ---- enums --------------------------------------------------------------------------------

}  // namespace

Result<Seat> SideFromProto(melee::v1::Seat seat, const Field& field) {
  switch (seat) {
    case melee::v1::SEAT_SIDE_A:
      return Seat::kSideA;
    case melee::v1::SEAT_SIDE_B:
      return Seat::kSideB;
    case melee::v1::SEAT_UNSPECIFIED:
      return Bad(field, "required: SEAT_SIDE_A or SEAT_SIDE_B");
    default:
      return Bad(field, "must be SEAT_SIDE_A or SEAT_SIDE_B, not " +
                            std::string(melee::v1::Seat_IsValid(seat)
                                            ? melee::v1::Seat_Name(seat)
                                            : std::to_string(static_cast<int>(seat))));
  }
}

melee::v1::Seat SideToProto(Seat seat) {
  return seat == Seat::kSideA ? melee::v1::SEAT_SIDE_A : melee::v1::SEAT_SIDE_B;
}

namespace {

Result<asl::UnitKind> KindFromProto(v1::UnitKind kind, const Field& field) {
  switch (kind) {
    case v1::UNIT_KIND_SQUAD:
      return asl::UnitKind::kSquad;
    case v1::UNIT_KIND_HALF_SQUAD:
      return asl::UnitKind::kHalfSquad;
    case v1::UNIT_KIND_CREW:
      return asl::UnitKind::kCrew;
    case v1::UNIT_KIND_LEADER:
      return asl::UnitKind::kLeader;
    case v1::UNIT_KIND_HERO:
      return asl::UnitKind::kHero;
    case v1::UNIT_KIND_OTHER_SMC:
      return asl::UnitKind::kOtherSmc;
    case v1::UNIT_KIND_DUMMY:
      return asl::UnitKind::kDummy;
    case v1::UNIT_KIND_VEHICLE:
      return asl::UnitKind::kVehicle;
    case v1::UNIT_KIND_UNSPECIFIED:
      return Bad(field,
                 "required: UNIT_KIND_SQUAD, UNIT_KIND_HALF_SQUAD, UNIT_KIND_CREW, "
                 "UNIT_KIND_LEADER, UNIT_KIND_HERO, UNIT_KIND_OTHER_SMC, UNIT_KIND_DUMMY or "
                 "UNIT_KIND_VEHICLE");
    default:
      return Bad(field, "unknown unit kind " + std::to_string(static_cast<int>(kind)));
  }
}

v1::UnitKind KindToProto(asl::UnitKind kind) {
  switch (kind) {
    case asl::UnitKind::kSquad:
      return v1::UNIT_KIND_SQUAD;
    case asl::UnitKind::kHalfSquad:
      return v1::UNIT_KIND_HALF_SQUAD;
    case asl::UnitKind::kCrew:
      return v1::UNIT_KIND_CREW;
    case asl::UnitKind::kLeader:
      return v1::UNIT_KIND_LEADER;
    case asl::UnitKind::kHero:
      return v1::UNIT_KIND_HERO;
    case asl::UnitKind::kOtherSmc:
      return v1::UNIT_KIND_OTHER_SMC;
    case asl::UnitKind::kDummy:
      return v1::UNIT_KIND_DUMMY;
    case asl::UnitKind::kVehicle:
      return v1::UNIT_KIND_VEHICLE;
  }
  return v1::UNIT_KIND_UNSPECIFIED;
}

Result<asl::Nationality> NationalityFromProto(v1::Nationality nationality, const Field& field) {
  switch (nationality) {
    case v1::NATIONALITY_UNSPECIFIED:
    case v1::NATIONALITY_OTHER:
      return asl::Nationality::kOther;
    case v1::NATIONALITY_GERMAN:
      return asl::Nationality::kGerman;
    case v1::NATIONALITY_AMERICAN:
      return asl::Nationality::kAmerican;
    case v1::NATIONALITY_BRITISH:
      return asl::Nationality::kBritish;
    case v1::NATIONALITY_RUSSIAN:
      return asl::Nationality::kRussian;
    case v1::NATIONALITY_ITALIAN:
      return asl::Nationality::kItalian;
    case v1::NATIONALITY_FINNISH:
      return asl::Nationality::kFinnish;
    case v1::NATIONALITY_JAPANESE:
      return asl::Nationality::kJapanese;
    case v1::NATIONALITY_CHINESE:
      return asl::Nationality::kChinese;
    default:
      return Bad(field, "unknown nationality " + std::to_string(static_cast<int>(nationality)));
  }
}

v1::Nationality NationalityToProto(asl::Nationality nationality) {
  switch (nationality) {
    case asl::Nationality::kOther:
      return v1::NATIONALITY_OTHER;
    case asl::Nationality::kGerman:
      return v1::NATIONALITY_GERMAN;
    case asl::Nationality::kAmerican:
      return v1::NATIONALITY_AMERICAN;
    case asl::Nationality::kBritish:
      return v1::NATIONALITY_BRITISH;
    case asl::Nationality::kRussian:
      return v1::NATIONALITY_RUSSIAN;
    case asl::Nationality::kItalian:
      return v1::NATIONALITY_ITALIAN;
    case asl::Nationality::kFinnish:
      return v1::NATIONALITY_FINNISH;
    case asl::Nationality::kJapanese:
      return v1::NATIONALITY_JAPANESE;
    case asl::Nationality::kChinese:
      return v1::NATIONALITY_CHINESE;
  }
  return v1::NATIONALITY_UNSPECIFIED;
}

Result<asl::ChoiceKind> ChoiceKindFromProto(v1::ChoiceKind kind, const Field& field) {
  switch (kind) {
    case v1::CHOICE_KIND_INFILTRATION:
      return asl::ChoiceKind::kInfiltration;
    case v1::CHOICE_KIND_CAPTURE_SELECTION:
      return asl::ChoiceKind::kCaptureSelection;
    case v1::CHOICE_KIND_AMBUSH_WITHDRAWAL:
      return asl::ChoiceKind::kAmbushWithdrawal;
    case v1::CHOICE_KIND_UNSPECIFIED:
      return Bad(field,
                 "required: CHOICE_KIND_INFILTRATION, CHOICE_KIND_CAPTURE_SELECTION or "
                 "CHOICE_KIND_AMBUSH_WITHDRAWAL");
    default:
      return Bad(field, "unknown choice kind " + std::to_string(static_cast<int>(kind)));
  }
}

v1::ChoiceKind ChoiceKindToProto(asl::ChoiceKind kind) {
  switch (kind) {
    case asl::ChoiceKind::kInfiltration:
      return v1::CHOICE_KIND_INFILTRATION;
    case asl::ChoiceKind::kCaptureSelection:
      return v1::CHOICE_KIND_CAPTURE_SELECTION;
    case asl::ChoiceKind::kAmbushWithdrawal:
      return v1::CHOICE_KIND_AMBUSH_WITHDRAWAL;
  }
  return v1::CHOICE_KIND_UNSPECIFIED;
}

Result<asl::Armor> ArmorFromProto(v1::Armor armor, const Field& field) {
  switch (armor) {
    case v1::ARMOR_CLOSED_TOP:
      return asl::Armor::kClosedTop;
    case v1::ARMOR_OPEN_TOPPED:
      return asl::Armor::kOpenTopped;
    case v1::ARMOR_PARTIALLY_ARMORED:
      return asl::Armor::kPartiallyArmored;
    case v1::ARMOR_UNARMORED:
      return asl::Armor::kUnarmored;
    default:
      return Bad(field, "unknown armor " + std::to_string(static_cast<int>(armor)));
  }
}

v1::Armor ArmorToProto(asl::Armor armor) {
  switch (armor) {
    case asl::Armor::kClosedTop:
      return v1::ARMOR_CLOSED_TOP;
    case asl::Armor::kOpenTopped:
      return v1::ARMOR_OPEN_TOPPED;
    case asl::Armor::kPartiallyArmored:
      return v1::ARMOR_PARTIALLY_ARMORED;
    case asl::Armor::kUnarmored:
      return v1::ARMOR_UNARMORED;
  }
  return v1::ARMOR_CLOSED_TOP;
}

Result<asl::Movement> MovementFromProto(v1::Movement movement, const Field& field) {
  switch (movement) {
    case v1::MOVEMENT_STOPPED:
      return asl::Movement::kStopped;
    case v1::MOVEMENT_MOTION:
      return asl::Movement::kMotion;
    case v1::MOVEMENT_NON_STOPPED:
      return asl::Movement::kNonStopped;
    default:
      return Bad(field, "unknown movement " + std::to_string(static_cast<int>(movement)));
  }
}

v1::Movement MovementToProto(asl::Movement movement) {
  switch (movement) {
    case asl::Movement::kStopped:
      return v1::MOVEMENT_STOPPED;
    case asl::Movement::kMotion:
      return v1::MOVEMENT_MOTION;
    case asl::Movement::kNonStopped:
      return v1::MOVEMENT_NON_STOPPED;
  }
  return v1::MOVEMENT_STOPPED;
}

// Parses weapon names ("cmg", "rmg", "aamg", "sn") into Weapon bits; each at most once.
Result<uint8_t> WeaponsFromProto(const pb::RepeatedPtrField<std::string>& names,
                                 const Field& field) {
  uint8_t bits = 0;
  for (int i = 0; i < names.size(); ++i) {
    std::optional<asl::Weapon> weapon = asl::ParseWeapon(names.Get(i));
    if (!weapon) {
      return Bad(field.Item(i),
                 "unknown weapon (cmg, rmg, aamg or sn; a BMG is never used "
                 "in CC)");
    }
    if (bits & *weapon) return Bad(field.Item(i), "named twice");
    bits |= *weapon;
  }
  return bits;
}

void AddWeapons(uint8_t bits, pb::RepeatedPtrField<std::string>* out) {
  for (asl::Weapon weapon : {asl::kCmg, asl::kRmg, asl::kAamg, asl::kSn}) {
    if (bits & weapon) out->Add(std::string(asl::Name(weapon)));
  }
}

Result<asl::VehicleFacts> VehicleFromProto(const v1::Vehicle& message, const Field& field) {
  asl::VehicleFacts v;
  auto armor = ArmorFromProto(message.armor(), field.Child("armor"));
  if (!armor) return tl::unexpected(armor.error());
  v.armor = *armor;
  auto movement = MovementFromProto(message.movement(), field.Child("movement"));
  if (!movement) return tl::unexpected(movement.error());
  v.movement = *movement;
  v.crew_exposed = message.crew_exposed();
  v.abandoned = message.abandoned();
  v.shocked = message.shocked();
  v.stunned = message.stunned();
  v.immobile = message.immobile();
  v.unarmed = message.unarmed();
  for (const auto& [fp, name] : {std::pair{message.cmg(), "cmg"}, std::pair{message.rmg(), "rmg"},
                                 std::pair{message.aamg(), "aamg"}}) {
    if (auto r = CheckRange(fp, 0, 99, field.Child(name)); !r) return tl::unexpected(r.error());
  }
  v.cmg = message.cmg();
  v.cmg_vca_only = message.cmg_vca_only();
  v.rmg = message.rmg();
  v.aamg = message.aamg();
  v.bmg = message.bmg();
  if (auto r = CheckRange(message.sn_usage(), 0, 12, field.Child("sn_usage")); !r) {
    return tl::unexpected(r.error());
  }
  v.sn_usage = message.sn_usage();
  auto malfunctioned = WeaponsFromProto(message.malfunctioned(), field.Child("malfunctioned"));
  if (!malfunctioned) return tl::unexpected(malfunctioned.error());
  v.malfunctioned = *malfunctioned;
  return v;
}

v1::Vehicle VehicleToProto(const asl::VehicleFacts& v) {
  v1::Vehicle out;
  out.set_armor(ArmorToProto(v.armor));
  out.set_crew_exposed(v.crew_exposed);
  out.set_abandoned(v.abandoned);
  out.set_shocked(v.shocked);
  out.set_stunned(v.stunned);
  out.set_immobile(v.immobile);
  out.set_unarmed(v.unarmed);
  out.set_movement(MovementToProto(v.movement));
  out.set_cmg(v.cmg);
  out.set_cmg_vca_only(v.cmg_vca_only);
  out.set_rmg(v.rmg);
  out.set_aamg(v.aamg);
  out.set_bmg(v.bmg);
  out.set_sn_usage(v.sn_usage);
  AddWeapons(v.malfunctioned, out.mutable_malfunctioned());
  return out;
}

v1::CheckResult CheckResultToProto(asl::CheckResult result) {
  switch (result) {
    case asl::CheckResult::kPassed:
      return v1::CHECK_RESULT_PASSED;
    case asl::CheckResult::kPinned:
      return v1::CHECK_RESULT_PINNED;
    case asl::CheckResult::kBroken:
      return v1::CHECK_RESULT_BROKEN;
    case asl::CheckResult::kEliminated:
      return v1::CHECK_RESULT_ELIMINATED;
  }
  return v1::CHECK_RESULT_UNSPECIFIED;
}

v1::Outcome OutcomeToProto(asl::Outcome outcome) {
  switch (outcome) {
    case asl::Outcome::kNoEffect:
      return v1::OUTCOME_NO_EFFECT;
    case asl::Outcome::kPartial:
      return v1::OUTCOME_PARTIAL;
    case asl::Outcome::kEliminated:
      return v1::OUTCOME_ELIMINATED;
    case asl::Outcome::kCaptured:
      return v1::OUTCOME_CAPTURED;
    case asl::Outcome::kImmobilized:
      return v1::OUTCOME_IMMOBILIZED;
    case asl::Outcome::kBurning:
      return v1::OUTCOME_BURNING;
  }
  return v1::OUTCOME_UNSPECIFIED;
}

v1::EffectKind EffectKindToProto(asl::EffectKind kind) {
  switch (kind) {
    case asl::EffectKind::kEliminated:
      return v1::EFFECT_KIND_ELIMINATED;
    case asl::EffectKind::kReduced:
      return v1::EFFECT_KIND_REDUCED;
    case asl::EffectKind::kWounded:
      return v1::EFFECT_KIND_WOUNDED;
    case asl::EffectKind::kCaptured:
      return v1::EFFECT_KIND_CAPTURED;
    case asl::EffectKind::kCaptureVoided:
      return v1::EFFECT_KIND_CAPTURE_VOIDED;
    case asl::EffectKind::kConcealmentLost:
      return v1::EFFECT_KIND_CONCEALMENT_LOST;
    case asl::EffectKind::kWithdrawn:
      return v1::EFFECT_KIND_WITHDRAWN;
    case asl::EffectKind::kSupportWeaponLost:
      return v1::EFFECT_KIND_SUPPORT_WEAPON_LOST;
    case asl::EffectKind::kSupportWeaponDropped:
      return v1::EFFECT_KIND_SUPPORT_WEAPON_DROPPED;
    case asl::EffectKind::kLeaderCreated:
      return v1::EFFECT_KIND_LEADER_CREATED;
    case asl::EffectKind::kHalfSquadCreated:
      return v1::EFFECT_KIND_HALF_SQUAD_CREATED;
    case asl::EffectKind::kPinned:
      return v1::EFFECT_KIND_PINNED;
    case asl::EffectKind::kBroken:
      return v1::EFFECT_KIND_BROKEN;
    case asl::EffectKind::kImmobilized:
      return v1::EFFECT_KIND_IMMOBILIZED;
    case asl::EffectKind::kWeaponMalfunctioned:
      return v1::EFFECT_KIND_WEAPON_MALFUNCTIONED;
  }
  return v1::EFFECT_KIND_UNSPECIFIED;
}

// Returns the proto kind of `kind` and whether the event's `seat` means something for it.
std::pair<v1::EventKind, bool> EventKindToProto(asl::EventKind kind) {
  switch (kind) {
    case asl::EventKind::kSetUp:
      return {v1::EVENT_KIND_SET_UP, false};
    case asl::EventKind::kAnnounced:
      return {v1::EVENT_KIND_ANNOUNCED, true};
    case asl::EventKind::kDummiesRemoved:
      return {v1::EVENT_KIND_DUMMIES_REMOVED, false};
    case asl::EventKind::kAmbushChecked:
      return {v1::EVENT_KIND_AMBUSH_CHECKED, false};
    case asl::EventKind::kHthDeclared:
      return {v1::EVENT_KIND_HTH_DECLARED, false};
    case asl::EventKind::kDeclarationSealed:
      return {v1::EVENT_KIND_DECLARATION_SEALED, true};
    case asl::EventKind::kDeclarationsRevealed:
      return {v1::EVENT_KIND_DECLARATIONS_REVEALED, false};
    case asl::EventKind::kAttackResolved:
      return {v1::EVENT_KIND_ATTACK_RESOLVED, true};
    case asl::EventKind::kAttackVoid:
      return {v1::EVENT_KIND_ATTACK_VOID, true};
    case asl::EventKind::kChoiceRequested:
      return {v1::EVENT_KIND_CHOICE_REQUESTED, false};
    case asl::EventKind::kChoiceMade:
      return {v1::EVENT_KIND_CHOICE_MADE, true};
    case asl::EventKind::kPassed:
      return {v1::EVENT_KIND_PASSED, true};
    case asl::EventKind::kPhaseEnded:
      return {v1::EVENT_KIND_PHASE_ENDED, false};
    case asl::EventKind::kPaatcTaken:
      return {v1::EVENT_KIND_PAATC_TAKEN, false};
    case asl::EventKind::kVehicleCaptured:
      return {v1::EVENT_KIND_VEHICLE_CAPTURED, false};
  }
  return {v1::EVENT_KIND_UNSPECIFIED, false};
}

melee::v1::DieRoll::Color ColorToProto(engine::DieColor color) {
  switch (color) {
    case engine::DieColor::kSingle:
      return melee::v1::DieRoll::COLOR_SINGLE;
    case engine::DieColor::kColored:
      return melee::v1::DieRoll::COLOR_COLORED;
    case engine::DieColor::kWhite:
      return melee::v1::DieRoll::COLOR_WHITE;
  }
  return melee::v1::DieRoll::COLOR_UNSPECIFIED;
}

}  // namespace

// ---- reading a situation file ---------------------------------------------------------------

Result<asl::Unit> UnitFromProto(const v1::Unit& message, const Field& field) {
  asl::Unit unit;
  if (auto r = CheckId(message.id(), field.Child("id")); !r) return tl::unexpected(r.error());
  unit.id = message.id();
  auto owner = SideFromProto(message.owner(), field.Child("owner"));
  if (!owner) return tl::unexpected(owner.error());
  unit.owner = *owner;
  auto kind = KindFromProto(message.kind(), field.Child("kind"));
  if (!kind) return tl::unexpected(kind.error());
  unit.kind = *kind;
  auto nationality = NationalityFromProto(message.nationality(), field.Child("nationality"));
  if (!nationality) return tl::unexpected(nationality.error());
  unit.nationality = *nationality;
  if (auto r = CheckText(message.name(), field.Child("name"), kAslMaxIdBytes); !r) {
    return tl::unexpected(r.error());
  }
  unit.name = message.name();
  if (auto r = CheckRange(message.firepower(), 0, 99, field.Child("firepower")); !r) {
    return tl::unexpected(r.error());
  }
  unit.firepower = message.firepower();
  if (message.has_reduced_firepower()) {
    if (auto r = CheckRange(message.reduced_firepower(), 1, 99, field.Child("reduced_firepower"));
        !r) {
      return tl::unexpected(r.error());
    }
    unit.reduced_firepower = message.reduced_firepower();
  }
  if (message.has_morale()) {
    if (auto r = CheckRange(message.morale(), 1, 12, field.Child("morale")); !r) {
      return tl::unexpected(r.error());
    }
    unit.morale = message.morale();
  }
  if (auto r = CheckRange(message.leadership(), -5, 3, field.Child("leadership")); !r) {
    return tl::unexpected(r.error());
  }
  unit.leadership = message.leadership();
  if (auto r = CheckRange(message.bpv(), 0, 999, field.Child("bpv")); !r) {
    return tl::unexpected(r.error());
  }
  unit.bpv = message.bpv();
  if (auto r = CheckOptionalId(message.stacked_on(), field.Child("stacked_on")); !r) {
    return tl::unexpected(r.error());
  }
  unit.stacked_on = message.stacked_on();
  if (message.support_weapons_size() > 8) {
    return Bad(field.Child("support_weapons"), "at most 8 support weapons");
  }
  for (int i = 0; i < message.support_weapons_size(); ++i) {
    const Field sw_field = field.Child("support_weapons", i);
    if (message.support_weapons(i).empty()) return Bad(sw_field, "must not be empty");
    if (auto r = CheckText(message.support_weapons(i), sw_field, kAslMaxIdBytes); !r) {
      return tl::unexpected(r.error());
    }
    unit.support_weapons.push_back(message.support_weapons(i));
  }
  unit.inexperienced = message.inexperienced();
  unit.assault_engineer = message.assault_engineer();
  unit.stealthy = message.stealthy();
  unit.lax = message.lax();
  unit.gurkha = message.gurkha();
  unit.commando = message.commando();
  unit.partisan = message.partisan();
  unit.dare_death = message.dare_death();
  unit.broken = message.broken();
  unit.pinned = message.pinned();
  unit.concealed = message.concealed();
  unit.cx = message.cx();
  unit.ti = message.ti();
  unit.guarding = message.guarding();
  unit.berserk = message.berserk();
  unit.disrupted = message.disrupted();
  unit.in_wire = message.in_wire();
  unit.on_crest = message.on_crest();
  unit.in_bank_or_panji = message.in_bank_or_panji();
  unit.advanced = message.advanced();
  if (auto r = CheckRange(message.wounds(), 0, 1, field.Child("wounds")); !r) {
    return tl::unexpected(r.error());
  }
  unit.wounds = message.wounds();
  unit.fanatic = message.fanatic();
  unit.atmm = message.atmm();
  switch (message.street_fighting()) {
    case v1::STREET_FIGHTING_NONE:
      break;
    case v1::STREET_FIGHTING_FROM_BUILDING:
      unit.street_fighting = asl::StreetFighting::kFromBuilding;
      break;
    case v1::STREET_FIGHTING_IN_OBSTACLE:
      unit.street_fighting = asl::StreetFighting::kInObstacle;
      break;
    default:
      return Bad(field.Child("street_fighting"),
                 "unknown value " + std::to_string(message.street_fighting()));
  }
  if (auto r = CheckOptionalId(message.rider_of(), field.Child("rider_of")); !r) {
    return tl::unexpected(r.error());
  }
  unit.rider_of = message.rider_of();
  if (auto r = CheckOptionalId(message.passenger_of(), field.Child("passenger_of")); !r) {
    return tl::unexpected(r.error());
  }
  unit.passenger_of = message.passenger_of();
  if (message.has_vehicle()) {
    if (unit.kind != asl::UnitKind::kVehicle) {
      return Bad(field.Child("vehicle"), "only a UNIT_KIND_VEHICLE has vehicle facts");
    }
    auto vehicle = VehicleFromProto(message.vehicle(), field.Child("vehicle"));
    if (!vehicle) return tl::unexpected(vehicle.error());
    unit.vehicle = *vehicle;
  }
  return unit;
}

Result<asl::Location> LocationFromProto(const v1::Location& message, const Field& field) {
  asl::Location location;
  if (auto r = CheckText(message.name(), field.Child("name"), kAslMaxNameBytes); !r) {
    return tl::unexpected(r.error());
  }
  location.name = message.name();
  location.woods_or_building = message.woods_or_building();
  location.melee = message.melee();
  location.hth = message.hth();
  if (message.ambusher() != melee::v1::SEAT_UNSPECIFIED) {
    auto ambusher = SideFromProto(message.ambusher(), field.Child("ambusher"));
    if (!ambusher) return tl::unexpected(ambusher.error());
    location.ambusher = *ambusher;
  }
  if (auto r =
          CheckRange(message.excess_squads_side_a(), 0, 9, field.Child("excess_squads_side_a"));
      !r) {
    return tl::unexpected(r.error());
  }
  if (auto r =
          CheckRange(message.excess_squads_side_b(), 0, 9, field.Child("excess_squads_side_b"));
      !r) {
    return tl::unexpected(r.error());
  }
  location.excess_squads = {message.excess_squads_side_a(), message.excess_squads_side_b()};
  location.reaction_fire = message.reaction_fire();
  return location;
}

Result<asl::Situation> SituationFromProto(const v1::Situation& message, const Field& field) {
  asl::Situation situation;
  auto location = LocationFromProto(message.location(), field.Child("location"));
  if (!location) return tl::unexpected(location.error());
  situation.location = std::move(*location);
  auto attacker = SideFromProto(message.attacker(), field.Child("attacker"));
  if (!attacker) return tl::unexpected(attacker.error());
  situation.attacker = *attacker;
  if (static_cast<size_t>(message.units_size()) > kAslMaxUnits) {
    return Bad(field.Child("units"), "a Location holds at most " + std::to_string(kAslMaxUnits) +
                                         " units, not " + std::to_string(message.units_size()));
  }
  for (int i = 0; i < message.units_size(); ++i) {
    auto unit = UnitFromProto(message.units(i), field.Child("units", i));
    if (!unit) return tl::unexpected(unit.error());
    situation.units.push_back(std::move(*unit));
  }
  return situation;
}

Result<asl::Announce> AnnounceFromProto(const v1::Announce& message, const Field& field) {
  for (const auto& [ids, name] : {std::pair{&message.withdraw(), "withdraw"},
                                  std::pair{&message.cannot_withdraw(), "cannot_withdraw"},
                                  std::pair{&message.solo(), "solo"}}) {
    if (auto r = CheckIds(*ids, field.Child(name)); !r) return tl::unexpected(r.error());
  }
  asl::Announce announce;
  announce.withdraw = Strings(message.withdraw());
  announce.cannot_withdraw = Strings(message.cannot_withdraw());
  announce.solo = Strings(message.solo());
  announce.declare_hth = message.declare_hth();
  return announce;
}

Result<asl::AttackOrder> AttackOrderFromProto(const v1::AttackOrder& message, const Field& field) {
  if (auto r = CheckIds(message.attackers(), field.Child("attackers")); !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = CheckIds(message.targets(), field.Child("targets")); !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = CheckOptionalId(message.director(), field.Child("director")); !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = CheckOptionalId(message.atmm(), field.Child("atmm")); !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = WeaponsFromProto(message.weapons(), field.Child("weapons")); !r) {
    return tl::unexpected(r.error());
  }
  asl::AttackOrder order;
  order.atmm = message.atmm();
  order.weapons = Strings(message.weapons());
  order.attackers = Strings(message.attackers());
  order.targets = Strings(message.targets());
  order.capture = message.capture();
  order.director = message.director();
  order.decline_leadership = message.decline_leadership();
  return order;
}

Result<asl::Seal> SealFromProto(const v1::Seal& message, const Field& field) {
  asl::Seal seal;
  if (static_cast<size_t>(message.attacks_size()) > kAslMaxListSize) {
    return Bad(field.Child("attacks"), "at most " + std::to_string(kAslMaxListSize) + " attacks");
  }
  for (int i = 0; i < message.attacks_size(); ++i) {
    auto order = AttackOrderFromProto(message.attacks(i), field.Child("attacks", i));
    if (!order) return tl::unexpected(order.error());
    seal.attacks.push_back(std::move(*order));
  }
  if (auto r = CheckIds(message.ambush_withdraw(), field.Child("ambush_withdraw")); !r) {
    return tl::unexpected(r.error());
  }
  seal.ambush_withdraw = Strings(message.ambush_withdraw());
  return seal;
}

namespace {

// ---- reports ------------------------------------------------------------------------------

void AddDrms(const std::vector<asl::Drm>& drms, pb::RepeatedPtrField<v1::Drm>* out) {
  for (const asl::Drm& drm : drms) {
    v1::Drm* message = out->Add();
    message->set_rule(std::string(asl::RuleOf(drm.cause)));
    message->set_cause(std::string(asl::TextOf(drm.cause)));
    message->set_value(drm.value);
  }
}

// Appends `halvings` with their rule numbers and texts.
void AddHalvings(const std::vector<asl::Halving>& halvings,
                 pb::RepeatedPtrField<v1::Halving>* out) {
  for (const asl::Halving& halving : halvings) {
    v1::Halving* message = out->Add();
    message->set_rule(std::string(asl::RuleOf(halving.cause)));
    message->set_cause(std::string(asl::TextOf(halving.cause)));
    message->set_unit(halving.unit);
  }
}

// Names the units of one event: indices of `before`, or units the event itself creates.
class UnitNames {
 public:
  UnitNames(const asl::State& before, const asl::Event& event) : before_(before), event_(event) {}

  std::string operator()(size_t index) const {
    return std::string(asl::UnitId(before_, event_, index));
  }

  void Add(const std::vector<uint16_t>& indices, pb::RepeatedPtrField<std::string>* out) const {
    for (uint16_t index : indices) out->Add((*this)(index));
  }

 private:
  const asl::State& before_;
  const asl::Event& event_;
};

void TaskCheckToProto(const asl::TaskCheck& check, const UnitNames& names, v1::TaskCheck* out) {
  out->set_unit(names(check.unit));
  out->set_check(check.check);
  out->mutable_dr()->set_colored(check.dr.colored);
  out->mutable_dr()->set_white(check.dr.white);
  out->mutable_dr()->set_total(check.dr.Total());
  AddDrms(check.drms, out->mutable_drms());
  out->set_final_dr(check.final_dr);
  out->set_morale(check.morale);
  out->set_result(CheckResultToProto(check.result));
}

void AttackReportToProto(const asl::AttackReport& report, const UnitNames& names,
                         v1::AttackReport* out) {
  out->set_side(SideToProto(report.side));
  names.Add(report.attackers, out->mutable_attackers());
  names.Add(report.targets, out->mutable_targets());
  if (report.director) out->set_director(names(*report.director));
  out->set_capture(report.capture);
  out->set_hth(report.hth);
  out->set_attack_strength(report.attack_strength.ToString());
  out->set_attack_strength_mixed(report.attack_strength.ToMixedString());
  out->set_defence_strength(report.defence_strength.ToString());
  out->set_defence_strength_mixed(report.defence_strength.ToMixedString());
  AddHalvings(report.halvings, out->mutable_halvings());
  out->set_column(std::string(asl::Name(report.column)));
  out->set_kill_number(report.kill_number);
  AddDrms(report.drms, out->mutable_drms());
  out->mutable_dr()->set_colored(report.dr.colored);
  out->mutable_dr()->set_white(report.dr.white);
  out->mutable_dr()->set_total(report.dr.Total());
  if (report.leader_creation) {
    v1::LeaderCreation* creation = out->mutable_leader_creation();
    creation->set_dr(report.leader_creation->dr);
    AddDrms(report.leader_creation->drms, creation->mutable_drms());
    creation->set_final_dr(report.leader_creation->final_dr);
    creation->set_leader(report.leader_creation->leader);
  }
  for (const asl::TargetResult& result : report.results) {
    v1::TargetResult* message = out->add_results();
    message->set_unit(names(result.unit));
    AddDrms(result.drms, message->mutable_drms());
    message->set_final_dr(result.final_dr);
    message->set_outcome(OutcomeToProto(result.outcome));
  }
  AddStrings(report.notes, out->mutable_notes());
  AddWeapons(report.weapons, out->mutable_weapons());
  out->set_vs_vehicle(report.vs_vehicle);
  out->set_ccv_base(report.ccv_base);
  AddDrms(report.ccv_modifiers, out->mutable_ccv_modifiers());
  if (report.atmm) {
    v1::AtmmReport* atmm = out->mutable_atmm();
    atmm->set_unit(names(report.atmm->unit));
    atmm->set_dr(report.atmm->dr);
    AddDrms(report.atmm->drms, atmm->mutable_drms());
    atmm->set_final_dr(report.atmm->final_dr);
    atmm->set_result(std::string(asl::Name(report.atmm->result)));
  }
  if (report.unlikely_kill_dr) out->set_unlikely_kill_dr(*report.unlikely_kill_dr);
  out->set_crew_small_arms(report.crew_small_arms);
  if (report.close_defense) {
    const asl::CloseDefenseReport& cd = *report.close_defense;
    v1::CloseDefenseReport* message = out->mutable_close_defense();
    message->mutable_dr()->set_colored(cd.dr.colored);
    message->mutable_dr()->set_white(cd.dr.white);
    message->mutable_dr()->set_total(cd.dr.Total());
    message->set_usage(cd.usage);
    if (cd.ift) message->set_ift(asl::Name(*cd.ift));
    message->set_placeholder(cd.placeholder);
    names.Add(cd.targets, message->mutable_targets());
    for (int dr : cd.selection_drs) message->add_selection_drs(dr);
    for (const asl::TaskCheck& check : cd.checks) {
      TaskCheckToProto(check, names, message->add_checks());
    }
  }
}

void AmbushRollToProto(const asl::AmbushReport& report, size_t side, v1::AmbushRoll* out) {
  out->set_dr(report.dr[side]);
  AddDrms(report.drms[side], out->mutable_drms());
  out->set_final_dr(report.final_dr[side]);
}

}  // namespace

// ---- public: reading ------------------------------------------------------------------------

Result<asl::Script> ScriptFromProto(const v1::CloseCombat& message) {
  asl::Script script;
  if (auto r = CheckText(message.variant(), "variant", kAslMaxIdBytes); !r) {
    return tl::unexpected(r.error());
  }
  script.options.variant = message.variant();
  if (static_cast<size_t>(message.options_size()) > kAslMaxOptions) {
    return Bad("options", "at most " + std::to_string(kAslMaxOptions) + " options");
  }
  for (const auto& [key, value] : message.options()) {
    if (key.empty()) return Bad("options", "an option name must not be empty");
    if (auto r = CheckText(key, "options", kAslMaxNameBytes); !r) return tl::unexpected(r.error());
    if (auto r = CheckText(value, "options[" + Quoted(key) + "]", kAslMaxNameBytes); !r) {
      return tl::unexpected(r.error());
    }
    script.options.values.emplace(key, value);
  }
  if (!message.has_situation()) return Bad("situation", "required");
  auto situation = SituationFromProto(message.situation(), "situation");
  if (!situation) return tl::unexpected(situation.error());
  script.situation = std::move(*situation);
  auto side_a = AnnounceFromProto(message.side_a_announce(), "side_a_announce");
  if (!side_a) return tl::unexpected(side_a.error());
  auto side_b = AnnounceFromProto(message.side_b_announce(), "side_b_announce");
  if (!side_b) return tl::unexpected(side_b.error());
  script.announce = {std::move(*side_a), std::move(*side_b)};
  if (static_cast<size_t>(message.declarations_size()) > kAslMaxListSize) {
    return Bad("declarations", "at most " + std::to_string(kAslMaxListSize) + " declarations");
  }
  const Field declarations("declarations");
  for (int i = 0; i < message.declarations_size(); ++i) {
    const Field field = declarations.Item(i);
    auto seat = SideFromProto(message.declarations(i).seat(), field.Child("seat"));
    if (!seat) return tl::unexpected(seat.error());
    auto seal = SealFromProto(message.declarations(i).seal(), field.Child("seal"));
    if (!seal) return tl::unexpected(seal.error());
    script.declarations.emplace_back(*seat, std::move(*seal));
  }
  if (static_cast<size_t>(message.choices_size()) > kAslMaxListSize) {
    return Bad("choices", "at most " + std::to_string(kAslMaxListSize) + " choices");
  }
  const Field choices("choices");
  for (int i = 0; i < message.choices_size(); ++i) {
    const Field field = choices.Item(i);
    auto kind = ChoiceKindFromProto(message.choices(i).kind(), field.Child("kind"));
    if (!kind) return tl::unexpected(kind.error());
    if (auto r = CheckIds(message.choices(i).selected(), field.Child("selected")); !r) {
      return tl::unexpected(r.error());
    }
    script.choices.push_back({*kind, Strings(message.choices(i).selected())});
  }
  return script;
}

Result<std::optional<AslPreviewRequest>> PreviewFromProto(const v1::CloseCombat& message) {
  if (!message.has_preview()) return std::optional<AslPreviewRequest>();
  auto seat = SideFromProto(message.preview().seat(), "preview.seat");
  if (!seat) return tl::unexpected(seat.error());
  if (!message.preview().has_attack()) return Bad("preview.attack", "required");
  auto order = AttackOrderFromProto(message.preview().attack(), "preview.attack");
  if (!order) return tl::unexpected(order.error());
  return AslPreviewRequest{*seat, std::move(*order)};
}

Result<v1::CloseCombat> CloseCombatFromJson(std::string_view json) {
  if (json.size() > kAslMaxJsonBytes) {
    return Reject("", "the situation is " + std::to_string(json.size()) + " bytes; at most " +
                          std::to_string(kAslMaxJsonBytes) + " are read");
  }
  v1::CloseCombat message;
  pb::util::JsonParseOptions strict;  // Unknown fields and enum names are errors.
  const auto status = pb::util::JsonStringToMessage(json, &message, strict);
  if (!status.ok()) {
    return Reject("", "not a melee.asl.v1.CloseCombat in the protobuf JSON mapping: " +
                          std::string(status.message()));
  }
  return message;
}

Result<asl::Script> ScriptFromJson(std::string_view json) {
  auto message = CloseCombatFromJson(json);
  if (!message) return tl::unexpected(message.error());
  return ScriptFromProto(*message);
}

// ---- public: writing ------------------------------------------------------------------------

// (Strings that are usually empty are set only when they are not: proto3 sends an empty string
// as no field at all, and protobuf allocates a string for every field set. A unit is written for
// each viewer's view after every command.)
v1::Unit UnitToProto(const asl::Unit& unit) {
  v1::Unit out;
  UnitToProto(unit, out);
  return out;
}

void UnitToProto(const asl::Unit& unit, v1::Unit& out) {
  out.set_id(unit.id);
  out.set_owner(SideToProto(unit.owner));
  out.set_kind(KindToProto(unit.kind));
  out.set_nationality(NationalityToProto(unit.nationality));
  out.set_name(unit.name);
  out.set_firepower(unit.firepower);
  if (unit.reduced_firepower >= 0) out.set_reduced_firepower(unit.reduced_firepower);
  out.set_morale(unit.morale);
  out.set_leadership(unit.leadership);
  out.set_bpv(unit.bpv);
  if (!unit.stacked_on.empty()) out.set_stacked_on(unit.stacked_on);
  AddStrings(unit.support_weapons, out.mutable_support_weapons());
  out.set_inexperienced(unit.inexperienced);
  out.set_assault_engineer(unit.assault_engineer);
  out.set_stealthy(unit.stealthy);
  out.set_lax(unit.lax);
  out.set_gurkha(unit.gurkha);
  out.set_commando(unit.commando);
  out.set_partisan(unit.partisan);
  out.set_dare_death(unit.dare_death);
  out.set_broken(unit.broken);
  out.set_pinned(unit.pinned);
  out.set_concealed(unit.concealed);
  out.set_cx(unit.cx);
  out.set_ti(unit.ti);
  out.set_guarding(unit.guarding);
  out.set_berserk(unit.berserk);
  out.set_disrupted(unit.disrupted);
  out.set_in_wire(unit.in_wire);
  out.set_on_crest(unit.on_crest);
  out.set_in_bank_or_panji(unit.in_bank_or_panji);
  out.set_advanced(unit.advanced);
  out.set_wounds(unit.wounds);
  out.set_fanatic(unit.fanatic);
  out.set_atmm(unit.atmm);
  out.set_street_fighting(
      unit.street_fighting == asl::StreetFighting::kFromBuilding ? v1::STREET_FIGHTING_FROM_BUILDING
      : unit.street_fighting == asl::StreetFighting::kInObstacle ? v1::STREET_FIGHTING_IN_OBSTACLE
                                                                 : v1::STREET_FIGHTING_NONE);
  if (!unit.rider_of.empty()) out.set_rider_of(unit.rider_of);
  if (!unit.passenger_of.empty()) out.set_passenger_of(unit.passenger_of);
  if (unit.kind == asl::UnitKind::kVehicle) *out.mutable_vehicle() = VehicleToProto(unit.vehicle);
}

namespace {

// The parts of a set-up and of the commands, each filled into an empty `out` (a fresh message or
// one of a kept message, cleared: see EventToProto) by the Fill functions, which the ToProto
// functions call with a fresh one.
void FillLocation(const asl::Location& location, v1::Location& out) {
  out.set_name(location.name);
  out.set_woods_or_building(location.woods_or_building);
  out.set_melee(location.melee);
  out.set_hth(location.hth);
  if (location.ambusher) out.set_ambusher(SideToProto(*location.ambusher));
  out.set_excess_squads_side_a(location.excess_squads[0]);
  out.set_excess_squads_side_b(location.excess_squads[1]);
  out.set_reaction_fire(location.reaction_fire);
}

void FillSituation(const asl::Situation& situation, v1::Situation& out) {
  FillLocation(situation.location, *out.mutable_location());
  out.set_attacker(SideToProto(situation.attacker));
  for (const asl::Unit& unit : situation.units) UnitToProto(unit, *out.add_units());
}

void FillAnnounce(const asl::Announce& announce, v1::Announce& out) {
  AddStrings(announce.withdraw, out.mutable_withdraw());
  AddStrings(announce.cannot_withdraw, out.mutable_cannot_withdraw());
  AddStrings(announce.solo, out.mutable_solo());
  out.set_declare_hth(announce.declare_hth);
}

void FillAttackOrder(const asl::AttackOrder& order, v1::AttackOrder& out) {
  AddStrings(order.attackers, out.mutable_attackers());
  AddStrings(order.targets, out.mutable_targets());
  out.set_capture(order.capture);
  if (!order.director.empty()) out.set_director(order.director);  // (as in UnitToProto)
  out.set_decline_leadership(order.decline_leadership);
  out.set_atmm(order.atmm);
  AddStrings(order.weapons, out.mutable_weapons());
}

void FillSeal(const asl::Seal& seal, v1::Seal& out) {
  for (const asl::AttackOrder& order : seal.attacks) FillAttackOrder(order, *out.add_attacks());
  AddStrings(seal.ambush_withdraw, out.mutable_ambush_withdraw());
}

// A fresh `Message` filled from `part` by `fill`.
template <class Message, class Part>
Message Filled(const Part& part, void (*fill)(const Part&, Message&)) {
  Message out;
  fill(part, out);
  return out;
}

}  // namespace

v1::Location LocationToProto(const asl::Location& location) {
  return Filled(location, &FillLocation);
}

v1::Situation SituationToProto(const asl::Situation& situation) {
  return Filled(situation, &FillSituation);
}

v1::Announce AnnounceToProto(const asl::Announce& announce) {
  return Filled(announce, &FillAnnounce);
}

v1::AttackOrder AttackOrderToProto(const asl::AttackOrder& order) {
  return Filled(order, &FillAttackOrder);
}

v1::Seal SealToProto(const asl::Seal& seal) { return Filled(seal, &FillSeal); }

v1::CloseCombat ScriptToProto(const asl::Script& script) {
  v1::CloseCombat out;
  out.set_variant(script.options.variant);
  for (const auto& [key, value] : script.options.values) (*out.mutable_options())[key] = value;
  *out.mutable_situation() = SituationToProto(script.situation);
  *out.mutable_side_a_announce() = AnnounceToProto(script.announce[0]);
  *out.mutable_side_b_announce() = AnnounceToProto(script.announce[1]);
  for (const auto& [seat, seal] : script.declarations) {
    v1::SealTurn* turn = out.add_declarations();
    turn->set_seat(SideToProto(seat));
    *turn->mutable_seal() = SealToProto(seal);
  }
  for (const asl::ScriptedChoice& choice : script.choices) {
    v1::ScriptedChoice* message = out.add_choices();
    message->set_kind(ChoiceKindToProto(choice.kind));
    AddStrings(choice.selected, message->mutable_selected());
  }
  return out;
}

v1::Presence PresenceToProto(asl::Presence presence) {
  switch (presence) {
    case asl::Presence::kPresent:
      return v1::PRESENCE_PRESENT;
    case asl::Presence::kEliminated:
      return v1::PRESENCE_ELIMINATED;
    case asl::Presence::kCaptured:
      return v1::PRESENCE_CAPTURED;
    case asl::Presence::kWithdrawn:
      return v1::PRESENCE_WITHDRAWN;
  }
  return v1::PRESENCE_UNSPECIFIED;
}

v1::AslEvent EventToProto(const asl::State& before, const asl::Event& event) {
  v1::AslEvent out;
  EventToProto(before, event, out);
  return out;
}

void EventToProto(const asl::State& before, const asl::Event& event, v1::AslEvent& out) {
  const UnitNames names(before, event);
  const auto [kind, has_seat] = EventKindToProto(event.kind);
  out.set_kind(kind);
  if (has_seat) out.set_seat(SideToProto(event.seat));
  if (event.situation) FillSituation(*event.situation, *out.mutable_situation());
  if (event.announce) FillAnnounce(*event.announce, *out.mutable_announce());
  if (event.seal) FillSeal(*event.seal, *out.mutable_seal());
  if (event.attack) AttackReportToProto(*event.attack, names, out.mutable_attack());
  if (event.ambush) {
    v1::AmbushReport* ambush = out.mutable_ambush();
    AmbushRollToProto(*event.ambush, 0, ambush->mutable_side_a());
    AmbushRollToProto(*event.ambush, 1, ambush->mutable_side_b());
    if (event.ambush->ambusher) ambush->set_ambusher(SideToProto(*event.ambush->ambusher));
  }
  if (event.choice) {
    v1::ChoiceRequest* choice = out.mutable_choice();
    choice->set_id(event.choice->id);
    choice->set_seat(SideToProto(event.choice->seat));
    choice->set_kind(ChoiceKindToProto(event.choice->kind));
    names.Add(event.choice->options, choice->mutable_options());
    choice->set_min_selected(event.choice->min_selected);
    choice->set_max_selected(event.choice->max_selected);
    names.Add(event.choice->captors, choice->mutable_captors());
  }
  names.Add(event.selected, out.mutable_selected());
  for (size_t i = 0; i < event.rolls.size(); ++i) {
    melee::v1::DieRoll* die = out.add_dice();
    die->set_purpose(event.rolls[i].purpose);
    die->set_color(ColorToProto(event.rolls[i].color));
    die->set_value(static_cast<uint32_t>(event.rolls[i].value));
    die->set_roll_index(static_cast<uint32_t>(i));
  }
  for (const asl::Effect& effect : event.effects) {
    v1::Effect* message = out.add_effects();
    message->set_kind(EffectKindToProto(effect.kind));
    message->set_unit(names(effect.unit));
    message->set_value(effect.value);
    message->set_text(effect.text);
    if (effect.created) *message->mutable_created() = UnitToProto(*effect.created);
    names.Add(effect.by, message->mutable_by());
  }
  for (const asl::TaskCheck& check : event.checks) {
    TaskCheckToProto(check, names, out.add_checks());
  }
  AddStrings(event.notes, out.mutable_notes());
  out.set_melee(event.melee);
  out.set_text(asl::DescribeEvent(before, event));
}

v1::Probability ProbabilityToProto(const engine::Rational& value) {
  return checks::ProbabilityOf<v1::Probability>(value);
}

v1::OutcomeTable OutcomeTableToProto(const asl::OutcomeTable& table) {
  v1::OutcomeTable out;
  out.set_attack_strength(table.attack_strength.ToString());
  out.set_attack_strength_mixed(table.attack_strength.ToMixedString());
  out.set_defence_strength(table.defence_strength.ToString());
  out.set_defence_strength_mixed(table.defence_strength.ToMixedString());
  out.set_column(std::string(asl::Name(table.column)));
  out.set_kill_number(table.kill_number);
  AddDrms(table.drms, out.mutable_drms());
  AddHalvings(table.halvings, out.mutable_halvings());
  out.set_director(table.director);
  for (const asl::TargetOdds& odds : table.targets) {
    v1::TargetOdds* message = out.add_targets();
    message->set_unit(odds.unit);
    message->set_final_dr_offset(odds.final_dr_offset);
    *message->mutable_eliminated() = ProbabilityToProto(odds.eliminated);
    *message->mutable_captured() = ProbabilityToProto(odds.captured);
    *message->mutable_reduced() = ProbabilityToProto(odds.reduced);
    *message->mutable_wounded() = ProbabilityToProto(odds.wounded);
    *message->mutable_no_effect() = ProbabilityToProto(odds.no_effect);
    *message->mutable_immobilized() = ProbabilityToProto(odds.immobilized);
    *message->mutable_burning() = ProbabilityToProto(odds.burning);
  }
  out.set_vs_vehicle(table.vs_vehicle);
  *out.mutable_atmm_success() = ProbabilityToProto(table.atmm_success);
  *out.mutable_crew_small_arms() = ProbabilityToProto(table.crew_small_arms);
  out.set_close_defense(table.close_defense);
  for (const auto& [result, probability] : table.ift_results) {
    v1::IftOdds* odds = out.add_ift_results();
    odds->set_result(result);
    *odds->mutable_probability() = ProbabilityToProto(probability);
  }
  *out.mutable_original_two() = ProbabilityToProto(table.original_two);
  *out.mutable_original_twelve() = ProbabilityToProto(table.original_twelve);
  *out.mutable_leader_created() = ProbabilityToProto(table.leader_created);
  *out.mutable_all_eliminated() = ProbabilityToProto(table.all_eliminated);
  return out;
}

// ---- the server's commands and views ---------------------------------------------------------

v1::Command CommandToProto(const asl::Command& command) {
  v1::Command out;
  std::visit(
      [&out](const auto& typed) {
        using T = std::decay_t<decltype(typed)>;
        if constexpr (std::is_same_v<T, asl::SetUp>) {
          *out.mutable_set_up() = SituationToProto(typed.situation);
        } else if constexpr (std::is_same_v<T, asl::Announce>) {
          *out.mutable_announce() = AnnounceToProto(typed);
        } else if constexpr (std::is_same_v<T, asl::Seal>) {
          *out.mutable_seal() = SealToProto(typed);
        } else {
          out.mutable_choose()->set_choice_id(typed.choice_id);
          AddStrings(typed.selected, out.mutable_choose()->mutable_selected());
        }
      },
      command);
  return out;
}

Result<asl::Command> CommandFromProto(const v1::Command& message) {
  switch (message.command_case()) {
    case v1::Command::kSetUp: {
      auto situation = SituationFromProto(message.set_up(), "set_up");
      if (!situation) return tl::unexpected(situation.error());
      return asl::Command(asl::SetUp{std::move(*situation)});
    }
    case v1::Command::kAnnounce: {
      auto announce = AnnounceFromProto(message.announce(), "announce");
      if (!announce) return tl::unexpected(announce.error());
      return asl::Command(std::move(*announce));
    }
    case v1::Command::kSeal: {
      auto seal = SealFromProto(message.seal(), "seal");
      if (!seal) return tl::unexpected(seal.error());
      return asl::Command(std::move(*seal));
    }
    case v1::Command::kChoose: {
      if (auto r = CheckIds(message.choose().selected(), "choose.selected"); !r) {
        return tl::unexpected(r.error());
      }
      return asl::Command(asl::Choose{.choice_id = message.choose().choice_id(),
                                      .selected = Strings(message.choose().selected())});
    }
    case v1::Command::COMMAND_NOT_SET:
      break;
  }
  return Bad("command", "required: set_up, announce, seal or choose");
}

namespace {

v1::Phase PhaseToProto(asl::Phase phase) {
  switch (phase) {
    case asl::Phase::kSetUp:
      return v1::PHASE_SET_UP;
    case asl::Phase::kAnnounce:
      return v1::PHASE_ANNOUNCE;
    case asl::Phase::kDeclare:
      return v1::PHASE_DECLARE;
    case asl::Phase::kChoice:
      return v1::PHASE_CHOICE;
    case asl::Phase::kEnded:
      return v1::PHASE_ENDED;
  }
  return v1::PHASE_UNSPECIFIED;
}

}  // namespace

v1::AslView ViewToProto(const asl::View& view, const asl::State& state) {
  v1::AslView out;
  ViewToProto(view, state, out);
  return out;
}

namespace {

// The parts of views KeepPartsOf set aside on this thread, by type, for ViewToProto to fill
// again. Bounded: a Location holds at most 64 units (and a few created in it), a view one
// Location and two declarations.
template <class Part>
std::vector<std::unique_ptr<Part>>& Kept() {
  thread_local std::vector<std::unique_ptr<Part>> kept;
  return kept;
}
constexpr size_t kMaxKeptParts = 128;

// Keeps `part` (owned, may be null) for a later view on this thread, or deletes it.
template <class Part>
void SetAside(Part* part) {
  std::unique_ptr<Part> owned(part);
  if (owned && Kept<Part>().size() < kMaxKeptParts) Kept<Part>().push_back(std::move(owned));
}

// Returns a part set aside, cleared (its strings keep their buffers), or a new one; owned by the
// caller. Only for messages off any arena.
template <class Part>
Part* Reused() {
  std::vector<std::unique_ptr<Part>>& kept = Kept<Part>();
  if (kept.empty()) return new Part();
  Part* part = kept.back().release();
  kept.pop_back();
  part->Clear();
  return part;
}

}  // namespace

void KeepPartsOf(v1::AslView& view) {
  if (view.GetArena() != nullptr) return;
  for (v1::ViewedUnit& unit : *view.mutable_units()) SetAside(unit.release_unit());
  SetAside(view.release_location());
  SetAside(view.release_side_a_declaration());
  SetAside(view.release_side_b_declaration());
}

void ViewToProto(const asl::View& view, const asl::State& state, v1::AslView& out) {
  // The parts KeepPartsOf set aside are filled again (`out` itself is clear).
  const bool reuse = out.GetArena() == nullptr;
  if (reuse) out.set_allocated_location(Reused<v1::Location>());
  out.set_phase(PhaseToProto(view.phase));
  FillLocation(view.location, *out.mutable_location());
  out.set_attacker(SideToProto(view.attacker));
  for (const asl::ViewedUnit& seen : view.units) {
    v1::ViewedUnit* unit = out.add_units();
    if (reuse) unit->set_allocated_unit(Reused<v1::Unit>());
    v1::Unit& shown = *unit->mutable_unit();
    if (seen.hidden) {
      // Only what A11.19 lets the other side know; the engine defaults are not shown.
      shown.set_id(seen.unit.id);
      shown.set_owner(SideToProto(seen.unit.owner));
      shown.set_concealed(true);
      shown.set_firepower(seen.unit.firepower);
    } else {
      UnitToProto(seen.unit, shown);
    }
    unit->set_presence(PresenceToProto(seen.unit.presence));
    unit->set_hidden(seen.hidden);
  }
  out.set_to_act(SideToProto(view.to_act));
  out.set_side_a_sealed(view.has_sealed[0]);
  out.set_side_b_sealed(view.has_sealed[1]);
  if (view.declarations[0]) {
    if (reuse) out.set_allocated_side_a_declaration(Reused<v1::Seal>());
    FillSeal(*view.declarations[0], *out.mutable_side_a_declaration());
  }
  if (view.declarations[1]) {
    if (reuse) out.set_allocated_side_b_declaration(Reused<v1::Seal>());
    FillSeal(*view.declarations[1], *out.mutable_side_b_declaration());
  }
  if (view.pending) {
    v1::ChoiceRequest* choice = out.mutable_pending();
    choice->set_id(view.pending->id);
    choice->set_seat(SideToProto(view.pending->seat));
    choice->set_kind(ChoiceKindToProto(view.pending->kind));
    for (uint16_t option : view.pending->options) {
      choice->add_options(std::string(asl::UnitId(state, option)));
    }
    choice->set_min_selected(view.pending->min_selected);
    choice->set_max_selected(view.pending->max_selected);
    for (uint16_t captor : view.pending->captors) {
      choice->add_captors(std::string(asl::UnitId(state, captor)));
    }
  }
  if (view.ambusher) out.set_ambusher(SideToProto(*view.ambusher));
  out.set_sequential(view.sequential);
  out.set_alternating(view.alternating);
  out.set_hth(view.hth);
  out.set_melee(view.melee);
}

}  // namespace melee::proto
