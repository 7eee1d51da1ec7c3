#pragma once

// Plays asl close combats with the server's real, committed dice (whatever they roll: choices
// are answered as they come) and fetches match files over HTTP. For the fair-play tests.

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "melee/storage/v1/match_file.pb.h"
#include "server/match_file.h"
#include "tests/testing/asl_commands.h"
#include "tests/testing/http_get.h"
#include "tests/testing/match_client.h"

namespace melee::testing {

// The id of a helper unit (`base`: "G1" of side A, "R1" of side B) in the close combat in
// `location`: a unit fights on in its own Location, so each Location gets its own units.
inline std::string IdIn(const std::string& base, const std::string& location) {
  return location == "G3" ? base : base + "-" + location;
}

// Side A (the ATTACKER) orders the Locations of the CCPh (A11.12): their close combats are
// played in that order, and a Melee goes on into the next CCPh only after the last of them.
inline void OrderLocations(MatchClient& a, MatchClient& b, std::vector<std::string> locations) {
  melee::v1::ClientMessage order;
  for (std::string& name : locations) order.mutable_order_locations()->add_locations(name);
  ASSERT_TRUE(a.Act(order).has_ack());
  ASSERT_TRUE(b.WaitForSeq(a.last_seq()));
}

// Answers every pending choice (the first options allowed) until the close combat is over, and,
// when a Melee then goes on into the next CCPh (A11.15), until that close combat is set up.
inline void FinishCombat(MatchClient& a, MatchClient& b) {
  for (int round = 0; round < 50; ++round) {
    ASSERT_TRUE(a.WaitForSeq(b.last_seq()));
    ASSERT_TRUE(b.WaitForSeq(a.last_seq()));
    // Over once the last sealed declaration is followed by the end of its close combat.
    const std::vector<melee::v1::MatchEvent> seen = a.events();
    size_t sealed = 0;
    size_t ended = 0;
    for (size_t i = 0; i < seen.size(); ++i) {
      if (seen[i].has_declaration_sealed()) sealed = i;
      if (seen[i].has_match_ended()) ended = i;
    }
    if (ended > sealed) {
      // A Melee goes on by itself once no ordered Location remains: wait for its set-up.
      std::map<std::string, bool> melee_in;
      std::string location;
      for (const auto& event : seen) {
        if (event.asl().kind() == melee::asl::v1::EVENT_KIND_SET_UP) {
          location = event.asl().situation().location().name();
        }
        if (event.has_match_ended()) melee_in[location] = event.asl().melee();
      }
      bool goes_on = false;
      for (const auto& [name, melee] : melee_in) {
        bool side_a = false;
        bool side_b = false;
        for (const auto& unit : a.view().side_a_force()) {
          side_a = side_a || (unit.location() == name &&
                              unit.fate() == melee::v1::FORCE_FATE_PRESENT);
        }
        for (const auto& unit : a.view().side_b_force()) {
          side_b = side_b || (unit.location() == name &&
                              unit.fate() == melee::v1::FORCE_FATE_PRESENT);
        }
        goes_on = goes_on || (melee && side_a && side_b);
      }
      if (goes_on && a.view().location_order().remaining().empty()) {
        for (;;) {
          const std::vector<melee::v1::MatchEvent> now = a.events();
          bool set_up = false;
          for (size_t i = ended + 1; i < now.size(); ++i) {
            set_up = set_up || now[i].asl().kind() == melee::asl::v1::EVENT_KIND_SET_UP;
          }
          if (set_up) break;
          ASSERT_TRUE(a.WaitForSeq(a.last_seq() + 1));
        }
        ASSERT_TRUE(b.WaitForSeq(a.last_seq()));
      }
      return;
    }
    const std::vector<melee::v1::MatchEvent> events = a.events();
    const melee::v1::MatchEvent* pending = nullptr;
    for (const auto& event : events) {
      if (event.has_choice_requested()) pending = &event;
    }
    ASSERT_NE(pending, nullptr) << "the combat neither ended nor asks a choice: "
                                << a.view().ShortDebugString();
    const melee::v1::ChoiceRequested& choice = pending->choice_requested();
    melee::v1::ClientMessage answer;
    answer.mutable_make_choice()->set_choice_id(choice.choice_id());
    for (uint32_t i = 0; i < choice.min_selected() && i < static_cast<uint32_t>(choice.options_size());
         ++i) {
      answer.mutable_make_choice()->add_selected(choice.options(static_cast<int>(i)));
    }
    MatchClient& chooser = choice.seat() == melee::v1::SEAT_SIDE_A ? a : b;
    ASSERT_TRUE(chooser.Act(answer).has_ack());
  }
  FAIL() << "the close combat did not end";
}

// Both sides enter their units in `location` (a 6-4-7 G1 of side A, the ATTACKER, and a 4-4-7 R1
// of side B) and confirm: the close combat starts.
inline void EnterAndConfirm(MatchClient& a, MatchClient& b, const std::string& location = "G3") {
  melee::v1::ClientMessage setup =
      EnterUnits({Squad(IdIn("G1", location), melee::v1::SEAT_SIDE_A, 6, "6-4-7")}, true);
  setup.mutable_submit_setup()->mutable_asl()->mutable_location()->set_name(location);
  ASSERT_TRUE(a.Act(setup).has_ack());
  ASSERT_TRUE(
      b.Act(EnterUnits({Squad(IdIn("R1", location), melee::v1::SEAT_SIDE_B, 4, "4-4-7")}, false))
          .has_ack());
  for (MatchClient* client : {&a, &b}) {
    ASSERT_TRUE(client->WaitForSeq(std::max(a.last_seq(), b.last_seq())));
    ASSERT_TRUE(client->Act(Confirm()).has_ack());
  }
}

// After EnterAndConfirm: both announce nothing and side B seals R1's attack on G1 with
// `entropy_b`; the combat waits for side A's declaration.
inline void AnnounceAndSealSideB(MatchClient& a, MatchClient& b,
                                 const std::string& entropy_b = std::string(32, 'b'),
                                 const std::string& location = "G3") {
  for (MatchClient* client : {&a, &b}) {
    ASSERT_TRUE(client->WaitForSeq(std::max(a.last_seq(), b.last_seq())));
    ASSERT_TRUE(client->Act(AnnounceNothing()).has_ack());
  }
  ASSERT_TRUE(b.WaitForSeq(a.last_seq()));
  melee::v1::ClientMessage seal_b =
      Seal({{{IdIn("R1", location)}, {IdIn("G1", location)}}}, false);
  seal_b.mutable_seal_declaration()->set_client_entropy(entropy_b);
  ASSERT_TRUE(b.Act(seal_b).has_ack());
}

// One close combat in `location`: a 6-4-7 of side A (the ATTACKER) against a 4-4-7 of side B,
// each attacking the other, with the given client entropies.
inline void PlayCommittedCombat(MatchClient& a, MatchClient& b, const std::string& location,
                                const std::string& entropy_a = std::string(32, 'a'),
                                const std::string& entropy_b = std::string(32, 'b')) {
  EnterAndConfirm(a, b, location);
  AnnounceAndSealSideB(a, b, entropy_b, location);
  ASSERT_TRUE(a.WaitForSeq(b.last_seq()));
  melee::v1::ClientMessage seal_a =
      Seal({{{IdIn("G1", location)}, {IdIn("R1", location)}}}, false);
  seal_a.mutable_seal_declaration()->set_client_entropy(entropy_a);
  ASSERT_TRUE(a.Act(seal_a).has_ack());
  FinishCombat(a, b);
}

// GET /api/matches/{id}/export with `token`; the parsed file, or a failure.
inline melee::storage::v1::MatchFile ExportOver(uint16_t port, const std::string& match_id,
                                                const std::string& token) {
  const HttpResult result = HttpGet(port, "/api/matches/" + match_id + "/export", http::verb::get,
                                    {}, {{"Authorization", "Bearer " + token}});
  EXPECT_EQ(result.status, 200) << result.error << result.body;
  auto file = server::ParseMatchFile(result.body);
  EXPECT_TRUE(file.has_value()) << (file ? "" : engine::Describe(file.error()));
  return file ? *file : melee::storage::v1::MatchFile{};
}

}  // namespace melee::testing
