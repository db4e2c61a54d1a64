// A dot's paired dims and einsum (sim/import/dot_dims.hpp), on the examples docs/import.md works by hand.
#include "sim/import/dot_dims.hpp"

#include <gtest/gtest.h>

namespace podsim::import {
namespace {

using Dims = std::vector<std::int64_t>;

TEST(DotDims, EinsumOfTheDocsExamples) {
  // contracting_dims = [1] x [0] on 1024x4096 and 4096x8192: AB,BC->AC of shape 1024x8192.
  DotDims matmul({1024, 4096}, {4096, 8192});
  EXPECT_EQ(matmul.pair({1}, {0}, DotRole::contracting), DotDimsProblem::none);
  EXPECT_EQ(to_string(matmul.einsum()), "AB,BC->AC");
  EXPECT_EQ(matmul.result_shape(), (Dims{1024, 8192}));
  // batching_dims = [0] x [0], contracting_dims = [2] x [1] on 4x8x32 and 4x32x16: ABC,ACD->ABD of 4x8x16.
  DotDims batched({4, 8, 32}, {4, 32, 16});
  EXPECT_EQ(batched.pair({0}, {0}, DotRole::batch), DotDimsProblem::none);
  EXPECT_EQ(batched.pair({2}, {1}, DotRole::contracting), DotDimsProblem::none);
  EXPECT_EQ(to_string(batched.einsum()), "ABC,ACD->ABD");
  EXPECT_EQ(batched.result_shape(), (Dims{4, 8, 16}));
  // A batch dim paired with a later rhs dim: the rhs's free dims take the next letters around it.
  DotDims swapped({4, 8}, {16, 4});
  EXPECT_EQ(swapped.pair({0}, {1}, DotRole::batch), DotDimsProblem::none);
  EXPECT_EQ(to_string(swapped.einsum()), "AB,CA->ABC");
  EXPECT_EQ(swapped.result_shape(), (Dims{4, 8, 16}));
}

TEST(DotDims, RefusedPairings) {
  DotDims d({4, 8}, {8, 16});
  EXPECT_EQ(d.pair({1}, {0, 1}, DotRole::contracting), DotDimsProblem::lengths_differ);
  EXPECT_EQ(d.pair({2}, {0}, DotRole::contracting), DotDimsProblem::out_of_range_or_repeated);
  EXPECT_EQ(d.pair({0}, {0}, DotRole::contracting), DotDimsProblem::sizes_differ);  // 4 against 8
  EXPECT_EQ(d.pair({1}, {0}, DotRole::contracting), DotDimsProblem::none);
  EXPECT_EQ(d.pair({1}, {1}, DotRole::batch), DotDimsProblem::out_of_range_or_repeated);  // lhs dim 1 is paired
}

}  // namespace
}  // namespace podsim::import
