// The director's audit of a match file (server/fair_play/audit.h), on files a real server
// exported after playing with its committed dice: dice counted as the log has them, chi-square
// values checked against values computed by hand, response times from the recorded times, missed
// deadlines, disconnects, the replay timeline and the ASLPR CSV row.

#include "server/fair_play/audit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "melee/asl/v1/asl.pb.h"
#include "melee/storage/v1/events.pb.h"
#include "server/clock.h"
#include "server/matches.h"
#include "server/transport/server.h"
#include "tests/testing/fair_play_match.h"
#include "tests/testing/test_server.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
namespace storage = melee::storage::v1;
namespace aslpb = melee::asl::v1;
using ::testing::HasSubstr;
using testing::MatchClient;
using ::testing::StartsWith;

// ManualClock's default start, 2026-09-21 14:13:20 UTC: every event is recorded then unless a
// test moves the clock.
constexpr int64_t kStartMs = 1'790'000'000'000;

storage::StoredEvent Stored(const storage::FileEvent& event) {
  storage::StoredEvent stored;
  EXPECT_TRUE(stored.ParseFromString(event.payload()));
  return stored;
}

aslpb::AslEvent AslOf(const storage::StoredEvent& stored) {
  aslpb::AslEvent event;
  EXPECT_TRUE(event.ParseFromString(stored.ruleset_event().event()));
  return event;
}

// 0 side A, 1 side B, 2 nobody: who an AslEvent rolled for.
size_t Bucket(v1::Seat seat) {
  return seat == v1::SEAT_SIDE_A ? 0 : seat == v1::SEAT_SIDE_B ? 1 : 2;
}

server::MatchAudit Audit(const storage::MatchFile& file) {
  auto audit = server::AuditMatch(file, server::BuiltinHosts());
  EXPECT_TRUE(audit.has_value()) << (audit ? "" : engine::Describe(audit.error()));
  return audit ? *audit : server::MatchAudit{};
}

std::string Text(const server::MatchAudit& audit) {
  std::ostringstream out;
  server::WriteAuditText(audit, out);
  return out.str();
}

const server::DiceTest* Find(const server::PlayerDice& dice, const std::string& purpose,
                             server::DiceShape shape) {
  for (const server::DiceTest& test : dice.by_purpose) {
    if (test.label == purpose && test.shape == shape) return &test;
  }
  return nullptr;
}

class AuditTest : public ::testing::Test {
 protected:
  AuditTest() : server_({}, Hooks()) {}

  // The manual clock, and the server's committed dice (no scripted faces).
  server::ServerHooks Hooks() {
    server::ServerHooks hooks;
    hooks.clock = clock_;
    return hooks;
  }

  // Creates an asl match of tournament "spring-2026" and seats two players.
  void Seat(uint32_t declaration_deadline_seconds = 0) {
    a_ = MatchClient::Connect(server_.ws_url());
    b_ = MatchClient::Connect(server_.ws_url());
    ASSERT_TRUE(a_ && b_);
    v1::MatchSettings settings;
    settings.set_ruleset("asl");
    settings.set_tournament_id("spring-2026");
    settings.set_declaration_deadline_seconds(declaration_deadline_seconds);
    created_ = a_->Create(settings);
    ASSERT_TRUE(a_->Join(created_.match_id(), created_.side_a_token()).has_joined());
    ASSERT_TRUE(b_->Join(created_.match_id(), created_.side_b_token()).has_joined());
  }

  // Two close combats with the server's committed dice, exported by the director.
  storage::MatchFile PlayTwoAndExport() {
    Seat();
    testing::OrderLocations(*a_, *b_, {"G3", "H4"});
    testing::PlayCommittedCombat(*a_, *b_, "G3");
    testing::PlayCommittedCombat(*a_, *b_, "H4", std::string(16, 'c'), std::string(8, 'd'));
    return Export();
  }

  storage::MatchFile Export() {
    return testing::ExportOver(server_.port(), created_.match_id(), created_.director_token());
  }

  std::shared_ptr<server::ManualClock> clock_ = std::make_shared<server::ManualClock>();
  testing::TestServer server_;
  std::unique_ptr<MatchClient> a_;
  std::unique_ptr<MatchClient> b_;
  v1::MatchCreated created_;
};

TEST_F(AuditTest, DiceCountsAreTheDiceOfTheLog) {
  const storage::MatchFile file = PlayTwoAndExport();
  const server::MatchAudit audit = Audit(file);
  ASSERT_TRUE(audit.verification.ok) << audit.verification.Describe();

  // Counted again here from the AslEvents: faces per bucket (3: the whole match), dice per
  // purpose, and the CC DR totals (a coloured die, then the white one).
  std::array<std::vector<uint64_t>, 4> faces;
  for (auto& bucket : faces) bucket.assign(6, 0);
  std::array<std::map<std::string, uint64_t>, 4> dice_of_purpose;
  std::array<std::vector<uint64_t>, 4> cc_totals;
  for (auto& bucket : cc_totals) bucket.assign(11, 0);
  for (const storage::FileEvent& event : file.events()) {
    const storage::StoredEvent stored = Stored(event);
    if (!stored.has_ruleset_event()) continue;
    const aslpb::AslEvent asl = AslOf(stored);
    for (const size_t bucket : {Bucket(asl.seat()), size_t{3}}) {
      for (int i = 0; i < asl.dice_size(); ++i) {
        const v1::DieRoll& die = asl.dice(i);
        ++faces[bucket][die.value() - 1];
        ++dice_of_purpose[bucket][die.purpose()];
        if (die.purpose() == "A11.11 CC DR" && die.color() == v1::DieRoll::COLOR_COLORED) {
          ASSERT_LT(i + 1, asl.dice_size());
          ASSERT_EQ(asl.dice(i + 1).color(), v1::DieRoll::COLOR_WHITE);
          ++cc_totals[bucket][die.value() + asl.dice(i + 1).value() - 2];
        }
      }
    }
  }
  // Both sides attacked in both combats: at least four CC DRs.
  uint64_t cc_drs = 0;
  for (uint64_t count : cc_totals[3]) cc_drs += count;
  EXPECT_GE(cc_drs, 4u);

  for (size_t bucket = 0; bucket < 4; ++bucket) {
    const server::PlayerDice& dice = audit.dice[bucket];
    EXPECT_EQ(dice.all_dice.counts, faces[bucket]) << dice.player;
    EXPECT_EQ(dice.invalid_dice, 0u);
    uint64_t all = 0;
    for (uint64_t count : faces[bucket]) all += count;
    EXPECT_EQ(dice.all_dice.rolls, all);
    // Every die is in exactly one purpose's test (a DR holds two).
    std::map<std::string, uint64_t> counted;
    for (const server::DiceTest& test : dice.by_purpose) {
      counted[test.label] += test.rolls * (test.shape == server::DiceShape::kTwoDice ? 2 : 1);
    }
    EXPECT_EQ(counted, dice_of_purpose[bucket]) << dice.player;
    const server::DiceTest* cc = Find(dice, "A11.11 CC DR", server::DiceShape::kTwoDice);
    if (bucket == 2) {
      EXPECT_EQ(cc, nullptr) << "a CC DR is an attacker's";
      continue;
    }
    ASSERT_NE(cc, nullptr) << dice.player << " rolled CC DRs";
    EXPECT_EQ(cc->counts, cc_totals[bucket]);
    EXPECT_EQ(cc->lowest, 2);
    EXPECT_EQ(cc->degrees_of_freedom, 10);
    EXPECT_DOUBLE_EQ(cc->expected[5], static_cast<double>(cc->rolls) * 6 / 36);  // DR 7
    EXPECT_TRUE(cc->indicative_only) << "a few DRs expect fewer than 5 per total";
    EXPECT_GE(cc->p_value, 0.0);
    EXPECT_LE(cc->p_value, 1.0);
  }
  EXPECT_EQ(audit.dice[0].player, "side_a");
  EXPECT_EQ(audit.dice[2].player, "nobody");
  EXPECT_EQ(audit.dice[3].player, "the whole match");

  const std::string text = Text(audit);
  EXPECT_THAT(text,
              HasSubstr("  side_a: " + std::to_string(audit.dice[0].all_dice.rolls) + " dice\n"));
  EXPECT_THAT(text, HasSubstr("  the whole match: " + std::to_string(audit.dice[3].all_dice.rolls) +
                              " dice\n"));
  EXPECT_THAT(text, HasSubstr("    A11.11 CC DR: " + std::to_string(cc_drs) +
                              " DRs (totals 2..12, coloured + white die)\n"));
  EXPECT_THAT(text, HasSubstr("indicative only"));
}

// Values computed by hand: sum((seen - expected)^2 / expected), and the chi-square survival
// function in closed form (df 5: erfc(sqrt(x/2)) + sqrt(2x/pi) e^(-x/2) (1 + x/3); df 10:
// e^(-x/2) sum_{k<5} (x/2)^k / k!).
TEST(AuditDiceTest, ChiSquareMatchesValuesComputedByHand) {
  const server::DiceTest d6 =
      server::TestDice("A.9 RS dr", server::DiceShape::kD6, {10, 10, 10, 10, 10, 20});
  EXPECT_EQ(d6.rolls, 70u);
  EXPECT_DOUBLE_EQ(d6.expected[0], 70.0 / 6);
  // 5 faces off by 5/3 and one by 25/3, over 35/3 each: (5 * 25/9 + 625/9) / (35/3) = 50/7.
  EXPECT_NEAR(d6.chi_square, 50.0 / 7, 1e-12);
  EXPECT_EQ(d6.degrees_of_freedom, 5);
  EXPECT_NEAR(d6.p_value, 0.21023080886348552, 1e-9);
  EXPECT_FALSE(d6.indicative_only) << "11.67 expected per face";

  // 72 DRs: two more 2s and two fewer 12s than (2,4,6,8,10,12,10,8,6,4,2).
  const server::DiceTest dr = server::TestDice("A11.11 CC DR", server::DiceShape::kTwoDice,
                                               {4, 4, 6, 8, 10, 12, 10, 8, 6, 4, 0});
  EXPECT_EQ(dr.rolls, 72u);
  EXPECT_DOUBLE_EQ(dr.expected[0], 2.0);
  EXPECT_DOUBLE_EQ(dr.expected[5], 12.0);
  EXPECT_NEAR(dr.chi_square, 4.0, 1e-12);
  EXPECT_EQ(dr.degrees_of_freedom, 10);
  EXPECT_NEAR(dr.p_value, 0.9473469826562889, 1e-9);
  EXPECT_TRUE(dr.indicative_only) << "DR 2 expects 2";

  const server::DiceTest exact = server::TestDice("A11.11 CC DR", server::DiceShape::kTwoDice,
                                                  {1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(exact.chi_square, 0.0);
  EXPECT_DOUBLE_EQ(exact.p_value, 1.0);

  const server::DiceTest none = server::TestDice("x", server::DiceShape::kD6, {0, 0, 0, 0, 0, 0});
  EXPECT_EQ(none.rolls, 0u);
  EXPECT_DOUBLE_EQ(none.p_value, 1.0);
  EXPECT_TRUE(none.indicative_only);
}

// recorded_unix_ms is outside the hash chain but inside the file's signature: with other times
// the file no longer verifies, and is still audited. Each event seq s is given the time
// start + 10 s^2 ms, so a response at seq s waited 10 (2s - 1) ms.
TEST_F(AuditTest, ResponseTimesComeFromTheRecordedTimes) {
  storage::MatchFile file = PlayTwoAndExport();
  for (storage::FileEvent& event : *file.mutable_events()) {
    const auto seq = static_cast<int64_t>(event.seq());
    event.set_recorded_unix_ms(kStartMs + 10 * seq * seq);
  }
  // Which events answer the rules, found here from the causes and their asl commands.
  std::array<std::vector<std::pair<uint64_t, int64_t>>, 2> expected;  // (seq, waited)
  std::array<std::vector<std::string>, 2> kinds;
  for (const storage::FileEvent& event : file.events()) {
    const storage::StoredEvent stored = Stored(event);
    if (!stored.has_ruleset_event() || !stored.ruleset_event().has_cause()) continue;
    const storage::Cause& cause = stored.ruleset_event().cause();
    aslpb::Command command;
    ASSERT_TRUE(command.ParseFromString(cause.command()));
    if (command.has_set_up()) continue;  // the server starts the combat after both confirm
    const size_t side = cause.seat() == storage::SEAT_SIDE_A ? 0 : 1;
    const auto seq = static_cast<int64_t>(event.seq());
    expected[side].emplace_back(event.seq(), 10 * (2 * seq - 1));
    kinds[side].push_back(command.has_seal()       ? "declaration"
                          : command.has_announce() ? "announcement"
                                                   : "choice");
    if (command.has_seal()) {
      EXPECT_FALSE(cause.receipt().empty());
    }
  }
  const server::MatchAudit audit = Audit(file);
  EXPECT_FALSE(audit.verification.ok) << "the times were changed after export";
  EXPECT_THAT(audit.verification.reason, HasSubstr("an event's time"));
  const std::string text = Text(audit);
  for (size_t side = 0; side < 2; ++side) {
    const server::SeatTiming& timing = audit.timing[side];
    ASSERT_GE(expected[side].size(), 4u) << "an announcement and a seal in each combat";
    ASSERT_EQ(timing.responses.size(), expected[side].size());
    std::vector<int64_t> waits;
    for (size_t i = 0; i < expected[side].size(); ++i) {
      EXPECT_EQ(timing.responses[i].seq, expected[side][i].first);
      EXPECT_EQ(timing.responses[i].waited_ms, expected[side][i].second);
      EXPECT_EQ(timing.responses[i].what, kinds[side][i]);
      EXPECT_EQ(
          timing.responses[i].unix_ms,
          kStartMs + 10 * static_cast<int64_t>(expected[side][i].first * expected[side][i].first));
      waits.push_back(expected[side][i].second);
    }
    std::sort(waits.begin(), waits.end());
    const size_t mid = waits.size() / 2;
    const int64_t median = waits.size() % 2 == 1 ? waits[mid] : (waits[mid - 1] + waits[mid]) / 2;
    EXPECT_EQ(timing.median_ms, median);
    EXPECT_EQ(timing.max_ms, waits.back());
    EXPECT_TRUE(timing.missed_deadlines.empty());
    EXPECT_THAT(text, HasSubstr("  " + timing.seat + ": " + std::to_string(expected[side].size()) +
                                " responses, median "));
  }
  EXPECT_THAT(text, HasSubstr("  side_a: none\n"));
}

// A declaration deadline of 120 s: side A lets its announcement's pass; then each seat acts at
// a known time on the manual clock (the recorded times, as the server wrote them).
TEST_F(AuditTest, AMissedDeadlineIsReportedWithItsSeqAndTime) {
  Seat(120);
  testing::EnterAndConfirm(*a_, *b_);
  ASSERT_TRUE(b_->WaitForSeq(a_->last_seq()));
  const uint64_t before = b_->last_seq();
  clock_->Advance(std::chrono::seconds(121));
  server_.server().matches().CheckDeadlines();
  ASSERT_TRUE(b_->WaitForSeq(before + 1));
  ASSERT_TRUE(b_->WaitForSeq(b_->view().seq()));
  clock_->Advance(std::chrono::seconds(7));
  ASSERT_TRUE(b_->Act(testing::AnnounceNothing()).has_ack());
  clock_->Advance(std::chrono::seconds(5));
  ASSERT_TRUE(b_->Act(testing::Seal({{{"R1"}, {"G1"}}})).has_ack());
  ASSERT_TRUE(a_->WaitForSeq(b_->last_seq()));
  clock_->Advance(std::chrono::seconds(3));
  ASSERT_TRUE(a_->Act(testing::Seal({{{"G1"}, {"R1"}}})).has_ack());
  testing::FinishCombat(*a_, *b_);
  const storage::MatchFile file = Export();

  // The default, found here from the log.
  uint64_t default_seq = 0;
  for (const storage::FileEvent& event : file.events()) {
    const storage::StoredEvent stored = Stored(event);
    if (stored.has_ruleset_event() && stored.ruleset_event().cause().deadline_default()) {
      ASSERT_EQ(default_seq, 0u) << "one default only";
      default_seq = event.seq();
      EXPECT_EQ(stored.ruleset_event().cause().seat(), storage::SEAT_SIDE_A);
      EXPECT_EQ(AslOf(stored).kind(), aslpb::EVENT_KIND_ANNOUNCED);
    }
  }
  ASSERT_NE(default_seq, 0u);

  const server::MatchAudit audit = Audit(file);
  ASSERT_TRUE(audit.verification.ok) << audit.verification.Describe();
  ASSERT_EQ(audit.timing[0].missed_deadlines.size(), 1u);
  const server::MissedDeadline& missed = audit.timing[0].missed_deadlines[0];
  EXPECT_EQ(missed.seq, default_seq);
  EXPECT_EQ(missed.unix_ms, kStartMs + 121'000);
  EXPECT_EQ(missed.what, "announcement");
  EXPECT_TRUE(audit.timing[1].missed_deadlines.empty());
  // The default is no answer of side A's.
  for (const server::Response& response : audit.timing[0].responses) {
    EXPECT_NE(response.seq, default_seq);
  }
  // B answered 7 s after A's default, sealed 5 s later; A sealed 3 s after B.
  ASSERT_GE(audit.timing[1].responses.size(), 2u);
  EXPECT_EQ(audit.timing[1].responses[0].what, "announcement");
  EXPECT_GT(audit.timing[1].responses[0].seq, default_seq);
  EXPECT_EQ(audit.timing[1].responses[0].waited_ms, 7'000);
  EXPECT_EQ(audit.timing[1].responses[1].what, "declaration");
  EXPECT_EQ(audit.timing[1].responses[1].waited_ms, 5'000);
  ASSERT_GE(audit.timing[0].responses.size(), 1u);
  EXPECT_EQ(audit.timing[0].responses[0].what, "declaration");
  EXPECT_EQ(audit.timing[0].responses[0].waited_ms, 3'000);
  EXPECT_EQ(audit.timing[0].responses[0].unix_ms, kStartMs + 136'000);

  const server::TimelineEntry& entry = audit.timeline[default_seq - 1];
  EXPECT_EQ(entry.who, "server");
  EXPECT_THAT(entry.what, StartsWith("the rules default for side_a (its deadline passed): "));
  const std::string text = Text(audit);
  EXPECT_THAT(text, HasSubstr("  side_a: 1\n    seq " + std::to_string(default_seq) +
                              " at 2026-09-21 14:15:21.000Z: its announcement\n"));
  EXPECT_THAT(text, HasSubstr("  side_b: none\n"));
}

// The server may or may not fill the file's session records; the audit counts what is there.
TEST_F(AuditTest, SessionsCountConnectionsAndDisconnects) {
  Seat();
  storage::MatchFile file = Export();
  file.clear_sessions();
  server::MatchAudit audit = Audit(file);
  for (const server::SeatSessions& seat : audit.sessions) {
    EXPECT_EQ(seat.sessions, 0u) << seat.seat;
    EXPECT_TRUE(seat.disconnects.empty());
  }
  EXPECT_THAT(Text(audit), HasSubstr("Connections\n  this file records no sessions\n"));

  const auto add = [&file](storage::Seat seat, int64_t joined, int64_t left, std::string reason) {
    storage::SessionRecord& record = *file.add_sessions();
    record.set_seat(seat);
    record.set_joined_unix_ms(joined);
    record.set_left_unix_ms(left);
    record.set_reason(std::move(reason));
  };
  add(storage::SEAT_SIDE_A, kStartMs, kStartMs + 60'000, "idle timeout");
  add(storage::SEAT_SIDE_B, kStartMs, kStartMs + 30'000, "closed by the client");
  add(storage::SEAT_SIDE_A, kStartMs + 61'000, 0, "");
  add(storage::SEAT_DIRECTOR, kStartMs + 1'000, 0, "");
  add(storage::SEAT_UNSPECIFIED, kStartMs, kStartMs + 1, "not a seat");
  audit = Audit(file);
  EXPECT_FALSE(audit.verification.ok) << "sessions are signed with the file";
  EXPECT_THAT(audit.verification.reason, HasSubstr("the session journal"));
  EXPECT_EQ(audit.sessions[0].seat, "side_a");
  EXPECT_EQ(audit.sessions[0].sessions, 2u);
  ASSERT_EQ(audit.sessions[0].disconnects.size(), 1u);
  EXPECT_EQ(audit.sessions[0].disconnects[0].joined_unix_ms, kStartMs);
  EXPECT_EQ(audit.sessions[0].disconnects[0].left_unix_ms, kStartMs + 60'000);
  EXPECT_EQ(audit.sessions[0].disconnects[0].reason, "idle timeout");
  EXPECT_EQ(audit.sessions[1].sessions, 1u);
  EXPECT_TRUE(audit.sessions[1].disconnects.empty()) << "the player closed it: not a disconnect";
  EXPECT_EQ(audit.sessions[1].closed, 1u);
  EXPECT_EQ(audit.sessions[2].seat, "director");
  EXPECT_EQ(audit.sessions[2].sessions, 1u);
  EXPECT_TRUE(audit.sessions[2].disconnects.empty());
  const std::string text = Text(audit);
  EXPECT_THAT(text, HasSubstr("  side_a: 2 sessions, 1 disconnect\n    left 2026-09-21 "
                              "14:14:20.000Z (joined 2026-09-21 14:13:20.000Z): idle timeout\n"));
  EXPECT_THAT(text, HasSubstr("  director: 1 session, 0 disconnects\n"));
  EXPECT_THAT(text, HasSubstr("  side_b: 1 session, 0 disconnects (1 closed cleanly: not "
                              "disconnects)\n"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("not a seat")));
}

TEST(AuditCsvTest, OnlyAslMatchesHaveAnAslPlayerRatingsRow) {
  server::MatchAudit audit;
  audit.ruleset = "asl a11-2";
  EXPECT_TRUE(server::HasAslprRow(audit));
  audit.ruleset = "vv vv15-2";
  EXPECT_FALSE(server::HasAslprRow(audit));
  audit.ruleset = "coc coc17-1";
  EXPECT_FALSE(server::HasAslprRow(audit));
}

TEST_F(AuditTest, TheCsvRowQuotesFieldsAndTakesTheAttackerFromTheLog) {
  EXPECT_EQ(server::AslprCsvHeader(),
            "Tournament ID,Round,Round Date,Scenario,Player 1,P1AttDef,P1AlorAx,P1 Result,"
            "Player 2,P2AttDef,P2AlorAx,P2 Result,Date,game id");
  Seat();
  testing::PlayCommittedCombat(*a_, *b_, "G3");  // side A is the ATTACKER
  const server::MatchAudit audit = Audit(Export());
  ASSERT_TRUE(audit.first_attacker.has_value());
  EXPECT_EQ(*audit.first_attacker, engine::Seat::kSideA);

  server::AslprFields fields;
  fields.round = "3";
  fields.round_date = "2026-09-20";
  fields.scenario = "J1 \"Welcome\"";
  fields.players = {"Smith, John", "Jane Doe"};
  fields.allied_axis = {"Axis", "Allied"};
  fields.results = {"Win", "Loss"};
  EXPECT_EQ(server::AslprCsvRow(audit, fields),
            "spring-2026,3,2026-09-20,\"J1 \"\"Welcome\"\"\",\"Smith, John\",Attacker,Axis,Win,"
            "Jane Doe,Defender,Allied,Loss,2026-09-21," +
                created_.match_id());

  // What the director enters wins over the log; unnamed players are the seats.
  fields.tournament_id = "ASLOK";
  fields.att_def = {"Defender", "Attacker"};
  fields.players = {"", ""};
  EXPECT_EQ(server::AslprCsvRow(audit, fields),
            "ASLOK,3,2026-09-20,\"J1 \"\"Welcome\"\"\",side_a,Defender,Axis,Win,side_b,Attacker,"
            "Allied,Loss,2026-09-21," +
                created_.match_id());
}

TEST_F(AuditTest, TheTimelineNamesEveryEventInOrder) {
  const storage::MatchFile file = PlayTwoAndExport();
  const server::MatchAudit audit = Audit(file);
  ASSERT_EQ(audit.timeline.size(), static_cast<size_t>(file.events_size()));
  const std::string text = Text(audit);
  const std::string timeline = text.substr(text.find("\nTimeline\n"));
  int heads = 0;
  for (int i = 0; i < file.events_size(); ++i) {
    const server::TimelineEntry& entry = audit.timeline[static_cast<size_t>(i)];
    const uint64_t seq = static_cast<uint64_t>(i) + 1;
    EXPECT_EQ(entry.seq, seq);
    EXPECT_EQ(entry.unix_ms, file.events(i).recorded_unix_ms());
    EXPECT_THAT(timeline, HasSubstr("\n  seq " + std::to_string(seq) + "  2026-09-21 "));
    const storage::StoredEvent stored = Stored(file.events(i));
    if (stored.has_ruleset_event()) {
      const std::string account = AslOf(stored).text();
      EXPECT_THAT(entry.what, StartsWith(account.substr(0, account.find('\n'))));
    }
    if (stored.has_head_signed()) {
      ++heads;
      EXPECT_EQ(entry.who, "server");
      EXPECT_EQ(entry.what, "the server signed the chain head after event " +
                                std::to_string(stored.head_signed().seq()));
    }
    if (stored.has_setup_confirmed()) {
      EXPECT_THAT(entry.what, HasSubstr("confirmed the set-up"));
    }
    if (stored.has_match_created()) {
      EXPECT_THAT(entry.what, HasSubstr("match " + created_.match_id() + " created (asl"));
    }
  }
  EXPECT_EQ(heads, 2);
  EXPECT_EQ(audit.timeline.front().unix_ms, kStartMs);
  EXPECT_THAT(text, StartsWith("Audit of match " + created_.match_id() + " (asl "));
  EXPECT_THAT(text, HasSubstr("Verification\n  OK: match " + created_.match_id()));
  EXPECT_THAT(text, HasSubstr(", tournament spring-2026\n"));
}

// Side B has sealed, side A not yet: A's export has B's seal as a hash only.
TEST_F(AuditTest, ARedactedEventIsNamedAsSuchAndItsDiceAreNotCounted) {
  Seat();
  testing::EnterAndConfirm(*a_, *b_);
  testing::AnnounceAndSealSideB(*a_, *b_);
  const uint64_t sealed = b_->last_seq();
  const storage::MatchFile for_a =
      testing::ExportOver(server_.port(), created_.match_id(), created_.side_a_token());
  ASSERT_TRUE(for_a.events(static_cast<int>(sealed) - 1).redacted());

  const server::MatchAudit audit = Audit(for_a);
  EXPECT_TRUE(audit.verification.ok) << audit.verification.Describe();
  EXPECT_EQ(audit.redacted, 1u);
  EXPECT_EQ(audit.exported_for, "side_a");
  const server::TimelineEntry& entry = audit.timeline[sealed - 1];
  EXPECT_EQ(entry.who, "?");
  EXPECT_EQ(entry.what, "(redacted in this seat's export)");
  // Each side's announcement; B's seal is hidden from A, so it is no answer A's file shows.
  ASSERT_EQ(audit.timing[0].responses.size(), 1u);
  ASSERT_EQ(audit.timing[1].responses.size(), 1u);
  EXPECT_EQ(audit.timing[1].responses[0].what, "announcement");
  EXPECT_LT(audit.timing[1].responses[0].seq, sealed);
  const std::string text = Text(audit);
  EXPECT_THAT(text, HasSubstr("  1 event redacted in this export: their dice are not "
                              "counted\n"));
  EXPECT_THAT(text, HasSubstr("  seq " + std::to_string(sealed) +
                              "  2026-09-21 14:13:20.000Z  ?  (redacted in this seat's export)\n"));
}

TEST_F(AuditTest, AFileThatDoesNotVerifyIsStillAuditedAndSaysSo) {
  const storage::MatchFile original = PlayTwoAndExport();
  storage::MatchFile file = original;
  std::string payload = file.events(5).payload();
  payload[payload.size() / 2] = static_cast<char>(payload[payload.size() / 2] ^ 0x01);
  file.mutable_events(5)->set_payload(payload);
  const server::MatchAudit audit = Audit(file);
  EXPECT_FALSE(audit.verification.ok);
  EXPECT_EQ(audit.verification.failed_seq, 6u);
  EXPECT_EQ(audit.timeline.size(), static_cast<size_t>(file.events_size()));
  EXPECT_THAT(Text(audit), StartsWith("this file does NOT verify: event 6: its bytes do not "
                                      "hash to its recorded hash"));

  // A ruleset this build does not play: nothing in the file can be read.
  file = original;
  file.set_ruleset("chess");
  const auto refused = server::AuditMatch(file, server::BuiltinHosts());
  ASSERT_FALSE(refused.has_value());
  EXPECT_THAT(refused.error().message, HasSubstr("does not play ruleset 'chess'"));
}

}  // namespace
}  // namespace melee
