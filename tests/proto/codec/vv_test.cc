// The vv format: every message read back equals what was written, every bad value is refused
// with the field named, and the example file reads into the 15 Close Assault Example.

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "engine/core/dice.h"
#include "proto/codec/frame.h"
#include "proto/codec/vv.h"

namespace melee::proto {
namespace {

namespace vv = engine::vv;
namespace vvpb = melee::vv::v1;

std::string VvExampleJson() {
  std::ifstream in(std::string(MELEE_SOURCE_DIR) + "/examples/vv/close-assault-15.json");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

vv::Script Example() {
  auto message = CloseAssaultFromJson(VvExampleJson());
  EXPECT_TRUE(message.has_value()) << (message ? "" : message.error().message);
  auto script = VvScriptFromProto(*message);
  EXPECT_TRUE(script.has_value()) << (script ? "" : script.error().message);
  return *script;
}

TEST(VvCodecTest, TheExampleFileIsTheCloseAssaultExample) {
  const vv::Script script = Example();
  EXPECT_EQ(script.situation.attacker, engine::Seat::kSideA);
  EXPECT_EQ(script.situation.target.name, "C1");
  EXPECT_EQ(script.situation.target.terrain_cover, 3);
  ASSERT_EQ(script.situation.units.size(), 7u);
  EXPECT_EQ(script.situation.units[4].weapons.at(0).apfp, 3);
  EXPECT_TRUE(script.situation.units[4].weapons.at(0).machine_gun);
  EXPECT_EQ(script.situation.expendables[0].grenades, 1);
  EXPECT_EQ(script.declarations[0].leader, "Schmidt");
  EXPECT_TRUE(script.declarations[0].uses.at(0).grenades);
  ASSERT_TRUE(script.allocations[0].has_value());
  EXPECT_FALSE(script.allocations[1].has_value());
}

TEST(VvCodecTest, CommandsRoundTrip) {
  const vv::Script script = Example();
  const std::vector<vv::Command> commands = {
      vv::SetUp{script.situation}, script.declarations[0], script.declarations[1],
      vv::Allocate{*script.allocations[0]},
      vv::Allocate{vv::Allocation{
          .actions = {vv::CpAction{.unit = "Pak", .kind = vv::CpActionKind::kSurvivalRoll,
                                   .points = 2}},
          .occupy = {"G2", "G3"}}}};
  for (const vv::Command& command : commands) {
    const vvpb::Command message = VvCommandToProto(command);
    vvpb::Command parsed;
    ASSERT_TRUE(parsed.ParseFromString(SerializeDeterministic(message)));
    auto back = VvCommandFromProto(parsed);
    ASSERT_TRUE(back.has_value()) << back.error().message;
    EXPECT_TRUE(*back == command);
  }
}

TEST(VvCodecTest, EventsNameUnitsByIdAndCarryTheirDice) {
  engine::ScriptedDice dice({3, 4});
  auto played = vv::Play(vv::VvRules{}, Example(), dice);
  ASSERT_TRUE(played.has_value()) << played.error().message;
  bool resolved = false;
  for (size_t i = 0; i < played->events.size(); ++i) {
    const vvpb::VvEvent event = VvEventToProto(played->states[i], played->events[i]);
    EXPECT_FALSE(event.text().empty());
    if (event.kind() != vvpb::EVENT_KIND_ASSAULT_RESOLVED) continue;
    resolved = true;
    ASSERT_EQ(event.dice_size(), 2);
    EXPECT_EQ(event.dice(0).value(), 3u);
    EXPECT_EQ(event.report().odds(), "1-1");
    EXPECT_EQ(event.report().leaders(0), "Coleman");
    EXPECT_EQ(event.effects(0).unit(), "US-HS");
  }
  EXPECT_TRUE(resolved);
  const vvpb::VvView view =
      VvViewToProto(vv::VvRules{}.MakeView(played->final_state, engine::Viewer::kSpectator));
  EXPECT_EQ(view.phase(), vvpb::PHASE_ENDED);
  EXPECT_EQ(view.units_size(), 7);
  EXPECT_TRUE(view.units(0).eliminated());
  EXPECT_EQ(view.variant(), "board");
}

// 15.9: the example with every defender pinned is taken without a roll, and the wire's
// ASSAULT_RESOLVED says it succeeded.
TEST(VvCodecTest, Rule159TheAutomaticTakingIsASuccessOnTheWire) {
  vv::Script script = Example();
  for (vv::Unit& unit : script.situation.units) {
    if (unit.owner == engine::Seat::kSideB) unit.pinned = true;
  }
  engine::ScriptedDice dice({});
  auto played = vv::Play(vv::VvRules{}, script, dice);
  ASSERT_TRUE(played.has_value()) << played.error().message;
  bool resolved = false;
  for (size_t i = 0; i < played->events.size(); ++i) {
    const vvpb::VvEvent event = VvEventToProto(played->states[i], played->events[i]);
    if (event.kind() != vvpb::EVENT_KIND_ASSAULT_RESOLVED) continue;
    resolved = true;
    EXPECT_TRUE(event.report().automatic()) << event.DebugString();
    EXPECT_TRUE(event.report().success()) << event.DebugString();
    EXPECT_EQ(event.dice_size(), 0);
  }
  EXPECT_TRUE(resolved);
}

TEST(VvCodecTest, BadValuesAreRefusedNamingTheField) {
  auto message = CloseAssaultFromJson(VvExampleJson());
  ASSERT_TRUE(message.has_value());
  const auto error_of = [](const vvpb::CloseAssault& m) {
    auto script = VvScriptFromProto(m);
    return script ? std::string() : script.error().message;
  };
  vvpb::CloseAssault big = *message;
  big.mutable_situation()->mutable_units(2)->set_apfp(120);
  EXPECT_EQ(error_of(big), "situation.units[2].apfp: 120 is out of range 0..99");
  vvpb::CloseAssault no_kind = *message;
  no_kind.mutable_situation()->mutable_units(0)->set_kind(vvpb::UNIT_KIND_UNSPECIFIED);
  EXPECT_NE(error_of(no_kind).find("situation.units[0].kind: required"), std::string::npos);
  vvpb::CloseAssault spaced = *message;
  spaced.mutable_side_a_declaration()->set_group(0, "G 1");
  EXPECT_NE(error_of(spaced).find("side_a_declaration.group[0]"), std::string::npos);
  vvpb::CloseAssault cover = *message;
  cover.mutable_situation()->mutable_target()->set_terrain_cover(-1);
  EXPECT_EQ(error_of(cover), "situation.target.terrain_cover: -1 is out of range 0..9");
  vvpb::CloseAssault no_target = *message;
  no_target.mutable_situation()->clear_target();
  EXPECT_NE(error_of(no_target).find("situation.target.name: required"), std::string::npos);
  vvpb::CloseAssault action = *message;
  action.mutable_side_a_allocation()->mutable_actions(0)->set_kind(
      vvpb::CP_ACTION_KIND_UNSPECIFIED);
  EXPECT_NE(error_of(action).find("side_a_allocation.actions[0].kind"), std::string::npos);

  EXPECT_NE(CloseAssaultFromJson("{\"situation\": {\"mystery\": 1}}").error().message.find(
                "not a melee.vv.v1.CloseAssault"),
            std::string::npos);
  EXPECT_FALSE(CloseAssaultFromJson(std::string(kVvMaxJsonBytes + 1, ' ')).has_value());
  vvpb::Command empty;
  EXPECT_EQ(VvCommandFromProto(empty).error().message,
            "command: required: set_up, declare or allocate");
}

TEST(VvCodecTest, ProbabilitiesAreExactAndRounded) {
  const vvpb::Probability p = VvProbabilityToProto(engine::Rational(21, 36));
  EXPECT_EQ(p.exact(), "7/12");
  EXPECT_DOUBLE_EQ(p.percent(), 58.33);
}

}  // namespace
}  // namespace melee::proto
