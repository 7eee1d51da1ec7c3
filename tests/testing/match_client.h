#pragma once

// A player (or spectator, or director) of a match over a real WebSocket, for tests: wraps
// SyncClient, remembers every message it received and the last seq it saw, and builds match
// commands with that seq as expected_seq.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "client-sdk/sync_client.h"
#include "client-sdk/whole_view.h"
#include "melee/v1/envelope.pb.h"

namespace melee::testing {

class MatchClient {
 public:
  static std::unique_ptr<MatchClient> Connect(
      const std::string& url, melee::proto::FrameKind kind = melee::proto::FrameKind::kBinary) {
    auto client = client::SyncClient::Connect(url, kind);
    if (!client) {
      ADD_FAILURE() << client.error().message;
      return nullptr;
    }
    return std::unique_ptr<MatchClient>(new MatchClient(std::move(*client)));
  }

  // Says Hello asking for protocol `version` (2: views leave out forces this connection holds);
  // returns the answer (HelloReply or Error).
  melee::v1::ServerMessage Hello(unsigned version) {
    melee::v1::ClientMessage message;
    message.mutable_hello()->set_protocol_version(version);
    message.mutable_hello()->set_client_name("match_client");
    return Call(message);
  }

  // Creates a match; returns MatchCreated (empty on failure).
  melee::v1::MatchCreated Create(melee::v1::MatchSettings settings) {
    melee::v1::ClientMessage message;
    *message.mutable_create_match()->mutable_settings() = std::move(settings);
    const melee::v1::ServerMessage answer = Call(message);
    EXPECT_TRUE(answer.has_match_created()) << answer.DebugString();
    return answer.match_created();
  }

  // Joins a seat with its token (or follows with a spectator key / director token when
  // `spectate`); returns the answer (Joined or Error).
  melee::v1::ServerMessage Join(const std::string& match_id, const std::string& token,
                                uint64_t after_seq = 0, bool spectate = false) {
    match_id_ = match_id;
    last_seq_ = after_seq;
    melee::v1::ClientMessage message;
    if (spectate) {
      message.mutable_spectate()->set_match_id(match_id);
      message.mutable_spectate()->set_spectator_key(token);
      message.mutable_spectate()->set_after_seq(after_seq);
    } else {
      message.mutable_join_seat()->set_match_id(match_id);
      message.mutable_join_seat()->set_seat_token(token);
      message.mutable_join_seat()->set_after_seq(after_seq);
    }
    return Call(message);
  }

  // Sends `message` (match_id and expected_seq filled in) and returns its answer.
  melee::v1::ServerMessage Act(melee::v1::ClientMessage message) {
    switch (message.command_case()) {
      case melee::v1::ClientMessage::kSubmitSetup:
        Fill(message.mutable_submit_setup());
        break;
      case melee::v1::ClientMessage::kConfirmSetup:
        Fill(message.mutable_confirm_setup());
        break;
      case melee::v1::ClientMessage::kAnnounce:
        Fill(message.mutable_announce());
        break;
      case melee::v1::ClientMessage::kSealDeclaration:
        Fill(message.mutable_seal_declaration());
        break;
      case melee::v1::ClientMessage::kMakeChoice:
        Fill(message.mutable_make_choice());
        break;
      case melee::v1::ClientMessage::kFlagForDirector:
        Fill(message.mutable_flag_for_director());
        break;
      case melee::v1::ClientMessage::kOrderLocations:
        Fill(message.mutable_order_locations());
        break;
      case melee::v1::ClientMessage::kUpdateUnits:
        Fill(message.mutable_update_units());
        break;
      case melee::v1::ClientMessage::kRecordResult:
        Fill(message.mutable_record_result());
        break;
      case melee::v1::ClientMessage::kTakeVacation:
        Fill(message.mutable_take_vacation());
        break;
      default:
        break;
    }
    return Call(message);
  }

  // Sends `message` as it is and returns its answer; everything received is recorded.
  melee::v1::ServerMessage Call(melee::v1::ClientMessage message) {
    auto answer = client_->Call(std::move(message));
    if (!answer) {
      ADD_FAILURE() << answer.error().message;
      return {};
    }
    Drain();
    Record(*answer);
    return *answer;
  }

  // Receives until an event with seq >= `seq` has arrived (and the view after it).
  bool WaitForSeq(uint64_t seq) {
    Drain();
    while (last_seq_ < seq || !view_current_) {
      auto message = client_->Receive();
      if (!message) {
        ADD_FAILURE() << "waiting for seq " << seq << ": " << message.error().message;
        return false;
      }
      Record(*message);
    }
    return true;
  }

  // Receives until the current view satisfies `done` (e.g. the Melee went on into the next CCPh,
  // which the server starts on its own after the close combat's last event).
  template <class Done>
  bool WaitForView(Done done) {
    Drain();
    while (!view_current_ || !done(view_)) {
      auto message = client_->Receive();
      if (!message) {
        ADD_FAILURE() << "waiting for a view: " << message.error().message;
        return false;
      }
      Record(*message);
    }
    return true;
  }

  uint64_t last_seq() const { return last_seq_; }
  const std::vector<melee::v1::ServerMessage>& received() const { return received_; }
  // The events received, in order.
  std::vector<melee::v1::MatchEvent> events() const {
    std::vector<melee::v1::MatchEvent> out;
    for (const auto& message : received_) {
      if (message.has_event()) out.push_back(message.event());
    }
    return out;
  }
  // The latest view (from Joined or a pushed MatchView), whole: one that left its forces out has
  // those of the view before it (client::WholeView).
  const melee::v1::MatchView& view() const { return view_; }
  client::SyncClient& client() { return *client_; }

 private:
  explicit MatchClient(std::unique_ptr<client::SyncClient> client) : client_(std::move(client)) {}

  template <class Command>
  void Fill(Command* command) {
    if (command->match_id().empty()) command->set_match_id(match_id_);
    if (command->expected_seq() == 0) command->set_expected_seq(last_seq_);
  }

  // Takes what the client already holds without blocking long.
  void Drain() {
    for (;;) {
      auto message = client_->Receive(std::chrono::milliseconds(1));
      if (!message) return;
      Record(*message);
    }
  }

  void Record(const melee::v1::ServerMessage& message) {
    received_.push_back(message);
    if (message.has_event()) {
      EXPECT_EQ(message.event().seq(), last_seq_ + 1) << "events arrive in order, without gaps";
      last_seq_ = message.event().seq();
      view_current_ = false;
    }
    if (message.has_view()) {
      view_ = client::WholeView(message.view(), view_);  // protocol 2: forces as before
      view_current_ = view_.seq() >= last_seq_;
    }
    if (message.has_joined()) {
      view_ = message.joined().view();
      view_current_ = view_.seq() >= last_seq_;
    }
  }

  std::unique_ptr<client::SyncClient> client_;
  std::string match_id_;
  uint64_t last_seq_ = 0;
  bool view_current_ = true;
  melee::v1::MatchView view_;
  std::vector<melee::v1::ServerMessage> received_;
};

}  // namespace melee::testing
