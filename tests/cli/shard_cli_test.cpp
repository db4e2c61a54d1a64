// `podsim shard` end to end: the issue's worked answers through each notation, the JSON contract, the device map,
// and bad input (exit 2, `error: WHERE: WHAT` on stderr, the error object on stdout with --json).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_run.hpp"

namespace {

using podsim::test::CliRun;
using podsim::test::json_of;
using podsim::test::run_podsim;

TEST(ShardCli, PopQuizOneInEveryNotation) {
  // fp32[1024, 4096] as A[I_XY, J] on X=8, Y=2: I split 16 ways -> [64, 4096], 64 * 4096 * 4 = 1,048,576 bytes.
  for (const char* sharding : {"'A[I_XY, J]'", "'<@mesh, [{\"X\", \"Y\"}, {}]>'", "\"P(('X', 'Y'), None)\""}) {
    const CliRun run =
        run_podsim(std::string("shard --mesh X=8,Y=2 --shape 1024x4096 --dtype f32 --json --sharding ") + sharding);
    ASSERT_EQ(run.code, 0) << run.err;
    const auto j = json_of(run);
    EXPECT_EQ(j["schema"], "podsim/1");
    EXPECT_EQ(j["local_shape"], nlohmann::json({64, 4096})) << sharding;
    EXPECT_EQ(j["bytes_per_device"], 1048576);
    EXPECT_EQ(j["total_bytes"], 16 * 1048576);
    EXPECT_EQ(j["num_devices"], 16);
    EXPECT_EQ(j["replication_factor"], 1);
    EXPECT_EQ(j["printed"]["shardy"], "<@mesh, [{\"X\", \"Y\"}, {}]>");
    EXPECT_EQ(j["printed"]["book"], "A[I_XY, J]");
    EXPECT_EQ(j["printed"]["pspec"], "P(('X', 'Y'), None)");
  }
}

TEST(ShardCli, ReplicatedAxisAndPadding) {
  // int8[128, 2048] as A[I_XY, J] on X=2, Y=8, Z=2: 8 x 2048 = 16,384 bytes per device, 32 devices -> 524,288.
  CliRun run = run_podsim("shard --mesh X=2,Y=8,Z=2 --shape 128x2048 --dtype int8 --sharding 'A[I_XY, J]' --json");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(json_of(run)["bytes_per_device"], 16384);
  EXPECT_EQ(json_of(run)["total_bytes"], 524288);
  EXPECT_EQ(json_of(run)["replication_factor"], 2);
  // bf16[8, 2048, 4096] as [I_XY, J, K] on X=2, Y=8, Z=4: I pads 8 -> 16, 1 x 2048 x 4096 x 2 = 16 MiB per device.
  run = run_podsim("shard --mesh X=2,Y=8,Z=4 --shape 8x2048x4096 --dtype bf16 --sharding 'X[I_XY, J, K]' --json");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(json_of(run)["padded_shape"], nlohmann::json({16, 2048, 4096}));
  EXPECT_EQ(json_of(run)["bytes_per_device"], 16777216);
  EXPECT_EQ(json_of(run)["memory_ratio"], 8.0);
}

TEST(ShardCli, DeviceMapHonoursDeviceIds) {
  // SHARDY.md §2: <["a"=3, "b"=2], device_ids=[0, 2, 4, 1, 3, 5]> puts device 4 at (a=1, b=0).
  const CliRun run = run_podsim(
      "shard --mesh 'm=<[\"a\"=3, \"b\"=2], device_ids=[0, 2, 4, 1, 3, 5]>' --shape 6x4 "
      "--sharding '<@m, [{\"a\"}, {\"b\"}]>' --devices --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = json_of(run);
  EXPECT_EQ(j["shard_index_by_device"]["4"], nlohmann::json({1, 0}));
  EXPECT_EQ(j["shard_index_by_device"]["1"], nlohmann::json({1, 1}));  // position 3 = (a=1, b=1)
  EXPECT_EQ(j["shard_index_by_device"].size(), 6u);
}

TEST(ShardCli, InlineMeshNeedsNoMeshFlag) {
  CliRun run = run_podsim(R"(shard --sharding '<mesh<["a"=2, "b"=2]>, [{"a"}, {"b"}]>' --shape 4x4)");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("tensor: f32[4, 4] on inline mesh <[\"a\"=2, \"b\"=2]>\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("shardy:            <mesh<[\"a\"=2, \"b\"=2]>, [{\"a\"}, {\"b\"}]>\n"), std::string::npos);
  EXPECT_NE(run.out.find("local shape:       [2, 2]\n"), std::string::npos) << run.out;
  // device_ids=[1, 0]: device 1 holds shard 0.
  run = run_podsim(R"(shard --sharding '<mesh<["a"=2], device_ids=[1, 0]>, [{"a"}]>' --shape 4 --devices --json)");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(json_of(run)["mesh"], "inline");
  EXPECT_EQ(json_of(run)["shard_index_by_device"]["1"], nlohmann::json({0}));
  EXPECT_EQ(json_of(run)["shard_index_by_device"]["0"], nlohmann::json({1}));
  // The maximal mesh: one device, id 3, holding the whole tensor.
  run = run_podsim(R"(shard --sharding '<mesh<[], device_ids=[3]>, []>' --shape 4x4 --devices --json)");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(json_of(run)["local_shape"], nlohmann::json({4, 4}));
  EXPECT_EQ(json_of(run)["shard_index_by_device"].size(), 1u);
  EXPECT_EQ(json_of(run)["shard_index_by_device"]["3"], nlohmann::json::array());  // one index per sharded dim: none
  run = run_podsim(R"(shard --sharding '<mesh<["a"=2, "b"=2]>, [{}, {"c"}]>' --shape 4x4)");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: --sharding: unknown axis name: \"c\"\n");
  run = run_podsim("shard --sharding 'A[I_X, J]' --shape 4x4");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: --mesh: at least one mesh is required unless the sharding inlines one, got: none\n");
}

TEST(ShardCli, MeshOnlyIsDescribed) {
  const CliRun run = run_podsim("shard --mesh X=4,Y=2");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("mesh @mesh: X=4, Y=2, 8 devices"), std::string::npos) << run.out;
}

TEST(ShardCli, ParseErrorsNameTheFlagAndColumn) {
  const CliRun run =
      run_podsim("shard --mesh X=8,Y=2 --shape 1024x4096 --sharding '<@mesh, [{\"X\"}, {?, \"Y\"}]>' --json");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: --sharding: column 19: expected '}'\n");
  const auto j = json_of(run);
  EXPECT_EQ(j["error"]["stage"], "parse");
  EXPECT_EQ(j["error"]["column"], 19);  // the comma after `?`
  EXPECT_EQ(j["error"]["message"], "expected '}'");
}

TEST(ShardCli, VerifyErrorsCarryShardysMessage) {
  CliRun run = run_podsim("shard --mesh X=8,Y=2 --shape 1024x4096 --sharding 'A[I_X, J_X]'");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: --sharding: duplicate axis ref: \"X\"\n");
  run = run_podsim("shard --mesh X=8,Y=2 --shape 1024x4096 --sharding '<@mesh, [{\"X\"}]>' --json");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(json_of(run)["error"]["stage"], "verify");
  EXPECT_EQ(json_of(run)["error"]["message"], "sharding doesn't match tensor rank: 1 != 2");
  run = run_podsim("shard --mesh X=8,Y=2 --shape 1024x4096 --sharding '<@other, [{\"X\"}, {}]>'");
  EXPECT_EQ(run.err, "error: --sharding: unknown mesh: @other\n");
}

TEST(ShardCli, BadMeshShapeAndDtype) {
  CliRun run = run_podsim("shard --mesh X=8,Y=0");
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "error: --mesh: column 7: axis size must be at least 1, got: 0\n");
  run = run_podsim("shard --mesh X=8 --shape 10y4 --sharding 'A[I_X, J]'");
  EXPECT_EQ(run.err, "error: --shape: column 3: expected 'x' between dimension sizes, got: \"y\"\n");
  run = run_podsim("shard --mesh X=8 --shape 16x4 --dtype f64 --sharding 'A[I_X, J]'");
  EXPECT_EQ(run.err,
            "error: --dtype: unknown dtype, got: f64 (expected one of f32, bf16, f16, int8, int4, fp8_e4m3, "
            "fp8_e5m2)\n");
  run = run_podsim("shard --mesh X=8 --sharding 'A[I_X, J]'");
  EXPECT_EQ(run.err, "error: --shape: a shape is required with --sharding, got: none\n");
}

TEST(ShardCli, SubAxesCannotBeAPartitionSpec) {
  const CliRun run =
      run_podsim("shard --mesh 'm=<[\"x\"=4]>' --shape 8x8 --sharding '<@m, [{\"x\":(1)2}, {\"x\":(2)2}]>' --json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = json_of(run);
  EXPECT_TRUE(j["printed"]["pspec"].is_null());
  EXPECT_NE(j["printed"]["pspec_error"].get<std::string>().find("a PartitionSpec cannot express sub-axes"),
            std::string::npos)
      << j.dump();
  EXPECT_EQ(j["local_shape"], nlohmann::json({4, 4}));
}

}  // namespace
