// `melee rules`: the real command line playing the example situation files offline.

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "melee/asl/v1/asl.pb.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/text.h"

namespace melee {
namespace {

using std::chrono::seconds;

const std::string kExamples = std::string(MELEE_SOURCE_DIR) + "/examples/asl/";
const std::string kLeaderDirects = kExamples + "leader-directs-11-141.json";

using testing::CliRun;

CliRun Melee(std::vector<std::string> args) {
  args.insert(args.begin(), MELEE_CLI_BINARY);
  return testing::RunToEnd(args);
}

using testing::Contains;

// 11.141 EX with --dice 2,2,3,3,5,2: the German Original 4 (-1 leadership: Final 3 < Kill # 4)
// eliminates both Russians; their simultaneous 3-2 attack rolls 6 = Kill # 6, a Partial Kill,
// and the Random Selection drs (G1 5, L1 2) Reduce the squad to a HS.
TEST(RulesCli, ResolvesLeaderDirectedAttack) {
  const CliRun run = Melee({"rules", "resolve", "--ruleset", "asl", "--situation", kLeaderDirects,
                            "--dice", "2,2,3,3,5,2"});
  ASSERT_EQ(run.code, 0) << run.output;
  for (const char* expected :
       {"dice: --dice 2,2,3,3,5,2", "5:8 -> 1-2, Kill # 4", "leadership", "[A11.141]",
        "R1: Final DR 3 -> eliminated", "R2: Final DR 3 -> eliminated", "8:5 -> 3-2, Kill # 6",
        "G1: Final DR 6 -> Partial Kill", "G1 Reduced to a HS of 2 FP",
        "G1 4-6-7 (side_a): Reduced to a HS of 2 FP", "L1 8-1 (side_a): unharmed",
        "R1 4-4-7 (side_b): eliminated", "R2 4-4-7 (side_b): eliminated", "Melee: no"}) {
    EXPECT_TRUE(Contains(run.output, expected)) << expected << "\n" << run.output;
  }
}

TEST(RulesCli, ResolvesLeaderDirectedAttackAsJson) {
  const CliRun run = Melee({"rules", "resolve", "--ruleset", "asl", "--situation", kLeaderDirects,
                            "--dice", "2,2,3,3,5,2", "--json"});
  ASSERT_EQ(run.code, 0) << run.output;
  melee::asl::v1::Resolution resolution;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(run.output, &resolution).ok())
      << run.output;
  EXPECT_EQ(resolution.ruleset(), "asl");
  EXPECT_FALSE(resolution.has_seed());
  std::vector<melee::asl::v1::AttackReport> attacks;
  for (const auto& event : resolution.events()) {
    EXPECT_FALSE(event.text().empty());
    if (event.has_attack()) attacks.push_back(event.attack());
  }
  ASSERT_EQ(attacks.size(), 2u);
  EXPECT_EQ(attacks[0].column(), "1-2");
  EXPECT_EQ(attacks[0].kill_number(), 4);
  EXPECT_EQ(attacks[0].director(), "L1");
  EXPECT_EQ(attacks[0].results(0).unit(), "R1");
  EXPECT_EQ(attacks[0].results(0).outcome(), melee::asl::v1::OUTCOME_ELIMINATED);
  EXPECT_EQ(attacks[1].column(), "3-2");
  EXPECT_EQ(attacks[1].kill_number(), 6);
  EXPECT_EQ(attacks[1].results(0).outcome(), melee::asl::v1::OUTCOME_PARTIAL);
  ASSERT_EQ(resolution.units_size(), 4);
  EXPECT_EQ(resolution.units(0).unit().id(), "G1");
  EXPECT_EQ(resolution.units(0).unit().kind(), melee::asl::v1::UNIT_KIND_HALF_SQUAD);
  EXPECT_EQ(resolution.units(0).presence(), melee::asl::v1::PRESENCE_PRESENT);
  EXPECT_EQ(resolution.units(2).presence(), melee::asl::v1::PRESENCE_ELIMINATED);
  EXPECT_FALSE(resolution.melee());
  // The raw text too, as a script reading it would see it.
  EXPECT_TRUE(Contains(run.output, "\"column\": \"1-2\"")) << run.output;
  EXPECT_TRUE(Contains(run.output, "\"kill_number\": 6")) << run.output;
}

TEST(RulesCli, SeededResolveIsRepeatableAndPrintsItsSeed) {
  const CliRun first = Melee({"rules", "resolve", "--situation", kLeaderDirects, "--seed", "7"});
  ASSERT_EQ(first.code, 0) << first.output;
  EXPECT_TRUE(Contains(first.output, "seed 7")) << first.output;
  const CliRun second = Melee({"rules", "resolve", "--situation", kLeaderDirects, "--seed", "7"});
  EXPECT_EQ(first.output, second.output);
  const CliRun default_seed = Melee({"rules", "resolve", "--situation", kLeaderDirects});
  ASSERT_EQ(default_seed.code, 0) << default_seed.output;
  EXPECT_TRUE(Contains(default_seed.output, "seed 1")) << default_seed.output;
}

TEST(RulesCli, ResolvesEveryExample) {
  for (const char* name :
       {"leader-directs-11-141.json", "concealed-11-4.json", "melee-withdrawal-k4.json"}) {
    const CliRun resolve = Melee({"rules", "resolve", "--situation", kExamples + name});
    EXPECT_EQ(resolve.code, 0) << name << "\n" << resolve.output;
    EXPECT_TRUE(Contains(resolve.output, "end of CCPh")) << name << "\n" << resolve.output;
    const CliRun preview = Melee({"rules", "preview", "--situation", kExamples + name});
    EXPECT_EQ(preview.code, 0) << name << "\n" << preview.output;
    EXPECT_TRUE(Contains(preview.output, "no effect")) << name << "\n" << preview.output;
  }
}

// 11.4 EX: Ambush drs 3 and 3 (Russian -2 concealed: no Ambush), then the German attack on the
// concealed squad is halved: 3:4 -> 1-2; DR 3 eliminates it.
TEST(RulesCli, ResolvesTheConcealedExample) {
  const CliRun run = Melee(
      {"rules", "resolve", "--situation", kExamples + "concealed-11-4.json", "--dice", "3,3,1,2"});
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_TRUE(Contains(run.output, "no Ambush")) << run.output;
  EXPECT_TRUE(Contains(run.output, "3:4 -> 1-2, Kill # 4")) << run.output;
  EXPECT_TRUE(Contains(run.output, "[A11.19]")) << run.output;
  EXPECT_TRUE(Contains(run.output, "R1 4-4-7 (side_b): eliminated")) << run.output;
}

// 11.141 EX: 1-2 with -1: both Russians die on an Original DR <= 4, 6/36 = 1/6.
TEST(RulesCli, PreviewPrintsExactOdds) {
  const CliRun run = Melee({"rules", "preview", "--ruleset", "asl", "--situation", kLeaderDirects});
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_TRUE(Contains(run.output, "5:8 -> 1-2, Kill # 4")) << run.output;
  EXPECT_TRUE(Contains(run.output, "16.67%  (1/6)")) << run.output;
  EXPECT_TRUE(Contains(run.output, "Final DR = Original DR - 1")) << run.output;

  const CliRun json = Melee({"rules", "preview", "--situation", kLeaderDirects, "--json"});
  ASSERT_EQ(json.code, 0) << json.output;
  melee::asl::v1::OutcomeTable table;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.output, &table).ok()) << json.output;
  EXPECT_EQ(table.column(), "1-2");
  EXPECT_EQ(table.kill_number(), 4);
  EXPECT_EQ(table.seat(), melee::v1::SEAT_SIDE_A);
  ASSERT_EQ(table.targets_size(), 2);
  EXPECT_EQ(table.targets(0).eliminated().exact(), "1/6");
  EXPECT_DOUBLE_EQ(table.targets(0).eliminated().percent(), 16.67);
  EXPECT_EQ(table.before_size(), 3);  // Set-up and the two announcements.
}

// 11.622 EX (examples/asl/vehicle-11-622.json) with the rulebook's dice: the PAATC, the squad and
// leader immobilize the PzIVJ, its sN breaks three units, squad B fails, the CMG at 1-4 Reduces
// squad A and wounds the leader; the tank holds them all in Melee.
TEST(RulesCli, ResolvesTheVehicleExample) {
  const std::string file = kExamples + "vehicle-11-622.json";
  const std::string dice = "4,4,3,3,3,4,3,4,3,4,4,4,3,3,2,2,5,1,3,4,2,3,6,6,2,3";
  const CliRun run = Melee({"rules", "resolve", "--ruleset", "asl", "--situation", file, "--dice",
                            dice});
  ASSERT_EQ(run.code, 0) << run.output;
  for (const char* expected :
       {"A PAATC: DR 8 (-1 leadership [A10.7]) = 7 vs ML 7 -> passed",
        "side_a attacks vehicle PzIVJ with A, L: CCV 6", "PzIVJ: Final DR 6 -> immobilized",
        "IFT DR 7 vs Usage # 7 -> 16 FP: 2MC on A, L, B, C [A11.622]",
        "[DEFAULT - NOT FROM RULES]", "5 FP vs CCV 16 -> 1-4, Kill # 3 [A11.62]",
        "A 4-4-7 (side_a): Reduced to a HS of 2 FP, broken", "L 8-1 (side_a): wounded, broken",
        "PzIVJ PzIVJ (side_b): immobilized", "Melee: yes"}) {
    EXPECT_TRUE(Contains(run.output, expected)) << expected << "\n" << run.output;
  }
  const CliRun json = Melee({"rules", "resolve", "--situation", file, "--dice", dice, "--json"});
  ASSERT_EQ(json.code, 0) << json.output;
  melee::asl::v1::Resolution resolution;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.output, &resolution).ok());
  std::vector<melee::asl::v1::AttackReport> attacks;
  for (const auto& event : resolution.events()) {
    if (event.kind() == melee::asl::v1::EVENT_KIND_ATTACK_RESOLVED) {
      attacks.push_back(event.attack());
    }
  }
  ASSERT_EQ(attacks.size(), 4u);
  EXPECT_TRUE(attacks[0].vs_vehicle());
  EXPECT_EQ(attacks[0].results(0).outcome(), melee::asl::v1::OUTCOME_IMMOBILIZED);
  EXPECT_EQ(attacks[1].close_defense().ift(), "2MC");
  EXPECT_EQ(attacks[3].weapons(0), "cmg");
  EXPECT_EQ(attacks[3].column(), "1-4");
}

// The same file's preview: squad A and the 8-1 against the tank, CCV 6 with -1.
TEST(RulesCli, PreviewsAnAttackOnAVehicleExactly) {
  const std::string file = kExamples + "vehicle-11-622.json";
  const CliRun run = Melee({"rules", "preview", "--ruleset", "asl", "--situation", file});
  ASSERT_EQ(run.code, 0) << run.output;
  for (const char* expected : {"vs a vehicle: no odds, Kill # = CCV 6 [A11.5]",
                               "eliminated       25.00%  (1/4)", "burning wreck    16.67%  (1/6)",
                               "immobilized      16.67%  (1/6)"}) {
    EXPECT_TRUE(Contains(run.output, expected)) << expected << "\n" << run.output;
  }
}

// A tank that Ambushed may fire its sN at once (A11.622 EXC); the preview gives its IFT results:
// with Usage Number 7, a 2MC on a DR of 7 (6/36) and no effect on 8..12 (15/36).
TEST(RulesCli, PreviewsTheSnsIftResults) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "sn.json").string();
  std::ofstream(path) << R"({"situation": {"location": {"ambusher": "SEAT_SIDE_B"},
      "attacker": "SEAT_SIDE_A", "units": [
        {"id": "R1", "owner": "SEAT_SIDE_A", "kind": "UNIT_KIND_SQUAD", "firepower": 4},
        {"id": "T1", "owner": "SEAT_SIDE_B", "kind": "UNIT_KIND_VEHICLE",
         "vehicle": {"cmg": 5, "sn_usage": 7}}]},
    "preview": {"seat": "SEAT_SIDE_B", "attack": {"attackers": ["T1"], "weapons": ["sn"]}}})";
  const CliRun run = Melee({"rules", "preview", "--situation", path});
  ASSERT_EQ(run.code, 0) << run.output;
  for (const char* expected : {"16 FP on the IFT", "2MC", "16.67%  (1/6)", "NE",
                               "41.67%  (5/12)"}) {
    EXPECT_TRUE(Contains(run.output, expected)) << expected << "\n" << run.output;
  }
}

TEST(RulesCli, RefusesAnIllegalDeclarationWithExitCode1) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "twice.json").string();
  std::ifstream in(kLeaderDirects);
  std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string german = R"({ "attackers": ["G1", "L1"], "targets": ["R1", "R2"], )"
                             R"("director": "L1" })";
  const size_t at = json.find(german);
  ASSERT_NE(at, std::string::npos);
  json.insert(at + german.size(), R"(, { "attackers": ["G1"], "targets": ["R1"] })");
  std::ofstream(path) << json;
  const CliRun run = Melee({"rules", "resolve", "--situation", path, "--dice", "1,1,1,1"});
  EXPECT_EQ(run.code, 1) << run.output;
  EXPECT_TRUE(Contains(run.output, "A11.12")) << run.output;
  EXPECT_TRUE(Contains(run.output, "G1")) << run.output;
}

TEST(RulesCli, RefusesMalformedFilesWithExitCode2) {
  testing::TempDir dir;
  const std::string broken = (dir.path() / "broken.json").string();
  std::ofstream(broken) << R"({"situation": {"units": [)";
  const CliRun malformed = Melee({"rules", "resolve", "--situation", broken});
  EXPECT_EQ(malformed.code, 2) << malformed.output;
  EXPECT_TRUE(Contains(malformed.output, "broken.json")) << malformed.output;
  EXPECT_TRUE(Contains(malformed.output, "protobuf JSON")) << malformed.output;

  const std::string unknown = (dir.path() / "unknown.json").string();
  std::ofstream(unknown) << R"({"situation": {"attacker": "SEAT_SIDE_A"}, "_comment": "x"})";
  const CliRun unknown_field = Melee({"rules", "preview", "--situation", unknown});
  EXPECT_EQ(unknown_field.code, 2) << unknown_field.output;
  EXPECT_TRUE(Contains(unknown_field.output, "_comment")) << unknown_field.output;

  const CliRun missing = Melee({"rules", "resolve", "--situation", (dir.path() / "no").string()});
  EXPECT_EQ(missing.code, 2) << missing.output;
  EXPECT_TRUE(Contains(missing.output, "cannot open")) << missing.output;
}

TEST(RulesCli, RefusesUnknownRulesetsAndFilesOfAnotherRulesetWithExitCode2) {
  // An asl file is not a coc contact: refused as malformed.
  const CliRun coc = Melee({"rules", "resolve", "--ruleset", "coc", "--situation", kLeaderDirects});
  EXPECT_EQ(coc.code, 2) << coc.output;
  EXPECT_TRUE(Contains(coc.output, "not a melee.coc.v1.Contact")) << coc.output;
  // An asl file is not a vv close assault: refused as malformed.
  const CliRun vv = Melee({"rules", "preview", "--ruleset", "vv", "--situation", kLeaderDirects});
  EXPECT_EQ(vv.code, 2) << vv.output;
  EXPECT_TRUE(Contains(vv.output, "not a melee.vv.v1.CloseAssault")) << vv.output;
  const CliRun unknown =
      Melee({"rules", "resolve", "--ruleset", "chess", "--situation", kLeaderDirects});
  EXPECT_EQ(unknown.code, 2) << unknown.output;
  EXPECT_TRUE(Contains(unknown.output, "unknown ruleset 'chess'")) << unknown.output;
}

// 17.1: a contact the rules refuse (Close Combat across a Major Obstacle) is a rules refusal,
// exit 1 with the rule, as asl and vv answer theirs; a malformed file stays exit 2.
TEST(RulesCli, RefusesACocCloseCombatAcrossAMajorObstacleWithExitCode1) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "major.json").string();
  std::ifstream in(std::string(MELEE_SOURCE_DIR) + "/examples/coc/in-action-17.json");
  std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string attacker = R"("attacker": "SEAT_SIDE_A",)";
  const size_t at = json.find(attacker);
  ASSERT_NE(at, std::string::npos);
  json.insert(at + attacker.size(), R"( "obstacle": "OBSTACLE_MAJOR",)");
  std::ofstream(path) << json;
  for (const char* command : {"resolve", "preview"}) {
    const CliRun run = Melee({"rules", command, "--ruleset", "coc", "--situation", path});
    EXPECT_EQ(run.code, 1) << command << "\n" << run.output;
    EXPECT_TRUE(Contains(run.output,
                         "17.1: Close Combat cannot take place across a Major Obstacle"))
        << run.output;
  }
}

const std::string kVvExample = std::string(MELEE_SOURCE_DIR) + "/examples/vv/close-assault-15.json";

// VV-T1, rule 15's Close Assault Example, from the example file: DR 7 -1 (Schmidt) -1
// (Grenades) = 5 <= Kill # 6 -1 (Coleman) = 5; the Germans take C1 and 6 Casualty Points.
TEST(RulesCli, ResolvesTheVvCloseAssaultExample) {
  const CliRun run =
      Melee({"rules", "resolve", "--ruleset", "vv", "--situation", kVvExample, "--dice", "3,4"});
  ASSERT_EQ(run.code, 0) << run.output;
  for (const char* expected :
       {"vv vv15-2 (board), dice: --dice 3,4", "13 vs 11 -> 1-1, Kill # 6 -1 (15.3 leader Coleman) = 5",
        "DR 7 -1 (15.3 leader Schmidt) -1 (12.52 Grenades) = 5 <= 5: the assault succeeds",
        "side_a suffers 6 CP", "G1 4-6-5 Rifle (side_a): eliminated",
        "G2 4-6-5 Rifle (side_a): pinned, in C1", "Coleman 1-3-1 (-1) (side_b): eliminated"}) {
    EXPECT_TRUE(Contains(run.output, expected)) << expected << "\n" << run.output;
  }
  const CliRun json = Melee({"rules", "resolve", "--ruleset", "vv", "--situation", kVvExample,
                             "--dice", "3,4", "--json"});
  ASSERT_EQ(json.code, 0) << json.output;
  EXPECT_TRUE(Contains(json.output, "\"kind\": \"EVENT_KIND_ASSAULT_RESOLVED\"")) << json.output;
  EXPECT_TRUE(Contains(json.output, "\"final_dr\": 5")) << json.output;
  // A failure needs more Casualty Points than the file's allocation gives: refused by 14.61.
  const CliRun failed =
      Melee({"rules", "resolve", "--ruleset", "vv", "--situation", kVvExample, "--dice", "6,6"});
  EXPECT_EQ(failed.code, 1) << failed.output;
  EXPECT_TRUE(Contains(failed.output, "14.61: the allocation of side_a")) << failed.output;
}

// The exact odds of the example: success on DR <= 7, 21/36; failure by m costs 6 + m CP.
TEST(RulesCli, PreviewsTheVvCloseAssaultExactly) {
  const CliRun run = Melee({"rules", "preview", "--ruleset", "vv", "--situation", kVvExample});
  ASSERT_EQ(run.code, 0) << run.output;
  for (const char* expected : {"13 vs 11 -> 1-1, Kill # 5", "assault succeeds: 58.33% (7/12)",
                               "6 CP: 58.33% (7/12)", "7 CP: 13.89% (5/36)",
                               "11 CP: 2.78% (1/36)", "4 CP: 41.67% (5/12)"}) {
    EXPECT_TRUE(Contains(run.output, expected)) << expected << "\n" << run.output;
  }
}

const std::string kCocExample = std::string(MELEE_SOURCE_DIR) + "/examples/coc/in-action-17.json";

// CoC-T1, rule 17's "In action": 8 Soviet dice against 13 German. The Soviets roll 3 Kills and a
// Shock, the Germans nothing: Defeated by Four with a wounded (active) Leader, the Germans Break.
TEST(RulesCli, ResolvesTheCocInActionExample) {
  const std::string dice = "6,6,6,5,1,1,1,1,"            // Soviets
                           "1,1,1,1,1,1,1,1,1,1,1,1,1,"  // Germans
                           "2,3,"                        // two Kills on the Leader's Team
                           "4";                          // Force Morale for Breaking
  const CliRun run =
      Melee({"rules", "resolve", "--ruleset", "coc", "--situation", kCocExample, "--dice", dice});
  ASSERT_EQ(run.code, 0) << run.output;
  for (const char* expected :
       {"coc coc17-1, dice: --dice", "side_a 8 Combat Dice", "side_b 13 Combat Dice",
        "4 hit(s), 3 Kill(s) 1 Shock", "side_a wins: side_b Breaks and flees 18\"",
        "default: [DEFAULT - NOT FROM RULES] side_b's odd hits placed on its first Teams",
        "german_squad German Squad (side_b): 3 figure(s) lost or guarding, 5 figures, 7 Shock",
        "soviet_smg advances into the loser's ground"}) {
    EXPECT_TRUE(Contains(run.output, expected)) << expected << "\n" << run.output;
  }
  const CliRun json = Melee({"rules", "resolve", "--ruleset", "coc", "--situation", kCocExample,
                             "--dice", dice, "--json"});
  ASSERT_EQ(json.code, 0) << json.output;
  EXPECT_TRUE(Contains(json.output, "\"kind\": \"OUTCOME_KIND_BROKEN\"")) << json.output;
  EXPECT_TRUE(Contains(json.output, "\"cause\": \"unit_broken\"")) << json.output;
}

// The exact margin distribution of 8 dice against 13, each hitting on 5-6.
TEST(RulesCli, PreviewsTheCocInActionExactly) {
  const CliRun run = Melee({"rules", "preview", "--ruleset", "coc", "--situation", kCocExample});
  ASSERT_EQ(run.code, 0) << run.output;
  for (const char* expected :
       {"side_a (attacker): 8 Combat Dice", "17.6 attacking an enemy in Hard Cover: remove half: 17 -> 8",
        "side_b (defender): 13 Combat Dice", "+8: 0.00% (8192/10460353203)",
        "attacker scores more hits: 15.72% (548254720/3486784401)",
        "draw: 13.88% (161300960/1162261467)"}) {
    EXPECT_TRUE(Contains(run.output, expected)) << expected << "\n" << run.output;
  }
}

// The margin of two given pools, with no file: 1 die against 1 hits 2/9 more, 5/9 level.
TEST(RulesCli, PreviewsCocPoolsWithoutAFile) {
  const CliRun run = Melee({"rules", "preview", "--ruleset", "coc", "--pools", "1,1"});
  ASSERT_EQ(run.code, 0) << run.output;
  for (const char* expected : {"1 attacker Combat Dice against 1", "+1: 22.22% (2/9)",
                               "draw: 55.56% (5/9)", "defender scores more hits: 22.22% (2/9)"}) {
    EXPECT_TRUE(Contains(run.output, expected)) << expected << "\n" << run.output;
  }
  const CliRun overwhelmed = Melee({"rules", "preview", "--ruleset", "coc", "--pools", "12,3"});
  EXPECT_TRUE(Contains(overwhelmed.output, "17.3.1 Overwhelming Numbers: the defender"))
      << overwhelmed.output;
  EXPECT_EQ(Melee({"rules", "preview", "--ruleset", "coc", "--pools", "8"}).code, 2);
  EXPECT_EQ(Melee({"rules", "preview", "--ruleset", "coc", "--pools", "60,60"}).code, 2);
  EXPECT_EQ(Melee({"rules", "preview", "--ruleset", "vv", "--pools", "1,1"}).code, 2);
  const CliRun missing = Melee({"rules", "preview", "--ruleset", "coc"});
  EXPECT_EQ(missing.code, 2) << missing.output;
  EXPECT_TRUE(Contains(missing.output, "--situation is required (or --pools A,D)"))
      << missing.output;
}

TEST(RulesCli, RefusesBadOrTooFewDiceWithExitCode2) {
  const CliRun few = Melee({"rules", "resolve", "--situation", kLeaderDirects, "--dice", "2,2"});
  EXPECT_EQ(few.code, 2) << few.output;
  EXPECT_TRUE(Contains(few.output, "--dice: the script needs more than 2 dice")) << few.output;
  const CliRun bad = Melee({"rules", "resolve", "--situation", kLeaderDirects, "--dice", "2,7"});
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_TRUE(Contains(bad.output, "'7' is not a die")) << bad.output;
}

TEST(RulesCli, UsageErrorsExitWith2AndHelpWith0) {
  EXPECT_EQ(Melee({"rules", "resolve"}).code, 2);  // --situation is required.
  EXPECT_EQ(Melee({"rules"}).code, 2);
  const CliRun help = Melee({"rules", "resolve", "--help"});
  EXPECT_EQ(help.code, 0) << help.output;
  EXPECT_TRUE(Contains(help.output, "--situation")) << help.output;
  const CliRun top = Melee({"--help"});
  EXPECT_TRUE(Contains(top.output, "rules")) << top.output;
}

}  // namespace
}  // namespace melee
