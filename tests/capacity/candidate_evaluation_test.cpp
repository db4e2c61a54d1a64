// evaluate_candidate_book against figures worked by hand from ../shared/reference/CAPACITY_MODELS.md and the book's
// collective costs (docs/book-model.md): the compute term of a data-parallel step, its gradient all-reduces, FSDP's
// memory per chip, a decode step against the inference chapter's lower bound, and the rejections.
#include <gtest/gtest.h>

#include <algorithm>

#include "capacity_test_helpers.hpp"

namespace podsim {
namespace {

using namespace capacity_test;
using K = ParallelKind;

// small_model(): D 1024, F 4096 (gated), N = K = 8 heads of H 128, V 32768, L 4.
// Matmul parameters per layer: Wq D x NH = 1,048,576; Wkv D x 2KH = 2,097,152; Wo 1,048,576; Wg, Wu, Wd
// 4,194,304 each: 16,777,216 per layer, 67,108,864 for 4 layers; the unembedding V D = 33,554,432.
constexpr double kLayerMatmulParams = 16777216.0;
constexpr double kUnembeddingParams = 33554432.0;

TEST(CandidateEvaluation, DataParallelComputeTermIsSixNTokensOverChipsPeak) {
  // 2^20 tokens at T = 2048, no remat, one microbatch, on a v5p 4x4x4 (64 chips, 4.59e14 FLOP/s each).
  // Matmul FLOPs: 6 x (4 x 16,777,216 + 33,554,432) = 603,979,776 per token (the input embedding is a lookup);
  // attention: 12 T N H L = 12 x 2048 x 1024 x 4 = 100,663,296 per token. All 704,643,072 x 2^20 FLOPs are
  // compute-bound at 16,384 tokens per chip: 7.3887e14 / (64 x 4.59e14) = 0.0251524 s.
  const CandidateResult r = evaluate_candidate_book(problem(small_model(), training(1 << 20, 2048)),
                                                    candidate("tpu-v5p", {4, 4, 4}, {K::data, K::data, K::data}));
  ASSERT_FALSE(r.rejected) << *r.rejected;
  const double flops = (6.0 * (4 * kLayerMatmulParams + kUnembeddingParams) + 12.0 * 2048 * 1024 * 4) * 1048576.0;
  EXPECT_NEAR(r.breakdown.compute_s, flops / (64 * 4.59e14), 1e-9 * r.breakdown.compute_s);

  // The gradients all-reduced over X, Y, Z (three wrapped axes of 4): AllReduce = 2 x max(V / (3 W_bidi),
  // (2 + 2 + 2) x 1 us), W_bidi = 2 x 9e10. Per layer dWq and dWo (2 MiB each), dWkv (4 MiB), dWg, dWu, dWd
  // (8 MiB each); once dWun and the embedding's gradient (64 MiB each).
  const auto all_reduce = [](double v) { return 2 * std::max(v / (3 * 1.8e11), 6e-6); };
  const double mib = 1048576.0;
  const double layer = 2 * all_reduce(2 * mib) + all_reduce(4 * mib) + 3 * all_reduce(8 * mib);
  const double ici = 4 * layer + 2 * all_reduce(64 * mib);
  EXPECT_NEAR(r.breakdown.ici_s, ici, 1e-9 * ici);
  EXPECT_EQ(r.bound, StepBound::compute);
  // The rest is the HBM-bound elementwise ops, each moving every array it reads and writes once at 2.8e12 B/s
  // (docs/parallelism.md, "Elementwise ops"). With a = 16,384 x 1024 x 2 bytes / 2.8e12 (one [tokens, D] array):
  // per layer norm1, norm2 and their backwards 4 arrays on [tokens, D] each (16a), the activation 3 and its
  // backward 5 on [tokens, F] (4a each: 32a), dK and dV read and written on [tokens, 2KH] (2 x 2a): 52a per layer,
  // 208a for 4, and the embedding lookup 2a; the loss on [16,384, 32,768] logits: 2 x 16,384 x 32,768 x 2 / 2.8e12;
  // Adam over the 134,217,728 unsharded parameters of the program (norms are not ops): 2 x 11 bytes each
  // (docs/parallelism.md) / 2.8e12.
  const double a = 16384.0 * 1024 * 2 / 2.8e12;
  const double hbm = 210 * a + 2.0 * 16384 * 32768 * 2 / 2.8e12 + 2.0 * 11 * 134217728 / 2.8e12;
  EXPECT_NEAR(r.breakdown.hbm_s, hbm, 1e-9 * hbm);
  EXPECT_DOUBLE_EQ(r.book_step_s, r.breakdown.compute_s + r.breakdown.hbm_s + r.breakdown.ici_s);
  // MFU: model FLOPs (6 x the matmul parameters, without the input embedding and the norms, plus attention) over the
  // step: the compute term's FLOPs, since without remat the program's matmuls are the model's.
  const double model = flops;
  EXPECT_NEAR(r.model_flops_per_step, model, 1e-9 * model);
  EXPECT_NEAR(r.mfu, model / (64 * 4.59e14 * r.book_step_s), 1e-9);
  EXPECT_NEAR(r.tokens_per_s_per_chip, 1048576.0 / r.book_step_s / 64, 1e-6);
}

TEST(CandidateEvaluation, FsdpHoldsOneNthOfTheTrainingState) {
  // small_model's parameters: attention 4 x (2 x 1024 x 1024 + 2 x 1024 x 1024) = 16,777,216; MLP 4 x 3 x 1024 x
  // 4096 = 50,331,648; embeddings 2 x 32768 x 1024 = 67,108,864; norms 9 x 1024 = 9,216: 134,226,944. FSDP over
  // all 64 chips: params and grads 134,226,944 x 2 / 64 = 4,194,592 bytes each, Adam 8 x 134,226,944 / 64 =
  // 16,778,368 bytes.
  const CandidateResult r = evaluate_candidate_book(problem(small_model(), training(1 << 20, 2048)),
                                                    candidate("tpu-v5p", {4, 4, 4}, {K::fsdp, K::fsdp, K::fsdp}, 1));
  ASSERT_FALSE(r.rejected) << *r.rejected;
  EXPECT_EQ(r.memory.params, 4194592u);
  EXPECT_EQ(r.memory.grads, 4194592u);
  EXPECT_EQ(r.memory.optimizer, 16778368u);
  // One checkpoint per layer: 1 x 4 layers x 16,384 tokens per chip x 1024 x 2 bytes = 134,217,728.
  EXPECT_EQ(r.memory.activations, 134217728u);
  EXPECT_EQ(r.memory.kv_cache, 0u);
  EXPECT_GT(r.memory.temporaries, 0u);
  EXPECT_EQ(r.memory_per_chip_bytes, r.memory.total());
  EXPECT_TRUE(r.fits_hbm);
}

TEST(CandidateEvaluation, MasterWeightsMakeAdamTwelveBytesPerParameter) {
  Workload w = training(1 << 20, 2048);
  w.master_weights = true;
  const CandidateResult r = evaluate_candidate_book(problem(small_model(), w),
                                                    candidate("tpu-v5p", {4, 4, 4}, {K::fsdp, K::fsdp, K::fsdp}, 1));
  ASSERT_FALSE(r.rejected) << *r.rejected;
  EXPECT_EQ(r.memory.optimizer, 134226944u * 12 / 64);  // 25,167,552
}

TEST(CandidateEvaluation, NoRematKeepsEveryValueTheBackwardReads) {
  // 16,384 local tokens per chip, no tensor axes, per layer: x, xn, q, a, o, hn [16384, 1024] bf16 32 MiB each; the
  // attention's logsumexp [16384, 8] f32 512 KiB; kv [16384, 8, 256] 64 MiB; hg, hu, g [16384, 4096] 128 MiB each:
  // 640.5 MiB per layer, 2562 MiB = 2,686,451,712 bytes for 4 layers (the scaling book's 20 [tokens, D] tensors per
  // layer would be 2560 MiB).
  const CandidateResult r = evaluate_candidate_book(problem(small_model(), training(1 << 20, 2048)),
                                                    candidate("tpu-v5p", {4, 4, 4}, {K::fsdp, K::fsdp, K::fsdp}, 0));
  EXPECT_EQ(r.memory.activations, 2686451712u);
}

TEST(CandidateEvaluation, RematRecomputesTheForwardOnce) {
  // With a checkpoint policy the backward recomputes the layer's forward but the down projection (its output only
  // feeds the residual add): the layer's other matmuls run twice.
  const auto run = [](std::int64_t checkpoints) {
    return evaluate_candidate_book(problem(small_model(), training(1 << 20, 2048)),
                                   candidate("tpu-v5p", {4, 4, 4}, {K::data, K::data, K::data}, checkpoints));
  };
  const CandidateResult none = run(0), remat = run(2);
  // Forward matmuls but the down projection's (1024 x 4096 of the 16,777,216 per layer) and attention of the layers:
  // (2 x 4 x 12,582,912 + 4 x 2048 x 1024 x 4) x 2^20 FLOPs.
  const double forward =
      (2.0 * 4 * (kLayerMatmulParams - 1024 * 4096) + 4.0 * 2048 * 1024 * 4) * 1048576.0 / (64 * 4.59e14);
  EXPECT_NEAR(remat.breakdown.recompute_s - none.breakdown.recompute_s, remat.breakdown.recompute_s, 0);
  EXPECT_NEAR(remat.breakdown.compute_s - none.breakdown.compute_s, forward, 1e-9 * forward);
  EXPECT_DOUBLE_EQ(remat.model_flops_per_step, none.model_flops_per_step);
  EXPECT_LT(remat.mfu, none.mfu);
}

TEST(CandidateEvaluation, RejectsAnAssignmentThatDoesNotDivide) {
  const CandidateResult r =
      evaluate_candidate_book(problem(llama3_70b(), training(4194304, 4096)),
                              candidate("tpu-v5p", {4, 4, 8}, {K::tensor, K::tensor, K::tensor}, 1));
  ASSERT_TRUE(r.rejected);
  EXPECT_EQ(*r.rejected, "heads (64) must be a multiple of the tensor axes X,Y,Z (128)");
  EXPECT_FALSE(r.fits_hbm);
}

TEST(CandidateEvaluation, RejectsHbmOverflowSayingByHowMuch) {
  // LLaMA 3 70B on a v5e 2x2 (16 GiB each), fully sharded: parameters alone are 70,553,706,496 x 2 / 4 bytes =
  // 32.9 GiB per chip, so the step cannot fit whatever the rest.
  const CandidateResult r = evaluate_candidate_book(problem(llama3_70b(), training(65536, 4096)),
                                                    candidate("tpu-v5e", {2, 2}, {K::fsdp, K::fsdp}, 1));
  ASSERT_TRUE(r.rejected);
  EXPECT_FALSE(r.fits_hbm);
  EXPECT_EQ(r.hbm_bytes, 17179869184u);
  EXPECT_GE(r.memory.params, 70553706496u * 2 / 4);
  EXPECT_EQ(r.memory.grads, r.memory.params);
  const std::string& why = *r.rejected;
  EXPECT_EQ(why.rfind("needs ", 0), 0u) << why;
  EXPECT_NE(why.find(" GiB per chip, HBM holds 16.0 GiB: "), std::string::npos) << why;
  EXPECT_EQ(why.substr(why.size() - 5), " over") << why;
  EXPECT_GT(r.book_step_s, 0);  // still timed, for the report
}

TEST(CandidateEvaluation, DecodeStepIsAtLeastTheHbmLowerBound) {
  // LLaMA 3 70B decoding a batch of 32 at context 2048 on a v5e 4x4, tensor parallel over both axes. Weights:
  // 70,553,706,496 x 2 bytes; KV cache: 2 x 80 x 8 x 128 x 2 = 327,680 bytes per token x 32 x 2048. The
  // inference chapter's bound: (weights + KV) / (16 x 8.2e11 B/s).
  Workload w;
  w.mode = WorkloadMode::decode;
  w.batch = 32;
  w.context = 2048;
  const CandidateResult r =
      evaluate_candidate_book(problem(llama3_70b(), w), candidate("tpu-v5e", {4, 4}, {K::tensor, K::tensor}));
  ASSERT_FALSE(r.rejected) << *r.rejected;
  const double bound = (70553706496.0 * 2 + 327680.0 * 32 * 2048) / (16 * 8.2e11);
  EXPECT_GE(r.book_step_s, bound);
  // Each chip reads its group's one KV head (of 8 over 16 chips); the rest is the layers' latency-bound collectives
  // over the tensor axes (a gather and a reduce-scatter per norm, 4 per layer, each a few hops of 1 us).
  EXPECT_LT(r.book_step_s, 1.5 * bound);
  EXPECT_EQ(r.bound, StepBound::hbm);
  EXPECT_DOUBLE_EQ(r.token_latency_s, r.book_step_s);
  // Model FLOPs: 2 x the matmul params + 4 T N H L at T = 2048, per token of the batch. The matmul params are the
  // 70,553,706,496 less the input embedding V D = 128,256 x 8192 = 1,050,673,152 and the norms 161 x 8192 = 1,318,912:
  // 69,501,714,432.
  const double flops = (2.0 * 69501714432.0 + 4.0 * 2048 * 64 * 128 * 80) * 32;
  EXPECT_NEAR(r.model_flops_per_step, flops, 1e-9 * flops);
  // The cache per chip: 32 x 2048 tokens x 327,680 bytes, one of the 8 KV heads per chip (each held by 2 chips).
  EXPECT_EQ(r.memory.kv_cache, 327680ull * 32 * 2048 / 8);
}

TEST(CandidateEvaluation, PrefillIsComputeBoundAndWritesTheKvCache) {
  // LLaMA 3 8B prefilling 8 sequences of 4096 tokens on a v5e 4x4 (1.97e14 FLOP/s per chip), data X, tensor Y.
  // Layer matmul parameters: Wq 4096 x 4096 = 16,777,216, Wkv 4096 x 2048 = 8,388,608, Wo 16,777,216, gate, up and
  // down 3 x 4096 x 14336 = 176,160,768: 218,103,808 per layer, 6,979,321,856 for 32. Per token: 2 x that plus the
  // attention products 4 T N H L = 4 x 4096 x 4096 x 32 = 2,147,483,648. All compute-bound
  // at 8192 tokens per chip; the logits of the last positions (2 per chip) are HBM-bound.
  Workload w;
  w.mode = WorkloadMode::prefill;
  w.batch = 8;
  w.context = 4096;
  const CandidateResult r =
      evaluate_candidate_book(problem(llama3_8b(), w), candidate("tpu-v5e", {4, 4}, {K::data, K::tensor}));
  ASSERT_FALSE(r.rejected) << *r.rejected;
  const double per_token = 2.0 * 6979321856.0 + 2147483648.0;
  EXPECT_NEAR(r.breakdown.compute_s, per_token * 32768 / (16 * 1.97e14), 1e-9 * r.breakdown.compute_s);
  EXPECT_EQ(r.bound, StepBound::compute);
  // The cache written: 2 x 32 x 8 x 128 x 2 = 131,072 bytes per token x 32,768 tokens, over data X (the batch)
  // and tensor Y (the 8 KV heads): 268,435,456 bytes per chip.
  EXPECT_EQ(r.memory.kv_cache, 268435456u);
  EXPECT_EQ(r.memory.grads, 0u);
  EXPECT_EQ(r.memory.optimizer, 0u);
  EXPECT_EQ(r.memory.activations, 0u);
  EXPECT_DOUBLE_EQ(r.token_latency_s, r.book_step_s);
}

TEST(CandidateEvaluation, MixtureOfExpertsComputesTheActiveExpertsOnly) {
  // small_moe(): D 1024, F 2048 (gated), 4 experts, 2 per token, L 2, N = K = 8, H 128, V 32768; 2^20 tokens at T 2048,
  // no remat, on a v5p 4x4x4 with expert X, data Y, fsdp Z. Compute-bound matmul FLOPs per token: 6 x (attention
  // 2 x 4,194,304 + the 2 active experts' MLPs 2 x 2 x 3 x 1024 x 2048 = 25,165,824 + the unembedding 33,554,432)
  // = 402,653,184; attention products 12 x 2048 x 1024 x 2 = 50,331,648. The router's [B, D] x [D, 4] products are
  // HBM-bound (the MXU pads 4 columns to 128), timed under hbm.
  const CandidateResult r = evaluate_candidate_book(problem(small_moe(), training(1 << 20, 2048)),
                                                    candidate("tpu-v5p", {4, 4, 4}, {K::expert, K::data, K::fsdp}));
  ASSERT_FALSE(r.rejected) << *r.rejected;
  const double flops = (402653184.0 + 50331648.0) * 1048576.0;
  EXPECT_NEAR(r.breakdown.compute_s, flops / (64 * 4.59e14), 1e-9 * r.breakdown.compute_s);
  // Parameters per chip: attention 4,194,304 per layer over fsdp Z (4); the router 1024 x 4 over Z; the experts
  // 3 x 4 x 1024 x 2048 over expert X and fsdp Z (16); embeddings 2 x 32768 x 1024 over Z; norms 5 x 1024 over Z:
  // 2 x (1,048,576 + 1,024 + 1,572,864) + 2 x 8,388,608 + 1,280 = 22,023,424 parameters, 2 bytes each.
  EXPECT_EQ(r.memory.params, 44046848u);
  // Model FLOPs count the active matmul parameters only: 6 x (125,842,432 total - 2 layers x 2 skipped experts x 3 x
  // 1024 x 2048 - the input embedding 32,768 x 1024 - the norms 5 x 1024) + attention; that is the compute term's
  // 67,108,864 matmul parameters plus the routers' 2 x 1024 x 4.
  const double active = 125842432.0 - 2 * 2 * 3 * 1024 * 2048 - 32768.0 * 1024 - 5 * 1024;
  EXPECT_DOUBLE_EQ(active, 402653184.0 / 6 + 2 * 1024 * 4);
  EXPECT_NEAR(r.model_flops_per_step, (6 * active + 50331648.0) * 1048576.0, 1.0);
}

TEST(CandidateEvaluation, CostPerMillionTokens) {
  CapacityProblem p = problem(small_model(), training(1 << 20, 2048));
  p.price_per_chip_hour = 4.2;
  const CandidateResult r = evaluate_candidate_book(p, candidate("tpu-v5p", {4, 4, 4}, {K::fsdp, K::fsdp, K::fsdp}, 1));
  ASSERT_TRUE(r.cost_per_million_tokens);
  // price x chips x step / 3600 per step, over 2^20 tokens, per million.
  EXPECT_NEAR(*r.cost_per_million_tokens, 4.2 * 64 * r.book_step_s / 3600 / 1048576 * 1e6, 1e-12);
}

}  // namespace
}  // namespace podsim

namespace podsim {
namespace {

// Every assignment of the kinds to X, Y, Z (the search tries them all) either plans or is rejected by a rule of
// docs/parallelism.md or by HBM: never by the verifier or the planner (an error located at /tensors or /program
// would be a bug of the expansion).
TEST(CandidateEvaluation, EveryAssignmentPlansOrIsRejectedByARule) {
  const std::vector<K> kinds = {K::data, K::fsdp, K::tensor, K::sequence, K::expert};
  TransformerDims tied = small_model();
  tied.tied_embeddings = true;
  tied.mlp = MlpKind::plain;
  for (const auto& dims : {small_model(), small_moe(), tied}) {
    for (const auto& mode : {WorkloadMode::train, WorkloadMode::prefill, WorkloadMode::decode}) {
      Workload w = training(1 << 18, 2048);
      w.mode = mode;
      w.batch = 64;
      w.context = 1024;
      for (const K a : kinds)
        for (const K b : kinds)
          for (const K c : kinds) {
            const Candidate cand = candidate("tpu-v5p", {4, 4, 4}, {a, b, c}, 1);
            const CandidateResult r = evaluate_candidate_book(problem(dims, w), cand);
            const std::string what = cand.parallelism.to_string() + " " + std::string(kWorkloadModeNames.name(mode));
            if (r.rejected) {
              EXPECT_EQ(r.rejected->find("/tensors"), std::string::npos) << what << ": " << *r.rejected;
              EXPECT_EQ(r.rejected->find("/program"), std::string::npos) << what << ": " << *r.rejected;
            } else {
              EXPECT_GT(r.book_step_s, 0) << what;
            }
          }
    }
  }
}

}  // namespace
}  // namespace podsim

namespace podsim {
namespace {

TEST(CapacityProblem, TakesTheScenariosModelWorkloadOptionsAndPrice) {
  ScenarioSpec spec;
  spec.source_file = "plan.json";
  EXPECT_THROW(capacity_problem(spec), VerifyError);
  ModelPreset model;
  model.name = "small";
  model.dims = capacity_test::small_model();
  spec.model = model;
  spec.workload = capacity_test::training(4096, 1024);
  spec.price_per_chip_hour = 2.5;
  spec.options.schedule = SchedulePolicy::dataflow;
  const CapacityProblem p = capacity_problem(spec);
  EXPECT_EQ(p.model.name, "small");
  EXPECT_EQ(p.workload.batch_tokens, 4096u);
  EXPECT_EQ(p.price_per_chip_hour, 2.5);
  EXPECT_EQ(p.options.schedule, SchedulePolicy::dataflow);
  EXPECT_EQ(p.source_file, "plan.json");
}

}  // namespace
}  // namespace podsim
