// MFU's model FLOPs (docs/capacity.md, "MFU"): 6 N + 12 L N H T per token in training, N the matmul parameters (the
// input embedding is a lookup, the unembedding a matmul counted once), worked by hand for a small model whose
// embedding is most of its parameters; and, over every candidate of the shipped model-level scenarios, MFU never
// above the hardware FLOPs utilisation (the matmul FLOPs the expanded program executes on the step).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "capacity_test_helpers.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/capacity/plan_search.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "sim/scenario/scenario_verify.hpp"

namespace podsim {
namespace {

using namespace capacity_test;
using K = ParallelKind;
namespace fs = std::filesystem;

// L 2, D 256, F 1024 (gated), N = K = 2 heads of H 128, V 32768, untied.
TransformerDims tiny_model() {
  TransformerDims d;
  d.layers = 2;
  d.d_model = 256;
  d.d_ff = 1024;
  d.heads = 2;
  d.kv_heads = 2;
  d.head_dim = 128;
  d.vocab = 32768;
  return d;
}

// The MXU FLOPs the step's expanded program executes on all chips: each matmul op's and each fused attention kernel's
// (`attention`, `attention_bwd`: the score and value products) FLOPs per chip x its repeats x the chips that run it
// (a pipeline stage's, chips / stages, runs its share of the repeats).
double hardware_flops(const CapacityProblem& problem, const Candidate& candidate) {
  const ModelProgram model = expand_model(problem.model.dims, problem.workload, candidate, problem.options);
  const Slice slice(model.spec.slice_shape, model.spec.wraparound);
  const auto [in_slice, in_slice_dims] = model.spec.in_slice_mesh();
  const MeshMapping mapping(in_slice, slice, in_slice_dims);
  const PlanTopology topology{slice,
                              mapping,
                              true,
                              model.spec.slice_count,
                              model.spec.slice_count > 1 ? model.spec.dcn_bandwidth_or_preset() : 0.0,
                              model.spec.slice_count > 1 ? model.spec.dcn_latency_or_preset() : 0.0};
  const PlannedProgram program = plan_program(model.spec, topology, nullptr);
  const double stages = static_cast<double>(candidate.parallelism.degree(ParallelKind::pipeline, model.spec.mesh.mesh));
  const double chips_per_stage = static_cast<double>(candidate.chips()) / stages;
  double flops = 0;
  for (std::size_t i = 0; i < program.ops.size(); ++i)
    if (program.ops[i].kind == OpKind::matmul || program.ops[i].name == "attention" ||
        program.ops[i].name == "attention_bwd")
      flops += program.ops[i].flops * static_cast<double>(model.repeats[i]) * chips_per_stage;
  return flops;
}

TEST(Mfu, MatmulParamsLeaveOutTheInputEmbeddingAndTheNorms) {
  // Per layer: attention 2 D N H + 2 D K H = 4 x 256 x 256 = 262,144; MLP 3 D F = 786,432; 2 layers: 2,097,152.
  // The unembedding V D = 8,388,608, once whether tied or not: 10,485,760.
  EXPECT_EQ(matmul_params(tiny_model()), 10485760u);
  TransformerDims tied = tiny_model();
  tied.tied_embeddings = true;
  EXPECT_EQ(matmul_params(tied), 10485760u);
  // The book's count (flops_per_token) keeps all active parameters: 2,097,152 + 2 x 8,388,608 + norms 5 x 256.
  EXPECT_EQ(count_params(tiny_model()).active, 18875648u);
  const FlopsPerToken f = model_flops_per_token(tiny_model(), 1024);
  EXPECT_DOUBLE_EQ(f.forward, 2.0 * 10485760);
  EXPECT_DOUBLE_EQ(f.train, 6.0 * 10485760);
  // 12 L T N H = 12 x 2 x 1024 x 256 = 6,291,456.
  EXPECT_DOUBLE_EQ(f.train_with_attention, 6.0 * 10485760 + 6291456.0);
  EXPECT_DOUBLE_EQ(f.forward_with_attention, 2.0 * 10485760 + 6291456.0 / 3);
}

TEST(Mfu, HandWorkedForATinyModelOnOneChip) {
  // 16,384 tokens at T = 1024 on one v5p chip (4.59e14 bf16 FLOP/s), no remat, one microbatch.
  // Model FLOPs per token: 6 x 10,485,760 + 6,291,456 = 69,206,016; per step x 16,384 = 1,133,871,366,144.
  // (All active parameters would give 6 x 18,875,648 + 6,291,456 = 119,545,344 per token, 73% more.)
  const CapacityProblem p = problem(tiny_model(), training(16384, 1024));
  const Candidate c = candidate("tpu-v5p", {1, 1, 1}, {K::data, K::data, K::data});
  const CandidateResult r = evaluate_candidate_book(p, c);
  ASSERT_FALSE(r.rejected) << *r.rejected;
  EXPECT_DOUBLE_EQ(r.model_flops_per_step, 1133871366144.0);
  // MFU = model FLOPs / (chips x C x step time).
  EXPECT_NEAR(r.mfu, 1133871366144.0 / (4.59e14 * r.book_step_s), 1e-12);
  // Without remat the program's matmuls and attention kernels are exactly the model's: the forward's 2 N + 4 L N H T
  // and the backward's twice that, so HFU equals MFU here. The old count (all active parameters) exceeded it by 73%.
  const double hfu = hardware_flops(p, c) / (4.59e14 * r.book_step_s);
  EXPECT_NEAR(hardware_flops(p, c), 1133871366144.0, 1e-9 * 1133871366144.0);
  EXPECT_LE(r.mfu, hfu * (1 + 1e-12));
  EXPECT_LE(r.mfu, 1.0);
}

// Issue 33, class 4: a capacity factor of 1e-300 gave an MFU of 287%, the dropped tokens' expert matmuls counted as
// done. small_moe(): L 2, D 1024, F 2048 gated, E 4, k 2, N_h = K = 8 heads of 128, V 32768; 16,384 tokens at T 1024
// on one v5p chip, the dense dispatch at capacity factor 0.5: each group of 1024 tokens sends each expert 512 rows
// and it keeps C = 512 x 0.5 = 256, so half the (token, expert) pairs are dropped.
// N = 2 (2 D N_h H + 2 D K H) + 2 x 3 D F k + 2 D E + V D = 8,388,608 + 25,165,824 + 8,192 + 33,554,432 = 67,117,056;
// per token 6 N + 12 L N_h H T = 402,702,336 + 25,165,824 = 427,868,160, x 16,384 = 7,010,191,933,440. The dropped
// pairs, 16,384 x 2 x 0.5, skip 6 x L x 3 D F = 75,497,472 FLOPs each: 1,236,950,581,248 less, 5,773,241,352,192.
TEST(Mfu, DroppedTokensSkipTheirExpertsMatmuls) {
  Workload w = training(16384, 1024);
  w.moe_dispatch = MoeDispatch::dense;
  w.capacity_factor = 0.5;
  const CandidateResult r =
      evaluate_candidate_book(problem(small_moe(), w), candidate("tpu-v5p", {1, 1, 1}, {K::data, K::data, K::data}));
  ASSERT_FALSE(r.rejected) << *r.rejected;
  EXPECT_DOUBLE_EQ(r.dropped_fraction, 0.5);
  EXPECT_DOUBLE_EQ(r.model_flops_per_step, 5773241352192.0);
  EXPECT_LE(r.mfu, 1.0);
  // Nothing dropped at factor 1: every pair's matmuls count.
  w.capacity_factor = 1.0;
  const CandidateResult all =
      evaluate_candidate_book(problem(small_moe(), w), candidate("tpu-v5p", {1, 1, 1}, {K::data, K::data, K::data}));
  EXPECT_DOUBLE_EQ(all.dropped_fraction, 0.0);
  EXPECT_DOUBLE_EQ(all.model_flops_per_step, 7010191933440.0);
}

// Every model-level scenario of scenarios/ and validation/scenarios/ and every candidate its search allows that the
// book can evaluate: the model FLOPs of a step are at most the matmul FLOPs its program executes, so MFU <= HFU.
TEST(Mfu, NeverAboveHardwareFlopsUtilisationOnTheShippedScenarios) {
  int checked = 0;
  for (const char* folder : {"scenarios", "validation/scenarios"})
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(PODSIM_SOURCE_DIR) / folder)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
      const ScenarioSpec spec = verified(load_scenario(entry.path().string()));
      if (!spec.model || spec.serve) continue;  // a serving scenario's answers are a run's, not one step's
      const CapacityProblem p = capacity_problem(spec);
      for (const Candidate& c : enumerate_candidates(spec)) {
        const CandidateResult r = evaluate_candidate_book(p, c);
        if (r.rejected && r.book_step_s == 0) continue;  // the program cannot be formed: no step to compare
        const double hardware = hardware_flops(p, c);
        EXPECT_LE(r.model_flops_per_step, hardware * (1 + 1e-9))
            << entry.path().filename() << ": model " << r.model_flops_per_step << " > executed " << hardware;
        ++checked;
      }
    }
  EXPECT_GT(checked, 20);
}

}  // namespace
}  // namespace podsim
