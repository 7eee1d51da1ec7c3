// fuzz_ruleset: each ruleset's command codec (the logged Command message, read back by its
// host's FromLogged as a replay does) and its Decide and Apply, from states the ruleset reaches
// by playing its example files (examples/<ruleset>/*.json, each with a few dice seeds).
//
// Input layout (tests/fuzz/seeds.cc writes the seeds in it):
//   byte 0        the ruleset: 0 asl, 1 coc, 2 vv (modulo 3)
//   bytes 1-2     the starting state: an index (little-endian, modulo their number) into every
//                 state of every played example of that ruleset
//   byte 3        the dice seed
//   then records  each: a header byte (bit 0: side_b, else side_a; bit 1: the rules default for
//                 a seat the rules wait for, bit 0 choosing which, instead of the bytes), a length
//                 (2 bytes, little-endian) and that many bytes: the ruleset's Command message
//                 (melee.<ruleset>.v1.Command, protobuf)
// A command the rules accept is applied, and the next record starts from the new state.
//
// What must hold, besides no crash: Decide is deterministic (the same state, command and dice
// give the same events, byte for byte as logged); whether a command is refused does not depend on
// the dice; every event logs in a form whose dice read back; every event and view renders for
// every viewer; the rules default of a seat the rules wait for is accepted, and its logged form
// reads back.

#include <array>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/asl/rules.h"
#include "engine/asl/script.h"
#include "engine/coc/rules.h"
#include "engine/core/check.h"
#include "engine/core/dice.h"
#include "engine/vv/rules.h"
#include "melee/v1/match.pb.h"
#include "proto/codec/asl.h"
#include "proto/codec/coc.h"
#include "proto/codec/vv.h"
#include "server/hosts.h"
#include "tests/fuzz/targets.h"

namespace melee::fuzz {
namespace {

using engine::AnyCommand;
using engine::AnyEvent;
using engine::AnyState;
using engine::Seat;

constexpr std::array<const char*, 3> kRulesets = {"asl", "coc", "vv"};
constexpr std::array<uint64_t, 3> kExampleSeeds = {1, 2, 3};

std::string ReadExample(const std::string& relative) {
  std::ifstream file(std::string(MELEE_SOURCE_DIR) + "/examples/" + relative);
  MELEE_CHECK_MSG(file.good(), "the example files are readable (examples/)");
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Every state of every play of `script`, one per dice seed.
template <class Rules, class Script>
void AddPlayed(const Rules& rules, const Script& script, std::vector<AnyState>& states) {
  for (uint64_t seed : kExampleSeeds) {
    engine::SplitMix64 bits(seed);
    engine::SourceDice dice(bits);
    auto played = Play(rules, script, dice);
    // A script written for the dice of its rules example may meet a refusal with others (a
    // choice it answers is not offered): those plays give no states.
    if (!played) continue;
    for (const auto& state : played->states) states.emplace_back(state);
    states.emplace_back(played->final_state);
  }
}

std::vector<AnyState> ReachableStates(size_t ruleset) {
  std::vector<AnyState> states;
  if (ruleset == 0) {
    for (const char* file : {"asl/concealed-11-4.json", "asl/leader-directs-11-141.json",
                             "asl/melee-withdrawal-k4.json", "asl/vehicle-11-622.json"}) {
      auto script = proto::ScriptFromJson(ReadExample(file));
      MELEE_CHECK_MSG(script.has_value(), "the asl examples read");
      AddPlayed(engine::asl::AslRules{}, *script, states);
    }
  } else if (ruleset == 1) {
    auto contact = proto::ContactFromJson(ReadExample("coc/in-action-17.json"));
    MELEE_CHECK_MSG(contact.has_value(), "the coc example reads");
    auto script = proto::CocScriptFromProto(*contact);
    MELEE_CHECK_MSG(script.has_value(), "the coc example is a script");
    AddPlayed(engine::coc::CocRules{}, *script, states);
  } else {
    auto assault = proto::CloseAssaultFromJson(ReadExample("vv/close-assault-15.json"));
    MELEE_CHECK_MSG(assault.has_value(), "the vv example reads");
    auto script = proto::VvScriptFromProto(*assault);
    MELEE_CHECK_MSG(script.has_value(), "the vv example is a script");
    AddPlayed(engine::vv::VvRules{}, *script, states);
    // The example's allocations fit the dice of its rules example; with other dice the rules
    // allocate (AutoAllocation) as for a side that gave none.
    script->allocations = {};
    AddPlayed(engine::vv::VvRules{}, *script, states);
  }
  MELEE_CHECK_MSG(!states.empty(), "the examples of every ruleset play");
  return states;
}

const std::vector<AnyState>& StatesOf(size_t ruleset) {
  static const std::array<std::vector<AnyState>, 3> states = {
      ReachableStates(0), ReachableStates(1), ReachableStates(2)};
  return states[ruleset];
}

// What one Decide gave: the error's words, or each event as the log keeps it.
struct Decided {
  bool accepted = false;
  std::string error;
  std::vector<AnyEvent> events;
  std::vector<std::string> logged;
};

Decided DecideOnce(const server::RulesetHost& host, const AnyState& state, Seat seat,
                   const AnyCommand& command, uint64_t seed) {
  engine::SplitMix64 bits(seed);
  engine::SourceDice dice(bits);
  auto events = host.ruleset().Decide(state, seat, command, dice);
  Decided decided;
  if (!events) {
    decided.error = engine::Describe(events.error());
    return decided;
  }
  decided.accepted = true;
  decided.events = std::move(*events);
  AnyState at = state;
  for (const AnyEvent& event : decided.events) {
    decided.logged.push_back(host.LogEvent(at, event));
    host.ruleset().Apply(at, event);
  }
  return decided;
}

constexpr std::array<engine::Viewer, 4> kViewers = {engine::Viewer::kSideA, engine::Viewer::kSideB,
                                                    engine::Viewer::kDirector,
                                                    engine::Viewer::kSpectator};

// Applies `decided` to `state`, rendering every event and the views after them for every viewer
// and checking that each logged event's dice read back.
void ApplyAndRender(const server::RulesetHost& host, const Decided& decided, AnyState& state) {
  for (size_t i = 0; i < decided.events.size(); ++i) {
    MELEE_CHECK_MSG(host.DiceOfLogged(decided.logged[i]).has_value(),
                    "the dice of a logged event read back");
    host.ruleset().Apply(state, decided.events[i]);
    for (engine::Viewer viewer : kViewers) {
      melee::v1::MatchEvent rendered;
      host.RenderEvent(decided.logged[i], state, decided.events[i], viewer, rendered);
    }
  }
  for (engine::Viewer viewer : kViewers) {
    melee::v1::MatchView view;
    host.RenderView(state, viewer, view);
  }
  (void)host.Ended(state);
  (void)host.WaitingFor(state);
}

const server::RulesetHost& HostOf(size_t ruleset) {
  static const server::HostLookup hosts = server::BuiltinHosts();
  const server::RulesetHost* host = hosts(kRulesets[ruleset]);
  MELEE_CHECK(host != nullptr);
  return *host;
}

}  // namespace

size_t RulesetStates(size_t ruleset) { return StatesOf(ruleset).size(); }

std::vector<std::pair<int, std::string>> RulesetDefaults(size_t ruleset, size_t state) {
  const server::RulesetHost& host = HostOf(ruleset);
  const AnyState& at = StatesOf(ruleset).at(state);
  std::vector<std::pair<int, std::string>> defaults;
  if (host.Ended(at)) return defaults;
  for (Seat seat : host.AwaitingOf(at).seats) {
    defaults.emplace_back(seat == Seat::kSideB ? 1 : 0, host.DefaultAction(at, seat).logged);
  }
  return defaults;
}

Reached FuzzRuleset(std::string_view input) {
  Reached reached;
  if (input.size() < 4) return reached;
  const size_t ruleset = static_cast<uint8_t>(input[0]) % kRulesets.size();
  const server::RulesetHost* host = &HostOf(ruleset);
  const std::vector<AnyState>& states = StatesOf(ruleset);
  const size_t index =
      (static_cast<uint8_t>(input[1]) | (static_cast<uint8_t>(input[2]) << 8)) % states.size();
  uint64_t seed = static_cast<uint8_t>(input[3]);
  input.remove_prefix(4);
  AnyState state = states[index];

  while (input.size() >= 3) {
    const auto header = static_cast<uint8_t>(input[0]);
    const size_t length = static_cast<uint8_t>(input[1]) | (static_cast<uint8_t>(input[2]) << 8);
    input.remove_prefix(3);
    const std::string_view bytes = input.substr(0, length);
    input.remove_prefix(bytes.size());
    ++seed;

    Seat seat = (header & 1) != 0 ? Seat::kSideB : Seat::kSideA;
    AnyCommand command;
    const bool rules_default = (header & 2) != 0;
    if (rules_default) {
      const server::Awaiting owed = host->AwaitingOf(state);
      if (host->Ended(state) || owed.seats.empty()) continue;
      seat = owed.seats[(header & 1) % owed.seats.size()];
      server::DecodedCommand taken = host->DefaultAction(state, seat);
      MELEE_CHECK_MSG(host->FromLogged(taken.logged).has_value(),
                      "the logged form of a rules default reads back");
      command = std::move(taken.command);
    } else {
      auto decoded = host->FromLogged(bytes);
      if (!decoded) continue;
      command = std::move(*decoded);
    }
    ++reached.parsed;

    const Decided first = DecideOnce(*host, state, seat, command, seed);
    const Decided again = DecideOnce(*host, state, seat, command, seed);
    MELEE_CHECK_MSG(first.accepted == again.accepted && first.error == again.error &&
                        first.logged == again.logged,
                    "Decide is deterministic: the same input gives the same events");
    const Decided other_dice = DecideOnce(*host, state, seat, command, seed + 0x9E3779B9);
    MELEE_CHECK_MSG(first.accepted == other_dice.accepted && first.error == other_dice.error,
                    "whether a command is refused does not depend on the dice");
    if (rules_default) {
      MELEE_CHECK_MSG(first.accepted, "the rules default of a seat the rules wait for is legal");
    }
    if (!first.accepted) continue;
    ++reached.accepted;
    ApplyAndRender(*host, first, state);
  }
  return reached;
}

}  // namespace melee::fuzz
