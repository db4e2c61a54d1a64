// The book's collective formulas (SCALING_BOOK_MODELS.md §(b)1-7): AllGather, ReduceScatter, AllReduce and
// AllToAll over one or several axes, with and without wraparound.
#include "models/cost/collective_cost.hpp"

#include "models/topology/routing.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>
#include <utility>

#include "models/common/error.hpp"
#include "models/common/units.hpp"

namespace podsim {
namespace {

std::int64_t axis_hops(const CollectiveAxis& axis) {
  return axis.wraparound ? axis.size / 2 : axis.size - 1;
}

int to_int_hops(std::int64_t hops) {
  if (hops > 1'000'000'000)
    throw VerifyError("book collective cost: hop count too large, got: " + std::to_string(hops));
  return static_cast<int>(hops);
}

void finish(CostBreakdown& cost) {
  cost.time_s = std::max(cost.bandwidth_s, cost.latency_s);
  cost.bound = cost.latency_s > cost.bandwidth_s ? Bound::latency : Bound::bandwidth;
}

// AllGather (= ReduceScatter) over the axes of size > 1.
CostBreakdown all_gather(const std::vector<CollectiveAxis>& axes, double v, double w_uni, double alpha) {
  const double w_bidi = 2 * w_uni;
  CostBreakdown cost;
  std::int64_t hops = 0;
  for (const CollectiveAxis& axis : axes)
    hops += axis_hops(axis);
  cost.hops = to_int_hops(hops);
  cost.latency_s = static_cast<double>(hops) * alpha;
  const bool all_wrap = std::all_of(axes.begin(), axes.end(), [](const CollectiveAxis& a) { return a.wraparound; });
  if (axes.size() == 1) {
    const auto n = static_cast<double>(axes[0].size);
    if (axes[0].wraparound) {
      cost.bandwidth_s = v / w_bidi;
      cost.formula = "max(V / W_bidi, floor(N/2) * alpha)";
    } else {
      cost.bandwidth_s = (n - 1) * (v / n) / w_uni;
      cost.formula = "max((N-1) * (V/N) / W_uni, (N-1) * alpha)";
    }
  } else if (all_wrap) {
    cost.bandwidth_s = v / (w_bidi * static_cast<double>(axes.size()));
    cost.formula = "max(V / (W_bidi * num_axes), sum(floor(N_i/2)) * alpha)";
  } else {
    double w_sum = 0;
    for (const CollectiveAxis& axis : axes) {
      const auto n = static_cast<double>(axis.size);
      w_sum += axis.wraparound ? w_bidi : w_uni * n / (n - 1);
    }
    cost.bandwidth_s = v / w_sum;
    cost.formula =
        "max(V / sum(W_i), sum(hops_i) * alpha), W_i = W_bidi and hops_i = floor(N_i/2) with wraparound, "
        "W_i = W_uni * N_i/(N_i-1) and hops_i = N_i-1 without";
  }
  finish(cost);
  return cost;
}

CostBreakdown all_to_all(const std::vector<CollectiveAxis>& axes, double v, double w_uni, double alpha) {
  CostBreakdown cost;
  std::int64_t hops = 0;
  double n_total = 1;
  double longest = 0;  // max_i N_i * c_i: the axis whose cut has the fewest links per chip
  for (const CollectiveAxis& axis : axes) {
    hops += axis_hops(axis);
    n_total *= static_cast<double>(axis.size);
    longest = std::max(longest, static_cast<double>(axis.size) * (axis.wraparound ? 1 : 2));
  }
  const bool twisted = axes.size() == 3 && axes[0].twist_k > 0;
  if (twisted) {
    hops = axes[0].twist_diameter;
    longest = static_cast<double>(axes[0].twist_k);
  }
  cost.hops = to_int_hops(hops);
  cost.latency_s = static_cast<double>(hops) * alpha;
  if (twisted) {
    cost.bandwidth_s = v * longest / (4 * n_total * (2 * w_uni));
    cost.formula = "max(V * k / (4 * N * W_bidi), diameter * alpha), twisted torus";
  } else if (axes.size() == 1 && axes[0].wraparound) {
    cost.bandwidth_s = v / (4 * (2 * w_uni));
    cost.formula = "max(V / (4 * W_bidi), floor(N/2) * alpha)";
  } else {
    cost.bandwidth_s = v * longest / (4 * n_total * (2 * w_uni));
    cost.formula =
        "max(V * max(N_i * c_i) / (4 * N * W_bidi), sum(hops_i) * alpha), c_i = 1 with wraparound, 2 without";
  }
  finish(cost);
  return cost;
}

}  // namespace

CostBreakdown book_collective_cost(CollectiveKind kind, const std::vector<CollectiveAxis>& axes,
                                   std::uint64_t array_bytes, double w_uni_Bps, double alpha_s) {
  const std::string where = "book " + std::string(collective_kind_name(kind)) + " cost: ";
  if (!(w_uni_Bps > 0)) throw VerifyError(where + "link bandwidth must be > 0 B/s, got: " + exact_number(w_uni_Bps));
  if (!(alpha_s >= 0)) throw VerifyError(where + "per-hop latency must be >= 0 s, got: " + exact_number(alpha_s));
  std::vector<CollectiveAxis> active;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].size < 1)
      throw VerifyError(where + "axis " + std::to_string(i) +
                        " size must be >= 1, got: " + std::to_string(axes[i].size));
    if (axes[i].size > 1) active.push_back(axes[i]);
  }
  if (active.empty()) {
    CostBreakdown none;
    none.formula = "0 (every axis has size 1: no communication)";
    return none;
  }
  const auto v = static_cast<double>(array_bytes);
  switch (kind) {
    case CollectiveKind::all_gather:
    case CollectiveKind::reduce_scatter:
      return all_gather(active, v, w_uni_Bps, alpha_s);
    case CollectiveKind::all_reduce: {
      CostBreakdown cost = all_gather(active, v, w_uni_Bps, alpha_s);
      cost.bandwidth_s *= 2;
      cost.latency_s *= 2;
      cost.hops = to_int_hops(2 * std::int64_t{cost.hops});
      cost.formula = "2 x AllGather: " + cost.formula + ", both terms doubled";
      finish(cost);
      return cost;
    }
    case CollectiveKind::all_to_all:
      return all_to_all(active, v, w_uni_Bps, alpha_s);
  }
  throw Error("unknown collective enumerator");
}

std::vector<CollectiveAxis> collective_axes(const Slice& slice, const MeshMapping& mapping,
                                            const std::vector<std::string>& mesh_axes) {
  std::vector<CollectiveAxis> result;
  for (const std::string& name : mesh_axes)
    for (int dim : mapping.dims_of(name))
      result.push_back({slice.size(dim), slice.wraps(dim) && !(slice.twisted() && slice.size(dim) == slice.twist_k())});
  if (slice.twisted() && static_cast<int>(result.size()) == slice.rank()) {
    const std::int64_t span = diameter(slice);
    for (CollectiveAxis& axis : result) {
      axis.twist_k = slice.twist_k();
      axis.twist_diameter = span;
    }
  }
  return result;
}

}  // namespace podsim
