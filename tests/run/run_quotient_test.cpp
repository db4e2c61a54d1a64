// podsim run's translation quotient (docs/performance.md, "Whole programs"): on wrapped tori where every op runs
// alike on every chip, chip 0's tasks are simulated for all, and the JSON report and the Chrome trace are byte for
// byte those of the full simulation.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

#include "sim/engine/translation_quotient.hpp"
#include "sim/report/chrome_trace.hpp"
#include "sim/report/run_report.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/run/scenario_platform.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

struct Outputs {
  std::string json;
  std::string trace;
  ScenarioRun run;
};

Outputs outputs(const ScenarioSpec& spec, bool symmetry, bool quotient = true) {
  RunOptions options;
  options.symmetry = symmetry;
  options.translation_quotient = quotient;
  Outputs out;
  out.run = run_scenario(spec, options);
  out.json = report::run_report_json(out.run).dump(2);
  std::ostringstream trace;
  report::write_chrome_trace(out.run, trace);
  out.trace = trace.str();
  return out;
}

// Why the quotient declines (or not) for each plan of `spec`, on the graph its run lowered.
std::vector<QuotientDecline> declines(const ScenarioSpec& spec, const ScenarioRun& run) {
  const ScenarioPlatform platform = build_platform(spec);
  std::vector<QuotientDecline> out;
  for (const PlanRun& plan : run.plans) {
    QuotientDecline why = QuotientDecline::none;
    simulate_translation_quotient(*platform.slice, platform.network, *plan.graph, &why);
    out.push_back(why);
  }
  return out;
}

// A 4x4x4 v5p torus (wrapped by the scenario): an MLP whose first matmul contracts over a sharded dim (partial sums
// reduce-scattered by the plan), an explicit all-gather, all-reduce and elementwise op.
constexpr const char* kTorus3d = R"({"name": "torus3d", "hardware": "tpu-v5p",
    "slice": {"shape": [4, 4, 4], "wraparound": "all"}, "mesh": "X=4,Y=4,Z=4", "dtype": "bf16",
    "tensors": {"x": {"shape": [4096, 2048], "sharding": "x[B_X, D_Y]"},
                "W": {"shape": [2048, 8192], "sharding": "W[D_Y, F_Z]"}},
    "program": [
      {"op": "matmul", "name": "up", "lhs": "x", "rhs": "W", "einsum": "BD,DF->BF", "out": "h",
       "out_sharding": "h[B_X, F_ZY]"},
      {"op": "all_gather", "name": "gather", "tensor": "h", "axes": ["Y"], "out": "h_full"},
      {"op": "elementwise", "name": "act", "tensor": "h_full", "flops_per_element": 8, "out": "a"},
      {"op": "matmul", "name": "partial", "lhs": "a", "rhs": "W", "einsum": "BF,DF->BD", "out": "p",
       "out_sharding": "p[B_X, D_Y]{U_Z}"},
      {"op": "all_reduce", "name": "finish", "tensor": "p", "axes": ["Z"]}]})";

// A 2D v5e torus of 4x4 (wrapped by the scenario) under dataflow: a gather that an independent compute overlaps.
constexpr const char* kOverlap2d = R"({"name": "overlap2d", "hardware": "tpu-v5e",
    "slice": {"shape": [4, 4], "wraparound": "all"}, "mesh": "X=4,Y=4", "dtype": "bf16",
    "tensors": {"x": {"shape": [4096, 4096], "sharding": "x[B_Y, D]"},
                "W": {"shape": [2048, 1024], "sharding": "W[D_X, F_Y]"}},
    "program": [
      {"op": "all_gather", "name": "gather", "tensor": "W", "axes": ["X"], "out": "W_full"},
      {"op": "elementwise", "name": "busy", "tensor": "x", "flops_per_element": 256, "out": "x2"},
      {"op": "elementwise", "name": "use", "tensor": "W_full", "flops_per_element": 1, "out": "W2",
       "after": ["busy"]}],
    "options": {"schedule": "dataflow"}})";

// The same gather on a 4x4 v5e without wraparound: lines, whose ends differ from their middles.
constexpr const char* kLine2d = R"({"name": "line2d", "hardware": "tpu-v5e",
    "slice": {"shape": [4, 4], "wraparound": "none"}, "mesh": "X=4,Y=4", "dtype": "bf16",
    "tensors": {"W": {"shape": [2048, 1024], "sharding": "W[D_X, F_Y]"}},
    "program": [{"op": "all_gather", "name": "gather", "tensor": "W", "axes": ["X"], "out": "W_full"}]})";

// A send from one chip to another: an op on some chips only.
constexpr const char* kSend = R"({"name": "send", "hardware": "tpu-v5p",
    "slice": {"shape": [4, 4, 4], "wraparound": "all"}, "mesh": "X=4,Y=4,Z=4", "dtype": "bf16",
    "tensors": {"W": {"shape": [2048, 1024], "sharding": "W[D_X, F_Y]"}},
    "program": [{"op": "all_gather", "name": "gather", "tensor": "W", "axes": ["X"], "out": "W_full"},
                {"op": "send", "name": "give", "tensor": "W_full", "from": 0, "to": 5}]})";

// The plan's graph had every chip run chip 0's tasks: one chip's tasks were simulated for all.
void expect_quotient(const ScenarioRun& run) {
  for (const PlanRun& plan : run.plans) {
    ASSERT_GT(plan.graph->tasks.size(), 0u);
    EXPECT_EQ(plan.simulation->simulated_tasks * static_cast<std::uint64_t>(plan.graph->num_chips),
              plan.graph->tasks.size())
        << plan.name;
  }
}

void expect_byte_identical(const ScenarioSpec& spec) {
  const Outputs on = outputs(spec, true), off = outputs(spec, false);
  expect_quotient(on.run);
  EXPECT_TRUE(on.json == off.json) << spec.name << ": the JSON reports differ";
  EXPECT_TRUE(on.trace == off.trace) << spec.name << ": the Chrome traces differ";
  for (const QuotientDecline why : declines(spec, on.run))
    EXPECT_EQ(why, QuotientDecline::none);
}

TEST(RunQuotient, ByteIdenticalOnA3DTorusWithMatmulsAndCollectives) {
  const ScenarioSpec spec = load_scenario_text(kTorus3d, "torus3d.json");
  const Outputs on = outputs(spec, true);
  // The program holds every collective kind: an all-gather, a reduce-scatter (of up's partial sums), an
  // all-reduce.
  std::set<CollectiveKind> kinds;
  for (const OpRun& op : on.run.plans.at(0).ops)
    for (const CollectiveRun& c : op.collectives)
      kinds.insert(c.kind);
  EXPECT_EQ(kinds, (std::set<CollectiveKind>{CollectiveKind::all_gather, CollectiveKind::reduce_scatter,
                                             CollectiveKind::all_reduce}));
  expect_byte_identical(spec);
}

TEST(RunQuotient, ByteIdenticalOnA2DTorusWithOverlapUnderDataflow) {
  const ScenarioSpec spec = load_scenario_text(kOverlap2d, "overlap2d.json");
  const Outputs on = outputs(spec, true);
  const PlanRun& plan = on.run.plans.at(0);
  // The gather runs while busy computes: their spans overlap (the group-per-phase path would run this in full).
  const auto op = [&](const std::string& name) {
    return *std::find_if(plan.ops.begin(), plan.ops.end(), [&](const OpRun& o) { return o.name == name; });
  };
  EXPECT_LT(op("busy").des_start_s, op("gather").des_end_s);
  EXPECT_LT(op("gather").des_start_s, op("busy").des_end_s);
  expect_byte_identical(spec);
}

TEST(RunQuotient, ByteIdenticalOnEveryPlanOfAShippedScenario) {
  // scenarios/problem-sets/question-2-collectives-v4.json: collectives on a wrapped v4 torus.
  const ScenarioSpec spec =
      load_scenario(std::string(PODSIM_SOURCE_DIR) + "/scenarios/problem-sets/question-2-collectives-v4.json");
  expect_byte_identical(spec);
}

TEST(RunQuotient, DeclinesLinesAndOpsOnSomeChips) {
  const ScenarioSpec line = load_scenario_text(kLine2d, "line2d.json");
  const ScenarioRun line_run = outputs(line, true).run;
  EXPECT_EQ(declines(line, line_run), std::vector<QuotientDecline>{QuotientDecline::tasks_per_chip});
  const ScenarioSpec send = load_scenario_text(kSend, "send.json");
  const Outputs on = outputs(send, true), off = outputs(send, false);
  EXPECT_EQ(declines(send, on.run), std::vector<QuotientDecline>{QuotientDecline::tasks_per_chip});
  // Declined: the group-per-phase path (or the full simulation) gives the times to 1e-12.
  EXPECT_LT(on.run.plans[0].simulation->simulated_tasks, on.run.plans[0].graph->tasks.size());
  EXPECT_NEAR(on.run.plans[0].des_time_s, off.run.plans[0].des_time_s, 1e-12 * off.run.plans[0].des_time_s);
}

TEST(RunQuotient, OffGivesTheGroupPerPhasePath) {
  // With the quotient off, the same torus program takes one group per phase (more tasks simulated than chip 0's).
  const ScenarioSpec spec = load_scenario_text(kTorus3d, "torus3d.json");
  const Outputs groups = outputs(spec, true, false);
  const PlanRun& plan = groups.run.plans.at(0);
  EXPECT_NE(plan.simulation->simulated_tasks * static_cast<std::uint64_t>(plan.graph->num_chips),
            plan.graph->tasks.size());
}

}  // namespace
}  // namespace podsim
