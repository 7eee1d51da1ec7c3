// Working out one append's notices: see server/notices.h.

#include "server/notices.h"

#include <algorithm>

namespace melee::server {

std::string_view Name(SeatNotice::Kind kind) {
  switch (kind) {
    case SeatNotice::Kind::kYourTurn:
      return "your_turn";
    case SeatNotice::Kind::kDefaultTaken:
      return "default_taken";
    case SeatNotice::Kind::kEnded:
      return "ended";
    case SeatNotice::Kind::kReminder:
      return "reminder";
  }
  return "your_turn";
}

std::vector<SeatNotice> NoticesBetween(const Situation& before, const Situation& after,
                                       std::optional<engine::Seat> actor,
                                       const std::vector<engine::Seat>& defaulted) {
  std::vector<SeatNotice> notices;
  for (engine::Seat seat : {engine::Seat::kSideA, engine::Seat::kSideB}) {
    const size_t i = seat == engine::Seat::kSideA ? 0 : 1;
    const Situation::Seat& was = before.seats[i];
    const Situation::Seat& now = after.seats[i];
    SeatNotice notice{.kind = SeatNotice::Kind::kYourTurn,
                      .seat = seat,
                      .awaited = now.awaited,
                      .waiting_for = now.waiting_for,
                      .deadline_unix_ms = now.step.empty() ? 0 : after.deadline_unix_ms};
    if (std::find(defaulted.begin(), defaulted.end(), seat) != defaulted.end()) {
      notice.kind = SeatNotice::Kind::kDefaultTaken;
    } else if (after.ended && !before.ended) {
      notice.kind = SeatNotice::Kind::kEnded;
    } else if (now.step.empty() || now.step == was.step) {
      continue;
    } else if (actor == seat && now.step.starts_with("setup/") && was.step.starts_with("setup/")) {
      continue;  // it just entered its units; confirming them is its own next click
    }
    notices.push_back(std::move(notice));
  }
  return notices;
}

}  // namespace melee::server
