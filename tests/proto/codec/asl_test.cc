// The asl situation format: the example files read into Scripts, untrusted input refused with
// the field named, and engine reports turned into messages with unit ids.

#include "proto/codec/asl.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <set>
#include <string>

#include "engine/asl/rules.h"
#include "engine/asl/script.h"
#include "engine/core/dice.h"
#include "proto/codec/frame.h"
#include "proto/codec/json.h"
#include "proto/codec/scratch_arena.h"

namespace melee::proto {
namespace {

namespace asl = engine::asl;
namespace aslpb = melee::asl::v1;
using engine::Seat;

std::string ReadExample(const std::string& name) {
  std::ifstream in(std::string(MELEE_SOURCE_DIR) + "/examples/asl/" + name);
  EXPECT_TRUE(in) << name;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

asl::Script MustRead(const std::string& json) {
  auto script = ScriptFromJson(json);
  EXPECT_TRUE(script) << engine::Describe(script.error());
  return script ? *script : asl::Script{};
}

// Returns the error message ScriptFromJson gives `json`, or "" when it is accepted.
std::string ErrorOf(const std::string& json) {
  auto script = ScriptFromJson(json);
  return script ? "" : engine::Describe(script.error());
}

// A minimal valid file with `unit` as side A's only unit (and a Russian squad for side B).
std::string WithUnit(const std::string& unit) {
  return R"({"situation": {"attacker": "SEAT_SIDE_A", "units": [)" + unit +
         R"(, {"id": "R1", "owner": "SEAT_SIDE_B", "kind": "UNIT_KIND_SQUAD", "firepower": 4}]}})";
}

TEST(AslCodec, ReadsTheLeaderDirectsExample) {
  const std::string json = ReadExample("leader-directs-11-141.json");
  const asl::Script script = MustRead(json);
  EXPECT_EQ(script.options.variant, "standard");
  EXPECT_EQ(script.situation.attacker, Seat::kSideA);
  EXPECT_FALSE(script.situation.location.melee);
  ASSERT_EQ(script.situation.units.size(), 4u);
  const asl::Unit& g1 = script.situation.units[0];
  EXPECT_EQ(g1.id, "G1");
  EXPECT_EQ(g1.owner, Seat::kSideA);
  EXPECT_EQ(g1.kind, asl::UnitKind::kSquad);
  EXPECT_EQ(g1.nationality, asl::Nationality::kGerman);
  EXPECT_EQ(g1.firepower, 4);
  EXPECT_EQ(g1.reduced_firepower, -1);
  EXPECT_EQ(g1.morale, 7);
  const asl::Unit& l1 = script.situation.units[1];
  EXPECT_EQ(l1.kind, asl::UnitKind::kLeader);
  EXPECT_EQ(l1.leadership, -1);
  EXPECT_EQ(l1.morale, 8);
  EXPECT_EQ(l1.stacked_on, "G1");
  EXPECT_EQ(script.situation.units[3].nationality, asl::Nationality::kRussian);
  EXPECT_EQ(script.situation.units[3].owner, Seat::kSideB);
  ASSERT_EQ(script.declarations.size(), 2u);
  EXPECT_EQ(script.declarations[0].first, Seat::kSideA);
  ASSERT_EQ(script.declarations[0].second.attacks.size(), 1u);
  const asl::AttackOrder& german = script.declarations[0].second.attacks[0];
  EXPECT_EQ(german.attackers, (std::vector<std::string>{"G1", "L1"}));
  EXPECT_EQ(german.targets, (std::vector<std::string>{"R1", "R2"}));
  EXPECT_EQ(german.director, "L1");
  EXPECT_EQ(script.declarations[1].first, Seat::kSideB);
  EXPECT_TRUE(script.choices.empty());
  EXPECT_TRUE(asl::ValidateSituation(script.situation));

  auto message = CloseCombatFromJson(json);
  ASSERT_TRUE(message);
  auto preview = PreviewFromProto(*message);
  ASSERT_TRUE(preview) << engine::Describe(preview.error());
  ASSERT_TRUE(preview->has_value());
  EXPECT_EQ((*preview)->seat, Seat::kSideA);
  EXPECT_EQ((*preview)->order, german);
}

TEST(AslCodec, ReadsTheConcealedExample) {
  const std::string json = ReadExample("concealed-11-4.json");
  const asl::Script script = MustRead(json);
  ASSERT_EQ(script.situation.units.size(), 2u);
  EXPECT_EQ(script.situation.units[0].firepower, 6);
  EXPECT_EQ(script.situation.units[0].morale, 8);
  EXPECT_TRUE(script.situation.units[0].advanced);
  EXPECT_TRUE(script.situation.units[1].concealed);
  EXPECT_FALSE(script.situation.location.woods_or_building);
  ASSERT_EQ(script.declarations.size(), 1u);
  EXPECT_EQ(script.declarations[0].first, Seat::kSideA);
  EXPECT_TRUE(asl::ValidateSituation(script.situation));
  auto preview = PreviewFromProto(*CloseCombatFromJson(json));
  ASSERT_TRUE(preview && preview->has_value());
}

TEST(AslCodec, ReadsTheMeleeWithdrawalExample) {
  const std::string json = ReadExample("melee-withdrawal-k4.json");
  const asl::Script script = MustRead(json);
  EXPECT_TRUE(script.situation.location.melee);
  ASSERT_EQ(script.situation.units.size(), 4u);
  EXPECT_EQ(script.situation.units[3].firepower, 5);
  EXPECT_EQ(script.announce[0].withdraw, (std::vector<std::string>{"L1"}));
  EXPECT_TRUE(script.announce[1].withdraw.empty());
  ASSERT_EQ(script.choices.size(), 1u);
  EXPECT_EQ(script.choices[0].kind, asl::ChoiceKind::kInfiltration);
  EXPECT_EQ(script.choices[0].selected, (std::vector<std::string>{"R1"}));
  EXPECT_TRUE(asl::ValidateSituation(script.situation));
  auto preview = PreviewFromProto(*CloseCombatFromJson(json));
  ASSERT_TRUE(preview && preview->has_value());
  EXPECT_EQ((*preview)->seat, Seat::kSideB);
}

TEST(AslCodec, ReadsTheVehicleExample) {
  const std::string json = ReadExample("vehicle-11-622.json");
  const asl::Script script = MustRead(json);
  ASSERT_EQ(script.situation.units.size(), 5u);
  const asl::Unit& tank = script.situation.units[4];
  EXPECT_EQ(tank.kind, asl::UnitKind::kVehicle);
  EXPECT_EQ(tank.vehicle.armor, asl::Armor::kClosedTop);
  EXPECT_EQ(tank.vehicle.cmg, 5);
  EXPECT_TRUE(tank.vehicle.bmg);
  EXPECT_EQ(tank.vehicle.sn_usage, 7);
  EXPECT_TRUE(script.situation.units[0].advanced);
  ASSERT_EQ(script.declarations.size(), 4u);
  EXPECT_EQ(script.declarations[1].second.attacks[0].weapons, (std::vector<std::string>{"sn"}));
  EXPECT_TRUE(script.declarations[1].second.attacks[0].targets.empty());
  EXPECT_TRUE(asl::ValidateSituation(script.situation));
}

TEST(AslCodec, VehicleFieldsRoundTripThroughTheMessage) {
  asl::Script script = MustRead(ReadExample("vehicle-11-622.json"));
  asl::Unit& tank = script.situation.units[4];
  tank.vehicle.armor = asl::Armor::kPartiallyArmored;
  tank.vehicle.movement = asl::Movement::kNonStopped;
  tank.vehicle.crew_exposed = true;
  tank.vehicle.aamg = 2;
  tank.vehicle.malfunctioned = asl::kCmg | asl::kSn;
  script.situation.units[0].street_fighting = asl::StreetFighting::kInObstacle;
  script.situation.units[2].atmm = true;
  script.situation.units[3].rider_of = "PzIVJ";
  script.situation.units[3].owner = Seat::kSideB;
  script.situation.location.reaction_fire = true;
  script.declarations[0].second.attacks[0].atmm = "A";
  auto back = ScriptFromProto(ScriptToProto(script));
  ASSERT_TRUE(back) << engine::Describe(back.error());
  EXPECT_EQ(back->situation, script.situation);
  EXPECT_EQ(back->declarations, script.declarations);
}

TEST(AslCodec, RefusesBadVehicleFieldsNamingThem) {
  const std::string weapon = ErrorOf(
      R"({"situation": {"attacker": "SEAT_SIDE_A"}, "declarations": [{"seat": "SEAT_SIDE_A",
          "seal": {"attacks": [{"attackers": ["T1"], "weapons": ["bmg"]}]}}]})");
  EXPECT_NE(weapon.find("declarations[0].seal.attacks[0].weapons[0]"), std::string::npos)
      << weapon;
  const std::string twice = ErrorOf(
      R"({"situation": {"attacker": "SEAT_SIDE_A"}, "declarations": [{"seat": "SEAT_SIDE_A",
          "seal": {"attacks": [{"attackers": ["T1"], "weapons": ["cmg", "cmg"]}]}}]})");
  EXPECT_NE(twice.find("weapons[1]: named twice"), std::string::npos) << twice;
  const std::string cmg = ErrorOf(WithUnit(
      R"({"id": "T1", "owner": 1, "kind": "UNIT_KIND_VEHICLE", "vehicle": {"cmg": 100}})"));
  EXPECT_NE(cmg.find("situation.units[0].vehicle.cmg"), std::string::npos) << cmg;
  const std::string usage = ErrorOf(WithUnit(
      R"({"id": "T1", "owner": 1, "kind": "UNIT_KIND_VEHICLE", "vehicle": {"sn_usage": 13}})"));
  EXPECT_NE(usage.find("situation.units[0].vehicle.sn_usage"), std::string::npos) << usage;
  const std::string facts = ErrorOf(
      WithUnit(R"({"id": "G1", "owner": 1, "kind": 1, "firepower": 4, "vehicle": {"cmg": 1}})"));
  EXPECT_NE(facts.find("situation.units[0].vehicle: only a UNIT_KIND_VEHICLE"), std::string::npos)
      << facts;
  const std::string armor = ErrorOf(WithUnit(
      R"({"id": "T1", "owner": 1, "kind": "UNIT_KIND_VEHICLE", "vehicle": {"armor": 9}})"));
  EXPECT_NE(armor.find("situation.units[0].vehicle.armor"), std::string::npos) << armor;
}

TEST(AslCodec, ScriptRoundTripsThroughTheMessage) {
  const asl::Script script = MustRead(ReadExample("melee-withdrawal-k4.json"));
  auto again = ScriptFromJson(ToJson(ScriptToProto(script)));
  ASSERT_TRUE(again) << engine::Describe(again.error());
  EXPECT_EQ(again->options.variant, script.options.variant);
  EXPECT_EQ(again->options.values, script.options.values);
  EXPECT_EQ(again->situation, script.situation);
  EXPECT_EQ(again->announce, script.announce);
  EXPECT_EQ(again->declarations, script.declarations);
  ASSERT_EQ(again->choices.size(), script.choices.size());
  EXPECT_EQ(again->choices[0].kind, script.choices[0].kind);
  EXPECT_EQ(again->choices[0].selected, script.choices[0].selected);
}

TEST(AslCodec, AcceptsLowerCamelNamesAndDefaultsNationalityAndMorale) {
  const asl::Script script = MustRead(
      WithUnit(R"({"id": "G1", "owner": "SEAT_SIDE_A", "kind": "UNIT_KIND_SQUAD", "firepower": 4,
                   "reducedFirepower": 3})"));
  ASSERT_EQ(script.situation.units.size(), 2u);
  EXPECT_EQ(script.situation.units[0].reduced_firepower, 3);
  EXPECT_EQ(script.situation.units[0].nationality, asl::Nationality::kOther);
  EXPECT_EQ(script.situation.units[0].morale, 7);
}

TEST(AslCodec, RefusesUnknownFieldsNamingThem) {
  const std::string error = ErrorOf(
      WithUnit(R"({"id": "G1", "owner": "SEAT_SIDE_A", "kind": "UNIT_KIND_SQUAD", "fp": 4})"));
  EXPECT_NE(error.find("fp"), std::string::npos) << error;
  EXPECT_NE(error.find("situation.units[0]"), std::string::npos) << error;
  EXPECT_NE(ErrorOf(R"({"_comment": "A11.141", "situation": {}})").find("_comment"),
            std::string::npos);
}

TEST(AslCodec, RefusesMalformedJson) {
  EXPECT_NE(ErrorOf(R"({"situation": )").find("protobuf JSON"), std::string::npos);
  EXPECT_NE(ErrorOf("[1, 2]").find("protobuf JSON"), std::string::npos);
  EXPECT_FALSE(ScriptFromJson(std::string(kAslMaxJsonBytes + 1, ' ')));
}

TEST(AslCodec, RefusesBadEnumsNamingTheField) {
  const std::string unknown_name =
      ErrorOf(WithUnit(R"({"id": "G1", "owner": "SEAT_SIDE_A", "kind": "UNIT_KIND_TANK"})"));
  EXPECT_NE(unknown_name.find("UNIT_KIND_TANK"), std::string::npos) << unknown_name;
  const std::string unknown_number =
      ErrorOf(WithUnit(R"({"id": "G1", "owner": "SEAT_SIDE_A", "kind": 42})"));
  EXPECT_NE(unknown_number.find("situation.units[0].kind"), std::string::npos) << unknown_number;
  const std::string nationality = ErrorOf(WithUnit(
      R"({"id": "G1", "owner": "SEAT_SIDE_A", "kind": "UNIT_KIND_SQUAD", "nationality": 77})"));
  EXPECT_NE(nationality.find("situation.units[0].nationality"), std::string::npos) << nationality;
  const std::string owner =
      ErrorOf(WithUnit(R"({"id": "G1", "owner": "SEAT_DIRECTOR", "kind": "UNIT_KIND_SQUAD"})"));
  EXPECT_NE(owner.find("situation.units[0].owner"), std::string::npos) << owner;
  EXPECT_NE(owner.find("SEAT_DIRECTOR"), std::string::npos) << owner;
}

TEST(AslCodec, RequiresKindOwnerAttackerAndSituation) {
  const std::string kind = ErrorOf(WithUnit(R"({"id": "G1", "owner": "SEAT_SIDE_A"})"));
  EXPECT_NE(kind.find("situation.units[0].kind: required"), std::string::npos) << kind;
  const std::string owner = ErrorOf(WithUnit(R"({"id": "G1", "kind": "UNIT_KIND_SQUAD"})"));
  EXPECT_NE(owner.find("situation.units[0].owner: required"), std::string::npos) << owner;
  const std::string attacker = ErrorOf(R"({"situation": {"units": []}})");
  EXPECT_NE(attacker.find("situation.attacker: required"), std::string::npos) << attacker;
  EXPECT_NE(ErrorOf("{}").find("situation: required"), std::string::npos);
}

TEST(AslCodec, RefusesOutOfRangeValuesNamingTheField) {
  const std::string long_id = ErrorOf(
      WithUnit(R"({"id": ")" + std::string(33, 'G') + R"(", "owner": "SEAT_SIDE_A", "kind": 1})"));
  EXPECT_NE(long_id.find("situation.units[0].id"), std::string::npos) << long_id;
  EXPECT_NE(long_id.find("1..32"), std::string::npos) << long_id;
  const std::string spaced = ErrorOf(WithUnit(R"({"id": "G 1", "owner": 1, "kind": 1})"));
  EXPECT_NE(spaced.find("situation.units[0].id"), std::string::npos) << spaced;
  const std::string firepower =
      ErrorOf(WithUnit(R"({"id": "G1", "owner": 1, "kind": 1, "firepower": 100})"));
  EXPECT_NE(firepower.find("situation.units[0].firepower: 100 is out of range 0..99"),
            std::string::npos)
      << firepower;
  const std::string morale =
      ErrorOf(WithUnit(R"({"id": "G1", "owner": 1, "kind": 1, "firepower": 4, "morale": 0})"));
  EXPECT_NE(morale.find("situation.units[0].morale"), std::string::npos) << morale;
  const std::string wounds =
      ErrorOf(WithUnit(R"({"id": "G1", "owner": 1, "kind": 1, "firepower": 4, "wounds": -1})"));
  EXPECT_NE(wounds.find("situation.units[0].wounds"), std::string::npos) << wounds;
  const std::string target = ErrorOf(
      R"({"situation": {"attacker": "SEAT_SIDE_A"}, "declarations": [{"seat": "SEAT_SIDE_A",
          "seal": {"attacks": [{"attackers": ["G1"], "targets": [""]}]}}]})");
  EXPECT_NE(target.find("declarations[0].seal.attacks[0].targets[0]"), std::string::npos) << target;
  const std::string seat =
      ErrorOf(R"({"situation": {"attacker": "SEAT_SIDE_A"}, "declarations": [{"seal": {}}]})");
  EXPECT_NE(seat.find("declarations[0].seat: required"), std::string::npos) << seat;
  const std::string choice =
      ErrorOf(R"({"situation": {"attacker": "SEAT_SIDE_A"}, "choices": [{"selected": ["R1"]}]})");
  EXPECT_NE(choice.find("choices[0].kind: required"), std::string::npos) << choice;
  const std::string excess = ErrorOf(
      R"({"situation": {"attacker": "SEAT_SIDE_A", "location": {"excess_squads_side_b": 10}}})");
  EXPECT_NE(excess.find("situation.location.excess_squads_side_b"), std::string::npos) << excess;
}

TEST(AslCodec, RefusesTooManyUnits) {
  std::string units;
  for (int i = 0; i < 65; ++i) {
    units += (i == 0 ? "" : ", ") + std::string(R"({"id": "U)") + std::to_string(i) +
             R"(", "owner": 1, "kind": 1, "firepower": 4})";
  }
  const std::string error =
      ErrorOf(R"({"situation": {"attacker": "SEAT_SIDE_A", "units": [)" + units + "]}}");
  EXPECT_NE(error.find("situation.units: a Location holds at most 64 units"), std::string::npos)
      << error;
}

TEST(AslCodec, PreviewNeedsASeat) {
  auto message = CloseCombatFromJson(
      R"({"situation": {"attacker": "SEAT_SIDE_A"}, "preview": {"attack": {}}})");
  ASSERT_TRUE(message);
  auto preview = PreviewFromProto(*message);
  ASSERT_FALSE(preview);
  EXPECT_NE(preview.error().message.find("preview.seat: required"), std::string::npos);
  aslpb::CloseCombat none;
  auto absent = PreviewFromProto(none);
  ASSERT_TRUE(absent);
  EXPECT_FALSE(absent->has_value());
}

TEST(AslCodec, EventToProtoNamesUnitsById) {
  const asl::Script script = MustRead(ReadExample("leader-directs-11-141.json"));
  engine::ScriptedDice dice({2, 2, 3, 3, 5, 2});
  auto played = asl::Play(asl::AslRules{}, script, dice);
  ASSERT_TRUE(played) << engine::Describe(played.error());
  std::vector<aslpb::AslEvent> attacks;
  for (size_t i = 0; i < played->events.size(); ++i) {
    const aslpb::AslEvent event = EventToProto(played->states[i], played->events[i]);
    EXPECT_EQ(event.text(), asl::DescribeEvent(played->states[i], played->events[i]));
    if (event.kind() == aslpb::EVENT_KIND_ATTACK_RESOLVED) attacks.push_back(event);
    if (event.kind() == aslpb::EVENT_KIND_SET_UP) {
      EXPECT_EQ(event.situation().units_size(), 4);
      EXPECT_EQ(event.seat(), melee::v1::SEAT_UNSPECIFIED);
    }
  }
  ASSERT_EQ(attacks.size(), 2u);
  const aslpb::AttackReport& german = attacks[0].attack();
  EXPECT_EQ(attacks[0].seat(), melee::v1::SEAT_SIDE_A);
  EXPECT_EQ(german.side(), melee::v1::SEAT_SIDE_A);
  ASSERT_EQ(german.attackers_size(), 2);
  EXPECT_EQ(german.attackers(0), "G1");
  EXPECT_EQ(german.attackers(1), "L1");
  EXPECT_EQ(german.targets(1), "R2");
  EXPECT_EQ(german.director(), "L1");
  EXPECT_EQ(german.attack_strength(), "5");
  EXPECT_EQ(german.defence_strength(), "8");
  EXPECT_EQ(german.column(), "1-2");
  EXPECT_EQ(german.kill_number(), 4);
  ASSERT_EQ(german.drms_size(), 1);
  EXPECT_EQ(german.drms(0).rule(), "A11.141");
  EXPECT_EQ(german.drms(0).value(), -1);
  EXPECT_EQ(german.dr().colored(), 2);
  EXPECT_EQ(german.dr().white(), 2);
  EXPECT_EQ(german.dr().total(), 4);
  ASSERT_EQ(german.results_size(), 2);
  EXPECT_EQ(german.results(0).unit(), "R1");
  EXPECT_EQ(german.results(0).final_dr(), 3);
  EXPECT_EQ(german.results(0).outcome(), aslpb::OUTCOME_ELIMINATED);
  ASSERT_EQ(attacks[0].dice_size(), 2);
  EXPECT_EQ(attacks[0].dice(0).color(), melee::v1::DieRoll::COLOR_COLORED);
  EXPECT_EQ(attacks[0].dice(1).roll_index(), 1u);

  const aslpb::AttackReport& russian = attacks[1].attack();
  EXPECT_EQ(russian.column(), "3-2");
  EXPECT_EQ(russian.kill_number(), 6);
  EXPECT_EQ(russian.results(0).outcome(), aslpb::OUTCOME_PARTIAL);
  bool reduced = false;
  for (const aslpb::Effect& effect : attacks[1].effects()) {
    if (effect.kind() == aslpb::EFFECT_KIND_REDUCED) {
      reduced = true;
      EXPECT_EQ(effect.unit(), "G1");
      EXPECT_EQ(effect.value(), 2);
    }
  }
  EXPECT_TRUE(reduced);
}

TEST(AslCodec, EventToProtoNamesCreatedUnitsFromTheEvent) {
  asl::State state;
  asl::Unit squad;
  squad.id = "G1";
  squad.firepower = 4;
  state.units = {squad};
  asl::Unit leader;
  leader.id = "G1-ldr";
  leader.kind = asl::UnitKind::kLeader;
  leader.stacked_on = "G1";
  asl::Event event;
  event.kind = asl::EventKind::kPhaseEnded;
  event.effects.push_back(asl::Effect{.kind = asl::EffectKind::kLeaderCreated,
                                      .unit = 1,
                                      .value = 0,
                                      .text = "8-0",
                                      .created = leader,
                                      .by = {}});
  event.effects.push_back(asl::Effect{.kind = asl::EffectKind::kCaptured,
                                      .unit = 0,
                                      .value = 0,
                                      .text = "",
                                      .created = std::nullopt,
                                      .by = {1}});
  const aslpb::AslEvent message = EventToProto(state, event);
  ASSERT_EQ(message.effects_size(), 2);
  EXPECT_EQ(message.effects(0).kind(), aslpb::EFFECT_KIND_LEADER_CREATED);
  EXPECT_EQ(message.effects(0).unit(), "G1-ldr");
  EXPECT_EQ(message.effects(0).created().stacked_on(), "G1");
  EXPECT_EQ(message.effects(1).unit(), "G1");
  ASSERT_EQ(message.effects(1).by_size(), 1);
  EXPECT_EQ(message.effects(1).by(0), "G1-ldr");
  EXPECT_NE(message.text().find("G1-ldr"), std::string::npos) << message.text();
}

TEST(AslCodec, ProbabilitiesAreExactFractionsAndRoundedPercentages) {
  const aslpb::Probability seven = ProbabilityToProto(engine::Rational(7, 36));
  EXPECT_EQ(seven.exact(), "7/36");
  EXPECT_DOUBLE_EQ(seven.percent(), 19.44);
  EXPECT_EQ(ProbabilityToProto(engine::Rational(0)).exact(), "0");
  EXPECT_DOUBLE_EQ(ProbabilityToProto(engine::Rational(0)).percent(), 0.0);
  EXPECT_DOUBLE_EQ(ProbabilityToProto(engine::Rational(1)).percent(), 100.0);
  EXPECT_DOUBLE_EQ(ProbabilityToProto(engine::Rational(1, 6)).percent(), 16.67);
}

// The server renders each view into a message cleared and filled again (Match::RenderView), its
// units' messages set aside before the clear and filled again (KeepPartsOf): what it gets must
// be byte for byte what a fresh message gets, whatever the message held before: more units or
// fewer, a unit hidden (A11.19) that is shown now or shown to the director before and hidden
// now (nothing of the director's unit may stay in the spectator's), a vehicle's fields, a rider.
TEST(AslCodec, AViewFilledIntoAClearedMessageIsWhatAFreshOneGets) {
  const asl::AslRules rules;
  std::vector<asl::State> states;
  for (const char* example : {"vehicle-11-622.json", "concealed-11-4.json"}) {
    const asl::Script script = MustRead(ReadExample(example));
    auto state = rules.NewState(script.options);
    ASSERT_TRUE(state);
    engine::ScriptedDice dice({3, 4, 3, 4, 3, 4, 3, 4});  // any Ambush dr (A11.4)
    auto events = rules.Decide(*state, Seat::kSideA, asl::SetUp{script.situation}, dice);
    ASSERT_TRUE(events) << engine::Describe(events.error());
    for (const asl::Event& event : *events) rules.Apply(*state, event);
    states.push_back(*state);
  }
  {
    // A declaration sealed (shown to its own side only), then both revealed and resolved (shown
    // to everyone).
    const asl::Script script = MustRead(ReadExample("leader-directs-11-141.json"));
    auto state = rules.NewState(script.options);
    ASSERT_TRUE(state);
    engine::SplitMix64 bits(7);
    engine::SourceDice dice(bits);
    std::vector<std::pair<Seat, asl::Command>> commands = {
        {Seat::kSideA, asl::SetUp{script.situation}},
        {Seat::kSideA, script.announce[0]},
        {Seat::kSideB, script.announce[1]}};
    for (const auto& [seat, seal] : script.declarations) commands.emplace_back(seat, seal);
    for (size_t c = 0; c < commands.size(); ++c) {
      auto events = rules.Decide(*state, commands[c].first, commands[c].second, dice);
      ASSERT_TRUE(events) << engine::Describe(events.error());
      for (const asl::Event& event : *events) rules.Apply(*state, event);
      if (c >= 3) states.push_back(*state);
    }
  }
  aslpb::AslView reused;
  int hidden = 0;
  int declarations_shown = 0;
  int declarations_hidden = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (const asl::State& state : states) {
      // The director sees every unit whole; the spectator next sees a concealed one hidden.
      for (engine::Viewer viewer : {engine::Viewer::kDirector, engine::Viewer::kSpectator,
                                    engine::Viewer::kSideA, engine::Viewer::kSideB}) {
        const asl::View view = rules.MakeView(state, viewer);
        if (pass == 1) KeepPartsOf(reused);  // the second pass reuses its parts too
        reused.Clear();
        ViewToProto(view, state, reused);
        const aslpb::AslView fresh = ViewToProto(view, state);
        EXPECT_EQ(reused.SerializeAsString(), fresh.SerializeAsString());
        EXPECT_EQ(reused.units_size(), static_cast<int>(state.units.size()));
        for (const auto& [sealed, shown] :
             {std::pair{reused.side_a_sealed(), reused.has_side_a_declaration()},
              std::pair{reused.side_b_sealed(), reused.has_side_b_declaration()}}) {
          if (sealed) ++(shown ? declarations_shown : declarations_hidden);
        }
        for (const aslpb::ViewedUnit& unit : reused.units()) {
          if (!unit.hidden()) continue;
          ++hidden;
          // A11.19: a hidden unit shows its id, owner, concealment and revealed strength only.
          EXPECT_TRUE(unit.unit().name().empty()) << unit.unit().id();
          EXPECT_TRUE(unit.unit().stacked_on().empty()) << unit.unit().id();
        }
      }
    }
  }
  EXPECT_GT(hidden, 0);  // the concealed example hides a unit from some viewer
  EXPECT_GT(declarations_shown, 0);
  EXPECT_GT(declarations_hidden, 0);  // a seal not yet revealed, to the other side
}

// An event filled into a message kept and cleared, or into one on a scratch arena (as the asl
// host's LogEvent logs it), must be byte for byte what a fresh message gets, whatever event the
// message held before. Every event of every example, played under several seeds, is filled in
// turn into one message, twice over.
TEST(AslCodec, AnEventFilledIntoAClearedMessageIsWhatAFreshOneGets) {
  const asl::AslRules rules;
  aslpb::AslEvent reused;
  std::set<asl::EventKind> kinds;
  int plays = 0;
  int compared = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (const char* example : {"vehicle-11-622.json", "concealed-11-4.json",
                                "leader-directs-11-141.json", "melee-withdrawal-k4.json"}) {
      const asl::Script script = MustRead(ReadExample(example));
      for (uint64_t seed : {1, 2, 3, 4, 5}) {
        engine::SplitMix64 source(seed);
        engine::SourceDice dice(source);
        auto played = asl::Play(rules, script, dice);
        // Some dice end the script early (a unit a later declaration names is broken or gone).
        if (!played) continue;
        ++plays;
        for (size_t i = 0; i < played->events.size(); ++i) {
          reused.Clear();
          EventToProto(played->states[i], played->events[i], reused);
          const aslpb::AslEvent fresh = EventToProto(played->states[i], played->events[i]);
          EXPECT_EQ(SerializeDeterministic(reused), SerializeDeterministic(fresh))
              << example << ", seed " << seed << ", event " << i;
          // And on a scratch arena, as the asl host logs it.
          ScratchArena scratch;
          auto& on_arena = scratch.Create<aslpb::AslEvent>();
          EventToProto(played->states[i], played->events[i], on_arena);
          EXPECT_EQ(SerializeDeterministic(on_arena), SerializeDeterministic(fresh))
              << example << ", seed " << seed << ", event " << i << " (arena)";
          kinds.insert(played->events[i].kind);
          ++compared;
        }
      }
    }
  }
  EXPECT_GE(plays, 16);  // of 2 x 4 x 5
  EXPECT_GT(compared, 100);
  // Set-ups, seals, reveals, attacks and the phase's end at least went through the message.
  for (asl::EventKind kind :
       {asl::EventKind::kSetUp, asl::EventKind::kDeclarationSealed,
        asl::EventKind::kDeclarationsRevealed, asl::EventKind::kAttackResolved,
        asl::EventKind::kPhaseEnded}) {
    EXPECT_TRUE(kinds.contains(kind)) << static_cast<int>(kind);
  }
}

TEST(AslCodec, OutcomeTableToProtoKeepsExactOdds) {
  const asl::Script script = MustRead(ReadExample("leader-directs-11-141.json"));
  const asl::AslRules rules;
  auto state = rules.NewState(script.options);
  ASSERT_TRUE(state);
  engine::ScriptedDice dice({});
  const std::pair<Seat, asl::Command> commands[] = {{Seat::kSideA, asl::SetUp{script.situation}},
                                                    {Seat::kSideA, script.announce[0]},
                                                    {Seat::kSideB, script.announce[1]}};
  for (const auto& [seat, command] : commands) {
    auto events = rules.Decide(*state, seat, command, dice);
    ASSERT_TRUE(events) << engine::Describe(events.error());
    for (const asl::Event& event : *events) rules.Apply(*state, event);
  }
  auto table = asl::Preview(*state, Seat::kSideA, script.declarations[0].second.attacks[0]);
  ASSERT_TRUE(table) << engine::Describe(table.error());
  const aslpb::OutcomeTable message = OutcomeTableToProto(*table);
  EXPECT_EQ(message.column(), "1-2");
  EXPECT_EQ(message.kill_number(), 4);
  EXPECT_EQ(message.attack_strength(), "5");
  ASSERT_EQ(message.targets_size(), 2);
  EXPECT_EQ(message.targets(0).unit(), "R1");
  EXPECT_EQ(message.targets(0).final_dr_offset(), -1);
  EXPECT_EQ(message.targets(0).eliminated().exact(), "1/6");
  EXPECT_EQ(message.all_eliminated().exact(), "1/6");
  EXPECT_EQ(message.original_two().exact(), "1/36");
  EXPECT_DOUBLE_EQ(message.original_two().percent(), 2.78);
}

TEST(AslCodec, HalfStrengthPrintsExactAndMixed) {
  asl::State state;
  asl::Unit unit;
  unit.id = "G1";
  state.units = {unit, unit};
  state.units[1].id = "R1";
  asl::Event event;
  event.kind = asl::EventKind::kAttackResolved;
  asl::AttackReport report;
  report.attackers = {0};
  report.targets = {1};
  report.attack_strength = engine::Rational(5, 2);
  report.defence_strength = engine::Rational(4);
  report.results = {
      asl::TargetResult{.unit = 1, .drms = {}, .final_dr = 7, .outcome = asl::Outcome::kNoEffect}};
  event.attack = report;
  const aslpb::AslEvent message = EventToProto(state, event);
  EXPECT_EQ(message.attack().attack_strength(), "5/2");
  EXPECT_EQ(message.attack().attack_strength_mixed(), "2 1/2");
  EXPECT_EQ(message.attack().results(0).outcome(), aslpb::OUTCOME_NO_EFFECT);
  EXPECT_FALSE(message.attack().has_leader_creation());
  EXPECT_EQ(message.attack().director(), "");
}

}  // namespace
}  // namespace melee::proto
