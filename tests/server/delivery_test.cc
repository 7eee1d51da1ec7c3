// What a commit sends each subscriber comes in one delivery (one write on a WebSocket), and the
// command's own session finds the command's answer at the end of its delivery, after the events
// and the view: Match::Render, Match::Send and Execute's `reply_to`. Through the dispatcher of a
// socket-less server (tests/fuzz/world.h) with subscribers that record each delivery.

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "tests/fuzz/world.h"
#include "tests/testing/asl_commands.h"

namespace melee {
namespace {

namespace v1 = melee::v1;
using testing::EnterUnits;
using testing::Squad;

class RecordingSubscriber final : public server::Subscriber {
 public:
  void Deliver(std::vector<server::MessagePtr> messages) override {
    std::lock_guard lock(mutex_);
    std::vector<v1::ServerMessage>& delivery = deliveries_.emplace_back();
    for (const server::MessagePtr& message : messages) delivery.push_back(message->message());
  }
  std::vector<std::vector<v1::ServerMessage>> Take() {
    std::lock_guard lock(mutex_);
    return std::exchange(deliveries_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<std::vector<v1::ServerMessage>> deliveries_;
};

class DeliveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    match_ = world_.CreateMatch("asl");
    for (int i = 0; i < 2; ++i) {
      subscribers_[i] = std::make_shared<RecordingSubscriber>();
      connections_[i].subscriber = subscribers_[i];
      v1::ClientMessage join;
      join.set_command_id("join");
      join.mutable_join_seat()->set_match_id(match_.match_id);
      join.mutable_join_seat()->set_seat_token(i == 0 ? match_.side_a_token : match_.side_b_token);
      const auto answers = world_.Dispatch(join, connections_[i]);  // the events so far, Joined
      ASSERT_FALSE(answers.empty());
      ASSERT_TRUE(answers.back().has_joined());
    }
    subscribers_[0]->Take();
    subscribers_[1]->Take();
  }

  // Sends the set-up part `message` for seat `i` with command id `id`; returns what `reply` got.
  std::vector<v1::ServerMessage> Enter(int i, v1::ClientMessage message, const std::string& id) {
    message.set_command_id(id);
    message.mutable_submit_setup()->set_match_id(match_.match_id);
    return world_.Dispatch(message, connections_[i]);
  }

  fuzz::World world_;
  fuzz::CreatedMatch match_;
  std::array<server::ConnectionState, 2> connections_;
  std::array<std::shared_ptr<RecordingSubscriber>, 2> subscribers_;
};

TEST_F(DeliveryTest, ACommandsAnswerEndsItsSessionsOneDelivery) {
  const auto replied =
      Enter(0, EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 6, "6-4-7")}, true), "enter-a");
  // The answer went with the events, not through `reply`.
  EXPECT_TRUE(replied.empty());

  const auto own = subscribers_[0]->Take();
  ASSERT_EQ(own.size(), 1u) << "one delivery to the command's session";
  const std::vector<v1::ServerMessage>& delivered = own[0];
  ASSERT_GE(delivered.size(), 3u);
  EXPECT_TRUE(delivered[0].has_event());
  EXPECT_TRUE(delivered[delivered.size() - 2].has_view());
  ASSERT_TRUE(delivered.back().has_ack()) << "the answer comes last, after the view";
  EXPECT_EQ(delivered.back().command_id(), "enter-a");
  EXPECT_EQ(delivered.back().ack().seq(), delivered[delivered.size() - 2].view().seq());

  const auto other = subscribers_[1]->Take();
  ASSERT_EQ(other.size(), 1u) << "one delivery to the other seat";
  EXPECT_TRUE(other[0].back().has_view());
  for (const v1::ServerMessage& message : other[0]) {
    EXPECT_FALSE(message.has_ack()) << "the other seat gets no answer";
  }
}

TEST_F(DeliveryTest, AnAnswerToAConnectionThatFollowsNoMatchGoesThroughReply) {
  // The same seat on a connection that is not subscribed (say, a seat file's command sent over
  // HTTP): its answer cannot join a delivery, so `reply` gets it.
  server::ConnectionState unsubscribed = connections_[0];
  unsubscribed.subscriber = std::make_shared<RecordingSubscriber>();
  v1::ClientMessage message = EnterUnits({Squad("G1", v1::SEAT_SIDE_A, 6, "6-4-7")}, true);
  message.set_command_id("enter-a");
  message.mutable_submit_setup()->set_match_id(match_.match_id);
  const auto replied = world_.Dispatch(message, unsubscribed);
  ASSERT_EQ(replied.size(), 1u);
  EXPECT_TRUE(replied[0].has_ack());
  EXPECT_EQ(replied[0].command_id(), "enter-a");
  const auto delivered = subscribers_[0]->Take();
  ASSERT_EQ(delivered.size(), 1u);
  for (const v1::ServerMessage& m : delivered[0]) EXPECT_FALSE(m.has_ack());
}

}  // namespace
}  // namespace melee
