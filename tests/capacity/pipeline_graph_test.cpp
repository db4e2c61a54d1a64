// The des of a pipeline schedule (its event graph simulated on SimGrid in a child process) against the closed forms
// of pipeline_schedule_test: equal stages without sends give the span (m + p - 1)(F + B) and the bubble fraction
// (p - 1) / (m + p - 1) under GPipe and 1F1B, and a two-stage schedule with sends the span traced by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/capacity/pipeline_graph.hpp"
#include "sim/capacity/pipeline_schedule.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_network.hpp"

namespace podsim {
namespace {

Mesh mesh(std::int64_t x, std::int64_t y) {
  Mesh m;
  m.axes = {MeshAxis{"X", x}, MeshAxis{"Y", y}};
  return m;
}

TEST(PipelineGraph, StageChipsFollowThePipelineAxis) {
  // A 4x2 slice, chips row-major (chip = 2 x + y). Pipeline over X: stage s holds chips 2s and 2s + 1; over Y:
  // stage 0 holds the even chips, in X order.
  const Slice slice({4, 2}, {false, false});
  const MeshMapping mapping(mesh(4, 2), slice);
  EXPECT_EQ(stage_chips(mesh(4, 2), mapping, {"X"}),
            (std::vector<std::vector<ChipId>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(stage_chips(mesh(4, 2), mapping, {"Y"}), (std::vector<std::vector<ChipId>>{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  // Over both axes, X major: eight stages of one chip.
  EXPECT_EQ(stage_chips(mesh(4, 2), mapping, {"X", "Y"}).size(), 8u);
}

TEST(PipelineGraph, StageChipsOverTheSlicesPutEachStageOnItsSlice) {
  // Two slices of 4x2 (8 chips each), mesh DCN=2,X=4,Y=2: pipeline over DCN puts stage s on slice s, chip
  // 8 s + (2 x + y), in the same order on both; over DCN and X, four stages per slice.
  const Slice slice({4, 2}, {false, false});
  const MeshMapping mapping(mesh(4, 2), slice);
  Mesh slices;
  slices.axes = {MeshAxis{"DCN", 2}, MeshAxis{"X", 4}, MeshAxis{"Y", 2}};
  EXPECT_EQ(stage_chips(slices, mapping, {"DCN"}, 2),
            (std::vector<std::vector<ChipId>>{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}}));
  const auto eight = stage_chips(slices, mapping, {"DCN", "X"}, 2);
  ASSERT_EQ(eight.size(), 8u);
  EXPECT_EQ(eight[3], (std::vector<ChipId>{6, 7}));
  EXPECT_EQ(eight[4], (std::vector<ChipId>{8, 9}));
}

// The schedule on a 4x2 slice with pipeline X (stage boundaries one hop apart, each column on its own links).
double simulated_span(PipelineSchedule schedule, std::int64_t microbatches, std::vector<double> forward,
                      std::vector<double> backward, std::uint64_t send_bytes, double bandwidth_Bps) {
  const Slice slice({static_cast<std::int64_t>(forward.size()), 2}, {false, false});
  const MeshMapping mapping(mesh(static_cast<std::int64_t>(forward.size()), 2), slice);
  PipelineGraphSpec spec;
  spec.chips = stage_chips(mesh(static_cast<std::int64_t>(forward.size()), 2), mapping, {"X"});
  spec.forward_s = std::move(forward);
  spec.backward_s = std::move(backward);
  spec.send_bytes = send_bytes;
  spec.schedule = schedule;
  spec.microbatches = microbatches;
  spec.chip_flops = 1e12;
  spec.num_chips = static_cast<std::int32_t>(slice.num_chips());
  const IciModel ici{4, bandwidth_Bps, bandwidth_Bps, bandwidth_Bps, 0.0};
  return simulate(slice_network(slice, ici, spec.chip_flops), pipeline_graph(spec)).makespan_s;
}

TEST(PipelineGraph, ComputeOnlyStepShowsTheBubbleFractionExactly) {
  // p = 4, m = 8, F = 1 ms, B = 2 ms, nothing sent: 11 x 3 ms = 33 ms, bubble 9 ms, 3/11.
  for (const auto schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b}) {
    const double span = simulated_span(schedule, 8, {1e-3, 1e-3, 1e-3, 1e-3}, {2e-3, 2e-3, 2e-3, 2e-3}, 0, 1e9);
    EXPECT_NEAR(span, 33e-3, 1e-12);
    const PipelineSpan bubble =
        pipeline_bubble(span, 8, PipelineTimes{{1e-3, 1e-3, 1e-3, 1e-3}, {2e-3, 2e-3, 2e-3, 2e-3}, {0, 0, 0}});
    EXPECT_NEAR(bubble.bubble_fraction, 3.0 / 11.0, 1e-9);
  }
  // B = F / 2: 11 x 1.5 ms.
  EXPECT_NEAR(simulated_span(PipelineSchedule::one_f_one_b, 8, {1e-3, 1e-3, 1e-3, 1e-3},
                             {0.5e-3, 0.5e-3, 0.5e-3, 0.5e-3}, 0, 1e9),
              16.5e-3, 1e-12);
}

TEST(PipelineGraph, SendsTakeBytesOverTheLinkBandwidth) {
  // p = 2, m = 2, F = B = 1 ms; 500 kB at 1 GB/s is 0.5 ms per send, no hop latency: the span traced in
  // pipeline_schedule_test (7 units), 7 ms, under both schedules.
  for (const auto schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b})
    EXPECT_NEAR(simulated_span(schedule, 2, {1e-3, 1e-3}, {1e-3, 1e-3}, 500000, 1e9), 7e-3, 1e-12);
}

TEST(PipelineGraph, RolesSayWhatEachTaskIsInTheStagesOrder) {
  // p = 3, m = 4 under 1F1B on a 3x2 slice: each chip's computes, in task order, are its stage's order (stage 0:
  // warm-up f0 f1, then f2 b0 f3 b1, then b2 b3); each send goes one stage on in its pass's direction.
  const Slice slice({3, 2}, {false, false});
  const MeshMapping mapping(mesh(3, 2), slice);
  PipelineGraphSpec spec;
  spec.chips = stage_chips(mesh(3, 2), mapping, {"X"});
  spec.forward_s = {1, 1, 1};
  spec.backward_s = {2, 2, 2};
  spec.microbatches = 4;
  spec.num_chips = 6;
  std::vector<PipelineGraphTask> roles = {PipelineGraphTask{}};  // replaced, not appended to
  const EventGraph graph = pipeline_graph(spec, &roles);
  ASSERT_EQ(roles.size(), graph.tasks.size());
  using Kind = PipelineTask::Kind;
  std::vector<std::string> chip0;
  for (std::size_t id = 0; id < graph.tasks.size(); ++id) {
    const PipelineGraphTask& role = roles[id];
    if (graph.tasks[id].kind != TaskKind::compute) {
      EXPECT_EQ(role.to_stage, role.pass == Kind::forward ? role.stage + 1 : role.stage - 1);
      continue;
    }
    if (graph.tasks[id].src_chip == 0)
      chip0.push_back((role.pass == Kind::forward ? "f" : "b") + std::to_string(role.microbatch));
  }
  EXPECT_EQ(chip0, (std::vector<std::string>{"f0", "f1", "f2", "b0", "f3", "b1", "b2", "b3"}));
}

TEST(PipelineGraph, StagesOfDifferentSizesAreRefused) {
  PipelineGraphSpec spec;
  spec.chips = {{0, 1}, {2}};
  spec.forward_s = {1, 1};
  spec.backward_s = {1, 1};
  EXPECT_THROW(pipeline_graph(spec), VerifyError);
}

}  // namespace
}  // namespace podsim
