// The asl ruleset on the server, without sockets: set-up checks that name the field, what each
// seat sees of the other side's set-up, commands read from the wire, and choice defaults.

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <span>
#include <utility>

#include "engine/asl/protocol.h"
#include "engine/asl/rules.h"
#include "engine/core/dice.h"
#include "proto/codec/frame.h"
#include "server/ruleset_host.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;
namespace aslpb = melee::asl::v1;
using engine::Seat;
using engine::Viewer;

aslpb::Unit Unit(const std::string& id, v1::Seat owner, bool concealed = false) {
  aslpb::Unit unit;
  unit.set_id(id);
  unit.set_owner(owner);
  unit.set_kind(aslpb::UNIT_KIND_SQUAD);
  unit.set_firepower(4);
  unit.set_name("4-4-7");
  unit.set_concealed(concealed);
  return unit;
}

v1::SubmitSetup Part(std::vector<aslpb::Unit> units, const std::string& location = "") {
  v1::SubmitSetup part;
  if (!location.empty()) part.mutable_asl()->mutable_location()->set_name(location);
  for (auto& unit : units) *part.mutable_asl()->add_units() = std::move(unit);
  return part;
}

std::string ErrorOf(const engine::Result<void>& result) {
  return result ? "ok" : result.error().message;
}

// A Location of 4-4-7 squads, side A's `side_a` and side B's `side_b`; the squad R2 is named
// SECRET-R2, and concealed (A12) when `concealed`.
engine::asl::Situation Squads(const std::vector<std::string>& side_a,
                              const std::vector<std::string>& side_b, bool concealed) {
  engine::asl::Situation situation;
  for (const auto& [ids, owner] :
       {std::pair{&side_a, Seat::kSideA}, std::pair{&side_b, Seat::kSideB}}) {
    for (const std::string& id : *ids) {
      engine::asl::Unit& unit = situation.units.emplace_back();
      unit.id = id;
      unit.name = id == "R2" ? "SECRET-R2" : "4-4-7";
      unit.owner = owner;
      unit.kind = engine::asl::UnitKind::kSquad;
      unit.firepower = 4;
      unit.morale = 7;
      unit.concealed = concealed && id == "R2";
    }
  }
  return situation;
}

// The commands of one close combat in `situation`: the set-up, both sides announcing nothing,
// side A's seal `attacker`, side B's `defender`.
std::vector<std::pair<Seat, engine::asl::Command>> OneCloseCombat(
    const engine::asl::Situation& situation, const engine::asl::Seal& attacker,
    const engine::asl::Seal& defender) {
  return {{Seat::kSideA, engine::asl::SetUp{situation}},
          {Seat::kSideA, engine::asl::Announce{}},
          {Seat::kSideB, engine::asl::Announce{}},
          {Seat::kSideA, attacker},
          {Seat::kSideB, defender}};
}

class AslHostTest : public ::testing::Test {
 protected:
  std::unique_ptr<const RulesetHost> host_ = MakeAslHost();
};

TEST_F(AslHostTest, ASideEntersOnlyItsOwnUnitsWithUniqueIds) {
  SetupParts parts;
  EXPECT_EQ(ErrorOf(host_->CheckSetup(Seat::kSideA, Part({Unit("G1", v1::SEAT_SIDE_A)}), parts)),
            "ok");
  EXPECT_EQ(ErrorOf(host_->CheckSetup(Seat::kSideA, Part({Unit("R1", v1::SEAT_SIDE_B)}), parts)),
            "submit_setup.asl.units[0].owner: side_a enters only its own units");
  parts[1] = std::make_shared<const v1::SubmitSetup>(Part({Unit("R1", v1::SEAT_SIDE_B)}, "G3"));
  EXPECT_EQ(ErrorOf(host_->CheckSetup(Seat::kSideA, Part({Unit("R1", v1::SEAT_SIDE_A)}), parts)),
            "submit_setup.asl.units[0].id: 'R1' is already used in this Location");
  EXPECT_EQ(
      ErrorOf(host_->CheckSetup(Seat::kSideA, Part({Unit("G1", v1::SEAT_SIDE_A)}, "H4"), parts)),
      "submit_setup.asl.location: differs from the Location side_b entered; leave it empty or "
      "enter the same");
  EXPECT_EQ(ErrorOf(host_->CheckSetup(Seat::kSideA, v1::SubmitSetup(), parts)),
            "submit_setup.asl: required for an asl match");
  aslpb::Unit bad = Unit("G1", v1::SEAT_SIDE_A);
  bad.set_morale(13);
  EXPECT_EQ(ErrorOf(host_->CheckSetup(Seat::kSideA, Part({bad}), parts)),
            "submit_setup.asl.units[0].morale: 13 is out of range 1..12");
}

// A11.19: the other side and spectators see a concealed unit as "?" with its id only; its owner
// and the director see it whole.
TEST_F(AslHostTest, ConcealedUnitsOfASetUpAreHiddenFromTheOtherSide) {
  const v1::SubmitSetup part =
      Part({Unit("R1", v1::SEAT_SIDE_B), Unit("R2", v1::SEAT_SIDE_B, true)});
  for (Viewer viewer : {Viewer::kSideA, Viewer::kSpectator}) {
    const v1::SubmitSetup shown = host_->MaskSetup(part, Seat::kSideB, viewer);
    EXPECT_EQ(shown.asl().units(0).name(), "4-4-7");
    EXPECT_EQ(shown.asl().units(1).id(), "R2");
    EXPECT_TRUE(shown.asl().units(1).concealed());
    EXPECT_EQ(shown.asl().units(1).name(), "");
    EXPECT_EQ(shown.asl().units(1).kind(), aslpb::UNIT_KIND_UNSPECIFIED);
    EXPECT_EQ(shown.asl().units(1).firepower(), 0);
  }
  for (Viewer viewer : {Viewer::kSideB, Viewer::kDirector}) {
    EXPECT_EQ(host_->MaskSetup(part, Seat::kSideB, viewer).asl().units(1).name(), "4-4-7");
  }
}

// A set-up is rendered once for every viewer only when nothing in it is hidden: without a
// concealed unit, the four renderings are the same bytes; with one (A12), the other side and the
// spectator get a "?" without its name, so the set-up is rendered for each.
TEST_F(AslHostTest, ASetUpIsShownAlikeToEveryViewerOnlyWithoutAConcealedUnit) {
  namespace asl = engine::asl;
  for (const bool concealed : {false, true}) {
    const asl::Situation situation = Squads({"G1"}, {"R1", "R2"}, concealed);
    engine::AnyState state = *host_->ruleset().NewState({});
    engine::ScriptedDice dice({3, 4, 3, 4});  // any Ambush dr (A11.4)
    auto events = host_->ruleset().Decide(
        state, Seat::kSideA, engine::AnyCommand(asl::Command(asl::SetUp{situation})), dice);
    ASSERT_TRUE(events.has_value()) << events.error().message;
    const engine::AnyEvent& set_up = events->front();
    const std::string logged = host_->LogEvent(state, set_up);
    host_->ruleset().Apply(state, set_up);
    EXPECT_EQ(host_->SameForEveryViewer(set_up), !concealed);
    std::array<std::string, 4> bytes;
    for (size_t i = 0; i < bytes.size(); ++i) {
      v1::MatchEvent rendered;
      host_->RenderEvent(logged, state, set_up, static_cast<Viewer>(i), rendered);
      bytes[i] = rendered.SerializeAsString();
    }
    const auto index = [](Viewer viewer) { return static_cast<size_t>(viewer); };
    if (!concealed) {
      for (const std::string& each : bytes) EXPECT_EQ(each, bytes[0]);
    } else {
      EXPECT_NE(bytes[index(Viewer::kSideA)], bytes[index(Viewer::kSideB)]);
      for (Viewer viewer : {Viewer::kSideA, Viewer::kSpectator}) {
        EXPECT_EQ(bytes[index(viewer)].find("SECRET-R2"), std::string::npos);
      }
      for (Viewer viewer : {Viewer::kSideB, Viewer::kDirector}) {
        EXPECT_NE(bytes[index(viewer)].find("SECRET-R2"), std::string::npos);
      }
    }
  }
}

TEST_F(AslHostTest, StartCommandMergesBothPartsAndNeedsAnAttacker) {
  SetupParts parts;
  parts[0] = std::make_shared<const v1::SubmitSetup>(Part({Unit("G1", v1::SEAT_SIDE_A)}, "G3"));
  auto b = std::make_shared<v1::SubmitSetup>(Part({Unit("R1", v1::SEAT_SIDE_B)}));
  parts[1] = b;
  EXPECT_EQ(host_->StartCommand(parts).error().message,
            "set-up.attacker: required: SEAT_SIDE_A or SEAT_SIDE_B");
  b->mutable_asl()->set_attacker(v1::SEAT_SIDE_B);
  auto start = host_->StartCommand(parts);
  ASSERT_TRUE(start.has_value());
  const auto* command = start->command.As<engine::asl::Command>();
  ASSERT_NE(command, nullptr);
  const auto& setup = std::get<engine::asl::SetUp>(*command);
  EXPECT_EQ(setup.situation.location.name, "G3");
  EXPECT_EQ(setup.situation.attacker, Seat::kSideB);
  ASSERT_EQ(setup.situation.units.size(), 2u);
  EXPECT_TRUE(host_->FromLogged(start->logged).has_value()) << "the log form reads back";
}

TEST_F(AslHostTest, WireCommandsAreReadWithFieldNamesInErrors) {
  v1::Declaration plain;
  v1::Attack* attack = plain.add_attacks();
  attack->add_attacker_ids("G1");
  attack->add_target_ids("R1");
  auto seal = host_->FromDeclaration(plain);
  ASSERT_TRUE(seal.has_value());
  EXPECT_EQ(std::get<engine::asl::Seal>(*seal->command.As<engine::asl::Command>())
                .attacks.front()
                .targets.front(),
            "R1");
  plain.mutable_asl();
  EXPECT_EQ(host_->FromDeclaration(plain).error().message,
            "declaration: give either attacks or asl, not both");
  v1::MakeChoice choice;
  choice.set_choice_id("x7");
  EXPECT_EQ(host_->FromChoice(choice).error().message,
            "make_choice.choice_id: 'x7' is not the decimal id of a ChoiceRequested event");
  EXPECT_FALSE(host_->FromLogged("\xff\xff not a command").has_value());
}

// Forces that persist (docs/forces.md): what a close combat leaves to the next one. A leader
// whose squad is gone stands alone (A11.14), and a SMC wounded twice carries the one wound A17.11
// counts; a carried SMC whose MMC is elsewhere is not stacked on it in the next close combat.
// A11.2: the server announces "nothing" for a side only when the other side could know it has
// nothing to announce; a side with a "?" is always asked (leak: what its "?" are not).
TEST_F(AslHostTest, ASideWithAConcealedUnitIsAlwaysAskedToAnnounce) {
  engine::asl::State state;
  state.phase = engine::asl::Phase::kAnnounce;
  state.melee = true;
  state.location.melee = true;
  engine::asl::Unit berserk;
  berserk.id = "R1";
  berserk.owner = Seat::kSideB;
  berserk.kind = engine::asl::UnitKind::kSquad;
  berserk.berserk = true;
  state.units = {berserk};
  EXPECT_FALSE(host_->CanAnnounce(engine::AnyState(state), Seat::kSideB));
  engine::asl::Unit hidden = berserk;
  hidden.id = "R2";
  hidden.berserk = false;
  hidden.pinned = true;
  hidden.concealed = true;
  state.units.push_back(hidden);
  EXPECT_FALSE(engine::asl::CanAnnounce(state, Seat::kSideB)) << "by the rules: nothing";
  EXPECT_TRUE(host_->CanAnnounce(engine::AnyState(state), Seat::kSideB))
      << "but its \"?\" must not be given away";
}

TEST_F(AslHostTest, ACloseCombatLeavesOnlyWhatTheNextOneCanHold) {
  engine::asl::State state;
  state.phase = engine::asl::Phase::kEnded;
  state.location.name = "G3";
  engine::asl::Unit squad;
  squad.id = "G1";
  squad.kind = engine::asl::UnitKind::kSquad;
  squad.firepower = 4;
  squad.presence = engine::asl::Presence::kEliminated;
  engine::asl::Unit leader;
  leader.id = "L1";
  leader.kind = engine::asl::UnitKind::kLeader;
  leader.morale = 7;
  leader.stacked_on = "G1";
  leader.wounds = 2;
  state.units = {squad, leader};
  const CombatOutcome outcome = host_->OutcomeOf(engine::AnyState(state));
  ASSERT_EQ(outcome.units.size(), 2u);
  EXPECT_EQ(outcome.units[0].fate(), v1::FORCE_FATE_ELIMINATED);
  EXPECT_EQ(outcome.units[1].fate(), v1::FORCE_FATE_PRESENT);
  EXPECT_EQ(outcome.units[1].asl().stacked_on(), "") << "A11.14: its MMC is gone";
  EXPECT_EQ(outcome.units[1].asl().wounds(), 1);

  // In the next close combat in H4, a carried leader stacked on a squad left in G3 stands alone;
  // one stacked on a squad that came along stays on it.
  v1::ForceUnit alone;
  alone.set_id("L2");
  alone.set_owner(v1::SEAT_SIDE_A);
  *alone.mutable_asl() = Unit("L2", v1::SEAT_SIDE_A);
  alone.mutable_asl()->set_kind(aslpb::UNIT_KIND_LEADER);
  alone.mutable_asl()->set_stacked_on("G9");
  v1::ForceUnit with = alone;
  with.set_id("L3");
  with.mutable_asl()->set_id("L3");
  with.mutable_asl()->set_stacked_on("G2");
  SetupParts parts;
  parts[0] = std::make_shared<const v1::SubmitSetup>(Part({Unit("G2", v1::SEAT_SIDE_A)}, "H4"));
  Forces forces;
  for (v1::ForceUnit* unit : {&alone, &with}) {
    unit->set_location("H4");
    unit->set_fate(v1::FORCE_FATE_PRESENT);
    forces[0].units.push_back(*unit);
  }
  auto carried = host_->WithCarried(parts, forces, "H4", "", std::nullopt);
  ASSERT_TRUE(carried.has_value());
  const auto& units = (*carried)[0]->asl().units();
  ASSERT_EQ(units.size(), 3);
  EXPECT_EQ(units[1].stacked_on(), "");
  EXPECT_EQ(units[2].stacked_on(), "G2");
}

// The match sends an event LoggedEventField names as its logged bytes, without rendering it
// (Match::RenderLogged), and renders any other around its logged bytes (RenderAround, the test
// below). For every event of 20 whole close combats, the logged bytes must be byte for byte
// what RenderEvent gives each viewer.
TEST_F(AslHostTest, AnEventShownAsLoggedIsWhatRenderEventGivesEveryViewer) {
  namespace asl = engine::asl;
  auto unit = [](std::string id, Seat owner, asl::UnitKind kind, int firepower,
                 std::string stacked_on) {
    asl::Unit u;
    u.id = std::move(id);
    u.owner = owner;
    u.kind = kind;
    u.firepower = firepower;
    u.morale = kind == asl::UnitKind::kLeader ? 8 : 7;
    u.leadership = kind == asl::UnitKind::kLeader ? -1 : 0;
    u.stacked_on = std::move(stacked_on);
    return u;
  };
  auto order = [](std::vector<std::string> attackers, std::vector<std::string> targets) {
    asl::AttackOrder o;
    o.attackers = std::move(attackers);
    o.targets = std::move(targets);
    return o;
  };
  asl::Situation situation;
  situation.units = {
      unit("G1", Seat::kSideA, asl::UnitKind::kSquad, 4, ""),
      unit("G2", Seat::kSideA, asl::UnitKind::kSquad, 6, ""),
      unit("GL", Seat::kSideA, asl::UnitKind::kLeader, 0, "G1"),
      unit("R1", Seat::kSideB, asl::UnitKind::kSquad, 4, ""),
      unit("R2", Seat::kSideB, asl::UnitKind::kSquad, 5, ""),
  };
  asl::Seal attacker;
  attacker.attacks = {order({"G1", "GL"}, {"R1"}), order({"G2"}, {"R2"})};
  asl::Seal defender;
  defender.attacks = {order({"R1", "R2"}, {"G1", "GL"})};
  std::map<std::string, int> shown_as_logged;  // by the rendered event's text, for the record
  int rendered_apart = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    engine::AnyState state = *host_->ruleset().NewState({});
    engine::SplitMix64 bits(seed);
    engine::SourceDice dice(bits);
    for (const auto& [seat, command] : OneCloseCombat(situation, attacker, defender)) {
      auto events = host_->ruleset().Decide(state, seat, engine::AnyCommand(command), dice);
      ASSERT_TRUE(events.has_value()) << events.error().message;
      for (const engine::AnyEvent& event : *events) {
        const std::string logged_form = host_->LogEvent(state, event);
        host_->ruleset().Apply(state, event);
        const int field = host_->LoggedEventField(event);
        if (field == 0) {
          ++rendered_apart;
          continue;
        }
        EXPECT_TRUE(host_->SameForEveryViewer(event));
        const std::string logged = proto::LengthDelimited(field, logged_form);
        for (Viewer viewer :
             {Viewer::kSideA, Viewer::kSideB, Viewer::kDirector, Viewer::kSpectator}) {
          v1::MatchEvent rendered;
          host_->RenderEvent(logged_form, state, event, viewer, rendered);
          EXPECT_EQ(rendered.SerializeAsString(), logged) << rendered.DebugString();
          ++shown_as_logged[rendered.asl().text().substr(0, 12)];
        }
      }
    }
  }
  EXPECT_GT(rendered_apart, 0);           // the set-up, the seals, the reveal, the phase's end
  EXPECT_GE(shown_as_logged.size(), 2u);  // announcements, attacks
}

// Rendered around its logged bytes (RenderAround, which the match uses as it applies each event),
// every event is, for each viewer, RenderEvent's tree: the rest of the MatchEvent, then the logged
// event or its masked copy, then the parts the viewers share (a reveal's declarations), which
// protobuf merges. Without shared parts these are the very bytes of the tree serialized; with
// them, the same message (its deterministic serialization, byte for byte). Played with and
// without a concealed unit (A12), so that a set-up and the seals are masked for some viewers and
// not for others.
TEST_F(AslHostTest, AnEventRenderedAroundItsLoggedBytesIsRenderEventsTreeForEachViewer) {
  namespace asl = engine::asl;
  constexpr std::array<Viewer, 4> kAll = {Viewer::kSideA, Viewer::kSideB, Viewer::kDirector,
                                          Viewer::kSpectator};
  constexpr std::array<Viewer, 1> kAlike = {Viewer::kDirector};
  std::map<v1::MatchEvent::KindCase, int> kinds;  // of the events rendered around their bytes
  int masked = 0;
  int as_logged = 0;
  int with_parts = 0;  // renderings given a shared part
  for (const bool concealed : {false, true}) {
    const asl::Situation situation = Squads({"G1", "G2"}, {"R1", "R2"}, concealed);
    asl::Seal attacker;
    attacker.attacks.emplace_back().attackers = {"G1", "G2"};
    attacker.attacks.back().targets = {"R1"};
    asl::Seal defender;
    defender.attacks.emplace_back().attackers = {"R1"};
    defender.attacks.back().targets = {"G1"};
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      engine::AnyState state = *host_->ruleset().NewState({});
      engine::SplitMix64 bits(seed);
      engine::SourceDice dice(bits);
      for (const auto& [seat, command] : OneCloseCombat(situation, attacker, defender)) {
        if (host_->Ended(state)) break;
        auto events = host_->ruleset().Decide(state, seat, engine::AnyCommand(command), dice);
        if (!events) break;  // (an announcement the rules skip for this side)
        for (const engine::AnyEvent& event : *events) {
          const std::string logged = host_->LogEvent(state, event);
          host_->ruleset().Apply(state, event);
          if (host_->LoggedEventField(event) != 0) continue;
          const bool alike = host_->SameForEveryViewer(event);
          ShownAround shown;
          host_->RenderAround(
              logged, state, event,
              alike ? std::span<const Viewer>(kAlike) : std::span<const Viewer>(kAll), shown);
          const std::span<const Viewer> viewers =
              alike ? std::span<const Viewer>(kAlike) : std::span<const Viewer>(kAll);
          for (size_t k = 0; k < viewers.size(); ++k) {
            v1::MatchEvent tree;
            host_->RenderEvent(logged, state, event, viewers[k], tree);
            EXPECT_FALSE(shown.around[k].has_asl());
            std::string bytes =
                proto::SerializeDeterministicWith(shown.around[k], host_->AroundField(),
                                                  shown.as_logged[k] ? logged : shown.masked[k]);
            if (shown.parts_to[k] == 0) {
              EXPECT_EQ(bytes, proto::SerializeDeterministic(tree)) << tree.DebugString();
            } else {
              ++with_parts;
              for (size_t p = 0; p < shown.parts.size(); ++p) {
                if ((shown.parts_to[k] & (1U << p)) != 0) bytes += shown.parts[p];
              }
              v1::MatchEvent sent;
              ASSERT_TRUE(sent.ParseFromString(bytes));
              EXPECT_EQ(proto::SerializeDeterministic(sent), proto::SerializeDeterministic(tree))
                  << tree.DebugString();
            }
            ++kinds[tree.kind_case()];
            ++(shown.as_logged[k] ? as_logged : masked);
          }
        }
      }
    }
  }
  EXPECT_EQ(host_->AroundField(), v1::MatchEvent::kAslFieldNumber);
  EXPECT_GT(kinds[v1::MatchEvent::kDeclarationSealed], 0);
  EXPECT_GT(kinds[v1::MatchEvent::kDeclarationsRevealed], 0);
  EXPECT_GT(kinds[v1::MatchEvent::KIND_NOT_SET], 0);  // the set-ups
  EXPECT_GT(masked, 0);                               // a seal, a set-up with its concealed unit
  EXPECT_GT(as_logged, 0);                            // the rest
  EXPECT_GT(with_parts, 0);                           // the reveals
}

}  // namespace
}  // namespace melee::server
