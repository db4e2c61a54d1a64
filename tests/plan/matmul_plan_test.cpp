// The sharded-matmul case analysis: the four cases of the scaling book on small meshes, the design card's
// two-rank partial-sum example (checked against a dense product), the seed's JAX example, multi-axis and
// padded shapes, batch dims and every rejection of plan_matmul. Values are worked by hand in comments.
#include "models/plan/matmul_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "models/sharding/book_notation.hpp"
#include "models/sharding/layout.hpp"
#include "models/sharding/partition_spec.hpp"
#include "models/sharding/shardy_print.hpp"
#include "tests/plan/matmul_test_helpers.hpp"

namespace podsim {
namespace {

// ---- The design card: A = [[1,2],[3,4]], B = [[5,6],[7,8]] f32, the inner dim split over X = 2 ----

// Each rank holds one column of A and one row of B; its local product is a full 2x2 f32 partial sum:
// C[I, K]{U_X}, 2 x 2 x 4 = 16 bytes. With no required output the default all-reduces it (V = 16).
TEST(MatmulPlanDesignCard, InnerSplitIsCase3AndDefaultsToAllReduce) {
  const MatmulPlan p = plan("IJ,JK->IK", {2, 2}, "A[I, J_X]", {2, 2}, "B[J_X, K]", DType::f32, two_ranks, std::nullopt);
  EXPECT_EQ(p.matmul_case, 3);
  EXPECT_TRUE(p.before.empty());
  EXPECT_EQ(p.local_out, book("C[I, K]{U_X}"));
  EXPECT_EQ(p.out, book("C[I, K]"));
  ASSERT_EQ(p.after.size(), 1u);
  expect_collective(p.after[0], Kind::all_reduce, Operand::out, axes({"X"}), -1, 16, 2);
  EXPECT_EQ(p.after[0].reason.rfind("case 3: all-reduce the partial sums over X", 0), 0u) << p.after[0].reason;
  EXPECT_EQ(p.local_lhs_shape, (Shape{2, 1}));
  EXPECT_EQ(p.local_rhs_shape, (Shape{1, 2}));
  EXPECT_EQ(p.local_out_shape, (Shape{2, 2}));
  EXPECT_DOUBLE_EQ(p.local_flops, 8);  // 2 x I 2 x J 1 x K 2
  EXPECT_EQ(p.m, 2u);
  EXPECT_EQ(p.k, 1u);
  EXPECT_EQ(p.n, 2u);
}

TEST(MatmulPlanDesignCard, ReplicatedConsumerAllReduces) {
  const MatmulPlan p =
      plan("IJ,JK->IK", {2, 2}, "A[I, J_X]", {2, 2}, "B[J_X, K]", DType::f32, two_ranks, need("C[I, K]"));
  ASSERT_EQ(p.after.size(), 1u);
  expect_collective(p.after[0], Kind::all_reduce, Operand::out, axes({"X"}), -1, 16, 2);
}

// Row-sharded consumer: one reduce-scatter over X into dim 0, V = the unreduced 2x2 f32 = 16 bytes per
// device. A ring of 2 sends V (N-1)/N = 8 bytes per rank, the card's reduce-scatter ledger.
TEST(MatmulPlanDesignCard, RowShardedConsumerReduceScatters) {
  const MatmulPlan p =
      plan("IJ,JK->IK", {2, 2}, "A[I, J_X]", {2, 2}, "B[J_X, K]", DType::f32, two_ranks, need("C[I_X, K]"));
  EXPECT_EQ(p.matmul_case, 3);
  ASSERT_EQ(p.after.size(), 1u);
  const PlannedCollective& rs = p.after[0];
  expect_collective(rs, Kind::reduce_scatter, Operand::out, axes({"X"}), 0, 16, 2);
  EXPECT_EQ(rs.before, book("C[I, K]{U_X}"));
  EXPECT_EQ(rs.after, book("C[I_X, K]"));
  EXPECT_EQ(rs.reason,
            "case 3: reduce-scatter the partial sums over X into dim 0 (I): the required sharding shards it over X");
  EXPECT_EQ(rs.array_bytes * (rs.group_size - 1) / rs.group_size, 8u);
  EXPECT_EQ(p.out, book("C[I_X, K]"));
}

// The plan computes the card's numbers: rank r multiplies the block of J the plan gives it (partial sums
// C0 = [[5,6],[15,18]], C1 = [[14,16],[28,32]]); the reduce-scatter adds them over X and keeps the rows of
// its output shard: rank 0 holds [19,22], rank 1 holds [43,50]. Concatenating C0 and C1 would give 4 rows.
TEST(MatmulPlanDesignCard, PlanReproducesTheDenseProduct) {
  const MatmulPlan p =
      plan("IJ,JK->IK", {2, 2}, "A[I, J_X]", {2, 2}, "B[J_X, K]", DType::f32, two_ranks, need("C[I_X, K]"));
  const int a[2][2] = {{1, 2}, {3, 4}};
  const int b[2][2] = {{5, 6}, {7, 8}};
  std::array<std::array<std::array<int, 2>, 2>, 2> partial{};
  for (std::int64_t r = 0; r < 2; ++r) {
    const auto j = shard_ranges({2, 2}, p.lhs, two_ranks, r)[1];
    EXPECT_EQ(j, shard_ranges({2, 2}, p.rhs, two_ranks, r)[0]);
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k)
        for (auto jj = j.begin; jj < j.end; ++jj)
          partial[r][i][k] += a[i][jj] * b[jj][k];
  }
  EXPECT_EQ(partial[0][1][0], 15);
  EXPECT_EQ(partial[1][0][0], 14);
  const int expected[2][2][2] = {{{19, 22}, {0, 0}}, {{43, 50}, {0, 0}}};
  for (std::int64_t r = 0; r < 2; ++r) {
    const auto rows = shard_ranges(p.out_shape, p.out, two_ranks, r)[0];
    ASSERT_EQ(rows.end - rows.begin, 1);
    for (int k = 0; k < 2; ++k)
      EXPECT_EQ(partial[0][rows.begin][k] + partial[1][rows.begin][k], expected[r][0][k]);
  }
}

// The consumer then wants all of C: C[I_X, K] -> C[I, K] is one all-gather over X on dim 0, V = the gathered
// 2x2 f32 = 16 bytes; each rank sends 8, so the two phases send 16 bytes per rank, as the card counts.
TEST(MatmulPlanDesignCard, ConsumerWantingAllOfCAllGathers) {
  const auto steps =
      plan_resharding({2, 2}, book("C[I_X, K]"), book("C[I, K]"), DType::f32, two_ranks, Operand::out, "IK", nullptr);
  ASSERT_EQ(steps.size(), 1u);
  expect_collective(steps[0], Kind::all_gather, Operand::out, axes({"X"}), 0, 16, 2);
  EXPECT_EQ(steps[0].reason, "all-gather dim 0 (I) over X: the required sharding does not shard it over X");
}

// ---- The four cases ----

// Case 1: A[I_X, J] . B[J, K_Y] -> C[I_X, K_Y], nothing to communicate. f32 [4,8] . [8,6]: local [2,8] .
// [8,3] -> [2,3], 2 x 2 x 8 x 3 = 96 flops.
TEST(MatmulPlanCases, Case1NoCommunication) {
  const MatmulPlan p = plan("IJ,JK->IK", {4, 8}, "A[I_X, J]", {8, 6}, "B[J, K_Y]", DType::f32, mesh_2x2, std::nullopt);
  EXPECT_EQ(p.matmul_case, 1);
  EXPECT_TRUE(p.before.empty());
  EXPECT_TRUE(p.after.empty());
  EXPECT_EQ(p.local_out, book("C[I_X, K_Y]"));
  EXPECT_EQ(p.out, book("C[I_X, K_Y]"));
  EXPECT_EQ(p.out_shape, (Shape{4, 6}));
  EXPECT_EQ(p.local_out_shape, (Shape{2, 3}));
  EXPECT_DOUBLE_EQ(p.local_flops, 96);
  EXPECT_EQ(p.m, 2u);
  EXPECT_EQ(p.k, 8u);
  EXPECT_EQ(p.n, 3u);
}

// The same product for a consumer that wants C unsharded: gather I over X (C[I, K_Y]: 4 x 3 f32 = 48 bytes
// after), then K over Y (4 x 6 f32 = 96 bytes after).
TEST(MatmulPlanCases, Case1UnshardedConsumerGathersTheOutput) {
  const MatmulPlan p =
      plan("IJ,JK->IK", {4, 8}, "A[I_X, J]", {8, 6}, "B[J, K_Y]", DType::f32, mesh_2x2, need("C[I, K]"));
  EXPECT_EQ(p.matmul_case, 1);
  ASSERT_EQ(p.after.size(), 2u);
  expect_collective(p.after[0], Kind::all_gather, Operand::out, axes({"X"}), 0, 48, 2);
  expect_collective(p.after[1], Kind::all_gather, Operand::out, axes({"Y"}), 1, 96, 2);
}

// Case 2: A[I, J_X] . B[J, K] on X = 4, bf16 [8,16] . [16,4]: gather A over X first, V = the whole A,
// 8 x 16 x 2 = 256 bytes per device. Then 2 x 8 x 16 x 4 = 1024 flops locally.
TEST(MatmulPlanCases, Case2GathersTheShardedContractingDim) {
  const MatmulPlan p =
      plan("IJ,JK->IK", {8, 16}, "A[I, J_X]", {16, 4}, "B[J, K]", DType::bf16, make_mesh({{"X", 4}}), std::nullopt);
  EXPECT_EQ(p.matmul_case, 2);
  ASSERT_EQ(p.before.size(), 1u);
  expect_collective(p.before[0], Kind::all_gather, Operand::lhs, axes({"X"}), 1, 256, 4);
  EXPECT_EQ(p.before[0].reason,
            "case 2: contracting dim J of lhs is sharded over X but rhs's is not: all-gather lhs over X");
  EXPECT_EQ(p.before[0].before, book("A[I, J_X]"));
  EXPECT_EQ(p.before[0].after, book("A[I, J]"));
  EXPECT_TRUE(p.after.empty());
  EXPECT_EQ(p.local_out, book("C[I, K]"));
  EXPECT_DOUBLE_EQ(p.local_flops, 1024);
}

// Case 2 on the right operand: B[J_Y, K] gathered, V = B = 8 x 6 f32 = 192 bytes.
TEST(MatmulPlanCases, Case2OnTheRightOperand) {
  const MatmulPlan p = plan("IJ,JK->IK", {4, 8}, "A[I_X, J]", {8, 6}, "B[J_Y, K]", DType::f32, mesh_2x2, std::nullopt);
  EXPECT_EQ(p.matmul_case, 2);
  ASSERT_EQ(p.before.size(), 1u);
  expect_collective(p.before[0], Kind::all_gather, Operand::rhs, axes({"Y"}), 0, 192, 2);
  EXPECT_EQ(p.before[0].reason,
            "case 2: contracting dim J of rhs is sharded over Y but lhs's is not: all-gather rhs over Y");
  EXPECT_EQ(p.local_out, book("C[I_X, K]"));
}

// Case 3, the book's ReduceScatter_{X,K}: A[I, J_X] . B[J_X, K] -> C[I, K_X], X = 4, f32 [8,16] . [16,32].
// Local [8,4] . [4,32] -> [8,32]{U_X}: V = 8 x 32 x 4 = 1024 bytes; 2 x 8 x 4 x 32 = 2048 flops.
TEST(MatmulPlanCases, Case3ReduceScattersIntoTheConsumersDim) {
  const MatmulPlan p = plan("IJ,JK->IK", {8, 16}, "A[I, J_X]", {16, 32}, "B[J_X, K]", DType::f32, make_mesh({{"X", 4}}),
                            need("C[I, K_X]"));
  EXPECT_EQ(p.matmul_case, 3);
  EXPECT_EQ(p.local_out, book("C[I, K]{U_X}"));
  ASSERT_EQ(p.after.size(), 1u);
  expect_collective(p.after[0], Kind::reduce_scatter, Operand::out, axes({"X"}), 1, 1024, 4);
  EXPECT_EQ(p.local_out_shape, (Shape{8, 32}));
  EXPECT_DOUBLE_EQ(p.local_flops, 2048);
  EXPECT_EQ(p.m, 8u);
  EXPECT_EQ(p.k, 4u);
  EXPECT_EQ(p.n, 32u);
}

// A consumer that takes the partial sums as they are: {U_X} stays, nothing to communicate.
TEST(MatmulPlanCases, Case3UnreducedConsumerKeepsThePartialSums) {
  const MatmulPlan p =
      plan("IJ,JK->IK", {2, 2}, "A[I, J_X]", {2, 2}, "B[J_X, K]", DType::f32, two_ranks, need("C[I, K]{U_X}"));
  EXPECT_EQ(p.matmul_case, 3);
  EXPECT_TRUE(p.after.empty());
  EXPECT_EQ(p.out, book("C[I, K]{U_X}"));
}

// Case 4: A[I_X, J] . B[J, K_X] is invalid as is (C[I_X, K_X]). f32 A [4,8], B [8,16], X = 2.
// Gathering A costs V = 4 x 8 x 4 = 128 bytes, gathering B V = 8 x 16 x 4 = 512 bytes.
TEST(MatmulPlanCases, Case4GathersTheOperandTheConsumerDoesNotKeep) {
  const MatmulPlan keep_i =
      plan("IJ,JK->IK", {4, 8}, "A[I_X, J]", {8, 16}, "B[J, K_X]", DType::f32, two_ranks, need("C[I_X, K]"));
  EXPECT_EQ(keep_i.matmul_case, 4);
  ASSERT_EQ(keep_i.before.size(), 1u);
  expect_collective(keep_i.before[0], Kind::all_gather, Operand::rhs, axes({"X"}), 1, 512, 2);
  EXPECT_EQ(keep_i.before[0].reason,
            "case 4: axis X shards lhs dim I and rhs dim K, and the output cannot use it twice: all-gather rhs over X "
            "on dim K; the required output keeps X on I");
  EXPECT_EQ(keep_i.local_out, book("C[I_X, K]"));
  EXPECT_TRUE(keep_i.after.empty());

  const MatmulPlan keep_k =
      plan("IJ,JK->IK", {4, 8}, "A[I_X, J]", {8, 16}, "B[J, K_X]", DType::f32, two_ranks, need("C[I, K_X]"));
  ASSERT_EQ(keep_k.before.size(), 1u);
  expect_collective(keep_k.before[0], Kind::all_gather, Operand::lhs, axes({"X"}), 0, 128, 2);
  EXPECT_EQ(keep_k.local_out, book("C[I, K_X]"));
}

TEST(MatmulPlanCases, Case4WithoutAConsumerGathersTheSmallerOperand) {
  const MatmulPlan p =
      plan("IJ,JK->IK", {4, 8}, "A[I_X, J]", {8, 16}, "B[J, K_X]", DType::f32, two_ranks, std::nullopt);
  EXPECT_EQ(p.matmul_case, 4);
  ASSERT_EQ(p.before.size(), 1u);
  expect_collective(p.before[0], Kind::all_gather, Operand::lhs, axes({"X"}), 0, 128, 2);
  EXPECT_EQ(p.before[0].reason,
            "case 4: axis X shards lhs dim I and rhs dim K, and the output cannot use it twice: all-gather lhs over X "
            "on dim I; lhs moves fewer bytes: V = 128 against 512 bytes per device");
  EXPECT_EQ(p.local_out, book("C[I, K_X]"));
  EXPECT_TRUE(p.after.empty());

  // Equal sizes (8x8 . 8x8 f32, V = 256 either way): the rhs is gathered.
  const MatmulPlan tie =
      plan("IJ,JK->IK", {8, 8}, "A[I_X, J]", {8, 8}, "B[J, K_X]", DType::f32, two_ranks, std::nullopt);
  ASSERT_EQ(tie.before.size(), 1u);
  expect_collective(tie.before[0], Kind::all_gather, Operand::rhs, axes({"X"}), 1, 256, 2);
  EXPECT_NE(tie.before[0].reason.find("both gathers move V = 256 bytes per device; rhs is gathered"),
            std::string::npos);
}

// Case 4 where the shared axis is the major one of A's I_XY: the gather takes the suffix XY from A
// (the whole I) or X from B[J, K_X]; the consumer keeps X on K, so A gathers XY: V = A = 8 x 4 f32 = 128.
TEST(MatmulPlanCases, Case4GathersTheMinorSuffixToo) {
  const MatmulPlan p =
      plan("IJ,JK->IK", {8, 4}, "A[I_XY, J]", {4, 8}, "B[J, K_X]", DType::f32, mesh_2x2, need("C[I, K_X]"));
  ASSERT_EQ(p.before.size(), 1u);
  expect_collective(p.before[0], Kind::all_gather, Operand::lhs, axes({"X", "Y"}), 0, 128, 4);
  EXPECT_EQ(p.local_out, book("C[I, K_X]"));
}

// Sub-axes of one axis that do not overlap may shard a free dim each: X = 4 as "X":(1)2 on I and "X":(2)2
// on K is C[I_{X:(1)2}, K_{X:(2)2}], valid as is (case 1). f32 [4,4] . [4,4]: local [2,4] . [4,2].
TEST(MatmulPlanCases, DisjointSubAxesAreNotCase4) {
  const Mesh mesh = make_mesh({{"X", 4}});
  const AxisRef major{"X", SubAxis{1, 2}};
  const AxisRef minor{"X", SubAxis{2, 2}};
  TensorSharding a = book("A[I, J]");
  a.dims[0].axes = {major};
  TensorSharding b = book("B[J, K]");
  b.dims[1].axes = {minor};
  const Einsum e = parse_einsum("IJ,JK->IK");
  const MatmulPlan p = plan_matmul(e, {4, 4}, a, {4, 4}, b, DType::f32, mesh, std::nullopt);
  expect_consistent(p, mesh, e);
  EXPECT_EQ(p.matmul_case, 1);
  EXPECT_TRUE(p.before.empty() && p.after.empty());
  EXPECT_EQ(p.local_out.dims[0].axes, std::vector<AxisRef>{major});
  EXPECT_EQ(p.local_out.dims[1].axes, std::vector<AxisRef>{minor});
  EXPECT_EQ(p.local_out_shape, (Shape{2, 2}));
}

// ---- The seed's JAX example: mesh (X 4, Y 2), A bf16[8,2048] P('X','Y'), B bf16[2048,8192] P(None,'Y') ----
// D is sharded in A only (case 2): gather A over Y, V = A[B_X, D] = 2 x 2048 x 2 = 8192 bytes, group 2.
// Locally [2,2048] . [2048,4096] -> [2,4096], already P('X','Y'): 2 x 2 x 2048 x 4096 = 33,554,432 flops.
TEST(MatmulPlanSeed, JaxEinsumBdDfBf) {
  const Einsum e = parse_einsum("BD,DF->BF");
  const MatmulPlan p = plan_matmul(e, {8, 2048}, parse_partition_spec("P('X', 'Y')", "m", 2), {2048, 8192},
                                   parse_partition_spec("P(None, 'Y')", "m", 2), DType::bf16, mesh_4x2,
                                   parse_partition_spec("P('X', 'Y')", "m", 2));
  expect_consistent(p, mesh_4x2, e);
  EXPECT_EQ(p.matmul_case, 2);
  ASSERT_EQ(p.before.size(), 1u);
  expect_collective(p.before[0], Kind::all_gather, Operand::lhs, axes({"Y"}), 1, 8192, 2);
  EXPECT_TRUE(p.after.empty());
  EXPECT_EQ(p.local_out, parse_partition_spec("P('X', 'Y')", "m", 2));
  EXPECT_EQ(p.local_lhs_shape, (Shape{2, 2048}));
  EXPECT_EQ(p.local_rhs_shape, (Shape{2048, 4096}));
  EXPECT_EQ(p.local_out_shape, (Shape{2, 4096}));
  EXPECT_DOUBLE_EQ(p.local_flops, 33554432.0);
  EXPECT_EQ(p.m, 2u);
  EXPECT_EQ(p.k, 2048u);
  EXPECT_EQ(p.n, 4096u);
}

// ---- Several axes on one dim ----

// A[I_XY, J] . B[J, K]: I splits 4 ways, no communication. f32 [8,4] . [4,4]: local [2,4] -> [2,4].
TEST(MatmulPlanMultiAxis, RowsOverXY) {
  const MatmulPlan p = plan("IJ,JK->IK", {8, 4}, "A[I_XY, J]", {4, 4}, "B[J, K]", DType::f32, mesh_2x2, std::nullopt);
  EXPECT_EQ(p.matmul_case, 1);
  EXPECT_TRUE(p.before.empty() && p.after.empty());
  EXPECT_EQ(p.local_out, book("C[I_XY, K]"));
  EXPECT_EQ(p.local_out_shape, (Shape{2, 4}));
}

// A[I, J_XY] . B[J_XY, K], f32 [4,8] . [8,4]: partial sums over X and Y, local out 4 x 4 f32 = 64 bytes.
TEST(MatmulPlanMultiAxis, ContractingOverXYReduceScatters) {
  const char* ij = "A[I, J_XY]";
  const char* jk = "B[J_XY, K]";
  // C[I_XY, K]: one reduce-scatter over both axes, V = 64, group 4.
  const MatmulPlan both = plan("IJ,JK->IK", {4, 8}, ij, {8, 4}, jk, DType::f32, mesh_2x2, need("C[I_XY, K]"));
  EXPECT_EQ(both.local_out, book("C[I, K]{U_XY}"));
  ASSERT_EQ(both.after.size(), 1u);
  expect_collective(both.after[0], Kind::reduce_scatter, Operand::out, axes({"X", "Y"}), 0, 64, 4);

  // C[I_X, K]: reduce-scatter X into I (V = 64), then all-reduce Y on the 2 x 4 f32 shard (V = 32).
  const MatmulPlan x_only = plan("IJ,JK->IK", {4, 8}, ij, {8, 4}, jk, DType::f32, mesh_2x2, need("C[I_X, K]"));
  ASSERT_EQ(x_only.after.size(), 2u);
  expect_collective(x_only.after[0], Kind::reduce_scatter, Operand::out, axes({"X"}), 0, 64, 2);
  expect_collective(x_only.after[1], Kind::all_reduce, Operand::out, axes({"Y"}), -1, 32, 2);
  EXPECT_EQ(x_only.after[1].before, book("C[I_X, K]{U_Y}"));

  // C[I_Y, K_X]: reduce-scatter Y into I (V = 64), then X into K (V = 2 x 4 f32 = 32).
  const MatmulPlan split = plan("IJ,JK->IK", {4, 8}, ij, {8, 4}, jk, DType::f32, mesh_2x2, need("C[I_Y, K_X]"));
  ASSERT_EQ(split.after.size(), 2u);
  expect_collective(split.after[0], Kind::reduce_scatter, Operand::out, axes({"Y"}), 0, 64, 2);
  expect_collective(split.after[1], Kind::reduce_scatter, Operand::out, axes({"X"}), 1, 32, 2);
}

// J_XY in A but J_X in B: both keep X (case 3) and A gathers its minor Y first (case 2): A[I, J_X] is
// 4 x 4 f32 = 64 bytes after the gather.
TEST(MatmulPlanMultiAxis, ContractingCommonPrefixStays) {
  const MatmulPlan p = plan("IJ,JK->IK", {4, 8}, "A[I, J_XY]", {8, 4}, "B[J_X, K]", DType::f32, mesh_2x2, std::nullopt);
  EXPECT_EQ(p.matmul_case, 3);
  ASSERT_EQ(p.before.size(), 1u);
  expect_collective(p.before[0], Kind::all_gather, Operand::lhs, axes({"Y"}), 1, 64, 2);
  EXPECT_EQ(p.before[0].reason,
            "case 2: contracting dim J is sharded over XY in lhs but over X in rhs: all-gather lhs over Y; both keep X "
            "(case 3)");
  EXPECT_EQ(p.local_out, book("C[I, K]{U_X}"));
}

// J_X in A and J_Y in B: nothing in common, both gather (A: 4 x 8 f32 = 128, B: 8 x 4 f32 = 128).
TEST(MatmulPlanMultiAxis, ContractingOverDifferentAxesGathersBoth) {
  const MatmulPlan p = plan("IJ,JK->IK", {4, 8}, "A[I, J_X]", {8, 4}, "B[J_Y, K]", DType::f32, mesh_2x2, std::nullopt);
  EXPECT_EQ(p.matmul_case, 2);
  ASSERT_EQ(p.before.size(), 2u);
  expect_collective(p.before[0], Kind::all_gather, Operand::lhs, axes({"X"}), 1, 128, 2);
  expect_collective(p.before[1], Kind::all_gather, Operand::rhs, axes({"Y"}), 0, 128, 2);
  EXPECT_EQ(p.before[1].reason,
            "case 2: contracting dim J is sharded over X in lhs but over Y in rhs: all-gather rhs over Y");
}

// ---- Padding: dims the shard count does not divide (local = ceil) ----

// A f32[3,5] as A[I, J_X], B [5,7] as B[J_X, K], X = 2: J pads to 6, local J = 3. Local out [3,7]{U_X}:
// V = 3 x 7 x 4 = 84 bytes before the reduce-scatter into I (after: ceil(3/2) = 2 rows).
// Flops 2 x 3 x 3 x 7 = 126 (padding included).
TEST(MatmulPlanPadding, CeilShardsInBytesAndFlops) {
  const MatmulPlan p =
      plan("IJ,JK->IK", {3, 5}, "A[I, J_X]", {5, 7}, "B[J_X, K]", DType::f32, two_ranks, need("C[I_X, K]"));
  EXPECT_EQ(p.local_lhs_shape, (Shape{3, 3}));
  EXPECT_EQ(p.local_rhs_shape, (Shape{3, 7}));
  EXPECT_EQ(p.local_out_shape, (Shape{3, 7}));
  ASSERT_EQ(p.after.size(), 1u);
  expect_collective(p.after[0], Kind::reduce_scatter, Operand::out, axes({"X"}), 0, 84, 2);
  EXPECT_DOUBLE_EQ(p.local_flops, 126);
  EXPECT_EQ(p.m, 3u);
  EXPECT_EQ(p.k, 3u);
  EXPECT_EQ(p.n, 7u);
}

// C[I_X, K_Y] of [3,7] on 2 x 2 gathered into C[I, K_Y]: V after = 3 x ceil(7/2) = 3 x 4 f32 = 48 bytes.
TEST(MatmulPlanPadding, GatherKeepsThePaddedOtherDim) {
  const MatmulPlan p =
      plan("IJ,JK->IK", {3, 5}, "A[I_X, J]", {5, 7}, "B[J, K_Y]", DType::f32, mesh_2x2, need("C[I, K_Y]"));
  ASSERT_EQ(p.after.size(), 1u);
  expect_collective(p.after[0], Kind::all_gather, Operand::out, axes({"X"}), 0, 48, 2);
  EXPECT_EQ(p.local_out_shape, (Shape{2, 4}));
}

// ---- Batch dims (rule 3) ----

// Identical batch sharding: f32 A[4,2,3], B[4,3,5] with B over X = 2: local 2 x (2x3 . 3x5), m = 2 x 2.
TEST(MatmulPlanBatch, IdenticalBatchShardingIsLocal) {
  const MatmulPlan p =
      plan("BIJ,BJK->BIK", {4, 2, 3}, "A[B_X, I, J]", {4, 3, 5}, "W[B_X, J, K]", DType::f32, mesh_2x2, std::nullopt);
  EXPECT_EQ(p.matmul_case, 1);
  EXPECT_TRUE(p.before.empty() && p.after.empty());
  EXPECT_EQ(p.local_out_shape, (Shape{2, 2, 5}));
  EXPECT_DOUBLE_EQ(p.local_flops, 120);  // 2 x 2 x 2 x 3 x 5
  EXPECT_EQ(p.m, 4u);
  EXPECT_EQ(p.k, 3u);
  EXPECT_EQ(p.n, 5u);
}

// B sharded in A only and X unused in W: W keeps its block of the batch (a local slice, no communication).
TEST(MatmulPlanBatch, ReplicatedSideSlicesLocally) {
  const MatmulPlan p =
      plan("BIJ,BJK->BIK", {4, 2, 3}, "A[B_X, I, J]", {4, 3, 5}, "W[B, J, K]", DType::f32, mesh_2x2, std::nullopt);
  EXPECT_TRUE(p.before.empty());
  EXPECT_EQ(p.rhs, book("W[B_X, J, K]"));
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_EQ(p.notes[0],
            "batch dim B is sharded over X in lhs but unsharded in rhs: rhs slices its local block over X (no "
            "communication)");
  EXPECT_EQ(p.local_out, book("C[B_X, I, K]"));
}

// W already uses X on K, so it cannot take X on B: A gathers B over X, V = A = 4 x 2 x 3 f32 = 96 bytes.
TEST(MatmulPlanBatch, OtherwiseGathersToAgree) {
  const MatmulPlan p =
      plan("BIJ,BJK->BIK", {4, 2, 3}, "A[B_X, I, J]", {4, 3, 6}, "W[B, J, K_X]", DType::f32, mesh_2x2, std::nullopt);
  ASSERT_EQ(p.before.size(), 1u);
  expect_collective(p.before[0], Kind::all_gather, Operand::lhs, axes({"X"}), 0, 96, 2);
  EXPECT_EQ(p.before[0].reason,
            "batch dim B is sharded over X in lhs but unsharded in rhs: all-gather lhs over X on dim B");
  EXPECT_EQ(p.matmul_case, 1);
  EXPECT_EQ(p.local_out, book("C[B, I, K_X]"));
}

// ---- Other shapes of einsum ----

// The output may order its dims freely: C[K_Y, I_X] from A[I_X, J] . B[J, K_Y], local [3, 2] of [6, 4].
TEST(MatmulPlanEinsum, TransposedOutput) {
  const MatmulPlan p = plan("IJ,JK->KI", {4, 8}, "A[I_X, J]", {8, 6}, "B[J, K_Y]", DType::f32, mesh_2x2, std::nullopt);
  EXPECT_EQ(p.out_shape, (Shape{6, 4}));
  EXPECT_EQ(p.local_out, book("C[K_Y, I_X]"));
  EXPECT_EQ(p.local_out_shape, (Shape{3, 2}));
  EXPECT_TRUE(p.before.empty() && p.after.empty());
}

// A dot product of two f32[8] vectors split over X = 2: the local product is one partial scalar (4 bytes),
// all-reduced; 2 x 4 = 8 local flops.
TEST(MatmulPlanEinsum, DotProductToAScalar) {
  const Einsum e = parse_einsum("J,J->");
  TensorSharding v = book("V[J_X]");
  const MatmulPlan p = plan_matmul(e, {8}, v, {8}, v, DType::f32, two_ranks, std::nullopt);
  expect_consistent(p, two_ranks, e);
  EXPECT_EQ(p.matmul_case, 3);
  EXPECT_TRUE(p.local_out.dims.empty());
  EXPECT_EQ(p.local_out.unreduced, axes({"X"}));
  ASSERT_EQ(p.after.size(), 1u);
  expect_collective(p.after[0], Kind::all_reduce, Operand::out, axes({"X"}), -1, 4, 2);
  EXPECT_DOUBLE_EQ(p.local_flops, 8);
  EXPECT_EQ(p.m, 1u);
  EXPECT_EQ(p.k, 4u);
  EXPECT_EQ(p.n, 1u);
}

// Multi-letter axis names read as the book writes them in braces: {model}. bf16 [4,8] . [8,4] on
// {data: 2, model: 2}: C[I_{data}, K]{U_{model}} is 2 x 4 bf16 = 16 bytes per device before the all-reduce.
TEST(MatmulPlanEinsum, NamedAxesInReasons) {
  const Mesh mesh = make_mesh({{"data", 2}, {"model", 2}});
  const MatmulPlan p =
      plan("IJ,JK->IK", {4, 8}, "A[I_{data}, J_{model}]", {8, 4}, "B[J_{model}, K]", DType::bf16, mesh, std::nullopt);
  EXPECT_EQ(p.local_out, book("C[I_{data}, K]{U_{model}}"));
  ASSERT_EQ(p.after.size(), 1u);
  expect_collective(p.after[0], Kind::all_reduce, Operand::out, axes({"model"}), -1, 16, 2);
  EXPECT_EQ(p.after[0].reason,
            "case 3: all-reduce the partial sums over {model}: the required sharding neither shards over nor keeps "
            "unreduced {model}");
}

// ---- Rejections ----

TEST(MatmulPlanErrors, EveryRejectionMessage) {
  const Einsum e = parse_einsum("IJ,JK->IK");
  const auto f32 = DType::f32;
  const auto a = book("A[I, J_X]");
  const auto b = book("B[J_X, K]");
  auto run = [&](const Shape& as, const TensorSharding& at, const Shape& bs, const TensorSharding& bt,
                 const std::optional<TensorSharding>& out) {
    return verify_error([&] { plan_matmul(e, as, at, bs, bt, f32, two_ranks, out); });
  };
  EXPECT_EQ(run({2, 2, 2}, a, {2, 2}, b, std::nullopt),
            "lhs shape has 3 dims but its subscripts \"IJ\" name 2, got: 2x2x2");
  EXPECT_EQ(run({2, 2}, a, {2, -3}, b, std::nullopt), "rhs shape: dim 1 has a negative size, got: -3");
  EXPECT_EQ(run({2, 2}, book("A[I, J_X, L]"), {2, 2}, b, std::nullopt),
            "lhs sharding: sharding doesn't match tensor rank: 3 != 2");
  EXPECT_EQ(run({2, 2}, book("A[I, J_Z]"), {2, 2}, b, std::nullopt), "lhs sharding: unknown axis name: \"Z\"");
  EXPECT_EQ(run({2, 8}, a, {4, 2}, b, std::nullopt),
            "label 'J' must have one size in both operands, got: 8 in lhs and 4 in rhs");
  TensorSharding other = b;
  other.mesh_name = "n";
  EXPECT_EQ(run({2, 2}, a, {2, 2}, other, std::nullopt),
            "matmul operands must be on one mesh, got: lhs on @m and rhs on @n");
  TensorSharding other_out = book("C[I, K]");
  other_out.mesh_name = "n";
  EXPECT_EQ(run({2, 2}, a, {2, 2}, b, other_out),
            "the required output must be on the operands' mesh, got: @n (operands on @m)");
  EXPECT_EQ(run({2, 2}, book("A[I, J]{U_X}"), {2, 2}, book("B[J, K]"), std::nullopt),
            "matmul operands must not hold partial sums, reduce lhs first, got: lhs unreduced X");
  EXPECT_EQ(run({2, 2}, book("A[I_X, J]"), {2, 2}, book("B[J, K]"), book("C[I_X, K_X]")),
            "required output sharding: duplicate axis ref: \"X\"");
  EXPECT_EQ(run({2, 2}, a, {2, 2}, b, book("C[I, K, L]")),
            "required output sharding: sharding doesn't match tensor rank: 3 != 2");
  EXPECT_EQ(run({2, 2}, book("A[I, J]"), {2, 2}, book("B[J, K]"), book("C[I, K]{U_X}")),
            "required output cannot be reached: axis X is unreduced in it but the local matmul leaves no partial "
            "sums over it, got: local output unreduced none");

  TensorSharding inline_a = book("A[I, J]");
  inline_a.mesh_name.clear();
  inline_a.inline_mesh = make_mesh({{"X", 4}});
  TensorSharding inline_b = book("B[J, K]");
  inline_b.mesh_name.clear();
  inline_b.inline_mesh = inline_a.inline_mesh;
  EXPECT_EQ(run({2, 2}, inline_a, {2, 2}, inline_b, std::nullopt),
            "lhs sharding: its inline mesh is not the mesh of the plan, got: <[\"X\"=4]> (plan on <[\"X\"=2]>)");
}

}  // namespace
}  // namespace podsim
