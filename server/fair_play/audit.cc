#include "server/fair_play/audit.h"

#include "server/forces.h"
#include "server/match_file.h"
#include "server/results.h"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <string_view>
#include <utility>

#include "engine/core/check.h"
#include "melee/asl/v1/asl.pb.h"
#include "melee/coc/v1/coc.pb.h"
#include "melee/vv/v1/vv.pb.h"
#include "melee/storage/v1/events.pb.h"

namespace melee::server {
namespace {

namespace storage = melee::storage::v1;
namespace aslpb = melee::asl::v1;
namespace cocpb = melee::coc::v1;
namespace vvpb = melee::vv::v1;

// Buckets of MatchAudit::dice after the two sides.
constexpr size_t kNobody = 2;
constexpr size_t kWholeMatch = 3;
// Cochran's rule: below 5 expected per outcome the chi-square distribution fits the statistic
// poorly, so its p-value is only a hint.
constexpr double kMinExpected = 5;

size_t SideIndex(engine::Seat seat) { return seat == engine::Seat::kSideA ? 0 : 1; }

std::optional<size_t> SideIndex(storage::Seat seat) {
  if (seat == storage::SEAT_SIDE_A) return 0;
  if (seat == storage::SEAT_SIDE_B) return 1;
  return std::nullopt;
}

std::optional<engine::Seat> SideOf(melee::v1::Seat seat) {
  if (seat == melee::v1::SEAT_SIDE_A) return engine::Seat::kSideA;
  if (seat == melee::v1::SEAT_SIDE_B) return engine::Seat::kSideB;
  return std::nullopt;
}

std::string SeatName(storage::Seat seat) {
  switch (seat) {
    case storage::SEAT_SIDE_A:
      return "side_a";
    case storage::SEAT_SIDE_B:
      return "side_b";
    case storage::SEAT_DIRECTOR:
      return "director";
    default:
      return "server";
  }
}

// The outcome probabilities of `shape`, lowest outcome first.
std::vector<double> Probabilities(DiceShape shape) {
  if (shape == DiceShape::kD6) return std::vector<double>(6, 1.0 / 6);
  std::vector<double> p;
  for (int total = 2; total <= 12; ++total) p.push_back((6.0 - std::abs(total - 7)) / 36);
  return p;
}

struct Civil {
  int year = 0;
  unsigned month = 0;
  unsigned day = 0;
  int64_t ms_of_day = 0;
};

Civil CivilOf(int64_t unix_ms) {
  const std::chrono::sys_time<std::chrono::milliseconds> time{std::chrono::milliseconds(unix_ms)};
  const auto day = std::chrono::floor<std::chrono::days>(time);
  const std::chrono::year_month_day date{day};
  return Civil{.year = static_cast<int>(date.year()),
               .month = static_cast<unsigned>(date.month()),
               .day = static_cast<unsigned>(date.day()),
               .ms_of_day = (time - day).count()};
}

// "2026-09-21" (UTC).
std::string UtcDate(int64_t unix_ms) {
  const Civil civil = CivilOf(unix_ms);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02u", civil.year, civil.month, civil.day);
  return buffer;
}

// "2026-09-21 14:13:20.000Z".
std::string UtcTime(int64_t unix_ms) {
  const Civil civil = CivilOf(unix_ms);
  const long long ms = civil.ms_of_day;
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, " %02lld:%02lld:%02lld.%03lldZ", ms / 3'600'000,
                ms / 60'000 % 60, ms / 1000 % 60, ms % 1000);
  return UtcDate(unix_ms) + buffer;
}

// "4.2 s", "12 min 05 s", "3 h 07 min": a wait as people read it.
std::string Duration(int64_t ms) {
  char buffer[48];
  const long long s = ms / 1000;
  if (ms < 60'000) {
    std::snprintf(buffer, sizeof buffer, "%.1f s", static_cast<double>(ms) / 1000);
  } else if (s < 3600) {
    std::snprintf(buffer, sizeof buffer, "%lld min %02lld s", s / 60, s % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%lld h %02lld min", s / 3600, s / 60 % 60);
  }
  return buffer;
}

std::string Fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

// The first line of `text`, without control characters: the timeline has one line per event.
std::string OneLine(std::string_view text) {
  std::string line(text.substr(0, text.find('\n')));
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return line;
}

std::string Joined(const google::protobuf::RepeatedPtrField<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// What a seat's command was. The asl, coc and vv commands say; for other rulesets only a receipt
// tells (a sealed declaration).
std::string CommandKind(const std::string& ruleset, const storage::Cause& cause) {
  cocpb::Command coc_command;
  if (ruleset == "coc" && coc_command.ParseFromString(cause.command())) {
    switch (coc_command.command_case()) {
      case cocpb::Command::kSetUp:
        return "set-up";
      case cocpb::Command::kDeclare:
        return "declaration";
      case cocpb::Command::kPlace:
        return "placement";
      case cocpb::Command::COMMAND_NOT_SET:
        break;
    }
  }
  vvpb::Command vv_command;
  if (ruleset == "vv" && vv_command.ParseFromString(cause.command())) {
    switch (vv_command.command_case()) {
      case vvpb::Command::kSetUp:
        return "set-up";
      case vvpb::Command::kDeclare:
        return "declaration";
      case vvpb::Command::kAllocate:
        return "allocation";
      case vvpb::Command::COMMAND_NOT_SET:
        break;
    }
  }
  aslpb::Command command;
  if (ruleset == "asl" && command.ParseFromString(cause.command())) {
    switch (command.command_case()) {
      case aslpb::Command::kSetUp:
        return "set-up";
      case aslpb::Command::kAnnounce:
        return "announcement";
      case aslpb::Command::kSeal:
        return "declaration";
      case aslpb::Command::kChoose:
        return "choice";
      case aslpb::Command::COMMAND_NOT_SET:
        break;
    }
  }
  return cause.receipt().empty() ? "command" : "declaration";
}

// What a ruleset's logged event says of itself: its readable account's first line, its acting
// seat, and the ATTACKER it sets up.
struct RulesetFacts {
  std::string text;
  storage::Seat seat = storage::SEAT_UNSPECIFIED;
  std::optional<engine::Seat> attacker;
};

RulesetFacts FactsOf(const std::string& ruleset, const std::string& logged) {
  RulesetFacts facts;
  cocpb::CocEvent coc_event;
  if (ruleset == "coc" && coc_event.ParseFromString(logged)) {
    facts.text = coc_event.text().empty() ? cocpb::EventKind_Name(coc_event.kind())
                                          : OneLine(coc_event.text());
    if (coc_event.seat() == melee::v1::SEAT_SIDE_A) facts.seat = storage::SEAT_SIDE_A;
    if (coc_event.seat() == melee::v1::SEAT_SIDE_B) facts.seat = storage::SEAT_SIDE_B;
    if (coc_event.kind() == cocpb::EVENT_KIND_SET_UP) {
      facts.attacker = SideOf(coc_event.situation().attacker());
    }
    return facts;
  }
  vvpb::VvEvent vv_event;
  if (ruleset == "vv" && vv_event.ParseFromString(logged)) {
    facts.text = vv_event.text().empty() ? vvpb::EventKind_Name(vv_event.kind())
                                         : OneLine(vv_event.text());
    if (vv_event.seat() == melee::v1::SEAT_SIDE_A) facts.seat = storage::SEAT_SIDE_A;
    if (vv_event.seat() == melee::v1::SEAT_SIDE_B) facts.seat = storage::SEAT_SIDE_B;
    if (vv_event.kind() == vvpb::EVENT_KIND_SET_UP) {
      facts.attacker = SideOf(vv_event.situation().attacker());
    }
    return facts;
  }
  aslpb::AslEvent event;
  if (ruleset != "asl" || !event.ParseFromString(logged)) {
    facts.text = "a " + ruleset + " event this audit cannot read";
    return facts;
  }
  facts.text = event.text().empty() ? aslpb::EventKind_Name(event.kind()) : OneLine(event.text());
  if (event.seat() == melee::v1::SEAT_SIDE_A) facts.seat = storage::SEAT_SIDE_A;
  if (event.seat() == melee::v1::SEAT_SIDE_B) facts.seat = storage::SEAT_SIDE_B;
  if (event.kind() == aslpb::EVENT_KIND_SET_UP)
    facts.attacker = SideOf(event.situation().attacker());
  return facts;
}

// The words for a correspondence clock's event (docs/clocks.md).
std::string DescribeClock(const storage::ClockEvent& clock) {
  const std::string seat = SeatName(clock.seat());
  switch (static_cast<melee::v1::ClockEventKind>(clock.kind())) {
    case melee::v1::CLOCK_EVENT_KIND_BANK_DRAWN:
      return seat + " answered " + Duration(static_cast<int64_t>(clock.drawn_ms())) +
             " after its step's time: drawn from its time bank, " +
             Duration(static_cast<int64_t>(clock.bank_left_ms())) + " left";
    case melee::v1::CLOCK_EVENT_KIND_TIME_EXPIRED:
      return seat + "'s time ran out (" + clock.step() + "; " +
             Duration(static_cast<int64_t>(clock.drawn_ms())) + " of bank spent): " +
             (clock.action() == "match_lost"
                  ? "it lost the match on time, " + SeatName(clock.winner()) + " won"
                  : "the rules default was taken");
    case melee::v1::CLOCK_EVENT_KIND_VACATION_STARTED:
      return seat + " went on vacation for " + std::to_string(clock.vacation_days()) +
             " days, until " + UtcTime(clock.vacation_until_unix_ms()) + " (" +
             std::to_string(clock.vacation_days_left()) + " days left)";
    case melee::v1::CLOCK_EVENT_KIND_VACATION_ENDED:
      return seat + " came back from vacation (" + std::to_string(clock.vacation_days_left()) +
             " days left)";
    default:
      return seat + "'s clock: an event of a kind this audit does not know";
  }
}

// The words for the match's own (not the ruleset's) events.
std::string DescribeMatchEvent(const storage::StoredEvent& stored) {
  switch (stored.kind_case()) {
    case storage::StoredEvent::kMatchCreated: {
      const storage::MatchCreated& created = stored.match_created();
      return "match " + created.match_id() + " created (" + created.ruleset() + " " +
             created.ruleset_version() + "), its dice committed for " +
             std::to_string(created.dice_chain_length()) + " steps" +
             (created.tournament_id().empty() ? "" : ", tournament " + created.tournament_id());
    }
    case storage::StoredEvent::kSeatJoined:
      return SeatName(stored.seat_joined().seat()) + " joined";
    case storage::StoredEvent::kDeclarationSealed:
      return SeatName(stored.declaration_sealed().seat()) + " sealed a declaration";
    case storage::StoredEvent::kDeclarationsRevealed:
      return "the declarations were revealed";
    case storage::StoredEvent::kDiceRolled:
      return std::to_string(stored.dice_rolled().rolls_size()) + " dice rolled (step " +
             std::to_string(stored.dice_rolled().step()) + ")";
    case storage::StoredEvent::kChoiceRequested:
      return "choice " + stored.choice_requested().choice_id() + " asked of " +
             SeatName(stored.choice_requested().seat()) + " (" +
             stored.choice_requested().rule_ref() + ")";
    case storage::StoredEvent::kChoiceMade:
      return SeatName(stored.choice_made().seat()) + " answered choice " +
             stored.choice_made().choice_id() + ": " + Joined(stored.choice_made().selected()) +
             (stored.choice_made().by_default() ? " (the rules default: its deadline passed)" : "");
    case storage::StoredEvent::kMatchEnded:
      return "the match ended: " + OneLine(stored.match_ended().summary());
    case storage::StoredEvent::kSetupSubmitted:
      return SeatName(stored.setup_submitted().seat()) + " entered its part of the set-up";
    case storage::StoredEvent::kSetupConfirmed:
      return SeatName(stored.setup_confirmed().seat()) + " confirmed the set-up";
    case storage::StoredEvent::kDirectorFlag:
      return SeatName(stored.director_flag().seat()) + " flagged event " +
             std::to_string(stored.director_flag().seq()) + " for the director: \"" +
             OneLine(stored.director_flag().comment()) + "\"";
    case storage::StoredEvent::kLocationsOrdered:
      return SeatName(stored.locations_ordered().seat()) +
             " ordered the Locations: " + Joined(stored.locations_ordered().locations());
    case storage::StoredEvent::kHeadSigned:
      return "the server signed the chain head after event " +
             std::to_string(stored.head_signed().seq());
    case storage::StoredEvent::kUnitsUpdated: {
      // Every update in full: the director sees what each side reported of its own board.
      melee::v1::UpdateUnits updates;
      if (!updates.ParseFromString(stored.units_updated().updates())) {
        return SeatName(stored.units_updated().seat()) + " reported unreadable unit updates";
      }
      std::string text = SeatName(stored.units_updated().seat()) + " reported unit updates:";
      for (const melee::v1::UnitUpdate& update : updates.updates()) {
        text += " " + update.unit() + " " + OneLine(DescribeUpdate(update)) + ";";
      }
      text.pop_back();
      return text;
    }
    case storage::StoredEvent::kResultRecorded: {
      const storage::ResultRecorded& result = stored.result_recorded();
      const auto outcome = static_cast<melee::v1::ResultOutcome>(result.outcome());
      return SeatName(result.seat()) + " recorded the result of " +
             (result.combat() == 0 ? std::string("the match")
                                   : "close combat " + std::to_string(result.combat())) +
             ": " + OutcomeWords(outcome) +
             (result.note().empty() ? "" : " (\"" + OneLine(result.note()) + "\")");
    }
    case storage::StoredEvent::kClock:
      return DescribeClock(stored.clock());
    case storage::StoredEvent::kRulesetEvent:
    case storage::StoredEvent::KIND_NOT_SET:
      break;
  }
  return "an event of a kind this audit does not know";
}

// Who made one of the match's own events.
storage::Seat ActorOf(const storage::StoredEvent& stored) {
  switch (stored.kind_case()) {
    case storage::StoredEvent::kSeatJoined:
      return stored.seat_joined().seat();
    case storage::StoredEvent::kDeclarationSealed:
      return stored.declaration_sealed().seat();
    case storage::StoredEvent::kChoiceMade:
      return stored.choice_made().seat();
    case storage::StoredEvent::kSetupSubmitted:
      return stored.setup_submitted().seat();
    case storage::StoredEvent::kSetupConfirmed:
      return stored.setup_confirmed().seat();
    case storage::StoredEvent::kDirectorFlag:
      return stored.director_flag().seat();
    case storage::StoredEvent::kLocationsOrdered:
      return stored.locations_ordered().seat();
    case storage::StoredEvent::kUnitsUpdated:
      return stored.units_updated().seat();
    case storage::StoredEvent::kResultRecorded:
      return stored.result_recorded().seat();
    default:
      return storage::SEAT_UNSPECIFIED;
  }
}

// "1 session", "2 sessions"; "1 die", "3 dice".
std::string Count(uint64_t n, std::string_view one, std::string_view many = {}) {
  if (n == 1) return "1 " + std::string(one);
  return std::to_string(n) + " " + (many.empty() ? std::string(one) + "s" : std::string(many));
}

int64_t Median(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// Reads a match file into its audit, one event at a time.
class Auditor {
 public:
  Auditor(const storage::MatchFile& file, const RulesetHost& host) : file_(file), host_(host) {}

  MatchAudit Run(VerifyReport verification);

 private:
  void AddEvent(int index);
  void AddRulesetEvent(int index, const storage::RulesetEvent& logged, TimelineEntry& entry);
  void AddCause(int index, const storage::Cause& cause);
  void AddClock(const storage::FileEvent& event, const storage::ClockEvent& clock,
                TimelineEntry& entry);
  void CountDice(const std::vector<LoggedDie>& dice);
  void CountRoll(size_t bucket, const std::string& purpose, DiceShape shape,
                 std::initializer_list<int> values);
  void AddCreation(const storage::MatchCreated& created);
  void AddSessions();
  void Finish();

  const storage::MatchFile& file_;
  const RulesetHost& host_;
  MatchAudit audit_;
  // Per bucket of audit_.dice: counts per (purpose, shape), and of every die's face.
  std::array<std::map<std::pair<std::string, DiceShape>, std::vector<uint64_t>>, 4> by_purpose_;
  std::array<std::vector<uint64_t>, 4> faces_;
  Results results_;
};

void Auditor::AddCreation(const storage::MatchCreated& created) {
  audit_.tournament_id = created.tournament_id();
  melee::v1::MatchSettings settings;
  if (settings.ParseFromString(created.settings())) {
    audit_.names = {settings.side_a_name(), settings.side_b_name()};
    audit_.clocked = settings.has_pace();
  }
}

MatchAudit Auditor::Run(VerifyReport verification) {
  audit_.verification = std::move(verification);
  audit_.match_id = file_.match_id();
  audit_.ruleset = file_.ruleset() + " " + file_.ruleset_version();
  audit_.exported_for = file_.exported_for();
  if (!file_.events().empty()) audit_.first_event_unix_ms = file_.events(0).recorded_unix_ms();
  for (std::vector<uint64_t>& faces : faces_) faces.assign(6, 0);
  for (int i = 0; i < file_.events_size(); ++i) AddEvent(i);
  AddSessions();
  Finish();
  return std::move(audit_);
}

void Auditor::AddEvent(int index) {
  const storage::FileEvent& event = file_.events(index);
  TimelineEntry entry{
      .seq = event.seq(), .unix_ms = event.recorded_unix_ms(), .who = "?", .what = ""};
  storage::StoredEvent stored;
  if (event.redacted()) {
    ++audit_.redacted;
    entry.what = "(redacted in this seat's export)";
  } else if (!stored.ParseFromString(event.payload())) {
    entry.what = "(unreadable: not a melee.storage.v1.StoredEvent)";
  } else if (stored.has_ruleset_event()) {
    AddRulesetEvent(index, stored.ruleset_event(), entry);
  } else if (stored.has_clock()) {
    AddClock(event, stored.clock(), entry);
  } else {
    if (stored.has_match_created()) AddCreation(stored.match_created());
    if (stored.has_result_recorded()) {
      const storage::ResultRecorded& result = stored.result_recorded();
      results_.Record(result.seat() == storage::SEAT_SIDE_A   ? ResultSource::kSideA
                      : result.seat() == storage::SEAT_SIDE_B ? ResultSource::kSideB
                                                              : ResultSource::kDirector,
                      result.combat(), static_cast<melee::v1::ResultOutcome>(result.outcome()));
    }
    entry.who = SeatName(ActorOf(stored));
    entry.what = DescribeMatchEvent(stored);
  }
  audit_.timeline.push_back(std::move(entry));
}

void Auditor::AddRulesetEvent(int index, const storage::RulesetEvent& logged,
                              TimelineEntry& entry) {
  RulesetFacts facts = FactsOf(file_.ruleset(), logged.event());
  if (facts.attacker && !audit_.first_attacker) audit_.first_attacker = facts.attacker;
  const storage::Seat actor = logged.has_cause() ? logged.cause().seat() : facts.seat;
  entry.who = SeatName(actor);
  entry.what = std::move(facts.text);
  if (logged.has_cause()) {
    AddCause(index, logged.cause());
    if (logged.cause().deadline_default()) {
      entry.who = "server";
      entry.what =
          "the rules default for " + SeatName(actor) + " (its deadline passed): " + entry.what;
    }
  }
  auto dice = host_.DiceOfLogged(logged.event());
  if (!dice) {
    entry.what += " (its dice cannot be read: " + engine::Describe(dice.error()) + ")";
  } else {
    CountDice(*dice);
  }
  if (logged.dice_step() != 0) {
    entry.what += " [closes dice step " + std::to_string(logged.dice_step()) + "]";
  }
}

void Auditor::AddCause(int index, const storage::Cause& cause) {
  const std::optional<size_t> side = SideIndex(cause.seat());
  if (!side) return;
  const std::string what = CommandKind(file_.ruleset(), cause);
  const storage::FileEvent& event = file_.events(index);
  SeatTiming& timing = audit_.timing[*side];
  if (cause.deadline_default()) {
    timing.missed_deadlines.push_back(
        MissedDeadline{.seq = event.seq(), .unix_ms = event.recorded_unix_ms(), .what = what});
    return;
  }
  // A close combat starts when both sides confirm the set-up: the server's doing, no answer.
  if (what == "set-up" || index == 0) return;
  timing.responses.push_back(
      Response{.seq = event.seq(),
               .what = what,
               .unix_ms = event.recorded_unix_ms(),
               .waited_ms = event.recorded_unix_ms() - file_.events(index - 1).recorded_unix_ms()});
}

void Auditor::AddClock(const storage::FileEvent& event, const storage::ClockEvent& clock,
                       TimelineEntry& entry) {
  const auto kind = static_cast<melee::v1::ClockEventKind>(clock.kind());
  // The server runs the clock; a seat takes vacation and pays its overrun by answering.
  entry.who = kind == melee::v1::CLOCK_EVENT_KIND_TIME_EXPIRED ||
                      (kind == melee::v1::CLOCK_EVENT_KIND_VACATION_ENDED &&
                       clock.command_id().empty())
                  ? "server"
                  : SeatName(clock.seat());
  entry.what = DescribeClock(clock);
  const std::optional<size_t> side = SideIndex(clock.seat());
  if (!side) return;
  SeatTiming& timing = audit_.timing[*side];
  switch (kind) {
    case melee::v1::CLOCK_EVENT_KIND_BANK_DRAWN:
      ++timing.bank_draws;
      timing.bank_drawn_ms += static_cast<int64_t>(clock.drawn_ms());
      break;
    case melee::v1::CLOCK_EVENT_KIND_TIME_EXPIRED:
      ++timing.expired;
      timing.bank_drawn_ms += static_cast<int64_t>(clock.drawn_ms());
      // A loss on time takes no default: it is the missed deadline itself.
      if (clock.action() == "match_lost") {
        timing.missed_deadlines.push_back(MissedDeadline{
            .seq = event.seq(), .unix_ms = event.recorded_unix_ms(),
            .what = clock.step() + " (the match lost on time)"});
        results_.Decide(0,
                        clock.seat() == storage::SEAT_SIDE_A ? melee::v1::RESULT_OUTCOME_SIDE_B_WON
                                                             : melee::v1::RESULT_OUTCOME_SIDE_A_WON,
                        SeatName(clock.seat()) + " lost on time");
      }
      break;
    case melee::v1::CLOCK_EVENT_KIND_VACATION_STARTED:
      ++timing.vacations;
      timing.vacation_days += clock.vacation_days();
      break;
    default:
      break;
  }
}

void Auditor::CountDice(const std::vector<LoggedDie>& dice) {
  for (size_t i = 0; i < dice.size(); ++i) {
    const engine::DieRoll& roll = dice[i].roll;
    const size_t bucket = dice[i].seat ? SideIndex(*dice[i].seat) : kNobody;
    const bool pair = roll.color == engine::DieColor::kColored && i + 1 < dice.size() &&
                      dice[i + 1].roll.color == engine::DieColor::kWhite &&
                      dice[i + 1].roll.purpose == roll.purpose;
    if (pair) {
      CountRoll(bucket, roll.purpose, DiceShape::kTwoDice, {roll.value, dice[i + 1].roll.value});
      ++i;
    } else {
      CountRoll(bucket, roll.purpose, DiceShape::kD6, {roll.value});
    }
  }
}

void Auditor::CountRoll(size_t bucket, const std::string& purpose, DiceShape shape,
                        std::initializer_list<int> values) {
  const bool valid =
      std::all_of(values.begin(), values.end(), [](int value) { return value >= 1 && value <= 6; });
  for (const size_t b : {bucket, kWholeMatch}) {
    if (!valid) {
      audit_.dice[b].invalid_dice += values.size();
      continue;
    }
    int total = 0;
    for (const int value : values) {
      ++faces_[b][static_cast<size_t>(value - 1)];
      total += value;
    }
    std::vector<uint64_t>& counts = by_purpose_[b][{purpose, shape}];
    if (counts.empty()) counts.assign(shape == DiceShape::kD6 ? 6 : 11, 0);
    ++counts[static_cast<size_t>(total - (shape == DiceShape::kD6 ? 1 : 2))];
  }
}

void Auditor::AddSessions() {
  for (const storage::SessionRecord& record : file_.sessions()) {
    std::optional<size_t> index = SideIndex(record.seat());
    if (record.seat() == storage::SEAT_DIRECTOR) index = 2;
    if (!index) continue;
    SeatSessions& seat = audit_.sessions[*index];
    ++seat.sessions;
    if (record.left_unix_ms() == 0) continue;  // still connected when the file was written
    if (record.reason() == kClosedByClient ||
        record.reason() == std::string(kClosedByServer) + std::string(kServerShuttingDown)) {
      ++seat.closed;
    } else {
      seat.disconnects.push_back(Disconnect{.joined_unix_ms = record.joined_unix_ms(),
                                            .left_unix_ms = record.left_unix_ms(),
                                            .reason = record.reason()});
    }
  }
}

void Auditor::Finish() {
  // The file carries no Location per close combat number; the summaries name the number.
  audit_.results = results_.Summaries([](uint32_t) { return std::string(); });
  static constexpr std::array<std::string_view, 4> kPlayers = {"side_a", "side_b", "nobody",
                                                               "the whole match"};
  for (size_t b = 0; b < audit_.dice.size(); ++b) {
    PlayerDice& dice = audit_.dice[b];
    dice.player = kPlayers[b];
    for (auto& [key, counts] : by_purpose_[b]) {
      dice.by_purpose.push_back(TestDice(key.first, key.second, std::move(counts)));
    }
    dice.all_dice = TestDice("all dice", DiceShape::kD6, std::move(faces_[b]));
  }
  for (size_t s = 0; s < audit_.timing.size(); ++s) {
    SeatTiming& timing = audit_.timing[s];
    timing.seat = s == 0 ? "side_a" : "side_b";
    std::vector<int64_t> waits;
    for (const Response& response : timing.responses) waits.push_back(response.waited_ms);
    timing.max_ms = waits.empty() ? 0 : *std::max_element(waits.begin(), waits.end());
    timing.median_ms = Median(std::move(waits));
  }
  audit_.sessions[0].seat = "side_a";
  audit_.sessions[1].seat = "side_b";
  audit_.sessions[2].seat = "director";
}

// ---- the report -------------------------------------------------------------------------------

void WriteIndented(const std::string& text, std::string_view indent, std::ostream& out) {
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    out << indent << text.substr(start, end - start) << "\n";
    start = end + 1;
  }
}

void WriteHeader(const MatchAudit& audit, std::ostream& out) {
  const VerifyReport& report = audit.verification;
  if (!report.ok) {
    out << "this file does NOT verify: "
        << (report.failed_seq != 0 ? "event " + std::to_string(report.failed_seq) + ": " : "")
        << report.reason << "\n\n";
  }
  out << "Audit of match " << audit.match_id << " (" << audit.ruleset << "), exported for "
      << audit.exported_for << "\n";
  out << "  " << audit.timeline.size() << " events, the first recorded "
      << UtcTime(audit.first_event_unix_ms);
  if (!audit.tournament_id.empty()) out << ", tournament " << audit.tournament_id;
  out << "\n";
  if (!audit.names[0].empty() || !audit.names[1].empty()) {
    out << "  players: side_a " << (audit.names[0].empty() ? "(unnamed)" : audit.names[0])
        << ", side_b " << (audit.names[1].empty() ? "(unnamed)" : audit.names[1]) << "\n";
  }
  for (const melee::v1::MatchResult& result : audit.results) {
    out << "  result of " << (result.combat() == 0 ? std::string("the match")
                                                   : "close combat " +
                                                         std::to_string(result.combat()))
        << ": " << result.status() << "\n";
  }
  out << "\nVerification\n";
  WriteIndented(report.Describe(), "  ", out);
}

void WriteCells(std::string_view title, const std::vector<std::string>& cells, std::ostream& out) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "      %-9s", std::string(title).c_str());
  out << buffer;
  for (const std::string& cell : cells) {
    std::snprintf(buffer, sizeof buffer, "%7s", cell.c_str());
    out << buffer;
  }
  out << "\n";
}

void WriteTest(const DiceTest& test, std::ostream& out) {
  const bool two = test.shape == DiceShape::kTwoDice;
  out << "    " << test.label << ": "
      << (two ? Count(test.rolls, "DR") + " (totals 2..12, coloured + white die)"
              : Count(test.rolls, "die", "dice") + " (faces 1..6)")
      << "\n";
  std::vector<std::string> outcomes;
  std::vector<std::string> seen;
  std::vector<std::string> expected;
  for (size_t i = 0; i < test.counts.size(); ++i) {
    outcomes.push_back(std::to_string(test.lowest + static_cast<int>(i)));
    seen.push_back(std::to_string(test.counts[i]));
    expected.push_back(Fixed(test.expected[i], 2));
  }
  WriteCells(two ? "DR" : "dr", outcomes, out);
  WriteCells("seen", seen, out);
  WriteCells("expected", expected, out);
  out << "      chi-square " << Fixed(test.chi_square, 3) << ", df " << test.degrees_of_freedom
      << ", p-value " << Fixed(test.p_value, 4);
  if (test.indicative_only) out << " (indicative only: fewer than 5 expected in some outcome)";
  out << "\n";
}

void WriteDice(const MatchAudit& audit, std::ostream& out) {
  out << "\nDice (each against fair dice; the p-value is the chance that fair dice differ as much "
         "or more)\n";
  if (audit.redacted != 0) {
    out << "  " << Count(audit.redacted, "event") << " redacted in this export: their dice are not "
        << "counted\n";
  }
  for (const PlayerDice& dice : audit.dice) {
    out << "  " << dice.player << ": " << Count(dice.all_dice.rolls, "die", "dice") << "\n";
    if (dice.invalid_dice != 0) {
      out << "    " << dice.invalid_dice << " dice show a value outside 1..6 (not counted)\n";
    }
    if (dice.all_dice.rolls == 0) continue;
    for (const DiceTest& test : dice.by_purpose) WriteTest(test, out);
    WriteTest(dice.all_dice, out);
  }
}

void WriteTiming(const MatchAudit& audit, std::ostream& out) {
  out << "\nResponse times (from the event before to the first event a seat's command caused)\n";
  for (const SeatTiming& timing : audit.timing) {
    out << "  " << timing.seat << ": " << Count(timing.responses.size(), "response");
    if (!timing.responses.empty()) {
      out << ", median " << Duration(timing.median_ms) << ", max " << Duration(timing.max_ms);
    }
    out << "\n";
    for (const Response& response : timing.responses) {
      out << "    seq " << response.seq << "  " << response.what << "  "
          << Duration(response.waited_ms) << "\n";
    }
  }
  if (audit.clocked) {
    out << "\nClocks (docs/clocks.md)\n";
    for (const SeatTiming& timing : audit.timing) {
      out << "  " << timing.seat << ": time bank drawn " << Count(timing.bank_draws, "time")
          << " (" << Duration(timing.bank_drawn_ms) << " in all), time ran out "
          << Count(timing.expired, "time") << ", " << Count(timing.vacations, "vacation") << " ("
          << Count(timing.vacation_days, "day") << ")\n";
    }
  }
  out << "\nDeadlines missed (the server took the rules default, or the match was lost on "
         "time)\n";
  for (const SeatTiming& timing : audit.timing) {
    out << "  " << timing.seat << ": "
        << (timing.missed_deadlines.empty() ? "none"
                                            : std::to_string(timing.missed_deadlines.size()))
        << "\n";
    for (const MissedDeadline& missed : timing.missed_deadlines) {
      out << "    seq " << missed.seq << " at " << UtcTime(missed.unix_ms) << ": its "
          << missed.what << "\n";
    }
  }
}

void WriteSessions(const MatchAudit& audit, std::ostream& out) {
  out << "\nConnections\n";
  uint64_t total = 0;
  for (const SeatSessions& seat : audit.sessions) total += seat.sessions;
  if (total == 0) {
    out << "  this file records no sessions\n";
    return;
  }
  for (const SeatSessions& seat : audit.sessions) {
    out << "  " << seat.seat << ": " << Count(seat.sessions, "session") << ", "
        << Count(seat.disconnects.size(), "disconnect");
    if (seat.closed != 0) out << " (" << seat.closed << " closed cleanly: not disconnects)";
    out << "\n";
    for (const Disconnect& disconnect : seat.disconnects) {
      out << "    left " << UtcTime(disconnect.left_unix_ms) << " (joined "
          << UtcTime(disconnect.joined_unix_ms) << "): " << OneLine(disconnect.reason) << "\n";
    }
  }
}

void WriteTimeline(const MatchAudit& audit, std::ostream& out) {
  out << "\nTimeline\n";
  for (const TimelineEntry& entry : audit.timeline) {
    out << "  seq " << entry.seq << "  " << UtcTime(entry.unix_ms) << "  " << entry.who << "  "
        << entry.what << "\n";
  }
}

// One CSV field, quoted as RFC 4180 says when it holds a comma, a quote or a line break.
std::string CsvField(std::string_view value) {
  if (value.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(value);
  std::string quoted = "\"";
  for (const char c : value) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string CsvLine(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) line += (i == 0 ? "" : ",") + CsvField(fields[i]);
  return line;
}

}  // namespace

DiceTest TestDice(std::string label, DiceShape shape, std::vector<uint64_t> counts) {
  const std::vector<double> p = Probabilities(shape);
  MELEE_CHECK(counts.size() == p.size());
  DiceTest test;
  test.label = std::move(label);
  test.shape = shape;
  test.lowest = shape == DiceShape::kD6 ? 1 : 2;
  for (const uint64_t count : counts) test.rolls += count;
  test.degrees_of_freedom = static_cast<int>(p.size()) - 1;
  test.indicative_only = test.rolls == 0;
  const double n = static_cast<double>(test.rolls);
  for (size_t i = 0; i < p.size(); ++i) {
    const double expected = n * p[i];
    test.expected.push_back(expected);
    if (expected < kMinExpected) test.indicative_only = true;
    if (expected > 0) {
      const double difference = static_cast<double>(counts[i]) - expected;
      test.chi_square += difference * difference / expected;
    }
  }
  test.counts = std::move(counts);
  if (test.rolls != 0) {
    const boost::math::chi_squared distribution(test.degrees_of_freedom);
    test.p_value = boost::math::cdf(boost::math::complement(distribution, test.chi_square));
  }
  return test;
}

engine::Result<MatchAudit> AuditMatch(const storage::MatchFile& file, const HostLookup& hosts) {
  const RulesetHost* host = hosts(file.ruleset());
  if (host == nullptr) {
    return engine::Reject("", "this build does not play ruleset '" + file.ruleset() +
                                  "', so it cannot read the file's events");
  }
  return Auditor(file, *host).Run(VerifyMatchFile(file, hosts));
}

void WriteAuditText(const MatchAudit& audit, std::ostream& out) {
  WriteHeader(audit, out);
  WriteDice(audit, out);
  WriteTiming(audit, out);
  WriteSessions(audit, out);
  WriteTimeline(audit, out);
}

std::string AslprCsvHeader() {
  return "Tournament ID,Round,Round Date,Scenario,Player 1,P1AttDef,P1AlorAx,P1 Result,Player 2,"
         "P2AttDef,P2AlorAx,P2 Result,Date,game id";
}

bool HasAslprRow(const MatchAudit& audit) { return audit.ruleset.starts_with("asl "); }

namespace {

// "Win", "Loss" or "Draw" for `side` (0: side A) as the log decides the match, else "".
std::string LoggedResult(const MatchAudit& audit, size_t side) {
  for (const melee::v1::MatchResult& result : audit.results) {
    if (result.combat() != 0) continue;
    switch (result.decided()) {
      case melee::v1::RESULT_OUTCOME_DRAW:
        return "Draw";
      case melee::v1::RESULT_OUTCOME_SIDE_A_WON:
        return side == 0 ? "Win" : "Loss";
      case melee::v1::RESULT_OUTCOME_SIDE_B_WON:
        return side == 1 ? "Win" : "Loss";
      default:
        return "";
    }
  }
  return "";
}

}  // namespace

std::string AslprCsvRow(const MatchAudit& audit, const AslprFields& fields) {
  std::vector<std::string> row = {
      fields.tournament_id.empty() ? audit.tournament_id : fields.tournament_id, fields.round,
      fields.round_date, fields.scenario};
  for (size_t side = 0; side < 2; ++side) {
    std::string att_def = fields.att_def[side];
    if (att_def.empty() && audit.first_attacker) {
      att_def = SideIndex(*audit.first_attacker) == side ? "Attacker" : "Defender";
    }
    std::string player = fields.players[side].empty() ? audit.names[side] : fields.players[side];
    row.push_back(player.empty() ? (side == 0 ? "side_a" : "side_b") : std::move(player));
    row.push_back(std::move(att_def));
    row.push_back(fields.allied_axis[side]);
    row.push_back(fields.results[side].empty() ? LoggedResult(audit, side) : fields.results[side]);
  }
  row.push_back(audit.first_event_unix_ms != 0 ? UtcDate(audit.first_event_unix_ms) : "");
  row.push_back(audit.match_id);
  return CsvLine(row);
}

}  // namespace melee::server
