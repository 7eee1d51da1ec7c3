#pragma once

#include <any>
#include <concepts>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/core/check.h"
#include "engine/core/dice.h"
#include "engine/core/result.h"

namespace melee::engine {

// The two sides of a match.
enum class Seat : uint8_t { kSideA, kSideB };

// Who looks at a match: a side, the tournament director (sees everything), or a spectator (sees
// only what is public).
enum class Viewer : uint8_t { kSideA, kSideB, kDirector, kSpectator };

// Returns the other side.
Seat Opponent(Seat seat);
// Returns the viewer that plays `seat`.
Viewer ViewerOf(Seat seat);
// Returns "side_a" or "side_b".
std::string_view Name(Seat seat);
// Returns "side_a", "side_b", "director" or "spectator".
std::string_view Name(Viewer viewer);

// The options a match is created with: a ruleset variant (e.g. V&V "board" or "pc") and named
// values that settle the gaps rules/SPEC-NOTES.md lists. A sorted map, so iteration is
// deterministic. Untrusted: NewState validates it.
struct MatchOptions {
  std::string variant;
  std::map<std::string, std::string> values;
};

namespace internal {

// The common base of every Erased<Tag>, so that no erased value is ever wrapped inside another.
struct ErasedBase {};

// A copyable value of any copy-constructible type, tagged so that a state cannot be passed where an
// event is expected. The base of AnyState, AnyCommand, AnyEvent and AnyView.
template <class Tag>
class Erased : public ErasedBase {
 public:
  // Creates an empty value.
  Erased() = default;
  // Wraps `value` (copied or moved in). T must be copy-constructible.
  template <class T>
  requires(!std::is_base_of_v<ErasedBase, std::remove_cvref_t<T>> &&
           std::copy_constructible<std::remove_cvref_t<T>>)
      Erased(T&& value)  // NOLINT(google-explicit-constructor): wrapping is the point.
      : value_(std::forward<T>(value)) {}

  // Returns the wrapped T, or nullptr when empty or holding another type.
  template <class T>
  const T* As() const {
    return std::any_cast<T>(&value_);
  }

  // Returns true unless empty.
  bool has_value() const { return value_.has_value(); }

 protected:
  std::any value_;
};

}  // namespace internal

// A match state of some ruleset, type-erased so the server can hold any ruleset's state.
// A value: copying it copies the state. Thread-compatible.
class AnyState final : public internal::Erased<AnyState> {
 public:
  using Erased::As;
  using Erased::Erased;

  // Returns the wrapped T for modification, or nullptr when empty or holding another type.
  template <class T>
  T* As() {
    return std::any_cast<T>(&value_);
  }
};

// A command of some ruleset (decoded from a client message). Thread-compatible.
class AnyCommand final : public internal::Erased<AnyCommand> {
 public:
  using Erased::Erased;
};

// An event of some ruleset: one entry of the match log. Thread-compatible.
class AnyEvent final : public internal::Erased<AnyEvent> {
 public:
  using Erased::Erased;
};

// What one viewer may see of a match state. Thread-compatible.
class AnyView final : public internal::Erased<AnyView> {
 public:
  using Erased::Erased;
};

// One rule system (ASL A11, Chain of Command 17, V&V 15), event-sourced:
//
//   NewState(options)                       -> the state before any event
//   Decide(state, seat, command, dice)      -> the events the command causes, or a RuleError
//   Apply(state, event)                     -> folds one event into the state
//   View(state, viewer)                     -> what that viewer may see
//
// The state is always Fold(NewState(options), events): replay folds the log, and an audit re-runs
// the logged commands with the logged dice and checks that the events come out equal.
//
// Immutable after construction; every method is const and pure, so one instance is safe to share
// between threads (each call gets its own state and dice).
class Ruleset {
 public:
  virtual ~Ruleset() = default;
  Ruleset(const Ruleset&) = delete;
  Ruleset& operator=(const Ruleset&) = delete;

  // Returns the ruleset id ("asl", "coc", "vv"), stored with every match.
  virtual std::string_view id() const = 0;
  // Returns the rules version, stored with every match; a replay uses the same version.
  virtual std::string_view version() const = 0;
  // Returns the variants this ruleset accepts in MatchOptions::variant (views of static strings).
  virtual std::vector<std::string_view> variants() const = 0;

  // Returns the initial state for `options`, or a RuleError when the options are invalid.
  virtual Result<AnyState> NewState(const MatchOptions& options) const = 0;

  // Returns the events that `command` from `seat` causes in `state`, or the RuleError that
  // forbids it. Pure and deterministic: the same state, seat, command and dice values give the
  // same events. Every die rolled on `dice` must be recorded inside the returned events (which
  // die, why, what result), so that the log alone replays and audits the match. A rejected
  // command must not depend on dice. Requires `state` to be this ruleset's state (a bug
  // otherwise); a command of another ruleset is untrusted input and is rejected.
  virtual Result<std::vector<AnyEvent>> Decide(const AnyState& state, Seat seat,
                                               const AnyCommand& command, Dice& dice) const = 0;

  // Folds one event into `state`. Never fails for an event Decide produced from this state.
  // Requires `state` and `event` to be this ruleset's types.
  virtual void Apply(AnyState& state, const AnyEvent& event) const = 0;

  // Returns what `viewer` may see of `state`. Pure. Hidden information (sealed declarations,
  // concealed units) appears only in the view of the viewer entitled to it.
  virtual AnyView View(const AnyState& state, Viewer viewer) const = 0;

 protected:
  Ruleset() = default;
};

// Returns `initial` with every event of `events` applied in order.
AnyState Fold(const Ruleset& ruleset, AnyState initial, std::span<const AnyEvent> events);

// The requirements on a plain rules struct adapted by TypedRuleset.
template <class R>
concept RulesDefinition = std::copy_constructible<typename R::State> &&
    std::copy_constructible<typename R::Command> && std::copy_constructible<typename R::Event> &&
    std::copy_constructible<typename R::View> &&
    requires(const R& rules, const typename R::State& state, typename R::State& mutable_state,
             Seat seat, const typename R::Command& command, const typename R::Event& event,
             Dice& dice, const MatchOptions& options, Viewer viewer) {
  { R::kId } -> std::convertible_to<std::string_view>;
  { R::kVersion } -> std::convertible_to<std::string_view>;
  { rules.Variants() } -> std::same_as<std::vector<std::string_view>>;
  { rules.NewState(options) } -> std::same_as<Result<typename R::State>>;
  {
    rules.Decide(state, seat, command, dice)
    } -> std::same_as<Result<std::vector<typename R::Event>>>;
  { rules.Apply(mutable_state, event) } -> std::same_as<void>;
  { rules.MakeView(state, viewer) } -> std::same_as<typename R::View>;
};

// Adapts a plain struct of typed rules to the type-erased Ruleset the server holds. `Rules`
// defines State, Command, Event and View types, `static constexpr std::string_view kId, kVersion`
// and the const methods Variants, NewState, Decide, Apply and MakeView (see RulesDefinition).
// Immutable; thread-safe to share when Rules' const methods are (they must be pure).
template <class Rules>
requires RulesDefinition<Rules>
class TypedRuleset final : public Ruleset {
 public:
  using State = typename Rules::State;
  using Command = typename Rules::Command;
  using Event = typename Rules::Event;
  using ViewType = typename Rules::View;

  explicit TypedRuleset(Rules rules = Rules{}) : rules_(std::move(rules)) {}

  // Returns the adapted rules.
  const Rules& rules() const { return rules_; }

  std::string_view id() const override { return Rules::kId; }
  std::string_view version() const override { return Rules::kVersion; }
  std::vector<std::string_view> variants() const override { return rules_.Variants(); }

  Result<AnyState> NewState(const MatchOptions& options) const override {
    Result<State> state = rules_.NewState(options);
    if (!state) return tl::unexpected<RuleError>(std::move(state).error());
    return AnyState(std::move(*state));
  }

  Result<std::vector<AnyEvent>> Decide(const AnyState& state, Seat seat, const AnyCommand& command,
                                       Dice& dice) const override {
    const State& typed_state = StateOf(state);
    const Command* typed_command = command.As<Command>();
    if (typed_command == nullptr) {
      return Reject("", "command is not a " + std::string(Rules::kId) + " command");
    }
    Result<std::vector<Event>> events = rules_.Decide(typed_state, seat, *typed_command, dice);
    if (!events) return tl::unexpected<RuleError>(std::move(events).error());
    std::vector<AnyEvent> erased;
    erased.reserve(events->size());
    for (Event& event : *events) erased.emplace_back(std::move(event));
    return erased;
  }

  void Apply(AnyState& state, const AnyEvent& event) const override {
    State* typed_state = state.As<State>();
    MELEE_CHECK_MSG(typed_state != nullptr, "state does not belong to this ruleset");
    const Event* typed_event = event.As<Event>();
    MELEE_CHECK_MSG(typed_event != nullptr, "event does not belong to this ruleset");
    rules_.Apply(*typed_state, *typed_event);
  }

  AnyView View(const AnyState& state, Viewer viewer) const override {
    return AnyView(rules_.MakeView(StateOf(state), viewer));
  }

 private:
  static const State& StateOf(const AnyState& state) {
    const State* typed_state = state.As<State>();
    MELEE_CHECK_MSG(typed_state != nullptr, "state does not belong to this ruleset");
    return *typed_state;
  }

  Rules rules_;
};

}  // namespace melee::engine
