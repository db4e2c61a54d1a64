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

// Task `t` of a group whose tasks start at `begin`, as the symmetry paths simulate it alone: the same kind, bytes,
// flops, op and step, its chips renumbered by `chip_of` (a chip to its index in the smaller network), its
// dependencies inside the group shifted to start at `offset`, and those before `begin` dropped.
template <class ChipOf>
Task task_alone(const Task& t, TaskId begin, TaskId offset, const ChipOf& chip_of) {
  Task s{.src_chip = chip_of(t.src_chip),
         .dst_chip = chip_of(t.dst_chip),
         .bytes = t.bytes,
         .flops = t.flops,
         .deps = {},
         .op = t.op,
         .step = t.step,
         .kind = t.kind};
  for (const TaskId d : t.deps)
    if (d >= begin) s.deps.push_back(offset + (d - begin));
  return s;
}

}  // namespace podsim
