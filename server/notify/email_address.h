#pragma once

// Checks a mail address a seat registers (docs/notifications.md), before anything is stored. Not a
// full RFC 5321/5322 parser: it accepts the plain addresses people have (dot-atom local part,
// domain name), and refuses, naming the problem, anything that could not be one or could smuggle
// a header or a command into a mail (line breaks, control characters, spaces).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace melee::server::notify {

// The longest address accepted (RFC 5321's path limit, less the angle brackets).
inline constexpr size_t kMaxEmailAddressBytes = 254;

// Returns why `address` cannot be a seat's mail address, or nothing when it can: local@domain
// with a local part of at most 64 letters, digits and !#$%&'*+/=?^_`{|}~.- (no dot first, last or
// twice), and a domain name of at least two dot-separated labels (letters, digits, hyphens; no
// hyphen first or last; at most 63 each) whose last one is not all digits.
std::optional<std::string> EmailAddressProblem(std::string_view address);

}  // namespace melee::server::notify
