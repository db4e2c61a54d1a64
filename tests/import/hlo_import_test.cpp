// podsim import of compiled, partitioned HLO (sim/import/hlo_*): the reader, the mapping of replica groups onto
// slice axes, the scenario and what `podsim run` reports for it. Expectations are worked out by hand from the module
// texts in tests/import/data/hlo_* (FLOPs 2 M K N per dot, bytes = elements x bytes per element, groups read off
// the device numbering), never copied from the program's output.
#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "models/sharding/layout.hpp"
#include "models/sharding/shardy_parse.hpp"
#include "sim/import/hlo_module.hpp"
#include "sim/import/hlo_scenario.hpp"
#include "sim/import/import_error.hpp"
#include "sim/import/import_scenario.hpp"
#include "sim/import/stablehlo_module.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "tests/cli/cli_run.hpp"
#include "tests/import/import_test_files.hpp"

namespace podsim::import {
namespace {

using namespace podsim::import::fixtures;

using Groups = std::vector<std::vector<std::int64_t>>;

HloModule read_hlo(const std::string& name) {
  return parse_hlo_module(read_text(data_path(name)), name);
}

const HloInstruction& find(const HloModule& module, const std::string& name) {
  for (const auto& ins : module.computations.at(static_cast<std::size_t>(module.entry)).instructions)
    if (ins.name == name) return ins;
  throw std::runtime_error("no instruction " + name);
}

const std::map<std::string, double> kV5ePeaks = {{"bf16", 1.97e14}, {"int8", 3.94e14}};

HloImport import_hlo(const std::string& name, const std::vector<std::int64_t>& slice) {
  return scenario_from_hlo(read_hlo(name), name, "tpu-v5e", slice, kV5ePeaks);
}

const nlohmann::ordered_json& op_named(const nlohmann::ordered_json& doc, const std::string& name) {
  for (const auto& op : doc["program"])
    if (op["name"] == name) return op;
  throw std::runtime_error("no op " + name);
}

// The error text `parse_hlo_module` (or, when `build`, the scenario on `slice`) throws for `text` named "m.hlo".
// The error's text: `FILE:LINE:COL: ...` for a place in the module, `slice option: ...` for a refusal of the slice
// (a typed ImportOptionError: the CLI names its flag, tools/podsim/import_command.cpp).
std::string hlo_error_of(const std::string& text, bool build = false, const std::vector<std::int64_t>& slice = {4}) {
  try {
    const auto module = parse_hlo_module(text, "m.hlo");
    if (build) scenario_from_hlo(module, "m.hlo", "tpu-v5e", slice, kV5ePeaks);
  } catch (const InputError& e) {
    return e.what();
  } catch (const ImportOptionError& e) {
    return std::string(e.field() == ImportOption::slice ? "slice option: " : "other option: ") + e.what();
  }
  return "no error";
}

TEST(HloReplicaGroups, ExplicitAndIotaForms) {
  EXPECT_EQ(parse_replica_groups("{{0,1},{2,3}}"), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(parse_replica_groups("{}"), Groups{});
  // [G,S]<=[N]: the devices 0..N-1 in order, cut into G groups of S.
  EXPECT_EQ(parse_replica_groups("[2,2]<=[4]"), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(parse_replica_groups("[4,2]<=[8]"), (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  // T(1,0) on a 2x2 iota reads it column by column: 0, 2, 1, 3.
  EXPECT_EQ(parse_replica_groups("[2,2]<=[2,2]T(1,0)"), (Groups{{0, 2}, {1, 3}}));
  // T(2,1,0) on 2x2x2: position (a,b,c) holds device 4c + 2b + a.
  EXPECT_EQ(parse_replica_groups("[2,4]<=[2,2,2]T(2,1,0)"), (Groups{{0, 4, 2, 6}, {1, 5, 3, 7}}));
  EXPECT_THROW(parse_replica_groups("[2,2]<=[3]"), ParseError);
  EXPECT_THROW(parse_replica_groups("[2,2]<=[2,2]T(0,0)"), ParseError);
  EXPECT_THROW(parse_replica_groups("{{0,1},{2,x}}"), ParseError);
  EXPECT_THROW(parse_replica_groups("[2,2]<=[4"), ParseError);
}

TEST(HloReader, ModuleComputationsAndInstructions) {
  const auto module = read_hlo("hlo_collectives.hlo");
  EXPECT_EQ(module.name, "jit_step");
  EXPECT_EQ(module.num_partitions, 4);
  ASSERT_EQ(module.computations.size(), 3u);
  EXPECT_EQ(module.entry, 2);
  EXPECT_EQ(module.computations[1].name, "fused_computation");
  const auto& ag = find(module, "all-gather");
  EXPECT_EQ(ag.opcode, "all-gather");
  EXPECT_EQ(ag.operands, std::vector<std::string>{"param"});
  EXPECT_EQ(ag.shape.element, "f32");
  EXPECT_EQ(ag.shape.dims, (std::vector<std::int64_t>{128, 512}));
  EXPECT_EQ(ag.replica_groups, (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(ag.attributes.at("dimensions"), "{0}");
  EXPECT_EQ(ag.line, 23);
  EXPECT_EQ(ag.column, 35u);  // `  %all-gather = f32[128,512]{1,0} ` is 34 characters
  const auto& cp = find(module, "collective-permute");
  EXPECT_EQ(cp.source_target_pairs,
            (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 1}, {1, 0}, {2, 3}, {3, 2}}));
  const auto& rs = find(module, "reduce-scatter");
  EXPECT_TRUE(rs.root);
  EXPECT_EQ(rs.replica_groups, (Groups{{0, 2}, {1, 3}}));
  EXPECT_EQ(find(module, "fusion").operands, (std::vector<std::string>{"all-gather", "all-reduce"}));
}

TEST(HloReader, XlaTestModuleWithContinuedLines) {
  const auto module = read_hlo("hlo_remat_all_gather.hlo");
  EXPECT_EQ(module.num_partitions, 1);
  const auto& ag = find(module, "ag");
  EXPECT_EQ(ag.line, 11);  // the instruction's first line; replica_groups is on the next
  EXPECT_EQ(ag.replica_groups, (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(ag.attributes.at("channel_id"), "1");
  EXPECT_EQ(find(module, "concatenate").operands, (std::vector<std::string>{"negate", "negate"}));
  // No device count in the header: the all-gather's groups name devices 0..3.
  EXPECT_EQ(hlo_device_count(module), 4);
}

TEST(HloReader, FormatDetectionAndTupleOperands) {
  EXPECT_TRUE(looks_like_hlo_module("// a comment\n\nHloModule m, num_partitions=2\n"));
  EXPECT_FALSE(looks_like_hlo_module(read_text(data_path("matmul_tanh.mlir"))));
  EXPECT_FALSE(looks_like_hlo_module("module @m {\n}\n"));
  const auto module = parse_hlo_module(
      "HloModule m, num_partitions=2\n"
      "ENTRY %e (p: f32[4]) -> f32[8] {\n"
      "  %p = f32[4]{0} parameter(0)\n"
      "  %ags = (f32[4]{0}, f32[8]{0}) all-gather-start(f32[4]{0} %p), replica_groups={{0,1}}, dimensions={0}\n"
      "  ROOT %agd = f32[8]{0} all-gather-done((f32[4]{0}, f32[8]{0}) /*index=0*/%ags)\n"
      "}\n",
      "m.hlo");
  const auto& start = find(module, "ags");
  ASSERT_TRUE(start.shape.tuple);
  EXPECT_EQ(start.shape.elements.at(1).dims, std::vector<std::int64_t>{8});
  EXPECT_EQ(find(module, "agd").operands, std::vector<std::string>{"ags"});
}

TEST(HloReader, MalformedTextIsLocated) {
  const std::string head = "HloModule m\nENTRY %e {\n";
  EXPECT_EQ(hlo_error_of(head + "  %p = f32[<=8] parameter(0)\n}\n"),
            "m.hlo:3:11: dynamic shapes are not read, got: f32[<=8]");
  EXPECT_EQ(hlo_error_of(head + "  %p = f32[2] parameter(0)\n  %n = f32[2] negate(f32[2] %zz)\n}\n"),
            "m.hlo:4:29: unknown operand %zz");
  EXPECT_EQ(hlo_error_of(head + "  %p = f32[2] parameter(0)\n  %n = f32[2] negate(f32[3] %p)\n}\n"),
            "m.hlo:4:22: operand %p is f32[2], written as f32[3]");
  EXPECT_EQ(hlo_error_of(head + "  %p = f32[2] parameter(0)\n  %p = f32[2] parameter(1)\n}\n"),
            "m.hlo:4:3: instruction %p is defined twice");
  EXPECT_EQ(hlo_error_of("HloModule m\n%c {\n}\n"), "m.hlo: no ENTRY computation in the module");
  EXPECT_EQ(hlo_error_of("ENTRY %e {\n}\n"), "m.hlo:1:1: expected the `HloModule NAME, ...` header first");
  EXPECT_EQ(hlo_error_of(head + "  what is this\n}\n"),
            "m.hlo:3:3: expected an instruction, a computation header or '}', got: \"what is this\"");
  // replica_groups= starts at column 31, its value at 46; the `x` is the value's 11th character.
  EXPECT_EQ(
      hlo_error_of(head + "  %p = f32[2] parameter(0)\n  %a = f32[2] all-reduce(%p), replica_groups={{0,1},{2,x}}\n}\n")
          .substr(0, 57),
      "m.hlo:4:56: malformed replica_groups: expected an integer");
  // Hostile nesting is refused, not recursed into.
  EXPECT_NE(
      hlo_error_of(head + "  %p = f32[2] parameter(0), x=" + std::string(100, '{') + std::string(100, '}') + "\n}\n")
          .find("nested deeper than 32"),
      std::string::npos);
  EXPECT_NE(hlo_error_of(head + "  %p = " + std::string(100, '(') + "f32[2]" + std::string(100, ')') + " tuple()\n}\n")
                .find("nested deeper than 32"),
            std::string::npos);
}

TEST(HloGroups, LinesAndPlanesOfTheSlice) {
  // A 2x2 slice numbers chip (r, c) as 2r + c.
  EXPECT_EQ(slice_dims_of_groups({{0, 1}, {2, 3}}, {2, 2}), std::vector<int>{1});
  EXPECT_EQ(slice_dims_of_groups({{0, 2}, {1, 3}}, {2, 2}), std::vector<int>{0});
  EXPECT_EQ(slice_dims_of_groups({{0, 1, 2, 3}}, {2, 2}), (std::vector<int>{0, 1}));
  EXPECT_EQ(slice_dims_of_groups({{0, 2, 1, 3}}, {2, 2}), (std::vector<int>{1, 0}));  // column-major order
  EXPECT_EQ(slice_dims_of_groups({}, {2, 2}), (std::vector<int>{0, 1}));
  EXPECT_FALSE(slice_dims_of_groups({{0, 3}, {1, 2}}, {2, 2}).has_value());  // diagonals
  EXPECT_FALSE(slice_dims_of_groups({{0, 1}}, {2, 2}).has_value());          // not every chip
  // 4x2: the pairs {2k, 2k+1} run along the minor dim; {0,2,4,6} along the major one.
  EXPECT_EQ(slice_dims_of_groups(parse_replica_groups("[4,2]<=[8]"), {4, 2}), std::vector<int>{1});
  EXPECT_EQ(slice_dims_of_groups({{0, 2, 4, 6}, {1, 3, 5, 7}}, {4, 2}), std::vector<int>{0});
  EXPECT_FALSE(slice_dims_of_groups({{0, 1, 2, 3}, {4, 5, 6, 7}}, {8}).has_value());
  EXPECT_EQ(slice_dims_of_groups({{0, 1, 2, 3}, {4, 5, 6, 7}}, {2, 4}), std::vector<int>{1});
}

TEST(HloGroups, DefaultSlice) {
  // [2,2]<=[4] runs along the minor dim of 2x2, the transposed form along the major one: 4 is no line.
  EXPECT_EQ(hlo_default_slice(read_hlo("hlo_collectives.hlo"), {16, 16}, "f", "--hardware"),
            (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(hlo_default_slice(read_hlo("hlo_collectives.hlo"), {16, 16, 16}, "f", "--hardware"),
            (std::vector<std::int64_t>{2, 2, 1}));
  EXPECT_EQ(hlo_default_slice(read_hlo("hlo_matmul_tanh.hlo"), {16, 16}, "f", "--hardware"),
            (std::vector<std::int64_t>{4, 2}));
  EXPECT_EQ(hlo_default_slice(read_hlo("hlo_remat_all_gather.hlo"), {16, 16}, "f", "--hardware"),
            (std::vector<std::int64_t>{4, 1}));
  try {
    hlo_default_slice(read_hlo("hlo_bad_groups.hlo"), {16, 16}, "bad.hlo", "--hardware");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "bad.hlo:13:86: all-reduce %all-reduce: replica_groups {{0,3},{1,2}} are not lines or planes of any "
              "slice of 4 chips that fits the generation's pod (device id = chip id, row-major)");
  }
}

TEST(HloScenario, CollectivesMapOntoAxes) {
  const auto imported = import_hlo("hlo_collectives.hlo", {2, 2});
  const auto& doc = imported.scenario;
  EXPECT_EQ(doc["slice"]["shape"], (nlohmann::json{2, 2}));
  EXPECT_EQ(doc["mesh"]["axes"][0]["name"], "X");
  EXPECT_EQ(doc["mesh"]["axes"][1]["name"], "Y");
  // The all-gather reads the parameter itself, declared in the layout it gathers: [128,512] split 4 ways on dim 0.
  const auto& ag = op_named(doc, "all-gather");
  EXPECT_EQ(ag["op"], "all_gather");
  EXPECT_EQ(ag["tensor"], "param");
  EXPECT_EQ(ag["axes"], (nlohmann::json{"X", "Y"}));
  EXPECT_EQ(doc["tensors"]["param"]["shape"], (nlohmann::json{128, 512}));
  EXPECT_EQ(doc["tensors"]["param"]["sharding"], "<@mesh, [{\"X\", \"Y\"}, {}]>");
  const auto& dot = op_named(doc, "dot");
  EXPECT_EQ(dot["op"], "matmul");
  EXPECT_EQ(dot["einsum"], "AB,BC->AC");
  EXPECT_EQ(dot["lhs"], "param_1");
  EXPECT_EQ(op_named(doc, "all-reduce")["axes"], nlohmann::json{"Y"});
  const auto& rs = op_named(doc, "reduce-scatter");
  EXPECT_EQ(rs["axes"], nlohmann::json{"X"});
  EXPECT_EQ(rs["dim"], 0);
  // The collective-permute's four pairs are four sends of the operand's f32[128,512] = 262144 bytes.
  for (int k = 0; k < 4; ++k) {
    const auto& send = op_named(doc, "collective-permute." + std::to_string(k));
    EXPECT_EQ(send["op"], "send");
    EXPECT_EQ(send["bytes"], 262144);
    EXPECT_EQ(send["after"], nlohmann::json{"fusion"});
  }
  EXPECT_EQ(op_named(doc, "collective-permute.1")["from"], 1);
  EXPECT_EQ(op_named(doc, "collective-permute.1")["to"], 0);
  // The fusion: multiply and tanh per element; it reads the all-gather's result and loads the all-reduce's.
  const auto& fusion = op_named(doc, "fusion");
  EXPECT_EQ(fusion["flops_per_element"], 2.0);
  EXPECT_EQ(fusion["tensor"], "all_gather");
  EXPECT_EQ(op_named(doc, "fusion.read0")["tensor"], "all_reduce");
  // f32 has no tpu-v5e figure: the override is stated, and listed.
  EXPECT_EQ(doc["hardware"]["overrides"]["chip"]["peak_flops"]["f32"]["value"], 1.97e14);
  bool listed = false;
  for (const auto& n : imported.notes)
    listed = listed || n.how.find("f32 compute runs at the preset's bf16 peak") != std::string::npos;
  EXPECT_TRUE(listed);
  EXPECT_EQ(doc["source"]["format"], "hlo-partitioned");
  EXPECT_EQ(doc["source"]["file"], "hlo_collectives.hlo");
  ASSERT_EQ(doc["source"]["approximations"].size(), imported.notes.size());
  EXPECT_EQ(doc["source"]["approximations"][0]["op"], "convert %convert");
  EXPECT_EQ(doc["source"]["approximations"][0]["line"], 25);
  // The loader accepts it, and the reduce-scatter's result is [128,512] split 2 ways on dim 0: 64x512 per chip.
  const auto spec = load_scenario_text(doc.dump(), "c.json");
  EXPECT_EQ(local_shape(spec, "param"), (std::vector<std::int64_t>{32, 512}));
}

TEST(HloScenario, AsyncVariadicAllToAllAndConvolution) {
  const std::string text =
      "HloModule misc, num_partitions=4\n"
      "%add (x: f32[], y: f32[]) -> f32[] {\n"
      "  %x = f32[] parameter(0)\n"
      "  %y = f32[] parameter(1)\n"
      "  ROOT %add = f32[] add(f32[] %x, f32[] %y)\n"
      "}\n"
      "%fused_conv (p0: bf16[8,6,6,16], p1: bf16[3,3,16,32]) -> bf16[8,4,4,32] {\n"
      "  %p0 = bf16[8,6,6,16]{3,2,1,0} parameter(0)\n"
      "  %p1 = bf16[3,3,16,32]{3,2,1,0} parameter(1)\n"
      "  ROOT %conv = bf16[8,4,4,32]{3,2,1,0} convolution(%p0, %p1), window={size=3x3}, dim_labels=b01f_01io->b01f\n"
      "}\n"
      "ENTRY %main (a: bf16[8,6,6,16], k: bf16[3,3,16,32], c: f32[16,8]) -> f32[16,8] {\n"
      "  %a = bf16[8,6,6,16]{3,2,1,0} parameter(0)\n"
      "  %k = bf16[3,3,16,32]{3,2,1,0} parameter(1)\n"
      "  %c = f32[16,8]{1,0} parameter(2)\n"
      "  %f = bf16[8,4,4,32]{3,2,1,0} fusion(%a, %k), kind=kOutput, calls=%fused_conv\n"
      "  %ata = bf16[8,4,4,32]{3,2,1,0} all-to-all(%f), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}\n"
      "  %ars = (f32[16,8]{1,0}, bf16[8,4,4,32]{3,2,1,0}) all-reduce-start(%c, %ata), replica_groups={{0,1},{2,3}}, "
      "to_apply=%add\n"
      "  %ard = (f32[16,8]{1,0}, bf16[8,4,4,32]{3,2,1,0}) all-reduce-done(%ars)\n"
      "  %g0 = f32[16,8]{1,0} get-tuple-element(%ard), index=0\n"
      "  %cps = (f32[16,8]{1,0}, f32[16,8]{1,0}, u32[], u32[]) collective-permute-start(%g0), "
      "source_target_pairs={{0,1},{1,2},{2,3},{3,0},{2,2}}\n"
      "  ROOT %cpd = f32[16,8]{1,0} collective-permute-done(%cps)\n"
      "}\n";
  const auto imported = scenario_from_hlo(parse_hlo_module(text, "m.hlo"), "m.hlo", "tpu-v5e", {2, 2}, kV5ePeaks);
  const auto& doc = imported.scenario;
  // The fused convolution: M = 8 x 4 x 4 result positions, K = 3 x 3 x 16, N = 32; 2 M K N FLOPs.
  const auto& conv = op_named(doc, "f.conv");
  EXPECT_EQ(conv["op"], "matmul");
  EXPECT_EQ(conv["einsum"], "MK,KN->MN");
  EXPECT_EQ(doc["tensors"][conv["lhs"].get<std::string>()]["shape"], (nlohmann::json{128, 144}));
  EXPECT_EQ(doc["tensors"][conv["rhs"].get<std::string>()]["shape"], (nlohmann::json{144, 32}));
  // all-to-all along dim 0 over 4 chips: a stand-in 32x4x4x32 split on dim 0, moved to dim 1 (the first other dim
  // that divides by 4).
  const auto& ata = op_named(doc, "ata");
  EXPECT_EQ(ata["op"], "all_to_all");
  EXPECT_EQ(ata["axes"], (nlohmann::json{"X", "Y"}));
  EXPECT_EQ(ata["from_dim"], 0);
  EXPECT_EQ(ata["to_dim"], 1);
  EXPECT_EQ(doc["tensors"][ata["tensor"].get<std::string>()]["shape"], (nlohmann::json{32, 4, 4, 32}));
  // The two-operand all-reduce-start: one all_reduce per operand, both over Y.
  EXPECT_EQ(op_named(doc, "ars.0")["axes"], nlohmann::json{"Y"});
  EXPECT_EQ(op_named(doc, "ars.1")["axes"], nlohmann::json{"Y"});
  EXPECT_EQ(op_named(doc, "ars.1")["after"], nlohmann::json{"ata"});
  // collective-permute-start: four sends of f32[16,8] = 512 bytes, after the all-reduce; {2,2} moves nothing.
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(op_named(doc, "cps." + std::to_string(k))["bytes"], 512);
    EXPECT_EQ(op_named(doc, "cps." + std::to_string(k))["after"], nlohmann::json{"ars.0"});
  }
  EXPECT_THROW(op_named(doc, "cps.4"), std::runtime_error);
  EXPECT_NO_THROW(load_scenario_text(doc.dump(), "m.json"));
}

TEST(HloScenario, PerDeviceShapesEqualTheShardyShards) {
  // matmul_tanh.mlir and its partitioned HLO: the HLO's per-device parameter shapes are the shards podsim computes
  // from the Shardy shardings, on the same 4x2 slice.
  const auto stablehlo = parse_stablehlo_module(read_text(data_path("matmul_tanh.mlir")), "matmul_tanh.mlir");
  const auto shardy = load_scenario_text(scenario_from_module(stablehlo, "m.mlir", "tpu-v5e", {4, 2}).dump(), "s.json");
  const auto hlo = read_hlo("hlo_matmul_tanh.hlo");
  EXPECT_EQ(hlo_default_slice(hlo, {16, 16}, "f", "--hardware"), (std::vector<std::int64_t>{4, 2}));
  EXPECT_EQ(find(hlo, "param").shape.dims, local_shape(shardy, "arg0"));
  EXPECT_EQ(find(hlo, "param.1").shape.dims, local_shape(shardy, "arg1"));
  // The dot's result carries the module's result sharding [{"x"}, {"y"}]; the returned value [{"x"}, {}].
  const Mesh& mesh = shardy.mesh.mesh;
  EXPECT_EQ(find(hlo, "dot.1").shape.dims,
            compute_layout({1024, 8192}, DType::bf16, parse_shardy_sharding("<@mesh, [{\"x\"}, {\"y\"}]>"), mesh)
                .local_shape);
  EXPECT_EQ(
      find(hlo, "all-gather").shape.dims,
      compute_layout({1024, 8192}, DType::bf16, parse_shardy_sharding("<@mesh, [{\"x\"}, {}]>"), mesh).local_shape);
  // The imported HLO scenario holds the same per-device shapes.
  const auto imported = import_hlo("hlo_matmul_tanh.hlo", {4, 2});
  const auto spec = load_scenario_text(imported.scenario.dump(), "h.json");
  EXPECT_EQ(local_shape(spec, "param"), local_shape(shardy, "arg0"));
  EXPECT_EQ(local_shape(spec, "param_1"), local_shape(shardy, "arg1"));
  // The all-gather runs along "y" (the minor slice dim, axis Y).
  EXPECT_EQ(op_named(imported.scenario, "all-gather")["axes"], nlohmann::json{"Y"});
}

TEST(HloScenario, RefusalsAreLocated) {
  const std::string head = "HloModule m, num_partitions=4\nENTRY %e {\n  %p = f32[8,16]{1,0} parameter(0)\n";
  EXPECT_EQ(
      hlo_error_of(head + "  %c = f32[8,16]{1,0} custom-call(f32[8,16]{1,0} %p), custom_call_target=\"x\"\n}\n", true),
      "m.hlo:4:23: unsupported instruction \"custom-call\" (%c): podsim does not simulate it");
  EXPECT_EQ(hlo_error_of(head + "  %w = (f32[8,16]) conditional(%p), branch_computations={%a}\n}\n", true),
            "m.hlo:4:20: unsupported instruction \"conditional\" (%w): podsim does not simulate it");
  EXPECT_EQ(hlo_error_of("HloModule m\nENTRY %e {\n  %p = f64[2]{0} parameter(0)\n}\n", true, {1}).substr(0, 46),
            "m.hlo:3:18: unsupported element type f64 of %p");
  // An all-gather whose result is not the operand times the group size.
  EXPECT_EQ(
      hlo_error_of(head + "  %a = f32[16,16]{1,0} all-gather(%p), replica_groups={{0,1,2,3}}, dimensions={0}\n}\n",
                   true),
      "m.hlo:4:24: all-gather %a over groups of 4: the result is the operand with dim 0 times the group size, got: "
      "f32[8,16] -> f32[16,16]");
  EXPECT_EQ(hlo_error_of(head + "  %a = f32[8,16]{1,0} all-reduce(%p), replica_groups={{0,5},{1,2}}\n}\n", true),
            "m.hlo:4:39: all-reduce %a: device 5 is outside the module's 4 devices");
  EXPECT_EQ(hlo_error_of(head + "  %a = f32[8,16]{1,0} all-reduce(%p), replica_groups={{0,1},{2,3}}\n}\n", true, {4}),
            "m.hlo:4:39: all-reduce %a: replica_groups {{0,1},{2,3}} are not lines or planes of the slice 4 (device "
            "id = chip id, row-major), so no mesh axes run it; give --slice");
  EXPECT_EQ(
      hlo_error_of(head + "  %a = f32[8,16]{1,0} all-reduce(%p)\n}\n", true, {2, 4}),
      "slice option: the module runs on 4 devices (num_partitions x replica_count), the slice holds 8 chips, got: 2x4");
  EXPECT_EQ(
      hlo_error_of(head + "  %d = f32[8,8]{1,0} dot(%p, %p), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
                   true)
          .substr(0, 49),
      "m.hlo:4:61: dot %d: paired dims differ in size");
}

// `podsim import ARGS` exits 2, its error output holding `message`.
void expect_import_error(const std::string& args, const std::string& message) {
  const auto refused = test::run_podsim("import " + args);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find(message), std::string::npos) << refused.err;
}

TEST(HloCli, ImportThenRunReportsTheModulesCollectives) {
  const std::string out = ::testing::TempDir() + "/imported_hlo_collectives.json";
  const auto imported = test::run_podsim("import " + data_path("hlo_collectives.hlo") + " -o " + out);
  ASSERT_EQ(imported.code, 0) << imported.err;
  EXPECT_NE(imported.out.find("on a 2x2 tpu-v5e slice"), std::string::npos) << imported.out;
  EXPECT_NE(imported.out.find("hlo_collectives.hlo:25: convert %convert: read as its bytes in and out"),
            std::string::npos)
      << imported.out;
  EXPECT_EQ(test::run_podsim("check " + out).code, 0);
  const auto run = test::run_podsim("run " + out + " --format json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto plan = test::json_of(run)["plans"][0];
  std::map<std::string, nlohmann::json> ops;
  for (const auto& op : plan["ops"])
    ops[op["name"].get<std::string>()] = op;
  // all-gather of f32[32,512] over 4 chips: V = the gathered f32[128,512] = 128 x 512 x 4 bytes.
  const auto& ag = ops.at("all-gather")["collectives"][0];
  EXPECT_EQ(ag["kind"], "all-gather");
  EXPECT_EQ(ag["group_size"], 4);
  EXPECT_EQ(ag["array_bytes"], 262144);
  // dot bf16[128,256] x [256,512] per device: 2 x 128 x 256 x 512 FLOPs.
  EXPECT_EQ(ops.at("dot")["flops"], 2.0 * 128 * 256 * 512);
  const auto& ar = ops.at("all-reduce")["collectives"][0];
  EXPECT_EQ(ar["kind"], "all-reduce");
  EXPECT_EQ(ar["group_size"], 2);
  EXPECT_EQ(ar["axes"], nlohmann::json{"Y"});
  EXPECT_EQ(ar["array_bytes"], 262144);
  const auto& rs = ops.at("reduce-scatter")["collectives"][0];
  EXPECT_EQ(rs["kind"], "reduce-scatter");
  EXPECT_EQ(rs["group_size"], 2);
  EXPECT_EQ(rs["axes"], nlohmann::json{"X"});
  // The fusion: 2 flops on each of 128 x 512 elements.
  EXPECT_EQ(ops.at("fusion")["flops"], 2.0 * 128 * 512);
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(ops.at("collective-permute." + std::to_string(k))["bytes_sent"], 262144);
  // Memory: the module's per-device shapes.
  std::map<std::string, nlohmann::json> tensors;
  for (const auto& t : plan["memory"]["tensors"])
    tensors[t["name"].get<std::string>()] = t;
  EXPECT_EQ(tensors.at("param")["local_shape"], (nlohmann::json{32, 512}));
  EXPECT_EQ(tensors.at("all_gather")["local_shape"], (nlohmann::json{128, 512}));
  EXPECT_EQ(tensors.at("reduce_scatter")["local_shape"], (nlohmann::json{64, 512}));
  EXPECT_EQ(tensors.at("reduce_scatter")["bytes_per_device"], 64 * 512 * 4);

  // XLA's own test module: 4 devices from its groups, the all-gather of f32[256,1] gives V = 1024 x 4 bytes.
  const auto remat = test::run_podsim("import " + data_path("hlo_remat_all_gather.hlo") + " -o " + out);
  ASSERT_EQ(remat.code, 0) << remat.err;
  EXPECT_NE(remat.out.find("the header says 1 device(s)"), std::string::npos) << remat.out;
  const auto remat_run = test::run_podsim("run " + out + " --format json");
  ASSERT_EQ(remat_run.code, 0) << remat_run.err;
  const nlohmann::json remat_report = test::json_of(remat_run);  // held: the loop below reads into it
  bool gathered = false;
  for (const auto& op : remat_report["plans"][0]["ops"])
    if (op["name"] == "ag") {
      EXPECT_EQ(op["collectives"][0]["array_bytes"], 4096);
      gathered = true;
    }
  EXPECT_TRUE(gathered) << "no op named ag";

  expect_import_error(data_path("hlo_bad_groups.hlo") + " -o " + out + " --slice 2x2",
                      "hlo_bad_groups.hlo:13:86: all-reduce %all-reduce: replica_groups {{0,3},{1,2}}");
}

// Peak memory per device is the module's own buffers: the all-reduce's stand-in input is a view of the dot's result,
// not a tensor of its own. Per device, bf16: param 256x256 = 128 KiB, param.1 256x1024 = 512 KiB, dot, all-reduce
// and tanh 256x1024 = 512 KiB each. While the all-reduce runs: both parameters, dot (its input) and its result =
// 1664 KiB; during tanh dot is freed and tanh's result takes its place: 1664 KiB again. A stand-in counted as a
// tensor alive for the whole run would add 512 KiB (2176 KiB).
TEST(HloCli, PeakMemoryIsTheModulesOwnBuffers) {
  const std::string out = ::testing::TempDir() + "/imported_hlo_memory.json";
  const auto imported = test::run_podsim("import " + data_path("hlo_memory.hlo") + " -o " + out);
  ASSERT_EQ(imported.code, 0) << imported.err;
  EXPECT_NE(imported.out.find("a view of dot, whose buffer it holds (no memory of its own)"), std::string::npos)
      << imported.out;
  const auto run = test::run_podsim("run " + out + " --format json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto memory = test::json_of(run)["plans"][0]["memory"];
  EXPECT_EQ(memory["per_chip_bytes"], 1664 * 1024);
  EXPECT_EQ(memory["book_per_chip_bytes"], 1664 * 1024);
  std::map<std::string, nlohmann::json> tensors;
  for (const auto& t : memory["tensors"])
    tensors[t["name"].get<std::string>()] = t;
  EXPECT_EQ(tensors.at("all_reduce_in")["view_of"], "dot");
  EXPECT_EQ(tensors.at("param")["view_of"], nullptr);
  std::vector<std::string> alive;
  for (const auto& b : memory["alive_at_peak"])
    alive.push_back(b["buffer"].get<std::string>());
  std::sort(alive.begin(), alive.end());
  EXPECT_EQ(alive, (std::vector<std::string>{"all_reduce", "dot", "param", "param_1"}));
  const auto text = test::run_podsim("run " + out);
  EXPECT_NE(text.out.find("all_reduce_in (view of dot)"), std::string::npos) << text.out;
  // A slice of fewer dims than the preset's pods is refused at the flag, with the shape to give.
  expect_import_error(data_path("hlo_memory.hlo") + " -o " + out + " --slice 2",
                      "error: --slice: tpu-v5e's slices have 2 dims (its pod is 16x16), got: \"2\" (give 2x1)");
}

// Control flow: a while unrolls only with a trip count XLA states, within bounds; a call names a computation.
TEST(HloScenario, ControlFlowRefusalsAreLocated) {
  const std::string body =
      "%b (s: f32[8]) -> f32[8] {\n  %s = f32[8]{0} parameter(0)\n  ROOT %t = f32[8]{0} tanh(%s)\n}\n";
  const std::string head = "HloModule m, num_partitions=4\n" + body + "ENTRY %e {\n  %p = f32[8]{0} parameter(0)\n";
  EXPECT_EQ(hlo_error_of(head + "  %w = f32[8]{0} while(%p), condition=%b, body=%b\n}\n", true),
            "m.hlo:8:18: while %w: no known_trip_count in its backend_config (podsim unrolls a loop only when XLA "
            "states how many times it runs)");
  EXPECT_EQ(hlo_error_of(head + "  %w = f32[8]{0} while(%p), condition=%b, body=%nope, "
                                "backend_config={\"known_trip_count\":{\"n\":\"2\"}}\n}\n",
                         true),
            "m.hlo:8:43: while %w calls an unknown computation %nope");
  // 100001 iterations of a one-instruction body: past the 100000 instructions podsim reads.
  EXPECT_EQ(hlo_error_of(head + "  %w = f32[8]{0} while(%p), condition=%b, body=%b, "
                                "backend_config={\"known_trip_count\":{\"n\":\"100001\"}}\n}\n",
                         true),
            "m.hlo:8:52: while %w: 100001 iterations of %b's 1 instructions would take the module past 100000 "
            "instructions, which podsim does not simulate one by one");
  EXPECT_EQ(hlo_error_of(head + "  %c = f32[8]{0} call(%p), to_apply=%e\n}\n", true),
            "m.hlo:8:28: call %c calls the ENTRY computation %e");
  EXPECT_EQ(hlo_error_of(head + "  %c = f32[8]{0} call(%p)\n}\n", true), "m.hlo:8:18: call %c without to_apply=");
  // A body whose parameter is not what the loop passes it.
  const std::string wide =
      "%v (s: f32[16]) -> f32[16] {\n  %s = f32[16]{0} parameter(0)\n  ROOT %t = f32[16]{0} "
      "tanh(%s)\n}\n";
  EXPECT_EQ(hlo_error_of("HloModule m, num_partitions=4\n" + wide + "ENTRY %e {\n  %p = f32[8]{0} parameter(0)\n" +
                             "  %w = f32[8]{0} while(%p), condition=%v, body=%v, "
                             "backend_config={\"known_trip_count\":{\"n\":\"1\"}}\n}\n",
                         true),
            "m.hlo:3:19: %s: parameter 0 of %v differs in shape from what %w passes it");
}

// A call reads its computation in place: the dot inside becomes a matmul named after the call, on the caller's
// tensors, and what the call returns is the matmul's result (the all-reduce's stand-in is a view of it).
TEST(HloScenario, ACallReadsItsComputationInPlace) {
  const std::string text =
      "HloModule m, num_partitions=2\n"
      "%f (a: bf16[64,128], b: bf16[128,256]) -> bf16[64,256] {\n"
      "  %a = bf16[64,128]{1,0} parameter(0)\n"
      "  %b = bf16[128,256]{1,0} parameter(1)\n"
      "  ROOT %d = bf16[64,256]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "}\n"
      "ENTRY %e {\n"
      "  %x = bf16[64,128]{1,0} parameter(0)\n"
      "  %w = bf16[128,256]{1,0} parameter(1)\n"
      "  %c = bf16[64,256]{1,0} call(%x, %w), to_apply=%f\n"
      "  ROOT %r = bf16[64,256]{1,0} all-reduce(%c), replica_groups={{0,1}}\n"
      "}\n";
  const auto imported = scenario_from_hlo(parse_hlo_module(text, "m.hlo"), "m.hlo", "tpu-v5e", {2, 1}, kV5ePeaks);
  const auto& doc = imported.scenario;
  const auto& mm = op_named(doc, "c.d");
  EXPECT_EQ(mm["op"], "matmul");
  EXPECT_EQ(mm["lhs"], "x");
  EXPECT_EQ(mm["rhs"], "w");
  EXPECT_EQ(mm["einsum"], "AB,BC->AC");
  const auto& ar = op_named(doc, "r");
  EXPECT_EQ(doc["tensors"][ar["tensor"].get<std::string>()]["view_of"], mm["out"]);
  EXPECT_EQ(ar["after"], nlohmann::json{"c.d"});
  const auto spec = load_scenario_text(doc.dump(), "c.json");
  EXPECT_EQ(spec.program.size(), 2u);
}

// XLA's module (hlo_while_all_reduce.hlo): a while over a body that all-reduces p.1 (bf16[4096], 8 KiB per device)
// over groups {0,1,2,3},{4,5,6,7}, known_trip_count 10. The groups are the rows of a 2x4 slice: axis Y, 4 chips.
// Unrolled: ten all-reduces, one per iteration, each iteration's ops after the previous iteration's; the body's
// approximations are listed once.
TEST(HloCli, AWhileLoopUnrollsItsKnownTripCount) {
  const std::string out = ::testing::TempDir() + "/imported_hlo_while.json";
  const auto imported = test::run_podsim("import " + data_path("hlo_while_all_reduce.hlo") + " -o " + out);
  ASSERT_EQ(imported.code, 0) << imported.err;
  EXPECT_NE(imported.out.find("on a 2x4 tpu-v5e slice"), std::string::npos) << imported.out;
  EXPECT_NE(imported.out.find("hlo_while_all_reduce.hlo:45: while %while: while over %body unrolled 10 times"),
            std::string::npos)
      << imported.out;
  std::size_t listed = 0;
  for (std::size_t at = imported.out.find("all-reduce %all-reduce:"); at != std::string::npos;
       at = imported.out.find("all-reduce %all-reduce:", at + 1))
    ++listed;
  EXPECT_EQ(listed, 1u) << imported.out;
  const auto run = test::run_podsim("run " + out + " --format json");
  ASSERT_EQ(run.code, 0) << run.err;
  const auto plan = test::json_of(run)["plans"][0];
  std::map<std::string, nlohmann::json> ops;
  int all_reduces = 0;
  for (const auto& op : plan["ops"]) {
    ops[op["name"].get<std::string>()] = op;
    if (op["kind"] == "all_reduce") ++all_reduces;
  }
  EXPECT_EQ(all_reduces, 10);
  for (int i = 0; i < 10; ++i) {
    const auto& ar = ops.at("while." + std::to_string(i) + ".all-reduce");
    EXPECT_EQ(ar["collectives"][0]["axes"], nlohmann::json{"Y"});
    EXPECT_EQ(ar["collectives"][0]["group_size"], 4);
    EXPECT_EQ(ar["collectives"][0]["array_bytes"], 4096 * 2);
    if (i == 0) continue;
    // Iteration i starts when iteration i-1 has written its state (the dynamic-update-slice, its last op).
    const double previous_end = ops.at("while." + std::to_string(i - 1) + ".dus")["des_end_s"].get<double>();
    EXPECT_GE(ar["des_start_s"].get<double>(), previous_end) << i;
    EXPECT_GE(ops.at("while." + std::to_string(i) + ".output-buffer")["des_start_s"].get<double>(), previous_end) << i;
  }
  // Memory: the parameters (8 KiB each) and one iteration's buffers, not ten: the all-reduce's result, the
  // broadcast's stand-in input and result, the dynamic-update-slice's result (8 KiB each) and s32 scalars.
  const auto per_chip = plan["memory"]["per_chip_bytes"].get<std::uint64_t>();
  EXPECT_GE(per_chip, 16u * 1024);
  EXPECT_LE(per_chip, 48u * 1024 + 64);
  EXPECT_EQ(plan["values_match"], true);
}

// Mutated module texts (a fixed seed): the import either succeeds or throws podsim's typed errors, never anything
// else (an out-of-range access, a JSON type error) and never crashes; what it writes the loader accepts or refuses.
TEST(HloRobustness, MutatedModulesFailCleanly) {
  std::mt19937 rng(20261201);
  const std::string alphabet = "{}[]()<=,%:0123456789-. \nTxf";
  int imported = 0, refused = 0;
  for (const char* name :
       {"hlo_collectives.hlo", "hlo_matmul_tanh.hlo", "hlo_remat_all_gather.hlo", "hlo_bad_groups.hlo"}) {
    const std::string original = read_text(data_path(name));
    for (int round = 0; round < 400; ++round) {
      std::string text = original;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits && !text.empty(); ++e) {
        const std::size_t at = rng() % text.size();
        switch (rng() % 4) {
          case 0:
            text.erase(at, 1 + rng() % 8);
            break;
          case 1:
            text.insert(at, 1, alphabet[rng() % alphabet.size()]);
            break;
          case 2:
            text[at] = alphabet[rng() % alphabet.size()];
            break;
          default: {  // a line repeated elsewhere
            const std::size_t b = text.rfind('\n', at), end = text.find('\n', at);
            const std::string line =
                text.substr(b == std::string::npos ? 0 : b,
                            end == std::string::npos ? std::string::npos : end - (b == std::string::npos ? 0 : b));
            text.insert(rng() % text.size(), line);
          }
        }
      }
      try {
        const auto module = parse_hlo_module(text, "m.hlo");
        const auto slice = hlo_default_slice(module, {16, 16}, "m.hlo", "--hardware");
        const auto doc = scenario_from_hlo(module, "m.hlo", "tpu-v5e", slice, kV5ePeaks).scenario;
        load_scenario_text(doc.dump(), "m.json");
        ++imported;
      } catch (const Error&) {
        ++refused;
      }
    }
  }
  EXPECT_GT(imported, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace podsim::import
