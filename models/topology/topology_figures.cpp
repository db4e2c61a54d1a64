// Closed forms of a slice's hop figures (minimal routing on a mesh or torus, dim by dim) and its bisection.
#include "models/topology/topology_figures.hpp"

#include <algorithm>

#include "models/topology/failed_links.hpp"
#include "models/topology/slice_graph.hpp"
#include "models/topology/spare_cubes.hpp"

namespace podsim {

std::int64_t cubes_of(const std::vector<std::int64_t>& shape) {
  if (!of_whole_cubes(shape)) return 1;
  return shape[0] * shape[1] * shape[2] / 64;
}

namespace {

// A twisted torus is vertex-transitive (a Cayley graph): the hops from chip 0 are every chip's. Its bisection is the
// fewest links over the cuts that halve one dim (a short dim's wrap links cross the long dim's cut, so that cut is no
// longer the smallest).
void twisted_figures(const Slice& slice, TopologyFigures& f) {
  f.twisted = true;
  double sum = 0;
  for (const std::int32_t hops : slice.origin_hops()) {
    f.diameter_hops = std::max<std::int64_t>(f.diameter_hops, hops);
    sum += hops;
  }
  f.mean_hops = sum / static_cast<double>(f.chips - 1);
  f.bisection_links = fewest_cut_links(slice).links_per_direction;
}

// Failed links break the symmetry the closed forms rest on: hops by breadth-first search from every working chip over
// the working links; the bisection is the plain cut's (twisted: the fewest cut's) working links. Failed chips are out
// of the figures: `chips` counts the working ones, the mean is over their ordered pairs.
void failed_figures(const Slice& slice, TopologyFigures& f) {
  f.chips = slice.working_chips();
  const FailedHopFigures hops = failed_hop_figures(slice);
  f.twisted = slice.twisted();
  f.diameter_hops = hops.diameter;
  const auto n = static_cast<double>(f.chips);
  f.mean_hops = f.chips > 1 ? hops.sum / (n * (n - 1)) : 0;
  f.bisection_links = (slice.twisted() ? fewest_cut_links(slice) : bisection_links(slice)).links_per_direction;
}

}  // namespace

TopologyFigures topology_figures(const Slice& slice, WrapRule rule) {
  TopologyFigures f;
  f.chips = slice.num_chips();
  f.links = slice.num_links();
  f.wraparound = slice.wraparound();
  if (slice.has_failures() || slice.twisted()) {
    if (slice.has_failures())
      failed_figures(slice, f);
    else
      twisted_figures(slice, f);
    if (rule == WrapRule::whole_cubes) f.cubes = cubes_of(slice.shape());
    return f;
  }
  const double n_chips = static_cast<double>(f.chips);
  double distance_sum = 0;  // over all ordered pairs (a, b), a == b included (they add 0)
  for (int d = 0; d < slice.rank(); ++d) {
    const std::int64_t n = slice.size(d);
    f.diameter_hops += slice.wraps(d) ? n / 2 : n - 1;
    const double line = static_cast<double>(n) * static_cast<double>(n * n - 1) / 3.0;
    const double ring = static_cast<double>(n) * static_cast<double>(n * n / 4);
    const double others = n_chips / static_cast<double>(n);
    distance_sum += others * others * (slice.wraps(d) ? ring : line);
  }
  f.mean_hops = f.chips > 1 ? distance_sum / (n_chips * (n_chips - 1)) : 0;
  f.bisection_links = bisection_links(slice).links_per_direction;
  if (rule == WrapRule::whole_cubes) f.cubes = cubes_of(slice.shape());
  return f;
}

}  // namespace podsim
