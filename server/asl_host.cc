// The asl ruleset on the server: wire commands <-> engine::asl commands, the log form of its
// events, and what each seat sees of them (masked with the engine's own View).

#include <algorithm>
#include <charconv>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/asl/rules.h"
#include "proto/codec/asl.h"
#include "proto/codec/frame.h"
#include "proto/codec/scratch_arena.h"
#include "server/forces.h"
#include "server/ruleset_host.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;
namespace asl = melee::engine::asl;
using engine::AnyCommand;
using engine::AnyEvent;
using engine::AnyState;
using engine::Reject;
using engine::Result;
using engine::Seat;
using engine::Viewer;

constexpr size_t kMaxUnits = 64;

size_t SeatIndex(Seat seat) { return seat == Seat::kSideA ? 0 : 1; }

std::string Serialize(const google::protobuf::MessageLite& message) {
  return proto::SerializeDeterministic(message);
}

DecodedCommand Decoded(asl::Command command) {
  std::string logged = Serialize(proto::CommandToProto(command));
  return DecodedCommand{.command = AnyCommand(std::move(command)), .logged = std::move(logged)};
}

const asl::State& StateOf(const AnyState& state) { return *state.As<asl::State>(); }
const asl::Event& EventOf(const AnyEvent& event) { return *event.As<asl::Event>(); }

const asl::AslRules& Rules() {
  static const asl::AslRules rules;
  return rules;
}

std::string_view ChoiceRule(asl::ChoiceKind kind) {
  switch (kind) {
    case asl::ChoiceKind::kInfiltration:
      return "A11.22";
    case asl::ChoiceKind::kCaptureSelection:
      return "A20.22";
    case asl::ChoiceKind::kAmbushWithdrawal:
      return "A11.41";
  }
  return "";
}

std::string_view ChoicePrompt(asl::ChoiceKind kind) {
  switch (kind) {
    case asl::ChoiceKind::kInfiltration:
      return "Infiltration after an Original 2/12: select the units that withdraw now (none: stay)";
    case asl::ChoiceKind::kCaptureSelection:
      return "Capture: select the one unit of the partial set that is captured";
    case asl::ChoiceKind::kAmbushWithdrawal:
      return "Ambush Withdrawal: select the ambushing units that withdraw before Melee";
  }
  return "";
}

// A concealed unit as the other side sees it before the engine holds it: a "?" with its id.
aslpb::Unit Hidden(const aslpb::Unit& unit) {
  aslpb::Unit hidden;
  hidden.set_id(unit.id());
  hidden.set_owner(unit.owner());
  hidden.set_concealed(true);
  return hidden;
}

class AslHost final : public RulesetHost {
 public:
  AslHost() : ruleset_(asl::MakeAslRuleset()) {}

  const engine::Ruleset& ruleset() const override { return *ruleset_; }

  Result<void> CheckSetup(Seat seat, const v1::SubmitSetup& part,
                          const SetupParts& parts) const override {
    if (!part.has_asl()) return Reject("", "submit_setup.asl: required for an asl match");
    const aslpb::SideSetup& mine = part.asl();
    const std::string field = "submit_setup.asl";
    if (mine.has_location()) {
      auto location = proto::LocationFromProto(mine.location(), field + ".location");
      if (!location) return tl::unexpected(location.error());
    }
    if (mine.attacker() != v1::SEAT_UNSPECIFIED) {
      auto attacker = proto::SideFromProto(mine.attacker(), field + ".attacker");
      if (!attacker) return tl::unexpected(attacker.error());
    }
    const auto& other = parts[seat == Seat::kSideA ? 1 : 0];
    size_t other_units = 0;
    std::set<std::string> taken;
    if (other && other->has_asl()) {
      const aslpb::SideSetup& theirs = other->asl();
      other_units = static_cast<size_t>(theirs.units_size());
      for (const aslpb::Unit& unit : theirs.units()) taken.insert(unit.id());
      if (mine.has_location() && theirs.has_location() &&
          Serialize(mine.location()) != Serialize(theirs.location())) {
        return Reject("", field + ".location: differs from the Location " +
                              std::string(engine::Name(engine::Opponent(seat))) +
                              " entered; leave it empty or enter the same");
      }
      if (mine.attacker() != v1::SEAT_UNSPECIFIED && theirs.attacker() != v1::SEAT_UNSPECIFIED &&
          mine.attacker() != theirs.attacker()) {
        return Reject("", field + ".attacker: differs from the ATTACKER " +
                              std::string(engine::Name(engine::Opponent(seat))) + " entered");
      }
    }
    if (static_cast<size_t>(mine.units_size()) + other_units > kMaxUnits) {
      return Reject("", field + ".units: a Location holds at most " + std::to_string(kMaxUnits) +
                            " units");
    }
    std::set<std::string> seen;
    for (int i = 0; i < mine.units_size(); ++i) {
      const std::string unit_field = field + ".units[" + std::to_string(i) + "]";
      auto unit = proto::UnitFromProto(mine.units(i), unit_field);
      if (!unit) return tl::unexpected(unit.error());
      if (unit->owner != seat) {
        return Reject("", unit_field + ".owner: " + std::string(engine::Name(seat)) +
                              " enters only its own units");
      }
      if (!seen.insert(unit->id).second || taken.contains(unit->id)) {
        return Reject("", unit_field + ".id: '" + unit->id + "' is already used in this Location");
      }
    }
    return {};
  }

  Result<DecodedCommand> StartCommand(const SetupParts& parts) const override {
    aslpb::Situation situation;
    for (const auto& part : parts) {
      if (!part || !part->has_asl()) return Reject("", "both sides must enter their units first");
      const aslpb::SideSetup& side = part->asl();
      if (side.has_location() && !situation.has_location()) {
        *situation.mutable_location() = side.location();
      }
      if (side.attacker() != v1::SEAT_UNSPECIFIED) situation.set_attacker(side.attacker());
      for (const aslpb::Unit& unit : side.units()) *situation.add_units() = unit;
    }
    auto read = proto::SituationFromProto(situation, "set-up");
    if (!read) return tl::unexpected(read.error());
    return Decoded(asl::SetUp{std::move(*read)});
  }

  v1::SubmitSetup MaskSetup(const v1::SubmitSetup& part, Seat owner,
                            Viewer viewer) const override {
    v1::SubmitSetup shown = part;
    shown.clear_expected_seq();
    if (viewer == Viewer::kDirector || viewer == engine::ViewerOf(owner)) return shown;
    for (aslpb::Unit& unit : *shown.mutable_asl()->mutable_units()) {
      if (unit.concealed()) unit = Hidden(unit);
    }
    return shown;
  }

  Result<DecodedCommand> FromAnnounce(const v1::Announce& message) const override {
    auto announce = proto::AnnounceFromProto(message.asl(), "announce.asl");
    if (!announce) return tl::unexpected(announce.error());
    return Decoded(std::move(*announce));
  }

  Result<DecodedCommand> FromDeclaration(const v1::Declaration& message) const override {
    if (message.has_asl()) {
      if (message.attacks_size() > 0) {
        return Reject("", "declaration: give either attacks or asl, not both");
      }
      auto seal = proto::SealFromProto(message.asl(), "declaration.asl");
      if (!seal) return tl::unexpected(seal.error());
      return Decoded(std::move(*seal));
    }
    aslpb::Seal plain;
    for (const v1::Attack& attack : message.attacks()) {
      aslpb::AttackOrder* order = plain.add_attacks();
      *order->mutable_attackers() = attack.attacker_ids();
      *order->mutable_targets() = attack.target_ids();
    }
    auto seal = proto::SealFromProto(plain, "declaration");
    if (!seal) return tl::unexpected(seal.error());
    return Decoded(std::move(*seal));
  }

  Result<DecodedCommand> FromChoice(const v1::MakeChoice& message) const override {
    const std::string& text = message.choice_id();
    uint32_t id = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
      return Reject("", "make_choice.choice_id: '" + text +
                            "' is not the decimal id of a ChoiceRequested event");
    }
    aslpb::Command command;
    command.mutable_choose()->set_choice_id(id);
    *command.mutable_choose()->mutable_selected() = message.selected();
    auto read = proto::CommandFromProto(command);
    if (!read) return tl::unexpected(read.error());
    return Decoded(std::move(*read));
  }

  Result<AnyCommand> FromLogged(std::string_view logged) const override {
    return CommandOfLogged<aslpb::Command>(logged, [](const aslpb::Command& command) {
      return proto::CommandFromProto(command);
    });
  }

  Awaiting AwaitingOf(const AnyState& state) const override {
    const asl::State& s = StateOf(state);
    const std::string to_act(engine::Name(s.to_act));
    switch (s.phase) {
      case asl::Phase::kAnnounce:
        return {.kind = Awaiting::Kind::kAnnouncement, .seats = {s.to_act},
                .step = "announce/" + to_act};
      case asl::Phase::kDeclare: {
        if (s.sequential) {
          // A11.3: one side at a time; every turn (an attack or a pass) is a new step.
          return {.kind = Awaiting::Kind::kDeclaration, .seats = {s.to_act},
                  .step = "sequential/" + std::to_string(s.queue.size()) + "/" + to_act + "/" +
                          std::to_string(s.passed[0]) + std::to_string(s.passed[1])};
        }
        if (s.options.declaration_order == asl::DeclarationOrder::kAttackerFirst) {
          // The DEFENDER's time starts when the ATTACKER's declaration is public.
          const Seat seat = s.sealed[SeatIndex(s.attacker)] ? engine::Opponent(s.attacker)
                                                            : s.attacker;
          return {.kind = Awaiting::Kind::kDeclaration, .seats = {seat},
                  .step = std::string("declare/") + std::string(engine::Name(seat))};
        }
        // Sealed: both sides owe their declarations in the same step.
        Awaiting awaiting{.kind = Awaiting::Kind::kDeclaration, .seats = {}, .step = "declare"};
        for (Seat seat : {s.attacker, engine::Opponent(s.attacker)}) {
          if (!s.sealed[SeatIndex(seat)]) awaiting.seats.push_back(seat);
        }
        return awaiting;
      }
      case asl::Phase::kChoice:
        return {.kind = Awaiting::Kind::kChoice, .seats = {s.pending->seat},
                .step = "choice/" + std::to_string(s.pending->id)};
      case asl::Phase::kSetUp:
      case asl::Phase::kEnded:
        break;
    }
    return {};
  }

  bool CanAnnounce(const AnyState& state, Seat seat) const override {
    // A side with a concealed unit present is always asked: announcing "nothing" for it would
    // tell the other side what its "?" are not (no SMC, none able to withdraw).
    const asl::State& s = StateOf(state);
    const bool hides_something = std::any_of(s.units.begin(), s.units.end(), [&](const auto& u) {
      return u.owner == seat && u.presence == asl::Presence::kPresent && u.concealed;
    });
    return hides_something || asl::CanAnnounce(s, seat);
  }

  bool AsksEverySideAtStart(const AnyState& state) const override {
    return StateOf(state).options.melee_withdrawal;  // the SSR: only who can announce is asked
  }

  DecodedCommand DefaultAction(const AnyState& state, Seat) const override {
    const asl::State& s = StateOf(state);
    switch (s.phase) {
      case asl::Phase::kAnnounce:
        return Decoded(asl::Announce{});  // no withdrawal, no solo SMC, no HtH
      case asl::Phase::kChoice: {
        // The rules defaults script.h documents: nobody withdraws; the first unit of a capture
        // set.
        asl::Choose answer{.choice_id = s.pending->id, .selected = {}};
        if (s.pending->kind == asl::ChoiceKind::kCaptureSelection && !s.pending->options.empty()) {
          answer.selected.emplace_back(asl::UnitId(s, s.pending->options.front()));
        }
        return Decoded(std::move(answer));
      }
      case asl::Phase::kDeclare:
      case asl::Phase::kSetUp:
      case asl::Phase::kEnded:
        break;
    }
    // A11.12: not every unit has to attack; in sequential CC an empty turn is a pass (A11.3).
    return Decoded(asl::Seal{});
  }

  SetupFacts FactsOf(const SetupParts& parts) const override {
    SetupFacts facts;
    for (const auto& part : parts) {
      if (!part || !part->has_asl()) continue;
      if (facts.location.empty()) facts.location = part->asl().location().name();
      if (!facts.attacker && part->asl().attacker() != v1::SEAT_UNSPECIFIED) {
        auto attacker = proto::SideFromProto(part->asl().attacker(), "attacker");
        if (attacker) facts.attacker = *attacker;
      }
    }
    return facts;
  }

  bool Ended(const AnyState& state) const override {
    return StateOf(state).phase == asl::Phase::kEnded;
  }

  std::vector<std::string> WaitingFor(const AnyState& state) const override {
    const asl::State& s = StateOf(state);
    const auto name = [](Seat seat) { return std::string(engine::Name(seat)); };
    switch (s.phase) {
      case asl::Phase::kSetUp:
        return {"set-up"};
      case asl::Phase::kAnnounce:
        return {name(s.to_act) + ": announce (A11.2, A11.14)"};
      case asl::Phase::kDeclare: {
        const bool one_at_a_time =
            s.sequential || (s.options.declaration_order == asl::DeclarationOrder::kAttackerFirst &&
                             !s.sealed[SeatIndex(s.attacker)]);
        if (s.alternating) return {name(s.to_act) + ": declare one attack or pass (A11.31)"};
        if (one_at_a_time) return {name(s.to_act) + ": declare attacks (A11.12)"};
        std::vector<std::string> waiting;
        for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
          if (!s.sealed[SeatIndex(seat)]) waiting.push_back(name(seat) + ": seal a declaration");
        }
        return waiting;
      }
      case asl::Phase::kChoice:
        return {name(s.pending->seat) + ": answer choice " + std::to_string(s.pending->id) + " (" +
                std::string(ChoiceRule(s.pending->kind)) + ")"};
      case asl::Phase::kEnded:
        return {};
    }
    return {};
  }

  std::string LogEvent(const AnyState& before, const AnyEvent& event) const override {
    // Built on the thread's scratch arena: a round logs about a dozen events, and each would
    // otherwise allocate its every part.
    proto::ScratchArena scratch;
    auto& logged = scratch.Create<aslpb::AslEvent>();
    proto::EventToProto(StateOf(before), EventOf(event), logged);
    return Serialize(logged);
  }

  Result<std::vector<LoggedDie>> DiceOfLogged(std::string_view logged) const override {
    return DiceOfLoggedEvent<aslpb::AslEvent>(logged);
  }

  bool Material(const AnyEvent& event, Seat seat) const override {
    const asl::Event& e = EventOf(event);
    return !(e.kind == asl::EventKind::kDeclarationSealed && e.seat != seat);
  }

  // The tree of what RenderAround gives the viewer: the rest of the MatchEvent, then the logged
  // event or its masked copy, parsed.
  void RenderEvent(std::string_view logged, const AnyState& after, const AnyEvent& event,
                   Viewer viewer, v1::MatchEvent& out) const override {
    ShownAround shown;
    RenderAround(logged, after, event, std::array<Viewer, 1>{viewer}, shown);
    out.MergeFrom(shown.around[0]);
    *out.mutable_asl() = LoggedForm<aslpb::AslEvent>(shown.as_logged[0] ? logged : shown.masked[0]);
    for (size_t i = 0; i < shown.parts.size(); ++i) {
      if ((shown.parts_to[0] & (1U << i)) == 0) continue;
      if (!out.MergeFromString(shown.parts[i])) {
        throw std::logic_error("RenderEvent: a shared part does not parse");
      }
    }
  }

  int AroundField() const override { return v1::MatchEvent::kAslFieldNumber; }

  // The logged event is parsed only for the kinds whose rendering reads or masks it, once for
  // all the viewers; a viewer who sees it as logged gets the logged bytes themselves.
  void RenderAround(std::string_view logged, const AnyState& after, const AnyEvent& event,
                    std::span<const Viewer> viewers, ShownAround& out) const override {
    const asl::Event& e = EventOf(event);
    const asl::State& state = StateOf(after);
    std::optional<aslpb::AslEvent> parsed;
    const auto read = [&]() -> const aslpb::AslEvent& {
      if (!parsed) parsed = LoggedForm<aslpb::AslEvent>(logged);
      return *parsed;
    };
    std::optional<std::string> unsealed;  // the seal's event as those who may not see it see it
    for (size_t k = 0; k < viewers.size(); ++k) {
      const Viewer viewer = viewers[k];
      v1::MatchEvent& around = out.around[k];
      out.as_logged[k] = true;
      switch (e.kind) {
        case asl::EventKind::kSetUp: {
          // Concealed units the viewer may not know are "?" (the engine's view decides).
          const asl::View view = Rules().MakeView(state, viewer);
          if (std::none_of(view.units.begin(), view.units.end(),
                           [](const asl::ViewedUnit& unit) { return unit.hidden; })) {
            break;
          }
          aslpb::AslEvent shown = read();
          for (int i = 0;
               i < shown.situation().units_size() && static_cast<size_t>(i) < view.units.size();
               ++i) {
            if (view.units[i].hidden) {
              *shown.mutable_situation()->mutable_units(i) = Hidden(shown.situation().units(i));
            }
          }
          out.masked[k] = Serialize(shown);
          out.as_logged[k] = false;
          break;
        }
        case asl::EventKind::kDeclarationSealed:
          around.mutable_declaration_sealed()->set_seat(proto::SideToProto(e.seat));
          if (!asl::DeclarationsShown(state, viewer)[SeatIndex(e.seat)]) {
            if (!unsealed) {
              aslpb::AslEvent shown = read();
              shown.clear_seal();
              shown.set_text(std::string(engine::Name(e.seat)) + " sealed its declaration");
              unsealed = Serialize(shown);
            }
            out.masked[k] = *unsealed;
            out.as_logged[k] = false;
          }
          break;
        case asl::EventKind::kDeclarationsRevealed: {
          v1::DeclarationsRevealed* revealed = around.mutable_declarations_revealed();
          const auto declarations = asl::DeclarationsShown(state, viewer);
          // Each side's declaration is converted and serialized once, a part shared by every
          // viewer it is shown to; the viewer's tree marks the side the part fills.
          for (size_t i = 0; i < declarations.size(); ++i) {
            if (!declarations[i]) continue;
            if (i == 0) {
              revealed->mutable_side_a();
            } else {
              revealed->mutable_side_b();
            }
            if (out.parts[i].empty()) {
              v1::MatchEvent part;
              v1::DeclarationsRevealed& sides = *part.mutable_declarations_revealed();
              *(i == 0 ? sides.mutable_side_a() : sides.mutable_side_b())->mutable_asl() =
                  proto::SealToProto(*declarations[i]);
              out.parts[i] = proto::SerializeDeterministic(part);
            }
            out.parts_to[k] |= static_cast<uint8_t>(1U << i);
          }
          break;
        }
        case asl::EventKind::kChoiceRequested: {
          v1::ChoiceRequested* choice = around.mutable_choice_requested();
          choice->set_choice_id(std::to_string(e.choice->id));
          choice->set_seat(proto::SideToProto(e.choice->seat));
          choice->set_rule_ref(std::string(ChoiceRule(e.choice->kind)));
          choice->set_prompt(std::string(ChoicePrompt(e.choice->kind)));
          *choice->mutable_options() = read().choice().options();
          choice->set_min_selected(static_cast<uint32_t>(e.choice->min_selected));
          choice->set_max_selected(static_cast<uint32_t>(e.choice->max_selected));
          choice->set_default_if_timeout(e.choice->kind == asl::ChoiceKind::kCaptureSelection
                                             ? "the first unit of the set"
                                             : "nobody withdraws");
          break;
        }
        case asl::EventKind::kPhaseEnded:
          around.mutable_match_ended()->set_summary(read().text());
          break;
        default:
          break;
      }
    }
  }

  // RenderEvent adds nothing to the logged event but for the kinds its switch names.
  int LoggedEventField(const AnyEvent& event) const override {
    switch (EventOf(event).kind) {
      case asl::EventKind::kSetUp:
      case asl::EventKind::kDeclarationSealed:
      case asl::EventKind::kDeclarationsRevealed:
      case asl::EventKind::kChoiceRequested:
      case asl::EventKind::kPhaseEnded:
        return 0;
      default:
        return v1::MatchEvent::kAslFieldNumber;
    }
  }

  // Only these events depend on the viewer's view (see RenderEvent): a set-up's concealed units,
  // a seal, and what a reveal shows (the opened declarations). A set-up without a concealed unit
  // hides nothing (a Dummy is always concealed: ValidateSituation), so everyone sees it alike:
  // a Melee that goes on sets up every round, and is then rendered once, not four times.
  bool SameForEveryViewer(const AnyEvent& event) const override {
    const asl::Event& e = EventOf(event);
    switch (e.kind) {
      case asl::EventKind::kSetUp:
        return e.situation &&
               std::none_of(e.situation->units.begin(), e.situation->units.end(),
                            [](const asl::Unit& unit) { return unit.concealed; });
      case asl::EventKind::kDeclarationSealed:
      case asl::EventKind::kDeclarationsRevealed:
        return false;
      default:
        return true;
    }
  }

  void RenderView(const AnyState& state, Viewer viewer, v1::MatchView& out) const override {
    const asl::State& s = StateOf(state);
    proto::ViewToProto(Rules().MakeView(s, viewer), s, *out.mutable_asl());
  }

  // ---- forces that persist ----

  bool CarriesForces() const override { return true; }

  std::vector<v1::ForceUnit> UnitsOfPart(const v1::SubmitSetup& part) const override {
    std::vector<v1::ForceUnit> units;
    if (!part.has_asl()) return units;
    for (const aslpb::Unit& unit : part.asl().units()) {
      v1::ForceUnit& entered = units.emplace_back();
      entered.set_id(unit.id());
      entered.set_owner(unit.owner());
      entered.set_location(part.asl().location().name());
      entered.set_fate(v1::FORCE_FATE_PRESENT);
      *entered.mutable_asl() = unit;
    }
    return units;
  }

  Result<SetupParts> WithCarried(const SetupParts& parts, const Forces& forces,
                                 const std::string& location, const std::string& facts,
                                 std::optional<Seat> attacker) const override {
    std::array<v1::SubmitSetup, 2> out;
    for (size_t i = 0; i < 2; ++i) {
      if (parts[i]) out[i] = *parts[i];
      out[i].mutable_asl();
    }
    // A11.1: every unit of both sides in the Location takes part.
    const std::vector<const v1::ForceUnit*> carried_units = PresentAt(forces, location);
    // A carried SMC stays stacked on (a Rider or Passenger with) only a unit of this close
    // combat: its MMC may have moved elsewhere or be gone (A11.14). The ids are the parts' and
    // the forces' own strings, which adding units to the parts leaves in place.
    std::vector<std::string_view> here;
    for (const v1::SubmitSetup& part : out) {
      for (const aslpb::Unit& unit : part.asl().units()) here.push_back(unit.id());
    }
    for (const v1::ForceUnit* unit : carried_units) here.push_back(unit->id());
    const auto is_here = [&](std::string_view id) {
      return std::find(here.begin(), here.end(), id) != here.end();
    };
    for (const v1::ForceUnit* unit : carried_units) {
      aslpb::Unit& added =
          *out[unit->owner() == v1::SEAT_SIDE_A ? 0 : 1].mutable_asl()->add_units();
      added = unit->asl();
      if (!added.stacked_on().empty() && !is_here(added.stacked_on())) added.clear_stacked_on();
      if (!added.rider_of().empty() && !is_here(added.rider_of())) added.clear_rider_of();
      if (!added.passenger_of().empty() && !is_here(added.passenger_of())) {
        added.clear_passenger_of();
      }
    }
    if (!facts.empty()) {
      aslpb::Location carried;
      if (!carried.ParseFromString(facts)) return Reject("", "carried Location facts: unreadable");
      // A Melee (A11.15) and HtH (J2.31) are facts of the board: they hold whatever a set-up
      // says; the rest of the Location a set-up may describe anew.
      bool given = false;
      for (v1::SubmitSetup& part : out) {
        if (!part.asl().has_location()) continue;
        given = true;
        aslpb::Location& described = *part.mutable_asl()->mutable_location();
        described.set_melee(described.melee() || carried.melee());
        described.set_hth(described.hth() || carried.hth());
      }
      if (!given) *out[0].mutable_asl()->mutable_location() = carried;
    }
    if (attacker) {
      out[0].mutable_asl()->set_attacker(proto::SideToProto(*attacker));
      out[1].mutable_asl()->clear_attacker();
    }
    return SetupParts{std::make_shared<const v1::SubmitSetup>(std::move(out[0])),
                      std::make_shared<const v1::SubmitSetup>(std::move(out[1]))};
  }

  CombatOutcome OutcomeOf(const AnyState& state) const override {
    const asl::State& s = StateOf(state);
    CombatOutcome outcome;
    outcome.location = s.location.name;
    outcome.attacker = s.attacker;
    const bool ended = s.phase == asl::Phase::kEnded;
    outcome.melee = ended && s.melee;
    aslpb::Location facts = proto::LocationToProto(s.location);
    // What held only for this Player Turn's CCPh does not carry (A11.4 Ambush status,
    // Reaction Fire); a Melee does.
    facts.set_melee(outcome.melee);
    facts.clear_ambusher();
    facts.set_reaction_fire(false);
    facts.set_excess_squads_side_a(0);
    facts.set_excess_squads_side_b(0);
    outcome.facts = Serialize(facts);
    // Who is still in the Location with whom: a SMC stays stacked on, and a Rider or Passenger
    // stays with, only a unit that is still there.
    const auto stays = [&](const std::string& id) {
      return std::any_of(s.units.begin(), s.units.end(), [&](const asl::Unit& other) {
        return other.id == id && other.presence == asl::Presence::kPresent;
      });
    };
    for (const asl::Unit& unit : s.units) {
      v1::ForceUnit& carried = outcome.units.emplace_back();
      carried.set_id(unit.id);
      carried.set_owner(proto::SideToProto(unit.owner));
      carried.set_location(s.location.name);
      aslpb::Unit shown = proto::UnitToProto(unit);
      if (ended) {
        shown.set_advanced(false);  // A11.4: it advanced in an earlier APh now
        if (!shown.stacked_on().empty() && !stays(shown.stacked_on())) shown.clear_stacked_on();
        if (!shown.rider_of().empty() && !stays(shown.rider_of())) shown.clear_rider_of();
        if (!shown.passenger_of().empty() && !stays(shown.passenger_of())) {
          shown.clear_passenger_of();
        }
        // A17.11: a wounded SMC's Wound Severity is +1 once wounded, however often; a set-up
        // holds 0 or 1.
        if (shown.wounds() > 1) shown.set_wounds(1);
      }
      switch (unit.presence) {
        case asl::Presence::kPresent:
          carried.set_fate(v1::FORCE_FATE_PRESENT);
          break;
        case asl::Presence::kEliminated:
          carried.set_fate(v1::FORCE_FATE_ELIMINATED);
          break;
        case asl::Presence::kCaptured:
          carried.set_fate(v1::FORCE_FATE_CAPTURED);
          break;
        case asl::Presence::kWithdrawn:
          carried.set_fate(v1::FORCE_FATE_WITHDRAWN);
          carried.clear_location();
          break;
      }
      *carried.mutable_asl() = std::move(shown);
    }
    return outcome;
  }

  Result<void> ApplyUpdate(const v1::UnitUpdate& update, v1::ForceUnit& unit,
                           v1::ForceUnit* partner, const std::string& field) const override {
    aslpb::Unit& counter = *unit.mutable_asl();
    const bool smc = counter.kind() == aslpb::UNIT_KIND_LEADER ||
                     counter.kind() == aslpb::UNIT_KIND_HERO ||
                     counter.kind() == aslpb::UNIT_KIND_OTHER_SMC;
    const std::string name = "'" + unit.id() + "'";
    switch (update.kind()) {
      case v1::UPDATE_KIND_ENTER: {
        if (!update.has_asl()) return Reject("", field + ".asl: ENTER gives the new unit");
        auto read = proto::UnitFromProto(update.asl(), field + ".asl");
        if (!read) return tl::unexpected(read.error());
        counter = update.asl();
        return {};
      }
      case v1::UPDATE_KIND_MOVE:
        return {};
      case v1::UPDATE_KIND_BREAK:
        if (counter.broken()) return Reject("A10.3", field + ": " + name + " is already broken");
        if (counter.kind() == aslpb::UNIT_KIND_VEHICLE || counter.kind() == aslpb::UNIT_KIND_DUMMY) {
          return Reject("A10.3", field + ": only Infantry break");
        }
        counter.set_broken(true);
        counter.set_concealed(false);
        return {};
      case v1::UPDATE_KIND_RALLY:
        if (!counter.broken()) return Reject("A10.6", field + ": " + name + " is not broken");
        counter.set_broken(false);
        return {};
      case v1::UPDATE_KIND_PIN:
        counter.set_pinned(true);
        return {};
      case v1::UPDATE_KIND_UNPIN:
        counter.set_pinned(false);
        return {};
      case v1::UPDATE_KIND_CONCEAL:
        if (counter.concealed()) return Reject("A12.1", field + ": " + name + " is concealed already");
        if (update.rule().empty()) {
          return Reject("A12.1", field + ".rule: a unit gains \"?\" only as a rule allows: name it "
                                 "(e.g. A12.122)");
        }
        if (counter.broken()) return Reject("A12.1", field + ": broken " + name + " cannot gain \"?\"");
        counter.set_concealed(true);
        return {};
      case v1::UPDATE_KIND_REVEAL:
        if (!counter.concealed()) return Reject("A12.1", field + ": " + name + " is not concealed");
        counter.set_concealed(false);
        return {};
      case v1::UPDATE_KIND_REDUCE:
        counter.set_concealed(false);
        if (counter.kind() == aslpb::UNIT_KIND_SQUAD) {
          // A7.302: a squad is Reduced to a HS of the same type.
          const int half = counter.has_reduced_firepower() ? counter.reduced_firepower()
                                                           : counter.firepower() / 2;
          counter.set_kind(aslpb::UNIT_KIND_HALF_SQUAD);
          counter.set_firepower(half);
          counter.clear_reduced_firepower();
          counter.set_name("HS of " + (counter.name().empty() ? unit.id() : counter.name()));
          return {};
        }
        if (smc && counter.wounds() == 0) {
          // A17.2: a wounded leader loses one ML and his modifier worsens by one.
          if (counter.kind() == aslpb::UNIT_KIND_LEADER) {
            counter.set_morale((counter.has_morale() ? counter.morale() : 7) - 1);
            counter.set_leadership(counter.leadership() + 1);
          }
          counter.set_wounds(1);
          return {};
        }
        // A7.302: a HS or crew Reduced is eliminated; A17.2: a wounded SMC wounded again dies.
        unit.set_fate(v1::FORCE_FATE_ELIMINATED);
        return {};
      case v1::UPDATE_KIND_ELIMINATE:
        unit.set_fate(v1::FORCE_FATE_ELIMINATED);
        counter.set_concealed(false);
        return {};
      case v1::UPDATE_KIND_RECOMBINE: {
        if (update.rule().empty()) {
          return Reject("A1.32", field + ".rule: two HS become a squad only as a rule allows: name "
                                 "it (A1.32)");
        }
        if (counter.kind() != aslpb::UNIT_KIND_HALF_SQUAD || partner == nullptr ||
            partner->asl().kind() != aslpb::UNIT_KIND_HALF_SQUAD) {
          return Reject("A1.32", field + ": only two HS recombine into a squad");
        }
        if (!update.has_asl() || update.asl().kind() != aslpb::UNIT_KIND_SQUAD) {
          return Reject("A1.32", field + ".asl: give the squad counter they recombine into");
        }
        aslpb::Unit squad = update.asl();
        squad.set_id(unit.id());
        squad.set_owner(unit.owner());
        auto read = proto::UnitFromProto(squad, field + ".asl");
        if (!read) return tl::unexpected(read.error());
        counter = std::move(squad);
        partner->set_fate(v1::FORCE_FATE_RECOMBINED);
        return {};
      }
      case v1::UPDATE_KIND_SET_CX:
        if (smc || counter.kind() == aslpb::UNIT_KIND_VEHICLE) {
          // A4.51 CX is for MMC and SMC alike; vehicles are CE, not CX.
          if (counter.kind() == aslpb::UNIT_KIND_VEHICLE) {
            return Reject("A4.51", field + ": a vehicle is not CX (its crew is CE)");
          }
        }
        counter.set_cx(true);
        return {};
      case v1::UPDATE_KIND_CLEAR_CX:
        counter.set_cx(false);
        return {};
      default:
        return Reject("", field + ".kind: not an asl unit update (SHOCK, KILL and FORCE_MORALE are "
                              "coc's)");
    }
  }

  std::string_view PlayedRule() const override { return "A11.15"; }

  Result<void> CheckUpdateKind(const v1::UnitUpdate& update,
                               const std::string& field) const override {
    switch (update.kind()) {
      case v1::UPDATE_KIND_SHOCK:
      case v1::UPDATE_KIND_KILL:
      case v1::UPDATE_KIND_FORCE_MORALE:
        return Reject("", field + ".kind: not an asl unit update (SHOCK, KILL and FORCE_MORALE "
                              "are coc's)");
      default:
        return {};
    }
  }

  bool HiddenFrom(const v1::ForceUnit& unit, Viewer viewer) const override {
    if (viewer == Viewer::kDirector) return false;
    if (unit.owner() == v1::SEAT_SIDE_A && viewer == Viewer::kSideA) return false;
    if (unit.owner() == v1::SEAT_SIDE_B && viewer == Viewer::kSideB) return false;
    return unit.asl().concealed() && unit.fate() == v1::FORCE_FATE_PRESENT;
  }

 private:
  std::unique_ptr<const engine::Ruleset> ruleset_;
};

}  // namespace

std::unique_ptr<const RulesetHost> MakeAslHost() { return std::make_unique<AslHost>(); }

}  // namespace melee::server
