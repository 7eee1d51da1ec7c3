#pragma once

// Plays an asl close combat to its end over real WebSockets, for the tests that kill, pause or
// move a server in the middle of one (tests/integration/process_test.cc, tests/cluster/).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "melee/asl/v1/asl.pb.h"
#include "melee/v1/envelope.pb.h"
#include "tests/testing/match_client.h"

namespace melee::testing {

// Answers every choice the server's dice bring (nobody withdraws; the first unit of a capture
// set) until the close combat is over (a Melee then goes on into the next CCPh by itself).
inline void PlayOut(MatchClient& a, MatchClient& b) {
  const auto over = [&] {
    return a.view().stage() == melee::v1::STAGE_ENDED || a.view().ccph() > 1;
  };
  for (int round = 0; round < 20 && !over(); ++round) {
    for (MatchClient* client : {&a, &b}) {
      const melee::asl::v1::AslView& view = client->view().asl();
      if (!view.has_pending() || view.pending().seat() != client->view().seat()) continue;
      melee::v1::ClientMessage choose;
      choose.mutable_make_choice()->set_choice_id(std::to_string(view.pending().id()));
      if (view.pending().min_selected() > 0) {
        choose.mutable_make_choice()->add_selected(view.pending().options(0));
      }
      ASSERT_TRUE(client->Act(choose).has_ack());
    }
    const uint64_t seq = std::max(a.last_seq(), b.last_seq());
    ASSERT_TRUE(a.WaitForSeq(seq));
    ASSERT_TRUE(b.WaitForSeq(seq));
  }
  EXPECT_TRUE(over());
}

}  // namespace melee::testing
