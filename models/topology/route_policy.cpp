// The routes of a transfer under a routing policy: the dimension-ordered one, or its cyclic rotations.
#include "models/topology/route_policy.hpp"

#include <cstddef>

#include "models/common/error.hpp"
#include "models/topology/routing.hpp"

namespace podsim {

std::optional<std::string> route_policy_issue(RoutePolicy policy, bool twisted, bool failed_links) {
  if (policy != RoutePolicy::split_minimal || (!twisted && !failed_links)) return std::nullopt;
  if (failed_links)
    return "split_minimal splits a transfer over the rotations of the dim order, which may cross a failed link (routes "
           "on a slice with failed links go around them on its working links): use dimension_order on a slice with "
           "failed links";
  return "split_minimal splits a transfer over the rotations of the dim order, which are not the minimal routes of a "
         "twisted torus (its routes are minimal on its graph): use dimension_order on a twisted slice";
}

std::vector<std::vector<LinkId>> policy_routes(const Slice& slice, ChipId src, ChipId dst, RoutePolicy policy) {
  if (const auto issue = route_policy_issue(policy, slice.twisted(), slice.has_failures()))
    throw VerifyError("slice " + slice.shape_string() + ": " + *issue);
  const std::vector<DimMove> moves = dor_moves(slice, src, dst);
  if (policy == RoutePolicy::dimension_order || moves.size() < 2) return {dor_route(slice, src, dst)};
  const std::size_t m = moves.size();
  std::vector<std::vector<LinkId>> routes(m);
  for (std::size_t k = 0; k < m; ++k) {
    ChipId at = src;
    for (std::size_t i = 0; i < m; ++i) {
      const DimMove& move = moves[(k + i) % m];
      for (std::int64_t h = 0; h < move.hops; ++h) {
        const LinkId id = slice.link_id(at, move.dim, move.dir);
        routes[k].push_back(id);
        at = slice.link(id).dst;
      }
    }
  }
  return routes;
}

std::uint64_t split_bytes(std::uint64_t bytes, std::int64_t parts, std::int64_t part) {
  const auto n = static_cast<std::uint64_t>(parts);
  return bytes / n + (static_cast<std::uint64_t>(part) < bytes % n ? 1 : 0);
}

int route_ports(const Slice& slice, ChipId src, ChipId dst, RoutePolicy policy) {
  if (policy == RoutePolicy::dimension_order) return 1;
  const auto moves = static_cast<int>(dor_moves(slice, src, dst).size());
  return moves < 1 ? 1 : moves;
}

}  // namespace podsim
