// The vv ruleset on the server: wire commands <-> engine::vv commands, the log form of its
// events, and what each seat sees of them (masked with the engine's own View). In a V&V close
// assault nothing on the map is hidden; only a sealed declaration or allocation is, until both
// are revealed.

#include <set>
#include <string>
#include <utility>

#include "engine/vv/rules.h"
#include "proto/codec/asl.h"  // SideToProto, SideFromProto
#include "proto/codec/frame.h"
#include "proto/codec/vv.h"
#include "server/ruleset_host.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;
namespace vvpb = melee::vv::v1;
namespace vv = melee::engine::vv;
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

DecodedCommand Decoded(vv::Command command) {
  std::string logged = Serialize(proto::VvCommandToProto(command));
  return DecodedCommand{.command = AnyCommand(std::move(command)), .logged = std::move(logged)};
}

const vv::State& StateOf(const AnyState& state) { return *state.As<vv::State>(); }
const vv::Event& EventOf(const AnyEvent& event) { return *event.As<vv::Event>(); }

const vv::VvRules& Rules() {
  static const vv::VvRules rules;
  return rules;
}

std::string SeatName(Seat seat) { return std::string(engine::Name(seat)); }

class VvHost final : public RulesetHost {
 public:
  VvHost() : ruleset_(vv::MakeVvRuleset()) {}

  const engine::Ruleset& ruleset() const override { return *ruleset_; }

  Result<void> CheckSetup(Seat seat, const v1::SubmitSetup& part,
                          const SetupParts& parts) const override {
    if (!part.has_vv()) return Reject("", "submit_setup.vv: required for a vv match");
    const vvpb::SideSetup& mine = part.vv();
    const std::string field = "submit_setup.vv";
    auto read = proto::VvSideSetupFromProto(mine, field);
    if (!read) return tl::unexpected(read.error());
    const auto& other = parts[seat == Seat::kSideA ? 1 : 0];
    std::set<std::string> taken;
    size_t other_units = 0;
    if (other && other->has_vv()) {
      const vvpb::SideSetup& theirs = other->vv();
      other_units = static_cast<size_t>(theirs.units_size());
      for (const vvpb::Unit& unit : theirs.units()) taken.insert(unit.id());
      const std::string them = SeatName(engine::Opponent(seat));
      if (mine.attacker() != v1::SEAT_UNSPECIFIED && theirs.attacker() != v1::SEAT_UNSPECIFIED &&
          mine.attacker() != theirs.attacker()) {
        return Reject("", field + ".attacker: differs from the assaulting side " + them + " entered");
      }
      if (mine.has_target() && theirs.has_target() &&
          Serialize(mine.target()) != Serialize(theirs.target())) {
        return Reject("", field + ".target: differs from the target hex " + them +
                              " entered; leave it empty or enter the same");
      }
      if (!mine.source_hex().empty() && !theirs.source_hex().empty() &&
          mine.source_hex() != theirs.source_hex()) {
        return Reject("", field + ".source_hex: differs from the one " + them + " entered");
      }
      if (mine.uphill_levels() != 0 && theirs.uphill_levels() != 0 &&
          mine.uphill_levels() != theirs.uphill_levels()) {
        return Reject("", field + ".uphill_levels: differs from the " +
                              std::to_string(theirs.uphill_levels()) + " " + them + " entered");
      }
    }
    if (static_cast<size_t>(mine.units_size()) + other_units > kMaxUnits) {
      return Reject("", field + ".units: a close assault holds at most " +
                            std::to_string(kMaxUnits) + " units");
    }
    std::set<std::string> seen;
    for (int i = 0; i < mine.units_size(); ++i) {
      const vvpb::Unit& unit = mine.units(i);
      const std::string unit_field = field + ".units[" + std::to_string(i) + "]";
      if (unit.owner() != proto::SideToProto(seat)) {
        return Reject("", unit_field + ".owner: " + SeatName(seat) + " enters only its own units");
      }
      if (!seen.insert(unit.id()).second || taken.contains(unit.id())) {
        return Reject("", unit_field + ".id: '" + unit.id() + "' is already used in this assault");
      }
    }
    return {};
  }

  Result<DecodedCommand> StartCommand(const SetupParts& parts) const override {
    vvpb::Situation situation;
    bool attacker_given = false;
    for (size_t i = 0; i < parts.size(); ++i) {
      const auto& part = parts[i];
      if (!part || !part->has_vv()) return Reject("", "both sides must enter their units first");
      const vvpb::SideSetup& side = part->vv();
      if (side.attacker() != v1::SEAT_UNSPECIFIED) {
        situation.set_attacker(side.attacker());
        attacker_given = true;
      }
      if (!side.source_hex().empty()) situation.set_source_hex(side.source_hex());
      if (side.has_target() && !situation.has_target()) *situation.mutable_target() = side.target();
      if (side.uphill_levels() != 0) situation.set_uphill_levels(side.uphill_levels());
      if (side.source_assaulted_this_turn()) situation.set_source_assaulted_this_turn(true);
      for (const vvpb::Unit& unit : side.units()) *situation.add_units() = unit;
      *(i == 0 ? situation.mutable_side_a_expendables() : situation.mutable_side_b_expendables()) =
          side.expendables();
    }
    if (!attacker_given) {
      return Reject("15.1", "set-up: neither side named the assaulting side (attacker)");
    }
    if (!situation.has_target() || situation.target().name().empty()) {
      return Reject("15.1", "set-up: neither side named the target hex (target.name)");
    }
    auto read = proto::VvSituationFromProto(situation, "set-up");
    if (!read) return tl::unexpected(read.error());
    return Decoded(vv::SetUp{std::move(*read)});
  }

  v1::SubmitSetup MaskSetup(const v1::SubmitSetup& part, Seat, Viewer) const override {
    v1::SubmitSetup shown = part;  // V&V has no concealment: both sides see every unit
    shown.clear_expected_seq();
    return shown;
  }

  Result<DecodedCommand> FromAnnounce(const v1::Announce&) const override {
    return Reject("15.6", "a vv close assault has no announcements: each side seals its "
                          "declaration (seal_declaration with declaration.vv.declare)");
  }

  Result<DecodedCommand> FromDeclaration(const v1::Declaration& message) const override {
    if (!message.has_vv() || message.attacks_size() > 0 || message.has_asl()) {
      return Reject("", "declaration.vv: required for a vv match (and nothing else)");
    }
    const vvpb::Declaration& sealed = message.vv();
    if (sealed.has_declare()) {
      auto declare = proto::VvDeclareFromProto(sealed.declare(), "declaration.vv.declare");
      if (!declare) return tl::unexpected(declare.error());
      return Decoded(std::move(*declare));
    }
    if (sealed.has_allocate()) {
      auto allocation = proto::VvAllocationFromProto(sealed.allocate(), "declaration.vv.allocate");
      if (!allocation) return tl::unexpected(allocation.error());
      return Decoded(vv::Allocate{std::move(*allocation)});
    }
    return Reject("", "declaration.vv: give declare or allocate");
  }

  Result<DecodedCommand> FromChoice(const v1::MakeChoice&) const override {
    return Reject("14.61", "a vv close assault asks no choices: Casualty Points are sealed as a "
                           "declaration (declaration.vv.allocate)");
  }

  Result<AnyCommand> FromLogged(std::string_view logged) const override {
    return CommandOfLogged<vvpb::Command>(logged, [](const vvpb::Command& command) {
      return proto::VvCommandFromProto(command);
    });
  }

  Awaiting AwaitingOf(const AnyState& state) const override {
    const vv::State& s = StateOf(state);
    if (s.phase != vv::Phase::kDeclare && s.phase != vv::Phase::kAllocate) return {};
    Awaiting awaiting{.kind = Awaiting::Kind::kDeclaration, .seats = {},
                      .step = s.phase == vv::Phase::kDeclare ? "declare" : "allocate"};
    const Seat attacker = s.situation.attacker;
    for (Seat seat : {attacker, engine::Opponent(attacker)}) {
      if (s.owes[SeatIndex(seat)]) awaiting.seats.push_back(seat);
    }
    return awaiting;
  }

  DecodedCommand DefaultAction(const AnyState& state, Seat seat) const override {
    const vv::State& s = StateOf(state);
    if (s.phase == vv::Phase::kAllocate) {
      return Decoded(vv::Allocate{vv::AutoAllocation(s, seat)});
    }
    return Decoded(vv::DefaultDeclaration(s, seat));
  }

  SetupFacts FactsOf(const SetupParts& parts) const override {
    SetupFacts facts;
    for (const auto& part : parts) {
      if (!part || !part->has_vv()) continue;
      if (facts.location.empty()) facts.location = part->vv().target().name();
      if (!facts.attacker && part->vv().attacker() != v1::SEAT_UNSPECIFIED) {
        auto attacker = proto::SideFromProto(part->vv().attacker(), "attacker");
        if (attacker) facts.attacker = *attacker;
      }
    }
    return facts;
  }

  bool Ended(const AnyState& state) const override {
    return StateOf(state).phase == vv::Phase::kEnded;
  }

  std::vector<std::string> WaitingFor(const AnyState& state) const override {
    const vv::State& s = StateOf(state);
    std::vector<std::string> waiting;
    if (s.phase == vv::Phase::kSetUp) return {"set-up"};
    const std::string what = s.phase == vv::Phase::kDeclare
                                 ? ": seal a close-assault declaration (15.6)"
                                 : ": seal a Casualty Point allocation (14.61)";
    for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
      if (s.owes[SeatIndex(seat)]) waiting.push_back(SeatName(seat) + what);
    }
    return waiting;
  }

  std::string LogEvent(const AnyState& before, const AnyEvent& event) const override {
    return Serialize(proto::VvEventToProto(StateOf(before), EventOf(event)));
  }

  Result<std::vector<LoggedDie>> DiceOfLogged(std::string_view logged) const override {
    return DiceOfLoggedEvent<vvpb::VvEvent>(logged);
  }

  bool Material(const AnyEvent& event, Seat seat) const override {
    const vv::Event& e = EventOf(event);
    const bool sealed = e.kind == vv::EventKind::kDeclarationSealed ||
                        e.kind == vv::EventKind::kAllocationSealed;
    return !(sealed && e.seat != seat);
  }

  void RenderEvent(const AnyState& before, const AnyState& after, const AnyEvent& event,
                   Viewer viewer, v1::MatchEvent& out) const override {
    const vv::Event& e = EventOf(event);
    vvpb::VvEvent shown = proto::VvEventToProto(StateOf(before), e);
    const vv::View view = Rules().MakeView(StateOf(after), viewer);
    const size_t i = SeatIndex(e.seat);
    switch (e.kind) {
      case vv::EventKind::kDeclarationSealed:
        out.mutable_declaration_sealed()->set_seat(proto::SideToProto(e.seat));
        if (!view.declarations[i]) {
          shown.clear_declare();
          shown.set_text(SeatName(e.seat) + " sealed its declaration");
        }
        break;
      case vv::EventKind::kAllocationSealed:
        out.mutable_declaration_sealed()->set_seat(proto::SideToProto(e.seat));
        if (!view.allocations[i]) {
          shown.clear_allocation();
          shown.set_text(SeatName(e.seat) + " sealed its Casualty Point allocation");
        }
        break;
      case vv::EventKind::kDeclarationsRevealed: {
        v1::DeclarationsRevealed* revealed = out.mutable_declarations_revealed();
        if (view.declarations[0]) {
          *revealed->mutable_side_a()->mutable_vv()->mutable_declare() =
              proto::VvDeclareToProto(*view.declarations[0]);
        }
        if (view.declarations[1]) {
          *revealed->mutable_side_b()->mutable_vv()->mutable_declare() =
              proto::VvDeclareToProto(*view.declarations[1]);
        }
        break;
      }
      case vv::EventKind::kAllocationsRevealed: {
        v1::DeclarationsRevealed* revealed = out.mutable_declarations_revealed();
        if (view.allocations[0]) {
          *revealed->mutable_side_a()->mutable_vv()->mutable_allocate() =
              proto::VvAllocationToProto(*view.allocations[0]);
        }
        if (view.allocations[1]) {
          *revealed->mutable_side_b()->mutable_vv()->mutable_allocate() =
              proto::VvAllocationToProto(*view.allocations[1]);
        }
        break;
      }
      case vv::EventKind::kAssaultEnded:
        out.mutable_match_ended()->set_summary(shown.text());
        break;
      case vv::EventKind::kSetUp:
      case vv::EventKind::kAssaultResolved:
      case vv::EventKind::kCasualtiesApplied:
        break;
    }
    *out.mutable_vv() = std::move(shown);
  }

  void RenderView(const AnyState& state, Viewer viewer, v1::MatchView& out) const override {
    *out.mutable_vv() = proto::VvViewToProto(Rules().MakeView(StateOf(state), viewer));
  }

 private:
  std::unique_ptr<const engine::Ruleset> ruleset_;
};

}  // namespace

std::unique_ptr<const RulesetHost> MakeVvHost() { return std::make_unique<VvHost>(); }

}  // namespace melee::server
