// What a notification mail says (server/notify/mail_text.h) and which addresses a seat may
// register (server/notify/email_address.h): pure functions, checked without a relay (the mails
// themselves travel in tests/integration/email_test.py).

#include <gtest/gtest.h>

#include "server/notify/email_address.h"
#include "server/notify/mail_delivery.h"
#include "server/notify/mail_text.h"

namespace melee::server::notify {
namespace {

MailFacts Facts() {
  MailFacts facts;
  facts.match_id = "m0123";
  facts.title = "Hill 621";
  facts.ruleset = "asl";
  facts.seat = "side_a";
  facts.web_link = "http://127.0.0.1:8080/match.html#m=m0123&as=side_a&t=secret";
  facts.seat_file_name = "m0123-side_a.seat";
  facts.match_file_name = "m0123-side_a.melee.json";
  facts.match_file_seq = 9;
  facts.entry.set_your_turn(true);
  facts.entry.mutable_view()->set_match_id("m0123");
  facts.entry.mutable_view()->set_stage(melee::v1::STAGE_PLAYING);
  return facts;
}

MailNotice Notice(std::string kind, std::string awaited, int64_t deadline_unix_ms = 0) {
  return MailNotice{.delivery_id = "d1",
                    .kind = std::move(kind),
                    .awaited = std::move(awaited),
                    .waiting_for = "side_a: seal a declaration",
                    .text = "",
                    .deadline_unix_ms = deadline_unix_ms,
                    .last_seq = 9,
                    .recorded_unix_ms = 1764104400000};
}

TEST(MailTextTest, TheSubjectNamesTheMatchWhatHappenedAndByWhen) {
  EXPECT_EQ(MailSubject(Facts(), {Notice("your_turn", "declaration", 1795726800000)}),
            "Melee Hill 621: your turn (declaration), by 2026-11-26 21:00 UTC");
  EXPECT_EQ(MailSubject(Facts(), {Notice("ended", "")}), "Melee Hill 621: the close combat is over");
  MailFacts untitled = Facts();
  untitled.title = "";
  EXPECT_EQ(MailSubject(untitled, {Notice("default_taken", "")}),
            "Melee match m0123: the deadline passed, the rules default was taken");
  untitled.title = "Two\nlines";
  EXPECT_EQ(MailSubject(untitled, {Notice("ended", "")}),
            "Melee Two lines: the close combat is over");
}

TEST(MailTextTest, AKindThisBuildDoesNotKnowIsToldInItsOwnWords) {
  MailNotice reminder = Notice("reminder", "declaration", 1795726800000);
  reminder.text = "Match m0123: side_a's declaration is due in one hour.";
  EXPECT_EQ(MailSubject(Facts(), {reminder}),
            "Melee Hill 621: reminder, by 2026-11-26 21:00 UTC");
  EXPECT_NE(MailBody(Facts(), {reminder}).find("side_a's declaration is due in one hour"),
            std::string::npos);
}

TEST(MailTextTest, ADigestListsEveryNoticeAndTheBodyGivesTheLinkAndTheCommand) {
  const std::string body =
      MailBody(Facts(), {Notice("your_turn", "announcement"), Notice("your_turn", "declaration")});
  EXPECT_EQ(MailSubject(Facts(), {Notice("your_turn", "announcement"),
                                  Notice("your_turn", "declaration")}),
            "Melee Hill 621: your turn (declaration) (2 notices)");
  EXPECT_NE(body.find("2 notices since your last mail:"), std::string::npos) << body;
  EXPECT_NE(body.find("It is your turn (announcement)."), std::string::npos) << body;
  EXPECT_NE(body.find("http://127.0.0.1:8080/match.html#m=m0123&as=side_a&t=secret"),
            std::string::npos);
  EXPECT_NE(body.find("  melee submit --seat m0123-side_a.seat --attack 'YOUR-UNITS > TARGETS'"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("melee verify m0123-side_a.melee.json"), std::string::npos);
}

TEST(MailTextTest, ANoticeIsReadFromItsOutboxJson) {
  auto notice = ParseMailNotice(
      "{\"delivery_id\":\"5d0c\",\"match_id\":\"m1\",\"seat\":\"side_a\",\"kind\":\"your_turn\","
      "\"awaited\":\"choice\",\"waiting_for\":\"side_a: choose\",\"deadline_unix_ms\":0,"
      "\"last_seq\":12,\"recorded_unix_ms\":1764097200000,\"text\":\"...\"}");
  ASSERT_TRUE(notice) << notice.error();
  EXPECT_EQ(notice->kind, "your_turn");
  EXPECT_EQ(notice->awaited, "choice");
  EXPECT_EQ(notice->last_seq, 12u);
  EXPECT_FALSE(ParseMailNotice("not json"));
  EXPECT_FALSE(ParseMailNotice("{\"kind\":\"your_turn\"}"));
}

TEST(MailTextTest, LinksAndTheWebSocketFollowThePublicUrl) {
  EXPECT_EQ(WebSocketUrl("https://melee.example.org/"), "wss://melee.example.org/ws");
  EXPECT_EQ(WebSocketUrl("http://127.0.0.1:8080"), "ws://127.0.0.1:8080/ws");
  EXPECT_EQ(SeatWebLink("https://melee.example.org/", "m1", "side_b", "t0k"),
            "https://melee.example.org/match.html#m=m1&as=side_b&t=t0k");
}

TEST(EmailAddressTest, PlainAddressesAreTakenAndOthersRefusedNamingTheProblem) {
  for (const char* good : {"alice@example.org", "bob+melee@mail.example.net",
                           "o'brien@example.co.uk", "x@xn--bcher-kva.example"}) {
    EXPECT_EQ(EmailAddressProblem(good), std::nullopt) << good;
  }
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"alice@example.org\r\nBcc: x@example.org", "line break"},
      {"alice@exam\tple.org", "control character"},
      {"alice @example.org", "space"},
      {"alice.example.org", "no @"},
      {"a@b@example.org", "more than one @"},
      {"@example.org", "nothing before the @"},
      {"alice@", "no domain"},
      {"alice@localhost", "no dot"},
      {"alice@example..org", "empty label"},
      {"alice@-x.example.org", "hyphen"},
      {"alice@example.123", "ends in a number"},
      {"al..ice@example.org", "two in a row"},
      {"al(ice@example.org", "holds '('"},
      {std::string(65, 'a') + "@example.org", "65 bytes long"},
      {"a@" + std::string(250, 'b') + ".org", "at most 254"},
      {"<alice@example.org>", "bare address"},
      {"", "empty"},
  };
  for (const auto& [address, problem] : bad) {
    const std::optional<std::string> found = EmailAddressProblem(address);
    ASSERT_TRUE(found) << address;
    EXPECT_NE(found->find(problem), std::string::npos) << address << ": " << *found;
  }
}

}  // namespace
}  // namespace melee::server::notify
