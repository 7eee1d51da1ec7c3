// FoldOutcome: what a close combat's start and end fold into the forces that persist
// (docs/forces.md), and whether they changed. A match keeps each viewer's rendering of the forces
// until they change, so "unchanged" must be exact: a Melee that goes on with the same units, or
// a close combat that leaves every unit as it was, changes nothing; any new unit, harmed unit or
// new Force Morale does.

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <gtest/gtest.h>

#include <string>

#include "server/forces.h"
#include "server/ruleset_host.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;

v1::ForceUnit Squad(const std::string& id, v1::Seat owner, v1::ForceFate fate) {
  v1::ForceUnit unit;
  unit.set_id(id);
  unit.set_owner(owner);
  unit.set_location("B1");
  unit.set_fate(fate);
  unit.mutable_asl()->set_id(id);
  unit.mutable_asl()->set_firepower(4);
  return unit;
}

// Both sides with one squad each in B1, as an earlier event (seq 3) left them.
Forces BothPresent() {
  Forces forces;
  for (auto [side, id] : {std::pair{v1::SEAT_SIDE_A, "A1"}, std::pair{v1::SEAT_SIDE_B, "B1"}}) {
    v1::ForceUnit unit = Squad(id, side, v1::FORCE_FATE_PRESENT);
    unit.set_changed_seq(3);
    unit.set_last_change("entered B1");
    forces[side == v1::SEAT_SIDE_A ? 0 : 1].units.push_back(unit);
  }
  return forces;
}

CombatOutcome Outcome(v1::ForceFate a1, v1::ForceFate b1) {
  CombatOutcome outcome;
  outcome.location = "B1";
  outcome.units = {Squad("A1", v1::SEAT_SIDE_A, a1), Squad("B1", v1::SEAT_SIDE_B, b1)};
  outcome.melee = true;
  return outcome;
}

TEST(FoldOutcomeTest, AMeleeGoingOnWithTheSameUnitsChangesNothing) {
  Forces forces = BothPresent();
  const Forces before = forces;
  const CombatOutcome same = Outcome(v1::FORCE_FATE_PRESENT, v1::FORCE_FATE_PRESENT);
  EXPECT_FALSE(FoldOutcome(forces, same, 10, /*ended=*/false));  // the next CCPh begins
  EXPECT_FALSE(FoldOutcome(forces, same, 12, /*ended=*/true));   // it ends, nobody harmed
  for (size_t side = 0; side < forces.size(); ++side) {
    ASSERT_EQ(forces[side].units.size(), 1u);
    EXPECT_EQ(forces[side].units[0].SerializeAsString(),
              before[side].units[0].SerializeAsString());
    EXPECT_EQ(forces[side].units[0].changed_seq(), 3u);  // still the event that entered it
  }
}

TEST(FoldOutcomeTest, AnEliminatedUnitChangesTheForcesAndNamesTheEvent) {
  Forces forces = BothPresent();
  EXPECT_TRUE(FoldOutcome(forces, Outcome(v1::FORCE_FATE_PRESENT, v1::FORCE_FATE_ELIMINATED), 12,
                          /*ended=*/true));
  EXPECT_EQ(forces[0].units[0].changed_seq(), 3u);  // A1 unharmed
  EXPECT_EQ(forces[1].units[0].fate(), v1::FORCE_FATE_ELIMINATED);
  EXPECT_EQ(forces[1].units[0].changed_seq(), 12u);
  EXPECT_EQ(forces[1].units[0].last_change(), "eliminated in CC in B1");
}

TEST(FoldOutcomeTest, ANewUnitOrANewForceMoraleChangesTheForces) {
  Forces forces = BothPresent();
  CombatOutcome created = Outcome(v1::FORCE_FATE_PRESENT, v1::FORCE_FATE_PRESENT);
  created.units.push_back(Squad("A-leader", v1::SEAT_SIDE_A, v1::FORCE_FATE_PRESENT));
  EXPECT_TRUE(FoldOutcome(forces, created, 12, /*ended=*/true));  // A11.15: a created leader
  ASSERT_EQ(forces[0].units.size(), 2u);
  EXPECT_EQ(forces[0].units[1].last_change(), "created in CC in B1");

  CombatOutcome morale = Outcome(v1::FORCE_FATE_PRESENT, v1::FORCE_FATE_PRESENT);
  morale.force_morale[1] = 8;
  EXPECT_TRUE(FoldOutcome(forces, morale, 14, /*ended=*/false));
  EXPECT_EQ(forces[1].force_morale, 8);
  EXPECT_FALSE(FoldOutcome(forces, morale, 16, /*ended=*/true));  // the same Force Morale again
}

// What FoldOutcome compares to call a unit unharmed: every field of ForceUnit but when and how
// it last changed. A field added to ForceUnit that the comparison leaves out fails here.
TEST(FoldOutcomeTest, EveryFieldButTheLastChangeIsCompared) {
  const google::protobuf::Descriptor& fields = *v1::ForceUnit::descriptor();
  for (int i = 0; i < fields.field_count(); ++i) {
    const google::protobuf::FieldDescriptor& field = *fields.field(i);
    SCOPED_TRACE(field.name());
    Forces forces = BothPresent();
    CombatOutcome outcome = Outcome(v1::FORCE_FATE_PRESENT, v1::FORCE_FATE_PRESENT);
    v1::ForceUnit& unit = outcome.units[1];  // B1, as the close combat leaves it
    const google::protobuf::Reflection& set = *unit.GetReflection();
    switch (field.cpp_type()) {
      case google::protobuf::FieldDescriptor::CPPTYPE_STRING:
        set.SetString(&unit, &field, set.GetString(unit, &field) + "x");
        break;
      case google::protobuf::FieldDescriptor::CPPTYPE_ENUM:
        set.SetEnumValue(&unit, &field, set.GetEnumValue(unit, &field) + 1);
        break;
      case google::protobuf::FieldDescriptor::CPPTYPE_BOOL:
        set.SetBool(&unit, &field, !set.GetBool(unit, &field));
        break;
      case google::protobuf::FieldDescriptor::CPPTYPE_UINT64:
        set.SetUInt64(&unit, &field, set.GetUInt64(unit, &field) + 1);
        break;
      case google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE:
        if (set.HasField(unit, &field)) {
          set.ClearField(&unit, &field);  // asl: present in the force, gone here
        } else {
          set.MutableMessage(&unit, &field);  // vv, coc: absent in the force, present here
        }
        break;
      default:
        FAIL() << "a ForceUnit field of a type this test cannot change: extend it";
    }
    const bool last_change = field.name() == "changed_seq" || field.name() == "last_change";
    EXPECT_EQ(FoldOutcome(forces, outcome, 12, /*ended=*/true), !last_change);
  }
}

// A copy of the forces shares their units: changing one copy's unit leaves the other's as it
// was, and the units it did not change are still the same objects.
TEST(FoldOutcomeTest, ACopyOfTheForcesChangesOnlyItself) {
  Forces before = BothPresent();
  before[1].units.push_back(Squad("B2", v1::SEAT_SIDE_B, v1::FORCE_FATE_PRESENT));
  Forces after = before;
  const std::string b1_before = before[1].units[0].SerializeAsString();
  CombatOutcome outcome = Outcome(v1::FORCE_FATE_PRESENT, v1::FORCE_FATE_ELIMINATED);
  outcome.units.push_back(Squad("B2", v1::SEAT_SIDE_B, v1::FORCE_FATE_PRESENT));
  ASSERT_TRUE(FoldOutcome(after, outcome, 12, /*ended=*/true));
  EXPECT_EQ(after[1].units[0].fate(), v1::FORCE_FATE_ELIMINATED);
  EXPECT_EQ(before[1].units[0].SerializeAsString(), b1_before);
  EXPECT_NE(&after[1].units[0], &before[1].units[0]);  // B1: copied, then changed
  EXPECT_EQ(&after[0].units[0], &before[0].units[0]);  // A1 and B2: unharmed, shared
  EXPECT_EQ(&after[1].units[1], &before[1].units[1]);
  // A unit only one copy holds is changed where it is.
  const v1::ForceUnit* own = &after[1].units[0];
  EXPECT_EQ(&after[1].units.Mutable(0), own);
}

}  // namespace
}  // namespace melee::server
