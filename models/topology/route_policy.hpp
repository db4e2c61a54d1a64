// How a point-to-point transfer uses the fabric (docs/topology.md, "Routes"): one dimension-ordered route, or its
// bytes split equally over link-disjoint minimal routes, one per dim the two chips differ in, as the scaling book's
// answer to its TPU chapter's question 5 assumes (a chip sends out of, and receives through, every port it can).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/common/enum_names.hpp"
#include "models/topology/slice.hpp"

namespace podsim {

enum class RoutePolicy : std::uint8_t {
  dimension_order,  // the default: dims 0, 1, 2 in turn (routing.hpp), one route per transfer
  split_minimal,    // m >= 2 dims differ: m link-disjoint minimal routes, each carrying 1/m of the bytes
};

inline constexpr EnumNames<RoutePolicy, 2> kRoutePolicyNames{
    "routing", {{{"dimension_order", RoutePolicy::dimension_order}, {"split_minimal", RoutePolicy::split_minimal}}}};

// The routes a transfer from `src` to `dst` takes under `policy`, as directed link ids in order; the bytes are split
// equally over them (split_bytes). dimension_order: {dor_route}. split_minimal: with the dims the chips differ in
// d_0 < ... < d_{m-1}, route k corrects them in the cyclic order d_k, d_{k+1}, ..., d_{k-1}, each by its shortest
// move; route 0 is the dimension-ordered route. m <= 1 (the same chip, or one dim apart): the one route.
//
// Why the m routes share no link: a link lies along one dim, so two runs can only share one if they go along the same
// dim d_j. Route k's run along d_j goes in the same direction as route k''s (the shortest move depends only on the
// two chips' coordinates in d_j), on the line whose other coordinates are the destination's for the dims corrected
// before d_j and the source's for the others. Route k corrects (j - k) mod m dims before d_j, route k' (j - k') mod
// m: for k != k' the counts differ, so some dim e != d_j, where source and destination differ, is corrected before
// d_j in one route and not in the other; the two lines differ in coordinate e and the runs are disjoint. Each route
// makes the shortest move in every dim, so each is minimal (hop_count links). Holds on a mesh and a torus alike.
// Why `policy` cannot route a slice, or nullopt: split_minimal splits over the rotations of the dim order, which are
// minimal on a plain torus or mesh but not on a twisted one (whose routes are minimal on its graph, twist.hpp), and
// may cross a failed link (failed_links.hpp) on a slice with `failed_links`.
std::optional<std::string> route_policy_issue(RoutePolicy policy, bool twisted, bool failed_links = false);

std::vector<std::vector<LinkId>> policy_routes(const Slice& slice, ChipId src, ChipId dst, RoutePolicy policy);

// Part `part` of `bytes` split over `parts` routes: bytes / parts, the first bytes % parts parts one byte more.
std::uint64_t split_bytes(std::uint64_t bytes, std::int64_t parts, std::int64_t part);

// The number of routes (ports) a transfer from `src` to `dst` uses under `policy`: 1, or the dims they differ in.
int route_ports(const Slice& slice, ChipId src, ChipId dst, RoutePolicy policy);

}  // namespace podsim
