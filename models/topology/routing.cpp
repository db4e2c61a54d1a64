// Dimension-order routes: dims 0, 1, 2 in turn, the shorter way round on a wrapped dim, + on a tie; a twisted slice's
// minimal routes (twist.hpp) behind the same calls.
#include "models/topology/routing.hpp"

#include <algorithm>
#include <string>

#include "models/common/error.hpp"
#include "models/topology/failed_links.hpp"
#include "models/topology/twist.hpp"

namespace podsim {

DimMove shortest_move(const Slice& slice, int dim, std::int64_t from, std::int64_t to) {
  if (dim < 0 || dim >= slice.rank())
    throw VerifyError("route on slice " + slice.shape_string() + ": dim must be in [0, " +
                      std::to_string(slice.rank()) + "), got: " + std::to_string(dim));
  const std::int64_t n = slice.size(dim);
  for (std::int64_t c : {from, to})
    if (c < 0 || c >= n)
      throw VerifyError("route on slice " + slice.shape_string() + ": coordinate along dim " + std::to_string(dim) +
                        " must be in [0, " + std::to_string(n) + "), got: " + std::to_string(c));
  if (from == to) return {dim, Direction::plus, 0};
  if (!slice.wraps(dim)) {
    if (to > from) return {dim, Direction::plus, to - from};
    return {dim, Direction::minus, from - to};
  }
  const std::int64_t forward = ((to - from) % n + n) % n;           // hops going +
  const std::int64_t backward = n - forward;                        // hops going -
  if (forward <= backward) return {dim, Direction::plus, forward};  // tie (N/2) goes +
  return {dim, Direction::minus, backward};
}

std::vector<DimMove> dor_moves(const Slice& slice, ChipId src, ChipId dst) {
  const std::vector<std::int64_t> from = slice.coords_of(src);
  const std::vector<std::int64_t> to = slice.coords_of(dst);
  std::vector<DimMove> moves;
  for (int dim = 0; dim < slice.rank(); ++dim) {
    DimMove move = shortest_move(slice, dim, from[dim], to[dim]);
    if (move.hops > 0) moves.push_back(move);
  }
  return moves;
}

std::vector<ChipId> dor_path(const Slice& slice, ChipId src, ChipId dst) {
  std::vector<ChipId> path{src};
  if (slice.twisted() || slice.has_failures()) {
    for (const LinkId id : dor_route(slice, src, dst))
      path.push_back(slice.link(id).dst);
    return path;
  }
  ChipId at = src;
  for (const DimMove& move : dor_moves(slice, src, dst))
    for (std::int64_t h = 0; h < move.hops; ++h) {
      at = *slice.neighbour(at, move.dim, move.dir);  // exists: shortest_move only uses real links
      path.push_back(at);
    }
  return path;
}

std::vector<LinkId> dor_route(const Slice& slice, ChipId src, ChipId dst) {
  if (slice.has_failures()) return failed_route(slice, src, dst);
  if (slice.twisted()) return twisted_route(slice, src, dst);
  std::vector<LinkId> route;
  ChipId at = src;
  for (const DimMove& move : dor_moves(slice, src, dst))
    for (std::int64_t h = 0; h < move.hops; ++h) {
      const LinkId id = slice.link_id(at, move.dim, move.dir);
      route.push_back(id);
      at = slice.link(id).dst;
    }
  return route;
}

std::int64_t hop_count(const Slice& slice, ChipId src, ChipId dst) {
  if (slice.has_failures()) return failed_hops(slice, src, dst);
  if (slice.twisted()) return twisted_hops(slice, src, dst);
  std::int64_t hops = 0;
  for (const DimMove& move : dor_moves(slice, src, dst))
    hops += move.hops;
  return hops;
}

std::int64_t diameter(const Slice& slice) {
  if (slice.has_failures()) return failed_hop_figures(slice).diameter;
  if (slice.twisted()) return *std::max_element(slice.origin_hops().begin(), slice.origin_hops().end());
  std::int64_t hops = 0;
  for (int dim = 0; dim < slice.rank(); ++dim)
    hops += slice.wraps(dim) ? slice.size(dim) / 2 : slice.size(dim) - 1;
  return hops;
}

}  // namespace podsim
