// Small hand-checkable networks and graphs for the engine tests: a line of chips (one link per hop, + direction)
// and a ring (clockwise links 0..N-1, counter-clockwise links N..2N-1 when bidirectional).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/network.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim::engine::testing {

// Chips 0..n-1, link i goes from chip i to chip i+1; routes only go in the + direction.
inline NetworkSpec line_network(std::int32_t chips, double bandwidth_Bps, double latency_s) {
  NetworkSpec network;
  network.num_chips = chips;
  for (std::int32_t i = 0; i + 1 < chips; ++i)
    network.links.push_back({"x+." + std::to_string(i), bandwidth_Bps, latency_s});
  network.route = [](std::int32_t src, std::int32_t dst) {
    std::vector<std::int32_t> links;
    for (std::int32_t hop = src; hop < dst; ++hop)
      links.push_back(hop);
    return links;
  };
  return network;
}

// Clockwise link i: chip i -> chip i+1 mod n; counter-clockwise link n+i: chip i -> chip i-1 mod n.
inline NetworkSpec ring_network(std::int32_t chips, double bandwidth_Bps, double latency_s, bool bidirectional) {
  NetworkSpec network;
  network.num_chips = chips;
  for (std::int32_t i = 0; i < chips; ++i)
    network.links.push_back({"cw." + std::to_string(i), bandwidth_Bps, latency_s});
  if (bidirectional)
    for (std::int32_t i = 0; i < chips; ++i)
      network.links.push_back({"ccw." + std::to_string(i), bandwidth_Bps, latency_s});
  network.route = [chips, bidirectional](std::int32_t src, std::int32_t dst) {
    std::vector<std::int32_t> links;
    const std::int32_t forward = ((dst - src) % chips + chips) % chips;
    if (!bidirectional || forward <= chips - forward) {
      for (std::int32_t at = src; at != dst; at = (at + 1) % chips)
        links.push_back(at);
    } else {
      for (std::int32_t at = src; at != dst; at = (at + chips - 1) % chips)
        links.push_back(chips + at);
    }
    return links;
  };
  return network;
}

// Ring all-gather, built by hand: in each of the n-1 steps every chip sends `bytes` to its clockwise neighbour
// (and, when bidirectional, `bytes` to its counter-clockwise one); a chip's send in step s waits on what it
// received in the same direction in step s-1.
inline EventGraph ring_all_gather(std::int32_t chips, std::uint64_t bytes, bool bidirectional) {
  EventGraph graph;
  graph.num_chips = chips;
  const int directions = bidirectional ? 2 : 1;
  // previous[d][chip]: the transfer chip received in direction d in the previous step.
  std::vector<std::vector<TaskId>> previous(2, std::vector<TaskId>(static_cast<std::size_t>(chips), -1));
  for (std::int32_t step = 0; step + 1 < chips; ++step) {
    std::vector<std::vector<TaskId>> received = previous;
    for (int d = 0; d < directions; ++d)
      for (std::int32_t chip = 0; chip < chips; ++chip) {
        Task send;
        send.kind = TaskKind::transfer;
        send.src_chip = chip;
        send.dst_chip = d == 0 ? (chip + 1) % chips : (chip + chips - 1) % chips;
        send.bytes = bytes;
        send.step = step;
        if (step > 0) send.deps.push_back(previous[static_cast<std::size_t>(d)][static_cast<std::size_t>(chip)]);
        received[static_cast<std::size_t>(d)][static_cast<std::size_t>(send.dst_chip)] = graph.add(send);
      }
    previous = received;
  }
  return graph;
}

inline Task transfer(ChipId src, ChipId dst, std::uint64_t bytes, std::vector<TaskId> deps = {}) {
  Task task;
  task.kind = TaskKind::transfer;
  task.src_chip = src;
  task.dst_chip = dst;
  task.bytes = bytes;
  task.deps = std::move(deps);
  return task;
}

inline Task compute(ChipId chip, double flops, std::vector<TaskId> deps = {}) {
  Task task;
  task.kind = TaskKind::compute;
  task.src_chip = chip;
  task.dst_chip = chip;
  task.flops = flops;
  task.deps = std::move(deps);
  return task;
}

}  // namespace podsim::engine::testing
