// The result of a closed-form ("book") cost: total time, its bandwidth and latency parts, which one
// dominates, the hop count behind the latency, and the formula used (for reports and docs).
#pragma once

#include <string>

#include "models/common/bound.hpp"

namespace podsim {

struct CostBreakdown {
  double time_s = 0;       // the book's total: max(bandwidth, latency) for collectives, their sum point-to-point
  double bandwidth_s = 0;  // bytes over link bandwidth
  double latency_s = 0;    // hops x per-hop latency
  Bound bound = Bound::bandwidth;  // bandwidth or latency: latency iff latency_s > bandwidth_s
  int hops = 0;
  double dcn_s = 0;     // of time_s: the phases across slices over the DCN (book_hierarchical_cost; 0 within a slice)
  std::string formula;  // symbolic, e.g. "max(V / W_bidi, floor(N/2) * alpha)"
};

}  // namespace podsim
