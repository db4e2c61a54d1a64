// Benchmarks of whole collective simulations on wrapped tori (docs/performance.md): the 3D all-reduce
// (automatic algorithm: split bidirectional rings, reduce-scatter X, Y, Z then all-gather Z, Y, X) and the
// ring all-gather over X, Y, Z of 64 MiB, from request to ledger (graph build, validation, fork, simulation,
// ledger), hop by hop with link contention, by the symmetry path (fast:1) and in full (fast:0); the four kinds over
// X, Y, Z, sequential and concurrent multi-axis, by the translation quotient that `podsim collective` takes first
// (quotient_*); the full-path ring all-gather on one wrapped dimension (ring_all_gather_full); and the book model's
// evaluations per second.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "models/cost/collective_cost.hpp"
#include "models/sharding/mesh.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"
#include "sim/collective_sim/collective_simulation.hpp"
#include "sim/collective_sim/torus_quotient.hpp"
#include "sim/collectives/collective_builder.hpp"
#include "sim/collectives/mesh_groups.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/slice_network.hpp"

namespace {

using namespace podsim;

constexpr double kW = 4.5e10;
constexpr double kAlpha = 1e-6;
constexpr std::uint64_t kBytes = 64ull << 20;

// A field of /proc/self/status in bytes (VmRSS, VmHWM), or 0.
double status_bytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) return std::stod(line.substr(field.size() + 1)) * 1024.0;
  return 0;
}

// User plus system CPU seconds of this process (RUSAGE_SELF) or of its waited-for children (RUSAGE_CHILDREN): the
// simulation children's CPU time varies less with the machine's load than wall time.
double cpu_seconds(int who) {
  rusage usage{};
  getrusage(who, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

CollectiveRequest torus_request(const Slice& slice, CollectiveKind op) {
  const MeshMapping mapping(default_mesh(slice), slice);
  CollectiveRequest request;
  request.op = op;
  request.axes = axes_groups(mapping, slice, {"X", "Y", "Z"});
  request.array_bytes = kBytes;
  request.algorithm = Algorithm::automatic;
  return request;
}

// range(0..2): the torus shape; range(3): 1 for the symmetry path (simulate_collective), 0 for the full one.
void run_collective(benchmark::State& state, CollectiveKind op) {
  const double rss_start = status_bytes("VmRSS");
  const Slice slice({state.range(0), state.range(1), state.range(2)}, {true, true, true});
  const auto num_chips = static_cast<std::int32_t>(slice.num_chips());
  const NetworkSpec network = slice_network(slice, IciModel{4, kW, kW, kW, kAlpha}, 1e12);
  const CollectiveRequest request = torus_request(slice, op);
  const bool fast = state.range(3) != 0;
  double wall_s = 0, child_wall_s = 0, parent_cpu_s = 0, child_cpu_s = 0, makespan_s = 0, child_growth = 0;
  std::uint64_t messages = 0, simulated = 0;
  bool symmetric = false;
  for (auto _ : state) {
    const auto began = std::chrono::steady_clock::now();
    const double self_cpu = cpu_seconds(RUSAGE_SELF), children_cpu = cpu_seconds(RUSAGE_CHILDREN);
    SimulatedCollective run;
    if (fast) {
      run = simulate_collective(network, num_chips, request);
    } else {
      run.graph = build_collective(num_chips, request);
      run.result = simulate(network, run.graph);
    }
    wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    child_wall_s += run.result.wall_s;
    parent_cpu_s += cpu_seconds(RUSAGE_SELF) - self_cpu;
    child_cpu_s += cpu_seconds(RUSAGE_CHILDREN) - children_cpu;
    messages = run.result.messages;
    simulated = run.result.simulated_tasks;
    makespan_s = run.result.makespan_s;
    child_growth = std::max(child_growth, static_cast<double>(run.result.child_rss_growth_bytes));
    symmetric = run.symmetric;
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["chips"] = num_chips;
  state.counters["messages"] = static_cast<double>(messages);
  state.counters["simulated_tasks"] = static_cast<double>(simulated);
  state.counters["symmetric"] = symmetric ? 1 : 0;
  state.counters["wall_s"] = wall_s / iterations;
  state.counters["msgs_per_s"] = static_cast<double>(messages) * iterations / wall_s;
  // The simulation child's own wall time (engine, platform, run; the symmetry path's children summed): the rest of
  // wall_s is graph building, validation, fork and the ledger.
  state.counters["child_wall_s"] = child_wall_s / iterations;
  state.counters["parent_cpu_s"] = parent_cpu_s / iterations;
  state.counters["child_cpu_s"] = child_cpu_s / iterations;
  state.counters["msgs_per_child_cpu_s"] = static_cast<double>(messages) * iterations / child_cpu_s;
  state.counters["makespan_us"] = makespan_s * 1e6;
  // Peak resident memory above the process's start: the parent's high-water mark, and the most a simulation
  // child grew above what it shared with the parent at fork; peak_MiB, their sum, bounds the whole.
  const double parent_peak = status_bytes("VmHWM") - rss_start;
  state.counters["parent_peak_MiB"] = parent_peak / (1 << 20);
  state.counters["child_growth_MiB"] = child_growth / (1 << 20);
  state.counters["peak_MiB"] = (parent_peak + child_growth) / (1 << 20);
}

void all_reduce(benchmark::State& state) {
  run_collective(state, CollectiveKind::all_reduce);
}
void all_gather(benchmark::State& state) {
  run_collective(state, CollectiveKind::all_gather);
}

void shapes(benchmark::internal::Benchmark* bench) {
  for (int fast : {1, 0}) {
    bench->Args({4, 4, 4, fast})->Args({8, 8, 8, fast})->Args({16, 16, 16, fast});
    bench->Args({16, 20, 28, fast});
  }
  // One iteration per repetition: --benchmark_repetitions=5 gives medians, and tools/bench/whole_process.sh times
  // whole processes of one case each.
  bench->ArgNames({"x", "y", "z", "fast"})->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
}

BENCHMARK(all_reduce)->Apply(shapes);
BENCHMARK(all_gather)->Apply(shapes);

// range(0): the chips of a one-dimensional wrapped slice. One ring all-gather of 64 MiB over X (automatic
// algorithm) in the full simulation (build_collective + simulate: every chip an actor), the irregular path's
// per-message cost with nothing for the symmetry paths to use; msgs_per_s counts the graph's transfers.
void ring_all_gather_full(benchmark::State& state) {
  const Slice slice({state.range(0)}, {true});
  const auto num_chips = static_cast<std::int32_t>(slice.num_chips());
  const NetworkSpec network = slice_network(slice, IciModel{4, kW, kW, kW, kAlpha}, 1e12);
  const MeshMapping mapping(default_mesh(slice), slice);
  CollectiveRequest request;
  request.op = CollectiveKind::all_gather;
  request.axes = axes_groups(mapping, slice, {"X"});
  request.array_bytes = kBytes;
  request.algorithm = Algorithm::automatic;
  double wall_s = 0, child_wall_s = 0, parent_cpu_s = 0, child_cpu_s = 0, makespan_s = 0;
  std::uint64_t messages = 0;
  for (auto _ : state) {
    const auto began = std::chrono::steady_clock::now();
    const double self_cpu = cpu_seconds(RUSAGE_SELF), children_cpu = cpu_seconds(RUSAGE_CHILDREN);
    const EventGraph graph = build_collective(num_chips, request);
    const SimulationResult result = simulate(network, graph);
    wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    child_wall_s += result.wall_s;
    parent_cpu_s += cpu_seconds(RUSAGE_SELF) - self_cpu;
    child_cpu_s += cpu_seconds(RUSAGE_CHILDREN) - children_cpu;
    messages = result.messages;
    makespan_s = result.makespan_s;
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["chips"] = num_chips;
  state.counters["messages"] = static_cast<double>(messages);
  state.counters["wall_s"] = wall_s / iterations;
  state.counters["msgs_per_s"] = static_cast<double>(messages) * iterations / wall_s;
  state.counters["child_wall_s"] = child_wall_s / iterations;  // the simulation child alone
  state.counters["parent_cpu_s"] = parent_cpu_s / iterations;
  state.counters["child_cpu_s"] = child_cpu_s / iterations;
  state.counters["msgs_per_child_cpu_s"] = static_cast<double>(messages) * iterations / child_cpu_s;
  state.counters["makespan_us"] = makespan_s * 1e6;
}

BENCHMARK(ring_all_gather_full)
    ->Arg(64)
    ->Arg(512)
    ->ArgNames({"chips"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

// range(0..2): the torus shape; range(3): 0 for sequential, 1 for concurrent multi-axis. The translation quotient
// (simulate_torus_quotient) from request to lifted ledger; `quotient` is 0 if it declined (it never should here).
void run_quotient(benchmark::State& state, CollectiveKind op) {
  const double rss_start = status_bytes("VmRSS");
  const Slice slice({state.range(0), state.range(1), state.range(2)}, {true, true, true});
  const NetworkSpec network = slice_network(slice, IciModel{4, kW, kW, kW, kAlpha}, 1e12);
  CollectiveRequest request = torus_request(slice, op);
  request.multi_axis = state.range(3) != 0 ? MultiAxis::concurrent : MultiAxis::sequential;
  double wall_s = 0, child_wall_s = 0, parent_cpu_s = 0, child_cpu_s = 0, makespan_s = 0, child_growth = 0;
  std::uint64_t messages = 0, simulated = 0;
  bool taken = true;
  for (auto _ : state) {
    const auto began = std::chrono::steady_clock::now();
    const auto result = simulate_torus_quotient(slice, network, request);
    wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    taken = taken && result.has_value();
    if (!result) continue;
    messages = result->messages;
    simulated = result->simulated_tasks;
    makespan_s = result->makespan_s;
    child_growth = std::max(child_growth, static_cast<double>(result->child_rss_growth_bytes));
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["chips"] = static_cast<double>(slice.num_chips());
  state.counters["messages"] = static_cast<double>(messages);
  state.counters["simulated_tasks"] = static_cast<double>(simulated);
  state.counters["quotient"] = taken ? 1 : 0;
  state.counters["wall_s"] = wall_s / iterations;
  state.counters["makespan_us"] = makespan_s * 1e6;
  const double parent_peak = status_bytes("VmHWM") - rss_start;
  state.counters["parent_peak_MiB"] = parent_peak / (1 << 20);
  state.counters["child_growth_MiB"] = child_growth / (1 << 20);
  state.counters["peak_MiB"] = (parent_peak + child_growth) / (1 << 20);
}

void quotient_all_reduce(benchmark::State& state) {
  run_quotient(state, CollectiveKind::all_reduce);
}
void quotient_all_gather(benchmark::State& state) {
  run_quotient(state, CollectiveKind::all_gather);
}
void quotient_reduce_scatter(benchmark::State& state) {
  run_quotient(state, CollectiveKind::reduce_scatter);
}
void quotient_all_to_all(benchmark::State& state) {
  run_quotient(state, CollectiveKind::all_to_all);
}

void quotient_shapes(benchmark::internal::Benchmark* bench) {
  for (int concurrent : {0, 1})
    bench->Args({16, 16, 16, concurrent})->Args({16, 20, 28, concurrent});
  bench->ArgNames({"x", "y", "z", "concurrent"})->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
}

BENCHMARK(quotient_all_reduce)->Apply(quotient_shapes);
BENCHMARK(quotient_all_gather)->Apply(quotient_shapes);
BENCHMARK(quotient_reduce_scatter)->Apply(quotient_shapes);
BENCHMARK(quotient_all_to_all)->Apply(quotient_shapes);

// The book model: one collective cost per iteration, cycling over the four kinds and 1 to 3 axes.
void book_model(benchmark::State& state) {
  const std::vector<std::vector<CollectiveAxis>> axes = {
      {{16, true}}, {{16, true}, {20, true}}, {{16, true}, {20, true}, {28, true}}, {{8, false}, {4, true}}};
  const CollectiveKind kinds[] = {CollectiveKind::all_gather, CollectiveKind::reduce_scatter,
                                  CollectiveKind::all_reduce, CollectiveKind::all_to_all};
  std::size_t i = 0;
  for (auto _ : state) {
    const CostBreakdown cost = book_collective_cost(kinds[i % 4], axes[(i / 4) % axes.size()], kBytes, kW, kAlpha);
    benchmark::DoNotOptimize(cost.time_s);
    ++i;
  }
  state.counters["evals_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(book_model);

}  // namespace

BENCHMARK_MAIN();
