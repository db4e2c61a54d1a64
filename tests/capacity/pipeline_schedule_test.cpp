// The pipeline schedules against orders and spans worked by hand: GPipe's and 1F1B's stage orders, the microbatches
// each stage holds, the bubble (p - 1) / (m + p - 1) of equal stages without sends for any F and B, and a small
// schedule with send times traced task by task.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "sim/capacity/pipeline_schedule.hpp"

namespace podsim {
namespace {

using Kind = PipelineTask::Kind;

// `F0 F1 B0 ...` for an order.
std::string text(const std::vector<PipelineTask>& order) {
  std::string out;
  for (const auto& task : order)
    out += (out.empty() ? "" : " ") + std::string(task.kind == Kind::forward ? "F" : "B") +
           std::to_string(task.microbatch);
  return out;
}

TEST(PipelineSchedule, GpipeRunsEveryForwardThenEveryBackward) {
  EXPECT_EQ(text(stage_order(PipelineSchedule::gpipe, 4, 3, 0)), "F0 F1 F2 B0 B1 B2");
  EXPECT_EQ(text(stage_order(PipelineSchedule::gpipe, 4, 3, 3)), "F0 F1 F2 B0 B1 B2");
}

TEST(PipelineSchedule, OneForwardOneBackwardWarmsUpWithPMinusSMinusOneForwards) {
  // p = 4, m = 6: stage 0 warms up with 3 forwards, stage 2 with 1, the last stage with none.
  EXPECT_EQ(text(stage_order(PipelineSchedule::one_f_one_b, 4, 6, 0)), "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5");
  EXPECT_EQ(text(stage_order(PipelineSchedule::one_f_one_b, 4, 6, 2)), "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 B5");
  EXPECT_EQ(text(stage_order(PipelineSchedule::one_f_one_b, 4, 6, 3)), "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5");
  // Fewer microbatches than stages: the warm-up is cut to m.
  EXPECT_EQ(text(stage_order(PipelineSchedule::one_f_one_b, 4, 2, 0)), "F0 F1 B0 B1");
}

TEST(PipelineSchedule, MicrobatchesInFlight) {
  // GPipe holds every microbatch's activations; 1F1B at most p - s on stage s; one stage runs them one by one.
  EXPECT_EQ(microbatches_in_flight(PipelineSchedule::gpipe, 4, 8, 0), 8);
  EXPECT_EQ(microbatches_in_flight(PipelineSchedule::gpipe, 4, 8, 3), 8);
  EXPECT_EQ(microbatches_in_flight(PipelineSchedule::one_f_one_b, 4, 8, 0), 4);
  EXPECT_EQ(microbatches_in_flight(PipelineSchedule::one_f_one_b, 4, 8, 1), 3);
  EXPECT_EQ(microbatches_in_flight(PipelineSchedule::one_f_one_b, 4, 8, 3), 1);
  EXPECT_EQ(microbatches_in_flight(PipelineSchedule::one_f_one_b, 4, 2, 0), 2);
  EXPECT_EQ(microbatches_in_flight(PipelineSchedule::gpipe, 1, 8, 0), 1);
}

PipelineTimes equal_stages(std::size_t p, double forward, double backward, double send = 0) {
  return {std::vector<double>(p, forward), std::vector<double>(p, backward), std::vector<double>(p - 1, send)};
}

TEST(PipelineSchedule, EqualStagesWithoutSendsHaveTheBubbleFractionPMinusOneOverMPlusPMinusOne) {
  // p = 4, m = 8: the step is (m + p - 1)(F + B) = 11 (F + B), a stage busy 8 (F + B): bubble 3 (F + B), 3/11.
  for (const auto schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b}) {
    for (const auto& [forward, backward] : {std::pair{1.0, 2.0}, {1.0, 0.5}, {0.003, 0.003}}) {
      const PipelineSpan span = pipeline_span(schedule, 8, equal_stages(4, forward, backward));
      EXPECT_NEAR(span.span_s, 11 * (forward + backward), 1e-12);
      EXPECT_NEAR(span.bubble_s, 3 * (forward + backward), 1e-12);
      EXPECT_NEAR(span.bubble_fraction, 3.0 / 11.0, 1e-12);
    }
    // Fewer microbatches than stages: p = 4, m = 2, (p - 1) / (m + p - 1) = 3/5.
    EXPECT_NEAR(pipeline_span(schedule, 2, equal_stages(4, 1, 2)).bubble_fraction, 0.6, 1e-12);
    // p = 3, m = 5, B = 3F: 7 (F + B) = 28, bubble 2/7.
    const PipelineSpan three = pipeline_span(schedule, 5, equal_stages(3, 1, 3));
    EXPECT_NEAR(three.span_s, 28, 1e-12);
    EXPECT_NEAR(three.bubble_fraction, 2.0 / 7.0, 1e-12);
  }
}

TEST(PipelineSchedule, SendsBetweenStagesDelayTheNeighbour) {
  // p = 2, m = 2, F = B = 1, sends of 0.5. GPipe, task by task: stage 0 F0 [0,1], F1 [1,2]; stage 1 F0 [1.5,2.5],
  // F1 [2.5,3.5], B0 [3.5,4.5], B1 [4.5,5.5]; stage 0 B0 at 4.5 + 0.5: [5,6], B1 at max(6, 5.5 + 0.5): [6,7].
  // 1F1B: stage 1 F0 [1.5,2.5], B0 [2.5,3.5], F1 [3.5,4.5], B1 [4.5,5.5]; stage 0 F0, F1, then B0 at 3.5 + 0.5:
  // [4,5], B1 at 5.5 + 0.5: [6,7]. Both: span 7, each stage busy 4, bubble 3.
  for (const auto schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b}) {
    const PipelineSpan span = pipeline_span(schedule, 2, equal_stages(2, 1, 1, 0.5));
    EXPECT_DOUBLE_EQ(span.span_s, 7);
    EXPECT_DOUBLE_EQ(span.bubble_s, 3);
    EXPECT_DOUBLE_EQ(span.bubble_fraction, 3.0 / 7.0);
  }
}

TEST(PipelineSchedule, TheBusiestStageSetsTheBubble) {
  // One stage, m = 3 (gradient accumulation): no bubble. Two stages with the second twice as slow (F 2, B 2): GPipe
  // stage 1 runs F0 [1,3], F1 [3,5], F2 [5,7], B0 [7,9], B1 [9,11], B2 [11,13]; stage 0 each backward after stage
  // 1's: B0 [9,10], B1 [11,12], B2 [13,14]. Span 14, stage 1 busy 12, bubble 2.
  EXPECT_DOUBLE_EQ(pipeline_span(PipelineSchedule::gpipe, 3, equal_stages(1, 1, 2)).bubble_s, 0);
  const PipelineSpan span = pipeline_span(PipelineSchedule::gpipe, 3, PipelineTimes{{1, 2}, {1, 2}, {0}});
  EXPECT_DOUBLE_EQ(span.span_s, 14);
  EXPECT_EQ(span.busiest_stage, 1);
  EXPECT_DOUBLE_EQ(span.bubble_s, 2);
}

TEST(PipelineSchedule, BadTimesAreRefused) {
  try {
    pipeline_span(PipelineSchedule::gpipe, 2, PipelineTimes{{1, 1}, {1, 1}, {}});
    FAIL() << "expected a VerifyError";
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(), "send: one time per boundary between stages (1), got: 0");
  }
  EXPECT_THROW(pipeline_span(PipelineSchedule::gpipe, 2, PipelineTimes{{1, -1}, {1, 1}, {0}}), VerifyError);
  EXPECT_THROW(pipeline_span(PipelineSchedule::gpipe, 0, equal_stages(2, 1, 1)), VerifyError);
  EXPECT_THROW(stage_order(PipelineSchedule::gpipe, 2, 2, 2), VerifyError);
}

// Issue 33, class 3: 64 stages of 2^20 microbatches held 134 million stage tasks, 3.3 GB for the closed form (the
// des never ended). The limit is 2^20 stage tasks: 64 stages x 2 x 8,192 microbatches is the largest accepted.
TEST(PipelineSchedule, ASchedulePastTheTaskLimitIsRefusedWithItsSize) {
  EXPECT_EQ(microbatches_in_flight(PipelineSchedule::gpipe, 64, 8192, 0), 8192);
  try {
    microbatches_in_flight(PipelineSchedule::one_f_one_b, 64, 8193, 0);
    FAIL() << "expected a VerifyError";
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(),
                 "the pipeline schedule would hold 1048704 stage tasks (64 stages x 2 x 8193 microbatches), above the "
                 "limit of 1048576 (docs/reliability.md, \"Limits that protect the machine\"): use fewer microbatches");
  }
  try {
    stage_order(PipelineSchedule::gpipe, 4, INT64_MAX, 0);
    FAIL() << "expected a VerifyError";
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(), ("the pipeline schedule would hold more than 2^63 stage tasks (4 stages x 2 x " +
                            std::to_string(INT64_MAX) +
                            " microbatches), above the limit of 1048576 (docs/reliability.md, \"Limits that protect "
                            "the machine\"): use fewer microbatches")
                               .c_str());
  }
}

}  // namespace
}  // namespace podsim
