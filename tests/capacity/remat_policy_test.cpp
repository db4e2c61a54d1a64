// Remat policies as MaxText names them, counted from the layer's own ops: what each policy saves (bytes per chip, on
// the device and on the host), which forward ops the backward recomputes and their FLOPs, with every figure worked by
// hand below for one small layer. Also the KV heads each chip holds and the bytes a quantized weight is read at.
#include <gtest/gtest.h>

#include <set>

#include "capacity_test_helpers.hpp"
#include "sim/capacity/step_memory.hpp"

namespace podsim {
namespace {

using namespace capacity_test;
using K = ParallelKind;

constexpr std::uint64_t MiB = 1 << 20;

// small_model() (L 4, D 1024, F 4096 gated, N = K = 8 heads of 128) training on 65,536 tokens (T 2048) on a v5e 2x2,
// data over X and tensor over Y: 32,768 tokens per chip; the tensor axis halves D in the residual stream, the heads
// and F. Per chip and layer, bf16:
//   x, xn, o, hn  [32768, 512]            32 MiB each
//   q, a          [32768, 4 heads x 128]  32 MiB each; a's logsumexp [32768, 4] f32: 512 KiB
//   kv            [32768, 4, 2 x 128]     64 MiB (keys and values)
//   hg, hu, g     [32768, 2048]          128 MiB each
Candidate small_candidate(const Remat& remat) {
  Candidate c = candidate("tpu-v5e", {2, 2}, {K::data, K::tensor});
  c.remat = remat;
  return c;
}

PlannedModel small_layer(const Remat& remat) {
  return plan_model(expand_model(small_model(), training(1 << 16, 2048), small_candidate(remat), {}));
}

Remat policy(RematPolicy p) {
  Remat r;
  r.policy = p;
  return r;
}

std::set<std::string> recomputed(const ModelProgram& m) {
  std::set<std::string> out;
  for (std::size_t i = 0; i < m.roles.size(); ++i)
    if (m.roles[i].recompute) out.insert(m.spec.program[i].name);
  return out;
}

// FLOPs per chip of the recomputed matmuls and attention (the norms' and activation's elementwise work aside).
double recomputed_flops(const PlannedModel& p) {
  double flops = 0;
  for (std::size_t i = 0; i < p.model.roles.size(); ++i) {
    const ScenarioOp& op = p.model.spec.program[i];
    if (p.model.roles[i].recompute && (op.kind == OpKind::matmul || op.name == "attention_re"))
      flops += p.program.ops[i].flops;
  }
  return flops;
}

// P_q = 2 x 32768 x 1024 x 512; P_kv = 2 x 32768 x 1024 x 1024; A = 4 T x 32768 x 512 (T 2048); P_o = 2 x 32768 x
// 512 x 1024; P_up (gate and up) = 2 x 2 x 32768 x 1024 x 2048.
constexpr double kPq = 2.0 * 32768 * 1024 * 512, kPkv = 2.0 * 32768 * 1024 * 1024, kA = 4.0 * 2048 * 32768 * 512,
                 kPo = 2.0 * 32768 * 512 * 1024, kPup = 2.0 * 2 * 32768 * 1024 * 2048;

TEST(RematPolicy, FullKeepsTheLayerInputAndRecomputesAllButTheDownProjection) {
  const PlannedModel p = small_layer(policy(RematPolicy::full));
  EXPECT_EQ(recomputed(p.model), (std::set<std::string>{"norm1_re", "q_re", "kv_re", "attention_re", "o_re", "norm2_re",
                                                        "hg_re", "hu_re", "act_re"}));
  EXPECT_DOUBLE_EQ(recomputed_flops(p), kPq + kPkv + kA + kPo + kPup);
  const SavedBytes saved = saved_bytes_per_layer(p.model, p.program);
  EXPECT_EQ(saved.device, 32 * MiB);
  EXPECT_EQ(saved.offloaded, 0u);
}

TEST(RematPolicy, MinimalKeepsTheProjectionsAndRecomputesTheAttention) {
  const PlannedModel p = small_layer(policy(RematPolicy::minimal));
  EXPECT_EQ(recomputed(p.model), (std::set<std::string>{"norm1_re", "attention_re", "norm2_re", "act_re"}));
  EXPECT_DOUBLE_EQ(recomputed_flops(p), kA);
  // x 32 + q 32 + kv 64 + o 32 + hg 128 + hu 128; mlpwo is saveable but the backward never reads it.
  EXPECT_EQ(saved_bytes_per_layer(p.model, p.program).device, 416 * MiB);
}

TEST(RematPolicy, MinimalWithContextRecomputesNoMatmul) {
  const PlannedModel p = small_layer(policy(RematPolicy::minimal_with_context));
  EXPECT_EQ(recomputed(p.model), (std::set<std::string>{"norm1_re", "norm2_re", "act_re"}));
  EXPECT_DOUBLE_EQ(recomputed_flops(p), 0);
  // minimal's 416 MiB, the attention's output 32 MiB and its logsumexp 512 KiB.
  EXPECT_EQ(saved_bytes_per_layer(p.model, p.program).device, 448 * MiB + 512 * 1024);
}

TEST(RematPolicy, SaveDotExceptMlpRecomputesTheAttentionAndTheMlpInputs) {
  const PlannedModel p = small_layer(policy(RematPolicy::save_dot_except_mlp));
  EXPECT_DOUBLE_EQ(recomputed_flops(p), kA + kPup);
  EXPECT_EQ(saved_bytes_per_layer(p.model, p.program).device, (32 + 32 + 64 + 32) * MiB);
}

TEST(RematPolicy, SaveOutProjStillRecomputesTheAttentionFromItsProjections) {
  const PlannedModel p = small_layer(policy(RematPolicy::save_out_proj));
  EXPECT_DOUBLE_EQ(recomputed_flops(p), kPq + kPkv + kA + kPup);
  EXPECT_EQ(saved_bytes_per_layer(p.model, p.program).device, (32 + 32) * MiB);
}

TEST(RematPolicy, NoneKeepsEveryValueTheBackwardReads) {
  const PlannedModel p = small_layer(policy(RematPolicy::none));
  EXPECT_TRUE(recomputed(p.model).empty());
  // x, xn, q, kv, a (+ logsumexp), o, hn, hg, hu, g.
  EXPECT_EQ(saved_bytes_per_layer(p.model, p.program).device,
            (32 + 32 + 32 + 64 + 32 + 32 + 32 + 3 * 128) * MiB + 512 * 1024);
}

TEST(RematPolicy, OffloadedTensorsAreOnTheHostNotInHbm) {
  const PlannedModel p = small_layer(policy(RematPolicy::qkv_proj_offloaded));
  const SavedBytes saved = saved_bytes_per_layer(p.model, p.program);
  EXPECT_EQ(saved.device, 32 * MiB);            // the layer input
  EXPECT_EQ(saved.offloaded, (32 + 64) * MiB);  // q, and k with v
  // In memory: 4 layers of the input on the device plus one layer's offloaded tensors in flight; 4 layers of them on
  // the host.
  Workload w = training(1 << 16, 2048);
  w.remat = policy(RematPolicy::qkv_proj_offloaded);
  const MemoryByKind memory = step_memory(small_model(), w, p.model, p.program);
  EXPECT_EQ(memory.activations, (4 * 32 + 96) * MiB);
  EXPECT_EQ(memory.offloaded, 4 * 96 * MiB);
}

TEST(RematPolicy, CustomPlacesEachTensorAndDefaultsToMaxTexts) {
  Remat custom = policy(RematPolicy::custom);
  custom.custom[static_cast<std::size_t>(LayerTensor::decoder_layer_input)] = TensorPlacement::offload;
  custom.custom[static_cast<std::size_t>(LayerTensor::out_proj)] = TensorPlacement::device;
  const PlannedModel p = small_layer(custom);
  const SavedBytes saved = saved_bytes_per_layer(p.model, p.program);
  EXPECT_EQ(saved.device, 32 * MiB);     // out_proj
  EXPECT_EQ(saved.offloaded, 32 * MiB);  // the layer input
  // Without overrides, custom is full.
  EXPECT_EQ(recomputed(small_layer(policy(RematPolicy::custom)).model),
            recomputed(small_layer(policy(RematPolicy::full)).model));
}

TEST(RematPolicy, CheckpointsPerLayerCountTheLayerInputKTimes) {
  Remat two;
  two.checkpoints_per_layer = 2;
  const PlannedModel p = small_layer(two);
  EXPECT_EQ(saved_bytes_per_layer(p.model, p.program).device, 2 * 32 * MiB);
  EXPECT_EQ(recomputed(p.model), recomputed(small_layer(policy(RematPolicy::full)).model));
}

TEST(RematPolicy, FsdpGathersARecomputedWeightOnceForTheBackward) {
  Workload w = training(1 << 16, 2048);
  Candidate c = candidate("tpu-v5e", {2, 2}, {K::data, K::fsdp});
  c.remat = policy(RematPolicy::full);
  const ModelProgram m = expand_model(small_model(), w, c, {});
  const auto find = [&](const std::string& name) {
    for (const auto& op : m.spec.program)
      if (op.name == name) return &op;
    return static_cast<const ScenarioOp*>(nullptr);
  };
  ASSERT_NE(find("Wq_gather_bwd"), nullptr);
  // The recomputed q and the backward's dxn read the same gathered copy.
  EXPECT_EQ(std::get<MatmulOp>(find("q_re")->detail).rhs, "Wq_bwd");
  EXPECT_EQ(std::get<MatmulOp>(find("dxn")->detail).rhs, "Wq_bwd");
  // The down projection is not recomputed: its backward product gathers it as before.
  EXPECT_EQ(find("Wd_gather_bwd"), nullptr);
}

}  // namespace
}  // namespace podsim

namespace podsim {
namespace {

using namespace capacity_test;

TEST(HostOffload, ExposedCopiesAreWhatExceedsTheLayersCompute) {
  // qkv_proj_offloaded on the small layer: 96 MiB per layer and microbatch go to the host after the forward and come
  // back before the backward. With a host link of 1e9 B/s each copy takes 100,663,296 / 1e9 = 100.7 ms, far beyond a
  // layer's forward or backward (a few ms): exposed per layer = (c - forward) + (c - backward), 4 layers.
  Workload w = training(1 << 16, 2048);
  w.remat.policy = RematPolicy::qkv_proj_offloaded;
  Candidate c = candidate("tpu-v5e", {2, 2}, {ParallelKind::data, ParallelKind::tensor});
  c.remat = w.remat;
  c.hardware.spec.host_offload_Bps = 1e9;
  const CandidateResult r = evaluate_candidate_book(problem(small_model(), w), c);
  ASSERT_FALSE(r.rejected) << *r.rejected;
  const PlannedModel p = plan_model(expand_model(small_model(), w, c, {}));
  double forward = 0, backward = 0;
  for (std::size_t i = 0; i < p.model.roles.size(); ++i) {
    if (p.model.roles[i].place != ModelPlace::layer) continue;
    if (p.model.roles[i].phase == ModelPhase::forward) forward += p.program.ops[i].book_time_s;
    if (p.model.roles[i].phase == ModelPhase::backward) backward += p.program.ops[i].book_time_s;
  }
  const double copy = 100663296 / 1e9;
  ASSERT_LT(forward, copy);
  ASSERT_LT(backward, copy);
  EXPECT_NEAR(r.breakdown.offload_s, 4 * (2 * copy - forward - backward), 1e-12);
  EXPECT_EQ(r.memory.offloaded, 4 * 96 * MiB);
  // A preset without a host link figure cannot offload.
  c.hardware.spec.host_offload_Bps = 0;
  const CandidateResult refused = evaluate_candidate_book(problem(small_model(), w), c);
  ASSERT_TRUE(refused.rejected);
  EXPECT_EQ(*refused.rejected,
            "remat qkv_proj_offloaded offloads activations to host memory, which needs the hardware's host link figure "
            "(host.offload_Bps): tpu-v5e has none");
}

}  // namespace
}  // namespace podsim

namespace podsim {
namespace {

using namespace capacity_test;

TEST(ExpertWeights, ABatchedExpertMatmulReadsEveryLocalExpertsWeights) {
  // Mixtral-like experts (8 of D 4096, F 14336, top 2) decoding 16 tokens on a v5e 4x2, tensor over both axes: each
  // chip holds every expert's [4096, 14336 / 8 = 1792] gate shard. The capacity is ceil(16 x 2 / 8) = 4 slots per
  // expert, so the gate's product reads x [8, 4, 4096] (262,144 bytes), all 8 experts' weights (8 x 4096 x 1792 x 2 =
  // 117,440,512 bytes) and writes [8, 4, 1792] (114,688 bytes): 117,817,344 bytes / 8.2e11 B/s = 143.68 us.
  TransformerDims dims = small_model();
  dims.layers = 2;
  dims.d_model = 4096;
  dims.d_ff = 14336;
  dims.heads = 32;
  dims.kv_heads = 8;
  dims.experts = 8;
  dims.experts_per_token = 2;
  Workload w;
  w.mode = WorkloadMode::decode;
  w.batch = 16;
  w.context = 4096;
  const PlannedModel p =
      plan_model(expand_model(dims, w, candidate("tpu-v5e", {4, 2}, {ParallelKind::tensor, ParallelKind::tensor}), {}));
  const PlannedOp& gate = planned_op(p, "hg");
  double memory_s = 0;
  for (const auto& step : gate.steps)
    if (step.kind == StepKind::compute) memory_s = step.memory_s;
  EXPECT_NEAR(memory_s, 117817344.0 / 8.2e11, 1e-12);
}

}  // namespace
}  // namespace podsim
