// Where a plan's step went on its critical chip (docs/overlap-pipeline-dcn.md, "Overlap"): the chip whose last task
// ends last, its time split into computing, communication that nothing hides (exposed), waiting on others
// (bubble) and DCN, and per op the part of its communication that chip spent computing nothing. Read from the
// event graph and the simulation's task times; no closed form here.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"
#include "sim/run/run_result.hpp"

namespace podsim {

// The capacity planner's closed-form split of a step by bound is StepBreakdown (sim/run/candidate_result.hpp).
struct CriticalChipStep {
  std::int32_t critical_chip = 0;    // the chip whose last task ends last (lowest id among ties)
  CriticalChipBreakdown breakdown;   // of the makespan, on critical_chip
  std::vector<double> op_exposed_s;  // per op index (Task::op): its exposed communication on critical_chip
  std::vector<double> op_dcn_s;      // per op index: its DCN transfers on critical_chip outside compute and ICI
};

// A chip's tasks are its compute tasks and the transfers it sends or receives (a transfer between two chips;
// chip-local transfers are not communication). Over [0, makespan]: compute_s is the length of the union of the
// chip's compute intervals; exposed_communication_s the length of the union of its ICI transfers' intervals
// [start, end] outside them; dcn_s the length of its DCN transfers' intervals (SimulationResult::crosses_dcn:
// between slices, docs/overlap-pipeline-dcn.md) outside both; bubble_s the rest, so the four add up to the makespan.
// An op's exposed time is the length of the union of its own transfers on that chip outside the chip's compute, so
// the ops' figures can add up to more than the chip's when two ops' collectives run at once; an op's DCN time is
// the length of its own DCN transfers on that chip outside the chip's compute and ICI transfers (as dcn_s). `ops` is
// the number of ops (Task::op < ops). Throws InternalError when the simulation has fewer task times than the graph has
// tasks.
CriticalChipStep step_breakdown(const EventGraph& graph, const SimulationResult& simulation, std::size_t ops);

// The critical chip of step_breakdown alone (one pass over the graph): the chip whose last task ends last, the lowest
// id among ties. Throws InternalError as step_breakdown does.
std::int32_t critical_chip(const EventGraph& graph, const SimulationResult& simulation);

// The same split of `chip`'s time within [begin_s, end_s]: each interval clipped to the window, bubble_s the window's
// rest (a window of a longer step: a layer's steady state). Throws InternalError as step_breakdown does.
CriticalChipBreakdown chip_breakdown(const EventGraph& graph, const SimulationResult& simulation, ChipId chip,
                                     double begin_s, double end_s);

// chip_breakdown for each of `windows` ([begin_s, end_s]), in one pass over the graph: the same figures.
std::vector<CriticalChipBreakdown> chip_breakdowns(const EventGraph& graph, const SimulationResult& simulation,
                                                   ChipId chip, const std::vector<std::pair<double, double>>& windows);

}  // namespace podsim
