#pragma once

// melee::client::MatchSession — one seat of one match, over a SyncClient: join (or resume) from
// a seq, send match commands with match_id and expected_seq filled in, and hold every event and
// the latest view this seat has received. Blocking; every wait has a timeout. Not thread-safe.
//
//   auto session = MatchSession::Join(url, match_id, token, {.after_seq = last_seen});
//   auto answer = (*session)->Act(command);  // waits until the events it caused have arrived
//   for (const auto& event : (*session)->events()) ...

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "client-sdk/dice_witness.h"
#include "client-sdk/sync_client.h"
#include "melee/v1/envelope.pb.h"

namespace melee::client {

struct JoinOptions {
  // Receive the events after this seq (0: all of them).
  uint64_t after_seq = 0;
  // Join as a spectator (`token` is then the spectator key or the director token).
  bool spectate = false;
  std::chrono::milliseconds timeout = SyncClient::kDefaultTimeout;
  TlsOptions tls;  // wss://
};

class MatchSession {
 public:
  // Connects to `url` (with ?match=<match_id> added, for a load balancer in front of several
  // nodes) and joins `match_id` with `token`. A refusal by the server (a wrong token, an unknown
  // match) is a ClientError with `refused` set.
  static ClientResult<std::unique_ptr<MatchSession>> Join(const std::string& url,
                                                          const std::string& match_id,
                                                          const std::string& token,
                                                          const JoinOptions& options = {});

  // Sends a match command (SubmitSetup, ConfirmSetup, Announce, SealDeclaration, MakeChoice,
  // FlagForDirector, OrderLocations) with this match's id and the last seq seen as
  // expected_seq; a SealDeclaration without client_entropy gets 32 random bytes. Returns the
  // server's answer (an ack or an Error). After an ack, waits until every event up to the
  // ack's seq and the view after them have arrived.
  ClientResult<melee::v1::ServerMessage> Act(melee::v1::ClientMessage command);

  // Waits up to `timeout` for the next event; false when none came.
  ClientResult<bool> WaitForEvent(std::chrono::milliseconds timeout);

  // Every event received since Join, in seq order, without gaps.
  const std::vector<melee::v1::MatchEvent>& events() const { return events_; }
  // The latest view of this seat.
  const melee::v1::MatchView& view() const { return view_; }
  // The seat this session holds (from Joined).
  melee::v1::Seat seat() const { return seat_; }
  uint64_t last_seq() const { return last_seq_; }
  const std::string& match_id() const { return match_id_; }
  // The live checks of the dice commitment and the server's signatures (docs/fair-play.md); a
  // violation makes the call that received it fail.
  const DiceWitness& witness() const { return witness_; }

  // Closes the WebSocket politely (a close frame, 1000): the server's journal records a clean
  // end, not a disconnect. The destructor does it too when Close() was not called.
  ClientResult<void> Close();
  ~MatchSession();
  MatchSession(const MatchSession&) = delete;
  MatchSession& operator=(const MatchSession&) = delete;

 private:
  MatchSession(std::unique_ptr<SyncClient> client, std::string match_id);

  // Keeps an event or a view; complains about a gap in the seqs.
  ClientResult<void> Record(const melee::v1::ServerMessage& message);
  // Takes what already arrived without waiting long.
  ClientResult<void> Drain();
  // Receives until the event `seq` and the view after it have arrived.
  ClientResult<void> WaitForSeq(uint64_t seq, std::chrono::milliseconds timeout);

  std::unique_ptr<SyncClient> client_;
  bool closed_ = false;
  std::string match_id_;
  melee::v1::Seat seat_ = melee::v1::SEAT_UNSPECIFIED;
  uint64_t last_seq_ = 0;
  bool view_current_ = true;
  melee::v1::MatchView view_;
  std::vector<melee::v1::MatchEvent> events_;
  DiceWitness witness_;
};

}  // namespace melee::client
