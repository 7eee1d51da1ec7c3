#pragma once

// The coc match commands tests send, built in one line each: rule 17's "In action" set-up parts,
// sealed declarations and odd-hit placements.

#include <string>
#include <utility>
#include <vector>

#include "melee/coc/v1/coc.pb.h"
#include "melee/v1/envelope.pb.h"

namespace melee::testing::coc {

namespace cocpb = melee::coc::v1;

inline cocpb::Team CocTeam(const std::string& id, int figures, int smgs = 0, int lmgs = 0) {
  cocpb::Team team;
  team.set_id(id);
  team.set_figures(figures);
  team.set_smgs(smgs);
  team.set_lmgs(lmgs);
  return team;
}

// Side A's Soviet SMG Section, the active player: seven men with SMGs (in one Team, or split
// 4 + 3 when `two_teams`) and an unwounded Junior Leader with an SMG, who moved through the German
// LMG's arc with one D6 of movement to attack the farmhouse from outside.
inline melee::v1::ClientMessage SovietPart(bool two_teams = false) {
  melee::v1::ClientMessage message;
  cocpb::SideSetup& part = *message.mutable_submit_setup()->mutable_coc();
  part.set_attacker(melee::v1::SEAT_SIDE_A);
  part.set_position(cocpb::POSITION_BUILDING_FROM_OUTSIDE);
  part.set_force_morale(9);
  cocpb::Unit& unit = *part.add_units();
  unit.set_id("soviet_smg");
  unit.set_side(melee::v1::SEAT_SIDE_A);
  unit.set_role(cocpb::ROLE_ATTACKER);
  unit.set_movement_dice(1);
  unit.add_through_arcs("german_lmg");
  if (two_teams) {
    *unit.add_teams() = CocTeam("soviet_a", 4, 4);
    *unit.add_teams() = CocTeam("soviet_b", 3, 3);
  } else {
    *unit.add_teams() = CocTeam("soviet_team", 7, 7);
  }
  cocpb::Leader& leader = *unit.add_leaders();
  leader.set_id("soviet_jl");
  leader.set_smg(true);
  return message;
}

// Side B's German Squad in the farmhouse: an LMG Team of 3, a Rifle Team of 5 and a wounded
// Junior Leader with the LMG Team.
inline melee::v1::ClientMessage GermanPart() {
  melee::v1::ClientMessage message;
  cocpb::SideSetup& part = *message.mutable_submit_setup()->mutable_coc();
  part.set_force_morale(9);
  cocpb::Unit& unit = *part.add_units();
  unit.set_id("german_squad");
  unit.set_side(melee::v1::SEAT_SIDE_B);
  unit.set_role(cocpb::ROLE_DEFENDER);
  *unit.add_teams() = CocTeam("german_lmg", 3, 0, 1);
  *unit.add_teams() = CocTeam("german_rifles", 5);
  cocpb::Leader& leader = *unit.add_leaders();
  leader.set_id("german_jl");
  leader.set_status(cocpb::LEADER_STATUS_WOUNDED);
  leader.set_team("german_lmg");
  return message;
}

// A sealed Close Combat declaration.
inline melee::v1::ClientMessage SealCocDeclare(bool advance = false, bool decline = false,
                                               std::vector<std::string> support = {}) {
  melee::v1::ClientMessage message;
  melee::v1::SealDeclaration& seal = *message.mutable_seal_declaration();
  seal.set_client_entropy(std::string(32, 'c'));
  cocpb::Declare& declare = *seal.mutable_declaration()->mutable_coc()->mutable_declare();
  declare.set_advance(advance);
  declare.set_decline(decline);
  for (std::string& id : support) declare.add_support(std::move(id));
  return message;
}

// A sealed placement of odd Kills and Shock.
inline melee::v1::ClientMessage SealPlace(std::vector<std::string> kills,
                                          std::vector<std::string> shock) {
  melee::v1::ClientMessage message;
  melee::v1::SealDeclaration& seal = *message.mutable_seal_declaration();
  seal.set_client_entropy(std::string(32, 'p'));
  cocpb::Place& place = *seal.mutable_declaration()->mutable_coc()->mutable_place();
  for (std::string& id : kills) place.add_odd_kills(std::move(id));
  for (std::string& id : shock) place.add_odd_shock(std::move(id));
  return message;
}

}  // namespace melee::testing::coc
