// Benchmarks of the SimGrid engine: a bidirectional ring all-gather executed as an EventGraph on a 64-chip ring
// and along the x rings of 8x8x8 and 16x16x16 tori. Reports simulated messages per second of the child's wall
// time (engine, platform and run) and the whole simulate() call per iteration (validation, fork, ledger).
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/simulator.hpp"

namespace {

using podsim::EventGraph;
using podsim::NetworkSpec;
using podsim::Task;
using podsim::TaskId;
using podsim::TaskKind;

// A torus of shape dims (x fastest); link (chip * 3 + dim) * 2 + dir goes from chip to its + (dir 0) or - (dir 1)
// neighbour along dim. Routes are dimension-ordered, shortest way round each ring (ties go +).
NetworkSpec torus(std::array<std::int32_t, 3> dims, double bandwidth_Bps, double latency_s) {
  NetworkSpec network;
  network.num_chips = dims[0] * dims[1] * dims[2];
  for (std::int32_t chip = 0; chip < network.num_chips; ++chip)
    for (int dim = 0; dim < 3; ++dim)
      for (int dir = 0; dir < 2; ++dir)
        network.links.push_back(
            {"ici." + std::to_string(chip) + "." + std::to_string(dim) + (dir ? "-" : "+"), bandwidth_Bps, latency_s});
  network.route = [dims](std::int32_t src, std::int32_t dst) {
    std::array<std::int32_t, 3> at{src % dims[0], src / dims[0] % dims[1], src / (dims[0] * dims[1])};
    const std::array<std::int32_t, 3> to{dst % dims[0], dst / dims[0] % dims[1], dst / (dims[0] * dims[1])};
    std::vector<std::int32_t> links;
    for (int dim = 0; dim < 3; ++dim) {
      const std::int32_t n = dims[static_cast<std::size_t>(dim)];
      const std::int32_t forward = ((to[dim] - at[dim]) % n + n) % n;
      const int dir = forward <= n - forward ? 0 : 1;
      while (at[dim] != to[dim]) {
        const std::int32_t chip = at[0] + dims[0] * (at[1] + dims[1] * at[2]);
        links.push_back((chip * 3 + dim) * 2 + dir);
        at[dim] = dir == 0 ? (at[dim] + 1) % n : (at[dim] + n - 1) % n;
      }
    }
    return links;
  };
  return network;
}

// Bidirectional ring all-gather along x on every x ring: each step every chip sends `bytes` to both x neighbours;
// a send waits on what the chip received from the same direction in the previous step.
EventGraph x_ring_all_gather(std::array<std::int32_t, 3> dims, std::uint64_t bytes) {
  EventGraph graph;
  graph.num_chips = dims[0] * dims[1] * dims[2];
  const std::int32_t n = dims[0];
  std::array<std::vector<TaskId>, 2> previous;
  previous.fill(std::vector<TaskId>(static_cast<std::size_t>(graph.num_chips), -1));
  for (std::int32_t step = 0; step + 1 < n; ++step) {
    auto received = previous;
    for (int dir = 0; dir < 2; ++dir)
      for (std::int32_t chip = 0; chip < graph.num_chips; ++chip) {
        const std::int32_t x = chip % n, base = chip - x;
        Task send;
        send.kind = TaskKind::transfer;
        send.src_chip = chip;
        send.dst_chip = base + (dir == 0 ? (x + 1) % n : (x + n - 1) % n);
        send.bytes = bytes;
        send.step = step;
        if (step > 0) send.deps.push_back(previous[static_cast<std::size_t>(dir)][static_cast<std::size_t>(chip)]);
        received[static_cast<std::size_t>(dir)][static_cast<std::size_t>(send.dst_chip)] = graph.add(send);
      }
    previous = received;
  }
  return graph;
}

void ring_all_gather(benchmark::State& state) {
  const std::array<std::int32_t, 3> dims{static_cast<std::int32_t>(state.range(0)),
                                         static_cast<std::int32_t>(state.range(1)),
                                         static_cast<std::int32_t>(state.range(2))};
  const NetworkSpec network = torus(dims, 4.5e10, 1e-6);
  const EventGraph graph = x_ring_all_gather(dims, 1 << 20);
  double wall_s = 0, makespan_s = 0;
  std::uint64_t messages = 0;
  for (auto _ : state) {
    const podsim::SimulationResult result = podsim::simulate(network, graph);
    wall_s += result.wall_s;
    messages += result.messages;
    makespan_s = result.makespan_s;
  }
  state.counters["chips"] = network.num_chips;
  state.counters["messages"] = static_cast<double>(graph.tasks.size());
  state.counters["msgs_per_s"] = static_cast<double>(messages) / wall_s;
  state.counters["child_wall_s"] = wall_s / static_cast<double>(state.iterations());
  state.counters["makespan_us"] = makespan_s * 1e6;
}

BENCHMARK(ring_all_gather)
    ->Args({64, 1, 1})
    ->Args({8, 8, 8})
    ->Args({16, 16, 16})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
