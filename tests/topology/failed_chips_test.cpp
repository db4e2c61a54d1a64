// Failed chips (failed_chips.hpp, docs/topology.md "Failed chips"): a failed chip fails every link touching it, the
// figures count the working chips only, and the id, cut-off and program rules, all worked by hand.
#include "models/topology/failed_chips.hpp"

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "models/topology/failed_links.hpp"
#include "models/topology/slice.hpp"
#include "models/topology/topology_figures.hpp"

namespace podsim {
namespace {

Slice without_chips(std::vector<std::int64_t> shape, std::vector<bool> wrap, std::vector<ChipId> chips) {
  return Slice(std::move(shape), std::move(wrap), false, SliceFailures{{}, std::move(chips), {}});
}

// Chip 5 (1,1) of a 4x4 torus has 4 cables (x+, x-, y+, y-): 8 directed links fail, ids and names kept.
TEST(FailedChips, AFailedChipFailsEveryLinkTouchingIt) {
  const Slice s = without_chips({4, 4}, {true, true}, {5});
  EXPECT_TRUE(s.has_failures());
  EXPECT_TRUE(s.chip_failed(5));
  EXPECT_FALSE(s.chip_failed(6));
  EXPECT_EQ(s.failed_chips(), (std::vector<ChipId>{5}));
  EXPECT_EQ(s.working_chips(), 15);
  EXPECT_EQ(s.num_links(), 64);
  ASSERT_EQ(s.failed_links().size(), 8u);
  for (const LinkId id : s.failed_links())
    EXPECT_TRUE(s.link(id).src == 5 || s.link(id).dst == 5) << s.link(id).name;
  // On a 4x4 mesh chip 5 also has 4 neighbours; chip 0, a corner, only 2: 4 directed links.
  EXPECT_EQ(without_chips({4, 4}, {false, false}, {0}).failed_links().size(), 4u);
}

// A 4x4 torus without chip 5 (1,1). A ring of 4 has two shortest ways between coordinates 2 apart, so every pair of
// working chips keeps a shortest path that avoids (1,1): no distance changes. The whole torus sums 16 chips x 32 hops
// (per chip, per dim: 4 rows of 0+1+2+1) = 512 over ordered pairs; taking chip 5 out removes its 32 hops each way:
// 448 over 15 x 14 = 210 ordered pairs, mean 448 / 210 = 2.133; diameter still 4 ((0,0) to (2,2)). The cut halving
// x crosses 2 links per column (middle and wrap) one way, 8, less chip 5's x+ link to (2,1): 7.
TEST(FailedChips, FiguresOfA4x4TorusWithoutChip5) {
  const Slice s = without_chips({4, 4}, {true, true}, {5});
  const TopologyFigures f = topology_figures(s, WrapRule::always);
  EXPECT_EQ(f.chips, 15);
  EXPECT_EQ(f.links, 64);
  EXPECT_EQ(f.diameter_hops, 4);
  EXPECT_DOUBLE_EQ(f.mean_hops, 448.0 / 210.0);
  EXPECT_EQ(f.bisection_links, 7);
}

// A 4x4 mesh without chip 5 (1,1). The whole mesh sums 2 dims x 4^2 x 20 (a line of 4: 4 x 15 / 3) = 640; chip 5 has
// 4 hops per dim to the 4 coordinates (1+0+1+2), 32 in all, each way: 640 - 64 = 576. A pair loses its shortest
// paths only when they all run through (1,1): the straight pairs (0,1)-(2,1), (0,1)-(3,1), (1,0)-(1,2), (1,0)-(1,3),
// each 2 hops longer around it (2 -> 4, 3 -> 5), 4 pairs x 2 directions x 2 = 16: 592 / 210 = 2.819. Diameter 6
// ((0,0) to (3,3)); the cut halving x crosses 4 links, less chip 5's: 3.
TEST(FailedChips, FiguresOfA4x4MeshWithoutChip5) {
  const Slice s = without_chips({4, 4}, {false, false}, {5});
  const TopologyFigures f = topology_figures(s, WrapRule::never);
  EXPECT_EQ(f.chips, 15);
  EXPECT_EQ(f.diameter_hops, 6);
  EXPECT_DOUBLE_EQ(f.mean_hops, 592.0 / 210.0);
  EXPECT_EQ(f.bisection_links, 3);
}

TEST(FailedChips, IdsAreChipsOfTheSliceListedOnce) {
  const Slice plain({4, 4}, {true, true});
  EXPECT_FALSE(failed_chips_issue(plain, {5, 0, 15}));
  const auto out = failed_chips_issue(plain, {5, 16});
  ASSERT_TRUE(out);
  EXPECT_EQ(out->index, 1u);
  EXPECT_EQ(out->message, "a failed chip must be a chip id of the slice 4x4 (0 to 15), got: 16");
  const auto negative = failed_chips_issue(plain, {-1});
  ASSERT_TRUE(negative);
  EXPECT_EQ(negative->message, "a failed chip must be a chip id of the slice 4x4 (0 to 15), got: -1");
  const auto twice = failed_chips_issue(plain, {5, 6, 5});
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->index, 2u);
  EXPECT_EQ(twice->message, "a failed chip is listed once, got: chip 5 (1,1) again");
  // All four chips of a 2x2 failed: nothing is left to describe. Three of four leave one working chip.
  const Slice small({2, 2}, {false, false});
  const auto all = failed_chips_issue(small, {3, 0, 1, 2});
  ASSERT_TRUE(all);
  EXPECT_EQ(all->index, 3u);
  EXPECT_EQ(all->message, "failed chips must leave a working chip, got: all 4 chips of 2x2 failed");
  EXPECT_FALSE(failed_chips_issue(small, {0, 1, 2}));
  EXPECT_EQ(split_chip_ids("5, 70"), (std::vector<std::int64_t>{5, 70}));
  EXPECT_THROW(split_chip_ids("5,,6"), VerifyError);
  EXPECT_THROW(split_chip_ids("5,-1"), VerifyError);
  EXPECT_THROW(split_chip_ids("5x"), VerifyError);
  EXPECT_EQ(chips_text(plain, {0, 5}), "chip 0 (0,0), chip 5 (1,1)");
}

// Chips 1 and 4 are the only neighbours of corner chip 0 of a 4x4 mesh: it is cut off from the other 13 working chips.
TEST(FailedChips, FailuresThatCutWorkingChipsOffAreRefused) {
  const Slice s = without_chips({4, 4}, {false, false}, {1, 4});
  EXPECT_EQ(cut_off_chips(s), (std::vector<ChipId>{0}));
  EXPECT_EQ(*failed_links_issue(s),
            "failed chips and links must leave every working chip reachable from every other over the working links, "
            "got: 1 chip(s) cut off from the other 13 working chips: chip 0 (0,0)");
  // One failed chip alone cuts nothing off (it is out of the work, not cut off).
  EXPECT_FALSE(failed_links_issue(without_chips({4, 4}, {false, false}, {0})));
}

TEST(FailedChips, AProgramNeedsEveryChip) {
  const Slice s = without_chips({4, 4}, {true, true}, {5});
  EXPECT_EQ(*unreplaced_chips_issue(s, false),
            "a sharded program runs on every chip of its slice, so a failed chip must be replaced: plan the work on a "
            "smaller slice without it (a slice that is not of whole 4x4x4 cubes of a generation built of them has no "
            "spare cubes), got: 1 failed chip(s) not replaced: chip 5 (1,1)");
  EXPECT_FALSE(unreplaced_chips_issue(Slice({4, 4}, {true, true}), false));
}

}  // namespace
}  // namespace podsim
