#pragma once

// The close-combat world of Chain of Command rule 17 as the engine sees it: the Units in contact,
// their Teams, Leaders and Shock, the table-top facts of the contact, and the match options that
// hold the tables the rule points to but SPEC-NOTES.md could not find (C.7).
//
// Chain of Command is played with miniatures and a tape measure: the server measures nothing.
// Who is within 4", the obstacle between the Units, cover, the arcs an attacker moved through,
// the movement dice it used and the Supporting Fire dice are inputs both sides enter and both
// see; the engine checks what the rules let it check (17.1, 17.6) and does the rest.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/result.h"
#include "engine/core/ruleset.h"

namespace melee::engine::coc {

// What a contact is: a Close Combat (17.1-17.6), a tank over-running infantry (17.7, 17.7.1) or
// two AFVs ramming (17.8).
enum class Engagement : uint8_t { kCloseCombat, kOverrun, kRam };

enum class Quality : uint8_t { kGreen, kRegular, kElite };

// The worst thing between the opposing Units (17.1).
enum class Obstacle : uint8_t {
  kNone,
  kMinor,       // at most one Minor obstacle: Close Combat is automatic
  kMedium,      // at the active player's option
  kPathAround,  // LOS broken but an unobstructed path (a corner, a ground-floor door): optional
  kMajor,       // a Major obstacle or greater (an upper floor, a high solid wall): impossible
};

// Where the defender is (17.2.1, 17.6); sets the cover it defends.
enum class Position : uint8_t {
  kOpen,                     // `Situation::cover` says what cover it defends (17.2.1)
  kBuildingFromOutside,      // ground floor, attacked from outside: Hard Cover
  kBuildingUpperFromOutside, // on an upper floor, attacked from outside: impossible (17.6)
  kBuildingOtherFloor,       // attacked from an adjacent floor inside: Light Cover
  kBuildingSameFloor,        // same floor: no defensive advantage
  kBunkerEntrance,           // entrance contacted: Hard Cover, never hit in the rear
  kBunkerNoEntrance,         // impossible (17.6)
};

enum class Cover : uint8_t { kNone, kLight, kHard };

enum class Role : uint8_t {
  kAttacker,  // moved into contact (the active player's)
  kDefender,  // the Unit attacked
  kSupport,   // a Unit of the defender's within 4" of it (17.2)
};

enum class LeaderRank : uint8_t { kJunior, kSenior };
enum class LeaderStatus : uint8_t { kActive, kWounded, kStunned, kKilled, kCaptured };

// What the 17.5.2/17.5.3 Storm of Steel Bonus does: its definition was not found (CoC-AMB-9).
enum class StormOfSteel : uint8_t { kNone, kRerollOnes, kRerollMisses };

enum class HitEffect : uint8_t { kNone, kShock, kKill };
enum class LeaderHit : uint8_t { kKilled, kWounded, kStunned };

std::string_view Name(Engagement value);
std::string_view Name(Quality value);
std::string_view Name(Obstacle value);
std::string_view Name(Position value);
std::string_view Name(Cover value);
std::string_view Name(Role value);
std::string_view Name(LeaderRank value);
std::string_view Name(LeaderStatus value);
std::string_view Name(StormOfSteel value);
std::string_view Name(HitEffect value);
std::string_view Name(LeaderHit value);

// The settings a match may override (MatchOptions::values). The readings of the rule text are
// SPEC-NOTES C.6 defaults; the tables are C.7 placeholders ([DEFAULT - NOT FROM RULES]) that a
// match replaces with the real ones, and every event that used a placeholder says so.
struct Options {
  // CoC-AMB-1: the dice an LMG adds when the attacker moved through its arc (17.3 prints +3; the
  // "In action" example adds 1). "lmg_arc_dice", 0..9.
  int lmg_arc_dice = 3;
  // CoC-AMB-2: "remove 1/3 of the dice" leaves floor(2n/3) ("floor_two_thirds") or
  // n - floor(n/3) ("remove_floor_third"). "light_cover_rounding".
  bool light_cover_floor_two_thirds = true;
  // CoC-AMB-3: rounds of drawn Close Combat before both sides retire 6". "max_rounds", 1..9.
  int max_rounds = 2;
  // 17.2, the list missing from the text: what a Unit within 4" of the defender may choose.
  // "supporting_options": a comma list of supporting_fire and none.
  bool support_fire_allowed = true;
  // CoC-AMB-9 placeholder. "storm_of_steel": none | reroll_ones | reroll_misses.
  StormOfSteel storm_of_steel = StormOfSteel::kNone;
  // 13.2.7 placeholder: one d6 per Kill on a Team with a Leader attached; on these faces the
  // Leader is hit, then a d6 picks the effect. "leader_hit_on" (faces, e.g. "6"),
  // "leader_hit_effects" (six of killed|wounded|stunned), "wounded_orders_delta" 0..3.
  std::array<bool, 6> leader_hit_on = {false, false, false, false, false, true};
  std::array<LeaderHit, 6> leader_hit_effects = {LeaderHit::kKilled,  LeaderHit::kKilled,
                                                 LeaderHit::kWounded, LeaderHit::kWounded,
                                                 LeaderHit::kStunned, LeaderHit::kStunned};
  int wounded_orders_delta = 1;
  // Force Morale ("Bad Things Happen") placeholder: a d6 per test; on these faces Force Morale
  // drops by `force_morale_loss`. "force_morale_drop_on" (faces), "force_morale_loss" 0..3.
  std::array<bool, 6> force_morale_drop_on = {true, true, false, false, false, false};
  int force_morale_loss = 1;
  // 17.5.6: one guard per this many prisoners, rounded up. "prisoners_guard_ratio", 1..9.
  int prisoners_guard_ratio = 4;
  // 17.7 placeholder for the firing rules (not found): the effect of each of the 1D6 over-run
  // hits by a d6, for a target in Light Cover. "overrun_hit_effects" (six of none|shock|kill).
  std::array<HitEffect, 6> overrun_hit_effects = {HitEffect::kNone,  HitEffect::kNone,
                                                  HitEffect::kNone,  HitEffect::kShock,
                                                  HitEffect::kShock, HitEffect::kKill};
  friend bool operator==(const Options&, const Options&) = default;
};

// Returns the options `match` asks for, or a RuleError naming the bad value.
Result<Options> ParseOptions(const MatchOptions& match);

// One Team of a Unit: its figures (not counting Leaders), Shock and weapons.
struct Team {
  std::string id;  // Unique in the situation.
  int figures = 0;
  int shock = 0;
  int smgs = 0;  // SMGs and assault rifles among its figures (17.3)
  int lmgs = 0;
  int mmgs = 0;  // MMGs and HMGs
  bool crewed_weapon = false;  // a crewed support weapon (17.5.5, 17.7.1)
  friend bool operator==(const Team&, const Team&) = default;
};

struct Leader {
  std::string id;  // Unique in the situation.
  LeaderRank rank = LeaderRank::kJunior;
  int orders = 2;  // Orders it issues unwounded (a Junior Leader 2)
  LeaderStatus status = LeaderStatus::kActive;
  bool smg = false;  // carries an SMG or assault rifle (17.3 counts the Leaders')
  std::string team;  // the Team it is with ("" the Unit's first): hits on Leaders (13.2.7)
  friend bool operator==(const Leader&, const Leader&) = default;
};

struct Unit {
  std::string id;  // Unique in the situation.
  Seat side = Seat::kSideA;
  Role role = Role::kAttacker;
  std::string name;  // optional label, e.g. "1st Section"
  Quality quality = Quality::kRegular;
  bool aggressive = false;  // 17.5 (a Defeat by One is a Draw), 17.5.2
  bool stubborn = false;    // 17.5 (the same, defending), 17.5.3
  bool broken = false;      // already Broken before the contact
  // A vehicle: never fights in Close Combat (17.1); over-runs (17.7, tracked) and rams (17.8).
  bool vehicle = false;
  bool tracked = false;
  int armour = 0;
  int vehicle_shock = 0;
  std::vector<Team> teams;
  std::vector<Leader> leaders;
  // Attacker: the table-top facts of its approach (17.3).
  int movement_dice = 0;  // D6 of fully visible movement it used to get into contact
  std::vector<std::string> through_arcs;  // defender Teams whose MG arc it moved through
  std::vector<std::string> through_suppressing_fire;  // defender Teams whose Suppressing Fire
  bool hit_in_rear = false;  // this Unit is hit in the rear (17.3; never in a bunker, 17.6)
  // Support: the Firepower dice of Supporting Fire its figures with LOS to the attacker give.
  int support_firepower = 0;
  friend bool operator==(const Unit&, const Unit&) = default;
};

// One contact as both sides entered it.
struct Situation {
  // The place of the contact as the players named it ("" none): the server carries Units from one
  // contact to the next by it (forces that persist). The rules never read it.
  std::string location;
  Engagement engagement = Engagement::kCloseCombat;
  Seat attacker = Seat::kSideA;  // the active player, whose Unit(s) moved into contact
  Obstacle obstacle = Obstacle::kNone;
  Position position = Position::kOpen;
  Cover cover = Cover::kNone;  // kOpen only: the cover the defender defends (17.2.1)
  std::vector<Unit> units;
  std::array<int, 2> force_morale = {0, 0};  // By Seat; 1..11
  friend bool operator==(const Situation&, const Situation&) = default;
};

// Returns nothing when `situation` is consistent (ids unique, values in range, the units its
// engagement needs) and the contact can be fought (17.1, 17.6, 17.7, 17.8), else a RuleError
// naming the rule or the field.
Result<void> ValidateSituation(const Situation& situation);

// Returns the cover the defender defends: from the position (17.6) or the input (17.2.1).
Cover DefendedCover(const Situation& situation);
// Returns true when Close Combat is the active player's option rather than automatic (17.1).
bool Optional(const Situation& situation);

// Derived status (SPEC-NOTES C.1): the Unit's figures count its Leaders not killed or captured.
int Figures(const Unit& unit);       // Teams' figures + Leaders present
int TeamFigures(const Unit& unit);   // Teams' figures only
int Shock(const Unit& unit);         // the Teams' Shock
bool Pinned(const Unit& unit);       // Shock > figures
bool BrokenByShock(const Unit& unit);  // Shock >= 2 x figures (CoC-AMB-11)
bool WipedOut(const Unit& unit);     // no Team figure left
// Orders a Leader issues now: `orders`, less the wounded delta, 0 when stunned, killed or
// captured.
int OrdersNow(const Leader& leader, const Options& options);
// Present: not killed or captured. Active: active or wounded (17.5 "an active Leader").
bool Present(const Leader& leader);
bool Active(const Leader& leader);

}  // namespace melee::engine::coc
