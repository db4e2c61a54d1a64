// A Boost.Graph view of a slice (one vertex per chip, one directed edge per link) for graph algorithms
// the router does not need: BFS hop distances to check that DOR routes are shortest, and the bisection.
#pragma once

#include <cstdint>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "models/topology/slice.hpp"

namespace podsim {

class SliceGraph {
 public:
  struct EdgeProperties {
    LinkId link = 0;
  };
  // Vertex i is chip i; edges are the working links (failed ones left out), added in link-id order with their id.
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, EdgeProperties>;

  explicit SliceGraph(const Slice& slice);

  const Graph& graph() const { return graph_; }
  std::int64_t num_vertices() const { return static_cast<std::int64_t>(boost::num_vertices(graph_)); }
  std::int64_t num_edges() const { return static_cast<std::int64_t>(boost::num_edges(graph_)); }
  // Fewest links from `src` to every chip (breadth-first search over the directed links); -1 if
  // unreachable, which never happens in a mesh or torus. Throws VerifyError for a bad chip id.
  std::vector<std::int64_t> bfs_hops(ChipId src) const;

 private:
  Graph graph_;
};

// The cut that halves a slice across its longest dim (the first one on a tie): chips with coordinate
// < N/2 (integer division) on one side. `links_per_direction` counts the directed links that cross from
// the low side to the high side; as many cross back. A torus dim crosses twice per line (middle and
// wrap), a mesh dim once, so a 4x4x4 torus gives 2 x 16 = 32 and a 4x4 mesh gives 4.
struct Bisection {
  int dim = 0;
  std::int64_t links_per_direction = 0;
};

// Counted over the slice's working links (a failed link crosses nothing). A one-chip slice gives {0, 0}.
Bisection bisection_links(const Slice& slice);

// The links crossing, low side to high, the cut that halves `dim` (coordinate < N/2 on the low side).
Bisection cut_links(const Slice& slice, int dim);

// The fewest links over the cuts that halve one dim (the first dim on a tie): a twisted torus's bisection, whose
// short dims' wrap links all cross the long dim's cut (docs/topology.md, "Twisted tori").
Bisection fewest_cut_links(const Slice& slice);

}  // namespace podsim
