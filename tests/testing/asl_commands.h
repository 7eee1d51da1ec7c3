#pragma once

// The asl match commands tests send, built in one line each.

#include <string>
#include <utility>
#include <vector>

#include "melee/asl/v1/asl.pb.h"
#include "melee/v1/envelope.pb.h"
#include "tests/testing/match_frames.h"  // Confirm

namespace melee::testing {

// A squad of `owner` with morale 7.
inline melee::asl::v1::Unit Squad(const std::string& id, melee::v1::Seat owner, int firepower,
                                  const std::string& name = "") {
  melee::asl::v1::Unit unit;
  unit.set_id(id);
  unit.set_owner(owner);
  unit.set_kind(melee::asl::v1::UNIT_KIND_SQUAD);
  unit.set_firepower(firepower);
  unit.set_morale(7);
  unit.set_name(name);
  return unit;
}

// A seat's part of the set-up; `with_location`: in G3, with side A the ATTACKER.
inline melee::v1::ClientMessage EnterUnits(std::vector<melee::asl::v1::Unit> units,
                                           bool with_location) {
  melee::v1::ClientMessage message;
  melee::asl::v1::SideSetup& part = *message.mutable_submit_setup()->mutable_asl();
  if (with_location) {
    part.mutable_location()->set_name("G3");
    part.set_attacker(melee::v1::SEAT_SIDE_A);
  }
  for (melee::asl::v1::Unit& unit : units) *part.add_units() = std::move(unit);
  return message;
}

inline melee::v1::ClientMessage AnnounceNothing() {
  melee::v1::ClientMessage message;
  message.mutable_announce()->mutable_asl();
  return message;
}

// A sealed declaration: each pair is (attackers, targets). Without `entropy` the client fills
// the client entropy in.
inline melee::v1::ClientMessage Seal(
    std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> attacks,
    bool entropy = true) {
  melee::v1::ClientMessage message;
  melee::v1::SealDeclaration& seal = *message.mutable_seal_declaration();
  if (entropy) seal.set_client_entropy(std::string(32, 'e'));
  for (auto& [attackers, targets] : attacks) {
    melee::asl::v1::AttackOrder* order = seal.mutable_declaration()->mutable_asl()->add_attacks();
    for (auto& id : attackers) order->add_attackers(id);
    for (auto& id : targets) order->add_targets(id);
  }
  return message;
}

// A sealed declaration of one attack, `attacker` on `target`, whose entropy the client fills in.
inline melee::v1::ClientMessage Declare(const std::string& attacker, const std::string& target) {
  return Seal({{{attacker}, {target}}}, /*entropy=*/false);
}

}  // namespace melee::testing
