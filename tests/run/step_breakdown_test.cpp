// The critical chip's step breakdown on hand-made timelines whose unions are worked out by hand, and end to end: a
// collective that independent compute hides under dataflow and exposes under program order.
#include "sim/run/step_breakdown.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "models/common/error.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

struct Timeline {
  EventGraph graph;
  SimulationResult simulation;

  void compute(ChipId chip, double start_s, double end_s, std::int32_t op = 0) {
    add(TaskKind::compute, chip, chip, start_s, end_s, op);
  }
  void transfer(ChipId from, ChipId to, double start_s, double end_s, std::int32_t op = 0) {
    add(TaskKind::transfer, from, to, start_s, end_s, op);
  }
  void add(TaskKind kind, ChipId from, ChipId to, double start_s, double end_s, std::int32_t op) {
    Task task;
    task.kind = kind;
    task.src_chip = from;
    task.dst_chip = to;
    task.op = op;
    graph.add(std::move(task));
    simulation.tasks.push_back({start_s, end_s});
    simulation.task_route.push_back(-1);
    simulation.makespan_s = std::max(simulation.makespan_s, end_s);
  }
};

// A transfer between slices: its route crosses link 0, a DCN link (a host NIC).
void dcn_transfer(Timeline& t, ChipId from, ChipId to, double start_s, double end_s, std::int32_t op = 0) {
  t.transfer(from, to, start_s, end_s, op);
  if (t.simulation.links.empty()) {
    t.simulation.links.resize(1);
    t.simulation.links[0].dcn = true;
    const LinkId nic = 0;
    t.simulation.routes.add(std::span<const LinkId>(&nic, 1), 0.0);
  }
  t.simulation.task_route.back() = 0;
}

double sum(const CriticalChipBreakdown& b) {
  return b.compute_s + b.exposed_communication_s + b.bubble_s + b.dcn_s;
}

TEST(StepBreakdown, SplitsTheCriticalChipsStepIntoComputeExposedAndBubble) {
  Timeline t;
  t.graph.num_chips = 2;
  t.compute(0, 0, 2, 0);      // chip 0 computes [0, 2]
  t.transfer(0, 1, 1, 4, 1);  // op 1 sends [1, 4]: hidden over [1, 2], exposed over [2, 4]
  t.compute(1, 4, 5, 2);      // chip 1 computes [4, 5] while chip 0 waits (a bubble for chip 0)
  t.transfer(1, 0, 5, 5.5, 3);
  t.compute(0, 5.5, 6, 3);  // chip 0 ends last, at 6
  const CriticalChipStep b = step_breakdown(t.graph, t.simulation, 4);
  EXPECT_EQ(b.critical_chip, 0);
  EXPECT_DOUBLE_EQ(b.breakdown.compute_s, 2.5);                // [0, 2] and [5.5, 6]
  EXPECT_DOUBLE_EQ(b.breakdown.exposed_communication_s, 2.5);  // [2, 4] and [5, 5.5]
  EXPECT_DOUBLE_EQ(b.breakdown.bubble_s, 1.0);                 // [4, 5]
  EXPECT_DOUBLE_EQ(b.breakdown.dcn_s, 0.0);
  EXPECT_DOUBLE_EQ(sum(b.breakdown), 6.0);
  ASSERT_EQ(b.op_exposed_s.size(), 4u);
  EXPECT_DOUBLE_EQ(b.op_exposed_s[0], 0.0);
  EXPECT_DOUBLE_EQ(b.op_exposed_s[1], 2.0);
  EXPECT_DOUBLE_EQ(b.op_exposed_s[2], 0.0);  // a compute op exposes nothing
  EXPECT_DOUBLE_EQ(b.op_exposed_s[3], 0.5);
}

// The first test's timeline split at 3 into two windows, in one pass: by hand, [0, 3] computes over [0, 2] and sends
// over [1, 3] (exposed [2, 3]); [3, 6] sends over [3, 4] and [5, 5.5], computes over [5.5, 6] and waits over [4, 5].
TEST(StepBreakdown, WindowsInOnePassAreEachWindowAlone) {
  Timeline t;
  t.graph.num_chips = 2;
  t.compute(0, 0, 2, 0);
  t.transfer(0, 1, 1, 4, 1);
  t.compute(1, 4, 5, 2);
  t.transfer(1, 0, 5, 5.5, 3);
  t.compute(0, 5.5, 6, 3);
  EXPECT_EQ(critical_chip(t.graph, t.simulation), 0);
  const std::vector<CriticalChipBreakdown> parts = chip_breakdowns(t.graph, t.simulation, 0, {{0, 3}, {3, 6}, {4, 4}});
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_DOUBLE_EQ(parts[0].compute_s, 2.0);
  EXPECT_DOUBLE_EQ(parts[0].exposed_communication_s, 1.0);
  EXPECT_DOUBLE_EQ(parts[0].bubble_s, 0.0);
  EXPECT_DOUBLE_EQ(parts[1].compute_s, 0.5);
  EXPECT_DOUBLE_EQ(parts[1].exposed_communication_s, 1.5);
  EXPECT_DOUBLE_EQ(parts[1].bubble_s, 1.0);
  EXPECT_DOUBLE_EQ(sum(parts[2]), 0.0);  // an empty window
  for (std::size_t w = 0; w < 2; ++w) {
    const double begin_s = w == 0 ? 0 : 3;
    const CriticalChipBreakdown alone = chip_breakdown(t.graph, t.simulation, 0, begin_s, begin_s + 3);
    EXPECT_EQ(alone.compute_s, parts[w].compute_s);
    EXPECT_EQ(alone.exposed_communication_s, parts[w].exposed_communication_s);
    EXPECT_EQ(alone.bubble_s, parts[w].bubble_s);
    EXPECT_EQ(alone.dcn_s, parts[w].dcn_s);
  }
}

TEST(StepBreakdown, TheChipWhoseLastTaskEndsLastIsCritical) {
  Timeline t;
  t.graph.num_chips = 3;
  t.compute(0, 0, 1);
  t.transfer(0, 2, 1, 3);  // sender and receiver both end at 3 ...
  t.compute(2, 3, 3.5);    // ... then chip 2 computes on what it received
  t.compute(1, 0, 2);
  const CriticalChipStep b = step_breakdown(t.graph, t.simulation, 1);
  EXPECT_EQ(b.critical_chip, 2);
  EXPECT_DOUBLE_EQ(b.breakdown.compute_s, 0.5);
  EXPECT_DOUBLE_EQ(b.breakdown.exposed_communication_s, 2.0);
  EXPECT_DOUBLE_EQ(b.breakdown.bubble_s, 1.0);  // [0, 1]: chip 0 had not sent yet
}

TEST(StepBreakdown, TiesGoToTheLowestChip) {
  Timeline t;
  t.graph.num_chips = 3;
  t.compute(2, 0, 4);
  t.compute(1, 1, 4);
  const CriticalChipStep b = step_breakdown(t.graph, t.simulation, 1);
  EXPECT_EQ(b.critical_chip, 1);
  EXPECT_DOUBLE_EQ(b.breakdown.compute_s, 3.0);
  EXPECT_DOUBLE_EQ(b.breakdown.bubble_s, 1.0);
}

TEST(StepBreakdown, OverlappingCollectivesCountOnceForTheChipAndOncePerOp) {
  Timeline t;
  t.graph.num_chips = 2;
  t.transfer(0, 1, 0, 3, 0);
  t.transfer(1, 0, 1, 4, 1);
  t.transfer(0, 0, 0, 10, 1);  // chip-local: not communication
  t.compute(0, 2, 3, 2);
  const CriticalChipStep b = step_breakdown(t.graph, t.simulation, 3);
  EXPECT_EQ(b.critical_chip, 0);
  EXPECT_DOUBLE_EQ(b.breakdown.compute_s, 1.0);
  EXPECT_DOUBLE_EQ(b.breakdown.exposed_communication_s, 3.0);  // [0, 4] less [2, 3]
  EXPECT_DOUBLE_EQ(b.breakdown.bubble_s, 6.0);                 // [4, 10]: the chip-local transfer's tail
  EXPECT_DOUBLE_EQ(b.op_exposed_s[0], 2.0);                    // [0, 2]
  EXPECT_DOUBLE_EQ(b.op_exposed_s[1], 2.0);                    // [1, 2] and [3, 4]
  EXPECT_DOUBLE_EQ(sum(b.breakdown), 10.0);
}

TEST(StepBreakdown, AnEmptyGraphHasNothing) {
  Timeline t;
  const CriticalChipStep b = step_breakdown(t.graph, t.simulation, 0);
  EXPECT_EQ(b.critical_chip, 0);
  EXPECT_DOUBLE_EQ(sum(b.breakdown), 0.0);
}

TEST(StepBreakdown, TooFewTaskTimesIsAnInternalError) {
  Timeline t;
  t.graph.num_chips = 1;
  t.compute(0, 0, 1);
  t.simulation.tasks.clear();
  EXPECT_THROW(step_breakdown(t.graph, t.simulation, 1), InternalError);
}

std::string breakdown_good(const std::string& name) {
  return (std::filesystem::path(PODSIM_SOURCE_DIR) / "tests/run/good" / name).string();
}

// overlap_all_gather.json: on a v5e 1x4 line, `gather` all-gathers W (a 1 MiB shard per chip, V = 4 MiB) over X
// while `busy`, which reads only x, runs a compute-bound elementwise op; `use` reads the gathered W after `busy`.
// The gather takes 3 x (1 us + 1048576 / 4.5e10) = 72.9 us on the line, `busy` 2^24 elements x 2^11 flop /
// 1.97e14 = 174.4 us, so under dataflow it covers the whole gather.
TEST(StepBreakdown, DataflowHidesAGatherUnderIndependentComputeAndProgramOrderExposesIt) {
  const ScenarioSpec spec = load_scenario(breakdown_good("overlap_all_gather.json"));
  const double gather_s = 3 * (1e-6 + 1048576 / 4.5e10);
  RunOptions dataflow, in_order;
  dataflow.schedule = SchedulePolicy::dataflow;
  in_order.schedule = SchedulePolicy::program_order;
  const PlanRun hidden = run_scenario(spec, dataflow).plans.front();
  const PlanRun exposed = run_scenario(spec, in_order).plans.front();
  ASSERT_EQ(hidden.ops.size(), 3u);
  EXPECT_EQ(hidden.ops[0].name, "gather");
  EXPECT_NEAR(hidden.ops[0].des_time_s, gather_s, 1e-12);
  // Under dataflow the gather runs entirely under `busy`: nothing of it is exposed.
  EXPECT_NEAR(hidden.ops[0].exposed_communication_s, 0.0, 1e-12);
  EXPECT_NEAR(hidden.step_breakdown.exposed_communication_s, 0.0, 1e-12);
  // Under program order the chip computes nothing while the gather runs: all of it is exposed.
  EXPECT_NEAR(exposed.ops[0].exposed_communication_s, gather_s, 1e-12);
  EXPECT_NEAR(exposed.step_breakdown.exposed_communication_s, gather_s, 1e-12);
  EXPECT_NEAR(exposed.des_time_s - hidden.des_time_s, gather_s, 1e-12);
  for (const PlanRun* plan : {&hidden, &exposed}) {
    const CriticalChipBreakdown& b = plan->step_breakdown;
    EXPECT_NEAR(b.compute_s + b.exposed_communication_s + b.bubble_s + b.dcn_s, plan->des_time_s, 1e-15);
    EXPECT_EQ(b.dcn_s, 0.0);
    EXPECT_NEAR(b.compute_s, plan->ops[1].des_time_s + plan->ops[2].des_time_s, 1e-12);
  }
}

// Chip 0 computes [0, 2], an ICI transfer of it runs [1, 3], a DCN transfer [2.5, 6], then it computes [6, 7]:
// compute 3, exposed ICI [2, 3] = 1, DCN alone [3, 6] = 3, no bubble; the op's exposed time counts both tiers.
TEST(StepBreakdown, DcnTransfersOutsideComputeAndIciCountAsDcn) {
  Timeline t;
  t.graph.num_chips = 2;
  t.compute(0, 0, 2, 0);
  t.transfer(0, 1, 1, 3, 1);
  dcn_transfer(t, 0, 1, 2.5, 6, 1);
  t.compute(0, 6, 7, 2);
  const CriticalChipStep b = step_breakdown(t.graph, t.simulation, 3);
  EXPECT_EQ(b.critical_chip, 0);
  EXPECT_DOUBLE_EQ(b.breakdown.compute_s, 3);
  EXPECT_DOUBLE_EQ(b.breakdown.exposed_communication_s, 1);
  EXPECT_DOUBLE_EQ(b.breakdown.dcn_s, 3);
  EXPECT_DOUBLE_EQ(b.breakdown.bubble_s, 0);
  EXPECT_DOUBLE_EQ(sum(b.breakdown), 7);
  EXPECT_DOUBLE_EQ(b.op_exposed_s[1], 4);  // [2, 6] outside compute
  // The op's DCN transfer [2.5, 6] outside compute and the ICI transfer [1, 3]: [3, 6].
  EXPECT_DOUBLE_EQ(b.op_dcn_s[1], 3);
  EXPECT_DOUBLE_EQ(b.op_dcn_s[0], 0);
  EXPECT_DOUBLE_EQ(b.op_dcn_s[2], 0);
}

}  // namespace
}  // namespace podsim
