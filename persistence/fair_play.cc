#include "persistence/fair_play.h"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "persistence/digest.h"

namespace melee::persistence {
namespace {

constexpr uint32_t kRejectFrom = 4294967292u;  // 2^32 - (2^32 mod 6)
constexpr size_t kDiceSecretBytes = 32;

struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;
struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using Bio = std::unique_ptr<BIO, BioFree>;

StoreError Failure(std::string message) {
  return StoreError{.code = StoreErrorCode::kUnavailable, .message = std::move(message), .seq = 0};
}

Hash Hmac(std::string_view key, std::string_view message) { return HmacSha256(key, message); }

std::string_view AsView(const Hash& hash) {
  return {reinterpret_cast<const char*>(hash.data()), hash.size()};
}

// Writes `bytes` to `path` readable by the owner only; fails if the file exists.
StoreResult<void> WriteSecretFile(const std::filesystem::path& path, std::string_view bytes) {
  const std::filesystem::path temp = path.string() + ".new";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return tl::unexpected(Failure("cannot create " + temp.string() + ": " + std::strerror(errno)));
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string reason = std::strerror(errno);
      ::close(fd);
      return tl::unexpected(Failure("cannot write " + temp.string() + ": " + reason));
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    return tl::unexpected(Failure("cannot sync " + temp.string() + ": " + std::strerror(errno)));
  }
  std::error_code error;
  std::filesystem::rename(temp, path, error);
  if (error)
    return tl::unexpected(Failure("cannot rename " + temp.string() + ": " + error.message()));
  return {};
}

StoreResult<std::string> ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return tl::unexpected(Failure("cannot read " + path.string()));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string RawPublicKey(EVP_PKEY* key) {
  std::string raw(32, '\0');
  size_t length = raw.size();
  if (EVP_PKEY_get_raw_public_key(key, reinterpret_cast<unsigned char*>(raw.data()), &length) !=
          1 ||
      length != 32) {
    throw std::runtime_error("cannot read the Ed25519 public key");
  }
  return raw;
}

}  // namespace

Seed PreviousSeed(const Seed& seed) { return Sha256(AsView(seed)); }

SeedChain::SeedChain(const Seed& top, uint64_t length) : length_(length) {
  // Walk down from s_N once, keeping s_0, s_64, ... (and s_N itself, last).
  checkpoints_.assign(length / kEvery + 2, Seed{});
  Seed seed = top;
  for (uint64_t step = length;; --step) {
    if (step % kEvery == 0) checkpoints_[step / kEvery] = seed;
    if (step == 0) break;
    seed = PreviousSeed(seed);
  }
  checkpoints_.back() = top;
}

Seed SeedChain::Kept(uint64_t v) const {
  if (v == length_) return checkpoints_.back();
  if (v % kEvery == 0) return checkpoints_[v / kEvery];
  return sub_[(v % kEvery) / kRun];  // v is in block_
}

Seed SeedChain::At(uint64_t step) const {
  if (step > length_) throw std::out_of_range("seed chain: step beyond its length");
  if (step == length_) return checkpoints_.back();
  if (step % kEvery == 0) return checkpoints_[step / kEvery];
  const std::lock_guard lock(mutex_);
  const uint64_t block = step / kEvery;
  const uint64_t block_base = block * kEvery;
  if (block_ != block) {
    // Walk down from the checkpoint above (or s_N) to the block's base, keeping every 16th.
    uint64_t v = std::min(block_base + kEvery, length_);
    Seed seed = v == length_ ? checkpoints_.back() : checkpoints_[v / kEvery];
    for (; v > block_base; --v) {
      if ((v - block_base) % kRun == 0 && v < block_base + kEvery) {
        sub_[(v - block_base) / kRun] = seed;
      }
      seed = PreviousSeed(seed);
    }
    sub_[0] = checkpoints_[block];
    block_ = block;
    run_ = kNone;
  }
  const uint64_t run = step / kRun;
  const uint64_t run_base = run * kRun;
  if (run_ != run) {
    // Walk down from the sub-checkpoint above (or checkpoint, or s_N) to the run's base.
    uint64_t v = std::min(run_base + kRun, length_);
    Seed seed = Kept(v);
    run_seeds_[0] = Kept(run_base);
    for (; v > run_base + 1; --v) {
      seed = PreviousSeed(seed);
      run_seeds_[v - 1 - run_base] = seed;
    }
    run_ = run;
  }
  return run_seeds_[step - run_base];
}

std::string DieMessage(std::string_view match_id, uint64_t step, uint64_t draw,
                       std::string_view entropy_a, std::string_view entropy_b) {
  std::string message = "melee/v1/die|";
  message += match_id;
  message += '|' + std::to_string(step) + '|' + std::to_string(draw) + '|';
  message += BytesToHex(entropy_a);
  message += '|';
  message += BytesToHex(entropy_b);
  return message;
}

int DieOfDraw(const Seed& seed, std::string_view message) {
  const Hash mac = Hmac(AsView(seed), message);
  const uint32_t x = (uint32_t{mac[0]} << 24) | (uint32_t{mac[1]} << 16) | (uint32_t{mac[2]} << 8) |
                     uint32_t{mac[3]};
  return x < kRejectFrom ? static_cast<int>(x % 6) + 1 : 0;
}

CommittedDice::CommittedDice(const Seed& seed, std::string_view match_id, uint64_t step,
                             std::string_view entropy_a, std::string_view entropy_b)
    : seed_(seed), step_(step) {
  InitMessage(match_id, entropy_a, entropy_b);
}

CommittedDice::CommittedDice(const SeedChain& chain, std::string_view match_id, uint64_t step,
                             std::string_view entropy_a, std::string_view entropy_b)
    : chain_(&chain),
      step_(step),
      unformatted_(
          Unformatted{.match_id = match_id, .entropy_a = entropy_a, .entropy_b = entropy_b}) {}

void CommittedDice::InitMessage(std::string_view match_id, std::string_view entropy_a,
                                std::string_view entropy_b) {
  // Cut from DieMessage's own text for draw 0, so the two cannot drift apart: the head is
  // everything before the draw's "0", the tail everything after it.
  const std::string whole = DieMessage(match_id, step_, 0, entropy_a, entropy_b);
  const size_t head = std::string_view("melee/v1/die|").size() + match_id.size() + 1 +
                      std::to_string(step_).size() + 1;
  message_head_ = whole.substr(0, head);
  message_tail_ = whole.substr(head + 1);  // after the draw's "0"
  message_.reserve(whole.size() + 20);
}

const Seed& CommittedDice::seed() {
  if (chain_ != nullptr) {
    seed_ = chain_->At(std::min(step_, chain_->length()));
    chain_ = nullptr;
  }
  return seed_;
}

int CommittedDice::NextD6() {
  seed();
  if (unformatted_) {
    InitMessage(unformatted_->match_id, unformatted_->entropy_a, unformatted_->entropy_b);
    unformatted_.reset();
  }
  for (;;) {
    char number[20];
    const auto [end, ec] = std::to_chars(std::begin(number), std::end(number), draws_++);
    message_.assign(message_head_);
    message_.append(number, end);
    message_.append(message_tail_);
    const int die = DieOfDraw(seed_, message_);
    if (die != 0) return die;
  }
}

// ---- the server's secrets ---------------------------------------------------------------------

// The signing key twice: OpenSSL's, which reads and writes the key file, and libsodium's, which
// signs (its Ed25519 is 2.4x as fast as OpenSSL 3.0's; Ed25519 signatures are deterministic
// (RFC 8032), so both give the same bytes).
struct ServerSecrets::Key {
  explicit Key(Pkey openssl_key) : pkey(std::move(openssl_key)) {
    if (sodium_init() < 0) throw std::runtime_error("libsodium cannot start");
    std::array<unsigned char, crypto_sign_SEEDBYTES> seed{};
    size_t length = seed.size();
    std::array<unsigned char, crypto_sign_PUBLICKEYBYTES> public_key{};
    const bool made = EVP_PKEY_get_raw_private_key(pkey.get(), seed.data(), &length) == 1 &&
                      length == seed.size() &&
                      crypto_sign_seed_keypair(public_key.data(), secret.data(), seed.data()) == 0;
    sodium_memzero(seed.data(), seed.size());
    if (!made ||
        RawPublicKey(pkey.get()) !=
            std::string_view(reinterpret_cast<const char*>(public_key.data()), public_key.size())) {
      throw std::runtime_error("cannot read the Ed25519 private key for signing");
    }
  }
  ~Key() { sodium_memzero(secret.data(), secret.size()); }
  Key(const Key&) = delete;
  Key& operator=(const Key&) = delete;

  Pkey pkey;
  std::array<unsigned char, crypto_sign_SECRETKEYBYTES> secret{};  // libsodium's: seed, public key
};

ServerSecrets::ServerSecrets(std::unique_ptr<Key> key, std::string dice_secret)
    : key_(std::move(key)),
      public_key_(RawPublicKey(key_->pkey.get())),
      dice_secret_(std::move(dice_secret)) {}

ServerSecrets::~ServerSecrets() = default;

namespace {

Pkey NewEd25519() {
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr);
  if (ctx == nullptr || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_keygen(ctx, &key) != 1) {
    EVP_PKEY_CTX_free(ctx);
    throw std::runtime_error("cannot create an Ed25519 key");
  }
  EVP_PKEY_CTX_free(ctx);
  return Pkey(key);
}

}  // namespace

StoreResult<std::shared_ptr<const ServerSecrets>> ServerSecrets::LoadOrCreate(
    const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error)
    return tl::unexpected(Failure("cannot create " + dir.string() + ": " + error.message()));
  const std::filesystem::path key_path = dir / "server-key.pem";
  const std::filesystem::path dice_path = dir / "dice-secret";
  try {
    Pkey pkey;
    if (std::filesystem::exists(key_path)) {
      auto pem = ReadFile(key_path);
      if (!pem) return tl::unexpected(pem.error());
      Bio bio(BIO_new_mem_buf(pem->data(), static_cast<int>(pem->size())));
      pkey.reset(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
      if (!pkey || EVP_PKEY_get_id(pkey.get()) != EVP_PKEY_ED25519) {
        return tl::unexpected(
            Failure(key_path.string() + " is not an Ed25519 private key in PEM (PKCS#8)"));
      }
    } else {
      pkey = NewEd25519();
      Bio bio(BIO_new(BIO_s_mem()));
      if (PEM_write_bio_PrivateKey(bio.get(), pkey.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
          1) {
        return tl::unexpected(Failure("cannot encode the new server key"));
      }
      char* data = nullptr;
      const long size = BIO_get_mem_data(bio.get(), &data);
      auto written = WriteSecretFile(key_path, std::string_view(data, static_cast<size_t>(size)));
      if (!written) return tl::unexpected(written.error());
    }
    std::string dice_secret;
    if (std::filesystem::exists(dice_path)) {
      auto bytes = ReadFile(dice_path);
      if (!bytes) return tl::unexpected(bytes.error());
      if (bytes->size() != kDiceSecretBytes) {
        return tl::unexpected(Failure(dice_path.string() + " must hold exactly 32 bytes; it has " +
                                      std::to_string(bytes->size())));
      }
      dice_secret = std::move(*bytes);
    } else {
      dice_secret = RandomBytes(kDiceSecretBytes);
      auto written = WriteSecretFile(dice_path, dice_secret);
      if (!written) return tl::unexpected(written.error());
    }
    auto key = std::make_unique<Key>(std::move(pkey));
    return std::shared_ptr<const ServerSecrets>(
        new ServerSecrets(std::move(key), std::move(dice_secret)));
  } catch (const std::exception& e) {
    return tl::unexpected(Failure(e.what()));
  }
}

std::shared_ptr<const ServerSecrets> ServerSecrets::Ephemeral() {
  auto key = std::make_unique<Key>(NewEd25519());
  return std::shared_ptr<const ServerSecrets>(
      new ServerSecrets(std::move(key), RandomBytes(kDiceSecretBytes)));
}

std::string ServerSecrets::Sign(std::string_view message) const {
  std::string signature(crypto_sign_BYTES, '\0');
  if (crypto_sign_detached(reinterpret_cast<unsigned char*>(signature.data()), nullptr,
                           reinterpret_cast<const unsigned char*>(message.data()), message.size(),
                           key_->secret.data()) != 0) {
    throw std::runtime_error("Ed25519 signing failed");
  }
  return signature;
}

Seed ServerSecrets::TopSeed(std::string_view match_id) const {
  return Hmac(dice_secret_, "melee/v1/dice-seed|" + std::string(match_id));
}

bool VerifySignature(std::string_view public_key, std::string_view message,
                     std::string_view signature) {
  if (public_key.size() != 32 || signature.size() != 64) return false;
  Pkey key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                       reinterpret_cast<const unsigned char*>(public_key.data()),
                                       public_key.size()));
  MdCtx ctx(EVP_MD_CTX_new());
  if (!key || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1) {
    return false;
  }
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                          signature.size(), reinterpret_cast<const unsigned char*>(message.data()),
                          message.size()) == 1;
}

namespace {

void FillRandom(unsigned char* out, size_t count) {
  if (RAND_bytes(out, static_cast<int>(count)) != 1) throw std::runtime_error("RAND_bytes failed");
}

// A thread's bytes drawn ahead from RAND_bytes. A call of RAND_bytes costs ~1.5 us whatever the
// size up to a few KiB (the DRBG's checks and locking, not the AES), and the server asks for a
// salt or a nonce of 32 bytes on nearly every command. Each byte is handed out once and wiped
// from the pool as it goes.
class RandomPool {
 public:
  static constexpr size_t kBytes = 4096;

  void Take(unsigned char* out, size_t count) {
    while (count > 0) {
      if (next_ == kBytes) {
        FillRandom(bytes_.data(), kBytes);
        next_ = 0;
      }
      const size_t n = std::min(count, kBytes - next_);
      std::memcpy(out, bytes_.data() + next_, n);
      OPENSSL_cleanse(bytes_.data() + next_, n);
      next_ += n;
      out += n;
      count -= n;
    }
  }

  ~RandomPool() { OPENSSL_cleanse(bytes_.data(), kBytes); }

 private:
  std::array<unsigned char, kBytes> bytes_{};
  size_t next_ = kBytes;  // empty: filled on the first draw
};

}  // namespace

std::string RandomBytes(size_t count) {
  std::string bytes(count, '\0');
  auto* out = reinterpret_cast<unsigned char*>(bytes.data());
  if (count > RandomPool::kBytes / 8) {
    FillRandom(out, count);
  } else {
    thread_local RandomPool pool;
    pool.Take(out, count);
  }
  return bytes;
}

Hash SealCommitment(std::string_view nonce, std::string_view sealed) {
  static constexpr std::string_view kTag = "melee/v2/seal|";
  return Sha256({kTag, nonce, sealed});
}

std::string HeadMessage(std::string_view match_id, uint64_t seq, const Hash& hash) {
  return "melee/v1/head|" + std::string(match_id) + "|" + std::to_string(seq) + "|" + ToHex(hash);
}

std::string PublicKeyPem(std::string_view public_key) {
  Pkey key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                       reinterpret_cast<const unsigned char*>(public_key.data()),
                                       public_key.size()));
  Bio bio(BIO_new(BIO_s_mem()));
  if (!key || !bio || PEM_write_bio_PUBKEY(bio.get(), key.get()) != 1) return {};
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

std::string BytesToHex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 15]);
  }
  return out;
}

std::string KeyFingerprint(std::string_view public_key) {
  return ToHex(Sha256(public_key)).substr(0, 16);
}

}  // namespace melee::persistence
