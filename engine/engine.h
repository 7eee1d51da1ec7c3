#pragma once

// The Melee rules engine: pure, deterministic, event-sourced rulesets with injected dice.
// Links only the standard library and tl::expected; no I/O, clocks, threads or global state.

#include "engine/core/check.h"     // IWYU pragma: export
#include "engine/core/dice.h"      // IWYU pragma: export
#include "engine/core/rational.h"  // IWYU pragma: export
#include "engine/core/registry.h"  // IWYU pragma: export
#include "engine/core/result.h"    // IWYU pragma: export
#include "engine/core/ruleset.h"   // IWYU pragma: export
