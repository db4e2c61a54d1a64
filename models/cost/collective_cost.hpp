// The closed-form ("book") cost of the four collectives, reproducing SCALING_BOOK_MODELS.md §(b) exactly,
// simplifications included (AllGather = V / W_bidi on a ring, latency = hops x alpha, total = the max).
// docs/book-model.md states every formula, its assumptions and where the simulation differs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/common/collective_kind.hpp"
#include "models/cost/cost_breakdown.hpp"
#include "models/topology/mesh_mapping.hpp"
#include "models/topology/slice.hpp"

namespace podsim {

// One physical axis the collective runs along: its extent and whether it has a wrap link.
struct CollectiveAxis {
  std::int64_t size = 1;
  bool wraparound = false;
  // Set on every axis of a collective that spans all dims of a twisted torus (docs/book-model.md, "Twisted tori"):
  // its short size k and its diameter.
  std::int64_t twist_k = 0;
  std::int64_t twist_diameter = 0;
};

// Book cost of `kind` over `axes` (axes of size 1 are ignored). `array_bytes` is the book's V: the array
// over the whole group, i.e. the gathered output of an AllGather, the unreduced input of a ReduceScatter,
// the array each chip holds in an AllReduce, and the sum over the group of the chips' buffers in an
// AllToAll (each chip holds V/N). `w_uni_Bps` is one direction of one link, `alpha_s` the latency per hop.
//
// Let W_bidi = 2 W_uni and, per axis i of size N_i: hops_i = floor(N_i/2) with wraparound, N_i - 1
// without; W_i = W_bidi with wraparound, W_uni * N_i / (N_i - 1) without.
//   AllGather = ReduceScatter:
//     one axis, wraparound      max(V / W_bidi, floor(N/2) * alpha)
//     one axis, no wraparound   max((N-1) * (V/N) / W_uni, (N-1) * alpha)
//     k axes, all wraparound    max(V / (W_bidi * k), sum_i floor(N_i/2) * alpha)
//     k axes, mixed             max(V / sum_i W_i, sum_i hops_i * alpha)   (podsim's extension)
//   AllReduce = 2 x AllGather, both terms and the hops.
//   AllToAll: max(V * max_i(N_i * c_i) / (4 * N * W_bidi), sum_i hops_i * alpha), N = prod N_i, c_i = 1
//     with wraparound and 2 without (half the bisection); one wrapped axis gives V / (4 W_bidi). Over all dims of a
//     twisted torus (bisection 2N/k links, twice the plain torus's N/k): max(V * k / (4 * N * W_bidi),
//     diameter * alpha).
// Throws VerifyError unless every size >= 1, w_uni_Bps > 0 and alpha_s >= 0.
CostBreakdown book_collective_cost(CollectiveKind kind, const std::vector<CollectiveAxis>& axes,
                                   std::uint64_t array_bytes, double w_uni_Bps, double alpha_s);

// The physical axes a collective over `mesh_axes` runs along: one CollectiveAxis per slice dim of each
// mesh axis (an axis mapped over dims [0, 1] counts as two axes, as the book's AllGather_XY does), with
// that dim's size and wraparound. On a twisted torus a short dim is a line (its wrap leaves the line), and a
// collective over all its dims carries the twist (CollectiveAxis::twist_k). Throws VerifyError on an unknown axis.
std::vector<CollectiveAxis> collective_axes(const Slice& slice, const MeshMapping& mapping,
                                            const std::vector<std::string>& mesh_axes);

}  // namespace podsim
