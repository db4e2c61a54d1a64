// Shardy's explicit collectives and the entry function (docs/import.md, "Shardy's explicit collectives"): the
// module tests/import/data/shardy_explicit_block.mlir imported and run, every collective and send checked against
// the bytes its shardings imply, worked by hand; the refusals, located.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "models/common/error.hpp"
#include "sim/import/import_error.hpp"
#include "sim/import/stablehlo_module.hpp"
#include "tests/cli/cli_run.hpp"
#include "tests/import/import_test_files.hpp"

namespace podsim::import {
namespace {

using namespace podsim::import::fixtures;

const ImportedOp* op_named(const ImportedModule& m, const std::string& name) {
  for (const auto& op : m.ops)
    if (op.name == name) return &op;
  return nullptr;
}

// Sends named `prefix.K`, and their bytes in all.
std::pair<int, std::int64_t> sends(const ImportedModule& m, const std::string& prefix) {
  std::pair<int, std::int64_t> out{0, 0};
  for (const auto& op : m.ops)
    if (op.kind == ImportedOpKind::send && op.name.rfind(prefix + ".", 0) == 0) {
      ++out.first;
      out.second += op.bytes;
    }
  return out;
}

// The plan's ops of `podsim run SCENARIO --format json` by name (empty when the run fails, with the failure
// reported).
std::map<std::string, nlohmann::json> run_ops(const std::string& scenario) {
  const auto run = test::run_podsim("run " + scenario + " --format json");
  EXPECT_EQ(run.code, 0) << run.err;
  std::map<std::string, nlohmann::json> ops;
  if (run.code != 0) return ops;
  const auto report = nlohmann::json::parse(run.out);
  for (const auto& op : report["plans"][0]["ops"])
    ops[op["name"].get<std::string>()] = op;
  return ops;
}

// Mesh data=2, tile=4, model=2; chip = 8 data + 2 tile + model. The entry is @block, the module's only public
// function.
TEST(ImportExplicit, EachCollectiveAsShardyDecidedIt) {
  const ImportedModule m = read_module("shardy_explicit_block.mlir");
  // The dot [data, tile] x [tile, model] keeps its partial sums over tile for the module's own all-reduce.
  ASSERT_NE(op_named(m, "v0"), nullptr);
  EXPECT_EQ(op_named(m, "v0")->sharding, "<@mesh, [{\"data\"}, {\"model\"}], unreduced={\"tile\"}>");
  const ImportedOp* v1 = op_named(m, "v1");
  ASSERT_NE(v1, nullptr);
  EXPECT_EQ(v1->kind, ImportedOpKind::all_reduce);
  EXPECT_EQ(v1->lhs, "v0");
  EXPECT_EQ(v1->axes, (std::vector<std::string>{"tile"}));
  EXPECT_EQ(op_named(m, "v2")->kind, ImportedOpKind::all_gather);
  EXPECT_EQ(op_named(m, "v2")->axes, (std::vector<std::string>{"model"}));
  // The all-slice is local: no op, a view.
  EXPECT_EQ(op_named(m, "v3"), nullptr);
  // The reduce over the tile-sharded dim leaves its partial sums to sdy.all_reduce, which reads them.
  EXPECT_EQ(op_named(m, "v4_finish"), nullptr);
  EXPECT_EQ(op_named(m, "v5")->lhs, "v4_partial");
  // Collective permute [{"model", "tile":(1)2}] -> [{"tile"}] of f32[256]: 12 of 16 chips lack their 64-element
  // shard (256 bytes); reshard_transfers_test.cpp works the pairs.
  EXPECT_EQ(sends(m, "v7"), (std::pair<int, std::int64_t>{12, 12 * 256}));
  // [{"data"}, {"tile"}] -> [{"data"}, {"model", "tile":(2)2}] of f32[64, 256]: the new dim-1 shard of chip
  // (t, m) is 2m + t%2, its old one t; they agree when m = t/2, for 4 of 8 per data row: 8 sends of 32x64x4 bytes.
  EXPECT_EQ(sends(m, "v10"), (std::pair<int, std::int64_t>{8, 8 * 8192}));
  // The all-gather over the sub-axis "tile":(2)2: every chip receives the other half of its 32x128 shard.
  EXPECT_EQ(sends(m, "v11"), (std::pair<int, std::int64_t>{16, 16 * 8192}));
  EXPECT_EQ(op_named(m, "v12")->kind, ImportedOpKind::reshard);
  const ImportedOp* v13 = op_named(m, "v13");
  EXPECT_EQ(v13->kind, ImportedOpKind::all_to_all);
  EXPECT_EQ(v13->axes, (std::vector<std::string>{"data"}));
  EXPECT_EQ(v13->dim, 0);
  EXPECT_EQ(v13->to_dim, 1);
}

// Imported and run: the all-reduce of the dot's 32x256 f32 partial sums over the 4 tile chips moves the book's
// V = 32 KiB; the all-gather over model gives each chip 32x512 f32 (V = 64 KiB); the all-reduce of the reduce's
// partial sums, 32 f32 (128 bytes). The result leaves in the return's layout: no further communication.
TEST(ImportExplicit, RunsWithTheModulesCollectives) {
  const std::string out = ::testing::TempDir() + "/explicit_block.json";
  const auto imported =
      test::run_podsim("import " + data_path("shardy_explicit_block.mlir") + " --hardware tpu-v5p -o " + out);
  ASSERT_EQ(imported.code, 0) << imported.err;
  EXPECT_NE(imported.out.find("on a 2x4x2 tpu-v5p slice"), std::string::npos) << imported.out;
  EXPECT_NE(imported.out.find("sdy.collective_permute: a collective permute: 12 sends `v7.K`"), std::string::npos)
      << imported.out;
  auto ops = run_ops(out);
  ASSERT_FALSE(ops.empty());
  ASSERT_EQ(ops["v1"]["collectives"].size(), 1u);
  EXPECT_EQ(ops["v1"]["collectives"][0]["kind"], "all-reduce");
  EXPECT_EQ(ops["v1"]["collectives"][0]["array_bytes"], 32 * 256 * 4);
  EXPECT_EQ(ops["v2"]["collectives"][0]["array_bytes"], 32 * 512 * 4);
  EXPECT_EQ(ops["v5"]["collectives"][0]["array_bytes"], 32 * 4);
  EXPECT_TRUE(ops["v0"]["collectives"].empty());
  EXPECT_TRUE(ops["result0"]["collectives"].empty());
}

TEST(ImportExplicit, EntryFunction) {
  const std::string text = read_text(data_path("shardy_explicit_block.mlir"));
  EXPECT_NO_THROW(parse_stablehlo_module(text, "m.mlir", "block"));
  try {
    parse_stablehlo_module(text, "m.mlir", "main");
    ADD_FAILURE() << "no error";
  } catch (const ImportOptionError& e) {
    EXPECT_EQ(e.field(), ImportOption::function);
    EXPECT_STREQ(e.what(), "the module has no function @main (its functions: @block)");
  }
  const std::string out = ::testing::TempDir() + "/explicit_entry.json";
  const auto wrong = test::run_podsim("import " + data_path("shardy_explicit_block.mlir") +
                                      " --hardware tpu-v5p --function nope -o " + out);
  EXPECT_EQ(wrong.code, 2);
  EXPECT_NE(wrong.err.find("error: --function: the module has no function @nope (its functions: @block)"),
            std::string::npos)
      << wrong.err;
  const auto hlo = test::run_podsim("import " + data_path("hlo_collectives.hlo") + " --function main -o " + out);
  EXPECT_EQ(hlo.code, 2);
  EXPECT_NE(hlo.err.find("error: --function: a partitioned HLO module is imported from its ENTRY computation"),
            std::string::npos)
      << hlo.err;
}

// Shardy's own reshard-to-collectives output (tests/import/data/shardy_reshard_to_collectives.mlir, four public
// functions on x=4, y=2, z=4): each function by --function, f32[16, 8, 8].
TEST(ImportExplicit, ShardysReshardToCollectivesOutput) {
  const std::string text = read_text(data_path("shardy_reshard_to_collectives.mlir"));
  // Two all-to-alls of one whole axis each, in Shardy's earlier `{"x"} 1->0` form.
  const ImportedModule two = parse_stablehlo_module(text, "m.mlir", "two_all_to_alls_different_tgt_dims");
  ASSERT_EQ(two.ops.size(), 2u);
  EXPECT_EQ(two.ops[0].kind, ImportedOpKind::all_to_all);
  EXPECT_EQ(two.ops[0].axes, (std::vector<std::string>{"x"}));
  EXPECT_EQ(two.ops[0].dim, 1);
  EXPECT_EQ(two.ops[0].to_dim, 0);
  EXPECT_EQ(two.ops[1].axes, (std::vector<std::string>{"y"}));
  // [{"x"}, {"z"}, {"y"}] -> [{"x", "z":(2)2}, {"z":(1)2}, {"y"}]: the new dim-0 shard (2 rows) lies in the chip's
  // own 4 rows; of the new dim-1 shard (4 of 8 columns, by z's major digit) the chip holds 2 (by z), and the other 2
  // are on the chip whose z differs in the minor digit: one piece of 2 x 2 x (8 / y = 4) f32 = 64 bytes for each of
  // the 32 chips. The gather over "z":(1)2 then brings the other 4 columns: 2 x 4 x 4 f32 = 128 bytes each.
  const ImportedModule sub = parse_stablehlo_module(text, "m.mlir", "all_to_all_subaxis_then_all_gather");
  EXPECT_EQ(sub.ops.front().kind, ImportedOpKind::all_to_all);
  EXPECT_EQ(sends(sub, "v1"), (std::pair<int, std::int64_t>{32, 32 * 64}));
  EXPECT_EQ(sends(sub, "v2"), (std::pair<int, std::int64_t>{32, 32 * 128}));
  EXPECT_EQ(stablehlo_error_of(text),
            "m.mlir: no @main and several public functions (@two_all_to_alls_different_tgt_dims, "
            "@two_all_to_alls_tgt_dim_not_empty, @slice_then_all_to_alls, @all_to_all_subaxis_then_all_gather): give "
            "the one to import with --function NAME");
  // Each runs, its values checked against the dense reference (functional mode).
  for (const char* f : {"two_all_to_alls_tgt_dim_not_empty", "slice_then_all_to_alls"}) {
    const std::string out = ::testing::TempDir() + "/reshard_" + f + ".json";
    ASSERT_EQ(test::run_podsim("import " + data_path("shardy_reshard_to_collectives.mlir") + " --function " + f +
                               " --hardware tpu-v5p -o " + out)
                  .code,
              0);
    const auto run = test::run_podsim("run " + out);
    EXPECT_EQ(run.code, 0) << run.err;
    EXPECT_NE(run.out.find("values: match the dense reference"), std::string::npos) << run.out;
  }
}

// A module with one explicit collective on %arg0 of f32[16, 8] on x=2, y=2.
std::string one_op(const std::string& arg_sharding, const std::string& op) {
  return "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n"
         "func.func @f(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, " +
         arg_sharding + ">}) -> tensor<16x8xf32> {\n    %0 = " + op + " : tensor<16x8xf32>\n" +
         "    return %0 : tensor<16x8xf32>\n  }\n";
}

TEST(ImportExplicit, ReduceScatterAndAllToAll) {
  const ImportedModule rs =
      parse_stablehlo_module(one_op("[{}, {}], unreduced={\"y\"}",
                                    "sdy.reduce_scatter [{}, {\"y\"}] %arg0 out_sharding=<@mesh, [{}, {\"y\"}]>"),
                             "m.mlir");
  ASSERT_EQ(rs.ops.size(), 1u);
  EXPECT_EQ(rs.ops[0].kind, ImportedOpKind::reduce_scatter);
  EXPECT_EQ(rs.ops[0].axes, (std::vector<std::string>{"y"}));
  EXPECT_EQ(rs.ops[0].dim, 1);
  // Two parameters: sends. [{"x"}, {"y"}] -> [{"y"}, {"x"}] of f32[16, 8]: chip (a, b) held rows 8a.., columns
  // 4b..; it needs rows 8b.., columns 4a..: a 8x4 f32 block (128 bytes), its own only when a = b: 2 sends.
  const ImportedModule a2a = parse_stablehlo_module(
      one_op("[{\"x\"}, {\"y\"}]",
             "sdy.all_to_all [{\"x\"}: 0->1, {\"y\"}: 1->0] %arg0 out_sharding=<@mesh, [{\"y\"}, {\"x\"}]>"),
      "m.mlir");
  int sends = 0;
  for (const auto& op : a2a.ops)
    if (op.kind == ImportedOpKind::send) {
      ++sends;
      EXPECT_EQ(op.bytes, 128);
    }
  EXPECT_EQ(sends, 2);
}

// An all-reduce over the sub-axis "x":(1)2 of x=4 (y=2; chip = 2x + y, so the sub-axis, x's major digit, pairs
// chip p with p + 4 or p - 4), of f32[16, 8] split over y: 8x8 f32 = 256 bytes of partial sums per chip. Done
// directly: each chip sends its partner the half the partner sums (128 bytes), then the half it summed (128 bytes).
TEST(ImportExplicit, ReductionOverASubAxisAsDirectSends) {
  const std::string text =
      "sdy.mesh @mesh = <[\"x\"=4, \"y\"=2]>\n"
      "func.func @f(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"y\"}, {}], "
      "unreduced={\"x\":(1)2}>}) -> tensor<16x8xf32> {\n"
      "    %0 = sdy.all_reduce {\"x\":(1)2} %arg0 out_sharding=<@mesh, [{\"y\"}, {}]> : tensor<16x8xf32>\n"
      "    return %0 : tensor<16x8xf32>\n  }\n";
  const ImportedModule m = parse_stablehlo_module(text, "m.mlir");
  EXPECT_EQ(sends(m, "v0"), (std::pair<int, std::int64_t>{16, 16 * 128}));  // v0.rsK, then v0.agK
  int scatter = 0, gather = 0;
  for (const auto& op : m.ops) {
    ASSERT_EQ(op.kind, ImportedOpKind::send);
    EXPECT_EQ(op.bytes, 128);
    EXPECT_EQ(std::abs(op.from_chip - op.to_chip), 4);
    (op.name.find(".rs") != std::string::npos ? scatter : gather) += 1;
    // A gather send waits for the one piece its sender summed.
    if (op.name.find(".ag") != std::string::npos) EXPECT_EQ(op.after.size(), 1u);
  }
  EXPECT_EQ(scatter, 8);
  EXPECT_EQ(gather, 8);
}

TEST(ImportExplicit, RefusalsAreLocated) {
  EXPECT_EQ(stablehlo_error_of(
                one_op("[{\"x\"}, {}]", "sdy.all_gather [{\"x\"}, {}] %arg0 out_sharding=<@mesh, [{\"y\"}, {}]>")),
            "m.mlir:3:10: sdy.all_gather of \"x\" from <@mesh, [{\"x\"}, {}]> does not give its out_sharding <@mesh, "
            "[{\"y\"}, {}]>");
  EXPECT_EQ(stablehlo_error_of(one_op("[{\"x\"}, {}]", "sdy.all_gather [{\"x\"}, {}] %arg0")),
            "m.mlir:3:10: sdy.all_gather: no out_sharding");
  EXPECT_EQ(stablehlo_error_of(one_op("[{\"x\"}, {}]", "sdy.all_gather %arg0 out_sharding=<@mesh, [{}, {}]>")),
            "m.mlir:3:25: sdy.all_gather: expected its axes [...] after the op name");
}

// tenstorrent/tt-mlir's shard_map module: mesh x=1, y=2, both manual. The operands move to their in_shardings (a
// slice: no communication); each chip multiplies [8192, 392] by [392, 16384] (2 * 8192 * 392 * 16384 flops) and
// the psum over y is an all-reduce of the 8192x16384 f32 partial product, V = 512 MiB, between the 2 chips.
TEST(ImportManual, ShardMapMatmulWithItsPsum) {
  const ImportedModule m = read_module("shardy_manual_computation.mlir");
  ASSERT_NE(op_named(m, "v0_v1"), nullptr);
  EXPECT_EQ(op_named(m, "v0_v1")->kind, ImportedOpKind::matmul);
  EXPECT_EQ(op_named(m, "v0_in0")->sharding, "<@mesh, [{\"x\"}, {\"y\"}]>");
  const ImportedOp* psum = op_named(m, "v0_v2");
  ASSERT_NE(psum, nullptr);
  EXPECT_EQ(psum->kind, ImportedOpKind::all_reduce);
  EXPECT_EQ(psum->axes, (std::vector<std::string>{"y"}));
  const std::string out = ::testing::TempDir() + "/shard_map_matmul.json";
  ASSERT_EQ(test::run_podsim("import " + data_path("shardy_manual_computation.mlir") + " -o " + out).code, 0);
  auto ops = run_ops(out);
  ASSERT_FALSE(ops.empty());
  EXPECT_EQ(ops["v0_v1"]["flops"], 2.0 * 8192 * 392 * 16384);
  EXPECT_TRUE(ops["v0_v1"]["collectives"].empty());
  ASSERT_EQ(ops["v0_v2"]["collectives"].size(), 1u);
  EXPECT_EQ(ops["v0_v2"]["collectives"][0]["array_bytes"], 8192.0 * 16384 * 4);
  EXPECT_EQ(ops["v0_v2"]["collectives"][0]["group_size"], 2);
  EXPECT_TRUE(ops["v0_in0"]["collectives"].empty());
}

// tests/import/data/shard_map_collectives.mlir: mesh x=4, y=2, manual over x (device = 2x + y, so the groups
// [[0, 2, 4, 6], [1, 3, 5, 7]] are x's). The body's [16, 32] block keeps y on its columns: 16 of them per chip.
TEST(ImportManual, EachCollectiveOverTheAxesOfItsGroups) {
  const std::string out = ::testing::TempDir() + "/shard_map_collectives.json";
  const auto imported = test::run_podsim("import " + data_path("shard_map_collectives.mlir") +
                                         " --hardware tpu-v5p --slice 4x2x1 -o " + out);
  ASSERT_EQ(imported.code, 0) << imported.err;
  auto ops = run_ops(out);
  ASSERT_FALSE(ops.empty());
  const auto sends = std::count_if(ops.begin(), ops.end(), [](const auto& op) { return op.second["kind"] == "send"; });
  // The all-gather over x: each chip ends with the 64 rows of its 16 columns, V = 64 * 16 * 4 bytes.
  EXPECT_EQ(ops["v0_v1"]["collectives"][0]["kind"], "all-gather");
  EXPECT_EQ(ops["v0_v1"]["collectives"][0]["axes"], (nlohmann::json{"x"}));
  EXPECT_EQ(ops["v0_v1"]["collectives"][0]["array_bytes"], 64 * 16 * 4);
  // The reduce-scatter of those partial rows back to 16 per chip: V = 64 * 16 * 4 bytes, over the 4 x chips.
  EXPECT_EQ(ops["v0_v2"]["collectives"][0]["kind"], "reduce-scatter");
  EXPECT_EQ(ops["v0_v2"]["collectives"][0]["array_bytes"], 64 * 16 * 4);
  EXPECT_EQ(ops["v0_v2"]["collectives"][0]["group_size"], 4);
  EXPECT_EQ(ops["v0_v3"]["collectives"][0]["kind"], "all-to-all");
  // The ring permute over x: 8 sends of the [64, 8] block's 64 x 4 columns per chip (y still splits 8 in 2).
  EXPECT_EQ(sends, 8);
  EXPECT_EQ(ops["v0_v4.0"]["bytes_sent"], 64 * 4 * 4);
}

// The shard_map collective matmul (tests/import/data/shard_map_collective_matmul.mlir) against podsim's own
// collective matmul of the same shapes on the same hardware (the imported scenario's, uncalibrated): each chip
// multiplies 4 blocks, [128, 2048] x [2048, 2048] f32, c = 23.02 us each (HBM-bound: 18 MiB), while the 1 MiB block
// moves one chip along the Y line's ring, t = 3 x 1 us + 1048576 / 4.5e10 = 26.30 us for the pair that wraps over
// 3 links. The import simulates the book's closed form of a collective matmul, c + 3t: its permute ends on a chip
// when the chip's own send has ended too (XLA's collective-permute-done), so every step waits for the wrapping
// pair. podsim's own collective matmul gives the same closed form; its des lets a chip start once its block has
// arrived, 4 us sooner.
TEST(ImportManual, ShardMapCollectiveMatmulIsTheBooksClosedForm) {
  const std::string dir = ::testing::TempDir();
  const std::string out = dir + "/shard_map_cm.json";
  ASSERT_EQ(test::run_podsim("import " + data_path("shard_map_collective_matmul.mlir") + " -o " + out).code, 0);
  const auto imported = nlohmann::json::parse(read_text(out));
  nlohmann::json own = {{"name", "own"},
                        {"hardware", imported["hardware"]},
                        {"slice", imported["slice"]},
                        {"mesh", "X=2,Y=4"},
                        {"dtype", "f32"},
                        {"tensors",
                         {{"A", {{"shape", {1024, 2048}}, {"sharding", "A[B_XY, D]"}}},
                          {"W", {{"shape", {2048, 8192}}, {"sharding", "W[D, F_Y]"}}}}},
                        {"program",
                         {{{"op", "matmul"},
                           {"name", "out"},
                           {"lhs", "A"},
                           {"rhs", "W"},
                           {"einsum", "BD,DF->BF"},
                           {"out", "Out"},
                           {"out_sharding", "Out[B_X, F_Y]"},
                           {"collective_matmul", true}}}}};
  const std::string own_path = dir + "/own_cm.json";
  std::ofstream(own_path) << own.dump();
  const auto run_import = test::run_podsim("run " + out + " --uncalibrated --format json");
  const auto run_own = test::run_podsim("run " + own_path + " --uncalibrated --format json");
  ASSERT_EQ(run_import.code, 0) << run_import.err;
  ASSERT_EQ(run_own.code, 0) << run_own.err;
  const auto a = nlohmann::json::parse(run_import.out)["plans"][0];
  const auto b = nlohmann::json::parse(run_own.out)["plans"][0];
  double c = 0;
  for (const auto& op : a["ops"])
    if (op["name"] == "v0_v1") c = op["book_time_s"];
  EXPECT_NEAR(c, 18.0 * 1048576 / 8.2e11, 1e-9);
  const double t = 3 * 1e-6 + 1048576 / 4.5e10;
  EXPECT_NEAR(a["des_time_s"].get<double>(), c + 3 * t, 1e-9);
  EXPECT_NEAR(a["des_time_s"].get<double>(), b["book_time_s"].get<double>(), 1e-9);
  EXPECT_NEAR(b["des_time_s"].get<double>(), c + 3 * t - 4e-6, 0.1e-6);
}

// tests/import/data/shard_map_nested.mlir: on x=2, y=2, f32[8, 8] split [x, y] is a 4x4 block per chip in the
// inner body; its all-reduces run over y (the groups [[0, 1], [2, 3]], device = 2x + y) and then over x ([[0, 2],
// [1, 3]]), each of the block's 64 bytes.
TEST(ImportManual, NestedRegions) {
  const std::string out = ::testing::TempDir() + "/shard_map_nested.json";
  ASSERT_EQ(test::run_podsim("import " + data_path("shard_map_nested.mlir") + " --slice 2x2 -o " + out).code, 0);
  auto ops = run_ops(out);
  ASSERT_FALSE(ops.empty());
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops["v0_v1_v2"]["collectives"][0]["axes"], (nlohmann::json{"y"}));
  EXPECT_EQ(ops["v0_v1_v2"]["collectives"][0]["array_bytes"], 4 * 4 * 4);
  EXPECT_EQ(ops["v0_v1_v3"]["collectives"][0]["axes"], (nlohmann::json{"x"}));
  EXPECT_EQ(ops["v0_v1_v3"]["collectives"][0]["array_bytes"], 4 * 4 * 4);
}

// tests/import/data/shard_map_in_loop.mlir: the loop's 3 iterations each read the region again; each permute is 4
// sends of a chip's 4x8 f32 block (128 bytes), so 12 sends in all, one iteration after the other.
TEST(ImportManual, RegionsInsideLoops) {
  const ImportedModule m = read_module("shard_map_in_loop.mlir");
  for (const char* it : {"w_i0_m_r", "w_i1_m_r", "w_i2_m_r"})
    EXPECT_EQ(sends(m, it), (std::pair<int, std::int64_t>{4, 4 * 128})) << it;
  const std::string out = ::testing::TempDir() + "/shard_map_in_loop.json";
  ASSERT_EQ(test::run_podsim("import " + data_path("shard_map_in_loop.mlir") + " --slice 4x1 -o " + out).code, 0);
  auto ops = run_ops(out);
  EXPECT_EQ(ops.size(), 12u);
  // The third iteration's sends start once the second's have ended.
  EXPECT_GE(ops["w_i2_m_r.0"]["des_start_s"].get<double>(), ops["w_i1_m_r.0"]["des_end_s"].get<double>());
}

TEST(ImportManual, RefusalsAreLocated) {
  const std::string mesh = "sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n";
  const std::string sig =
      "func.func @f(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>}) -> "
      "tensor<16x8xf32> {\n";
  const std::string region =
      "    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"x\"}, {}]>] out_shardings=[<@mesh, "
      "[{\"x\"}, {}]>] manual_axes={\"x\"} (%arg1: tensor<8x8xf32>) {\n";
  const std::string end =
      "      sdy.return %1 : tensor<8x8xf32>\n    } : (tensor<16x8xf32>) -> tensor<16x8xf32>\n"
      "    return %0 : tensor<16x8xf32>\n  }\n";
  // Groups over y, which is not manual here.
  EXPECT_EQ(stablehlo_error_of(mesh + sig + region +
                               "      %1 = \"stablehlo.all_gather\"(%arg1) <{all_gather_dim = 0 : i64, "
                               "replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>}> : "
                               "(tensor<8x8xf32>) -> tensor<16x8xf32>\n" +
                               end),
            "m.mlir:4:70: stablehlo.all_gather: replica_groups [0, 1], [2, 3] are not the groups of any manual mesh "
            "axes of the enclosing region(s)");
  // A body argument whose type is not the in_sharding's local shape.
  std::string wrong = region;
  wrong.replace(wrong.find("tensor<8x8xf32>"), 15, "tensor<4x8xf32>");
  EXPECT_EQ(stablehlo_error_of(mesh + sig + wrong + "      %1 = stablehlo.tanh %arg1 : tensor<4x8xf32>\n" + end),
            "m.mlir:3:132: body argument %arg1 has shape 4x8, its in_sharding gives 8x8");
  // A body that returns two values for a region of one result.
  EXPECT_EQ(stablehlo_error_of(mesh + sig + region + "      %1 = stablehlo.tanh %arg1 : tensor<8x8xf32>\n" +
                               "      sdy.return %1, %1 : tensor<8x8xf32>, tensor<8x8xf32>\n    } : (tensor<16x8xf32>) "
                               "-> tensor<16x8xf32>\n    return %0 : tensor<16x8xf32>\n  }\n"),
            "m.mlir:3:10: the manual computation has 1 result(s), its body returns 2 and it has 1 out_shardings");
  // StableHLO's collectives outside a manual region.
  EXPECT_EQ(stablehlo_error_of(mesh + sig +
                               "    %1 = \"stablehlo.all_gather\"(%arg0) <{all_gather_dim = 0 : i64, replica_groups = "
                               "dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>}> : (tensor<16x8xf32>) -> "
                               "tensor<32x8xf32>\n"),
            "m.mlir:3:10: \"stablehlo.all_gather\" outside a manual region (sdy.manual_computation) is not read: "
            "podsim plans the communication of automatic code from its shardings");
}

}  // namespace
}  // namespace podsim::import
