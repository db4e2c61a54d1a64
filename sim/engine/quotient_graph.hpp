// The graph both translation quotients simulate (docs/performance.md, "The translation quotient"): chip 0's tasks
// alone, on a network of one link per class of the slice's links (a dim and a direction), each transfer going to its
// own "sink" chip whose route is its original route with every link replaced by its class's link.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/engine/network.hpp"
#include "sim/graph/event_graph.hpp"

namespace podsim {

struct QuotientGraph {
  EventGraph graph;                      // chip 0's tasks, renumbered in id order, all on chip 0
  NetworkSpec network;                   // one link per class used, the sinks' routes, the transfer calibration
  std::vector<std::int32_t> class_link;  // class -> its link in `network`, -1 when no route uses the class
};

// Chip 0's tasks of `graph` (on `network`) as a QuotientGraph. A dependency on any task d becomes one on the
// quotient's copy of twin_of[d] (a task of chip 0 that ends when d does); two that become one are kept once.
// `class_of_link` gives a link id's class in [0, classes). Returns with the chip counts and the route set.
QuotientGraph build_quotient_graph(const NetworkSpec& network, const EventGraph& graph,
                                   const std::vector<TaskId>& twin_of, std::size_t classes,
                                   const std::function<std::size_t(std::int32_t)>& class_of_link);

// Whether task t's dependencies are the moved twins of task r's, in order or else as a set (the quotients' rule):
// dependency d of t answers dependency e of r when twin_of[d] == twin_of[e] and d's chip is move(e's chip). The two
// vectors are scratch space, kept by the caller across calls.
template <class Move>
bool dependencies_moved(const EventGraph& graph, const std::vector<TaskId>& twin_of, const Task& t, const Task& r,
                        const Move& move, std::vector<std::pair<TaskId, ChipId>>& mine,
                        std::vector<std::pair<TaskId, ChipId>>& twins) {
  if (t.deps.size() != r.deps.size()) return false;
  const auto chip_of = [&](TaskId id) { return graph.tasks[static_cast<std::size_t>(id)].src_chip; };
  const auto twin = [&](TaskId id) { return twin_of[static_cast<std::size_t>(id)]; };
  bool in_order = true;
  for (std::size_t i = 0; in_order && i < t.deps.size(); ++i)
    in_order = twin(t.deps[i]) == twin(r.deps[i]) && chip_of(t.deps[i]) == move(chip_of(r.deps[i]));
  if (in_order) return true;
  mine.clear();
  twins.clear();
  for (const TaskId d : t.deps)
    mine.emplace_back(twin(d), chip_of(d));
  for (const TaskId e : r.deps)
    twins.emplace_back(twin(e), move(chip_of(e)));
  std::sort(mine.begin(), mine.end());
  std::sort(twins.begin(), twins.end());
  return mine == twins;
}

// The quotient's id of each task of chip 0 (in id order), -1 for the other chips' tasks.
std::vector<TaskId> quotient_ids(const EventGraph& graph);

}  // namespace podsim
