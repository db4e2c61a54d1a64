// The scenario loader: the good scenarios load into the values worked out by hand, every section's
// features build the right typed values, and every rule's exact error is pinned by a bad/<case>/ folder
// (case.json + case.expected, paths relative to the repository root as a user at the root would type them).
#include "sim/scenario/scenario_json.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "tests/support/skip_unless_ci.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;

const fs::path kData = PODSIM_TEST_DATA_DIR;
const fs::path kRepo = kData.parent_path().parent_path();

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string load_error(const std::string& text, const std::string& where = "s.json") {
  try {
    load_scenario_text(text, where);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// A small valid scenario; tests patch one part of it.
const std::string kHead = R"("name": "t", "hardware": "tpu-v5e", "slice": {"shape": [4, 4]}, "mesh": "X=4,Y=4",
  "tensors": {"A": {"shape": [64, 128], "sharding": "A[I_X, J]"}, "B": {"shape": [128, 32]}})";

std::string scenario(const std::string& rest) {
  return "{" + kHead + (rest.empty() ? "" : ", " + rest) + "}";
}

// ---- good scenarios ----

TEST(ScenarioGood, TwoRankMatmulFromTheDesignCard) {
  const auto spec = load_scenario((kData / "good/two_rank_matmul.json").string());
  EXPECT_EQ(spec.name, "two-rank-matmul");
  EXPECT_EQ(spec.hardware.spec.name, "tpu-v5e");
  EXPECT_EQ(spec.slice_shape, (Shape{2}));
  EXPECT_EQ(spec.wraparound, (std::vector<bool>{false}));  // a dim of 2 never wraps
  EXPECT_EQ(spec.dtype, DType::f32);
  ASSERT_EQ(spec.tensors.size(), 2u);
  EXPECT_EQ(spec.tensors[0].name, "A");
  EXPECT_EQ(spec.tensors[0].dtype, DType::f32);  // the scenario's default dtype
  // A[I, K_X]: dim 0 whole, dim 1 over X.
  const auto& a = spec.tensors[0].sharding.sharding();
  ASSERT_EQ(a.dims.size(), 2u);
  EXPECT_TRUE(a.dims[0].axes.empty());
  ASSERT_EQ(a.dims[1].axes.size(), 1u);
  EXPECT_EQ(a.dims[1].axes[0].name, "X");
  ASSERT_EQ(spec.program.size(), 3u);
  const auto& mm = spec.program[0];
  EXPECT_EQ(mm.kind, OpKind::matmul);
  EXPECT_EQ(mm.name, "partial");
  EXPECT_EQ(mm.pointer, "/program/0");
  EXPECT_EQ(mm.out, "C");
  EXPECT_EQ(mm.out_shape, (Shape{2, 2}));
  EXPECT_EQ(mm.inputs, (std::vector<std::string>{"A", "B"}));
  const auto& m = std::get<MatmulOp>(mm.detail);
  ASSERT_TRUE(m.out_sharding.has_value());
  ASSERT_EQ(m.out_sharding->sharding().unreduced.size(), 1u);  // C[I, J]{U_X}: partial sums over X
  const auto& rs = std::get<CollectiveOp>(spec.program[1].detail);
  EXPECT_EQ(rs.kind, CollectiveKind::reduce_scatter);
  EXPECT_EQ(rs.dim, 0);
  EXPECT_EQ(spec.program[1].out, "C");  // in place
  EXPECT_TRUE(spec.options.verify_values);
  ASSERT_EQ(spec.expect.size(), 5u);
  EXPECT_EQ(spec.expect[0].scope, ExpectScope::tensor);
  EXPECT_EQ(std::get<std::vector<std::int64_t>>(spec.expect[0].value), (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(spec.expect[2].scope, ExpectScope::op);
  EXPECT_EQ(spec.expect[3].scope, ExpectScope::plan);
  EXPECT_DOUBLE_EQ(std::get<double>(spec.expect[3].value), 32);
  EXPECT_TRUE(spec.expect[3].relative);
  EXPECT_FALSE(spec.expect[3].tolerance.has_value());
  EXPECT_DOUBLE_EQ(spec.expect[3].tolerance_or_default(), 1e-9);  // the default tolerance
  EXPECT_TRUE(std::get<bool>(spec.expect[4].value));
}

TEST(ScenarioGood, MlpWithThreePlans) {
  const auto spec = load_scenario((kData / "good/mlp_v5e_4x4.json").string());
  // v5e wraps only an axis that spans the 16-chip pod: a 4x4 slice has no wraparound.
  EXPECT_EQ(spec.wraparound, (std::vector<bool>{false, false}));
  EXPECT_EQ(spec.mesh.name, "mesh");
  EXPECT_EQ(spec.mesh.axis_dims, (std::vector<std::vector<int>>{{0}, {1}}));  // Y takes the default dim 1
  EXPECT_DOUBLE_EQ(spec.hardware.spec.ici.hop_latency_s, 1e-6);               // "1us" override
  ASSERT_EQ(spec.program.size(), 4u);
  EXPECT_EQ(spec.program[1].after, (std::vector<std::string>{"load_W1"}));
  EXPECT_EQ(spec.program[1].out_shape, (Shape{2048, 16384}));  // BD,DF->BF
  EXPECT_EQ(spec.program[3].out_shape, (Shape{2048, 8192}));   // BF,FD->BD
  EXPECT_EQ(spec.program[3].out_dtype, DType::bf16);
  EXPECT_EQ(spec.program[3].inputs, (std::vector<std::string>{"h", "W2"}));
  EXPECT_DOUBLE_EQ(std::get<ElementwiseOp>(spec.program[2].detail).flops_per_element, 8);
  EXPECT_EQ(std::get<MatmulOp>(spec.program[3].detail).out_sharding->parsed.notation, Notation::partition_spec);
  ASSERT_EQ(spec.plans.size(), 3u);
  EXPECT_EQ(spec.plans[0].name, "dp");
  EXPECT_TRUE(spec.plans[0].shardings.empty());
  ASSERT_EQ(spec.plans[2].shardings.size(), 3u);
  EXPECT_EQ(spec.plans[2].shardings[1].first, "W1");
  ASSERT_EQ(spec.plans[2].out_shardings.size(), 2u);
  EXPECT_EQ(spec.plans[2].out_shardings[0].first, "up");
  // W2 is written in Shardy's notation, replicated.
  EXPECT_EQ(spec.tensors[2].sharding.parsed.notation, Notation::shardy);
  ASSERT_EQ(spec.expect.size(), 5u);
  EXPECT_EQ(spec.expect[1].plan, "fsdp");
  EXPECT_EQ(spec.expect[3].op, "up");
}

TEST(ScenarioGood, PopQuiz2AllGather) {
  const auto spec = load_scenario((kData / "good/pop_quiz_2_all_gather.json").string());
  EXPECT_EQ(spec.slice_shape, (Shape{8, 4}));
  EXPECT_EQ(spec.wraparound, (std::vector<bool>{false, false}));  // neither 8 nor 4 spans v5e's 16
  EXPECT_EQ(spec.mesh.mesh.num_devices(), 32);
  const auto& ag = std::get<CollectiveOp>(spec.program[0].detail);
  EXPECT_EQ(ag.axes, (std::vector<std::string>{"Y"}));
  EXPECT_EQ(spec.expect[2].model, EvalModel::book);
  EXPECT_NEAR(std::get<double>(spec.expect[2].value), 3.0 * 512 * 8192 * 2 / 4.5e10, 1e-12);
  EXPECT_DOUBLE_EQ(spec.expect[2].tolerance_or_default(), 0.01);
}

// ---- features, through small texts ----

TEST(ScenarioFeatures, DefaultsWhenOptionalKeysAreAbsent) {
  const auto spec =
      load_scenario_text(R"({"name": "d", "hardware": "tpu-v4", "slice": {"shape": [4, 4, 4]}})", "d.json");
  EXPECT_EQ(spec.source_file, "d.json");
  // v4 wraps whole 4x4x4 cubes.
  EXPECT_EQ(spec.wraparound, (std::vector<bool>{true, true, true}));
  // The default mesh: X, Y, Z over the slice dims.
  ASSERT_EQ(spec.mesh.mesh.axes.size(), 3u);
  EXPECT_EQ(spec.mesh.mesh.axes[2].name, "Z");
  EXPECT_EQ(spec.mesh.mesh.axes[2].size, 4);
  EXPECT_EQ(spec.dtype, DType::bf16);
  EXPECT_EQ(spec.options.algorithm, Algorithm::automatic);
  EXPECT_EQ(spec.options.multi_axis, MultiAxis::concurrent);  // all axes at once, as XLA runs them (DESIGN.md)
  EXPECT_FALSE(spec.options.verify_values);
  EXPECT_TRUE(spec.program.empty());
}

TEST(ScenarioFeatures, WraparoundRules) {
  const auto wrap = [](const std::string& shape, const std::string& rule) {
    return load_scenario_text(R"({"name": "w", "hardware": "tpu-v5e", "slice": {"shape": )" + shape +
                                  R"(, "wraparound": )" + rule + "}}",
                              "w.json")
        .wraparound;
  };
  EXPECT_EQ(wrap("[16, 4]", "\"auto\""), (std::vector<bool>{true, false}));  // only the axis of 16 spans the pod
  EXPECT_EQ(wrap("[16, 4]", "\"none\""), (std::vector<bool>{false, false}));
  EXPECT_EQ(wrap("[16, 4, 2]", "\"all\""), (std::vector<bool>{true, true, false}));  // a dim of 2 never wraps
  EXPECT_EQ(wrap("[16, 4, 2]", "[false, true, true]"), (std::vector<bool>{false, true, false}));
  // v5e's rule needs the pod's rank: a 1D slice says what it wants.
  EXPECT_EQ(wrap("[8]", "[true]"), (std::vector<bool>{true}));
}

TEST(ScenarioFeatures, MeshObjectOverTwoDims) {
  const auto spec = load_scenario_text(R"({"name": "m", "hardware": "tpu-v5e", "slice": {"shape": [4, 2]},
    "mesh": {"name": "m", "axes": [{"name": "data", "size": 8, "dims": [0, 1]}], "device_ids": [7, 6, 5, 4, 3, 2, 1, 0]},
    "tensors": {"T": {"shape": [16], "sharding": "<@m, [{\"data\"}]>"}}})",
                                       "m.json");
  EXPECT_EQ(spec.mesh.name, "m");
  EXPECT_EQ(spec.mesh.axis_dims, (std::vector<std::vector<int>>{{0, 1}}));
  EXPECT_EQ(spec.mesh.mesh.device_at(0), 7);
  EXPECT_EQ(spec.tensors[0].sharding.sharding().mesh_name, "m");
}

TEST(ScenarioFeatures, EveryOpKind) {
  const auto spec = load_scenario_text(scenario(R"("program": [
      {"op": "all-gather", "tensor": "A", "axes": ["X"], "out": "A2"},
      {"op": "AllToAll", "tensor": "A2", "axes": ["Y"], "from_dim": 1, "to_dim": 0},
      {"op": "all_reduce", "tensor": "B", "axes": ["X", "Y"]},
      {"op": "reshard", "tensor": "A", "to": "A[I, J_Y]"},
      {"op": "load", "tensor": "B"},
      {"op": "send", "from": 0, "to": 5, "bytes": "1MiB"},
      {"op": "send", "from": 15, "to": 3, "tensor": "A", "after": ["op0", "op5"]},
      {"op": "elementwise", "tensor": "B", "out": "B2"}
    ])"),
                                       "s.json");
  ASSERT_EQ(spec.program.size(), 8u);
  EXPECT_EQ(spec.program[0].kind, OpKind::all_gather);
  EXPECT_EQ(spec.program[0].out, "A2");
  EXPECT_EQ(spec.program[0].out_shape, (Shape{64, 128}));
  const auto& a2a = std::get<CollectiveOp>(spec.program[1].detail);
  EXPECT_EQ(a2a.kind, CollectiveKind::all_to_all);
  EXPECT_EQ(a2a.from_dim, 1);
  EXPECT_EQ(a2a.to_dim, 0);
  EXPECT_EQ(std::get<CollectiveOp>(spec.program[2].detail).axes, (std::vector<std::string>{"X", "Y"}));
  EXPECT_EQ(spec.program[3].kind, OpKind::reshard);
  EXPECT_EQ(std::get<ReshardOp>(spec.program[3].detail).to.text, "A[I, J_Y]");
  EXPECT_EQ(spec.program[4].out, "");  // load writes no tensor
  const auto& s = std::get<SendOp>(spec.program[5].detail);
  EXPECT_EQ(s.from, 0);
  EXPECT_EQ(s.to, 5);
  EXPECT_EQ(s.bytes, 1048576u);
  EXPECT_EQ(std::get<SendOp>(spec.program[6].detail).tensor, "A");
  EXPECT_EQ(spec.program[6].name, "op6");
  EXPECT_EQ(spec.program[6].after, (std::vector<std::string>{"op0", "op5"}));
  EXPECT_DOUBLE_EQ(std::get<ElementwiseOp>(spec.program[7].detail).flops_per_element, 1);  // default
  EXPECT_EQ(spec.program[7].out, "B2");
}

TEST(ScenarioFeatures, DefaultShardingIsReplicatedOnTheScenarioMesh) {
  const auto spec = load_scenario_text(scenario(""), "s.json");
  const auto& b = spec.tensors[1];
  EXPECT_TRUE(b.sharding.text.empty());
  EXPECT_EQ(b.sharding.sharding().mesh_name, "mesh");
  ASSERT_EQ(b.sharding.sharding().dims.size(), 2u);
  EXPECT_TRUE(b.sharding.sharding().dims[0].axes.empty());
  EXPECT_TRUE(b.sharding.sharding().dims[1].axes.empty());
}

TEST(ScenarioFeatures, AbsoluteToleranceAndDefaultModel) {
  const auto spec = load_scenario_text(
      scenario(R"("expect": [{"metric": "total_bytes", "tensor": "A", "value": 262144, "abs_tol": 0}])"), "s.json");
  const auto& e = spec.expect[0];
  EXPECT_EQ(e.model, EvalModel::des);
  EXPECT_FALSE(e.relative);
  EXPECT_DOUBLE_EQ(e.tolerance_or_default(), 0);
  EXPECT_EQ(e.pointer, "/expect/0");
}

TEST(ScenarioErrors, SyntaxErrorsGiveLineAndColumn) {
  // Line 3, column 10 is the stray `}` after the comma.
  EXPECT_EQ(load_error("{\n  \"name\": \"x\",\n  \"a\": 1,}\n"),
            "s.json: line 3, column 10: invalid JSON: syntax error while parsing object key - unexpected '}'; "
            "expected string literal");
}

std::string load_file_error(const std::string& path) {
  try {
    load_scenario(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ScenarioErrors, MissingFileAndFolder) {
  EXPECT_EQ(load_file_error("no/such/file.json"), "no/such/file.json: cannot open file");
  const std::string folder = (kData / "good").string();
  EXPECT_EQ(load_file_error(folder), folder + ": is a folder, not a scenario file");
}

// ---- the docs ----

TEST(ScenarioDocs, TheExampleInTheFormatPageLoads) {
  const std::string doc = read_text(kRepo / "docs/scenario-format.md");
  const auto begin = doc.find("```json\n");
  ASSERT_NE(begin, std::string::npos);
  const auto end = doc.find("```", begin + 8);
  const auto spec = load_scenario_text(doc.substr(begin + 8, end - begin - 8), "docs/scenario-format.md");
  EXPECT_EQ(spec.name, "mlp-v5e-4x4");
  EXPECT_EQ(spec.plans.size(), 3u);
  EXPECT_EQ(spec.program[2].out_shape, (Shape{2048, 8192}));
}

TEST(ScenarioDocs, TheSchemaIsDraft202012AndAcceptsTheGoodScenarios) {
  const std::string schema = read_text(kRepo / "docs/scenario.schema.json");
  EXPECT_NE(schema.find("\"$schema\": \"https://json-schema.org/draft/2020-12/schema\""), std::string::npos);
  // Full validation needs Python's jsonschema: a developer's machine may lack it, CI may not.
  if (std::system("python3 -c 'import jsonschema' >/dev/null 2>&1") != 0)
    PODSIM_SKIP_OR_FAIL_IN_CI("python3 jsonschema absent");
  const std::string script =
      "import json, glob, sys, jsonschema\n"
      "s = json.load(open(sys.argv[1]))\n"
      "jsonschema.Draft202012Validator.check_schema(s)\n"
      "v = jsonschema.Draft202012Validator(s)\n"
      "bad = [f for f in sorted(glob.glob(sys.argv[2] + '/*.json')) if list(v.iter_errors(json.load(open(f))))]\n"
      "print(bad)\n"
      "sys.exit(1 if bad else 0)\n";
  const fs::path script_path = fs::temp_directory_path() / ("podsim_schema_" + std::to_string(getpid()) + ".py");
  std::ofstream(script_path) << script;
  const std::string command = "python3 " + script_path.string() + " " + (kRepo / "docs/scenario.schema.json").string() +
                              " " + (kData / "good").string();
  const int rc = std::system(command.c_str());
  fs::remove(script_path);
  EXPECT_EQ(rc, 0);
}

TEST(ScenarioJson, DisaggregatedServingReadsItsPools) {
  // Each pool: its slice (and the DCN figures of its KV link), mesh, parallelism, replicas and limits; the decode pool
  // on its own preset, the rest of serving shared.
  const auto spec = load_scenario((kData / "good/serve_disaggregated.json").string());
  ASSERT_TRUE(spec.serve.has_value());
  ASSERT_TRUE(spec.serve->disaggregated.has_value());
  const DisaggregatedSpec& pools = *spec.serve->disaggregated;
  EXPECT_EQ(pools.kv_link, KvLink::dcn);
  EXPECT_EQ(pools.prefill.pointer, "/serving/disaggregated/prefill");
  EXPECT_EQ(pools.prefill.slice_shape, (Shape{2, 2}));
  EXPECT_EQ(pools.prefill.mesh, "X=2,Y=2");
  EXPECT_EQ(pools.prefill.replicas, 2);
  EXPECT_DOUBLE_EQ(*pools.prefill.dcn_bandwidth_Bps, 2e9);
  EXPECT_DOUBLE_EQ(*pools.prefill.dcn_latency_s, 20e-6);
  EXPECT_EQ(pools.prefill.max_num_batched_tokens, 4096);
  EXPECT_FALSE(pools.prefill.hardware.has_value());
  ASSERT_TRUE(pools.decode.hardware.has_value());
  EXPECT_EQ(pools.decode.hardware->name, "tpu-v6e");
  EXPECT_EQ(pools.decode.replicas, 1);
  EXPECT_EQ(pools.decode.max_num_seqs, 32);
  EXPECT_EQ(pools.decode.mesh, "");
  EXPECT_EQ(spec.serve->scheduler.max_num_seqs, 64);
  EXPECT_TRUE(spec.slice_shape.empty());
}

// ---- input limits (docs/reliability.md); the 400 kB file is written here rather than kept in bad/ ----

TEST(ScenarioLimits, DeepNestingIsALocatedErrorNotACrash) {
  const fs::path path = fs::temp_directory_path() / ("podsim_deep_" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << "{\"name\": " << std::string(200000, '[') << std::string(200000, ']') << "}";
  std::string got = "(no error)";
  try {
    load_scenario(path.string());
  } catch (const InputError& e) {
    got = e.what();
  }
  fs::remove(path);
  EXPECT_EQ(got, path.string() + ": line 1, column 73: nesting deeper than 64 levels");
}

// ---- bad cases: one folder per rule ----

std::vector<std::string> bad_cases() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kData / "bad"))
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class BadScenario : public ::testing::TestWithParam<std::string> {
 protected:
  // Paths are given relative to the repository root, as a user there would type them.
  void SetUp() override {
    previous_ = fs::current_path();
    fs::current_path(kRepo);
  }
  void TearDown() override { fs::current_path(previous_); }

 private:
  fs::path previous_;
};

TEST_P(BadScenario, FailsWithTheExpectedError) {
  const fs::path folder = fs::path("tests/scenario/bad") / GetParam();
  std::string expected = read_text(folder / "case.expected");
  while (!expected.empty() && (expected.back() == '\n' || expected.back() == '\r'))
    expected.pop_back();
  std::string got = "(no error)";
  try {
    load_scenario((folder / "case.json").string());
  } catch (const InputError& e) {
    got = e.what();
  }
  EXPECT_EQ(got, expected);
}

TEST(BadScenarios, ThereAreAtLeastThirty) {
  EXPECT_GE(bad_cases().size(), 30u);
}

INSTANTIATE_TEST_SUITE_P(Cases, BadScenario, ::testing::ValuesIn(bad_cases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace podsim
