// The book's DCN cost across slices and the hierarchical sum, pinned with the book's own figures
// (SCALING_BOOK_MODELS.md §9: a data-parallel all-reduce across slices takes 8 D F / (M W_dcn) per layer, and
// C / W_dcn = 73,440 on v5p) and hand-worked cases.
#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "models/cost/dcn_cost.hpp"
#include "sim/scenario/hardware_json.hpp"

namespace podsim {
namespace {

// Two bf16 D x F matrices (4 D F bytes) all-reduced across slices after the in-slice reduce-scatter left V / M on
// each of the M chips of a slice: the DCN term is 2 (4 D F / M) / W_dcn = 8 D F / (M W_dcn).
TEST(DcnCost, DataParallelAllReduceAcrossSlicesIsTheBooks8DFOverMWdcn) {
  const double d = 8192, f = 32768, m = 256, w_dcn = 6.25e9;
  const auto v = static_cast<std::uint64_t>(4 * d * f);
  const CostBreakdown cost =
      book_hierarchical_cost(CollectiveKind::all_reduce, {{16, true}, {16, true}}, 4, v, 4.5e10, 0, w_dcn, 0);
  const CostBreakdown dcn = book_dcn_cost(CollectiveKind::all_reduce, 4, static_cast<double>(v) / m, w_dcn, 0);
  EXPECT_DOUBLE_EQ(dcn.time_s, 8 * d * f / (m * w_dcn));
  // ICI part: 2 x V / (W_bidi x 2 axes), the book's two-axis all-reduce.
  EXPECT_DOUBLE_EQ(cost.time_s, 2 * static_cast<double>(v) / (2 * 4.5e10 * 2) + 8 * d * f / (m * w_dcn));
  // The DCN part alone (what a candidate's breakdown counts as dcn_s): 8 D F / (M W_dcn).
  EXPECT_DOUBLE_EQ(cost.dcn_s, 8 * d * f / (m * w_dcn));
  EXPECT_DOUBLE_EQ(dcn.dcn_s, dcn.time_s);
}

// G gradient bytes over S slices with no in-slice axes (data parallelism over the DCN alone): the whole of G crosses,
// twice: max(2 G / W_dcn, 2 (S - 1) L), all of it DCN time. G = 64 MiB, W_dcn = 3.125e9 (v5e), S = 4: 2 x 67,108,864 /
// 3.125e9 = 42.95 ms, above 2 x 3 x 1 ms of latency; at L = 10 ms the latency term, 60 ms, wins.
TEST(DcnCost, GradientAllReduceOverTheSlicesAloneIsAllDcn) {
  const double g = 67108864;
  const CostBreakdown cost =
      book_hierarchical_cost(CollectiveKind::all_reduce, {}, 4, 67108864, 4.5e10, 1e-6, 3.125e9, 1e-3);
  EXPECT_DOUBLE_EQ(cost.time_s, 2 * g / 3.125e9);
  EXPECT_DOUBLE_EQ(cost.dcn_s, cost.time_s);
  const CostBreakdown slow =
      book_hierarchical_cost(CollectiveKind::all_reduce, {}, 4, 67108864, 4.5e10, 1e-6, 3.125e9, 10e-3);
  EXPECT_DOUBLE_EQ(slow.time_s, 2 * 3 * 10e-3);
  EXPECT_DOUBLE_EQ(slow.dcn_s, 2 * 3 * 10e-3);
}

// The book's DCN intensity on v5p: peak bf16 over DCN egress per chip, 4.59e14 / 6.25e9 = 73,440. At a batch per
// slice of exactly C / W_dcn tokens the DCN all-reduce of a layer's two D x F matrices (8 D F / (M W_dcn)) takes as
// long as the slice's backward-pass compute on them, which the book overlaps it with (2 x 2 x 2 x B D F / (M C):
// two matmuls per matrix, two matrices, 2 FLOPs per multiply-add).
TEST(DcnCost, V5pIntensityIsTheBooks73440) {
  const HardwareSpec v5p = load_hardware_preset("tpu-v5p");
  const double c = v5p.chip.peak_flops(DType::bf16);
  EXPECT_DOUBLE_EQ(c / v5p.dcn_bandwidth_Bps, 73440);
  const double d = 8192, f = 32768, m = 8 * 8 * 8;
  const double batch_per_slice = c / v5p.dcn_bandwidth_Bps;
  const double compute_s = 8 * batch_per_slice * d * f / (m * c);
  const CostBreakdown dcn = book_dcn_cost(CollectiveKind::all_reduce, 2, 4 * d * f / m, v5p.dcn_bandwidth_Bps, 0);
  EXPECT_DOUBLE_EQ(dcn.time_s, compute_s);
}

TEST(DcnCost, GatherAndScatterAreHalfTheAllReduceAndLatencyCountsRingSteps) {
  const CostBreakdown ag = book_dcn_cost(CollectiveKind::all_gather, 5, 1e9, 1e9, 1e-3);
  EXPECT_DOUBLE_EQ(ag.bandwidth_s, 1.0);
  EXPECT_DOUBLE_EQ(ag.latency_s, 4e-3);
  EXPECT_EQ(ag.hops, 4);
  const CostBreakdown rs = book_dcn_cost(CollectiveKind::reduce_scatter, 5, 1e9, 1e9, 1e-3);
  EXPECT_DOUBLE_EQ(rs.time_s, ag.time_s);
  // Latency-bound: 2 (S-1) alpha_dcn over 2 U / W_dcn.
  const CostBreakdown ar = book_dcn_cost(CollectiveKind::all_reduce, 5, 1e3, 1e9, 1e-3);
  EXPECT_DOUBLE_EQ(ar.time_s, 8e-3);
  EXPECT_EQ(ar.bound, Bound::latency);
  EXPECT_DOUBLE_EQ(book_dcn_cost(CollectiveKind::all_reduce, 1, 1e9, 1e9, 1).time_s, 0);
}

// An all-gather of V over a ring of 8 and 2 slices: the DCN gathers V / 8 first, then the slice V.
TEST(DcnCost, HierarchicalGatherMovesVOverMAcrossSlices) {
  const CostBreakdown cost = book_hierarchical_cost(CollectiveKind::all_gather, {{8, true}}, 2, 8000, 1000, 0, 100, 0);
  EXPECT_DOUBLE_EQ(cost.time_s, 8000.0 / 2000 + 1000.0 / 100);
}

TEST(DcnCost, RejectsAllToAllAndBadFigures) {
  EXPECT_THROW(book_dcn_cost(CollectiveKind::all_to_all, 2, 1, 1, 0), VerifyError);
  EXPECT_THROW(book_hierarchical_cost(CollectiveKind::all_to_all, {{4, true}}, 2, 1, 1, 0, 1, 0), VerifyError);
  EXPECT_THROW(book_dcn_cost(CollectiveKind::all_gather, 0, 1, 1, 0), VerifyError);
  EXPECT_THROW(book_dcn_cost(CollectiveKind::all_gather, 2, 1, 0, 0), VerifyError);
  EXPECT_THROW(book_dcn_cost(CollectiveKind::all_gather, 2, 1, 1, -1), VerifyError);
}

}  // namespace
}  // namespace podsim
