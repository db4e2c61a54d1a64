// Benchmark of the step breakdown (sim/run/step_breakdown.cpp) on a synthetic timeline of the size a pod-scale plan
// simulates: per chip, layers of a compute task followed by a ring send, over 4096 chips. Reports tasks per second.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "sim/run/step_breakdown.hpp"

namespace {

using podsim::EventGraph;
using podsim::SimulationResult;
using podsim::Task;
using podsim::TaskKind;

struct Timeline {
  EventGraph graph;
  SimulationResult simulation;
};

// `chips` chips, `layers` times: a compute of 2 us, then a send to the next chip of 3 us that starts 1 us into it
// (so 1 us of each send is hidden and 2 us exposed); 20 ops.
Timeline make_timeline(std::int32_t chips, int layers) {
  Timeline t;
  t.graph.num_chips = chips;
  for (int layer = 0; layer < layers; ++layer) {
    const double base = layer * 4e-6;
    for (std::int32_t chip = 0; chip < chips; ++chip) {
      Task compute;
      compute.kind = TaskKind::compute;
      compute.src_chip = compute.dst_chip = chip;
      compute.op = layer % 20;
      t.graph.add(compute);
      t.simulation.tasks.push_back({base, base + 2e-6});
      Task send;
      send.kind = TaskKind::transfer;
      send.src_chip = chip;
      send.dst_chip = (chip + 1) % chips;
      send.op = layer % 20;
      t.graph.add(send);
      t.simulation.tasks.push_back({base + 1e-6, base + 4e-6});
    }
  }
  t.simulation.makespan_s = layers * 4e-6;
  return t;
}

void BM_StepBreakdown(benchmark::State& state) {
  const Timeline t = make_timeline(static_cast<std::int32_t>(state.range(0)), static_cast<int>(state.range(1)));
  for (auto _ : state)
    benchmark::DoNotOptimize(podsim::step_breakdown(t.graph, t.simulation, 20));
  state.counters["tasks_per_s"] =
      benchmark::Counter(static_cast<double>(t.graph.tasks.size()), benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_StepBreakdown)->Args({256, 64})->Args({4096, 64})->Args({4096, 256})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
