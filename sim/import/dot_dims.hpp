// A dot's dimension numbers as both readers of `podsim import` read them (StableHLO's dot_general, partitioned
// HLO's dot): the batch and contracting dims paired between the operands, then the einsum they give
// (docs/import.md, "The einsum of a dot_general"). Each reader words its own refusals; the rules are here.
#pragma once

#include <cstdint>
#include <vector>

#include "models/plan/einsum.hpp"

namespace podsim::import {

enum class DotRole { free, batch, contracting };

// Why a list of paired dims is refused.
enum class DotDimsProblem { none, lengths_differ, out_of_range_or_repeated, sizes_differ };

// The dims of the two operands of a dot, paired so far.
class DotDims {
 public:
  DotDims(std::vector<std::int64_t> lhs_shape, std::vector<std::int64_t> rhs_shape);

  // Pairs lhs dim l[k] with rhs dim r[k] for each k, in `role` (batch or contracting); stops at the first pair that
  // breaks a rule: lists of different lengths, a dim out of range or already paired, paired dims of different sizes.
  DotDimsProblem pair(const std::vector<std::int64_t>& l, const std::vector<std::int64_t>& r, DotRole role);

  // The einsum: the lhs dims take `A`, `B`, ... in order, a paired rhs dim its lhs dim's letter, the rhs's free dims
  // the next letters; the output is the batch dims in the order paired, then the lhs's free dims, then the rhs's.
  // At most 26 dims in all.
  Einsum einsum() const;
  // The result's shape in the einsum's output order.
  std::vector<std::int64_t> result_shape() const;

 private:
  std::vector<std::int64_t> lhs_, rhs_;
  std::vector<DotRole> lhs_role_, rhs_role_;
  std::vector<int> rhs_pair_;            // the lhs dim each rhs dim is paired with; -1: free
  std::vector<std::int64_t> lhs_batch_;  // the lhs's batch dims, in the order paired
};

}  // namespace podsim::import
