#pragma once

// Every match this server holds: creating them (ids, seat tokens), finding them, recovering
// them from the store at start, and sweeping their choice deadlines. Thread-safe.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/core/registry.h"
#include "melee/v1/envelope.pb.h"
#include "server/match.h"

namespace melee::server {

// Returns what a seat of a match that could not be recovered is told, given the reason.
std::string NotRecoveredMessage(const std::string& reason);

class Matches {
 public:
  // `registry` lists the rulesets served; each needs a RulesetHost (asl today).
  Matches(asio::any_io_executor executor, MatchServices services,
          const engine::Registry& registry);

  // A match in the store that RecoverAll could not serve, and why.
  struct NotRecovered {
    std::string match_id;
    std::string reason;
  };

  // Loads every match in the store and replays it. A match whose log cannot be read or does not
  // replay is not served: it is logged and kept, with the reason, in NotRecoveredMatches() (a
  // seat of it is told so, /healthz reports it). Returns the number recovered. Call before
  // serving.
  size_t RecoverAll();

  // Returns the reason `id` is in the store but could not be recovered, or nothing.
  std::optional<std::string> NotRecoveredReason(std::string_view id) const;

  // Returns every match RecoverAll could not serve, sorted by id.
  std::vector<NotRecovered> NotRecoveredMatches() const;

  // Returns why RecoverAll could not even list the matches in the store, or nothing.
  std::optional<std::string> RecoveryError() const;

  // Creates a match and answers with MatchCreated (tokens shown once) or an Error, carrying
  // `command_id`. Nothing is answered before the match's first event is durable. With an
  // `idempotency_key` (HTTP's Idempotency-Key: a secret the client makes unguessable), a retry
  // with the same key and settings gets the same answer while this process runs; without one,
  // every call creates a match.
  void Create(const melee::v1::MatchSettings& settings, const std::string& command_id,
              const std::string& idempotency_key,
              std::function<void(melee::v1::ServerMessage)> done);

  // Loads a match file exported by any Melee server (docs/fair-play.md): verifies it completely
  // (a file that does not verify, or a seat's redacted export, is refused with the reason),
  // appends its events unchanged (same hashes) and serves the match read-only: its dice are
  // committed on the server that created it. Answers with the verification summary.
  void Import(melee::storage::v1::MatchFile file,
              std::function<void(engine::Result<std::string>)> done);

  // Returns the match, or nullptr.
  std::shared_ptr<Match> Find(std::string_view id) const;

  // Takes the rules default in every match whose choice deadline has passed.
  void CheckDeadlines();

  size_t size() const;

 private:
  const RulesetHost* HostOf(std::string_view ruleset) const;
  void Register(std::shared_ptr<Match> match);

  asio::any_io_executor executor_;
  MatchServices services_;
  const engine::Registry& registry_;
  std::map<std::string, std::unique_ptr<const RulesetHost>, std::less<>> hosts_;

  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Match>> matches_;
  std::unordered_map<std::string, melee::v1::ServerMessage> created_answers_;
  std::map<std::string, std::string, std::less<>> not_recovered_;  // match id -> reason
  std::optional<std::string> recovery_error_;
};

}  // namespace melee::server
