// Field: the path an error names, written only when an error needs it, and the same paths as
// before it from each ruleset's codec, for each kind of step (a member, an indexed member, an
// index, a member named from a list).

#include "proto/codec/field.h"

#include <gtest/gtest.h>

#include <string>

#include "proto/codec/asl.h"
#include "proto/codec/coc.h"
#include "proto/codec/vv.h"

namespace melee::proto {
namespace {

namespace aslpb = melee::asl::v1;
namespace cocpb = melee::coc::v1;
namespace vvpb = melee::vv::v1;

TEST(FieldTest, APathIsItsRootAndEachStep) {
  const Field root("declaration.asl");
  EXPECT_EQ(root.Text(), "declaration.asl");
  const Field attack = root.Child("attacks", 2);
  EXPECT_EQ(attack.Text(), "declaration.asl.attacks[2]");
  const Field targets = attack.Child("targets");
  EXPECT_EQ(targets.Text(), "declaration.asl.attacks[2].targets");
  EXPECT_EQ(targets.Item(0).Text(), "declaration.asl.attacks[2].targets[0]");
  EXPECT_EQ(attack.Child("target.name").Text(), "declaration.asl.attacks[2].target.name");
  const Field choices("choices");
  EXPECT_EQ(choices.Item(11).Text(), "choices[11]");
}

TEST(FieldTest, ARootGivenAsAStringIsCopied) {
  std::string name = "update_units.updates[3]";
  const Field root(name);
  name = "overwritten, and longer than any short-string buffer holds";
  EXPECT_EQ(root.Child("asl").Text(), "update_units.updates[3].asl");
}

std::string ErrorOf(const auto& result) {
  return result.has_value() ? "(accepted)" : result.error().message;
}

aslpb::Unit GoodAslUnit() {
  aslpb::Unit unit;
  unit.set_id("R1");
  unit.set_owner(melee::v1::SEAT_SIDE_A);
  unit.set_kind(aslpb::UNIT_KIND_SQUAD);
  unit.set_nationality(aslpb::NATIONALITY_RUSSIAN);
  unit.set_firepower(4);
  unit.set_morale(7);
  return unit;
}

TEST(FieldTest, AnAslUnitsBadValueIsNamedByItsPath) {
  ASSERT_TRUE(UnitFromProto(GoodAslUnit(), "units[0]").has_value());

  aslpb::Unit bad_morale = GoodAslUnit();
  bad_morale.set_morale(13);
  EXPECT_EQ(ErrorOf(UnitFromProto(bad_morale, "set-up.units[4]")),
            "set-up.units[4].morale: 13 is out of range 1..12");

  aslpb::Unit bad_weapon = GoodAslUnit();
  bad_weapon.add_support_weapons("lmg");
  bad_weapon.add_support_weapons("");
  EXPECT_EQ(ErrorOf(UnitFromProto(bad_weapon, "units[0]")),
            "units[0].support_weapons[1]: must not be empty");

  aslpb::Unit bad_mg = GoodAslUnit();
  bad_mg.set_kind(aslpb::UNIT_KIND_VEHICLE);
  bad_mg.mutable_vehicle()->set_rmg(100);
  EXPECT_EQ(ErrorOf(UnitFromProto(bad_mg, "units[0]")),
            "units[0].vehicle.rmg: 100 is out of range 0..99");
}

TEST(FieldTest, AnAslSituationNamesTheUnitByItsIndex) {
  aslpb::Situation situation;
  situation.mutable_location()->set_name("B1");
  situation.set_attacker(melee::v1::SEAT_SIDE_A);
  *situation.add_units() = GoodAslUnit();
  aslpb::Unit& second = *situation.add_units() = GoodAslUnit();
  second.set_id("G 1");
  EXPECT_EQ(ErrorOf(SituationFromProto(situation, "set-up")).rfind("set-up.units[1].id: ", 0), 0u)
      << ErrorOf(SituationFromProto(situation, "set-up"));
}

TEST(FieldTest, AnAslDeclarationNamesTheAttackAndTheList) {
  aslpb::Seal seal;
  seal.add_attacks()->add_attackers("R1");
  aslpb::AttackOrder& second = *seal.add_attacks();
  second.add_attackers("R2");
  second.add_targets("G1");
  second.add_targets("bad id");
  const std::string error = ErrorOf(SealFromProto(seal, "declaration.asl"));
  EXPECT_EQ(error.rfind("declaration.asl.attacks[1].targets[1]: ", 0), 0u) << error;

  aslpb::Announce announce;
  announce.add_solo("");
  const std::string solo = ErrorOf(AnnounceFromProto(announce, "announce.asl"));
  EXPECT_EQ(solo.rfind("announce.asl.solo[0]: ", 0), 0u) << solo;
}

TEST(FieldTest, ACocSetUpNamesTheUnitInContactAndItsList) {
  cocpb::SideSetup setup;
  setup.set_location("the farm");
  cocpb::InContact& in = *setup.add_in_contact();
  in.set_unit("soviet_section");
  in.set_role(cocpb::ROLE_ATTACKER);
  in.add_through_suppressing_fire("bad id");
  const std::string error = ErrorOf(CocSideSetupFromProto(setup, "submit_setup.coc"));
  EXPECT_EQ(error.rfind("submit_setup.coc.in_contact[0].through_suppressing_fire[0]: ", 0), 0u)
      << error;

  cocpb::Unit unit;
  unit.set_id("soviet_section");
  unit.set_side(melee::v1::SEAT_SIDE_A);
  unit.set_role(cocpb::ROLE_ATTACKER);
  unit.add_teams()->set_id("t1");
  unit.mutable_teams(0)->set_figures(31);
  EXPECT_EQ(ErrorOf(CocUnitFromProto(unit, "units[2]")),
            "units[2].teams[0].figures: 31 is out of range 0..30");
}

TEST(FieldTest, AVvSituationNamesTheTargetHexAndItsCover) {
  vvpb::Situation situation;
  situation.set_attacker(melee::v1::SEAT_SIDE_A);
  situation.set_source_hex("A1");
  EXPECT_EQ(ErrorOf(VvSituationFromProto(situation, "situation")),
            "situation.target.name: required: the hex assaulted");
  situation.mutable_target()->set_name("B2");
  situation.mutable_target()->set_hindrance_cover(-1);
  const std::string error = ErrorOf(VvSituationFromProto(situation, "situation"));
  EXPECT_EQ(error.rfind("situation.target.hindrance_cover: -1 is out of range", 0), 0u) << error;
}

}  // namespace
}  // namespace melee::proto
