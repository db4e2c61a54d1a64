// Dense arrays: indexing, the reference einsum on products worked by hand, the deterministic fill and the
// comparison that names the first mismatch.
#include "models/plan/dense_array.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "models/common/error.hpp"
#include "tests/support/sharding_builders.hpp"

namespace podsim {
namespace {

using test::verify_error;

TEST(DenseArray, RowMajorIndexing) {
  const DenseArray a = matrix({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(a.shape(), (Shape{2, 3}));
  EXPECT_EQ(a.size(), 6u);
  EXPECT_EQ(a.at({1, 0}), 4);
  EXPECT_EQ(a.offset({1, 2}), 5u);  // 1 * 3 + 2
  EXPECT_EQ(a.index_of(4), (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(DenseArray(Shape{2, 2}), DenseArray(Shape{2, 2}, {0, 0, 0, 0}));
  const DenseArray scalar;
  EXPECT_EQ(scalar.rank(), 0u);
  EXPECT_EQ(scalar.size(), 1u);
}

TEST(DenseArray, Errors) {
  EXPECT_EQ(verify_error([] {
              DenseArray(Shape{2, 2}, {1, 2, 3});
            }),
            "dense array of shape 2x2 needs 4 values, got: 3");
  EXPECT_EQ(verify_error([] { DenseArray(Shape{2, -1}); }), "dense array dim 1 has a negative size, got: 2x-1");
  EXPECT_EQ(verify_error([] {
              DenseArray(Shape{1 << 13, 1 << 12});
            }),
            "dense arrays hold at most 16777216 elements (functional mode is for small tensors), got: 8192x4096");
  const DenseArray a = matrix({{1, 2}, {3, 4}});
  EXPECT_EQ(verify_error([&] { a.at({0, 2}); }), "index [0, 2] is out of bounds of shape 2x2");
  EXPECT_EQ(verify_error([&] { a.at({0}); }), "index [0] has rank 1, the array has shape 2x2");
  EXPECT_EQ(verify_error([] { matrix({{1, 2}, {3}}); }), "matrix rows must have the same length, got: 1 and 2");
}

// The design card's product: [[1,2],[3,4]] [[5,6],[7,8]] = [[1*5+2*7, 1*6+2*8], [3*5+4*7, 3*6+4*8]].
TEST(DenseEinsum, DesignCardProduct) {
  const DenseArray c = dense_einsum(parse_einsum("IJ,JK->IK"), matrix({{1, 2}, {3, 4}}), matrix({{5, 6}, {7, 8}}));
  EXPECT_EQ(c, matrix({{19, 22}, {43, 50}}));
}

// A^T B: the contracted label leads in both operands. A^T = [[1,3],[2,4]]; rows times B:
// [1*5+3*7, 1*6+3*8] = [26, 30], [2*5+4*7, 2*6+4*8] = [38, 44].
TEST(DenseEinsum, ContractingTheLeadingDim) {
  const DenseArray c = dense_einsum(parse_einsum("JI,JK->IK"), matrix({{1, 2}, {3, 4}}), matrix({{5, 6}, {7, 8}}));
  EXPECT_EQ(c, matrix({{26, 30}, {38, 44}}));
}

// Batch 0 is the card's product, batch 1 multiplies [[2,0],[1,3]] by the identity.
TEST(DenseEinsum, BatchLabel) {
  const DenseArray a(Shape{2, 2, 2}, {1, 2, 3, 4, 1, 0, 0, 1});
  const DenseArray b(Shape{2, 2, 2}, {5, 6, 7, 8, 2, 0, 1, 3});
  const DenseArray c = dense_einsum(parse_einsum("bij,bjk->bik"), a, b);
  EXPECT_EQ(c, DenseArray(Shape{2, 2, 2}, {19, 22, 43, 50, 2, 0, 1, 3}));
}

// An outer product has no contracted label: [1,2] x [3,4,5].
TEST(DenseEinsum, OuterProduct) {
  const DenseArray c =
      dense_einsum(parse_einsum("i,j->ij"), DenseArray(Shape{2}, {1, 2}), DenseArray(Shape{3}, {3, 4, 5}));
  EXPECT_EQ(c, matrix({{3, 4, 5}, {6, 8, 10}}));
}

// Output labels in another order than the operands: (AB)^T.
TEST(DenseEinsum, TransposedOutput) {
  const DenseArray c = dense_einsum(parse_einsum("IJ,JK->KI"), matrix({{1, 2}, {3, 4}}), matrix({{5, 6}, {7, 8}}));
  EXPECT_EQ(c, matrix({{19, 43}, {22, 50}}));
}

TEST(DenseEinsum, Errors) {
  const Einsum e = parse_einsum("IJ,JK->IK");
  EXPECT_EQ(verify_error([&] {
              dense_einsum(e, matrix({{1, 2}}), DenseArray(Shape{2}, {1, 2}));
            }),
            "einsum IJ,JK->IK: the right operand has rank 1 but its subscripts name 2 dims, got shape: 2");
  EXPECT_EQ(verify_error([&] {
              dense_einsum(e, matrix({{1, 2}}), matrix({{1, 2}}));
            }),
            "einsum IJ,JK->IK: label 'J' has size 2 in the left operand and 1 in the right");
}

TEST(SmallIntegerArray, DeterministicSmallIntegers) {
  const DenseArray a = small_integer_array({8, 8}, 7);
  EXPECT_EQ(a, small_integer_array({8, 8}, 7));
  EXPECT_NE(a, small_integer_array({8, 8}, 8));
  std::set<double> seen;
  for (const double v : a.values()) {
    EXPECT_EQ(v, std::floor(v));
    EXPECT_GE(v, -4);
    EXPECT_LE(v, 4);
    seen.insert(v);
  }
  EXPECT_GE(seen.size(), 5u);  // 64 draws from 9 values: a fill that is not spread out would be a bug
}

TEST(Compare, EqualAndMismatches) {
  const DenseArray expected = matrix({{19, 22}, {43, 50}});
  EXPECT_TRUE(compare(expected, expected).equal);
  EXPECT_TRUE(compare(expected, expected).first_mismatch.empty());

  const Comparison wrong = compare(matrix({{19, 6}, {43, 18}}), expected);
  EXPECT_FALSE(wrong.equal);
  EXPECT_EQ(wrong.mismatches, 2u);
  EXPECT_EQ(wrong.first_mismatch, "element [0, 1]: got 6, expected 22 (2 of 4 elements differ)");

  const Comparison shape = compare(matrix({{1, 2}, {3, 4}, {5, 6}, {7, 8}}), expected);
  EXPECT_FALSE(shape.equal);
  EXPECT_EQ(shape.first_mismatch, "shape differs, got: 4x2, expected: 2x2");
}

TEST(Compare, ToleranceAndNaN) {
  EXPECT_TRUE(compare(matrix({{1.25}}), matrix({{1.0}}), 0.25).equal);
  EXPECT_FALSE(compare(matrix({{1.5}}), matrix({{1.0}}), 0.25).equal);
  EXPECT_EQ(compare(matrix({{-0.5}}), matrix({{1.0}})).first_mismatch,
            "element [0, 0]: got -0.5, expected 1 (1 of 1 elements differ)");
  const DenseArray nan = matrix({{std::nan("")}});
  EXPECT_FALSE(compare(nan, nan, 1.0).equal);
}

}  // namespace
}  // namespace podsim
