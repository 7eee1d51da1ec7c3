#include "client-sdk/cli/inbox_command.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <ostream>
#include <sstream>
#include <utility>

#include "client-sdk/cli/match_command.h"
#include "client-sdk/cli/render.h"
#include "client-sdk/cli/rules_command.h"
#include "client-sdk/http_call.h"
#include "melee/v1/envelope.pb.h"
#include "proto/codec/json.h"

namespace melee::cli {
namespace {

namespace fs = std::filesystem;
namespace v1 = melee::v1;

constexpr int kExitUnreachable = 3;

// One seat file and what its server answered for it.
struct Seat {
  std::string path;
  v1::SeatLink link;
  v1::InboxEntry entry;
};

// The seat files named by `paths`: files as given, folders searched for *.seat.
std::vector<std::string> SeatFiles(const std::vector<std::string>& paths, std::string& problem) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code error;
    if (fs::is_directory(path, error)) {
      for (auto it = fs::recursive_directory_iterator(path, error);
           !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        if (it->is_regular_file(error) && it->path().extension() == ".seat") {
          files.push_back(it->path().lexically_normal().string());
        }
      }
    } else if (fs::is_regular_file(path, error)) {
      files.push_back(path);
    } else {
      problem = path + ": no such seat file or folder";
      return {};
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

// When the seat's time runs out: its clock's last moment in a paced match, else the view's
// deadline (0: none).
int64_t DeadlineOf(const Seat& seat) {
  const v1::MatchView& view = seat.entry.view();
  if (view.settings().has_pace() && seat.link.seat() == v1::SEAT_SIDE_A) {
    return view.side_a_clock().final_deadline_unix_ms();
  }
  if (view.settings().has_pace() && seat.link.seat() == v1::SEAT_SIDE_B) {
    return view.side_b_clock().final_deadline_unix_ms();
  }
  return view.deadline_unix_ms();
}

void PrintEntry(std::ostream& out, const Seat& seat) {
  const v1::InboxEntry& entry = seat.entry;
  out << "  " << seat.path << "  (" << (seat.link.ruleset().empty() ? "asl" : seat.link.ruleset())
      << ", match " << seat.link.match_id() << ", " << SeatName(seat.link.seat()) << ")\n";
  if (!entry.error().empty()) {
    out << "    the server says: " << entry.error() << "\n";
    return;
  }
  const v1::MatchView& view = entry.view();
  if (!view.settings().side_a_name().empty() || !view.settings().side_b_name().empty()) {
    out << "    players: side_a " << view.settings().side_a_name() << ", side_b "
        << view.settings().side_b_name() << "\n";
  }
  for (const std::string& waiting : view.waiting_for()) out << "    waiting for " << waiting << "\n";
  if (view.has_result()) {
    out << "    over: " << SeatName(view.result().winner()) << " won, "
        << SeatName(view.result().loser()) << " " << view.result().reason() << "\n";
  } else if (view.settings().has_pace() &&
             (seat.link.seat() == v1::SEAT_SIDE_A || seat.link.seat() == v1::SEAT_SIDE_B)) {
    // A correspondence clock (docs/clocks.md): this seat's time left, bank and vacation.
    out << "    your clock: "
        << ClockLeft(seat.link.seat() == v1::SEAT_SIDE_A ? view.side_a_clock()
                                                           : view.side_b_clock(),
                     view.settings().pace(), NowUnixMs())
        << "\n";
  } else if (view.deadline_unix_ms() != 0) {
    out << "    by " << Time(view.deadline_unix_ms()) << " (then the rules default)\n";
  }
  if (entry.new_events() == 0) {
    out << "    nothing new since you last looked\n";
    return;
  }
  out << "    since you last looked: " << entry.new_events() << " event"
      << (entry.new_events() == 1 ? "" : "s")
      << (static_cast<uint64_t>(entry.events_size()) < entry.new_events() ? ", the last:" : ":")
      << "\n";
  for (const v1::MatchEvent& event : entry.events()) {
    std::ostringstream line;
    PrintEvent(line, event);
    std::istringstream lines(line.str());
    for (std::string text; std::getline(lines, text);) out << "    " << text << "\n";
  }
}

}  // namespace

InboxCommand::InboxCommand(CLI::App& app, InboxArgs& args) : args_(args) {
  inbox_ = app.add_subcommand(
      "inbox", "Which of your matches wait for you, by when, and what happened since you last "
               "looked (over your seat files)");
  inbox_->add_option("paths", args_.paths,
                     "Seat files, or folders to search for *.seat (default: this folder)");
  inbox_->add_flag("--json", args_.json, "Print the servers' answers (melee.v1.Inbox) as JSON");
}

int InboxCommand::Run(std::ostream& out, std::ostream& err) const {
  std::string problem;
  const std::vector<std::string> files =
      SeatFiles(args_.paths.empty() ? std::vector<std::string>{"."} : args_.paths, problem);
  if (!problem.empty()) {
    err << "melee: " << problem << "\n";
    return kExitUsage;
  }
  std::vector<Seat> seats;
  for (const std::string& path : files) {
    Seat seat{.path = path, .link = {}, .entry = {}};
    if (!ReadSeatLink(path, seat.link, problem)) {
      err << "melee: " << problem << "\n";
      return kExitUsage;
    }
    seats.push_back(std::move(seat));
  }
  if (seats.empty()) {
    err << "melee: no seat files (*.seat) here; name them or their folders: melee inbox "
           "hill621/side_a.seat games/\n";
    return kExitUsage;
  }
  // One request per server, at most 100 seats each.
  std::map<std::string, std::vector<size_t>> by_server;
  for (size_t i = 0; i < seats.size(); ++i) by_server[seats[i].link.server()].push_back(i);
  int code = EXIT_SUCCESS;
  for (const auto& [server, indexes] : by_server) {
    for (size_t from = 0; from < indexes.size(); from += 100) {
      const size_t to = std::min(indexes.size(), from + 100);
      v1::InboxRequest request;
      for (size_t k = from; k < to; ++k) {
        const v1::SeatLink& link = seats[indexes[k]].link;
        v1::InboxSeat& asked = *request.add_seats();
        asked.set_match_id(link.match_id());
        asked.set_token(link.token());
        asked.set_after_seq(link.last_seq());
      }
      auto reply = client::HttpCall(
          server, {.method = "POST", .path = "/api/inbox", .body = proto::ToJson(request),
                   .bearer_token = ""},
          {.ca_file = args_.ca_file, .verify_peer = true});
      v1::Inbox inbox;
      std::string failed;
      if (!reply) {
        failed = "cannot reach " + server + ": " + reply.error().message;
        code = kExitUnreachable;
      } else if (reply->status != 200) {
        failed = server + " answered HTTP " + std::to_string(reply->status) + ": " + reply->body;
      } else if (std::string wrong = proto::FromJson(reply->body, inbox); !wrong.empty()) {
        failed = server + " answered something that is not an inbox: " + wrong;
      } else if (inbox.entries_size() != static_cast<int>(to - from)) {
        failed = server + " answered " + std::to_string(inbox.entries_size()) + " entries for " +
                 std::to_string(to - from) + " seats";
      }
      for (size_t k = from; k < to; ++k) {
        v1::InboxEntry& entry = seats[indexes[k]].entry;
        if (failed.empty()) {
          entry = inbox.entries(static_cast<int>(k - from));
        } else {
          entry.set_error(failed);
        }
      }
    }
  }
  if (args_.json) {
    v1::Inbox all;
    for (const Seat& seat : seats) *all.add_entries() = seat.entry;
    out << proto::ToJson(all, proto::JsonStyle::kPretty);
    return code;
  }
  const auto print_group = [&](const char* title, auto belongs) {
    std::vector<const Seat*> group;
    for (const Seat& seat : seats) {
      if (belongs(seat.entry)) group.push_back(&seat);
    }
    if (group.empty()) return;
    // Soonest deadline first; then by file.
    std::stable_sort(group.begin(), group.end(), [](const Seat* a, const Seat* b) {
      const int64_t da = DeadlineOf(*a);
      const int64_t db = DeadlineOf(*b);
      return (da != 0 && (db == 0 || da < db));
    });
    out << title << " (" << group.size() << "):\n";
    for (const Seat* seat : group) PrintEntry(out, *seat);
  };
  const auto playing = [](const v1::InboxEntry& e) {
    return e.error().empty() && (e.seat() == v1::SEAT_SIDE_A || e.seat() == v1::SEAT_SIDE_B);
  };
  print_group("Your turn", [&](const v1::InboxEntry& e) { return playing(e) && e.your_turn(); });
  print_group("Waiting for the other side", [&](const v1::InboxEntry& e) {
    return playing(e) && !e.your_turn() && e.view().stage() != v1::STAGE_ENDED;
  });
  print_group("Close combat over", [&](const v1::InboxEntry& e) {
    return playing(e) && !e.your_turn() && e.view().stage() == v1::STAGE_ENDED;
  });
  print_group("Following (director, spectator)", [&](const v1::InboxEntry& e) {
    return e.error().empty() && !playing(e);
  });
  print_group("Could not ask", [](const v1::InboxEntry& e) { return !e.error().empty(); });
  return code;
}

}  // namespace melee::cli
