// Capacity planning speed (issue 9's targets): the closed-form evaluation of one candidate, LLaMA 3 70B training on a
// 16x16x16 v5p slice (target: under 1 ms, i.e. at least 1,000 candidates screened per second), by parallelism, and
// its parts (expansion with the verifier, planning). The v5p figures are those of configs/tpu-v5p.json, written here
// because the benchmarks link the core library only (no JSON).
#include <benchmark/benchmark.h>

#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/capacity/candidate_evaluation.hpp"
#include "sim/capacity/model_program.hpp"
#include "sim/plan/program_planner.hpp"
#include "sim/scenario/scenario_verify.hpp"

namespace {

using namespace podsim;

HardwarePreset v5p() {
  HardwarePreset preset;
  preset.name = "tpu-v5p";
  HardwareSpec& hw = preset.spec;
  hw.name = "tpu-v5p";
  hw.chip.name = "tpu-v5p";
  hw.chip.tensorcores = 2;
  hw.chip.mxu_rows = 128;
  hw.chip.mxu_cols = 128;
  hw.chip.mxus_per_core = 4;
  hw.chip.mxu_clock_Hz = 1.75e9;
  hw.chip.peak_flops_by_dtype = {{DType::bf16, 4.59e14}, {DType::int8, 9.18e14}};
  hw.chip.vmem_bytes_per_core = 67108864;
  hw.chip.hbm_bytes = 102005473280;
  hw.chip.hbm_bandwidth_Bps = 2.8e12;
  hw.ici.links_per_chip = 6;
  hw.ici.bandwidth_Bps = 9e10;
  hw.ici.bandwidth_raw_Bps = 1e11;
  hw.ici.bandwidth_effective_Bps = 9e10;
  hw.ici.hop_latency_s = 1e-6;
  hw.wrap_rule = WrapRule::whole_cubes;
  hw.pod_shape = {16, 20, 28};
  return preset;
}

CapacityProblem llama3_70b_training() {
  CapacityProblem p;
  p.model.name = "llama3-70b";
  TransformerDims& d = p.model.dims;
  d.layers = 80;
  d.d_model = 8192;
  d.d_ff = 28672;
  d.heads = 64;
  d.kv_heads = 8;
  d.head_dim = 128;
  d.vocab = 128256;
  p.workload.mode = WorkloadMode::train;
  p.workload.batch_tokens = 4194304;
  p.workload.seq_len = 4096;
  return p;
}

// X, Y, Z of the 16x16x16 slice assigned to the kinds of `state.range(0)`.
Candidate candidate(std::int64_t which) {
  static const std::vector<std::vector<ParallelKind>> kAssignments = {
      {ParallelKind::fsdp, ParallelKind::fsdp, ParallelKind::fsdp},
      {ParallelKind::data, ParallelKind::fsdp, ParallelKind::tensor},
      {ParallelKind::fsdp, ParallelKind::fsdp, ParallelKind::tensor},
  };
  Candidate c;
  c.hardware = v5p();
  c.slice = {16, 16, 16};
  c.wraparound = {true, true, true};
  c.remat.checkpoints_per_layer = 2;
  const char* const names[] = {"X", "Y", "Z"};
  const auto& kinds = kAssignments[static_cast<std::size_t>(which)];
  for (std::size_t i = 0; i < kinds.size(); ++i)
    c.parallelism.of(kinds[i]).push_back(names[i]);
  return c;
}

void BM_EvaluateCandidateBook(benchmark::State& state) {
  const CapacityProblem problem = llama3_70b_training();
  const Candidate c = candidate(state.range(0));
  state.SetLabel(c.parallelism.to_string());
  for (auto _ : state) {
    CandidateResult r = evaluate_candidate_book(problem, c);
    if (r.rejected) state.SkipWithError(r.rejected->c_str());
    benchmark::DoNotOptimize(r.book_step_s);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EvaluateCandidateBook)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

void BM_ExpandModel(benchmark::State& state) {
  const CapacityProblem problem = llama3_70b_training();
  const Candidate c = candidate(state.range(0));
  for (auto _ : state)
    benchmark::DoNotOptimize(expand_model(problem.model.dims, problem.workload, c, problem.options));
}
BENCHMARK(BM_ExpandModel)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_PlanModelProgram(benchmark::State& state) {
  const CapacityProblem problem = llama3_70b_training();
  const Candidate c = candidate(state.range(0));
  const ModelProgram model = expand_model(problem.model.dims, problem.workload, c, problem.options);
  const Slice slice(model.spec.slice_shape, model.spec.wraparound);
  const MeshMapping mapping(model.spec.mesh.mesh, slice, model.spec.mesh.axis_dims);
  for (auto _ : state)
    benchmark::DoNotOptimize(plan_program(model.spec, PlanTopology{slice, mapping, true}, nullptr));
}
BENCHMARK(BM_PlanModelProgram)->Arg(1)->Unit(benchmark::kMicrosecond);

// The verifier on the expanded spec (it builds the slice and the mesh mapping; their link table is built lazily).
void BM_VerifyModelProgram(benchmark::State& state) {
  const CapacityProblem problem = llama3_70b_training();
  const ModelProgram model = expand_model(problem.model.dims, problem.workload, candidate(1), problem.options);
  for (auto _ : state)
    benchmark::DoNotOptimize(verified(model.spec));
}
BENCHMARK(BM_VerifyModelProgram)->Unit(benchmark::kMicrosecond);

// One candidate through the des (SimGrid in a child process): the issue asks the top 10 in at most 60 s.
void BM_SimulateCandidate(benchmark::State& state) {
  const CapacityProblem problem = llama3_70b_training();
  const Candidate c = candidate(state.range(0));
  state.SetLabel(c.parallelism.to_string());
  for (auto _ : state) {
    CandidateResult r = evaluate_candidate_book(problem, c);
    simulate_candidate(problem, r);
    state.counters["des_over_book"] = *r.des_step_s / r.book_step_s;
  }
}
BENCHMARK(BM_SimulateCandidate)->Arg(0)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
