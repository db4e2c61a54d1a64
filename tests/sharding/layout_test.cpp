// Sharded layouts: the pop-quiz memory answers of the scaling-book seed notes and the local-shape, padding
// and device -> shard examples of SHARDY.md §7, each worked by hand in the comments.
#include "models/sharding/layout.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "models/common/error.hpp"
#include "models/sharding/book_notation.hpp"
#include "tests/support/sharding_builders.hpp"

namespace podsim {
namespace {

using test::axis;
using test::dim;
using test::sharding;
using test::sub_axis;
using test::verify_error;

TensorSharding book(const std::string& text) {
  return parse_book_sharding(text, "m").sharding;
}

constexpr std::uint64_t kMiB = 1024 * 1024;

// fp32[1024, 4096] as A[I_XY, J] on {X: 8, Y: 2}: I splits 16 ways, 1024/16 = 64 rows of 4096 fp32 each,
// 64 * 4096 * 4 = 1,048,576 bytes per device.
TEST(ShardedLayout, PopQuizFp32OverXY) {
  const Mesh mesh = make_mesh({{"X", 8}, {"Y", 2}});
  const Layout layout = compute_layout({1024, 4096}, DType::f32, book("A[I_XY, J]"), mesh);
  EXPECT_EQ(layout.shards_per_dim, (std::vector<std::int64_t>{16, 1}));
  EXPECT_EQ(layout.local_shape, (std::vector<std::int64_t>{64, 4096}));
  EXPECT_EQ(layout.padded_shape, (std::vector<std::int64_t>{1024, 4096}));
  EXPECT_EQ(layout.bytes_per_device, 1048576u);
  EXPECT_EQ(layout.global_bytes, 16 * kMiB);
  EXPECT_EQ(layout.num_devices, 16);
  EXPECT_EQ(layout.replication_factor, 1);
  EXPECT_DOUBLE_EQ(layout.memory_ratio, 1.0);
}

// int8[128, 2048] as A[I_XY, J] on {X: 2, Y: 8, Z: 2}: 128/16 = 8 rows of 2048 bytes = 16,384 bytes per
// device; 32 devices hold 524,288 bytes; Z replicates, so every shard exists twice.
TEST(ShardedLayout, PopQuizInt8ReplicatedOverZ) {
  const Mesh mesh = make_mesh({{"X", 2}, {"Y", 8}, {"Z", 2}});
  const Layout layout = compute_layout({128, 2048}, DType::int8, book("A[I_XY,J]"), mesh);
  EXPECT_EQ(layout.local_shape, (std::vector<std::int64_t>{8, 2048}));
  EXPECT_EQ(layout.bytes_per_device, 16384u);
  EXPECT_EQ(layout.num_devices, 32);
  EXPECT_EQ(layout.total_bytes, 524288u);
  EXPECT_EQ(layout.replication_factor, 2);
  EXPECT_DOUBLE_EQ(layout.memory_ratio, 2.0);
}

// W fp32[4096, 4096] as W[I_X, J_Z] on {X: 4, Y: 4, Z: 4}: 1024 x 1024 fp32 = 4 MiB per device; 64 devices
// hold 256 MiB of a 64 MiB matrix, ratio 4 (Y replicates).
TEST(ShardedLayout, Question1aTwoAxesOfAThreeAxisMesh) {
  const Mesh mesh = make_mesh({{"X", 4}, {"Y", 4}, {"Z", 4}});
  const Layout layout = compute_layout({4096, 4096}, DType::f32, book("W[I_X, J_Z]"), mesh);
  EXPECT_EQ(layout.local_shape, (std::vector<std::int64_t>{1024, 1024}));
  EXPECT_EQ(layout.bytes_per_device, 4 * kMiB);
  EXPECT_EQ(layout.global_bytes, 64 * kMiB);
  EXPECT_EQ(layout.total_bytes, 256 * kMiB);
  EXPECT_EQ(layout.replication_factor, 4);
  EXPECT_DOUBLE_EQ(layout.memory_ratio, 4.0);
}

// bf16[8, 2048, 4096] as X[I_XY, J, K] on {X: 2, Y: 8, Z: 4}: 8 rows over 16 shards pads I to 16, one row
// per device: 2048 * 4096 * 2 = 16 MiB per device, 64 devices = 1 GiB for a 128 MiB tensor, ratio 8.
TEST(ShardedLayout, Question1bPaddingOfAMultiAxisShard) {
  const Mesh mesh = make_mesh({{"X", 2}, {"Y", 8}, {"Z", 4}});
  const Layout layout = compute_layout({8, 2048, 4096}, DType::bf16, book("X[I_XY, J, K]"), mesh);
  EXPECT_EQ(layout.shards_per_dim, (std::vector<std::int64_t>{16, 1, 1}));
  EXPECT_EQ(layout.local_shape, (std::vector<std::int64_t>{1, 2048, 4096}));
  EXPECT_EQ(layout.padded_shape, (std::vector<std::int64_t>{16, 2048, 4096}));
  EXPECT_EQ(layout.bytes_per_device, 16777216u);
  EXPECT_EQ(layout.global_bytes, 128 * kMiB);
  EXPECT_EQ(layout.total_bytes, 1024 * kMiB);
  EXPECT_EQ(layout.replication_factor, 4);
  EXPECT_DOUBLE_EQ(layout.memory_ratio, 8.0);
}

// A[I_X, J, K] on {X: 4, Y: 8, Z: 2}: 64 devices, 4 shards, so 16 full copies.
TEST(ShardedLayout, Question1ReplicatedSharding) {
  const Mesh mesh = make_mesh({{"X", 4}, {"Y", 8}, {"Z", 2}});
  const Layout layout = compute_layout({64, 128, 256}, DType::bf16, book("A[I_X, J, K]"), mesh);
  EXPECT_EQ(layout.replication_factor, 16);
  EXPECT_DOUBLE_EQ(layout.memory_ratio, 16.0);
}

// SHARDY.md §7, dialect_test.cc: 8x4 on x=2, y=3, z=4. {"x","z"} splits 8 ways (8/8 = 1), {"y"} 3 ways
// (ceil(4/3) = 2); {"y"} on the 8 gives ceil(8/3) = 3, padded to 9.
TEST(ShardedLayout, ShardyLocalShapes) {
  const Mesh mesh = make_mesh({{"x", 2}, {"y", 3}, {"z", 4}});
  const Layout xz_y =
      compute_layout({8, 4}, DType::f32, sharding({dim({axis("x"), axis("z")}), dim({axis("y")})}), mesh);
  EXPECT_EQ(xz_y.local_shape, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(xz_y.padded_shape, (std::vector<std::int64_t>{8, 6}));
  const Layout y_none = compute_layout({8, 4}, DType::f32, sharding({dim({axis("y")}), dim({})}), mesh);
  EXPECT_EQ(y_none.local_shape, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(y_none.padded_shape, (std::vector<std::int64_t>{9, 4}));
  EXPECT_EQ(y_none.replication_factor, 8);  // x and z: 2 * 4
}

// 7x3x8 on x=8, y=2, z=3 sharded [{"x"},{"y"},{"z"}]: local 1x2x3, padded 8x4x9.
TEST(ShardedLayout, ShardyNonDivisibleExample) {
  const Mesh mesh = make_mesh({{"x", 8}, {"y", 2}, {"z", 3}});
  const TensorSharding s = sharding({dim({axis("x")}), dim({axis("y")}), dim({axis("z")})});
  const Layout layout = compute_layout({7, 3, 8}, DType::f32, s, mesh);
  EXPECT_EQ(layout.local_shape, (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(layout.padded_shape, (std::vector<std::int64_t>{8, 4, 9}));
  EXPECT_EQ(layout.bytes_per_device, 24u);  // 6 f32
  EXPECT_EQ(layout.total_bytes, 48u * 24u);
  EXPECT_EQ(layout.global_bytes, 7u * 3u * 8u * 4u);
  // Device L sits at x = L / 6, y = (L / 3) % 2, z = L % 3. Device 47 = (7, 1, 2): row 7 is padding only.
  EXPECT_EQ(shard_ranges({7, 3, 8}, s, mesh, 47), (std::vector<Range>{{7, 7}, {2, 3}, {6, 8}}));
  EXPECT_EQ(shard_ranges({7, 3, 8}, s, mesh, 0), (std::vector<Range>{{0, 1}, {0, 2}, {0, 3}}));
  // Device 10 = (1, 1, 1).
  EXPECT_EQ(shard_ranges({7, 3, 8}, s, mesh, 10), (std::vector<Range>{{1, 2}, {2, 3}, {3, 6}}));
}

TEST(ShardedLayout, PaddingShardsOfQuestion1b) {
  const Mesh mesh = make_mesh({{"X", 2}, {"Y", 8}, {"Z", 4}});
  const TensorSharding s = book("X[I_XY, J, K]");
  // Device L = 32 X + 4 Y + Z, shard index 8 X + Y: device 28 = (0, 7, 0) holds row 7; device 36 = (1, 1, 0)
  // has index 9, past the 8 real rows.
  EXPECT_EQ(shard_ranges({8, 2048, 4096}, s, mesh, 28), (std::vector<Range>{{7, 8}, {0, 2048}, {0, 4096}}));
  EXPECT_EQ(shard_ranges({8, 2048, 4096}, s, mesh, 36), (std::vector<Range>{{8, 8}, {0, 2048}, {0, 4096}}));
}

TEST(ShardedLayout, RankZeroTensorHoldsOneElement) {
  const Layout layout = compute_layout({}, DType::f32, sharding({}), make_mesh({{"x", 4}}));
  EXPECT_TRUE(layout.local_shape.empty());
  EXPECT_EQ(layout.bytes_per_device, 4u);
  EXPECT_EQ(layout.total_bytes, 16u);
  EXPECT_EQ(layout.replication_factor, 4);
  EXPECT_DOUBLE_EQ(layout.memory_ratio, 4.0);
}

TEST(ShardedLayout, SubByteTypesArePackedPerShard) {
  // int4[7] on x=2: 4 elements (2 bytes) per device; one copy is 28 bits = 4 bytes.
  const Layout layout = compute_layout({7}, DType::int4, sharding({dim({axis("x")})}), make_mesh({{"x", 2}}));
  EXPECT_EQ(layout.local_shape, (std::vector<std::int64_t>{4}));
  EXPECT_EQ(layout.bytes_per_device, 2u);
  EXPECT_EQ(layout.global_bytes, 4u);
  EXPECT_DOUBLE_EQ(layout.memory_ratio, 1.0);
}

TEST(ShardedLayout, EmptyTensorHasNoRatio) {
  const Layout layout =
      compute_layout({0, 8}, DType::f32, sharding({dim({axis("x")}), dim({})}), make_mesh({{"x", 2}}));
  EXPECT_EQ(layout.local_shape, (std::vector<std::int64_t>{0, 8}));
  EXPECT_EQ(layout.bytes_per_device, 0u);
  EXPECT_EQ(layout.global_bytes, 0u);
  EXPECT_DOUBLE_EQ(layout.memory_ratio, 0.0);
}

TEST(ShardedLayout, MaximalMeshKeepsEveryDimWhole) {
  const Layout layout = compute_layout({4, 4}, DType::bf16, sharding({}), make_mesh({}, {3}));
  EXPECT_EQ(layout.local_shape, (std::vector<std::int64_t>{4, 4}));
  EXPECT_EQ(layout.num_devices, 1);
  EXPECT_EQ(layout.bytes_per_device, 32u);
  EXPECT_EQ(layout.replication_factor, 1);
}

TEST(ShardedLayout, ReplicatedAndUnreducedAxesDoNotShrinkTheShard) {
  const Mesh mesh = make_mesh({{"x", 2}, {"y", 2}, {"z", 2}});
  TensorSharding s = sharding({dim({axis("x")}), dim({})});
  s.replicated = {axis("y")};
  s.unreduced = {axis("z")};
  const Layout layout = compute_layout({8, 8}, DType::f32, s, mesh);
  EXPECT_EQ(layout.local_shape, (std::vector<std::int64_t>{4, 8}));
  EXPECT_EQ(layout.replication_factor, 4);
}

TEST(ShardedLayout, Errors) {
  const Mesh mesh = make_mesh({{"x", 4}});
  EXPECT_EQ(verify_error([&] {
              compute_layout({8, 8}, DType::f32, sharding({dim({axis("x")})}), mesh);
            }),
            "sharding doesn't match tensor rank: 1 != 2");
  EXPECT_EQ(verify_error([&] { compute_layout({8}, DType::f32, sharding({dim({axis("q")})}), mesh); }),
            "unknown axis name: \"q\"");
  EXPECT_EQ(verify_error([&] { compute_layout({-1}, DType::f32, sharding({dim({})}), mesh); }),
            "dim 0 has a negative size, got: -1");
  EXPECT_EQ(verify_error([&] {
              compute_layout({8, 8}, DType::f32, sharding({dim({axis("x")}), dim({axis("x")})}), mesh);
            }),
            "product of the sharded sizes must divide the number of devices, got: 16 and 4 devices");
}

TEST(ShardedLayout, OverflowsAreReportedWithTheValue) {
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const Mesh mesh = make_mesh({{"x", 32}});
  // (2^63 - 1)^2 = 2^126 - 2^64 + 1.
  EXPECT_EQ(verify_error([&] {
              compute_layout({max, max}, DType::int8, sharding({dim({}), dim({})}), mesh);
            }),
            "element count of the local shard overflows 64 bits, got: 85070591730234615847396907784232501249");
  // 2^62 f32 elements are 2^64 bytes.
  EXPECT_EQ(verify_error([&] { compute_layout({std::int64_t{1} << 62}, DType::f32, sharding({dim({})}), mesh); }),
            "tensor size overflows 64-bit bytes, got: 4611686018427387904 elements");
  // 2^60 bytes on each of 32 devices: 2^65.
  EXPECT_EQ(verify_error([&] { compute_layout({std::int64_t{1} << 60}, DType::int8, sharding({dim({})}), mesh); }),
            "total bytes overflows 64 bits, got: 36893488147419103232");
}

// SHARDY.md §2/§7: <["a"=3, "b"=2], device_ids=[0, 2, 4, 1, 3, 5]> puts device 4 at position 2 = (a=1, b=0).
TEST(ShardIndex, HonoursDeviceIds) {
  const Mesh mesh = make_mesh({{"a", 3}, {"b", 2}}, {0, 2, 4, 1, 3, 5});
  const TensorSharding s = sharding({dim({axis("a")}), dim({axis("b")})});
  EXPECT_EQ(shard_index(s, mesh, 4), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(shard_index(s, mesh, 1), (std::vector<std::int64_t>{1, 1}));  // position 3
  EXPECT_EQ(shard_index(s, mesh, 2), (std::vector<std::int64_t>{0, 1}));  // position 1
  EXPECT_EQ(shard_index(s, mesh, 5), (std::vector<std::int64_t>{2, 1}));  // position 5
  EXPECT_EQ(verify_error([&] { shard_index(s, mesh, 6); }),
            "device is not in the mesh, got: 6 (the mesh has 6 devices)");
  EXPECT_EQ(verify_error([&] { shard_index(s, mesh, -1); }),
            "device is not in the mesh, got: -1 (the mesh has 6 devices)");
}

// SHARDY.md §7: [x=4, y=2] [{"x"},{"y"}] is the same layout as [devices=8] [{"devices":(1)4},{"devices":(4)2}].
TEST(ShardIndex, SubAxesOfOneAxisEqualTwoAxes) {
  const Mesh xy = make_mesh({{"x", 4}, {"y", 2}});
  const Mesh full = make_mesh({{"devices", 8}});
  const TensorSharding two_axes = sharding({dim({axis("x")}), dim({axis("y")})});
  const TensorSharding sub_axes = sharding({dim({sub_axis("devices", 1, 4)}), dim({sub_axis("devices", 4, 2)})});
  for (std::int64_t device = 0; device < 8; ++device)
    EXPECT_EQ(shard_index(two_axes, xy, device), shard_index(sub_axes, full, device)) << "device " << device;
  EXPECT_EQ(shard_index(sub_axes, full, 5), (std::vector<std::int64_t>{2, 1}));  // 5 = 2 * 2 + 1
}

// SHARDY.md §7: [a=4, b=2] sharded by "b" equals [x=2, y=2, z=2] sharded by "z": both are the minor bit.
TEST(ShardIndex, MinorAxisOfDifferentMeshes) {
  const TensorSharding b = sharding({dim({axis("b")})});
  const TensorSharding z = sharding({dim({axis("z")})});
  const Mesh ab = make_mesh({{"a", 4}, {"b", 2}});
  const Mesh xyz = make_mesh({{"x", 2}, {"y", 2}, {"z", 2}});
  for (std::int64_t device = 0; device < 8; ++device) {
    EXPECT_EQ(shard_index(b, ab, device), shard_index(z, xyz, device)) << "device " << device;
    EXPECT_EQ(shard_index(z, xyz, device), (std::vector<std::int64_t>{device % 2}));
  }
}

TEST(ShardIndex, SubAxisCoordinates) {
  // x=8, y=2: x = L / 2. "x":(2)2 is the middle bit of x viewed as [2, 2, 2]: (x / 2) % 2.
  const Mesh mesh = make_mesh({{"x", 8}, {"y", 2}});
  const TensorSharding middle = sharding({dim({sub_axis("x", 2, 2)})});
  EXPECT_EQ(shard_index(middle, mesh, 6), (std::vector<std::int64_t>{1}));   // x = 3
  EXPECT_EQ(shard_index(middle, mesh, 9), (std::vector<std::int64_t>{0}));   // x = 4
  EXPECT_EQ(shard_index(middle, mesh, 13), (std::vector<std::int64_t>{1}));  // x = 6
  // "x":(1)2 is x / 4, "x":(2)4 is x % 4.
  const TensorSharding split = sharding({dim({sub_axis("x", 1, 2)}), dim({sub_axis("x", 2, 4)})});
  EXPECT_EQ(shard_index(split, mesh, 13), (std::vector<std::int64_t>{1, 2}));  // x = 6
  EXPECT_EQ(shard_index(split, mesh, 7), (std::vector<std::int64_t>{0, 3}));   // x = 3
}

TEST(ShardIndex, MixedRadixFollowsTheDimsAxisOrder) {
  // x=2, y=3: device L = 3 x + y. [{"y","x"}] numbers shards y * 2 + x.
  const Mesh mesh = make_mesh({{"x", 2}, {"y", 3}});
  const TensorSharding s = sharding({dim({axis("y"), axis("x")})});
  EXPECT_EQ(shard_index(s, mesh, 4), (std::vector<std::int64_t>{3}));  // (1, 1)
  EXPECT_EQ(shard_index(s, mesh, 2), (std::vector<std::int64_t>{4}));  // (0, 2)
  EXPECT_EQ(shard_index(s, mesh, 5), (std::vector<std::int64_t>{5}));  // (1, 2)
}

TEST(ShardIndex, ReplicatedAxesDoNotIndex) {
  const Mesh mesh = make_mesh({{"x", 2}, {"y", 3}, {"z", 4}});
  TensorSharding s = sharding({dim({axis("y")}), dim({})});
  s.replicated = {axis("x")};
  // Device L = 12 x + 4 y + z: devices 8 and 20 (y = 2) hold rows [6, 8) of 8 (local ceil(8/3) = 3).
  EXPECT_EQ(shard_index(s, mesh, 8), (std::vector<std::int64_t>{2, 0}));
  EXPECT_EQ(shard_index(s, mesh, 20), (std::vector<std::int64_t>{2, 0}));
  EXPECT_EQ(shard_ranges({8, 4}, s, mesh, 20), (std::vector<Range>{{6, 8}, {0, 4}}));
  EXPECT_EQ(shard_ranges({8, 4}, s, mesh, 4), (std::vector<Range>{{3, 6}, {0, 4}}));
}

}  // namespace
}  // namespace podsim
