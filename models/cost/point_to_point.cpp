// Point-to-point in the book model: bandwidth and latency terms add.
#include "models/cost/point_to_point.hpp"

#include <array>
#include <charconv>
#include <string>

#include "models/common/error.hpp"
#include "models/common/units.hpp"

namespace podsim {
namespace {}  // namespace

CostBreakdown book_point_to_point(std::uint64_t bytes, int hops, int ports, double w_uni_Bps, double alpha_s) {
  if (ports < 1) throw VerifyError("book point-to-point: ports must be >= 1, got: " + std::to_string(ports));
  if (hops < 0) throw VerifyError("book point-to-point: hops must be >= 0, got: " + std::to_string(hops));
  if (!(w_uni_Bps > 0))
    throw VerifyError("book point-to-point: link bandwidth must be > 0 B/s, got: " + exact_number(w_uni_Bps));
  if (!(alpha_s >= 0))
    throw VerifyError("book point-to-point: per-hop latency must be >= 0 s, got: " + exact_number(alpha_s));
  CostBreakdown cost;
  cost.bandwidth_s = static_cast<double>(bytes) / (ports * w_uni_Bps);
  cost.latency_s = hops * alpha_s;
  cost.time_s = cost.bandwidth_s + cost.latency_s;
  cost.bound = cost.latency_s > cost.bandwidth_s ? Bound::latency : Bound::bandwidth;
  cost.hops = hops;
  cost.formula = "bytes / (ports * W_uni) + hops * alpha";
  return cost;
}

}  // namespace podsim
