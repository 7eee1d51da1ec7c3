// The coc format: every message read back equals what was written, every bad value is refused
// with the field named, and the example file reads into rule 17's "In action".

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "engine/core/dice.h"
#include "proto/codec/coc.h"
#include "proto/codec/frame.h"
#include "tests/engine/coc/fixtures.h"

namespace melee::proto {
namespace {

namespace coc = engine::coc;
namespace cocpb = melee::coc::v1;

std::string CocExampleJson() {
  std::ifstream in(std::string(MELEE_SOURCE_DIR) + "/examples/coc/in-action-17.json");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(CocCodecTest, TheExampleFileIsTheInActionExample) {
  auto message = ContactFromJson(CocExampleJson());
  ASSERT_TRUE(message.has_value()) << message.error().message;
  auto script = CocScriptFromProto(*message);
  ASSERT_TRUE(script.has_value()) << script.error().message;
  coc::Situation expected = coc::testing::InAction();
  expected.units[0].name = "Soviet SMG Section";
  expected.units[1].name = "German Squad";
  EXPECT_EQ(script->situation, expected);
  EXPECT_TRUE(script->declarations[0].advance);
  EXPECT_EQ(script->situation.units[0].leaders[0].orders, 2);  // absent: a Junior Leader's 2
}

TEST(CocCodecTest, CommandsRoundTrip) {
  coc::Situation situation = coc::testing::InAction();
  situation.units[1].quality = coc::Quality::kElite;
  situation.units[1].leaders[0].status = coc::LeaderStatus::kStunned;
  situation.engagement = coc::Engagement::kCloseCombat;
  situation.obstacle = coc::Obstacle::kPathAround;
  situation.location = "farmhouse";  // forces that persist carry Units by it
  for (const coc::Command& command :
       {coc::Command(coc::SetUp{situation}),
        coc::Command(coc::Declare{.engage = false, .together = false, .sequence = {"x", "y"},
                                  .support = {"s"}, .advance = true}),
        coc::Command(coc::Place{.odd_kills = {"t1"}, .odd_shock = {"t2", "t3"}})}) {
    const cocpb::Command wire = CocCommandToProto(command);
    cocpb::Command parsed;
    ASSERT_TRUE(parsed.ParseFromString(SerializeDeterministic(wire)));
    auto back = CocCommandFromProto(parsed);
    ASSERT_TRUE(back.has_value()) << back.error().message;
    EXPECT_EQ(*back, command);
  }
}

TEST(CocCodecTest, BadValuesAreRefusedWithTheFieldNamed) {
  const auto error = [](std::string_view json) {
    auto message = ContactFromJson(json);
    if (!message) return message.error().message;
    auto script = CocScriptFromProto(*message);
    return script ? std::string() : script.error().message;
  };
  const std::string base = CocExampleJson();
  const auto with = [&](std::string from, std::string to) {
    std::string json = base;
    json.replace(json.find(from), from.size(), to);
    return json;
  };
  EXPECT_NE(error(with("\"figures\": 7", "\"figures\": 40"))
                .find("situation.units[0].teams[0].figures: 40 is out of range 0..30"),
            std::string::npos);
  EXPECT_NE(error(with("\"sideAForceMorale\": 9", "\"sideAForceMorale\": 0"))
                .find("situation.side_a_force_morale"),
            std::string::npos);
  EXPECT_NE(error(with("\"role\": \"ROLE_ATTACKER\",", "")).find("situation.units[0].role"),
            std::string::npos);
  EXPECT_NE(error(with("\"movementDice\": 1", "\"movementDice\": 1, \"bogus\": 1")).find("bogus"),
            std::string::npos);
  EXPECT_NE(error(with("POSITION_BUILDING_FROM_OUTSIDE", "POSITION_ROOF")).find("POSITION_ROOF"),
            std::string::npos);
  EXPECT_NE(error(with("\"soviet_team\"", "\"has space\"")).find("situation.units[0].teams[0].id"),
            std::string::npos);
  // The engine's own checks run too: the arc must be a defender Team.
  EXPECT_NE(error(with("[\"german_lmg\"]", "[\"nobody\"]")).find("not a Team of the defending Unit"),
            std::string::npos);
  cocpb::Command empty;
  EXPECT_FALSE(CocCommandFromProto(empty).has_value());
  cocpb::Command bad_enum;
  bad_enum.mutable_set_up()->set_engagement(static_cast<cocpb::Engagement>(9));
  auto refused = CocCommandFromProto(bad_enum);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("command.set_up.engagement: 9 is not a valid value"),
            std::string::npos);
}

// A server set-up part (docs/forces.md): Force Morale 0 takes the carried one; the place of the
// contact and this contact's facts for carried Units are checked field by field.
TEST(CocCodecTest, ASetUpPartMayLeaveForceMoraleAndCarriedUnitsToTheMatch) {
  cocpb::SideSetup part;
  part.set_location("farmhouse");
  cocpb::InContact* in = part.add_in_contact();
  in->set_unit("soviet_smg");
  in->set_movement_dice(2);
  in->add_through_arcs("german_lmg");
  EXPECT_TRUE(CocSideSetupFromProto(part, "submit_setup.coc").has_value());
  const auto error = [&](cocpb::SideSetup changed) {
    auto read = CocSideSetupFromProto(changed, "submit_setup.coc");
    return read ? std::string("ok") : read.error().message;
  };
  cocpb::SideSetup bad = part;
  bad.set_force_morale(12);
  EXPECT_EQ(error(bad), "submit_setup.coc.force_morale: 12 is out of range 0..11");
  bad = part;
  bad.mutable_in_contact(0)->set_movement_dice(5);
  EXPECT_EQ(error(bad), "submit_setup.coc.in_contact[0].movement_dice: 5 is out of range 0..4");
  bad = part;
  bad.mutable_in_contact(0)->set_role(static_cast<cocpb::Role>(7));
  EXPECT_EQ(error(bad), "submit_setup.coc.in_contact[0].role: 7 is not a valid value");
  bad = part;
  *bad.add_in_contact() = part.in_contact(0);
  EXPECT_EQ(error(bad), "submit_setup.coc.in_contact[1].unit: 'soviet_smg' twice");
  bad = part;
  bad.set_location(std::string(65, 'x'));
  EXPECT_EQ(error(bad), "submit_setup.coc.location: at most 64 bytes");
}

TEST(CocCodecTest, EventsNameUnitsTeamsAndLeadersById) {
  const coc::CocRules rules;
  coc::State state = coc::testing::SetUpState(coc::testing::InAction());
  engine::ScriptedDice dice({6, 6, 6, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  coc::testing::Act(state, engine::Seat::kSideA, coc::Declare{}, dice);
  const coc::State before = state;
  auto events = rules.Decide(state, engine::Seat::kSideB, coc::Declare{}, dice);
  ASSERT_TRUE(events.has_value());
  coc::State at = before;
  for (const coc::Event& event : *events) {
    const cocpb::CocEvent shown = CocEventToProto(at, event);
    if (event.kind == coc::EventKind::kRoundRolled) {
      EXPECT_EQ(shown.report().side_a().pool().dice(), 8);
      EXPECT_EQ(shown.report().side_b().pool().dice(), 13);
      EXPECT_EQ(shown.report().side_b().odd_kills(), 1);
      ASSERT_EQ(shown.report().side_b().received_size(), 2);
      EXPECT_EQ(shown.report().side_b().received(0).team(), "german_lmg");
      EXPECT_EQ(shown.dice_size(), 21);
    }
    rules.Apply(at, event);
  }
  const cocpb::CocView view = CocViewToProto(rules.MakeView(at, engine::Viewer::kSideB));
  EXPECT_EQ(view.phase(), cocpb::PHASE_PLACE);
  EXPECT_TRUE(view.side_b_owes());
  EXPECT_EQ(view.units(1).unit().id(), "german_squad");
}

}  // namespace
}  // namespace melee::proto
