#pragma once

// Always-on checks for bugs (broken preconditions and invariants inside Melee's own code).
//
// Error taxonomy: untrusted input (a player's command, a stored log, match options) never
// reaches these macros; it is answered with a `Result<T>` carrying a `RuleError`. A failed check
// means the program itself is wrong, so it reports one line on standard error and aborts, in
// release builds too (the macros do not depend on NDEBUG).
//
// check.cc is the only engine file allowed to do I/O (the purity test enforces this), and the
// only I/O it does is that one line on standard error.

namespace melee::engine {

// Writes "melee check failed: <expr> (<msg>) at <file>:<line>" to standard error and aborts.
// `msg` may be empty; all pointers must be non-null. Call it through the macros below.
[[noreturn]] void CheckFailed(const char* expr, const char* msg, const char* file, int line);

}  // namespace melee::engine

// Aborts with a report naming `cond` when `cond` is false. Always on.
#define MELEE_CHECK(cond)                       \
  (__builtin_expect(static_cast<bool>(cond), 1) \
       ? static_cast<void>(0)                   \
       : ::melee::engine::CheckFailed(#cond, "", __FILE__, __LINE__))

// Aborts with a report naming `cond` and the C string `msg` when `cond` is false. Always on.
#define MELEE_CHECK_MSG(cond, msg)              \
  (__builtin_expect(static_cast<bool>(cond), 1) \
       ? static_cast<void>(0)                   \
       : ::melee::engine::CheckFailed(#cond, (msg), __FILE__, __LINE__))
