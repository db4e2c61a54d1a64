// The expansion of a model's step into a scenario program: tensor shapes and the shardings the parallelism gives them,
// the repeats of each op, and the collectives the matmul planner derives from those shardings (Megatron's all-reduces,
// ZeRO-3's gathers and reduce-scatters), with their V and book time worked by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "capacity_test_helpers.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/plan/program_planner.hpp"

namespace podsim {
namespace {

using namespace capacity_test;
using K = ParallelKind;

// small_model() training on 2^20 tokens (T 2048), one checkpoint per layer, on a v5p 4x4x4 with data X, fsdp Y,
// tensor Z.
ModelProgram small_training(std::int64_t microbatches = 1) {
  Workload w = training(1 << 20, 2048);
  return expand_model(small_model(), w, candidate("tpu-v5p", {4, 4, 4}, {K::data, K::fsdp, K::tensor}, 1, microbatches),
                      {});
}

const ScenarioTensor& tensor(const ModelProgram& m, const std::string& name) {
  const ScenarioTensor* t = m.spec.find_tensor(name);
  if (t == nullptr) throw std::runtime_error("no tensor " + name);
  return *t;
}

// The axis names of each dim of a tensor's sharding, and its unreduced axes last.
std::vector<std::vector<std::string>> axes(const ScenarioTensor& t) {
  std::vector<std::vector<std::string>> out;
  for (const auto& dim : t.sharding.sharding().dims) {
    out.emplace_back();
    for (const auto& axis : dim.axes)
      out.back().push_back(axis.name);
  }
  return out;
}

std::int64_t repeat(const ModelProgram& m, const std::string& op) {
  for (std::size_t i = 0; i < m.spec.program.size(); ++i)
    if (m.spec.program[i].name == op) return m.repeats[i];
  throw std::runtime_error("no op " + op);
}

using Axes = std::vector<std::vector<std::string>>;

// The parallelism resolved on the 4x4x4 mesh once: a token's rows over data X and fsdp Y (4 x 4 = 16 shards), the
// weights' ZeRO-3 shards over Y (4), the heads over tensor Z (4), no pipeline stages.
TEST(ModelProgram, TheParallelismsAxesAreResolvedOnTheMeshOnce) {
  const ModelProgram m = small_training();
  EXPECT_EQ(m.axes.tokens, (std::vector<std::string>{"X", "Y"}));
  EXPECT_EQ(m.axes.token_shards, 16u);
  EXPECT_EQ(m.axes.fsdp_shards, 4u);
  EXPECT_EQ(m.axes.tensor_shards, 4u);
  EXPECT_TRUE(m.axes.pipeline.empty());
  EXPECT_EQ(m.axes.stages, 1);
}

TEST(ModelProgram, ShapesAndShardingsFollowTheParallelism) {
  const ModelProgram m = small_training();
  // The residual stream: tokens over data then fsdp (X, Y), d_model over tensor (Z).
  EXPECT_EQ(tensor(m, "x").shape, (Shape{1048576, 1024}));
  EXPECT_EQ(axes(tensor(m, "x")), (Axes{{"X", "Y"}, {"Z"}}));
  // Column-parallel weights: d_model over fsdp, the heads or d_ff over tensor.
  EXPECT_EQ(tensor(m, "Wq").shape, (Shape{1024, 8 * 128}));
  EXPECT_EQ(axes(tensor(m, "Wq")), (Axes{{"Y"}, {"Z"}}));
  EXPECT_EQ(tensor(m, "Wkv").shape, (Shape{1024, 8, 2 * 128}));
  EXPECT_EQ(axes(tensor(m, "Wkv")), (Axes{{"Y"}, {"Z"}, {}}));  // the 8 KV heads over Z (4)
  EXPECT_EQ(axes(tensor(m, "Wg")), (Axes{{"Y"}, {"Z"}}));
  EXPECT_EQ(axes(tensor(m, "Wu")), (Axes{{"Y"}, {"Z"}}));
  // Row-parallel weights: the heads or d_ff over tensor, d_model over fsdp.
  EXPECT_EQ(tensor(m, "Wo").shape, (Shape{1024, 1024}));
  EXPECT_EQ(axes(tensor(m, "Wo")), (Axes{{"Z"}, {"Y"}}));
  EXPECT_EQ(tensor(m, "Wd").shape, (Shape{4096, 1024}));
  EXPECT_EQ(axes(tensor(m, "Wd")), (Axes{{"Z"}, {"Y"}}));
  // The vocab over tensor (embedding rows, unembedding columns).
  EXPECT_EQ(tensor(m, "emb").shape, (Shape{32768, 1024}));
  EXPECT_EQ(axes(tensor(m, "emb")), (Axes{{"Z"}, {"Y"}}));
  EXPECT_EQ(axes(tensor(m, "Wun")), (Axes{{"Y"}, {"Z"}}));
  // Adam's byte view of each shard: 11 bytes per bf16 parameter (22 moved, read and written).
  EXPECT_EQ(tensor(m, "adam_Wq").shape, (Shape{1024, 1024, 11}));
  EXPECT_EQ(axes(tensor(m, "adam_Wq")), (Axes{{"Y"}, {"Z"}, {}}));
}

TEST(ModelProgram, RepeatsCountLayersMicrobatchesAndRecompute) {
  const ModelProgram m = small_training(4);
  // 4 layers x 4 microbatches; under a checkpoint policy the backward recomputes the forward by clones of its ops.
  EXPECT_EQ(repeat(m, "q"), 16);
  EXPECT_EQ(repeat(m, "attention"), 16);
  EXPECT_EQ(repeat(m, "q_re"), 16);
  EXPECT_EQ(repeat(m, "attention_re"), 16);
  EXPECT_EQ(repeat(m, "dWq"), 16);
  EXPECT_EQ(repeat(m, "attention_bwd"), 16);
  EXPECT_EQ(repeat(m, "logits"), 4);
  EXPECT_EQ(repeat(m, "embed"), 4);
  EXPECT_EQ(repeat(m, "adam_Wq"), 4);  // once per layer's weight per step
  EXPECT_EQ(repeat(m, "adam_emb"), 1);
  // A microbatch of 2^20 / 4 tokens.
  EXPECT_EQ(tensor(m, "x").shape, (Shape{262144, 1024}));
}

TEST(ModelProgram, AttentionIsOneFusedOpOfFourTFlopsPerQueryElement) {
  const ModelProgram m = small_training();
  const auto& forward = std::get<ElementwiseOp>(m.spec.find_op("attention")->detail);
  EXPECT_EQ(forward.tensor, "q");
  EXPECT_DOUBLE_EQ(forward.flops_per_element, 4.0 * 2048);  // 2 T H per head per token for each product
  EXPECT_DOUBLE_EQ(std::get<ElementwiseOp>(m.spec.find_op("attention_bwd")->detail).flops_per_element, 8.0 * 2048);
  // Both passes are a causal kernel's over the sequence: a calibrated des times them by the attention curves.
  EXPECT_EQ(forward.attention, AttentionPass::forward);
  EXPECT_EQ(forward.attention_context, 2048);
  const auto& backward = std::get<ElementwiseOp>(m.spec.find_op("attention_bwd")->detail);
  EXPECT_EQ(backward.attention, AttentionPass::backward);
  EXPECT_EQ(backward.attention_context, 2048);
}

std::vector<const PlannedStep*> collectives(const PlannedOp& o, CollectiveKind kind) {
  std::vector<const PlannedStep*> out;
  for (const auto& step : o.steps)
    if (step.kind == StepKind::collective && step.collective.kind == kind) out.push_back(&step);
  return out;
}

TEST(ModelProgram, TensorParallelLayerAllReducesItsRowParallelOutputs) {
  const PlannedModel p = plan_model(small_training());
  // Megatron with sequence parallelism: the row-parallel products (o and y forward; the inputs' gradients dhn and dxn
  // backward) leave partial sums over the tensor axis Z, reduce-scattered onto the residual stream's D once each.
  // V = the [tokens per chip, D] array: 2^20 / 16 x 1024 x 2 = 134,217,728 bytes; Z is a wrapped axis of 4:
  // V / (2 x 9e10) = 745.7 us, half the all-reduce it replaces.
  for (const char* name : {"o", "y", "dhn", "dxn"}) {
    EXPECT_TRUE(collectives(planned_op(p, name), CollectiveKind::all_reduce).empty()) << name;
    const auto scatters = collectives(planned_op(p, name), CollectiveKind::reduce_scatter);
    ASSERT_EQ(scatters.size(), 1u) << name;
    EXPECT_EQ(scatters[0]->axis_names, std::vector<std::string>{"Z"}) << name;
    EXPECT_EQ(scatters[0]->collective.array_bytes, 134217728u) << name;
    EXPECT_NEAR(scatters[0]->book.time_s, 134217728 / 1.8e11, 1e-12) << name;
  }
  // The gate's and the keys' and values' input gradients stay partial sums: the up and query products' reductions
  // add them in (one per sum, as Megatron does).
  EXPECT_TRUE(collectives(planned_op(p, "dhn_g"), CollectiveKind::reduce_scatter).empty());
  EXPECT_TRUE(collectives(planned_op(p, "dxn_kv"), CollectiveKind::reduce_scatter).empty());
  // The norms' outputs are gathered back whole over Z once (the other half of the all-reduce), for the column-parallel
  // products that read them, which need no collective on their inputs' D nor on their outputs.
  for (const char* name : {"xn_gather", "hn_gather"}) {
    const auto gathers = collectives(planned_op(p, name), CollectiveKind::all_gather);
    ASSERT_EQ(gathers.size(), 1u) << name;
    EXPECT_EQ(gathers[0]->axis_names, std::vector<std::string>{"Z"}) << name;
    EXPECT_EQ(gathers[0]->collective.array_bytes, 134217728u) << name;
  }
  for (const char* name : {"q", "kv", "hg", "hu"}) {
    EXPECT_TRUE(collectives(planned_op(p, name), CollectiveKind::reduce_scatter).empty()) << name;
    for (const PlannedStep* g : collectives(planned_op(p, name), CollectiveKind::all_gather))
      EXPECT_NE(g->axis_names, std::vector<std::string>{"Z"}) << name;
  }
}

TEST(ModelProgram, FsdpGathersWeightsAndReduceScattersTheirGradients) {
  const PlannedModel p = plan_model(small_training());
  // ZeRO-3: Wq [1024_Y, 1024_Z] is gathered over Y before its use: V = 1024 x 256 x 2 = 524,288 bytes per chip.
  const auto gathers = collectives(planned_op(p, "q"), CollectiveKind::all_gather);
  ASSERT_EQ(gathers.size(), 1u);
  EXPECT_EQ(gathers[0]->axis_names, std::vector<std::string>{"Y"});
  EXPECT_EQ(gathers[0]->collective.array_bytes, 524288u);
  // ... and once more for the backward (one checkpoint per layer: the recomputed q and dx = dq Wq^T share it).
  const auto again = collectives(planned_op(p, "Wq_gather_bwd"), CollectiveKind::all_gather);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0]->collective.array_bytes, 524288u);
  EXPECT_TRUE(collectives(planned_op(p, "q_re"), CollectiveKind::all_gather).empty());
  EXPECT_TRUE(collectives(planned_op(p, "dxn"), CollectiveKind::all_gather).empty());
  // dWq = xn^T dq: partial sums over the token axes X, Y; reduce-scattered over Y onto the fsdp shard (V = the
  // local [1024, 256] partial sums, 524,288 bytes), then all-reduced over the data axis X (V = 131,072 bytes) by
  // the accumulated gradient's own op.
  const auto scatters = collectives(planned_op(p, "dWq"), CollectiveKind::reduce_scatter);
  ASSERT_EQ(scatters.size(), 1u);
  EXPECT_EQ(scatters[0]->axis_names, std::vector<std::string>{"Y"});
  EXPECT_EQ(scatters[0]->collective.array_bytes, 524288u);
  const auto reduces = collectives(planned_op(p, "dWq_sum"), CollectiveKind::all_reduce);
  ASSERT_EQ(reduces.size(), 1u);
  EXPECT_EQ(reduces[0]->axis_names, std::vector<std::string>{"X"});
  EXPECT_EQ(reduces[0]->collective.array_bytes, 131072u);
}

TEST(ModelProgram, SequenceParallelGathersKeysAndValues) {
  const ModelProgram m = expand_model(small_model(), training(1 << 20, 2048),
                                      candidate("tpu-v5p", {4, 4, 4}, {K::fsdp, K::tensor, K::sequence}, 1), {});
  EXPECT_EQ(axes(tensor(m, "x")), (Axes{{"X", "Z"}, {"Y"}}));  // sequence minor on the tokens, D over tensor
  const auto& gather = std::get<CollectiveOp>(m.spec.find_op("kv_gather")->detail);
  EXPECT_EQ(gather.tensor, "kv");
  EXPECT_EQ(gather.axes, std::vector<std::string>{"Z"});
  EXPECT_EQ(m.spec.find_op("dkv")->kind, OpKind::reduce_scatter);
  const PlannedModel p = plan_model(m);
  // kv [2^20_XZ, 2048_Y] gathered over Z: V = 2^20 / 4 x 512 x 2 = 268,435,456 bytes.
  EXPECT_EQ(planned_op(p, "kv_gather").steps.front().collective.array_bytes, 268435456u);
}

TEST(ModelProgram, DecodeReadsEachLayersKvCache) {
  Workload w;
  w.mode = WorkloadMode::decode;
  w.batch = 16;
  w.context = 4096;
  const ModelProgram m = expand_model(small_model(), w, candidate("tpu-v5e", {4, 4}, {K::data, K::tensor}), {});
  EXPECT_EQ(tensor(m, "kv_cache").shape, (Shape{16, 4096, 8, 2 * 128}));
  EXPECT_EQ(axes(tensor(m, "kv_cache")), (Axes{{"X"}, {}, {"Y"}, {}}));
  EXPECT_EQ(m.spec.find_op("kv_read")->kind, OpKind::load);
  EXPECT_EQ(repeat(m, "kv_read"), 4);  // once per layer
  EXPECT_EQ(repeat(m, "q"), 4);
  EXPECT_EQ(tensor(m, "x").shape, (Shape{16, 1024}));  // one token per sequence
  EXPECT_DOUBLE_EQ(std::get<ElementwiseOp>(m.spec.find_op("attention")->detail).flops_per_element, 4.0 * 4096);
  // One query per sequence over the whole cache: no causal square, no attention kernel curve.
  EXPECT_EQ(std::get<ElementwiseOp>(m.spec.find_op("attention")->detail).attention, AttentionPass::none);
  EXPECT_EQ(m.spec.find_op("dWq"), nullptr);  // no backward
  EXPECT_EQ(m.spec.find_tensor("adam_Wq"), nullptr);
}

TEST(ModelProgram, MixtureOfExpertsDispatchesOverTheExpertAxes) {
  // small_moe() on 2^20 tokens, v5p 4x4x4, expert X, data Y, fsdp Z: capacity 2^20 x 2 / 4 = 2^19 slots per expert.
  const PlannedModel p = plan_model(expand_model(small_moe(), training(1 << 20, 2048),
                                                 candidate("tpu-v5p", {4, 4, 4}, {K::expert, K::data, K::fsdp}), {}));
  EXPECT_EQ(tensor(p.model, "Weg").shape, (Shape{4, 1024, 2048}));
  EXPECT_EQ(axes(tensor(p.model, "Weg")), (Axes{{"X"}, {"Z"}, {}}));
  EXPECT_EQ(axes(tensor(p.model, "Wed")), (Axes{{"X"}, {}, {"Z"}}));
  EXPECT_EQ(tensor(p.model, "xe_rows").shape, (Shape{4, 524288, 1024}));
  EXPECT_EQ(axes(tensor(p.model, "x")), (Axes{{"Y", "Z", "X"}, {}}));  // tokens over data, fsdp, expert
  // Dispatch, combine and their backwards: all-to-alls over X of each chip's [4, 2^19 / 64, 1024] bf16 slots,
  // 67,108,864 bytes, V = 4 x that; the book's one wrapped axis: V / (4 x 2 x 9e10) = 372.8 us.
  for (const char* name : {"dispatch", "combine_a2a", "combine_a2a_bwd", "dispatch_bwd"}) {
    const PlannedOp& o = planned_op(p, name);
    ASSERT_EQ(o.steps.size(), 1u) << name;
    EXPECT_EQ(o.steps[0].collective.kind, CollectiveKind::all_to_all) << name;
    EXPECT_EQ(o.steps[0].collective.array_bytes, 268435456u) << name;
    EXPECT_NEAR(o.steps[0].book.time_s, 268435456 / (4 * 1.8e11), 1e-12) << name;
  }
  // The experts' weight gradients are partial sums over the slots' axes Y, Z only (each expert's tokens are on its
  // chips): reduce-scattered over fsdp Z, all-reduced over data Y, never over X.
  const auto reduces = collectives(planned_op(p, "dWeu"), CollectiveKind::all_reduce);
  ASSERT_EQ(reduces.size(), 1u);
  EXPECT_EQ(reduces[0]->axis_names, std::vector<std::string>{"Y"});
  // A dense weight's gradient is all-reduced over the expert axis X with each microbatch, and over the data axis Y
  // once per step (gradient accumulation).
  const auto dense = collectives(planned_op(p, "dWq"), CollectiveKind::all_reduce);
  ASSERT_EQ(dense.size(), 1u);
  EXPECT_EQ(dense[0]->axis_names, (std::vector<std::string>{"X"}));
  const auto accumulated = collectives(planned_op(p, "dWq_sum"), CollectiveKind::all_reduce);
  ASSERT_EQ(accumulated.size(), 1u);
  EXPECT_EQ(accumulated[0]->axis_names, (std::vector<std::string>{"Y"}));
}

TEST(ModelProgram, GradientAccumulationAllReducesOverTheDataAxesOncePerStep) {
  // small_model() on a v5p 4x4x4 with data X, fsdp Y, tensor Z, in 4 microbatches: each weight gradient's matmul
  // runs 4 layers x 4 microbatches = 16 times and reduce-scatters over fsdp Y each time, but its all-reduce over
  // the data axis X runs once per layer per step: 4 times.
  const PlannedModel p = plan_model(small_training(4));
  for (const char* name : {"dWq", "dWkv", "dWo", "dWg", "dWu", "dWd"}) {
    const std::string sum = std::string(name) + "_sum";
    EXPECT_EQ(repeat(p.model, name), 16) << name;
    EXPECT_EQ(repeat(p.model, sum), 4) << name;
    EXPECT_TRUE(collectives(planned_op(p, name), CollectiveKind::all_reduce).empty()) << name;
    EXPECT_EQ(collectives(planned_op(p, name), CollectiveKind::reduce_scatter).size(), 1u) << name;
    const auto reduces = collectives(planned_op(p, sum), CollectiveKind::all_reduce);
    ASSERT_EQ(reduces.size(), 1u) << name;
    EXPECT_EQ(reduces[0]->axis_names, std::vector<std::string>{"X"}) << name;
  }
  // Wq is [1024, 8 x 128] with D over fsdp Y and the heads over tensor Z: a 256 x 256 bf16 shard per chip, the
  // all-reduce's V = 131,072 bytes.
  EXPECT_EQ(collectives(planned_op(p, "dWq_sum"), CollectiveKind::all_reduce)[0]->collective.array_bytes, 131072u);
  // The unembedding's and the embedding's gradients: once per step too.
  EXPECT_EQ(repeat(p.model, "dWun"), 4);
  EXPECT_EQ(repeat(p.model, "dWun_sum"), 1);
  EXPECT_EQ(repeat(p.model, "demb_data_sum"), 1);
  // So the data all-reduces of a step cost the same whatever the microbatches.
  auto data_sums = [](const PlannedModel& planned) {
    double total = 0;
    for (std::size_t i = 0; i < planned.program.ops.size(); ++i) {
      const std::string& name = planned.program.ops[i].name;
      if (name.size() > 4 && (name.ends_with("_sum") || name == "demb_data_sum"))
        total += planned.program.ops[i].book_time_s * static_cast<double>(planned.model.repeats[i]);
    }
    return total;
  };
  EXPECT_NEAR(data_sums(p), data_sums(plan_model(small_training(1))), 1e-12);
}

TEST(ModelProgram, AWrittenMeshWithAnAxisOverTwoSliceDims) {
  // Mesh data=4 over slice dim 0, model=16 over dims 1 and 2 of a v5p 4x4x4: tensor parallelism over 16 chips.
  Candidate c = candidate("tpu-v5p", {4, 4, 4}, {});
  c.mesh.mesh = make_mesh({{"data", 4}, {"model", 16}});
  c.mesh.axis_dims = {{0}, {1, 2}};
  c.parallelism.of(K::data) = {"data"};
  c.parallelism.of(K::tensor) = {"model"};
  TransformerDims dims = small_model();
  dims.heads = 16;
  dims.kv_heads = 16;
  dims.head_dim = 64;
  const PlannedModel p = plan_model(expand_model(dims, training(1 << 20, 2048), c, {}));
  EXPECT_EQ(axes(tensor(p.model, "Wq")), (Axes{{}, {"model"}}));
  // The row-parallel reduce-scatter runs over "model", i.e. over slice dims 1 and 2 (two wrapped axes of 4): V =
  // 2^20 / 4 tokens x 1024 x 2 = 536,870,912 bytes; V / (2 x 1.8e11).
  const auto scatters = collectives(planned_op(p, "o"), CollectiveKind::reduce_scatter);
  ASSERT_EQ(scatters.size(), 1u);
  EXPECT_EQ(scatters[0]->collective.array_bytes, 536870912u);
  EXPECT_NEAR(scatters[0]->book.time_s, 536870912 / (2 * 1.8e11), 1e-12);
}

// The compute step of a planned matmul op.
const PlannedStep& compute_step(const PlannedOp& op) {
  for (const auto& step : op.steps)
    if (step.kind == StepKind::compute) return step;
  throw std::runtime_error("no compute step in " + op.name);
}

TEST(ModelProgram, Int8TrainingRunsTheLayersMatmulsAtTheInt8PeakAndTheLogitsAtBf16) {
  // small_model() training on 32,768 tokens (T 2048) on a v5e 2x2, data over X and Y: 8192 tokens per chip, weights
  // whole. v5e peaks: bf16 1.97e14, int8 3.94e14 FLOP/s; HBM 8.2e11 B/s.
  Workload w = training(32768, 2048);
  w.quantization = Quantization::int8;
  const PlannedModel p =
      plan_model(expand_model(small_model(), w, candidate("tpu-v5e", {2, 2}, {K::data, K::data}), {}));
  // The MLP's up projection and both its backward products are 2 x 8192 x 1024 x 4096 = 68,719,476,736 FLOPs each
  // (hu: [8192, 1024] @ [1024, 4096]; dhn: [8192, 4096] @ [4096, 1024]; dWu: [1024, 8192] @ [8192, 4096]), at the
  // int8 peak: / 3.94e14 = 174.415 us. Each moves 16 MiB + 8 MiB + 64 MiB = 92,274,688 bytes in bf16 (the
  // quantization happens on the way to the MXU), / 8.2e11 = 112.53 us: compute-bound, 174.415 us.
  for (const char* name : {"hu", "dhn", "dWu"}) {
    const PlannedOp& op = planned_op(p, name);
    const PlannedStep& step = compute_step(op);
    EXPECT_NEAR(step.compute_s, 174.415e-6, 1e-9) << name;
    EXPECT_DOUBLE_EQ(step.hbm_bytes, 92274688.0) << name;
    EXPECT_NEAR(op.compute_time_s, 174.415e-6, 1e-9) << name;
    EXPECT_EQ(op.bound, Bound::compute) << name;
  }
  // The logits stay bf16: 2 x 8192 x 1024 x 32768 = 549,755,813,888 FLOPs / 1.97e14 = 2.790639 ms.
  EXPECT_NEAR(compute_step(planned_op(p, "logits")).compute_s, 2.790639e-3, 1e-9);
  // Without quantization the up projection takes twice as long: 68,719,476,736 / 1.97e14 = 348.830 us.
  const PlannedModel bf16 = plan_model(
      expand_model(small_model(), training(32768, 2048), candidate("tpu-v5e", {2, 2}, {K::data, K::data}), {}));
  EXPECT_NEAR(compute_step(planned_op(bf16, "hu")).compute_s, 348.830e-6, 1e-9);
  // The weights stay stored in bf16 (param_dtype): quantization changes no memory.
  EXPECT_EQ(tensor(p.model, "Wu").dtype, DType::bf16);
}

TEST(ModelProgram, FusedElementwiseOpsMoveEveryArrayTheyReadAndWriteOnce) {
  // small_model() (gated MLP, D 1024, F 4096) training on 32,768 tokens on a v5e 2x2, data over X and Y: 8192 tokens
  // per chip, nothing else sharded. A [8192, 1024] bf16 array is 16 MiB per chip, a [8192, 4096] one 64 MiB.
  const PlannedModel p = plan_model(
      expand_model(small_model(), training(32768, 2048), candidate("tpu-v5e", {2, 2}, {K::data, K::data}), {}));
  const double d_array = 8192.0 * 1024 * 2, f_array = 8192.0 * 4096 * 2;
  // norm2: reads x and o, writes h = x + o and hn; norm1 likewise with the layer before's stream and MLP output.
  EXPECT_DOUBLE_EQ(compute_step(planned_op(p, "norm2")).hbm_bytes, 4 * d_array);
  EXPECT_DOUBLE_EQ(compute_step(planned_op(p, "norm1")).hbm_bytes, 4 * d_array);
  // The SiLU gate: reads hg and hu, writes g; its backward reads dg, hg and hu and writes both gradients.
  EXPECT_DOUBLE_EQ(compute_step(planned_op(p, "act")).hbm_bytes, 3 * f_array);
  EXPECT_DOUBLE_EQ(compute_step(planned_op(p, "act_bwd")).hbm_bytes, 5 * f_array);
  // A norm's backward: reads its output's gradient, its input and the stream's gradient, writes one gradient.
  EXPECT_DOUBLE_EQ(compute_step(planned_op(p, "norm2_bwd")).hbm_bytes, 4 * d_array);
  EXPECT_DOUBLE_EQ(compute_step(planned_op(p, "norm1_bwd")).hbm_bytes, 4 * d_array);
  // At v5e's 8.2e11 B/s: 64 MiB / 8.2e11 = 81.840 us for a norm, 192 MiB = 245.520 us for the gate.
  EXPECT_NEAR(compute_step(planned_op(p, "norm2")).memory_s, 81.840e-6, 1e-9);
  EXPECT_NEAR(planned_op(p, "act").compute_time_s, 245.520e-6, 1e-9);
  // The loss reads and writes its logits once: 2 x 8192 x 32768 x 2 bytes.
  EXPECT_DOUBLE_EQ(compute_step(planned_op(p, "loss")).hbm_bytes, 2 * 8192.0 * 32768 * 2);
}

TEST(ModelProgram, Int8DecodeReadsOneBytePerWeightAndComputesAtTheInt8Peak) {
  // Decode of 16 sequences on a v5e 2x2, data over X and Y: 4 tokens per chip. The query projection [4, 1024] @
  // [1024, 1024]: 2 x 4 x 1024 x 1024 = 8,388,608 FLOPs, / 3.94e14 = 21.291 ns with quantization int8 (42.582 ns at
  // bf16). Bytes: x 4 x 1024 x 2 = 8192, the int8 weight 1024 x 1024 x 1 = 1,048,576, y 8192: 1,064,960 bytes,
  // / 8.2e11 = 1.298732 us: memory-bound.
  Workload w;
  w.mode = WorkloadMode::decode;
  w.batch = 16;
  w.context = 4096;
  w.weight_dtype = DType::int8;
  w.quantization = Quantization::int8;
  const PlannedModel p =
      plan_model(expand_model(small_model(), w, candidate("tpu-v5e", {2, 2}, {K::data, K::data}), {}));
  const PlannedStep& q = compute_step(planned_op(p, "q"));
  EXPECT_NEAR(q.compute_s, 21.291e-9, 1e-12);
  EXPECT_DOUBLE_EQ(q.hbm_bytes, 1064960.0);
  EXPECT_NEAR(q.memory_s, 1.298732e-6, 1e-12);
  EXPECT_EQ(q.bound, Bound::memory);
}

TEST(ModelProgram, Fp8OnAChipWithoutAnFp8PeakIsAnError) {
  // v5e's preset has bf16, int8 and int4 peaks, no fp8: the first quantized matmul names the missing figure.
  Workload w = training(32768, 2048);
  w.quantization = Quantization::fp8;
  try {
    plan_model(expand_model(small_model(), w, candidate("tpu-v5e", {2, 2}, {K::data, K::data}), {}));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("chip \"tpu-v5e\" has no peak FLOP/s figure for fp8_e4m3"), std::string::npos)
        << e.what();
  }
}

TEST(ModelProgram, ANonDividingAssignmentThrowsTheFitRule) {
  try {
    expand_model(small_model(), training(1 << 20, 2048),
                 candidate("tpu-v5p", {4, 4, 4}, {K::tensor, K::tensor, K::data}), {});
    FAIL() << "expected VerifyError";
  } catch (const VerifyError& e) {
    EXPECT_STREQ(e.what(), "heads (8) must be a multiple of the tensor axes X,Y (16)");
  }
}

}  // namespace
}  // namespace podsim
