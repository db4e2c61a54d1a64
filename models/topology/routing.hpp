// Dimension-order routing (DOR) on a slice: the path a message takes from one chip to another, as the
// list of directed links it crosses. The SimGrid zone pushes exactly these links for every transfer.
#pragma once

#include <cstdint>
#include <vector>

#include "models/topology/slice.hpp"

namespace podsim {

// The straight run a route makes along one dim: `hops` links in direction `dir`.
struct DimMove {
  int dim = 0;
  Direction dir = Direction::plus;
  std::int64_t hops = 0;
};

// Shortest move along `dim` from coordinate `from` to coordinate `to`. Without wraparound the only way is
// straight there (|to - from| hops). With wraparound the shorter way round wins; on a tie (distance
// exactly N/2, N even) the route goes in the + direction. hops == 0 when from == to (dir is then plus).
// Throws VerifyError for a bad dim or coordinate.
DimMove shortest_move(const Slice& slice, int dim, std::int64_t from, std::int64_t to);

// The moves of the DOR route from `src` to `dst`: dims in order 0, 1, 2, each corrected completely
// before the next; dims where the chips already agree are left out.
std::vector<DimMove> dor_moves(const Slice& slice, ChipId src, ChipId dst);

// On a twisted slice (Slice::twisted) dor_route, dor_path, hop_count and diameter give the minimal routes of
// twisted_route (twist.hpp) and their hops instead: dimension order is not minimal there. On a slice with failed links
// (Slice::has_failures) they give failed_route (failed_links.hpp), shortest over the working links, and its hops.
// dor_moves is plain only.

// Links crossed by the DOR route from `src` to `dst`, in order (empty when src == dst).
std::vector<LinkId> dor_route(const Slice& slice, ChipId src, ChipId dst);

// Chips visited by the DOR route, src first and dst last (just {src} when src == dst).
std::vector<ChipId> dor_path(const Slice& slice, ChipId src, ChipId dst);

// Number of links on the DOR route; DOR is a shortest path on a mesh or torus, so this is also the
// hop distance between the chips.
std::int64_t hop_count(const Slice& slice, ChipId src, ChipId dst);

// Longest shortest path in the slice: sum over dims of floor(N/2) with wraparound, N-1 without.
std::int64_t diameter(const Slice& slice);

}  // namespace podsim
