// Runs an event graph on a network with SimGrid 3.32, exactly (cut-through alpha-beta timing, max-min fair
// sharing), each simulation in a fork()ed child process: SimGrid allows one engine per process and aborts on
// its own errors. The parent never creates a SimGrid engine.
#pragma once

#include <utility>
#include <vector>

#include "sim/engine/network.hpp"
#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim {

// Validates the input, then simulates it in a child process and returns the timings and the traffic ledger.
// Constraints (each a podsim::VerifyError naming the task or link, thrown before SimGrid runs):
//   - the network has at least one chip, chip_flops finite and > 0, links with finite bandwidth > 0 and finite
//     latency >= 0, and the event graph has no more chips than the network;
//   - task chips in [0, num_chips); a compute task has dst_chip == src_chip and finite flops >= 0;
//   - dependencies in range, not the task itself, acyclic, and each observable on the chip that starts the task
//     (src_chip): a compute on that chip, or a transfer it sent or received;
//   - every (src, dst) pair of a transfer with src != dst has a non-empty route of link ids in range.
// A transfer with src == dst takes no time and crosses no link. Throws podsim::InternalError("simulation failed:
// ...") if the child dies (signal, abort, non-zero exit) or throws anything but a podsim::Error, with the child's
// stderr tail.
SimulationResult simulate(const NetworkSpec& network, const EventGraph& graph);

// Validates every run, then simulates them with at most `parallel` children at a time; results in input order.
// If runs fail, throws the error of the first failing run (by index) once all children have ended.
std::vector<SimulationResult> simulate_all(const std::vector<std::pair<const NetworkSpec*, const EventGraph*>>& runs,
                                           int parallel = 2);

}  // namespace podsim
