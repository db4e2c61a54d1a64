// Shards: i/N parsed with its rule, points by index mod N, every point in exactly one shard.
#include "sim/sweep/sweep_shard.hpp"

#include <gtest/gtest.h>

#include "models/common/error.hpp"

namespace podsim {
namespace {

TEST(SweepShard, PointsAreTheIndicesModN) {
  EXPECT_EQ(shard_points(10, parse_shard("1/3")), (std::vector<std::size_t>{1, 4, 7}));
  EXPECT_EQ(shard_points(10, parse_shard("0/1")).size(), 10u);
  EXPECT_TRUE(shard_points(2, parse_shard("2/3")).empty());
  std::size_t covered = 0;
  for (std::size_t i = 0; i < 4; ++i)
    covered += shard_points(11, {i, 4}).size();
  EXPECT_EQ(covered, 11u);
}

TEST(SweepShard, BadShardsNameTheRule) {
  for (const char* text : {"3/2", "2/2", "1/0", "a/b", "1", "-1/2", "1/2/3", ""}) {
    try {
      parse_shard(text);
      ADD_FAILURE() << text;
    } catch (const VerifyError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("a shard is i/N with 0 <= i < N, got: \"") + text + "\"");
    }
  }
}

}  // namespace
}  // namespace podsim
