// The transfers that move shards from one sharding to another (reshard_transfers.hpp), worked by hand: which chip
// sends which piece to which, on meshes small enough to list every transfer.
#include "models/sharding/reshard_transfers.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "models/sharding/shardy_parse.hpp"

namespace podsim {
namespace {

TensorSharding shardy(const std::string& text) {
  return parse_shardy_sharding(text);
}

// f32[8] sharded over x=4 (2 elements, 8 bytes each), gathered: each chip receives the 3 shards it lacks, each from
// the chip that holds it: 12 transfers of 8 bytes, ordered by receiver then shard.
TEST(ReshardTransfers, AllGatherSendsEachChipTheShardsItLacks) {
  const Mesh mesh = make_mesh({{"x", 4}});
  const auto t = reshard_transfers({8}, DType::f32, shardy("<@m, [{\"x\"}]>"), shardy("<@m, [{}]>"), mesh, 100);
  ASSERT_EQ(t.size(), 12u);
  EXPECT_EQ(t[0], (ShardTransfer{1, 0, 8}));
  EXPECT_EQ(t[1], (ShardTransfer{2, 0, 8}));
  EXPECT_EQ(t[2], (ShardTransfer{3, 0, 8}));
  EXPECT_EQ(t[3], (ShardTransfer{0, 1, 8}));
  EXPECT_EQ(t[11], (ShardTransfer{2, 3, 8}));
}

// A slice needs nothing: every chip already holds its smaller shard.
TEST(ReshardTransfers, SliceNeedsNoTransfer) {
  const Mesh mesh = make_mesh({{"x", 2}, {"y", 2}});
  EXPECT_TRUE(reshard_transfers({4, 4}, DType::bf16, shardy("<@m, [{\"x\"}, {}]>"), shardy("<@m, [{\"x\"}, {\"y\"}]>"),
                                mesh, 10)
                  .empty());
}

// f32[256] from [{"model", "tile":(1)2}] to [{"tile"}] on data=2, tile=4, model=2 (position = 8d + 2t + m). The
// sub-axis "tile":(1)2 is tile's major digit t/2, so the old shard index is 2m + t/2 and the new one is t, both
// 64 elements. Chips with t = 2m + t/2 already hold theirs: (t, m) = (0, 0) and (3, 1), 2 of 8 per data row, so
// 12 chips receive 256 bytes. Receiver 1 = (0, 0, 1) needs shard 0, held with m = 0, t/2 = 0 and its own minor
// tile digit 0: chip 0. Receiver 2 = (0, 1, 0) needs shard 1: m = 0, t/2 = 1, minor digit 1, t = 3: chip 6.
TEST(ReshardTransfers, PermuteBetweenSubAxesFromTheNearestHolder) {
  const Mesh mesh = make_mesh({{"data", 2}, {"tile", 4}, {"model", 2}});
  const auto t = reshard_transfers({256}, DType::f32, shardy("<@m, [{\"model\", \"tile\":(1)2}]>"),
                                   shardy("<@m, [{\"tile\"}]>"), mesh, 100);
  ASSERT_EQ(t.size(), 12u);
  EXPECT_EQ(t[0], (ShardTransfer{0, 1, 256}));
  EXPECT_EQ(t[1], (ShardTransfer{6, 2, 256}));
  for (const auto& x : t)
    EXPECT_EQ(x.bytes, 256u);
}

// An all-gather over the minor sub-axis "tile":(2)2 of f32[64, 256] from [{"data"}, {"model", "tile":(2)2}] to
// [{"data"}, {"model"}]: each chip lacks the other half of its new 32x128 shard, 32x64x4 = 8192 bytes, from the
// chip whose minor tile digit differs: chip 0 = (0, 0, 0) from chip 2 = (0, 1, 0).
TEST(ReshardTransfers, GatherOverASubAxis) {
  const Mesh mesh = make_mesh({{"data", 2}, {"tile", 4}, {"model", 2}});
  const auto t = reshard_transfers({64, 256}, DType::f32, shardy("<@m, [{\"data\"}, {\"model\", \"tile\":(2)2}]>"),
                                   shardy("<@m, [{\"data\"}, {\"model\"}]>"), mesh, 100);
  ASSERT_EQ(t.size(), 16u);
  EXPECT_EQ(t[0], (ShardTransfer{2, 0, 8192}));
}

// A sum over y of x=2, y=4 (chip = 4x + y): 1000 bytes per chip in 4 pieces of 250; chip 0 sends chips 1, 2, 3
// the pieces they sum, and with the gather phase the same pairs again (its summed piece). 12 transfers per x row.
TEST(ReshardTransfers, ReductionScattersThenGathers) {
  const Mesh mesh = make_mesh({{"x", 2}, {"y", 4}});
  const auto r = reduction_transfers(1000, {AxisRef{"y", std::nullopt}}, mesh, true, 100);
  ASSERT_EQ(r.scatter.size(), 24u);
  ASSERT_EQ(r.gather.size(), 24u);
  EXPECT_EQ(r.scatter[0], (ShardTransfer{0, 1, 250}));
  EXPECT_EQ(r.scatter[2], (ShardTransfer{0, 3, 250}));
  EXPECT_EQ(r.scatter[12], (ShardTransfer{4, 5, 250}));
  EXPECT_TRUE(reduction_transfers(1000, {AxisRef{"y", std::nullopt}}, mesh, false, 100).gather.empty());
  // The sub-axis "y":(2)2 is y's minor digit: chip 0's partner is chip 1, 1000 bytes in 2 pieces of 500.
  const auto sub = reduction_transfers(1000, {AxisRef{"y", SubAxis{2, 2}}}, mesh, false, 100);
  ASSERT_EQ(sub.scatter.size(), 8u);
  EXPECT_EQ(sub.scatter[0], (ShardTransfer{0, 1, 500}));
  EXPECT_EQ(sub.scatter[2], (ShardTransfer{2, 3, 500}));
}

TEST(ReshardTransfers, RefusesReductionsAndTooManyTransfers) {
  const Mesh mesh = make_mesh({{"x", 4}});
  try {
    reshard_transfers({8}, DType::f32, shardy("<@m, [{}], unreduced={\"x\"}>"), shardy("<@m, [{}]>"), mesh, 100);
    ADD_FAILURE() << "no error";
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(), "a sharding with unreduced axes is reduced, not moved, got: unreduced \"x\"");
  }
  try {
    reshard_transfers({8}, DType::f32, shardy("<@m, [{\"x\"}]>"), shardy("<@m, [{}]>"), mesh, 11);
    ADD_FAILURE() << "no error";
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(), "the reshard needs more than 11 transfers");
  }
}

}  // namespace
}  // namespace podsim
