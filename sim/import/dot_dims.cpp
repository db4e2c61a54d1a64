// A dot's paired dims and their einsum: see dot_dims.hpp.
#include "sim/import/dot_dims.hpp"

#include <string>

namespace podsim::import {

DotDims::DotDims(std::vector<std::int64_t> lhs_shape, std::vector<std::int64_t> rhs_shape)
    : lhs_(std::move(lhs_shape)),
      rhs_(std::move(rhs_shape)),
      lhs_role_(lhs_.size(), DotRole::free),
      rhs_role_(rhs_.size(), DotRole::free),
      rhs_pair_(rhs_.size(), -1) {}

DotDimsProblem DotDims::pair(const std::vector<std::int64_t>& l, const std::vector<std::int64_t>& r, DotRole role) {
  if (l.size() != r.size()) return DotDimsProblem::lengths_differ;
  for (std::size_t k = 0; k < l.size(); ++k) {
    if (l[k] < 0 || r[k] < 0 || l[k] >= static_cast<std::int64_t>(lhs_.size()) ||
        r[k] >= static_cast<std::int64_t>(rhs_.size()) || lhs_role_[l[k]] != DotRole::free ||
        rhs_role_[r[k]] != DotRole::free)
      return DotDimsProblem::out_of_range_or_repeated;
    if (lhs_[l[k]] != rhs_[r[k]]) return DotDimsProblem::sizes_differ;
    lhs_role_[l[k]] = rhs_role_[r[k]] = role;
    rhs_pair_[r[k]] = static_cast<int>(l[k]);
    if (role == DotRole::batch) lhs_batch_.push_back(l[k]);
  }
  return DotDimsProblem::none;
}

Einsum DotDims::einsum() const {
  Einsum e;
  for (std::size_t d = 0; d < lhs_.size(); ++d)
    e.lhs += static_cast<char>('A' + d);
  char next = static_cast<char>('A' + lhs_.size());
  for (std::size_t d = 0; d < rhs_.size(); ++d)
    e.rhs += rhs_pair_[d] >= 0 ? e.lhs[rhs_pair_[d]] : next++;
  for (const auto d : lhs_batch_)
    e.out += e.lhs[d];
  for (std::size_t d = 0; d < lhs_.size(); ++d)
    if (lhs_role_[d] == DotRole::free) e.out += e.lhs[d];
  for (std::size_t d = 0; d < rhs_.size(); ++d)
    if (rhs_role_[d] == DotRole::free) e.out += e.rhs[d];
  return e;
}

std::vector<std::int64_t> DotDims::result_shape() const {
  std::vector<std::int64_t> shape;
  for (const auto d : lhs_batch_)
    shape.push_back(lhs_[d]);
  for (std::size_t d = 0; d < lhs_.size(); ++d)
    if (lhs_role_[d] == DotRole::free) shape.push_back(lhs_[d]);
  for (std::size_t d = 0; d < rhs_.size(); ++d)
    if (rhs_role_[d] == DotRole::free) shape.push_back(rhs_[d]);
  return shape;
}

}  // namespace podsim::import
