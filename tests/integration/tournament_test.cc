// Tournaments (docs/tournaments.md) on a real server on loopback with its committed dice: one
// director token creates, lists, follows, exports and audits every match of the event; a forged
// token, another tournament's and a match's own director token open nothing else; the token
// never leaves the server; display names are checked and shown; results are logged, verified
// and listed; the pooled audit's figures are the dice counted here from the match files.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "melee/asl/v1/asl.pb.h"
#include "melee/storage/v1/events.pb.h"
#include "melee/v1/tournament.pb.h"
#include "proto/codec/json.h"
#include "server/fair_play/audit.h"
#include "server/fair_play/pooled_audit.h"
#include "server/fair_play/verify.h"
#include "tests/testing/fair_play_match.h"
#include "tests/testing/http_get.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
namespace storage = melee::storage::v1;
namespace aslpb = melee::asl::v1;
using ::testing::HasSubstr;
using testing::MatchClient;

testing::HttpResult Get(uint16_t port, const std::string& target, const std::string& token) {
  return testing::HttpGet(port, target, http::verb::get, {},
                          token.empty() ? std::vector<std::pair<std::string, std::string>>{}
                                        : std::vector<std::pair<std::string, std::string>>{
                                              {"Authorization", "Bearer " + token}});
}

testing::HttpResult Post(uint16_t port, const std::string& target, const std::string& body,
                         const std::string& token = {}) {
  return testing::HttpGet(port, target, http::verb::post, body,
                          token.empty() ? std::vector<std::pair<std::string, std::string>>{}
                                        : std::vector<std::pair<std::string, std::string>>{
                                              {"Authorization", "Bearer " + token}});
}

template <class Message>
Message Parsed(const std::string& json) {
  Message message;
  const std::string problem = proto::FromJson(json, message);
  EXPECT_EQ(problem, "") << json;
  return message;
}

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// One seated match of the tournament.
struct Played {
  v1::MatchCreated created;
  std::unique_ptr<MatchClient> a;
  std::unique_ptr<MatchClient> b;
};

class TournamentTest : public ::testing::Test {
 protected:
  TournamentTest() { Start(); }

  void Start() {
    server_ = std::make_unique<testing::TestServer>(server::ServerConfig{}, server::ServerHooks{},
                                                    dir_.path() / "data");
  }
  uint16_t port() const { return server_->port(); }

  v1::TournamentCreated CreateTournament(const std::string& title) {
    const testing::HttpResult created =
        Post(port(), "/api/tournaments", R"({"title": ")" + title + R"("})");
    EXPECT_EQ(created.status, 201) << created.body;
    return Parsed<v1::TournamentCreated>(created.body);
  }

  v1::MatchSettings Settings(const std::string& tournament, const std::string& name_a,
                             const std::string& name_b) {
    v1::MatchSettings settings;
    settings.set_ruleset("asl");
    settings.set_title(name_a + " v " + name_b);
    settings.set_tournament_id(tournament);
    settings.set_side_a_name(name_a);
    settings.set_side_b_name(name_b);
    return settings;
  }

  // Creates a match of the tournament over the WebSocket (with its token), seats both players
  // and plays one close combat with the committed dice.
  Played PlayMatch(const std::string& name_a, const std::string& name_b) {
    Played played;
    played.a = MatchClient::Connect(server_->ws_url());
    played.b = MatchClient::Connect(server_->ws_url());
    v1::ClientMessage create;
    create.set_command_id("create-" + name_a + "-" + name_b);
    *create.mutable_create_match()->mutable_settings() =
        Settings(tournament_.tournament_id(), name_a, name_b);
    create.mutable_create_match()->set_tournament_token(tournament_.director_token());
    const v1::ServerMessage answer = played.a->Call(create);
    EXPECT_TRUE(answer.has_match_created()) << answer.DebugString();
    played.created = answer.match_created();
    EXPECT_TRUE(played.a->Join(played.created.match_id(), played.created.side_a_token())
                    .has_joined());
    EXPECT_TRUE(played.b->Join(played.created.match_id(), played.created.side_b_token())
                    .has_joined());
    testing::PlayCommittedCombat(*played.a, *played.b, "G3");
    return played;
  }

  v1::ServerMessage RecordResult(MatchClient& client, uint32_t combat, v1::ResultOutcome outcome,
                                 const std::string& command_id) {
    v1::ClientMessage message;
    message.set_command_id(command_id);
    message.mutable_record_result()->set_combat(combat);
    message.mutable_record_result()->set_outcome(outcome);
    return client.Act(message);
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::TestServer> server_;
  v1::TournamentCreated tournament_;
};

// Counted here from a director's match file: per side (0, 1), every die's face, and the dice of
// each purpose; the CC DR totals 2..12.
struct Counted {
  std::array<std::vector<uint64_t>, 2> faces{std::vector<uint64_t>(6, 0),
                                            std::vector<uint64_t>(6, 0)};
  std::array<std::vector<uint64_t>, 2> cc_totals{std::vector<uint64_t>(11, 0),
                                                std::vector<uint64_t>(11, 0)};
};

Counted CountDice(const storage::MatchFile& file) {
  Counted counted;
  for (const storage::FileEvent& event : file.events()) {
    storage::StoredEvent stored;
    EXPECT_TRUE(stored.ParseFromString(event.payload()));
    if (!stored.has_ruleset_event()) continue;
    aslpb::AslEvent asl;
    EXPECT_TRUE(asl.ParseFromString(stored.ruleset_event().event()));
    if (asl.seat() != v1::SEAT_SIDE_A && asl.seat() != v1::SEAT_SIDE_B) continue;
    const size_t side = asl.seat() == v1::SEAT_SIDE_A ? 0 : 1;
    for (int i = 0; i < asl.dice_size(); ++i) {
      const v1::DieRoll& die = asl.dice(i);
      ++counted.faces[side][die.value() - 1];
      if (die.purpose() == "A11.11 CC DR" && die.color() == v1::DieRoll::COLOR_COLORED) {
        ++counted.cc_totals[side][die.value() + asl.dice(i + 1).value() - 2];
      }
    }
  }
  return counted;
}

void AddTo(std::vector<uint64_t>& into, const std::vector<uint64_t>& counts) {
  for (size_t i = 0; i < counts.size(); ++i) into[i] += counts[i];
}

double ChiSquare(const std::vector<uint64_t>& counts, const std::vector<double>& probabilities) {
  uint64_t rolls = 0;
  for (uint64_t count : counts) rolls += count;
  double chi = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const double expected = static_cast<double>(rolls) * probabilities[i];
    chi += (static_cast<double>(counts[i]) - expected) * (static_cast<double>(counts[i]) - expected) /
           expected;
  }
  return chi;
}

const v1::PooledPlayer* PlayerNamed(const v1::PooledAudit& pooled, const std::string& name) {
  for (const v1::PooledPlayer& player : pooled.players()) {
    if (player.player() == name) return &player;
  }
  return nullptr;
}

TEST_F(TournamentTest, OneTokenListsExportsAndAuditsEveryMatch) {
  tournament_ = CreateTournament("Spring Melee");
  ASSERT_EQ(tournament_.tournament_id().substr(0, 1), "t");
  ASSERT_EQ(tournament_.director_token().size(), 64u);

  // Three matches, each player in two of them.
  std::vector<Played> matches;
  matches.push_back(PlayMatch("Alice", "Bob"));
  matches.push_back(PlayMatch("Bob", "Carol"));
  matches.push_back(PlayMatch("Carol", "Alice"));
  // Results: both players agree on match 1; they disagree on match 2 and the director (with the
  // tournament's token, over HTTP) decides; on match 3 only side A has entered one.
  ASSERT_TRUE(RecordResult(*matches[0].a, 0, v1::RESULT_OUTCOME_SIDE_A_WON, "r1").has_ack());
  ASSERT_TRUE(RecordResult(*matches[0].b, 0, v1::RESULT_OUTCOME_SIDE_A_WON, "r1").has_ack());
  ASSERT_TRUE(RecordResult(*matches[1].a, 1, v1::RESULT_OUTCOME_SIDE_A_WON, "r1").has_ack());
  ASSERT_TRUE(RecordResult(*matches[1].b, 1, v1::RESULT_OUTCOME_SIDE_B_WON, "r1").has_ack());
  const testing::HttpResult decided =
      Post(port(), "/api/matches/" + matches[1].created.match_id() + "/result",
           R"({"combat": 1, "outcome": "RESULT_OUTCOME_DRAW", "note": "by the rules"})",
           tournament_.director_token());
  ASSERT_EQ(decided.status, 200) << decided.body;
  ASSERT_TRUE(RecordResult(*matches[2].a, 0, v1::RESULT_OUTCOME_DRAW, "r1").has_ack());
  // A close combat the match has not played is refused, naming the range.
  const v1::ServerMessage refused =
      RecordResult(*matches[2].a, 7, v1::RESULT_OUTCOME_DRAW, "r2");
  ASSERT_TRUE(refused.has_error());
  EXPECT_THAT(refused.error().message(), HasSubstr("is not a close combat of this match"));

  // The list: every match, oldest first, with its players, where it stands and its results.
  const testing::HttpResult listed =
      Get(port(), "/api/tournaments/" + tournament_.tournament_id(), tournament_.director_token());
  ASSERT_EQ(listed.status, 200) << listed.body;
  const v1::Tournament list = Parsed<v1::Tournament>(listed.body);
  EXPECT_EQ(list.title(), "Spring Melee");
  ASSERT_EQ(list.matches_size(), 3);
  const std::array<std::pair<const char*, const char*>, 3> names = {
      std::pair{"Alice", "Bob"}, std::pair{"Bob", "Carol"}, std::pair{"Carol", "Alice"}};
  for (int i = 0; i < 3; ++i) {
    const v1::TournamentMatch& match = list.matches(i);
    EXPECT_EQ(match.match_id(), matches[i].created.match_id());
    EXPECT_EQ(match.side_a_name(), names[i].first);
    EXPECT_EQ(match.side_b_name(), names[i].second);
    EXPECT_EQ(match.ruleset(), "asl");
    // Over, or a Melee going on into the next CCPh (A11.15) when both units survived.
    EXPECT_TRUE(match.ended() || !match.waiting_for().empty()) << match.DebugString();
  }
  ASSERT_EQ(list.matches(0).results_size(), 1);
  EXPECT_EQ(list.matches(0).results(0).decided(), v1::RESULT_OUTCOME_SIDE_A_WON);
  EXPECT_THAT(list.matches(0).results(0).status(), HasSubstr("agreed by both players"));
  ASSERT_EQ(list.matches(1).results_size(), 1);
  EXPECT_EQ(list.matches(1).results(0).combat(), 1u);
  EXPECT_EQ(list.matches(1).results(0).location(), "G3");
  EXPECT_EQ(list.matches(1).results(0).decided(), v1::RESULT_OUTCOME_DRAW);
  EXPECT_THAT(list.matches(1).results(0).status(),
              HasSubstr("decided by the director: a draw (the players disagreed)"));
  EXPECT_EQ(list.matches(2).results(0).decided(), v1::RESULT_OUTCOME_UNSPECIFIED);
  EXPECT_THAT(list.matches(2).results(0).status(), HasSubstr("side_b has not entered one"));

  // The token follows a match as its director (the whole view), and exports complete files that
  // verify, results included.
  auto director = MatchClient::Connect(server_->ws_url());
  const v1::ServerMessage followed = director->Join(matches[0].created.match_id(),
                                                    tournament_.director_token(), 0, true);
  ASSERT_TRUE(followed.has_joined()) << followed.DebugString();
  EXPECT_EQ(followed.joined().seat(), v1::SEAT_DIRECTOR);
  EXPECT_EQ(followed.joined().view().settings().side_a_name(), "Alice");
  std::vector<storage::MatchFile> files;
  for (const Played& played : matches) {
    storage::MatchFile file = testing::ExportOver(port(), played.created.match_id(),
                                                  tournament_.director_token());
    EXPECT_EQ(file.exported_for(), "director");
    const server::VerifyReport report =
        server::VerifyMatchFile(file, server::BuiltinHosts(), std::string());
    EXPECT_TRUE(report.ok) << report.Describe();
    files.push_back(std::move(file));
  }

  // The pooled audit: its figures are the dice counted here, per player across matches.
  const testing::HttpResult audited = Get(
      port(), "/api/tournaments/" + tournament_.tournament_id() + "/audit",
      tournament_.director_token());
  ASSERT_EQ(audited.status, 200) << audited.body;
  const v1::PooledAudit pooled = Parsed<v1::PooledAudit>(audited.body);
  EXPECT_EQ(pooled.matches_size(), 3);
  EXPECT_TRUE(pooled.not_verified().empty());
  EXPECT_THAT(pooled.criterion(), HasSubstr("at least 5"));
  std::map<std::string, Counted> expected;
  for (size_t i = 0; i < files.size(); ++i) {
    const Counted counted = CountDice(files[i]);
    for (size_t side = 0; side < 2; ++side) {
      Counted& player = expected[side == 0 ? names[i].first : names[i].second];
      AddTo(player.faces[0], counted.faces[side]);
      AddTo(player.cc_totals[0], counted.cc_totals[side]);
    }
  }
  ASSERT_EQ(pooled.players_size(), 3);
  for (const auto& [name, counted] : expected) {
    const v1::PooledPlayer* player = PlayerNamed(pooled, name);
    ASSERT_NE(player, nullptr) << name;
    EXPECT_EQ(player->seats_size(), 2) << name;
    EXPECT_EQ(std::vector<uint64_t>(player->all_dice().counts().begin(),
                                    player->all_dice().counts().end()),
              counted.faces[0])
        << name;
    EXPECT_NEAR(player->all_dice().chi_square(),
                ChiSquare(counted.faces[0], std::vector<double>(6, 1.0 / 6)), 1e-9);
    uint64_t dice = 0;
    for (uint64_t count : counted.faces[0]) dice += count;
    EXPECT_EQ(player->all_dice().rolls(), dice);
    EXPECT_EQ(player->all_dice().judged(), dice >= 30) << "6 faces, 5 expected each";
    if (dice < 30) {
      EXPECT_EQ(player->all_dice().verdict(), "too few dice to judge");
    }
    const v1::PooledDiceTest* cc = nullptr;
    for (const v1::PooledDiceTest& test : player->dice()) {
      if (test.purpose() == "A11.11 CC DR" && test.shape() == "DR") cc = &test;
    }
    ASSERT_NE(cc, nullptr) << name << " attacked in both its matches";
    EXPECT_EQ(std::vector<uint64_t>(cc->counts().begin(), cc->counts().end()),
              counted.cc_totals[0]);
    EXPECT_EQ(cc->degrees_of_freedom(), 10u);
    EXPECT_FALSE(cc->judged()) << "a handful of DRs: 2 and 12 expect far fewer than 5";
    EXPECT_EQ(cc->verdict(), "too few dice to judge");
    // Each of the player's WebSocket connections is still open: no disconnects.
    EXPECT_EQ(player->disconnects(), 0u) << name;
  }
  // Response counts are the per-match audits' added up.
  std::map<std::string, uint64_t> responses;
  for (size_t i = 0; i < files.size(); ++i) {
    const auto audit = server::AuditMatch(files[i], server::BuiltinHosts());
    ASSERT_TRUE(audit.has_value());
    responses[names[i].first] += audit->timing[0].responses.size();
    responses[names[i].second] += audit->timing[1].responses.size();
    EXPECT_EQ(audit->names[0], names[i].first);
  }
  for (const auto& [name, count] : responses) {
    EXPECT_EQ(PlayerNamed(pooled, name)->responses(), count) << name;
  }
  ASSERT_EQ(pooled.match_results_size(), 3);
  EXPECT_EQ(pooled.match_results(1).side_a(), "Bob");
  EXPECT_EQ(pooled.match_results(1).results(0).decided(), v1::RESULT_OUTCOME_DRAW);

  // The CSV names the players and the tournament, and takes the match's result from the log.
  const auto first = server::AuditMatch(files[0], server::BuiltinHosts());
  ASSERT_TRUE(first.has_value());
  const std::string row = server::AslprCsvRow(*first, {});
  EXPECT_THAT(row, HasSubstr(tournament_.tournament_id() + ",,,,Alice,Attacker,,Win,Bob,"
                                                           "Defender,,Loss,"));
  std::ostringstream text;
  server::WriteAuditText(*first, text);
  EXPECT_THAT(text.str(), HasSubstr("players: side_a Alice, side_b Bob"));
  EXPECT_THAT(text.str(), HasSubstr("recorded the result of the match: side_a won"));
}

TEST_F(TournamentTest, OnlyTheTournamentsTokenOpensItsMatches) {
  tournament_ = CreateTournament("Spring Melee");
  const v1::TournamentCreated other = CreateTournament("Another event");
  const std::string& id = tournament_.tournament_id();
  Played first = PlayMatch("Alice", "Bob");
  Played second = PlayMatch("Bob", "Carol");

  // Creating a match in the tournament: without its token, or with another's, is refused (403
  // over HTTP, PERMISSION_DENIED over the WebSocket), and nothing is created.
  const std::string body = proto::ToJson(Settings(id, "Dan", "Eve"), proto::JsonStyle::kReport);
  const testing::HttpResult no_token = Post(port(), "/api/matches", body);
  EXPECT_EQ(no_token.status, 403) << no_token.body;
  EXPECT_THAT(no_token.body, HasSubstr("admits matches only with its director token"));
  EXPECT_EQ(Post(port(), "/api/matches", body, other.director_token()).status, 403);
  EXPECT_EQ(Post(port(), "/api/matches", body, std::string(64, 'f')).status, 403);
  auto client = MatchClient::Connect(server_->ws_url());
  v1::ClientMessage create;
  create.set_command_id("forged");
  *create.mutable_create_match()->mutable_settings() = Settings(id, "Dan", "Eve");
  create.mutable_create_match()->set_tournament_token(other.director_token());
  const v1::ServerMessage refused = client->Call(create);
  ASSERT_TRUE(refused.has_error());
  EXPECT_EQ(refused.error().code(), v1::ERROR_CODE_PERMISSION_DENIED);
  // With the token, over HTTP too. Its Idempotency-Key names the creation with that token: a
  // retry without the token is refused, never answered with the first one's seat tokens.
  const testing::HttpResult admitted = testing::HttpGet(
      port(), "/api/matches", http::verb::post, body,
      {{"Authorization", "Bearer " + tournament_.director_token()}, {"Idempotency-Key", "k1"}});
  EXPECT_EQ(admitted.status, 201) << admitted.body;
  const testing::HttpResult retried = testing::HttpGet(port(), "/api/matches", http::verb::post,
                                                       body, {{"Idempotency-Key", "k1"}});
  EXPECT_EQ(retried.status, 422) << retried.body;
  // An id no tournament here has is the plain label it always was.
  const testing::HttpResult label = Post(
      port(), "/api/matches",
      proto::ToJson(Settings("spring-2026", "Dan", "Eve"), proto::JsonStyle::kReport));
  EXPECT_EQ(label.status, 201) << label.body;
  const v1::MatchCreated labelled = Parsed<v1::MatchCreated>(label.body);

  // The list and the audit: forged, other and match-level tokens are refused.
  const std::string list = "/api/tournaments/" + id;
  EXPECT_EQ(Get(port(), list, "").status, 401);
  EXPECT_EQ(Get(port(), list, std::string(64, '0')).status, 403);
  EXPECT_EQ(Get(port(), list, other.director_token()).status, 403);
  EXPECT_EQ(Get(port(), list, first.created.director_token()).status, 403);
  EXPECT_EQ(Get(port(), list + "/audit", other.director_token()).status, 403);
  EXPECT_EQ(Get(port(), "/api/tournaments/tnosuch", tournament_.director_token()).status, 404);
  const v1::Tournament listed = Parsed<v1::Tournament>(Get(port(), list, tournament_.director_token()).body);
  EXPECT_EQ(listed.matches_size(), 3) << "two played, one created over HTTP";
  EXPECT_TRUE(Parsed<v1::Tournament>(Get(port(), "/api/tournaments/" + other.tournament_id(),
                                         other.director_token()).body)
                  .matches()
                  .empty());

  // A match's own director token opens that match only; the other tournament's token none.
  const std::string second_export = "/api/matches/" + second.created.match_id() + "/export";
  EXPECT_EQ(Get(port(), second_export, first.created.director_token()).status, 401);
  EXPECT_EQ(Get(port(), second_export, other.director_token()).status, 401);
  EXPECT_EQ(Get(port(), second_export, tournament_.director_token()).status, 200);
  EXPECT_EQ(Get(port(), "/api/matches/" + labelled.match_id() + "/export",
                tournament_.director_token())
                .status,
            401)
      << "a match labelled with another id is not the tournament's";
  auto spectator = MatchClient::Connect(server_->ws_url());
  const v1::ServerMessage forged =
      spectator->Join(second.created.match_id(), other.director_token(), 0, true);
  ASSERT_TRUE(forged.has_error());
  EXPECT_EQ(forged.error().code(), v1::ERROR_CODE_UNAUTHENTICATED);
  // The inbox answers the tournament's token as the director's.
  const testing::HttpResult inbox = Post(
      port(), "/api/inbox",
      R"({"seats": [{"match_id": ")" + second.created.match_id() + R"(", "token": ")" +
          tournament_.director_token() + R"("}]})");
  ASSERT_EQ(inbox.status, 200) << inbox.body;
  const v1::Inbox answered = Parsed<v1::Inbox>(inbox.body);
  EXPECT_EQ(answered.entries(0).seat(), v1::SEAT_DIRECTOR);
  EXPECT_EQ(answered.entries(0).view().settings().side_a_name(), "Bob");
  // The tournament's director records a result over the WebSocket too.
  auto director = MatchClient::Connect(server_->ws_url());
  ASSERT_TRUE(
      director->Join(second.created.match_id(), tournament_.director_token(), 0, true).has_joined());
  const v1::ServerMessage decided =
      RecordResult(*director, 0, v1::RESULT_OUTCOME_SIDE_B_WON, "director-1");
  ASSERT_TRUE(decided.has_ack()) << decided.DebugString();
  ASSERT_TRUE(director->WaitForSeq(decided.ack().seq()));
  ASSERT_EQ(director->view().results_size(), 1);
  EXPECT_THAT(director->view().results(0).status(), HasSubstr("decided by the director"));
  // A spectator may not record a result.
  EXPECT_EQ(Post(port(), "/api/matches/" + second.created.match_id() + "/result",
                 R"({"outcome": "RESULT_OUTCOME_DRAW"})", second.created.spectator_key())
                .status,
            401);
}

TEST_F(TournamentTest, TheTokenNeverLeavesTheServer) {
  tournament_ = CreateTournament("Spring Melee");
  Played played = PlayMatch("Alice", "Bob");
  ASSERT_TRUE(RecordResult(*played.a, 0, v1::RESULT_OUTCOME_SIDE_B_WON, "r").has_ack());
  const std::string& token = tournament_.director_token();
  auto director = MatchClient::Connect(server_->ws_url());
  ASSERT_TRUE(director->Join(played.created.match_id(), token, 0, true).has_joined());
  ASSERT_TRUE(Post(port(), "/api/matches/" + played.created.match_id() + "/result",
                   R"({"outcome": "RESULT_OUTCOME_SIDE_B_WON"})", token)
                  .status == 200);
  ASSERT_TRUE(director->WaitForSeq(director->last_seq() + 1));

  std::string seen;
  for (MatchClient* client : {played.a.get(), played.b.get(), director.get()}) {
    for (const v1::ServerMessage& message : client->received()) {
      seen += message.SerializeAsString() + proto::ToJson(message, proto::JsonStyle::kReport);
    }
  }
  seen += Get(port(), "/api/tournaments/" + tournament_.tournament_id(), token).body;
  seen += Get(port(), "/api/tournaments/" + tournament_.tournament_id() + "/audit", token).body;
  for (const std::string& for_whom : {played.created.director_token(), token,
                                      played.created.side_a_token()}) {
    seen += Get(port(), "/api/matches/" + played.created.match_id() + "/export", for_whom).body;
  }
  EXPECT_EQ(seen.find(token), std::string::npos) << "in a frame, a list, an audit or a file";
  server_->Stop();
  // Nor in the store: the database and its write-ahead log hold only the token's hash.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_.path())) {
    if (!entry.is_regular_file()) continue;
    EXPECT_EQ(Slurp(entry.path()).find(token), std::string::npos) << entry.path();
  }
}

TEST_F(TournamentTest, NamesAreCheckedAndShown) {
  tournament_ = CreateTournament("Spring Melee");
  auto client = MatchClient::Connect(server_->ws_url());
  for (const auto& [name, problem] :
       {std::pair{std::string("Al\nice"), "settings.side_a_name: control characters"},
        std::pair{std::string("Al\x7f"), "settings.side_a_name: control characters"},
        std::pair{std::string("Al\xc2\x85x"), "settings.side_a_name: control characters"},
        std::pair{std::string(65, 'x'), "settings.side_a_name: at most 64 bytes"},
        std::pair{std::string(" Alice"), "settings.side_a_name: no leading or trailing"}}) {
    v1::ClientMessage create;
    create.set_command_id("bad");
    *create.mutable_create_match()->mutable_settings() = Settings("", name, "Bob");
    const v1::ServerMessage refused = client->Call(create);
    ASSERT_TRUE(refused.has_error()) << name;
    EXPECT_THAT(refused.error().message(), HasSubstr(problem));
  }
  // A name in any script is fine, and every seat and spectator sees it.
  v1::MatchCreated created = client->Create(Settings("", "Zoë Ł", "Bob"));
  for (const std::string& token : {created.side_b_token(), created.spectator_key()}) {
    auto seat = MatchClient::Connect(server_->ws_url());
    const v1::ServerMessage joined =
        seat->Join(created.match_id(), token, 0, token == created.spectator_key());
    ASSERT_TRUE(joined.has_joined()) << joined.DebugString();
    EXPECT_EQ(joined.joined().view().settings().side_a_name(), "Zoë Ł");
  }
}

TEST_F(TournamentTest, TournamentsAndResultsSurviveARestart) {
  tournament_ = CreateTournament("Spring Melee");
  Played played = PlayMatch("Alice", "Bob");
  ASSERT_TRUE(RecordResult(*played.a, 1, v1::RESULT_OUTCOME_SIDE_A_WON, "r").has_ack());
  played = Played{};
  server_->Stop();
  Start();
  const testing::HttpResult listed = Get(port(), "/api/tournaments/" + tournament_.tournament_id(),
                                         tournament_.director_token());
  ASSERT_EQ(listed.status, 200) << listed.body;
  const v1::Tournament list = Parsed<v1::Tournament>(listed.body);
  ASSERT_EQ(list.matches_size(), 1);
  ASSERT_EQ(list.matches(0).results_size(), 1);
  EXPECT_THAT(list.matches(0).results(0).status(), HasSubstr("side_a's entry: side_a won"));
}

}  // namespace
}  // namespace melee
