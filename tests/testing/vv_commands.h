#pragma once

// The vv match commands tests send, built in one line each: V&V counters as printed
// (APFP - Range - Casualty Rating), set-up parts, sealed declarations and allocations.

#include <string>
#include <utility>
#include <vector>

#include "melee/v1/envelope.pb.h"
#include "melee/vv/v1/vv.pb.h"

namespace melee::testing::vv {

namespace vvpb = melee::vv::v1;

inline vvpb::Unit VvSquad(const std::string& id, melee::v1::Seat owner, int apfp, int cr,
                          int reduced_apfp, int reduced_cr) {
  vvpb::Unit unit;
  unit.set_id(id);
  unit.set_owner(owner);
  unit.set_kind(vvpb::UNIT_KIND_SQUAD);
  unit.set_apfp(apfp);
  unit.set_casualty_rating(cr);
  unit.set_reduced_apfp(reduced_apfp);
  unit.set_reduced_casualty_rating(reduced_cr);
  return unit;
}

inline vvpb::Unit VvHalfSquad(const std::string& id, melee::v1::Seat owner, int apfp, int cr) {
  vvpb::Unit unit;
  unit.set_id(id);
  unit.set_owner(owner);
  unit.set_kind(vvpb::UNIT_KIND_HALF_SQUAD);
  unit.set_apfp(apfp);
  unit.set_casualty_rating(cr);
  return unit;
}

inline vvpb::Unit VvLeader(const std::string& id, melee::v1::Seat owner, int lm) {
  vvpb::Unit unit;
  unit.set_id(id);
  unit.set_owner(owner);
  unit.set_kind(vvpb::UNIT_KIND_LEADER);
  unit.set_apfp(1);
  unit.set_casualty_rating(1);
  unit.set_leadership(lm);
  return unit;
}

// The 15 Close Assault Example: side A's Germans (the assaulters, with one Grenades counter)
// and the target building C1 (+3).
inline melee::v1::ClientMessage GermanPart() {
  melee::v1::ClientMessage message;
  vvpb::SideSetup& part = *message.mutable_submit_setup()->mutable_vv();
  part.set_attacker(melee::v1::SEAT_SIDE_A);
  part.set_source_hex("B1");
  part.mutable_target()->set_name("C1");
  part.mutable_target()->set_terrain_cover(3);
  part.mutable_expendables()->set_grenades(1);
  for (const char* id : {"G1", "G2", "G3"}) {
    *part.add_units() = VvSquad(id, melee::v1::SEAT_SIDE_A, 4, 5, 2, 2);
  }
  *part.add_units() = VvLeader("Schmidt", melee::v1::SEAT_SIDE_A, 1);
  return message;
}

// Side B's Americans in C1: a 2-6-2 half squad with an M1919A6 LMG 3-6 (L), a 5-6-4 squad and
// Coleman 1-3-1 (-1).
inline melee::v1::ClientMessage AmericanPart() {
  melee::v1::ClientMessage message;
  vvpb::SideSetup& part = *message.mutable_submit_setup()->mutable_vv();
  vvpb::Unit half = VvHalfSquad("US-HS", melee::v1::SEAT_SIDE_B, 2, 2);
  vvpb::SupportWeapon* lmg = half.add_weapons();
  lmg->set_id("LMG");
  lmg->set_name("M1919A6");
  lmg->set_apfp(3);
  lmg->set_machine_gun(true);
  *part.add_units() = half;
  *part.add_units() = VvSquad("US-SQ", melee::v1::SEAT_SIDE_B, 5, 4, 2, 2);
  *part.add_units() = VvLeader("Coleman", melee::v1::SEAT_SIDE_B, 1);
  return message;
}

// A sealed close-assault declaration.
inline melee::v1::ClientMessage SealDeclare(std::vector<std::string> group, std::string leader,
                                            std::vector<vvpb::UnitUse> uses = {}) {
  melee::v1::ClientMessage message;
  melee::v1::SealDeclaration& seal = *message.mutable_seal_declaration();
  seal.set_client_entropy(std::string(32, 'v'));
  vvpb::Declare& declare = *seal.mutable_declaration()->mutable_vv()->mutable_declare();
  for (std::string& id : group) declare.add_group(std::move(id));
  declare.set_leader(std::move(leader));
  for (vvpb::UnitUse& use : uses) *declare.add_uses() = std::move(use);
  return message;
}

inline vvpb::UnitUse VvUse(const std::string& unit, const std::string& weapon, bool grenades) {
  vvpb::UnitUse use;
  use.set_unit(unit);
  use.set_weapon(weapon);
  use.set_grenades(grenades);
  return use;
}

// A sealed Casualty Point allocation: (unit, kind) pairs.
inline melee::v1::ClientMessage SealAllocation(
    std::vector<std::pair<std::string, vvpb::CpActionKind>> actions) {
  melee::v1::ClientMessage message;
  melee::v1::SealDeclaration& seal = *message.mutable_seal_declaration();
  seal.set_client_entropy(std::string(32, 'w'));
  vvpb::Allocation& allocation = *seal.mutable_declaration()->mutable_vv()->mutable_allocate();
  for (auto& [unit, kind] : actions) {
    vvpb::CpAction* action = allocation.add_actions();
    action->set_unit(unit);
    action->set_kind(kind);
  }
  return message;
}

}  // namespace melee::testing::vv
