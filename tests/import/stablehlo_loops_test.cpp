// podsim import of StableHLO loops (sim/import/stablehlo_control_flow.cpp, docs/import.md "Loops"): a while from
// Shardy's own tests, a jax.lax.scan over stacked layers, ops of several results, and the refusals. Expectations are
// worked out by hand from the module texts (trip counts from the conditions, per-device shapes from the shardings,
// the memory peak from the buffers' lifetimes, docs/scheduling.md "Memory over time").
#include <functional>
#include <map>

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "sim/import/import_scenario.hpp"
#include "sim/import/stablehlo_module.hpp"
#include "tests/cli/cli_run.hpp"
#include "tests/import/import_test_files.hpp"

namespace podsim::import {
namespace {

using namespace podsim::import::fixtures;

const ImportedOp* find_op(const ImportedModule& m, const std::string& name) {
  for (const auto& op : m.ops)
    if (op.name == name) return &op;
  return nullptr;
}

const ImportedTensor* find_tensor(const ImportedModule& m, const std::string& name) {
  for (const auto& t : m.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

const std::string kLoopMesh = "  sdy.mesh @mesh = <[\"x\"=4]>\n";
const std::string kLoopMain =
    "  func.func public @main(%arg0: tensor<16x8xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>}, "
    "%arg1: tensor<i32>) -> tensor<16x8xbf16> {\n";

// A module whose @main runs `body` (lines) and returns %r.
std::string module_with(const std::string& body) {
  return kLoopMesh + kLoopMain + body + "    return %r : tensor<16x8xbf16>\n  }\n";
}

// A while on %arg0 from counter `from`, while `counter DIRECTION bound`, stepping by `step`, with a tanh per
// iteration; its result is %r.
std::string counted_loop(int from, const std::string& direction, int bound, int step) {
  return "    %c = stablehlo.constant dense<" + std::to_string(from) + "> : tensor<i32>\n" +
         "    %w:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<16x8xbf16>\n" +
         "     cond {\n" + "      %c_1 = stablehlo.constant dense<" + std::to_string(bound) + "> : tensor<i32>\n" +
         "      %0 = stablehlo.compare  " + direction +
         ", %iterArg, %c_1,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n" +
         "      stablehlo.return %0 : tensor<i1>\n" + "    } do {\n" + "      %c_1 = stablehlo.constant dense<" +
         std::to_string(step) + "> : tensor<i32>\n" + "      %0 = stablehlo.add %iterArg, %c_1 : tensor<i32>\n" +
         "      %1 = stablehlo.tanh %iterArg_0 : tensor<16x8xbf16>\n" +
         "      stablehlo.return %0, %1 : tensor<i32>, tensor<16x8xbf16>\n" + "    }\n" +
         "    %r = stablehlo.negate %w#1 : tensor<16x8xbf16>\n";
}

std::size_t tanh_count(const ImportedModule& m) {
  std::size_t n = 0;
  for (const auto& op : m.ops)
    n += op.stablehlo_op == "stablehlo.tanh";
  return n;
}

TEST(ImportLoops, ShardysWhileUnrollsItsThirtyTwoIterations) {
  const auto m = read_module("shardy_while.mlir");
  // 0 < 32, 1 < 32, ..., 31 < 32: 32 iterations, each an add of the previous one's result to itself; then the add
  // of the result (%4) and its reshard to the given sharding.
  ASSERT_EQ(m.ops.size(), 34u);
  for (int i = 0; i < 32; ++i) {
    const auto& op = m.ops[static_cast<std::size_t>(i)];
    EXPECT_EQ(op.name, "v3_i" + std::to_string(i) + "_v6");
    EXPECT_EQ(op.line, 17);  // the body's add, whatever the iteration
    EXPECT_EQ(op.lhs, i == 0 ? "arg0" : "v3_i" + std::to_string(i - 1) + "_v6");
    EXPECT_TRUE(op.after.empty()) << op.name;  // each reads the one before: the data orders them already
  }
  EXPECT_EQ(m.ops[32].name, "v4");
  EXPECT_EQ(m.ops[32].lhs, "v3_i31_v6");
  EXPECT_EQ(m.ops[33].kind, ImportedOpKind::reshard);
  EXPECT_EQ(m.ops[33].sharding, "<@mesh_a_2_b_2, [{\"a\"}, {\"b\"}]>");
  // The loop's note, at its line, says the trip count.
  bool noted = false;
  for (const auto& a : m.approximations)
    noted = noted || (a.op == "stablehlo.while" && a.line == 11 && a.how.find("read 32 time(s)") != std::string::npos);
  EXPECT_TRUE(noted);
  // The counter and the bound are constants: no tensor for them.
  EXPECT_EQ(m.tensors.size(), 1u);
}

TEST(ImportLoops, TripCountsFoldFromTheCondition) {
  // i = 0, 3, 6, 9 <= 10: 4 iterations; 10, 8, ..., 2 > 0: 5; 5 < 5: none, the result is the initial value.
  EXPECT_EQ(tanh_count(parse_stablehlo_module(module_with(counted_loop(0, "LE", 10, 3)), "m.mlir")), 4u);
  EXPECT_EQ(tanh_count(parse_stablehlo_module(module_with(counted_loop(10, "GT", 0, -2)), "m.mlir")), 5u);
  const auto none = parse_stablehlo_module(module_with(counted_loop(5, "LT", 5, 1)), "m.mlir");
  EXPECT_EQ(tanh_count(none), 0u);
  ASSERT_EQ(none.ops.size(), 1u);
  EXPECT_EQ(none.ops[0].lhs, "arg0");  // the negate reads the loop's initial value
}

TEST(ImportLoops, ScanOverStackedLayers) {
  const auto m = read_module("jax_scan_layers.mlir");
  // Four iterations (the counter 0..3 < 4), each: the weight's copy out of the stack, the matmul, tanh, the
  // reshard of the constraint, the copy of the output into the stacked result.
  ASSERT_EQ(m.ops.size(), 20u);
  for (int i = 0; i < 4; ++i) {
    const std::string p = "v0_i" + std::to_string(i) + "_";
    const ImportedOp* copy = find_op(m, p + "v4_copy");
    const ImportedOp* dot = find_op(m, p + "v6");
    const ImportedOp* update = find_op(m, p + "v10_update");
    ASSERT_TRUE(copy && dot && update) << p;
    // The copy reads layer i's [1, 512, 512] slice of the stack through a view of %arg0, and writes %4.
    const ImportedTensor* window = find_tensor(m, p + "v4_window");
    ASSERT_TRUE(window);
    EXPECT_EQ(window->view_of, "arg0");
    EXPECT_EQ(window->shape, (std::vector<std::int64_t>{1, 512, 512}));
    EXPECT_EQ(copy->lhs, p + "v4_window");
    EXPECT_EQ(copy->out, p + "v4");
    // The matmul reads the carried activations (the layer before's gathered output) and the reshaped slice, a
    // view of the copy's result.
    EXPECT_EQ(dot->kind, ImportedOpKind::matmul);
    EXPECT_EQ(dot->einsum, "AB,BC->AC");
    EXPECT_EQ(dot->lhs, i == 0 ? "arg1" : "v0_i" + std::to_string(i - 1) + "_v8");
    EXPECT_EQ(dot->rhs, p + "v5");
    ASSERT_TRUE(find_tensor(m, p + "v5"));
    EXPECT_EQ(find_tensor(m, p + "v5")->view_of, p + "v4");
    EXPECT_EQ(dot->after, (std::vector<std::string>{p + "v4_copy"}));
    // Iterations run in order: the copy, which reads only the stack, starts after the iteration before ends.
    EXPECT_EQ(copy->after, i == 0 ? std::vector<std::string>{}
                                  : std::vector<std::string>{"v0_i" + std::to_string(i - 1) + "_v10_update"});
  }
  // The zeros the outputs are stacked into take no memory of their own.
  ASSERT_TRUE(find_tensor(m, "cst"));
  EXPECT_TRUE(find_tensor(m, "cst")->transient);
  // One note per construct, not per iteration.
  std::size_t slices = 0;
  for (const auto& a : m.approximations)
    slices += a.op == "stablehlo.dynamic_slice";
  EXPECT_EQ(slices, 1u);
}

TEST(ImportLoops, ScanRunsWithItsCollectivesFlopsAndPeakMemory) {
  const std::string out = ::testing::TempDir() + "/imported_scan.json";
  const auto imported = test::run_podsim("import " + data_path("jax_scan_layers.mlir") + " -o " + out);
  ASSERT_EQ(imported.code, 0) << imported.err;
  EXPECT_NE(imported.out.find("jax_scan_layers.mlir:12: stablehlo.while: unrolled: the body read 4 time(s)"),
            std::string::npos)
      << imported.out;
  const auto run = test::run_podsim("run " + out + " --format json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  std::map<std::string, nlohmann::json> rows;
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& j) {
    if (j.is_object()) {
      if (j.contains("name") && j.contains("collectives")) rows[j["name"]] = j;
      for (const auto& [k, v] : j.items())
        walk(v);
    } else if (j.is_array()) {
      for (const auto& v : j)
        walk(v);
    }
  };
  walk(report);
  for (int i = 0; i < 4; ++i) {
    const std::string p = "v0_i" + std::to_string(i) + "_";
    // [128, 512] (batch / data) x [512, 128] (features / model) per chip: 2 * 128 * 512 * 128 flops.
    EXPECT_EQ(rows[p + "v6"]["flops"], 2.0 * 128 * 512 * 128) << p;
    EXPECT_TRUE(rows[p + "v6"]["collectives"].empty());
    // The constraint gathers the model-sharded features: an all-gather over model of the [128, 512] bf16 result.
    ASSERT_EQ(rows[p + "v8"]["collectives"].size(), 1u) << p;
    EXPECT_EQ(rows[p + "v8"]["collectives"][0]["kind"], "all-gather");
    EXPECT_EQ(rows[p + "v8"]["collectives"][0]["axes"], (nlohmann::json{"model"}));
    EXPECT_EQ(rows[p + "v8"]["collectives"][0]["array_bytes"], 128 * 512 * 2);
  }
  // The peak, during the last matmul: the stack's shard (4x512x128 bf16, 512 KiB) and %arg1's (128x512, 128 KiB),
  // stay to the end; the three earlier layers' stacked outputs (1x128x512, 128 KiB each, held to the end); the
  // carried activations (128 KiB, read by the matmul); the weight slice's copy (512x128, 128 KiB); the matmul's
  // result (128x128, 32 KiB). The zeros (replicated, 1 MiB) are transient and nothing reads them.
  const auto& memory = report["plans"][0]["memory"];
  EXPECT_EQ(memory["per_chip_bytes"], (512 + 128 + 3 * 128 + 128 + 128 + 32) * 1024);
}

TEST(ImportLoops, OpsOfSeveralResults) {
  const std::string text =
      module_with(
          "    %b:2 = stablehlo.optimization_barrier %arg0, %arg1 : tensor<16x8xbf16>, tensor<i32>\n"
          "    %p:2 = call @pair(%b#0) : (tensor<16x8xbf16>) -> (tensor<16x8xbf16>, tensor<16x8xbf16>)\n"
          "    %r = stablehlo.add %p#1, %p#0 : tensor<16x8xbf16>\n") +
      "  func.func private @pair(%arg0: tensor<16x8xbf16>) -> (tensor<16x8xbf16>, "
      "tensor<16x8xbf16>) {\n"
      "    %0 = stablehlo.exponential %arg0 : tensor<16x8xbf16>\n"
      "    return %arg0, %0 : tensor<16x8xbf16>, tensor<16x8xbf16>\n  }\n";
  const auto m = parse_stablehlo_module(text, "m.mlir");
  // The barrier passes its operands through; @pair returns its argument and its exponential; the add runs on
  // %p#1 (the exponential) and reads %p#0 (%arg0) by a load.
  ASSERT_EQ(m.ops.size(), 3u);
  EXPECT_EQ(m.ops[0].name, "p_v0");
  EXPECT_EQ(m.ops[0].lhs, "arg0");
  EXPECT_EQ(m.ops[1].name, "r_read0");
  EXPECT_EQ(m.ops[1].lhs, "arg0");
  EXPECT_EQ(m.ops[2].name, "r");
  EXPECT_EQ(m.ops[2].lhs, "p_v0");
  EXPECT_EQ(stablehlo_error_of(module_with("    %p:2 = call @one(%arg0) : (tensor<16x8xbf16>) -> (tensor<16x8xbf16>, "
                                           "tensor<16x8xbf16>)\n    %r = stablehlo.tanh %p#0 : tensor<16x8xbf16>\n") +
                               "  func.func private @one(%arg0: tensor<16x8xbf16>) -> tensor<16x8xbf16> {\n"
                               "    return %arg0 : tensor<16x8xbf16>\n  }\n"),
            "m.mlir:3:12: @one returns 1 value(s), the call takes 2");
  EXPECT_EQ(stablehlo_error_of(module_with("    %r = stablehlo.tanh %arg0#1 : tensor<16x8xbf16>\n")),
            "m.mlir:3:25: unknown value, got: %arg0#1");
}

TEST(ImportLoops, RefusalsAreLocated) {
  // The bound is an argument: the trip count is known only at run time.
  std::string dynamic = counted_loop(0, "LT", 4, 1);
  dynamic.replace(dynamic.find("%iterArg, %c_1,"), 15, "%iterArg, %arg1,");
  EXPECT_EQ(stablehlo_error_of(module_with(dynamic)),
            "m.mlir:7:45: the loop's trip count is unknown: its condition reads %arg1, which is known only at run "
            "time (podsim unrolls loops whose condition folds to a constant)");
  // A condition on a float: it folds to a constant podsim does not evaluate.
  std::string floating = counted_loop(0, "LT", 4, 1);
  floating.replace(floating.find("dense<4> : tensor<i32>"), 22, "dense<4.0> : tensor<f32>");
  floating.replace(floating.find("(tensor<i32>, tensor<i32>)"), 26, "(tensor<i32>, tensor<f32>)");
  EXPECT_EQ(stablehlo_error_of(module_with(floating)),
            "m.mlir:4:12: the loop's trip count is unknown: its condition does not fold to an integer constant "
            "(podsim unrolls loops whose condition folds to one)");
  // Regions that are not there or not closed.
  EXPECT_EQ(stablehlo_error_of(module_with("    %r = stablehlo.while(%iterArg = %arg0) : tensor<16x8xbf16>\n")),
            "m.mlir:4:5: expected the while's condition region `cond {`");
  std::string no_do = counted_loop(0, "LT", 4, 1);
  no_do.replace(no_do.find("} do {"), 6, "} {");
  EXPECT_EQ(
      stablehlo_error_of(module_with(no_do)).rfind("m.mlir:9:5: expected `} do {` after the while's condition", 0), 0u);
  std::string unclosed = counted_loop(0, "LT", 4, 1);
  unclosed.erase(unclosed.rfind("    }\n"), 6);  // the body then runs to @main's `}`, past its return
  EXPECT_EQ(stablehlo_error_of(module_with(unclosed)),
            "m.mlir:14:5: op after the return, got: %r = stablehlo.negate %w#1 : tensor<16x8");
  EXPECT_EQ(stablehlo_error_of(kLoopMesh + kLoopMain + unclosed), "m.mlir:4:12: the while's regions are not closed");
  // The body returns fewer values than the loop carries.
  std::string short_return = counted_loop(0, "LT", 4, 1);
  const std::string both = "stablehlo.return %0, %1 : tensor<i32>, tensor<16x8xbf16>";
  short_return.replace(short_return.find(both), both.size(), "stablehlo.return %0 : tensor<i32>");
  EXPECT_EQ(stablehlo_error_of(module_with(short_return)),
            "m.mlir:4:12: the loop's body returns 1 value(s), the loop carries 2");
  // An initial value of another shape than its type.
  std::string mistyped = counted_loop(0, "LT", 4, 1);
  mistyped.replace(mistyped.find("tensor<i32>, tensor<16x8xbf16>\n"), 30, "tensor<i32>, tensor<8x16xbf16>\n");
  EXPECT_EQ(stablehlo_error_of(module_with(mistyped)),
            "m.mlir:4:78: loop argument %iterArg_0 has type tensor<8x16xbf16>, its initial value has shape 16x8");
  // An op outside any function (a module cut from inside @main).
  EXPECT_EQ(stablehlo_error_of("    %0 = stablehlo.while(%iterArg = %arg0) : tensor<16x8xbf16>\n"),
            "m.mlir:1:5: expected sdy.mesh or func.func at the module's top level, got: %0 = stablehlo.while(%iterArg "
            "= %arg0) :");
  // Conditionals: which branch runs is a run-time value.
  EXPECT_EQ(stablehlo_error_of(module_with("    %r = \"stablehlo.case\"(%arg1) ({\n")),
            "m.mlir:3:10: unsupported op \"stablehlo.case\": which branch runs is known only at run time (podsim reads "
            "loops whose trip count folds to a constant, not conditionals)");
  // A loop without end is bounded by its iterations, a long one with a large body by the ops it adds.
  EXPECT_EQ(stablehlo_error_of(module_with(counted_loop(0, "GE", 0, 1))),
            "m.mlir:4:12: the loop runs more than 10000 iterations (its condition still holds after them): podsim "
            "simulates every iteration's ops, and unrolls loops of at most 10000");
  // 13 tanh an iteration: 7692 iterations make 99996 ops; the 7693rd reaches the limit at its sixth op (line 17).
  std::string large = counted_loop(0, "LT", 9000, 1);
  const std::string tanh = "      %1 = stablehlo.tanh %iterArg_0 : tensor<16x8xbf16>\n";
  std::string body = tanh;
  for (int k = 2; k < 14; ++k)
    body += "      %" + std::to_string(k) + " = stablehlo.tanh %" + std::to_string(k - 1) + " : tensor<16x8xbf16>\n";
  large.replace(large.find(tanh), tanh.size(), body);
  large.replace(large.find("stablehlo.return %0, %1"), 23, "stablehlo.return %0, %13");
  EXPECT_EQ(stablehlo_error_of(module_with(large)),
            "m.mlir:17:12: more than 100000 ops after inlining calls and unrolling loops");
}

TEST(ImportLoops, ReshapesThroughSizeOneDimsKeepTheShardedDim) {
  // A scan's layer `1x16x8 -> 16x8` (dropping the stack's dim) and back: the x-sharded 16 keeps its axis.
  const std::string text = module_with(
      "    %0 = stablehlo.reshape %arg0 : (tensor<16x8xbf16>) -> tensor<1x16x8xbf16>\n"
      "    %1 = stablehlo.tanh %0 : tensor<1x16x8xbf16>\n"
      "    %2 = stablehlo.reshape %1 : (tensor<1x16x8xbf16>) -> tensor<16x8xbf16>\n"
      "    %r = stablehlo.tanh %2 : tensor<16x8xbf16>\n");
  const auto m = parse_stablehlo_module(text, "m.mlir");
  ASSERT_TRUE(find_tensor(m, "v0") && find_tensor(m, "v2"));
  EXPECT_EQ(find_tensor(m, "v0")->sharding, "<@mesh, [{}, {\"x\"}, {}]>");
  EXPECT_EQ(find_tensor(m, "v0")->view_of, "arg0");
  EXPECT_EQ(find_tensor(m, "v2")->sharding, "<@mesh, [{\"x\"}, {}]>");
  EXPECT_EQ(find_tensor(m, "v2")->view_of, "v1");
}

TEST(ImportLoops, NestedLoopsMultiplyTheirTripCounts) {
  // An outer loop of 2 iterations around an inner one of 3: 6 tanh, in order.
  std::string inner = counted_loop(0, "LT", 3, 1);
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{{"%arg0)", "%iterArg_9)"},
                                                        {"%c =", "%c_9 ="},
                                                        {"= %c,", "= %c_9,"},
                                                        {"%w:2", "%w_9:2"},
                                                        {"%w#1", "%w_9#1"},
                                                        {"%r = stablehlo.negate", "%n = stablehlo.negate"}})
    inner.replace(inner.find(from), from.size(), to);
  const std::string text = module_with(
      "    %c_8 = stablehlo.constant dense<0> : tensor<i32>\n"
      "    %o:2 = stablehlo.while(%iterArg_8 = %c_8, %iterArg_9 = %arg0) : tensor<i32>, tensor<16x8xbf16>\n"
      "     cond {\n"
      "      %c_1 = stablehlo.constant dense<2> : tensor<i32>\n"
      "      %0 = stablehlo.compare  LT, %iterArg_8, %c_1,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
      "      stablehlo.return %0 : tensor<i1>\n"
      "    } do {\n" +
      inner +
      "      %c_1 = stablehlo.constant dense<1> : tensor<i32>\n"
      "      %0 = stablehlo.add %iterArg_8, %c_1 : tensor<i32>\n"
      "      stablehlo.return %0, %n : tensor<i32>, tensor<16x8xbf16>\n"
      "    }\n"
      "    %r = stablehlo.abs %o#1 : tensor<16x8xbf16>\n");
  const auto m = parse_stablehlo_module(text, "m.mlir");
  EXPECT_EQ(tanh_count(m), 6u);
  std::vector<std::string> names;
  for (const auto& op : m.ops)
    names.push_back(op.name);
  EXPECT_EQ(names, (std::vector<std::string>{"o_i0_w_9_i0_v1", "o_i0_w_9_i1_v1", "o_i0_w_9_i2_v1", "o_i0_n",
                                             "o_i1_w_9_i0_v1", "o_i1_w_9_i1_v1", "o_i1_w_9_i2_v1", "o_i1_n", "r"}));
  EXPECT_EQ(m.ops[4].lhs, "o_i0_n");  // the outer loop's second iteration reads the first one's result
}

}  // namespace
}  // namespace podsim::import
