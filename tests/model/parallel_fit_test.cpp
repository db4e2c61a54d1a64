// The divisibility rules of a parallelism assignment (docs/parallelism.md, "Constraints"), each on its message.
#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "models/model/parallel_fit.hpp"
#include "tests/support/model_dims.hpp"

namespace podsim {
namespace {

using test::llama3_70b;

Mesh mesh_4x4x8() {
  return make_mesh({{"X", 4}, {"Y", 4}, {"Z", 8}});
}

Workload train(std::uint64_t tokens, std::int64_t microbatches = 1) {
  Workload w;
  w.batch_tokens = tokens;
  w.seq_len = 4096;
  w.microbatches = microbatches;
  return w;
}

Parallelism assign(std::vector<std::pair<ParallelKind, std::string>> axes) {
  Parallelism p;
  for (const auto& [kind, axis] : axes)
    p.of(kind).push_back(axis);
  return p;
}

std::string message(const TransformerDims& dims, const Workload& w, const Parallelism& p) {
  try {
    verify_parallel_fit(dims, w, p, mesh_4x4x8());
  } catch (const VerifyError& e) {
    return e.what();
  }
  return "";
}

using K = ParallelKind;

TEST(ParallelFit, AFittingAssignmentPasses) {
  EXPECT_EQ(message(llama3_70b(), train(4194304), assign({{K::data, "X"}, {K::fsdp, "Y"}, {K::tensor, "Z"}})), "");
}

TEST(ParallelFit, HeadsMustDivideByTheTensorAxes) {
  EXPECT_EQ(message(llama3_70b(), train(4194304), assign({{K::tensor, "X"}, {K::tensor, "Y"}, {K::tensor, "Z"}})),
            "heads (64) must be a multiple of the tensor axes X,Y,Z (128)");
}

TEST(ParallelFit, DffMustDivideByTheTensorAxes) {
  TransformerDims d = llama3_70b();
  d.d_ff = 28676;  // 4 x 7169: not a multiple of 8
  EXPECT_EQ(message(d, train(4194304), assign({{K::tensor, "Z"}})),
            "d_ff (28676) must be a multiple of the tensor axes Z (8)");
}

TEST(ParallelFit, LayersMustDivideByThePipelineAxes) {
  // 80 layers: 4 stages (X) and 16 (X, Y) divide them, 128 (X, Y, Z) do not.
  EXPECT_EQ(message(llama3_70b(), train(4194304), assign({{K::pipeline, "X"}, {K::fsdp, "Z"}})), "");
  EXPECT_EQ(message(llama3_70b(), train(4194304), assign({{K::pipeline, "X"}, {K::pipeline, "Y"}})), "");
  EXPECT_EQ(message(llama3_70b(), train(4194304), assign({{K::pipeline, "X"}, {K::pipeline, "Y"}, {K::pipeline, "Z"}})),
            "layers (80) must be a multiple of the pipeline axes X,Y,Z (128)");
}

TEST(ParallelFit, PipelineStagesApplyToTraining) {
  Workload decode;
  decode.mode = WorkloadMode::decode;
  decode.batch = 64;
  decode.context = 1024;
  EXPECT_EQ(message(llama3_70b(), decode, assign({{K::pipeline, "X"}})),
            "pipeline axes X: pipeline stages apply to training steps; assign the axes to another kind");
}

TEST(ParallelFit, DModelMustDivideByTheFsdpAxes) {
  TransformerDims d = llama3_70b();
  d.d_model = 8196;
  d.heads = 1;
  EXPECT_EQ(message(d, train(4194304), assign({{K::fsdp, "Z"}})),
            "d_model (8196) must be a multiple of the fsdp axes Z (8)");
}

TEST(ParallelFit, TokensPerMicrobatchMustDivideByTheBatchAxes) {
  // 4096 tokens in 4 microbatches: 1024 per microbatch, on 4 x 4 x 8 = 128 chips: 8 each. 96 tokens do not.
  EXPECT_EQ(message(llama3_70b(), train(4096, 4), assign({{K::data, "X"}, {K::fsdp, "Y"}, {K::sequence, "Z"}})), "");
  EXPECT_EQ(message(llama3_70b(), train(96), assign({{K::data, "X"}, {K::fsdp, "Y"}, {K::sequence, "Z"}})),
            "tokens per microbatch (96) must be a multiple of the data, fsdp, expert and sequence axes X,Y,Z (128)");
  EXPECT_EQ(message(llama3_70b(), train(4096, 3), assign({{K::data, "X"}})),
            "batch_tokens (4096) must be a multiple of microbatches (3)");
}

TEST(ParallelFit, SeqLenMustDivideByTheSequenceAxes) {
  Workload w = train(1 << 20);
  w.seq_len = 4100;
  EXPECT_EQ(message(llama3_70b(), w, assign({{K::sequence, "Z"}})),
            "seq_len (4100) must be a multiple of the sequence axes Z (8)");
}

TEST(ParallelFit, ServingRules) {
  Workload decode;
  decode.mode = WorkloadMode::decode;
  decode.batch = 12;
  decode.context = 4096;
  EXPECT_EQ(message(llama3_70b(), decode, assign({{K::data, "Z"}})),
            "batch (12) must be a multiple of the data, fsdp and expert axes Z (8)");
  EXPECT_EQ(message(llama3_70b(), decode, assign({{K::sequence, "Z"}})),
            "sequence axes Z: decode processes one token per sequence; assign the axes to another kind");
  Workload prefill = decode;
  prefill.mode = WorkloadMode::prefill;
  prefill.batch = 8;
  prefill.context = 102;
  EXPECT_EQ(message(llama3_70b(), prefill, assign({{K::data, "Z"}, {K::sequence, "X"}})),
            "context (102) must be a multiple of the sequence axes X (4)");
}

TEST(ParallelFit, ExpertAxesNeedAMixtureOfExperts) {
  EXPECT_EQ(message(llama3_70b(), train(4194304), assign({{K::expert, "X"}})),
            "expert axes X need a mixture-of-experts model (experts > 1), got: experts 1");
}

TEST(ParallelFit, ExpertsMustDivideByTheExpertAxes) {
  TransformerDims moe = llama3_70b();
  moe.experts = 8;
  moe.experts_per_token = 2;
  EXPECT_EQ(message(moe, train(4194304), assign({{K::expert, "Z"}, {K::data, "X"}})), "");
  EXPECT_EQ(message(moe, train(4194304), assign({{K::expert, "X"}, {K::expert, "Z"}})),
            "experts (8) must be a multiple of the expert axes X,Z (32)");
  // Expert axes shard the tokens too, between fsdp and sequence.
  EXPECT_EQ(batch_axes(assign({{K::sequence, "X"}, {K::expert, "Y"}, {K::data, "Z"}})),
            (std::vector<std::string>{"Z", "Y", "X"}));
}

TEST(ParallelFit, CountsAreAtLeastOne) {
  EXPECT_EQ(message(llama3_70b(), train(0), assign({})), "batch_tokens must be at least 1, got: 0");
  Workload decode;
  decode.mode = WorkloadMode::decode;
  decode.batch = 8;
  decode.context = 0;
  EXPECT_EQ(message(llama3_70b(), decode, assign({})), "context must be at least 1, got: 0");
}

TEST(ParallelFit, TheAssignmentRulesComeFirst) {
  EXPECT_EQ(message(llama3_70b(), train(4194304), assign({{K::data, "X"}, {K::tensor, "X"}})),
            "mesh axis \"X\" is assigned twice: to data and to tensor");
}

TEST(ParallelFit, KvHeadsShardOverTheLongestDividingPrefix) {
  // 8 KV heads: X (4) divides, X,Z (32) does not.
  const Parallelism p = assign({{K::tensor, "X"}, {K::tensor, "Z"}});
  EXPECT_EQ(kv_tensor_axes(p, mesh_4x4x8(), 8), std::vector<std::string>{"X"});
  EXPECT_EQ(kv_tensor_axes(p, mesh_4x4x8(), 32), (std::vector<std::string>{"X", "Z"}));
  EXPECT_EQ(batch_axes(assign({{K::sequence, "X"}, {K::fsdp, "Y"}, {K::data, "Z"}})),
            (std::vector<std::string>{"Z", "Y", "X"}));
}

}  // namespace
}  // namespace podsim
