#include "proto/codec/vv.h"

#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "proto/codec/asl.h"  // SideFromProto, SideToProto
#include "proto/codec/checks.h"

namespace melee::proto {
namespace {

namespace vv = engine::vv;
namespace pb = google::protobuf;
namespace vvpb = melee::vv::v1;

using engine::Reject;
using engine::Result;

constexpr int kMaxApfp = 99;
constexpr int kMaxCasualtyRating = 20;
constexpr int kMaxCover = 9;
constexpr int kMaxCount = 99;

using checks::Bad;
using checks::CheckRange;
using checks::CheckText;
using checks::DieToProto;

Result<void> CheckId(std::string_view id, const Field& field) {
  return checks::CheckId(id, field, kVvMaxIdBytes);
}

Result<void> CheckOptionalId(std::string_view id, const Field& field) {
  return checks::CheckOptionalId(id, field, kVvMaxIdBytes);
}

Result<void> CheckList(int size, const Field& field) {
  if (static_cast<size_t>(size) > kVvMaxListSize) {
    return Bad(field, "at most " + std::to_string(kVvMaxListSize) + " entries");
  }
  return {};
}

Result<vv::UnitKind> KindFromProto(vvpb::UnitKind kind, const Field& field) {
  switch (kind) {
    case vvpb::UNIT_KIND_SQUAD:
      return vv::UnitKind::kSquad;
    case vvpb::UNIT_KIND_HALF_SQUAD:
      return vv::UnitKind::kHalfSquad;
    case vvpb::UNIT_KIND_LEADER:
      return vv::UnitKind::kLeader;
    case vvpb::UNIT_KIND_AFV:
      return vv::UnitKind::kAfv;
    case vvpb::UNIT_KIND_VEHICLE:
      return vv::UnitKind::kVehicle;
    case vvpb::UNIT_KIND_GUN:
      return vv::UnitKind::kGun;
    default:
      return Bad(field, "required: UNIT_KIND_SQUAD, _HALF_SQUAD, _LEADER, _AFV, _VEHICLE or _GUN");
  }
}

vvpb::UnitKind KindToProto(vv::UnitKind kind) {
  switch (kind) {
    case vv::UnitKind::kSquad:
      return vvpb::UNIT_KIND_SQUAD;
    case vv::UnitKind::kHalfSquad:
      return vvpb::UNIT_KIND_HALF_SQUAD;
    case vv::UnitKind::kLeader:
      return vvpb::UNIT_KIND_LEADER;
    case vv::UnitKind::kAfv:
      return vvpb::UNIT_KIND_AFV;
    case vv::UnitKind::kVehicle:
      return vvpb::UNIT_KIND_VEHICLE;
    case vv::UnitKind::kGun:
      return vvpb::UNIT_KIND_GUN;
  }
  return vvpb::UNIT_KIND_UNSPECIFIED;
}

Result<vv::CpActionKind> ActionFromProto(vvpb::CpActionKind kind, const Field& field) {
  switch (kind) {
    case vvpb::CP_ACTION_KIND_IGNORE:
      return vv::CpActionKind::kIgnore;
    case vvpb::CP_ACTION_KIND_PIN:
      return vv::CpActionKind::kPin;
    case vvpb::CP_ACTION_KIND_REDUCE:
      return vv::CpActionKind::kReduce;
    case vvpb::CP_ACTION_KIND_REDUCE_AND_PIN:
      return vv::CpActionKind::kReduceAndPin;
    case vvpb::CP_ACTION_KIND_ELIMINATE:
      return vv::CpActionKind::kEliminate;
    case vvpb::CP_ACTION_KIND_SURVIVAL_ROLL:
      return vv::CpActionKind::kSurvivalRoll;
    case vvpb::CP_ACTION_KIND_IMMOBILIZATION:
      return vv::CpActionKind::kImmobilization;
    default:
      return Bad(field, "required: CP_ACTION_KIND_IGNORE, _PIN, _REDUCE, _REDUCE_AND_PIN, "
                        "_ELIMINATE, _SURVIVAL_ROLL or _IMMOBILIZATION");
  }
}

vvpb::CpActionKind ActionToProto(vv::CpActionKind kind) {
  switch (kind) {
    case vv::CpActionKind::kIgnore:
      return vvpb::CP_ACTION_KIND_IGNORE;
    case vv::CpActionKind::kPin:
      return vvpb::CP_ACTION_KIND_PIN;
    case vv::CpActionKind::kReduce:
      return vvpb::CP_ACTION_KIND_REDUCE;
    case vv::CpActionKind::kReduceAndPin:
      return vvpb::CP_ACTION_KIND_REDUCE_AND_PIN;
    case vv::CpActionKind::kEliminate:
      return vvpb::CP_ACTION_KIND_ELIMINATE;
    case vv::CpActionKind::kSurvivalRoll:
      return vvpb::CP_ACTION_KIND_SURVIVAL_ROLL;
    case vv::CpActionKind::kImmobilization:
      return vvpb::CP_ACTION_KIND_IMMOBILIZATION;
  }
  return vvpb::CP_ACTION_KIND_UNSPECIFIED;
}

vvpb::EffectKind EffectToProto(vv::EffectKind kind) {
  switch (kind) {
    case vv::EffectKind::kEliminated:
      return vvpb::EFFECT_KIND_ELIMINATED;
    case vv::EffectKind::kPinned:
      return vvpb::EFFECT_KIND_PINNED;
    case vv::EffectKind::kReduced:
      return vvpb::EFFECT_KIND_REDUCED;
    case vv::EffectKind::kImmobilized:
      return vvpb::EFFECT_KIND_IMMOBILIZED;
    case vv::EffectKind::kValorous:
      return vvpb::EFFECT_KIND_VALOROUS;
    case vv::EffectKind::kIgnoredCp:
      return vvpb::EFFECT_KIND_IGNORED_CP;
    case vv::EffectKind::kOccupied:
      return vvpb::EFFECT_KIND_OCCUPIED;
    case vv::EffectKind::kExpended:
      return vvpb::EFFECT_KIND_EXPENDED;
  }
  return vvpb::EFFECT_KIND_UNSPECIFIED;
}

vvpb::EventKind EventKindToProto(vv::EventKind kind) {
  switch (kind) {
    case vv::EventKind::kSetUp:
      return vvpb::EVENT_KIND_SET_UP;
    case vv::EventKind::kDeclarationSealed:
      return vvpb::EVENT_KIND_DECLARATION_SEALED;
    case vv::EventKind::kDeclarationsRevealed:
      return vvpb::EVENT_KIND_DECLARATIONS_REVEALED;
    case vv::EventKind::kAssaultResolved:
      return vvpb::EVENT_KIND_ASSAULT_RESOLVED;
    case vv::EventKind::kAllocationSealed:
      return vvpb::EVENT_KIND_ALLOCATION_SEALED;
    case vv::EventKind::kAllocationsRevealed:
      return vvpb::EVENT_KIND_ALLOCATIONS_REVEALED;
    case vv::EventKind::kCasualtiesApplied:
      return vvpb::EVENT_KIND_CASUALTIES_APPLIED;
    case vv::EventKind::kAssaultEnded:
      return vvpb::EVENT_KIND_ASSAULT_ENDED;
  }
  return vvpb::EVENT_KIND_UNSPECIFIED;
}

vvpb::Phase PhaseToProto(vv::Phase phase) {
  switch (phase) {
    case vv::Phase::kSetUp:
      return vvpb::PHASE_SET_UP;
    case vv::Phase::kDeclare:
      return vvpb::PHASE_DECLARE;
    case vv::Phase::kAllocate:
      return vvpb::PHASE_ALLOCATE;
    case vv::Phase::kEnded:
      return vvpb::PHASE_ENDED;
  }
  return vvpb::PHASE_UNSPECIFIED;
}

Result<vv::TargetHex> TargetFromProto(const vvpb::TargetHex& message, const Field& field) {
  if (auto ok = CheckText(message.name(), field.Child("name"), kVvMaxNameBytes); !ok) {
    return tl::unexpected(ok.error());
  }
  vv::TargetHex hex;
  hex.name = message.name();
  const std::pair<const char*, int32_t> values[] = {
      {"terrain_cover", message.terrain_cover()},
      {"hexside_cover", message.hexside_cover()},
      {"fortification_cover", message.fortification_cover()},
      {"hindrance_cover", message.hindrance_cover()},
      {"capacity", message.capacity()}};
  for (const auto& [name, value] : values) {
    if (auto ok = CheckRange(value, 0, kMaxCover, field.Child(name)); !ok) {
      return tl::unexpected(ok.error());
    }
  }
  hex.terrain_cover = message.terrain_cover();
  hex.hexside_cover = message.hexside_cover();
  hex.fortification_cover = message.fortification_cover();
  hex.hindrance_cover = message.hindrance_cover();
  hex.capacity = message.capacity();
  return hex;
}

vvpb::TargetHex TargetToProto(const vv::TargetHex& hex) {
  vvpb::TargetHex out;
  out.set_name(hex.name);
  out.set_terrain_cover(hex.terrain_cover);
  out.set_hexside_cover(hex.hexside_cover);
  out.set_fortification_cover(hex.fortification_cover);
  out.set_hindrance_cover(hex.hindrance_cover);
  out.set_capacity(hex.capacity);
  return out;
}

Result<vv::Expendables> ExpendablesFromProto(const vvpb::Expendables& message, const Field& field) {
  const std::pair<const char*, int32_t> values[] = {{"grenades", message.grenades()},
                                                    {"satchel_charges", message.satchel_charges()},
                                                    {"satchel_apfp", message.satchel_apfp()}};
  for (const auto& [name, value] : values) {
    if (auto ok = CheckRange(value, 0, kMaxCount, field.Child(name)); !ok) {
      return tl::unexpected(ok.error());
    }
  }
  return vv::Expendables{.grenades = message.grenades(),
                         .satchel_charges = message.satchel_charges(),
                         .satchel_apfp = message.satchel_apfp()};
}

vvpb::Expendables ExpendablesToProto(const vv::Expendables& pool) {
  vvpb::Expendables out;
  out.set_grenades(pool.grenades);
  out.set_satchel_charges(pool.satchel_charges);
  out.set_satchel_apfp(pool.satchel_apfp);
  return out;
}

std::string IdOf(const std::vector<vv::Unit>& units, size_t index) {
  return index < units.size() ? units[index].id : "?";
}

void AddModifiers(const std::vector<vv::Modifier>& modifiers,
                  pb::RepeatedPtrField<vvpb::Modifier>* out) {
  for (const vv::Modifier& modifier : modifiers) {
    vvpb::Modifier* shown = out->Add();
    shown->set_rule(modifier.rule);
    shown->set_what(modifier.what);
    shown->set_value(modifier.value);
  }
}

void AddContributions(const std::vector<vv::Unit>& units,
                      const std::vector<vv::Contribution>& contributions,
                      pb::RepeatedPtrField<vvpb::Contribution>* out) {
  for (const vv::Contribution& c : contributions) {
    vvpb::Contribution* shown = out->Add();
    shown->set_unit(IdOf(units, c.unit));
    shown->set_apfp(c.apfp);
    shown->set_how(c.how);
  }
}

vvpb::AssaultReport ReportToProto(const std::vector<vv::Unit>& units,
                                  const vv::AssaultReport& report) {
  vvpb::AssaultReport out;
  for (uint16_t unit : report.pinned_eliminated) out.add_pinned_eliminated(IdOf(units, unit));
  out.set_automatic(report.automatic);
  out.set_called_off(report.called_off);
  AddContributions(units, report.assault, out.mutable_assault());
  AddContributions(units, report.defence, out.mutable_defence());
  out.set_assault_apfp(report.assault_apfp);
  out.set_defence_apfp(report.defence_apfp);
  if (!report.automatic && !report.called_off) out.set_odds(std::string(vv::Name(report.odds)));
  out.set_printed_kill_number(report.printed_kill_number);
  AddModifiers(report.kill_number_modifiers, out.mutable_kill_number_modifiers());
  out.set_kill_number(report.kill_number);
  out.set_dr_colored(report.dr.colored);
  out.set_dr_white(report.dr.white);
  AddModifiers(report.dr_modifiers, out.mutable_dr_modifiers());
  out.set_final_dr(report.final_dr);
  out.set_success(report.success);
  out.set_margin(report.margin);
  AddModifiers(report.assaulter_cp_parts, out.mutable_assaulter_cp_parts());
  out.set_assaulter_cp(report.assaulter_cp);
  AddModifiers(report.defender_cp_parts, out.mutable_defender_cp_parts());
  out.set_defender_cp(report.defender_cp);
  for (const vv::ValorCheck& check : report.valor_checks) {
    vvpb::ValorCheck* shown = out.add_valor_checks();
    shown->set_unit(IdOf(units, check.unit));
    shown->set_colored(check.dr.colored);
    shown->set_white(check.dr.white);
    shown->set_needed(check.needed);
    shown->set_valorous(check.valorous);
  }
  out.set_sniper_activated(report.sniper_activated);
  for (uint16_t unit : report.leaders) out.add_leaders(IdOf(units, unit));
  for (const std::string& note : report.notes) out.add_notes(note);
  return out;
}

}  // namespace

// ---- readers ----------------------------------------------------------------------------------

Result<vv::Unit> VvUnitFromProto(const vvpb::Unit& message, const Field& field) {
  vv::Unit unit;
  if (auto ok = CheckId(message.id(), field.Child("id")); !ok) return tl::unexpected(ok.error());
  unit.id = message.id();
  auto owner = SideFromProto(message.owner(), field.Child("owner"));
  if (!owner) return tl::unexpected(owner.error());
  unit.owner = *owner;
  auto kind = KindFromProto(message.kind(), field.Child("kind"));
  if (!kind) return tl::unexpected(kind.error());
  unit.kind = *kind;
  if (auto ok = CheckText(message.name(), field.Child("name"), kVvMaxIdBytes); !ok) {
    return tl::unexpected(ok.error());
  }
  unit.name = message.name();
  const std::tuple<const char*, int32_t, int> ranges[] = {
      {"apfp", message.apfp(), kMaxApfp},
      {"main_gun_apfp", message.main_gun_apfp(), kMaxApfp},
      {"casualty_rating", message.casualty_rating(), kMaxCasualtyRating},
      {"reduced_apfp", message.reduced_apfp(), kMaxApfp},
      {"reduced_casualty_rating", message.reduced_casualty_rating(), kMaxCasualtyRating},
      {"leadership", message.leadership(), 3}};
  for (const auto& [name, value, high] : ranges) {
    if (auto ok = CheckRange(value, 0, high, field.Child(name)); !ok)
      return tl::unexpected(ok.error());
  }
  unit.apfp = message.apfp();
  unit.main_gun_apfp = message.main_gun_apfp();
  unit.casualty_rating = message.casualty_rating();
  unit.reduced_apfp = message.reduced_apfp();
  unit.reduced_casualty_rating = message.reduced_casualty_rating();
  unit.leadership = message.leadership();
  unit.valorous = message.valorous();
  unit.pinned = message.pinned();
  unit.advanced = message.advanced();
  unit.immobile = message.immobile();
  unit.gun_shield_faces_assault = message.gun_shield_faces_assault();
  if (auto ok = CheckOptionalId(message.carrier(), field.Child("carrier")); !ok) {
    return tl::unexpected(ok.error());
  }
  unit.carrier = message.carrier();
  if (static_cast<size_t>(message.weapons_size()) > kVvMaxWeapons) {
    return Bad(field.Child("weapons"), "at most " + std::to_string(kVvMaxWeapons));
  }
  for (int i = 0; i < message.weapons_size(); ++i) {
    const vvpb::SupportWeapon& weapon = message.weapons(i);
    const Field weapon_field = field.Child("weapons", i);
    if (auto ok = CheckId(weapon.id(), weapon_field.Child("id")); !ok)
      return tl::unexpected(ok.error());
    if (auto ok = CheckText(weapon.name(), weapon_field.Child("name"), kVvMaxIdBytes); !ok) {
      return tl::unexpected(ok.error());
    }
    if (auto ok = CheckRange(weapon.apfp(), 0, kMaxApfp, weapon_field.Child("apfp")); !ok) {
      return tl::unexpected(ok.error());
    }
    unit.weapons.push_back(vv::SupportWeapon{.id = weapon.id(), .name = weapon.name(),
                                             .apfp = weapon.apfp(), .heavy = weapon.heavy(),
                                             .machine_gun = weapon.machine_gun()});
  }
  return unit;
}

Result<vv::Situation> VvSituationFromProto(const vvpb::Situation& message, const Field& field) {
  vv::Situation situation;
  auto attacker = SideFromProto(message.attacker(), field.Child("attacker"));
  if (!attacker) return tl::unexpected(attacker.error());
  situation.attacker = *attacker;
  if (auto ok = CheckText(message.source_hex(), field.Child("source_hex"), kVvMaxNameBytes); !ok) {
    return tl::unexpected(ok.error());
  }
  situation.source_hex = message.source_hex();
  if (!message.has_target() || message.target().name().empty()) {
    return Bad(field.Child("target.name"), "required: the hex assaulted");
  }
  auto target = TargetFromProto(message.target(), field.Child("target"));
  if (!target) return tl::unexpected(target.error());
  situation.target = std::move(*target);
  if (auto ok = CheckRange(message.uphill_levels(), 0, 4, field.Child("uphill_levels")); !ok) {
    return tl::unexpected(ok.error());
  }
  situation.uphill_levels = message.uphill_levels();
  situation.source_assaulted_this_turn = message.source_assaulted_this_turn();
  if (static_cast<size_t>(message.units_size()) > kVvMaxUnits) {
    return Bad(field.Child("units"), "at most " + std::to_string(kVvMaxUnits) + " units");
  }
  for (int i = 0; i < message.units_size(); ++i) {
    auto unit = VvUnitFromProto(message.units(i), field.Child("units", i));
    if (!unit) return tl::unexpected(unit.error());
    situation.units.push_back(std::move(*unit));
  }
  auto side_a =
      ExpendablesFromProto(message.side_a_expendables(), field.Child("side_a_expendables"));
  if (!side_a) return tl::unexpected(side_a.error());
  auto side_b =
      ExpendablesFromProto(message.side_b_expendables(), field.Child("side_b_expendables"));
  if (!side_b) return tl::unexpected(side_b.error());
  situation.expendables = {*side_a, *side_b};
  return situation;
}

Result<void> VvSideSetupFromProto(const vvpb::SideSetup& message, const Field& field) {
  if (message.attacker() != melee::v1::SEAT_UNSPECIFIED) {
    if (auto side = SideFromProto(message.attacker(), field.Child("attacker")); !side) {
      return tl::unexpected(side.error());
    }
  }
  if (auto ok = CheckText(message.source_hex(), field.Child("source_hex"), kVvMaxNameBytes); !ok) {
    return ok;
  }
  if (message.has_target()) {
    if (auto target = TargetFromProto(message.target(), field.Child("target")); !target) {
      return tl::unexpected(target.error());
    }
  }
  if (auto ok = CheckRange(message.uphill_levels(), 0, 4, field.Child("uphill_levels")); !ok)
    return ok;
  if (static_cast<size_t>(message.units_size()) > kVvMaxUnits) {
    return Bad(field.Child("units"), "at most " + std::to_string(kVvMaxUnits) + " units");
  }
  for (int i = 0; i < message.units_size(); ++i) {
    if (auto unit = VvUnitFromProto(message.units(i), field.Child("units", i)); !unit) {
      return tl::unexpected(unit.error());
    }
  }
  if (auto pool = ExpendablesFromProto(message.expendables(), field.Child("expendables")); !pool) {
    return tl::unexpected(pool.error());
  }
  return {};
}

Result<vv::Declare> VvDeclareFromProto(const vvpb::Declare& message, const Field& field) {
  vv::Declare declare;
  if (auto ok = CheckList(message.group_size(), field.Child("group")); !ok)
    return tl::unexpected(ok.error());
  for (int i = 0; i < message.group_size(); ++i) {
    if (auto ok = CheckId(message.group(i), field.Child("group", i)); !ok) {
      return tl::unexpected(ok.error());
    }
    declare.group.push_back(message.group(i));
  }
  if (auto ok = CheckOptionalId(message.leader(), field.Child("leader")); !ok) {
    return tl::unexpected(ok.error());
  }
  declare.leader = message.leader();
  if (auto ok = CheckList(message.uses_size(), field.Child("uses")); !ok)
    return tl::unexpected(ok.error());
  for (int i = 0; i < message.uses_size(); ++i) {
    const vvpb::UnitUse& use = message.uses(i);
    const Field use_field = field.Child("uses", i);
    if (auto ok = CheckId(use.unit(), use_field.Child("unit")); !ok)
      return tl::unexpected(ok.error());
    if (auto ok = CheckOptionalId(use.weapon(), use_field.Child("weapon")); !ok) {
      return tl::unexpected(ok.error());
    }
    declare.uses.push_back(vv::UnitUse{.unit = use.unit(), .weapon = use.weapon(),
                                       .grenades = use.grenades(), .satchel = use.satchel()});
  }
  return declare;
}

Result<vv::Allocation> VvAllocationFromProto(const vvpb::Allocation& message, const Field& field) {
  vv::Allocation allocation;
  if (auto ok = CheckList(message.actions_size(), field.Child("actions")); !ok) {
    return tl::unexpected(ok.error());
  }
  for (int i = 0; i < message.actions_size(); ++i) {
    const vvpb::CpAction& action = message.actions(i);
    const Field action_field = field.Child("actions", i);
    if (auto ok = CheckId(action.unit(), action_field.Child("unit")); !ok) {
      return tl::unexpected(ok.error());
    }
    auto kind = ActionFromProto(action.kind(), action_field.Child("kind"));
    if (!kind) return tl::unexpected(kind.error());
    if (auto ok = CheckRange(action.points(), 0, kMaxCount, action_field.Child("points")); !ok) {
      return tl::unexpected(ok.error());
    }
    allocation.actions.push_back(
        vv::CpAction{.unit = action.unit(), .kind = *kind, .points = action.points()});
  }
  if (auto ok = CheckList(message.occupy_size(), field.Child("occupy")); !ok) {
    return tl::unexpected(ok.error());
  }
  for (int i = 0; i < message.occupy_size(); ++i) {
    if (auto ok = CheckId(message.occupy(i), field.Child("occupy", i)); !ok) {
      return tl::unexpected(ok.error());
    }
    allocation.occupy.push_back(message.occupy(i));
  }
  return allocation;
}

vvpb::Command VvCommandToProto(const vv::Command& command) {
  vvpb::Command out;
  std::visit(
      [&](const auto& typed) {
        using T = std::decay_t<decltype(typed)>;
        if constexpr (std::is_same_v<T, vv::SetUp>) {
          *out.mutable_set_up() = VvSituationToProto(typed.situation);
        } else if constexpr (std::is_same_v<T, vv::Declare>) {
          *out.mutable_declare() = VvDeclareToProto(typed);
        } else {
          *out.mutable_allocate() = VvAllocationToProto(typed.allocation);
        }
      },
      command);
  return out;
}

Result<vv::Command> VvCommandFromProto(const vvpb::Command& message) {
  switch (message.command_case()) {
    case vvpb::Command::kSetUp: {
      auto situation = VvSituationFromProto(message.set_up(), "command.set_up");
      if (!situation) return tl::unexpected(situation.error());
      return vv::Command(vv::SetUp{std::move(*situation)});
    }
    case vvpb::Command::kDeclare: {
      auto declare = VvDeclareFromProto(message.declare(), "command.declare");
      if (!declare) return tl::unexpected(declare.error());
      return vv::Command(std::move(*declare));
    }
    case vvpb::Command::kAllocate: {
      auto allocation = VvAllocationFromProto(message.allocate(), "command.allocate");
      if (!allocation) return tl::unexpected(allocation.error());
      return vv::Command(vv::Allocate{std::move(*allocation)});
    }
    case vvpb::Command::COMMAND_NOT_SET:
      break;
  }
  return Bad("command", "required: set_up, declare or allocate");
}

Result<vvpb::CloseAssault> CloseAssaultFromJson(std::string_view json) {
  if (json.size() > kVvMaxJsonBytes) {
    return Reject("", "the close assault is " + std::to_string(json.size()) + " bytes; at most " +
                          std::to_string(kVvMaxJsonBytes) + " are read");
  }
  vvpb::CloseAssault message;
  pb::util::JsonParseOptions strict;  // Unknown fields and enum names are errors.
  const auto status = pb::util::JsonStringToMessage(json, &message, strict);
  if (!status.ok()) {
    return Reject("", "not a melee.vv.v1.CloseAssault in the protobuf JSON mapping: " +
                          std::string(status.message()));
  }
  return message;
}

Result<vv::Script> VvScriptFromProto(const vvpb::CloseAssault& message) {
  vv::Script script;
  if (auto ok = CheckText(message.variant(), "variant", kVvMaxIdBytes); !ok) {
    return tl::unexpected(ok.error());
  }
  script.options.variant = message.variant();
  if (static_cast<size_t>(message.options_size()) > kVvMaxOptions) {
    return Bad("options", "at most " + std::to_string(kVvMaxOptions) + " entries");
  }
  for (const auto& [key, value] : message.options()) {
    if (auto ok = CheckText(key, "options", kVvMaxIdBytes); !ok) return tl::unexpected(ok.error());
    if (auto ok = CheckText(value, "options." + key, kVvMaxIdBytes); !ok) {
      return tl::unexpected(ok.error());
    }
    script.options.values[key] = value;
  }
  auto situation = VvSituationFromProto(message.situation(), "situation");
  if (!situation) return tl::unexpected(situation.error());
  script.situation = std::move(*situation);
  if (auto ok = vv::ValidateSituation(script.situation); !ok) return tl::unexpected(ok.error());
  auto side_a = VvDeclareFromProto(message.side_a_declaration(), "side_a_declaration");
  if (!side_a) return tl::unexpected(side_a.error());
  auto side_b = VvDeclareFromProto(message.side_b_declaration(), "side_b_declaration");
  if (!side_b) return tl::unexpected(side_b.error());
  script.declarations = {std::move(*side_a), std::move(*side_b)};
  if (message.has_side_a_allocation()) {
    auto allocation = VvAllocationFromProto(message.side_a_allocation(), "side_a_allocation");
    if (!allocation) return tl::unexpected(allocation.error());
    script.allocations[0] = std::move(*allocation);
  }
  if (message.has_side_b_allocation()) {
    auto allocation = VvAllocationFromProto(message.side_b_allocation(), "side_b_allocation");
    if (!allocation) return tl::unexpected(allocation.error());
    script.allocations[1] = std::move(*allocation);
  }
  return script;
}

// ---- writers ----------------------------------------------------------------------------------

vvpb::Unit VvUnitToProto(const vv::Unit& unit) {
  vvpb::Unit out;
  out.set_id(unit.id);
  out.set_owner(SideToProto(unit.owner));
  out.set_kind(KindToProto(unit.kind));
  out.set_name(unit.name);
  out.set_apfp(unit.apfp);
  out.set_main_gun_apfp(unit.main_gun_apfp);
  out.set_casualty_rating(unit.casualty_rating);
  out.set_reduced_apfp(unit.reduced_apfp);
  out.set_reduced_casualty_rating(unit.reduced_casualty_rating);
  out.set_leadership(unit.leadership);
  out.set_valorous(unit.valorous);
  out.set_pinned(unit.pinned);
  out.set_advanced(unit.advanced);
  out.set_immobile(unit.immobile);
  out.set_gun_shield_faces_assault(unit.gun_shield_faces_assault);
  out.set_carrier(unit.carrier);
  for (const vv::SupportWeapon& weapon : unit.weapons) {
    vvpb::SupportWeapon* shown = out.add_weapons();
    shown->set_id(weapon.id);
    shown->set_name(weapon.name);
    shown->set_apfp(weapon.apfp);
    shown->set_heavy(weapon.heavy);
    shown->set_machine_gun(weapon.machine_gun);
  }
  return out;
}

vvpb::Situation VvSituationToProto(const vv::Situation& situation) {
  vvpb::Situation out;
  out.set_attacker(SideToProto(situation.attacker));
  out.set_source_hex(situation.source_hex);
  *out.mutable_target() = TargetToProto(situation.target);
  out.set_uphill_levels(situation.uphill_levels);
  out.set_source_assaulted_this_turn(situation.source_assaulted_this_turn);
  for (const vv::Unit& unit : situation.units) *out.add_units() = VvUnitToProto(unit);
  *out.mutable_side_a_expendables() = ExpendablesToProto(situation.expendables[0]);
  *out.mutable_side_b_expendables() = ExpendablesToProto(situation.expendables[1]);
  return out;
}

vvpb::Declare VvDeclareToProto(const vv::Declare& declare) {
  vvpb::Declare out;
  for (const std::string& id : declare.group) out.add_group(id);
  out.set_leader(declare.leader);
  for (const vv::UnitUse& use : declare.uses) {
    vvpb::UnitUse* shown = out.add_uses();
    shown->set_unit(use.unit);
    shown->set_weapon(use.weapon);
    shown->set_grenades(use.grenades);
    shown->set_satchel(use.satchel);
  }
  return out;
}

vvpb::Allocation VvAllocationToProto(const vv::Allocation& allocation) {
  vvpb::Allocation out;
  for (const vv::CpAction& action : allocation.actions) {
    vvpb::CpAction* shown = out.add_actions();
    shown->set_unit(action.unit);
    shown->set_kind(ActionToProto(action.kind));
    shown->set_points(action.points);
  }
  for (const std::string& id : allocation.occupy) out.add_occupy(id);
  return out;
}

vvpb::VvEvent VvEventToProto(const vv::State& before, const vv::Event& event) {
  vvpb::VvEvent out;
  out.set_kind(EventKindToProto(event.kind));
  out.set_seat(SideToProto(event.seat));
  // A set-up event names its own units; every other event names those of the state it changes.
  const std::vector<vv::Unit>& units =
      event.situation ? event.situation->units : before.units;
  if (event.situation) *out.mutable_situation() = VvSituationToProto(*event.situation);
  if (event.declare) *out.mutable_declare() = VvDeclareToProto(*event.declare);
  if (event.allocation) *out.mutable_allocation() = VvAllocationToProto(*event.allocation);
  if (event.report) *out.mutable_report() = ReportToProto(units, *event.report);
  out.set_cp(event.cp);
  for (const engine::DieRoll& roll : event.rolls) *out.add_dice() = DieToProto(roll);
  for (const vv::Effect& effect : event.effects) {
    vvpb::Effect* shown = out.add_effects();
    shown->set_kind(EffectToProto(effect.kind));
    if (effect.kind != vv::EffectKind::kExpended) shown->set_unit(IdOf(units, effect.unit));
    shown->set_value(effect.value);
    shown->set_seat(SideToProto(effect.seat));
    shown->set_text(effect.text);
  }
  for (const std::string& note : event.notes) out.add_notes(note);
  out.set_text(vv::DescribeEvent(before, event));
  return out;
}

vvpb::VvView VvViewToProto(const vv::View& view) {
  vvpb::VvView out;
  out.set_phase(PhaseToProto(view.phase));
  if (view.phase == vv::Phase::kSetUp) return out;
  const vv::Situation& situation = view.situation;
  out.set_attacker(SideToProto(situation.attacker));
  out.set_source_hex(situation.source_hex);
  *out.mutable_target() = TargetToProto(situation.target);
  out.set_uphill_levels(situation.uphill_levels);
  for (size_t i = 0; i < view.units.size(); ++i) {
    vvpb::ViewedUnit* shown = out.add_units();
    *shown->mutable_unit() = VvUnitToProto(view.units[i]);
    shown->set_eliminated(view.eliminated[i]);
    shown->set_in_target(view.in_target[i]);
  }
  *out.mutable_side_a_expendables() = ExpendablesToProto(view.expendables[0]);
  *out.mutable_side_b_expendables() = ExpendablesToProto(view.expendables[1]);
  out.set_side_a_owes(view.owes[0]);
  out.set_side_b_owes(view.owes[1]);
  out.set_side_a_sealed(view.has_sealed[0]);
  out.set_side_b_sealed(view.has_sealed[1]);
  if (view.declarations[0]) *out.mutable_side_a_declaration() = VvDeclareToProto(*view.declarations[0]);
  if (view.declarations[1]) *out.mutable_side_b_declaration() = VvDeclareToProto(*view.declarations[1]);
  if (view.report) *out.mutable_report() = ReportToProto(view.units, *view.report);
  out.set_side_a_cp(view.cp[0]);
  out.set_side_b_cp(view.cp[1]);
  if (view.allocations[0]) *out.mutable_side_a_allocation() = VvAllocationToProto(*view.allocations[0]);
  if (view.allocations[1]) *out.mutable_side_b_allocation() = VvAllocationToProto(*view.allocations[1]);
  out.set_variant(std::string(vv::Name(view.edition)));
  return out;
}

vvpb::Probability VvProbabilityToProto(const engine::Rational& value) {
  return checks::ProbabilityOf<vvpb::Probability>(value);
}

vvpb::PreviewTable VvPreviewToProto(const vv::Preview& preview) {
  vvpb::PreviewTable out;
  out.set_assault_apfp(preview.assault_apfp);
  out.set_defence_apfp(preview.defence_apfp);
  if (!preview.automatic) out.set_odds(std::string(vv::Name(preview.odds)));
  out.set_kill_number(preview.kill_number);
  out.set_dr_modifier(preview.dr_modifier);
  out.set_automatic(preview.automatic);
  *out.mutable_success() = VvProbabilityToProto(preview.success);
  for (const engine::Rational& p : preview.assaulter_cp) {
    *out.add_assaulter_cp() = VvProbabilityToProto(p);
  }
  for (const engine::Rational& p : preview.defender_cp) {
    *out.add_defender_cp() = VvProbabilityToProto(p);
  }
  *out.mutable_valor_check() = VvProbabilityToProto(preview.valor_check);
  *out.mutable_sniper() = VvProbabilityToProto(preview.sniper);
  return out;
}

}  // namespace melee::proto
