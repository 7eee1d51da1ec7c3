#include "proto/codec/view_preview.h"

#include <utility>

#include "engine/core/dice.h"
#include "proto/codec/asl.h"
#include "proto/codec/coc.h"

namespace melee::proto {

namespace aslpb = melee::asl::v1;

engine::Result<engine::asl::State> AslStateFromView(const aslpb::AslView& view) {
  aslpb::Situation situation;
  *situation.mutable_location() = view.location();
  situation.mutable_location()->set_woods_or_building(false);
  situation.mutable_location()->set_ambusher(view.ambusher());
  situation.mutable_location()->set_melee(view.melee());
  situation.set_attacker(view.attacker());
  for (const aslpb::ViewedUnit& viewed : view.units()) {
    if (viewed.presence() != aslpb::PRESENCE_PRESENT &&
        viewed.presence() != aslpb::PRESENCE_UNSPECIFIED) {
      continue;
    }
    aslpb::Unit unit = viewed.unit();
    unit.set_advanced(false);  // The server already rolled the PAATC (A11.6) and the Ambush.
    if (viewed.hidden()) {
      unit.set_kind(aslpb::UNIT_KIND_SQUAD);
      unit.set_concealed(true);
    }
    *situation.add_units() = std::move(unit);
  }
  auto read = SituationFromProto(situation, "view");
  if (!read) return tl::unexpected(read.error());
  const engine::asl::AslRules rules;
  auto state = rules.NewState({});
  if (!state) return state;
  // Set up and announce nothing: no die is rolled on the way to designation here (no unit has
  // advanced, the Ambush is read from the view), so these dice are never used.
  engine::SplitMix64 bits(1);
  engine::SourceDice dice(bits);
  const engine::Seat attacker = read->attacker;
  const std::pair<engine::Seat, engine::asl::Command> commands[] = {
      {attacker, engine::asl::SetUp{*read}},
      {attacker, engine::asl::Announce{}},
      {engine::Opponent(attacker), engine::asl::Announce{}}};
  for (const auto& [seat, command] : commands) {
    auto events = rules.Decide(*state, seat, command, dice);
    if (!events) return tl::unexpected(events.error());
    for (const engine::asl::Event& event : *events) rules.Apply(*state, event);
  }
  return state;
}

engine::Result<aslpb::OutcomeTable> AslPreviewFromView(const aslpb::AslView& view,
                                                      melee::v1::Seat seat,
                                                      const aslpb::AttackOrder& order) {
  if (view.phase() != aslpb::PHASE_DECLARE) {
    return engine::Reject("A11.12", "attacks are declared at designation, after both "
                                    "announcements: there is nothing to preview now");
  }
  auto side = SideFromProto(seat, "seat");
  if (!side) return tl::unexpected(side.error());
  auto attack = AttackOrderFromProto(order, "attack");
  if (!attack) return tl::unexpected(attack.error());
  auto state = AslStateFromView(view);
  if (!state) return tl::unexpected(state.error());
  auto table = engine::asl::Preview(*state, *side, *attack);
  if (!table) return tl::unexpected(table.error());
  aslpb::OutcomeTable shown = OutcomeTableToProto(*table);
  shown.set_seat(seat);
  *shown.mutable_attack() = order;
  return shown;
}

engine::Result<CocFirstRound> CocFirstRoundFromView(const melee::v1::MatchView& view) {
  if (!view.has_coc() || view.coc().phase() == melee::coc::v1::PHASE_UNSPECIFIED ||
      view.coc().phase() == melee::coc::v1::PHASE_SET_UP) {
    return engine::Reject("", "the contact is not set up yet");
  }
  auto situation = CocSituationFromProto(view.coc().situation(), "view");
  if (!situation) return tl::unexpected(situation.error());
  engine::MatchOptions options;
  options.variant = view.settings().variant();
  for (const auto& [key, value] : view.settings().options()) options.values[key] = value;
  const engine::coc::CocRules rules;
  auto state = rules.NewState(options);
  if (!state) return tl::unexpected(state.error());
  if (situation->engagement != engine::coc::Engagement::kCloseCombat) {
    return engine::Reject("", "an over-run or a ramming has no Combat Dice");
  }
  engine::ScriptedDice no_dice({});
  auto events = rules.Decide(*state, situation->attacker, engine::coc::SetUp{*situation}, no_dice);
  if (!events) return tl::unexpected(events.error());
  for (const engine::coc::Event& event : *events) rules.Apply(*state, event);
  const engine::Seat defender = engine::Opponent(situation->attacker);
  auto preview = engine::coc::PreviewCombat(*state, engine::coc::Declare{},
                                            engine::coc::DefaultDeclaration(*state, defender));
  if (!preview) return tl::unexpected(preview.error());
  return CocFirstRound{std::move(*preview), situation->attacker};
}

}  // namespace melee::proto
