// Transformer accounting speed (issue 9's target: a model's figures in well under 1 ms): parameters, FLOPs, KV cache
// and training state of LLaMA 3 70B per call.
#include <benchmark/benchmark.h>

#include "models/model/transformer.hpp"
#include "tests/support/model_dims.hpp"

namespace {

void BM_DescribeLlama3_70b(benchmark::State& state) {
  const podsim::TransformerDims d = podsim::test::llama3_70b();
  podsim::TrainingSetup setup;
  setup.batch_tokens = 4194304;
  setup.remat.checkpoints_per_layer = 2;
  for (auto _ : state) {
    podsim::verify_dims(d);
    benchmark::DoNotOptimize(podsim::count_params(d));
    benchmark::DoNotOptimize(podsim::flops_per_token(d, 4096));
    benchmark::DoNotOptimize(podsim::kv_cache_bytes_per_token(d, podsim::DType::bf16));
    benchmark::DoNotOptimize(podsim::training_state_bytes(d, setup));
  }
}
BENCHMARK(BM_DescribeLlama3_70b);

}  // namespace

BENCHMARK_MAIN();
