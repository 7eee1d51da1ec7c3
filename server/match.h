#pragma once

// One match: its seats, its set-up, the ruleset state, and the log behind it. A match plays
// close combats one after another: when one is over, either side may enter units for the next
// (the next Location the ATTACKER resolves, A11.12, or the same Location in the next CCPh).
//
// Every command of a match runs on the match's strand, one at a time: decide with the engine,
// append the resulting events to the store, and only once they are durable apply them, answer
// the caller and send each subscriber the events as its seat may see them. Commands that arrive
// while an append is in flight wait in order. Nothing is sent before it is durable.
//
// Commands carry a client command_id: a retry is answered with the first answer and never
// applied twice (answers of applied commands survive a restart, rebuilt from the log).

#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "engine/core/dice.h"
#include "engine/core/result.h"
#include "engine/core/ruleset.h"
#include "melee/storage/v1/events.pb.h"
#include "melee/storage/v1/match_file.pb.h"
#include "melee/v1/envelope.pb.h"
#include "persistence/event_store.h"
#include "persistence/fair_play.h"
#include "server/answer_book.h"
#include "server/clock.h"
#include "server/executor.h"
#include "server/fifo.h"
#include "server/forces.h"
#include "server/notices.h"
#include "server/recent_events.h"
#include "server/results.h"
#include "server/ruleset_host.h"

namespace melee::server {

class Metrics;

// Who receives a match's events: a WebSocket session following one seat.
class Subscriber {
 public:
  virtual ~Subscriber() = default;
  // Queues messages for the client, in order; called on the match's strand; must not block.
  // Messages handed over together are sent together.
  virtual void Deliver(std::vector<MessagePtr> messages) = 0;
};

// Receives the answers to one command, exactly once, on the match's strand.
using Reply = std::function<void(std::vector<MessagePtr>)>;

// What a match needs from the server around it. Outlives every match.
// Whether the io_context the matches run on still exists. A store callback (on the store's own
// thread) may touch a match only while holding `mutex` and seeing `alive`: the server clears it
// first thing in its destructor, so no match is kept alive, or destroyed, on the store's thread
// after the io_context (and the strands' service) is gone.
struct Lifeline {
  std::mutex mutex;
  bool alive = true;
};

struct MatchServices {
  persistence::EventStore& store;
  const Clock& clock;
  Metrics& metrics;
  uint32_t default_choice_deadline_seconds = 300;
  // For announcements and declarations; 0: none (a match's settings may still set one).
  uint32_t default_declaration_deadline_seconds = 0;
  // The server's signing key and dice secret (docs/fair-play.md). Matches sets ephemeral ones
  // when none are given.
  std::shared_ptr<const persistence::ServerSecrets> secrets;
  // A test hook: where dice come from instead of the committed seed chain. Such dice are not
  // committed (no step, no revealed seed) and `melee verify` refuses their logs.
  std::function<std::unique_ptr<engine::BitSource>()> dice_source;
  // How many of its latest events a match keeps rendered for every viewer. A client resuming
  // from further back is served from the log (read, replayed, rendered): slower, but a long
  // match's memory stays flat.
  size_t recent_events = 48;
  // Set by the server; without one (tests of a lone Match) the io_context outlives every match.
  std::shared_ptr<Lifeline> lifeline = std::make_shared<Lifeline>();
  // Where notices go (docs/notifications.md); null: nowhere.
  std::shared_ptr<NoticeSink> notices = nullptr;
};

// The fixed facts of a match, from its first event.
struct MatchIdentity {
  std::string id;
  melee::v1::MatchSettings settings;
  std::string ruleset_version;
  std::array<persistence::Hash, 3> token_hashes{};  // side A, side B, director
  persistence::Hash spectator_key_hash{};
  persistence::Seed dice_commitment{};  // s_0 of the seed chain
  uint64_t dice_chain_length = 0;
  std::string server_public_key;  // the referee's Ed25519 key (raw)
  // Set when the match was created in a tournament of this server: the hash of its director
  // token, which opens the match as its director too (docs/tournaments.md).
  std::optional<persistence::Hash> tournament_token_hash;
};

class Match : public std::enable_shared_from_this<Match> {
 public:
  // A match whose first event (`opened`, seq 1, recorded at `recorded_unix_ms`, hashed `head`)
  // is durable. `chain`: its seed chain when the caller built it (else built on first use).
  Match(asio::any_io_executor executor, MatchServices services, const RulesetHost& host,
        MatchIdentity identity, engine::AnyState initial, int64_t recorded_unix_ms,
        const persistence::Hash& head,
        std::shared_ptr<const persistence::SeedChain> chain = nullptr);

  // Rebuilds a match from its verified log: folds every event, deciding each logged command
  // again with its logged dice and checking the same events come out (an audit of the log).
  // With `up_to_seq`, folds events 1..up_to_seq only: the match as it stood right after that
  // event, even one a command made together with later events (a replay; `events` still holds
  // the whole of that command's events, which are checked).
  static engine::Result<std::shared_ptr<Match>> Recover(
      asio::any_io_executor executor, MatchServices services,
      const std::function<const RulesetHost*(std::string_view ruleset)>& hosts,
      const std::vector<persistence::Event>& events, uint64_t up_to_seq = UINT64_MAX);

  // The stored first event of a new match.
  static melee::storage::v1::StoredEvent OpenedEvent(const MatchIdentity& identity);

  const std::string& id() const { return identity_.id; }
  const MatchIdentity& identity() const { return identity_; }
  // When the match's first event was recorded.
  int64_t opened_unix_ms() const { return opened_unix_ms_; }

  // Returns the viewer a seat token, the director token or the match's tournament's director
  // token opens, if any. Thread-safe.
  std::optional<engine::Viewer> Authenticate(std::string_view token) const;
  bool IsSpectatorKey(std::string_view key) const;

  // Runs a match command (SubmitSetup, ConfirmSetup, Announce, SealDeclaration, MakeChoice) for
  // `viewer`. Thread-safe; `reply` runs on the match strand. `reply_to`: the subscriber `reply`
  // delivers to, when it is one (the command's session); the answer to a command then joins
  // what its commit sends that subscriber, in one delivery, and `reply` gets the rest.
  void Execute(engine::Viewer viewer, melee::v1::ClientMessage message, Reply reply,
               std::weak_ptr<Subscriber> reply_to = {});

  // The views a subscriber is sent: whole (protocol 1), or without the settings and forces
  // when they are what the last view it was sent held (protocol 2: MatchView.forces_as_before).
  enum class Views { kWhole, kForcesWhenChanged };

  // Subscribes `subscriber` as `viewer`: answers with every event after `after_seq` as the seat
  // may see it, then a Joined with the seat's whole view (carrying `command_id`), then live
  // events and views as `views` says.
  void Attach(std::weak_ptr<Subscriber> subscriber, engine::Viewer viewer, uint64_t after_seq,
              std::string command_id, Reply reply, Views views = Views::kWhole);

  // Stops serving the match here because another node owns it now (its lease moved on:
  // docs/postgresql.md, "Several nodes"): every subscriber is sent an Error carrying `why`
  // and dropped, and every command or join after is answered with it. For good.
  void Disown(std::string why);

  // The connection of `subscriber` ended for `reason` ("closed by the client", "idle timeout",
  // ...): a seat's or the director's session is journalled (docs/fair-play.md). Thread-safe.
  void SessionEnded(std::weak_ptr<Subscriber> subscriber, std::string reason);

  // The store's log holding a match's session journal.
  static std::string JournalId(std::string_view match_id) {
    return "sessions:" + std::string(match_id);
  }

  // The store's log holding a match's sent reminders (docs/clocks.md).
  static std::string RemindersId(std::string_view match_id) {
    return "reminders:" + std::string(match_id);
  }

  // Takes the rules default for a step (choice, announcement, declaration) whose deadline has
  // passed. With a pace (docs/clocks.md): when a seat's step time and time bank are both spent,
  // does what the pace says (the default, or the match lost on time), logged as a clock event;
  // ends vacations that are over; and writes the reminders that are due. Thread-safe.
  void CheckDeadlines();

  // Writes the match file (docs/fair-play.md) as `viewer` may have it: everything for the
  // director; for a seat, events it may not see yet are redacted to their hashes. The file's
  // head is signed now. Thread-safe; `done` runs on the match strand.
  void Export(engine::Viewer viewer,
              std::function<void(engine::Result<melee::storage::v1::MatchFile>)> done);

  // For an inbox (POST /api/inbox): whether the match waits for `viewer` now, its view, and the
  // events after `after_seq` as it may see them (the last `max_events`). Thread-safe; `done`
  // runs on the match strand.
  void Look(engine::Viewer viewer, uint64_t after_seq, size_t max_events,
            std::function<void(engine::Result<melee::v1::InboxEntry>)> done);

  // The view `viewer` has now (an outcome preview works from it alone). Thread-safe; `done` runs
  // on the match strand.
  void CurrentView(engine::Viewer viewer, std::function<void(melee::v1::MatchView)> done);

  // The view `viewer` had right after event `at` (1..the last seq): the log replayed up to that
  // event (Recover with up_to_seq) and rendered as live views are, so it shows what the rules
  // let `viewer` see then and nothing more. Live sessions are no part of the log: every side's
  // `connections` is 0. `done` gets the match's last seq too, and an error when `at` is not one
  // of its events or the log cannot be read or replayed. Thread-safe; `done` runs on the match
  // strand.
  void ViewAt(engine::Viewer viewer, uint64_t at,
              std::function<void(uint64_t last_seq, engine::Result<melee::v1::MatchView>)> done);

  // Runs `done` on the strand with the last seq (tests, metrics).
  void Inspect(std::function<void(uint64_t seq, bool ended)> done);

  // Does what the match owes after a restart: a Melee whose close combat ended just before the
  // server stopped goes on into the next CCPh (A11.15). Thread-safe.
  void ResumeOwedWork();

  // Marks the match dormant in the store when it owes nothing on a timer now (Dormant()), so
  // that a restart lists it without loading it (Matches). Thread-safe.
  void MarkIfDormant();

  // Whether CheckDeadlines has anything to watch: a deadline, or (paced) a vacation that will
  // end. Set on the strand by each commit; the server's sweep skips the matches that owe
  // nothing. Thread-safe.
  bool OwesTimer() const { return owes_timer_.load(std::memory_order_relaxed); }

  // Calls `unload` with the match, on its strand, if nothing but its registry needs it in memory:
  // it owes nothing on a timer (no deadline, no vacation, no Melee to go on; marked dormant in
  // the store when Dormant()), no session follows it, nothing waits to be appended. Matches drops it then; it is loaded from the store again when next asked for.
  // Thread-safe.
  void CheckUnloadable(std::function<void(const std::shared_ptr<Match>&)> unload);

 private:
  struct Planned;
  struct Plan;
  struct SetupState {
    SetupParts parts;
    std::array<bool, 2> confirmed{};
  };
  struct Subscription {
    std::weak_ptr<Subscriber> subscriber;
    engine::Viewer viewer;
    Views views = Views::kWhole;
    // The settings and forces the last view it was sent held (ViewPartsBytes then).
    std::shared_ptr<const std::string> parts_sent;
  };
  // What a Location carries to its next close combat (forces that persist).
  struct LocationMemo {
    std::string facts;
    bool melee = false;
    std::optional<engine::Seat> attacker;
    uint32_t ccph = 0;  // the CCPh of its last close combat
  };
  // A11.12: the ATTACKER's order of this CCPh's Locations.
  struct LocationOrder {
    engine::Seat attacker = engine::Seat::kSideA;
    std::vector<std::string> resolved;
    std::vector<std::string> remaining;  // the next one first
  };

  // Appends a planned command's events; once durable, commits them, answers with `reply` and
  // does what the match owes next. A command that ends a close combat whose Melee goes on
  // (A11.15) is appended with the start of the next one (PlanMeleeAfter): one transaction, one
  // write to each session (`reply_to`: as in Execute).
  void Append(Plan plan, Reply reply, std::string command_id,
              std::weak_ptr<Subscriber> reply_to = {});
  // What the next close combat is planned from (MeleeGoingOn, PlanMeleeGoingOn): the committed
  // match, or the match as a plan not yet committed would leave it (PlanMeleeAfter).
  struct Carried;
  Carried Committed() const;
  // A11.15: the Location whose Melee goes on now, with the same units, once the CCPh's close
  // combats are over (none left in the ATTACKER's order): first each Melee of the last CCPh not
  // yet fought in this one, then (a new CCPh, the other side attacking) those of this CCPh; by
  // name. "" when none.
  std::string MeleeGoingOn() const;
  std::string MeleeGoingOn(const Carried& carried) const;
  bool MeleeGoesOn() const { return !MeleeGoingOn().empty(); }
  // Whether the match owes nothing on a timer: no close combat is being resolved (a set-up under
  // way has no clock), no Melee is to go on, nothing is being appended. On the strand.
  bool Dormant() const;
  // Tells the store when Dormant(), with the match's tournament id as the marker's note (a
  // tournament's listing loads its dormant matches). On the strand.
  void NoteIfDormant();
  // Whether Dormant() will hold once `plan` is committed, when that is plain before the commit:
  // a plan of no ruleset events that leaves no close combat under way (a set-up, units
  // updated, a flag, a result) and no Melee to go on, or one that ends a close combat with no
  // Melee to go on (PlanMeleeAfter found none). Its append then marks the match dormant in the
  // same transaction (AppendBatch::mark_dormant), not with a marker of its own after it. False
  // when it cannot be told: the commit then calls NoteIfDormant, as before.
  bool DormantAfter(const Plan& plan) const;
  engine::Result<Plan> PlanMeleeGoingOn() const;
  engine::Result<Plan> PlanMeleeGoingOn(const Carried& carried) const;
  // The next close combat of a Melee that goes on once `ending` is committed (its `appended`
  // events, the head's signature included, come first in the append), planned now so that both
  // go in one append; nothing when `ending` does not end a close combat under way, when no
  // Melee goes on, or when the next one cannot be planned yet (it is then planned after the
  // commit, as before). The outcome it folds to plan from is kept in `ending` (Plan::folded), so
  // that Commit takes it instead of folding it again.
  std::optional<Plan> PlanMeleeAfter(Plan& ending, size_t appended);
  // What the end of a close combat leaves (Commit, and PlanMeleeAfter ahead of it): its outcome
  // folded into `forces` at event `seq` and the Location's memo. Returns whether the forces
  // changed.
  bool FoldEnded(const CombatOutcome& outcome, uint64_t seq, Forces& forces,
                 std::map<std::string, LocationMemo, std::less<>>& locations) const;
  // A11.12: the close combat in `location` is over; when it was the next in the ATTACKER's
  // order, the order goes on to the one after it.
  static void PassOrdered(const std::string& location, std::optional<LocationOrder>& order);
  // Records `seat`'s set-up part in `plan`; `next_combat` when the last close combat is over and
  // this part opens the next one.
  static void EnterSetup(Plan& plan, engine::Seat seat, SetupPart part,
                         bool next_combat);
  void Process(engine::Viewer viewer, melee::v1::ClientMessage message, Reply reply,
               bool deadline_default, std::weak_ptr<Subscriber> reply_to = {});
  engine::Result<Plan> PlanCommand(engine::Seat seat, const melee::v1::ClientMessage& message,
                                   bool deadline_default) const;
  // RecordResult, from a player or the director.
  engine::Result<Plan> PlanResult(engine::Viewer viewer,
                                  const melee::v1::ClientMessage& message) const;
  // The Location of close combat `combat` (1, 2, ...), "" when unknown.
  std::string CombatLocation(uint32_t combat) const;
  engine::Result<Plan> PlanRuleset(engine::Seat seat, const DecodedCommand& command,
                                   const std::string& command_id, Plan plan,
                                   bool deadline_default) const;
  // `planned`, with "nothing" entered for each side it then owes an announcement that has
  // nothing it could announce (RulesetHost::CanAnnounce), as that side's logged announcement.
  engine::Result<Plan> EnterSilentAnnouncements(engine::Result<Plan> planned) const;
  // Where the match stands for notices, in `state` and `setup` (`started`: a close combat is
  // under way), with the deadline of its step as `plan` would leave it.
  Situation SituationOf(bool started, const engine::AnyState& state, const SetupState& setup,
                        const Plan* plan) const;
  // The outbox rows of the notices `plan` causes (its last event is `last_seq`), from where the
  // match stands (or where `before`, appended with it, leaves it).
  std::vector<persistence::OutboxNotice> NoticesOf(const Plan& plan, uint64_t last_seq,
                                                   int64_t recorded_unix_ms,
                                                   const Plan* before = nullptr) const;
  // Applies a durable plan (its last event hashed `head`): state, history, answers. Returns its
  // events as each viewer sees them (kept in recent_ too, serialized).
  std::vector<RenderedEvent> Commit(Plan plan, uint64_t first_seq, int64_t recorded_unix_ms,
                                    const persistence::Hash& head);
  // Whether this server holds the secret of the match's seed chain (false: the match was
  // imported from another server and is read-only here). Builds the chain on first use.
  bool CanRoll();
  // Appends the server's signature of the head the batch's events lead to (the plan's are the
  // last of them), hashing them into `batch.hashes` on the way, which the store then uses.
  void SignHead(Plan& plan, persistence::AppendBatch& batch) const;
  // What the commits of one store answer send: each subscriber's messages, gathered so that a
  // subscriber gets them in one Deliver (one write), however many commits the answer held.
  struct Delivery {
    std::vector<std::pair<std::shared_ptr<Subscriber>, std::vector<MessagePtr>>> to;
    // The messages for `subscriber`, if it is one of `to`.
    std::vector<MessagePtr>* For(const std::shared_ptr<Subscriber>& subscriber);
  };
  // Adds to `delivery`, for every subscriber, the events just committed as its viewer sees them,
  // then its view (rendered now, from the state these events leave).
  void Render(const std::vector<RenderedEvent>& events, Delivery& delivery);
  // Hands each subscriber of `delivery` its messages.
  static void Send(Delivery delivery);
  // Returns the events after `after_seq` as `viewer` sees them (from recent_ or the log).
  engine::Result<std::vector<MessagePtr>> EventsAfter(uint64_t after_seq, engine::Viewer viewer);
  // The view of `viewer`; without the settings and forces (ViewParts), marked forces_as_before,
  // unless `with_parts`.
  MessagePtr RenderView(engine::Viewer viewer, bool with_parts = true) const;
  // The settings and the forces as `viewer` sees them, serialized as fields of a MatchView: kept
  // (view_parts_) until the forces change, as they change at most a few times a close combat.
  // The bytes are a new object whenever they are rendered again: a subscriber that holds the
  // same object was sent these settings and forces.
  const std::shared_ptr<const std::string>& ViewPartsBytes(engine::Viewer viewer) const;
  const std::string& ViewParts(engine::Viewer viewer) const { return *ViewPartsBytes(viewer); }
  // Both sides' set-up parts as `viewer` sees them (MaskSetup), serialized as fields of a
  // MatchView: kept (setup_views_) while the parts are the same, as a part changes at most once
  // a close combat and every view shows both.
  const std::string& SetupView(engine::Viewer viewer) const;
  // A ruleset event the host shows to every viewer as it is logged (LoggedEventField `field`),
  // as the bytes of its message: what RenderEvent would build, without building it.
  MessagePtr RenderLogged(const Planned& planned, int field, uint64_t seq,
                          int64_t recorded_unix_ms) const;
  // `planned`, an event of the match's own (not a ruleset's), as `viewer` sees it.
  melee::v1::MatchEvent RenderEvent(Planned& planned, engine::Viewer viewer) const;
  // A ruleset event rendered when it was planned (ApplyAndShow), as event `seq` of the log: the
  // kept bytes of each viewer's rendering, then the fields the log entry and the commit add and
  // the seals' openings (OpenSeals), framed as each viewer's message; viewers who see alike
  // share one.
  RenderedEvent RenderShown(const Planned& planned, uint64_t seq, int64_t recorded_unix_ms);
  // RenderEvent for the four viewers (indexed by engine::Viewer).
  std::array<melee::v1::MatchEvent, 4> RenderEventForEach(Planned& planned) const;
  // Applies the ruleset event `event` (logged in `planned.stored` already) to `state`, and
  // renders it into `planned.shown` while the state after it is at hand (RulesetHost::
  // RenderAround, or RenderEvent), unless the host shows it as logged: a plan keeps no copy of
  // the states.
  static void ApplyAndShow(const RulesetHost& host, engine::AnyState& state, engine::AnyEvent event,
                           Planned& planned);
  // The fields of a ruleset event's message that come from its log entry, not from the ruleset.
  // `kind`: what the ruleset's rendering of the event is (its generic kind).
  static void AddLoggedFields(const melee::storage::v1::RulesetEvent& logged,
                              melee::v1::MatchEvent::KindCase kind, melee::v1::MatchEvent& out);
  // Whether every viewer sees `planned` alike: the rules hide nothing in it, so it is rendered
  // (and serialized, and sent) once for all four.
  bool SameForEveryViewer(const Planned& planned) const;
  // The openings of sealed commitments (seal scheme 2) that event `seq`'s renderings get: at most
  // two chunks (each a MatchEvent's bytes holding one opening), and which go to which viewer.
  struct Openings {
    std::array<std::string, 2> chunks;
    std::array<uint8_t, 4> to{};  // by engine::Viewer: bit k set when chunks[k] goes to it
  };
  // A new seal's opening for the viewers who see its declaration already, and at a reveal the
  // openings of the declarations it shows (one chunk a side). Keeps the ones not public yet in
  // unopened_.
  Openings OpenSeals(const Planned& planned, uint64_t seq);
  // Whether a close combat is being set up or played (the ATTACKER may not order Locations).
  bool CombatUnderWay() const;
  // Whether the match waits for `seat` now: its set-up, or what the rules wait for.
  bool Owes(engine::Seat seat) const;
  // How long a step of `kind` may take (0: no deadline), from the pace, the settings or the
  // server.
  uint32_t DeadlineSeconds(Awaiting::Kind kind) const;

  // ---- correspondence clocks (docs/clocks.md) ----
  bool Paced() const { return identity_.settings.has_pace(); }
  // Whether the rules wait for `seat` in a step that has a deadline.
  bool OwesTimedStep(engine::Seat seat) const;
  // When `seat`'s own time for the step runs out (the bank runs after it), and when its time
  // runs out for good (the bank spent). Both move by the time the seat was on vacation during
  // the step; while it is on vacation they are at least its return plus what was left.
  int64_t StepDeadline(engine::Seat seat) const;
  int64_t FinalDeadline(engine::Seat seat) const;
  // A bank draw for a command `seat` sends now, if it answers after its step's time; refused
  // when its time has run out for good.
  engine::Result<std::optional<melee::storage::v1::StoredEvent>> BankDraw(engine::Seat seat,
                                                                        int64_t now) const;
  // Checks a logged clock event against the match before it (replay re-derives each one).
  engine::Result<void> CheckClockEvent(const melee::storage::v1::ClockEvent& event,
                                       int64_t recorded_unix_ms) const;
  // Folds a durable clock event (event `seq`) into the clocks; returns which seats' older
  // commands it makes stale (material_'s bits).
  uint8_t ApplyClock(const melee::storage::v1::ClockEvent& event, uint64_t seq);
  // The sweep of a paced match (CheckDeadlines), on the strand.
  void SweepClocks();
  // `seat`'s time ran out at `now`: logs it and takes the default or ends the match.
  void Expire(engine::Seat seat, const Awaiting& awaiting, int64_t now);
  // Plans `seat`'s TakeVacation.
  engine::Result<Plan> PlanVacation(engine::Seat seat, const melee::v1::TakeVacation& vacation,
                                    const std::string& command_id) const;
  // Writes the reminders due at `now` for the seats `awaiting` waits for, once each.
  void SendReminders(const Awaiting& awaiting, int64_t now);
  // Reads the reminder log once; false when it cannot be read (no reminder is sent then).
  bool ReadReminders();
  // A11.12: refuses a set-up part that does not fit the ATTACKER's order of Locations.
  engine::Result<void> CheckOrder(const SetupFacts& facts) const;
  MessagePtr AckOf(const std::string& command_id, const AnswerBook::Answer& answer) const;
  // Journals a session event (on the strand); returns its seq in the journal, 0 if the journal
  // cannot be read. Appends go one batch at a time, in order. A join waits (`now` false) for the
  // match's next append, to commit in its transaction (a seat joins to send a command: one fsync
  // for both), or for the next entry that does not wait (its session's end).
  uint64_t Journal(melee::storage::v1::SessionEvent event, bool now);
  // The journal's entries not yet sent to the store, as a batch with its callback; none while
  // one is in the store's queue, or when none waits.
  std::optional<persistence::PendingAppend> TakeJournal();
  void FlushJournal();
  // The match file's session records, from the journal.
  std::vector<melee::storage::v1::SessionRecord> SessionRecords();
  void RunQueued();

  asio::strand<asio::any_io_executor> strand_;
  MatchServices services_;
  const RulesetHost& host_;
  const MatchIdentity identity_;
  const int64_t opened_unix_ms_;

  const engine::AnyState initial_state_;  // the ruleset state every close combat starts from

  // Everything below is touched only on strand_.
  engine::AnyState state_;
  SetupState setup_;
  bool started_ = false;  // the engine's close combat has begun
  uint64_t seq_ = 0;
  // The deadline of the step the rules wait for (0: none), and that step's name.
  int64_t deadline_unix_ms_ = 0;
  std::string deadline_step_;
  std::optional<LocationOrder> order_;
  // Forces that persist (docs/forces.md): both sides' units, what each Location carries to its
  // next close combat (a Melee), the CCPh and its ATTACKER.
  Forces forces_;
  // ViewParts, per viewer; cleared whenever forces_ change (Commit).
  struct KeptViewParts {
    std::shared_ptr<const std::string> bytes;
    bool whole = false;  // no unit is hidden from the viewer: shared by every such viewer
  };
  mutable std::array<KeptViewParts, 4> view_parts_;
  // The size of each viewer's last ViewParts, not cleared with them: the next are written into a
  // string reserved that large (the forces seldom shrink), not grown by doublings as they are
  // written, each copying what was written so far and leaving up to twice the size allocated.
  mutable std::array<std::size_t, 4> view_parts_sizes_{};
  // Each unit's bytes as ViewParts last wrote them, kept by the unit's version: when the forces
  // change, only the units that changed are serialized again.
  mutable UnitBytes unit_bytes_;
  // SetupView, per viewer, with the parts it was rendered from (a part is immutable and shared,
  // and held here, so the same pointer is the same part).
  struct KeptSetupView {
    SetupParts parts;
    std::string bytes;
  };
  mutable std::array<std::optional<KeptSetupView>, 4> setup_views_;
  // The close combats begun so far, by their Location ("" when the set-up named none), and the
  // results recorded for them and for the match.
  std::vector<std::string> combats_;
  Results results_;
  std::map<std::string, LocationMemo, std::less<>> locations_;
  uint32_t ccph_ = 1;
  std::optional<engine::Seat> ccph_attacker_;
  // Fair play: the seed chain (built on first use), whether it is not ours, the steps that
  // rolled dice so far, each side's latest client entropy, and the hash of the last event.
  std::shared_ptr<const persistence::SeedChain> chain_;
  bool foreign_dice_ = false;
  uint64_t dice_steps_ = 0;
  std::array<std::string, 2> entropy_;
  persistence::Hash head_{};
  // Each side's sealed declaration whose commitment not every viewer can open yet.
  std::array<std::optional<melee::v1::SealOpening>, 2> unopened_;
  // The session journal: the seats' live connections (by their join's seq in the journal), the
  // journal's next seq (0: not read yet), its entries not yet committed (the first
  // journal_sending_ of them in the store's queue; the last ones have seqs up to
  // journal_next_ - 1), and whether one of them must not wait for the match's next append.
  struct LiveSession {
    std::weak_ptr<Subscriber> subscriber;
    engine::Viewer viewer;
    uint64_t joined = 0;
  };
  std::vector<LiveSession> live_sessions_;
  uint64_t journal_next_ = 0;
  std::vector<std::string> journal_pending_;
  size_t journal_sending_ = 0;
  bool journal_due_ = false;
  // The last events as each viewer sees them, up to event seq_.
  RecentEvents recent_;
  // material_[seq - 1] bit s: event seq makes older commands of seat s stale.
  std::vector<uint8_t> material_;
  AnswerBook answers_;  // every applied command's answer, for its retries
  std::vector<Subscription> subscribers_;
  std::string disowned_;  // why another node serves the match now (Disown); empty: served here
  bool appending_ = false;
  std::atomic<bool> owes_timer_{true};  // OwesTimer()
  Fifo<std::function<void()>> queued_;
  // Correspondence clocks (docs/clocks.md): each seat's bank and vacation, the event that set
  // the current step's deadline, and the result when a seat lost on time.
  struct SeatClock {
    int64_t bank_left_ms = 0;
    uint32_t vacation_days_left = 0;
    int64_t vacation_from_unix_ms = 0;   // 0: not on vacation
    int64_t vacation_until_unix_ms = 0;
    int64_t away_ms = 0;  // vacation time within the current step, over
  };
  std::array<SeatClock, 2> clocks_;
  uint64_t deadline_seq_ = 0;
  int64_t step_started_unix_ms_ = 0;  // when the step with the current deadline began
  struct Decided {
    engine::Seat winner = engine::Seat::kSideA;
    engine::Seat loser = engine::Seat::kSideB;
    uint64_t seq = 0;
  };
  std::optional<Decided> decided_;
  // Reminders sent (deadline_seq, seat index, seconds before), from the reminder log.
  std::set<std::tuple<uint64_t, size_t, uint32_t>> reminders_sent_;
  bool reminders_read_ = false;
  uint64_t reminders_next_ = 0;
  bool reminder_appending_ = false;
};

}  // namespace melee::server
