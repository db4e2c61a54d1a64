// The timeline simulate_candidate keeps for the trace (podsim plan --trace): keeping it changes no figure; a pipeline
// candidate's schedule graph says what each task is (stage = Task::op, microbatch = Task::step, sends to the
// neighbour in the pass's direction), its makespan is the des span and, with the longest tail, the des step; a
// candidate without stages keeps its layer program's graph and timings, one name per op.
#include <gtest/gtest.h>

#include <algorithm>

#include "capacity_test_helpers.hpp"
#include "sim/capacity/candidate_timeline.hpp"

namespace podsim {
namespace {

using namespace capacity_test;
using K = ParallelKind;

TEST(CandidateTimeline, APipelineCandidateKeepsItsScheduleAndWhatEachTaskIs) {
  // small_model (4 layers) on a v5e 4x2: 4 stages of one layer over X, data over Y, 4 microbatches.
  const CapacityProblem p = problem(small_model(), training(1 << 16, 2048));
  CandidateResult plain = evaluate_candidate_book(p, candidate("tpu-v5e", {4, 2}, {K::pipeline, K::data}, 1, 4));
  ASSERT_FALSE(plain.rejected) << *plain.rejected;
  CandidateResult kept = plain;
  simulate_candidate(p, plain);
  CandidateTimeline timeline;
  simulate_candidate(p, kept, &timeline);
  ASSERT_TRUE(plain.des_step_s && kept.des_step_s);
  EXPECT_EQ(*kept.des_step_s, *plain.des_step_s);
  ASSERT_TRUE(timeline.pipeline);
  const PipelineTimeline& t = *timeline.pipeline;
  ASSERT_EQ(t.roles.size(), t.graph.tasks.size());
  ASSERT_EQ(t.simulation.tasks.size(), t.graph.tasks.size());
  EXPECT_EQ(t.layers, 4);
  EXPECT_EQ(t.spec.chips.size(), 4u);
  EXPECT_EQ(t.spec.microbatches, 4);
  // 4 stages x 2 chips x 4 microbatches x 2 passes computes; 3 boundaries x 2 directions x 2 chips x 4 sends.
  std::size_t computes = 0, sends = 0;
  for (std::size_t id = 0; id < t.graph.tasks.size(); ++id) {
    const Task& task = t.graph.tasks[id];
    const PipelineGraphTask& role = t.roles[id];
    EXPECT_EQ(task.op, role.stage);
    EXPECT_EQ(task.step, role.microbatch);
    EXPECT_EQ(task.src_chip, t.spec.chips[static_cast<std::size_t>(role.stage)][static_cast<std::size_t>(role.place)]);
    if (task.kind == TaskKind::compute) {
      ++computes;
      EXPECT_EQ(role.to_stage, -1);
    } else {
      ++sends;
      EXPECT_EQ(role.to_stage, role.pass == PipelineTask::Kind::forward ? role.stage + 1 : role.stage - 1);
      EXPECT_EQ(task.dst_chip,
                t.spec.chips[static_cast<std::size_t>(role.to_stage)][static_cast<std::size_t>(role.place)]);
    }
  }
  EXPECT_EQ(computes, 64u);
  EXPECT_EQ(sends, 48u);
  // The des span is the schedule's makespan; the step adds the longest tail.
  EXPECT_EQ(t.simulation.makespan_s, *kept.pipeline->des_span_s);
  ASSERT_EQ(t.tail_s.size(), 4u);
  EXPECT_NEAR(t.simulation.makespan_s + *std::max_element(t.tail_s.begin(), t.tail_s.end()), *kept.des_step_s,
              1e-12 * *kept.des_step_s);
}

TEST(CandidateTimeline, ACandidateWithoutStagesKeepsItsLayerProgramRun) {
  const CapacityProblem p = problem(small_model(), training(1 << 16, 2048));
  CandidateResult r = evaluate_candidate_book(p, candidate("tpu-v5e", {4, 2}, {K::fsdp, K::data}, 1, 1));
  ASSERT_FALSE(r.rejected) << *r.rejected;
  CandidateTimeline timeline;
  simulate_candidate(p, r, &timeline);
  EXPECT_FALSE(timeline.pipeline);
  const LayerProgramTimeline& layers = timeline.layer_program;
  ASSERT_TRUE(layers.graph && layers.simulation && layers.memory && layers.slice);
  EXPECT_EQ(layers.slice->num_chips(), 8);
  EXPECT_EQ(layers.simulation->tasks.size(), layers.graph->tasks.size());
  EXPECT_EQ(layers.op_names.size(), layers.repeats.size());
  // Every task belongs to a named op; the step is each op's span times its repeats, so at least the run's makespan.
  for (const Task& task : layers.graph->tasks)
    ASSERT_LT(static_cast<std::size_t>(task.op), layers.op_names.size());
  EXPECT_GE(*r.des_step_s, layers.simulation->makespan_s);
}

}  // namespace
}  // namespace podsim
