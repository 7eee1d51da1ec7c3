#pragma once

// The tournaments this server holds (docs/tournaments.md): an id, a title and the hash of the
// director token that opens every match created in it. Each is kept in a log of its own,
// "tournament:<id>" (one TournamentOpened event), beside the matches' logs, so it survives a
// restart like a match; the token itself is never stored. Thread-safe.

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>
#include <string_view>

#include "engine/core/result.h"
#include "melee/v1/tournament.pb.h"
#include "persistence/event_store.h"
#include "server/clock.h"
#include "server/executor.h"

namespace melee::server {

struct Tournament {
  std::string id;
  std::string title;
  persistence::Hash token_hash{};
  int64_t created_unix_ms = 0;
};

// What a token opens of a tournament id.
enum class TournamentAccess {
  kNoSuchTournament,  // no tournament of that id here: the id is a plain label
  kRefused,           // the tournament exists; the token is not its director token
  kGranted,
};

class Tournaments {
 public:
  Tournaments(asio::any_io_executor executor, persistence::EventStore& store, const Clock& clock);

  // Whether the store's log `log_id` is a tournament's (not a match's).
  static bool IsTournamentLog(std::string_view log_id);

  // Loads every tournament in the store. Returns how many; an unreadable one is logged and
  // skipped (its matches still open with their own tokens).
  size_t RecoverAll();
  // The same from the store's listing `listed` (ListMatches), read once for the matches too.
  size_t RecoverAll(const std::vector<persistence::MatchSummary>& listed);

  // Creates a tournament titled `title` (checked: at most 200 bytes, no control characters).
  // `done` runs on the executor once it is durable, with the id and the token (shown once).
  void Create(std::string title,
              std::function<void(engine::Result<melee::v1::TournamentCreated>)> done);

  std::optional<Tournament> Find(std::string_view id) const;

  // Whether `token` is the director token of tournament `id`.
  TournamentAccess Check(std::string_view id, std::string_view token) const;

 private:
  void Register(Tournament tournament);

  asio::any_io_executor executor_;
  persistence::EventStore& store_;
  const Clock& clock_;
  mutable std::mutex mutex_;
  std::map<std::string, Tournament, std::less<>> tournaments_;
};

}  // namespace melee::server
