// Pipeline stages in a capacity candidate, against figures worked by hand: a stage's work from per-op times and
// roles, the memory of each stage (its layers' state, the embedding on the first stage and the unembedding on the
// last, the microbatches in flight under 1F1B and GPipe), the activation sent between stages and its book time, the
// rules (layers divide by the stages; training only), and the des against the book.
#include <gtest/gtest.h>

#include "capacity_test_helpers.hpp"
#include "models/common/error.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/capacity/pipeline_stages.hpp"

namespace podsim {
namespace {

using namespace capacity_test;
using K = ParallelKind;

TEST(PipelineStages, StageWorkCountsTheStagesLayersAndTheEdgesOnTheEndStages) {
  // Nine ops, one per (place, phase), with times by hand; 8 layers over 4 stages: 2 layers per stage.
  ModelProgram model;
  const auto op = [&](ModelPlace place, ModelPhase phase, std::int64_t repeats) {
    model.roles.push_back({place, phase});
    model.repeats.push_back(repeats);
  };
  std::vector<StepBreakdown> times;
  const auto timed = [&](double compute, double hbm) {
    StepBreakdown t;
    t.compute_s = compute;
    t.hbm_s = hbm;
    times.push_back(t);
  };
  op(ModelPlace::layer, ModelPhase::forward, 32), timed(1, 0);
  op(ModelPlace::layer, ModelPhase::backward, 32), timed(2, 0);
  op(ModelPlace::first, ModelPhase::forward, 4), timed(0, 0.5);
  op(ModelPlace::last, ModelPhase::forward, 4), timed(0.25, 0);
  op(ModelPlace::last, ModelPhase::backward, 4), timed(0.75, 0);
  op(ModelPlace::first, ModelPhase::backward, 4), timed(0, 0.125);
  op(ModelPlace::layer, ModelPhase::step, 8), timed(0, 0.01);  // once per layer and step
  op(ModelPlace::first, ModelPhase::step, 1), timed(0, 0.1);
  op(ModelPlace::last, ModelPhase::step, 1), timed(0, 0.2);
  const StageWork work = stage_work(model, times, 8, 4);
  // F: 2 x 1, plus 0.5 on the first stage and 0.25 on the last; B: 2 x 2, plus 0.125 first and 0.75 last.
  EXPECT_EQ(work.forward_s(), (std::vector<double>{2.5, 2, 2, 2.25}));
  EXPECT_EQ(work.backward_s(), (std::vector<double>{4.125, 4, 4, 4.75}));
  EXPECT_DOUBLE_EQ(work.forward[0].hbm_s, 0.5);
  // Tail: 8 / 4 x 0.01, plus 0.1 first and 0.2 last.
  EXPECT_NEAR(work.tail[0].total(), 0.12, 1e-15);
  EXPECT_NEAR(work.tail[1].total(), 0.02, 1e-15);
  EXPECT_NEAR(work.tail[3].total(), 0.22, 1e-15);
  // A recomputed op (remat) is in the backward: 2 x 1 more per stage.
  model.roles.push_back({ModelPlace::layer, ModelPhase::backward, true});
  model.repeats.push_back(32);
  times.push_back(times[0]);
  EXPECT_EQ(stage_work(model, times, 8, 4).backward_s(), (std::vector<double>{6.125, 6, 6, 6.75}));
  EXPECT_THROW(stage_work(model, times, 8, 3), VerifyError);
}

TEST(PipelineStages, TheExpansionGivesEachOpItsPlaceAndPhase) {
  // Data parallel over both axes of a v5e 4x2, so that the data all-reduces exist.
  Workload w = training(1 << 16, 2048);
  const ModelProgram model =
      expand_model(small_model(), w, candidate("tpu-v5e", {4, 2}, {K::data, K::data}), ScenarioOptions{});
  const auto role = [&](const std::string& name) {
    for (std::size_t i = 0; i < model.spec.program.size(); ++i)
      if (model.spec.program[i].name == name) return model.roles[i];
    ADD_FAILURE() << "no op " << name;
    return ModelOpRole{};
  };
  const auto is = [&](const std::string& name, ModelPlace place, ModelPhase phase) {
    const ModelOpRole r = role(name);
    EXPECT_TRUE(r.place == place && r.phase == phase) << name;
  };
  ASSERT_EQ(model.roles.size(), model.spec.program.size());
  is("embed", ModelPlace::first, ModelPhase::forward);
  is("q", ModelPlace::layer, ModelPhase::forward);
  is("logits", ModelPlace::last, ModelPhase::forward);
  is("loss", ModelPlace::last, ModelPhase::backward);
  is("dhf", ModelPlace::last, ModelPhase::backward);
  is("dWun_sum", ModelPlace::last, ModelPhase::step);
  is("dxn", ModelPlace::layer, ModelPhase::backward);
  is("dWq_sum", ModelPlace::layer, ModelPhase::step);
  is("demb_data_sum", ModelPlace::first, ModelPhase::step);
  is("adam_Wq", ModelPlace::layer, ModelPhase::step);
  is("adam_emb", ModelPlace::first, ModelPhase::step);
  is("adam_Wun", ModelPlace::last, ModelPhase::step);
}

// small_model (L 4, D 1024, V 32768) on a v5e 4x2: pipeline over X (4 stages of one layer), data over Y; 2^16
// tokens at T 2048 in 4 microbatches of 16,384 tokens, 8,192 per chip; one checkpoint per layer.
Candidate pipelined(std::int64_t microbatches = 4) {
  return candidate("tpu-v5e", {4, 2}, {K::pipeline, K::data}, 1, microbatches);
}

TEST(PipelineCandidate, MemoryPerStageByHand) {
  const CandidateResult r = evaluate_candidate_book(problem(small_model(), training(1 << 16, 2048)), pipelined());
  ASSERT_FALSE(r.rejected) << *r.rejected;
  ASSERT_TRUE(r.pipeline);
  const PipelineFigures& f = *r.pipeline;
  EXPECT_EQ(f.stages, 4);
  EXPECT_EQ(f.layers_per_stage, 1);
  EXPECT_EQ(f.schedule, PipelineSchedule::one_f_one_b);
  // Parameters (bf16, replicated over the data axis): a layer's matmuls 16,777,216 x 2 = 33,554,432 bytes, its two
  // norms 2 x 1024 x 2 = 4,096; the embedding table 32,768 x 1024 x 2 = 67,108,864 on the first stage; the
  // unembedding as much and the final norm 2,048 on the last.
  const std::uint64_t layer = 33554432 + 4096, table = 67108864;
  EXPECT_EQ(r.memory.params, layer + table);  // the first stage is the worst
  EXPECT_EQ(f.worst_stage, 0);
  // Activations: 1 checkpoint x 1 layer x 8,192 tokens x 1024 x 2 bytes = 16,777,216 per microbatch; 1F1B holds
  // min(p - s, m): 4 on stage 0, 3 on stage 1, 1 on stage 3.
  const std::uint64_t microbatch = 16777216;
  EXPECT_EQ(r.memory.activations, 4 * microbatch);
  // Stages differ by their state (params, grads, and 8 bytes of Adam per 2-byte parameter: 6 x params bytes) and
  // their activations; the temporaries are the same layer program's.
  ASSERT_EQ(f.stage_memory_bytes.size(), 4u);
  EXPECT_EQ(f.stage_memory_bytes[0] - f.stage_memory_bytes[1], 6 * table + microbatch);
  EXPECT_EQ(f.stage_memory_bytes[1] - f.stage_memory_bytes[2], microbatch);
  EXPECT_EQ(f.stage_memory_bytes[0] - f.stage_memory_bytes[3], 3 * microbatch - 6 * 2048);
  EXPECT_EQ(r.memory_per_chip_bytes, f.stage_memory_bytes[0]);
  // GPipe holds all 4 microbatches on every stage: the last stage, with the final norm, becomes the worst.
  CapacityProblem gpipe = problem(small_model(), training(1 << 16, 2048));
  gpipe.workload.pipeline_schedule = PipelineSchedule::gpipe;
  const CandidateResult g = evaluate_candidate_book(gpipe, pipelined());
  ASSERT_FALSE(g.rejected) << *g.rejected;
  EXPECT_EQ(g.memory.activations, 4 * microbatch);
  EXPECT_EQ(g.pipeline->stage_memory_bytes[3] - g.pipeline->stage_memory_bytes[0], 6 * 2048u);
  EXPECT_EQ(g.pipeline->worst_stage, 3);
}

TEST(PipelineCandidate, ActivationsCrossOneHopAtTheBooksPointToPointTime) {
  // 8,192 tokens x 1024 x 2 bytes = 16,777,216 bytes per chip and microbatch, to the neighbour one hop along X:
  // 16,777,216 / 4.5e10 + 1 us.
  const CandidateResult r = evaluate_candidate_book(problem(small_model(), training(1 << 16, 2048)), pipelined());
  ASSERT_TRUE(r.pipeline);
  EXPECT_EQ(r.pipeline->send_bytes, 16777216u);
  EXPECT_NEAR(r.pipeline->send_s, 16777216.0 / 4.5e10 + 1e-6, 1e-15);
  // The step is the schedule's span plus the work after the last backward; its breakdown adds up to it, the
  // busiest stage's work by part plus its bubble.
  EXPECT_NEAR(r.book_step_s, r.breakdown.total(), 1e-12 * r.book_step_s);
  EXPECT_GT(r.breakdown.bubble_s, 0);
  EXPECT_NEAR(r.breakdown.bubble_s, r.pipeline->bubble_s, 1e-15);
  EXPECT_GT(r.book_step_s, r.pipeline->span_s);
  // The last stage, with the logits over a 32,768 vocab (2 x 32,768 x 1024 FLOPs per token forward, twice a layer's
  // matmuls), is the busiest; the others keep ahead of it, so the span is the first microbatch's way to it (the
  // forwards of stages 0 to 2 and three sends), its m forwards and backwards back to back, and the last gradient's way
  // back (three sends and the backwards of stages 2 to 0).
  const PipelineFigures& f = *r.pipeline;
  const auto& F = f.forward_s;
  const auto& B = f.backward_s;
  for (std::size_t s = 0; s < 3; ++s)
    ASSERT_GT(F[3] + B[3], F[s] + B[s]);
  const double span = F[0] + F[1] + F[2] + 6 * f.send_s + 4 * (F[3] + B[3]) + B[2] + B[1] + B[0];
  EXPECT_NEAR(f.span_s, span, 1e-12 * span);
  EXPECT_NEAR(f.bubble_s, span - 4 * (F[3] + B[3]), 1e-12 * span);
}

TEST(PipelineCandidate, LayersMustDivideIntoTheStages) {
  // 4 layers on 8 stages.
  const CandidateResult r = evaluate_candidate_book(problem(small_model(), training(1 << 16, 2048)),
                                                    candidate("tpu-v5e", {8, 2}, {K::pipeline, K::data}, 1, 8));
  ASSERT_TRUE(r.rejected);
  EXPECT_EQ(*r.rejected, "layers (4) must be a multiple of the pipeline axes X (8)");
}

TEST(PipelineCandidate, StagesApplyToTraining) {
  Workload decode;
  decode.mode = WorkloadMode::decode;
  decode.batch = 8;
  decode.context = 1024;
  const CandidateResult r =
      evaluate_candidate_book(problem(small_model(), decode), candidate("tpu-v5e", {4, 2}, {K::pipeline, K::data}));
  ASSERT_TRUE(r.rejected);
  EXPECT_EQ(*r.rejected, "pipeline axes X: pipeline stages apply to training steps; assign the axes to another kind");
}

TEST(PipelineCandidate, TheDesSimulatesTheScheduleNearItsBook) {
  // Uncalibrated: the book never applies v5e's achieved MXU rates, so the two compare on the same figures.
  CandidateResult r =
      evaluate_candidate_book(problem(small_model(), training(1 << 16, 2048)), uncalibrated(pipelined()));
  ASSERT_FALSE(r.rejected) << *r.rejected;
  simulate_candidate(problem(small_model(), training(1 << 16, 2048)), r);
  ASSERT_TRUE(r.des_step_s);
  ASSERT_TRUE(r.pipeline->des_span_s);
  // The des adds hop latencies where the book takes a maximum (docs/book-model.md); on this small slice the two
  // stay within 5%, and the bubble fraction within 2 points.
  EXPECT_NEAR(*r.des_step_s, r.book_step_s, 0.05 * r.book_step_s);
  EXPECT_NEAR(*r.pipeline->des_bubble_fraction, r.pipeline->bubble_fraction, 0.02);
  EXPECT_GT(*r.des_step_s, *r.pipeline->des_span_s);
}

}  // namespace
}  // namespace podsim
