// Transformer accounting against numbers worked by hand from the formulas of docs/models.md and against the
// published exact counts: LLaMA 3 70B (70,553,706,496 parameters, Hugging Face) and Mixtral 8x7B (46.7B in total,
// 12.9B active per token, as Mistral states them).
#include <gtest/gtest.h>

#include "models/model/transformer.hpp"
#include "tests/support/model_dims.hpp"

namespace podsim {
namespace {

using test::llama3_70b;
using test::mixtral_8x7b;

TEST(Transformer, Llama3_70bParametersByKind) {
  const ParamCounts p = count_params(llama3_70b());
  // 80 x (2 x 8192 x 64 x 128 + 2 x 8192 x 8 x 128) = 80 x 150,994,944.
  EXPECT_EQ(p.attention, 12079595520u);
  // 80 x 3 x 8192 x 28672.
  EXPECT_EQ(p.mlp, 56371445760u);
  // Untied: 2 x 128256 x 8192.
  EXPECT_EQ(p.embedding, 2101346304u);
  // (2 x 80 + 1) x 8192.
  EXPECT_EQ(p.norms, 1318912u);
  // The Hugging Face count of meta-llama/Meta-Llama-3-70B.
  EXPECT_EQ(p.total, 70553706496u);
  EXPECT_EQ(p.active, p.total);
}

TEST(Transformer, Llama3_70bFlopsKvAndTrainingState) {
  const TransformerDims d = llama3_70b();
  const FlopsPerToken f = flops_per_token(d, 4096);
  EXPECT_DOUBLE_EQ(f.forward, 2.0 * 70553706496.0);
  EXPECT_DOUBLE_EQ(f.train, 6.0 * 70553706496.0);
  // Attention products in training: 12 x 80 layers x 4096 tokens x 64 heads x 128 = 32,212,254,720 per token.
  EXPECT_DOUBLE_EQ(f.train_with_attention, 6.0 * 70553706496.0 + 32212254720.0);
  EXPECT_DOUBLE_EQ(f.forward_with_attention, 2.0 * 70553706496.0 + 32212254720.0 / 3);
  // 2 x 80 x 8 x 128 bf16 values.
  EXPECT_EQ(kv_cache_bytes_per_token(d, DType::bf16), 327680u);
  EXPECT_EQ(kv_cache_bytes_per_token(d, DType::int8), 163840u);

  TrainingSetup setup;
  setup.batch_tokens = 4194304;
  setup.remat.checkpoints_per_layer = 2;
  const TrainingState s = training_state_bytes(d, setup);
  EXPECT_EQ(s.params, 2u * 70553706496u);
  EXPECT_EQ(s.grads, 2u * 70553706496u);
  EXPECT_EQ(s.optimizer, 8u * 70553706496u);
  // 2 checkpoints x 4,194,304 tokens x 8192 x 2 bytes x 80 layers = 10 TiB.
  EXPECT_EQ(s.activations, 10u * (std::uint64_t{1} << 40));
  EXPECT_EQ(s.total, 12u * 70553706496u + 10u * (std::uint64_t{1} << 40));
  setup.master_weights = true;
  setup.remat.checkpoints_per_layer = 0;  // no remat: 20 [tokens, d_model] tensors per layer
  const TrainingState full = training_state_bytes(d, setup);
  EXPECT_EQ(full.optimizer, 12u * 70553706496u);
  EXPECT_EQ(full.activations, 100u * (std::uint64_t{1} << 40));
}

// Adam's state per parameter: two fp32 moments, 2 x 4 = 8 bytes; with master weights an fp32 copy more, 12.
TEST(Transformer, OptimizerBytesPerParameter) {
  EXPECT_EQ(optimizer_bytes_per_param(false), 8u);
  EXPECT_EQ(optimizer_bytes_per_param(true), 12u);
}

TEST(Transformer, MixtralCountsEveryExpertButActivatesTwo) {
  const ParamCounts p = count_params(mixtral_8x7b());
  // 32 x (2 x 4096 x 4096 + 2 x 4096 x 1024).
  EXPECT_EQ(p.attention, 1342177280u);
  // 32 x (8 experts x 3 x 4096 x 14336 + a 4096 x 8 router).
  EXPECT_EQ(p.mlp, 45098205184u);
  EXPECT_EQ(p.embedding, 262144000u);
  EXPECT_EQ(p.total, 46702792704u);  // "46.7B"
  // Six of the eight experts skipped per layer: 32 x 6 x 176,160,768 fewer.
  EXPECT_EQ(p.active, 12879925248u);  // "12.9B active"
  EXPECT_DOUBLE_EQ(flops_per_token(mixtral_8x7b(), 1).forward, 2.0 * 12879925248.0);
  EXPECT_DOUBLE_EQ(flops_per_token(mixtral_8x7b(), 1).forward_with_attention,
                   2.0 * 12879925248.0 + 4.0 * 32 * 32 * 128);
}

TEST(Transformer, TiedEmbeddingsAndPlainMlp) {
  TransformerDims d;  // GPT-3 175B
  d.layers = 96;
  d.d_model = 12288;
  d.d_ff = 4 * 12288;
  d.heads = 96;
  d.kv_heads = 96;
  d.head_dim = 128;
  d.vocab = 50257;
  d.tied_embeddings = true;
  d.mlp = MlpKind::plain;
  const ParamCounts p = count_params(d);
  EXPECT_EQ(p.attention, 57982058496u);  // 96 x 4 x 12288^2
  EXPECT_EQ(p.mlp, 115964116992u);       // 96 x 2 x 12288 x 49152
  EXPECT_EQ(p.embedding, 617558016u);    // 50257 x 12288, once: tied
  // 12 L D^2 + V D + norms: 173,946,175,488 + 617,558,016 + 2,371,584 = 174,566,105,088 ("175B").
  EXPECT_EQ(p.total, 174566105088u);
}

TEST(Transformer, DimsRulesNameTheField) {
  TransformerDims d = llama3_70b();
  d.kv_heads = 24;
  try {
    verify_dims(d);
    FAIL();
  } catch (const DimsError& e) {
    EXPECT_EQ(e.field(), DimsField::kv_heads);
    EXPECT_STREQ(e.what(), "heads (64) must be a multiple of kv_heads, got: 24");
  }
  d = llama3_70b();
  d.layers = 0;
  try {
    verify_dims(d);
    FAIL();
  } catch (const DimsError& e) {
    EXPECT_EQ(dims_field_name(e.field()), "layers");
    EXPECT_STREQ(e.what(), "must be >= 1, got: 0");
  }
  d = mixtral_8x7b();
  d.experts_per_token = 9;
  EXPECT_THROW(verify_dims(d), DimsError);
  EXPECT_EQ(parse_mlp_kind("Gated"), MlpKind::gated);
  EXPECT_THROW(parse_mlp_kind("swiglu"), VerifyError);
}

}  // namespace
}  // namespace podsim
