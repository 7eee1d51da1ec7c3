// Wording the notification mails: see mail_text.h.

#include "server/notify/mail_text.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <ctime>
#include <sstream>

#include "client-sdk/cli/render.h"

namespace melee::server::notify {
namespace {

// A title as one line: control characters (a line break) become spaces.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return text;
}

std::string MatchName(const MailFacts& facts) {
  return facts.title.empty() ? "match " + facts.match_id : OneLine(facts.title);
}

std::string By(int64_t deadline_unix_ms) {
  return deadline_unix_ms == 0 ? std::string() : ", by " + MailTime(deadline_unix_ms);
}

// "your turn (declaration)", for a subject.
std::string Headline(const MailNotice& notice) {
  if (notice.kind == "your_turn") {
    return "your turn" + (notice.awaited.empty() ? std::string() : " (" + notice.awaited + ")") +
           By(notice.deadline_unix_ms);
  }
  if (notice.kind == "default_taken") return "the deadline passed, the rules default was taken";
  if (notice.kind == "ended") return "the close combat is over";
  std::string words = notice.kind;  // a kind this build does not know: its name, in words
  for (char& c : words) {
    if (c == '_') c = ' ';
  }
  return words + By(notice.deadline_unix_ms);
}

// One sentence for a notice, for the body.
std::string Sentence(const MailNotice& notice) {
  const std::string now =
      notice.waiting_for.empty()
          ? std::string()
          : " The match waits for " + notice.waiting_for + By(notice.deadline_unix_ms) + ".";
  if (notice.kind == "your_turn") {
    return "It is your turn" +
           (notice.awaited.empty() ? std::string() : " (" + notice.awaited + ")") + "." + now;
  }
  if (notice.kind == "default_taken") {
    return "The deadline passed and the rules default was taken for you." + now;
  }
  if (notice.kind == "ended") return "The close combat is over.";
  return Headline(notice) + ": " + (notice.text.empty() ? now : notice.text);
}

const google::protobuf::Value* Field(const google::protobuf::Struct& object,
                                     const std::string& name) {
  const auto it = object.fields().find(name);
  return it == object.fields().end() ? nullptr : &it->second;
}

std::string Text(const google::protobuf::Struct& object, const std::string& name) {
  const google::protobuf::Value* value = Field(object, name);
  return value != nullptr && value->has_string_value() ? value->string_value() : std::string();
}

int64_t Number(const google::protobuf::Struct& object, const std::string& name) {
  const google::protobuf::Value* value = Field(object, name);
  return value != nullptr && value->has_number_value() ? static_cast<int64_t>(value->number_value())
                                                       : 0;
}

// The one-line `melee` command that answers what the match waits for from the seat now, with the
// attached seat file; the player fills in what is in capitals.
std::string ActLine(const MailFacts& facts, const MailNotice& newest) {
  const std::string seat = " --seat " + facts.seat_file_name;
  const melee::v1::MatchView& view = facts.entry.view();
  if (!facts.entry.your_turn()) return "melee match status" + seat;
  if (view.stage() == melee::v1::STAGE_SETUP) {
    const bool entered = facts.seat == "side_a" ? view.side_a().submitted()
                                                : view.side_b().submitted();
    return entered ? "melee submit" + seat + " --confirm"
                   : "melee submit" + seat + " --setup YOUR-UNITS-FILE";
  }
  if (view.has_asl() && view.asl().has_pending()) {
    return "melee choose" + seat + " --choice " + std::to_string(view.asl().pending().id()) +
           " --select UNITS";
  }
  if (newest.awaited == "announcement") return "melee submit" + seat + " --announce";
  if (newest.awaited == "choice") return "melee choose" + seat + " --choice ID";
  if (newest.awaited == "declaration") {
    return facts.ruleset == "asl" || facts.ruleset.empty()
               ? "melee submit" + seat + " --attack 'YOUR-UNITS > TARGETS'   (or --attack none)"
               : "melee submit" + seat + " --declaration YOUR-DECLARATION-FILE";
  }
  return "melee play" + seat;
}

}  // namespace

tl::expected<MailNotice, std::string> ParseMailNotice(const std::string& body) {
  google::protobuf::Struct object;
  if (!google::protobuf::util::JsonStringToMessage(body, &object).ok()) {
    return tl::unexpected(std::string("the notice is not a JSON object"));
  }
  MailNotice notice{.delivery_id = Text(object, "delivery_id"),
                    .kind = Text(object, "kind"),
                    .awaited = Text(object, "awaited"),
                    .waiting_for = Text(object, "waiting_for"),
                    .text = Text(object, "text"),
                    .deadline_unix_ms = Number(object, "deadline_unix_ms"),
                    .last_seq = static_cast<uint64_t>(Number(object, "last_seq")),
                    .recorded_unix_ms = Number(object, "recorded_unix_ms")};
  if (notice.delivery_id.empty() || notice.kind.empty()) {
    return tl::unexpected(std::string("the notice has no delivery_id or kind"));
  }
  return notice;
}

std::string MailTime(int64_t unix_ms) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &utc);
  return text;
}

std::string MailSubject(const MailFacts& facts, const std::vector<MailNotice>& notices) {
  std::string subject = "Melee " + MatchName(facts) + ": " + Headline(notices.back());
  if (notices.size() > 1) subject += " (" + std::to_string(notices.size()) + " notices)";
  return subject;
}

std::string MailBody(const MailFacts& facts, const std::vector<MailNotice>& notices) {
  std::ostringstream out;
  out << "Melee: " << MatchName(facts) << " (" << facts.ruleset << " match " << facts.match_id
      << "), you play " << facts.seat << ".\n\n";
  if (notices.size() == 1) {
    out << Sentence(notices.front()) << "\n\n";
  } else {
    out << notices.size() << " notices since your last mail:\n";
    for (const MailNotice& notice : notices) {
      out << "  " << MailTime(notice.recorded_unix_ms) << "  " << Sentence(notice) << "\n";
    }
    out << "\n";
  }
  const melee::v1::InboxEntry& entry = facts.entry;
  if (entry.events().empty()) {
    out << "Nothing happened since your last mail.\n\n";
  } else {
    out << "What happened since your last mail (" << entry.new_events() << " event"
        << (entry.new_events() == 1 ? "" : "s")
        << (static_cast<uint64_t>(entry.events_size()) < entry.new_events()
                ? ", the last " + std::to_string(entry.events_size())
                : std::string())
        << "):\n";
    for (const melee::v1::MatchEvent& event : entry.events()) cli::PrintEvent(out, event);
    out << "\n";
  }
  out << "Where the match stands now:\n";
  cli::PrintView(out, entry.view());
  out << (entry.your_turn() ? "It is your turn.\n" : "") << "\n";
  out << "Play in your browser (the link holds your seat's secret token):\n  " << facts.web_link
      << "\n\n";
  out << "Or on the command line: save the attached " << facts.seat_file_name
      << " and act in one shot:\n"
      << "  " << ActLine(facts, notices.back()) << "\n"
      << "or play it in a session: melee play --seat " << facts.seat_file_name << "\n\n";
  out << "Attached:\n"
      << "  " << facts.seat_file_name
      << "  your seat file: the server, the match and your seat's secret token\n"
      << "  " << facts.match_file_name << "  your match file as of event " << facts.match_file_seq
      << "; check it with: melee verify " << facts.match_file_name << "\n\n"
      << "Whoever holds this mail's link or seat file plays your side: do not forward it.\n";
  return out.str();
}

}  // namespace melee::server::notify
