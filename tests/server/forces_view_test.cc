// WriteForces: the forces as each viewer sees them in a view, written straight from the forces.
// Its bytes must be those of a MatchView holding the same units (a client parses them as one),
// and a unit concealed from the viewer (A12.1: "?") must show nothing but that it is there.

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "server/forces.h"
#include "server/ruleset_host.h"

namespace melee::server {
namespace {

namespace v1 = melee::v1;
using engine::Viewer;

v1::ForceUnit Squad(const std::string& id, v1::Seat owner, bool concealed) {
  v1::ForceUnit unit;
  unit.set_id(id);
  unit.set_owner(owner);
  unit.set_location("B1");
  unit.set_fate(v1::FORCE_FATE_PRESENT);
  unit.set_changed_seq(4);
  unit.set_last_change("entered B1");
  unit.mutable_asl()->set_id(id);
  unit.mutable_asl()->set_owner(owner);
  unit.mutable_asl()->set_name("4-4-7");
  unit.mutable_asl()->set_firepower(4);
  unit.mutable_asl()->set_concealed(concealed);
  return unit;
}

// Side A: a squad; side B: a squad and a concealed squad; side B's Force Morale carried.
Forces Held() {
  Forces forces;
  forces[0].units.push_back(Squad("A1", v1::SEAT_SIDE_A, false));
  forces[1].units.push_back(Squad("B1", v1::SEAT_SIDE_B, false));
  forces[1].units.push_back(Squad("B2", v1::SEAT_SIDE_B, true));
  forces[1].force_morale = 7;
  return forces;
}

std::string Written(const RulesetHost& host, const Forces& forces, Viewer viewer,
                    UnitBytes* kept = nullptr) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    WriteForces(host, forces, viewer, out, kept);
  }
  return bytes;
}

constexpr Viewer kViewers[] = {Viewer::kSideA, Viewer::kSideB, Viewer::kDirector,
                               Viewer::kSpectator};

TEST(ForcesViewTest, WrittenForcesAreTheBytesOfAViewHoldingThem) {
  const std::unique_ptr<const RulesetHost> host = MakeAslHost();
  const Forces forces = Held();
  for (const Viewer viewer : kViewers) {
    SCOPED_TRACE(static_cast<int>(viewer));
    v1::MatchView expected;
    *expected.add_side_a_force() = forces[0].units[0];
    *expected.add_side_b_force() = forces[1].units[0];
    v1::ForceUnit& b2 = *expected.add_side_b_force();
    if (viewer == Viewer::kSideB || viewer == Viewer::kDirector) {
      b2 = forces[1].units[1];
    } else {
      b2.set_id("B2");
      b2.set_owner(v1::SEAT_SIDE_B);
      b2.set_location("B1");
      b2.set_fate(v1::FORCE_FATE_PRESENT);
      b2.set_hidden(true);
    }
    expected.set_side_b_force_morale(7);
    EXPECT_EQ(Written(*host, forces, viewer), expected.SerializeAsString());
  }
}

// A12.1: the other side's "?" shows that a unit is there and where; not what it is, nor when or
// how it last changed.
TEST(ForcesViewTest, AConcealedUnitShowsTheOtherSideOnlyThatItIsThere) {
  const std::unique_ptr<const RulesetHost> host = MakeAslHost();
  v1::MatchView view;
  ASSERT_TRUE(view.ParseFromString(Written(*host, Held(), Viewer::kSideA)));
  ASSERT_EQ(view.side_b_force_size(), 2);
  const v1::ForceUnit& shown = view.side_b_force(1);
  EXPECT_TRUE(shown.hidden());
  EXPECT_EQ(shown.id(), "B2");
  EXPECT_EQ(shown.location(), "B1");
  EXPECT_FALSE(shown.has_asl());
  EXPECT_EQ(shown.changed_seq(), 0u);
  EXPECT_EQ(shown.last_change(), "");
  EXPECT_EQ(view.side_b_force(0).asl().name(), "4-4-7");  // B1 is not concealed
  const std::string bytes = Written(*host, Held(), Viewer::kSideA);
  EXPECT_EQ(bytes.find("entered B1", bytes.find("B2")), std::string::npos);
}

// Units kept as bytes (UnitBytes) are written as they would be serialized now: a unit changed
// since (in place, or in a copy that shares the others) is serialized again, never shown stale,
// and the copy it changed in leaves the original's bytes alone.
TEST(ForcesViewTest, KeptUnitBytesAreWrittenAsTheUnitsAreNow) {
  const std::unique_ptr<const RulesetHost> host = MakeAslHost();
  Forces forces = Held();
  UnitBytes kept;
  const auto same_as_unkept = [&](const Forces& now) {
    for (const Viewer viewer : kViewers) {
      SCOPED_TRACE(static_cast<int>(viewer));
      EXPECT_EQ(Written(*host, now, viewer, &kept), Written(*host, now, viewer));
    }
  };
  same_as_unkept(forces);

  v1::ForceUnit& b1 = forces[1].units.Mutable(0);  // changed where it is held
  b1.set_fate(v1::FORCE_FATE_ELIMINATED);
  b1.set_last_change("eliminated in CC in B1");
  same_as_unkept(forces);
  EXPECT_NE(Written(*host, forces, Viewer::kSideA, &kept).find("eliminated in CC in B1"),
            std::string::npos);

  Forces copy = forces;  // shares every unit
  copy[0].units.Mutable(0).set_location("B2");
  copy[1].units.push_back(Squad("B3", v1::SEAT_SIDE_B, false));
  same_as_unkept(copy);
  same_as_unkept(forces);  // the original, with the same kept bytes after the copy's
  EXPECT_EQ(forces[0].units[0].location(), "B1");

  // A unit that lost "?" is written whole to the other side from then on.
  forces[1].units.Mutable(1).mutable_asl()->set_concealed(false);
  same_as_unkept(forces);
  v1::MatchView view;
  ASSERT_TRUE(view.ParseFromString(Written(*host, forces, Viewer::kSideA, &kept)));
  EXPECT_FALSE(view.side_b_force(1).hidden());
}

// A concealed unit's kept bytes (its owner's view) never reach the other side: after the owner's
// view kept them, the other side's view of the same forces still shows only the "?".
TEST(ForcesViewTest, BytesKeptForTheOwnerDoNotLeakAConcealedUnit) {
  const std::unique_ptr<const RulesetHost> host = MakeAslHost();
  const Forces forces = Held();
  UnitBytes kept;
  Written(*host, forces, Viewer::kSideB, &kept);  // B2 kept whole for its owner
  Written(*host, forces, Viewer::kDirector, &kept);
  const std::string to_a = Written(*host, forces, Viewer::kSideA, &kept);
  EXPECT_EQ(to_a, Written(*host, forces, Viewer::kSideA));
  EXPECT_EQ(to_a.find("entered B1", to_a.find("B2")), std::string::npos);
  EXPECT_EQ(Written(*host, forces, Viewer::kSpectator, &kept),
            Written(*host, forces, Viewer::kSpectator));
}

}  // namespace
}  // namespace melee::server
