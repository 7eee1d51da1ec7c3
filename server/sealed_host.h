#pragma once

// The host of a sealed-declaration ruleset (coc, vv): a close combat played in sealed steps. In
// each step every side that owes one seals its part (a declaration, a placement of odd hits, an
// allocation of Casualty Points); nobody else sees it until both have sealed and one event
// reveals both. Nothing else is hidden: no concealment, no announcements, no choices.
//
// SealedHost<Types> is the whole RulesetHost of such a ruleset. The ruleset's own host file
// (coc_host.cc, vv_host.cc) gives only what differs, as a table: a SealedRuleset<Types> holding
// its wire and codec calls, its set-up, its prompts, and its sealed steps (SealedStep). What a
// viewer sees of a sealed part is decided once, here, from the engine's View (Redact).
//
// `Types` names the ruleset's engine types (State, Event, Command, View, Rules, Phase,
// EventKind) and its proto messages (WireDeclaration: its part of melee.v1.Declaration;
// LoggedCommand, LoggedEvent: the log forms). Its State has `phase`, `owes` (by seat) and
// `situation.attacker`; its Event has `kind` and `seat`; its Phase has kSetUp and kEnded.

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "proto/codec/asl.h"  // SideToProto
#include "proto/codec/frame.h"
#include "server/ruleset_host.h"

namespace melee::server {

// A message the ruleset answers to a command it never asks for (an announcement, a choice).
struct NotAsked {
  std::string_view rule;
  std::string_view message;
};

// A kind of unit update a ruleset does not take, and why (after "<field>.kind: ").
struct NotAnUpdate {
  melee::v1::UpdateKind kind;
  std::string_view rule;
  std::string_view why;
};

// Returns copies of both set-up parts (an empty one for a side that entered nothing), for a
// ruleset's WithCarried to add what the forces carry to.
inline std::array<melee::v1::SubmitSetup, 2> CopyParts(const SetupParts& parts) {
  std::array<melee::v1::SubmitSetup, 2> out;
  for (size_t i = 0; i < out.size(); ++i) {
    if (parts[i]) out[i] = *parts[i];
  }
  return out;
}

// Returns `parts` shared and immutable.
inline SetupParts ShareParts(std::array<melee::v1::SubmitSetup, 2> parts) {
  return SetupParts{std::make_shared<const melee::v1::SubmitSetup>(std::move(parts[0])),
                    std::make_shared<const melee::v1::SubmitSetup>(std::move(parts[1]))};
}

// One sealed step of a ruleset: while the engine is in `phase`, each side that owes one seals
// its part; `sealed` is one side's seal, `revealed` shows both.
template <class Types>
struct SealedStep {
  using State = typename Types::State;
  using Command = typename Types::Command;
  using View = typename Types::View;
  using WireDeclaration = typename Types::WireDeclaration;

  typename Types::Phase phase;
  // Its case in the ruleset's WireDeclaration oneof, and that field's name ("declare").
  typename WireDeclaration::PartCase part;
  std::string_view field;
  typename Types::EventKind sealed;
  typename Types::EventKind revealed;
  // What a seat owes in words, after its name: ": seal a Close Combat declaration (17.2)".
  std::string_view prompt;
  // What the seat owes in this step, in numbers, after the prompt (" — 3 Casualty Points"); null:
  // nothing to count.
  std::string (*owed)(const State& state, engine::Seat seat) = nullptr;
  // What a viewer who may not see the part reads instead, after the seat's name.
  std::string_view sealed_text;

  // Names the step: a new name starts a new deadline (Awaiting::step). Null: `field`.
  std::string (*name)(const State& state) = nullptr;
  // Reads the part (its case is `part`) into a command; errors name `field_path`.
  engine::Result<Command> (*read)(const WireDeclaration& message, const std::string& field_path);
  // The rules default for `seat`, taken when its deadline passes.
  Command (*fallback)(const State& state, engine::Seat seat);
  // Whether `view` shows the part sealed by the side at `index` (0: side A).
  bool (*shown)(const View& view, size_t index);
  // Writes that part, as `view` shows it (`shown` holds), into `out`.
  void (*reveal)(const View& view, size_t index, WireDeclaration& out);
  // Removes the part from a sealed event's log form.
  void (*clear)(typename Types::LoggedEvent& event);
};

// What a sealed-declaration ruleset's host needs to know of it, beyond SealedHost's common part.
template <class Types>
struct SealedRuleset {
  using State = typename Types::State;
  using Event = typename Types::Event;
  using Command = typename Types::Command;
  using View = typename Types::View;
  using WireDeclaration = typename Types::WireDeclaration;
  using LoggedCommand = typename Types::LoggedCommand;
  using LoggedEvent = typename Types::LoggedEvent;

  std::string_view id;  // the ruleset's id, and its field in the envelope's messages ("coc")
  std::unique_ptr<const engine::Ruleset> (*make_ruleset)();
  NotAsked no_announcements;
  NotAsked no_choices;
  typename Types::EventKind ended;  // the last event: its text is the match's summary

  // Set-up. Each ruleset's set-up part has its own shape; see RulesetHost for the contracts.
  engine::Result<void> (*check_setup)(engine::Seat seat, const melee::v1::SubmitSetup& part,
                                      const SetupParts& parts);
  engine::Result<Command> (*start)(const SetupParts& parts);
  SetupFacts (*facts)(const SetupParts& parts);

  // The codec, and the ruleset's part of the envelope's messages (part_of: null when absent).
  LoggedCommand (*command_to_proto)(const Command& command);
  engine::Result<Command> (*command_from_proto)(const LoggedCommand& message);
  LoggedEvent (*event_to_proto)(const State& before, const Event& event);
  const WireDeclaration* (*part_of)(const melee::v1::Declaration& message);
  WireDeclaration* (*mutable_part_of)(melee::v1::Declaration& message);
  void (*set_event)(melee::v1::MatchEvent& out, LoggedEvent event);
  void (*set_view)(melee::v1::MatchView& out, const View& view);

  std::span<const SealedStep<Types>> steps;  // in the order the engine plays them

  // Forces that persist (docs/forces.md); see RulesetHost for the contracts. Nothing of a
  // sealed ruleset's units is concealed, and no close combat goes on by itself (no Melee).
  std::vector<melee::v1::ForceUnit> (*units_of_part)(const melee::v1::SubmitSetup& part);
  // Null: a unit holds its own id alone.
  std::vector<std::string> (*ids_of)(const melee::v1::ForceUnit& unit);
  // Null: nothing beyond the units being new.
  engine::Result<void> (*check_part)(engine::Seat seat, const melee::v1::SubmitSetup& part,
                                     const Forces& forces);
  engine::Result<SetupParts> (*with_carried)(const SetupParts& parts, const Forces& forces,
                                             const std::string& location);
  CombatOutcome (*outcome_of)(const State& state);
  std::string_view played_rule;
  // The kinds of update it refuses, each with its reason; every other kind reaches
  // `apply_update` (ENTER with a unit freshly made) or, naming no unit, `apply_side_update`
  // (null: every update names a unit).
  std::span<const NotAnUpdate> not_updates;
  engine::Result<void> (*apply_update)(const melee::v1::UnitUpdate& update,
                                       melee::v1::ForceUnit& unit, const std::string& field);
  engine::Result<void> (*apply_side_update)(const melee::v1::UnitUpdate& update, Force& force,
                                            const std::string& field);
};

template <class Types>
class SealedHost final : public RulesetHost {
 public:
  using State = typename Types::State;
  using Event = typename Types::Event;
  using Command = typename Types::Command;
  using View = typename Types::View;
  using Phase = typename Types::Phase;
  using LoggedEvent = typename Types::LoggedEvent;
  using Step = SealedStep<Types>;

  explicit SealedHost(const SealedRuleset<Types>& table)
      : table_(table), ruleset_(table.make_ruleset()) {}

  const engine::Ruleset& ruleset() const override { return *ruleset_; }

  engine::Result<void> CheckSetup(engine::Seat seat, const melee::v1::SubmitSetup& part,
                                  const SetupParts& parts) const override {
    return table_.check_setup(seat, part, parts);
  }

  engine::Result<DecodedCommand> StartCommand(const SetupParts& parts) const override {
    auto command = table_.start(parts);
    if (!command) return tl::unexpected(command.error());
    return Decoded(std::move(*command));
  }

  melee::v1::SubmitSetup MaskSetup(const melee::v1::SubmitSetup& part, engine::Seat,
                                   engine::Viewer) const override {
    melee::v1::SubmitSetup shown = part;  // no concealment: both sides see every unit
    shown.clear_expected_seq();
    return shown;
  }

  engine::Result<DecodedCommand> FromAnnounce(const melee::v1::Announce&) const override {
    return engine::Reject(std::string(table_.no_announcements.rule),
                          std::string(table_.no_announcements.message));
  }

  engine::Result<DecodedCommand> FromDeclaration(
      const melee::v1::Declaration& message) const override {
    const std::string field = "declaration." + std::string(table_.id);
    const auto* part = table_.part_of(message);
    if (part == nullptr || !SetsOneField(message)) {
      return engine::Reject("", field + ": required for a " + std::string(table_.id) +
                                    " match (and nothing else)");
    }
    std::string cases;
    for (const Step& step : table_.steps) {
      if (part->part_case() == step.part) {
        auto command = step.read(*part, field + "." + std::string(step.field));
        if (!command) return tl::unexpected(command.error());
        return Decoded(std::move(*command));
      }
      cases += (cases.empty() ? "" : " or ") + std::string(step.field);
    }
    return engine::Reject("", field + ": give " + cases);
  }

  engine::Result<DecodedCommand> FromChoice(const melee::v1::MakeChoice&) const override {
    return engine::Reject(std::string(table_.no_choices.rule),
                          std::string(table_.no_choices.message));
  }

  engine::Result<engine::AnyCommand> FromLogged(std::string_view logged) const override {
    return CommandOfLogged<typename Types::LoggedCommand>(logged, table_.command_from_proto);
  }

  Awaiting AwaitingOf(const engine::AnyState& state) const override {
    const State& s = StateOf(state);
    const Step* step = StepIn(s.phase);
    if (step == nullptr) return {};
    Awaiting awaiting{.kind = Awaiting::Kind::kDeclaration, .seats = {}, .step = {}};
    awaiting.step = step->name != nullptr ? step->name(s) : std::string(step->field);
    const engine::Seat attacker = s.situation.attacker;
    for (engine::Seat seat : {attacker, engine::Opponent(attacker)}) {
      if (s.owes[Index(seat)]) awaiting.seats.push_back(seat);
    }
    return awaiting;
  }

  DecodedCommand DefaultAction(const engine::AnyState& state, engine::Seat seat) const override {
    const State& s = StateOf(state);
    const Step* step = StepIn(s.phase);
    return Decoded((step != nullptr ? *step : table_.steps.front()).fallback(s, seat));
  }

  SetupFacts FactsOf(const SetupParts& parts) const override { return table_.facts(parts); }

  bool Ended(const engine::AnyState& state) const override {
    return StateOf(state).phase == Phase::kEnded;
  }

  std::vector<std::string> WaitingFor(const engine::AnyState& state) const override {
    const State& s = StateOf(state);
    if (s.phase == Phase::kSetUp) return {"set-up"};
    const Step* step = StepIn(s.phase);
    std::vector<std::string> waiting;
    if (step == nullptr) return waiting;
    for (engine::Seat seat : {engine::Seat::kSideA, engine::Seat::kSideB}) {
      if (!s.owes[Index(seat)]) continue;
      waiting.push_back(SeatName(seat) + std::string(step->prompt) +
                        (step->owed != nullptr ? step->owed(s, seat) : std::string()));
    }
    return waiting;
  }

  std::string LogEvent(const engine::AnyState& before,
                       const engine::AnyEvent& event) const override {
    return proto::SerializeDeterministic(table_.event_to_proto(StateOf(before), EventOf(event)));
  }

  engine::Result<std::vector<LoggedDie>> DiceOfLogged(std::string_view logged) const override {
    return DiceOfLoggedEvent<LoggedEvent>(logged);
  }

  bool Material(const engine::AnyEvent& event, engine::Seat seat) const override {
    const Event& e = EventOf(event);
    for (const Step& step : table_.steps) {
      if (e.kind == step.sealed) return e.seat == seat;  // the other side sealing is not
    }
    return true;
  }

  void RenderEvent(std::string_view logged, const engine::AnyState& after,
                   const engine::AnyEvent& event, engine::Viewer viewer,
                   melee::v1::MatchEvent& out) const override {
    const Event& e = EventOf(event);
    LoggedEvent shown = LoggedForm<LoggedEvent>(logged);
    Redact(e, engine_rules_.MakeView(StateOf(after), viewer), shown, out);
    if (e.kind == table_.ended) out.mutable_match_ended()->set_summary(shown.text());
    table_.set_event(out, std::move(shown));
  }

  void RenderView(const engine::AnyState& state, engine::Viewer viewer,
                  melee::v1::MatchView& out) const override {
    table_.set_view(out, engine_rules_.MakeView(StateOf(state), viewer));
  }

  // ---- forces that persist ----

  bool CarriesForces() const override { return true; }

  std::vector<melee::v1::ForceUnit> UnitsOfPart(const melee::v1::SubmitSetup& part) const override {
    return table_.units_of_part(part);
  }

  std::vector<std::string> IdsOf(const melee::v1::ForceUnit& unit) const override {
    return table_.ids_of != nullptr ? table_.ids_of(unit) : std::vector<std::string>{unit.id()};
  }

  bool Holds(const melee::v1::ForceUnit& unit, std::string_view id) const override {
    if (unit.id() == id) return true;
    if (table_.ids_of == nullptr) return false;
    const std::vector<std::string> ids = table_.ids_of(unit);
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  }

  engine::Result<void> CheckPartAgainstForces(engine::Seat seat,
                                              const melee::v1::SubmitSetup& part,
                                              const Forces& forces) const override {
    return table_.check_part != nullptr ? table_.check_part(seat, part, forces)
                                        : engine::Result<void>{};
  }

  // No close combat of a sealed ruleset goes on by itself: `facts` and `attacker` (a Melee going
  // on) never come.
  engine::Result<SetupParts> WithCarried(const SetupParts& parts, const Forces& forces,
                                         const std::string& location, const std::string&,
                                         std::optional<engine::Seat>) const override {
    return table_.with_carried(parts, forces, location);
  }

  CombatOutcome OutcomeOf(const engine::AnyState& state) const override {
    return table_.outcome_of(StateOf(state));
  }

  std::string_view PlayedRule() const override { return table_.played_rule; }

  engine::Result<void> CheckUpdateKind(const melee::v1::UnitUpdate& update,
                                       const std::string& field) const override {
    for (const NotAnUpdate& refused : table_.not_updates) {
      if (refused.kind == update.kind()) {
        return engine::Reject(std::string(refused.rule), field + ".kind: " +
                                                             std::string(refused.why));
      }
    }
    return {};
  }

  engine::Result<void> ApplyUpdate(const melee::v1::UnitUpdate& update,
                                   melee::v1::ForceUnit& unit, melee::v1::ForceUnit*,
                                   const std::string& field) const override {
    return table_.apply_update(update, unit, field);
  }

  engine::Result<void> ApplySideUpdate(const melee::v1::UnitUpdate& update, Force& force,
                                       const std::string& field) const override {
    if (table_.apply_side_update == nullptr) {
      return RulesetHost::ApplySideUpdate(update, force, field);
    }
    return table_.apply_side_update(update, force, field);
  }

  // Nothing is concealed: every viewer sees every unit of both forces (as MaskSetup shows every
  // unit of a set-up).
  bool HiddenFrom(const melee::v1::ForceUnit&, engine::Viewer) const override { return false; }

 private:
  static size_t Index(engine::Seat seat) { return seat == engine::Seat::kSideA ? 0 : 1; }
  static std::string SeatName(engine::Seat seat) { return std::string(engine::Name(seat)); }
  static const State& StateOf(const engine::AnyState& state) { return *state.As<State>(); }
  static const Event& EventOf(const engine::AnyEvent& event) { return *event.As<Event>(); }

  // Whether the ruleset's part is the only field `message` sets (no attacks, no other
  // ruleset's part).
  static bool SetsOneField(const melee::v1::Declaration& message) {
    std::vector<const google::protobuf::FieldDescriptor*> set;
    message.GetReflection()->ListFields(message, &set);
    return set.size() == 1;
  }

  DecodedCommand Decoded(Command command) const {
    std::string logged = proto::SerializeDeterministic(table_.command_to_proto(command));
    return DecodedCommand{.command = engine::AnyCommand(std::move(command)),
                          .logged = std::move(logged)};
  }

  // The sealed step the engine waits for in `phase`, or null.
  const Step* StepIn(Phase phase) const {
    for (const Step& step : table_.steps) {
      if (step.phase == phase) return &step;
    }
    return nullptr;
  }

  // What a viewer sees of a sealed part, decided here alone from the engine's `view` (the state
  // after `e`): a seal shows its seat, and its part only when the view shows it; a reveal shows
  // each side's part the view shows. `shown` is `e`'s log form, rendered into `out`.
  void Redact(const Event& e, const View& view, LoggedEvent& shown,
              melee::v1::MatchEvent& out) const {
    for (const Step& step : table_.steps) {
      if (e.kind == step.sealed) {
        out.mutable_declaration_sealed()->set_seat(proto::SideToProto(e.seat));
        if (!step.shown(view, Index(e.seat))) {
          step.clear(shown);
          shown.set_text(SeatName(e.seat) + " " + std::string(step.sealed_text));
        }
      } else if (e.kind == step.revealed) {
        melee::v1::DeclarationsRevealed* revealed = out.mutable_declarations_revealed();
        for (size_t i = 0; i < 2; ++i) {
          if (!step.shown(view, i)) continue;
          melee::v1::Declaration& side =
              i == 0 ? *revealed->mutable_side_a() : *revealed->mutable_side_b();
          step.reveal(view, i, *table_.mutable_part_of(side));
        }
      }
    }
  }

  const SealedRuleset<Types> table_;
  const std::unique_ptr<const engine::Ruleset> ruleset_;
  const typename Types::Rules engine_rules_{};
};

}  // namespace melee::server
