#include "server/match.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>
#include <openssl/crypto.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string_view>
#include <utility>

#include "engine/core/dice.h"
#include "persistence/digest.h"
#include "proto/codec/asl.h"
#include "proto/codec/checks.h"
#include "proto/codec/errors.h"
#include "proto/codec/frame.h"
#include "server/forces.h"
#include "server/match_file.h"
#include "server/metrics.h"
#include "server/pace.h"
#include "server/version.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;
namespace storage = melee::storage::v1;
using engine::AnyEvent;
using engine::AnyState;
using engine::Reject;
using engine::Result;
using engine::Seat;
using engine::Viewer;

constexpr size_t kMaxEntropyBytes = 64;
constexpr size_t kMaxFlagCommentBytes = 1000;
constexpr size_t kMaxOrderedLocations = 32;
constexpr size_t kMaxLocationNameBytes = 64;
constexpr size_t kMaxResultNoteBytes = 200;

size_t SeatIndex(Seat seat) { return seat == Seat::kSideA ? 0 : 1; }
size_t ViewerIndex(Viewer viewer) { return static_cast<size_t>(viewer); }

// The tag and length that open a length-delimited field `field` of `size` bytes (at most 15
// bytes: a std::string holds them without allocating).
std::string FieldHeader(int field, size_t size) {
  using google::protobuf::internal::WireFormatLite;
  using google::protobuf::io::CodedOutputStream;
  const uint32_t tag = WireFormatLite::MakeTag(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  std::string out(CodedOutputStream::VarintSize32(tag) +
                      CodedOutputStream::VarintSize32(static_cast<uint32_t>(size)),
                  '\0');
  auto* at = reinterpret_cast<uint8_t*>(out.data());
  at = CodedOutputStream::WriteVarint32ToArray(tag, at);
  CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(size), at);
  return out;
}

// Field `field` of a ServerMessage whose bytes are `head` serialized, then `tails` (parts of the
// same message serialized apart, which protobuf merges), built in one string of the size it
// ends at: the same bytes as serializing `head`, appending the tails and framing the whole.
std::string FramedField(int field, const google::protobuf::MessageLite& head,
                        std::initializer_list<std::string_view> tails) {
  size_t size = head.ByteSizeLong();
  for (std::string_view tail : tails) size += tail.size();
  std::string out = FieldHeader(field, size);
  const size_t header = out.size();
  out.resize(header + size);
  auto* at = reinterpret_cast<uint8_t*>(out.data() + header);
  at = head.SerializeWithCachedSizesToArray(at);
  for (std::string_view tail : tails) {
    std::memcpy(at, tail.data(), tail.size());
    at += tail.size();
  }
  return out;
}

// Field `field` of a ServerMessage whose bytes are `parts` one after the other (parts of the same
// message serialized apart, which protobuf merges), built in one string of the size it ends at.
std::string FramedBytes(int field, std::initializer_list<std::string_view> parts) {
  size_t size = 0;
  for (std::string_view part : parts) size += part.size();
  std::string out = FieldHeader(field, size);
  out.reserve(out.size() + size);
  for (std::string_view part : parts) out.append(part);
  return out;
}

// What ViewPartsBytes reserves beyond the size of the viewer's last ViewParts: a few units more.
constexpr std::size_t kViewPartsSlack = 1024;

constexpr std::array<Viewer, 4> kViewers = {Viewer::kSideA, Viewer::kSideB, Viewer::kDirector,
                                            Viewer::kSpectator};

v1::Seat WireSeat(Viewer viewer) {
  switch (viewer) {
    case Viewer::kSideA:
      return v1::SEAT_SIDE_A;
    case Viewer::kSideB:
      return v1::SEAT_SIDE_B;
    case Viewer::kDirector:
      return v1::SEAT_DIRECTOR;
    case Viewer::kSpectator:
      return v1::SEAT_SPECTATOR;
  }
  return v1::SEAT_UNSPECIFIED;
}

storage::Seat StoredSeat(Seat seat) {
  return seat == Seat::kSideA ? storage::SEAT_SIDE_A : storage::SEAT_SIDE_B;
}

storage::Seat StoredViewerSeat(Viewer viewer) {
  switch (viewer) {
    case Viewer::kSideA:
      return storage::SEAT_SIDE_A;
    case Viewer::kSideB:
      return storage::SEAT_SIDE_B;
    case Viewer::kDirector:
      return storage::SEAT_DIRECTOR;
    case Viewer::kSpectator:
      break;
  }
  return storage::SEAT_UNSPECIFIED;
}

std::optional<Seat> SeatOfStored(storage::Seat seat) {
  if (seat == storage::SEAT_SIDE_A) return Seat::kSideA;
  if (seat == storage::SEAT_SIDE_B) return Seat::kSideB;
  return std::nullopt;
}

// Extends `batch.hashes` to every payload of `batch`, chained from `batch.chained_from`.
void ChainAll(persistence::AppendBatch& batch) {
  for (size_t k = batch.hashes.size(); k < batch.payloads.size(); ++k) {
    batch.hashes.push_back(persistence::ChainHash(k == 0 ? batch.chained_from : batch.hashes[k - 1],
                                                  batch.payloads[k]));
  }
}

std::string HashBytes(const persistence::Hash& hash) {
  return std::string(reinterpret_cast<const char*>(hash.data()), hash.size());
}

// Dice that replay logged values. Unlike ScriptedDice it never aborts on a short script (the log
// is untrusted): it rolls 1s and reports that it ran out, and the replay is refused.
class ReplayDice final : public engine::Dice {
 public:
  explicit ReplayDice(std::vector<int> values) : values_(std::move(values)) {}
  bool exhausted() const { return exhausted_; }
  bool fully_used() const { return next_ == values_.size(); }

 protected:
  int NextD6() override {
    if (next_ >= values_.size()) {
      exhausted_ = true;
      return 1;
    }
    const int value = values_[next_++];
    if (value < 1 || value > 6) {
      exhausted_ = true;
      return 1;
    }
    return value;
  }

 private:
  std::vector<int> values_;
  size_t next_ = 0;
  bool exhausted_ = false;
};

MessagePtr ErrorMessage(v1::ErrorCode code, std::string message, const std::string& command_id,
                        std::string rule_ref = {}) {
  v1::ServerMessage reply;
  reply.set_command_id(command_id);
  *reply.mutable_error() = proto::MakeError(code, std::move(message), command_id);
  reply.mutable_error()->set_rule_ref(std::move(rule_ref));
  return MakeMessage(std::move(reply));
}

MessagePtr RuleErrorMessage(const engine::RuleError& error, const std::string& command_id) {
  return ErrorMessage(v1::ERROR_CODE_RULE_VIOLATION, engine::Describe(error), command_id,
                      error.rule_ref);
}

// The match id and expected_seq a match command carries.
std::pair<const std::string*, uint64_t> Target(const v1::ClientMessage& message) {
  switch (message.command_case()) {
    case v1::ClientMessage::kSubmitSetup:
      return {&message.submit_setup().match_id(), message.submit_setup().expected_seq()};
    case v1::ClientMessage::kConfirmSetup:
      return {&message.confirm_setup().match_id(), message.confirm_setup().expected_seq()};
    case v1::ClientMessage::kAnnounce:
      return {&message.announce().match_id(), message.announce().expected_seq()};
    case v1::ClientMessage::kSealDeclaration:
      return {&message.seal_declaration().match_id(), message.seal_declaration().expected_seq()};
    case v1::ClientMessage::kMakeChoice:
      return {&message.make_choice().match_id(), message.make_choice().expected_seq()};
    case v1::ClientMessage::kFlagForDirector:
      return {&message.flag_for_director().match_id(),
              message.flag_for_director().expected_seq()};
    case v1::ClientMessage::kOrderLocations:
      return {&message.order_locations().match_id(), message.order_locations().expected_seq()};
    case v1::ClientMessage::kUpdateUnits:
      return {&message.update_units().match_id(), message.update_units().expected_seq()};
    case v1::ClientMessage::kRecordResult:
      return {&message.record_result().match_id(), message.record_result().expected_seq()};
    case v1::ClientMessage::kTakeVacation:
      return {&message.take_vacation().match_id(), message.take_vacation().expected_seq()};
    default:
      return {nullptr, 0};
  }
}

constexpr int64_t kDayMs = 86'400'000;

// What a seat owes in a step of `kind`, in the words of notices and clock events.
std::string AwaitedWord(Awaiting::Kind kind) {
  switch (kind) {
    case Awaiting::Kind::kAnnouncement:
      return "announcement";
    case Awaiting::Kind::kChoice:
      return "choice";
    case Awaiting::Kind::kDeclaration:
      return "declaration";
    case Awaiting::Kind::kNothing:
      break;
  }
  return "";
}

// A clock event of `seat` at `at_unix_ms`, to be filled in.
storage::StoredEvent ClockEventOf(Seat seat, v1::ClockEventKind kind, int64_t at_unix_ms) {
  storage::StoredEvent stored;
  storage::ClockEvent& clock = *stored.mutable_clock();
  clock.set_seat(StoredSeat(seat));
  clock.set_kind(static_cast<uint32_t>(kind));
  clock.set_at_unix_ms(at_unix_ms);
  return stored;
}

// What a Location carries to its next close combat ("" nothing).
template <class Memos>
std::string MemoFacts(const Memos& memos, std::string_view location) {
  const auto it = memos.find(location);
  return it == memos.end() ? std::string() : it->second.facts;
}

}  // namespace

// One stored event a command produces, with what rendering it needs.
struct Match::Planned {
  storage::StoredEvent stored;
  // Ruleset events: the event, and what the viewers are shown of it (RulesetHost::RenderEvent),
  // rendered as it was applied (ApplyAndShow): empty when it is shown as logged
  // (LoggedEventField), one rendering when it is shown alike to every viewer, else four
  // (indexed by engine::Viewer). So a plan keeps no copy of the states around its events.
  // Each rendering is kept as its MatchEvent's deterministic bytes, serialized while the tree
  // was still in the cache: the trees are freed warm, and the plan carries a few strings across
  // the append instead of dozens of cold blocks (docs/benchmarks.md, step 25). What the commit
  // adds (RenderShown) needs of a tree only its kind and which declarations a reveal shows.
  std::optional<AnyEvent> event;
  std::vector<std::string> shown;
  std::array<v1::MatchEvent::KindCase, 4> shown_kind{};
  std::array<uint8_t, 4> revealed_sides{};  // declarations_revealed: 1 side_a, 2 side_b
  // Unit updates: the forces before and after them (what each viewer may see of the update).
  std::shared_ptr<const Forces> forces_before;
  std::shared_ptr<const Forces> forces_after;

  // An event that needs nothing but its stored form to be rendered.
  static Planned Of(storage::StoredEvent stored) {
    Planned planned;
    planned.stored = std::move(stored);
    return planned;
  }
};

// Everything a command changes, decided before the append and applied after it.
struct Match::Plan {
  std::vector<Planned> entries;
  SetupState setup;
  AnyState state;
  bool started = false;
  Seat seat = Seat::kSideA;
  std::string command_id;
  // SealDeclaration: the commitment, its nonce and the sealed bytes (fair_play.h, seal scheme 2).
  std::string receipt;
  std::string seal_nonce;
  std::string sealed;
  std::string client_entropy;  // SealDeclaration: the seat's entropy for the dice
  std::shared_ptr<const Forces> forces;  // UpdateUnits: the forces they leave
  std::optional<Viewer> actor;  // who sent the command, when not `seat` (the director)
  // Whose command it was, for its answer.
  Viewer Actor() const { return actor.value_or(engine::ViewerOf(seat)); }
  bool decides = false;  // a seat loses the match on time: the match is over
  // The dice steps and client entropy the plan's dice start from, when not the committed
  // match's: a Melee going on planned in the append of the command that ended the close combat.
  std::optional<uint64_t> dice_steps_before;
  std::optional<std::array<std::string, 2>> entropy_before;
  // The close combat this plan ends, folded (FoldEnded) into the forces and the Locations' memos
  // at event `seq` by PlanMeleeAfter, which plans the next one from them: Commit takes them
  // instead of folding the same outcome again.
  struct Folded {
    uint64_t seq = 0;
    Forces forces;
    std::map<std::string, LocationMemo, std::less<>> locations;
    bool changed = false;
  };
  std::optional<Folded> folded;
  // Set by PlanMeleeAfter: the close combat this plan ends leaves no Melee to go on.
  bool no_melee_after = false;
};

struct Match::Carried {
  bool started = false;
  const AnyState* state = nullptr;
  const Forces* forces = nullptr;
  const std::map<std::string, LocationMemo, std::less<>>* locations = nullptr;
  const std::optional<LocationOrder>* order = nullptr;
  uint64_t dice_steps = 0;
  const std::array<std::string, 2>* entropy = nullptr;
};

Match::Carried Match::Committed() const {
  return Carried{.started = started_,
                 .state = &state_,
                 .forces = &forces_,
                 .locations = &locations_,
                 .order = &order_,
                 .dice_steps = dice_steps_,
                 .entropy = &entropy_};
}

Match::Match(asio::any_io_executor executor, MatchServices services, const RulesetHost& host,
             MatchIdentity identity, AnyState initial, int64_t recorded_unix_ms,
             const persistence::Hash& head, std::shared_ptr<const persistence::SeedChain> chain)
    : strand_(asio::make_strand(std::move(executor))),
      services_(services),
      host_(host),
      identity_(std::move(identity)),
      opened_unix_ms_(recorded_unix_ms),
      initial_state_(initial),
      state_(std::move(initial)),
      chain_(std::move(chain)),
      recent_(services_.recent_events) {
  if (Paced()) {
    for (SeatClock& clock : clocks_) {
      clock.bank_left_ms = static_cast<int64_t>(identity_.settings.pace().bank_seconds()) * 1000;
      clock.vacation_days_left = identity_.settings.pace().vacation_days();
    }
  }
  Plan opened;
  opened.setup = setup_;
  opened.state = state_;
  opened.entries.push_back(Planned::Of(OpenedEvent(identity_)));
  Commit(std::move(opened), 1, recorded_unix_ms, head);
}

storage::StoredEvent Match::OpenedEvent(const MatchIdentity& identity) {
  storage::StoredEvent stored;
  storage::MatchCreated& created = *stored.mutable_match_created();
  created.set_match_id(identity.id);
  created.set_ruleset(identity.settings.ruleset());
  created.set_ruleset_version(identity.ruleset_version);
  created.set_variant(identity.settings.variant());
  for (const auto& [key, value] : identity.settings.options()) {
    (*created.mutable_options())[key] = value;
  }
  created.set_declaration_order(static_cast<uint32_t>(identity.settings.declaration_order()));
  created.set_side_a_token_hash(HashBytes(identity.token_hashes[0]));
  created.set_side_b_token_hash(HashBytes(identity.token_hashes[1]));
  created.set_director_token_hash(HashBytes(identity.token_hashes[2]));
  created.set_tournament_id(identity.settings.tournament_id());
  created.set_spectator_key_hash(HashBytes(identity.spectator_key_hash));
  created.set_settings(proto::SerializeDeterministic(identity.settings));
  created.set_dice_commitment(HashBytes(identity.dice_commitment));
  created.set_dice_chain_length(identity.dice_chain_length);
  created.set_server_public_key(identity.server_public_key);
  if (identity.tournament_token_hash) {
    created.set_tournament_token_hash(HashBytes(*identity.tournament_token_hash));
  }
  return stored;
}

std::optional<Viewer> Match::Authenticate(std::string_view token) const {
  if (token.empty()) return std::nullopt;
  const persistence::Hash hash = persistence::Sha256(token);
  for (size_t i = 0; i < 3; ++i) {
    if (CRYPTO_memcmp(hash.data(), identity_.token_hashes[i].data(), hash.size()) == 0) {
      return kViewers[i];
    }
  }
  const std::optional<persistence::Hash>& tournament = identity_.tournament_token_hash;
  if (tournament && CRYPTO_memcmp(hash.data(), tournament->data(), hash.size()) == 0) {
    return Viewer::kDirector;
  }
  return std::nullopt;
}

bool Match::IsSpectatorKey(std::string_view key) const {
  if (key.empty()) return false;
  const persistence::Hash hash = persistence::Sha256(key);
  return CRYPTO_memcmp(hash.data(), identity_.spectator_key_hash.data(), hash.size()) == 0;
}

// ---- commands ---------------------------------------------------------------------------------

void Match::Execute(Viewer viewer, v1::ClientMessage message, Reply reply,
                    std::weak_ptr<Subscriber> reply_to) {
  const auto received = std::chrono::steady_clock::now();
  reply = [metrics = &services_.metrics, received, reply = std::move(reply)](
              std::vector<MessagePtr> answers) {
    metrics->command_ack_seconds.Observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - received).count());
    reply(std::move(answers));
  };
  asio::post(strand_, [self = shared_from_this(), viewer, message = std::move(message),
                       reply = std::move(reply), reply_to = std::move(reply_to)]() mutable {
    if (!self->disowned_.empty()) {
      return reply({ErrorMessage(v1::ERROR_CODE_UNAVAILABLE, self->disowned_,
                                 message.command_id())});
    }
    self->Process(viewer, std::move(message), std::move(reply), false, std::move(reply_to));
  });
}

void Match::Disown(std::string why) {
  asio::post(strand_, [self = shared_from_this(), why = std::move(why)]() mutable {
    if (!self->disowned_.empty()) return;
    self->disowned_ = std::move(why);
    const MessagePtr error = ErrorMessage(v1::ERROR_CODE_UNAVAILABLE, self->disowned_, "");
    for (const Subscription& s : self->subscribers_) {
      if (auto subscriber = s.subscriber.lock()) subscriber->Deliver({error});
    }
    self->subscribers_.clear();
  });
}

void Match::CheckDeadlines() {
  asio::post(strand_, [self = shared_from_this()] {
    if (self->appending_ || self->decided_) return;
    if (self->Paced()) {
      if (self->CanRoll()) self->SweepClocks();  // (imported: read-only here)
      return;
    }
    if (self->deadline_unix_ms_ == 0 || !self->started_) return;
    if (!self->CanRoll()) return;  // imported: read-only here
    if (self->services_.clock.NowUnixMs() < self->deadline_unix_ms_) return;
    const Awaiting awaiting = self->host_.AwaitingOf(self->state_);
    if (awaiting.seats.empty()) return;
    // One seat at a time: when both owe (sealed declarations), the next sweep, run once this
    // default is applied, takes the other's.
    const Seat seat = awaiting.seats.front();
    spdlog::info("match {}: the deadline of {} for {} passed; taking the rules default",
                 self->identity_.id, engine::Name(seat), awaiting.step);
    v1::ClientMessage none;
    self->Process(engine::ViewerOf(seat), std::move(none), [](std::vector<MessagePtr>) {}, true);
  });
}

void Match::Process(Viewer viewer, v1::ClientMessage message, Reply reply, bool deadline_default,
                    std::weak_ptr<Subscriber> reply_to) {
  if (appending_) {
    queued_.push_back([self = shared_from_this(), viewer, message = std::move(message),
                       reply = std::move(reply), deadline_default,
                       reply_to = std::move(reply_to)]() mutable {
      self->Process(viewer, std::move(message), std::move(reply), deadline_default,
                    std::move(reply_to));
    });
    return;
  }
  const std::string& command_id = message.command_id();
  if (!deadline_default) {
    if (const auto answer = answers_.Find(viewer, command_id)) {
      services_.metrics.commands_answered_again.Increment();
      return reply({AckOf(command_id, *answer)});
    }
    const bool may_act = viewer == Viewer::kSideA || viewer == Viewer::kSideB ||
                         (viewer == Viewer::kDirector && message.has_record_result());
    if (!may_act) {
      return reply({ErrorMessage(v1::ERROR_CODE_PERMISSION_DENIED,
                                 std::string(engine::Name(viewer)) +
                                     " follows the match but cannot act in it",
                                 command_id)});
    }
    const auto [match_id, expected_seq] = Target(message);
    if (match_id == nullptr || *match_id != identity_.id) {
      return reply({ErrorMessage(v1::ERROR_CODE_PERMISSION_DENIED,
                                 "this connection is joined to match " + identity_.id +
                                     ", not " +
                                     proto::checks::Quoted(match_id ? *match_id : std::string()),
                                 command_id)});
    }
    if (expected_seq > seq_) {
      return reply({ErrorMessage(v1::ERROR_CODE_STALE,
                                 "expected_seq " + std::to_string(expected_seq) +
                                     " is ahead of the match (last seq " + std::to_string(seq_) +
                                     ")",
                                 command_id)});
    }
    // A side's own units never depend on what the other side entered or updated (conflicts are
    // checked), nor does a flag for the director, so only commands that answer the match as it stands
    // can be stale.
    const uint8_t bit = viewer == Viewer::kSideA ? 1 : 2;
    const bool never_stale = message.has_submit_setup() || message.has_flag_for_director() ||
                             message.has_update_units() || message.has_record_result();
    const uint64_t from = expected_seq == 0 || never_stale ? seq_ : expected_seq;
    for (uint64_t s = from; s < seq_; ++s) {
      if (material_[s] & bit) {
        return reply({ErrorMessage(v1::ERROR_CODE_STALE,
                                   "stale: event " + std::to_string(s + 1) +
                                       " changed the match after expected_seq " +
                                       std::to_string(expected_seq) +
                                       "; look at it and send the command again",
                                   command_id)});
      }
    }
  }
  if (decided_ && !message.has_flag_for_director() && !message.has_record_result()) {
    return reply({ErrorMessage(v1::ERROR_CODE_RULE_VIOLATION,
                               "the match is over: " + std::string(engine::Name(decided_->loser)) +
                                   " lost on time (event " + std::to_string(decided_->seq) + ")",
                               command_id)});
  }
  if (!message.has_flag_for_director() && !message.has_record_result() && !CanRoll()) {
    // Created here (this server's key opened it) yet not rollable: dice-secret was replaced.
    const bool own = !identity_.server_public_key.empty() &&
                     identity_.server_public_key == services_.secrets->public_key();
    return reply({ErrorMessage(
        v1::ERROR_CODE_PERMISSION_DENIED,
        "match " + identity_.id +
            (own ? "'s dice are committed with a dice-secret this server no longer holds (its "
                   "dice-secret file was replaced since the match was created; restore it from "
                   "a backup to play on)"
                 : " was imported: its dice are committed on the server that created it") +
            ", so here it can be watched and exported, not played",
        command_id)});
  }
  const Seat seat = viewer == Viewer::kSideA ? Seat::kSideA : Seat::kSideB;
  Result<Plan> plan = message.has_record_result() ? PlanResult(viewer, message)
                                                  : PlanCommand(seat, message, deadline_default);
  if (!plan) return reply({RuleErrorMessage(plan.error(), command_id)});
  Append(std::move(*plan), std::move(reply), command_id, std::move(reply_to));
}

void Match::Append(Plan planned_command, Reply reply, std::string command_id,
                   std::weak_ptr<Subscriber> reply_to) {
  auto plan = std::make_optional(std::move(planned_command));
  persistence::AppendBatch batch;
  batch.match_id = identity_.id;
  batch.expected_seq = seq_;
  batch.chained_from = head_;
  batch.recorded_unix_ms = services_.clock.NowUnixMs();
  // A salt makes an event's hash hide its content from a viewer it is redacted for. One draw
  // from the CSPRNG serves a plan's events, each event taking its own slice.
  const auto add_payloads = [&batch](Plan& salted) {
    const std::string salts =
        persistence::RandomBytes(persistence::kEventSaltBytes * salted.entries.size());
    for (size_t i = 0; i < salted.entries.size(); ++i) {
      Planned& planned = salted.entries[i];
      planned.stored.set_salt(salts.substr(i * persistence::kEventSaltBytes,
                                           persistence::kEventSaltBytes));
      batch.payloads.push_back(proto::SerializeDeterministic(planned.stored));
    }
  };
  add_payloads(*plan);
  // A close combat ends: the server signs the head of the log (a turn boundary).
  if ((plan->started && host_.Ended(plan->state) && !(started_ && host_.Ended(state_))) ||
      plan->decides) {
    SignHead(*plan, batch);
  }
  const size_t planned_events = batch.payloads.size();
  // A11.15: the next close combat of a Melee that goes on starts in the same append, so the
  // round costs one transaction and one write to each session, not two.
  std::optional<Plan> next_combat = PlanMeleeAfter(*plan, planned_events);
  if (next_combat) add_payloads(*next_combat);
  if (services_.notices) {
    batch.notices = NoticesOf(*plan, seq_ + planned_events, batch.recorded_unix_ms);
    if (next_combat) {
      for (persistence::OutboxNotice& notice : NoticesOf(
               *next_combat, seq_ + batch.payloads.size(), batch.recorded_unix_ms, &*plan)) {
        batch.notices.push_back(std::move(notice));
      }
    }
  }
  // A set-up step, or a close combat over with no Melee to go on: the match is marked dormant
  // in the same transaction, not by a marker of its own (a transaction and an fsync) after it.
  const bool marks_dormant = !next_combat && DormantAfter(*plan);
  if (marks_dormant) {
    batch.mark_dormant = true;
    batch.dormant_note = identity_.settings.tournament_id();
  }
  // Hashed already up to a signed head: the store is given the rest too, not to hash twice.
  if (!batch.hashes.empty()) ChainAll(batch);
  const bool notices = !batch.notices.empty();
  appending_ = true;
  const int64_t recorded = batch.recorded_unix_ms;
  auto shared_plan = std::make_shared<Plan>(std::move(*plan));
  auto next_plan = next_combat ? std::make_shared<Plan>(std::move(*next_combat)) : nullptr;
  const auto append_started = std::chrono::steady_clock::now();
  // A weak reference, checked under the Lifeline (as the journal's): a batch the store still
  // holds when the server is gone touches neither its metrics nor the match's strand. (Matches
  // holds every match while the server runs, so the reference holds then.)
  persistence::PendingAppend command{
      std::move(batch),
      [weak = weak_from_this(), lifeline = services_.lifeline, shared_plan = std::move(shared_plan),
       next_plan = std::move(next_plan), planned_events, recorded, reply = std::move(reply),
       command_id = std::move(command_id), append_started, notices, marks_dormant,
       reply_to =
           std::move(reply_to)](persistence::StoreResult<persistence::Appended> appended) mutable {
        std::lock_guard alive(lifeline->mutex);
        if (!lifeline->alive) return;
        std::shared_ptr<Match> self = weak.lock();
        if (!self) return;
        self->services_.metrics.store_append_seconds.Observe(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - append_started)
                .count());
        // Called once: what it holds moves on to the strand, so that the plan and the reply are
        // freed there, after the commit, and not by the store's thread when it drops the group.
        asio::post(self->strand_, [self, shared_plan = std::move(shared_plan),
                                   next_plan = std::move(next_plan), planned_events, recorded,
                                   reply = std::move(reply), command_id = std::move(command_id),
                                   notices, marks_dormant, reply_to = std::move(reply_to),
                                   appended = std::move(appended)]() mutable {
          self->appending_ = false;
          if (!appended) {
            spdlog::error("match {}: append failed: {}", self->identity_.id,
                          appended.error().message);
            const bool fenced =
                appended.error().code == persistence::StoreErrorCode::kFenced;
            reply({ErrorMessage(v1::ERROR_CODE_UNAVAILABLE,
                                "storage refused the write (" + appended.error().message +
                                    "); nothing was applied, " +
                                    (fenced ? "reconnect to reach the node that serves the match"
                                            : "send the command again"),
                                command_id)});
          } else {
            const Viewer actor = shared_plan->Actor();
            const std::string answered_id = shared_plan->command_id;
            Delivery delivery;
            self->Render(self->Commit(std::move(*shared_plan), appended->first_seq, recorded,
                                      appended->head),
                         delivery);
            // The next close combat of a Melee that goes on, appended with it: its events and
            // views follow the first's in the same delivery.
            if (next_plan) {
              self->Render(self->Commit(std::move(*next_plan), appended->first_seq + planned_events,
                                        recorded, appended->head),
                           delivery);
            }
            // Everything rendered first, then sent: each session gets one delivery, the
            // command's own with its answer at the end, so that all leave in one write.
            std::vector<MessagePtr> answers;
            if (const auto answer = self->answers_.Find(actor, answered_id)) {
              answers.push_back(self->AckOf(command_id, *answer));
            }
            if (std::vector<MessagePtr>* to = delivery.For(reply_to.lock());
                to != nullptr && !answers.empty()) {
              to->push_back(std::move(answers.front()));
              answers.clear();
            }
            Send(std::move(delivery));
            reply(std::move(answers));
            // Only now: a mail asks the match for the view and the file its notice tells of.
            if (notices) self->services_.notices->Committed();
            if (self->CanRoll() && self->MeleeGoesOn()) {
              auto going_on = self->PlanMeleeGoingOn();
              if (going_on) {
                return self->Append(std::move(*going_on), [](std::vector<MessagePtr>) {}, "");
              }
              spdlog::error("match {}: the Melee cannot go on: {}", self->identity_.id,
                            engine::Describe(going_on.error()));
            }
            if (!marks_dormant) self->NoteIfDormant();
          }
          self->RunQueued();
        });
      }};
  // A seat's join waiting in the session journal commits in this transaction.
  if (auto journal = TakeJournal()) {
    std::vector<persistence::PendingAppend> together;
    together.push_back(std::move(command));
    together.push_back(std::move(*journal));
    services_.store.AppendTogether(std::move(together));
  } else {
    services_.store.Append(std::move(command.batch), std::move(command.done));
  }
}

void Match::RunQueued() {
  while (!appending_ && !queued_.empty()) {
    auto next = std::move(queued_.front());
    queued_.pop_front();
    next();
  }
  if (!appending_) CheckDeadlines();
}

void Match::EnterSetup(Plan& plan, Seat seat, SetupPart part, bool next_combat) {
  if (next_combat) {
    // The last close combat is over: this part opens the set-up of the next one (the next
    // Location the ATTACKER resolves, or this Location in the next CCPh).
    plan.started = false;
    plan.setup = SetupState{};
  }
  plan.setup.parts[SeatIndex(seat)] = std::move(part);
  plan.setup.confirmed = {false, false};
}

Result<Match::Plan> Match::PlanCommand(Seat seat, const v1::ClientMessage& message,
                                       bool deadline_default) const {
  Plan plan;
  plan.setup = setup_;
  plan.state = state_;
  plan.started = started_;
  plan.seat = seat;
  plan.command_id = message.command_id();
  const size_t me = SeatIndex(seat);
  const size_t other = 1 - me;
  if (deadline_default) {
    return PlanRuleset(seat, host_.DefaultAction(state_, seat), "", std::move(plan), true);
  }
  switch (message.command_case()) {
    case v1::ClientMessage::kSubmitSetup: {
      const bool next_combat = started_ && host_.Ended(state_);
      if (started_ && !next_combat) {
        return Reject("", "the set-up is over: the close combat has started");
      }
      if (auto ok = host_.CheckSetup(seat, message.submit_setup(),
                                     next_combat ? SetupParts{} : setup_.parts);
          !ok) {
        return tl::unexpected(ok.error());
      }
      if (auto ok = CheckNewUnits(host_, forces_, seat, message.submit_setup()); !ok) {
        return tl::unexpected(ok.error());
      }
      auto part = std::make_shared<const v1::SubmitSetup>(message.submit_setup());
      if (auto ok = CheckOrder(host_.FactsOf({part, nullptr})); !ok) {
        return tl::unexpected(ok.error());
      }
      EnterSetup(plan, seat, std::move(part), next_combat);
      Planned planned;
      storage::SetupSubmitted& stored = *planned.stored.mutable_setup_submitted();
      stored.set_seat(StoredSeat(seat));
      stored.set_part(proto::SerializeDeterministic(message.submit_setup()));
      stored.set_command_id(message.command_id());
      plan.entries.push_back(std::move(planned));
      return plan;
    }
    case v1::ClientMessage::kConfirmSetup: {
      if (started_) {
        return Reject("", host_.Ended(state_)
                              ? "confirm_setup: enter units for the next close combat first"
                              : "the set-up is over: the close combat has started");
      }
      // A side whose units in the Location all come from its force need not enter any.
      const std::string location = host_.FactsOf(setup_.parts).location;
      const auto entered = [&](size_t i) {
        return setup_.parts[i] != nullptr ||
               (!location.empty() && HasUnitsAt(forces_, i == 0 ? Seat::kSideA : Seat::kSideB,
                                                location));
      };
      if (!entered(me)) return Reject("", "confirm_setup: enter your units first");
      if (!entered(other)) {
        return Reject("", "confirm_setup: " + std::string(engine::Name(engine::Opponent(seat))) +
                              " has not entered its units yet");
      }
      if (setup_.confirmed[me]) return Reject("", "confirm_setup: already confirmed");
      plan.setup.confirmed[me] = true;
      Planned planned;
      storage::SetupConfirmed& stored = *planned.stored.mutable_setup_confirmed();
      stored.set_seat(StoredSeat(seat));
      stored.set_command_id(message.command_id());
      plan.entries.push_back(std::move(planned));
      if (!setup_.confirmed[other]) return plan;
      if (auto ok = CheckOrder(host_.FactsOf(setup_.parts)); !ok) {
        return tl::unexpected(ok.error());
      }
      auto parts = host_.WithCarried(setup_.parts, forces_, location,
                                     MemoFacts(locations_, location), std::nullopt);
      if (!parts) return tl::unexpected(parts.error());
      auto start = host_.StartCommand(*parts);
      if (!start) return tl::unexpected(start.error());
      plan.started = true;
      plan.state = initial_state_;  // every close combat starts from the match's options
      auto started = PlanRuleset(seat, *start, "", std::move(plan), false);
      if (started && !host_.AsksEverySideAtStart(started->state)) {
        return EnterSilentAnnouncements(std::move(started));
      }
      return started;
    }
    case v1::ClientMessage::kFlagForDirector: {
      const v1::FlagForDirector& flag = message.flag_for_director();
      if (flag.seq() < 1 || flag.seq() > seq_) {
        return Reject("", "flag_for_director.seq: " + std::to_string(flag.seq()) +
                              " is not an event of this match (1.." + std::to_string(seq_) + ")");
      }
      if (flag.comment().empty() || flag.comment().size() > kMaxFlagCommentBytes) {
        return Reject("", "flag_for_director.comment: 1.." + std::to_string(kMaxFlagCommentBytes) +
                              " bytes");
      }
      Planned planned;
      storage::DirectorFlag& stored = *planned.stored.mutable_director_flag();
      stored.set_seat(StoredSeat(seat));
      stored.set_seq(flag.seq());
      stored.set_comment(flag.comment());
      stored.set_command_id(message.command_id());
      plan.entries.push_back(std::move(planned));
      return plan;
    }
    case v1::ClientMessage::kOrderLocations: {
      const v1::OrderLocations& order = message.order_locations();
      if (CombatUnderWay()) {
        return Reject("A11.12", std::string("order_locations: a close combat is ") +
                                    (started_ ? "being played" : "being set up") +
                                    "; each Location's CC is resolved completely before the next, "
                                    "so order the Locations before the next set-up");
      }
      const bool continuing = order_ && !order_->remaining.empty();
      if (continuing && order_->attacker != seat) {
        return Reject("A11.12", "order_locations: the ATTACKER (" +
                                    std::string(engine::Name(order_->attacker)) +
                                    ") orders the Locations of this CCPh");
      }
      if (order.locations().empty() ||
          static_cast<size_t>(order.locations_size()) > kMaxOrderedLocations) {
        return Reject("", "order_locations.locations: 1.." +
                              std::to_string(kMaxOrderedLocations) + " Locations");
      }
      for (int i = 0; i < order.locations_size(); ++i) {
        const std::string& name = order.locations(i);
        const std::string field = "order_locations.locations[" + std::to_string(i) + "]";
        if (name.empty() || name.size() > kMaxLocationNameBytes) {
          return Reject("", field + ": 1.." + std::to_string(kMaxLocationNameBytes) + " bytes");
        }
        for (int k = 0; k < i; ++k) {
          if (order.locations(k) == name) return Reject("", field + ": '" + name + "' twice");
        }
        if (continuing && std::find(order_->resolved.begin(), order_->resolved.end(), name) !=
                              order_->resolved.end()) {
          return Reject("A11.12", field + ": the CC in " + name +
                                      " was already resolved in this CCPh");
        }
      }
      Planned planned;
      storage::LocationsOrdered& stored = *planned.stored.mutable_locations_ordered();
      stored.set_seat(StoredSeat(seat));
      *stored.mutable_locations() = order.locations();
      stored.set_command_id(message.command_id());
      plan.entries.push_back(std::move(planned));
      return plan;
    }
    case v1::ClientMessage::kUpdateUnits: {
      const engine::AnyState* playing = started_ && !host_.Ended(state_) ? &state_ : nullptr;
      auto forces = ApplyUpdates(host_, forces_, seat, message.update_units(), seq_ + 1, playing);
      if (!forces) return tl::unexpected(forces.error());
      v1::UpdateUnits logged = message.update_units();
      logged.clear_match_id();
      logged.clear_expected_seq();
      Planned planned;
      storage::UnitsUpdated& stored = *planned.stored.mutable_units_updated();
      stored.set_seat(StoredSeat(seat));
      stored.set_updates(proto::SerializeDeterministic(logged));
      stored.set_command_id(message.command_id());
      plan.forces = std::make_shared<const Forces>(std::move(*forces));
      planned.forces_before = std::make_shared<const Forces>(forces_);
      planned.forces_after = plan.forces;
      plan.entries.push_back(std::move(planned));
      return plan;
    }
    case v1::ClientMessage::kAnnounce:
    case v1::ClientMessage::kSealDeclaration:
    case v1::ClientMessage::kMakeChoice: {
      if (!started_) return Reject("", "the close combat has not started: finish the set-up");
      if (host_.Ended(state_)) {
        return Reject("", "the close combat is over; enter units to start the next one");
      }
      Result<DecodedCommand> command =
          message.has_announce()           ? host_.FromAnnounce(message.announce())
          : message.has_seal_declaration() ? host_.FromDeclaration(
                                                 message.seal_declaration().declaration())
                                           : host_.FromChoice(message.make_choice());
      if (!command) return tl::unexpected(command.error());
      std::optional<storage::StoredEvent> drawn;
      if (Paced()) {
        auto draw = BankDraw(seat, services_.clock.NowUnixMs());
        if (!draw) return tl::unexpected(draw.error());
        drawn = std::move(*draw);
      }
      if (message.has_seal_declaration()) {
        const v1::SealDeclaration& seal = message.seal_declaration();
        if (seal.client_entropy().size() > kMaxEntropyBytes) {
          return Reject("", "seal_declaration.client_entropy: at most " +
                                std::to_string(kMaxEntropyBytes) + " bytes");
        }
        plan.sealed = proto::SerializeDeterministic(seal.declaration());
        plan.seal_nonce = persistence::RandomBytes(persistence::kSealNonceBytes);
        plan.receipt = HashBytes(persistence::SealCommitment(plan.seal_nonce, plan.sealed));
        plan.client_entropy = seal.client_entropy();
      }
      auto planned = PlanRuleset(seat, *command, message.command_id(), std::move(plan), false);
      // Under options that take announcements away, the DEFENDER with nothing it could announce
      // is not asked after the ATTACKER's announcement either.
      if (planned && message.has_announce() && !host_.AsksEverySideAtStart(planned->state)) {
        planned = EnterSilentAnnouncements(std::move(planned));
      }
      // The overrun is taken from the bank before the answer, in the same append.
      if (planned && drawn) {
        planned->entries.insert(planned->entries.begin(), Planned::Of(std::move(*drawn)));
      }
      return planned;
    }
    case v1::ClientMessage::kTakeVacation:
      return PlanVacation(seat, message.take_vacation(), message.command_id());
    default:
      return Reject("", "not a match command");
  }
}

Result<Match::Plan> Match::PlanResult(Viewer viewer, const v1::ClientMessage& message) const {
  const v1::RecordResult& result = message.record_result();
  if (result.combat() > combats_.size()) {
    return Reject("", "record_result.combat: " + std::to_string(result.combat()) +
                          " is not a close combat of this match (0 for the match, 1.." +
                          std::to_string(combats_.size()) + " for its close combats so far)");
  }
  if (result.outcome() != v1::RESULT_OUTCOME_SIDE_A_WON &&
      result.outcome() != v1::RESULT_OUTCOME_SIDE_B_WON &&
      result.outcome() != v1::RESULT_OUTCOME_DRAW) {
    return Reject("", "record_result.outcome: give SIDE_A_WON, SIDE_B_WON or DRAW");
  }
  if (auto ok = proto::checks::CheckText(result.note(), "record_result.note",
                                         kMaxResultNoteBytes);
      !ok) {
    return tl::unexpected(ok.error());
  }
  Plan plan;
  plan.setup = setup_;
  plan.state = state_;
  plan.started = started_;
  plan.command_id = message.command_id();
  if (viewer == Viewer::kDirector) {
    plan.actor = Viewer::kDirector;
  } else {
    plan.seat = viewer == Viewer::kSideA ? Seat::kSideA : Seat::kSideB;
  }
  Planned planned;
  storage::ResultRecorded& stored = *planned.stored.mutable_result_recorded();
  stored.set_seat(StoredViewerSeat(viewer));
  stored.set_combat(result.combat());
  stored.set_outcome(static_cast<uint32_t>(result.outcome()));
  stored.set_note(result.note());
  stored.set_command_id(message.command_id());
  plan.entries.push_back(std::move(planned));
  return plan;
}

std::string Match::CombatLocation(uint32_t combat) const {
  return combat >= 1 && combat <= combats_.size() ? combats_[combat - 1] : std::string();
}

Result<Match::Plan> Match::PlanRuleset(Seat seat, const DecodedCommand& command,
                                       const std::string& command_id, Plan plan,
                                       bool deadline_default) const {
  // The dice of the next resolution step come from its committed seed and each side's latest
  // entropy (this seal's for this seat); a test hook may script them instead.
  // (A plan of several commands — a Melee going on with the announcements it takes — may have
  // closed a step already.)
  uint64_t step = plan.dice_steps_before.value_or(dice_steps_) + 1;
  for (const Planned& planned : plan.entries) {
    if (planned.stored.has_ruleset_event() && planned.stored.ruleset_event().dice_step() != 0) {
      step = planned.stored.ruleset_event().dice_step() + 1;
    }
  }
  const std::array<std::string, 2>& entropy_held =
      plan.entropy_before ? *plan.entropy_before : entropy_;
  std::array<std::string_view, 2> entropy = {entropy_held[0], entropy_held[1]};
  if (!plan.client_entropy.empty()) entropy[SeatIndex(seat)] = plan.client_entropy;
  std::unique_ptr<engine::BitSource> bits;
  std::unique_ptr<engine::Dice> dice;
  persistence::CommittedDice* committed = nullptr;
  if (services_.dice_source) {
    bits = services_.dice_source();
    dice = std::make_unique<engine::SourceDice>(*bits);
  } else {
    auto owned = std::make_unique<persistence::CommittedDice>(*chain_, identity_.id, step,
                                                              entropy[0], entropy[1]);
    committed = owned.get();
    dice = std::move(owned);
  }
  auto events = host_.ruleset().Decide(plan.state, seat, command.command, *dice);
  if (!events) return tl::unexpected(events.error());
  // (The ruleset takes its rolls into its events, so count the draws.)
  const bool rolled = committed != nullptr && committed->draws() > 0;
  if (rolled && step > chain_->length()) {
    return Reject("", "match " + identity_.id + " has rolled dice in all " +
                          std::to_string(chain_->length()) +
                          " steps its first event committed to; start a new match");
  }
  const std::string step_before = host_.AwaitingOf(plan.state).step;
  bool first = true;
  for (AnyEvent& event : *events) {
    Planned planned;
    storage::RulesetEvent& stored = *planned.stored.mutable_ruleset_event();
    if (first) {
      storage::Cause& cause = *stored.mutable_cause();
      cause.set_seat(StoredSeat(seat));
      cause.set_command_id(command_id);
      cause.set_command(command.logged);
      cause.set_deadline_default(deadline_default);
      if (!plan.receipt.empty()) {
        cause.set_receipt(plan.receipt);
        cause.set_seal_nonce(plan.seal_nonce);
        cause.set_sealed(plan.sealed);
      }
      if (!plan.client_entropy.empty()) cause.set_client_entropy(plan.client_entropy);
      first = false;
    }
    stored.set_event(host_.LogEvent(plan.state, event));
    ApplyAndShow(host_, plan.state, std::move(event), planned);
    plan.entries.push_back(std::move(planned));
  }
  // The event that closes the step reveals its seed.
  if (rolled && !plan.entries.empty() && plan.entries.back().stored.has_ruleset_event()) {
    storage::RulesetEvent& closing = *plan.entries.back().stored.mutable_ruleset_event();
    closing.set_dice_step(step);
    closing.set_revealed_seed(HashBytes(committed->seed()));
  }
  // A new step the rules wait for starts its deadline; the last event carries it, so that a
  // replay of the log restores it.
  const Awaiting after = host_.AwaitingOf(plan.state);
  if (after.kind != Awaiting::Kind::kNothing && after.step != step_before &&
      plan.entries.back().stored.has_ruleset_event()) {
    const uint32_t seconds = DeadlineSeconds(after.kind);
    if (seconds != 0) {
      plan.entries.back().stored.mutable_ruleset_event()->set_deadline_unix_ms(
          services_.clock.NowUnixMs() + static_cast<int64_t>(seconds) * 1000);
    }
  }
  return plan;
}

std::string Match::MeleeGoingOn() const { return MeleeGoingOn(Committed()); }

std::string Match::MeleeGoingOn(const Carried& carried) const {
  if (!host_.CarriesForces() || !carried.started || !host_.Ended(*carried.state)) return "";
  const std::optional<LocationOrder>& order = *carried.order;
  if (order && !order->remaining.empty()) return "";  // A11.12: the CCPh is not over
  const Forces& forces = *carried.forces;
  std::string next_ccph;
  for (const auto& [location, memo] : *carried.locations) {
    if (!memo.melee || !memo.attacker || !HasUnitsAt(forces, Seat::kSideA, location) ||
        !HasUnitsAt(forces, Seat::kSideB, location)) {
      continue;
    }
    if (memo.ccph < ccph_) return location;  // goes on in this CCPh
    if (next_ccph.empty()) next_ccph = location;
  }
  return next_ccph;
}

Result<Match::Plan> Match::PlanMeleeGoingOn() const { return PlanMeleeGoingOn(Committed()); }

Result<Match::Plan> Match::PlanMeleeGoingOn(const Carried& carried) const {
  const std::string location = MeleeGoingOn(carried);
  const LocationMemo& memo = carried.locations->find(location)->second;
  // In this CCPh its ATTACKER attacks; a new CCPh is the next Player Turn's: the other side's.
  const Seat attacker = memo.ccph < ccph_ && ccph_attacker_ ? *ccph_attacker_
                                                            : engine::Opponent(*memo.attacker);
  Plan plan;
  plan.state = initial_state_;
  plan.started = true;
  plan.seat = attacker;
  plan.dice_steps_before = carried.dice_steps;
  plan.entropy_before = *carried.entropy;
  auto parts = host_.WithCarried(SetupParts{}, *carried.forces, location, memo.facts, attacker);
  if (!parts) return tl::unexpected(parts.error());
  auto start = host_.StartCommand(*parts);
  if (!start) return tl::unexpected(start.error());
  return EnterSilentAnnouncements(PlanRuleset(attacker, *start, "", std::move(plan), false));
}

Result<Match::Plan> Match::EnterSilentAnnouncements(Result<Plan> planned) const {
  // Announcements are asked only of a side that can announce something (A11.2, A11.14, A11.16,
  // J2.31): for one that cannot, "nothing" goes in at once, logged as its announcement.
  for (;;) {
    if (!planned) return planned;
    const Awaiting owed = host_.AwaitingOf(planned->state);
    if (owed.kind != Awaiting::Kind::kAnnouncement || owed.seats.size() != 1 ||
        host_.CanAnnounce(planned->state, owed.seats.front())) {
      return planned;
    }
    const Seat seat = owed.seats.front();
    const DecodedCommand nothing = host_.DefaultAction(planned->state, seat);
    planned = PlanRuleset(seat, nothing, "", std::move(*planned), false);
  }
}

bool Match::FoldEnded(const CombatOutcome& outcome, uint64_t seq, Forces& forces,
                      std::map<std::string, LocationMemo, std::less<>>& locations) const {
  const bool changed = FoldOutcome(forces, outcome, seq, true);
  locations[outcome.location] = LocationMemo{
      .facts = outcome.facts, .melee = outcome.melee, .attacker = outcome.attacker,
      .ccph = ccph_};
  return changed;
}

void Match::PassOrdered(const std::string& location, std::optional<LocationOrder>& order) {
  if (order && !order->remaining.empty() && location == order->remaining.front()) {
    order->resolved.push_back(std::move(order->remaining.front()));
    order->remaining.erase(order->remaining.begin());
  }
}

std::optional<Match::Plan> Match::PlanMeleeAfter(Plan& ending, size_t appended) {
  // Only the plain case: a close combat begun by an earlier commit ends with `ending`, a plan of
  // ruleset events (and the head's signature), so that Commit will only fold its outcome.
  if (!host_.CarriesForces() || ending.decides || !started_ || host_.Ended(state_) ||
      !ending.started || !host_.Ended(ending.state) || !CanRoll()) {
    return std::nullopt;
  }
  uint64_t dice_steps = dice_steps_;
  std::array<std::string, 2> entropy = entropy_;
  for (const Planned& planned : ending.entries) {
    if (!planned.stored.has_ruleset_event()) {
      if (planned.stored.has_head_signed()) continue;
      return std::nullopt;
    }
    const storage::RulesetEvent& logged = planned.stored.ruleset_event();
    if (logged.dice_step() != 0) dice_steps = logged.dice_step();
    if (logged.has_cause() && !logged.cause().client_entropy().empty()) {
      if (const auto by = SeatOfStored(logged.cause().seat())) {
        entropy[SeatIndex(*by)] = logged.cause().client_entropy();
      }
    }
  }
  // The forces, the Locations' memos and the ATTACKER's order as Commit will leave them: the
  // outcome folded in at the plan's last event.
  // Kept in `ending` for Commit, whether or not a Melee goes on.
  Plan::Folded& folded = ending.folded.emplace(Plan::Folded{
      .seq = seq_ + appended, .forces = ending.forces ? *ending.forces : forces_,
      .locations = locations_});
  folded.changed =
      FoldEnded(host_.OutcomeOf(ending.state), folded.seq, folded.forces, folded.locations);
  std::optional<LocationOrder> order = order_;
  PassOrdered(host_.FactsOf(ending.setup.parts).location, order);
  const Carried carried{.started = ending.started,
                        .state = &ending.state,
                        .forces = &folded.forces,
                        .locations = &folded.locations,
                        .order = &order,
                        .dice_steps = dice_steps,
                        .entropy = &entropy};
  if (MeleeGoingOn(carried).empty()) {
    ending.no_melee_after = true;
    return std::nullopt;
  }
  // When it cannot be planned now, it is planned after the commit, which reports why.
  auto going_on = PlanMeleeGoingOn(carried);
  if (!going_on) return std::nullopt;
  return std::move(*going_on);
}

void Match::ResumeOwedWork() {
  asio::post(strand_, [self = shared_from_this()] {
    if (self->appending_ || !self->CanRoll() || !self->MeleeGoesOn()) return;
    auto going_on = self->PlanMeleeGoingOn();
    if (!going_on) {
      spdlog::error("match {}: the Melee cannot go on: {}", self->identity_.id,
                    engine::Describe(going_on.error()));
      return;
    }
    self->Append(std::move(*going_on), [](std::vector<MessagePtr>) {}, "");
  });
}

bool Match::Dormant() const {
  return !appending_ && !(started_ && !host_.Ended(state_)) && !MeleeGoesOn();
}

void Match::NoteIfDormant() {
  if (Dormant()) {
    services_.store.MarkDormant(identity_.id, seq_, identity_.settings.tournament_id());
  }
}

bool Match::DormantAfter(const Plan& plan) const {
  if (plan.no_melee_after) return true;
  // Commit leaves started_ and state_ as the plan has them; with no ruleset event, nor a close
  // combat begun, the forces as the plan has them, and the Locations' memos and order as they are.
  if (plan.started && !(started_ && host_.Ended(state_) && host_.Ended(plan.state))) return false;
  for (const Planned& planned : plan.entries) {
    if (planned.event || planned.stored.has_ruleset_event() ||
        planned.stored.has_locations_ordered()) {
      return false;
    }
  }
  const Carried after{.started = plan.started,
                      .state = &plan.state,
                      .forces = plan.forces ? plan.forces.get() : &forces_,
                      .locations = &locations_,
                      .order = &order_,
                      .dice_steps = dice_steps_,
                      .entropy = &entropy_};
  return MeleeGoingOn(after).empty();
}

void Match::MarkIfDormant() {
  asio::post(strand_, [self = shared_from_this()] { self->NoteIfDormant(); });
}

void Match::CheckUnloadable(std::function<void(const std::shared_ptr<Match>&)> unload) {
  asio::post(strand_, [self = shared_from_this(), unload = std::move(unload)] {
    std::erase_if(self->subscribers_,
                  [](const Subscription& s) { return s.subscriber.expired(); });
    // A close combat under way may go too when nothing runs on a timer (no deadline, no Melee to
    // go on): it is replayed from the log when next asked for, as after a restart. Only a
    // Dormant() match is marked so in the store (a restart recovers the others first).
    const bool idle = !self->appending_ && !self->MeleeGoesOn() && !self->OwesTimer() &&
                      self->deadline_unix_ms_ == 0 && self->queued_.empty() &&
                      self->subscribers_.empty() && self->live_sessions_.empty() &&
                      self->journal_pending_.empty();
    if (!idle) return;
    self->NoteIfDormant();  // so that a restart, too, leaves it in the store
    unload(self);
  });
}

uint32_t Match::DeadlineSeconds(Awaiting::Kind kind) const {
  if (Paced()) {
    return kind == Awaiting::Kind::kChoice ? identity_.settings.pace().choice_seconds()
                                           : identity_.settings.pace().declaration_seconds();
  }
  if (kind == Awaiting::Kind::kChoice) {
    return identity_.settings.choice_deadline_seconds() != 0
               ? identity_.settings.choice_deadline_seconds()
               : services_.default_choice_deadline_seconds;
  }
  return identity_.settings.declaration_deadline_seconds() != 0
             ? identity_.settings.declaration_deadline_seconds()
             : services_.default_declaration_deadline_seconds;
}

bool Match::CombatUnderWay() const {
  if (started_) return !host_.Ended(state_);
  return setup_.parts[0] != nullptr || setup_.parts[1] != nullptr;
}

Result<void> Match::CheckOrder(const SetupFacts& facts) const {
  if (!order_ || order_->remaining.empty()) return {};
  const std::string& next = order_->remaining.front();
  if (!facts.location.empty() && facts.location != next) {
    return Reject("A11.12", "the ATTACKER ordered the CC in " + next + " next; this set-up is for " +
                                facts.location);
  }
  if (facts.attacker && *facts.attacker != order_->attacker) {
    return Reject("A11.12", "the ATTACKER of this CCPh is " +
                                std::string(engine::Name(order_->attacker)) +
                                " (it ordered the Locations)");
  }
  return {};
}

// ---- correspondence clocks (docs/clocks.md) ----------------------------------------------------

bool Match::OwesTimedStep(Seat seat) const {
  if (decided_ || !started_ || deadline_unix_ms_ == 0 || host_.Ended(state_)) return false;
  const Awaiting awaiting = host_.AwaitingOf(state_);
  return std::find(awaiting.seats.begin(), awaiting.seats.end(), seat) != awaiting.seats.end();
}

int64_t Match::StepDeadline(Seat seat) const {
  const SeatClock& clock = clocks_[SeatIndex(seat)];
  int64_t deadline = deadline_unix_ms_ + clock.away_ms;
  // On vacation: the clock stands still until the seat is back (counted from the step's start
  // when the vacation began before it).
  if (clock.vacation_until_unix_ms != 0) {
    deadline += std::max<int64_t>(
        0, clock.vacation_until_unix_ms -
               std::max(clock.vacation_from_unix_ms, step_started_unix_ms_));
  }
  return deadline;
}

int64_t Match::FinalDeadline(Seat seat) const {
  return StepDeadline(seat) + clocks_[SeatIndex(seat)].bank_left_ms;
}

Result<std::optional<storage::StoredEvent>> Match::BankDraw(Seat seat, int64_t now) const {
  if (!OwesTimedStep(seat) || now <= StepDeadline(seat)) return std::nullopt;
  const int64_t final_deadline = FinalDeadline(seat);
  if (now >= final_deadline) {
    return Reject("", std::string(engine::Name(seat)) + "'s time for this step ran out at " +
                          UtcTime(final_deadline) + " (its step's time and its time bank): " +
                          (identity_.settings.pace().on_expiry() == v1::ON_EXPIRY_LOSS
                               ? "the match is lost on time"
                               : "the rules default is taken for it"));
  }
  const int64_t over = now - StepDeadline(seat);
  storage::StoredEvent stored = ClockEventOf(seat, v1::CLOCK_EVENT_KIND_BANK_DRAWN, now);
  storage::ClockEvent& clock = *stored.mutable_clock();
  clock.set_drawn_ms(static_cast<uint64_t>(over));
  clock.set_bank_left_ms(static_cast<uint64_t>(clocks_[SeatIndex(seat)].bank_left_ms - over));
  clock.set_step(AwaitedWord(host_.AwaitingOf(state_).kind));
  return stored;
}

Result<void> Match::CheckClockEvent(const storage::ClockEvent& event,
                                    int64_t recorded_unix_ms) const {
  if (!Paced()) return Reject("", "a clock event in a match without a pace");
  const std::optional<Seat> seat = SeatOfStored(event.seat());
  if (!seat) return Reject("", "a clock event of no seat");
  if (event.at_unix_ms() > recorded_unix_ms) {
    return Reject("", "a clock event dated after the time it was recorded");
  }
  const SeatClock& clock = clocks_[SeatIndex(*seat)];
  const int64_t at = event.at_unix_ms();
  switch (static_cast<v1::ClockEventKind>(event.kind())) {
    case v1::CLOCK_EVENT_KIND_BANK_DRAWN: {
      const int64_t over = at - StepDeadline(*seat);
      if (!OwesTimedStep(*seat) || over <= 0 || at >= FinalDeadline(*seat) ||
          event.drawn_ms() != static_cast<uint64_t>(over) ||
          event.bank_left_ms() != static_cast<uint64_t>(clock.bank_left_ms - over)) {
        return Reject("", "the bank drawn does not follow from the step's deadline and the "
                          "time of the answer");
      }
      return {};
    }
    case v1::CLOCK_EVENT_KIND_TIME_EXPIRED: {
      if (!OwesTimedStep(*seat) || at < FinalDeadline(*seat)) {
        return Reject("", "time expired for a seat whose time had not run out");
      }
      if (event.drawn_ms() != static_cast<uint64_t>(clock.bank_left_ms) ||
          event.bank_left_ms() != 0) {
        return Reject("", "an expiry that does not spend the bank left");
      }
      if (event.action() != ExpiryAction(identity_.settings.pace())) {
        return Reject("", "an expiry that does not do what the pace says (" +
                              std::string(ExpiryAction(identity_.settings.pace())) + ")");
      }
      if (event.action() == "match_lost" &&
          (SeatOfStored(event.loser()) != seat ||
           SeatOfStored(event.winner()) != engine::Opponent(*seat))) {
        return Reject("", "a loss on time that names the wrong winner or loser");
      }
      return {};
    }
    case v1::CLOCK_EVENT_KIND_VACATION_STARTED: {
      const uint32_t days = event.vacation_days();
      if (clock.vacation_until_unix_ms != 0 || days == 0 || days > clock.vacation_days_left ||
          event.vacation_until_unix_ms() != at + days * kDayMs ||
          event.vacation_days_left() != clock.vacation_days_left - days) {
        return Reject("", "a vacation that does not follow from the seat's vacation days");
      }
      return {};
    }
    case v1::CLOCK_EVENT_KIND_VACATION_ENDED: {
      const int64_t until = clock.vacation_until_unix_ms;
      const bool early = !event.command_id().empty();
      if (until == 0 || at < clock.vacation_from_unix_ms || (early ? at > until : at != until) ||
          event.vacation_days_left() !=
              clock.vacation_days_left + static_cast<uint32_t>((until - at) / kDayMs)) {
        return Reject("", "a vacation's end that does not follow from its start");
      }
      return {};
    }
    default:
      return Reject("", "a clock event of unknown kind " + std::to_string(event.kind()));
  }
}

uint8_t Match::ApplyClock(const storage::ClockEvent& event, uint64_t seq) {
  const Seat seat = SeatOfStored(event.seat()).value_or(Seat::kSideA);
  SeatClock& clock = clocks_[SeatIndex(seat)];
  switch (static_cast<v1::ClockEventKind>(event.kind())) {
    case v1::CLOCK_EVENT_KIND_BANK_DRAWN:
      clock.bank_left_ms = static_cast<int64_t>(event.bank_left_ms());
      return 0;
    case v1::CLOCK_EVENT_KIND_TIME_EXPIRED:
      clock.bank_left_ms = 0;
      if (event.action() == "match_lost") {
        decided_ = Decided{.winner = engine::Opponent(seat), .loser = seat, .seq = seq};
        // The match's result, unless the director decides otherwise (docs/tournaments.md).
        results_.Decide(0,
                        seat == Seat::kSideA ? v1::RESULT_OUTCOME_SIDE_B_WON
                                             : v1::RESULT_OUTCOME_SIDE_A_WON,
                        std::string(engine::Name(seat)) + " lost on time");
        return 3;  // nothing more can be played
      }
      return 0;
    case v1::CLOCK_EVENT_KIND_VACATION_STARTED:
      clock.vacation_from_unix_ms = event.at_unix_ms();
      clock.vacation_until_unix_ms = event.vacation_until_unix_ms();
      clock.vacation_days_left = event.vacation_days_left();
      return 0;
    case v1::CLOCK_EVENT_KIND_VACATION_ENDED:
      // The time away within the current step moves the seat's deadlines for good.
      if (deadline_unix_ms_ != 0) {
        clock.away_ms += std::max<int64_t>(
            0, event.at_unix_ms() - std::max(clock.vacation_from_unix_ms, step_started_unix_ms_));
      }
      clock.vacation_from_unix_ms = 0;
      clock.vacation_until_unix_ms = 0;
      clock.vacation_days_left = event.vacation_days_left();
      return 0;
    default:
      return 0;
  }
}

Result<Match::Plan> Match::PlanVacation(Seat seat, const v1::TakeVacation& vacation,
                                        const std::string& command_id) const {
  if (!Paced() || identity_.settings.pace().vacation_days() == 0) {
    return Reject("", "this match gives no vacation days (its pace has none)");
  }
  const SeatClock& clock = clocks_[SeatIndex(seat)];
  const int64_t now = services_.clock.NowUnixMs();
  storage::StoredEvent stored;
  if (vacation.days() == 0) {
    if (clock.vacation_until_unix_ms == 0) {
      return Reject("", "take_vacation.days 0 ends a vacation, and " +
                            std::string(engine::Name(seat)) + " is not on vacation");
    }
    stored = ClockEventOf(seat, v1::CLOCK_EVENT_KIND_VACATION_ENDED, now);
    stored.mutable_clock()->set_vacation_days_left(
        clock.vacation_days_left +
        static_cast<uint32_t>((clock.vacation_until_unix_ms - now) / kDayMs));
  } else {
    if (clock.vacation_until_unix_ms != 0) {
      return Reject("", std::string(engine::Name(seat)) + " is on vacation until " +
                            UtcTime(clock.vacation_until_unix_ms) +
                            " already; end it first (days 0)");
    }
    if (vacation.days() > clock.vacation_days_left) {
      return Reject("", "take_vacation.days: " + std::to_string(vacation.days()) + " asked, " +
                            std::to_string(clock.vacation_days_left) + " left");
    }
    stored = ClockEventOf(seat, v1::CLOCK_EVENT_KIND_VACATION_STARTED, now);
    storage::ClockEvent& started = *stored.mutable_clock();
    started.set_vacation_days(vacation.days());
    started.set_vacation_until_unix_ms(now + vacation.days() * kDayMs);
    started.set_vacation_days_left(clock.vacation_days_left - vacation.days());
  }
  stored.mutable_clock()->set_command_id(command_id);
  Plan plan;
  plan.setup = setup_;
  plan.state = state_;
  plan.started = started_;
  plan.seat = seat;
  plan.command_id = command_id;
  plan.entries.push_back(Planned::Of(std::move(stored)));
  return plan;
}

void Match::SweepClocks() {
  const int64_t now = services_.clock.NowUnixMs();
  // A vacation that is over ends at its last moment (so its length is the days taken).
  for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
    const SeatClock& clock = clocks_[SeatIndex(seat)];
    if (clock.vacation_until_unix_ms == 0 || now < clock.vacation_until_unix_ms) continue;
    storage::StoredEvent ended =
        ClockEventOf(seat, v1::CLOCK_EVENT_KIND_VACATION_ENDED, clock.vacation_until_unix_ms);
    ended.mutable_clock()->set_vacation_days_left(clock.vacation_days_left);
    Plan plan;
    plan.setup = setup_;
    plan.state = state_;
    plan.started = started_;
    plan.seat = seat;
    plan.entries.push_back(Planned::Of(std::move(ended)));
    return Append(std::move(plan), [](std::vector<MessagePtr>) {}, "");
  }
  if (!started_ || deadline_unix_ms_ == 0 || host_.Ended(state_)) return;
  const Awaiting awaiting = host_.AwaitingOf(state_);
  // One seat at a time, as without a pace (the next sweep takes the other's): the one whose time
  // ran out first, the rules' order on a tie.
  std::optional<Seat> expired;
  for (Seat seat : awaiting.seats) {
    if (now >= FinalDeadline(seat) &&
        (!expired || FinalDeadline(seat) < FinalDeadline(*expired))) {
      expired = seat;
    }
  }
  if (expired) return Expire(*expired, awaiting, now);
  SendReminders(awaiting, now);
}

void Match::Expire(Seat seat, const Awaiting& awaiting, int64_t now) {
  const std::string_view action = ExpiryAction(identity_.settings.pace());
  spdlog::info("match {}: {}'s time for {} ran out; {}", identity_.id, engine::Name(seat),
               awaiting.step, action);
  storage::StoredEvent stored = ClockEventOf(seat, v1::CLOCK_EVENT_KIND_TIME_EXPIRED, now);
  storage::ClockEvent& expired = *stored.mutable_clock();
  expired.set_drawn_ms(static_cast<uint64_t>(clocks_[SeatIndex(seat)].bank_left_ms));
  expired.set_bank_left_ms(0);
  expired.set_step(AwaitedWord(awaiting.kind));
  expired.set_action(std::string(action));
  Planned clock = Planned::Of(std::move(stored));
  if (action == "match_lost") {
    clock.stored.mutable_clock()->set_loser(StoredSeat(seat));
    clock.stored.mutable_clock()->set_winner(StoredSeat(engine::Opponent(seat)));
    Plan plan;
    plan.setup = setup_;
    plan.state = state_;
    plan.started = started_;
    plan.seat = seat;
    plan.decides = true;
    plan.entries.push_back(std::move(clock));
    return Append(std::move(plan), [](std::vector<MessagePtr>) {}, "");
  }
  Result<Plan> plan = PlanCommand(seat, v1::ClientMessage(), true);
  if (!plan) {
    spdlog::error("match {}: the rules default for {} cannot be taken: {}", identity_.id,
                  engine::Name(seat), engine::Describe(plan.error()));
    return;
  }
  plan->entries.insert(plan->entries.begin(), std::move(clock));
  Append(std::move(*plan), [](std::vector<MessagePtr>) {}, "");
}

bool Match::ReadReminders() {
  if (reminders_read_) return true;
  auto logged = services_.store.Read(RemindersId(identity_.id));
  if (!logged && logged.error().code != persistence::StoreErrorCode::kNotFound) {
    spdlog::warn("match {}: reminder log unreadable: {}", identity_.id, logged.error().message);
    return false;
  }
  reminders_sent_.clear();
  reminders_next_ = 1;
  if (logged) {
    for (const persistence::Event& entry : *logged) {
      storage::ReminderSent sent;
      if (!sent.ParseFromString(entry.payload)) continue;
      const std::optional<Seat> seat = SeatOfStored(sent.seat());
      if (!seat) continue;
      reminders_sent_.emplace(sent.deadline_seq(), SeatIndex(*seat), sent.seconds_before());
    }
    reminders_next_ = logged->size() + 1;
  }
  reminders_read_ = true;
  return true;
}

void Match::SendReminders(const Awaiting& awaiting, int64_t now) {
  const v1::Pace& pace = identity_.settings.pace();
  if (!services_.notices || reminder_appending_ || pace.reminder_seconds().empty()) return;
  NoticeSink& sink = *services_.notices;
  std::vector<std::string> payloads;
  MatchNotices notices{.match_id = identity_.id, .last_seq = seq_, .recorded_unix_ms = now,
                       .notices = {}};
  std::vector<std::tuple<uint64_t, size_t, uint32_t>> keys;
  const std::vector<std::string> words = host_.WaitingFor(state_);
  for (Seat seat : awaiting.seats) {
    const SeatClock& clock = clocks_[SeatIndex(seat)];
    if (clock.vacation_until_unix_ms != 0 || !sink.Wants(identity_.id, seat)) continue;
    const int64_t final_deadline = FinalDeadline(seat);
    bool due = false;
    // Every reminder time passed is recorded; the seat is told once (a server that was down
    // over two of them does not send both at once).
    for (uint32_t seconds : pace.reminder_seconds()) {
      if (now < final_deadline - static_cast<int64_t>(seconds) * 1000) continue;
      if (!ReadReminders()) return;
      const auto key = std::make_tuple(deadline_seq_, SeatIndex(seat), seconds);
      if (reminders_sent_.contains(key)) continue;
      storage::ReminderSent sent;
      sent.set_deadline_seq(deadline_seq_);
      sent.set_seat(StoredSeat(seat));
      sent.set_seconds_before(seconds);
      sent.set_deadline_unix_ms(final_deadline);
      payloads.push_back(proto::SerializeDeterministic(sent));
      keys.push_back(key);
      due = true;
    }
    if (!due) continue;
    SeatNotice notice{.kind = SeatNotice::Kind::kReminder, .seat = seat,
                      .awaited = AwaitedWord(awaiting.kind), .waiting_for = "",
                      .deadline_unix_ms = final_deadline};
    for (const std::string& line : words) {
      if (line.starts_with(engine::Name(seat))) notice.waiting_for = line;
    }
    notices.notices.push_back(std::move(notice));
  }
  if (payloads.empty()) return;
  for (const auto& key : keys) reminders_sent_.insert(key);
  persistence::AppendBatch batch;
  batch.match_id = RemindersId(identity_.id);
  batch.expected_seq = reminders_next_ - 1;
  reminders_next_ += payloads.size();
  batch.payloads = std::move(payloads);
  batch.recorded_unix_ms = now;
  // The notice and its entry in the reminder log are one transaction: once, across restarts.
  batch.notices = sink.Outbox(notices);
  const bool wake = !batch.notices.empty();
  reminder_appending_ = true;
  services_.store.Append(std::move(batch), [weak = weak_from_this(),
                                            lifeline = services_.lifeline, wake](
                                               persistence::StoreResult<persistence::Appended> done) {
    std::lock_guard alive(lifeline->mutex);
    if (!lifeline->alive) return;
    std::shared_ptr<Match> self = weak.lock();
    if (!self) return;
    if (wake && done) self->services_.notices->Committed();
    asio::post(self->strand_, [self, ok = done.has_value()] {
      self->reminder_appending_ = false;
      if (!ok) {
        // Not sent: the log is read again, and the next sweep tries again.
        spdlog::warn("match {}: a reminder could not be written", self->identity_.id);
        self->reminders_read_ = false;
      }
    });
  });
}

// ---- applying ---------------------------------------------------------------------------------

bool Match::CanRoll() {
  if (!chain_) {
    if (identity_.dice_chain_length == 0) {
      foreign_dice_ = true;
      chain_ = std::make_shared<persistence::SeedChain>(persistence::Seed{}, 1);
    } else {
      chain_ = std::make_shared<persistence::SeedChain>(
          services_.secrets->TopSeed(identity_.id), identity_.dice_chain_length);
      foreign_dice_ = chain_->commitment() != identity_.dice_commitment;
    }
  }
  return !foreign_dice_;
}

void Match::SignHead(Plan& plan, persistence::AppendBatch& batch) const {
  ChainAll(batch);
  const persistence::Hash& head = batch.hashes.back();
  const uint64_t seq = seq_ + batch.payloads.size();
  Planned planned;
  storage::HeadSigned& signed_head = *planned.stored.mutable_head_signed();
  signed_head.set_seq(seq);
  signed_head.set_hash(HashBytes(head));
  signed_head.set_signature(
      services_.secrets->Sign(persistence::HeadMessage(identity_.id, seq, head)));
  batch.payloads.push_back(proto::SerializeDeterministic(planned.stored));
  plan.entries.push_back(std::move(planned));
}

Situation Match::SituationOf(bool started, const AnyState& state, const SetupState& setup,
                             const Plan* plan) const {
  Situation situation;
  if (!started) {
    for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
      const size_t i = SeatIndex(seat);
      const bool entered = setup.parts[i] != nullptr;
      if (entered && setup.confirmed[i]) continue;
      const char* owed = entered ? ": confirm the set-up" : ": enter its units";
      // Once the other side has confirmed, the match waits for this seat alone: a step of its
      // own, so that the seat is told (a player by mail learns it is up to him now).
      const size_t other = 1 - i;
      const bool alone = setup.parts[other] != nullptr && setup.confirmed[other];
      situation.seats[i] = {.step = std::string(entered ? "setup/confirm" : "setup/enter") +
                                    (alone ? "/alone" : ""),
                            .awaited = "set-up",
                            .waiting_for = std::string(engine::Name(seat)) + owed};
    }
    return situation;
  }
  situation.ended = host_.Ended(state);
  const Awaiting awaiting = host_.AwaitingOf(state);
  const std::vector<std::string> words = host_.WaitingFor(state);
  for (Seat seat : awaiting.seats) {
    Situation::Seat& owed = situation.seats[SeatIndex(seat)];
    owed.step = awaiting.step.empty() ? "step" : awaiting.step;
    owed.awaited = awaiting.kind == Awaiting::Kind::kAnnouncement ? "announcement"
                   : awaiting.kind == Awaiting::Kind::kChoice     ? "choice"
                                                                  : "declaration";
    for (const std::string& line : words) {
      if (line.starts_with(engine::Name(seat))) owed.waiting_for = line;
    }
    if (owed.waiting_for.empty() && !words.empty()) owed.waiting_for = words.front();
  }
  // The deadline of the step: set by the plan's events, or kept from before for the same step.
  if (awaiting.kind != Awaiting::Kind::kNothing) {
    if (awaiting.step == deadline_step_) situation.deadline_unix_ms = deadline_unix_ms_;
    if (plan != nullptr) {
      for (const Planned& planned : plan->entries) {
        if (planned.stored.has_ruleset_event() &&
            planned.stored.ruleset_event().deadline_unix_ms() != 0) {
          situation.deadline_unix_ms = planned.stored.ruleset_event().deadline_unix_ms();
        }
      }
    }
  }
  return situation;
}

std::vector<persistence::OutboxNotice> Match::NoticesOf(const Plan& plan, uint64_t last_seq,
                                                        int64_t recorded_unix_ms,
                                                        const Plan* before) const {
  NoticeSink& sink = *services_.notices;
  if (!sink.Wants(identity_.id, Seat::kSideA) && !sink.Wants(identity_.id, Seat::kSideB)) {
    return {};
  }
  if (plan.decides) {
    // Lost on time: both seats are told the match is over, and why.
    const std::string why = std::string(engine::Name(plan.seat)) + " lost on time";
    MatchNotices ended{.match_id = identity_.id,
                       .last_seq = last_seq,
                       .recorded_unix_ms = recorded_unix_ms,
                       .notices = {}};
    for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
      ended.notices.push_back(SeatNotice{.kind = SeatNotice::Kind::kEnded, .seat = seat,
                                         .awaited = "", .waiting_for = why,
                                         .deadline_unix_ms = 0});
    }
    return sink.Outbox(ended);
  }
  std::vector<Seat> defaulted;
  for (const Planned& planned : plan.entries) {
    if (!planned.stored.has_ruleset_event()) continue;
    const storage::RulesetEvent& logged = planned.stored.ruleset_event();
    if (logged.has_cause() && logged.cause().deadline_default()) {
      if (const auto seat = SeatOfStored(logged.cause().seat())) defaulted.push_back(*seat);
    }
  }
  MatchNotices notices{.match_id = identity_.id,
                       .last_seq = last_seq,
                       .recorded_unix_ms = recorded_unix_ms,
                       .notices = NoticesBetween(
                           before ? SituationOf(before->started, before->state, before->setup,
                                                before)
                                  : SituationOf(started_, state_, setup_, nullptr),
                           SituationOf(plan.started, plan.state, plan.setup, &plan),
                           plan.command_id.empty() ? std::nullopt : std::optional(plan.seat),
                           defaulted)};
  if (notices.notices.empty()) return {};
  return sink.Outbox(notices);
}

std::vector<RenderedEvent> Match::Commit(Plan plan, uint64_t first_seq, int64_t recorded_unix_ms,
                                         const persistence::Hash& head) {
  const bool was_started = started_;
  const bool was_ended = started_ && host_.Ended(state_);
  head_ = head;
  state_ = std::move(plan.state);
  setup_ = std::move(plan.setup);
  started_ = plan.started;
  if (plan.forces) {
    forces_ = *plan.forces;
    view_parts_ = {};
  }
  uint64_t seq = first_seq;
  bool deadline_set = false;
  std::vector<RenderedEvent> committed;
  committed.reserve(plan.entries.size());
  for (Planned& planned : plan.entries) {
    const auto stamped = [&](v1::MatchEvent event) {
      v1::ServerMessage message;
      event.set_match_id(identity_.id);
      event.set_seq(seq);
      event.set_recorded_unix_ms(recorded_unix_ms);
      *message.mutable_event() = std::move(event);
      return message;
    };
    RenderedEvent& rendered = committed.emplace_back();
    if (const int field = planned.event ? host_.LoggedEventField(*planned.event) : 0) {
      rendered.fill(RenderLogged(planned, field, seq, recorded_unix_ms));
    } else if (planned.event) {
      rendered = RenderShown(planned, seq, recorded_unix_ms);
    } else if (SameForEveryViewer(planned)) {
      rendered.fill(MakeMessage(stamped(RenderEvent(planned, Viewer::kDirector))));
    } else {
      std::array<v1::ServerMessage, 4> messages;
      std::array<v1::MatchEvent, 4> rendered_for = RenderEventForEach(planned);
      for (Viewer viewer : kViewers) {
        messages[ViewerIndex(viewer)] = stamped(std::move(rendered_for[ViewerIndex(viewer)]));
      }
      // Viewers who see the event alike share one message, serialized once.
      for (size_t i = 0; i < rendered.size(); ++i) {
        std::string bytes = messages[i].SerializeAsString();
        for (size_t j = 0; j < i && !rendered[i]; ++j) {
          if (*rendered[j]->Frame(proto::FrameKind::kBinary) == bytes) rendered[i] = rendered[j];
        }
        if (!rendered[i]) {
          rendered[i] = std::make_shared<const Outbound>(std::move(messages[i]), std::move(bytes));
        }
      }
    }
    recent_.Push(seq, rendered);
    uint8_t material = 3;
    if (planned.event) {
      material = static_cast<uint8_t>((host_.Material(*planned.event, Seat::kSideA) ? 1 : 0) |
                                      (host_.Material(*planned.event, Seat::kSideB) ? 2 : 0));
      const storage::RulesetEvent& logged = planned.stored.ruleset_event();
      if (logged.deadline_unix_ms() != 0) {
        deadline_unix_ms_ = logged.deadline_unix_ms();
        deadline_seq_ = seq;
        deadline_set = true;
      }
      if (logged.dice_step() != 0) dice_steps_ = logged.dice_step();
      if (logged.has_cause() && !logged.cause().client_entropy().empty()) {
        if (const auto by = SeatOfStored(logged.cause().seat())) {
          entropy_[SeatIndex(*by)] = logged.cause().client_entropy();
        }
      }
    } else if (planned.stored.has_setup_confirmed() || planned.stored.has_director_flag() ||
               planned.stored.has_head_signed()) {
      material = 0;
    } else if (planned.stored.has_result_recorded()) {
      // A result is the players' and the director's account: it changes nothing they answer.
      material = 0;
      const storage::ResultRecorded& recorded = planned.stored.result_recorded();
      results_.Record(recorded.seat() == storage::SEAT_SIDE_A   ? ResultSource::kSideA
                      : recorded.seat() == storage::SEAT_SIDE_B ? ResultSource::kSideB
                                                                : ResultSource::kDirector,
                      recorded.combat(), static_cast<v1::ResultOutcome>(recorded.outcome()));
    } else if (planned.stored.has_clock()) {
      material = ApplyClock(planned.stored.clock(), seq);
    } else if (planned.stored.has_locations_ordered()) {
      const storage::LocationsOrdered& ordered = planned.stored.locations_ordered();
      const Seat by = SeatOfStored(ordered.seat()).value_or(Seat::kSideA);
      if (!order_ || order_->remaining.empty()) order_ = LocationOrder{.attacker = by, .resolved = {}, .remaining = {}};
      order_->remaining.assign(ordered.locations().begin(), ordered.locations().end());
    }
    material_.push_back(material);
    ++seq;
  }
  seq_ = seq - 1;
  // Forces that persist: a close combat that begins takes in the units it was set up with; one
  // that ends folds every result back into the forces.
  const bool ruleset_events = std::any_of(plan.entries.begin(), plan.entries.end(),
                                          [](const Planned& p) { return p.event.has_value(); });
  const bool began = started_ && (!was_started || was_ended) && ruleset_events;
  const bool ends = started_ && host_.Ended(state_) && (!was_ended || began);
  // What the close combat leaves, for forces that persist: worked out once, when needed.
  std::optional<CombatOutcome> outcome;
  const auto outcome_of = [&]() -> const CombatOutcome& {
    if (!outcome) outcome = host_.OutcomeOf(state_);
    return *outcome;
  };
  if (began) {
    std::string location = host_.FactsOf(setup_.parts).location;
    if (location.empty() && host_.CarriesForces()) location = outcome_of().location;
    combats_.push_back(std::move(location));
  }
  if (host_.CarriesForces() && ends && !began && plan.folded && plan.folded->seq == seq_) {
    // PlanMeleeAfter folded this very outcome at this very event to plan the next close combat.
    forces_ = std::move(plan.folded->forces);
    locations_ = std::move(plan.folded->locations);
    if (plan.folded->changed) view_parts_ = {};
  } else if (host_.CarriesForces() && (began || ends)) {
    // The kept view parts (the forces as each viewer sees them) go only if the forces changed:
    // a Melee that goes on with the same units keeps them.
    bool changed = false;
    if (began) {
      const CombatOutcome& begun = outcome_of();
      changed = FoldOutcome(forces_, begun, first_seq, false);
      if (ccph_attacker_ && begun.attacker && *begun.attacker != *ccph_attacker_) ++ccph_;
      if (begun.attacker) ccph_attacker_ = begun.attacker;
    }
    if (ends) changed = FoldEnded(outcome_of(), seq_, forces_, locations_) || changed;
    if (changed) view_parts_ = {};
  }
  // The deadline belongs to the step it was set for; another step without one has none.
  const Awaiting awaiting = started_ ? host_.AwaitingOf(state_) : Awaiting{};
  if (awaiting.kind == Awaiting::Kind::kNothing) {
    deadline_unix_ms_ = 0;
    deadline_step_.clear();
  } else if (deadline_set) {
    deadline_step_ = awaiting.step;
    // A new step: its own time, from now; vacation taken in the step before is spent.
    step_started_unix_ms_ =
        deadline_unix_ms_ - static_cast<int64_t>(DeadlineSeconds(awaiting.kind)) * 1000;
    for (SeatClock& clock : clocks_) clock.away_ms = 0;
  } else if (awaiting.step != deadline_step_) {
    deadline_unix_ms_ = 0;
    deadline_step_ = awaiting.step;
  }
  if (decided_) {
    deadline_unix_ms_ = 0;
    deadline_step_.clear();
  }
  // A11.12: the close combat in the next ordered Location is over.
  if (started_ && host_.Ended(state_) && !was_ended) {
    PassOrdered(host_.FactsOf(setup_.parts).location, order_);
  }
  if (!plan.command_id.empty()) {
    answers_.Record(plan.Actor(), plan.command_id,
                    AnswerBook::Answer{.seq = seq_,
                                       .receipt = plan.receipt,
                                       .seal_nonce = plan.seal_nonce,
                                       .sealed = plan.sealed});
  }
  const bool on_vacation = std::any_of(clocks_.begin(), clocks_.end(), [](const SeatClock& c) {
    return c.vacation_until_unix_ms != 0;
  });
  owes_timer_.store(!decided_ && (deadline_unix_ms_ != 0 || (Paced() && on_vacation)),
                    std::memory_order_relaxed);
  return committed;
}

RenderedEvent Match::RenderShown(const Planned& planned, uint64_t seq, int64_t recorded_unix_ms) {
  const storage::RulesetEvent& logged = planned.stored.ruleset_event();
  const size_t renderings = planned.shown.size();
  // What the commit adds to each rendering: the stamp and the fields from the log entry (by the
  // rendering's kind), then the seals' openings the viewer gets. Each part is serialized once,
  // for every rendering it goes to, and written after the rendering's bytes, which protobuf
  // merges into the one message the tree edits made before (a sub-message met twice is merged,
  // a repeated field appended to, a scalar set last wins).
  std::array<std::string, 4> added;
  std::array<const std::string*, 4> added_to{};  // by rendering
  for (size_t i = 0; i < renderings; ++i) {
    for (size_t j = 0; j < i && added_to[i] == nullptr; ++j) {
      if (planned.shown_kind[j] == planned.shown_kind[i]) added_to[i] = added_to[j];
    }
    if (added_to[i] != nullptr) continue;
    v1::MatchEvent fields;
    fields.set_match_id(identity_.id);
    fields.set_seq(seq);
    fields.set_recorded_unix_ms(recorded_unix_ms);
    AddLoggedFields(logged, planned.shown_kind[i], fields);
    added[i] = fields.SerializeAsString();
    added_to[i] = &added[i];
  }
  RenderedEvent out;
  if (renderings == 1) {
    out.fill(Outbound::FromBinary(
        FramedBytes(v1::ServerMessage::kEventFieldNumber, {planned.shown[0], added[0]})));
    return out;
  }
  const Openings openings = OpenSeals(planned, seq);
  // Viewers who see the event alike share one message.
  for (size_t i = 0; i < out.size(); ++i) {
    const uint8_t chunks = openings.to[i];
    std::string bytes =
        FramedBytes(v1::ServerMessage::kEventFieldNumber,
                    {planned.shown[i], *added_to[i], (chunks & 1) != 0 ? openings.chunks[0] : "",
                     (chunks & 2) != 0 ? openings.chunks[1] : ""});
    for (size_t j = 0; j < i && !out[i]; ++j) {
      if (*out[j]->Frame(proto::FrameKind::kBinary) == bytes) out[i] = out[j];
    }
    if (!out[i]) out[i] = Outbound::FromBinary(std::move(bytes));
  }
  return out;
}

Match::Openings Match::OpenSeals(const Planned& planned, uint64_t seq) {
  Openings openings;
  if (!planned.event) return openings;
  const storage::Cause& cause = planned.stored.ruleset_event().cause();
  const auto sealer = SeatOfStored(cause.seat());
  if (!cause.seal_nonce().empty() && sealer &&
      planned.shown_kind[ViewerIndex(Viewer::kDirector)] == v1::MatchEvent::kDeclarationSealed) {
    // A new seal: its opening goes to whoever sees the declaration itself (the sealer; everyone
    // when the rules make it public at once), and waits for the reveal for the others.
    v1::SealOpening opening;
    opening.set_seat(WireSeat(engine::ViewerOf(*sealer)));
    opening.set_sealed_seq(seq);
    opening.set_receipt(cause.receipt());
    opening.set_nonce(cause.seal_nonce());
    opening.set_sealed(cause.sealed());
    // Whoever is shown the sealer's own rendering sees the declaration already.
    const std::string& owners = planned.shown[ViewerIndex(engine::ViewerOf(*sealer))];
    bool all = true;
    for (Viewer viewer : kViewers) {
      if (viewer == engine::ViewerOf(*sealer) || planned.shown[ViewerIndex(viewer)] == owners) {
        openings.to[ViewerIndex(viewer)] = 1;
      } else {
        all = false;
      }
    }
    v1::MatchEvent chunk;
    *chunk.mutable_declaration_sealed()->mutable_opening() = opening;
    openings.chunks[0] = chunk.SerializeAsString();
    unopened_[SeatIndex(*sealer)] =
        all ? std::nullopt : std::optional<v1::SealOpening>(std::move(opening));
    return openings;
  }
  if (planned.shown_kind[ViewerIndex(Viewer::kDirector)] !=
      v1::MatchEvent::kDeclarationsRevealed) {
    return openings;
  }
  // A reveal opens the commitments of the declarations it shows: each side's opening is one
  // chunk, given to every viewer the reveal shows that side's declaration to.
  std::array<bool, 2> opened{};
  for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
    const size_t i = SeatIndex(seat);
    if (!unopened_[i]) continue;
    for (Viewer viewer : kViewers) {
      const bool shown = (planned.revealed_sides[ViewerIndex(viewer)] & (i == 0 ? 1 : 2)) != 0;
      if (!shown) continue;
      openings.to[ViewerIndex(viewer)] |= static_cast<uint8_t>(i == 0 ? 1 : 2);
      if (viewer == Viewer::kSpectator) opened[i] = true;
    }
    v1::MatchEvent chunk;
    *chunk.mutable_declarations_revealed()->add_openings() = *unopened_[i];
    openings.chunks[i] = chunk.SerializeAsString();
  }
  for (size_t i = 0; i < 2; ++i) {
    if (opened[i]) unopened_[i].reset();
  }
  return openings;
}

v1::MatchEvent Match::RenderEvent(Planned& planned, Viewer viewer) const {
  v1::MatchEvent out;
  const storage::StoredEvent& stored = planned.stored;
  if (stored.has_match_created()) {
    v1::MatchOpened& opened = *out.mutable_match_opened();
    *opened.mutable_settings() = identity_.settings;
    opened.set_ruleset_version(identity_.ruleset_version);
    opened.set_dice_commitment(stored.match_created().dice_commitment());
    opened.set_dice_chain_length(stored.match_created().dice_chain_length());
    opened.set_server_public_key(stored.match_created().server_public_key());
  } else if (stored.has_head_signed()) {
    v1::HeadSigned& shown = *out.mutable_head_signed();
    shown.set_seq(stored.head_signed().seq());
    shown.set_hash(stored.head_signed().hash());
    shown.set_signature(stored.head_signed().signature());
  } else if (stored.has_setup_submitted()) {
    const Seat owner = *SeatOfStored(stored.setup_submitted().seat());
    v1::SubmitSetup part;
    part.ParseFromString(stored.setup_submitted().part());
    v1::SetupSubmitted& submitted = *out.mutable_setup_submitted();
    submitted.set_seat(WireSeat(engine::ViewerOf(owner)));
    const v1::SubmitSetup shown = host_.MaskSetup(part, owner, viewer);
    if (shown.has_asl()) *submitted.mutable_asl() = shown.asl();
    if (shown.has_vv()) *submitted.mutable_vv() = shown.vv();
    if (shown.has_coc()) *submitted.mutable_coc() = shown.coc();
  } else if (stored.has_setup_confirmed()) {
    const Seat owner = *SeatOfStored(stored.setup_confirmed().seat());
    out.mutable_setup_confirmed()->set_seat(WireSeat(engine::ViewerOf(owner)));
  } else if (stored.has_director_flag()) {
    const Seat by = *SeatOfStored(stored.director_flag().seat());
    v1::DirectorFlag& flag = *out.mutable_director_flag();
    flag.set_seat(WireSeat(engine::ViewerOf(by)));
    flag.set_seq(stored.director_flag().seq());
    if (viewer == Viewer::kDirector || viewer == engine::ViewerOf(by)) {
      flag.set_comment(stored.director_flag().comment());
    }
  } else if (stored.has_units_updated()) {
    const Seat owner = *SeatOfStored(stored.units_updated().seat());
    v1::UpdateUnits updates;
    updates.ParseFromString(stored.units_updated().updates());
    *out.mutable_units_updated() = MaskUpdates(host_, updates, owner, *planned.forces_before,
                                               *planned.forces_after, viewer);
  } else if (stored.has_result_recorded()) {
    const storage::ResultRecorded& recorded = stored.result_recorded();
    v1::ResultRecorded& shown = *out.mutable_result_recorded();
    shown.set_seat(recorded.seat() == storage::SEAT_DIRECTOR
                       ? v1::SEAT_DIRECTOR
                       : WireSeat(engine::ViewerOf(*SeatOfStored(recorded.seat()))));
    shown.set_combat(recorded.combat());
    shown.set_outcome(static_cast<v1::ResultOutcome>(recorded.outcome()));
    shown.set_note(recorded.note());
  } else if (stored.has_locations_ordered()) {
    v1::LocationsOrdered& ordered = *out.mutable_locations_ordered();
    ordered.set_seat(WireSeat(engine::ViewerOf(
        SeatOfStored(stored.locations_ordered().seat()).value_or(Seat::kSideA))));
    *ordered.mutable_locations() = stored.locations_ordered().locations();
  } else if (stored.has_clock()) {
    // Clocks are public: every viewer gets the whole event.
    const storage::ClockEvent& logged = stored.clock();
    v1::ClockEvent& clock = *out.mutable_clock();
    clock.set_seat(WireSeat(engine::ViewerOf(SeatOfStored(logged.seat()).value_or(Seat::kSideA))));
    clock.set_kind(static_cast<v1::ClockEventKind>(logged.kind()));
    clock.set_at_unix_ms(logged.at_unix_ms());
    clock.set_drawn_ms(logged.drawn_ms());
    clock.set_bank_left_ms(logged.bank_left_ms());
    clock.set_step(logged.step());
    clock.set_action(logged.action());
    if (const auto winner = SeatOfStored(logged.winner())) {
      clock.set_winner(WireSeat(engine::ViewerOf(*winner)));
    }
    if (const auto loser = SeatOfStored(logged.loser())) {
      clock.set_loser(WireSeat(engine::ViewerOf(*loser)));
    }
    clock.set_vacation_days(logged.vacation_days());
    clock.set_vacation_until_unix_ms(logged.vacation_until_unix_ms());
    clock.set_vacation_days_left(logged.vacation_days_left());
  }
  // (A ruleset event is rendered by RenderShown or RenderLogged, never here.)
  return out;
}

std::array<v1::MatchEvent, 4> Match::RenderEventForEach(Planned& planned) const {
  std::array<v1::MatchEvent, 4> out;
  for (Viewer viewer : kViewers) out[ViewerIndex(viewer)] = RenderEvent(planned, viewer);
  return out;
}

void Match::ApplyAndShow(const RulesetHost& host, AnyState& state, AnyEvent event,
                         Planned& planned) {
  host.ruleset().Apply(state, event);
  if (host.LoggedEventField(event) == 0) {
    const std::string& logged = planned.stored.ruleset_event().event();
    // Rendered once for every viewer when it is shown alike, else for each. A host that renders
    // around the logged bytes leaves its own message out of the trees: a viewer who sees it as
    // logged is sent those bytes after the rest of the MatchEvent, not a copy of them parsed
    // into a tree and serialized again.
    static constexpr std::array<Viewer, 1> kAlike = {Viewer::kDirector};
    const std::span<const Viewer> viewers = host.SameForEveryViewer(event)
                                                ? std::span<const Viewer>(kAlike)
                                                : std::span<const Viewer>(kViewers);
    const int field = host.AroundField();
    ShownAround shown;
    if (field != 0) {
      host.RenderAround(logged, state, event, viewers, shown);
    } else {
      for (size_t k = 0; k < viewers.size(); ++k) {
        host.RenderEvent(logged, state, event, viewers[k], shown.around[k]);
      }
    }
    planned.shown.reserve(viewers.size());
    for (size_t i = 0; i < kViewers.size(); ++i) {
      const size_t k = viewers.size() == 1 ? 0 : i;
      const v1::MatchEvent& tree = shown.around[k];
      planned.shown_kind[i] = tree.kind_case();
      if (tree.has_declarations_revealed()) {
        planned.revealed_sides[i] =
            static_cast<uint8_t>((tree.declarations_revealed().has_side_a() ? 1 : 0) |
                                 (tree.declarations_revealed().has_side_b() ? 2 : 0));
      }
      if (i >= viewers.size()) continue;
      std::string& bytes = planned.shown.emplace_back(
          field == 0 ? proto::SerializeDeterministic(tree)
                     : proto::SerializeDeterministicWith(
                           tree, field, shown.as_logged[k] ? logged : shown.masked[k]));
      for (size_t p = 0; p < shown.parts.size(); ++p) {
        if ((shown.parts_to[k] & (1U << p)) != 0) bytes += shown.parts[p];
      }
    }
  }
  planned.event = std::move(event);
}

void Match::AddLoggedFields(const storage::RulesetEvent& logged, v1::MatchEvent::KindCase kind,
                            v1::MatchEvent& out) {
  if (logged.cause().deadline_default()) out.set_by_default(true);
  if (logged.dice_step() != 0) {
    out.set_dice_step(logged.dice_step());
    out.set_revealed_seed(logged.revealed_seed());
  }
  if (kind == v1::MatchEvent::kDeclarationSealed) {
    out.mutable_declaration_sealed()->set_receipt(logged.cause().receipt());
  }
  if (kind == v1::MatchEvent::kChoiceRequested) {
    out.mutable_choice_requested()->set_deadline_unix_ms(logged.deadline_unix_ms());
  }
}

MessagePtr Match::RenderLogged(const Planned& planned, int field, uint64_t seq,
                               int64_t recorded_unix_ms) const {
  // The fields RenderEvent sets around a ruleset event, then the logged event itself: their
  // numbers are below the rulesets' (32..63), so these bytes are the message's serialization.
  const storage::RulesetEvent& logged = planned.stored.ruleset_event();
  v1::MatchEvent event;
  event.set_match_id(identity_.id);
  event.set_seq(seq);
  event.set_recorded_unix_ms(recorded_unix_ms);
  AddLoggedFields(logged, v1::MatchEvent::KIND_NOT_SET, event);
  return Outbound::FromBinary(
      FramedField(v1::ServerMessage::kEventFieldNumber, event,
                  {FieldHeader(field, logged.event().size()), logged.event()}));
}

const std::string& Match::SetupView(Viewer viewer) const {
  std::optional<KeptSetupView>& kept = setup_views_[ViewerIndex(viewer)];
  if (kept && kept->parts == setup_.parts) return kept->bytes;
  v1::MatchView parts;
  for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
    const std::shared_ptr<const v1::SubmitSetup>& part = setup_.parts[SeatIndex(seat)];
    if (!part) continue;
    // (Moved, not copied, into the view: a part holds every unit of its side.)
    v1::SubmitSetup shown = host_.MaskSetup(*part, seat, viewer);
    if (shown.has_asl()) {
      *(seat == Seat::kSideA ? parts.mutable_side_a_setup() : parts.mutable_side_b_setup()) =
          std::move(*shown.mutable_asl());
    }
    if (shown.has_vv()) {
      *(seat == Seat::kSideA ? parts.mutable_side_a_vv_setup()
                             : parts.mutable_side_b_vv_setup()) = std::move(*shown.mutable_vv());
    }
    if (shown.has_coc()) {
      *(seat == Seat::kSideA ? parts.mutable_side_a_coc_setup()
                             : parts.mutable_side_b_coc_setup()) = std::move(*shown.mutable_coc());
    }
  }
  kept = KeptSetupView{.parts = setup_.parts, .bytes = parts.SerializeAsString()};
  return kept->bytes;
}

bool Match::SameForEveryViewer(const Planned& planned) const {
  const storage::StoredEvent& stored = planned.stored;
  if (planned.event) return host_.SameForEveryViewer(*planned.event);
  // Public by nature (RenderEvent shows them whole to everyone). Anything else is not assumed to
  // be: a set-up part and unit updates are masked, a flag's comment is the flagging seat's and
  // the director's.
  return stored.has_match_created() || stored.has_head_signed() ||
         stored.has_setup_confirmed() || stored.has_result_recorded() ||
         stored.has_locations_ordered() || stored.has_clock();
}

const std::shared_ptr<const std::string>& Match::ViewPartsBytes(Viewer viewer) const {
  KeptViewParts& kept = view_parts_[ViewerIndex(viewer)];
  if (!kept.bytes) {
    // WriteForces depends on the viewer only through HiddenFrom: viewers from whom nothing is
    // hidden see the same bytes, rendered once.
    kept.whole = std::none_of(forces_.begin(), forces_.end(), [&](const Force& force) {
      return std::any_of(force.units.begin(), force.units.end(), [&](const v1::ForceUnit& unit) {
        return host_.HiddenFrom(unit, viewer);
      });
    });
    for (const KeptViewParts& other : view_parts_) {
      if (kept.whole && other.whole && other.bytes) kept.bytes = other.bytes;
    }
    if (!kept.bytes) {
      // The bytes of a MatchView holding only the settings and the forces.
      std::string bytes;
      std::size_t& last_size = view_parts_sizes_[ViewerIndex(viewer)];
      bytes.reserve(last_size + kViewPartsSlack);
      {
        google::protobuf::io::StringOutputStream stream(&bytes);
        google::protobuf::io::CodedOutputStream out(&stream);
        proto::WriteSubmessage(v1::MatchView::kSettingsFieldNumber, identity_.settings, out);
        WriteForces(host_, forces_, viewer, out, &unit_bytes_);
      }
      last_size = bytes.size();
      kept.bytes = std::make_shared<const std::string>(std::move(bytes));
    }
  }
  return kept.bytes;
}

MessagePtr Match::RenderView(Viewer viewer, bool with_parts) const {
  // The view is sent as bytes: what changes with every event is serialized here, and the
  // settings and the forces (ViewParts) are appended as they were serialized last. Protobuf
  // merges the fields of concatenated bytes, so a client parses one MatchView.
  // The message itself is kept from one view to the next on each thread: cleared, it keeps its
  // parts and their strings, so that a view is built without allocating them again. (The asl
  // view, a oneof case, is taken out before the clear, which would delete it, and put back
  // cleared, the parts inside it that a clear deletes set aside for the codec to fill again
  // (KeepPartsOf); its host fills it in place. The other rulesets' are built anew.)
  thread_local v1::MatchView view;
  thread_local std::unique_ptr<melee::asl::v1::AslView> asl_part;
  if (view.has_asl()) asl_part.reset(view.release_asl());
  view.Clear();
  view.set_match_id(identity_.id);
  view.set_seq(seq_);
  view.set_seat(WireSeat(viewer));
  view.set_stage(!started_ ? v1::STAGE_SETUP
                           : (host_.Ended(state_) ? v1::STAGE_ENDED : v1::STAGE_PLAYING));
  for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
    const size_t i = SeatIndex(seat);
    v1::SideStatus& status = seat == Seat::kSideA ? *view.mutable_side_a() : *view.mutable_side_b();
    status.set_submitted(setup_.parts[i] != nullptr);
    status.set_confirmed(setup_.confirmed[i] || started_);
    uint32_t connections = 0;
    for (const Subscription& s : subscribers_) {
      if (s.viewer == engine::ViewerOf(seat) && !s.subscriber.expired()) ++connections;
    }
    status.set_connections(connections);
  }
  const std::string ordered_next =
      order_ && !order_->remaining.empty()
          ? " for " + order_->remaining.front() + " (the ATTACKER's order, A11.12)"
          : "";
  if (!started_) {
    for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
      const size_t i = SeatIndex(seat);
      if (!setup_.parts[i]) {
        view.add_waiting_for(std::string(engine::Name(seat)) + ": enter its units" + ordered_next);
      } else if (!setup_.confirmed[i]) {
        view.add_waiting_for(std::string(engine::Name(seat)) + ": confirm the set-up");
      }
    }
  } else {
    for (std::string& waiting : host_.WaitingFor(state_)) view.add_waiting_for(std::move(waiting));
    if (host_.Ended(state_) && !ordered_next.empty()) {
      view.add_waiting_for("both sides: enter units" + ordered_next);
    }
    if (asl_part) {
      proto::KeepPartsOf(*asl_part);
      asl_part->Clear();
      view.set_allocated_asl(asl_part.release());
    }
    host_.RenderView(state_, viewer, view);
  }
  if (order_) {
    v1::LocationOrder& order = *view.mutable_location_order();
    order.set_attacker(WireSeat(engine::ViewerOf(order_->attacker)));
    for (const std::string& name : order_->resolved) order.add_resolved(name);
    for (const std::string& name : order_->remaining) order.add_remaining(name);
  }
  view.set_deadline_unix_ms(deadline_unix_ms_);
  if (Paced()) {
    for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
      const SeatClock& clock = clocks_[SeatIndex(seat)];
      v1::SeatClock& shown =
          seat == Seat::kSideA ? *view.mutable_side_a_clock() : *view.mutable_side_b_clock();
      if (OwesTimedStep(seat)) {
        shown.set_step_deadline_unix_ms(StepDeadline(seat));
        shown.set_final_deadline_unix_ms(FinalDeadline(seat));
      }
      shown.set_bank_left_ms(static_cast<uint64_t>(clock.bank_left_ms));
      shown.set_vacation_days_left(clock.vacation_days_left);
      shown.set_vacation_until_unix_ms(clock.vacation_until_unix_ms);
    }
  }
  if (decided_) {
    view.set_stage(v1::STAGE_ENDED);
    view.clear_waiting_for();
    v1::MatchDecision& result = *view.mutable_result();
    result.set_winner(WireSeat(engine::ViewerOf(decided_->winner)));
    result.set_loser(WireSeat(engine::ViewerOf(decided_->loser)));
    result.set_reason("lost on time");
    result.set_seq(decided_->seq);
  }
  view.set_ccph(ccph_);
  for (v1::MatchResult& result :
       results_.Summaries([this](uint32_t combat) { return CombatLocation(combat); })) {
    *view.add_results() = std::move(result);
  }
  if (!with_parts) {
    view.set_forces_as_before(true);
    return Outbound::FromBinary(
        FramedField(v1::ServerMessage::kViewFieldNumber, view, {SetupView(viewer)}));
  }
  return Outbound::FromBinary(FramedField(v1::ServerMessage::kViewFieldNumber, view,
                                          {ViewParts(viewer), SetupView(viewer)}));
}

MessagePtr Match::AckOf(const std::string& command_id, const AnswerBook::Answer& answer) const {
  v1::ServerMessage message;
  message.set_command_id(command_id);
  v1::CommandAck& ack = *message.mutable_ack();
  ack.set_command_id(command_id);
  ack.set_seq(answer.seq);
  // Only a seal's answer has these (an empty string is no field; setting one allocates).
  if (!answer.receipt.empty()) ack.set_receipt(std::string(answer.receipt));
  if (!answer.seal_nonce.empty()) ack.set_seal_nonce(std::string(answer.seal_nonce));
  if (!answer.sealed.empty()) ack.set_sealed(std::string(answer.sealed));
  return MakeMessage(std::move(message));
}

void Match::Render(const std::vector<RenderedEvent>& events, Delivery& delivery) {
  // Each viewer's view, whole and (for protocol 2 subscribers that hold its forces already)
  // without the forces, each rendered once for every subscriber that gets it.
  std::array<MessagePtr, 4> views;
  std::array<MessagePtr, 4> views_without_forces;
  std::erase_if(subscribers_, [](const Subscription& s) { return s.subscriber.expired(); });
  for (Subscription& s : subscribers_) {
    auto subscriber = s.subscriber.lock();
    if (!subscriber) continue;
    std::vector<MessagePtr>* to = delivery.For(subscriber);
    if (to == nullptr) {
      to = &delivery.to.emplace_back(std::move(subscriber), std::vector<MessagePtr>{}).second;
    }
    std::vector<MessagePtr>& messages = *to;
    messages.reserve(messages.size() + events.size() + 1);
    for (const RenderedEvent& event : events) messages.push_back(event[ViewerIndex(s.viewer)]);
    const std::shared_ptr<const std::string>& parts = ViewPartsBytes(s.viewer);
    const bool as_before = s.views == Views::kForcesWhenChanged && s.parts_sent == parts;
    MessagePtr& view = (as_before ? views_without_forces : views)[ViewerIndex(s.viewer)];
    if (!view) view = RenderView(s.viewer, !as_before);
    s.parts_sent = parts;
    messages.push_back(view);
  }
}

std::vector<MessagePtr>* Match::Delivery::For(const std::shared_ptr<Subscriber>& subscriber) {
  if (!subscriber) return nullptr;
  auto found = std::find_if(to.begin(), to.end(),
                            [&](const auto& entry) { return entry.first == subscriber; });
  return found == to.end() ? nullptr : &found->second;
}

void Match::Send(Delivery delivery) {
  for (auto& [subscriber, messages] : delivery.to) subscriber->Deliver(std::move(messages));
}

void Match::Attach(std::weak_ptr<Subscriber> subscriber, Viewer viewer, uint64_t after_seq,
                   std::string command_id, Reply reply, Views views) {
  asio::post(strand_, [self = shared_from_this(), subscriber = std::move(subscriber), viewer,
                       after_seq, command_id = std::move(command_id), reply = std::move(reply),
                       views]() mutable {
    if (!self->disowned_.empty()) {
      return reply({ErrorMessage(v1::ERROR_CODE_UNAVAILABLE, self->disowned_, command_id)});
    }
    auto events = self->EventsAfter(after_seq, viewer);
    if (!events) {
      return reply({ErrorMessage(v1::ERROR_CODE_UNAVAILABLE,
                                 "cannot read the events after seq " + std::to_string(after_seq) +
                                     ": " + events.error().message,
                                 command_id)});
    }
    std::vector<MessagePtr> answers = std::move(*events);
    auto known = std::find_if(
        self->subscribers_.begin(), self->subscribers_.end(), [&](const Subscription& s) {
          return !s.subscriber.owner_before(subscriber) && !subscriber.owner_before(s.subscriber);
        });
    if (known != self->subscribers_.end()) {
      known->views = views;
    } else {
      self->subscribers_.push_back(Subscription{subscriber, viewer, views, nullptr});
      if (viewer != Viewer::kSpectator) {
        storage::SessionEvent joined;
        joined.set_seat(StoredViewerSeat(viewer));
        joined.set_unix_ms(self->services_.clock.NowUnixMs());
        const uint64_t seq = self->Journal(std::move(joined), /*now=*/false);
        self->live_sessions_.push_back(LiveSession{subscriber, viewer, seq});
      }
    }
    v1::ServerMessage joined;
    joined.set_command_id(command_id);
    v1::Joined& out = *joined.mutable_joined();
    out.set_match_id(self->identity_.id);
    out.set_seat(WireSeat(viewer));
    *out.mutable_view() = self->RenderView(viewer)->message().view();
    // The Joined carries the whole view: its forces are what the subscriber was sent last.
    for (Subscription& s : self->subscribers_) {
      if (!s.subscriber.owner_before(subscriber) && !subscriber.owner_before(s.subscriber)) {
        s.parts_sent = self->ViewPartsBytes(viewer);
      }
    }
    answers.push_back(MakeMessage(std::move(joined)));
    reply(std::move(answers));
  });
}

void Match::SessionEnded(std::weak_ptr<Subscriber> subscriber, std::string reason) {
  asio::post(strand_, [self = shared_from_this(), subscriber = std::move(subscriber),
                       reason = std::move(reason)] {
    auto& live = self->live_sessions_;
    for (auto it = live.begin(); it != live.end(); ++it) {
      if (it->subscriber.owner_before(subscriber) || subscriber.owner_before(it->subscriber)) {
        continue;
      }
      storage::SessionEvent left;
      left.set_seat(StoredViewerSeat(it->viewer));
      left.set_ends(it->joined);
      left.set_unix_ms(self->services_.clock.NowUnixMs());
      left.set_reason(reason);
      if (it->joined != 0) self->Journal(std::move(left), /*now=*/true);
      live.erase(it);
      return;
    }
  });
}

uint64_t Match::Journal(storage::SessionEvent event, bool now) {
  if (journal_next_ == 0) {
    auto logged = services_.store.Read(JournalId(identity_.id));
    if (logged) {
      journal_next_ = logged->size() + 1;
    } else if (logged.error().code == persistence::StoreErrorCode::kNotFound) {
      journal_next_ = 1;
    } else {
      spdlog::warn("match {}: session journal unreadable: {}", identity_.id,
                   logged.error().message);
      return 0;
    }
  }
  journal_pending_.push_back(proto::SerializeDeterministic(event));
  const uint64_t seq = journal_next_++;
  journal_due_ = journal_due_ || now;
  if (journal_due_) FlushJournal();
  return seq;
}

std::optional<persistence::PendingAppend> Match::TakeJournal() {
  if (journal_sending_ != 0 || journal_pending_.empty()) return std::nullopt;
  persistence::AppendBatch batch;
  batch.match_id = JournalId(identity_.id);
  batch.expected_seq = journal_next_ - 1 - journal_pending_.size();
  // Copied, not moved: an entry is in SessionRecords until its append comes back.
  batch.payloads = journal_pending_;
  batch.recorded_unix_ms = services_.clock.NowUnixMs();
  journal_sending_ = journal_pending_.size();
  journal_due_ = false;
  // A weak reference: joins and leaves are journalled up to the server's last moment (a
  // session's destructor), and a batch the store still holds when the server is gone must not
  // keep the match, and its strand, alive past the io_context.
  auto committed = [weak = weak_from_this(), lifeline = services_.lifeline](
                       persistence::StoreResult<persistence::Appended> done) {
    // Locked until `self` is released: the match is never kept alive, nor destroyed, past the
    // io_context (see Lifeline).
    std::lock_guard alive(lifeline->mutex);
    if (!lifeline->alive) return;
    std::shared_ptr<Match> self = weak.lock();
    if (!self) return;
    asio::post(self->strand_, [self, done = std::move(done)] {
      if (!done) {
        // The journal is the server's account of connections, not the match: a lost entry is
        // logged, and the journal is read again before the next one.
        spdlog::warn("match {}: session journal entry lost: {}", self->identity_.id,
                     done.error().message);
        self->journal_next_ = 0;
        self->journal_pending_.clear();
        self->journal_sending_ = 0;
        self->journal_due_ = false;
        return;
      }
      auto& pending = self->journal_pending_;
      pending.erase(pending.begin(),
                    pending.begin() + static_cast<std::ptrdiff_t>(self->journal_sending_));
      self->journal_sending_ = 0;
      if (self->journal_due_) self->FlushJournal();
    });
  };
  return persistence::PendingAppend{std::move(batch), std::move(committed)};
}

void Match::FlushJournal() {
  if (auto journal = TakeJournal()) {
    services_.store.Append(std::move(journal->batch), std::move(journal->done));
  }
}

std::vector<storage::SessionRecord> Match::SessionRecords() {
  std::vector<storage::SessionRecord> records;
  auto logged = services_.store.Read(JournalId(identity_.id));
  if (!logged && logged.error().code != persistence::StoreErrorCode::kNotFound) return records;
  std::unordered_map<uint64_t, size_t> by_join;
  const auto add = [&](uint64_t seq, const std::string& payload) {
    storage::SessionEvent event;
    if (!event.ParseFromString(payload)) return;
    if (event.ends() == 0) {
      storage::SessionRecord record;
      record.set_seat(event.seat());
      record.set_joined_unix_ms(event.unix_ms());
      by_join[seq] = records.size();
      records.push_back(std::move(record));
    } else if (const auto it = by_join.find(event.ends()); it != by_join.end()) {
      records[it->second].set_left_unix_ms(event.unix_ms());
      records[it->second].set_reason(event.reason());
    }
  };
  uint64_t stored = 0;
  if (logged) {
    for (const persistence::Event& entry : *logged) add(entry.seq, entry.payload);
    if (!logged->empty()) stored = logged->back().seq;
  }
  // Then the entries not committed yet (a join waiting for the match's next append), but for
  // those whose append committed while this read ran.
  if (journal_next_ != 0) {
    const uint64_t first = journal_next_ - journal_pending_.size();
    for (size_t i = 0; i < journal_pending_.size(); ++i) {
      if (first + i > stored) add(first + i, journal_pending_[i]);
    }
  }
  for (const auto& [seq, index] : by_join) {
    storage::SessionRecord& record = records[index];
    if (record.left_unix_ms() != 0) continue;
    const bool live = std::any_of(live_sessions_.begin(), live_sessions_.end(),
                                  [seq = seq](const LiveSession& s) { return s.joined == seq; });
    record.set_reason(live ? "connected when the file was written"
                           : "the server stopped before the connection ended");
  }
  return records;
}

Result<std::vector<MessagePtr>> Match::EventsAfter(uint64_t after_seq, Viewer viewer) {
  std::vector<MessagePtr> events;
  if (after_seq >= seq_) return events;
  if (recent_.HoldsAfter(after_seq)) {
    for (uint64_t seq = after_seq + 1; seq <= seq_; ++seq) events.push_back(recent_.At(seq, viewer));
    return events;
  }
  // Older than what is kept rendered: replay the log into a scratch match that keeps it all.
  auto logged = services_.store.Read(identity_.id, 0, seq_);
  if (!logged) return Reject("", logged.error().message);
  MatchServices keep_all = services_;
  keep_all.recent_events = SIZE_MAX;
  auto replayed = Recover(
      strand_.get_inner_executor(), keep_all, [this](std::string_view) { return &host_; },
      *logged);
  if (!replayed) return tl::unexpected(replayed.error());
  const RecentEvents& all = (*replayed)->recent_;
  for (uint64_t seq = after_seq + 1; seq <= all.last_seq(); ++seq) {
    events.push_back(all.At(seq, viewer));
  }
  return events;
}

// ---- export ------------------------------------------------------------------------------------

namespace {

// Whether `viewer` (a seat) may have the bytes of an event: those that hold nothing hidden from
// it. `shown` and `full` are the event as the seat and as the director see it; `revealed_later`:
// a later event reveals the sealed declarations.
bool SeatMayHave(const storage::StoredEvent& stored, Viewer viewer, const v1::MatchEvent& shown,
                 const v1::MatchEvent& full, bool revealed_later) {
  const auto own = [&](storage::Seat seat) {
    return (seat == storage::SEAT_SIDE_A && viewer == Viewer::kSideA) ||
           (seat == storage::SEAT_SIDE_B && viewer == Viewer::kSideB);
  };
  switch (stored.kind_case()) {
    case storage::StoredEvent::kDirectorFlag:
      return own(stored.director_flag().seat());  // the comment is the flagger's and the TD's
    case storage::StoredEvent::kSetupSubmitted:
      return own(stored.setup_submitted().seat()) ||
             proto::SerializeDeterministic(shown) == proto::SerializeDeterministic(full);
    case storage::StoredEvent::kUnitsUpdated:
      return own(stored.units_updated().seat()) ||
             proto::SerializeDeterministic(shown) == proto::SerializeDeterministic(full);
    case storage::StoredEvent::kRulesetEvent: {
      const storage::Cause& cause = stored.ruleset_event().cause();
      if (shown.has_declaration_sealed()) {
        // The sealed declaration (in the cause): the sealer's own, or both once revealed.
        return own(cause.seat()) || revealed_later;
      }
      return proto::SerializeDeterministic(shown) == proto::SerializeDeterministic(full);
    }
    default:
      return true;  // creation, confirmations, orders of Locations, signatures: public
  }
}

}  // namespace

bool Match::Owes(Seat seat) const {
  if (decided_) return false;
  const size_t i = SeatIndex(seat);
  if (!started_) return !setup_.parts[i] || !setup_.confirmed[i];
  if (host_.Ended(state_)) return order_ && !order_->remaining.empty();  // the next Location
  const Awaiting awaiting = host_.AwaitingOf(state_);
  return std::find(awaiting.seats.begin(), awaiting.seats.end(), seat) != awaiting.seats.end();
}

void Match::Look(Viewer viewer, uint64_t after_seq, size_t max_events,
                 std::function<void(Result<v1::InboxEntry>)> done) {
  asio::post(strand_, [self = shared_from_this(), viewer, after_seq, max_events,
                       done = std::move(done)] {
    v1::InboxEntry entry;
    entry.set_match_id(self->identity_.id);
    entry.set_seat(WireSeat(viewer));
    const bool seated = viewer == Viewer::kSideA || viewer == Viewer::kSideB;
    entry.set_your_turn(seated &&
                        self->Owes(viewer == Viewer::kSideA ? Seat::kSideA : Seat::kSideB));
    *entry.mutable_view() = self->RenderView(viewer)->message().view();
    const uint64_t from = std::max(after_seq, self->seq_ > max_events ? self->seq_ - max_events : 0);
    entry.set_new_events(self->seq_ > after_seq ? self->seq_ - after_seq : 0);
    auto events = self->EventsAfter(from, viewer);
    if (!events) return done(tl::unexpected(events.error()));
    for (const MessagePtr& message : *events) *entry.add_events() = message->message().event();
    done(std::move(entry));
  });
}

void Match::CurrentView(Viewer viewer, std::function<void(v1::MatchView)> done) {
  asio::post(strand_, [self = shared_from_this(), viewer, done = std::move(done)] {
    done(self->RenderView(viewer)->message().view());
  });
}

void Match::ViewAt(Viewer viewer, uint64_t at,
                   std::function<void(uint64_t, Result<v1::MatchView>)> done) {
  asio::post(strand_, [self = shared_from_this(), viewer, at, done = std::move(done)] {
    const uint64_t last = self->seq_;
    if (at == 0 || at > last) {
      return done(last,
                  Reject("", "no event " + std::to_string(at) + " in match " + self->identity_.id +
                                 ": its events are 1.." + std::to_string(last)));
    }
    auto logged = self->services_.store.Read(self->identity_.id, 0, last);
    if (!logged) return done(last, Reject("", "cannot read the log: " + logged.error().message));
    MatchServices scratch = self->services_;
    scratch.recent_events = 1;
    scratch.notices = nullptr;
    auto replayed = Recover(
        self->strand_.get_inner_executor(), scratch,
        [self](std::string_view) { return &self->host_; }, *logged, at);
    if (!replayed) return done(last, tl::unexpected(replayed.error()));
    done(last, (*replayed)->RenderView(viewer)->message().view());
  });
}

void Match::Export(Viewer viewer, std::function<void(Result<storage::MatchFile>)> done) {
  asio::post(strand_, [self = shared_from_this(), viewer, done = std::move(done)] {
    auto logged = self->services_.store.Read(self->identity_.id, 0, self->seq_);
    if (!logged) return done(Reject("", "cannot read the log: " + logged.error().message));
    std::vector<bool> visible(logged->size(), true);
    if (viewer != Viewer::kDirector) {
      // Every event as the seat and as the director see it, from a replay of the log.
      MatchServices keep_all = self->services_;
      keep_all.recent_events = SIZE_MAX;
      auto replayed = Recover(
          self->strand_.get_inner_executor(), keep_all,
          [self](std::string_view) { return &self->host_; }, *logged);
      if (!replayed) return done(tl::unexpected(replayed.error()));
      const RecentEvents& all = (*replayed)->recent_;
      bool revealed_later = false;
      for (size_t i = logged->size(); i-- > 0;) {
        const MessagePtr full = all.At(i + 1, Viewer::kDirector);
        storage::StoredEvent stored;
        stored.ParseFromString((*logged)[i].payload);
        visible[i] = SeatMayHave(stored, viewer, all.At(i + 1, viewer)->message().event(),
                                 full->message().event(), revealed_later);
        if (full->message().event().has_declarations_revealed()) revealed_later = true;
      }
    }
    storage::MatchFile file;
    file.set_format(std::string(kMatchFileFormat));
    file.set_match_id(self->identity_.id);
    file.set_ruleset(self->identity_.settings.ruleset());
    file.set_ruleset_version(self->identity_.ruleset_version);
    file.set_engine_version(kServerVersion);
    file.set_server_public_key(self->services_.secrets->public_key());
    file.set_exported_for(std::string(engine::Name(viewer)));
    file.set_exported_unix_ms(self->services_.clock.NowUnixMs());
    for (size_t i = 0; i < logged->size(); ++i) {
      const persistence::Event& event = (*logged)[i];
      storage::FileEvent& out = *file.add_events();
      out.set_seq(event.seq);
      out.set_hash(HashBytes(event.hash));
      out.set_recorded_unix_ms(event.recorded_unix_ms);
      // Every event's hash is signed, so an edit before a redacted event, whose chain link the
      // seat cannot check, is still named.
      out.set_signature(self->services_.secrets->Sign(
          persistence::HeadMessage(self->identity_.id, event.seq, event.hash)));
      if (visible[i]) {
        out.set_payload(event.payload);
      } else {
        out.set_redacted(true);
        storage::StoredEvent stored;
        stored.ParseFromString(event.payload);
        const RedactedKind kind = RedactedKindOf(stored);
        out.set_redacted_kind(kind.kind);
        out.set_redacted_seat(kind.seat);
      }
    }
    for (storage::SessionRecord& record : self->SessionRecords()) {
      *file.add_sessions() = std::move(record);
    }
    if (!logged->empty()) {
      const persistence::Event& last = logged->back();
      storage::HeadSigned& head = *file.mutable_head_signature();
      head.set_seq(last.seq);
      head.set_hash(HashBytes(last.hash));
      head.set_signature(self->services_.secrets->Sign(
          persistence::HeadMessage(self->identity_.id, last.seq, last.hash)));
    }
    file.set_file_signature(self->services_.secrets->Sign(FileSignedMessage(file)));
    done(std::move(file));
  });
}

void Match::Inspect(std::function<void(uint64_t, bool)> done) {
  asio::post(strand_, [self = shared_from_this(), done = std::move(done)] {
    done(self->seq_, self->started_ && self->host_.Ended(self->state_));
  });
}

// ---- recovery ---------------------------------------------------------------------------------

Result<std::shared_ptr<Match>> Match::Recover(
    asio::any_io_executor executor, MatchServices services,
    const std::function<const RulesetHost*(std::string_view)>& hosts,
    const std::vector<persistence::Event>& events, uint64_t up_to_seq) {
  if (events.empty()) return Reject("", "no events");
  storage::StoredEvent first;
  if (!first.ParseFromString(events[0].payload) || !first.has_match_created()) {
    return Reject("", "event 1 is not MatchCreated");
  }
  const storage::MatchCreated& created = first.match_created();
  MatchIdentity identity;
  identity.id = created.match_id();
  identity.ruleset_version = created.ruleset_version();
  if (!identity.settings.ParseFromString(created.settings())) {
    return Reject("", "event 1: unreadable settings");
  }
  const auto read_hash = [](const std::string& bytes, persistence::Hash& out) {
    if (bytes.size() != out.size()) return false;
    std::copy(bytes.begin(), bytes.end(), out.begin());
    return true;
  };
  if (!created.dice_commitment().empty() &&
      !read_hash(created.dice_commitment(), identity.dice_commitment)) {
    return Reject("", "event 1: malformed dice commitment");
  }
  identity.dice_chain_length = created.dice_chain_length();
  identity.server_public_key = created.server_public_key();
  if (!read_hash(created.side_a_token_hash(), identity.token_hashes[0]) ||
      !read_hash(created.side_b_token_hash(), identity.token_hashes[1]) ||
      !read_hash(created.director_token_hash(), identity.token_hashes[2]) ||
      !read_hash(created.spectator_key_hash(), identity.spectator_key_hash)) {
    return Reject("", "event 1: malformed token hashes");
  }
  if (!created.tournament_token_hash().empty()) {
    identity.tournament_token_hash.emplace();
    if (!read_hash(created.tournament_token_hash(), *identity.tournament_token_hash)) {
      return Reject("", "event 1: malformed tournament token hash");
    }
  }
  const RulesetHost* host = hosts(created.ruleset());
  if (host == nullptr) return Reject("", "ruleset '" + created.ruleset() + "' is not served");
  if (host->ruleset().version() != created.ruleset_version()) {
    return Reject("", "created with " + created.ruleset() + " " + created.ruleset_version() +
                          "; this server plays " + std::string(host->ruleset().version()));
  }
  engine::MatchOptions options;
  options.variant = identity.settings.variant();
  for (const auto& [key, value] : identity.settings.options()) options.values[key] = value;
  auto initial = host->ruleset().NewState(options);
  if (!initial) return tl::unexpected(initial.error());
  auto match = std::make_shared<Match>(std::move(executor), services, *host, std::move(identity),
                                       std::move(*initial), events[0].recorded_unix_ms,
                                       events[0].hash);

  // Replays events[1..] in the batches their commands made.
  size_t i = 1;
  while (i < events.size() && events[i].seq <= up_to_seq) {
    const auto at = [&](size_t k) { return "event " + std::to_string(events[k].seq) + ": "; };
    storage::StoredEvent stored;
    if (!stored.ParseFromString(events[i].payload)) return Reject("", at(i) + "unreadable");
    Plan plan;
    plan.setup = match->setup_;
    plan.state = match->state_;
    plan.started = match->started_;
    const size_t batch_start = i;
    // Replayed as of an event inside this batch's ruleset events: the state right after the last
    // of them up to it (a plan keeps no copy of the states between its events).
    std::optional<AnyState> cut;
    std::optional<Seat> seat;
    if (match->decided_ && !stored.has_head_signed() && !stored.has_director_flag()) {
      return Reject("", at(i) + "an event after the match was decided on time");
    }
    if (stored.has_clock()) {
      // A clock event is its own step of the replay, checked against the clocks before it.
      if (auto ok = match->CheckClockEvent(stored.clock(), events[i].recorded_unix_ms); !ok) {
        return Reject("", at(i) + engine::Describe(ok.error()));
      }
      plan.seat = SeatOfStored(stored.clock().seat()).value_or(Seat::kSideA);
      plan.command_id = stored.clock().command_id();
      plan.decides = stored.clock().action() == "match_lost";
      plan.entries.push_back(Planned::Of(std::move(stored)));
      match->Commit(std::move(plan), events[i].seq, events[i].recorded_unix_ms, events[i].hash);
      ++i;
      continue;
    }
    const bool setup_event = stored.has_setup_submitted() || stored.has_setup_confirmed();
    if (stored.has_setup_submitted()) {
      seat = SeatOfStored(stored.setup_submitted().seat());
      auto part = std::make_shared<v1::SubmitSetup>();
      if (!seat || !part->ParseFromString(stored.setup_submitted().part())) {
        return Reject("", at(i) + "malformed set-up");
      }
      EnterSetup(plan, *seat, std::move(part), plan.started && host->Ended(plan.state));
      plan.command_id = stored.setup_submitted().command_id();
      plan.entries.push_back(Planned::Of(std::move(stored)));
      ++i;
    } else if (stored.has_setup_confirmed()) {
      seat = SeatOfStored(stored.setup_confirmed().seat());
      if (!seat) return Reject("", at(i) + "malformed confirmation");
      plan.setup.confirmed[SeatIndex(*seat)] = true;
      plan.command_id = stored.setup_confirmed().command_id();
      plan.entries.push_back(Planned::Of(std::move(stored)));
      ++i;
      if (plan.setup.confirmed[0] && plan.setup.confirmed[1]) {
        plan.started = true;
        plan.state = match->initial_state_;
      }
    }
    // The ruleset events caused by one command (after the second confirmation: the set-up).
    if (i < events.size() && (!setup_event || (plan.started && !match->started_))) {
      storage::StoredEvent next;
      if (!next.ParseFromString(events[i].payload)) return Reject("", at(i) + "unreadable");
      if (next.has_ruleset_event() && next.ruleset_event().has_cause()) {
        const storage::Cause& cause = next.ruleset_event().cause();
        const std::optional<Seat> cause_seat = SeatOfStored(cause.seat());
        if (!cause_seat) return Reject("", at(i) + "cause without a seat");
        seat = cause_seat;
        if (plan.started && host->Ended(plan.state)) {
          // A11.15: the Melee going on into the next CCPh starts from the match's options.
          plan.state = match->initial_state_;
          plan.setup = SetupState{};
        }
        auto command = host->FromLogged(cause.command());
        if (!command) return Reject("", at(i) + "logged command: " + engine::Describe(command.error()));
        std::vector<storage::StoredEvent> logged;
        std::vector<int> dice;
        for (size_t k = i; k < events.size(); ++k) {
          storage::StoredEvent candidate;
          if (!candidate.ParseFromString(events[k].payload)) return Reject("", at(k) + "unreadable");
          if (!candidate.has_ruleset_event() || (k > i && candidate.ruleset_event().has_cause())) {
            break;
          }
          auto values = host->DiceOfLogged(candidate.ruleset_event().event());
          if (!values) return Reject("", at(k) + engine::Describe(values.error()));
          for (const LoggedDie& die : *values) dice.push_back(die.roll.value);
          logged.push_back(std::move(candidate));
        }
        ReplayDice replay(std::move(dice));
        auto decided = host->ruleset().Decide(plan.state, *seat, *command, replay);
        if (!decided) {
          return Reject("", at(i) + "the logged command is refused on replay: " +
                                engine::Describe(decided.error()));
        }
        if (replay.exhausted() || !replay.fully_used() || decided->size() != logged.size()) {
          return Reject("", at(i) + "replaying the logged command with the logged dice does not "
                                    "give the logged events");
        }
        const bool cut_inside = up_to_seq < events[i + decided->size() - 1].seq;
        for (size_t k = 0; k < decided->size(); ++k) {
          AnyEvent& event = (*decided)[k];
          if (host->LogEvent(plan.state, event) != logged[k].ruleset_event().event()) {
            return Reject("", at(i + k) + "differs from what its command decides on replay");
          }
          Planned planned;
          planned.stored = std::move(logged[k]);
          ApplyAndShow(*host, plan.state, std::move(event), planned);
          plan.entries.push_back(std::move(planned));
          if (cut_inside && events[i + k].seq <= up_to_seq) cut = plan.state;
        }
        if (plan.command_id.empty() || plan.entries.size() == decided->size()) {
          plan.command_id = cause.command_id();
        }
        if (!cause.receipt().empty()) {
          plan.receipt = cause.receipt();
          plan.seal_nonce = cause.seal_nonce();
          plan.sealed = cause.sealed();
        }
        i += decided->size();
        // The server's signature of the head when this command ended a close combat.
        if (i < events.size()) {
          storage::StoredEvent signature;
          if (signature.ParseFromString(events[i].payload) && signature.has_head_signed()) {
            plan.entries.push_back(Planned::Of(std::move(signature)));
            ++i;
          }
        }
      }
    }
    if (!setup_event && plan.entries.empty() && stored.has_director_flag()) {
      seat = SeatOfStored(stored.director_flag().seat());
      if (!seat) return Reject("", at(i) + "malformed flag");
      plan.command_id = stored.director_flag().command_id();
      plan.entries.push_back(Planned::Of(std::move(stored)));
      ++i;
    } else if (!setup_event && plan.entries.empty() && stored.has_units_updated()) {
      seat = SeatOfStored(stored.units_updated().seat());
      v1::UpdateUnits updates;
      if (!seat || !updates.ParseFromString(stored.units_updated().updates())) {
        return Reject("", at(i) + "malformed unit updates");
      }
      const engine::AnyState* playing =
          match->started_ && !host->Ended(match->state_) ? &match->state_ : nullptr;
      auto forces = ApplyUpdates(*host, match->forces_, *seat, updates, events[i].seq, playing);
      if (!forces) {
        return Reject("", at(i) + "the logged unit updates are refused on replay: " +
                              engine::Describe(forces.error()));
      }
      plan.forces = std::make_shared<const Forces>(std::move(*forces));
      plan.command_id = stored.units_updated().command_id();
      Planned planned = Planned::Of(std::move(stored));
      planned.forces_before = std::make_shared<const Forces>(match->forces_);
      planned.forces_after = plan.forces;
      plan.entries.push_back(std::move(planned));
      ++i;
    } else if (!setup_event && plan.entries.empty() && stored.has_result_recorded()) {
      const storage::Seat by = stored.result_recorded().seat();
      if (by == storage::SEAT_DIRECTOR) {
        plan.actor = Viewer::kDirector;
      } else {
        seat = SeatOfStored(by);
        if (!seat) return Reject("", at(i) + "a result recorded by no seat");
      }
      plan.command_id = stored.result_recorded().command_id();
      plan.entries.push_back(Planned::Of(std::move(stored)));
      ++i;
    } else if (!setup_event && plan.entries.empty() && stored.has_head_signed()) {
      plan.entries.push_back(Planned::Of(std::move(stored)));
      ++i;
    } else if (!setup_event && plan.entries.empty() && stored.has_locations_ordered()) {
      seat = SeatOfStored(stored.locations_ordered().seat());
      if (!seat) return Reject("", at(i) + "malformed order of Locations");
      plan.command_id = stored.locations_ordered().command_id();
      plan.entries.push_back(Planned::Of(std::move(stored)));
      ++i;
    }
    if (plan.entries.empty()) return Reject("", at(i) + "an event no command explains");
    if (events[i - 1].seq > up_to_seq) {
      // Replayed as of an event inside this command's batch: its events up to that one, and the
      // state right after it (before any ruleset event of the batch: the state before it).
      const size_t kept = static_cast<size_t>(up_to_seq - events[batch_start].seq + 1);
      plan.entries.erase(plan.entries.begin() + static_cast<std::ptrdiff_t>(kept),
                         plan.entries.end());
      const auto last = std::find_if(plan.entries.rbegin(), plan.entries.rend(),
                                     [](const Planned& p) { return p.event.has_value(); });
      if (last != plan.entries.rend()) {
        // (Without a cut, every ruleset event of the batch is kept: plan.state is after them.)
        if (cut) plan.state = std::move(*cut);
      } else {
        plan.state = match->state_;
        plan.started = match->started_;
      }
      i = batch_start + kept;
    }
    plan.seat = seat.value_or(Seat::kSideA);
    match->Commit(std::move(plan), events[batch_start].seq, events[batch_start].recorded_unix_ms,
                  events[i - 1].hash);
  }
  return match;
}

}  // namespace melee::server
