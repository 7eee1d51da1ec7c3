#pragma once

// SHA-256 and HMAC-SHA256 over OpenSSL, for the hash chain, the seed chain, seals and dice.
//
// OpenSSL 3's one-shot SHA256() and HMAC() look the algorithm up in the provider tables on every
// call, which costs more than hashing a few dozen bytes. These fetch it once per process and keep
// one context per thread, reset for each call. Thread-safe.

#include <array>
#include <initializer_list>
#include <string_view>

namespace melee::persistence {

using Digest = std::array<unsigned char, 32>;

// SHA-256 of the concatenation of `parts`.
Digest Sha256(std::initializer_list<std::string_view> parts);

// SHA-256 of `bytes`.
inline Digest Sha256(std::string_view bytes) { return Sha256({bytes}); }

// HMAC-SHA256 of `message` keyed by `key`.
Digest HmacSha256(std::string_view key, std::string_view message);

}  // namespace melee::persistence
