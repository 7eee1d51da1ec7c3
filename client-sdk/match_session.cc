#include "client-sdk/match_session.h"

#include <openssl/rand.h>

#include <utility>

#include "proto/codec/frame.h"

namespace melee::client {

namespace v1 = melee::v1;

namespace {

constexpr size_t kEntropyBytes = 32;

ClientError Refused(const v1::Error& error) {
  std::string message = error.message();
  if (!error.rule_ref().empty() && message.find(error.rule_ref()) == std::string::npos) {
    message = error.rule_ref() + ": " + message;
  }
  return ClientError{.message = std::move(message), .close_code = {}, .close_reason = {},
                     .refused = true};
}

// The match command inside `command`, as a pointer to fill in; null for other messages.
template <class Fill>
bool FillTarget(v1::ClientMessage& command, Fill&& fill) {
  switch (command.command_case()) {
    case v1::ClientMessage::kSubmitSetup:
      fill(*command.mutable_submit_setup());
      return true;
    case v1::ClientMessage::kConfirmSetup:
      fill(*command.mutable_confirm_setup());
      return true;
    case v1::ClientMessage::kAnnounce:
      fill(*command.mutable_announce());
      return true;
    case v1::ClientMessage::kSealDeclaration:
      fill(*command.mutable_seal_declaration());
      return true;
    case v1::ClientMessage::kMakeChoice:
      fill(*command.mutable_make_choice());
      return true;
    case v1::ClientMessage::kFlagForDirector:
      fill(*command.mutable_flag_for_director());
      return true;
    case v1::ClientMessage::kOrderLocations:
      fill(*command.mutable_order_locations());
      return true;
    case v1::ClientMessage::kUpdateUnits:
      fill(*command.mutable_update_units());
      return true;
    case v1::ClientMessage::kTakeVacation:
      fill(*command.mutable_take_vacation());
      return true;
    default:
      return false;
  }
}

}  // namespace

MatchSession::MatchSession(std::unique_ptr<SyncClient> client, std::string match_id)
    : client_(std::move(client)), match_id_(std::move(match_id)) {}

MatchSession::~MatchSession() {
  if (!closed_ && client_) (void)Close();
}

ClientResult<void> MatchSession::Close() {
  closed_ = true;
  return client_->Close();
}

ClientResult<std::unique_ptr<MatchSession>> MatchSession::Join(const std::string& url,
                                                               const std::string& match_id,
                                                               const std::string& token,
                                                               const JoinOptions& options) {
  auto client = SyncClient::Connect(MatchUrl(url, match_id), proto::FrameKind::kBinary,
                                    options.timeout, options.tls);
  if (!client) return tl::unexpected(client.error());
  std::unique_ptr<MatchSession> session(new MatchSession(std::move(*client), match_id));
  session->last_seq_ = options.after_seq;
  v1::ClientMessage join;
  if (options.spectate) {
    join.mutable_spectate()->set_match_id(match_id);
    join.mutable_spectate()->set_spectator_key(token);
    join.mutable_spectate()->set_after_seq(options.after_seq);
  } else {
    join.mutable_join_seat()->set_match_id(match_id);
    join.mutable_join_seat()->set_seat_token(token);
    join.mutable_join_seat()->set_after_seq(options.after_seq);
  }
  auto answer = session->client_->Call(join, options.timeout);
  if (!answer) return tl::unexpected(answer.error());
  if (answer->has_error()) return tl::unexpected(Refused(answer->error()));
  if (!answer->has_joined()) {
    return tl::unexpected(ClientError{.message = "the server answered JoinSeat without Joined",
                                      .close_code = {}, .close_reason = {}, .refused = false});
  }
  // The events before Joined arrived first and wait in the client.
  if (auto drained = session->Drain(); !drained) return tl::unexpected(drained.error());
  session->seat_ = answer->joined().seat();
  if (answer->joined().view().seq() >= session->view_.seq()) {
    session->view_ = answer->joined().view();
    session->view_current_ = session->view_.seq() >= session->last_seq_;
  }
  return session;
}

ClientResult<v1::ServerMessage> MatchSession::Act(v1::ClientMessage command) {
  if (auto drained = Drain(); !drained) return tl::unexpected(drained.error());
  const bool is_match_command = FillTarget(command, [this](auto& target) {
    if (target.match_id().empty()) target.set_match_id(match_id_);
    if (target.expected_seq() == 0) target.set_expected_seq(last_seq_);
  });
  if (!is_match_command) {
    return tl::unexpected(ClientError{.message = "Act() sends match commands only",
                                      .close_code = {}, .close_reason = {}, .refused = false});
  }
  if (command.has_seal_declaration() && command.seal_declaration().client_entropy().empty()) {
    std::string entropy(kEntropyBytes, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(entropy.data()), kEntropyBytes) != 1) {
      return tl::unexpected(ClientError{.message = "no random bytes for client_entropy",
                                        .close_code = {}, .close_reason = {}, .refused = false});
    }
    command.mutable_seal_declaration()->set_client_entropy(std::move(entropy));
  }
  const bool is_seal = command.has_seal_declaration();
  const std::string sealed =
      is_seal ? melee::proto::SerializeDeterministic(command.seal_declaration().declaration())
              : std::string();
  auto answer = client_->Call(std::move(command));
  if (!answer) return tl::unexpected(answer.error());
  if (is_seal && answer->has_ack()) {
    if (auto broken = CheckReceipt(answer->ack(), sealed)) {
      return tl::unexpected(ClientError{.message = "fair play: the receipt " + *broken,
                                        .close_code = {}, .close_reason = {}, .refused = false});
    }
  }
  if (auto drained = Drain(); !drained) return tl::unexpected(drained.error());
  if (answer->has_ack()) {
    if (auto waited = WaitForSeq(answer->ack().seq(), SyncClient::kDefaultTimeout); !waited) {
      return tl::unexpected(waited.error());
    }
  }
  return answer;
}

ClientResult<bool> MatchSession::WaitForEvent(std::chrono::milliseconds timeout) {
  const uint64_t before = last_seq_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (last_seq_ == before || !view_current_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return last_seq_ != before;
    auto message = client_->Receive(left);
    if (!message) {
      if (message.error().close_code) return tl::unexpected(message.error());
      return last_seq_ != before;  // a timeout
    }
    if (auto kept = Record(*message); !kept) return tl::unexpected(kept.error());
  }
  return true;
}

ClientResult<void> MatchSession::Record(const v1::ServerMessage& message) {
  if (message.has_event()) {
    const uint64_t seq = message.event().seq();
    if (seq <= last_seq_) return {};  // already held (a resume may overlap)
    if (seq != last_seq_ + 1) {
      return tl::unexpected(ClientError{
          .message = "event " + std::to_string(seq) + " arrived after " +
                     std::to_string(last_seq_) + ": events are missing; join again",
          .close_code = {}, .close_reason = {}, .refused = false});
    }
    if (auto broken = witness_.Observe(message.event())) {
      return tl::unexpected(ClientError{.message = "fair play: " + *broken,
                                        .close_code = {}, .close_reason = {}, .refused = false});
    }
    events_.push_back(message.event());
    last_seq_ = seq;
    view_current_ = false;
  } else if (message.has_view()) {
    view_ = message.view();
    view_current_ = view_.seq() >= last_seq_;
  }
  return {};
}

ClientResult<void> MatchSession::Drain() {
  for (;;) {
    auto message = client_->Receive(std::chrono::milliseconds(1));
    if (!message) {
      if (message.error().close_code) return tl::unexpected(message.error());
      return {};
    }
    if (auto kept = Record(*message); !kept) return kept;
  }
}

ClientResult<void> MatchSession::WaitForSeq(uint64_t seq, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (last_seq_ < seq || !view_current_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return tl::unexpected(ClientError{
          .message = "timed out waiting for event " + std::to_string(seq),
          .close_code = {}, .close_reason = {}, .refused = false});
    }
    auto message = client_->Receive(left);
    if (!message) return tl::unexpected(message.error());
    if (auto kept = Record(*message); !kept) return kept;
  }
  return {};
}

}  // namespace melee::client
