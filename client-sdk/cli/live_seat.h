#pragma once

// melee::cli::LiveSeat — `melee play`'s connection to its seat: the SDK's asynchronous Client on
// a thread of its own, so that what the other side does shows as it happens, and a dropped
// connection or a restarted server is reconnected and resumed from the last seq by itself.
//
// Who prints what, so that lines never interleave: while the person types (between Begin... and
// End), nothing is printed; the events that arrive meanwhile wait and are shown by End() with the
// view after them, then the prompt. While the prompt waits for input, the client's thread prints
// each batch of events (once the view after them has come), the view and the prompt again, and
// says when the connection is lost and when it is back.
//
//   auto seat = LiveSeat::Open(link, ca_file, out);
//   for (;;) { seat->Prompt(); getline(...); seat->Begin(); ... seat->Act(command) ...; seat->End(); }

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "client-sdk/client.h"
#include "melee/v1/envelope.pb.h"
#include "melee/v1/match.pb.h"

namespace melee::cli {

class LiveSeat {
 public:
  // Joins the seat of `link` from its last seq. Fails (without retrying) when the server cannot
  // be reached within `timeout` or refuses the seat.
  static client::ClientResult<std::unique_ptr<LiveSeat>> Open(
      const melee::v1::SeatLink& link, const std::string& ca_file, std::ostream& out,
      std::chrono::milliseconds timeout = std::chrono::seconds(10));
  ~LiveSeat();
  LiveSeat(const LiveSeat&) = delete;
  LiveSeat& operator=(const LiveSeat&) = delete;

  // Prints what arrived and is not shown yet (events, then the view), then the prompt; from now
  // on the client's thread prints what arrives.
  void Prompt();
  // The person typed a line: nothing prints by itself until End().
  void Begin();
  // Shows what arrived meanwhile (with the view when `view_too` or when events came) and gives
  // the screen back to the client's thread: call Prompt() next.
  void End(bool view_too = false);

  // Sends a match command (SDK Client: command id, expected_seq, entropy, receipt check) and
  // waits for its answer and for the events it caused and the view after them. A connection
  // lost meanwhile is resumed and the command sent again with its id (applied at most once).
  // When no answer comes within `timeout`, says so; the answer, when it comes, is shown as a
  // notice ("the command sent earlier was applied: event #N; sealed; receipt ...").
  client::ClientResult<melee::v1::ServerMessage> Act(melee::v1::ClientMessage command,
                                                     std::chrono::milliseconds timeout);
  // Waits until an event came since the prompt was shown (it may be on the screen already) or
  // `timeout` passes; true when one came.
  bool WaitForEvent(std::chrono::milliseconds timeout);

  melee::v1::MatchView view() const;
  melee::v1::Seat seat() const;
  uint64_t last_seq() const;
  // Whether the client gave up (a refusal, a broken dice commitment); `why` says why.
  bool stopped(std::string* why = nullptr) const;

 private:
  explicit LiveSeat(std::ostream& out);
  // With mu_ held: prints the events from shown_ on and, when any (or `view_too`), the view.
  void ShowLocked(bool view_too);
  void OnEvent(const melee::v1::MatchEvent& event);
  void OnView(const melee::v1::MatchView& view);
  void OnState(client::ConnectionState state, const std::string& detail);
  // The answer to a command whose Act gave up waiting: a notice for the screen.
  void LateAnswer(const client::ClientResult<melee::v1::ServerMessage>& got);

  std::ostream& out_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::shared_ptr<client::Client> client_;
  std::thread thread_;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::vector<melee::v1::MatchEvent> events_;  // every event received, in seq order
  std::size_t shown_ = 0;                      // how many of them are on the screen
  std::size_t at_prompt_ = 0;                  // how many had come when the prompt was shown
  std::vector<std::string> notices_;           // connection news not shown yet
  melee::v1::MatchView view_;
  uint64_t last_seq_ = 0;      // the last event received (or the seat file's mark)
  bool view_current_ = false;  // the view is at least as new as the last event
  bool joined_once_ = false;
  bool typing_ = true;  // the person's turn: nothing prints by itself
  bool stopped_ = false;
  std::string stop_reason_;
};

}  // namespace melee::cli
