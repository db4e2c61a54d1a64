// The slice as a Boost.Graph adjacency list: BFS distances and the bisection link count.
#include "models/topology/slice_graph.hpp"

#include <string>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include "models/common/error.hpp"

namespace podsim {

SliceGraph::SliceGraph(const Slice& slice) : graph_(static_cast<std::size_t>(slice.num_chips())) {
  for (const Link& link : slice.links())
    if (!slice.link_failed(link.id))
      boost::add_edge(static_cast<std::size_t>(link.src), static_cast<std::size_t>(link.dst), EdgeProperties{link.id},
                      graph_);
}

std::vector<std::int64_t> SliceGraph::bfs_hops(ChipId src) const {
  if (src < 0 || src >= num_vertices())
    throw VerifyError("slice graph: chip id must be in [0, " + std::to_string(num_vertices()) +
                      "), got: " + std::to_string(src));
  // Unreached chips keep -1; record_distances sets d[v] = d[u] + 1 on every BFS tree edge.
  std::vector<std::int64_t> distance(static_cast<std::size_t>(num_vertices()), -1);
  distance[static_cast<std::size_t>(src)] = 0;
  boost::breadth_first_search(
      graph_, static_cast<std::size_t>(src),
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(distance.data(), boost::on_tree_edge()))));
  return distance;
}

Bisection cut_links(const Slice& slice, int dim) {
  const std::int64_t half = slice.size(dim) / 2;
  Bisection result{dim, 0};
  for (const Link& link : slice.links())
    if (!slice.link_failed(link.id) && slice.coord(link.src, dim) < half && slice.coord(link.dst, dim) >= half)
      ++result.links_per_direction;
  return result;
}

Bisection bisection_links(const Slice& slice) {
  int longest = 0;
  for (int dim = 1; dim < slice.rank(); ++dim)
    if (slice.size(dim) > slice.size(longest)) longest = dim;
  return cut_links(slice, longest);
}

Bisection fewest_cut_links(const Slice& slice) {
  Bisection best = cut_links(slice, 0);
  for (int dim = 1; dim < slice.rank(); ++dim) {
    const Bisection cut = cut_links(slice, dim);
    if (cut.links_per_direction < best.links_per_direction) best = cut;
  }
  return best;
}

}  // namespace podsim
