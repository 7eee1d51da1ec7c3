#pragma once

// What a notification mail says (docs/notifications.md): its subject, and a plain-text body that
// tells what happened (the opponent's events since the seat's last mail, in the words of the
// `melee` command line: client-sdk/cli/render.h), what is awaited and by when, the web link, and
// the one-line `melee` command that acts with the attached seat file. A digest lists every notice
// it combines. Pure functions: the delivery gathers the facts, this words them.

#include <cstdint>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "melee/v1/envelope.pb.h"
#include "melee/v1/match.pb.h"

namespace melee::server::notify {

// One notice as its outbox row's JSON holds it (the webhook's body, docs/notifications.md).
struct MailNotice {
  std::string delivery_id;
  std::string kind;  // "your_turn", "default_taken", "ended", or a kind this build does not know
  std::string awaited;
  std::string waiting_for;
  std::string text;  // the notice's own sentence
  int64_t deadline_unix_ms = 0;
  uint64_t last_seq = 0;
  int64_t recorded_unix_ms = 0;
};

// Reads a notice from its outbox body; fails naming what is missing.
tl::expected<MailNotice, std::string> ParseMailNotice(const std::string& body);

// Everything a mail tells beyond its notices, gathered when it is sent.
struct MailFacts {
  std::string match_id;
  std::string title;    // the match's title; empty: none
  std::string ruleset;  // "asl", "vv", "coc"
  std::string seat;     // "side_a", "side_b"
  std::string web_link;          // the match page with the seat's token in the fragment
  std::string seat_file_name;    // the attached seat file
  std::string match_file_name;   // the attached match file
  uint64_t match_file_seq = 0;   // its last event
  melee::v1::InboxEntry entry;   // the seat's view now and the events since its last mail
};

// "2026-11-26 21:00 UTC".
std::string MailTime(int64_t unix_ms);

// Returns the subject: "Melee Hill 621: your turn (declaration), by 2026-11-26 21:00 UTC", from
// the newest of `notices` (not empty); a digest says how many it combines.
std::string MailSubject(const MailFacts& facts, const std::vector<MailNotice>& notices);

// Returns the plain-text body (lines end in "\n").
std::string MailBody(const MailFacts& facts, const std::vector<MailNotice>& notices);

}  // namespace melee::server::notify
