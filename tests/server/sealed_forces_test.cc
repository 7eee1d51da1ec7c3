// Forces that persist for the sealed rulesets (docs/forces.md), without sockets: what a coc
// contact or a vv close assault takes from the forces (carried Units with this contact's role,
// Force Morale, the units of the target and source hexes), what it leaves behind, and every unit
// update each ruleset takes or refuses, with its field and rule.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/coc/protocol.h"
#include "engine/core/dice.h"
#include "engine/vv/protocol.h"
#include "server/forces.h"
#include "server/ruleset_host.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;
namespace cocpb = melee::coc::v1;
namespace vvpb = melee::vv::v1;
using engine::Seat;

cocpb::Team Team(const std::string& id, int figures, int shock = 0) {
  cocpb::Team team;
  team.set_id(id);
  team.set_figures(figures);
  team.set_shock(shock);
  return team;
}

// A coc Unit of `owner` with `teams` and, when `leader` is given, a Junior Leader.
cocpb::Unit CocUnit(const std::string& id, v1::Seat owner, std::vector<cocpb::Team> teams,
                    const std::string& leader = "") {
  cocpb::Unit unit;
  unit.set_id(id);
  unit.set_side(owner);
  for (cocpb::Team& team : teams) *unit.add_teams() = std::move(team);
  if (!leader.empty()) unit.add_leaders()->set_id(leader);
  return unit;
}

v1::ForceUnit Carried(const cocpb::Unit& unit, const std::string& location) {
  v1::ForceUnit carried;
  carried.set_id(unit.id());
  carried.set_owner(unit.side());
  carried.set_location(location);
  carried.set_fate(v1::FORCE_FATE_PRESENT);
  *carried.mutable_coc() = unit;
  return carried;
}

v1::ForceUnit Carried(const vvpb::Unit& unit, const std::string& location) {
  v1::ForceUnit carried;
  carried.set_id(unit.id());
  carried.set_owner(unit.owner());
  carried.set_location(location);
  carried.set_fate(v1::FORCE_FATE_PRESENT);
  *carried.mutable_vv() = unit;
  return carried;
}

void Hold(Forces& forces, v1::ForceUnit unit) {
  forces[unit.owner() == v1::SEAT_SIDE_A ? 0 : 1].units.push_back(std::move(unit));
}

v1::UnitUpdate Update(const std::string& unit, v1::UpdateKind kind, int value = 0,
                      const std::string& location = "") {
  v1::UnitUpdate update;
  update.set_unit(unit);
  update.set_kind(kind);
  update.set_value(value);
  update.set_location(location);
  return update;
}

v1::UpdateUnits Updates(std::vector<v1::UnitUpdate> updates) {
  v1::UpdateUnits out;
  for (v1::UnitUpdate& update : updates) *out.add_updates() = std::move(update);
  return out;
}

// What ApplyUpdates answers: "ok", or "<rule>|<message>".
std::string Answer(const engine::Result<Forces>& result) {
  return result ? "ok" : result.error().rule_ref + "|" + result.error().message;
}

const v1::ForceUnit& Unit(const Forces& forces, const std::string& id) {
  const v1::ForceUnit* unit = FindForceUnit(forces, id);
  EXPECT_NE(unit, nullptr) << id;
  static const v1::ForceUnit kNone;
  return unit != nullptr ? *unit : kNone;
}

SetupParts Parts(const v1::SubmitSetup& a, const v1::SubmitSetup& b) {
  return {std::make_shared<const v1::SubmitSetup>(a), std::make_shared<const v1::SubmitSetup>(b)};
}

// ---- coc ------------------------------------------------------------------------------------

class CocForcesTest : public ::testing::Test {
 protected:
  CocForcesTest() {
    // After rule 17's "In action" in the farmhouse: the Soviet Section (A) holds it; the German
    // Squad (B) fled from it Broken, three of its figures killed, its Force Morale down to 8.
    Hold(forces_, Carried(CocUnit("soviet_smg", v1::SEAT_SIDE_A, {Team("soviet_team", 7, 1)},
                                  "soviet_jl"),
                          "farmhouse"));
    Hold(forces_, Carried(CocUnit("german_squad", v1::SEAT_SIDE_B,
                                  {Team("german_lmg", 2, 4), Team("german_rifles", 3, 3)},
                                  "german_jl"),
                          ""));
    forces_[0].force_morale = 9;
    forces_[1].force_morale = 8;
  }

  std::unique_ptr<const RulesetHost> host_ = MakeCocHost();
  Forces forces_;
};

// 17.4.1: Kills remove figures and Shock falls on Teams; 17.5: Broken and rallied; every
// refusal names the field and the rule.
TEST_F(CocForcesTest, UnitUpdatesNameTheRuleAndFallOnTeams) {
  struct Case {
    Seat seat;
    v1::UnitUpdate update;
    std::string answer;
  };
  const std::string f = "update_units.updates[0]";
  const std::vector<Case> cases = {
      {Seat::kSideB, Update("german_squad", v1::UPDATE_KIND_KILL, 1),
       "17.4.1|" + f + ".unit: 'german_squad' has 2 Teams: name the Team the Kill falls on (Kills "
                       "and Shock fall on Teams)"},
      {Seat::kSideB, Update("german_rifles", v1::UPDATE_KIND_KILL, 4),
       "17.4.1|" + f + ".value: Team 'german_rifles' has 3 figure(s): kill 1..3"},
      {Seat::kSideB, Update("german_jl", v1::UPDATE_KIND_SHOCK, 1),
       "17.4.1|" + f + ".unit: Shock falls on Teams, not on a Leader ('german_jl')"},
      {Seat::kSideB, Update("german_lmg", v1::UPDATE_KIND_SHOCK, -5),
       "17.4.1|" + f + ".value: Team 'german_lmg' has 4 Shock; it would have -1 (0..99)"},
      {Seat::kSideB, Update("german_lmg", v1::UPDATE_KIND_SHOCK, 0),
       "17.4.1|" + f + ".value: the Shock added (negative: removed), not 0"},
      {Seat::kSideB, Update("german_jl", v1::UPDATE_KIND_KILL, 2),
       "13.2.7|" + f + ".value: a Leader is killed once: 1"},
      {Seat::kSideB, Update("german_lmg", v1::UPDATE_KIND_MOVE, 0, "orchard"),
       "|" + f + ".unit: MOVE names the Unit ('german_squad'), not one of its Teams or Leaders"},
      {Seat::kSideB, Update("german_lmg", v1::UPDATE_KIND_ELIMINATE),
       "|" + f + ".unit: ELIMINATE names the Unit ('german_squad'), not one of its Teams or "
                 "Leaders (a Team's figures are killed with KILL)"},
      {Seat::kSideA, Update("soviet_smg", v1::UPDATE_KIND_RALLY),
       "17.5|" + f + ": 'soviet_smg' is not Broken"},
      {Seat::kSideA, Update("german_lmg", v1::UPDATE_KIND_KILL, 1),
       "|" + f + ".unit: 'german_lmg' is side_b's; a side reports only its own units"},
      {Seat::kSideA, Update("soviet_smg", v1::UPDATE_KIND_PIN),
       "17.3|" + f + ".kind: PIN is not a coc update: a Unit is Pinned while its Shock exceeds its "
                     "figures; report SHOCK"},
      {Seat::kSideA, Update("soviet_smg", v1::UPDATE_KIND_REDUCE),
       "17.4.1|" + f + ".kind: REDUCE is not a coc update: a Unit loses figures to Kills; report "
                       "KILL on its Team"},
      {Seat::kSideA, Update("soviet_smg", v1::UPDATE_KIND_CONCEAL),
       "|" + f + ".kind: nothing is concealed in a coc match: every Unit is on the table"},
      {Seat::kSideA, Update("soviet_smg", v1::UPDATE_KIND_FORCE_MORALE, 7),
       "|" + f + ".unit: FORCE_MORALE is the side's: it names no unit (leave unit empty)"},
      {Seat::kSideA, Update("", v1::UPDATE_KIND_FORCE_MORALE, 12),
       "|" + f + ".value: Force Morale is 0..11 (0: the force has lost); not 12"},
      {Seat::kSideA, Update("", v1::UPDATE_KIND_SHOCK, 1),
       "|" + f + ".unit: required: only FORCE_MORALE names no unit (it is the side's)"},
      {Seat::kSideB, Update("german_squad", v1::UPDATE_KIND_ENTER, 0, "wood"),
       "|" + f + ".unit: 'german_squad' is already in the match; ENTER brings in a new unit"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Answer(ApplyUpdates(*host_, forces_, c.seat, Updates({c.update}), 7, nullptr)),
              c.answer)
        << c.update.ShortDebugString();
  }

  // Fire on B's board: the rifles lose a figure (17.4.1), the LMG Team sheds 2 Shock, the Squad
  // breaks and rallies; B's Force Morale drops to 7.
  auto after = ApplyUpdates(
      *host_, forces_, Seat::kSideB,
      Updates({Update("german_rifles", v1::UPDATE_KIND_KILL, 1),
               Update("german_lmg", v1::UPDATE_KIND_SHOCK, -2),
               Update("german_squad", v1::UPDATE_KIND_BREAK),
               Update("german_squad", v1::UPDATE_KIND_RALLY),
               Update("", v1::UPDATE_KIND_FORCE_MORALE, 7)}),
      7, nullptr);
  ASSERT_TRUE(after.has_value()) << after.error().message;
  const cocpb::Unit& germans = Unit(*after, "german_squad").coc();
  EXPECT_EQ(germans.teams(1).figures(), 2);
  EXPECT_EQ(germans.teams(0).shock(), 2);
  EXPECT_FALSE(germans.broken());
  EXPECT_EQ(after->at(1).force_morale, 7);
  EXPECT_EQ(after->at(0).force_morale, 9) << "a side reports only its own Force Morale";
  EXPECT_EQ(Unit(*after, "german_squad").changed_seq(), 7u);

  // Killing every figure wipes the Unit out: it never returns. A Team's Shock goes with its last
  // figure (SPEC-NOTES C.1).
  auto wiped = ApplyUpdates(*host_, *after, Seat::kSideB,
                            Updates({Update("german_lmg", v1::UPDATE_KIND_KILL, 2),
                                     Update("german_rifles", v1::UPDATE_KIND_KILL, 2)}),
                            8, nullptr);
  ASSERT_TRUE(wiped.has_value()) << wiped.error().message;
  EXPECT_EQ(Unit(*wiped, "german_squad").fate(), v1::FORCE_FATE_ELIMINATED);
  EXPECT_EQ(Unit(*wiped, "german_squad").coc().teams(0).shock(), 0);
  EXPECT_EQ(Answer(ApplyUpdates(*host_, *wiped, Seat::kSideB,
                                Updates({Update("german_rifles", v1::UPDATE_KIND_SHOCK, 1)}), 9,
                                nullptr)),
            "|" + f + ".unit: 'german_rifles' was eliminated (event 8) and never returns");
}

// ENTER brings in a new Unit; none of its ids (Unit, Teams, Leaders) may be one the match holds.
TEST_F(CocForcesTest, AReinforcementEntersWithNewIdsOnly) {
  v1::UnitUpdate enter = Update("second_squad", v1::UPDATE_KIND_ENTER, 0, "wood");
  *enter.mutable_coc() = CocUnit("ignored", v1::SEAT_SIDE_A, {Team("german_lmg", 5)});
  EXPECT_EQ(Answer(ApplyUpdates(*host_, forces_, Seat::kSideB, Updates({enter}), 3, nullptr)),
            "|update_units.updates[0]: 'german_lmg' is already in the match; a new unit needs "
            "new ids");
  *enter.mutable_coc() = CocUnit("ignored", v1::SEAT_SIDE_A, {Team("mg", 3), Team("mg", 5)});
  EXPECT_EQ(Answer(ApplyUpdates(*host_, forces_, Seat::kSideB, Updates({enter}), 3, nullptr)),
            "|update_units.updates[0].coc.teams[1].id: 'mg' twice");
  *enter.mutable_coc() = CocUnit("ignored", v1::SEAT_SIDE_A, {Team("mg", 3), Team("riflemen", 5)});
  enter.mutable_coc()->set_movement_dice(2);  // this contact's, never carried
  auto entered = ApplyUpdates(*host_, forces_, Seat::kSideB, Updates({enter}), 3, nullptr);
  ASSERT_TRUE(entered.has_value()) << entered.error().message;
  const v1::ForceUnit& unit = Unit(*entered, "second_squad");
  EXPECT_EQ(unit.owner(), v1::SEAT_SIDE_B);
  EXPECT_EQ(unit.coc().side(), v1::SEAT_SIDE_B);
  EXPECT_EQ(unit.location(), "wood");
  EXPECT_EQ(unit.coc().movement_dice(), 0);
  EXPECT_EQ(unit.coc().role(), cocpb::ROLE_UNSPECIFIED);

  // A set-up part may not enter a Team (or Leader) the match holds either.
  v1::SubmitSetup part;
  *part.mutable_coc()->add_units() =
      CocUnit("new_squad", v1::SEAT_SIDE_B, {Team("german_rifles", 5)});
  EXPECT_EQ(CheckNewUnits(*host_, forces_, Seat::kSideB, part).error().message,
            "submit_setup.coc.units[0]: 'german_rifles' (of german_squad) is already in the match "
            "(no Location, since event 0: ); its state comes from its force: leave it out of the "
            "set-up (it joins the close combat in its Location by itself) and report changes with "
            "update_units");
  // Force Morale carries: a part gives the carried value or none.
  v1::SubmitSetup morale;
  morale.mutable_coc()->set_force_morale(9);
  EXPECT_EQ(CheckNewUnits(*host_, forces_, Seat::kSideB, morale).error().message,
            "submit_setup.coc.force_morale: side_b's Force Morale is 8 as the match carries it; "
            "leave force_morale out (0) and report a change with update_units FORCE_MORALE");
  morale.mutable_coc()->set_force_morale(8);
  EXPECT_TRUE(CheckNewUnits(*host_, forces_, Seat::kSideB, morale).has_value());
}

// Role is each contact's: the attacker's carried Units attack; the other side's carried Unit
// defends, or supports when another of its Units is attacked (17.2). Force Morale comes from
// the forces.
TEST_F(CocForcesTest, CarriedUnitsTakeThisContactsRoleAndForceMorale) {
  forces_[1].units.Mutable(0).set_location(
      "farmhouse");  // the Germans come back into the farmhouse
  v1::SubmitSetup a;
  a.mutable_coc()->set_location("farmhouse");
  a.mutable_coc()->set_attacker(v1::SEAT_SIDE_B);  // the Germans attack the Soviets there
  v1::SubmitSetup b;
  cocpb::InContact* approach = b.mutable_coc()->add_in_contact();
  approach->set_unit("german_squad");
  approach->set_movement_dice(2);
  auto parts = host_->WithCarried(Parts(a, b), forces_, "farmhouse", "", std::nullopt);
  ASSERT_TRUE(parts.has_value()) << parts.error().message;
  const cocpb::SideSetup& soviets = (*parts)[0]->coc();
  const cocpb::SideSetup& germans = (*parts)[1]->coc();
  ASSERT_EQ(soviets.units_size(), 1);
  EXPECT_EQ(soviets.units(0).role(), cocpb::ROLE_DEFENDER);
  EXPECT_EQ(soviets.force_morale(), 9);
  ASSERT_EQ(germans.units_size(), 1);
  EXPECT_EQ(germans.units(0).role(), cocpb::ROLE_ATTACKER);
  EXPECT_EQ(germans.units(0).movement_dice(), 2);
  EXPECT_EQ(germans.units(0).teams(0).figures(), 2) << "killed figures stay dead";
  EXPECT_EQ(germans.force_morale(), 8);
  auto start = host_->StartCommand(*parts);
  ASSERT_TRUE(start.has_value()) << start.error().message;
  const auto& setup =
      std::get<engine::coc::SetUp>(*start->command.As<engine::coc::Command>()).situation;
  EXPECT_EQ(setup.location, "farmhouse");
  EXPECT_EQ(setup.force_morale[1], 8);

  // Two of the defender's Units there and none named: which one is attacked?
  Hold(forces_, Carried(CocUnit("soviet_mg", v1::SEAT_SIDE_A, {Team("maxim", 3)}), "farmhouse"));
  EXPECT_EQ(host_->WithCarried(Parts(a, b), forces_, "farmhouse", "", std::nullopt)
                .error()
                .message,
            "submit_setup.coc.in_contact: side_a has Units soviet_smg, soviet_mg in farmhouse: "
            "name the one attacked (role ROLE_DEFENDER); the others support it");
  cocpb::InContact* attacked = a.mutable_coc()->add_in_contact();
  attacked->set_unit("soviet_mg");
  attacked->set_role(cocpb::ROLE_DEFENDER);
  parts = host_->WithCarried(Parts(a, b), forces_, "farmhouse", "", std::nullopt);
  ASSERT_TRUE(parts.has_value()) << parts.error().message;
  EXPECT_EQ((*parts)[0]->coc().units(0).role(), cocpb::ROLE_SUPPORT);
  EXPECT_EQ((*parts)[0]->coc().units(1).role(), cocpb::ROLE_DEFENDER);

  // A Unit named in in_contact must be carried there; a force at Force Morale 0 has lost.
  attacked->set_unit("german_squad");
  EXPECT_EQ(host_->WithCarried(Parts(a, b), forces_, "farmhouse", "", std::nullopt)
                .error()
                .message,
            "submit_setup.coc.in_contact[0].unit: 'german_squad' is not one of side_a's Units "
            "the match carries in farmhouse");
  forces_[1].force_morale = 0;
  EXPECT_EQ(host_->WithCarried(Parts(a, b), forces_, "farmhouse", "", std::nullopt)
                .error()
                .message,
            "submit_setup.coc.force_morale: side_b's Force Morale is 0: its force has lost and "
            "fights no more contacts");
}

// 17.5: the loser retreats from the contact's ground; the winner holds it or advances into it.
// Kills, Shock, the Leaders and Force Morale are what the contact left.
TEST_F(CocForcesTest, AContactLeavesTheLoserOffItsGroundWithItsLosses) {
  const engine::Ruleset& rules = host_->ruleset();
  auto state = rules.NewState(engine::MatchOptions{});
  ASSERT_TRUE(state.has_value());
  v1::SubmitSetup a;
  cocpb::SideSetup& soviets = *a.mutable_coc();
  soviets.set_location("farmhouse");
  soviets.set_attacker(v1::SEAT_SIDE_A);
  soviets.set_force_morale(9);
  *soviets.add_units() = CocUnit("s", v1::SEAT_SIDE_A, {Team("s1", 10)}, "s_jl");
  soviets.mutable_units(0)->set_role(cocpb::ROLE_ATTACKER);
  v1::SubmitSetup b;
  b.mutable_coc()->set_force_morale(6);
  *b.mutable_coc()->add_units() = CocUnit("g", v1::SEAT_SIDE_B, {Team("g1", 6)}, "g_jl");
  b.mutable_coc()->mutable_units(0)->set_role(cocpb::ROLE_DEFENDER);
  auto start = host_->StartCommand(Parts(a, b));
  ASSERT_TRUE(start.has_value()) << start.error().message;
  engine::ScriptedDice none(std::vector<int>{});
  auto set_up = rules.Decide(*state, Seat::kSideA, start->command, none);
  ASSERT_TRUE(set_up.has_value()) << set_up.error().message;
  for (const auto& event : *set_up) rules.Apply(*state, event);
  const CombatOutcome began = host_->OutcomeOf(*state);
  EXPECT_EQ(began.location, "farmhouse");
  EXPECT_EQ(began.force_morale[1], 6);
  EXPECT_EQ(began.units[0].coc().role(), cocpb::ROLE_UNSPECIFIED) << "a role is each contact's";

  engine::coc::Declare hold;
  engine::coc::Declare advance;
  advance.advance = true;
  auto held = rules.Decide(*state, Seat::kSideB, engine::AnyCommand(engine::coc::Command(hold)),
                           none);
  ASSERT_TRUE(held.has_value()) << held.error().message;
  for (const auto& event : *held) rules.Apply(*state, event);
  // 17.3: 12 Combat Dice (10 figures, 2 Orders) against 8 (6 and 2). The Soviets roll three 6s,
  // three Kills on the one German Team; the Germans roll nothing. Three d6 for the German
  // Leader with that Team (placeholder table: hit on a 6) miss. Defeated by Three (17.5): the
  // Germans retreat 12" with 2 Shock; the Soviets advance into their ground.
  std::vector<int> faces = {6, 6, 6};
  faces.resize(12 + 8, 1);
  faces.insert(faces.end(), {2, 2, 2});
  engine::ScriptedDice roll(faces);
  auto fought = rules.Decide(*state, Seat::kSideA,
                             engine::AnyCommand(engine::coc::Command(advance)), roll);
  ASSERT_TRUE(fought.has_value()) << fought.error().message;
  for (const auto& event : *fought) rules.Apply(*state, event);
  ASSERT_TRUE(host_->Ended(*state));
  const CombatOutcome ended = host_->OutcomeOf(*state);
  ASSERT_EQ(ended.units.size(), 2u);
  EXPECT_EQ(ended.units[0].location(), "farmhouse") << "17.5: the winner advanced";
  EXPECT_EQ(ended.units[0].fate(), v1::FORCE_FATE_PRESENT);
  EXPECT_EQ(ended.units[1].location(), "") << "17.5: the loser retreated 12\"";
  EXPECT_EQ(ended.units[1].fate(), v1::FORCE_FATE_PRESENT);
  EXPECT_EQ(ended.units[1].coc().teams(0).figures(), 3);
  EXPECT_EQ(ended.units[1].coc().teams(0).shock(), 2) << "17.5: Defeated by Three, 2 Shock";
  EXPECT_EQ(ended.force_morale[1], 6);
}

// ---- vv -------------------------------------------------------------------------------------

vvpb::Unit VvSquad(const std::string& id, v1::Seat owner) {
  vvpb::Unit unit;
  unit.set_id(id);
  unit.set_owner(owner);
  unit.set_kind(vvpb::UNIT_KIND_SQUAD);
  unit.set_apfp(4);
  unit.set_casualty_rating(5);
  unit.set_reduced_apfp(2);
  unit.set_reduced_casualty_rating(2);
  return unit;
}

class VvForcesTest : public ::testing::Test {
 protected:
  VvForcesTest() {
    Hold(forces_, Carried(VvSquad("G1", v1::SEAT_SIDE_A), "B1"));
    Hold(forces_, Carried(VvSquad("G2", v1::SEAT_SIDE_A), "B1"));
    Hold(forces_, Carried(VvSquad("G3", v1::SEAT_SIDE_A), "A1"));
    Hold(forces_, Carried(VvSquad("US1", v1::SEAT_SIDE_B), "C1"));
  }

  std::unique_ptr<const RulesetHost> host_ = MakeVvHost();
  Forces forces_;
};

// 14.61: a squad is reduced to the half squad on its back; 14.62: a pinned unit cannot be; 14.7:
// pinned; V&V units never break. Every refusal names the field and the rule.
TEST_F(VvForcesTest, UnitUpdatesFollowRule14) {
  const std::string f = "update_units.updates[0]";
  auto reduced = ApplyUpdates(*host_, forces_, Seat::kSideA,
                              Updates({Update("G1", v1::UPDATE_KIND_REDUCE),
                                       Update("G2", v1::UPDATE_KIND_PIN)}),
                              4, nullptr);
  ASSERT_TRUE(reduced.has_value()) << reduced.error().message;
  const vvpb::Unit& half = Unit(*reduced, "G1").vv();
  EXPECT_EQ(half.kind(), vvpb::UNIT_KIND_HALF_SQUAD);
  EXPECT_EQ(half.apfp(), 2);
  EXPECT_EQ(half.casualty_rating(), 2);
  EXPECT_EQ(half.reduced_apfp(), 0);
  EXPECT_TRUE(Unit(*reduced, "G2").vv().pinned());
  struct Case {
    v1::UnitUpdate update;
    std::string answer;
  };
  const std::vector<Case> cases = {
      {Update("G1", v1::UPDATE_KIND_REDUCE),
       "14.61|" + f + ": only a squad is reduced (to a half squad); 'G1' is a half_squad: "
                      "ELIMINATE it when fire takes its full Casualty Rating"},
      {Update("G2", v1::UPDATE_KIND_REDUCE),
       "14.62|" + f + ": 'G2' is pinned, and a pinned unit cannot be reduced: it is eliminated at "
                      "its Casualty Rating (ELIMINATE)"},
      {Update("G2", v1::UPDATE_KIND_PIN), "14.7|" + f + ": 'G2' is already pinned"},
      {Update("G1", v1::UPDATE_KIND_UNPIN), "14.8|" + f + ": 'G1' is not pinned"},
      {Update("G1", v1::UPDATE_KIND_BREAK),
       "14.7|" + f + ".kind: V&V units do not break: fire pins (PIN, 14.7) or reduces (REDUCE, "
                     "14.61) them"},
      {Update("G1", v1::UPDATE_KIND_SHOCK, 1), "|" + f + ".kind: SHOCK is coc's, not a vv update"},
      {Update("", v1::UPDATE_KIND_FORCE_MORALE, 5),
       "|" + f + ".kind: FORCE_MORALE is coc's, not a vv update"},
      {Update("G1", v1::UPDATE_KIND_CONCEAL),
       "|" + f + ".kind: nothing is concealed in a vv match: every unit is on the map"},
      {Update("US1", v1::UPDATE_KIND_PIN),
       "|" + f + ".unit: 'US1' is side_b's; a side reports only its own units"},
      {Update("G9", v1::UPDATE_KIND_ENTER, 0, "B1"),
       "|" + f + ".vv: ENTER gives the new unit's counter"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Answer(ApplyUpdates(*host_, *reduced, Seat::kSideA, Updates({c.update}), 5,
                                  nullptr)),
              c.answer)
        << c.update.ShortDebugString();
  }
  auto gone = ApplyUpdates(*host_, *reduced, Seat::kSideA,
                           Updates({Update("G2", v1::UPDATE_KIND_ELIMINATE)}), 6, nullptr);
  ASSERT_TRUE(gone.has_value());
  EXPECT_EQ(Answer(ApplyUpdates(*host_, *gone, Seat::kSideA,
                                Updates({Update("G2", v1::UPDATE_KIND_MOVE, 0, "B2")}), 7,
                                nullptr)),
            "|" + f + ".unit: 'G2' was eliminated (event 6) and never returns");
}

// 15.1: every unit in the target hex defends; the assaulter's units in the one hex the assault
// comes from may assault; a hex holding the assaulter's own units is not enemy-occupied.
TEST_F(VvForcesTest, AnAssaultTakesTheTargetHexAndTheSourceHex) {
  v1::SubmitSetup a;
  a.mutable_vv()->set_attacker(v1::SEAT_SIDE_A);
  a.mutable_vv()->set_source_hex("B1");
  a.mutable_vv()->mutable_target()->set_name("C1");
  auto parts = host_->WithCarried(Parts(a, v1::SubmitSetup()), forces_, "C1", "", std::nullopt);
  ASSERT_TRUE(parts.has_value()) << parts.error().message;
  ASSERT_EQ((*parts)[0]->vv().units_size(), 2);
  EXPECT_EQ((*parts)[0]->vv().units(0).id(), "G1");
  EXPECT_EQ((*parts)[0]->vv().units(1).id(), "G2");
  ASSERT_EQ((*parts)[1]->vv().units_size(), 1);
  EXPECT_EQ((*parts)[1]->vv().units(0).id(), "US1");
  EXPECT_TRUE(host_->StartCommand(*parts).has_value());

  a.mutable_vv()->mutable_target()->set_name("B1");
  a.mutable_vv()->set_source_hex("A1");
  const auto refused = host_->WithCarried(Parts(a, v1::SubmitSetup()), forces_, "B1", "",
                                          std::nullopt);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().rule_ref, "15.1");
  EXPECT_EQ(refused.error().message,
            "submit_setup.vv.target: side_a's G1 is in B1: a close assault is made against an "
            "adjacent, enemy occupied hex");
}

}  // namespace
}  // namespace melee::server
