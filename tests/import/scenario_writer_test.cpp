// The one scenario writer of `podsim import` (sim/import/scenario_writer.hpp) on a program built by hand, and the
// typed option errors (sim/import/import_error.hpp).
#include "sim/import/scenario_writer.hpp"

#include <gtest/gtest.h>

#include "sim/import/assumed_peaks.hpp"
#include "sim/import/hlo_module.hpp"
#include "sim/import/hlo_scenario.hpp"
#include "sim/import/import_error.hpp"

namespace podsim::import {
namespace {

ImportedProgram two_op_program() {
  ImportedProgram p;
  p.mesh_name = "m";
  p.axes = {{"x", 4}, {"y", 2}};
  p.tensors.push_back({"a", {8, 16}, "f32", "<@m, [{\"x\"}, {}]>", "", false});
  p.tensors.push_back({"b_in", {16, 4}, "f32", "", "a", false});
  ImportedOp mm;
  mm.kind = ImportedOpKind::matmul;
  mm.name = "v0";
  mm.lhs = "a";
  mm.rhs = "b_in";
  mm.einsum = "AB,BC->AC";
  p.ops.push_back(mm);
  ImportedOp ag;
  ag.kind = ImportedOpKind::all_gather;
  ag.name = "g";
  ag.lhs = "v0";
  ag.axes = {"x"};
  ag.out = "g_out";
  ag.after = {"v0"};
  p.ops.push_back(ag);
  return p;
}

TEST(ScenarioWriter, KeysInTheirOrderFromATypedProgram) {
  ScenarioFrame frame;
  frame.file = "dir/model.mlir";
  frame.description = "d";
  frame.hardware = "tpu-v5e";
  frame.assumed_peaks = {{"f32", 1.97e14}};
  frame.slice = {4, 2};
  frame.axis_dims = {{0}, {1}};
  frame.approximations = {{"stablehlo.tanh", 3, "how"}, {"module", 0, "whole"}};
  const auto doc = scenario_json(two_op_program(), frame);
  std::vector<std::string> keys;
  for (const auto& [key, value] : doc.items())
    keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"name", "description", "source", "hardware", "slice", "mesh", "tensors",
                                            "program"}));
  EXPECT_EQ(doc["name"], "model");  // the file's stem
  EXPECT_EQ(doc["source"]["format"], "stablehlo-shardy");
  EXPECT_EQ(doc["hardware"]["preset"], "tpu-v5e");
  EXPECT_EQ(doc["hardware"]["overrides"]["chip"]["peak_flops"]["f32"]["value"], 1.97e14);
  EXPECT_EQ(doc["slice"]["wraparound"], "auto");
  EXPECT_EQ(doc["mesh"]["axes"][1]["name"], "y");
  EXPECT_EQ(doc["mesh"]["axes"][1]["dims"][0], 1);
  EXPECT_FALSE(doc["tensors"]["a"].contains("view_of"));
  EXPECT_EQ(doc["tensors"]["b_in"]["view_of"], "a");
  // A matmul without out_sharding writes `out` as its name; a collective its axes; `after` only when given.
  EXPECT_EQ(doc["program"][0].dump(),
            R"({"op":"matmul","name":"v0","lhs":"a","rhs":"b_in","einsum":"AB,BC->AC","out":"v0"})");
  EXPECT_EQ(doc["program"][1].dump(),
            R"({"op":"all_gather","name":"g","tensor":"v0","axes":["x"],"out":"g_out","after":["v0"]})");
  EXPECT_EQ(approximations_text(doc, "m.mlir"),
            "2 approximations (docs/import.md):\n  m.mlir:3: stablehlo.tanh: how\n  m.mlir: module: whole\n");
}

TEST(ScenarioWriter, ElementwiseFlopsAsEachFormatWroteThem) {
  ImportedProgram p;
  p.mesh_name = "mesh";
  ImportedOp op;
  op.kind = ImportedOpKind::elementwise;
  op.name = "e";
  op.lhs = "t";
  op.flops_per_element = 2;
  p.ops.push_back(op);
  ScenarioFrame frame;
  frame.hardware = "tpu-v5e";
  EXPECT_EQ(scenario_json(p, frame)["program"][0].dump(),
            R"({"op":"elementwise","name":"e","tensor":"t","out":"e","flops_per_element":2})");
  frame.format = ImportFormat::hlo_partitioned;
  EXPECT_EQ(scenario_json(p, frame)["program"][0].dump(),
            R"({"op":"elementwise","name":"e","tensor":"t","flops_per_element":2.0,"out":"e"})");
}

TEST(ImportOptionErrors, SayWhichOption) {
  try {
    (void)assumed_peaks("gpu", {"f32"}, {{"int8", 1e14}});
    FAIL() << "no error";
  } catch (const ImportOptionError& e) {
    EXPECT_EQ(e.field(), ImportOption::hardware);
  }
  // A module of 4 devices on a slice of 8 chips: the slice option, by type.
  const auto module = parse_hlo_module(
      "HloModule m, num_partitions=4\n\nENTRY %e (p: f32[8]) -> f32[8] {\n  ROOT %p = f32[8]{0} parameter(0)\n}\n",
      "m.hlo");
  try {
    (void)scenario_from_hlo(module, "m.hlo", "tpu-v5e", {2, 4}, {{"f32", 1.0}});
    FAIL() << "no error";
  } catch (const ImportOptionError& e) {
    EXPECT_EQ(e.field(), ImportOption::slice);
    EXPECT_STREQ(e.what(),
                 "the module runs on 4 devices (num_partitions x replica_count), the slice holds 8 chips, got: 2x4");
  }
  // A preset with the dtype's own figure assumes nothing; one with bf16 only assumes bf16's for f32.
  EXPECT_TRUE(assumed_peaks("p", {"bf16"}, {{"bf16", 1.0}}).empty());
  const auto assumed = assumed_peaks("p", {"bf16", "f32"}, {{"bf16", 2.0}});
  ASSERT_EQ(assumed.size(), 1u);
  EXPECT_EQ(assumed[0].dtype, "f32");
  EXPECT_EQ(assumed[0].flops, 2.0);
}

}  // namespace
}  // namespace podsim::import
