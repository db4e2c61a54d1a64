// The slice-placement rule both readers' default slices follow (sim/import/slice_placement.hpp).
#include "sim/import/slice_placement.hpp"

#include <gtest/gtest.h>

namespace podsim::import {
namespace {

using Dims = std::vector<std::int64_t>;

TEST(SlicePlacement, PaddedToThePodsRankAndBoundedByIt) {
  Dims dims{4, 2};
  EXPECT_EQ(place_on_pod(dims, {16, 16, 16}, 3), Placement::fits);
  EXPECT_EQ(dims, (Dims{4, 2, 1}));
  Dims three{2, 2, 2};
  EXPECT_EQ(place_on_pod(three, {16, 16}, 2), Placement::too_many_dims);
  Dims long_dim{32, 2};
  EXPECT_EQ(place_on_pod(long_dim, {16, 16}, 2), Placement::longer_than_pod);
  // Without a pod shape nothing bounds the dims; the rank is the caller's fallback.
  Dims free{64};
  EXPECT_EQ(place_on_pod(free, {}, slice_rank({}, 3)), Placement::fits);
  EXPECT_EQ(free, (Dims{64, 1, 1}));
  EXPECT_EQ(slice_rank({8, 8}, 3), 2u);
}

}  // namespace
}  // namespace podsim::import
