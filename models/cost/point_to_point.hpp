// The book's point-to-point transfer time (SCALING_BOOK_MODELS.md §(b)8, tpus.md Q5): bytes spread over
// `ports` links plus one per-hop latency per hop. Unlike the collective formulas, the two terms ADD.
#pragma once

#include <cstdint>

#include "models/cost/cost_breakdown.hpp"

namespace podsim {

// T = bytes / (ports * w_uni_Bps) + hops * alpha_s. Throws VerifyError unless ports >= 1, hops >= 0,
// w_uni_Bps > 0 and alpha_s >= 0.
CostBreakdown book_point_to_point(std::uint64_t bytes, int hops, int ports, double w_uni_Bps, double alpha_s);

}  // namespace podsim
