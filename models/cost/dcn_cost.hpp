// The closed-form ("book") cost of collectives across slices over the data-centre network
// (docs/overlap-pipeline-dcn.md), in the book's style (SCALING_BOOK_MODELS.md §9: a DCN all-reduce across slices takes
// 8 D F / (M W_dcn) for two bf16 D x F matrices, i.e. 2 x (V / M) / W_dcn): the (S-1)/S factor of a ring over S slices
// is dropped, as the ICI formulas drop (N-1)/N.
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/collective_kind.hpp"
#include "models/cost/collective_cost.hpp"
#include "models/cost/cost_breakdown.hpp"

namespace podsim {

// The DCN part: `kind` over `slices` (S) of an array of `array_bytes` (U) per group of S chips, one chip per
// slice, each chip sending at its egress share `w_dcn_Bps`, `alpha_dcn_s` per transfer. A ring over S slices:
//   AllGather = ReduceScatter   max(U / W_dcn, (S-1) * alpha_dcn)
//   AllReduce                   max(2 U / W_dcn, 2 (S-1) * alpha_dcn)
// hops = the ring's steps (S-1, twice for an all-reduce); dcn_s = time_s. S == 1 costs 0. Throws VerifyError for an
// all-to-all, slices < 1, w_dcn_Bps not > 0 or alpha_dcn_s not >= 0.
CostBreakdown book_dcn_cost(CollectiveKind kind, std::int64_t slices, double array_bytes, double w_dcn_Bps,
                            double alpha_dcn_s);

// A collective over in-slice axes (`ici_axes`, M = the product of their sizes chips per group) and the slice axis
// (S slices), run hierarchically: for an all-reduce, reduce-scatter in the slice over ICI, all-reduce of V / M
// across slices over DCN, all-gather in the slice; an all-gather gathers V / M across slices first, then V in
// the slice; a reduce-scatter reduces V in the slice, then V / M across slices. The phases run one after the
// other, so the total is book_collective_cost(kind, ici_axes, V, ...) + book_dcn_cost(kind, S, V / M, ...), each
// term a max as the book takes it; bandwidth_s, latency_s and hops are the sums, dcn_s the DCN term's time. Throws
// VerifyError as the two do (an all-to-all across slices included).
CostBreakdown book_hierarchical_cost(CollectiveKind kind, const std::vector<CollectiveAxis>& ici_axes,
                                     std::int64_t slices, std::uint64_t array_bytes, double w_uni_Bps, double alpha_s,
                                     double w_dcn_Bps, double alpha_dcn_s);

}  // namespace podsim
