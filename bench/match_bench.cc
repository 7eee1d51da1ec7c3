// match_bench: the reference load workload ("the round" of ../shared/bench-workload.md, as it
// stands once forces persist across close combats) on the real melee-server binary.
//
// Starts melee-server on a free loopback port with its durable SQLite store (synchronous=FULL)
// and, for each N, has N asl matches play R rounds at once, closed loop (each match starts its next
// round as soon as the last is over), on one client thread; or open loop (below).
// Each match holds two WebSocket connections, one per seat.
//
// Set-up, once per match and not timed: side A creates the match, both seats join with their
// tokens; side A enters 4-6-7 A1, 4-6-7 A2, 5-4-8 A3 in Location B1 (`melee: true`, a Melee
// continuing, so no Ambush dr; ATTACKER side A), side B enters 4-4-7 B1, 4-4-7 B2, 6-2-8 B3; both
// confirm. The timed rounds start once every match's close combat is under way.
//
// A round (timed) is:
//  - the announcements the rules ask for: with the matches' default option melee_withdrawal =
//    none (--melee-withdrawal; the scenario special rule "no voluntary Withdrawal from Melee",
//    A11.2), none in this 3-vs-3 as ../shared/bench-workload.md has it, unless the dice created a
//    leader (a SMC may attack alone, A11.14); with allowed, in a Melee both sides announce,
//    ATTACKER first. A seat sends an empty asl Announce when its view is in phase ANNOUNCE with
//    to_act = its seat;
//  - both seals in the same instant: back to back, who goes first alternating by round; each
//    side's i-th present squad attacks enemy foes[(i + round) % len(foes)] (foes: the enemy's
//    present squads, or any present enemy unit when it has no squad left), squads on the same
//    target form one attack, which names too a leader the dice created stacked on the target
//    (A11.14: it defends with its MMC; such a leader does not attack);
//  - the server's reveal, dice and resolution, and any choice its dice bring (answered by the
//    entitled seat with the rules default: its first option when one must be picked).
// The round ends when both seats hold the resolved state, either
//  - the Melee goes on (A11.15): the server itself starts the next CCPh's close combat in B1 with
//    the carried units and the other side as ATTACKER; both views show a higher ccph, stage
//    PLAYING, phase ANNOUNCE (DECLARE when no side is asked to announce), and the next round
//    starts from there with no command; or
//  - the close combat ended without a Melee (stage ENDED, the view's `melee` false).
// After a round of the second kind the next round first brings the units back (timed, as in a
// real game): each side with no unit left in B1 re-enters its three squads as reinforcements
// through update_units (UPDATE_KIND_ENTER in B1, new ids A1r<round>.. / B1r<round>..: eliminated
// ids never return; side A's update before side B's), then the ATTACKER of the next CCPh (the
// other side than the last close combat's) submits a set-up part naming B1 (`melee: true`,
// `attacker` itself) with no units, and both seats confirm: the units come from the forces. (The
// server keeps the Location's carried facts: that close combat is not a Melee whatever the part
// says; no Ambush dr either way, as no unit advanced and B1 is open ground.)
//
// Open loop (--open-loop-rate RATE and/or --open-loop-load P): what arrives is the round, not
// the command. A round's commands depend on each other (the DEFENDER announces once the
// ATTACKER's announcement is in its view, the seals follow both announcements, a choice follows
// the dice), so they cannot arrive independently: what a pair of players offers the server at a
// rate is the start of a round, and inside it each seat answers its view at once, as in the
// closed loop. So N x R rounds arrive as one Poisson process of RATE rounds/s (exponential gaps
// from a seeded mt19937_64, --seed), each for a match drawn uniformly (so each match sees a
// Poisson process of RATE / N and plays R rounds on average). A round that arrives while its
// match still plays the previous one waits for it. Against coordinated omission every latency is
// measured twice: from when it happened (command sent → answer; second seal → resolved) and from
// when it was due (the round's scheduled arrival → resolved; a command that opens a round was due
// at the arrival, any other when it was sent). --open-loop-load P runs at P % of the rounds/s
// that a closed-loop run at the same N on the same server measured just before (reported too).
// All runs share one server unless --fresh-server starts each on its own (a new data directory),
// so that each meets exactly its N matches and none of the earlier runs' finished ones.
// Between rounds a match's connections are quiet: that is not a stall.
//
// Reports, per run (one N, closed loop or open loop at one rate): rounds/s, commands/s and
// commands per round over the timed phase, command→answer latency (p50/p99, from the send and
// from when it was due), round latency (second seal sent → both seats hold the resolved state,
// p50/p95/p99; and from the round's scheduled start, p50/p99), the server's RSS before the set-up
// and after the last round, its CPU seconds over the timed phase (from /proc) per command and per
// round, this process's CPU seconds; then how many rounds went on as a Melee, how many close
// combats were set up again, how many units re-entered and the first error and warning lines of
// the server's log during the run. Then it opens --idle-connections connections that each say
// Hello and stay open, and reports the server's RSS growth per idle connection: on the server the
// runs used, and again on a fresh server (the first reuses memory that the runs' closed
// connections freed). --csv FILE writes the same figures, a row per run and per idle measurement
// (columns: docs/benchmarks.md).
//
// Every run checks that no connection saw the opponent's declaration before its own seat had
// sealed in that round, and that both seats end every round with the same public state (both
// forces: id, fate, Location and status of every unit; the close combat's units and presence;
// stage and ccph). A refused command other than STALE (a STALE one is sent again once the seat has
// seen what made it stale), a violation or a stall (nothing received for 60 s) is printed and
// makes the exit status 1.
//
//   build/bench/match_bench                                # N = 1, 10, 100, 1000; R = 20
//   build/bench/match_bench --matches 100 --rounds 20
//   build/bench/match_bench --matches 1,10 --rounds 5 --text   # JSON text frames
//   build/bench/match_bench --matches 1000 --open-loop-load 25,50,75 --csv open.csv
//   build/bench/match_bench --matches 100 --open-loop-rate 200,400 --idle-connections 0

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
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/process_stats.h"
#include "bench/ws_connection.h"
#include "melee/asl/v1/asl.pb.h"
#include "melee/v1/envelope.pb.h"
#include "persistence/thread_name.h"
#include "proto/codec/frame.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"
#ifdef MELEE_BENCH_CLUSTER
#include "tests/cluster/cluster.h"
#include "tests/testing/postgres_server.h"
#endif

namespace melee::bench {
namespace {

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
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

constexpr const char* kLocation = "B1";

// The fixed 3-vs-3 of the workload; `suffix` makes the ids of units that re-enter new ("r5").
std::vector<aslpb::Unit> WorkloadUnits(v1::Seat seat, const std::string& suffix = "") {
  if (seat == v1::SEAT_SIDE_A) {
    return {Squad("A1" + suffix, seat, 4, 7, "4-6-7"), Squad("A2" + suffix, seat, 4, 7, "4-6-7"),
            Squad("A3" + suffix, seat, 5, 8, "5-4-8")};
  }
  return {Squad("B1" + suffix, seat, 4, 7, "4-4-7"), Squad("B2" + suffix, seat, 4, 7, "4-4-7"),
          Squad("B3" + suffix, seat, 6, 8, "6-2-8")};
}

// The present units of `owner` in a view: MMC only, unless `any_kind` (a leader the dice create
// does not attack: it would need its own stacking and solo rules, and the workload is squads
// against squads; it can still be attacked when its side has no squad left).
std::vector<const aslpb::Unit*> PresentUnits(const aslpb::AslView& view, v1::Seat owner,
                                             bool any_kind = false) {
  std::vector<const aslpb::Unit*> units;
  for (const aslpb::ViewedUnit& seen : view.units()) {
    if (seen.presence() == aslpb::PRESENCE_PRESENT && seen.unit().owner() == owner &&
        (any_kind || IsMmc(seen.unit().kind()))) {
      units.push_back(&seen.unit());
    }
  }
  return units;
}

// The workload's declaration: the i-th present squad attacks foes[(i + round) % len(foes)], and
// squads on the same target form one attack (with the SMC stacked on it, A11.14).
aslpb::Seal Declare(const aslpb::AslView& view, v1::Seat seat, int round) {
  const std::vector<const aslpb::Unit*> mine = PresentUnits(view, seat);
  std::vector<const aslpb::Unit*> foes = PresentUnits(view, Opponent(seat));
  if (foes.empty()) foes = PresentUnits(view, Opponent(seat), true);
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
  // A11.14: a SMC stacked on an attacked MMC defends with it, so the attack names it too.
  for (aslpb::AttackOrder& order : *seal.mutable_attacks()) {
    const std::string target = order.targets(0);
    for (const aslpb::Unit* smc : PresentUnits(view, Opponent(seat), true)) {
      if (!IsMmc(smc->kind()) && smc->stacked_on() == target) order.add_targets(smc->id());
    }
  }
  return seal;
}

const google::protobuf::RepeatedPtrField<v1::ForceUnit>& ForceOf(const v1::MatchView& view,
                                                                 v1::Seat seat) {
  return seat == v1::SEAT_SIDE_A ? view.side_a_force() : view.side_b_force();
}

// Whether `seat` still has a unit present in the workload's Location, by its force in a view.
bool HoldsLocation(const v1::MatchView& view, v1::Seat seat) {
  const auto& force = ForceOf(view, seat);
  return std::any_of(force.begin(), force.end(), [&](const v1::ForceUnit& unit) {
    return unit.fate() == v1::FORCE_FATE_PRESENT && unit.location() == kLocation;
  });
}

// The public state a seat holds at the end of a round, one line per fact: stage and CCPh, both
// forces (id, fate, Location and status of every unit), the close combat's units and presence.
std::vector<std::string> PublicState(const v1::MatchView& view) {
  std::vector<std::string> state;
  state.push_back(std::string(v1::Stage_Name(view.stage())) + " ccph " +
                  std::to_string(view.ccph()) + " ATTACKER " +
                  v1::Seat_Name(view.asl().attacker()));
  for (const v1::Seat seat : {v1::SEAT_SIDE_A, v1::SEAT_SIDE_B}) {
    for (const v1::ForceUnit& unit : ForceOf(view, seat)) {
      state.push_back("force " + unit.id() + " " + v1::Seat_Name(unit.owner()) + " " +
                      v1::ForceFate_Name(unit.fate()) + " in '" + unit.location() + "' " +
                      aslpb::UnitKind_Name(unit.asl().kind()) + " " +
                      std::to_string(unit.asl().firepower()) + "-" +
                      std::to_string(unit.asl().morale()) + " " + unit.asl().name());
    }
  }
  for (const aslpb::ViewedUnit& seen : view.asl().units()) {
    state.push_back("cc " + seen.unit().id() + " " + aslpb::Presence_Name(seen.presence()));
  }
  return state;
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
    case v1::ClientMessage::kUpdateUnits:
      return fill(message.mutable_update_units());
    case v1::ClientMessage::kRecordResult:
      return fill(message.mutable_record_result());
    default:
      return;
  }
}

// ---- what a run measures ------------------------------------------------------------------------

// What one run (one N) measures and checks; filled on the client's one thread.
struct RunStats {
  std::vector<double> ack_ms;        // match command sent → its ack or error, timed phase
  std::vector<double> ack_sched_ms;  // the same from when it was due (see Sent::due)
  std::vector<double> round_ms;  // second seal sent → both seats hold the resolved state
  std::vector<double> round_sched_ms;  // the round's scheduled start → the same
  std::size_t commands = 0;      // match commands answered in the timed phase
  std::size_t rounds = 0;
  std::size_t received = 0;      // server messages, for the stall watchdog
  std::size_t choices = 0;       // mid-resolution choices answered
  std::size_t melees = 0;        // rounds whose close combat went on as a Melee into the next CCPh
  std::size_t setups = 0;        // close combats set up again in the timed phase
  std::size_t reentered = 0;     // units that re-entered as reinforcements
  std::size_t stale = 0;         // STALE answers (the command is sent again)
  std::size_t reconnects = 0;    // soak: connections dropped and resumed on a new one
  std::size_t finished = 0;      // soak: matches whose result both seats recorded
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
  // The protocol version each connection asks for in its Hello: 2 sends a view's forces only
  // when they changed (MatchView.forces_as_before), 1 every time.
  unsigned protocol = 2;
  // The asl option melee_withdrawal each match is created with: "none" is the scenario special
  // rule "no voluntary Withdrawal from Melee" (A11.2), under which a side in this 3-vs-3 has
  // nothing to announce and the server asks it nothing; "allowed" asks both sides each CCPh.
  std::string melee_withdrawal = "none";
  int rounds = 20;
  // The soak (--soak-seconds): after each round, each seat drops its connection with this
  // probability and comes back on a new one, resuming from its last seq; and a match that has
  // played its rounds is finished (both seats record its result) before its connections close.
  double churn = 0;
  bool record_results = false;
  uint64_t seed = 1;
  // The CPU seconds so far of the processes the deployment runs beside melee-server (PostgreSQL,
  // HAProxy); unset for SQLite.
  std::function<double()> others_cpu;
};

// A command in flight: what it was, when it left, when it was due, and the seq it expected. A
// command is due when it is sent, except one that opens a round: that one was due at the round's
// scheduled start (in the open loop, the arrival it may have waited past; see Game::StartRound).
struct Sent {
  v1::ClientMessage::CommandCase kind = v1::ClientMessage::COMMAND_NOT_SET;
  Clock::time_point at;
  Clock::time_point due;
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
         FrameKind kind, unsigned protocol, std::size_t& received)
      : ws_(ioc),
        events_(events),
        seat_(seat),
        prefix_(std::move(prefix)),
        kind_(kind),
        protocol_(protocol),
        received_(received) {}

  // Connects to `endpoint`, opens the WebSocket at `target` (/ws, or /ws?match=<id>) and says
  // Hello with its protocol version; `opened` runs once the server has answered it.
  void Open(const tcp::endpoint& endpoint, std::string target, std::function<void()> opened) {
    ws_.Open(endpoint, std::move(target), kind_,
             [self = shared_from_this(), opened = std::move(opened)](
                 error_code ec, std::string_view step) mutable {
               if (ec) {
                 return self->events_.OnFailure(self->seat_,
                                                std::string(step) + ": " + ec.message());
               }
               self->connecting_ = false;
               self->Read();
               self->greeted_ = std::move(opened);
               v1::ClientMessage hello;
               hello.mutable_hello()->set_protocol_version(self->protocol_);
               hello.mutable_hello()->set_client_name("match_bench");
               self->Send(std::move(hello), 0);
             });
  }

  // Sends `message` with the next command_id of this seat; `due` (no later than now) is when the
  // command was due, now unless given.
  void Send(v1::ClientMessage message, uint64_t expected_seq,
            std::optional<Clock::time_point> due = std::nullopt) {
    message.set_command_id(prefix_ + std::to_string(++commands_sent_));
    command_id_ = message.command_id();
    const Clock::time_point now = Clock::now();
    sent_ = Sent{message.command_case(), now, std::min(due.value_or(now), now), expected_seq};
    writes_.push_back(proto::EncodeClientMessage(message, kind_));
    if (writes_.size() == 1) Write();
  }

  // Closes the connection once what was sent has left.
  void Close() {
    if (closing_) return;
    closing_ = true;
    if (writes_.empty()) SendClose();
  }

  // Connecting, or a command awaiting its answer.
  bool busy() const { return connecting_ || !command_id_.empty(); }
  uint64_t last_seq() const { return last_seq_; }
  // A connection that takes over from a dropped one: the events up to `seq` were received there.
  void ResumeAfter(uint64_t seq) { last_seq_ = seq; }
  const v1::MatchView& view() const { return view_; }
  // The view includes every event received so far.
  bool view_current() const { return view_.seq() >= last_seq_; }
  std::string Describe() const {
    return "seq " + std::to_string(last_seq_) + ", view seq " + std::to_string(view_.seq()) + " " +
           v1::Stage_Name(view_.stage()) + "/" + aslpb::Phase_Name(view_.asl().phase()) +
           (busy() ? ", awaiting " + command_id_ : ", idle") + (closing_ ? ", closing" : "");
  }

 private:
  void Write() {
    ws_.Write(writes_.front(), [self = shared_from_this()](error_code ec) {
      if (ec) {
        if (!self->closing_) self->events_.OnFailure(self->seat_, "write: " + ec.message());
        return;
      }
      self->writes_.pop_front();
      if (!self->writes_.empty()) return self->Write();
      if (self->closing_) self->SendClose();
    });
  }

  // `view`, just received, becomes the view; one that left its forces out (protocol 2) takes
  // them (and the settings) from the view before it. Both messages are on the heap, so the
  // swaps move pointers
  // (client::WholeView would copy the forces of every view).
  void KeepView(v1::MatchView& view) {
    if (view.forces_as_before()) {
      view.mutable_settings()->Swap(view_.mutable_settings());
      view.mutable_side_a_force()->Swap(view_.mutable_side_a_force());
      view.mutable_side_b_force()->Swap(view_.mutable_side_b_force());
    }
    view_.Swap(&view);
  }

  void SendClose() {
    ws_.Close([self = shared_from_this()](error_code) {});
  }

  void Read() {
    ws_.Read([self = shared_from_this()](error_code ec, std::string_view frame, FrameKind kind) {
      if (ec) {
        if (!self->closing_) self->events_.OnFailure(self->seat_, "read: " + ec.message());
        return;
      }
      self->OnFrame(frame, kind);
      self->Read();  // until the connection is closed
    });
  }

  void OnFrame(std::string_view frame, FrameKind kind) {
    ++received_;
    auto decoded = proto::DecodeServerMessage(frame, kind);
    if (closing_) return;  // a dropped connection: its successor receives the same again
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
      KeepView(*message.mutable_view());
      events_.OnView(seat_);
    } else if (message.has_joined()) {
      KeepView(*message.mutable_joined()->mutable_view());
    }
    if (message.command_id().empty()) return;
    if (message.command_id() != command_id_) {
      return events_.OnFailure(seat_, "an answer to '" + message.command_id() +
                                          "', which is not the command in flight");
    }
    command_id_.clear();
    if (message.has_hello()) {
      if (message.hello().protocol_version() != protocol_) {
        return events_.OnFailure(seat_, "the server answered Hello with protocol " +
                                            std::to_string(message.hello().protocol_version()));
      }
      return std::exchange(greeted_, nullptr)();
    }
    events_.OnAnswer(seat_, message, sent_);
  }

  WsConnection ws_;
  std::deque<std::string> writes_;
  PlayerEvents& events_;
  size_t seat_;
  std::string prefix_;
  FrameKind kind_;
  unsigned protocol_;
  std::size_t& received_;
  bool closing_ = false;
  bool connecting_ = true;
  int commands_sent_ = 0;
  std::string command_id_;  // the command awaiting its answer; empty when idle
  Sent sent_;
  uint64_t last_seq_ = 0;
  v1::MatchView view_;
  std::function<void()> greeted_;  // what Open runs once Hello is answered
};

// ---- one match ----------------------------------------------------------------------------------

// Where one seat stands in the current round (and in the set-up that may open it).
struct SeatRound {
  // A set-up (the match's first, or after a close combat that ended without a Melee):
  bool reenter = false;          // this side has no unit left in B1: it re-enters three squads
  bool reentry_sent = false;     // its update_units was sent
  bool reentry_done = false;     // ... and acknowledged
  bool submitted = false;        // its set-up part was sent
  bool confirmed = false;
  // The round:
  bool announced = false;
  bool ready_to_seal = false;
  bool sealed = false;         // its seal was sent
  bool saw_own_seal = false;   // its DeclarationSealed event arrived
  uint32_t sealed_ccph = 0;    // the CCPh its view was in when it sealed
  int64_t answered_choice = -1;
  uint64_t stale_at = 0;  // after a STALE answer: act again only after an event past this seq
  // At the end of the round (the first view with the resolved state):
  bool ended = false;
  bool melee_goes_on = false;  // the server started the next CCPh's close combat
  std::vector<std::string> public_state;
  bool holds_location = true;  // this side still has a unit in B1
  v1::Seat attacker = v1::SEAT_UNSPECIFIED;  // the ATTACKER of the close combat just resolved
};

// One match between two Players: the set-up (not timed), then its rounds driven by what each
// seat's view shows; reports to its run when its close combat is under way and when it is done.
// Closed loop, a round starts as soon as the previous one is over; open loop, a round starts at
// an arrival (Arrive), or at once when one came while the previous round was still being played.
class Game final : public PlayerEvents {
 public:
  Game(asio::io_context& ioc, const Settings& settings, RunStats& stats, int run, int index,
       bool open_loop, std::function<void()> on_seated, std::function<void()> on_done)
      : ioc_(ioc),
        settings_(settings),
        stats_(stats),
        run_(run),
        index_(index),
        open_loop_(open_loop),
        rounds_to_play_(settings.rounds),
        on_seated_(std::move(on_seated)),
        on_done_(std::move(on_done)) {
    for (size_t i = 0; i < 2; ++i) {
      players_[i] = std::make_shared<Player>(ioc, *this, i, Prefix(i), settings.kind,
                                             settings.protocol, stats.received);
    }
  }

  // Creates the match on a connection of its own (side A's player), then connects both seats
  // to the match's URL (/ws?match=<id>, which a load balancer routes by) and joins them; then
  // both enter their units and confirm.
  void SetUp() {
    creator_ = std::make_shared<Player>(ioc_, *this, 0, Prefix(0) + "c", settings_.kind,
                                        settings_.protocol, stats_.received);
    creator_->Open(settings_.endpoint, "/ws", [this] {
      v1::ClientMessage create;
      v1::MatchSettings& match = *create.mutable_create_match()->mutable_settings();
      match.set_ruleset("asl");
      (*match.mutable_options())["melee_withdrawal"] = settings_.melee_withdrawal;
      creator_->Send(std::move(create), 0);
    });
  }

  // Sets how many rounds this match plays (before Play; R unless the open loop's arrivals say
  // otherwise).
  void SetRounds(int rounds) { rounds_to_play_ = rounds; }

  // Starts play (the run calls this when every match's close combat is under way): round 1 at
  // once in the closed loop, at the first arrival in the open loop.
  void Play() {
    if (stage_ != Stage::kSeated) return;
    stage_ = Stage::kPlaying;
    if (rounds_to_play_ == 0) {
      stage_ = Stage::kFinishing;
      on_done_();
    } else {
      NewRound();
      if (!open_loop_) StartRound(Clock::now());
    }
    Advance();
  }

  // An arrival of the open loop, scheduled at `at`: the next round starts now if the match waits
  // for one, or when the round being played is over.
  void Arrive(Clock::time_point at) {
    if (stage_ != Stage::kPlaying) return;
    arrivals_.push_back(at);
    if (!waiting_) return;
    StartRound(arrivals_.front());
    arrivals_.pop_front();
    Advance();
  }

  // Whether the match is between rounds, waiting for an arrival (or done): a quiet connection is
  // then no stall.
  bool idle() const { return stage_ == Stage::kDone || (stage_ == Stage::kPlaying && waiting_); }

  // Gives up on this match (a stall).
  void Abandon(const std::string& why) { Fail(why); }

  bool done() const { return stage_ == Stage::kDone; }

  std::string Describe() const {
    std::string setup;
    if (setting_up_) {
      setup = first_setup_ ? " (first set-up)"
                           : " (set-up again, ATTACKER " +
                                 std::string(v1::Seat_Name(setup_attacker_)) + ")";
    }
    return "match " + std::to_string(index_) + " (" + created_.match_id() + ") round " +
           std::to_string(round_ + 1) + setup + ": A " + players_[0]->Describe() + "; B " +
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
    // Only a view of the close combat being played counts: an ended one (while the next is set
    // up) still shows the declarations revealed in it.
    if (view.stage() == v1::STAGE_PLAYING && !mine.saw_own_seal &&
        ShowsDeclarationOf(view.asl(), Opponent(seat))) {
      ++stats_.leaks;
      stats_.Note("match " + std::to_string(index_) + ": seat " + v1::Seat_Name(seat) +
                  " received a view (seq " + std::to_string(view.seq()) +
                  ") with the opponent's declaration before sealing its own");
    }
    if (stage_ == Stage::kPlaying && mine.sealed && !mine.ended) {
      // The resolved state: the server started the next CCPh's close combat (the Melee goes on),
      // or the close combat ended without a Melee. An ENDED view of a Melee is not it: the server
      // starts the next close combat at once.
      const bool goes_on = view.stage() == v1::STAGE_PLAYING && view.ccph() > mine.sealed_ccph;
      const bool over = view.stage() == v1::STAGE_ENDED && !view.asl().melee();
      if (goes_on || over) {
        mine.ended = true;
        mine.melee_goes_on = goes_on;
        mine.public_state = PublicState(view);
        mine.holds_location = HoldsLocation(view, seat);
        mine.attacker = view.asl().attacker();
        // Under the SSR a side is asked only when it can announce (a SMC the dice created,
        // A11.14), so the next CCPh may start at the declarations.
        const aslpb::Phase phase = view.asl().phase();
        const bool asked_nothing =
            settings_.melee_withdrawal == "none" && phase == aslpb::PHASE_DECLARE;
        if (goes_on && phase != aslpb::PHASE_ANNOUNCE && !asked_nothing) {
          return Fail(std::string("seat ") + v1::Seat_Name(seat) + ": the Melee went on into " +
                      "CCPh " + std::to_string(view.ccph()) + " in phase " +
                      aslpb::Phase_Name(phase) + ", not ANNOUNCE" +
                      (settings_.melee_withdrawal == "none" ? " or DECLARE" : ""));
        }
      }
    }
    Advance();
  }

  void OnAnswer(size_t i, const v1::ServerMessage& answer, const Sent& sent) override {
    if ((stage_ == Stage::kPlaying || stage_ == Stage::kFinishing) &&
        sent.kind != v1::ClientMessage::kJoinSeat) {
      const Clock::time_point now = Clock::now();
      ++stats_.commands;
      stats_.ack_ms.push_back(Millis(now - sent.at));
      stats_.ack_sched_ms.push_back(Millis(now - sent.due));
    }
    if (answer.has_error()) {
      if (answer.error().code() != v1::ERROR_CODE_STALE ||
          (stage_ != Stage::kPlaying && stage_ != Stage::kFirstSetUp &&
           sent.kind != v1::ClientMessage::kRecordResult)) {
        const auto* field =
            v1::ClientMessage::descriptor()->FindFieldByNumber(static_cast<int>(sent.kind));
        return Fail(std::string("seat ") + v1::Seat_Name(SeatOf(i)) + ": " +
                    (field != nullptr ? field->name() : std::string("a command")) +
                    " refused: " + v1::ErrorCode_Name(answer.error().code()) + " " +
                    answer.error().message());
      }
      ++stats_.stale;
      Retry(i, sent);
    } else if (answer.has_match_created()) {
      created_ = answer.match_created();
      creator_->Close();
      for (size_t seat = 0; seat < 2; ++seat) {
        players_[seat]->Open(settings_.endpoint, MatchTarget(), [this, seat] {
          Join(seat, seat == 0 ? created_.side_a_token() : created_.side_b_token());
        });
      }
    } else if (answer.has_joined()) {
      if (++joined_ == 2) {
        stage_ = Stage::kFirstSetUp;
        setting_up_ = true;
        first_setup_ = true;
      }
    } else if (!answer.has_ack()) {
      return Fail("unexpected answer: " + answer.ShortDebugString());
    } else if (sent.kind == v1::ClientMessage::kUpdateUnits) {
      seats_[i].reentry_done = true;
      stats_.reentered += 3;
    } else if (sent.kind == v1::ClientMessage::kRecordResult) {
      result_recorded_[i] = true;
      if (result_recorded_[0] && result_recorded_[1]) ++stats_.finished;
    }
    Advance();
  }

  void OnFailure(size_t i, const std::string& what) override {
    Fail(std::string("seat ") + v1::Seat_Name(SeatOf(i)) + ": " + what);
  }

 private:
  // kSettingUp: connecting, creating, joining; kFirstSetUp: entering and confirming the units;
  // kSeated: the close combat is under way, waiting for the other matches.
  enum class Stage { kSettingUp, kFirstSetUp, kSeated, kPlaying, kFinishing, kDone };

  // The match's WebSocket URL: HAProxy hashes the match id in it to pick the node.
  std::string MatchTarget() const { return "/ws?match=" + created_.match_id(); }

  void Join(size_t i, const std::string& token) {
    v1::ClientMessage join;
    join.mutable_join_seat()->set_match_id(created_.match_id());
    join.mutable_join_seat()->set_seat_token(token);
    players_[i]->Send(std::move(join), 0);
  }

  // Sends a match command of seat i with the last seq it saw. The commands that open a round
  // (the first sent after it started, in one Advance) were due at the round's scheduled start.
  void Command(size_t i, v1::ClientMessage message) {
    const uint64_t seq = players_[i]->last_seq();
    Address(message, created_.match_id(), seq);
    std::optional<Clock::time_point> due;
    if (stage_ == Stage::kPlaying && round_opening_) {
      due = scheduled_at_;
      opening_sent_ = true;
    }
    players_[i]->Send(std::move(message), seq, due);
  }

  // Opens the round prepared by NewRound: its commands may go from now on; it was scheduled to
  // start at `scheduled` (closed loop: now, when the previous round ended).
  void StartRound(Clock::time_point scheduled) {
    waiting_ = false;
    round_opening_ = true;
    scheduled_at_ = scheduled;
    started_at_ = Clock::now();
  }

  // Starts a round. After a close combat that ended without a Melee, the round opens with the
  // set-up of the next one: the sides with no unit left re-enter theirs, and the ATTACKER of the
  // next CCPh (the other side) sets it up in B1.
  void NewRound() {
    const bool set_up_again = round_ > 0 && !seats_[0].melee_goes_on;
    std::array<bool, 2> reenter = {!seats_[0].holds_location, !seats_[1].holds_location};
    const v1::Seat last_attacker = seats_[0].attacker;
    for (size_t i = 0; i < 2; ++i) seats_[i] = SeatRound{};
    seals_sent_ = false;
    waiting_ = true;
    if (!set_up_again) return;
    setting_up_ = true;
    first_setup_ = false;
    setup_attacker_ = Opponent(last_attacker == v1::SEAT_UNSPECIFIED ? v1::SEAT_SIDE_B
                                                                     : last_attacker);
    ++stats_.setups;
    for (size_t i = 0; i < 2; ++i) seats_[i].reenter = reenter[i];
  }

  // Whether seat i enters a set-up part: both in the first set-up, then only the ATTACKER.
  bool EntersPart(size_t i) const {
    return first_setup_ || SeatOf(i) == setup_attacker_;
  }

  // Does whatever the match waits for; called after everything a seat receives.
  void Advance() {
    Step();
    if (opening_sent_) round_opening_ = opening_sent_ = false;  // the round is open
  }

  // One pass of Advance.
  void Step() {
    if (stage_ == Stage::kPlaying && seats_[0].ended && seats_[1].ended) EndRound();
    if (stage_ == Stage::kFinishing) {
      if (settings_.record_results) RecordResults();
      const bool recorded =
          !settings_.record_results || (result_recorded_[0] && result_recorded_[1]);
      if (recorded && !players_[0]->busy() && !players_[1]->busy()) Finish();
      return;
    }
    if (stage_ != Stage::kFirstSetUp && stage_ != Stage::kPlaying) return;
    if (stage_ == Stage::kPlaying && waiting_) return;  // the next round has not started yet
    if (setting_up_ && SetUpDone()) {
      setting_up_ = false;
      if (stage_ == Stage::kFirstSetUp) {
        stage_ = Stage::kSeated;
        on_seated_();
        return;
      }
    }
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

  // The set-up is over when both seats hold a view of the close combat being played and nothing
  // is in flight.
  bool SetUpDone() const {
    for (size_t i = 0; i < 2; ++i) {
      const Player& player = *players_[i];
      if (player.busy() || !player.view_current() ||
          player.view().stage() != v1::STAGE_PLAYING || !seats_[i].confirmed) {
        return false;
      }
    }
    return true;
  }

  // The next command of seat i, if its view calls for one and nothing is in flight.
  void Act(size_t i) {
    Player& player = *players_[i];
    SeatRound& mine = seats_[i];
    if (player.busy() || !player.view_current() || player.last_seq() <= mine.stale_at) return;
    if (mine.ended) return;
    if (setting_up_) return ActInSetUp(i);
    const v1::Seat seat = SeatOf(i);
    const v1::MatchView& view = player.view();
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

  // Seat i's next step of a set-up: its units re-enter (side A's before side B's), then the set-up
  // parts, then its confirmation once its view shows every part.
  void ActInSetUp(size_t i) {
    SeatRound& mine = seats_[i];
    const v1::Seat seat = SeatOf(i);
    const v1::MatchView& view = players_[i]->view();
    if (mine.reenter && !mine.reentry_sent) {
      if (i == 1 && seats_[0].reenter && !seats_[0].reentry_done) return;
      v1::ClientMessage message;
      v1::UpdateUnits& update = *message.mutable_update_units();
      for (aslpb::Unit& unit : WorkloadUnits(seat, "r" + std::to_string(round_ + 1))) {
        v1::UnitUpdate& enter = *update.add_updates();
        enter.set_unit(unit.id());
        enter.set_kind(v1::UPDATE_KIND_ENTER);
        enter.set_location(kLocation);
        enter.set_note("reinforcement");
        *enter.mutable_asl() = std::move(unit);
      }
      mine.reentry_sent = true;
      return Command(i, std::move(message));
    }
    for (const SeatRound& seat_round : seats_) {
      if (seat_round.reenter && !seat_round.reentry_done) return;
    }
    if (EntersPart(i) && !mine.submitted) {
      v1::ClientMessage message;
      aslpb::SideSetup& part = *message.mutable_submit_setup()->mutable_asl();
      if (seat == setup_attacker_) {
        part.mutable_location()->set_name(kLocation);
        part.mutable_location()->set_melee(true);  // a Melee continuing: no Ambush dr
        part.set_attacker(setup_attacker_);
      }
      if (first_setup_) {
        for (const aslpb::Unit& unit : WorkloadUnits(seat)) *part.add_units() = unit;
      }
      mine.submitted = true;
      return Command(i, std::move(message));
    }
    if (view.stage() != v1::STAGE_SETUP || mine.confirmed || StatusOf(view, seat).confirmed()) {
      return;
    }
    for (size_t k = 0; k < 2; ++k) {
      if (EntersPart(k) && !StatusOf(view, SeatOf(k)).submitted()) return;
    }
    v1::ClientMessage message;
    message.mutable_confirm_setup();
    mine.confirmed = true;
    Command(i, std::move(message));
  }

  void Seal(size_t i) {
    v1::ClientMessage message;
    v1::SealDeclaration& seal = *message.mutable_seal_declaration();
    *seal.mutable_declaration()->mutable_asl() =
        Declare(players_[i]->view().asl(), SeatOf(i), round_);
    seal.set_client_entropy(std::string(32, static_cast<char>('a' + (index_ + round_) % 26)));
    seats_[i].sealed = true;
    seats_[i].sealed_ccph = players_[i]->view().ccph();
    Command(i, std::move(message));
  }

  // A STALE answer: the command is sent again once the seat has seen what made it stale.
  void Retry(size_t i, const Sent& sent) {
    SeatRound& mine = seats_[i];
    mine.stale_at = sent.expected_seq;
    switch (sent.kind) {
      case v1::ClientMessage::kUpdateUnits:
        mine.reentry_sent = false;
        break;
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
      case v1::ClientMessage::kRecordResult:
        result_sent_[i] = false;
        break;
      default:
        break;
    }
  }

  // The soak's end of a match: each seat records that side A won the match (close combat 0),
  // once it has seen everything before; the one that loses the race gets STALE and sends again.
  void RecordResults() {
    for (size_t i = 0; i < 2; ++i) {
      Player& player = *players_[i];
      if (result_sent_[i] || player.busy() || !player.view_current() ||
          player.last_seq() <= seats_[i].stale_at) {
        continue;
      }
      v1::ClientMessage message;
      message.mutable_record_result()->set_combat(0);
      message.mutable_record_result()->set_outcome(v1::RESULT_OUTCOME_SIDE_A_WON);
      result_sent_[i] = true;
      Command(i, std::move(message));
    }
  }

  // The command ids of seat i's connections: unique across the whole benchmark.
  std::string Prefix(size_t i) const {
    return "r" + std::to_string(run_) + "m" + std::to_string(index_) + (i == 0 ? "a" : "b") +
           (reconnects_ > 0 ? "c" + std::to_string(reconnects_) : "");
  }

  // The soak's churn: seat i's connection is dropped (between rounds, nothing in flight) and a
  // new one joins the seat again from the last seq the old one received.
  void Reconnect(size_t i) {
    const uint64_t seq = players_[i]->last_seq();
    players_[i]->Close();
    ++reconnects_;
    ++stats_.reconnects;
    auto player = std::make_shared<Player>(ioc_, *this, i, Prefix(i), settings_.kind,
                                           settings_.protocol, stats_.received);
    player->ResumeAfter(seq);
    players_[i] = player;
    player->Open(settings_.endpoint, MatchTarget(), [this, i, seq] {
      v1::ClientMessage join;
      join.mutable_join_seat()->set_match_id(created_.match_id());
      join.mutable_join_seat()->set_seat_token(i == 0 ? created_.side_a_token()
                                                      : created_.side_b_token());
      join.mutable_join_seat()->set_after_seq(seq);
      players_[i]->Send(std::move(join), 0);
    });
  }

  // Both seats hold the resolved state: the round is over.
  void EndRound() {
    const Clock::time_point now = Clock::now();
    stats_.round_ms.push_back(Millis(now - second_seal_at_));
    stats_.round_sched_ms.push_back(Millis(now - scheduled_at_));
    ++stats_.rounds;
    if (seats_[0].melee_goes_on) ++stats_.melees;
    if (seats_[0].public_state != seats_[1].public_state) {
      ++stats_.disagreements;
      std::string first_difference;
      const auto& a = seats_[0].public_state;
      const auto& b = seats_[1].public_state;
      for (size_t k = 0; k < std::max(a.size(), b.size()); ++k) {
        const std::string in_a = k < a.size() ? a[k] : "(nothing)";
        const std::string in_b = k < b.size() ? b[k] : "(nothing)";
        if (in_a != in_b) {
          first_difference = "A holds '" + in_a + "', B holds '" + in_b + "'";
          break;
        }
      }
      stats_.Note("match " + std::to_string(index_) + " round " + std::to_string(round_ + 1) +
                  ": the seats end with different public state: " + first_difference);
    }
    if (settings_.churn > 0) {
      std::bernoulli_distribution drop(settings_.churn);
      for (size_t i = 0; i < 2; ++i) {
        if (!players_[i]->busy() && drop(churn_rng_)) Reconnect(i);
      }
    }
    if (++round_ == rounds_to_play_) {
      stage_ = Stage::kFinishing;
      on_done_();
      return;
    }
    NewRound();
    if (!open_loop_) {
      StartRound(now);
    } else if (!arrivals_.empty()) {  // it arrived while this round was played: it starts now
      StartRound(arrivals_.front());
      arrivals_.pop_front();
    }
  }

  void Finish() {
    stage_ = Stage::kDone;
    for (auto& player : players_) player->Close();
  }

  void Fail(const std::string& why) {
    if (stage_ == Stage::kDone) return;
    ++stats_.errors;
    stats_.Note("match " + std::to_string(index_) + " round " + std::to_string(round_ + 1) + ": " +
                why);
    const Stage was = stage_;
    Finish();
    if (was == Stage::kSettingUp || was == Stage::kFirstSetUp) on_seated_();
    if (was != Stage::kFinishing) on_done_();
  }

  asio::io_context& ioc_;
  const Settings& settings_;
  RunStats& stats_;
  int run_;
  int index_;
  bool open_loop_;
  int rounds_to_play_;
  std::function<void()> on_seated_;
  std::function<void()> on_done_;
  std::array<std::shared_ptr<Player>, 2> players_;
  std::array<SeatRound, 2> seats_;
  Stage stage_ = Stage::kSettingUp;
  v1::MatchCreated created_;
  std::shared_ptr<Player> creator_;  // the connection that created the match (closed after)
  int joined_ = 0;
  int round_ = 0;
  // A set-up under way: the first (both sides enter their units) or one after a close combat
  // that ended without a Melee (units re-enter, the ATTACKER sets up B1 with none).
  bool setting_up_ = false;
  bool first_setup_ = false;
  v1::Seat setup_attacker_ = v1::SEAT_SIDE_A;
  bool seals_sent_ = false;
  Clock::time_point second_seal_at_;
  // The round's start: NewRound prepares it, StartRound opens it (waiting_ until then).
  bool waiting_ = false;
  std::deque<Clock::time_point> arrivals_;  // open loop: arrivals not yet started, oldest first
  Clock::time_point scheduled_at_;          // when the round was due to start
  Clock::time_point started_at_;            // when it did
  bool round_opening_ = false;              // no command of the round has been sent yet
  bool opening_sent_ = false;               // ... until the Step that sends the first ones is over
  // The soak:
  std::mt19937_64 churn_rng_{settings_.seed * 1000003 + static_cast<uint64_t>(run_) * 10007 +
                             static_cast<uint64_t>(index_)};
  int reconnects_ = 0;
  std::array<bool, 2> result_sent_ = {false, false};
  std::array<bool, 2> result_recorded_ = {false, false};
};

// ---- one run ------------------------------------------------------------------------------------

struct RunResult {
  RunStats stats;
  double seconds = 0;  // the timed phase: every match seated → the last round over
  long rss_before = 0;
  long rss_after = 0;
  double cpu_seconds = 0;         // the server's, over the timed phase
  double store_cpu_seconds = 0;   // of it, the store's threads' (writer, checkpointer, lease)
  double system_cpu_seconds = 0;  // of it, the time in the kernel (system time)
  double client_cpu_seconds = 0;  // this process's (the load generator), the same
  double others_cpu_seconds = 0;  // PostgreSQL's and HAProxy's (Settings::others_cpu), the same
  bool stalled = false;
};

// The open loop's arrivals: `count` rounds arriving as a Poisson process of `rate` rounds/s over
// the whole run, each for a match drawn uniformly from `matches` (so each match sees a Poisson
// process of rate / matches). The same seed gives the same draws at every rate, scaled.
struct Schedule {
  std::vector<Clock::duration> at;  // from the start of the timed phase, ascending
  std::vector<int> match;
};

Schedule PoissonSchedule(double rate, std::size_t count, int matches, uint64_t seed) {
  Schedule schedule;
  std::mt19937_64 random(seed);
  std::exponential_distribution<double> gap(1.0);
  std::uniform_int_distribution<int> which(0, matches - 1);
  double seconds = 0;
  for (std::size_t k = 0; k < count; ++k) {
    seconds += gap(random) / rate;
    schedule.at.push_back(
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)));
    schedule.match.push_back(which(random));
  }
  return schedule;
}

// How a run offers its rounds: closed loop (rate 0), or open loop at `rate` rounds/s.
struct Offer {
  double rate = 0;
  uint64_t seed = 1;
  bool open() const { return rate > 0; }
};

// CPU seconds of the store's threads in the servers `server` (persistence/thread_name.h): the
// transactions, SQLite's or libpq's work and the fsyncs, apart from the I/O threads' protocol,
// rules, views and sends.
double StoreCpuSeconds(const std::vector<pid_t>& server) {
  double sum = 0;
  for (const pid_t pid : server) {
    sum +=
        ThreadsCpuSeconds(pid, {persistence::kWriterThreadName, persistence::kCheckpointThreadName,
                                persistence::kLeaseThreadName});
  }
  return sum;
}

// Run number `run`: N matches set up, then played at once on one io_context, with a stall
// watchdog. Closed loop, each match plays R rounds back to back; open loop, N × R rounds arrive
// as `offer` says (each match plays the rounds that arrive for it) and a timer hands each to its
// match at its scheduled time.
RunResult RunMatches(const Settings& settings, int run, int matches, const Offer& offer,
                     const std::vector<pid_t>& server) {
  RunResult result;
  RunStats& stats = result.stats;
  const std::size_t total_rounds =
      static_cast<std::size_t>(matches) * static_cast<std::size_t>(settings.rounds);
  stats.ack_ms.reserve(total_rounds * 6);
  stats.ack_sched_ms.reserve(total_rounds * 6);
  asio::io_context ioc;
  asio::steady_timer watchdog(ioc);
  asio::steady_timer arrivals(ioc);
  Schedule schedule;
  if (offer.open()) schedule = PoissonSchedule(offer.rate, total_rounds, matches, offer.seed);
  std::size_t next_arrival = 0;
  std::vector<std::unique_ptr<Game>> games;
  int seated = 0;
  int done = 0;
  Clock::time_point start;
  double cpu_start = 0;
  double store_cpu_start = 0;
  double system_cpu_start = 0;
  double client_cpu_start = 0;
  double others_cpu_start = 0;
  result.rss_before = RssKiB(server);

  // Hands every arrival due by now to its match, then waits for the next one.
  std::function<void()> arrive = [&] {
    const Clock::time_point now = Clock::now();
    for (; next_arrival < schedule.at.size() && start + schedule.at[next_arrival] <= now;
         ++next_arrival) {
      games[static_cast<size_t>(schedule.match[next_arrival])]->Arrive(start +
                                                                       schedule.at[next_arrival]);
    }
    if (next_arrival == schedule.at.size()) return;
    arrivals.expires_at(start + schedule.at[next_arrival]);
    arrivals.async_wait([&](error_code ec) {
      if (!ec) arrive();
    });
  };
  const auto on_seated = [&] {
    if (++seated < matches) return;
    if (offer.open()) {
      std::vector<int> rounds(static_cast<size_t>(matches), 0);
      for (const int match : schedule.match) ++rounds[static_cast<size_t>(match)];
      for (size_t i = 0; i < games.size(); ++i) games[i]->SetRounds(rounds[i]);
    }
    start = Clock::now();
    cpu_start = CpuSeconds(server);
    store_cpu_start = StoreCpuSeconds(server);
    system_cpu_start = SystemCpuSeconds(server);
    client_cpu_start = CpuSeconds(getpid());
    if (settings.others_cpu) others_cpu_start = settings.others_cpu();
    for (auto& game : games) game->Play();
    if (offer.open()) arrive();
  };
  const auto on_done = [&] {
    if (++done < matches) return;
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    result.cpu_seconds = CpuSeconds(server) - cpu_start;
    result.store_cpu_seconds = StoreCpuSeconds(server) - store_cpu_start;
    result.system_cpu_seconds = SystemCpuSeconds(server) - system_cpu_start;
    result.client_cpu_seconds = CpuSeconds(getpid()) - client_cpu_start;
    if (settings.others_cpu) result.others_cpu_seconds = settings.others_cpu() - others_cpu_start;
    result.rss_after = RssKiB(server);
    watchdog.cancel();
    arrivals.cancel();
  };
  for (int i = 0; i < matches; ++i) {
    games.push_back(
        std::make_unique<Game>(ioc, settings, stats, run, i, offer.open(), on_seated, on_done));
  }
  for (auto& game : games) game->SetUp();

  std::size_t last_received = 0;
  int quiet_seconds = 0;
  std::function<void()> watch = [&] {
    watchdog.expires_after(std::chrono::seconds(1));
    watchdog.async_wait([&](error_code ec) {
      if (ec || done == matches) return;
      // Quiet while every match waits for its next arrival is no stall.
      const bool all_idle =
          std::all_of(games.begin(), games.end(), [](const auto& game) { return game->idle(); });
      quiet_seconds = stats.received == last_received && !all_idle ? quiet_seconds + 1 : 0;
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
    ws_.Open(endpoint, "/ws", kind_, [self = shared_from_this()](error_code ec, std::string_view) {
      if (ec) return self->answered_(false);
      v1::ClientMessage hello;
      hello.set_command_id("hello");
      hello.mutable_hello()->set_client_name("match_bench");
      self->frame_ = proto::EncodeClientMessage(hello, self->kind_);
      self->ws_.Write(self->frame_, [self](error_code wec) {
        if (wec) return self->answered_(false);
        self->ws_.Read([self](error_code rec, std::string_view frame, FrameKind kind) {
          if (rec) return self->answered_(false);
          auto reply = proto::DecodeServerMessage(frame, kind);
          self->answered_(reply.has_value() && reply->has_hello());
        });
      });
    });
  }

  void Close() {
    if (!ws_.is_open()) return;
    ws_.Close([self = shared_from_this()](error_code) {});
  }

 private:
  WsConnection ws_;
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

// ---- the report --------------------------------------------------------------------------------

// One run as the report shows it: how it offered its rounds and what it measured. Computes the
// percentiles once (Percentile reorders the samples).
struct Row {
  std::string mode;  // "closed" or "open"
  int matches = 0;
  int rounds = 0;                 // R: per match (closed loop), on average per match (open loop)
  std::optional<double> load;     // open loop at a percentage of the closed loop's rounds/s
  std::optional<double> offered;  // open loop: rounds/s offered
  double rounds_per_s = 0;
  double commands_per_s = 0;
  double commands_per_round = 0;
  double ack_p50 = 0, ack_p99 = 0, ack_due_p50 = 0, ack_due_p99 = 0;
  double round_p50 = 0, round_p95 = 0, round_p99 = 0, round_sched_p50 = 0, round_sched_p99 = 0;
  double cpu_us_per_command = 0;
  double cpu_us_per_round = 0;
  double store_cpu_us_per_command = 0;  // of cpu_us_per_command, the store's threads'
  double system_cpu_us_per_command = 0;  // of cpu_us_per_command, the kernel's (system time)
  RunResult run;
};

Row MakeRow(std::string mode, int matches, int rounds, RunResult run) {
  Row row;
  row.mode = std::move(mode);
  row.matches = matches;
  row.rounds = rounds;
  RunStats& stats = run.stats;
  const double seconds = run.seconds > 0 ? run.seconds : 1e-9;
  const auto per = [](double total, std::size_t count) {
    return count > 0 ? total / static_cast<double>(count) : 0.0;
  };
  row.rounds_per_s = static_cast<double>(stats.rounds) / seconds;
  row.commands_per_s = static_cast<double>(stats.commands) / seconds;
  row.commands_per_round = per(static_cast<double>(stats.commands), stats.rounds);
  row.ack_p50 = Percentile(stats.ack_ms, 0.50);
  row.ack_p99 = Percentile(stats.ack_ms, 0.99);
  row.ack_due_p50 = Percentile(stats.ack_sched_ms, 0.50);
  row.ack_due_p99 = Percentile(stats.ack_sched_ms, 0.99);
  row.round_p50 = Percentile(stats.round_ms, 0.50);
  row.round_p95 = Percentile(stats.round_ms, 0.95);
  row.round_p99 = Percentile(stats.round_ms, 0.99);
  row.round_sched_p50 = Percentile(stats.round_sched_ms, 0.50);
  row.round_sched_p99 = Percentile(stats.round_sched_ms, 0.99);
  row.cpu_us_per_command = per(run.cpu_seconds * 1e6, stats.commands);
  row.cpu_us_per_round = per(run.cpu_seconds * 1e6, stats.rounds);
  row.store_cpu_us_per_command = per(run.store_cpu_seconds * 1e6, stats.commands);
  row.system_cpu_us_per_command = per(run.system_cpu_seconds * 1e6, stats.commands);
  row.run = std::move(run);
  return row;
}

std::string Fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

void PrintHeader() {
  std::printf(
      "%-6s %7s %5s %8s %8s %9s %7s %7s %7s %7s %7s %8s %8s %8s %8s %8s %10s %10s %6s "
      "%6s %6s %6s %4s\n",
      "mode", "matches", "load", "offered", "rounds/s", "cmds/s", "cmd/rnd", "ack p50", "ack p99",
      "ack p50", "ack p99", "rnd p50", "rnd p95", "rnd p99", "rnd p50", "rnd p99", "RSS bef",
      "RSS aft", "CPU s", "us/cmd", "us/rnd", "clnt s", "viol");
  std::printf(
      "%-6s %7s %5s %8s %8s %9s %7s %7s %7s %7s %7s %8s %8s %8s %8s %8s %10s %10s %6s "
      "%6s %6s %6s %4s\n",
      "", "", "%", "rounds/s", "", "", "", "sent ms", "sent ms", "due ms", "due ms", "seal ms",
      "seal ms", "seal ms", "sched ms", "sched ms", "KiB", "KiB", "server", "server", "server",
      "CPU", "");
}

void PrintRow(const Row& row) {
  const RunResult& run = row.run;
  const RunStats& stats = run.stats;
  std::printf(
      "%-6s %7d %5s %8s %8.1f %9.0f %7.2f %7.2f %7.2f %7.2f %7.2f %8.2f %8.2f %8.2f %8.2f "
      "%8.2f %10ld %10ld %6.2f %6.0f %6.0f %6.2f %4zu\n",
      row.mode.c_str(), row.matches, row.load ? Fixed(*row.load, 0).c_str() : "-",
      row.offered ? Fixed(*row.offered, 1).c_str() : "-", row.rounds_per_s, row.commands_per_s,
      row.commands_per_round, row.ack_p50, row.ack_p99, row.ack_due_p50, row.ack_due_p99,
      row.round_p50, row.round_p95, row.round_p99, row.round_sched_p50, row.round_sched_p99,
      run.rss_before, run.rss_after, run.cpu_seconds, row.cpu_us_per_command, row.cpu_us_per_round,
      run.client_cpu_seconds, stats.violations());
  std::printf(
      "       %zu rounds (%zu went on as a Melee, %zu close combats set up again, %zu "
      "units re-entered), %zu commands, %zu choices, %zu stale (resent), %zu errors, "
      "%zu leaks, %zu disagreements in %.2f s%s\n",
      stats.rounds, stats.melees, stats.setups, stats.reentered, stats.commands, stats.choices,
      stats.stale, stats.errors, stats.leaks, stats.disagreements, run.seconds,
      run.stalled ? " (STALLED)" : "");
  std::printf(
      "       server CPU a command: %.0f us, %.0f us of it in the store's threads, %.0f us "
      "in the others; %.0f us of it in the kernel (system time), %.0f us in user space\n",
      row.cpu_us_per_command, row.store_cpu_us_per_command,
      row.cpu_us_per_command - row.store_cpu_us_per_command, row.system_cpu_us_per_command,
      row.cpu_us_per_command - row.system_cpu_us_per_command);
  for (const std::string& note : stats.notes) std::printf("       ! %s\n", note.c_str());
}

// The report as CSV (RFC 4180, no field needs quoting): a header row, then a row per run as it
// ends and a row per idle-connection measurement; docs/benchmarks.md describes every column.
class CsvReport {
 public:
  static constexpr std::array<const char*, 50> kColumns = {
      "mode",
      "frames",
      "server_threads",
      "seed",
      "matches",
      "rounds_per_match",
      "load_pct",
      "offered_rounds_per_s",
      "rounds_per_s",
      "commands_per_s",
      "commands_per_round",
      "ack_p50_ms",
      "ack_p99_ms",
      "ack_due_p50_ms",
      "ack_due_p99_ms",
      "round_p50_ms",
      "round_p95_ms",
      "round_p99_ms",
      "round_sched_p50_ms",
      "round_sched_p99_ms",
      "rss_before_kib",
      "rss_after_kib",
      "server_cpu_s",
      "server_cpu_us_per_command",
      "server_cpu_us_per_round",
      "client_cpu_s",
      "seconds",
      "rounds",
      "melees",
      "setups",
      "reentered",
      "commands",
      "choices",
      "stale",
      "errors",
      "leaks",
      "disagreements",
      "violations",
      "stalled",
      "idle_connections",
      "idle_answered",
      "idle_kib_per_connection",
      "server_log_problems",
      "deployment",
      "others_cpu_s",
      "server_store_cpu_s",
      "server_cpu_us_per_command_outside_store",
      "melee_withdrawal",
      "server_system_cpu_s",
      "server_system_cpu_us_per_command"};

  // Opens `path` (replacing it) and writes the header; check ok().
  CsvReport(const std::string& path, std::string frames, int server_threads, uint64_t seed,
            std::string deployment, std::string melee_withdrawal)
      : out_(path, std::ios::trunc),
        frames_(std::move(frames)),
        threads_(std::to_string(server_threads)),
        seed_(std::to_string(seed)),
        deployment_(std::move(deployment)),
        melee_withdrawal_(std::move(melee_withdrawal)) {
    std::vector<std::string> header(kColumns.begin(), kColumns.end());
    Write(header);
  }

  bool ok() const { return static_cast<bool>(out_); }

  // `log_problems`: the server's error and warning lines during the run.
  void AddRun(const Row& row, std::size_t log_problems) {
    const RunResult& run = row.run;
    const RunStats& stats = run.stats;
    const auto count = [](std::size_t n) { return std::to_string(n); };
    Write({row.mode,
           frames_,
           threads_,
           row.offered ? seed_ : "",
           std::to_string(row.matches),
           std::to_string(row.rounds),
           row.load ? Fixed(*row.load, 1) : "",
           row.offered ? Fixed(*row.offered, 2) : "",
           Fixed(row.rounds_per_s, 2),
           Fixed(row.commands_per_s, 2),
           Fixed(row.commands_per_round, 3),
           Fixed(row.ack_p50, 3),
           Fixed(row.ack_p99, 3),
           Fixed(row.ack_due_p50, 3),
           Fixed(row.ack_due_p99, 3),
           Fixed(row.round_p50, 3),
           Fixed(row.round_p95, 3),
           Fixed(row.round_p99, 3),
           Fixed(row.round_sched_p50, 3),
           Fixed(row.round_sched_p99, 3),
           std::to_string(run.rss_before),
           std::to_string(run.rss_after),
           Fixed(run.cpu_seconds, 2),
           Fixed(row.cpu_us_per_command, 1),
           Fixed(row.cpu_us_per_round, 1),
           Fixed(run.client_cpu_seconds, 2),
           Fixed(run.seconds, 3),
           count(stats.rounds),
           count(stats.melees),
           count(stats.setups),
           count(stats.reentered),
           count(stats.commands),
           count(stats.choices),
           count(stats.stale),
           count(stats.errors),
           count(stats.leaks),
           count(stats.disagreements),
           count(stats.violations()),
           run.stalled ? "1" : "0",
           "",
           "",
           "",
           count(log_problems),
           deployment_,
           deployment_ == "sqlite" ? "" : Fixed(run.others_cpu_seconds, 2),
           Fixed(run.store_cpu_seconds, 2),
           Fixed(row.cpu_us_per_command - row.store_cpu_us_per_command, 1),
           melee_withdrawal_,
           Fixed(run.system_cpu_seconds, 2),
           Fixed(row.system_cpu_us_per_command, 1)});
  }

  // `mode` is "idle-after-runs" or "idle-fresh".
  void AddIdle(const std::string& mode, int connections, int answered, long rss_before,
               long rss_after) {
    std::vector<std::string> fields(kColumns.size());
    fields[0] = mode;
    fields[1] = frames_;
    fields[2] = threads_;
    fields[Column("deployment")] = deployment_;
    fields[Column("melee_withdrawal")] = melee_withdrawal_;
    fields[Column("rss_before_kib")] = std::to_string(rss_before);
    fields[Column("rss_after_kib")] = std::to_string(rss_after);
    fields[Column("idle_connections")] = std::to_string(connections);
    fields[Column("idle_answered")] = std::to_string(answered);
    fields[Column("idle_kib_per_connection")] = Fixed(
        static_cast<double>(rss_after - rss_before) / static_cast<double>(std::max(answered, 1)),
        2);
    Write(fields);
  }

 private:
  static std::size_t Column(std::string_view name) {
    return static_cast<std::size_t>(std::find(kColumns.begin(), kColumns.end(), name) -
                                    kColumns.begin());
  }

  void Write(const std::vector<std::string>& fields) {
    if (fields.size() != kColumns.size()) {  // a bug in this file
      std::cerr << "match_bench: a CSV row of " << fields.size() << " fields, not "
                << kColumns.size() << "\n";
      std::abort();
    }
    for (std::size_t k = 0; k < fields.size(); ++k) out_ << (k > 0 ? "," : "") << fields[k];
    out_ << "\n";
    out_.flush();
  }

  std::ofstream out_;
  std::string frames_;
  std::string threads_;
  std::string seed_;
  std::string deployment_;
  std::string melee_withdrawal_;
};

// ---- the server ---------------------------------------------------------------------------------

// What melee-server is told so that the load itself is not refused: every client of the
// benchmark comes from 127.0.0.1 (through HAProxy too) and sends as fast as it is answered.
const std::vector<std::string> kLoadArguments = {
    "--messages-per-second", "1000000", "--max-connections-per-address", "100000",
    "--max-connections",     "100000",  "--match-creations-per-minute", "0"};

// Starts melee-server on a free loopback port with a fresh store in `data_dir`; null (after
// printing its output) when it does not come up.
std::unique_ptr<testing::Subprocess> StartServer(const std::string& binary,
                                                 const std::filesystem::path& data_dir,
                                                 tcp::endpoint& endpoint, int threads,
                                                 std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {binary, "--port", "0", "--data-dir", data_dir.string(),
                                   "--threads", std::to_string(threads)};
  argv.insert(argv.end(), kLoadArguments.begin(), kLoadArguments.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto server = std::make_unique<testing::Subprocess>(std::move(argv));
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

// Where the runs are played (--deployment):
//  - sqlite: one melee-server on its embedded SQLite store (the default);
//  - postgres: one melee-server on a PostgreSQL 15 that match_bench starts (Debian's binaries,
//    tests/testing/postgres_server.h), node-a holding the leases;
//  - cluster: two nodes on one PostgreSQL behind HAProxy with docker/haproxy.cfg
//    (tests/cluster/cluster.h), leases of --lease-seconds; the clients connect to HAProxy.
// The server's CPU and RSS are the nodes' sums; what PostgreSQL and HAProxy spend shows in the
// machine's CPU (MachineBusySeconds).
class Deployment {
 public:
  static std::unique_ptr<Deployment> Start(const std::string& kind, const std::string& binary,
                                           const std::filesystem::path& dir, int threads,
                                           const std::vector<std::string>& extra,
                                           double lease_seconds) {
    auto deployment = std::unique_ptr<Deployment>(new Deployment);
    deployment->kind_ = kind;
    if (kind == "sqlite") {
      auto server = StartServer(binary, dir / "data", deployment->endpoint_, threads, extra);
      if (!server) return nullptr;
      deployment->servers_.push_back(std::move(server));
      return deployment;
    }
#ifdef MELEE_BENCH_CLUSTER
    if (kind == "postgres") {
      deployment->postgres_ = std::make_unique<testing::PostgresServer>();
      if (!deployment->postgres_->ok()) {
        std::cerr << "match_bench: PostgreSQL did not start: " << deployment->postgres_->error()
                  << "\n";
        return nullptr;
      }
      const std::string uri = deployment->postgres_->CreateDatabase();
      if (uri.empty()) return nullptr;
      std::vector<std::string> arguments = extra;
      arguments.insert(arguments.end(), {"--store", uri, "--node-id", "node-a"});
      auto server = StartServer(binary, dir / "data", deployment->endpoint_, threads, arguments);
      if (!server) return nullptr;
      deployment->servers_.push_back(std::move(server));
      return deployment;
    }
    std::vector<std::string> arguments = kLoadArguments;
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    deployment->cluster_ = std::make_unique<testing::Cluster>(lease_seconds, arguments);
    if (!deployment->cluster_->ok()) {
      std::cerr << "match_bench: the cluster did not start: " << deployment->cluster_->error()
                << "\n";
      return nullptr;
    }
    deployment->endpoint_ = tcp::endpoint(asio::ip::make_address("127.0.0.1"),
                                          deployment->cluster_->proxy_port());
    return deployment;
#else
    (void)lease_seconds;
    std::cerr << "match_bench: --deployment " << kind
              << " needs the test helpers: configure with -DMELEE_BUILD_TESTS=ON\n";
    return nullptr;
#endif
  }

  const std::string& kind() const { return kind_; }

  // The CPU seconds so far of PostgreSQL's processes and HAProxy's (0 for SQLite).
  double OthersCpuSeconds() {
#ifdef MELEE_BENCH_CLUSTER
    if (postgres_) return CpuSeconds(postgres_->Processes());
    if (cluster_) {
      return CpuSeconds(cluster_->postgres().Processes()) + CpuSeconds(cluster_->proxy().pid());
    }
#endif
    return 0;
  }
  const tcp::endpoint& endpoint() const { return endpoint_; }

  // The melee-server processes: one, or the cluster's two nodes.
  std::vector<testing::Subprocess*> servers() {
    std::vector<testing::Subprocess*> servers;
    for (auto& server : servers_) servers.push_back(server.get());
#ifdef MELEE_BENCH_CLUSTER
    if (cluster_) servers = {&cluster_->node(0), &cluster_->node(1)};
#endif
    return servers;
  }
  std::vector<pid_t> pids() {
    std::vector<pid_t> pids;
    for (auto* server : servers()) pids.push_back(server->pid());
    return pids;
  }

  // The error and warning lines the servers logged since the last call (`prefix` before each,
  // with the node's name in a cluster).
  std::vector<std::string> NewProblems() {
    auto servers = this->servers();
    log_seen_.resize(servers.size(), 0);
    std::vector<std::string> problems;
    for (std::size_t i = 0; i < servers.size(); ++i) {
      servers[i]->WaitForOutput("\x01", std::chrono::milliseconds(50));
      const std::string output = servers[i]->output();
      std::istringstream log(output.substr(std::min(log_seen_[i], output.size())));
      log_seen_[i] = output.size();
      for (std::string line; std::getline(log, line);) {
        if (line.find("[error]") == std::string::npos &&
            line.find("[warning]") == std::string::npos) {
          continue;
        }
        problems.push_back(servers.size() > 1 ? "node-" + std::string(1, "ab"[i]) + ": " + line
                                              : line);
      }
    }
    return problems;
  }

 private:
  Deployment() = default;

  std::string kind_;
  tcp::endpoint endpoint_;
  std::vector<std::unique_ptr<testing::Subprocess>> servers_;
  std::vector<std::size_t> log_seen_;
#ifdef MELEE_BENCH_CLUSTER
  std::unique_ptr<testing::PostgresServer> postgres_;
  std::unique_ptr<testing::Cluster> cluster_;
#endif
};

// ---- the soak ----------------------------------------------------------------------------------

// What the soak samples of the server after each run: its process, its files, and the totals.
struct SoakTotals {
  std::size_t runs = 0, matches = 0, finished = 0, rounds = 0, commands = 0, reconnects = 0;
  std::size_t errors = 0, leaks = 0, disagreements = 0;
};

// Runs the round over and over for `seconds` on one server, N new matches at a time (each plays
// its rounds, with reconnect churn, and is finished), and samples the server every
// `sample_seconds`: RSS, open files, melee.db and its WAL. Prints a line per sample and writes
// them to `csv_path` (if given). Returns false when a run failed its checks.
bool Soak(Settings settings, int matches, double seconds, double sample_seconds,
          const std::string& csv_path, pid_t server, const std::filesystem::path& data_dir,
          int& run_number) {
  std::ofstream csv;
  if (!csv_path.empty()) {
    csv.open(csv_path, std::ios::trunc);
    csv << "elapsed_s,runs,matches,finished,rounds,commands,reconnects,rss_kib,open_files,"
           "db_bytes,wal_bytes,server_cpu_s,errors,leaks,disagreements\n";
  }
  std::printf("soak: %d matches at a time, %d rounds each, churn %.2f per seat and round, %.0f s\n",
              matches, settings.rounds, settings.churn, seconds);
  std::printf("%9s %6s %8s %8s %9s %10s %10s %9s %6s %10s %10s %7s\n", "elapsed s", "runs",
              "matches", "finished", "rounds", "commands", "reconnects", "RSS KiB", "fds",
              "db bytes", "wal bytes", "errors");
  SoakTotals totals;
  const auto start = Clock::now();
  auto last_sample = start - std::chrono::hours(1);
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const auto sample = [&] {
    const long rss = RssKiB(server);
    const long fds = OpenFiles(server);
    const long long db = FileBytes(data_dir / "melee.db");
    const long long wal = FileBytes(data_dir / "melee.db-wal");
    std::printf("%9.0f %6zu %8zu %8zu %9zu %10zu %10zu %9ld %6ld %10lld %10lld %7zu\n",
                elapsed(), totals.runs, totals.matches, totals.finished, totals.rounds,
                totals.commands, totals.reconnects, rss, fds, db, wal, totals.errors);
    std::fflush(stdout);
    if (csv.is_open()) {
      csv << Fixed(elapsed(), 1) << ',' << totals.runs << ',' << totals.matches << ','
          << totals.finished << ',' << totals.rounds << ',' << totals.commands << ','
          << totals.reconnects << ',' << rss << ',' << fds << ',' << db << ',' << wal << ','
          << Fixed(CpuSeconds(server), 2) << ',' << totals.errors << ',' << totals.leaks << ','
          << totals.disagreements << '\n';
      csv.flush();
    }
    last_sample = Clock::now();
  };
  sample();
  bool ok = true;
  while (elapsed() < seconds) {
    const RunResult run = RunMatches(settings, run_number++, matches, Offer{}, {server});
    const RunStats& stats = run.stats;
    ++totals.runs;
    totals.matches += static_cast<std::size_t>(matches);
    totals.finished += stats.finished;
    totals.rounds += stats.rounds;
    totals.commands += stats.commands;
    totals.reconnects += stats.reconnects;
    totals.errors += stats.errors + (run.stalled ? 1 : 0);
    totals.leaks += stats.leaks;
    totals.disagreements += stats.disagreements;
    for (const std::string& note : stats.notes) std::printf("       %s\n", note.c_str());
    const auto expected = static_cast<std::size_t>(matches) * static_cast<std::size_t>(settings.rounds);
    if (stats.violations() > 0 || stats.errors > 0 || run.stalled || stats.rounds != expected ||
        stats.finished != static_cast<std::size_t>(matches)) {
      ok = false;
      break;
    }
    if (std::chrono::duration<double>(Clock::now() - last_sample).count() >= sample_seconds) {
      sample();
    }
  }
  sample();
  std::printf("soak: %zu runs, %zu matches created and finished, %zu rounds, %zu commands, %zu "
              "reconnects, %zu errors, %zu leaks, %zu disagreements in %.0f s\n",
              totals.runs, totals.finished, totals.rounds, totals.commands, totals.reconnects,
              totals.errors, totals.leaks, totals.disagreements, elapsed());
  return ok;
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
  std::vector<double> open_rates;
  std::vector<double> open_loads;
  uint64_t seed = 1;
  std::string csv_path;
  CLI::App app{"match_bench — the reference workload (\"the round\") on a real melee-server"};
  app.add_option("--matches", match_counts, "Match counts N to run, one after another (1,10,100)")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds,
                 "Close combats (rounds) each match plays; open loop: N x this many rounds arrive, "
                 "this many per match on average")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--open-loop-rate", open_rates,
                 "Open loop: rounds arrive as a Poisson process at these rates (rounds/s over all "
                 "N matches), one run per rate and N")
      ->delimiter(',')
      ->check(CLI::Range(0.01, 1e7));
  app.add_option("--open-loop-load", open_loads,
                 "Open loop at these percentages of the maximum throughput, which a closed-loop "
                 "run at the same N on the same server measures first (25,50,75)")
      ->delimiter(',')
      ->check(CLI::Range(1.0, 1000.0));
  bool fresh_server = false;
  app.add_flag("--fresh-server", fresh_server,
               "Start each run on a fresh server (a new data directory), so that it meets exactly "
               "its N matches; by default the runs share one server, and a later run finds the "
               "earlier runs' finished matches and log in it");
  app.add_option("--seed", seed, "Seed of the open loop's arrivals")->capture_default_str();
  app.add_option("--csv", csv_path,
                 "Also write the report to this CSV file (replaced): a header, a row per run and "
                 "per idle-connection measurement");
  app.add_option("--idle-connections", idle_connections,
                 "Connections opened after the runs to measure memory per idle connection")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--server-threads", server_threads, "melee-server's I/O threads")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_flag("--text", text, "Use JSON text frames instead of binary protobuf");
  unsigned protocol = 2;
  app.add_option("--protocol", protocol,
                 "Protocol version each connection asks for: 2 sends a view's forces only when "
                 "they changed, 1 in every view")
      ->capture_default_str()
      ->check(CLI::Range(1, 2));
  std::string melee_withdrawal = "none";
  app.add_option("--melee-withdrawal", melee_withdrawal,
                 "The matches' asl option melee_withdrawal: none (the SSR 'no voluntary "
                 "Withdrawal from Melee': no side of this 3-vs-3 has anything to announce, as the "
                 "workload and the peer's game have it) or allowed (both sides announce each CCPh)")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "allowed"}));
  app.add_option("--server-binary", server_binary, "melee-server to start")->capture_default_str();
  double soak_seconds = 0;
  double churn = 0.1;
  double sample_seconds = 10;
  std::string soak_csv;
  int unload_idle_seconds = -1;
  app.add_option("--soak-seconds", soak_seconds,
                 "Soak instead of the runs: the round over and over for this long on one server, "
                 "N (the first --matches) new matches at a time, each finished after its rounds, "
                 "with reconnect churn; samples RSS, open files, melee.db and its WAL")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--churn", churn,
                 "Soak: the chance that a seat drops its connection after a round and resumes on "
                 "a new one")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--sample-seconds", sample_seconds, "Soak: seconds between samples")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--soak-csv", soak_csv, "Soak: also write the samples to this CSV file (replaced)");
  app.add_option("--unload-idle-seconds", unload_idle_seconds,
                 "Pass --unload-idle-seconds to melee-server (its default unless given)")
      ->check(CLI::NonNegativeNumber);
  std::string deployment_kind = "sqlite";
  app.add_option("--deployment", deployment_kind,
                 "Where the rounds are played: sqlite (one melee-server on its embedded store), "
                 "postgres (one on a PostgreSQL 15 that match_bench starts), cluster (two nodes "
                 "on one PostgreSQL behind HAProxy; needs Debian's postgresql-15 and haproxy)")
      ->capture_default_str()
      ->check(CLI::IsMember({"sqlite", "postgres", "cluster"}));
  double lease_seconds = 10;
  app.add_option("--lease-seconds", lease_seconds, "cluster: the nodes' --lease-seconds")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  if (deployment_kind != "sqlite" && soak_seconds > 0) {
    std::cerr << "match_bench: the soak runs on --deployment sqlite only\n";
    return 2;
  }
  std::vector<std::string> server_extra;
  if (unload_idle_seconds >= 0) {
    server_extra = {"--unload-idle-seconds", std::to_string(unload_idle_seconds)};
  }

  const std::string frames = text ? "text" : "binary";
  std::unique_ptr<CsvReport> csv;
  if (!csv_path.empty()) {
    csv = std::make_unique<CsvReport>(csv_path, frames, server_threads, seed, deployment_kind,
                                      melee_withdrawal);
    if (!csv->ok()) {
      std::cerr << "match_bench: cannot write --csv " << csv_path << "\n";
      return 2;
    }
  }

  testing::TempDir dir;
  Settings settings;
  settings.protocol = protocol;
  settings.melee_withdrawal = melee_withdrawal;
  settings.kind = text ? FrameKind::kText : FrameKind::kBinary;
  settings.rounds = rounds;
  auto deployment = Deployment::Start(deployment_kind, server_binary, dir.path(), server_threads,
                                      server_extra, lease_seconds);
  if (!deployment) return 1;
  settings.endpoint = deployment->endpoint();
  if (deployment_kind != "sqlite") {
    settings.others_cpu = [&deployment] { return deployment->OthersCpuSeconds(); };
  }
  testing::Subprocess* server = deployment->servers().front();
  if (soak_seconds > 0) {
    settings.churn = churn;
    settings.record_results = true;
    settings.seed = seed;
    int run_number = 0;
    const bool soaked = Soak(settings, match_counts.front(), soak_seconds, sample_seconds,
                             soak_csv, server->pid(), dir.path() / "data", run_number);
    std::size_t problems = 0;
    std::istringstream log(server->output());
    for (std::string line; std::getline(log, line);) {
      if (line.find("[error]") == std::string::npos) continue;
      if (problems++ < 5) std::printf("       server: %s\n", line.c_str());
    }
    const bool stopped = StopServer(*server);
    return soaked && stopped && problems == 0 ? 0 : 1;
  }

  // Closed loop alone unless only open-loop rates were asked for; before the loads, as they are
  // percentages of its rounds/s.
  const bool closed_loop = open_rates.empty() || !open_loads.empty();
  const std::string where =
      deployment_kind == "sqlite"
          ? "melee-server (" + std::to_string(server_threads) +
                " I/O threads, SQLite synchronous=FULL)"
      : deployment_kind == "postgres"
          ? "melee-server (" + std::to_string(server_threads) +
                " I/O threads, PostgreSQL 15 on a Unix socket)"
          : "two melee-server nodes (2 I/O threads each) on one PostgreSQL 15 behind HAProxy, "
            "leases of " +
                Fixed(lease_seconds, 1) + " s";
  std::printf(
      "match_bench: %s, the round once forces "
      "persist: asl 3-vs-3 Melee in B1 set up once, sealed declarations, units re-enter when a "
      "side is gone, melee_withdrawal %s, %s frames, %d rounds per match, %s, 1 client thread%s\n",
      where.c_str(), melee_withdrawal.c_str(), text ? "JSON text" : "binary protobuf", rounds,
      closed_loop && open_rates.empty() && open_loads.empty()
          ? "closed loop"
          : (closed_loop
                 ? "closed loop, then open loop (Poisson arrivals of rounds, seed " +
                       std::to_string(seed) + ")"
                 : "open loop (Poisson arrivals of rounds, seed " + std::to_string(seed) + ")")
                .c_str(),
      fresh_server ? ", a fresh server for each run" : "");
  PrintHeader();
  bool failed = false;
  int run_number = 0;
  deployment->NewProblems();  // what the set-up logged is not the runs'
  // Runs one N at one offer, prints and records it; returns its rounds/s.
  const auto run_one = [&](int matches, const Offer& offer, std::optional<double> load) {
    if (!deployment) return 0.0;  // a fresh server did not start (failed is set)
    if (fresh_server && run_number > 0) {
      for (auto* node : deployment->servers()) {
        if (!StopServer(*node)) failed = true;
      }
      deployment = Deployment::Start(deployment_kind, server_binary,
                                     dir.path() / ("run-" + std::to_string(run_number)),
                                     server_threads, server_extra, lease_seconds);
      if (!deployment) {
        failed = true;
        return 0.0;
      }
      settings.endpoint = deployment->endpoint();
      server = deployment->servers().front();
      deployment->NewProblems();
    }
    RunResult result = RunMatches(settings, run_number++, matches, offer, deployment->pids());

    Row row = MakeRow(offer.open() ? "open" : "closed", matches, rounds, std::move(result));
    row.load = load;
    if (offer.open()) row.offered = offer.rate;
    PrintRow(row);
    if (deployment_kind != "sqlite") {
      std::printf("       beside melee-server: %s %.2f s of CPU (%.0f us per round)\n",
                  deployment_kind == "cluster" ? "PostgreSQL and HAProxy" : "PostgreSQL",
                  row.run.others_cpu_seconds,
                  row.run.others_cpu_seconds * 1e6 /
                      static_cast<double>(std::max<std::size_t>(row.run.stats.rounds, 1)));
    }
    // What the server logged as an error or warning during the run (the first few lines).
    const std::vector<std::string> logged = deployment->NewProblems();
    const std::size_t problems = logged.size();
    for (std::size_t k = 0; k < std::min<std::size_t>(problems, 5); ++k) {
      std::printf("       server: %s\n", logged[k].c_str());
    }
    std::fflush(stdout);
    if (csv) csv->AddRun(row, problems);
    const RunStats& stats = row.run.stats;
    const auto expected = static_cast<std::size_t>(matches) * static_cast<std::size_t>(rounds);
    if (stats.violations() > 0 || stats.errors > 0 || row.run.stalled || stats.rounds != expected) {
      failed = true;
      return 0.0;
    }
    return row.rounds_per_s;
  };
  for (const int matches : match_counts) {
    double maximum = 0;
    if (closed_loop) maximum = run_one(matches, Offer{}, std::nullopt);
    for (const double load : open_loads) {
      if (maximum <= 0) {
        std::printf("       (no open loop at %.0f%% for N = %d: the closed-loop run failed)\n",
                    load, matches);
        continue;
      }
      run_one(matches, Offer{maximum * load / 100.0, seed}, load);
    }
    for (const double rate : open_rates) run_one(matches, Offer{rate, seed}, std::nullopt);
  }

  if (!deployment) return 1;
  // Idle connections: first on the server the runs used (as the workload asks), then on a fresh
  // one, since the first reuses memory its closed connections freed and so understates the cost.
  if (idle_connections > 0 && deployment_kind != "sqlite") {
    std::printf("(no idle connections measured: that is a figure of --deployment sqlite)\n");
    idle_connections = 0;
  }
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
      if (csv) {
        csv->AddIdle(result == &idle ? "idle-after-runs" : "idle-fresh", idle_connections,
                     result->answered, result->rss_before, result->rss_after);
      }
      std::printf(
          "idle connections, %s: %d of %d answered Hello; server RSS %ld -> %ld KiB: %.1f KiB "
          "per idle connection\n",
          what, result->answered, idle_connections, result->rss_before, result->rss_after,
          static_cast<double>(result->rss_after - result->rss_before) /
              static_cast<double>(std::max(result->answered, 1)));
      if (result->answered != idle_connections) failed = true;
    }
  } else {
    for (auto* node : deployment->servers()) {
      if (!StopServer(*node)) failed = true;
    }
  }
  return failed ? 1 : 0;
}
