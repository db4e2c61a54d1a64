// Why an op took longer than its closed form: the other ops whose transfers crossed the same links while its own
// did, read from the routes and bandwidth phases the engine published (SimulationResult::route_of).
#pragma once

#include "sim/engine/simulation_result.hpp"
#include "sim/graph/event_graph.hpp"
#include "sim/run/run_result.hpp"

namespace podsim {

// An op is explained when its des time exceeds its book time by more than this fraction.
inline constexpr double kContentionThreshold = 0.10;

// Sets OpRun::contention of every op of `plan` whose des_time_s > (1 + kContentionThreshold) x book_time_s: the
// ops that shared a link with it at overlapping bandwidth phases (in program order), and of those links the one
// that carried most of its bytes. Needs plan.ops[].des/book times and plan.links (names by link id).
void explain_contention(PlanRun& plan, const EventGraph& graph, const SimulationResult& simulation);

}  // namespace podsim
