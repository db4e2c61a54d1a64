// podsim import of the ops a JAX MLP or transformer layer prints (sim/import, docs/import.md): constants,
// broadcast_in_dim, reshape, transpose, convert, reduce, compare/select, iota, slice, private function calls, and
// the refusals. Expectations are worked out by hand from the module texts in tests/import/data/ (FLOPs = elements
// per op, per-device shapes = global / shards of each dim, collectives from the shardings).
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "models/sharding/layout.hpp"
#include "sim/import/import_scenario.hpp"
#include "sim/import/stablehlo_module.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "tests/cli/cli_run.hpp"
#include "tests/import/import_test_files.hpp"

namespace podsim::import {
namespace {

using namespace podsim::import::fixtures;

const ImportedOp& op_named(const ImportedModule& m, const std::string& name) {
  for (const auto& op : m.ops)
    if (op.name == name) return op;
  ADD_FAILURE() << "no op " << name;
  static const ImportedOp none;
  return none;
}

const ImportedTensor& tensor_named(const ImportedModule& m, const std::string& name) {
  for (const auto& t : m.tensors)
    if (t.name == name) return t;
  ADD_FAILURE() << "no tensor " << name;
  static const ImportedTensor none;
  return none;
}

TEST(ImportMlp, OpsEinsumsAndDependencies) {
  const auto m = read_module("mlp_loss.mlir");
  // Program: v0 matmul, v2 add (after v2_read0, the load of the bias it adds), v3_v0 tanh (inlined @act), v5
  // scale, v6 matmul, v7 square, v8 reduce, v8_finish.
  std::vector<std::string> names;
  for (const auto& op : m.ops)
    names.push_back(op.name);
  EXPECT_EQ(names, (std::vector<std::string>{"v0", "v2_read0", "v2", "v3_v0", "v5", "v6", "v7", "v8", "v8_finish"}));
  EXPECT_EQ(op_named(m, "v0").einsum, "AB,BC->AC");
  EXPECT_EQ(op_named(m, "v2").lhs, "v0");
  // The bias is a broadcast of the argument %arg2: the add's other operand reads the argument's bytes.
  EXPECT_EQ(op_named(m, "v2_read0").kind, ImportedOpKind::load);
  EXPECT_EQ(op_named(m, "v2_read0").lhs, "arg2");
  EXPECT_EQ(op_named(m, "v2").after, (std::vector<std::string>{"v2_read0"}));
  EXPECT_EQ(op_named(m, "v3_v0").lhs, "v2");  // @act's tanh, on the caller's value
  EXPECT_EQ(op_named(m, "v3_v0").line, 23);   // the line inside @act
  EXPECT_EQ(op_named(m, "v5").lhs, "v3_v0");  // the constant 0.5 is folded away
  EXPECT_EQ(op_named(m, "v6").lhs, "v5");
  // The reduce: 1 flop per input element, then the partial sums over "x" (dim 0 of %7 is sharded by x) are
  // reduced by a reshard that podsim lowers to an all-reduce.
  EXPECT_EQ(op_named(m, "v8").kind, ImportedOpKind::elementwise);
  EXPECT_EQ(op_named(m, "v8").flops_per_element, 1);
  EXPECT_EQ(op_named(m, "v8").lhs, "v7");
  EXPECT_EQ(op_named(m, "v8_finish").kind, ImportedOpKind::reshard);
  EXPECT_EQ(op_named(m, "v8_finish").lhs, "v8_partial");
  EXPECT_EQ(op_named(m, "v8_finish").sharding, "<@mesh, []>");
  EXPECT_EQ(tensor_named(m, "v8_partial").sharding, "<@mesh, [], unreduced={\"x\"}>");
  // %6's layout is needed by the reduce: fixed to the propagation of [B_x, F_y] x [F_y, D] -> [B_x, D].
  EXPECT_EQ(op_named(m, "v6").sharding, "<@mesh, [{\"x\"}, {}]>");
  // The reshape 256x1024 -> 256x8x128 keeps the sharded dim 0 whole.
  EXPECT_EQ(tensor_named(m, "v9").shape, (std::vector<std::int64_t>{256, 8, 128}));
  EXPECT_EQ(tensor_named(m, "v9").sharding, "<@mesh, [{\"x\"}, {}, {}]>");
  EXPECT_EQ(m.results, (std::vector<std::string>{"v8", "v9"}));
  ASSERT_EQ(m.approximations.size(), 3u);  // the pinned out_sharding, the reduce, the reshape
  EXPECT_EQ(m.approximations[1].op, "stablehlo.reduce");
  EXPECT_EQ(m.approximations[1].line, 18);
}

TEST(ImportMlp, PerDeviceShapesAndFlops) {
  const auto m = read_module("mlp_loss.mlir");
  const auto spec = load_scenario_text(scenario_from_module(m, "m.mlir", "tpu-v5e", {4, 2}).dump(), "i.json");
  EXPECT_EQ(local_shape(spec, "arg0"), (std::vector<std::int64_t>{64, 1024}));    // 256 / x=4
  EXPECT_EQ(local_shape(spec, "arg1"), (std::vector<std::int64_t>{1024, 2048}));  // 4096 / y=2
  EXPECT_EQ(local_shape(spec, "arg2"), (std::vector<std::int64_t>{2048}));
  EXPECT_EQ(local_shape(spec, "arg3"), (std::vector<std::int64_t>{2048, 1024}));
  EXPECT_EQ(local_shape(spec, "v9"), (std::vector<std::int64_t>{64, 8, 128}));
  EXPECT_EQ(local_shape(spec, "v8_partial"), (std::vector<std::int64_t>{}));
}

TEST(ImportMlp, RunPlansTheAllReduces) {
  const std::string out = ::testing::TempDir() + "/imported_mlp_loss.json";
  const auto imported = test::run_podsim("import " + data_path("mlp_loss.mlir") + " -o " + out);
  ASSERT_EQ(imported.code, 0) << imported.err;
  // The approximations are printed, located.
  EXPECT_NE(imported.out.find("3 approximations"), std::string::npos) << imported.out;
  EXPECT_NE(imported.out.find("mlp_loss.mlir:18: stablehlo.reduce: "), std::string::npos) << imported.out;
  const auto doc = nlohmann::json::parse(read_text(out));
  EXPECT_EQ(doc["source"]["format"], "stablehlo-shardy");
  EXPECT_EQ(doc["source"]["approximations"].size(), 3u);
  EXPECT_EQ(doc["source"]["approximations"][2]["line"], 19);
  const auto run = test::run_podsim("run " + out + " --format json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  // The op rows, wherever the report holds them: v6 contracts the y-sharded hidden dim (an all-reduce over y of
  // its 64x1024 bf16 shard, 128 KiB); v8_finish sums the x-partial scalars (an all-reduce over x of 2 bytes).
  std::map<std::string, nlohmann::json> collectives, flops;
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& j) {
    if (j.is_object()) {
      if (j.contains("name") && j.contains("collectives")) {
        collectives[j["name"]] = j["collectives"];
        flops[j["name"]] = j.value("flops", nlohmann::json());
      }
      for (const auto& [k, v] : j.items())
        walk(v);
    } else if (j.is_array()) {
      for (const auto& v : j)
        walk(v);
    }
  };
  walk(report);
  ASSERT_EQ(collectives["v6"].size(), 1u) << run.out.substr(0, 2000);
  EXPECT_EQ(collectives["v6"][0]["kind"], "all-reduce");
  EXPECT_EQ(collectives["v6"][0]["axes"], (nlohmann::json{"y"}));
  EXPECT_EQ(collectives["v6"][0]["array_bytes"], 64 * 1024 * 2);  // the 64x1024 bf16 shard of v6
  ASSERT_EQ(collectives["v8_finish"].size(), 1u);
  EXPECT_EQ(collectives["v8_finish"][0]["kind"], "all-reduce");
  EXPECT_EQ(collectives["v8_finish"][0]["axes"], (nlohmann::json{"x"}));
  EXPECT_EQ(collectives["v8_finish"][0]["array_bytes"], 2);  // one bf16 scalar
  EXPECT_TRUE(collectives["v0"].empty());  // x shards the batch, y the free dim of w1: nothing to move
  // FLOPs per chip: matmuls 2 M K N of the local shards, elementwise ops and the reduce one per local element.
  EXPECT_EQ(flops["v0"], 2.0 * 64 * 1024 * 2048);  // [64, 1024] x [1024, 2048]
  EXPECT_EQ(flops["v2"], 64.0 * 2048);             // the bias add on v0's [64, 2048] shard
  EXPECT_EQ(flops["v3_v0"], 64.0 * 2048);          // tanh
  EXPECT_EQ(flops["v5"], 64.0 * 2048);             // the scale by 0.5
  EXPECT_EQ(flops["v6"], 2.0 * 64 * 2048 * 1024);  // [64, 2048] x [2048, 1024], then the all-reduce over y
  EXPECT_EQ(flops["v7"], 64.0 * 1024);             // the square on v6's [64, 1024] shard
  EXPECT_EQ(flops["v8"], 64.0 * 1024);             // the sum reads each local element once
}

TEST(ImportLayer, LayoutOpsShardingsAndReduceRegion) {
  const auto m = read_module("layer_ops.mlir");
  // transpose of [{}, {"y"}] by [1, 0] is [{"y"}, {}]; the matmul contracts the y-sharded dim.
  EXPECT_EQ(tensor_named(m, "v0").shape, (std::vector<std::int64_t>{512, 128}));
  EXPECT_EQ(tensor_named(m, "v0").sharding, "<@mesh, [{\"y\"}, {}]>");
  EXPECT_EQ(op_named(m, "v1").rhs, "v0");
  // convert: same sharding, the new dtype.
  EXPECT_EQ(tensor_named(m, "v2").dtype, "f32");
  EXPECT_EQ(tensor_named(m, "v2").sharding, "<@mesh, [{\"x\"}, {}]>");
  // The reduce printed with its region (maximum) over the unsharded dim 1: no partial results, no reshard.
  EXPECT_EQ(op_named(m, "v3").lhs, "v2");
  EXPECT_EQ(op_named(m, "v3").line, 11);
  for (const auto& op : m.ops)
    EXPECT_NE(op.name, "v3_finish");
  // v5 = %2 - broadcast(%3): runs on %2 and waits for the reduce.
  EXPECT_EQ(op_named(m, "v5").lhs, "v2");
  EXPECT_EQ(op_named(m, "v5").after, (std::vector<std::string>{"v1", "v3"}));
  // compare then select: select runs on its data operand %6 and waits for the compare.
  EXPECT_EQ(op_named(m, "v8").stablehlo_op, "stablehlo.compare");
  EXPECT_EQ(op_named(m, "v9").lhs, "v6");
  EXPECT_EQ(op_named(m, "v9").after, (std::vector<std::string>{"v8", "v9_read0"}));
  EXPECT_EQ(op_named(m, "v9_read0").lhs, "v8");  // the predicate is read; the constant zeros %7 are not
  // The slice of the unsharded dim 1: a 0-flop copy of the result's bytes, read through a view of %9 in the
  // result's shape, writing the result.
  EXPECT_EQ(op_named(m, "v11_copy").flops_per_element, 0);
  EXPECT_EQ(op_named(m, "v11_copy").lhs, "v11_window");
  EXPECT_EQ(op_named(m, "v11_copy").out, "v11");
  EXPECT_EQ(op_named(m, "v11_copy").after, (std::vector<std::string>{"v9"}));
  EXPECT_EQ(tensor_named(m, "v11_window").shape, (std::vector<std::int64_t>{64, 64}));
  EXPECT_EQ(tensor_named(m, "v11_window").view_of, "v9");
  // Layout results of tensors are views of them: the transposed weight holds %arg1's bytes, the convert %1's.
  EXPECT_EQ(tensor_named(m, "v0").view_of, "arg1");
  EXPECT_EQ(tensor_named(m, "v2").view_of, "v1");
  EXPECT_EQ(m.results, (std::vector<std::string>{"v9", "v11"}));
  const auto spec = load_scenario_text(scenario_from_module(m, "m.mlir", "tpu-v5e", {2, 4}).dump(), "i.json");
  EXPECT_EQ(local_shape(spec, "v0"), (std::vector<std::int64_t>{128, 128}));  // 512 / y=4
  EXPECT_EQ(local_shape(spec, "v2"), (std::vector<std::int64_t>{32, 128}));   // 64 / x=2
}

TEST(ImportLayer, AttentionHeadsReshapeTransposeAndBatchedDot) {
  const auto m = parse_stablehlo_module(
      "  sdy.mesh @mesh = <[\"x\"=2, \"y\"=4]>\n"
      "  func.func public @main(%arg0: tensor<8x16x64xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}, "
      "{\"y\"}]>}) -> tensor<8x4x16x16xbf16> {\n"
      "    %0 = stablehlo.reshape %arg0 : (tensor<8x16x64xbf16>) -> tensor<8x16x4x16xbf16>\n"
      "    %1 = stablehlo.transpose %0, dims = [0, 2, 1, 3] : (tensor<8x16x4x16xbf16>) -> tensor<8x4x16x16xbf16>\n"
      "    %2 = stablehlo.dot_general %1, %1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : "
      "(tensor<8x4x16x16xbf16>, tensor<8x4x16x16xbf16>) -> tensor<8x4x16x16xbf16>\n"
      "    return %2 : tensor<8x4x16x16xbf16>\n  }\n",
      "m.mlir");
  // 64 -> 4x16 splits the y-sharded dim; y=4 divides the major part 4, so the heads dim takes y. The transpose
  // moves it to dim 1. Only %1, which the dot reads, becomes a tensor.
  ASSERT_EQ(m.tensors.size(), 2u);
  EXPECT_EQ(m.tensors[1].name, "v1");
  EXPECT_EQ(m.tensors[1].shape, (std::vector<std::int64_t>{8, 4, 16, 16}));
  EXPECT_EQ(m.tensors[1].sharding, "<@mesh, [{\"x\"}, {\"y\"}, {}, {}]>");
  ASSERT_EQ(m.ops.size(), 1u);
  EXPECT_EQ(m.ops[0].einsum, "ABCD,ABED->ABCE");  // batch (A, B), lhs free C, rhs free E
  EXPECT_EQ(m.ops[0].lhs, "v1");
  ASSERT_EQ(m.approximations.size(), 1u);
  EXPECT_EQ(m.approximations[0].op, "stablehlo.transpose");
  EXPECT_EQ(m.approximations[0].line, 4);
}

TEST(ImportReal, TtMlirReshapeMergesTheShardedMajorDim) {
  const auto m = read_module("shardy_reshape.mlir");
  ASSERT_EQ(m.ops.size(), 0u);  // a reshape alone costs nothing
  EXPECT_EQ(m.results, (std::vector<std::string>{"v0"}));
  EXPECT_EQ(tensor_named(m, "v0").sharding, "<@mesh, [{\"batch\"}, {}]>");
  const auto spec = load_scenario_text(scenario_from_module(m, "m.mlir", "tpu-v5e", {8, 1}).dump(), "i.json");
  EXPECT_EQ(local_shape(spec, "arg0"), (std::vector<std::int64_t>{128, 2, 32, 32}));
  EXPECT_EQ(local_shape(spec, "v0"), (std::vector<std::int64_t>{256, 1024}));  // 2048 / 8
}

const std::string kHead =
    "  sdy.mesh @mesh = <[\"x\"=4]>\n"
    "  func.func public @main(%arg0: tensor<16x8xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>}, "
    "%arg1: tensor<8x16xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"x\"}]>}) -> tensor<16x8xbf16> {\n";

std::string error_with(const std::string& line3) {
  return stablehlo_error_of(kHead + line3 + "\n    return %arg0 : tensor<16x8xbf16>\n  }\n");
}

TEST(ImportRefusals, EachIsLocatedAndNamesTheOp) {
  EXPECT_EQ(error_with("    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = \"{replicated}\"} : "
                       "(tensor<16x8xbf16>) -> tensor<16x8xbf16>")
                .rfind("m.mlir:3:10: unsupported op \"stablehlo.custom_call\" (target @Sharding)", 0),
            0u);
  // dim 1 of %arg1 is sharded but is the minor dim of the merge 8x16 -> 128.
  EXPECT_EQ(error_with("    %0 = stablehlo.reshape %arg1 : (tensor<8x16xbf16>) -> tensor<128xbf16>")
                .rfind("m.mlir:3:10: stablehlo.reshape: cannot derive the result's sharding", 0),
            0u);
  // a split 16 -> 2x8 of the x=4-sharded dim: 2 is not divisible by 4.
  EXPECT_EQ(error_with("    %0 = stablehlo.reshape %arg0 : (tensor<16x8xbf16>) -> tensor<2x8x8xbf16>")
                .rfind("m.mlir:3:10: stablehlo.reshape: cannot derive the result's sharding", 0),
            0u);
  EXPECT_EQ(error_with("    %0 = stablehlo.slice %arg0 [0:8, 0:8] : (tensor<16x8xbf16>) -> tensor<8x8xbf16>")
                .rfind("m.mlir:3:10: stablehlo.slice along dim 0, which is sharded", 0),
            0u);
  EXPECT_EQ(error_with("    %0 = stablehlo.while(%iterArg = %arg0) : tensor<16x8xbf16>"),
            "m.mlir:4:5: expected the while's condition region `cond {`");
  EXPECT_EQ(error_with("    %0 = \"stablehlo.tanh\"(%arg0) : (tensor<16x8xbf16>) -> tensor<16x8xbf16>"),
            "m.mlir:3:10: the generic op form is not read, print the module in its pretty form, got: "
            "\"stablehlo.tanh\"");
  EXPECT_EQ(error_with("    %0 = call @nowhere(%arg0) : (tensor<16x8xbf16>) -> tensor<16x8xbf16>"),
            "m.mlir:3:10: call of an unknown function @nowhere");
  EXPECT_EQ(error_with("    %cst = stablehlo.constant dense<0.0> : tensor<bf16>\n"
                       "    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.multiply across dimensions = "
                       "[0] : (tensor<16x8xbf16>, tensor<bf16>) -> tensor<8xbf16>"),
            "m.mlir:4:10: stablehlo.reduce applying \"stablehlo.multiply\" over a sharded dim: podsim's "
            "collectives sum, take the max or the min only");
  EXPECT_EQ(error_with("    %cst = stablehlo.constant dense<0.0> : tensor<bf16>\n"
                       "    %0:2 = stablehlo.reduce(%arg0 init: %cst), (%arg0 init: %cst) across dimensions = [1] : "
                       "(tensor<16x8xbf16>, tensor<16x8xbf16>, tensor<bf16>, tensor<bf16>) -> (tensor<16xbf16>, "
                       "tensor<16xbf16>)"),
            "m.mlir:4:5: \"stablehlo.reduce\" with several results is not read (only stablehlo.while, "
            "stablehlo.optimization_barrier and calls), got: %0:2");
  // A region with more than one op.
  EXPECT_EQ(error_with("    %cst = stablehlo.constant dense<0.0> : tensor<bf16>\n"
                       "    %0 = stablehlo.reduce(%arg0 init: %cst) across dimensions = [1] : (tensor<16x8xbf16>, "
                       "tensor<bf16>) -> tensor<16xbf16>\n"
                       "     reducer(%a: tensor<bf16>, %b: tensor<bf16>)  {\n"
                       "      %1 = stablehlo.add %a, %b : tensor<bf16>\n"
                       "      %2 = stablehlo.add %1, %b : tensor<bf16>\n"
                       "      stablehlo.return %2 : tensor<bf16>\n"
                       "    }"),
            "m.mlir:7:7: the reduce's region must hold one op and stablehlo.return, got: %2 = stablehlo.add %1, "
            "%b : tensor<bf16>");
}

TEST(ImportLayer, GivenShardingsOnLayoutAndReduceResults) {
  const std::string text = kHead +
                           "    %0 = stablehlo.reshape %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, "
                           "[{\"x\"}]>]>} : (tensor<8x16xbf16>) -> tensor<128xbf16>\n"
                           "    %1 = stablehlo.tanh %0 : tensor<128xbf16>\n"
                           "    %cst = stablehlo.constant dense<0.0> : tensor<bf16>\n"
                           "    %2 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.add across dimensions = [1] "
                           "{sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{\"x\"}]>]>} : (tensor<8x16xbf16>, "
                           "tensor<bf16>) -> tensor<8xbf16>\n"
                           "    return %arg0 : tensor<16x8xbf16>\n  }\n";
  const auto m = parse_stablehlo_module(text, "m.mlir");
  // The reshape merges the x-sharded minor dim 16 into 128: no sharding follows, the given one is taken, listed.
  EXPECT_EQ(tensor_named(m, "v0").sharding, "<@mesh, [{\"x\"}]>");
  ASSERT_GE(m.approximations.size(), 2u);
  EXPECT_EQ(m.approximations[0].op, "stablehlo.reshape");
  EXPECT_EQ(m.approximations[0].line, 3);
  // The reduce over the x-sharded dim 1: partial sums unreduced over x, resharded to the given [{"x"}].
  EXPECT_EQ(tensor_named(m, "v2_partial").sharding, "<@mesh, [{}], unreduced={\"x\"}>");
  EXPECT_EQ(op_named(m, "v2_finish").sharding, "<@mesh, [{\"x\"}]>");
}

TEST(ImportCalls, EachCallIsInlinedUnderItsOwnNames) {
  const std::string text = kHead +
                           "    %0 = call @act(%arg0) : (tensor<16x8xbf16>) -> tensor<16x8xbf16>\n"
                           "    %1 = func.call @act(%0) : (tensor<16x8xbf16>) -> tensor<16x8xbf16>\n"
                           "    %2 = call @id(%1) : (tensor<16x8xbf16>) -> tensor<16x8xbf16>\n"
                           "    return %2 : tensor<16x8xbf16>\n  }\n"
                           "  func.func private @act(%arg0: tensor<16x8xbf16>) -> tensor<16x8xbf16> {\n"
                           "    %0 = stablehlo.logistic %arg0 : tensor<16x8xbf16>\n"
                           "    %1 = stablehlo.multiply %arg0, %0 : tensor<16x8xbf16>\n"
                           "    return %1 : tensor<16x8xbf16>\n  }\n"
                           "  func.func private @id(%arg0: tensor<16x8xbf16>) -> tensor<16x8xbf16> {\n"
                           "    return %arg0 : tensor<16x8xbf16>\n  }\n";
  const auto m = parse_stablehlo_module(text, "m.mlir");
  // silu twice: logistic then multiply (and the load of its other operand), each under the call's name; @id adds
  // nothing.
  ASSERT_EQ(m.ops.size(), 6u);
  EXPECT_EQ(m.ops[0].name, "v0_v0");
  EXPECT_EQ(m.ops[0].lhs, "arg0");
  EXPECT_EQ(m.ops[1].name, "v0_v1_read0");
  EXPECT_EQ(m.ops[1].lhs, "v0_v0");
  EXPECT_EQ(m.ops[2].name, "v0_v1");
  EXPECT_EQ(m.ops[2].lhs, "arg0");  // multiply %arg0, %0 runs on %arg0, reads the logistic's result by the load
  EXPECT_EQ(m.ops[2].after, (std::vector<std::string>{"v0_v0", "v0_v1_read0"}));
  EXPECT_EQ(m.ops[3].name, "v1_v0");
  EXPECT_EQ(m.ops[3].lhs, "v0_v1");
  EXPECT_EQ(m.ops[5].name, "v1_v1");
  EXPECT_EQ(m.ops[3].line, 9);  // lines inside @act
  EXPECT_EQ(m.ops[5].line, 10);
  EXPECT_EQ(m.results, (std::vector<std::string>{"v1_v1"}));
}

TEST(ImportRefusals, CallsAreBoundedAndChecked) {
  const std::string recursive = kHead +
                                "    %0 = call @f(%arg0) : (tensor<16x8xbf16>) -> tensor<16x8xbf16>\n"
                                "    return %0 : tensor<16x8xbf16>\n  }\n"
                                "  func.func private @f(%arg0: tensor<16x8xbf16>) -> tensor<16x8xbf16> {\n"
                                "    %0 = call @f(%arg0) : (tensor<16x8xbf16>) -> tensor<16x8xbf16>\n"
                                "    return %0 : tensor<16x8xbf16>\n  }\n";
  EXPECT_EQ(stablehlo_error_of(recursive), "m.mlir:7:10: calls nested deeper than 16 (recursion?), got: @f");
  const std::string mismatch = kHead +
                               "    %0 = call @f(%arg1) : (tensor<8x16xbf16>) -> tensor<16x8xbf16>\n"
                               "    return %0 : tensor<16x8xbf16>\n  }\n"
                               "  func.func private @f(%arg0: tensor<16x8xbf16>) -> tensor<16x8xbf16> {\n"
                               "    return %arg0 : tensor<16x8xbf16>\n  }\n";
  EXPECT_EQ(stablehlo_error_of(mismatch), "m.mlir:6:24: argument %arg0 has shape 16x8, the call at line 3 passes 8x16");
}

// Hostile input: every prefix of a real module and single-byte corruptions of it give a value or an InputError,
// never a crash, a hang or another exception.
TEST(ImportRobustness, TruncatedAndCorruptedModules) {
  const std::string text = read_text(data_path("mlp_loss.mlir"));
  int errors = 0;
  for (std::size_t n = 0; n < text.size(); n += 7) {
    for (const std::string& t :
         {text.substr(0, n), text.substr(0, n) + std::string(1, text[text.size() - 1 - n]) + text.substr(n + 1)}) {
      try {
        parse_stablehlo_module(t, "m.mlir");
      } catch (const InputError&) {
        ++errors;
      }
    }
  }
  EXPECT_GT(errors, 0);
  const std::string deep = kHead + "    %0 = stablehlo.tanh %arg0 : tensor<" + std::string(100000, '<') + "\n";
  EXPECT_THROW(parse_stablehlo_module(deep, "m.mlir"), InputError);
  EXPECT_THROW(
      parse_stablehlo_module(kHead + "    %0 = stablehlo.tanh %arg0 : tensor<99999999999999999999x8xbf16>\n", "m.mlir"),
      InputError);
}

}  // namespace
}  // namespace podsim::import
