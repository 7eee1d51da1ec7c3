#include "server/matches.h"

#include <boost/asio/post.hpp>
#include <openssl/rand.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "persistence/digest.h"
#include "proto/codec/checks.h"
#include "proto/codec/errors.h"
#include "proto/codec/frame.h"
#include "server/match_file.h"
#include "server/metrics.h"
#include "server/pace.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;

constexpr size_t kMaxTitleBytes = 200;
constexpr size_t kMaxTournamentBytes = 64;
constexpr size_t kMaxOptions = 16;
constexpr size_t kMaxRememberedCreates = 1024;

// `bytes` random bytes from OpenSSL's CSPRNG, as lowercase hex.
std::string RandomHex(size_t bytes) {
  std::vector<unsigned char> buffer(bytes);
  if (RAND_bytes(buffer.data(), static_cast<int>(buffer.size())) != 1) {
    spdlog::critical("RAND_bytes failed; cannot create tokens");
    std::abort();
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char byte : buffer) {
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 15]);
  }
  return out;
}

// "asl, coc, vv".
std::string Listed(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

v1::ServerMessage Refusal(v1::ErrorCode code, std::string message, const std::string& command_id,
                          std::string rule_ref = {}) {
  v1::ServerMessage reply;
  reply.set_command_id(command_id);
  *reply.mutable_error() = proto::MakeError(code, std::move(message), command_id);
  reply.mutable_error()->set_rule_ref(std::move(rule_ref));
  return reply;
}

// A player's display name: 0..64 bytes (UTF-8: protobuf refuses a proto3 string that is not)
// without control characters (C0, DEL, C1) and without leading or trailing spaces, so that it
// prints on one line in reports and CSV files.
engine::Result<void> CheckDisplayName(const std::string& name, const std::string& field) {
  constexpr size_t kMaxNameBytes = 64;
  if (name.size() > kMaxNameBytes) {
    return engine::Reject("", field + ": at most " + std::to_string(kMaxNameBytes) + " bytes");
  }
  if (!name.empty() && (name.front() == ' ' || name.back() == ' ')) {
    return engine::Reject("", field + ": no leading or trailing spaces");
  }
  for (size_t i = 0; i < name.size(); ++i) {
    const auto byte = static_cast<unsigned char>(name[i]);
    // C1 controls (U+0080..U+009F) are UTF-8 0xC2 0x80..0x9F.
    const bool c1 = byte == 0xC2 && i + 1 < name.size() &&
                    static_cast<unsigned char>(name[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(name[i + 1]) <= 0x9F;
    if (byte < 0x20 || byte == 0x7F || c1) {
      return engine::Reject("", field + ": control characters are not allowed (byte " +
                                    std::to_string(i) + ")");
    }
  }
  return {};
}

// Whether `id` has the shape of a match id ("m" and 20 hex digits): on a shared store, an id
// this node has not seen may be a match another node created, and is looked up (its lease taken);
// anything else is not.
bool LooksLikeMatchId(std::string_view id) {
  return id.size() == 21 && id.front() == 'm' &&
         id.find_first_not_of("0123456789abcdef", 1) == std::string_view::npos;
}

}  // namespace

std::string NotRecoveredMessage(const std::string& reason) {
  return "this match is on this server but could not be recovered: " + reason +
         " (the operator is told so by /healthz and the server's log; nothing was applied)";
}

Matches::Matches(asio::any_io_executor executor, MatchServices services,
                 const engine::Registry& registry, ImportCheck check_import)
    : executor_(std::move(executor)),
      services_(std::move(services)),
      registry_(registry),
      check_import_(std::move(check_import)),
      tournaments_(executor_, services_.store, services_.clock),
      shared_(services_.store.SharedByNodes()) {
  if (!services_.secrets) services_.secrets = persistence::ServerSecrets::Ephemeral();
  if (shared_) {
    // On the store's thread: over to the executor, while the server still runs.
    services_.store.OnLeaseLost([this, lifeline = services_.lifeline](
                                    const persistence::Lease& lost,
                                    const persistence::StoreError& why) {
      std::lock_guard alive(lifeline->mutex);
      if (!lifeline->alive) return;
      asio::post(executor_, [this, lost, message = why.message] { LeaseLost(lost, message); });
    });
  }
}

void Matches::LeaseLost(const persistence::Lease& lost, const std::string& why) {
  std::shared_ptr<Match> match;
  {
    std::lock_guard lock(mutex_);
    if (const auto it = matches_.find(lost.match_id); it != matches_.end()) {
      match = std::move(it->second);
      matches_.erase(it);
    }
    unused_since_.erase(lost.match_id);
    elsewhere_[lost.match_id] = "match " + lost.match_id + " is not served by this node: " + why +
                                "; reconnect to reach the node that serves it";
    SetGauges();
  }
  spdlog::warn("match {}: this node's lease (token {}) was lost; no longer served here: {}",
               lost.match_id, lost.token, why);
  if (match) {
    match->Disown("match " + lost.match_id + " is no longer served by this node: " + why +
                  "; reconnect to reach the node that serves it");
  }
}

void Matches::Register(std::shared_ptr<Match> match) {
  std::lock_guard lock(mutex_);
  matches_[match->id()] = std::move(match);
  SetGauges();
}

void Matches::SetGauges() const {
  services_.metrics.matches_open.Set(static_cast<double>(matches_.size()));
  services_.metrics.matches_dormant.Set(static_cast<double>(dormant_.size()));
  services_.metrics.matches_unrecovered.Set(static_cast<double>(not_recovered_.size()));
}

engine::Result<std::shared_ptr<Match>> Matches::Load(const std::string& id) const {
  auto events = services_.store.Read(id);
  if (!events) return engine::Reject("", events.error().message);
  return Match::Recover(executor_, services_, hosts_, *events);
}

std::shared_ptr<Match> Matches::Wake(const std::string& id) const {
  const auto started = std::chrono::steady_clock::now();
  if (shared_) {
    // Only the lease's holder serves a match; the log is read once it is held, so nothing the
    // previous holder appended is missed.
    auto lease = services_.store.AcquireLease(id);
    if (!lease) {
      spdlog::debug("match {} not loaded: {}", id, lease.error().message);
      std::lock_guard lock(mutex_);
      elsewhere_[id] =
          lease.error().code == persistence::StoreErrorCode::kFenced
              ? "match " + id + " is not served by this node: " + lease.error().message +
                    "; reconnect to reach the node that serves it"
              : "match " + id + " cannot be loaded now: " + lease.error().message;
      return nullptr;
    }
  }
  auto match = Load(id);
  std::lock_guard lock(mutex_);
  if (const auto it = matches_.find(id); it != matches_.end()) return it->second;  // woken meanwhile
  const bool was_dormant = dormant_.erase(id) > 0;
  if (shared_) {
    elsewhere_.erase(id);
    if (!match) (void)services_.store.ReleaseLease(id);  // not served here: the lease goes back
    if (!match && !was_dormant) return nullptr;           // not a match of the store
    if (match) (*match)->ResumeOwedWork();  // taken over: what the last holder owed
  } else if (!was_dormant) {
    return nullptr;  // not dormant any more: not recovered, meanwhile
  }
  if (!match) {
    const std::string reason = engine::Describe(match.error());
    spdlog::error("dormant match {} not recovered: {}", id, reason);
    not_recovered_[id] = reason;
    SetGauges();
    return nullptr;
  }
  matches_[id] = *match;
  SetGauges();
  spdlog::debug("dormant match {} loaded in {:.1f} ms", id,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                          started)
                    .count());
  return *match;
}

size_t Matches::RecoverAll(bool eager) {
  auto listed = services_.store.ListMatches();
  if (listed) tournaments_.RecoverAll(*listed);
  if (!listed) {
    spdlog::error("cannot list matches to recover: {}", listed.error().message);
    std::lock_guard lock(mutex_);
    recovery_error_ = "cannot list the matches to recover: " + listed.error().message;
    return 0;
  }
  size_t recovered = 0;
  size_t dormant = 0;
  for (const persistence::MatchSummary& summary : *listed) {
    // A session journal or a reminder log: a match's side logs; a tournament's log.
    if (summary.match_id.starts_with(Match::JournalId("")) ||
        summary.match_id.starts_with(Match::RemindersId("")) ||
        Tournaments::IsTournamentLog(summary.match_id)) {
      continue;
    }
    // Shared by several nodes: a match is loaded by the node that takes its lease, when asked.
    if ((summary.dormant && !eager) || shared_) {
      std::lock_guard lock(mutex_);
      dormant_.emplace(summary.match_id, summary.dormant_note);
      ++dormant;
      continue;
    }
    auto match = Load(summary.match_id);
    if (match) {
      (*match)->ResumeOwedWork();
      // A store from before dormant markers: the next start is quick.
      if (!summary.dormant) (*match)->MarkIfDormant();
      Register(std::move(*match));
      ++recovered;
      continue;
    }
    const std::string reason = engine::Describe(match.error());
    spdlog::error("match {} not recovered: {}", summary.match_id, reason);
    std::lock_guard lock(mutex_);
    not_recovered_[summary.match_id] = reason;
  }
  if (recovered > 0) spdlog::info("recovered {} match(es) from the store", recovered);
  if (dormant > 0) {
    spdlog::info("{} dormant match(es) in the store: each is loaded when first asked for", dormant);
  }
  recovered += dormant;
  if (dormant > 0 && !shared_) {
    std::vector<std::string> ids;
    {
      std::lock_guard lock(mutex_);
      ids.reserve(dormant_.size());
      for (const auto& [id, note] : dormant_) ids.push_back(id);
    }
    verifier_ = std::jthread(
        [this, ids = std::move(ids)](const std::stop_token& stop) { VerifyDormant(stop, ids); });
  }
  std::lock_guard lock(mutex_);
  SetGauges();
  if (!not_recovered_.empty()) {
    spdlog::error("{} match(es) in the store could not be recovered: /healthz reports degraded",
                  not_recovered_.size());
  }
  return recovered;
}

Matches::~Matches() {
  if (shared_) services_.store.OnLeaseLost(nullptr);
  verifier_.request_stop();
}

void Matches::VerifyDormant(const std::stop_token& stop,
                            const std::vector<std::string>& ids) const {
  // Behind the players: the I/O threads come first.
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
  const auto started = std::chrono::steady_clock::now();
  size_t replayed = 0;
  for (const std::string& id : ids) {
    if (stop.stop_requested()) return;
    {
      std::lock_guard lock(mutex_);
      if (!dormant_.contains(id)) continue;  // woken, or found wanting, meanwhile
    }
    auto match = Load(id);  // verified, then dropped: the match stays unloaded
    ++replayed;
    if (match) continue;
    const std::string reason = engine::Describe(match.error());
    std::lock_guard lock(mutex_);
    if (dormant_.erase(id)) {
      spdlog::error("dormant match {} not recovered: {}", id, reason);
      not_recovered_[id] = reason;
      SetGauges();
    }
  }
  spdlog::info("replayed {} dormant match(es) in the background in {:.1f} s", replayed,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

std::optional<std::string> Matches::UnavailableMessage(std::string_view id) const {
  std::lock_guard lock(mutex_);
  if (const auto it = not_recovered_.find(id); it != not_recovered_.end()) {
    return NotRecoveredMessage(it->second);
  }
  if (const auto it = elsewhere_.find(id); it != elsewhere_.end()) return it->second;
  return std::nullopt;
}

std::optional<std::string> Matches::NotRecoveredReason(std::string_view id) const {
  std::lock_guard lock(mutex_);
  const auto it = not_recovered_.find(id);
  if (it == not_recovered_.end()) return std::nullopt;
  return it->second;
}

std::vector<Matches::NotRecovered> Matches::NotRecoveredMatches() const {
  std::lock_guard lock(mutex_);
  std::vector<NotRecovered> all;
  for (const auto& [id, reason] : not_recovered_) all.push_back({id, reason});
  return all;
}

std::optional<std::string> Matches::RecoveryError() const {
  std::lock_guard lock(mutex_);
  return recovery_error_;
}

void Matches::Create(const v1::MatchSettings& requested, const std::string& command_id,
                     const std::string& idempotency_key,
                     std::function<void(v1::ServerMessage)> done,
                     const std::string& tournament_token) {
  // Only an explicit idempotency key (HTTP) is remembered: command_ids are chosen by clients and
  // shared by none, so answering another connection's id with its tokens would leak them.
  if (idempotency_key.empty()) {
    return CreateNow(requested, command_id, tournament_token, std::move(done));
  }
  // The tournament token is part of what a key names: a retry with another token is another
  // request (and is refused), never answered with the first one's seat tokens.
  std::string settings = proto::SerializeDeterministic(requested) + "|" + tournament_token;
  uint64_t order = 0;
  {
    std::unique_lock lock(mutex_);
    if (auto it = creations_.find(idempotency_key); it != creations_.end()) {
      Creation& creation = it->second;
      if (creation.settings != settings) {
        lock.unlock();
        // As draft-ietf-httpapi-idempotency-key-header answers a key reused with another
        // payload (422): nothing is created, the first creation stands.
        return done(Refusal(v1::ERROR_CODE_IDEMPOTENCY_KEY_REUSED,
                            "this Idempotency-Key was used before with other settings; a key "
                            "names one creation: send a new key for a new match",
                            command_id));
      }
      if (!creation.answer) return creation.waiting.push_back(std::move(done));
      v1::ServerMessage answer = *creation.answer;
      lock.unlock();
      return done(std::move(answer));
    }
    // Forget the oldest answered keys beyond the limit (one still in flight is kept).
    for (size_t tries = creation_order_.size();
         creations_.size() >= kMaxRememberedCreates && tries > 0; --tries) {
      auto [oldest_order, oldest_key] = std::move(creation_order_.front());
      creation_order_.pop_front();
      const auto oldest = creations_.find(oldest_key);
      if (oldest == creations_.end() || oldest->second.order != oldest_order) continue;
      if (oldest->second.answer) {
        creations_.erase(oldest);
      } else {
        creation_order_.emplace_back(oldest_order, std::move(oldest_key));
      }
    }
    order = next_creation_order_++;
    Creation& creation = creations_[idempotency_key];
    creation.settings = std::move(settings);
    creation.order = order;
    creation_order_.emplace_back(order, idempotency_key);
  }
  CreateNow(requested, command_id, tournament_token,
            [this, key = idempotency_key, order, done = std::move(done)](v1::ServerMessage answer) {
              Finish(key, order, answer);
              done(std::move(answer));
            });
}

void Matches::Finish(const std::string& key, uint64_t order, const v1::ServerMessage& answer) {
  std::vector<std::function<void(v1::ServerMessage)>> waiting;
  {
    std::lock_guard lock(mutex_);
    const auto it = creations_.find(key);
    if (it == creations_.end() || it->second.order != order) return;
    waiting = std::move(it->second.waiting);
    if (answer.has_error()) {
      creations_.erase(it);  // nothing was created: the key may be used again
    } else {
      it->second.answer = answer;
    }
  }
  for (auto& retry : waiting) retry(answer);
}

void Matches::CreateNow(const v1::MatchSettings& requested, const std::string& command_id,
                        const std::string& tournament_token,
                        std::function<void(v1::ServerMessage)> done) {
  v1::MatchSettings settings = requested;
  if (settings.ruleset().empty()) settings.set_ruleset("asl");
  auto ruleset = registry_.Find(settings.ruleset());
  const RulesetHost* host = HostOf(settings.ruleset());
  if (!ruleset || host == nullptr) {
    return done(Refusal(v1::ERROR_CODE_NOT_SUPPORTED,
                        "not supported: ruleset '" + settings.ruleset() +
                            "' — this server hosts matches of: " + Listed(BuiltinRulesets()),
                        command_id));
  }
  if (settings.title().size() > kMaxTitleBytes) {
    return done(Refusal(v1::ERROR_CODE_RULE_VIOLATION,
                        "settings.title: at most " + std::to_string(kMaxTitleBytes) + " bytes",
                        command_id));
  }
  if (settings.tournament_id().size() > kMaxTournamentBytes) {
    return done(Refusal(v1::ERROR_CODE_RULE_VIOLATION,
                        "settings.tournament_id: at most " + std::to_string(kMaxTournamentBytes) +
                            " bytes",
                        command_id));
  }
  for (const auto& [field, name] : {std::pair{"settings.side_a_name", &settings.side_a_name()},
                                    std::pair{"settings.side_b_name", &settings.side_b_name()}}) {
    if (auto ok = CheckDisplayName(*name, field); !ok) {
      return done(Refusal(v1::ERROR_CODE_RULE_VIOLATION, engine::Describe(ok.error()),
                          command_id));
    }
  }
  // A tournament of this server admits a match only with its director token; an id no
  // tournament here has is the free label it always was.
  std::optional<persistence::Hash> tournament_token_hash;
  switch (tournaments_.Check(settings.tournament_id(), tournament_token)) {
    case TournamentAccess::kNoSuchTournament:
      if (!tournament_token.empty()) {
        return done(Refusal(v1::ERROR_CODE_NOT_FOUND,
                            "a tournament token was given, but there is no tournament " +
                                proto::checks::Quoted(settings.tournament_id()) +
                                " on this server (settings.tournament_id); nothing was created",
                            command_id));
      }
      break;
    case TournamentAccess::kRefused:
      return done(Refusal(v1::ERROR_CODE_PERMISSION_DENIED,
                          "tournament " + settings.tournament_id() +
                              " admits matches only with its director token" +
                              (tournament_token.empty() ? " (none was given)"
                                                        : " (the token given is not it)") +
                              "; nothing was created",
                          command_id));
    case TournamentAccess::kGranted:
      tournament_token_hash = tournaments_.Find(settings.tournament_id())->token_hash;
      break;
  }
  if (static_cast<size_t>(settings.options_size()) > kMaxOptions) {
    return done(Refusal(v1::ERROR_CODE_RULE_VIOLATION,
                        "settings.options: at most " + std::to_string(kMaxOptions) + " options",
                        command_id));
  }
  // The declaration order is a setting of the match and an option of the ruleset; one value.
  if (settings.declaration_order() != v1::DECLARATION_ORDER_UNSPECIFIED) {
    const std::string order =
        settings.declaration_order() == v1::DECLARATION_ORDER_ATTACKER_FIRST ? "attacker_first"
                                                                              : "sealed";
    auto& options = *settings.mutable_options();
    if (auto it = options.find("declaration_order"); it != options.end() && it->second != order) {
      return done(Refusal(v1::ERROR_CODE_RULE_VIOLATION,
                          "settings: declaration_order " + order + " contradicts options." +
                              "declaration_order '" + it->second + "'",
                          command_id));
    }
    options["declaration_order"] = order;
  }
  if (auto paced = ResolvePace(settings); !paced) {
    return done(Refusal(v1::ERROR_CODE_RULE_VIOLATION, engine::Describe(paced.error()),
                        command_id));
  }
  engine::MatchOptions options;
  options.variant = settings.variant();
  for (const auto& [key, value] : settings.options()) options.values[key] = value;
  auto initial = (*ruleset)->NewState(options);
  if (!initial) {
    return done(Refusal(v1::ERROR_CODE_RULE_VIOLATION,
                        "settings: " + engine::Describe(initial.error()), command_id,
                        initial.error().rule_ref));
  }

  MatchIdentity identity;
  identity.id = "m" + RandomHex(10);
  identity.settings = settings;
  identity.ruleset_version = std::string((*ruleset)->version());
  v1::MatchCreated created;
  created.set_match_id(identity.id);
  created.set_side_a_token(RandomHex(32));
  created.set_side_b_token(RandomHex(32));
  created.set_director_token(RandomHex(32));
  created.set_spectator_key(RandomHex(16));
  created.mutable_ruleset()->set_id(settings.ruleset());
  created.mutable_ruleset()->set_version(identity.ruleset_version);
  for (std::string_view variant : (*ruleset)->variants()) {
    created.mutable_ruleset()->add_variants(std::string(variant));
  }
  identity.token_hashes = {persistence::Sha256(created.side_a_token()),
                           persistence::Sha256(created.side_b_token()),
                           persistence::Sha256(created.director_token())};
  identity.spectator_key_hash = persistence::Sha256(created.spectator_key());
  auto chain = std::make_shared<const persistence::SeedChain>(
      services_.secrets->TopSeed(identity.id), persistence::kDiceChainLength);
  identity.dice_commitment = chain->commitment();
  identity.dice_chain_length = chain->length();
  identity.server_public_key = services_.secrets->public_key();
  identity.tournament_token_hash = tournament_token_hash;

  persistence::AppendBatch batch;
  batch.match_id = identity.id;
  batch.expected_seq = 0;
  batch.recorded_unix_ms = services_.clock.NowUnixMs();
  batch.payloads.push_back(proto::SerializeDeterministic(Match::OpenedEvent(identity)));
  const int64_t recorded = batch.recorded_unix_ms;
  auto state = std::make_shared<engine::AnyState>(std::move(*initial));
  if (shared_) {
    // Several nodes: the first event is written under this node's lease (a new match's token
    // 1), which is let go once it is durable: the match is served by whichever node the load
    // balancer routes it to, which takes the lease then.
    if (auto lease = services_.store.AcquireLease(identity.id); !lease) {
      return done(Refusal(v1::ERROR_CODE_UNAVAILABLE,
                          "cannot take the new match's lease (" + lease.error().message +
                              "); nothing was created",
                          command_id));
    }
  }
  services_.store.Append(
      std::move(batch),
      [this, identity = std::move(identity), created = std::move(created), command_id, host,
       state, recorded, chain, done = std::move(done)](
          persistence::StoreResult<persistence::Appended> appended) mutable {
        // Off the store's writer thread before doing any work.
        asio::post(executor_, [this, identity = std::move(identity), created = std::move(created),
                               command_id = std::move(command_id), host, state, recorded, chain,
                               done = std::move(done),
                               appended = std::move(appended)]() mutable {
        if (!appended) {
          if (shared_) (void)services_.store.ReleaseLease(identity.id);
          return done(Refusal(v1::ERROR_CODE_UNAVAILABLE,
                              "storage refused the new match (" + appended.error().message +
                                  "); nothing was created",
                              command_id));
        }
        if (shared_) {
          (void)services_.store.ReleaseLease(identity.id);
        } else {
          Register(std::make_shared<Match>(executor_, services_, *host, std::move(identity),
                                           std::move(*state), recorded, appended->head, chain));
        }
        v1::ServerMessage reply;
        reply.set_command_id(command_id);
        *reply.mutable_match_created() = std::move(created);
        done(std::move(reply));
        });
      });
}

void Matches::Import(melee::storage::v1::MatchFile file,
                     std::function<void(engine::Result<std::string>)> done) {
  if (!check_import_) return done(engine::Reject("", "this server imports no match files"));
  engine::Result<std::string> checked = check_import_(file, hosts_);
  if (!checked) return done(tl::unexpected(checked.error()));
  if (Find(file.match_id())) {
    return done(engine::Reject("", "match " + file.match_id() + " is already on this server"));
  }
  persistence::AppendBatch batch;
  batch.match_id = file.match_id();
  batch.expected_seq = 0;
  for (const auto& event : file.events()) {
    batch.payloads.push_back(event.payload());
    batch.recorded_each.push_back(event.recorded_unix_ms());
  }
  batch.recorded_unix_ms = batch.recorded_each.back();
  auto events = std::make_shared<std::vector<persistence::Event>>(EventsOf(file));
  services_.store.Append(
      std::move(batch), [this, events, summary = std::move(*checked), done = std::move(done)](
                            persistence::StoreResult<persistence::Appended> appended) mutable {
        asio::post(executor_, [this, events, summary = std::move(summary), done = std::move(done),
                               appended = std::move(appended)]() mutable {
          if (!appended) {
            return done(engine::Reject(
                "", appended.error().code == persistence::StoreErrorCode::kConflict
                        ? "match " + events->front().match_id + " is already on this server"
                        : "storage refused the import: " + appended.error().message));
          }
          auto match = Match::Recover(executor_, services_, hosts_, *events);
          if (!match) return done(tl::unexpected(match.error()));
          // Several nodes: served by the node that takes its lease when it is asked for.
          if (!shared_) Register(std::move(*match));
          spdlog::info("match {} imported ({} events)", events->front().match_id, events->size());
          done(std::move(summary));
        });
      });
}

std::shared_ptr<Match> Matches::Find(std::string_view id) const {
  const std::string key(id);
  {
    std::lock_guard lock(mutex_);
    if (const auto it = matches_.find(key); it != matches_.end()) {
      unused_since_.erase(key);
      return it->second;
    }
    if (!dormant_.contains(key) && !(shared_ && LooksLikeMatchId(key))) return nullptr;
  }
  return Wake(key);
}

void Matches::UnloadIdle(int64_t idle_ms) {
  const int64_t now = services_.clock.NowUnixMs();
  std::vector<std::shared_ptr<Match>> idle;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, match] : matches_) {
      if (match.use_count() > 1) {  // a session, a request or the match's own work holds it
        unused_since_.erase(id);
        continue;
      }
      const auto [since, first] = unused_since_.try_emplace(id, now);
      if (!first && now - since->second >= idle_ms) idle.push_back(match);
    }
  }
  // Each check holds the match itself; a copy still held here when it runs makes it refuse
  // (three owners), and the next call tries again.
  for (std::shared_ptr<Match>& match : idle) {
    std::exchange(match, nullptr)->CheckUnloadable([this](const std::shared_ptr<Match>& unloadable) {
      std::lock_guard lock(mutex_);
      const auto it = matches_.find(unloadable->id());
      // Two owners: matches_ and the check itself. Anyone else found it meanwhile: keep it.
      if (it == matches_.end() || it->second != unloadable || unloadable.use_count() > 2) return;
      matches_.erase(it);
      unused_since_.erase(unloadable->id());
      dormant_.emplace(unloadable->id(), unloadable->identity().settings.tournament_id());
      services_.metrics.matches_unloaded.Increment();
      SetGauges();
      spdlog::debug("match {} unloaded: idle", unloadable->id());
      // Another node may take it at once (its appends are done: nothing is owed).
      if (shared_) (void)services_.store.ReleaseLease(unloadable->id());
    });
  }
}

std::vector<std::shared_ptr<Match>> Matches::InTournament(const Tournament& tournament) const {
  // Its dormant matches are loaded first (the markers name their tournaments).
  std::vector<std::string> sleeping;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, note] : dormant_) {
      if (note == tournament.id) sleeping.push_back(id);
    }
  }
  for (const std::string& id : sleeping) Wake(id);
  std::vector<std::shared_ptr<Match>> found;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, match] : matches_) {
      const MatchIdentity& identity = match->identity();
      if (identity.settings.tournament_id() == tournament.id &&
          identity.tournament_token_hash == tournament.token_hash &&
          identity.server_public_key == services_.secrets->public_key()) {
        found.push_back(match);
      }
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::pair(a->opened_unix_ms(), a->id()) < std::pair(b->opened_unix_ms(), b->id());
  });
  return found;
}

void Matches::CheckDeadlines() {
  std::vector<std::shared_ptr<Match>> all;
  {
    std::lock_guard lock(mutex_);
    all.reserve(matches_.size());
    for (const auto& [id, match] : matches_) {
      if (match->OwesTimer()) all.push_back(match);
    }
  }
  for (const auto& match : all) match->CheckDeadlines();
}

size_t Matches::size() const {
  std::lock_guard lock(mutex_);
  return matches_.size() + dormant_.size();
}

size_t Matches::dormant() const {
  std::lock_guard lock(mutex_);
  return dormant_.size();
}

}  // namespace melee::server
