// A dense row-major array of doubles with a shape: the values functional mode carries. Small exact integers
// keep every product and sum of a test exact, so a plan's result can be compared bit for bit with a dense
// reference einsum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "models/common/shape.hpp"
#include "models/plan/einsum.hpp"

namespace podsim {

class DenseArray {
 public:
  // A rank-0 array holding one zero.
  DenseArray() : values_(1, 0.0) {}
  // Zeros of `shape`. Throws VerifyError on a negative dim or an element count that overflows.
  explicit DenseArray(Shape shape);
  // `values` in row-major order. Throws VerifyError when their count is not the product of the dims.
  DenseArray(Shape shape, std::vector<double> values);

  const Shape& shape() const { return shape_; }
  std::size_t rank() const { return shape_.size(); }
  std::size_t size() const { return values_.size(); }
  const std::vector<double>& values() const { return values_; }

  // Row-major offset of `index`. Throws VerifyError on a wrong rank or an index out of its dim.
  std::size_t offset(const std::vector<std::int64_t>& index) const;
  // Multi-index of a row-major offset (inverse of offset()).
  std::vector<std::int64_t> index_of(std::size_t offset) const;

  double& at(const std::vector<std::int64_t>& index) { return values_[offset(index)]; }
  double at(const std::vector<std::int64_t>& index) const { return values_[offset(index)]; }
  double& operator[](std::size_t flat) { return values_[flat]; }
  double operator[](std::size_t flat) const { return values_[flat]; }

  bool operator==(const DenseArray&) const = default;

 private:
  Shape shape_;
  std::vector<double> values_;
};

// A rank-2 array from its rows, for tests and docs: matrix({{1, 2}, {3, 4}}). Throws VerifyError on ragged rows.
DenseArray matrix(std::initializer_list<std::initializer_list<double>> rows);

// Deterministic small integers in [-4, 4] for `shape`, a function of `seed` and the offset only. Products are at
// most 16 in magnitude, so any sum of fewer than 2^49 of them is exact in a double, whatever the order.
DenseArray small_integer_array(const Shape& shape, std::uint64_t seed);

// The dense reference product of a two-operand einsum: out[o] = sum over contracted labels of lhs * rhs.
// Throws VerifyError when an operand's rank differs from its subscripts or one label has two sizes.
DenseArray dense_einsum(const Einsum& einsum, const DenseArray& lhs, const DenseArray& rhs);

// Outcome of comparing a computed array with a reference.
struct Comparison {
  bool equal = true;
  std::size_t mismatches = 0;  // elements that differ by more than the tolerance (0 on a shape mismatch)
  std::string first_mismatch;  // empty when equal: `shape differs, got: 4x2, expected: 2x2` or
                               // `element [0, 1]: got 6, expected 22 (2 of 4 elements differ)`
};

// Element-wise comparison: equal when the shapes match and |actual - expected| <= tolerance (absolute) for every
// element. A tolerance of 0 asks for exact equality; NaN never matches.
Comparison compare(const DenseArray& actual, const DenseArray& expected, double tolerance = 0.0);

// `[0, 1]`.
std::string format_index(const std::vector<std::int64_t>& index);

// A double as its shortest round-trip text: `19`, `-0.5`, `1e+300`.
std::string format_value(double value);

}  // namespace podsim
