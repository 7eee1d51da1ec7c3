#include "client-sdk/cli/live_seat.h"

#include <future>
#include <ostream>
#include <utility>

#include "client-sdk/cli/render.h"

namespace melee::cli {
namespace {

namespace v1 = melee::v1;
using client::ClientError;
using client::ClientResult;

ClientError Failure(std::string message) {
  return ClientError{.message = std::move(message), .close_code = {}, .close_reason = {},
                     .refused = false};
}

}  // namespace

LiveSeat::LiveSeat(std::ostream& out) : out_(out), work_(boost::asio::make_work_guard(io_)) {}

ClientResult<std::unique_ptr<LiveSeat>> LiveSeat::Open(const v1::SeatLink& link,
                                                       const std::string& ca_file,
                                                       std::ostream& out,
                                                       std::chrono::milliseconds timeout) {
  std::unique_ptr<LiveSeat> seat(new LiveSeat(out));
  client::ClientOptions options;
  options.kind = proto::FrameKind::kBinary;
  options.ca_file = ca_file;
  seat->client_ = client::Client::Create(
      seat->io_.get_executor(),
      client::SeatAddress{.url = link.server(), .match_id = link.match_id(), .token = link.token(),
                          .spectate = link.seat() == v1::SEAT_DIRECTOR ||
                                      link.seat() == v1::SEAT_SPECTATOR},
      options);
  seat->last_seq_ = link.last_seq();
  LiveSeat* self = seat.get();
  seat->client_->OnEvent([self](const v1::MatchEvent& event) { self->OnEvent(event); });
  seat->client_->OnView([self](const v1::MatchView& view) { self->OnView(view); });
  seat->client_->OnState([self](client::ConnectionState state, const std::string& detail) {
    self->OnState(state, detail);
  });
  seat->client_->Start(link.last_seq());
  seat->thread_ = std::thread([self] { self->io_.run(); });

  std::unique_lock lock(seat->mu_);
  const bool settled = seat->changed_.wait_for(lock, timeout, [self] {
    return self->stopped_ || (self->joined_once_ && self->view_current_);
  });
  if (seat->stopped_) {
    ClientError error = Failure(seat->stop_reason_);
    error.refused = true;
    return tl::unexpected(error);
  }
  if (!settled) {
    std::string why = seat->notices_.empty() ? "no answer" : seat->notices_.back();
    return tl::unexpected(Failure("cannot join the seat at " + link.server() + " within " +
                                  std::to_string(timeout.count() / 1000) + " s (" + why + ")"));
  }
  seat->notices_.clear();  // the first connection is not news
  return seat;
}

LiveSeat::~LiveSeat() {
  if (client_) client_->Stop();
  work_.reset();
  if (thread_.joinable()) thread_.join();
}

void LiveSeat::ShowLocked(bool view_too) {
  for (const std::string& notice : notices_) out_ << notice << "\n";
  notices_.clear();
  const bool news = events_.size() > shown_;
  for (; shown_ < events_.size(); ++shown_) PrintEvent(out_, events_[shown_]);
  if (news || view_too) PrintView(out_, view_);
}

void LiveSeat::Prompt() {
  std::lock_guard lock(mu_);
  if (view_current_) ShowLocked(false);
  at_prompt_ = events_.size();
  out_ << SeatName(view_.seat()) << "> " << std::flush;
  typing_ = false;
}

void LiveSeat::Begin() {
  std::lock_guard lock(mu_);
  typing_ = true;
}

void LiveSeat::End(bool view_too) {
  std::lock_guard lock(mu_);
  ShowLocked(view_too);
  out_ << std::flush;
}

void LiveSeat::OnEvent(const v1::MatchEvent& event) {
  std::lock_guard lock(mu_);
  events_.push_back(event);
  last_seq_ = event.seq();
  view_current_ = false;
}

void LiveSeat::OnView(const v1::MatchView& view) {
  std::lock_guard lock(mu_);
  if (view.seq() < view_.seq()) return;
  view_ = view;
  view_current_ = view_.seq() >= last_seq_;
  if (view_current_ && !typing_ && (events_.size() > shown_ || !notices_.empty())) {
    out_ << "\n";
    ShowLocked(false);
    out_ << SeatName(view_.seat()) << "> " << std::flush;
  }
  changed_.notify_all();
}

void LiveSeat::OnState(client::ConnectionState state, const std::string& detail) {
  std::lock_guard lock(mu_);
  switch (state) {
    case client::ConnectionState::kConnecting:
      return;
    case client::ConnectionState::kJoined:
      if (joined_once_) notices_.push_back("(connected again; resuming after event #" +
                                           std::to_string(last_seq_) + ")");
      joined_once_ = true;
      break;
    case client::ConnectionState::kReconnecting:
      notices_.push_back("(" + detail + "; reconnecting by itself — keep typing, commands wait)");
      if (!typing_ && joined_once_) {
        out_ << "\n" << notices_.back() << "\n" << SeatName(view_.seat()) << "> " << std::flush;
        notices_.pop_back();
      }
      break;
    case client::ConnectionState::kStopped:
      stopped_ = true;
      stop_reason_ = detail;
      break;
  }
  changed_.notify_all();
}

ClientResult<v1::ServerMessage> LiveSeat::Act(v1::ClientMessage command,
                                              std::chrono::milliseconds timeout) {
  // The answer, for this call while it waits; once it has given up, for the screen (the person
  // was told the result shows when it comes).
  struct Waiting {
    std::promise<ClientResult<v1::ServerMessage>> answer;
    std::mutex mu;
    bool gave_up = false;
  };
  auto waiting = std::make_shared<Waiting>();
  auto future = waiting->answer.get_future();
  client_->Send(std::move(command), [this, waiting](ClientResult<v1::ServerMessage> got) {
    {
      std::lock_guard lock(waiting->mu);
      if (!waiting->gave_up) return waiting->answer.set_value(std::move(got));
    }
    LateAnswer(got);
  });
  const bool answered = future.wait_for(timeout) == std::future_status::ready;
  if (!answered) {
    std::lock_guard lock(waiting->mu);
    waiting->gave_up = future.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
  }
  if (!answered && waiting->gave_up) {
    return tl::unexpected(Failure(
        "no answer within " + std::to_string(timeout.count() / 1000) +
        " s; the command stays queued and is sent again when the connection is back (its "
        "result shows when it comes)"));
  }
  ClientResult<v1::ServerMessage> got = future.get();
  if (!got || !got->has_ack()) return got;
  const uint64_t seq = got->ack().seq();
  std::unique_lock lock(mu_);
  changed_.wait_for(lock, timeout, [&] {
    return stopped_ || (last_seq_ >= seq && view_current_);
  });
  return got;
}

void LiveSeat::LateAnswer(const ClientResult<v1::ServerMessage>& got) {
  std::lock_guard lock(mu_);
  if (!got) {
    notices_.push_back("(the command sent earlier got no answer: " + got.error().message + ")");
  } else if (got->has_error()) {
    notices_.push_back("(the command sent earlier was refused: " + got->error().message() + ")");
  } else {
    std::string notice =
        "(the command sent earlier was applied: event #" + std::to_string(got->ack().seq());
    if (!got->ack().receipt().empty()) notice += "; sealed; receipt " + Hex(got->ack().receipt());
    notices_.push_back(notice + ")");
  }
  // Its events and the view after them may be on the screen already: say it now, unless the
  // person is typing (then the next prompt shows it).
  if (!typing_ && view_current_) {
    out_ << "\n";
    ShowLocked(false);
    out_ << SeatName(view_.seat()) << "> " << std::flush;
  }
  changed_.notify_all();
}

bool LiveSeat::WaitForEvent(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return changed_.wait_for(lock, timeout, [&] {
    return stopped_ || (events_.size() > at_prompt_ && view_current_);
  }) && events_.size() > at_prompt_;
}

v1::MatchView LiveSeat::view() const {
  std::lock_guard lock(mu_);
  return view_;
}

v1::Seat LiveSeat::seat() const {
  std::lock_guard lock(mu_);
  return view_.seat();
}

uint64_t LiveSeat::last_seq() const {
  std::lock_guard lock(mu_);
  return last_seq_;
}

bool LiveSeat::stopped(std::string* why) const {
  std::lock_guard lock(mu_);
  if (why != nullptr) *why = stop_reason_;
  return stopped_;
}

}  // namespace melee::cli
