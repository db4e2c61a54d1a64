// A hint that lets the engine simulate one representative group per phase instead of every group: the graph's
// tasks cut into phases, each phase into groups of chips with the task range of each group. The engine checks
// the hint (simulate_symmetric) and never trusts it.
#pragma once

#include <vector>

#include "models/common/ids.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim {

// One phase: group g holds chips groups[g] (in position order) and tasks [begin[g], begin[g + 1]).
struct PhaseGroups {
  std::vector<std::vector<ChipId>> groups;
  std::vector<TaskId> begin;  // groups.size() + 1 ids, non-decreasing
};

struct GraphSymmetry {
  std::vector<PhaseGroups> phases;  // in task id order; together they must cover every task of the graph
};

}  // namespace podsim
