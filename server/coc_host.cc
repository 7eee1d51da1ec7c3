// The coc ruleset on the server: wire commands <-> engine::coc commands, the log form of its
// events, and what each seat sees of them (masked with the engine's own View). Nothing on a
// Chain of Command table is hidden; only a sealed declaration or odd-hit placement is, until both
// are revealed.

#include <set>
#include <string>
#include <utility>

#include "engine/coc/rules.h"
#include "proto/codec/asl.h"  // SideToProto, SideFromProto
#include "proto/codec/coc.h"
#include "proto/codec/frame.h"
#include "server/ruleset_host.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;
namespace cocpb = melee::coc::v1;
namespace coc = melee::engine::coc;
using engine::AnyCommand;
using engine::AnyEvent;
using engine::AnyState;
using engine::Reject;
using engine::Result;
using engine::Seat;
using engine::Viewer;

size_t SeatIndex(Seat seat) { return seat == Seat::kSideA ? 0 : 1; }

std::string Serialize(const google::protobuf::MessageLite& message) {
  return proto::SerializeDeterministic(message);
}

DecodedCommand Decoded(coc::Command command) {
  std::string logged = Serialize(proto::CocCommandToProto(command));
  return DecodedCommand{.command = AnyCommand(std::move(command)), .logged = std::move(logged)};
}

const coc::State& StateOf(const AnyState& state) { return *state.As<coc::State>(); }
const coc::Event& EventOf(const AnyEvent& event) { return *event.As<coc::Event>(); }

const coc::CocRules& Rules() {
  static const coc::CocRules rules;
  return rules;
}

std::string SeatName(Seat seat) { return std::string(engine::Name(seat)); }

// A shared fact of the set-up: either seat may give it (0 is "not given"); where both give one
// they must agree.
template <class Value>
Result<void> Agrees(Value mine, Value theirs, const std::string& field, const std::string& them) {
  if (static_cast<int>(mine) != 0 && static_cast<int>(theirs) != 0 && mine != theirs) {
    return Reject("", field + ": differs from what " + them + " entered; leave it out or enter "
                              "the same");
  }
  return {};
}

class CocHost final : public RulesetHost {
 public:
  CocHost() : ruleset_(coc::MakeCocRuleset()) {}

  const engine::Ruleset& ruleset() const override { return *ruleset_; }

  Result<void> CheckSetup(Seat seat, const v1::SubmitSetup& part,
                          const SetupParts& parts) const override {
    if (!part.has_coc()) return Reject("", "submit_setup.coc: required for a coc match");
    const cocpb::SideSetup& mine = part.coc();
    const std::string field = "submit_setup.coc";
    if (auto read = proto::CocSideSetupFromProto(mine, field); !read) {
      return tl::unexpected(read.error());
    }
    const auto& other = parts[seat == Seat::kSideA ? 1 : 0];
    std::set<std::string> taken;
    size_t other_units = 0;
    if (other && other->has_coc()) {
      const cocpb::SideSetup& theirs = other->coc();
      other_units = static_cast<size_t>(theirs.units_size());
      for (const cocpb::Unit& unit : theirs.units()) {
        taken.insert(unit.id());
        for (const cocpb::Team& team : unit.teams()) taken.insert(team.id());
        for (const cocpb::Leader& leader : unit.leaders()) taken.insert(leader.id());
      }
      const std::string them = SeatName(engine::Opponent(seat));
      for (auto ok : {Agrees(mine.attacker(), theirs.attacker(), field + ".attacker", them),
                      Agrees(mine.engagement(), theirs.engagement(), field + ".engagement", them),
                      Agrees(mine.obstacle(), theirs.obstacle(), field + ".obstacle", them),
                      Agrees(mine.position(), theirs.position(), field + ".position", them),
                      Agrees(mine.cover(), theirs.cover(), field + ".cover", them)}) {
        if (!ok) return ok;
      }
    }
    if (static_cast<size_t>(mine.units_size()) + other_units > proto::kCocMaxUnits) {
      return Reject("", field + ".units: a contact holds at most " +
                            std::to_string(proto::kCocMaxUnits) + " units");
    }
    std::set<std::string> seen;
    for (int i = 0; i < mine.units_size(); ++i) {
      const cocpb::Unit& unit = mine.units(i);
      const std::string unit_field = field + ".units[" + std::to_string(i) + "]";
      if (unit.side() != proto::SideToProto(seat)) {
        return Reject("", unit_field + ".side: " + SeatName(seat) + " enters only its own units");
      }
      std::vector<std::string> ids = {unit.id()};
      for (const cocpb::Team& team : unit.teams()) ids.push_back(team.id());
      for (const cocpb::Leader& leader : unit.leaders()) ids.push_back(leader.id());
      for (const std::string& id : ids) {
        if (!seen.insert(id).second || taken.contains(id)) {
          return Reject("", unit_field + ": id '" + id + "' is already used in this contact");
        }
      }
    }
    return {};
  }

  Result<DecodedCommand> StartCommand(const SetupParts& parts) const override {
    cocpb::Situation situation;
    for (size_t i = 0; i < parts.size(); ++i) {
      const auto& part = parts[i];
      if (!part || !part->has_coc()) return Reject("", "both sides must enter their units first");
      const cocpb::SideSetup& side = part->coc();
      if (side.attacker() != v1::SEAT_UNSPECIFIED) situation.set_attacker(side.attacker());
      if (side.engagement() != 0) situation.set_engagement(side.engagement());
      if (side.obstacle() != 0) situation.set_obstacle(side.obstacle());
      if (side.position() != 0) situation.set_position(side.position());
      if (side.cover() != 0) situation.set_cover(side.cover());
      for (const cocpb::Unit& unit : side.units()) *situation.add_units() = unit;
      if (i == 0) {
        situation.set_side_a_force_morale(side.force_morale());
      } else {
        situation.set_side_b_force_morale(side.force_morale());
      }
    }
    if (situation.attacker() == v1::SEAT_UNSPECIFIED) {
      return Reject("17.1", "set-up: neither side named the active player (attacker)");
    }
    auto read = proto::CocSituationFromProto(situation, "set-up");
    if (!read) return tl::unexpected(read.error());
    return Decoded(coc::SetUp{std::move(*read)});
  }

  v1::SubmitSetup MaskSetup(const v1::SubmitSetup& part, Seat, Viewer) const override {
    v1::SubmitSetup shown = part;  // everything on a CoC table is in plain sight
    shown.clear_expected_seq();
    return shown;
  }

  Result<DecodedCommand> FromAnnounce(const v1::Announce&) const override {
    return Reject("17.2", "a coc close combat has no announcements: each side seals its "
                          "declaration (seal_declaration with declaration.coc.declare)");
  }

  Result<DecodedCommand> FromDeclaration(const v1::Declaration& message) const override {
    if (!message.has_coc() || message.attacks_size() > 0 || message.has_asl() ||
        message.has_vv()) {
      return Reject("", "declaration.coc: required for a coc match (and nothing else)");
    }
    const cocpb::Declaration& sealed = message.coc();
    if (sealed.has_declare()) {
      auto declare = proto::CocDeclareFromProto(sealed.declare(), "declaration.coc.declare");
      if (!declare) return tl::unexpected(declare.error());
      return Decoded(std::move(*declare));
    }
    if (sealed.has_place()) {
      auto place = proto::CocPlaceFromProto(sealed.place(), "declaration.coc.place");
      if (!place) return tl::unexpected(place.error());
      return Decoded(std::move(*place));
    }
    return Reject("", "declaration.coc: give declare or place");
  }

  Result<DecodedCommand> FromChoice(const v1::MakeChoice&) const override {
    return Reject("17.4.1", "a coc close combat asks no choices: odd Kills and Shock are sealed "
                            "as a declaration (declaration.coc.place)");
  }

  Result<AnyCommand> FromLogged(std::string_view logged) const override {
    return CommandOfLogged<cocpb::Command>(logged, [](const cocpb::Command& command) {
      return proto::CocCommandFromProto(command);
    });
  }

  Awaiting AwaitingOf(const AnyState& state) const override {
    const coc::State& s = StateOf(state);
    if (s.phase != coc::Phase::kDeclare && s.phase != coc::Phase::kPlace) return {};
    // Each round's placement is a new step with its own deadline.
    const std::string step =
        s.phase == coc::Phase::kDeclare
            ? "declare"
            : "place " + std::to_string(s.combat) + "." + std::to_string(s.round);
    Awaiting awaiting{.kind = Awaiting::Kind::kDeclaration, .seats = {}, .step = step};
    const Seat attacker = s.situation.attacker;
    for (Seat seat : {attacker, engine::Opponent(attacker)}) {
      if (s.owes[SeatIndex(seat)]) awaiting.seats.push_back(seat);
    }
    return awaiting;
  }

  DecodedCommand DefaultAction(const AnyState& state, Seat seat) const override {
    const coc::State& s = StateOf(state);
    if (s.phase == coc::Phase::kPlace) return Decoded(coc::DefaultPlacement(s, seat));
    return Decoded(coc::DefaultDeclaration(s, seat));
  }

  SetupFacts FactsOf(const SetupParts& parts) const override {
    SetupFacts facts;  // a CoC contact has no named Location
    for (const auto& part : parts) {
      if (!part || !part->has_coc() || facts.attacker) continue;
      if (part->coc().attacker() != v1::SEAT_UNSPECIFIED) {
        auto attacker = proto::SideFromProto(part->coc().attacker(), "attacker");
        if (attacker) facts.attacker = *attacker;
      }
    }
    return facts;
  }

  bool Ended(const AnyState& state) const override {
    return StateOf(state).phase == coc::Phase::kEnded;
  }

  std::vector<std::string> WaitingFor(const AnyState& state) const override {
    const coc::State& s = StateOf(state);
    if (s.phase == coc::Phase::kSetUp) return {"set-up"};
    const std::string what = s.phase == coc::Phase::kDeclare
                                 ? ": seal a Close Combat declaration (17.2)"
                                 : ": seal the placement of odd hits (17.4.1)";
    std::vector<std::string> waiting;
    for (Seat seat : {Seat::kSideA, Seat::kSideB}) {
      if (s.owes[SeatIndex(seat)]) waiting.push_back(SeatName(seat) + what);
    }
    return waiting;
  }

  std::string LogEvent(const AnyState& before, const AnyEvent& event) const override {
    return Serialize(proto::CocEventToProto(StateOf(before), EventOf(event)));
  }

  Result<std::vector<LoggedDie>> DiceOfLogged(std::string_view logged) const override {
    return DiceOfLoggedEvent<cocpb::CocEvent>(logged);
  }

  bool Material(const AnyEvent& event, Seat seat) const override {
    const coc::Event& e = EventOf(event);
    const bool sealed = e.kind == coc::EventKind::kDeclarationSealed ||
                        e.kind == coc::EventKind::kPlacementSealed;
    return !(sealed && e.seat != seat);
  }

  void RenderEvent(const AnyState& before, const AnyState& after, const AnyEvent& event,
                   Viewer viewer, v1::MatchEvent& out) const override {
    const coc::Event& e = EventOf(event);
    cocpb::CocEvent shown = proto::CocEventToProto(StateOf(before), e);
    const coc::View view = Rules().MakeView(StateOf(after), viewer);
    const size_t i = SeatIndex(e.seat);
    switch (e.kind) {
      case coc::EventKind::kDeclarationSealed:
        out.mutable_declaration_sealed()->set_seat(proto::SideToProto(e.seat));
        if (!view.declarations[i]) {
          shown.clear_declare();
          shown.set_text(SeatName(e.seat) + " sealed its Close Combat declaration");
        }
        break;
      case coc::EventKind::kPlacementSealed:
        out.mutable_declaration_sealed()->set_seat(proto::SideToProto(e.seat));
        if (!view.placements[i]) {
          shown.clear_place();
          shown.set_text(SeatName(e.seat) + " sealed its placement of odd hits");
        }
        break;
      case coc::EventKind::kDeclarationsRevealed: {
        v1::DeclarationsRevealed* revealed = out.mutable_declarations_revealed();
        if (view.declarations[0]) {
          *revealed->mutable_side_a()->mutable_coc()->mutable_declare() =
              proto::CocDeclareToProto(*view.declarations[0]);
        }
        if (view.declarations[1]) {
          *revealed->mutable_side_b()->mutable_coc()->mutable_declare() =
              proto::CocDeclareToProto(*view.declarations[1]);
        }
        break;
      }
      case coc::EventKind::kPlacementsRevealed: {
        v1::DeclarationsRevealed* revealed = out.mutable_declarations_revealed();
        if (view.placements[0]) {
          *revealed->mutable_side_a()->mutable_coc()->mutable_place() =
              proto::CocPlaceToProto(*view.placements[0]);
        }
        if (view.placements[1]) {
          *revealed->mutable_side_b()->mutable_coc()->mutable_place() =
              proto::CocPlaceToProto(*view.placements[1]);
        }
        break;
      }
      case coc::EventKind::kContactEnded:
        out.mutable_match_ended()->set_summary(shown.text());
        break;
      case coc::EventKind::kSetUp:
      case coc::EventKind::kRoundRolled:
      case coc::EventKind::kRoundEnded:
      case coc::EventKind::kOverrun:
      case coc::EventKind::kRam:
        break;
    }
    *out.mutable_coc() = std::move(shown);
  }

  void RenderView(const AnyState& state, Viewer viewer, v1::MatchView& out) const override {
    *out.mutable_coc() = proto::CocViewToProto(Rules().MakeView(StateOf(state), viewer));
  }

 private:
  std::unique_ptr<const engine::Ruleset> ruleset_;
};

}  // namespace

std::unique_ptr<const RulesetHost> MakeCocHost() { return std::make_unique<CocHost>(); }

}  // namespace melee::server
