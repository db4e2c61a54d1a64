// Collectives on values: the design card's two-rank example end to end with its 32-byte ledger, the four matmul
// cases on a 2x2 mesh against the dense einsum, all-to-all, padding, groups, and the schedules that are wrong
// (partial sums concatenated instead of reduced).
#include "models/plan/collective_values.hpp"

#include <gtest/gtest.h>

#include <string>

#include "models/common/error.hpp"
#include "models/sharding/book_notation.hpp"
#include "tests/plan/design_card.hpp"
#include "tests/plan/matmul_test_helpers.hpp"
#include "tests/support/sharding_builders.hpp"

namespace podsim {
namespace {

using test::axis;
using test::kA;
using test::kB;
using test::kPair;
using test::verify_error;

constexpr auto kRS = CollectiveKind::reduce_scatter;
constexpr auto kAG = CollectiveKind::all_gather;
const Mesh kSquare = make_mesh({{"X", 2}, {"Y", 2}});
const Einsum kMatmul = parse_einsum("IJ,JK->IK");
const DenseArray kC = matrix({{19, 22}, {43, 50}});  // the card's product, worked in dense_array_test

// The card's partial products: C0 = [[5,6],[15,18]] on rank 0, C1 = [[14,16],[28,32]] on rank 1.
ShardedValues card_partials() {
  return local_matmul(kMatmul, distribute(kA, book("A[I, J_X]"), kPair), distribute(kB, book("B[J_X, K]"), kPair),
                      book("C[I, K]{U_X}"));
}

// Reduce-scatter with row ownership: rank 0 sends C0 row 1 [15,18] to rank 1 and keeps [5,6]+[14,16] = [19,22];
// rank 1 sends C1 row 0 [14,16] and keeps [15,18]+[28,32] = [43,50]. One f32 row of 2 elements = 8 bytes per rank.
// The all-gather swaps the finished rows, 8 more bytes per rank: 16 per rank, 32 across both senders.
TEST(DesignCard, ReduceScatterThenAllGather) {
  const CollectiveValues rs = reduce_scatter(card_partials(), {axis("X")}, 0);
  EXPECT_EQ(rs.values.sharding(), book("C[I_X, K]"));
  EXPECT_EQ(rs.values.local(0), matrix({{19, 22}}));
  EXPECT_EQ(rs.values.local(1), matrix({{43, 50}}));
  EXPECT_EQ(rs.ledger.kind, kRS);
  EXPECT_EQ(rs.ledger.sends, (std::vector<PayloadSend>{{kRS, 0, 1, 8}, {kRS, 1, 0, 8}}));
  EXPECT_EQ(rs.ledger.bytes_sent_by(0), 8u);
  EXPECT_EQ(rs.ledger.bytes_sent_by(1), 8u);

  const CollectiveValues ag = all_gather(rs.values, {axis("X")}, 0);
  EXPECT_EQ(ag.values.sharding(), book("C[I, K]"));
  EXPECT_EQ(ag.values.local(0), kC);
  EXPECT_EQ(ag.values.local(1), kC);
  EXPECT_EQ(ag.ledger.sends, (std::vector<PayloadSend>{{kAG, 0, 1, 8}, {kAG, 1, 0, 8}}));
  EXPECT_EQ(rs.ledger.total_bytes() + ag.ledger.total_bytes(), 32u);

  const Comparison check = compare(assemble(ag.values), dense_einsum(kMatmul, kA, kB));
  EXPECT_TRUE(check.equal) << check.first_mismatch;
}

// All-reduce of the 2x2 partial: counted as a reduce-scatter and an all-gather of 2-element chunks, 8 + 8 bytes
// per rank, 32 in total, and both ranks end with the whole product.
TEST(DesignCard, AllReduce) {
  const CollectiveValues ar = all_reduce(card_partials(), {axis("X")});
  EXPECT_EQ(ar.values.sharding(), book("C[I, K]"));
  EXPECT_EQ(ar.values.local(0), kC);
  EXPECT_EQ(ar.values.local(1), kC);
  EXPECT_EQ(ar.ledger.kind, CollectiveKind::all_reduce);
  EXPECT_EQ(ar.ledger.bytes_sent_by(0, kRS), 8u);
  EXPECT_EQ(ar.ledger.bytes_sent_by(0, kAG), 8u);
  EXPECT_EQ(ar.ledger.bytes_sent_by(1), 16u);
  EXPECT_EQ(ar.ledger.total_bytes(), 32u);
  EXPECT_EQ(assemble(ar.values), kC);
}

TEST(DesignCard, GatheringPartialSumsIsRefused) {
  EXPECT_EQ(verify_error([] { all_gather(card_partials(), {axis("X")}, 0); }),
            "all-gather over \"X\" would concatenate partial sums: the tensor is unreduced over \"X\"; reduce it first "
            "(reduce-scatter or all-reduce)");
}

// A wrong schedule that relabels the partial products as row shards of a 4x2 tensor gathers four rows of unfinished
// sums; the dense comparison rejects the shape.
TEST(DesignCard, ConcatenatedPartialsAreCaught) {
  const ShardedValues c = card_partials();
  const ShardedValues relabelled({4, 2}, book("C[I_X, K]"), kPair, {c.local(0), c.local(1)});
  const DenseArray gathered = assemble(all_gather(relabelled, {axis("X")}, 0).values);
  EXPECT_EQ(gathered, matrix({{5, 6}, {15, 18}, {14, 16}, {28, 32}}));
  const Comparison check = compare(gathered, dense_einsum(kMatmul, kA, kB));
  EXPECT_FALSE(check.equal);
  EXPECT_EQ(check.first_mismatch, "shape differs, got: 4x2, expected: 2x2");
}

// Each rank keeps its own row of its partial product as if it were finished (C0 row 0 = [5,6], C1 row 1 = [28,32])
// and the rows are gathered: the shapes match, every value is wrong.
TEST(DesignCard, PartialRowsTakenAsFinishedAreCaught) {
  const ShardedValues relabelled({2, 2}, book("C[I_X, K]"), kPair, {matrix({{5, 6}}), matrix({{28, 32}})});
  const DenseArray gathered = assemble(all_gather(relabelled, {axis("X")}, 0).values);
  const Comparison check = compare(gathered, dense_einsum(kMatmul, kA, kB));
  EXPECT_FALSE(check.equal);
  EXPECT_EQ(check.first_mismatch, "element [0, 0]: got 5, expected 19 (4 of 4 elements differ)");
}

// The four matmul cases of the scaling book on {X: 2, Y: 2}, A 4x6 and B 6x4 of small integers, each compared with
// the dense einsum. Payloads: f32, 4 bytes per element.
class MatmulCases : public ::testing::Test {
 protected:
  const DenseArray a_ = small_integer_array({4, 6}, 1);
  const DenseArray b_ = small_integer_array({6, 4}, 2);
  const DenseArray c_ = dense_einsum(kMatmul, a_, b_);

  void expect_product(const ShardedValues& c) {
    const Comparison check = compare(assemble(c), c_);
    EXPECT_TRUE(check.equal) << check.first_mismatch;
  }
};

// Case 1: no contracting dim sharded: A[I_X, J] B[J, K_Y] -> C[I_X, K_Y], no communication.
TEST_F(MatmulCases, NoContractingShard) {
  expect_product(local_matmul(kMatmul, distribute(a_, book("A[I_X, J]"), kSquare),
                              distribute(b_, book("B[J, K_Y]"), kSquare), book("C[I_X, K_Y]")));
}

// Case 2: one operand sharded along the contracting dim: A[I_Y, J_X] is gathered over X first. A's local array is
// 2x3 = 6 f32 = 24 bytes, sent to the one X-partner: 24 bytes per device, 96 in total.
TEST_F(MatmulCases, OneOperandShardedOnContracting) {
  const CollectiveValues a = all_gather(distribute(a_, book("A[I_Y, J_X]"), kSquare), {axis("X")}, 1);
  EXPECT_EQ(a.values.sharding(), book("A[I_Y, J]"));
  EXPECT_EQ(a.ledger.bytes_sent_by(3), 24u);
  EXPECT_EQ(a.ledger.total_bytes(), 96u);
  expect_product(local_matmul(kMatmul, a.values, distribute(b_, book("B[J, K]"), kSquare), book("C[I_Y, K]")));
}

// Case 3: both operands sharded along the contracting dim: C[I_Y, K]{U_X} is a partial sum, 2x4 per device.
// Reduce-scatter into K: each device keeps a 2x2 block and sends the other 2x2 = 16 bytes to its X-partner.
// All-reduce instead: chunks of 8/2 = 4 elements, 16 bytes in each phase.
TEST_F(MatmulCases, BothOperandsShardedOnContracting) {
  const ShardedValues partial = local_matmul(kMatmul, distribute(a_, book("A[I_Y, J_X]"), kSquare),
                                             distribute(b_, book("B[J_X, K]"), kSquare), book("C[I_Y, K]{U_X}"));
  const CollectiveValues rs = reduce_scatter(partial, {axis("X")}, 1);
  EXPECT_EQ(rs.values.sharding(), book("C[I_Y, K_X]"));
  EXPECT_EQ(rs.ledger.bytes_sent_by(2), 16u);
  EXPECT_EQ(rs.ledger.total_bytes(), 64u);
  expect_product(rs.values);

  const CollectiveValues ar = all_reduce(partial, {axis("X")});
  EXPECT_EQ(ar.values.sharding(), book("C[I_Y, K]"));
  EXPECT_EQ(ar.ledger.bytes_sent_by(2, kRS), 16u);
  EXPECT_EQ(ar.ledger.bytes_sent_by(2, kAG), 16u);
  expect_product(ar.values);
}

// Case 4: both operands sharded along a free dim on the same axis: A[I_X, J] B[J, K_X]; gather B over X. B's local
// array is 6x2 = 12 f32 = 48 bytes per device, 192 in total.
TEST_F(MatmulCases, BothFreeDimsOnOneAxis) {
  const CollectiveValues b = all_gather(distribute(b_, book("B[J, K_X]"), kSquare), {axis("X")}, 1);
  EXPECT_EQ(b.ledger.bytes_sent_by(0), 48u);
  EXPECT_EQ(b.ledger.total_bytes(), 192u);
  expect_product(local_matmul(kMatmul, distribute(a_, book("A[I_X, J]"), kSquare), b.values, book("C[I_X, K]")));
}

// Contracting dim over both axes: C{U_XY} reduce-scattered over X then Y into I. A group of 4: each device keeps a
// 1x4 block of its 4x4 partial and sends one 1x4 block (16 bytes) to each of the other 3: 48 bytes per device.
TEST_F(MatmulCases, ReduceScatterOverTwoAxes) {
  const DenseArray a = small_integer_array({4, 8}, 3);
  const DenseArray b = small_integer_array({8, 4}, 4);
  const ShardedValues partial = local_matmul(kMatmul, distribute(a, book("A[I, J_XY]"), kSquare),
                                             distribute(b, book("B[J_XY, K]"), kSquare), book("C[I, K]{U_XY}"));
  const CollectiveValues rs = reduce_scatter(partial, {axis("X"), axis("Y")}, 0);
  EXPECT_EQ(rs.values.sharding(), book("C[I_XY, K]"));
  EXPECT_EQ(rs.ledger.bytes_sent_by(1), 48u);
  const Comparison check = compare(assemble(rs.values), dense_einsum(kMatmul, a, b));
  EXPECT_TRUE(check.equal) << check.first_mismatch;
}

// Case 3 on a mesh whose device_ids are permuted: groups follow logical positions, results the dense product.
TEST_F(MatmulCases, PermutedDeviceIds) {
  const Mesh mesh = make_mesh({{"X", 2}, {"Y", 2}}, {2, 0, 3, 1});
  const ShardedValues partial = local_matmul(kMatmul, distribute(a_, book("A[I_Y, J_X]"), mesh),
                                             distribute(b_, book("B[J_X, K]"), mesh), book("C[I_Y, K]{U_X}"));
  const CollectiveValues rs = reduce_scatter(partial, {axis("X")}, 1);
  const Comparison check = compare(assemble(rs.values), c_);
  EXPECT_TRUE(check.equal) << check.first_mismatch;
  // Device 0 sits at position 1 = (x 0, y 1); its X-partner is position 3 = device 1.
  EXPECT_EQ(rs.ledger.bytes_sent_by(0), 16u);
  EXPECT_EQ(rs.ledger.sends[0], (PayloadSend{kRS, 2, 3, 16}));
}

// {X: 2, Y: 2}: the group of a device over X varies x at fixed y, ordered by x; over [Y, X] by y then x.
TEST(CollectiveGroup, GroupsAlongAxes) {
  EXPECT_EQ(collective_group(kSquare, {axis("X")}, 3), (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(collective_group(kSquare, {axis("Y")}, 3), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(collective_group(kSquare, {axis("X"), axis("Y")}, 1), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(collective_group(kSquare, {axis("Y"), axis("X")}, 1), (std::vector<std::int64_t>{0, 2, 1, 3}));
  EXPECT_EQ(collective_group(kSquare, {}, 2), (std::vector<std::int64_t>{2}));
  // device_ids [2, 0, 3, 1]: device 0 is at position 1 (x 0, y 1); varying x gives positions 1 and 3.
  EXPECT_EQ(collective_group(make_mesh({{"X", 2}, {"Y", 2}}, {2, 0, 3, 1}), {axis("X")}, 0),
            (std::vector<std::int64_t>{0, 1}));
  // X of size 4 seen as [1, 2, 2]: "X":(1)2 is the major factor (positions 2 apart), "X":(2)2 the minor one.
  const Mesh line = make_mesh({{"X", 4}});
  EXPECT_EQ(collective_group(line, {AxisRef{"X", SubAxis{1, 2}}}, 1), (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(collective_group(line, {AxisRef{"X", SubAxis{2, 2}}}, 1), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(verify_error([&] {
              collective_group(line, {axis("X"), AxisRef{"X", SubAxis{2, 2}}}, 0);
            }),
            "collective axes overlap, got: \"X\" and \"X\":(2)2");
  EXPECT_EQ(verify_error([&] { collective_group(line, {axis("Z")}, 0); }), "unknown axis name: \"Z\"");
}

// A[i][j] = 4i + j + 1 as A[I_X, J] on {X: 2}; moving X to J gives device 1 columns 2-3 of every row. Each device
// sends the 2x2 part of its 2x4 rows that the other device owns: 16 bytes.
TEST(AllToAll, MovesAnAxisBetweenDims) {
  DenseArray a(Shape{4, 4});
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<double>(i + 1);
  const ShardedValues rows = distribute(a, book("A[I_X, J]"), kPair);
  const CollectiveValues cols = all_to_all(rows, {axis("X")}, 0, 1);
  EXPECT_EQ(cols.values.sharding(), book("A[I, J_X]"));
  EXPECT_EQ(cols.values.local(1), matrix({{3, 4}, {7, 8}, {11, 12}, {15, 16}}));
  EXPECT_EQ(cols.ledger.sends,
            (std::vector<PayloadSend>{{CollectiveKind::all_to_all, 0, 1, 16}, {CollectiveKind::all_to_all, 1, 0, 16}}));
  EXPECT_EQ(assemble(cols.values), a);
  EXPECT_EQ(all_to_all(cols.values, {axis("X")}, 1, 0).values.locals(), rows.locals());

  // [I_XY, J] -> [I_X, J_Y] on the 2x2 mesh: the same blocks distribute() cuts for the new sharding.
  const CollectiveValues moved = all_to_all(distribute(a, book("A[I_XY, J]"), kSquare), {axis("Y")}, 0, 1);
  EXPECT_EQ(moved.values.locals(), distribute(a, book("A[I_X, J_Y]"), kSquare).locals());
}

// 3x4 over X: all-gather rebuilds the 3 rows on both devices; each sends its padded 2x4 local array, 32 bytes.
// Reduce-scatter of a 3x2 partial into rows: rank 1 keeps row 2 of A B = [5*5+6*7, 5*6+6*8] = [67, 78] and a zero
// padding row.
TEST(Padding, GatherAndScatterNonDivisibleDims) {
  const DenseArray global = matrix({{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}});
  const CollectiveValues ag = all_gather(distribute(global, book("A[I_X, J]"), kPair), {axis("X")}, 0);
  EXPECT_EQ(ag.values.local(0), global);
  EXPECT_EQ(ag.values.local(1), global);
  EXPECT_EQ(ag.ledger.bytes_sent_by(1), 32u);

  const DenseArray a = matrix({{1, 2}, {3, 4}, {5, 6}});
  const ShardedValues partial = local_matmul(kMatmul, distribute(a, book("A[I, J_X]"), kPair),
                                             distribute(kB, book("B[J_X, K]"), kPair), book("C[I, K]{U_X}"));
  const CollectiveValues rs = reduce_scatter(partial, {axis("X")}, 0);
  EXPECT_EQ(rs.values.local(1), matrix({{67, 78}, {0, 0}}));
  EXPECT_EQ(rs.ledger.bytes_sent_by(0), 16u);
  EXPECT_EQ(assemble(rs.values), dense_einsum(kMatmul, a, kB));
}

// 5 rows over [I_XY] are blocks of 2: [0,2) [2,4) [4,5) and padding. Gathering Y asks for blocks of 3; the block
// [3,5) of x = 1 needs row 3, which only the x = 0 group holds.
TEST(Padding, BlocksThatDoNotNest) {
  const ShardedValues v = distribute(small_integer_array({5}, 5), book("A[I_XY]"), kSquare);
  EXPECT_EQ(verify_error([&] { all_gather(v, {axis("Y")}, 0); }),
            "all-gather over \"Y\": element [3] of the new block of device 2 is held by no device of its group (the "
            "padded blocks of 5 before and after do not nest)");
}

// A max-reduction unreduced axis combines with max instead of +.
TEST(AllReduce, MaxReduction) {
  TensorSharding s = book("A[I, J]{U_X}");
  s.unreduced_reduction = Reduction::max;
  const ShardedValues v({1, 2}, s, kPair, {matrix({{1, 5}}), matrix({{3, 2}})});
  const CollectiveValues ar = all_reduce(v, {axis("X")});
  EXPECT_EQ(ar.values.local(0), matrix({{3, 5}}));
  EXPECT_EQ(ar.values.local(1), matrix({{3, 5}}));
}

TEST(Collectives, Errors) {
  const ShardedValues finished = distribute(kA, book("A[I, J]"), kPair);
  EXPECT_EQ(verify_error([&] { reduce_scatter(finished, {axis("X")}, 0); }),
            "reduce-scatter over \"X\" needs a tensor unreduced over \"X\", got unreduced axes: []");
  EXPECT_EQ(verify_error([&] { all_reduce(finished, {axis("X")}); }),
            "all-reduce over \"X\" needs a tensor unreduced over \"X\", got unreduced axes: []");
  EXPECT_EQ(verify_error([&] { all_gather(finished, {axis("X")}, 2); }),
            "all-gather over \"X\": dim 2 is out of range for a tensor of rank 2");
  EXPECT_EQ(verify_error([&] { all_gather(finished, {}, 0); }), "all-gather needs at least one axis");
  const ShardedValues xy = distribute(small_integer_array({4, 2}, 6), book("A[I_XY, J]"), kSquare);
  EXPECT_EQ(verify_error([&] { all_gather(xy, {axis("X")}, 0); }),
            "all-gather over \"X\" must take the minor-most axes of dim 0, got: dim 0 sharded over [\"X\", \"Y\"]");
  EXPECT_EQ(verify_error([&] { all_to_all(xy, {axis("Y")}, 0, 0); }),
            "all-to-all over \"Y\" must move the axes to another dim, got: from dim 0 to dim 0");
  EXPECT_EQ(verify_error([&] { all_to_all(xy, {axis("X")}, 1, 0); }),
            "all-to-all over \"X\" must take the minor-most axes of dim 1, got: dim 1 sharded over []");
}

}  // namespace
}  // namespace podsim
