#pragma once

// What a match tells the seats that asked to be notified (docs/notifications.md): it is your
// turn, a default was taken for you at a deadline, the close combat is over. The match works
// out, once per appended command, which seat's situation changed (one notice per change, not per
// event) and hands the notices to a NoticeSink, which turns them into outbox rows that the store
// writes in the same transaction as the events. Delivery happens elsewhere, off the match's
// strand (server/notify/).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/ruleset.h"
#include "persistence/outbox_notice.h"

namespace melee::server {

// One seat's change of situation.
struct SeatNotice {
  // kReminder: a correspondence clock's reminder before the deadline (docs/clocks.md); made by
  // the match's clock sweep, not by an append.
  enum class Kind { kYourTurn, kDefaultTaken, kEnded, kReminder };
  Kind kind = Kind::kYourTurn;
  engine::Seat seat = engine::Seat::kSideA;
  // What the rules wait for from the seat now: "set-up", "announcement", "declaration",
  // "choice"; empty when nothing.
  std::string awaited;
  std::string waiting_for;        // the match's words for it ("side_b: announce")
  int64_t deadline_unix_ms = 0;  // 0: none
};

// The notices one append causes.
struct MatchNotices {
  std::string match_id;
  uint64_t last_seq = 0;  // the seq of the append's last event
  int64_t recorded_unix_ms = 0;
  std::vector<SeatNotice> notices;
};

// Returns "your_turn", "default_taken", "ended" or "reminder".
std::string_view Name(SeatNotice::Kind kind);

// Where a match stands, as far as notices care: what each seat owes.
struct Situation {
  struct Seat {
    std::string step;  // what it owes ("setup/enter", the host's Awaiting::step); "": nothing
    std::string awaited;  // as in SeatNotice
    std::string waiting_for;
  };
  std::array<Seat, 2> seats;  // side A, side B
  bool ended = false;         // the close combat is over
  int64_t deadline_unix_ms = 0;
};

// Returns the notices of going from `before` to `after` by a command of `actor` (none: the
// server's own step), with the rules default taken at a deadline for `defaulted`: one per seat
// at most: a default taken first, then the close combat ending, then a new turn. A seat is not
// told of a set-up step it just took itself.
std::vector<SeatNotice> NoticesBetween(const Situation& before, const Situation& after,
                                       std::optional<engine::Seat> actor,
                                       const std::vector<engine::Seat>& defaulted);

// Where a match's notices go. Thread-safe: called on any match's strand; must not block.
class NoticeSink {
 public:
  virtual ~NoticeSink() = default;
  // Whether `seat` of `match_id` wants notices (a cheap check before the match works them out).
  virtual bool Wants(std::string_view match_id, engine::Seat seat) const = 0;
  // Returns the outbox rows for `notices` (only for seats that want them).
  virtual std::vector<persistence::OutboxNotice> Outbox(const MatchNotices& notices) = 0;
  // Tells the sink that rows it made are durable now (delivery may start).
  virtual void Committed() = 0;
};

}  // namespace melee::server
