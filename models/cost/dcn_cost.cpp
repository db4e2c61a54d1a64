// The book's DCN cost across slices and the hierarchical sum with the ICI part.
#include "models/cost/dcn_cost.hpp"

#include <algorithm>
#include <string>

#include "models/common/error.hpp"
#include "models/common/units.hpp"

namespace podsim {

CostBreakdown book_dcn_cost(CollectiveKind kind, std::int64_t slices, double array_bytes, double w_dcn_Bps,
                            double alpha_dcn_s) {
  const std::string where = "book DCN " + std::string(collective_kind_name(kind)) + " cost: ";
  if (kind == CollectiveKind::all_to_all)
    throw VerifyError(where + "an all-to-all across slices is not modelled, got: all-to-all");
  if (slices < 1) throw VerifyError(where + "the slice count must be >= 1, got: " + std::to_string(slices));
  if (!(w_dcn_Bps > 0)) throw VerifyError(where + "DCN bandwidth must be > 0 B/s, got: " + exact_number(w_dcn_Bps));
  if (!(alpha_dcn_s >= 0)) throw VerifyError(where + "DCN latency must be >= 0 s, got: " + exact_number(alpha_dcn_s));
  CostBreakdown cost;
  if (slices == 1) {
    cost.formula = "0 (one slice: nothing crosses the DCN)";
    return cost;
  }
  const std::int64_t passes = kind == CollectiveKind::all_reduce ? 2 : 1;
  cost.bandwidth_s = static_cast<double>(passes) * array_bytes / w_dcn_Bps;
  cost.hops = static_cast<int>(std::min<std::int64_t>(passes * (slices - 1), 1'000'000'000));
  cost.latency_s = static_cast<double>(passes * (slices - 1)) * alpha_dcn_s;
  cost.time_s = std::max(cost.bandwidth_s, cost.latency_s);
  cost.bound = cost.latency_s > cost.bandwidth_s ? Bound::latency : Bound::bandwidth;
  cost.dcn_s = cost.time_s;
  cost.formula = passes == 2 ? "max(2 U / W_dcn, 2 (S-1) * alpha_dcn)" : "max(U / W_dcn, (S-1) * alpha_dcn)";
  return cost;
}

CostBreakdown book_hierarchical_cost(CollectiveKind kind, const std::vector<CollectiveAxis>& ici_axes,
                                     std::int64_t slices, std::uint64_t array_bytes, double w_uni_Bps, double alpha_s,
                                     double w_dcn_Bps, double alpha_dcn_s) {
  if (kind == CollectiveKind::all_to_all)
    throw VerifyError("book hierarchical cost: an all-to-all across slices is not modelled, got: all-to-all");
  std::int64_t m = 1;
  for (const CollectiveAxis& axis : ici_axes)
    m *= std::max<std::int64_t>(axis.size, 1);
  const CostBreakdown ici = book_collective_cost(kind, ici_axes, array_bytes, w_uni_Bps, alpha_s);
  const CostBreakdown dcn =
      book_dcn_cost(kind, slices, static_cast<double>(array_bytes) / static_cast<double>(m), w_dcn_Bps, alpha_dcn_s);
  CostBreakdown cost;
  cost.time_s = ici.time_s + dcn.time_s;
  cost.bandwidth_s = ici.bandwidth_s + dcn.bandwidth_s;
  cost.latency_s = ici.latency_s + dcn.latency_s;
  cost.bound = cost.latency_s > cost.bandwidth_s ? Bound::latency : Bound::bandwidth;
  cost.hops = ici.hops + dcn.hops;
  cost.dcn_s = dcn.time_s;
  cost.formula = "ICI: " + ici.formula + " + DCN (U = V / M): " + dcn.formula;
  return cost;
}

}  // namespace podsim
