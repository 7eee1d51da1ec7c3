// Counter notation (proto/codec/notation.h, docs/counter-notation.md): every form of the three
// rulesets read with its numbers checked, notation -> Unit -> notation round trips, every bad
// input refused with the word (and in a roster the file and line) named, and every example in
// examples/ read as both seats' set-ups.

#include "proto/codec/notation.h"

#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "engine/asl/model.h"
#include "proto/codec/asl.h"
#include "proto/codec/coc.h"
#include "proto/codec/json.h"
#include "proto/codec/vv.h"

namespace melee::proto {
namespace {

namespace aslpb = melee::asl::v1;
namespace cocpb = melee::coc::v1;
namespace vvpb = melee::vv::v1;
namespace v1 = melee::v1;
using ::testing::HasSubstr;

bool Same(const google::protobuf::Message& a, const google::protobuf::Message& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

aslpb::Unit Asl(const std::string& notation, v1::Seat owner = v1::SEAT_SIDE_A) {
  auto unit = AslUnitFromNotation("A1", owner, notation);
  EXPECT_TRUE(unit.has_value()) << notation << ": " << (unit ? "" : unit.error().message);
  return unit.value_or(aslpb::Unit{});
}

std::string AslError(const std::string& notation) {
  auto unit = AslUnitFromNotation("A1", v1::SEAT_SIDE_A, notation);
  EXPECT_FALSE(unit.has_value()) << notation << " was read as " << ToJson(*unit);
  return unit ? "" : engine::Describe(unit.error());
}

vvpb::Unit Vv(const std::string& notation) {
  auto unit = VvUnitFromNotation("V1", v1::SEAT_SIDE_A, notation);
  EXPECT_TRUE(unit.has_value()) << notation << ": " << (unit ? "" : unit.error().message);
  return unit.value_or(vvpb::Unit{});
}

std::string VvError(const std::string& notation) {
  auto unit = VvUnitFromNotation("V1", v1::SEAT_SIDE_A, notation);
  EXPECT_FALSE(unit.has_value()) << notation << " was read as " << ToJson(*unit);
  return unit ? "" : engine::Describe(unit.error());
}

cocpb::Unit Coc(const std::string& notation) {
  auto unit = CocUnitFromNotation("s1", v1::SEAT_SIDE_A, notation);
  EXPECT_TRUE(unit.has_value()) << notation << ": " << (unit ? "" : unit.error().message);
  return unit.value_or(cocpb::Unit{});
}

std::string CocError(const std::string& notation) {
  auto unit = CocUnitFromNotation("s1", v1::SEAT_SIDE_A, notation);
  EXPECT_FALSE(unit.has_value()) << notation << " was read as " << ToJson(*unit);
  return unit ? "" : engine::Describe(unit.error());
}

std::string Read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::filesystem::path Examples() { return std::filesystem::path(MELEE_SOURCE_DIR) / "examples"; }

// ---- asl ----------------------------------------------------------------------------------------

TEST(AslNotation, ASquadIsFirepowerRangeMorale) {
  const aslpb::Unit unit = Asl("4-6-7");
  EXPECT_EQ(unit.id(), "A1");
  EXPECT_EQ(unit.owner(), v1::SEAT_SIDE_A);
  EXPECT_EQ(unit.kind(), aslpb::UNIT_KIND_SQUAD);
  EXPECT_EQ(unit.firepower(), 4);
  EXPECT_EQ(unit.morale(), 7);
  EXPECT_EQ(unit.leadership(), 0);
  EXPECT_FALSE(unit.has_reduced_firepower());
  EXPECT_EQ(unit.name(), "4-6-7");
}

TEST(AslNotation, HalfSquadsAndCrews) {
  const aslpb::Unit hs = Asl("2-3-8 HS");
  EXPECT_EQ(hs.kind(), aslpb::UNIT_KIND_HALF_SQUAD);
  EXPECT_EQ(hs.firepower(), 2);
  EXPECT_EQ(hs.morale(), 8);
  EXPECT_EQ(hs.name(), "2-3-8");
  EXPECT_EQ(Asl("HS 2-3-8").kind(), aslpb::UNIT_KIND_HALF_SQUAD);
  EXPECT_EQ(Asl("2-3-8 half-squad").kind(), aslpb::UNIT_KIND_HALF_SQUAD);
  const aslpb::Unit crew = Asl("2-2-8 crew");
  EXPECT_EQ(crew.kind(), aslpb::UNIT_KIND_CREW);
  EXPECT_EQ(crew.firepower(), 2);
  EXPECT_EQ(crew.morale(), 8);
}

TEST(AslNotation, ASquadReducedToAHalfSquad) {
  // A7.302: the HS of a 4-6-7 has FP 2 (FP / 2) and the squad's ML.
  const aslpb::Unit hs = Asl("HS of 4-6-7");
  EXPECT_EQ(hs.kind(), aslpb::UNIT_KIND_HALF_SQUAD);
  EXPECT_EQ(hs.firepower(), 2);
  EXPECT_EQ(hs.morale(), 7);
  EXPECT_EQ(hs.name(), "4-6-7");
  EXPECT_EQ(Asl("HS of 7-4-7 hs-fp=4").firepower(), 4);
  EXPECT_EQ(Asl("HS of 5-4-8/3-3-8").firepower(), 3);
}

TEST(AslNotation, ASquadsHalfSquadSide) {
  EXPECT_FALSE(Asl("4-6-7/2-4-7").has_reduced_firepower());  // FP / 2: the default
  EXPECT_EQ(Asl("4-6-7/2-4-7").name(), "4-6-7");
  const aslpb::Unit unit = Asl("5-4-8/3-3-8");
  ASSERT_TRUE(unit.has_reduced_firepower());
  EXPECT_EQ(unit.reduced_firepower(), 3);
  EXPECT_EQ(Asl("5-4-8 hs-fp=3").reduced_firepower(), 3);
}

TEST(AslNotation, LeadersAreMoraleAndLeadership) {
  struct Case {
    const char* notation;
    int morale;
    int leadership;
  };
  for (const Case& c :
       {Case{"8-1 leader", 8, -1}, Case{"9-2 leader", 9, -2}, Case{"10-2 leader", 10, -2},
        Case{"8-0 leader", 8, 0}, Case{"6+1 leader", 6, 1}, Case{"leader 7-0", 7, 0},
        Case{"10-3 Leader", 10, -3}}) {
    const aslpb::Unit unit = Asl(c.notation);
    EXPECT_EQ(unit.kind(), aslpb::UNIT_KIND_LEADER) << c.notation;
    EXPECT_EQ(unit.morale(), c.morale) << c.notation;
    EXPECT_EQ(unit.leadership(), c.leadership) << c.notation;
    EXPECT_EQ(unit.firepower(), 0) << c.notation;
  }
  EXPECT_EQ(Asl("8-1 leader").name(), "8-1");
  EXPECT_EQ(Asl("8-1 leader on G1").stacked_on(), "G1");
}

TEST(AslNotation, AWoundedLeaderIsHisPrintedCounterMinusTheWound) {
  // A17.11: ML one less, leadership one worse.
  const aslpb::Unit unit = Asl("8-1 leader wounded");
  EXPECT_EQ(unit.wounds(), 1);
  EXPECT_EQ(unit.morale(), 7);
  EXPECT_EQ(unit.leadership(), 0);
  EXPECT_EQ(unit.name(), "8-1");
  EXPECT_EQ(AslNotationOf(unit), "8-1 leader wounded");
}

TEST(AslNotation, HeroesAndOtherSmc) {
  const aslpb::Unit hero = Asl("1-4-9 hero");
  EXPECT_EQ(hero.kind(), aslpb::UNIT_KIND_HERO);
  EXPECT_EQ(hero.firepower(), 1);
  EXPECT_EQ(hero.morale(), 9);
  EXPECT_EQ(Asl("1-4-9 hero wounded").wounds(), 1);
  EXPECT_EQ(Asl("1-4-9 hero wounded").morale(), 9);
  EXPECT_EQ(Asl("1-4-8 smc").kind(), aslpb::UNIT_KIND_OTHER_SMC);
}

TEST(AslNotation, ClassesNationalitiesAndStatus) {
  const aslpb::Unit engineers = Asl("6-2-8 assault engineers");
  EXPECT_EQ(engineers.kind(), aslpb::UNIT_KIND_SQUAD);
  EXPECT_EQ(engineers.firepower(), 6);
  EXPECT_EQ(engineers.morale(), 8);
  EXPECT_TRUE(engineers.assault_engineer());
  EXPECT_TRUE(Asl("6-2-8 assault-engineer").assault_engineer());

  const aslpb::Unit unit = Asl(
      "4-4-7 russian inexperienced stealthy lax commando gurkha partisan fanatic dare-death "
      "broken pinned CX TI guarding berserk disrupted in-wire on-crest in-bank-or-panji advanced "
      "atmm street-fighting concealed bpv=10 with LMG, MMG +DC");
  EXPECT_EQ(unit.nationality(), aslpb::NATIONALITY_RUSSIAN);
  for (bool flag :
       {unit.inexperienced(), unit.stealthy(),         unit.lax(),       unit.commando(),
        unit.gurkha(),        unit.partisan(),         unit.fanatic(),   unit.dare_death(),
        unit.broken(),        unit.pinned(),           unit.cx(),        unit.ti(),
        unit.guarding(),      unit.berserk(),          unit.disrupted(), unit.in_wire(),
        unit.on_crest(),      unit.in_bank_or_panji(), unit.advanced(),  unit.atmm(),
        unit.concealed()}) {
    EXPECT_TRUE(flag);
  }
  EXPECT_EQ(unit.street_fighting(), aslpb::STREET_FIGHTING_FROM_BUILDING);
  EXPECT_EQ(unit.bpv(), 10);
  EXPECT_THAT(unit.support_weapons(), ::testing::ElementsAre("LMG", "MMG", "DC"));

  for (const auto& [word, nationality] : {std::pair{"german", aslpb::NATIONALITY_GERMAN},
                                          {"american", aslpb::NATIONALITY_AMERICAN},
                                          {"us", aslpb::NATIONALITY_AMERICAN},
                                          {"british", aslpb::NATIONALITY_BRITISH},
                                          {"soviet", aslpb::NATIONALITY_RUSSIAN},
                                          {"italian", aslpb::NATIONALITY_ITALIAN},
                                          {"finnish", aslpb::NATIONALITY_FINNISH},
                                          {"japanese", aslpb::NATIONALITY_JAPANESE},
                                          {"chinese", aslpb::NATIONALITY_CHINESE},
                                          {"other", aslpb::NATIONALITY_OTHER}}) {
    EXPECT_EQ(Asl(std::string("4-6-7 ") + word).nationality(), nationality) << word;
  }
  EXPECT_TRUE(Asl("4-4-7 ?").concealed());
  EXPECT_TRUE(Asl("4-4-7 green").inexperienced());
  EXPECT_TRUE(Asl("4-4-7 Broken cx").broken());  // words are case-insensitive
  EXPECT_EQ(Asl("4-4-7 street-fighting=obstacle").street_fighting(),
            aslpb::STREET_FIGHTING_IN_OBSTACLE);
  EXPECT_EQ(Asl("4-4-7 \"Guards\"").name(), "4-4-7 Guards");
}

TEST(AslNotation, DummiesAndVehicles) {
  const aslpb::Unit dummy = Asl("dummy");
  EXPECT_EQ(dummy.kind(), aslpb::UNIT_KIND_DUMMY);
  EXPECT_TRUE(dummy.concealed());  // A11.19: always under a "?"

  const aslpb::Unit tank = Asl("vehicle PzIVJ german cmg=5 bmg sn=7");
  EXPECT_EQ(tank.kind(), aslpb::UNIT_KIND_VEHICLE);
  EXPECT_EQ(tank.name(), "PzIVJ");
  EXPECT_EQ(tank.nationality(), aslpb::NATIONALITY_GERMAN);
  EXPECT_EQ(tank.vehicle().cmg(), 5);
  EXPECT_TRUE(tank.vehicle().bmg());
  EXPECT_EQ(tank.vehicle().sn_usage(), 7);
  EXPECT_EQ(tank.vehicle().armor(), aslpb::ARMOR_CLOSED_TOP);
  EXPECT_FALSE(tank.has_morale());

  const aslpb::Unit halftrack =
      Asl("vehicle \"SdKfz 251/1\" partially-armored ce motion immobile abandoned shocked stunned "
          "cmg-vca rmg=2 aamg=3 malfunctioned=cmg,sn");
  EXPECT_EQ(halftrack.name(), "SdKfz 251/1");
  EXPECT_EQ(halftrack.vehicle().armor(), aslpb::ARMOR_PARTIALLY_ARMORED);
  EXPECT_EQ(halftrack.vehicle().movement(), aslpb::MOVEMENT_MOTION);
  EXPECT_TRUE(halftrack.vehicle().crew_exposed());
  EXPECT_TRUE(halftrack.vehicle().cmg_vca_only());
  EXPECT_EQ(halftrack.vehicle().rmg(), 2);
  EXPECT_EQ(halftrack.vehicle().aamg(), 3);
  EXPECT_THAT(halftrack.vehicle().malfunctioned(), ::testing::ElementsAre("cmg", "sn"));
  EXPECT_EQ(Asl("4-4-7 rider of T1").rider_of(), "T1");
  EXPECT_EQ(Asl("4-4-7 passenger of T1").passenger_of(), "T1");
}

TEST(AslNotation, ACounterWithAnUnknownRange) {
  const aslpb::Unit unit = Asl("4-?-7");
  EXPECT_EQ(unit.firepower(), 4);
  EXPECT_EQ(unit.morale(), 7);
  EXPECT_EQ(unit.name(), "");
}

TEST(AslNotation, FormatsWhatTheCountersPrint) {
  EXPECT_EQ(AslNotationOf(Asl("2-4-7 HS broken CX")), "2-4-7 HS broken cx");
  EXPECT_EQ(AslNotationOf(Asl("4-6-7 german")), "4-6-7 german");
  EXPECT_EQ(AslNotationOf(Asl("6+1 leader")), "6+1 leader");
  EXPECT_EQ(AslNotationOf(Asl("+LMG 4-6-7 with MMG")), "4-6-7 with LMG, MMG");
  EXPECT_EQ(AslNotationOf(Asl("6-2-8 assault engineers")), "6-2-8 assault-engineer");
  EXPECT_EQ(AslNotationOf(Asl("4-4-7 ?")), "4-4-7 concealed");
  EXPECT_EQ(AslNotationOf(Asl("5-4-8/3-3-8")), "5-4-8 hs-fp=3");

  // A unit entered as JSON, with no name: its range is not known.
  aslpb::Unit json;
  json.set_kind(aslpb::UNIT_KIND_SQUAD);
  json.set_firepower(6);
  json.set_morale(8);
  EXPECT_EQ(AslNotationOf(json), "6-?-8");
  json.set_name("Gebirgsjager");
  EXPECT_EQ(AslNotationOf(json), "6-?-8 \"Gebirgsjager\"");
}

TEST(AslNotation, NationalityOtherIsNotWritten) {
  // The engine's views give NATIONALITY_OTHER to every unit entered without a nationality.
  aslpb::Unit unit = Asl("4-4-7");
  unit.set_nationality(aslpb::NATIONALITY_OTHER);
  EXPECT_EQ(AslNotationOf(unit), "4-4-7");
}

TEST(AslNotation, ASquadReducedInPlayReadsAsAHalfSquad) {
  // What the engine leaves after Casualty Reduction (A7.302): the same counter, now a HS.
  aslpb::Unit unit = Asl("4-6-7 german");
  unit.set_kind(aslpb::UNIT_KIND_HALF_SQUAD);
  unit.set_firepower(2);
  unit.set_broken(true);
  EXPECT_EQ(AslNotationOf(unit), "HS of 4-6-7 german broken");
  // ... and a wounded 8-1 (A17.11).
  aslpb::Unit leader = Asl("8-1 leader");
  leader.set_wounds(1);
  leader.set_morale(7);
  leader.set_leadership(0);
  EXPECT_EQ(AslNotationOf(leader), "8-1 leader wounded");
}

TEST(AslNotation, RoundTrips) {
  for (const char* notation :
       {"4-6-7",
        "2-4-7 HS broken cx",
        "2-2-8 crew",
        "8-1 leader",
        "9-2 leader",
        "10-2 leader",
        "6+1 leader",
        "8-0 leader",
        "1-4-9 hero wounded",
        "1-4-8 smc",
        "HS of 4-6-7",
        "HS of 7-4-7 hs-fp=4",
        "5-4-8 hs-fp=3",
        "6-2-8 german assault-engineer",
        "4-?-7",
        "8-1 leader german wounded concealed on G1",
        "4-4-7 russian inexperienced lax bpv=7",
        "4-6-7 german stealthy commando gurkha partisan dare-death fanatic atmm",
        "4-6-7 pinned ti guarding berserk disrupted in-wire on-crest in-bank-or-panji advanced",
        "4-6-7 street-fighting with LMG, DC",
        "4-6-7 street-fighting=obstacle concealed",
        "dummy",
        "vehicle PzIVJ german bmg cmg=5 sn=7",
        "vehicle \"SdKfz 251\" partially-armored non-stopped ce unarmed",
        "vehicle T34 ot motion immobile cmg=4 rmg=2 aamg=3 malfunctioned=cmg",
        "4-4-7 passenger of T1",
        "4-4-7 rider of T1",
        "4-6-7 \"1st Platoon\""}) {
    const aslpb::Unit unit = Asl(notation);
    EXPECT_EQ(AslNotationOf(unit), notation);
    auto again = AslUnitFromNotation("A1", v1::SEAT_SIDE_A, AslNotationOf(unit));
    ASSERT_TRUE(again.has_value()) << notation;
    EXPECT_TRUE(Same(*again, unit)) << notation;
  }
  // Other spellings read into the same units and write as above.
  for (const auto& [written, canonical] :
       {std::pair{"  4-6-7   GERMAN ", "4-6-7 german"},
        {"HS 2-4-7", "2-4-7 HS"},
        {"4-6-7/2-4-7", "4-6-7"},
        {"+LMG 4-6-7", "4-6-7 with LMG"},
        {"4-4-7 wire crest panji", "4-4-7 in-wire on-crest in-bank-or-panji"},
        {"4-4-7 conscript", "4-4-7 inexperienced"},
        {"leader 6+0", "6-0 leader"},
        {"6-2-8 assault engineers", "6-2-8 assault-engineer"},
        {"8-1 leader on G1 with LMG", "8-1 leader with LMG on G1"},
        {"vehicle PzIVJ bu stopped ct", "vehicle PzIVJ"}}) {
    EXPECT_EQ(AslNotationOf(Asl(written)), canonical) << written;
  }
}

TEST(AslNotation, EveryBadInputIsNamed) {
  struct Case {
    const char* notation;
    const char* error;
  };
  for (const Case& c : {
           Case{"4-6",
                "'4-6' is not a counter: expected FP-range-ML like 4-6-7, or a leader's "
                "ML-leadership like 8-1"},
           Case{"4-4",
                "'4-4' is not a counter: expected FP-range-ML like 4-6-7, or a leader's "
                "ML-leadership like 8-1 leader"},
           Case{"4-6 leader", "'4-6' is not a counter"},
           Case{"4-6-7-8", "'4-6-7-8' is not a counter"},
           Case{"", "no counter"},
           Case{"squad", "no counter"},
           Case{"4-6-13", "'4-6-13': ML 13 is out of range 1..12"},
           Case{"120-6-7", "FP 120 is out of range 0..99"},
           Case{"4-6-7 4-4-7", "two counters"},
           Case{"8-1 squad", "'8-1' is a leader's ML-leadership"},
           Case{"4-6-7 leader", "a leader's counter is ML-leadership like 8-1"},
           Case{"4-6-7 sturdy", "'sturdy' is not a word of the asl notation"},
           Case{"4-6-7 elite", "the CC rules have no elite class"},
           Case{"4-6-7 german russian", "two nationalities"},
           Case{"4-6-7 HS crew", "two kinds of unit"},
           Case{"4-6-7 bpv=lots", "bpv must be a number"},
           Case{"4-6-7 bpv=1000", "bpv 1000 is out of range 0..999"},
           Case{"4-6-7 with", "'with' needs a support weapon"},
           Case{"4-6-7 on", "needs a unit id"},
           Case{"4-6-7 on G1", "A11.14: 'on G1': only a SMC is stacked on an MMC"},
           Case{"4-6-7 wounded", "A17.11: 'wounded': only a SMC is wounded"},
           Case{"4-6-7 \"Guards", "a name in quotes has no closing \""},
           Case{"2-4-7/1-2-7 HS", "only a squad has a HS side"},
           Case{"HS of", "HS of needs the squad's counter"},
           Case{"4-6-7 of", "'of' follows HS"},
           Case{"4-6-7 cmg=3", "vehicle words"},
           Case{"vehicle T1 broken", "A11.5: a vehicle has no Personnel status"},
           Case{"vehicle 4-6-7", "has no FP-range-ML counter"},
           Case{"vehicle T1 concealed", "A11.5: a concealed vehicle is not supported"},
           Case{"4-6-7 street-fighting=roof", "A11.8"},
           Case{"4-6-7 malfunctioned=cmg", "vehicle words"},
           Case{"vehicle T1 malfunctioned=gun", "malfunctioned weapons are cmg, rmg, aamg or sn"},
           Case{"1-2+1 leader wounded", "not a counter"},
           Case{"7+3 leader wounded", "A17.11: '7+3' wounded would leave ML 6, leadership 4"},
           Case{"4-6-7 assault", "'assault' is followed by engineers"},
       }) {
    EXPECT_THAT(AslError(c.notation), HasSubstr(c.error)) << c.notation;
  }
}

// ---- vv -----------------------------------------------------------------------------------------

TEST(VvNotation, ASquadIsApfpRangeCasualtyRating) {
  const vvpb::Unit unit = Vv("4-6-5 squad");
  EXPECT_EQ(unit.id(), "V1");
  EXPECT_EQ(unit.kind(), vvpb::UNIT_KIND_SQUAD);
  EXPECT_EQ(unit.apfp(), 4);
  EXPECT_EQ(unit.casualty_rating(), 5);
  EXPECT_EQ(unit.reduced_apfp(), 2);  // the notation's default: halves, as 4-6-5 -> 2-6-2
  EXPECT_EQ(unit.reduced_casualty_rating(), 2);
  EXPECT_EQ(unit.name(), "4-6-5");
  EXPECT_EQ(Vv("4-6-5").kind(), vvpb::UNIT_KIND_SQUAD);
  const vvpb::Unit back = Vv("6-6-6/3-6-4 squad \"Engineer\"");
  EXPECT_EQ(back.reduced_apfp(), 3);
  EXPECT_EQ(back.reduced_casualty_rating(), 4);
  EXPECT_EQ(back.name(), "6-6-6 Engineer");
}

TEST(VvNotation, HalfSquadsLeadersAndHeroes) {
  const vvpb::Unit hs = Vv("2-6-2 hs with LMG \"M1919A6\" 3-6 (L)");
  EXPECT_EQ(hs.kind(), vvpb::UNIT_KIND_HALF_SQUAD);
  EXPECT_EQ(hs.apfp(), 2);
  EXPECT_EQ(hs.casualty_rating(), 2);
  ASSERT_EQ(hs.weapons_size(), 1);
  EXPECT_EQ(hs.weapons(0).id(), "LMG");
  EXPECT_EQ(hs.weapons(0).apfp(), 3);
  EXPECT_TRUE(hs.weapons(0).machine_gun());  // 15.2: an LMG is a machine gun
  EXPECT_FALSE(hs.weapons(0).heavy());
  EXPECT_EQ(hs.weapons(0).name(), "M1919A6 3-6 (L)");
  const vvpb::Unit reduced = Vv("hs of 4-6-5");
  EXPECT_EQ(reduced.kind(), vvpb::UNIT_KIND_HALF_SQUAD);
  EXPECT_EQ(reduced.apfp(), 2);
  EXPECT_EQ(reduced.casualty_rating(), 2);

  const vvpb::Unit leader = Vv("1-3-1 (-1) leader");
  EXPECT_EQ(leader.kind(), vvpb::UNIT_KIND_LEADER);
  EXPECT_EQ(leader.apfp(), 1);
  EXPECT_EQ(leader.casualty_rating(), 1);
  EXPECT_EQ(leader.leadership(), 1);  // a magnitude (VV-AMB-2)
  EXPECT_FALSE(leader.valorous());
  EXPECT_EQ(leader.name(), "1-3-1 (-1)");
  EXPECT_EQ(Vv("1-3-1 -2").leadership(), 2);
  EXPECT_EQ(Vv("1-3-1 -2").kind(), vvpb::UNIT_KIND_LEADER);
  const vvpb::Unit hero = Vv("1-3-1 (-1) hero");
  EXPECT_EQ(hero.kind(), vvpb::UNIT_KIND_LEADER);  // 16.5: a valorous leader
  EXPECT_TRUE(hero.valorous());
}

TEST(VvNotation, VehiclesGunsAndStatus) {
  const vvpb::Unit afv = Vv("afv M4A3 mg=4 main-gun=12 cr=3 immobile");
  EXPECT_EQ(afv.kind(), vvpb::UNIT_KIND_AFV);
  EXPECT_EQ(afv.name(), "M4A3");
  EXPECT_EQ(afv.apfp(), 4);
  EXPECT_EQ(afv.main_gun_apfp(), 12);
  EXPECT_EQ(afv.casualty_rating(), 3);
  EXPECT_TRUE(afv.immobile());
  const vvpb::Unit truck = Vv("vehicle mg=0 cr=2");
  EXPECT_EQ(truck.kind(), vvpb::UNIT_KIND_VEHICLE);
  const vvpb::Unit gun = Vv("gun \"Pak 40\" cr=2 gun-shield on T1");
  EXPECT_EQ(gun.kind(), vvpb::UNIT_KIND_GUN);
  EXPECT_TRUE(gun.gun_shield_faces_assault());
  EXPECT_EQ(gun.carrier(), "T1");
  const vvpb::Unit squad =
      Vv("4-6-5 squad valorous pinned advanced with BAR 2-4 L mg with "
         "MMG 5-8 (H)");
  EXPECT_TRUE(squad.valorous());
  EXPECT_TRUE(squad.pinned());
  EXPECT_TRUE(squad.advanced());
  ASSERT_EQ(squad.weapons_size(), 2);
  EXPECT_TRUE(squad.weapons(0).machine_gun());
  EXPECT_EQ(squad.weapons(0).name(), "2-4 (L)");
  EXPECT_TRUE(squad.weapons(1).heavy());
}

TEST(VvNotation, RoundTrips) {
  for (const char* notation :
       {"4-6-5 squad", "4-6-5 squad \"Rifle\"", "6-6-6/3-6-4 squad", "2-6-2 hs", "hs of 4-6-5",
        "hs of 6-6-6/3-6-4", "1-3-1 (-1) leader", "1-3-1 leader", "2-3-2 (-2) hero",
        "4-6-5 squad valorous pinned advanced on T1",
        "2-6-2 hs \"Rifle\" with LMG 3-6 (L) \"M1919A6\"", "2-6-2 hs with MMG 5-8 (H)",
        "4-6-5 squad with BAR 2-4 (L) mg", "4-6-5 squad with DC 4 (L)",
        "afv M4A3 mg=4 main-gun=12 cr=3 immobile", "vehicle mg=2 cr=2",
        "gun \"Pak 40\" cr=2 gun-shield on T1", "4-?-5 squad"}) {
    const vvpb::Unit unit = Vv(notation);
    EXPECT_EQ(VvNotationOf(unit), notation);
    auto again = VvUnitFromNotation("V1", v1::SEAT_SIDE_A, VvNotationOf(unit));
    ASSERT_TRUE(again.has_value()) << notation;
    EXPECT_TRUE(Same(*again, unit)) << notation;
  }
  // Reduced in play (14.61): the engine makes it a half squad of its reduced values.
  vvpb::Unit unit = Vv("4-6-5 squad \"Rifle\"");
  unit.set_kind(vvpb::UNIT_KIND_HALF_SQUAD);
  unit.set_apfp(2);
  unit.set_casualty_rating(2);
  unit.set_reduced_apfp(0);
  unit.set_reduced_casualty_rating(0);
  EXPECT_EQ(VvNotationOf(unit), "hs of 4-6-5 \"Rifle\"");
}

TEST(VvNotation, EveryBadInputIsNamed) {
  struct Case {
    const char* notation;
    const char* error;
  };
  for (const Case& c : {
           Case{"4-6", "'4-6' is not a counter: expected APFP-range-CR like 4-6-5"},
           Case{"squad", "a squad needs its counter"},
           Case{"leader", "a leader needs its counter"},
           Case{"", "no counter"},
           Case{"4-6-5 (+1) leader", "15.3: '(+1)': a V&V Leadership Modifier is subtracted"},
           Case{"1-3-1 (-4) leader", "15.3: '(-4)': the Leadership Modifier 4 is out of range"},
           Case{"4-6-5 (-1) squad", "15.3: only a leader has a Leadership Modifier"},
           Case{"4-6-1 squad", "14.61: a squad reduces to a half squad with a CR from 1"},
           Case{"4-6-21", "CR 21 is out of range 0..20"},
           Case{"4-6-5 with LMG", "give its APFP-range as printed"},
           Case{"4-6-5 with", "'with' needs a weapon"},
           Case{"4-6-5 sturdy", "'sturdy' is not a word of the vv notation"},
           Case{"2-6-2/1-6-1 hs", "only a squad has a half-squad side"},
           Case{"afv cr=30", "cr 30 is out of range 0..20"},
           Case{"afv mg=4 with LMG 3-6", "15.4"},
           Case{"4-6-5 squad hs", "two kinds of unit"},
           Case{"4-6-5 of", "'of' follows hs"},
           Case{"4-6-5 on", "'on' needs the vehicle's id"},
           Case{"4-6-5 immobile", "15.10"},
       }) {
    EXPECT_THAT(VvError(c.notation), HasSubstr(c.error)) << c.notation;
  }
}

// ---- coc ----------------------------------------------------------------------------------------

TEST(CocNotation, ASectionOfTeamsAndLeaders) {
  const cocpb::Unit unit = Coc("section regular: team 5 lmg, team 4 smg; leader junior");
  EXPECT_EQ(unit.id(), "s1");
  EXPECT_EQ(unit.side(), v1::SEAT_SIDE_A);
  EXPECT_EQ(unit.name(), "section");
  EXPECT_EQ(unit.quality(), cocpb::QUALITY_REGULAR);
  EXPECT_EQ(unit.role(), cocpb::ROLE_UNSPECIFIED);  // a roster gives it from the attacker
  ASSERT_EQ(unit.teams_size(), 2);
  EXPECT_EQ(unit.teams(0).id(), "s1-t1");
  EXPECT_EQ(unit.teams(0).figures(), 5);
  EXPECT_EQ(unit.teams(0).lmgs(), 1);
  EXPECT_EQ(unit.teams(1).id(), "s1-t2");
  EXPECT_EQ(unit.teams(1).figures(), 4);
  EXPECT_EQ(unit.teams(1).smgs(), 1);
  ASSERT_EQ(unit.leaders_size(), 1);
  EXPECT_EQ(unit.leaders(0).id(), "s1-l1");
  EXPECT_EQ(unit.leaders(0).rank(), cocpb::LEADER_RANK_JUNIOR);
  EXPECT_FALSE(unit.leaders(0).has_orders());
}

TEST(CocNotation, EveryWordOfAUnit) {
  const cocpb::Unit unit =
      Coc("\"Soviet SMG Section\" attacker elite aggressive stubborn broken hit-in-rear movement=2 "
          "through-arc=german_lmg through-fire=german_rifles: team soviet_team 7 7 smg shock=2, "
          "team 2 mmg crewed, team 3 2 lmg hmg; senior leader boss orders=3 smg wounded "
          "with soviet_team, leader stunned with 2");
  EXPECT_EQ(unit.name(), "Soviet SMG Section");
  EXPECT_EQ(unit.role(), cocpb::ROLE_ATTACKER);
  EXPECT_EQ(unit.quality(), cocpb::QUALITY_ELITE);
  EXPECT_TRUE(unit.aggressive());
  EXPECT_TRUE(unit.stubborn());
  EXPECT_TRUE(unit.broken());
  EXPECT_TRUE(unit.hit_in_rear());
  EXPECT_EQ(unit.movement_dice(), 2);
  EXPECT_THAT(unit.through_arcs(), ::testing::ElementsAre("german_lmg"));
  EXPECT_THAT(unit.through_suppressing_fire(), ::testing::ElementsAre("german_rifles"));
  ASSERT_EQ(unit.teams_size(), 3);
  EXPECT_EQ(unit.teams(0).id(), "soviet_team");
  EXPECT_EQ(unit.teams(0).smgs(), 7);
  EXPECT_EQ(unit.teams(0).shock(), 2);
  EXPECT_EQ(unit.teams(1).mmgs(), 1);
  EXPECT_TRUE(unit.teams(1).crewed_weapon());
  EXPECT_EQ(unit.teams(2).lmgs(), 2);
  EXPECT_EQ(unit.teams(2).mmgs(), 1);
  ASSERT_EQ(unit.leaders_size(), 2);
  EXPECT_EQ(unit.leaders(0).id(), "boss");
  EXPECT_EQ(unit.leaders(0).rank(), cocpb::LEADER_RANK_SENIOR);
  EXPECT_EQ(unit.leaders(0).orders(), 3);
  EXPECT_TRUE(unit.leaders(0).smg());
  EXPECT_EQ(unit.leaders(0).status(), cocpb::LEADER_STATUS_WOUNDED);
  EXPECT_EQ(unit.leaders(0).team(), "soviet_team");
  EXPECT_EQ(unit.leaders(1).id(), "s1-l2");
  EXPECT_EQ(unit.leaders(1).status(), cocpb::LEADER_STATUS_STUNNED);
  EXPECT_EQ(unit.leaders(1).team(), "s1-t2");

  const cocpb::Unit support = Coc("squad support green support-dice=6: team 8");
  EXPECT_EQ(support.role(), cocpb::ROLE_SUPPORT);
  EXPECT_EQ(support.quality(), cocpb::QUALITY_GREEN);
  EXPECT_EQ(support.support_firepower(), 6);
  const cocpb::Unit tank = Coc("\"T-34\" tank armour=3 shock=1");
  EXPECT_TRUE(tank.vehicle());
  EXPECT_TRUE(tank.tracked());
  EXPECT_EQ(tank.armour(), 3);
  EXPECT_EQ(tank.vehicle_shock(), 1);
  EXPECT_TRUE(tank.teams().empty());
}

TEST(CocNotation, RoundTrips) {
  for (const char* notation :
       {"section: team 5 lmg, team 4 smg; leader",
        "squad defender: team german_lmg 3 lmg, "
        "team german_rifles 5; leader german_jl wounded with german_lmg",
        "\"1st Section\" attacker elite aggressive movement=1 through-arc=b-t1: team 7 7 smg "
        "shock=3; senior leader orders=3 smg, leader with 1",
        "support green stubborn broken hit-in-rear support-dice=4: team 2 mmg crewed",
        "\"T-34\" attacker tank armour=3 shock=2", "vehicle: team 2",
        "attacker: team 4 2 smg 2 lmg 3 mmg"}) {
    const cocpb::Unit unit = Coc(notation);
    EXPECT_EQ(CocNotationOf(unit), notation);
    auto again = CocUnitFromNotation("s1", v1::SEAT_SIDE_A, CocNotationOf(unit));
    ASSERT_TRUE(again.has_value()) << notation;
    EXPECT_TRUE(Same(*again, unit)) << notation;
  }
  EXPECT_EQ(CocNotationOf(Coc("section regular: team 5 lmg, team 4 smg; leader junior")),
            "section: team 5 lmg, team 4 smg; leader");
}

TEST(CocNotation, EveryBadInputIsNamed) {
  struct Case {
    const char* notation;
    const char* error;
  };
  for (const Case& c : {
           Case{"section", "an infantry Unit needs its teams"},
           Case{"section: team", "a team needs its figures"},
           Case{"section: team lmg", "a team needs its figures"},
           Case{"section: team 40", "figures 40 is out of range 0..30"},
           Case{"section: team 5 2", "'2' needs a weapon after it"},
           Case{"section: team 5 bazooka", "'bazooka' is not a word of the coc notation"},
           Case{"section: rifles 5", "'rifles' starts neither a team nor a leader"},
           Case{"section: team 5; junior", "write 'leader' in a leader's part"},
           Case{"section: team 5; leader orders=9", "orders 9 is out of range 0..6"},
           Case{"section: team 5; leader with 3", "this Unit has teams 1..1"},
           Case{"section: team 5; leader with scouts", "no such team in this Unit"},
           Case{"section attacker defender: team 5", "two roles"},
           Case{"section elite green: team 5", "two qualities"},
           Case{"section, elite: team 5", "separates teams and leaders"},
           Case{"section: team 5: team 4", "one ':' ends the Unit's words"},
           Case{"section heroic: team 5", "'heroic' is not a word of the coc notation"},
           Case{"tank armour=12", "armour 12 is out of range 0..9"},
           Case{"squad movement=9: team 5", "movement 9 is out of range 0..4"},
       }) {
    EXPECT_THAT(CocError(c.notation), HasSubstr(c.error)) << c.notation;
  }
  auto long_id =
      CocUnitFromNotation("a-very-long-unit-id-of-31-chars", v1::SEAT_SIDE_A, "section: team 5");
  ASSERT_FALSE(long_id.has_value());
  EXPECT_THAT(long_id.error().message, HasSubstr("give the team an id"));
}

// ---- rosters ------------------------------------------------------------------------------------

engine::Result<v1::SubmitSetup> Roster(const std::string& ruleset, const std::string& text,
                                       v1::Seat seat = v1::SEAT_SIDE_A) {
  return SetupFromRoster(ruleset, text, seat, "roster.txt");
}

std::string RosterError(const std::string& ruleset, const std::string& text,
                        v1::Seat seat = v1::SEAT_SIDE_A) {
  auto setup = Roster(ruleset, text, seat);
  EXPECT_FALSE(setup.has_value()) << text;
  return setup ? "" : setup.error().message;
}

TEST(Roster, AnAslRosterGivesTheSeatsSideSetup) {
  const std::string text =
      "# Hill 621\n"
      "ruleset: asl\n"
      "side: side_a\n"
      "location: G3 woods-or-building melee ambusher=side_b excess-side-a=1\n"
      "Attacker: Side_A   # the ATTACKER\n"
      "nationality: german\n"
      "\n"
      "G1: 4-6-7\n"
      "G2: 4-6-7 russian broken\n"
      "L1: 8-1 leader on G1 with LMG\n"
      "side: side_b\n"
      "nationality: russian\n"
      "R1: 4-4-7 concealed\n";
  auto a = Roster("asl", text);
  ASSERT_TRUE(a.has_value()) << a.error().message;
  ASSERT_TRUE(a->has_asl());
  const aslpb::SideSetup& setup = a->asl();
  EXPECT_EQ(setup.location().name(), "G3");
  EXPECT_TRUE(setup.location().woods_or_building());
  EXPECT_TRUE(setup.location().melee());
  EXPECT_EQ(setup.location().ambusher(), v1::SEAT_SIDE_B);
  EXPECT_EQ(setup.location().excess_squads_side_a(), 1);
  EXPECT_EQ(setup.attacker(), v1::SEAT_SIDE_A);
  ASSERT_EQ(setup.units_size(), 3);
  EXPECT_EQ(setup.units(0).nationality(), aslpb::NATIONALITY_GERMAN);
  EXPECT_EQ(setup.units(1).nationality(), aslpb::NATIONALITY_RUSSIAN);  // its own word wins
  EXPECT_EQ(setup.units(2).stacked_on(), "G1");
  for (const aslpb::Unit& unit : setup.units()) EXPECT_EQ(unit.owner(), v1::SEAT_SIDE_A);

  auto b = Roster("asl", text, v1::SEAT_SIDE_B);
  ASSERT_TRUE(b.has_value()) << b.error().message;
  ASSERT_EQ(b->asl().units_size(), 1);
  EXPECT_EQ(b->asl().units(0).id(), "R1");
  EXPECT_EQ(b->asl().units(0).owner(), v1::SEAT_SIDE_B);
  EXPECT_EQ(b->asl().units(0).nationality(), aslpb::NATIONALITY_RUSSIAN);
  EXPECT_EQ(b->asl().location().name(), "G3");  // the shared facts, whoever wrote them

  // Lines before any side: belong to the seat that reads the roster.
  auto mine = Roster("asl", "R9: 4-4-7\n", v1::SEAT_SIDE_B);
  ASSERT_TRUE(mine.has_value());
  EXPECT_EQ(mine->asl().units(0).owner(), v1::SEAT_SIDE_B);
  EXPECT_FALSE(mine->asl().has_location());
  EXPECT_EQ(mine->asl().attacker(), v1::SEAT_UNSPECIFIED);
}

TEST(Roster, ACocRosterGivesRolesFromTheAttacker) {
  const std::string text =
      "attacker: side_b\n"
      "side: side_a\n"
      "obstacle: minor\nposition: open\ncover: light\nengagement: close combat\n"
      "Force Morale: 8\n"
      "a1: section: team 5 lmg, team 4; leader\n"
      "a2: section: team 6\n"
      "side: side_b\n"
      "force-morale: 10\n"
      "b1: section elite: team 8 2 smg; senior leader orders=3\n";
  auto a = Roster("coc", text);
  ASSERT_TRUE(a.has_value()) << a.error().message;
  const cocpb::SideSetup& setup = a->coc();
  EXPECT_EQ(setup.attacker(), v1::SEAT_SIDE_B);
  EXPECT_EQ(setup.obstacle(), cocpb::OBSTACLE_MINOR);
  EXPECT_EQ(setup.cover(), cocpb::COVER_LIGHT);
  EXPECT_EQ(setup.force_morale(), 8);
  ASSERT_EQ(setup.units_size(), 2);
  EXPECT_EQ(setup.units(0).role(), cocpb::ROLE_DEFENDER);  // the first, nobody marked defender
  EXPECT_EQ(setup.units(1).role(), cocpb::ROLE_SUPPORT);
  EXPECT_EQ(setup.units(0).side(), v1::SEAT_SIDE_A);

  auto b = Roster("coc", text, v1::SEAT_SIDE_B);
  ASSERT_TRUE(b.has_value()) << b.error().message;
  EXPECT_EQ(b->coc().force_morale(), 10);
  EXPECT_EQ(b->coc().units(0).role(), cocpb::ROLE_ATTACKER);
  EXPECT_EQ(b->coc().units(0).leaders(0).orders(), 3);

  // A Unit marked defender makes the others support.
  auto marked = Roster("coc",
                       "attacker: side_b\nforce-morale: 7\na1: section: team 5\n"
                       "a2: section defender: team 6\n");
  ASSERT_TRUE(marked.has_value()) << marked.error().message;
  EXPECT_EQ(marked->coc().units(0).role(), cocpb::ROLE_SUPPORT);
  EXPECT_EQ(marked->coc().units(1).role(), cocpb::ROLE_DEFENDER);

  // The place of the contact (docs/forces.md): Units the match carries there join it.
  auto placed = Roster("coc", "attacker: side_a\nlocation: \"the farmhouse\"\nforce-morale: 7\n"
                              "a1: section: team 5\n");
  ASSERT_TRUE(placed.has_value()) << placed.error().message;
  EXPECT_EQ(placed->coc().location(), "the farmhouse");
  EXPECT_NE(RosterOf(*placed).find("location: \"the farmhouse\""), std::string::npos);
  auto two = Roster("coc", "location: farmhouse orchard\nforce-morale: 7\na1: section: team 5\n");
  ASSERT_FALSE(two.has_value());
  EXPECT_THAT(two.error().message, ::testing::HasSubstr("location: one name"));
}

TEST(Roster, AVvRosterGivesTheHexesAndThePool) {
  const std::string text =
      "attacker: side_a\nsource: B1\ntarget: C1 terrain=3 hexside=1 fortification=2 "
      "hindrance=1 capacity=2\nuphill: 1\nsource-assaulted: no\ngrenades: 2\n"
      "satchel-charges: 1\nsatchel-apfp: 4\n"
      "G1: 4-6-5 squad\nT1: afv mg=4 cr=3\nG2: 2-6-2 hs on T1\n";
  auto a = Roster("vv", text);
  ASSERT_TRUE(a.has_value()) << a.error().message;
  const vvpb::SideSetup& setup = a->vv();
  EXPECT_EQ(setup.attacker(), v1::SEAT_SIDE_A);
  EXPECT_EQ(setup.source_hex(), "B1");
  EXPECT_EQ(setup.target().name(), "C1");
  EXPECT_EQ(setup.target().terrain_cover(), 3);
  EXPECT_EQ(setup.target().hexside_cover(), 1);
  EXPECT_EQ(setup.target().fortification_cover(), 2);
  EXPECT_EQ(setup.target().hindrance_cover(), 1);
  EXPECT_EQ(setup.target().capacity(), 2);
  EXPECT_EQ(setup.uphill_levels(), 1);
  EXPECT_EQ(setup.expendables().grenades(), 2);
  EXPECT_EQ(setup.expendables().satchel_charges(), 1);
  EXPECT_EQ(setup.expendables().satchel_apfp(), 4);
  ASSERT_EQ(setup.units_size(), 3);
  EXPECT_EQ(setup.units(2).carrier(), "T1");
}

TEST(Roster, EveryBadLineIsNamedWithItsFileAndLine) {
  struct Case {
    const char* ruleset;
    const char* text;
    const char* error;
  };
  for (const Case& c : {
           Case{"asl", "# my units\nattacker: side_a\nlocation: G3\nA1: 4-6\n",
                "roster.txt:4: '4-6' is not a counter: expected FP-range-ML like 4-6-7"},
           Case{"asl", "A1 4-6-7\n", "roster.txt:1: 'A1 4-6-7': expected '<id>: <counter>'"},
           Case{"asl", "A1: 4-6-7\nA1: 4-4-7\n", "roster.txt:2: id 'A1' is already used on line 1"},
           Case{"asl", "A1: 4-6-7\ntarget: C1\n",
                "roster.txt:2: 'target' is a line of a vv roster; this one is asl"},
           Case{"asl", "my unit: 4-6-7\n", "roster.txt:1: 'my unit' is neither a unit id"},
           Case{"asl", "ruleset: coc\n",
                "roster.txt:1: this roster is for 'coc'; the match "
                "plays asl"},
           Case{"asl", "attacker: side_c\n", "roster.txt:1: attacker: side_a or side_b"},
           Case{"asl", "side: north\n", "roster.txt:1: side: side_a or side_b"},
           Case{"asl", "attacker: a\nattacker: a\nA1: 4-6-7\n",
                "roster.txt:2: attacker is given twice (also on line 1)"},
           Case{"asl", "location: G3 upstairs\n",
                "roster.txt:1: 'upstairs' is not a word of a "
                "Location"},
           Case{"asl", "nationality: martian\n", "roster.txt:1: nationality: german"},
           Case{"asl", "L1: 8-1 leader on G9\nG1: 4-6-7\n",
                "roster.txt:1: A11.14: 'on G9': no MMC G9 of side_a in this roster"},
           Case{"asl", "side: side_b\nR1: 4-4-7\n",
                "roster.txt: no unit of side_a in this roster (its units are the other side's)"},
           Case{"asl", "# nothing\n", "roster.txt: no unit of side_a in this roster"},
           Case{"asl", "A1: 4-6-7\nside: side_b\nB1: 4-4-7\n",
                "roster.txt:1: 'A1' comes before the first 'side:' line"},
           Case{"asl", "A1: 4-6-7 \"Guards\"\x01\n", "roster.txt:1: control characters"},
           Case{"asl", "A1: 4-4-7 rider of T1\n", "roster.txt:1: A11.611: 'T1': no vehicle T1"},
           Case{"coc", "a1: section: team 5\n",
                "roster.txt:1: give the Unit's role (attacker, defender or support), or an "
                "'attacker:' line"},
           Case{"coc", "attacker: side_a\na1: section: team 5\n",
                "roster.txt: side_a's Force Morale is missing: add a line 'force-morale: N'"},
           Case{"coc", "attacker: side_a\nforce-morale: 12\n",
                "roster.txt:2: force-morale: a number 1..11, not '12'"},
           Case{"coc", "attacker: side_a\nforce-morale: 9\na1: section defender: team 5\n",
                "roster.txt:3: 17.1: side_a is the attacker: its Units attack"},
           Case{"coc", "attacker: side_b\nforce-morale: 9\na1: section attacker: team 5\n",
                "roster.txt:3: 17.2: side_a defends (the attacker is side_b)"},
           Case{"coc", "attacker: side_b\nforce-morale: 9\na1: section: team 5, team a1-t1 4\n",
                "roster.txt:3: id 'a1-t1' is already used on line 3"},
           Case{"coc", "position: upstairs\n",
                "roster.txt:1: position: open, "
                "building-from-outside"},
           Case{"vv", "location: G3\n", "roster.txt:1: 'location' is a line of a asl roster"},
           Case{"vv", "target: terrain=3\n", "roster.txt:1: 15.1: target: the hex's name first"},
           Case{"vv", "target: C1 walls=2\n",
                "roster.txt:1: 'walls=2' is not a word of a "
                "target hex"},
           Case{"vv", "target: C1 terrain=12\n",
                "roster.txt:1: 'terrain=12': terrain 12 is "
                "out of range 0..9"},
           Case{"vv", "uphill: 5\n", "roster.txt:1: uphill: a number 0..4, not '5'"},
           Case{"vv", "source-assaulted: maybe\n", "roster.txt:1: source-assaulted: yes or no"},
           Case{"vv", "G1: 4-6-5 squad on T1\n", "roster.txt:1: 8: 'on T1': no vehicle T1"},
           Case{"vv", "G1: 4-6-5 squad\ngrenades: 1\ngrenades: 2\n",
                "roster.txt:3: grenades is given twice"},
       }) {
    EXPECT_THAT(RosterError(c.ruleset, c.text), HasSubstr(c.error)) << c.text;
  }
  auto nowhere = SetupFromRoster("chess", "A1: 4-6-7", v1::SEAT_SIDE_A, "r.txt");
  ASSERT_FALSE(nowhere.has_value());
  EXPECT_THAT(nowhere.error().message, HasSubstr("unknown ruleset 'chess'"));
  auto director = SetupFromRoster("asl", "A1: 4-6-7", v1::SEAT_DIRECTOR, "r.txt");
  ASSERT_FALSE(director.has_value());
  EXPECT_THAT(director.error().message, HasSubstr("only side_a and side_b enter units"));
}

TEST(Roster, JsonSetUpsStillReadAndAreChecked) {
  const std::string json =
      R"({"location": {"name": "G3"}, "attacker": "SEAT_SIDE_A", "units": [{"id": "G1",)"
      R"( "owner": "SEAT_SIDE_A", "kind": "UNIT_KIND_SQUAD", "firepower": 4, "morale": 7}]})";
  auto setup = ReadSideSetup("asl", json, v1::SEAT_SIDE_A, "a.json");
  ASSERT_TRUE(setup.has_value()) << setup.error().message;
  EXPECT_EQ(setup->asl().units(0).firepower(), 4);
  auto theirs = ReadSideSetup("asl", json, v1::SEAT_SIDE_B, "a.json");
  ASSERT_FALSE(theirs.has_value());
  EXPECT_THAT(theirs.error().message,
              HasSubstr("a.json: unit 'G1' is side_a's; side_b enters only its own units"));
  auto misspelt =
      ReadSideSetup("asl", R"({"units": [{"fire_power": 4}]})", v1::SEAT_SIDE_A, "a.json");
  ASSERT_FALSE(misspelt.has_value());
  EXPECT_THAT(misspelt.error().message, HasSubstr("a.json: not a valid melee.asl.v1.SideSetup"));
  auto bad = ReadSideSetup("asl", R"({"units": [{"id": "G1", "owner": "SEAT_SIDE_A"}]})",
                           v1::SEAT_SIDE_A, "a.json");
  ASSERT_FALSE(bad.has_value());
  EXPECT_THAT(bad.error().message, HasSubstr("a.json: units[0].kind"));
  auto broken = ReadSideSetup("asl", "{ not json", v1::SEAT_SIDE_A, "a.json");
  ASSERT_FALSE(broken.has_value());
  EXPECT_THAT(broken.error().message, HasSubstr("a.json: not valid JSON"));
  // A roster reads through the same door.
  auto roster = ReadSideSetup("asl", "\n  G1: 4-6-7\n", v1::SEAT_SIDE_A, "r.txt");
  ASSERT_TRUE(roster.has_value()) << roster.error().message;
  EXPECT_EQ(roster->asl().units(0).name(), "4-6-7");
}

// ---- every example, both seats
// -------------------------------------------------------------------

// The Situation both seats' set-ups make, merged as the server merges them.
aslpb::Situation AslMerged(const aslpb::SideSetup& a, const aslpb::SideSetup& b) {
  aslpb::Situation situation;
  for (const aslpb::SideSetup* side : {&a, &b}) {
    if (side->has_location() && !situation.has_location()) {
      *situation.mutable_location() = side->location();
    }
    if (side->attacker() != v1::SEAT_UNSPECIFIED) situation.set_attacker(side->attacker());
    for (const aslpb::Unit& unit : side->units()) *situation.add_units() = unit;
  }
  return situation;
}

cocpb::Situation CocMerged(const cocpb::SideSetup& a, const cocpb::SideSetup& b) {
  cocpb::Situation situation;
  for (const cocpb::SideSetup* side : {&a, &b}) {
    if (side->attacker() != v1::SEAT_UNSPECIFIED) situation.set_attacker(side->attacker());
    if (side->engagement() != 0) situation.set_engagement(side->engagement());
    if (side->obstacle() != 0) situation.set_obstacle(side->obstacle());
    if (side->position() != 0) situation.set_position(side->position());
    if (side->cover() != 0) situation.set_cover(side->cover());
    for (const cocpb::Unit& unit : side->units()) *situation.add_units() = unit;
  }
  situation.set_side_a_force_morale(a.force_morale());
  situation.set_side_b_force_morale(b.force_morale());
  return situation;
}

vvpb::Situation VvMerged(const vvpb::SideSetup& a, const vvpb::SideSetup& b) {
  vvpb::Situation situation;
  for (const vvpb::SideSetup* side : {&a, &b}) {
    if (side->attacker() != v1::SEAT_UNSPECIFIED) situation.set_attacker(side->attacker());
    if (!side->source_hex().empty()) situation.set_source_hex(side->source_hex());
    if (side->has_target() && !situation.has_target()) *situation.mutable_target() = side->target();
    if (side->uphill_levels() != 0) situation.set_uphill_levels(side->uphill_levels());
    for (const vvpb::Unit& unit : side->units()) *situation.add_units() = unit;
  }
  if (a.has_expendables()) *situation.mutable_side_a_expendables() = a.expendables();
  if (b.has_expendables()) *situation.mutable_side_b_expendables() = b.expendables();
  return situation;
}

// Reads `path` for both seats, checks each set-up holds only its seat's units, writes each as a
// roster and reads it back unchanged; returns the two set-ups.
std::pair<v1::SubmitSetup, v1::SubmitSetup> BothSeats(const std::string& ruleset,
                                                      const std::filesystem::path& a_path,
                                                      const std::filesystem::path& b_path) {
  std::pair<v1::SubmitSetup, v1::SubmitSetup> out;
  for (const auto& [seat, path, setup] : {std::tuple{v1::SEAT_SIDE_A, a_path, &out.first},
                                          std::tuple{v1::SEAT_SIDE_B, b_path, &out.second}}) {
    auto read = ReadSideSetup(ruleset, Read(path), seat, path.filename().string());
    EXPECT_TRUE(read.has_value()) << path << " as " << seat << ": "
                                  << (read ? "" : read.error().message);
    if (!read) continue;
    *setup = *read;
    const std::string roster = RosterOf(*read);
    auto again = SetupFromRoster(ruleset, roster, seat, "RosterOf");
    EXPECT_TRUE(again.has_value()) << roster << (again ? "" : again.error().message);
    if (again) {
      EXPECT_TRUE(Same(*again, *read)) << path << "\n" << roster << ToJson(*again);
    }
  }
  return out;
}

TEST(NotationExamples, EveryAslExampleIsBothSeatsSetUp) {
  for (const auto& entry : std::filesystem::directory_iterator(Examples() / "asl")) {
    if (entry.path().extension() != ".json") continue;
    const auto [a, b] = BothSeats("asl", entry.path(), entry.path());
    for (const aslpb::Unit& unit : a.asl().units()) EXPECT_EQ(unit.owner(), v1::SEAT_SIDE_A);
    for (const aslpb::Unit& unit : b.asl().units()) EXPECT_EQ(unit.owner(), v1::SEAT_SIDE_B);
    // Together they are the file's situation, as the server merges them.
    auto file = CloseCombatFromJson(Read(entry.path()));
    ASSERT_TRUE(file.has_value());
    EXPECT_TRUE(Same(AslMerged(a.asl(), b.asl()), file->situation())) << entry.path();
  }
}

TEST(NotationExamples, TheAslRostersAreTheLeaderDirectsExample) {
  const auto [a, b] = BothSeats("asl", Examples() / "asl" / "roster-side-a.txt",
                                Examples() / "asl" / "roster-side-b.txt");
  auto file = CloseCombatFromJson(Read(Examples() / "asl" / "leader-directs-11-141.json"));
  ASSERT_TRUE(file.has_value());
  const aslpb::Situation merged = AslMerged(a.asl(), b.asl());
  EXPECT_TRUE(Same(merged, file->situation())) << ToJson(merged);
  auto situation = SituationFromProto(merged, "situation");
  ASSERT_TRUE(situation.has_value()) << situation.error().message;
  EXPECT_TRUE(engine::asl::ValidateSituation(*situation).has_value());
}

TEST(NotationExamples, TheCocExampleAndRostersAreInAction) {
  const auto json = Examples() / "coc" / "in-action-17.json";
  const auto [a, b] = BothSeats("coc", json, json);
  auto file = ContactFromJson(Read(json));
  ASSERT_TRUE(file.has_value());
  EXPECT_TRUE(Same(CocMerged(a.coc(), b.coc()), file->situation()));
  const auto [ra, rb] = BothSeats("coc", Examples() / "coc" / "roster-side-a.txt",
                                  Examples() / "coc" / "roster-side-b.txt");
  const cocpb::Situation merged = CocMerged(ra.coc(), rb.coc());
  EXPECT_TRUE(Same(merged, file->situation())) << ToJson(merged);
}

TEST(NotationExamples, TheVvExampleAndRostersAreTheCloseAssaultExample) {
  const auto json = Examples() / "vv" / "close-assault-15.json";
  const auto [a, b] = BothSeats("vv", json, json);
  auto file = CloseAssaultFromJson(Read(json));
  ASSERT_TRUE(file.has_value());
  EXPECT_TRUE(Same(VvMerged(a.vv(), b.vv()), file->situation()));
  const auto [ra, rb] = BothSeats("vv", Examples() / "vv" / "roster-side-a.txt",
                                  Examples() / "vv" / "roster-side-b.txt");
  const vvpb::Situation merged = VvMerged(ra.vv(), rb.vv());
  EXPECT_TRUE(Same(merged, file->situation())) << ToJson(merged);
}

// The two-sided roster of docs/counter-notation.md reads for both seats into a Location the
// engine accepts.
TEST(NotationExamples, TheDocumentsTwoSidedRosterIsALocation) {
  const std::string doc =
      Read(std::filesystem::path(MELEE_SOURCE_DIR) / "docs" / "counter-notation.md");
  const size_t intro = doc.find("A richer one, both sides in one file:");
  ASSERT_NE(intro, std::string::npos);
  const size_t begin = doc.find("```text\n", intro) + 8;
  const std::string roster = doc.substr(begin, doc.find("```", begin) - begin);
  auto a = SetupFromRoster("asl", roster, v1::SEAT_SIDE_A, "doc");
  auto b = SetupFromRoster("asl", roster, v1::SEAT_SIDE_B, "doc");
  ASSERT_TRUE(a.has_value()) << a.error().message;
  ASSERT_TRUE(b.has_value()) << b.error().message;
  EXPECT_EQ(a->asl().units_size(), 4);
  EXPECT_EQ(b->asl().units_size(), 5);
  auto situation = SituationFromProto(AslMerged(a->asl(), b->asl()), "situation");
  ASSERT_TRUE(situation.has_value()) << situation.error().message;
  auto valid = engine::asl::ValidateSituation(*situation);
  EXPECT_TRUE(valid.has_value()) << engine::Describe(valid.error());
}

TEST(NotationExamples, ARosterForOneSideIsRefusedToTheOther) {
  const auto path = Examples() / "asl" / "roster-side-a.txt";
  auto wrong = ReadSideSetup("asl", Read(path), v1::SEAT_SIDE_B, "roster-side-a.txt");
  ASSERT_FALSE(wrong.has_value());
  EXPECT_THAT(wrong.error().message,
              HasSubstr("roster-side-a.txt: no unit of side_b in this roster"));
}

}  // namespace
}  // namespace melee::proto

namespace melee::proto {
namespace {

// docs/forces.md: unit updates as a player writes them.
TEST(UpdateNotation, EveryKindReadsAndWritesBack) {
  struct Case {
    const char* text;
    melee::v1::UpdateKind kind;
    const char* back;
  };
  for (const Case& c : std::vector<Case>{
           {"G1 move H4", melee::v1::UPDATE_KIND_MOVE, "G1 moved to H4"},
           {"G1 move off", melee::v1::UPDATE_KIND_MOVE, "G1 left the board"},
           {"G1 break", melee::v1::UPDATE_KIND_BREAK, "G1 break"},
           {"G1 rally; the 9-2 got them up", melee::v1::UPDATE_KIND_RALLY,
            "G1 rally; the 9-2 got them up"},
           {"G1 conceal A12.122", melee::v1::UPDATE_KIND_CONCEAL, "G1 conceal (A12.122)"},
           {"G1 reduce", melee::v1::UPDATE_KIND_REDUCE, "G1 reduce"},
           {"G1 cx", melee::v1::UPDATE_KIND_SET_CX, "G1 cx"},
           {"S1 shock 2", melee::v1::UPDATE_KIND_SHOCK, "S1 shock 2"},
           {"force-morale 8", melee::v1::UPDATE_KIND_FORCE_MORALE, "Force Morale 8"},
       }) {
    auto update = UnitUpdateFromText("asl", melee::v1::SEAT_SIDE_A, c.text);
    ASSERT_TRUE(update.has_value()) << c.text << ": " << engine::Describe(update.error());
    EXPECT_EQ(update->kind(), c.kind) << c.text;
    EXPECT_EQ(UnitUpdateText(*update), c.back);
  }
  auto entered = UnitUpdateFromText("asl", melee::v1::SEAT_SIDE_B, "R5 enter J5 2-3-8 HS concealed");
  ASSERT_TRUE(entered.has_value());
  EXPECT_EQ(entered->location(), "J5");
  EXPECT_EQ(entered->asl().kind(), melee::asl::v1::UNIT_KIND_HALF_SQUAD);
  EXPECT_EQ(entered->asl().firepower(), 2);
  EXPECT_EQ(entered->asl().morale(), 8);
  EXPECT_TRUE(entered->asl().concealed());
  EXPECT_EQ(entered->asl().owner(), melee::v1::SEAT_SIDE_B);
  auto recombined = UnitUpdateFromText("asl", melee::v1::SEAT_SIDE_A, "H1 recombine H2 A1.32 4-6-7");
  ASSERT_TRUE(recombined.has_value());
  EXPECT_EQ(recombined->with(), "H2");
  EXPECT_EQ(recombined->rule(), "A1.32");
  EXPECT_EQ(recombined->asl().kind(), melee::asl::v1::UNIT_KIND_SQUAD);
  melee::v1::UnitUpdate hidden;
  hidden.set_unit("R3");
  hidden.set_hidden(true);
  EXPECT_EQ(UnitUpdateText(hidden), "? R3 changed");
}

TEST(UpdateNotation, MistakesAreNamed) {
  const auto error = [](const char* text) {
    auto update = UnitUpdateFromText("asl", melee::v1::SEAT_SIDE_A, text);
    return update ? std::string("accepted") : engine::Describe(update.error());
  };
  EXPECT_THAT(error("G1 hide"), ::testing::HasSubstr("'hide' is not an update"));
  EXPECT_THAT(error("G1"), ::testing::HasSubstr("expected '<unit> <what> ...'"));
  EXPECT_THAT(error("G1 move"), ::testing::HasSubstr("move needs a Location"));
  EXPECT_THAT(error("S1 shock two"), ::testing::HasSubstr("'two' is not a number"));
  EXPECT_THAT(error("G1 break now"), ::testing::HasSubstr("takes no more words"));
  EXPECT_THAT(error("G5 enter H4 4-6"), ::testing::HasSubstr("'4-6' is not a counter"));
  auto coc = UnitUpdateFromText("coc", melee::v1::SEAT_SIDE_A, "S9 enter H4 4-6-7");
  ASSERT_FALSE(coc.has_value());
  EXPECT_THAT(engine::Describe(coc.error()), ::testing::HasSubstr("counter notation for new units is asl's"));
}

}  // namespace
}  // namespace melee::proto
