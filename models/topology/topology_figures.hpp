// What `podsim topology` says of a slice (docs/topology.md): its chips and directed links, wraparound per dim,
// diameter and mean hop count over all pairs of chips (closed forms under minimal routing), the links a bisection
// cuts, and the 4x4x4 cubes it takes on a generation built of cubes.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/topology/slice.hpp"
#include "models/topology/wraparound.hpp"

namespace podsim {

struct TopologyFigures {
  std::int64_t chips = 0;  // the working chips: all but the failed ones (failed_chips.hpp)
  std::int64_t links = 0;  // directed ICI links (one per direction per neighbour pair)
  std::vector<bool> wraparound;
  bool twisted = false;  // a twisted torus (twist.hpp): figures by breadth-first search, bisection by fewest cut
  std::int64_t diameter_hops = 0;
  double mean_hops = 0;  // over ordered pairs of distinct chips; 0 for one chip
  // Directed links crossing, one way, the cut that halves the slice across its longest dim (bisection_links,
  // slice_graph.hpp): a torus dim crosses twice per line, a mesh dim once.
  std::int64_t bisection_links = 0;
  std::optional<std::int64_t> cubes;  // whole_cubes generations: the 4x4x4 cubes the slice takes (one below a cube)
};

// Hops between coordinates i and j of a dim of `n` chips: |i - j|, or around the ring when it wraps.
// Diameter: the sum over dims of the longest such distance, n - 1 or floor(n / 2). Mean: over ordered pairs of
// distinct chips, sum_d (N / n_d)^2 S_d / (N (N - 1)), where S_d, the distances summed over all (i, j) of dim d,
// is n (n^2 - 1) / 3 on a line and n floor(n^2 / 4) on a ring.
TopologyFigures topology_figures(const Slice& slice, WrapRule rule);

// The 4x4x4 cubes of a whole_cubes generation that `shape` takes: chips / 64 when every dim is a multiple of 4,
// else 1 (a slice below a cube, 2x2x1 to 2x4x4, lives in one).
std::int64_t cubes_of(const std::vector<std::int64_t>& shape);

}  // namespace podsim
