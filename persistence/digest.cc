#include "persistence/digest.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace melee::persistence {
namespace {

struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
struct MacCtxFree {
  void operator()(EVP_MAC_CTX* ctx) const { EVP_MAC_CTX_free(ctx); }
};

[[noreturn]] void Fail(const char* what) {
  throw std::runtime_error(std::string("OpenSSL: ") + what + " failed");
}

const EVP_MD* Sha256Algorithm() {
  static const EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA2-256", nullptr);
  if (kSha256 == nullptr) Fail("fetching SHA2-256");
  return kSha256;
}

// HmacSha256 remembers its thread's last key up to this size (a seed is 32 bytes).
constexpr std::size_t kKeptKeyBytes = 64;

// A context set up for HMAC-SHA256 once; EVP_MAC_init keys it (HmacSha256 says when).
EVP_MAC_CTX* NewHmacContext() {
  static EVP_MAC* const kHmac = EVP_MAC_fetch(nullptr, OSSL_MAC_NAME_HMAC, nullptr);
  if (kHmac == nullptr) Fail("fetching HMAC");
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(kHmac);
  if (ctx == nullptr) Fail("EVP_MAC_CTX_new");
  char digest[] = "SHA2-256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_construct_end()};
  if (EVP_MAC_CTX_set_params(ctx, params) != 1) Fail("setting HMAC's digest");
  return ctx;
}

}  // namespace

Digest Sha256(std::initializer_list<std::string_view> parts) {
  thread_local const std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex2(ctx.get(), Sha256Algorithm(), nullptr) != 1) {
    Fail("SHA-256 init");
  }
  for (std::string_view part : parts) EVP_DigestUpdate(ctx.get(), part.data(), part.size());
  Digest out{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx.get(), out.data(), &length) != 1) Fail("SHA-256 final");
  return out;
}

Digest HmacSha256(std::string_view key, std::string_view message) {
  thread_local const std::unique_ptr<EVP_MAC_CTX, MacCtxFree> ctx(NewHmacContext());
  // The context keeps the key it was last keyed with (its padded inner and outer hashes).
  // Keying costs about as much as the MAC of a die's message, and a step's dice share one key,
  // so a call with the same key as the last starts again from those hashes instead (a null key
  // to EVP_MAC_init). The last key (the context holds its equivalent anyway) is compared in
  // constant time; a key longer than kKeptKeyBytes is keyed each time.
  thread_local std::array<unsigned char, kKeptKeyBytes> last_key{};
  thread_local std::size_t last_key_size = 0;  // 0: none kept
  const bool same_key = !key.empty() && key.size() == last_key_size &&
                        CRYPTO_memcmp(key.data(), last_key.data(), key.size()) == 0;
  last_key_size = 0;  // until the context is keyed again below
  if (EVP_MAC_init(ctx.get(),
                   same_key ? nullptr : reinterpret_cast<const unsigned char*>(key.data()),
                   same_key ? 0 : key.size(), nullptr) != 1 ||
      EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) != 1) {
    Fail("HMAC-SHA256");
  }
  Digest out{};
  size_t length = 0;
  if (EVP_MAC_final(ctx.get(), out.data(), &length, out.size()) != 1) Fail("HMAC-SHA256 final");
  if (key.size() <= last_key.size()) {
    std::memcpy(last_key.data(), key.data(), key.size());
    last_key_size = key.size();
  }
  return out;
}

}  // namespace melee::persistence
