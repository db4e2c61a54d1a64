// The scenario verifier on specs built in code: no JSON, the same rules and the same messages as the loader
// gives for the equivalent file (each case below breaks one rule both ways), and the derived fields it fills.
#include "sim/scenario/scenario_verify.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "models/common/error.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

// A v5e-like preset written in code: wraparound only on an axis that spans the 16x16 pod.
HardwarePreset v5e() {
  HardwarePreset preset;
  preset.name = "tpu-v5e";
  preset.spec.name = "tpu-v5e";
  preset.spec.chip.peak_flops_by_dtype[DType::bf16] = 1.97e14;
  preset.spec.chip.hbm_bytes = std::uint64_t{16} << 30;
  preset.spec.chip.hbm_bandwidth_Bps = 8.1e11;
  preset.spec.ici.links_per_chip = 4;
  preset.spec.ici.bandwidth_Bps = 4.5e10;
  preset.spec.ici.hop_latency_s = 1e-6;
  preset.spec.wrap_rule = WrapRule::full_pod_axis;
  preset.spec.pod_shape = {16, 16};
  return preset;
}

ScenarioTensor tensor(const std::string& name, Shape shape, const std::string& sharding = "") {
  ScenarioTensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.sharding.text = sharding;
  return t;
}

// In code, what the JSON text kVerifyHead below says: a 4x4 v5e slice, mesh X=4,Y=4, A[I_X, J] and a replicated B.
ScenarioSpec base() {
  ScenarioSpec spec;
  spec.name = "t";
  spec.source_file = "s.json";
  spec.hardware = v5e();
  spec.slice_shape = {4, 4};
  spec.mesh.text = "X=4,Y=4";
  spec.tensors = {tensor("A", {64, 128}, "A[I_X, J]"), tensor("B", {128, 32})};
  return spec;
}

const std::string kVerifyHead = R"("name": "t", "hardware": "tpu-v5e", "slice": {"shape": [4, 4]}, "mesh": "X=4,Y=4",
  "tensors": {"A": {"shape": [64, 128], "sharding": "A[I_X, J]"}, "B": {"shape": [128, 32]}})";

std::string text_error(const std::string& text) {
  try {
    load_scenario_text(text, "s.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// The loader's error for kVerifyHead and `rest`.
std::string json_error(const std::string& rest) {
  return text_error("{" + kVerifyHead + (rest.empty() ? "" : ", " + rest) + "}");
}

std::string code_error(const std::function<void(ScenarioSpec&)>& change) {
  ScenarioSpec spec = base();
  change(spec);
  try {
    verify(spec);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

ScenarioOp op(OpKind kind, OpDetail detail, const std::string& out = "") {
  ScenarioOp o;
  o.kind = kind;
  o.detail = std::move(detail);
  o.out = out;
  return o;
}

MatmulOp matmul(const std::string& lhs, const std::string& rhs, const std::string& einsum) {
  MatmulOp m;
  m.lhs = lhs;
  m.rhs = rhs;
  m.einsum_text = einsum;
  return m;
}

CollectiveOp collective(const std::string& tensor, std::vector<std::string> axes) {
  CollectiveOp c;
  c.tensor = tensor;
  c.axes = std::move(axes);
  return c;
}

Expectation expect(const std::string& metric, Expectation::Value value) {
  Expectation e;
  e.metric = metric;
  e.value = std::move(value);
  return e;
}

TEST(ScenarioVerify, TheBaseSpecIsValidBothWays) {
  EXPECT_EQ(json_error(""), "(no error)");
  EXPECT_EQ(code_error([](ScenarioSpec&) {}), "(no error)");
}

TEST(ScenarioVerify, ShardingRulesGiveTheLoadersMessages) {
  const std::string expected = "s.json: /tensors/A/sharding: unknown axis name: \"Z\"";
  EXPECT_EQ(code_error([](ScenarioSpec& s) { s.tensors[0].sharding.text = "A[I_Z, J]"; }), expected);
  EXPECT_EQ(text_error(R"({"name": "t", "hardware": "tpu-v5e", "slice": {"shape": [4, 4]}, "mesh": "X=4,Y=4",
                            "tensors": {"A": {"shape": [64, 128], "sharding": "A[I_Z, J]"}}})"),
            expected);
  // A parse error keeps its column.
  EXPECT_EQ(code_error([](ScenarioSpec& s) { s.tensors[1].sharding.text = "<@mesh, [{\"X\"}"; }),
            "s.json: /tensors/B/sharding: column 15: expected ',' or ']'");
}

TEST(ScenarioVerify, SliceAndWraparoundRules) {
  EXPECT_EQ(code_error([](ScenarioSpec& s) {
              s.slice_shape = {64, 64, 32};
              s.mesh.text.clear();
              s.tensors.clear();
            }),
            "s.json: /slice/shape: a slice has at most 65536 chips, got: [64,64,32]");
  // v5e's rule places a slice on its 2D pod: a 3D slice has no place there; the scenario gave no wraparound.
  const std::string expected =
      "s.json: /slice: wraparound: full_pod_axis: a slice has at most the pod's 2 dims, got: pod 16x16 for slice "
      "4x4x4 (give \"wraparound\" as \"none\", \"all\" or one boolean per dim)";
  EXPECT_EQ(code_error([](ScenarioSpec& s) {
              s.slice_shape = {4, 4, 4};
              s.mesh.text.clear();
              s.tensors.clear();
            }),
            expected);
  EXPECT_EQ(text_error(R"({"name": "t", "hardware": "tpu-v5e", "slice": {"shape": [4, 4, 4]}})"), expected);
  // One chip as [1] is a 1x1 on the pod, as [1, 1] is.
  EXPECT_EQ(text_error(R"({"name": "t", "hardware": "tpu-v5e", "slice": {"shape": [1]}})"), "(no error)");
  EXPECT_EQ(code_error([](ScenarioSpec& s) {
              s.wrap = WrapChoice{WrapMode::listed, {true}};
            }),
            "s.json: /slice/wraparound: must have one entry per slice dim (2), got: [true]");
}

TEST(ScenarioVerify, TwistRules) {
  const std::string v5p = R"({"name": "t", "hardware": "tpu-v5p", "slice": )";
  EXPECT_EQ(text_error(v5p + R"({"shape": [4, 4, 8], "twist": true}})"), "(no error)");
  EXPECT_EQ(text_error(v5p + R"({"shape": [4, 8, 8], "twist": false}})"), "(no error)");
  EXPECT_EQ(text_error(v5p + R"({"shape": [4, 4, 4], "twist": true}})"),
            "s.json: /slice/twist: a twisted torus needs a slice of shape k x k x 2k or k x 2k x 2k, short dims first "
            "and k a multiple of 4 (4x4x8, 4x8x8, 8x8x16, 8x16x16, ...), got: 4x4x4");
  EXPECT_EQ(text_error(v5p + R"({"shape": [4, 4, 8], "wraparound": "none", "twist": true}})"),
            "s.json: /slice/twist: a twisted torus needs wraparound on every dim, got: 4x4x8");
  EXPECT_EQ(text_error(R"({"name": "t", "hardware": "tpu-v5e", "slice": {"shape": [16, 16], "twist": true}})"),
            "s.json: /slice/twist: a twisted torus needs a preset whose slices twist (its slice.twist), got: tpu-v5e");
  EXPECT_NE(text_error(v5p + R"({"shape": [4, 4, 8], "twist": 1}})").find("/slice/twist"), std::string::npos);
  // split_minimal's rotations of the dim order are not the twisted torus's minimal routes.
  EXPECT_EQ(text_error(v5p + R"({"shape": [4, 4, 8], "twist": true}, "options": {"routing": "split_minimal"}})"),
            "s.json: /options/routing: split_minimal splits a transfer over the rotations of the dim order, which are "
            "not the minimal routes of a twisted torus (its routes are minimal on its graph): use dimension_order on a "
            "twisted slice");
  EXPECT_EQ(text_error(v5p + R"({"shape": [4, 4, 8]}, "options": {"routing": "split_minimal"}})"), "(no error)");
}

// slice.failed_links (docs/topology.md, "Failed links"): each bad name located by its index, a cut-off chip and
// split_minimal refused with the rule.
TEST(ScenarioVerify, FailedLinkRules) {
  const std::string v5e = R"({"name": "t", "hardware": "tpu-v5e", "slice": )";
  EXPECT_EQ(text_error(v5e + R"({"shape": [4, 4], "wraparound": "all", "failed_links": ["ici.y+.0.0"]}})"),
            "(no error)");
  EXPECT_EQ(text_error(v5e + R"({"shape": [4, 4], "failed_links": ["ici.y+.0.0", "ici.y+.0.3"]}})"),
            "s.json: /slice/failed_links/1: a failed link must be a link of the slice 4x4 (podsim topology --links "
            "lists them), got: ici.y+.0.3");
  EXPECT_EQ(text_error(v5e + R"({"shape": [4, 4], "wraparound": "all", "failed_links": ["ici.x+.1.1", "ici.x-.1.1",
                          "ici.y+.1.1", "ici.y-.1.1"]}})"),
            "s.json: /slice/failed_links: failed links must leave every chip reachable from every other over the "
            "working links, got: 1 chip(s) cut off from the other 15: chip 5 (1,1)");
  EXPECT_EQ(text_error(v5e + R"({"shape": [4, 4], "failed_links": ["ici.y+.0.0"]},
                          "options": {"routing": "split_minimal"}})"),
            "s.json: /options/routing: split_minimal splits a transfer over the rotations of the dim order, which may "
            "cross a failed link (routes on a slice with failed links go around them on its working links): use "
            "dimension_order on a slice with failed links");
  EXPECT_NE(text_error(v5e + R"({"shape": [4, 4], "failed_links": "ici.y+.0.0"}})").find("/slice/failed_links"),
            std::string::npos);
}

TEST(ScenarioVerify, ProgramRulesGiveTheLoadersMessages) {
  const std::string axis = "s.json: /program/0/axes/0: unknown mesh axis, got: \"Z\" (axes: \"X\", \"Y\")";
  EXPECT_EQ(code_error([](ScenarioSpec& s) { s.program.push_back(op(OpKind::all_gather, collective("A", {"Z"}))); }),
            axis);
  EXPECT_EQ(json_error(R"("program": [{"op": "all_gather", "tensor": "A", "axes": ["Z"]}])"), axis);

  const std::string einsum =
      "s.json: /program/0/einsum: label 'J' has size 128 in \"A\" dim 1 but 32 in \"B\" dim 1, got: \"IJ,KJ->IK\"";
  EXPECT_EQ(
      code_error([](ScenarioSpec& s) { s.program.push_back(op(OpKind::matmul, matmul("A", "B", "IJ,KJ->IK"), "C")); }),
      einsum);
  EXPECT_EQ(json_error(R"("program": [{"op": "matmul", "lhs": "A", "rhs": "B", "einsum": "IJ,KJ->IK", "out": "C"}])"),
            einsum);

  const std::string same = "s.json: /program/0/to: must differ from \"from\", got: 3";
  EXPECT_EQ(code_error([](ScenarioSpec& s) {
              SendOp send;
              send.from = 3;
              send.to = 3;
              send.bytes = 1024;
              s.program.push_back(op(OpKind::send, send));
            }),
            same);
  EXPECT_EQ(json_error(R"("program": [{"op": "send", "from": 3, "to": 3, "bytes": 1024}])"), same);

  const std::string undefined =
      "s.json: /program/1/tensor: tensor is not defined before this op, got: \"q\" (declare it in \"tensors\" or "
      "write it as an earlier op's \"out\")";
  EXPECT_EQ(code_error([](ScenarioSpec& s) {
              s.program.push_back(op(OpKind::load, LoadOp{"A"}));
              s.program.push_back(op(OpKind::load, LoadOp{"q"}));
            }),
            undefined);
  EXPECT_EQ(json_error(R"("program": [{"op": "load", "tensor": "A"}, {"op": "load", "tensor": "q"}])"), undefined);
}

TEST(ScenarioVerify, PlanAndExpectRulesGiveTheLoadersMessages) {
  const std::string plan =
      "s.json: /plans/0/ops/ag: a plan sets the out_sharding of a matmul, got: \"ag\" (all_gather)";
  EXPECT_EQ(code_error([](ScenarioSpec& s) {
              s.program.push_back(op(OpKind::all_gather, collective("A", {"X"})));
              s.program.back().name = "ag";
              ScenarioPlan p;
              p.name = "a";
              p.out_shardings.emplace_back("ag", ScenarioSharding{"A[I, J]", {}, {}});
              s.plans.push_back(p);
            }),
            plan);
  EXPECT_EQ(json_error(R"("program": [{"op": "all_gather", "name": "ag", "tensor": "A", "axes": ["X"]}],
                          "plans": [{"name": "a", "ops": {"ag": "A[I, J]"}}])"),
            plan);

  const std::string metric = json_error(R"("expect": [{"metric": "latency", "value": 1}])");
  EXPECT_EQ(code_error([](ScenarioSpec& s) { s.expect.push_back(expect("latency", 1.0)); }), metric);
  EXPECT_EQ(metric.substr(0, 63), "s.json: /expect/0/metric: unknown metric, got: \"latency\" (expec");

  const std::string tolerance = "s.json: /expect/0/abs_tol: a tolerance applies to number metrics only, got: 0";
  EXPECT_EQ(code_error([](ScenarioSpec& s) {
              Expectation e = expect("fits_hbm", true);
              e.relative = false;
              e.tolerance = 0;
              s.expect.push_back(e);
            }),
            tolerance);
  EXPECT_EQ(json_error(R"("expect": [{"metric": "fits_hbm", "value": true, "abs_tol": 0}])"), tolerance);

  const std::string per_op = "s.json: /expect/0: missing key \"op\" (metric \"time_s\" is per op)";
  EXPECT_EQ(code_error([](ScenarioSpec& s) { s.expect.push_back(expect("time_s", 1.0)); }), per_op);
  EXPECT_EQ(json_error(R"("expect": [{"metric": "time_s", "value": 1}])"), per_op);
}

// Rules a JSON file cannot break (its keys are unique, its op kind picks the detail) but code can.
TEST(ScenarioVerify, RulesOnlyCodeCanBreak) {
  EXPECT_EQ(code_error([](ScenarioSpec& s) { s.tensors.push_back(tensor("A", {8})); }),
            "s.json: /tensors/A: tensor is declared twice, got: \"A\"");
  EXPECT_EQ(code_error([](ScenarioSpec& s) { s.program.push_back(op(OpKind::all_gather, LoadOp{"A"})); }),
            "s.json: /program/0: the op's detail is not that of its kind, got: \"all_gather\"");
  EXPECT_EQ(code_error([](ScenarioSpec& s) { s.program.push_back(op(OpKind::load, LoadOp{"A"}, "A2")); }),
            "s.json: /program/0/out: a load writes no tensor, got: \"A2\"");
  // Without a source file, errors start at the pointer.
  EXPECT_EQ(code_error([](ScenarioSpec& s) {
              s.source_file.clear();
              s.tensors[0].sharding.text = "A[I_Z, J]";
            }),
            "/tensors/A/sharding: unknown axis name: \"Z\"");
}

TEST(ScenarioVerify, VerifiedFillsTheDerivedFieldsAsTheLoaderDoes) {
  ScenarioSpec spec = base();
  spec.program.push_back(op(OpKind::matmul, matmul("A", "B", "IJ,JK->IK"), "C"));
  spec.program.push_back(op(OpKind::all_reduce, collective("C", {"X", "Y"})));
  spec.expect.push_back(expect("local_shape", std::vector<std::int64_t>{16, 128}));
  spec.expect.back().tensor = "A";
  const ScenarioSpec code = verified(spec);
  const ScenarioSpec file = load_scenario_text(
      "{" + kVerifyHead + R"(, "program": [{"op": "matmul", "lhs": "A", "rhs": "B", "einsum": "IJ,JK->IK", "out": "C"},
                                    {"op": "all_reduce", "tensor": "C", "axes": ["X", "Y"]}],
                       "expect": [{"metric": "local_shape", "tensor": "A", "value": [16, 128]}]})",
      "s.json");
  EXPECT_EQ(code.wraparound, file.wraparound);
  EXPECT_EQ(code.mesh.name, "mesh");
  EXPECT_EQ(code.mesh.axis_dims, file.mesh.axis_dims);
  EXPECT_EQ(code.tensors[0].pointer, "/tensors/A");
  EXPECT_EQ(code.tensors[1].sharding.sharding().dims.size(), 2u);  // replicated by default
  ASSERT_EQ(code.program.size(), 2u);
  EXPECT_EQ(code.program[0].out_shape, (Shape{64, 32}));
  EXPECT_EQ(code.program[0].out_shape, file.program[0].out_shape);
  EXPECT_EQ(code.program[1].name, "op1");
  EXPECT_EQ(code.program[1].pointer, "/program/1");
  EXPECT_EQ(code.program[1].out, "C");  // in place
  EXPECT_EQ(code.program[1].inputs, file.program[1].inputs);
  EXPECT_EQ(std::get<CollectiveOp>(code.program[1].detail).kind, CollectiveKind::all_reduce);
  EXPECT_EQ(code.expect[0].scope, ExpectScope::tensor);
  EXPECT_EQ(code.expect[0].pointer, "/expect/0");
  // A verified spec verifies again unchanged.
  EXPECT_NO_THROW(verify(code));
}

}  // namespace
}  // namespace podsim
