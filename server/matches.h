#pragma once

// Every match this server holds: creating them (ids, seat tokens), finding them, recovering
// them from the store at start, and sweeping their choice deadlines. Thread-safe.
//
// On a store several nodes share (EventStore::SharedByNodes: PostgreSQL; docs/postgresql.md,
// "Several nodes"), a node serves a match only while it holds the match's lease: a match is
// loaded when first asked for, after its lease is taken (another node's live lease: the client
// is told to reconnect), a new match's lease is let go once it is durable (the node the load
// balancer routes the match to takes it), an idle match's lease is let go when it is unloaded,
// and a match whose lease is lost (the store found its token moved on) is disowned: its
// subscribers are told so and it is unloaded.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/core/registry.h"
#include "melee/storage/v1/match_file.pb.h"
#include "melee/v1/envelope.pb.h"
#include "server/hosts.h"
#include "server/match.h"
#include "server/tournaments.h"

namespace melee::server {

// Returns what a seat of a match that could not be recovered is told, given the reason.
std::string NotRecoveredMessage(const std::string& reason);

// Checks a match file before it is imported: the verification summary when it verifies
// completely, else why it is refused. The server passes fair play's CheckImport
// (server/fair_play/verify.h), which replays matches: the match layer does not depend on it.
using ImportCheck = std::function<engine::Result<std::string>(
    const melee::storage::v1::MatchFile& file, const HostLookup& hosts)>;

class Matches {
 public:
  // `registry` lists the rulesets served; each needs a host (server/hosts.h). Without
  // `check_import` no file is imported.
  Matches(asio::any_io_executor executor, MatchServices services,
          const engine::Registry& registry, ImportCheck check_import = nullptr);
  // Stops the background verification of dormant matches (RecoverAll) and waits for it.
  ~Matches();
  Matches(const Matches&) = delete;
  Matches& operator=(const Matches&) = delete;

  // A match in the store that RecoverAll could not serve, and why.
  struct NotRecovered {
    std::string match_id;
    std::string reason;
  };

  // Loads every active match in the store and replays it; a dormant one (marked so when it last
  // owed nothing on a timer: EventStore::MarkDormant) is only listed, and loaded and replayed
  // when it is first asked for (Find, InTournament), so a store of many finished matches starts
  // at once. A match whose log cannot be read or does not replay is not served: it is logged
  // and kept, with the reason, in NotRecoveredMatches() (a seat of it is told so, /healthz
  // reports it) — for a dormant match, once a thread of low priority has replayed it after the
  // start (each dormant match once, then dropped: it stays unloaded) or when it is first asked
  // for. Returns the number of matches served (loaded or dormant). Call before serving.
  // `eager`: every match is loaded before RecoverAll returns, dormant ones too (--eager-recovery).
  size_t RecoverAll(bool eager = false);

  // Returns the reason `id` is in the store but could not be recovered, or nothing.
  std::optional<std::string> NotRecoveredReason(std::string_view id) const;

  // Returns what a client asking for `id` is told when Find found no match to serve although
  // the match exists: it could not be recovered (NotRecoveredMessage), or, on a store shared by
  // several nodes, another node holds its lease (reconnect to reach it) or its lease could not
  // be taken (the store is unreachable). Nothing otherwise.
  std::optional<std::string> UnavailableMessage(std::string_view id) const;

  // Returns every match RecoverAll could not serve, sorted by id.
  std::vector<NotRecovered> NotRecoveredMatches() const;

  // Returns why RecoverAll could not even list the matches in the store, or nothing.
  std::optional<std::string> RecoveryError() const;

  // Creates a match and answers with MatchCreated (tokens shown once) or an Error, carrying
  // `command_id`. Nothing is answered before the match's first event is durable. Without an
  // `idempotency_key` every call creates a match. With one (HTTP's Idempotency-Key: a secret the
  // client makes unguessable; its scope is this server, whoever sends it): a call with the same
  // key and the same settings gets the first call's answer, waiting for it if the first call is
  // still in flight; with other settings it is refused with ERROR_CODE_IDEMPOTENCY_KEY_REUSED and
  // nothing is created. A key is remembered while this process runs, for the last 1024 keys
  // that created a match; a refused creation forgets its key (a retry may try again).
  //
  // A `settings.tournament_id` that names a tournament of this server needs that tournament's
  // director token (`tournament_token`; else ERROR_CODE_PERMISSION_DENIED, nothing created), and
  // the match is then opened by that token too; an id no tournament here has stays a plain label.
  void Create(const melee::v1::MatchSettings& settings, const std::string& command_id,
              const std::string& idempotency_key,
              std::function<void(melee::v1::ServerMessage)> done,
              const std::string& tournament_token = {});

  // Loads a match file exported by any Melee server (docs/fair-play.md): checks it with
  // `check_import` (a file that does not verify, or a seat's redacted export, is refused with
  // the reason), appends its events unchanged (same hashes) and serves the match read-only: its
  // dice are committed on the server that created it. Answers with the verification summary.
  void Import(melee::storage::v1::MatchFile file,
              std::function<void(engine::Result<std::string>)> done);

  // Returns the match, loading it first if it is dormant, or nullptr (no such match, or a
  // dormant one that does not replay: NotRecoveredReason then says why).
  std::shared_ptr<Match> Find(std::string_view id) const;

  // Returns the matches created here in `tournament` (named by its id and opened by its token;
  // an imported match from another server is not one of them), oldest first.
  std::vector<std::shared_ptr<Match>> InTournament(const Tournament& tournament) const;

  Tournaments& tournaments() { return tournaments_; }

  // Takes the rules default in every match whose choice deadline has passed.
  void CheckDeadlines();

  // Unloads every loaded match that nothing has used for `idle_ms` (the injected clock): no
  // session follows it, no request holds it, and it owes nothing on a timer
  // (Match::CheckUnloadable). It becomes dormant again: listed, and loaded from the store when
  // next asked for, so a long-running server's memory follows the matches in play, not every
  // match it ever touched. Call it periodically (the server's deadline sweep does).
  void UnloadIdle(int64_t idle_ms);

  // The matches served: loaded or dormant.
  size_t size() const;
  // The dormant matches not loaded yet.
  size_t dormant() const;

 private:
  // An Idempotency-Key's creation: what it asked for and, once durable, its answer.
  struct Creation {
    std::string settings;  // the requested MatchSettings (deterministic bytes) and tournament token
    uint64_t order = 0;    // when it was first asked for, for forgetting the oldest
    std::optional<melee::v1::ServerMessage> answer;  // set once the match is durable
    std::vector<std::function<void(melee::v1::ServerMessage)>> waiting;  // retries in flight
  };

  const RulesetHost* HostOf(std::string_view ruleset) const { return hosts_(ruleset); }
  void Register(std::shared_ptr<Match> match);
  // Loads and replays the dormant match `id` (outside the lock); registers it, or records why it
  // could not be. Returns it, or nullptr.
  std::shared_ptr<Match> Wake(const std::string& id) const;
  // Replays the match `id` from the store: the match, or why not.
  engine::Result<std::shared_ptr<Match>> Load(const std::string& id) const;
  void SetGauges() const;  // under mutex_
  // The store found this node's lease on `lost.match_id` lost (on the executor): unloads and
  // disowns the match.
  void LeaseLost(const persistence::Lease& lost, const std::string& why);
  // Replays each of `ids` still dormant, at low priority, and records those that fail.
  void VerifyDormant(const std::stop_token& stop, const std::vector<std::string>& ids) const;
  // Creates the match; `done` runs exactly once.
  void CreateNow(const melee::v1::MatchSettings& requested, const std::string& command_id,
                 const std::string& tournament_token,
                 std::function<void(melee::v1::ServerMessage)> done);
  // Records the answer to the creation under `key` and answers the retries waiting for it.
  void Finish(const std::string& key, uint64_t order, const melee::v1::ServerMessage& answer);

  asio::any_io_executor executor_;
  MatchServices services_;
  const engine::Registry& registry_;
  const HostLookup hosts_ = BuiltinHosts();
  const ImportCheck check_import_;
  Tournaments tournaments_;

  mutable std::mutex mutex_;
  // Loaded matches; dormant ones (id -> the marker's note, its tournament id) join them when
  // first asked for, which a const Find may do.
  mutable std::unordered_map<std::string, std::shared_ptr<Match>> matches_;
  mutable std::unordered_map<std::string, std::string> dormant_;
  // Loaded matches nothing but matches_ held at the last UnloadIdle, and since when (clock ms);
  // a Find forgets its entry.
  mutable std::unordered_map<std::string, int64_t> unused_since_;
  mutable std::map<std::string, std::string, std::less<>> not_recovered_;  // match id -> reason
  // Shared store: what a client asking for a match this node could not load is told (another
  // node holds its lease, or the lease could not be taken), by match id.
  mutable std::map<std::string, std::string, std::less<>> elsewhere_;
  const bool shared_;  // the store is shared by several nodes: leases
  std::optional<std::string> recovery_error_;
  // By Idempotency-Key; `creation_order_` lists (order, key) oldest first.
  std::unordered_map<std::string, Creation> creations_;
  std::deque<std::pair<uint64_t, std::string>> creation_order_;
  uint64_t next_creation_order_ = 1;
  std::jthread verifier_;  // last: stopped and joined first
};

}  // namespace melee::server
