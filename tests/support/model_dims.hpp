// Published model dims written in code, for the tests and benchmarks that cannot (or need not) read the presets of
// configs/models/ (the benchmarks link no JSON). Each is the preset's figures; the preset files cite the sources.
#pragma once

#include "models/model/transformer.hpp"

namespace podsim::test {

// Meta Llama 3 70B (configs/models/llama3-70b.json).
inline TransformerDims llama3_70b() {
  TransformerDims d;
  d.layers = 80;
  d.d_model = 8192;
  d.d_ff = 28672;
  d.heads = 64;
  d.kv_heads = 8;
  d.head_dim = 128;
  d.vocab = 128256;
  return d;
}

// Meta Llama 3 8B (configs/models/llama3-8b.json).
inline TransformerDims llama3_8b() {
  TransformerDims d = llama3_70b();
  d.layers = 32;
  d.d_model = 4096;
  d.d_ff = 14336;
  d.heads = 32;
  return d;
}

// Mixtral 8x7B (configs/models/mixtral-8x7b.json): Llama 3 8B's attention and MLP shapes, 8 experts, 2 per token.
inline TransformerDims mixtral_8x7b() {
  TransformerDims d = llama3_8b();
  d.vocab = 32000;
  d.experts = 8;
  d.experts_per_token = 2;
  return d;
}

}  // namespace podsim::test
