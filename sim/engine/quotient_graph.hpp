// The graph both translation quotients simulate (docs/performance.md, "The translation quotient"): chip 0's tasks
// alone, on a network of one link per class of the slice's links (a dim and a direction), each transfer going to its
// own "sink" chip whose route is its original route with every link replaced by its class's link.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
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

// The quotient's id of each task of chip 0 (in id order), -1 for the other chips' tasks.
std::vector<TaskId> quotient_ids(const EventGraph& graph);

}  // namespace podsim
