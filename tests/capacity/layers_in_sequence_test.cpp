// The des of a candidate without pipeline stages (docs/capacity.md, "Overlap in the step"): the step's layers written
// out in sequence (layer_stretch), simulated under dataflow-hbm, two layers and then three, the layers past the second
// at the steady state the third adds. The stretch's order is the loop's; two layers give the step that every layer in
// sequence gives; a layer's weight gathers hide under its neighbour's compute, so the des step lies between the compute
// alone and the book's sum.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "capacity_test_helpers.hpp"
#include "sim/capacity/layer_stretch.hpp"

namespace podsim {
namespace {

using namespace capacity_test;
using K = ParallelKind;

const ScenarioOp& op_named(const LayerStretch& s, const std::string& name) {
  for (const auto& op : s.spec.program)
    if (op.name == name) return op;
  throw std::runtime_error("no op " + name);
}

bool has_after(const ScenarioOp& op, const std::string& name) {
  return std::find(op.after.begin(), op.after.end(), name) != op.after.end();
}

const ScenarioTensor& tensor_named(const LayerStretch& s, const std::string& name) {
  for (const auto& t : s.spec.tensors)
    if (t.name == name) return t;
  throw std::runtime_error("no tensor " + name);
}

TEST(LayerStretch, WritesEachLayerWithItsOwnWeightsInTheLoopsOrder) {
  // small_model, FSDP over Y and data over X of a v5e 2x4, one microbatch, no remat.
  const CapacityProblem p = problem(small_model(), training(1 << 16, 2048));
  const ModelProgram model = expand_candidate(p, candidate("tpu-v5e", {2, 4}, {K::data, K::fsdp}));
  const LayerStretch s = layer_stretch(model, 3, false);
  std::size_t layer_ops = 0, edge_ops = 0, layer_updates = 0, edge_updates = 0;
  for (std::size_t i = 0; i < model.spec.program.size(); ++i) {
    const bool layer = model.roles[i].place == ModelPlace::layer;
    (layer ? layer_ops : edge_ops) += 1;
    if (model.spec.program[i].name.rfind("adam_", 0) == 0) (layer ? layer_updates : edge_updates) += 1;
  }
  // Every layer op three times (the layer's optimizer updates too), every edge op once; the tail holds the updates
  // only (one microbatch: each gradient's all-reduce over the data axis right after it).
  EXPECT_EQ(s.spec.program.size(), 3 * layer_ops + edge_ops);
  ASSERT_EQ(s.source.size(), s.spec.program.size());
  EXPECT_GE(layer_updates, 5u);  // Wq, Wkv, Wo, the MLP's
  EXPECT_EQ(static_cast<std::size_t>(std::count(s.tail.begin(), s.tail.end(), true)), 3 * layer_updates + edge_updates);
  // Each copy reads its own weight, declared as the model's state; the layer input is an activation (transient).
  EXPECT_EQ(std::get<MatmulOp>(op_named(s, "q_l2").detail).rhs, "Wq_l2");
  EXPECT_FALSE(tensor_named(s, "Wq_l2").transient);
  EXPECT_TRUE(tensor_named(s, "x_l2").transient);
  EXPECT_FALSE(tensor_named(s, "emb").transient);
  // The loop's order: the same op of the copy before; the next layer's input after the layer before's output; the
  // backwards from the last layer to the first.
  EXPECT_TRUE(has_after(op_named(s, "norm1_l2"), "y_l1"));
  // At most one block ahead: the third layer's ops after the first layer's forward (their gathers overlap the
  // second's compute), and not after the second's (they may start with it).
  EXPECT_TRUE(has_after(op_named(s, "q_l3"), "y_l1"));
  EXPECT_FALSE(has_after(op_named(s, "q_l3"), "q_l2"));
  EXPECT_EQ(s.spec.program[s.forward_end[0]].name, "y_l1");
  EXPECT_EQ(s.spec.program[s.forward_end[2]].name, "y_l3");
  ASSERT_EQ(s.backward_end.size(), 3u);
  EXPECT_EQ(s.spec.program[s.backward_end[2]].name, "norm1_bwd_l3");
  EXPECT_GT(s.backward_end[0], s.backward_end[1]) << "the first layer's backward runs last";
  EXPECT_GT(s.backward_end[1], s.backward_end[2]);
  // The first op of the last layer's backward reads the gradient the loss sent back.
  EXPECT_TRUE(has_after(op_named(s, "dWd_l3"), "dhf") || has_after(op_named(s, "dy_gather_l3"), "dhf"));
  // An optimizer update runs after its own gradient (and after the last microbatch).
  EXPECT_TRUE(has_after(op_named(s, "adam_Wq_l2"), "dWq_sum_l2"));
}

TEST(LayersInSequence, TwoLayersGiveTheStepOfEveryLayerInSequence) {
  // small_model's four layers: the step from the first two and three (the rest at their steady state) against all four
  // in sequence, training with one and with two microbatches (the gradients' all-reduces then run once per step, in the
  // tail) and FSDP over the slice's larger axis, so that gathers and reductions overlap compute.
  for (const std::int64_t microbatches : {1, 2}) {
    const CapacityProblem p = problem(small_model(), training(1 << 16, 2048));
    const Candidate c = uncalibrated(candidate("tpu-v5e", {2, 4}, {K::data, K::fsdp}, 0, microbatches));
    CandidateResult two = evaluate_candidate_book(p, c);
    ASSERT_FALSE(two.rejected) << *two.rejected;
    CandidateResult all = two;
    simulate_candidate(p, two);
    simulate_candidate(p, all, nullptr, CandidateSimulation{4});
    ASSERT_TRUE(two.des_step_s && all.des_step_s && two.des_breakdown && all.des_breakdown);
    EXPECT_NEAR(*two.des_step_s / *all.des_step_s, 1.0, 0.01) << microbatches << " microbatches";
    EXPECT_NEAR(two.des_breakdown->compute_s / all.des_breakdown->compute_s, 1.0, 0.01);
    // The parts add up to the step.
    EXPECT_NEAR(two.des_breakdown->total(), *two.des_step_s, 1e-9 * *two.des_step_s);
  }
}

// The two stretches on two threads (the plan search's spare core) give the doubles of one thread: the runs share
// nothing. With one and two microbatches (a tail of once-per-step reductions).
TEST(LayersInSequence, TheTwoStretchesAtOnceGiveTheSameStep) {
  const CapacityProblem p = problem(small_model(), training(1 << 16, 2048));
  for (const std::int64_t microbatches : {1, 2}) {
    const Candidate c = uncalibrated(candidate("tpu-v5e", {2, 4}, {K::data, K::fsdp}, 0, microbatches));
    CandidateResult one = evaluate_candidate_book(p, c);
    ASSERT_FALSE(one.rejected) << *one.rejected;
    CandidateResult both = one;
    simulate_candidate(p, one);
    CandidateSimulation how;
    how.stretches_at_once = true;
    simulate_candidate(p, both, nullptr, how);
    ASSERT_TRUE(one.des_step_s && both.des_step_s && one.des_breakdown && both.des_breakdown);
    EXPECT_EQ(*one.des_step_s, *both.des_step_s) << microbatches << " microbatches";
    EXPECT_EQ(one.des_breakdown->compute_s, both.des_breakdown->compute_s);
    EXPECT_EQ(one.des_breakdown->exposed_communication_s, both.des_breakdown->exposed_communication_s);
    EXPECT_EQ(one.des_op_s, both.des_op_s);
  }
}

TEST(LayersInSequence, ADecodeStepsLayersFollowEachOther) {
  // Serving has no backward: the stretch is the embedding, the layers' forwards and the logits.
  Workload w;
  w.mode = WorkloadMode::decode;
  w.batch = 64;
  w.context = 2048;
  const CapacityProblem p = problem(small_model(), w);
  const Candidate c = uncalibrated(candidate("tpu-v5e", {2, 4}, {K::data, K::tensor}));
  CandidateResult two = evaluate_candidate_book(p, c);
  ASSERT_FALSE(two.rejected) << *two.rejected;
  CandidateResult all = two;
  simulate_candidate(p, two);
  simulate_candidate(p, all, nullptr, CandidateSimulation{4});
  ASSERT_TRUE(two.des_step_s && all.des_step_s);
  EXPECT_NEAR(*two.des_step_s / *all.des_step_s, 1.0, 0.01);
}

TEST(LayersInSequence, FsdpGathersHideUnderTheNeighbouringLayersCompute) {
  // small_model with FSDP over all 8 chips of a v5e 2x4 (X and Y), at 4 and at 16 layers. Per layer, the forward
  // gathers Wq, Wkv, Wo, Wg, Wu, Wd (1024 x (1024 + 2048 + 1024) + 3 x 1024 x 4096 = 16.8 M parameters, 33.6 MB in
  // bf16, each chip receiving 7/8 of it), the backward gathers them again and reduce-scatters their gradients: about
  // 3 x 29.4 MB over the chip's links per layer. The compute is 6 x 16.8 M x 8192 tokens = 0.82 TFLOP per chip per
  // layer (plus attention), 4.2 ms at v5e's 197 TFLOP/s, longer than those collectives: past the first layer, each
  // layer's gathers run under the layer before it and its reductions under the backward after it. So the twelve
  // layers more add their compute and no exposed communication, where the book adds both.
  CandidateResult r[2];
  const std::int64_t layers[2] = {4, 16};
  for (int i = 0; i < 2; ++i) {
    TransformerDims dims = small_model();
    dims.layers = layers[i];
    const CapacityProblem p = problem(dims, training(1 << 16, 2048));
    r[i] = evaluate_candidate_book(p, uncalibrated(candidate("tpu-v5e", {2, 4}, {K::fsdp, K::fsdp})));
    ASSERT_FALSE(r[i].rejected) << *r[i].rejected;
    simulate_candidate(p, r[i]);
    ASSERT_TRUE(r[i].des_step_s && r[i].des_breakdown);
  }
  const double book_compute = (r[1].breakdown.compute_s + r[1].breakdown.hbm_s) -
                              (r[0].breakdown.compute_s + r[0].breakdown.hbm_s);  // twelve layers'
  ASSERT_GT(r[1].breakdown.ici_s - r[0].breakdown.ici_s, 0.1 * book_compute) << "the book adds their collectives";
  EXPECT_NEAR(r[1].des_breakdown->exposed_communication_s, r[0].des_breakdown->exposed_communication_s,
              0.01 * book_compute);
  EXPECT_NEAR((*r[1].des_step_s - *r[0].des_step_s) / book_compute, 1.0, 0.05);
  EXPECT_LT(*r[1].des_step_s, r[1].book_step_s);
}

}  // namespace
}  // namespace podsim
