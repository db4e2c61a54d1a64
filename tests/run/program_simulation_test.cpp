// simulate_exact, the one place that picks the exact simulation path: which path each shape of graph takes and why
// (docs/performance.md): a wrapped torus where every chip does chip 0's work, moved, takes the translation quotient; a
// mesh, whose line ends send one way only, takes one group per phase; two slices doing the same work take the slice
// quotient; a graph of no known slice, or with symmetry off, runs in full.
#include "sim/run/program_simulation.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sim/engine/simulator.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/run/plan_schedule.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

// An all-gather over X of a 4x4 v5e slice, wrapped or not (`wrap`).
std::string gather(const std::string& wrap) {
  return R"({"name": "gather", "hardware": "tpu-v5e", "slice": {"shape": [4, 4], "wraparound": ")" + wrap +
         R"("}, "mesh": "X=4,Y=4", "dtype": "bf16",
    "tensors": {"W": {"shape": [2048, 1024], "sharding": "W[D_X, F_Y]"}},
    "program": [{"op": "all_gather", "name": "gather", "tensor": "W", "axes": ["X"], "out": "W_full"}]})";
}

// The path simulate_exact takes on the scenario's one plan, and its result beside the full simulation's makespan.
struct Taken {
  ExactSimulation exact;
  double full_makespan_s = 0;
};

Taken taken(const ScenarioSpec& spec, const ProgramSimulationOptions& options = {}) {
  const ScenarioPlatform platform = build_platform(spec);
  const PlannedProgram program = plan_program(spec, platform.topology(), nullptr);
  Taken out;
  schedule_plan(program, platform, spec.options.schedule, [&](const LoweredProgram& lowered) {
    out.exact = simulate_exact(platform.network, *lowered.graph,
                               {platform.slice.get(), platform.slices, lowered.symmetry.get()}, options);
    out.full_makespan_s = simulate(platform.network, *lowered.graph).makespan_s;
    return out.exact.result;
  });
  return out;
}

Taken taken(const std::string& text, const ProgramSimulationOptions& options = {}) {
  return taken(load_scenario_text(text, "gather.json"), options);
}

// On the wrapped 4x4 every chip's ring over X is chip 0's moved: chip 0's tasks are simulated for all.
TEST(SimulateExact, AWrappedTorusTakesTheTranslationQuotient) {
  const Taken t = taken(gather("all"));
  EXPECT_EQ(t.exact.path, ExactPath::translation_quotient);
  EXPECT_EQ(t.exact.reason, "every chip's tasks are chip 0's, moved");
  EXPECT_EQ(t.exact.result.makespan_s, t.full_makespan_s);
}

// Without wraparound each X line has ends that send one way and middles that send both: the chips' task counts differ,
// so the translation quotient declines; the one collective has few phases (at most 64): one group per phase.
TEST(SimulateExact, AMeshTakesOneGroupPerPhaseAfterTheQuotientDeclines) {
  const Taken t = taken(gather("none"));
  EXPECT_EQ(t.exact.path, ExactPath::one_group_per_phase);
  EXPECT_EQ(t.exact.reason.rfind("the translation quotient declined: tasks per chip differ; ", 0), 0u)
      << t.exact.reason;
  EXPECT_NE(t.exact.reason.find(" phases, at most 64"), std::string::npos) << t.exact.reason;
  EXPECT_NEAR(t.exact.result.makespan_s, t.full_makespan_s, 1e-12 * t.full_makespan_s);
}

TEST(SimulateExact, TheQuotientOffGoesStraightToOneGroupPerPhase) {
  ProgramSimulationOptions options;
  options.translation_quotient = false;
  const Taken t = taken(gather("all"), options);
  EXPECT_EQ(t.exact.path, ExactPath::one_group_per_phase);
  EXPECT_EQ(t.exact.reason.rfind("the translation quotient is off; ", 0), 0u) << t.exact.reason;
}

TEST(SimulateExact, SymmetryOffRunsInFull) {
  ProgramSimulationOptions options;
  options.symmetry = false;
  const Taken t = taken(gather("all"), options);
  EXPECT_EQ(t.exact.path, ExactPath::full);
  EXPECT_EQ(t.exact.reason, "symmetry is off");
  EXPECT_EQ(t.exact.result.makespan_s, t.full_makespan_s);
}

// Two v5p slices of a ring of 4 all-reducing over X, then over the DCN between the chips at one position of each
// slice (scenarios/dcn/all-reduce-v5p-2-slices.json): slice 1's tasks are slice 0's moved, and each chip receives over
// the DCN from its own twin, to which it sends.
TEST(SimulateExact, TwoSlicesDoingTheSameWorkTakeTheSliceQuotient) {
  const Taken t = taken(load_scenario(std::string(PODSIM_SOURCE_DIR) + "/scenarios/dcn/all-reduce-v5p-2-slices.json"));
  EXPECT_EQ(t.exact.path, ExactPath::slice_quotient) << t.exact.reason;
  EXPECT_EQ(t.exact.reason, "every slice does slice 0's work, moved");
  EXPECT_EQ(t.exact.result.makespan_s, t.full_makespan_s);
}

// A graph of no known slice (a pipeline's stage schedule): in full, whatever the options.
TEST(SimulateExact, AGraphOfNoKnownSliceRunsInFull) {
  const ScenarioSpec spec = load_scenario_text(gather("all"), "gather.json");
  const ScenarioPlatform platform = build_platform(spec);
  EventGraph graph;
  graph.num_chips = static_cast<std::int32_t>(platform.num_chips());
  Task compute;
  compute.kind = TaskKind::compute;
  compute.flops = 1e9;
  graph.add(compute);
  const ExactSimulation exact = simulate_exact(platform.network, graph, {});
  EXPECT_EQ(exact.path, ExactPath::full);
  EXPECT_EQ(exact.reason, "the graph is not known to be a slice's");
  EXPECT_EQ(exact.result.makespan_s, simulate(platform.network, graph).makespan_s);
}

}  // namespace
}  // namespace podsim
