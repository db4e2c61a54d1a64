// podsim import (sim/import): StableHLO modules with Shardy shardings read into scenarios. Expectations are worked
// out by hand from the module texts in tests/import/data/ (per-device shapes = global / shards of each dim).
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "models/sharding/layout.hpp"
#include "sim/import/import_error.hpp"
#include "sim/import/import_scenario.hpp"
#include "sim/import/stablehlo_module.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "tests/cli/cli_run.hpp"
#include "tests/import/import_test_files.hpp"

namespace podsim::import {
namespace {

using namespace podsim::import::fixtures;

// The scenario the module becomes on a tpu-v5e slice, through the scenario loader.
ScenarioSpec load_imported(const ImportedModule& module, const std::vector<std::int64_t>& slice) {
  return load_scenario_text(scenario_from_module(module, "m.mlir", "tpu-v5e", slice).dump(), "imported.json");
}

const std::string kMesh = "  sdy.mesh @mesh = <[\"x\"=4]>\n";

TEST(ImportModule, MatmulTanhArgumentsOpsAndEinsum) {
  const auto module = read_module("matmul_tanh.mlir");
  EXPECT_EQ(module.mesh_name, "mesh");
  ASSERT_EQ(module.axes.size(), 2u);
  EXPECT_EQ(module.axes[0], (std::pair<std::string, std::int64_t>{"x", 4}));
  EXPECT_EQ(module.axes[1], (std::pair<std::string, std::int64_t>{"y", 2}));
  ASSERT_EQ(module.tensors.size(), 2u);
  EXPECT_EQ(module.tensors[0].name, "arg0");
  EXPECT_EQ(module.tensors[0].shape, (std::vector<std::int64_t>{1024, 4096}));
  EXPECT_EQ(module.tensors[0].dtype, "bf16");
  EXPECT_EQ(module.tensors[0].sharding, "<@mesh, [{\"x\"}, {}]>");
  ASSERT_EQ(module.ops.size(), 4u);
  EXPECT_EQ(module.ops[0].kind, ImportedOpKind::matmul);
  EXPECT_EQ(module.ops[0].einsum, "AB,BC->AC");  // contracting_dims = [1] x [0]
  EXPECT_EQ(module.ops[0].line, 6);
  EXPECT_EQ(module.ops[1].kind, ImportedOpKind::elementwise);
  EXPECT_EQ(module.ops[1].lhs, "v0");
  EXPECT_EQ(module.ops[2].kind, ImportedOpKind::reshard);  // sdy.sharding_constraint
  EXPECT_EQ(module.ops[2].sharding, "<@mesh, [{\"x\"}, {}]>");
  EXPECT_EQ(module.ops[3].kind, ImportedOpKind::reshard);  // the result's sdy.sharding
  EXPECT_EQ(module.ops[3].sharding, "<@mesh, [{\"x\"}, {\"y\"}]>");
  EXPECT_EQ(module.results, (std::vector<std::string>{"result0"}));
}

TEST(ImportModule, PerDeviceShapesFollowTheShardings) {
  const auto spec = load_imported(read_module("matmul_tanh.mlir"), {4, 2});
  EXPECT_EQ(local_shape(spec, "arg0"), (std::vector<std::int64_t>{256, 4096}));   // 1024 / x=4
  EXPECT_EQ(local_shape(spec, "arg1"), (std::vector<std::int64_t>{4096, 4096}));  // 8192 / y=2
  ASSERT_EQ(spec.program.size(), 4u);
  EXPECT_EQ(spec.program[0].name, "v0");
}

TEST(ImportModule, BatchedDotGeneralAndBinaryElementwise) {
  const auto module = read_module("batched_add.mlir");
  ASSERT_EQ(module.ops.size(), 3u);
  // batching_dims = [0] x [0], contracting_dims = [2] x [1]: out = batch, lhs free, rhs free.
  EXPECT_EQ(module.ops[0].einsum, "ABC,ACD->ABD");
  EXPECT_EQ(module.ops[0].sharding, "<@mesh, [{\"batch\"}, {}, {\"model\"}]>");  // sharding_per_value
  // The multiply runs on %arg2 and reads its second operand, the matmul's result, by a load.
  EXPECT_EQ(module.ops[1].kind, ImportedOpKind::load);
  EXPECT_EQ(module.ops[1].lhs, "v0");
  EXPECT_EQ(module.ops[2].kind, ImportedOpKind::elementwise);
  EXPECT_EQ(module.ops[2].lhs, "arg2");
  EXPECT_EQ(module.ops[2].after, (std::vector<std::string>{"v0", "v1_read0"}));
  const auto spec = load_imported(module, {2, 4});
  EXPECT_EQ(local_shape(spec, "arg0"), (std::vector<std::int64_t>{2, 8, 32}));  // 4 / batch=2
  EXPECT_EQ(local_shape(spec, "arg1"), (std::vector<std::int64_t>{2, 32, 4}));  // 4 / 2, 16 / model=4
  EXPECT_EQ(local_shape(spec, "arg2"), (std::vector<std::int64_t>{4, 8, 16}));  // replicated
}

TEST(ImportModule, PlainDotIsAMatrixProduct) {
  const auto module = parse_stablehlo_module(
      kMesh +
          "  func.func public @main(%arg0: tensor<8x32xbf16>, %arg1: tensor<32x16xbf16>) -> tensor<8x16xbf16> {\n"
          "    %0 = stablehlo.dot %arg0, %arg1 : (tensor<8x32xbf16>, tensor<32x16xbf16>) -> tensor<8x16xbf16>\n"
          "    return %0 : tensor<8x16xbf16>\n  }\n",
      "m.mlir");
  ASSERT_EQ(module.ops.size(), 1u);
  EXPECT_EQ(module.ops[0].einsum, "AB,BC->AC");
}

TEST(ImportModule, JaxDebugLocationsAreSkipped) {
  const auto module = read_module("jax_locations.mlir");
  ASSERT_EQ(module.tensors.size(), 2u);
  EXPECT_EQ(module.tensors[1].sharding, "<@mesh, [{}, {\"y\"}]>");
  ASSERT_EQ(module.ops.size(), 2u);  // the result has no sharding: no reshard
  EXPECT_EQ(module.ops[0].einsum, "AB,BC->AC");
  EXPECT_EQ(module.ops[0].line, 8);
  EXPECT_EQ(module.ops[1].stablehlo_op, "stablehlo.add");
  EXPECT_TRUE(module.ops[1].after.empty());  // both operands are %0, the op's own input
  EXPECT_EQ(module.results, (std::vector<std::string>{"v1"}));
}

TEST(ImportErrors, UnsupportedOpIsLocated) {
  // Line 6 is `    %1 = stablehlo.cholesky ...`: the op name starts at column 4 + 5 + 1 = 10.
  EXPECT_EQ(stablehlo_error_of(read_text(data_path("unsupported_op.mlir"))),
            "m.mlir:6:10: unsupported op \"stablehlo.cholesky\"");
}

TEST(ImportErrors, MalformedShardingIsLocated) {
  const std::string text = read_text(data_path("malformed_sharding.mlir"));
  const std::string line4 =
      "  func.func public @main(%arg0: tensor<16x8xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {]>}) -> "
      "(tensor<16x8xbf16>) {";
  ASSERT_NE(text.find(line4), std::string::npos);
  const std::string column = std::to_string(line4.find("{]") + 2);  // 1-based column of the stray ']'
  const std::string error = stablehlo_error_of(text);
  EXPECT_EQ(error.rfind("m.mlir:4:" + column + ": malformed sharding: ", 0), 0u) << error;
}

TEST(ImportErrors, OtherRefusals) {
  const std::string sig = "  func.func public @main(%arg0: tensor<16x8xbf16>) -> tensor<16x8xbf16> {\n";
  // An op with no `%N =` (a collective written by hand) is refused at its name.
  EXPECT_EQ(stablehlo_error_of(kMesh + sig + "    stablehlo.all_reduce %arg0\n"),
            "m.mlir:3:5: unsupported op \"stablehlo.all_reduce\"");
  EXPECT_EQ(stablehlo_error_of(kMesh + "  func.func public @main(%arg0: tensor<16x8xi64>) -> tensor<16x8xi64> {\n"),
            "m.mlir:2:45: unsupported element type, got: \"i64\"");
  // Without @main, the only public function is the entry (here without a return); none, or several, are refused.
  EXPECT_EQ(stablehlo_error_of(kMesh + "  func.func public @helper(%arg0: tensor<4xbf16>) -> tensor<4xbf16> {\n"),
            "m.mlir: @helper has no return");
  EXPECT_EQ(stablehlo_error_of(kMesh + "  func.func private @helper(%arg0: tensor<4xbf16>) -> tensor<4xbf16> {\n  }\n"),
            "m.mlir: no public function in the module to import (give --function NAME)");
  EXPECT_EQ(stablehlo_error_of(kMesh + "  func.func @f(%arg0: tensor<4xbf16>) -> tensor<4xbf16> {\n  }\n" +
                               "  func.func @g(%arg0: tensor<4xbf16>) -> tensor<4xbf16> {\n  }\n"),
            "m.mlir: no @main and several public functions (@f, @g): give the one to import with --function NAME");
  EXPECT_EQ(stablehlo_error_of(sig), "m.mlir:1:3: no sdy.mesh before @main: the module must declare its mesh");
  EXPECT_EQ(stablehlo_error_of(kMesh + sig + "    %0 = stablehlo.tanh %arg9 : tensor<16x8xbf16>\n"),
            "m.mlir:3:25: unknown value, got: %arg9");
  // A sharding of the wrong rank for its tensor.
  EXPECT_EQ(stablehlo_error_of(kMesh +
                               "  func.func public @main(%arg0: tensor<16x8xbf16> {sdy.sharding = #sdy.sharding<@mesh, "
                               "[{\"x\"}]>}) -> tensor<16x8xbf16> {\n"),
            "m.mlir:2:67: sharding rank 1 does not match the tensor's rank 2, got: <@mesh, [{\"x\"}]>");
  EXPECT_EQ(stablehlo_error_of(kMesh + sig + "    %0 = stablehlo.tanh %arg0 : tensor<16x8xbf16>\n"),
            "m.mlir: @main has no return");
}

TEST(ImportSlice, DefaultSliceAndMapping) {
  const auto module = read_module("matmul_tanh.mlir");                                                 // x=4, y=2
  EXPECT_EQ(default_slice(module, {16, 16}, "--hardware"), (std::vector<std::int64_t>{4, 2}));         // v5e: 2D pod
  EXPECT_EQ(default_slice(module, {16, 20, 28}, "--hardware"), (std::vector<std::int64_t>{4, 2, 1}));  // 3D pod
  EXPECT_EQ(map_mesh_to_slice(module, {4, 2}), (std::vector<std::vector<int>>{{0}, {1}}));
  EXPECT_EQ(map_mesh_to_slice(module, {2, 2, 2}), (std::vector<std::vector<int>>{{0, 1}, {2}}));
  EXPECT_THROW(map_mesh_to_slice(module, {2, 4}), ImportOptionError);     // x=4 cannot cover dim 0 of size 2 alone
  EXPECT_THROW(map_mesh_to_slice(module, {4, 4}), ImportOptionError);     // 16 chips for an 8-device mesh
  EXPECT_THROW(default_slice(module, {2, 2}, "--hardware"), InputError);  // x=4 longer than the pod's dim
}

TEST(ImportCli, ImportThenRunAndCheck) {
  const std::string out = ::testing::TempDir() + "/imported_matmul_tanh.json";
  const auto imported = test::run_podsim("import " + data_path("matmul_tanh.mlir") + " -o " + out);
  ASSERT_EQ(imported.code, 0) << imported.err;
  const auto doc = nlohmann::json::parse(read_text(out));
  EXPECT_NE(doc["description"].get<std::string>().find("matmul_tanh.mlir"), std::string::npos);
  EXPECT_EQ(doc["hardware"], "tpu-v5e");
  EXPECT_EQ(doc["slice"]["shape"], (nlohmann::json{4, 2}));
  EXPECT_EQ(test::run_podsim("run " + out).code, 0);
  EXPECT_EQ(test::run_podsim("check " + out).code, 0);
  const auto v5p = test::run_podsim("import " + data_path("matmul_tanh.mlir") + " -o " + out + " --hardware tpu-v5p");
  ASSERT_EQ(v5p.code, 0) << v5p.err;
  EXPECT_EQ(nlohmann::json::parse(read_text(out))["slice"]["shape"], (nlohmann::json{4, 2, 1}));
  const auto bad = test::run_podsim("import " + data_path("unsupported_op.mlir") + " -o " + out);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("unsupported_op.mlir:6:10: unsupported op \"stablehlo.cholesky\""), std::string::npos)
      << bad.err;
  const auto bad_slice = test::run_podsim("import " + data_path("matmul_tanh.mlir") + " -o " + out + " --slice 2x4");
  EXPECT_EQ(bad_slice.code, 2);
  EXPECT_NE(bad_slice.err.find("error: --slice: the mesh"), std::string::npos) << bad_slice.err;
}

TEST(ImportModule, AnF32ModuleRunsAtTheBf16PeakThroughAHardwareOverride) {
  // matmul_tanh.mlir in f32 (JAX's default dtype): tpu-v5e has bf16 and int peaks only, so the scenario gets
  // chip.peak_flops.f32 = the bf16 peak given, and one approximation of the whole module (line 0) says so.
  std::string text = read_text(data_path("matmul_tanh.mlir"));
  for (std::size_t at = text.find("bf16"); at != std::string::npos; at = text.find("bf16", at))
    text.replace(at, 4, "f32");
  const auto module = parse_stablehlo_module(text, "m.mlir");
  const std::map<std::string, double> peaks = {{"bf16", 1.97e14}, {"int8", 3.94e14}};
  const auto doc = scenario_from_module(module, "m.mlir", "tpu-v5e", {4, 2}, peaks);
  EXPECT_EQ(doc["hardware"]["preset"], "tpu-v5e");
  EXPECT_EQ(doc["hardware"]["overrides"]["chip"]["peak_flops"]["f32"]["value"].get<double>(), 1.97e14);
  const auto& notes = doc["source"]["approximations"];
  ASSERT_FALSE(notes.empty());
  EXPECT_EQ(notes.back()["op"], "module");
  EXPECT_EQ(notes.back()["line"], 0);
  EXPECT_EQ(notes.back()["how"], "f32 compute runs at the preset's bf16 peak (a hardware override in the scenario)");
  EXPECT_NE(approximations_text(doc, "m.mlir").find("  m.mlir: module: f32 compute runs at"), std::string::npos);
  const ScenarioSpec spec = load_scenario_text(doc.dump(), "imported.json");
  EXPECT_EQ(spec.hardware.spec.chip.peak_flops(DType::f32), 1.97e14);
  // A bf16 module keeps the plain preset name; no peak table (a caller that gives none) assumes nothing.
  EXPECT_EQ(scenario_from_module(read_module("matmul_tanh.mlir"), "m.mlir", "tpu-v5e", {4, 2}, peaks)["hardware"],
            "tpu-v5e");
  EXPECT_EQ(scenario_from_module(module, "m.mlir", "tpu-v5e", {4, 2})["hardware"], "tpu-v5e");
  // A preset without a bf16 peak either: refused on the hardware option (the CLI's --hardware).
  try {
    (void)scenario_from_module(module, "m.mlir", "x", {4, 2}, {{"int8", 1e14}});
    ADD_FAILURE() << "no error";
  } catch (const ImportOptionError& e) {
    EXPECT_EQ(e.field(), ImportOption::hardware);
  }
}

TEST(ImportCli, AnF32ModuleImportsAndRuns) {
  std::string text = read_text(data_path("matmul_tanh.mlir"));
  for (std::size_t at = text.find("bf16"); at != std::string::npos; at = text.find("bf16", at))
    text.replace(at, 4, "f32");
  const std::string module = ::testing::TempDir() + "/matmul_tanh_f32.mlir";
  const std::string out = ::testing::TempDir() + "/imported_matmul_tanh_f32.json";
  std::ofstream(module) << text;
  const auto imported = test::run_podsim("import " + module + " -o " + out);
  ASSERT_EQ(imported.code, 0) << imported.err;
  EXPECT_NE(imported.out.find(": module: f32 compute runs at the preset's bf16 peak"), std::string::npos)
      << imported.out;
  const auto run = test::run_podsim("run " + out);
  EXPECT_EQ(run.code, 0) << run.err;
}

}  // namespace
}  // namespace podsim::import
