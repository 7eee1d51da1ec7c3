#include "persistence/digest.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

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

// A context keyed for HMAC-SHA256 once; EVP_MAC_init re-keys it for each call.
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
  if (EVP_MAC_init(ctx.get(), reinterpret_cast<const unsigned char*>(key.data()), key.size(),
                   nullptr) != 1 ||
      EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) != 1) {
    Fail("HMAC-SHA256");
  }
  Digest out{};
  size_t length = 0;
  if (EVP_MAC_final(ctx.get(), out.data(), &length, out.size()) != 1) Fail("HMAC-SHA256 final");
  return out;
}

}  // namespace melee::persistence
