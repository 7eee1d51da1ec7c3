// The README's play-by-email guide, run verbatim: its shell blocks, in order, as one script,
// with the real `melee` command line against a real server (the dice scripted so that the
// guide's game is the one played).

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "proto/codec/frame.h"
#include "proto/codec/json.h"
#include "server/match_file.h"
#include "tests/testing/certificate.h"
#include "tests/testing/fair_play_match.h"
#include "tests/testing/scripted_faces.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"
#include "tests/testing/text.h"

namespace melee {
namespace {

// The ```sh blocks between the `<marker>:start` and `<marker>:end` comments of `document` (a path
// from the source tree's top), joined in order.
std::string GuideScript(const std::string& marker = "pbem-guide",
                        const std::string& document = "README.md") {
  std::ifstream in(std::string(MELEE_SOURCE_DIR) + "/" + document);
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const size_t begin = readme.find("<!-- " + marker + ":start -->");
  const size_t end = readme.find("<!-- " + marker + ":end -->");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return {};
  std::string script;
  std::istringstream lines(readme.substr(begin, end - begin));
  std::string line;
  bool in_block = false;
  while (std::getline(lines, line)) {
    if (!in_block && line == "```sh") {
      in_block = true;
    } else if (in_block && line == "```") {
      in_block = false;
    } else if (in_block) {
      script += line + "\n";
    }
  }
  return script;
}

using testing::Contains;

// Runs the guide between the `marker` comments of `document` as one bash script, in a fresh
// directory, with `melee` on the PATH and a real server rolling `faces` (none: its own committed
// dice); returns its exit code and output.
struct GuideRun {
  std::optional<int> code;
  std::string output;
  std::filesystem::path dir;
};

GuideRun RunGuide(const std::string& marker, std::initializer_list<int> faces,
                  const testing::TempDir& dir, const std::string& document = "README.md") {
  const std::string guide = GuideScript(marker, document);
  EXPECT_FALSE(guide.empty()) << document << " has no " << marker << " block";
  testing::ScriptedFaces scripted(4);
  scripted.Push(faces);
  server::ServerHooks hooks;
  if (faces.size() != 0) hooks.dice = scripted.Source();
  testing::TestServer server({}, hooks);
  const std::string cli_dir = std::filesystem::path(MELEE_CLI_BINARY).parent_path().string();
  const std::string path = cli_dir + ":" + (std::getenv("PATH") ? std::getenv("PATH") : "");
  EXPECT_EQ(setenv("PATH", path.c_str(), 1), 0);
  EXPECT_EQ(setenv("MELEE_SERVER", server.ws_url().c_str(), 1), 0);
  const std::string script = "set -euo pipefail\ncd '" + dir.path().string() + "'\n" + guide;
  testing::Subprocess bash({"/bin/bash", "-c", script});
  GuideRun run;
  run.code = bash.Wait(std::chrono::seconds(60));
  run.output = bash.output();
  run.dir = dir.path();
  return run;
}

TEST(PbemGuide, TheReadmeGameRunsVerbatim) {
  testing::TempDir dir;
  // Alice's CC DR is an Original 2 (A11.22: G1 may withdraw); then Bob's DR 11: no effect.
  const GuideRun run = RunGuide("pbem-guide", {1, 1, 5, 6}, dir);
  const std::string& output = run.output;
  ASSERT_EQ(run.code, 0) << output;

  for (const char* expected : {
           "Created match",                              // match create
           "Your turn (1):",                             // Alice's inbox
           "waiting for side_a: confirm the set-up",
           "side_b entered its units: R1 4-4-7, R2 ?",   // Alice's status: R2 stays hidden
           "receipt ",                                   // a sealed declaration's receipt
           "side_b sealed its declaration",              // all Alice sees of Bob's seal
           "declarations revealed",                      // both together
           "choice 1 for side_a (A11.22)",               // the Original 2
           "the close combat is over",                   // Bob's last status
       }) {
    EXPECT_TRUE(Contains(output, expected)) << expected << "\n" << output;
  }
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "hill621" / "side_b.seat"));
}

// docs/tournaments.md: a director runs an event of two matches with one token and one pooled
// report, with the server's own committed dice (the guide holds whatever they roll).
TEST(DirectorGuide, TheTournamentGuideRunsVerbatim) {
  testing::TempDir dir;
  const GuideRun run = RunGuide("tournament-guide", {}, dir, "docs/tournaments.md");
  const std::string& output = run.output;
  ASSERT_EQ(run.code, 0) << output;
  for (const char* expected : {
           "Created tournament t",                              // tournament create
           "Alice (side_a) vs Bob (side_b)",                    // the list names the players
           "agreed by both players: side_a won",                // Hill 621's result
           "the players disagree (side_a: side_a won, side_b: side_b won)",  // Bridge 7's
           "2 match files of tournament",                       // tournament export
           ", the trusted key",                                 // melee verify, each file
           "Pooled audit of tournament",                        // tournament audit
           "Alice (1 seat:",                                    // per player
           "too few dice to judge",                             // a handful of dice
           "closed cleanly, as every one-shot command does",    // not disconnects
           "Alice v Bob: agreed by both players",               // curl: the list
           "Carol v Dave: decided by the director: a draw",     // the director decided
           "a forged token: 403",
       }) {
    EXPECT_TRUE(Contains(output, expected)) << expected << "\n" << output;
  }
  std::ifstream pooled(dir.path() / "spring-audit.txt");
  std::stringstream report;
  report << pooled.rdbuf();
  EXPECT_TRUE(Contains(report.str(), "Pooled audit of tournament t")) << report.str();
  EXPECT_TRUE(Contains(report.str(), "Audit of match m")) << report.str();
  std::ifstream csv(dir.path() / "spring.csv");
  std::stringstream rows;
  rows << csv.rdbuf();
  EXPECT_TRUE(Contains(rows.str(), ",Alice,Attacker,,Win,Bob,Defender,,Loss,")) << rows.str();
  EXPECT_TRUE(Contains(rows.str(), ",Carol,Attacker,,Draw,Dave,Defender,,Draw,")) << rows.str();
}

// docs/pbem-guides.md's forces guide: a Melee over three CCPhs by email, in words only. Its commands do
// not depend on the dice: CCPhs 1 and 2 roll none, and CCPh 3 ends with a status whatever it
// rolled (here both sides' DR 11: nobody is hurt, and the Melee goes on into CCPh 4).
TEST(PbemGuide, TheMeleeGuideRunsVerbatim) {
  testing::TempDir dir;
  const GuideRun run = RunGuide("forces-guide", {5, 6, 5, 6}, dir, "docs/pbem-guides.md");
  const std::string& output = run.output;
  ASSERT_EQ(run.code, 0) << output;
  for (const char* expected : {
           "side_a entered its units: G1 4-6-7 german, L1 8-1 leader german on G1 in G3",
           "side_b entered its units: R1 4-4-7 russian, R2 4-4-7 russian",
           "Infantry of both sides remain: Melee [A11.15]",
           "Forces (CCPh 2):",
           "R3 entered H4 (4-4-7 concealed); up the back stairs",  // Bob's own view
           "side_b reported: ? R3 entered H4",                             // Alice's
           "Forces (CCPh 4):",
           "R3 ? in H4",
       }) {
    EXPECT_TRUE(Contains(output, expected)) << expected << "\n" << output;
  }
  EXPECT_FALSE(Contains(output, "back stairs\n  #")) << output;
}

// docs/pbem-guides.md's V&V guide: rule 15's Close Assault Example by email, DR 7 as in the rulebook.
TEST(PbemGuide, TheCloseAssaultGuideRunsVerbatim) {
  testing::TempDir dir;
  const GuideRun run = RunGuide("vv-guide", {3, 4}, dir, "docs/pbem-guides.md");
  const std::string& output = run.output;
  ASSERT_EQ(run.code, 0) << output;
  for (const char* expected : {
           "(vv) on",                                   // match create
           "side_b sealed its declaration",             // all the Germans see of it
           "13 vs 11 -> 1-1, Kill # 6 -1 (15.3 leader Coleman) = 5",
           "= 5 <= 5: the assault succeeds",
           "side_a: seal a Casualty Point allocation (14.61) — 6 Casualty Points",
           "14.61 side_a applies 6 CP: eliminate G1 pin G2",
           "the close assault is over",
       }) {
    EXPECT_TRUE(Contains(output, expected)) << expected << "\n" << output;
  }
}

// docs/pbem-guides.md's Chain of Command guide: rule 17's "In action" by email. The Soviets' 8 dice roll
// three Kills and a Shock, the Germans' 13 nothing; the Germans place their odd Kill and Shock;
// a d6 for a hit on their Leader (none) and one for Force Morale (no change).
TEST(PbemGuide, TheCocGuideRunsVerbatim) {
  testing::TempDir dir;
  const GuideRun run = RunGuide(
      "coc-guide", {6, 6, 6, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4}, dir,
      "docs/pbem-guides.md");
  const std::string& output = run.output;
  ASSERT_EQ(run.code, 0) << output;
  for (const char* expected : {
           "(coc) on",                                   // match create
           "side_b entered its units: squad Gruppe (8 figures)",
           "side_a 8 Combat Dice",
           "side_b 13 Combat Dice",
           "side_b: seal the placement of odd hits (17.4.1) — 1 odd Kill and 1 odd Shock",
           "side_a wins: side_b Breaks and flees 18\"",
           "squad Gruppe (side_b): 5 figures, 7 Shock, Broken",
           "the contact is over",
       }) {
    EXPECT_TRUE(Contains(output, expected)) << expected << "\n" << output;
  }
}

using testing::CliRun;

// Runs `melee args...` in `cwd` (the server from $MELEE_SERVER, set by the caller).
CliRun Melee(const std::filesystem::path& cwd, const std::string& args) {
  return testing::RunToEnd(
      {"/bin/bash", "-c", "cd '" + cwd.string() + "' && exec '" MELEE_CLI_BINARY "' " + args});
}

const char* const kAliceUnits =
    R"({"location": {"name": "G3"}, "attacker": "SEAT_SIDE_A", "units": [{"id": "G1",)"
    R"( "owner": "SEAT_SIDE_A", "kind": "UNIT_KIND_SQUAD", "firepower": 4, "morale": 7}]})";
const char* const kBobUnits =
    R"({"units": [{"id": "R1", "owner": "SEAT_SIDE_B", "kind": "UNIT_KIND_SQUAD",)"
    R"( "firepower": 4, "morale": 7}]})";

void Write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Plays the close combat of match `m` (created in `dir`) to its end with one-shot commands:
// G1 (A) attacks R1; B declares no attack (A11.12 allows it).
void PlayOneCloseCombat(const std::filesystem::path& dir) {
  Write(dir / "a.json", kAliceUnits);
  Write(dir / "b.json", kBobUnits);
  Write(dir / "a-attacks.json", R"({"attacks": [{"attackers": ["G1"], "targets": ["R1"]}]})");
  Write(dir / "none.json", "{}");
  for (const char* step : {"submit --seat m/side_a.seat --setup a.json",
                           "submit --seat m/side_b.seat --setup b.json",
                           "submit --seat m/side_a.seat --confirm",
                           "submit --seat m/side_b.seat --confirm",
                           "submit --seat m/side_a.seat --announce",
                           "submit --seat m/side_b.seat --announce",
                           "submit --seat m/side_b.seat --declaration none.json",
                           "submit --seat m/side_a.seat --declaration a-attacks.json"}) {
    const CliRun run = Melee(dir, step);
    ASSERT_EQ(run.code, 0) << step << "\n" << run.output;
  }
}

// Every documented exit code, each with a message naming the problem.
TEST(MeleeCli, ExitCodesNameTheProblem) {
  testing::TestServer server;
  testing::TempDir dir;
  ASSERT_EQ(setenv("MELEE_SERVER", server.ws_url().c_str(), 1), 0);
  ASSERT_EQ(Melee(dir.path(), "match create --out m").code, 0);
  Write(dir.path() / "attacks.json", R"({"attacks": [{"attackers": ["G1"], "targets": ["R1"]}]})");
  Write(dir.path() / "bad.json", R"({"attacks": [{"attackerz": ["G1"]}]})");

  const CliRun early = Melee(dir.path(), "submit --seat m/side_a.seat --declaration attacks.json");
  EXPECT_EQ(early.code, 1) << early.output;
  EXPECT_TRUE(Contains(early.output, "refused: the close combat has not started")) << early.output;

  const CliRun malformed = Melee(dir.path(), "submit --seat m/side_a.seat --declaration bad.json");
  EXPECT_EQ(malformed.code, 2);
  EXPECT_TRUE(Contains(malformed.output, "bad.json: not a valid melee.asl.v1.Seal")) << malformed.output;
  EXPECT_TRUE(Contains(malformed.output, "attackerz")) << malformed.output;

  const CliRun two = Melee(dir.path(), "submit --seat m/side_a.seat --confirm --announce");
  EXPECT_EQ(two.code, 2);
  EXPECT_TRUE(Contains(two.output, "exactly one of")) << two.output;

  const CliRun missing = Melee(dir.path(), "match status --seat nowhere.seat");
  EXPECT_EQ(missing.code, 2);
  EXPECT_TRUE(Contains(missing.output, "cannot open nowhere.seat")) << missing.output;

  const CliRun forged = Melee(dir.path(), "match join --match m1 --token forged --out x.seat");
  EXPECT_EQ(forged.code, 1) << forged.output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "x.seat"));

  const CliRun unreachable =
      Melee(dir.path(), "--server ws://127.0.0.1:1/ws match create --out elsewhere");
  EXPECT_EQ(unreachable.code, 3);
  EXPECT_TRUE(Contains(unreachable.output, "cannot connect")) << unreachable.output;

  const CliRun help = Melee(dir.path(), "submit --help");
  EXPECT_EQ(help.code, 0);
  EXPECT_TRUE(Contains(help.output, "--declaration")) << help.output;
}

// A PBEM match set up from counter notation (docs/counter-notation.md): side A's units from the
// roster file examples/asl/roster-side-a.txt, side B's with --unit on the command line; together
// the 11.141 EX, played with the rulebook's dice. The views name every unit by its counter, the
// squad Reduced in play as a HS. The coc and vv example rosters set up their contacts too.
TEST(MeleeCli, APbemMatchIsSetUpFromRostersInCounterNotation) {
  testing::ScriptedFaces scripted(4);
  scripted.Push({2, 2, 3, 3, 5, 2});
  server::ServerHooks hooks;
  hooks.dice = scripted.Source();
  testing::TestServer server({}, hooks);
  testing::TempDir dir;
  ASSERT_EQ(setenv("MELEE_SERVER", server.ws_url().c_str(), 1), 0);
  const std::filesystem::path examples = std::filesystem::path(MELEE_SOURCE_DIR) / "examples";
  std::filesystem::copy_file(examples / "asl" / "roster-side-a.txt", dir.path() / "alice.txt");
  ASSERT_EQ(Melee(dir.path(), "match create --out m").code, 0);

  const CliRun alice = Melee(dir.path(), "submit --seat m/side_a.seat --setup alice.txt");
  ASSERT_EQ(alice.code, 0) << alice.output;
  EXPECT_TRUE(Contains(alice.output, "side_a entered its units: G1 4-6-7 german, L1 8-1 leader "
                                     "german on G1 in 11.141 EX (Open Ground)"))
      << alice.output;
  // A mistake is named with its option, and nothing is sent.
  const CliRun typo = Melee(dir.path(), "submit --seat m/side_b.seat --unit 'R1: 4-4'");
  EXPECT_EQ(typo.code, 2) << typo.output;
  EXPECT_TRUE(Contains(typo.output, "--unit 'R1: 4-4': '4-4' is not a counter")) << typo.output;
  // Side A's roster is not side B's set-up.
  const CliRun wrong = Melee(dir.path(), "submit --seat m/side_b.seat --setup alice.txt");
  EXPECT_EQ(wrong.code, 2) << wrong.output;
  EXPECT_TRUE(Contains(wrong.output, "alice.txt: no unit of side_b in this roster"))
      << wrong.output;
  const CliRun bob = Melee(dir.path(), "submit --seat m/side_b.seat --fact 'nationality: russian' "
                                       "--unit 'R1: 4-4-7' --unit 'R2: 4-4-7'");
  ASSERT_EQ(bob.code, 0) << bob.output;
  EXPECT_TRUE(Contains(bob.output, "side_b entered its units: R1 4-4-7 russian, R2 4-4-7 russian"))
      << bob.output;

  Write(dir.path() / "a-attacks.json", R"({"attacks": [{"attackers": ["G1", "L1"],)"
                                       R"( "targets": ["R1", "R2"], "director": "L1"}]})");
  Write(dir.path() / "b-attacks.json",
        R"({"attacks": [{"attackers": ["R1", "R2"], "targets": ["G1", "L1"]}]})");
  for (const char* step : {"submit --seat m/side_a.seat --confirm",
                           "submit --seat m/side_b.seat --confirm",
                           "submit --seat m/side_a.seat --announce",
                           "submit --seat m/side_b.seat --announce",
                           "submit --seat m/side_b.seat --declaration b-attacks.json",
                           "submit --seat m/side_a.seat --declaration a-attacks.json"}) {
    const CliRun run = Melee(dir.path(), step);
    ASSERT_EQ(run.code, 0) << step << "\n" << run.output;
  }
  // German DR 4: 1-2, Kill # 4, -1 leadership: both Russians eliminated. Russian DR 6 = Kill #:
  // Random Selection 5 (G1) and 2 (L1) Reduces G1 to a HS.
  const CliRun status = Melee(dir.path(), "match status --seat m/side_b.seat");
  ASSERT_EQ(status.code, 0) << status.output;
  for (const char* expected : {"side_a: G1 HS of 4-6-7 german, L1 8-1 leader german on G1",
                               "side_b: R1 4-4-7 russian (eliminated), R2 4-4-7 russian "
                               "(eliminated)",
                               "the close combat is over"}) {
    EXPECT_TRUE(Contains(status.output, expected)) << expected << "\n" << status.output;
  }

  // The other rulesets' example rosters, one side each, start their contacts.
  for (const char* ruleset : {"coc", "vv"}) {
    const std::string out = std::string(ruleset) + "-m";
    ASSERT_EQ(Melee(dir.path(), "match create --ruleset " + std::string(ruleset) + " --out " + out)
                  .code,
              0);
    for (const char* side : {"a", "b"}) {
      const std::string roster =
          (examples / ruleset / ("roster-side-" + std::string(side) + ".txt")).string();
      const CliRun run = Melee(dir.path(), "submit --seat " + out + "/side_" + side +
                                               ".seat --setup '" + roster + "'");
      ASSERT_EQ(run.code, 0) << roster << "\n" << run.output;
    }
    ASSERT_EQ(Melee(dir.path(), "submit --seat " + out + "/side_a.seat --confirm").code, 0);
    const CliRun started = Melee(dir.path(), "submit --seat " + out + "/side_b.seat --confirm");
    ASSERT_EQ(started.code, 0) << started.output;
    EXPECT_TRUE(Contains(started.output, std::string(ruleset) == "coc"
                                             ? "close_combat set up: side_a attacks with "
                                               "soviet_smg; side_b: german_squad"
                                             : "US-HS 2-6-2 hs \"Rifle\" with LMG 3-6 (L) "
                                               "\"M1919A6\" (side_b) in C1"))
        << started.output;
  }
}

// `melee export`, `melee verify` and `melee import`: a played match's file verifies offline; a
// changed die does not (exit 1, naming the event); the file loads into another server.
TEST(MeleeCli, ExportsVerifiesAndImportsAMatchFile) {
  testing::TestServer server;
  testing::TempDir dir;
  auto a = testing::MatchClient::Connect(server.ws_url());
  auto b = testing::MatchClient::Connect(server.ws_url());
  ASSERT_TRUE(a && b);
  melee::v1::MatchSettings settings;
  settings.set_ruleset("asl");
  const melee::v1::MatchCreated created = a->Create(settings);
  ASSERT_TRUE(a->Join(created.match_id(), created.side_a_token()).has_joined());
  ASSERT_TRUE(b->Join(created.match_id(), created.side_b_token()).has_joined());
  testing::PlayCommittedCombat(*a, *b, "G3");

  const std::string at = "--server " + server.ws_url() + " ";
  const CliRun exported = Melee(dir.path(), at + "export --match " + created.match_id() +
                                                " --token " + created.director_token() +
                                                " --out match.json");
  ASSERT_EQ(exported.code, 0) << exported.output;
  EXPECT_TRUE(Contains(exported.output, "wrote match.json: match " + created.match_id() +
                                            " for director"))
      << exported.output;
  const CliRun verified = Melee(dir.path(), "verify match.json");
  EXPECT_EQ(verified.code, 0) << verified.output;
  EXPECT_TRUE(Contains(verified.output, "OK: match " + created.match_id())) << verified.output;
  EXPECT_TRUE(Contains(verified.output, "gives exactly the logged events")) << verified.output;

  // The key the server publishes is the one that signed it.
  const testing::HttpResult key = testing::HttpGet(server.port(), "/api/server-key");
  melee::v1::ServerKey published;
  ASSERT_EQ(proto::FromJson(key.body, published), "");
  EXPECT_EQ(Melee(dir.path(), "verify match.json --key " + published.public_key_hex()).code, 0);
  const CliRun other_key = Melee(dir.path(), "verify match.json --key " + std::string(64, '1'));
  EXPECT_EQ(other_key.code, 1) << other_key.output;
  EXPECT_TRUE(Contains(other_key.output, "not by the trusted key")) << other_key.output;

  // A changed die, every hash recomputed: caught, with the event and the die.
  std::ifstream in(dir.path() / "match.json");
  std::stringstream text;
  text << in.rdbuf();
  auto file = server::ParseMatchFile(text.str());
  ASSERT_TRUE(file.has_value());
  melee::storage::v1::MatchFile forged = *file;
  persistence::Hash prev = persistence::Genesis(forged.match_id());
  bool changed = false;
  for (auto& event : *forged.mutable_events()) {
    melee::storage::v1::StoredEvent stored;
    ASSERT_TRUE(stored.ParseFromString(event.payload()));
    melee::asl::v1::AslEvent asl;
    if (!changed && stored.has_ruleset_event() && asl.ParseFromString(stored.ruleset_event().event()) &&
        !asl.dice().empty()) {
      asl.mutable_dice(0)->set_value(asl.dice(0).value() % 6 + 1);
      stored.mutable_ruleset_event()->set_event(proto::SerializeDeterministic(asl));
      event.set_payload(proto::SerializeDeterministic(stored));
      changed = true;
    }
    prev = persistence::ChainHash(prev, event.payload());
    event.set_hash(std::string(prev.begin(), prev.end()));
  }
  ASSERT_TRUE(changed);
  Write(dir.path() / "forged.json", server::MatchFileJson(forged));
  const CliRun caught = Melee(dir.path(), "verify forged.json");
  EXPECT_EQ(caught.code, 1) << caught.output;
  EXPECT_TRUE(Contains(caught.output, "FAILED at event")) << caught.output;
  EXPECT_TRUE(Contains(caught.output, "is not the one the exporting server signed"))
      << caught.output;
  Write(dir.path() / "junk.json", "{not json");
  EXPECT_EQ(Melee(dir.path(), "verify junk.json").code, 2);
  EXPECT_EQ(Melee(dir.path(), "verify nowhere.json").code, 2);

  // The director's audit of both files: the forged one is flagged, and each gets a CSV row.
  const CliRun audit = Melee(dir.path(), "audit match.json forged.json --csv ratings.csv "
                                         "--tournament T1 --round 2 --players 'Smith, Al' Bob "
                                         "--allied-axis Axis Allied --results Win Loss");
  EXPECT_EQ(audit.code, 1) << audit.output;
  EXPECT_TRUE(Contains(audit.output, "== match.json")) << audit.output;
  EXPECT_TRUE(Contains(audit.output, "does NOT verify")) << audit.output;
  EXPECT_TRUE(Contains(audit.output, "A11.11 CC DR")) << audit.output;
  EXPECT_TRUE(Contains(audit.output, "wrote ratings.csv (2 matches)")) << audit.output;
  std::ifstream csv_in(dir.path() / "ratings.csv");
  std::stringstream csv;
  csv << csv_in.rdbuf();
  EXPECT_TRUE(Contains(csv.str(), "Tournament ID,Round,Round Date,Scenario,Player 1,P1AttDef,"
                                  "P1AlorAx,P1 Result,Player 2,P2AttDef,P2AlorAx,P2 Result,Date,"
                                  "game id\r\n"))
      << csv.str();
  EXPECT_TRUE(Contains(csv.str(), "T1,2,,,\"Smith, Al\",Attacker,Axis,Win,Bob,Defender,Allied,Loss,"))
      << csv.str();
  EXPECT_TRUE(Contains(csv.str(), "," + created.match_id() + "\r\n")) << csv.str();
  EXPECT_EQ(Melee(dir.path(), "audit match.json").code, 0);

  // Into another server; a second time is refused; an unreachable server is exit 3.
  testing::TestServer other;
  const std::string there = "--server " + other.ws_url() + " ";
  const CliRun imported = Melee(dir.path(), there + "import match.json");
  EXPECT_EQ(imported.code, 0) << imported.output;
  EXPECT_TRUE(Contains(imported.output, "imported match " + created.match_id())) << imported.output;
  // As the README writes it: the global --server after the subcommand and its file.
  const CliRun again = Melee(dir.path(), "import match.json --server " + other.ws_url());
  EXPECT_EQ(again.code, 1) << again.output;
  EXPECT_TRUE(Contains(again.output, "already on this server")) << again.output;
  EXPECT_EQ(Melee(dir.path(), there + "import forged.json").code, 1);
  EXPECT_EQ(Melee(dir.path(), "--server ws://127.0.0.1:1/ws import match.json").code, 3);
}

// `melee match watch` follows a match live and stops when the close combat is over.
TEST(MeleeCli, WatchFollowsAMatchUntilTheCloseCombatEnds) {
  testing::ScriptedFaces faces(4);
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  testing::TestServer server({}, hooks);
  testing::TempDir dir;
  ASSERT_EQ(setenv("MELEE_SERVER", server.ws_url().c_str(), 1), 0);
  ASSERT_EQ(Melee(dir.path(), "match create --out m").code, 0);

  testing::Subprocess watch({"/bin/bash", "-c",
                             "cd '" + dir.path().string() + "' && exec '" MELEE_CLI_BINARY
                             "' match watch --seat m/spectator.seat --until-ended"});
  ASSERT_TRUE(watch.WaitForOutput("Waiting for:", std::chrono::seconds(10))) << watch.output();
  faces.Push({3, 4});
  ASSERT_NO_FATAL_FAILURE(PlayOneCloseCombat(dir.path()));
  const auto code = watch.Wait(std::chrono::seconds(20));
  EXPECT_EQ(code, 0) << watch.output();
  EXPECT_TRUE(Contains(watch.output(), "side_b sealed its declaration")) << watch.output();
  EXPECT_TRUE(Contains(watch.output(), "declarations revealed")) << watch.output();
  EXPECT_TRUE(Contains(watch.output(), "the close combat is over")) << watch.output();
}

// A match played by email: each one-shot command opens a session and closes it cleanly, so the
// director's audit counts sessions, not disconnects (4 each, none "left").
TEST(MeleeCli, OneShotCommandsAreSessionsNotDisconnects) {
  testing::ScriptedFaces faces(4);
  faces.Push({3, 4});
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  testing::TestServer server({}, hooks);
  testing::TempDir dir;
  ASSERT_EQ(setenv("MELEE_SERVER", server.ws_url().c_str(), 1), 0);
  ASSERT_EQ(Melee(dir.path(), "match create --out m").code, 0);
  ASSERT_NO_FATAL_FAILURE(PlayOneCloseCombat(dir.path()));
  // The last command's session ends when the server has read its close, which may come after
  // the director's export on a busy machine: export again until both seats' last sessions are
  // in the file (10 s at most).
  const std::string side_a = "side_a: 4 sessions, 0 disconnects (4 closed cleanly: not "
                             "disconnects)";
  CliRun audit;
  for (const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);;) {
    ASSERT_EQ(Melee(dir.path(), "export --seat m/director.seat --out d.json").code, 0);
    audit = Melee(dir.path(), "audit d.json");
    if ((Contains(audit.output, side_a) && Contains(audit.output, "side_b: 4 sessions")) ||
        std::chrono::steady_clock::now() > give_up) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(Contains(audit.output, side_a)) << audit.output;
  EXPECT_TRUE(Contains(audit.output, "side_b: 4 sessions, 0 disconnects")) << audit.output;
  EXPECT_FALSE(Contains(audit.output, "\n    left ")) << audit.output;
}

// The CLI over wss://: trusting the server's certificate with --ca-file, and refusing a server
// whose certificate it cannot check (exit 3, the reason named).
TEST(MeleeCli, PlaysOverTlsWithTheCertificateChecked) {
  testing::TempDir dir;
  testing::TestServer server(testing::TlsConfig(dir.path()));
  const std::string url = server.wss_url();
  ASSERT_EQ(setenv("MELEE_SERVER", url.c_str(), 1), 0);

  const CliRun untrusted = Melee(dir.path(), "match create --out m");
  EXPECT_EQ(untrusted.code, 3) << untrusted.output;
  EXPECT_TRUE(Contains(untrusted.output, "certificate verify failed")) << untrusted.output;

  const std::string ca = "--ca-file '" + (dir.path() / "cert.pem").string() + "' ";
  ASSERT_EQ(Melee(dir.path(), ca + "match create --out m").code, 0);
  Write(dir.path() / "a.json", kAliceUnits);
  const CliRun submitted = Melee(dir.path(), ca + "submit --seat m/side_a.seat --setup a.json");
  EXPECT_EQ(submitted.code, 0) << submitted.output;
  EXPECT_TRUE(Contains(submitted.output, "side_a entered its units: G1")) << submitted.output;
}

// The SDK's example program follows a match to its end (README, "Writing a client").
TEST(FollowMatchExample, PrintsEveryEventUntilTheCloseCombatIsOver) {
  testing::ScriptedFaces faces(4);
  faces.Push({3, 4});
  server::ServerHooks hooks;
  hooks.dice = faces.Source();
  testing::TestServer server({}, hooks);
  testing::TempDir dir;
  ASSERT_EQ(setenv("MELEE_SERVER", server.ws_url().c_str(), 1), 0);
  ASSERT_EQ(Melee(dir.path(), "match create --out m").code, 0);
  std::ifstream in(dir.path() / "m" / "spectator.seat");
  std::stringstream text;
  text << in.rdbuf();
  const std::string seat = text.str();
  const auto field = [&](const std::string& name) {
    const size_t at = seat.find("\"" + name + "\": \"") + name.size() + 5;
    return seat.substr(at, seat.find('"', at) - at);
  };
  testing::Subprocess follow({MELEE_FOLLOW_MATCH_BINARY, server.ws_url(), field("match_id"),
                              field("token"), "--spectate"});
  ASSERT_TRUE(follow.WaitForOutput("waiting for", std::chrono::seconds(10))) << follow.output();
  ASSERT_NO_FATAL_FAILURE(PlayOneCloseCombat(dir.path()));
  EXPECT_EQ(follow.Wait(std::chrono::seconds(20)), 0) << follow.output();
  EXPECT_TRUE(Contains(follow.output(), "declarations revealed")) << follow.output();
  EXPECT_TRUE(Contains(follow.output(), "the close combat is over")) << follow.output();
}

}  // namespace
}  // namespace melee

namespace melee {
namespace {

// Forces that persist, by email, in words only (docs/forces.md): set up once from the example
// roster, a Melee held through three CCPhs with declarations given as `--attack`, unit updates
// given as `--update` between them, and what each side's status shows.
TEST(MeleeCli, AMeleeByEmailGoesOnThroughThreeCcphsInWords) {
  testing::ScriptedFaces scripted(4);
  scripted.Push({5, 6});  // CCPh 1: side B's DR 11 misses
  server::ServerHooks hooks;
  hooks.dice = scripted.Source();
  testing::TestServer server({}, hooks);
  testing::TempDir dir;
  ASSERT_EQ(setenv("MELEE_SERVER", server.ws_url().c_str(), 1), 0);
  const std::filesystem::path examples = std::filesystem::path(MELEE_SOURCE_DIR) / "examples";
  std::filesystem::copy_file(examples / "asl" / "roster-side-a.txt", dir.path() / "alice.txt");
  ASSERT_EQ(Melee(dir.path(), "match create --out m").code, 0);
  const auto run = [&](const std::string& step) {
    const CliRun result = Melee(dir.path(), step);
    EXPECT_EQ(result.code, 0) << step << "\n" << result.output;
    return result;
  };
  run("submit --seat m/side_a.seat --setup alice.txt");
  run("submit --seat m/side_b.seat --unit 'R1: 4-4-7' --unit 'R2: 4-4-7'");
  run("submit --seat m/side_a.seat --confirm");
  run("submit --seat m/side_b.seat --confirm");
  // CCPh 1: the Germans hold their fire; the Russians' attack misses: a Melee.
  run("submit --seat m/side_a.seat --announce");
  run("submit --seat m/side_b.seat --announce");
  run("submit --seat m/side_b.seat --attack 'R1 R2 > G1 L1'");
  run("submit --seat m/side_a.seat --attack none");
  CliRun status = run("match status --seat m/side_a.seat");
  for (const char* expected : {"in Melee", "Forces (CCPh 2):", "G1 4-6-7 german in 11.141 EX",
                               "R2 4-4-7 in 11.141 EX", "Waiting for: side_b: announce"}) {
    EXPECT_TRUE(Contains(status.output, expected)) << expected << "\n" << status.output;
  }
  // Between the phases the Russians bring a concealed squad elsewhere, in words; the Germans
  // see a "?" and nothing of the note.
  const CliRun update =
      run("submit --seat m/side_b.seat --update 'R3 enter J5 4-4-7 concealed; up the orchard path'");
  EXPECT_TRUE(Contains(update.output, "R3 entered J5 (4-4-7 concealed); up the orchard path"))
      << update.output;
  status = run("match status --seat m/side_a.seat");
  EXPECT_TRUE(Contains(status.output, "side_b reported: ? R3 entered J5")) << status.output;
  EXPECT_TRUE(Contains(status.output, "R3 ? in J5")) << status.output;
  EXPECT_FALSE(Contains(status.output, "orchard")) << status.output;
  // Refused updates name the rule: R3 has its "?" already; G1 is in the Melee being played.
  const CliRun twice = Melee(dir.path(), "submit --seat m/side_b.seat --update 'R3 conceal A12.122'");
  EXPECT_NE(twice.code, 0);
  EXPECT_TRUE(Contains(twice.output, "A12.1")) << twice.output;
  const CliRun busy = Melee(dir.path(), "submit --seat m/side_a.seat --update 'G1 break'");
  EXPECT_NE(busy.code, 0);
  EXPECT_TRUE(Contains(busy.output, "A11.15")) << busy.output;
  const CliRun typo = Melee(dir.path(), "submit --seat m/side_a.seat --update 'G1 hide'");
  EXPECT_EQ(typo.code, 2);
  EXPECT_TRUE(Contains(typo.output, "--update 'G1 hide': 'hide' is not an update")) << typo.output;
  // CCPh 2 (the Russians attack) and CCPh 3: nobody attacks, the Melee holds.
  for (const char* step : {"submit --seat m/side_b.seat --announce",
                           "submit --seat m/side_a.seat --announce",
                           "submit --seat m/side_b.seat --attack none",
                           "submit --seat m/side_a.seat --attack none"}) {
    run(step);
  }
  status = run("match status --seat m/side_b.seat");
  EXPECT_TRUE(Contains(status.output, "Forces (CCPh 3):")) << status.output;
  EXPECT_TRUE(Contains(status.output, "ATTACKER side_a, in Melee")) << status.output;
  const CliRun again = Melee(dir.path(), "submit --seat m/side_b.seat --unit 'R1: 4-4-7'");
  EXPECT_NE(again.code, 0);
  EXPECT_TRUE(Contains(again.output, "the close combat has started")) << again.output;
}

}  // namespace
}  // namespace melee
