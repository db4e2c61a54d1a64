// Per-device values: distributing and assembling (padding, device_ids permutations, disagreeing replicas), the
// design card's local partial products, and the errors of local matmuls whose operands do not line up.
#include "models/plan/sharded_values.hpp"

#include <gtest/gtest.h>

#include <string>

#include "models/common/error.hpp"
#include "models/sharding/book_notation.hpp"
#include "tests/plan/design_card.hpp"
#include "tests/plan/matmul_test_helpers.hpp"
#include "tests/support/sharding_builders.hpp"

namespace podsim {
namespace {

using test::kA;
using test::kB;
using test::kPair;
using test::verify_error;

// The design card: the inner dim J split over X, rank 0 owning j=0 and rank 1 owning j=1. Rank 0 holds column 0
// of A and row 0 of B, so C0 = [[1*5, 1*6], [3*5, 3*6]] = [[5,6],[15,18]]; rank 1 holds column 1 and row 1,
// C1 = [[2*7, 2*8], [4*7, 4*8]] = [[14,16],[28,32]].
TEST(ShardedValues, DesignCardPartialProducts) {
  const ShardedValues a = distribute(kA, book("A[I, J_X]"), kPair);
  const ShardedValues b = distribute(kB, book("B[J_X, K]"), kPair);
  EXPECT_EQ(a.local(0), matrix({{1}, {3}}));
  EXPECT_EQ(a.local(1), matrix({{2}, {4}}));
  EXPECT_EQ(b.local(0), matrix({{5, 6}}));
  EXPECT_EQ(b.local(1), matrix({{7, 8}}));

  const ShardedValues c = local_matmul(parse_einsum("IJ,JK->IK"), a, b, book("C[I, K]{U_X}"));
  EXPECT_EQ(c.global_shape(), (Shape{2, 2}));
  EXPECT_EQ(c.local(0), matrix({{5, 6}, {15, 18}}));
  EXPECT_EQ(c.local(1), matrix({{14, 16}, {28, 32}}));
  EXPECT_EQ(verify_error([&] { assemble(c); }),
            "cannot assemble a tensor that is unreduced over \"X\": its local arrays are partial sums; reduce it first "
            "(all-reduce or reduce-scatter)");
}

// A planner that forgets the unreduced axis claims the two partial products are replicas of C: assembling them
// finds C[0,0] = 5 on rank 0 and 14 on rank 1.
TEST(ShardedValues, ForgottenUnreducedAxisIsCaughtAsDisagreeingReplicas) {
  const ShardedValues a = distribute(kA, book("A[I, J_X]"), kPair);
  const ShardedValues b = distribute(kB, book("B[J_X, K]"), kPair);
  const ShardedValues c = local_matmul(parse_einsum("IJ,JK->IK"), a, b, book("C[I, K]"));
  EXPECT_EQ(verify_error([&] { assemble(c); }),
            "replicas disagree at element [0, 0]: device 0 holds 5, device 1 holds 14");
}

// Output rows split over X need no communication: rank 0 computes row 0 of C = [19, 22], rank 1 row 1 = [43, 50].
TEST(ShardedValues, RowSplitProductIsFinished) {
  const ShardedValues a = distribute(kA, book("A[I_X, J]"), kPair);
  const ShardedValues b = distribute(kB, book("B[J, K]"), kPair);
  const ShardedValues c = local_matmul(parse_einsum("IJ,JK->IK"), a, b, book("C[I_X, K]"));
  EXPECT_EQ(c.local(0), matrix({{19, 22}}));
  EXPECT_EQ(c.local(1), matrix({{43, 50}}));
  EXPECT_EQ(assemble(c), matrix({{19, 22}, {43, 50}}));
}

// 3x4 over 2 shards of the first dim: local 2x4 (ceil(3/2) = 2). Rank 0 holds rows 0-1, rank 1 row 2 and one row
// of padding, which distribute zeroes and assemble ignores.
TEST(ShardedValues, PaddingRowsAreZeroAndIgnored) {
  const DenseArray global = matrix({{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}});
  const ShardedValues v = distribute(global, book("A[I_X, J]"), kPair);
  EXPECT_EQ(v.local_shape(), (Shape{2, 4}));
  EXPECT_EQ(v.local(0), matrix({{1, 2, 3, 4}, {5, 6, 7, 8}}));
  EXPECT_EQ(v.local(1), matrix({{9, 10, 11, 12}, {0, 0, 0, 0}}));
  EXPECT_EQ(device_ranges(v, 1), (std::vector<Range>{{2, 3}, {0, 4}}));
  EXPECT_EQ(assemble(v), global);

  const ShardedValues dirty({3, 4}, book("A[I_X, J]"), kPair,
                            {matrix({{1, 2, 3, 4}, {5, 6, 7, 8}}), matrix({{9, 10, 11, 12}, {-1, 99, 99, -1}})});
  EXPECT_EQ(assemble(dirty), global);
}

// device_ids = [2, 0, 3, 1] on {X: 2, Y: 2}: logical position p = 2x + y holds device device_ids[p], so device 0
// sits at (x=0, y=1) and device 3 at (1, 0). With A[i][j] = 4i + j + 1 and A[I_X, J_Y], device 0 holds rows 0-1,
// columns 2-3 = [[3,4],[7,8]]; device 3 rows 2-3, columns 0-1 = [[9,10],[13,14]].
TEST(ShardedValues, DeviceIdsPermutation) {
  const Mesh mesh = make_mesh({{"X", 2}, {"Y", 2}}, {2, 0, 3, 1});
  DenseArray a(Shape{4, 4});
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<double>(i + 1);
  const ShardedValues v = distribute(a, book("A[I_X, J_Y]"), mesh);
  EXPECT_EQ(v.local(0), matrix({{3, 4}, {7, 8}}));
  EXPECT_EQ(v.local(3), matrix({{9, 10}, {13, 14}}));
  EXPECT_EQ(v.local(2), matrix({{1, 2}, {5, 6}}));  // position 0: (0, 0)
  EXPECT_EQ(v.locals()[1], v.local(0));             // locals() is in logical order
  EXPECT_EQ(assemble(v), a);
  EXPECT_EQ(verify_error([&] { v.local(4); }), "device is not in the mesh, got: 4 (the mesh has 4 devices)");
}

// A[I, J] on {X: 2} is replicated over X: both devices must hold the same values.
TEST(ShardedValues, ReplicasMustAgree) {
  const Mesh mesh = make_mesh({{"X", 2}});
  const ShardedValues v({1, 2}, book("A[I, J]"), mesh, {matrix({{1, 2}}), matrix({{1, 5}})});
  EXPECT_EQ(verify_error([&] { assemble(v); }),
            "replicas disagree at element [0, 1]: device 0 holds 2, device 1 holds 5");
  const ShardedValues same({1, 2}, book("A[I, J]"), mesh, {matrix({{1, 2}}), matrix({{1, 2}})});
  EXPECT_EQ(assemble(same), matrix({{1, 2}}));
}

TEST(ShardedValues, ConstructionErrors) {
  EXPECT_EQ(verify_error([] {
              ShardedValues({3, 4}, book("A[I_X, J]"), kPair, {DenseArray(Shape{2, 4})});
            }),
            "sharded values need one local array per device: the mesh has 2 devices, got: 1");
  EXPECT_EQ(verify_error([] {
              ShardedValues({3, 4}, book("A[I_X, J]"), kPair, {DenseArray(Shape{2, 4}), DenseArray(Shape{3, 4})});
            }),
            "local array of device 1 must have the local shape 2x4, got: 3x4");
  EXPECT_EQ(verify_error([] {
              ShardedValues({2}, book("A[I_Z]"), kPair, {DenseArray(Shape{1}), DenseArray(Shape{1})});
            }),
            "unknown axis name: \"Z\"");
  EXPECT_EQ(verify_error([] {
              distribute(matrix({{1, 2}}), book("A[I, J]{U_X}"), kPair);
            }),
            "cannot distribute a finished array as unreduced over \"X\": unreduced local arrays are partial sums that "
            "a local product makes");
}

TEST(LocalMatmul, OperandsThatDoNotLineUp) {
  const Einsum e = parse_einsum("IJ,JK->IK");
  const ShardedValues a_cols = distribute(kA, book("A[I, J_X]"), kPair);
  const ShardedValues a_rows = distribute(kA, book("A[I_X, J]"), kPair);
  const ShardedValues b = distribute(kB, book("B[J, K]"), kPair);
  EXPECT_EQ(verify_error([&] { local_matmul(e, a_cols, b, book("C[I, K]{U_X}")); }),
            "local matmul IJ,JK->IK: device 0 holds [0, 1) of contracting label 'J' in the left operand but [0, 2) in "
            "the right");
  EXPECT_EQ(verify_error([&] { local_matmul(e, a_rows, b, book("C[I, K]")); }),
            "local matmul IJ,JK->IK: the output block of device 0 needs [0, 2) of label 'I' but the left operand "
            "holds [0, 1)");

  const ShardedValues partial = local_matmul(e, a_cols, distribute(kB, book("B[J_X, K]"), kPair), book("C[I, K]{U_X}"));
  EXPECT_EQ(verify_error([&] { local_matmul(e, partial, partial, book("D[I, K]{U_X}")); }),
            "local matmul IJ,JK->IK: both operands are unreduced over \"X\": the local product of two partial sums is "
            "not a partial sum of the product");
  EXPECT_EQ(verify_error([&] {
              local_matmul(e, a_rows, distribute(kA, book("A[I, J]"), make_mesh({{"X", 4}})), book("C[I_X, K]"));
            }),
            "local matmul IJ,JK->IK: the operands live on different meshes");
}

// An unreduced left operand times a replicated right one stays a partial sum: (C0 + C1) B = C0 B + C1 B.
TEST(LocalMatmul, PartialSumTimesReplicatedStaysPartial) {
  const Einsum e = parse_einsum("IJ,JK->IK");
  const ShardedValues c = local_matmul(e, distribute(kA, book("A[I, J_X]"), kPair),
                                       distribute(kB, book("B[J_X, K]"), kPair), book("C[I, K]{U_X}"));
  const ShardedValues id = distribute(matrix({{1, 0}, {0, 2}}), book("D[J, K]"), kPair);
  const ShardedValues d = local_matmul(e, c, id, book("E[I, K]{U_X}"));
  EXPECT_EQ(d.local(0), matrix({{5, 12}, {15, 36}}));  // C0 with column 1 doubled
  EXPECT_EQ(d.local(1), matrix({{14, 32}, {28, 64}}));
}

}  // namespace
}  // namespace podsim
