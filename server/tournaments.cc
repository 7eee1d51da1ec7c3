#include "server/tournaments.h"

#include <boost/asio/post.hpp>
#include <openssl/crypto.h>
#include <spdlog/spdlog.h>

#include <utility>

#include "melee/storage/v1/events.pb.h"
#include "persistence/digest.h"
#include "persistence/fair_play.h"
#include "proto/codec/checks.h"
#include "proto/codec/frame.h"

namespace melee::server {
namespace {

namespace storage = melee::storage::v1;
namespace v1 = melee::v1;

constexpr std::string_view kLogPrefix = "tournament:";
constexpr size_t kMaxTitleBytes = 200;

std::string LogId(std::string_view id) { return std::string(kLogPrefix) + std::string(id); }

}  // namespace

Tournaments::Tournaments(asio::any_io_executor executor, persistence::EventStore& store,
                         const Clock& clock)
    : executor_(std::move(executor)), store_(store), clock_(clock) {}

bool Tournaments::IsTournamentLog(std::string_view log_id) {
  return log_id.starts_with(kLogPrefix);
}

void Tournaments::Register(Tournament tournament) {
  std::lock_guard lock(mutex_);
  std::string id = tournament.id;
  tournaments_.insert_or_assign(std::move(id), std::move(tournament));
}

size_t Tournaments::RecoverAll() {
  auto listed = store_.ListMatches();
  if (!listed) {
    spdlog::error("cannot list tournaments to recover: {}", listed.error().message);
    return 0;
  }
  return RecoverAll(*listed);
}

size_t Tournaments::RecoverAll(const std::vector<persistence::MatchSummary>& listed) {
  size_t recovered = 0;
  for (const persistence::MatchSummary& summary : listed) {
    if (!IsTournamentLog(summary.match_id)) continue;
    auto events = store_.Read(summary.match_id);
    storage::TournamentOpened opened;
    if (!events || events->empty() || !opened.ParseFromString(events->front().payload) ||
        opened.director_token_hash().size() != sizeof(persistence::Hash) ||
        LogId(opened.tournament_id()) != summary.match_id) {
      spdlog::error("tournament log {} is unreadable; its token opens nothing",
                    summary.match_id);
      continue;
    }
    Tournament tournament{.id = opened.tournament_id(), .title = opened.title(),
                          .token_hash = {}, .created_unix_ms = events->front().recorded_unix_ms};
    std::copy(opened.director_token_hash().begin(), opened.director_token_hash().end(),
              tournament.token_hash.begin());
    Register(std::move(tournament));
    ++recovered;
  }
  if (recovered > 0) spdlog::info("recovered {} tournament(s) from the store", recovered);
  return recovered;
}

void Tournaments::Create(std::string title,
                         std::function<void(engine::Result<v1::TournamentCreated>)> done) {
  if (auto ok = proto::checks::CheckText(title, "title", kMaxTitleBytes); !ok) {
    return done(tl::unexpected(ok.error()));
  }
  v1::TournamentCreated created;
  created.set_tournament_id("t" + persistence::BytesToHex(persistence::RandomBytes(8)));
  created.set_director_token(persistence::BytesToHex(persistence::RandomBytes(32)));
  created.set_title(title);
  Tournament tournament{.id = created.tournament_id(), .title = title,
                        .token_hash = persistence::Sha256(created.director_token()),
                        .created_unix_ms = clock_.NowUnixMs()};
  storage::TournamentOpened opened;
  opened.set_tournament_id(tournament.id);
  opened.set_title(title);
  opened.set_director_token_hash(std::string(
      reinterpret_cast<const char*>(tournament.token_hash.data()), tournament.token_hash.size()));
  persistence::AppendBatch batch;
  batch.match_id = LogId(tournament.id);
  batch.expected_seq = 0;
  batch.recorded_unix_ms = tournament.created_unix_ms;
  batch.payloads.push_back(proto::SerializeDeterministic(opened));
  store_.Append(std::move(batch), [this, tournament = std::move(tournament),
                                   created = std::move(created), done = std::move(done)](
                                      persistence::StoreResult<persistence::Appended> appended) {
    // Off the store's writer thread before answering.
    asio::post(executor_, [this, tournament, created, done, appended]() mutable {
      if (!appended) {
        return done(engine::Reject("", "storage refused the new tournament (" +
                                           appended.error().message + "); nothing was created"));
      }
      Register(std::move(tournament));
      done(std::move(created));
    });
  });
}

std::optional<Tournament> Tournaments::Find(std::string_view id) const {
  std::lock_guard lock(mutex_);
  const auto it = tournaments_.find(id);
  if (it == tournaments_.end()) return std::nullopt;
  return it->second;
}

TournamentAccess Tournaments::Check(std::string_view id, std::string_view token) const {
  const std::optional<Tournament> tournament = Find(id);
  if (!tournament) return TournamentAccess::kNoSuchTournament;
  if (token.empty()) return TournamentAccess::kRefused;
  const persistence::Hash hash = persistence::Sha256(token);
  return CRYPTO_memcmp(hash.data(), tournament->token_hash.data(), hash.size()) == 0
             ? TournamentAccess::kGranted
             : TournamentAccess::kRefused;
}

}  // namespace melee::server
