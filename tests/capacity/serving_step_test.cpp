// The serving step model (sim/capacity/serving_step.hpp, docs/serving-step-model.md) against figures worked by hand
// and against podsim's own decode and prefill steps: a pure decode and a pure prefill at a grid point are those steps,
// a memory-bound decode reads the weights and the KV once, the interpolation is linear, the KV capacity is the free
// HBM over the KV bytes per token, and a model that does not fit is refused naming the candidate.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "capacity_test_helpers.hpp"
#include "sim/capacity/serving_step.hpp"

namespace podsim {
namespace {

using namespace capacity_test;
using K = ParallelKind;

Workload serving_step_workload() {
  Workload w;
  w.mode = WorkloadMode::decode;
  w.batch = 1;
  w.context = 1;
  return w;
}

ServingStepLimits serving_step_limits(std::int64_t tokens, std::int64_t seqs, std::int64_t context) {
  ServingStepLimits l;
  l.max_num_batched_tokens = tokens;
  l.max_num_seqs = seqs;
  l.max_context_tokens = context;
  return l;
}

BatchSignature serving_step_batch(std::vector<PrefillChunk> chunks, std::int64_t decodes, std::int64_t context_sum) {
  BatchSignature b;
  for (const auto& c : chunks)
    b.prefill_tokens += c.tokens;
  b.prefill_chunks = std::move(chunks);
  b.decode_seqs = decodes;
  b.decode_context_sum = context_sum;
  b.decode_context_max = decodes > 0 ? context_sum / decodes : 0;
  return b;
}

double serving_step_book(const TransformerDims& dims, const Candidate& c, WorkloadMode mode, std::int64_t batch,
                         std::int64_t context) {
  Workload w = serving_step_workload();
  w.mode = mode;
  w.batch = batch;
  w.context = context;
  return evaluate_candidate_book(problem(dims, w), c).book_step_s;
}

TEST(ServingStepGrid, AxesAreGeometricAndEndAtTheirMaximum) {
  EXPECT_EQ(serving_grid_axis(8, GridDensity::fine), (std::vector<std::int64_t>{1, 2, 3, 4, 6, 8}));
  EXPECT_EQ(serving_grid_axis(20, GridDensity::fine), (std::vector<std::int64_t>{1, 2, 3, 4, 6, 8, 12, 16, 20}));
  EXPECT_EQ(serving_grid_axis(256, GridDensity::coarse), (std::vector<std::int64_t>{1, 4, 16, 64, 256}));
  EXPECT_EQ(serving_grid_axis(100, GridDensity::coarse), (std::vector<std::int64_t>{1, 4, 16, 64, 100}));
  EXPECT_EQ(serving_grid_axis(1, GridDensity::fine), (std::vector<std::int64_t>{1}));
  const auto huge = serving_grid_axis(std::int64_t{1} << 62, GridDensity::fine);
  EXPECT_EQ(huge.back(), std::int64_t{1} << 62);
  EXPECT_EQ(huge.size(), 2u * 62u);  // 1, then 2^k and 3 x 2^(k-1) for k = 1..61, then 2^62
}

// small_model() on one v5e chip: D 1024, F 4096 gated, 8 heads and 8 KV heads of 128, V 32768 untied, 4 layers.
TEST(ServingStep, PureDecodeAndPureprefillAreTheModelSteps) {
  const TransformerDims dims = small_model();
  const Candidate c = candidate("tpu-v5e", {2, 2}, {K::tensor, K::tensor});
  const ServingStepModel model(problem(dims, serving_step_workload()), c, serving_step_limits(512, 64, 2048));
  // Grid points: 32 decodes at context 256 (sum 8192); one prefill of 384 tokens (a point of the fine axes).
  EXPECT_NEAR(model.step_s(serving_step_batch({}, 32, 32 * 256)),
              serving_step_book(dims, c, WorkloadMode::decode, 32, 256), 1e-12);
  EXPECT_NEAR(model.step_s(serving_step_batch({{384, 0}}, 0, 0)),
              serving_step_book(dims, c, WorkloadMode::prefill, 1, 384), 1e-12);
  // Between grid points the interpolation stays within 1% of the steps (decode 40 at context 300, prefill of 448).
  const double decode = serving_step_book(dims, c, WorkloadMode::decode, 40, 300);
  EXPECT_NEAR(model.step_s(serving_step_batch({}, 40, 40 * 300)), decode, 0.01 * decode);
  const double prefill = serving_step_book(dims, c, WorkloadMode::prefill, 1, 448);
  EXPECT_NEAR(model.step_s(serving_step_batch({{448, 0}}, 0, 0)), prefill, 0.01 * prefill);
}

TEST(ServingStep, MemoryBoundDecodeReadsTheWeightsAndTheKvOnce) {
  // 8 decodes at context 1024 on one chip. Bytes read: the layers' matmul weights 4 x 16,777,216 and the unembedding
  // 32,768 x 1,024 = 33,554,432 parameters of 2 bytes (the embedding is a lookup of 8 rows: not read whole) =
  // 201,326,592; the KV cache 8 x 1024 tokens x 4 layers x 8 heads x 2 x 128 x 2 bytes = 134,217,728. At v5e's
  // 8.2e11 B/s: 409.2 us. The activations add about 1%: per layer about 0.7 MB (the norms' 4 passes over [8, 1024],
  // the MLP's [8, 4096] outputs written and read again, the activation's 3 passes over them), 2.8 MB for 4 layers, and
  // the logits [8, 32768], 0.5 MB: 4 us.
  const TransformerDims dims = small_model();
  const Candidate c = candidate("tpu-v5e", {1, 1}, {});
  const ServingStepModel model(problem(dims, serving_step_workload()), c, serving_step_limits(64, 16, 2048));
  const double bound = (201326592.0 + 134217728.0) / c.hardware.spec.chip.hbm_bandwidth_Bps;
  const double step = model.step_s(serving_step_batch({}, 8, 8 * 1024));
  EXPECT_GE(step, bound);
  EXPECT_LT(step, 1.02 * bound);
  // Twice the context reads twice the KV: 134,217,728 more bytes, 163.7 us.
  const double longer = model.step_s(serving_step_batch({}, 8, 8 * 2048));
  EXPECT_NEAR(longer - step, 134217728.0 / c.hardware.spec.chip.hbm_bandwidth_Bps, 0.01 * (longer - step));
}

TEST(ServingStep, InterpolatesLinearlyBetweenGridPoints) {
  const TransformerDims dims = small_model();
  const Candidate c = candidate("tpu-v5e", {1, 1}, {});
  const ServingStepModel model(problem(dims, serving_step_workload()), c, serving_step_limits(64, 16, 2048));
  // The key axis has 512 and 768: a one-token chunk seeing 640 keys costs the mean of one seeing 512 and one 768 (the
  // prefill attention per query is interpolated linearly in the keys).
  const auto chunk = [&](std::int64_t keys) {
    return model.parts(serving_step_batch({{1, keys - 1}}, 0, 0)).prefill_attention_s;
  };
  EXPECT_NEAR(chunk(640), (chunk(512) + chunk(768)) / 2, 1e-15);
  // Decode attention between sequences 4 and 6 and contexts 512 and 768: bilinear, so at the centre the mean of the
  // four corners.
  const auto decode = [&](std::int64_t b, std::int64_t ctx) {
    return model.parts(serving_step_batch({}, b, b * ctx)).decode_attention_s;
  };
  EXPECT_NEAR(model.parts(serving_step_batch({}, 5, 5 * 640)).decode_attention_s,
              (decode(4, 512) + decode(4, 768) + decode(6, 512) + decode(6, 768)) / 4, 1e-15);
}

TEST(ServingStep, MixedStepReadsTheWeightsOnce) {
  // A chunk of 256 prompt tokens beside 16 decodes at context 1024: more than either alone, less than the two steps
  // apart (the weights are read once, for 272 tokens).
  const TransformerDims dims = small_model();
  const Candidate c = candidate("tpu-v5e", {2, 2}, {K::tensor, K::tensor});
  const ServingStepModel model(problem(dims, serving_step_workload()), c, serving_step_limits(512, 64, 2048));
  const double prefill = model.step_s(serving_step_batch({{256, 0}}, 0, 0));
  const double decode = model.step_s(serving_step_batch({}, 16, 16 * 1024));
  const double mixed = model.step_s(serving_step_batch({{256, 0}}, 16, 16 * 1024));
  EXPECT_GT(mixed, std::max(prefill, decode));
  EXPECT_LT(mixed, prefill + decode);
  // The book's prefill attention by difference (prefill step - decode layers - one logits row) is the prefill
  // program's own attention op: the decode and the prefill at the same tokens share every other op.
  const ServingStepEvaluation p = evaluate_serving_step(problem(dims, serving_step_workload()), c,
                                                        WorkloadMode::prefill, 1, 768, StepEvaluator::book);
  const ServingStepEvaluation d = evaluate_serving_step(problem(dims, serving_step_workload()), c, WorkloadMode::decode,
                                                        768, 1, StepEvaluator::book);
  EXPECT_NEAR(p.layers_s, d.layers_s, 1e-12);
  EXPECT_NEAR(model.parts(serving_step_batch({{768, 0}}, 0, 0)).prefill_attention_s, p.attention_s, 1e-12);
  // A chunk of 256 after 512 tokens of context: 256 of a 768-token prefill's queries (the book counts the products
  // whole): a third of its attention.
  EXPECT_NEAR(model.parts(serving_step_batch({{256, 512}}, 0, 0)).prefill_attention_s, p.attention_s / 3, 1e-12);
}

TEST(ServingStep, KvCapacityIsTheFreeHbmOverTheKvBytesPerToken) {
  // 2 KV heads over a tensor axis of 4: each chip holds ceil(2 / 4) = 1 head (the frameworks replicate it), so a token
  // takes 4 heads x 2 x 128 x 2 bytes x 4 layers = 8,192 bytes of the replica. Parameters per chip: Wq and Wo D x NH /
  // 4 = 262,144 each, the MLP's 3 D F / 4 = 3,145,728, Wkv's 2 heads padded to 4, one per chip, D x 2H = 262,144:
  // 3,932,160 per layer, 15,728,640 for 4; the embedding and the unembedding V D / 4 = 8,388,608 each; the norms (2 x 4
  // + 1) D = 9,216 (replicated): 32,515,072 parameters of 2 bytes = 65,030,144 bytes.
  TransformerDims dims = small_model();
  dims.kv_heads = 2;
  const Candidate c = candidate("tpu-v5e", {2, 2}, {K::tensor, K::tensor});
  const ServingStepModel model(problem(dims, serving_step_workload()), c, serving_step_limits(512, 64, 2048));
  EXPECT_EQ(model.kv_bytes_per_token(), 8192u);
  EXPECT_EQ(model.weight_bytes_per_chip(), 65030144u);
  // The temporaries of the largest step: a decode of 512 sequences or a prefill of 512 tokens, as the book's memory.
  Workload w = serving_step_workload();
  w.batch = 512;
  const std::uint64_t decode_temporaries = evaluate_candidate_book(problem(dims, w), c).memory.temporaries;
  w.mode = WorkloadMode::prefill;
  w.batch = 1;
  w.context = 512;
  const std::uint64_t prefill_temporaries = evaluate_candidate_book(problem(dims, w), c).memory.temporaries;
  EXPECT_EQ(model.temporaries_bytes_per_chip(), std::max(decode_temporaries, prefill_temporaries));
  const std::uint64_t free = 17179869184u - 65030144u - model.temporaries_bytes_per_chip();
  EXPECT_EQ(model.kv_capacity_tokens(), static_cast<std::int64_t>(free * 4 / 8192));
}

TEST(ServingStep, ExpertParallelReplica) {
  // small_moe() (4 experts of F 2048, 2 per token) with its experts over X and the heads over Y: a pure decode at a
  // grid point is the decode step, and the KV bytes per token are the replica's: 8 heads over Y = 2, 4 per chip, each
  // sequence's KV on one expert shard's pair of chips, 2 layers x 8 heads x 2 x 128 x 2 bytes = 8,192.
  const TransformerDims dims = small_moe();
  const Candidate c = candidate("tpu-v5e", {2, 2}, {K::expert, K::tensor});
  const ServingStepModel model(problem(dims, serving_step_workload()), c, serving_step_limits(256, 32, 1024));
  EXPECT_NEAR(model.step_s(serving_step_batch({}, 16, 16 * 512)),
              serving_step_book(dims, c, WorkloadMode::decode, 16, 512), 1e-12);
  EXPECT_EQ(model.kv_bytes_per_token(), 8192u);
  // podsim shards the sequences over the expert axis: one decode costs the batch padded to 2.
  EXPECT_DOUBLE_EQ(model.step_s(serving_step_batch({}, 1, 512)), model.step_s(serving_step_batch({}, 2, 1024)));
  EXPECT_GT(model.step_s(serving_step_batch({{100, 200}}, 3, 3 * 700)), 0);
}

TEST(ServingStep, RefusesAModelWhoseWeightsDoNotFit) {
  // LLaMA 3 70B's 141.1 GB of bf16 weights over 4 v5e chips: 32.9 GiB per chip, HBM holds 16.
  const Candidate c = candidate("tpu-v5e", {2, 2}, {K::tensor, K::tensor});
  try {
    const ServingStepModel model(problem(llama3_70b(), serving_step_workload()), c, serving_step_limits(512, 64, 2048));
    FAIL() << "no error";
  } catch (const ServingFitError& e) {
    EXPECT_EQ(e.candidate(), "tpu-v5e 2x2 tensor=X,Y");
    EXPECT_EQ(e.hbm_bytes(), 17179869184u);
    EXPECT_GT(e.needed_bytes(), 70553706496u * 2 / 4);
    EXPECT_EQ(std::string(e.what()).rfind("tpu-v5e 2x2 tensor=X,Y: the weights (", 0), 0u) << e.what();
  }
}

TEST(ServingStep, RefusesBadLimitsAndNonReplicaParallelism) {
  const Candidate c = candidate("tpu-v5e", {2, 2}, {K::tensor, K::tensor});
  try {
    const ServingStepModel model(problem(small_model(), serving_step_workload()), c, serving_step_limits(512, 0, 2048));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "/serving/max_num_seqs: must be at least 1, got: 0");
  }
  try {
    const ServingStepModel model(problem(small_model(), serving_step_workload()), c,
                                 serving_step_limits(std::int64_t{1} << 25, 64, 2048));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "/serving/max_num_batched_tokens: must be at most 2^24, got: 33554432");
  }
  Candidate two_slices = c;
  two_slices.slices = 2;
  try {
    const ServingStepModel model(problem(small_model(), serving_step_workload()), two_slices,
                                 serving_step_limits(512, 64, 2048));
    FAIL() << "no error";
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(), "tpu-v5e 2 x 2x2 tensor=X,Y: a serving replica runs on one slice, got: 2 slices");
  }
  const Candidate data = candidate("tpu-v5e", {2, 2}, {K::data, K::tensor});
  try {
    const ServingStepModel model(problem(small_model(), serving_step_workload()), data,
                                 serving_step_limits(512, 64, 2048));
    FAIL() << "no error";
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(),
                 "tpu-v5e 2x2 data=X tensor=Y: a serving replica is tensor and expert parallel (its data parallelism "
                 "is replicas), got: data axes");
  }
}

TEST(ServingStep, NeverFailsWithinTheLimitsAndExtrapolatesBeyond) {
  const TransformerDims dims = small_model();
  const Candidate c = candidate("tpu-v5e", {2, 2}, {K::tensor, K::tensor});
  const ServingStepModel model(problem(dims, serving_step_workload()), c, serving_step_limits(512, 64, 2048));
  // The largest batch: 64 decodes at the longest context with a chunk filling the budget.
  const double full = model.step_s(serving_step_batch({{448, 1600}}, 64, 64 * 2047));
  EXPECT_TRUE(std::isfinite(full) && full > 0);
  // Beyond the limits: linear from the last two points, so twice the budget costs more, not an error.
  EXPECT_GT(model.step_s(serving_step_batch({{1024, 0}}, 0, 0)), model.step_s(serving_step_batch({{512, 0}}, 0, 0)));
  EXPECT_THROW(model.step_s(serving_step_batch({}, 0, 0)), InternalError);
}

TEST(ServingStep, DesGridGivesTheSimulatedDecodeAndPrefillSteps) {
  // The des grid (coarse: tokens 1, 4, 16; sequences 1, 4; contexts and keys 1, 4, 16, 64) at its points is the des's
  // own decode and prefill steps, each simulated here by simulate_candidate.
  const TransformerDims dims = small_model();
  const Candidate c = candidate("tpu-v5e", {2, 2}, {K::tensor, K::tensor});
  const ServingStepModel model(problem(dims, serving_step_workload()), c, serving_step_limits(16, 4, 64),
                               StepEvaluator::des);
  const auto simulated = [&](WorkloadMode mode, std::int64_t batch, std::int64_t context) {
    Workload w = serving_step_workload();
    w.mode = mode;
    w.batch = batch;
    w.context = context;
    const CapacityProblem p = problem(dims, w);
    CandidateResult r = evaluate_candidate_book(p, c);
    simulate_candidate(p, r);
    return *r.des_step_s;
  };
  EXPECT_NEAR(model.step_s(serving_step_batch({}, 4, 4 * 16)), simulated(WorkloadMode::decode, 4, 16), 1e-12);
  EXPECT_NEAR(model.step_s(serving_step_batch({{16, 0}}, 0, 0)), simulated(WorkloadMode::prefill, 1, 16), 1e-12);
  const std::int64_t built = model.evaluations();
  model.step_s(serving_step_batch({{3, 10}}, 2, 2 * 30));
  EXPECT_EQ(model.evaluations(), built);
}

// The measurement of docs/serving-step-model.md, run by hand (it simulates for minutes with the des):
//   PODSIM_SERVING_STEP_EVALUATOR=book|des [PODSIM_SERVING_STEP_GRID=fine|coarse] PODSIM_SERVING_STEP_SAMPLES=50 \
//     ./build/test_capacity \
//     --gtest_also_run_disabled_tests --gtest_filter='ServingStepAccuracy.*'
// For each replica: the grid's build (evaluations, seconds), then random batches within the limits (seed 2026), each
// timed by the grid (step_s) and by the same composition evaluated at the batch's own points (direct_parts).
BatchSignature serving_step_random_batch(std::mt19937_64& rng, const ServingStepLimits& limits, std::int64_t capacity) {
  const auto log_uniform = [&](std::int64_t lo, std::int64_t hi) {
    std::uniform_real_distribution<double> u(std::log(static_cast<double>(lo)), std::log(static_cast<double>(hi) + 1));
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::exp(u(rng))), lo, hi);
  };
  std::uniform_int_distribution<int> chunks_of(0, 2);
  for (;;) {
    const std::int64_t decodes = std::uniform_int_distribution<int>(0, 3)(rng) == 0
                                     ? 0
                                     : log_uniform(1, std::min(limits.max_num_seqs, limits.max_num_batched_tokens));
    std::int64_t context = decodes > 0 ? log_uniform(1, limits.max_context_tokens - 1) : 0;
    if (decodes * context > capacity) context = std::max<std::int64_t>(1, capacity / decodes);
    const int chunks = chunks_of(rng);
    std::vector<PrefillChunk> list;
    std::int64_t budget = limits.max_num_batched_tokens - decodes;
    for (int i = 0; i < chunks && budget >= 1 && decodes + i + 1 <= limits.max_num_seqs; ++i) {
      const std::int64_t tokens = log_uniform(1, std::max<std::int64_t>(1, budget / (chunks - i)));
      const std::int64_t prior =
          std::uniform_int_distribution<int>(0, 1)(rng) == 0 ? 0 : log_uniform(1, limits.max_context_tokens - tokens);
      list.push_back({tokens, prior});
      budget -= tokens;
    }
    const BatchSignature b = serving_step_batch(std::move(list), decodes, decodes * context);
    if (b.total_tokens() >= 1) return b;
  }
}

void serving_step_measure(const std::string& name, const TransformerDims& dims, const Candidate& c) {
  const char* evaluator_text = std::getenv("PODSIM_SERVING_STEP_EVALUATOR");
  const StepEvaluator evaluator =
      evaluator_text && std::string(evaluator_text) == "des" ? StepEvaluator::des : StepEvaluator::book;
  const char* samples_text = std::getenv("PODSIM_SERVING_STEP_SAMPLES");
  const int samples = samples_text ? std::atoi(samples_text) : 50;
  const ServingStepLimits limits = serving_step_limits(2048, 256, 8192);
  const auto start = std::chrono::steady_clock::now();
  const char* grid_text = std::getenv("PODSIM_SERVING_STEP_GRID");
  const GridDensity density = grid_text ? (std::string(grid_text) == "fine" ? GridDensity::fine : GridDensity::coarse)
                              : evaluator == StepEvaluator::book ? GridDensity::fine
                                                                 : GridDensity::coarse;
  const ServingStepModel model(problem(dims, serving_step_workload()), c, limits, evaluator, density);
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::mt19937_64 rng(2026);
  double max_error = 0, sum_error = 0, lookup_s = 0;
  std::int64_t lookups = 0;
  for (int i = 0; i < samples; ++i) {
    const BatchSignature b = serving_step_random_batch(rng, limits, model.kv_capacity_tokens());
    const auto before = std::chrono::steady_clock::now();
    const double grid = model.step_s(b);
    lookup_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
    ++lookups;
    const double direct = model.direct_parts(b).total();
    const double error = std::abs(grid - direct) / direct;
    max_error = std::max(max_error, error);
    sum_error += error;
    std::printf("  %s N %lld B %lld ctx %lld chunks %zu: grid %.4g s direct %.4g s error %.3f%%\n", name.c_str(),
                static_cast<long long>(b.total_tokens()), static_cast<long long>(b.decode_seqs),
                static_cast<long long>(b.decode_seqs > 0 ? b.decode_context_sum / b.decode_seqs : 0),
                b.prefill_chunks.size(), grid, direct, 100 * error);
  }
  std::printf(
      "%s (%s, %s grid): kv capacity %lld tokens, grid %lld evaluations in %.2f s, %d batches: max error %.3f%%, mean "
      "%.3f%%, lookup %.2f us\n",
      name.c_str(), evaluator == StepEvaluator::des ? "des" : "book", density == GridDensity::fine ? "fine" : "coarse",
      static_cast<long long>(model.kv_capacity_tokens()), static_cast<long long>(model.evaluations()), build_s, samples,
      100 * max_error, 100 * sum_error / std::max(1, samples), 1e6 * lookup_s / std::max<std::int64_t>(1, lookups));
}

TEST(ServingStepAccuracy, DISABLED_Llama3_8bOnV5e2x2) {
  serving_step_measure("llama3-8b v5e 2x2 tensor=X,Y", llama3_8b(),
                       candidate("tpu-v5e", {2, 2}, {K::tensor, K::tensor}));
}

TEST(ServingStepAccuracy, DISABLED_Llama3_70bOnV5e4x4) {
  serving_step_measure("llama3-70b v5e 4x4 tensor=X,Y", llama3_70b(),
                       candidate("tpu-v5e", {4, 4}, {K::tensor, K::tensor}));
}

TEST(ServingStepAccuracy, DISABLED_Llama3_70bOnV6e4x4) {
  serving_step_measure("llama3-70b v6e 4x4 tensor=X,Y", llama3_70b(),
                       candidate("tpu-v6e", {4, 4}, {K::tensor, K::tensor}));
}

}  // namespace
}  // namespace podsim
