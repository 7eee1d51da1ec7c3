// match_bench: the reference load workload ("the round" of ../shared/bench-workload.md) on the
// real melee-server binary.
//
// Starts melee-server on a free loopback port with its durable SQLite store (synchronous=FULL)
// and, for each N, has N asl matches play R close combats at once, closed loop, on one client
// thread. Each match holds two WebSocket connections, one per seat. Set-up is not timed: side A
// creates the match and both seats join with their tokens. Then every round both sides enter
// their units (a Melee continuing in B1, so no Ambush dr: side A 4-6-7, 4-6-7, 5-4-8 against side
// B 4-4-7, 4-4-7, 6-2-8; from round 2 on only the units still present, and all three again when
// a side has none left), confirm, announce (ATTACKER first), and seal their declarations in the
// same instant (who goes first alternates); each side's i-th living unit attacks enemy
// foes[(i + round) % len(foes)]. The server reveals, rolls and resolves; a choice its dice bring
// is answered by the entitled seat (the rules default). The round ends when both connections hold
// the resolved view (stage ENDED).
//
// Reports, per N: rounds/s and commands/s over the timed phase, command→ack latency (p50/p99)
// and round latency (second seal sent → both seats hold the result, p50/p95/p99), the server's
// RSS before the set-up and after the last round, and its CPU seconds over the timed phase (from
// /proc). Then it opens --idle-connections connections that each say Hello and stay open, and
// reports the server's RSS growth per idle connection: on the server the runs used, and again on
// a fresh server (the first reuses memory that the runs' closed connections freed).
//
// Every run checks that no connection saw the opponent's declaration before its own seat had
// sealed in that round, and that both seats end every round with the same public state (unit ids
// and presence); violations, errors and stalls are printed and make the exit status 1.
//
//   build/bench/match_bench                                # N = 1, 10, 100, 1000; R = 20
//   build/bench/match_bench --matches 100 --rounds 20
//   build/bench/match_bench --matches 1,10 --rounds 5 --text   # JSON text frames

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "melee/asl/v1/asl.pb.h"
#include "melee/v1/envelope.pb.h"
#include "bench/process_stats.h"
#include "proto/codec/frame.h"
#include "server/net.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace melee::bench {
namespace {

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;
using Clock = std::chrono::steady_clock;
using proto::FrameKind;

constexpr int kDefaultServerThreads = 2;
// A run in which no message arrives for this long is declared stalled and abandoned.
constexpr int kStallSeconds = 60;

double Millis(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }


// ---- the workload -------------------------------------------------------------------------------

v1::Seat SeatOf(size_t index) { return index == 0 ? v1::SEAT_SIDE_A : v1::SEAT_SIDE_B; }
v1::Seat Opponent(v1::Seat seat) {
  return seat == v1::SEAT_SIDE_A ? v1::SEAT_SIDE_B : v1::SEAT_SIDE_A;
}

bool IsMmc(aslpb::UnitKind kind) {
  return kind == aslpb::UNIT_KIND_SQUAD || kind == aslpb::UNIT_KIND_HALF_SQUAD ||
         kind == aslpb::UNIT_KIND_CREW;
}

aslpb::Unit Squad(const std::string& id, v1::Seat owner, int firepower, int morale,
                  const std::string& name) {
  aslpb::Unit unit;
  unit.set_id(id);
  unit.set_owner(owner);
  unit.set_kind(aslpb::UNIT_KIND_SQUAD);
  unit.set_firepower(firepower);
  unit.set_morale(morale);
  unit.set_name(name);
  return unit;
}

// The fixed 3-vs-3 of the workload.
std::vector<aslpb::Unit> OriginalUnits(v1::Seat seat) {
  if (seat == v1::SEAT_SIDE_A) {
    return {Squad("A1", seat, 4, 7, "4-6-7"), Squad("A2", seat, 4, 7, "4-6-7"),
            Squad("A3", seat, 5, 8, "5-4-8")};
  }
  return {Squad("B1", seat, 4, 7, "4-4-7"), Squad("B2", seat, 4, 7, "4-4-7"),
          Squad("B3", seat, 6, 8, "6-2-8")};
}

// A unit as the view shows it at the end of a close combat, ready to be entered again: a reduced
// squad stays the half-squad it became; what only held in the last close combat is cleared.
aslpb::Unit Reentered(const aslpb::Unit& shown) {
  aslpb::Unit unit = shown;
  unit.clear_stacked_on();
  unit.clear_advanced();
  unit.clear_concealed();
  unit.clear_pinned();
  return unit;
}

// The present units of `owner` in a view, MMC only (a leader the dice create is left out: it
// would need its own stacking and solo rules, and the workload is squads against squads).
std::vector<const aslpb::Unit*> PresentUnits(const aslpb::AslView& view, v1::Seat owner) {
  std::vector<const aslpb::Unit*> units;
  for (const aslpb::ViewedUnit& seen : view.units()) {
    if (seen.presence() == aslpb::PRESENCE_PRESENT && seen.unit().owner() == owner &&
        IsMmc(seen.unit().kind())) {
      units.push_back(&seen.unit());
    }
  }
  return units;
}

// The workload's declaration: the i-th living unit attacks foes[(i + round) % len(foes)], and
// units on the same target form one attack.
aslpb::Seal Declare(const aslpb::AslView& view, v1::Seat seat, int round) {
  const std::vector<const aslpb::Unit*> mine = PresentUnits(view, seat);
  const std::vector<const aslpb::Unit*> foes = PresentUnits(view, Opponent(seat));
  aslpb::Seal seal;
  if (foes.empty()) return seal;
  for (size_t i = 0; i < mine.size(); ++i) {
    const std::string& target = foes[(i + static_cast<size_t>(round)) % foes.size()]->id();
    aslpb::AttackOrder* attack = nullptr;
    for (aslpb::AttackOrder& order : *seal.mutable_attacks()) {
      if (order.targets(0) == target) attack = &order;
    }
    if (attack == nullptr) {
      attack = seal.add_attacks();
      attack->add_targets(target);
    }
    attack->add_attackers(mine[i]->id());
  }
  return seal;
}

bool SealedIn(const aslpb::AslView& view, v1::Seat seat) {
  return seat == v1::SEAT_SIDE_A ? view.side_a_sealed() : view.side_b_sealed();
}

bool ShowsDeclarationOf(const aslpb::AslView& view, v1::Seat seat) {
  return seat == v1::SEAT_SIDE_A ? view.has_side_a_declaration() : view.has_side_b_declaration();
}

bool RevealsDeclarationOf(const v1::DeclarationsRevealed& revealed, v1::Seat seat) {
  const v1::Declaration& declaration =
      seat == v1::SEAT_SIDE_A ? revealed.side_a() : revealed.side_b();
  return declaration.has_asl() || declaration.attacks_size() > 0;
}

const v1::SideStatus& StatusOf(const v1::MatchView& view, v1::Seat seat) {
  return seat == v1::SEAT_SIDE_A ? view.side_a() : view.side_b();
}

// Sets match_id and expected_seq on a match command.
void Address(v1::ClientMessage& message, const std::string& match_id, uint64_t seq) {
  const auto fill = [&](auto* command) {
    command->set_match_id(match_id);
    command->set_expected_seq(seq);
  };
  switch (message.command_case()) {
    case v1::ClientMessage::kSubmitSetup:
      return fill(message.mutable_submit_setup());
    case v1::ClientMessage::kConfirmSetup:
      return fill(message.mutable_confirm_setup());
    case v1::ClientMessage::kAnnounce:
      return fill(message.mutable_announce());
    case v1::ClientMessage::kSealDeclaration:
      return fill(message.mutable_seal_declaration());
    case v1::ClientMessage::kMakeChoice:
      return fill(message.mutable_make_choice());
    default:
      return;
  }
}

// ---- what a run measures ------------------------------------------------------------------------

// What one run (one N) measures and checks; filled on the client's one thread.
struct RunStats {
  std::vector<double> ack_ms;    // match command → its ack or error, timed phase
  std::vector<double> round_ms;  // second seal sent → both seats hold the ENDED view
  std::size_t commands = 0;      // match commands answered in the timed phase
  std::size_t rounds = 0;
  std::size_t received = 0;      // server messages, for the stall watchdog
  std::size_t choices = 0;       // mid-resolution choices answered
  std::size_t stale = 0;         // STALE answers (the command is sent again)
  std::size_t errors = 0;        // other errors, transport failures, stalls
  std::size_t leaks = 0;         // the opponent's declaration seen before this seat sealed
  std::size_t disagreements = 0;  // rounds the two seats ended with different public state
  std::vector<std::string> notes;  // the first problems, for the report

  void Note(std::string what) {
    if (notes.size() < 8) notes.push_back(std::move(what));
  }
  std::size_t violations() const { return leaks + disagreements; }
};

struct Settings {
  tcp::endpoint endpoint;
  FrameKind kind = FrameKind::kBinary;
  int rounds = 20;
};

// A command in flight: what it was, when it left, and the seq it expected.
struct Sent {
  v1::ClientMessage::CommandCase kind = v1::ClientMessage::COMMAND_NOT_SET;
  Clock::time_point at;
  uint64_t expected_seq = 0;
};

// What a Player reports to whoever drives it.
class PlayerEvents {
 public:
  virtual void OnEvent(size_t seat, const v1::MatchEvent& event) = 0;
  virtual void OnView(size_t seat) = 0;
  virtual void OnAnswer(size_t seat, const v1::ServerMessage& answer, const Sent& sent) = 0;
  virtual void OnFailure(size_t seat, const std::string& what) = 0;

 protected:
  ~PlayerEvents() = default;
};

// ---- one seat's connection ----------------------------------------------------------------------

// One WebSocket connection following one seat: sends one command at a time, and remembers the
// last event seq and the latest view it received. Command ids are `prefix` and a counter, unique
// across the whole benchmark: the server remembers a create_match answer by its command_id (a
// retry gets the same match), whichever connection sends it.
class Player : public std::enable_shared_from_this<Player> {
 public:
  Player(asio::io_context& ioc, PlayerEvents& events, size_t seat, std::string prefix,
         FrameKind kind, std::size_t& received)
      : ws_(ioc),
        events_(events),
        seat_(seat),
        prefix_(std::move(prefix)),
        kind_(kind),
        received_(received) {}

  void Open(const tcp::endpoint& endpoint, std::function<void()> opened) {
    beast::get_lowest_layer(ws_).async_connect(
        endpoint, [self = shared_from_this(), opened = std::move(opened)](error_code ec) {
          if (ec) return self->events_.OnFailure(self->seat_, "connect: " + ec.message());
          beast::get_lowest_layer(self->ws_).socket().set_option(tcp::no_delay(true));
          self->ws_.async_handshake("127.0.0.1", "/ws", [self, opened](error_code hec) {
            if (hec) return self->events_.OnFailure(self->seat_, "handshake: " + hec.message());
            self->ws_.text(self->kind_ == FrameKind::kText);
            self->Read();
            opened();
          });
        });
  }

  // Sends `message` with the next command_id of this seat.
  void Send(v1::ClientMessage message, uint64_t expected_seq) {
    message.set_command_id(prefix_ + std::to_string(++commands_sent_));
    command_id_ = message.command_id();
    sent_ = Sent{message.command_case(), Clock::now(), expected_seq};
    writes_.push_back(proto::EncodeClientMessage(message, kind_));
    if (writes_.size() == 1) Write();
  }

  // Closes the connection once what was sent has left.
  void Close() {
    if (closing_) return;
    closing_ = true;
    if (writes_.empty()) SendClose();
  }

  bool busy() const { return !command_id_.empty(); }
  uint64_t last_seq() const { return last_seq_; }
  const v1::MatchView& view() const { return view_; }
  // The view includes every event received so far.
  bool view_current() const { return view_.seq() >= last_seq_; }
  std::string Describe() const {
    return "seq " + std::to_string(last_seq_) + ", view seq " + std::to_string(view_.seq()) +
           " " + v1::Stage_Name(view_.stage()) + "/" + aslpb::Phase_Name(view_.asl().phase()) +
           (busy() ? ", awaiting " + command_id_ : ", idle") + (closing_ ? ", closing" : "");
  }

 private:
  void Write() {
    ws_.async_write(asio::buffer(writes_.front()),
                    [self = shared_from_this()](error_code ec, std::size_t) {
                      if (ec) {
                        if (!self->closing_) {
                          self->events_.OnFailure(self->seat_, "write: " + ec.message());
                        }
                        return;
                      }
                      self->writes_.pop_front();
                      if (!self->writes_.empty()) return self->Write();
                      if (self->closing_) self->SendClose();
                    });
  }

  void SendClose() {
    ws_.async_close(websocket::close_code::normal, [self = shared_from_this()](error_code) {});
  }

  void Read() {
    ws_.async_read(buffer_, [self = shared_from_this()](error_code ec, std::size_t) {
      if (ec) {
        if (!self->closing_) self->events_.OnFailure(self->seat_, "read: " + ec.message());
        return;
      }
      self->OnFrame();
      self->Read();  // until the connection is closed
    });
  }

  void OnFrame() {
    ++received_;
    const auto data = buffer_.cdata();
    auto decoded = proto::DecodeServerMessage(
        std::string_view(static_cast<const char*>(data.data()), data.size()),
        ws_.got_text() ? FrameKind::kText : FrameKind::kBinary);
    buffer_.consume(buffer_.size());
    if (!decoded) return events_.OnFailure(seat_, "undecodable frame: " + decoded.error().message);
    v1::ServerMessage& message = *decoded;
    if (message.has_event()) {
      if (message.event().seq() != last_seq_ + 1) {
        return events_.OnFailure(seat_, "event seq " + std::to_string(message.event().seq()) +
                                            " after " + std::to_string(last_seq_));
      }
      last_seq_ = message.event().seq();
      events_.OnEvent(seat_, message.event());
    } else if (message.has_view()) {
      view_.Swap(message.mutable_view());
      events_.OnView(seat_);
    } else if (message.has_joined()) {
      view_.Swap(message.mutable_joined()->mutable_view());
    }
    if (message.command_id().empty()) return;
    if (message.command_id() != command_id_) {
      return events_.OnFailure(seat_, "an answer to '" + message.command_id() +
                                          "', which is not the command in flight");
    }
    command_id_.clear();
    events_.OnAnswer(seat_, message, sent_);
  }

  websocket::stream<beast::tcp_stream> ws_;
  beast::flat_buffer buffer_;
  std::deque<std::string> writes_;
  PlayerEvents& events_;
  size_t seat_;
  std::string prefix_;
  FrameKind kind_;
  std::size_t& received_;
  bool closing_ = false;
  int commands_sent_ = 0;
  std::string command_id_;  // the command awaiting its answer; empty when idle
  Sent sent_;
  uint64_t last_seq_ = 0;
  v1::MatchView view_;
};

// ---- one match ----------------------------------------------------------------------------------

// Where one seat stands in the current round.
struct SeatRound {
  std::vector<aslpb::Unit> units;  // what this seat enters
  bool submitted = false;
  bool confirmed = false;
  bool announced = false;
  bool ready_to_seal = false;
  bool sealed = false;         // its seal was sent
  bool saw_own_seal = false;   // its DeclarationSealed event arrived
  int64_t answered_choice = -1;
  uint64_t stale_at = 0;  // after a STALE answer: act again only after an event past this seq
  // At the end of the round (the first view with stage ENDED):
  bool ended = false;
  std::vector<std::pair<std::string, int>> public_state;  // (unit id, presence), in view order
  std::vector<aslpb::Unit> survivors;                     // own units present, to enter again
  bool a_side_is_gone = false;                            // either side has no unit left
};

// One match between two Players: set-up (not timed), then R rounds driven by what each seat's
// view shows; reports to its run when it is seated and when it is done.
class Game final : public PlayerEvents {
 public:
  Game(asio::io_context& ioc, const Settings& settings, RunStats& stats, int run, int index,
       std::function<void()> on_seated, std::function<void()> on_done)
      : settings_(settings),
        stats_(stats),
        index_(index),
        on_seated_(std::move(on_seated)),
        on_done_(std::move(on_done)) {
    for (size_t i = 0; i < 2; ++i) {
      const std::string prefix =
          "r" + std::to_string(run) + "m" + std::to_string(index) + (i == 0 ? "a" : "b");
      players_[i] = std::make_shared<Player>(ioc, *this, i, prefix, settings.kind, stats.received);
    }
  }

  // Connects both seats, creates the match (side A) and joins both seats.
  void SetUp() {
    for (auto& player : players_) {
      player->Open(settings_.endpoint, [this] {
        if (++opened_ < 2) return;
        v1::ClientMessage create;
        create.mutable_create_match()->mutable_settings()->set_ruleset("asl");
        players_[0]->Send(std::move(create), 0);
      });
    }
  }

  // Starts round 1 (the run calls this when every match is seated).
  void Play() {
    if (stage_ != Stage::kSeated) return;
    stage_ = Stage::kPlaying;
    NewRound();
    Advance();
  }

  // Gives up on this match (a stall).
  void Abandon(const std::string& why) { Fail(why); }

  bool done() const { return stage_ == Stage::kDone; }

  std::string Describe() const {
    return "match " + std::to_string(index_) + " (" + created_.match_id() + ") round " +
           std::to_string(round_ + 1) + ": A " + players_[0]->Describe() + "; B " +
           players_[1]->Describe();
  }

  // ---- PlayerEvents

  void OnEvent(size_t i, const v1::MatchEvent& event) override {
    SeatRound& mine = seats_[i];
    const v1::Seat seat = SeatOf(i);
    if (event.has_declaration_sealed() && event.declaration_sealed().seat() == seat) {
      mine.saw_own_seal = true;
    } else if (!mine.saw_own_seal &&
               ((event.asl().has_seal() && event.asl().seat() == Opponent(seat)) ||
                (event.has_declarations_revealed() &&
                 RevealsDeclarationOf(event.declarations_revealed(), Opponent(seat))))) {
      ++stats_.leaks;
      stats_.Note("match " + std::to_string(index_) + ": seat " + v1::Seat_Name(seat) +
                  " received the opponent's declaration in event " +
                  std::to_string(event.seq()) + " before sealing its own");
    }
  }

  void OnView(size_t i) override {
    SeatRound& mine = seats_[i];
    const v1::Seat seat = SeatOf(i);
    const v1::MatchView& view = players_[i]->view();
    if (view.has_asl() && !mine.saw_own_seal && ShowsDeclarationOf(view.asl(), Opponent(seat))) {
      ++stats_.leaks;
      stats_.Note("match " + std::to_string(index_) + ": seat " + v1::Seat_Name(seat) +
                  " received a view (seq " + std::to_string(view.seq()) +
                  ") with the opponent's declaration before sealing its own");
    }
    if (stage_ == Stage::kPlaying && mine.sealed && !mine.ended &&
        view.stage() == v1::STAGE_ENDED) {
      mine.ended = true;
      int opponents_left = 0;
      for (const aslpb::ViewedUnit& seen : view.asl().units()) {
        mine.public_state.emplace_back(seen.unit().id(), seen.presence());
        if (seen.presence() != aslpb::PRESENCE_PRESENT || !IsMmc(seen.unit().kind())) continue;
        if (seen.unit().owner() == seat) {
          mine.survivors.push_back(Reentered(seen.unit()));
        } else {
          ++opponents_left;
        }
      }
      mine.a_side_is_gone = mine.survivors.empty() || opponents_left == 0;
    }
    Advance();
  }

  void OnAnswer(size_t i, const v1::ServerMessage& answer, const Sent& sent) override {
    if (stage_ == Stage::kPlaying || stage_ == Stage::kFinishing) {
      ++stats_.commands;
      stats_.ack_ms.push_back(Millis(Clock::now() - sent.at));
    }
    if (answer.has_error()) {
      if (answer.error().code() != v1::ERROR_CODE_STALE || stage_ != Stage::kPlaying) {
        return Fail(std::string("seat ") + v1::Seat_Name(SeatOf(i)) + ": " +
                    v1::ErrorCode_Name(answer.error().code()) + " " + answer.error().message());
      }
      ++stats_.stale;
      Retry(seats_[i], sent);
    } else if (answer.has_match_created()) {
      created_ = answer.match_created();
      Join(0, created_.side_a_token());
      Join(1, created_.side_b_token());
    } else if (answer.has_joined()) {
      if (++joined_ == 2) {
        stage_ = Stage::kSeated;
        on_seated_();
      }
    } else if (!answer.has_ack()) {
      return Fail("unexpected answer: " + answer.ShortDebugString());
    }
    Advance();
  }

  void OnFailure(size_t i, const std::string& what) override {
    Fail(std::string("seat ") + v1::Seat_Name(SeatOf(i)) + ": " + what);
  }

 private:
  enum class Stage { kSettingUp, kSeated, kPlaying, kFinishing, kDone };

  void Join(size_t i, const std::string& token) {
    v1::ClientMessage join;
    join.mutable_join_seat()->set_match_id(created_.match_id());
    join.mutable_join_seat()->set_seat_token(token);
    players_[i]->Send(std::move(join), 0);
  }

  // Sends a match command of seat i with the last seq it saw.
  void Command(size_t i, v1::ClientMessage message) {
    const uint64_t seq = players_[i]->last_seq();
    Address(message, created_.match_id(), seq);
    players_[i]->Send(std::move(message), seq);
  }

  // Starts a round: every seat enters its survivors, or all three when a side is gone.
  void NewRound() {
    const bool fresh = round_ == 0 || seats_[0].a_side_is_gone || seats_[1].a_side_is_gone;
    for (size_t i = 0; i < 2; ++i) {
      std::vector<aslpb::Unit> units =
          fresh ? OriginalUnits(SeatOf(i)) : std::move(seats_[i].survivors);
      seats_[i] = SeatRound{};
      seats_[i].units = std::move(units);
    }
    seals_sent_ = false;
  }

  // Does whatever the match waits for; called after everything a seat receives.
  void Advance() {
    if (stage_ == Stage::kPlaying && seats_[0].ended && seats_[1].ended) EndRound();
    if (stage_ == Stage::kFinishing) {
      if (!players_[0]->busy() && !players_[1]->busy()) Finish();
      return;
    }
    if (stage_ != Stage::kPlaying) return;
    Act(0);
    Act(1);
    if (!seals_sent_ && seats_[0].ready_to_seal && seats_[1].ready_to_seal &&
        !players_[0]->busy() && !players_[1]->busy()) {
      // Both seals "in the same instant": back to back, who goes first alternating by round.
      const size_t first = static_cast<size_t>(round_ % 2);
      Seal(first);
      Seal(1 - first);
      seals_sent_ = true;
      second_seal_at_ = Clock::now();
    }
  }

  // The next command of seat i, if its view calls for one and nothing is in flight.
  void Act(size_t i) {
    Player& player = *players_[i];
    SeatRound& mine = seats_[i];
    const v1::Seat seat = SeatOf(i);
    if (player.busy() || !player.view_current() || player.last_seq() <= mine.stale_at) return;
    if (!mine.submitted) {
      v1::ClientMessage message;
      aslpb::SideSetup& part = *message.mutable_submit_setup()->mutable_asl();
      if (seat == v1::SEAT_SIDE_A) {
        part.mutable_location()->set_name("B1");
        part.mutable_location()->set_melee(true);  // a Melee continuing: no Ambush dr
        part.set_attacker(v1::SEAT_SIDE_A);
      }
      for (const aslpb::Unit& unit : mine.units) *part.add_units() = unit;
      mine.submitted = true;
      return Command(i, std::move(message));
    }
    const v1::MatchView& view = player.view();
    if (view.stage() == v1::STAGE_SETUP) {
      if (!mine.confirmed && view.side_a().submitted() && view.side_b().submitted() &&
          !StatusOf(view, seat).confirmed()) {
        v1::ClientMessage message;
        message.mutable_confirm_setup();
        mine.confirmed = true;
        Command(i, std::move(message));
      }
      return;
    }
    if (view.stage() != v1::STAGE_PLAYING) return;
    const aslpb::AslView& asl = view.asl();
    switch (asl.phase()) {
      case aslpb::PHASE_ANNOUNCE:
        if (asl.to_act() == seat && !mine.announced) {
          v1::ClientMessage message;
          message.mutable_announce()->mutable_asl();
          mine.announced = true;
          Command(i, std::move(message));
        }
        return;
      case aslpb::PHASE_DECLARE:
        if (SealedIn(asl, seat) || mine.sealed) return;
        if (seals_sent_) return Seal(i);  // sent again after a STALE answer
        mine.ready_to_seal = true;
        return;
      case aslpb::PHASE_CHOICE:
        if (asl.has_pending() && asl.pending().seat() == view.seat() &&
            static_cast<int64_t>(asl.pending().id()) != mine.answered_choice) {
          const aslpb::ChoiceRequest& pending = asl.pending();
          v1::ClientMessage message;
          v1::MakeChoice& choice = *message.mutable_make_choice();
          choice.set_choice_id(std::to_string(pending.id()));
          if (pending.min_selected() > 0 && pending.options_size() > 0) {
            choice.add_selected(pending.options(0));
          }
          mine.answered_choice = pending.id();
          ++stats_.choices;
          Command(i, std::move(message));
        }
        return;
      default:
        return;
    }
  }

  void Seal(size_t i) {
    v1::ClientMessage message;
    v1::SealDeclaration& seal = *message.mutable_seal_declaration();
    *seal.mutable_declaration()->mutable_asl() =
        Declare(players_[i]->view().asl(), SeatOf(i), round_);
    seal.set_client_entropy(std::string(32, static_cast<char>('a' + (index_ + round_) % 26)));
    seats_[i].sealed = true;
    Command(i, std::move(message));
  }

  // A STALE answer: the command is sent again once the seat has seen what made it stale.
  void Retry(SeatRound& mine, const Sent& sent) {
    mine.stale_at = sent.expected_seq;
    switch (sent.kind) {
      case v1::ClientMessage::kSubmitSetup:
        mine.submitted = false;
        break;
      case v1::ClientMessage::kConfirmSetup:
        mine.confirmed = false;
        break;
      case v1::ClientMessage::kAnnounce:
        mine.announced = false;
        break;
      case v1::ClientMessage::kSealDeclaration:
        mine.sealed = false;
        break;
      case v1::ClientMessage::kMakeChoice:
        mine.answered_choice = -1;
        break;
      default:
        break;
    }
  }

  // Both seats hold the resolved view: the round is over.
  void EndRound() {
    stats_.round_ms.push_back(Millis(Clock::now() - second_seal_at_));
    ++stats_.rounds;
    if (seats_[0].public_state != seats_[1].public_state) {
      ++stats_.disagreements;
      stats_.Note("match " + std::to_string(index_) + " round " + std::to_string(round_ + 1) +
                  ": the seats end with different units or presence");
    }
    if (++round_ == settings_.rounds) {
      stage_ = Stage::kFinishing;
      on_done_();
      return;
    }
    NewRound();
  }

  void Finish() {
    stage_ = Stage::kDone;
    for (auto& player : players_) player->Close();
  }

  void Fail(const std::string& why) {
    if (stage_ == Stage::kDone) return;
    ++stats_.errors;
    stats_.Note("match " + std::to_string(index_) + ": " + why);
    const Stage was = stage_;
    Finish();
    if (was == Stage::kSettingUp) on_seated_();
    if (was != Stage::kFinishing) on_done_();
  }

  const Settings& settings_;
  RunStats& stats_;
  int index_;
  std::function<void()> on_seated_;
  std::function<void()> on_done_;
  std::array<std::shared_ptr<Player>, 2> players_;
  std::array<SeatRound, 2> seats_;
  Stage stage_ = Stage::kSettingUp;
  v1::MatchCreated created_;
  int opened_ = 0;
  int joined_ = 0;
  int round_ = 0;
  bool seals_sent_ = false;
  Clock::time_point second_seal_at_;
};

// ---- one run ------------------------------------------------------------------------------------

struct RunResult {
  RunStats stats;
  double seconds = 0;  // the timed phase: every match seated → the last round over
  long rss_before = 0;
  long rss_after = 0;
  double cpu_seconds = 0;
  bool stalled = false;
};

// Run number `run`: N matches set up, then played at once on one io_context, with a stall
// watchdog.
RunResult RunMatches(const Settings& settings, int run, int matches, pid_t server) {
  RunResult result;
  RunStats& stats = result.stats;
  stats.ack_ms.reserve(static_cast<size_t>(matches) * static_cast<size_t>(settings.rounds) * 12);
  asio::io_context ioc;
  asio::steady_timer watchdog(ioc);
  std::vector<std::unique_ptr<Game>> games;
  int seated = 0;
  int done = 0;
  Clock::time_point start;
  double cpu_start = 0;
  result.rss_before = RssKiB(server);

  const auto on_seated = [&] {
    if (++seated < matches) return;
    start = Clock::now();
    cpu_start = CpuSeconds(server);
    for (auto& game : games) game->Play();
  };
  const auto on_done = [&] {
    if (++done < matches) return;
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    result.cpu_seconds = CpuSeconds(server) - cpu_start;
    result.rss_after = RssKiB(server);
    watchdog.cancel();
  };
  for (int i = 0; i < matches; ++i) {
    games.push_back(std::make_unique<Game>(ioc, settings, stats, run, i, on_seated, on_done));
  }
  for (auto& game : games) game->SetUp();

  std::size_t last_received = 0;
  int quiet_seconds = 0;
  std::function<void()> watch = [&] {
    watchdog.expires_after(std::chrono::seconds(1));
    watchdog.async_wait([&](error_code ec) {
      if (ec || done == matches) return;
      quiet_seconds = stats.received == last_received ? quiet_seconds + 1 : 0;
      last_received = stats.received;
      if (quiet_seconds < kStallSeconds) return watch();
      result.stalled = true;
      int shown = 0;
      for (auto& game : games) {
        if (game->done()) continue;
        if (shown++ < 5) std::cerr << "match_bench: stalled: " << game->Describe() << "\n";
        game->Abandon("stalled: nothing received for " + std::to_string(kStallSeconds) + " s");
      }
    });
  };
  watch();
  ioc.run();
  return result;
}

// ---- idle connections ---------------------------------------------------------------------------

// A connection that says Hello, waits for the answer and then just stays open.
class IdleClient : public std::enable_shared_from_this<IdleClient> {
 public:
  IdleClient(asio::io_context& ioc, FrameKind kind) : ws_(ioc), kind_(kind) {}

  void Open(const tcp::endpoint& endpoint, std::function<void(bool)> answered) {
    answered_ = std::move(answered);
    beast::get_lowest_layer(ws_).async_connect(endpoint, [self = shared_from_this()](error_code ec) {
      if (ec) return self->answered_(false);
      self->ws_.async_handshake("127.0.0.1", "/ws", [self](error_code hec) {
        if (hec) return self->answered_(false);
        self->ws_.text(self->kind_ == FrameKind::kText);
        v1::ClientMessage hello;
        hello.set_command_id("hello");
        hello.mutable_hello()->set_client_name("match_bench");
        self->frame_ = proto::EncodeClientMessage(hello, self->kind_);
        self->ws_.async_write(asio::buffer(self->frame_), [self](error_code wec, std::size_t) {
          if (wec) return self->answered_(false);
          self->ws_.async_read(self->buffer_, [self](error_code rec, std::size_t) {
            if (rec) return self->answered_(false);
            const auto data = self->buffer_.cdata();
            auto reply = proto::DecodeServerMessage(
                std::string_view(static_cast<const char*>(data.data()), data.size()),
                self->ws_.got_text() ? FrameKind::kText : FrameKind::kBinary);
            self->answered_(reply.has_value() && reply->has_hello());
          });
        });
      });
    });
  }

  void Close() {
    if (!ws_.is_open()) return;
    ws_.async_close(websocket::close_code::normal, [self = shared_from_this()](error_code) {});
  }

 private:
  websocket::stream<beast::tcp_stream> ws_;
  beast::flat_buffer buffer_;
  FrameKind kind_;
  std::string frame_;
  std::function<void(bool)> answered_;
};

struct IdleResult {
  int answered = 0;
  long rss_before = 0;
  long rss_after = 0;
};

IdleResult OpenIdleConnections(const tcp::endpoint& endpoint, FrameKind kind, int count,
                               pid_t server) {
  IdleResult result;
  asio::io_context ioc;
  std::vector<std::shared_ptr<IdleClient>> clients;
  int finished = 0;
  result.rss_before = RssKiB(server);
  for (int i = 0; i < count; ++i) {
    clients.push_back(std::make_shared<IdleClient>(ioc, kind));
    clients.back()->Open(endpoint, [&](bool ok) {
      if (ok) ++result.answered;
      if (++finished < count) return;
      result.rss_after = RssKiB(server);
      for (auto& client : clients) client->Close();
    });
  }
  ioc.run();
  return result;
}


// ---- the server ---------------------------------------------------------------------------------

// Starts melee-server on a free loopback port with a fresh store in `data_dir`; null (after
// printing its output) when it does not come up.
std::unique_ptr<testing::Subprocess> StartServer(const std::string& binary,
                                                 const std::filesystem::path& data_dir,
                                                 tcp::endpoint& endpoint, int threads) {
  auto server = std::make_unique<testing::Subprocess>(std::vector<std::string>{
      binary, "--port", "0", "--data-dir", data_dir.string(), "--threads",
      std::to_string(threads), "--messages-per-second", "1000000",
      "--max-connections-per-address", "100000", "--max-connections", "100000",
      "--match-creations-per-minute", "0"});
  const std::string marker = "listening on http://127.0.0.1:";
  if (!server->WaitForOutput("(WebSocket at /ws)", std::chrono::seconds(20))) {
    std::cerr << "match_bench: " << binary << " did not start:\n" << server->output();
    return nullptr;
  }
  const auto at = server->output().find(marker);
  const auto port = static_cast<uint16_t>(std::atoi(server->output().c_str() + at + marker.size()));
  endpoint = tcp::endpoint(asio::ip::make_address("127.0.0.1"), port);
  return server;
}

// Stops the server with SIGTERM; false (after printing its output) unless it exits with 0.
bool StopServer(testing::Subprocess& server) {
  const auto code = server.SignalAndWait(SIGTERM, std::chrono::seconds(30));
  if (code == 0) return true;
  std::cerr << "match_bench: melee-server did not stop cleanly:\n" << server.output();
  return false;
}

}  // namespace
}  // namespace melee::bench

int main(int argc, char** argv) {
  using namespace melee;
  using namespace melee::bench;
  std::vector<int> match_counts = {1, 10, 100, 1000};
  int rounds = 20;
  int idle_connections = 1000;
  bool text = false;
  std::string server_binary = MELEE_SERVER_BINARY;
  int server_threads = kDefaultServerThreads;
  CLI::App app{"match_bench — the reference workload (\"the round\") on a real melee-server"};
  app.add_option("--matches", match_counts, "Match counts N to run, one after another (1,10,100)")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds, "Close combats (rounds) each match plays")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--idle-connections", idle_connections,
                 "Connections opened after the runs to measure memory per idle connection")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--server-threads", server_threads, "melee-server's I/O threads")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_flag("--text", text, "Use JSON text frames instead of binary protobuf");
  app.add_option("--server-binary", server_binary, "melee-server to start")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  testing::TempDir dir;
  Settings settings;
  settings.kind = text ? FrameKind::kText : FrameKind::kBinary;
  settings.rounds = rounds;
  auto server = StartServer(server_binary, dir.path() / "data", settings.endpoint, server_threads);
  if (!server) return 1;

  std::printf(
      "match_bench: melee-server (%d I/O threads, SQLite synchronous=FULL), the round: asl 3-vs-3 "
      "Melee, sealed declarations, %s frames, %d rounds per match, closed loop, 1 client thread\n",
      server_threads, text ? "JSON text" : "binary protobuf", rounds);
  std::printf("%7s %9s %10s %8s %8s %9s %9s %9s %12s %12s %7s %5s\n", "matches", "rounds/s",
              "commands/s", "ack p50", "ack p99", "round p50", "round p95", "round p99",
              "RSS before", "RSS after", "CPU s", "viol");
  std::printf("%7s %9s %10s %8s %8s %9s %9s %9s %12s %12s %7s %5s\n", "", "", "", "ms", "ms", "ms",
              "ms", "ms", "KiB", "KiB", "", "");
  bool failed = false;
  for (size_t r = 0; r < match_counts.size(); ++r) {
    const int matches = match_counts[r];
    RunResult run = RunMatches(settings, static_cast<int>(r), matches, server->pid());
    RunStats& stats = run.stats;
    const double seconds = run.seconds > 0 ? run.seconds : 1e-9;
    std::printf("%7d %9.1f %10.0f %8.2f %8.2f %9.2f %9.2f %9.2f %12ld %12ld %7.2f %5zu\n",
                matches, static_cast<double>(stats.rounds) / seconds,
                static_cast<double>(stats.commands) / seconds, Percentile(stats.ack_ms, 0.50),
                Percentile(stats.ack_ms, 0.99), Percentile(stats.round_ms, 0.50),
                Percentile(stats.round_ms, 0.95), Percentile(stats.round_ms, 0.99),
                run.rss_before, run.rss_after, run.cpu_seconds, stats.violations());
    std::printf("        %zu rounds, %zu commands, %zu choices, %zu stale (resent), %zu errors, "
                "%zu leaks, %zu disagreements in %.2f s%s\n",
                stats.rounds, stats.commands, stats.choices, stats.stale, stats.errors,
                stats.leaks, stats.disagreements, run.seconds, run.stalled ? " (STALLED)" : "");
    for (const std::string& note : stats.notes) std::printf("        ! %s\n", note.c_str());
    std::fflush(stdout);
    const auto expected = static_cast<std::size_t>(matches) * static_cast<std::size_t>(rounds);
    if (stats.violations() > 0 || stats.errors > 0 || run.stalled || stats.rounds != expected) {
      failed = true;
    }
  }

  // Idle connections: first on the server the runs used (as the workload asks), then on a fresh
  // one, since the first reuses memory its closed connections freed and so understates the cost.
  if (idle_connections > 0) {
    const IdleResult idle =
        OpenIdleConnections(settings.endpoint, settings.kind, idle_connections, server->pid());
    if (!StopServer(*server)) failed = true;
    tcp::endpoint fresh_endpoint;
    auto fresh = StartServer(server_binary, dir.path() / "fresh", fresh_endpoint, server_threads);
    if (!fresh) return 1;
    const IdleResult baseline =
        OpenIdleConnections(fresh_endpoint, settings.kind, idle_connections, fresh->pid());
    if (!StopServer(*fresh)) failed = true;
    for (const auto& [what, result] :
         {std::pair{"after the runs", &idle}, std::pair{"fresh server  ", &baseline}}) {
      std::printf(
          "idle connections, %s: %d of %d answered Hello; server RSS %ld -> %ld KiB: %.1f KiB "
          "per idle connection\n",
          what, result->answered, idle_connections, result->rss_before, result->rss_after,
          static_cast<double>(result->rss_after - result->rss_before) /
              static_cast<double>(std::max(result->answered, 1)));
      if (result->answered != idle_connections) failed = true;
    }
  } else if (!StopServer(*server)) {
    failed = true;
  }
  return failed ? 1 : 0;
}
