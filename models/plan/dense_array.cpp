// Dense row-major arrays: indexing, the deterministic small-integer fill, the reference einsum and the
// element-wise comparison that names the first mismatch.
#include "models/plan/dense_array.hpp"

#include <charconv>
#include <cmath>
#include <map>

#include "models/common/error.hpp"

namespace podsim {
namespace {

// Functional mode is for small tensors: 2^24 doubles (128 MiB) is far beyond any test and stops a typo in a shape
// from allocating the machine away.
constexpr std::uint64_t kMaxDenseElements = std::uint64_t{1} << 24;

std::size_t checked_count(const Shape& shape) {
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] < 0)
      throw VerifyError("dense array dim " + std::to_string(i) + " has a negative size, got: " + format_shape(shape));
  const std::uint64_t count = element_count(shape);
  if (count > kMaxDenseElements)
    throw VerifyError("dense arrays hold at most " + std::to_string(kMaxDenseElements) +
                      " elements (functional mode is for small tensors), got: " + format_shape(shape));
  return static_cast<std::size_t>(count);
}

// Row-major stride of each dim.
std::vector<std::size_t> strides_of(const Shape& shape) {
  std::vector<std::size_t> strides(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * static_cast<std::size_t>(shape[i]);
  return strides;
}

// splitmix64: a well-mixed 64-bit hash, so neighbouring offsets get unrelated values.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Size of every label, read from the operand that carries it.
std::map<char, std::int64_t> label_sizes(const Einsum& einsum, const DenseArray& lhs, const DenseArray& rhs) {
  std::map<char, std::int64_t> sizes;
  auto read = [&](const std::string& labels, const DenseArray& operand, const char* name) {
    if (operand.rank() != labels.size())
      throw VerifyError(std::string("einsum ") + to_string(einsum) + ": the " + name + " operand has rank " +
                        std::to_string(operand.rank()) + " but its subscripts name " + std::to_string(labels.size()) +
                        " dims, got shape: " + format_shape(operand.shape()));
    for (std::size_t i = 0; i < labels.size(); ++i) {
      const auto [it, inserted] = sizes.emplace(labels[i], operand.shape()[i]);
      if (!inserted && it->second != operand.shape()[i])
        throw VerifyError(std::string("einsum ") + to_string(einsum) + ": label '" + labels[i] + "' has size " +
                          std::to_string(it->second) + " in the left operand and " +
                          std::to_string(operand.shape()[i]) + " in the right");
    }
  };
  read(einsum.lhs, lhs, "left");
  read(einsum.rhs, rhs, "right");
  return sizes;
}

// Stride of `label` in an operand with `labels` and `strides` (0 when the operand lacks the label).
std::size_t label_stride(char label, const std::string& labels, const std::vector<std::size_t>& strides) {
  const auto pos = labels.find(label);
  return pos == std::string::npos ? 0 : strides[pos];
}

}  // namespace

DenseArray::DenseArray(Shape shape) : shape_(std::move(shape)), values_(checked_count(shape_), 0.0) {}

DenseArray::DenseArray(Shape shape, std::vector<double> values) : shape_(std::move(shape)), values_(std::move(values)) {
  const std::size_t count = checked_count(shape_);
  if (values_.size() != count)
    throw VerifyError("dense array of shape " + format_shape(shape_) + " needs " + std::to_string(count) +
                      " values, got: " + std::to_string(values_.size()));
}

std::size_t DenseArray::offset(const std::vector<std::int64_t>& index) const {
  if (index.size() != shape_.size())
    throw VerifyError("index " + format_index(index) + " has rank " + std::to_string(index.size()) +
                      ", the array has shape " + format_shape(shape_));
  std::size_t flat = 0;
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (index[i] < 0 || index[i] >= shape_[i])
      throw VerifyError("index " + format_index(index) + " is out of bounds of shape " + format_shape(shape_));
    flat = flat * static_cast<std::size_t>(shape_[i]) + static_cast<std::size_t>(index[i]);
  }
  return flat;
}

std::vector<std::int64_t> DenseArray::index_of(std::size_t offset) const {
  std::vector<std::int64_t> index(shape_.size(), 0);
  for (std::size_t i = shape_.size(); i-- > 0;) {
    const auto dim = static_cast<std::size_t>(shape_[i]);
    if (dim == 0) return index;
    index[i] = static_cast<std::int64_t>(offset % dim);
    offset /= dim;
  }
  return index;
}

DenseArray matrix(std::initializer_list<std::initializer_list<double>> rows) {
  const std::size_t columns = rows.size() == 0 ? 0 : rows.begin()->size();
  std::vector<double> values;
  for (const auto& row : rows) {
    if (row.size() != columns)
      throw VerifyError("matrix rows must have the same length, got: " + std::to_string(row.size()) + " and " +
                        std::to_string(columns));
    values.insert(values.end(), row.begin(), row.end());
  }
  return DenseArray({static_cast<std::int64_t>(rows.size()), static_cast<std::int64_t>(columns)}, std::move(values));
}

DenseArray small_integer_array(const Shape& shape, std::uint64_t seed) {
  DenseArray array(shape);
  for (std::size_t i = 0; i < array.size(); ++i)
    array[i] = static_cast<double>(static_cast<int>(mix(mix(seed) ^ i) % 9) - 4);
  return array;
}

DenseArray dense_einsum(const Einsum& einsum, const DenseArray& lhs, const DenseArray& rhs) {
  const std::map<char, std::int64_t> sizes = label_sizes(einsum, lhs, rhs);
  Shape out_shape;
  for (const char label : einsum.out)
    out_shape.push_back(sizes.at(label));
  DenseArray out(out_shape);

  // One odometer over every label; each step adds one product into its output element.
  const std::string labels = einsum.labels();
  const auto lhs_strides = strides_of(lhs.shape());
  const auto rhs_strides = strides_of(rhs.shape());
  const auto out_strides = strides_of(out_shape);
  std::vector<std::int64_t> extent;
  std::vector<std::size_t> step_lhs, step_rhs, step_out;
  for (const char label : labels) {
    extent.push_back(sizes.at(label));
    if (sizes.at(label) == 0) return out;
    step_lhs.push_back(label_stride(label, einsum.lhs, lhs_strides));
    step_rhs.push_back(label_stride(label, einsum.rhs, rhs_strides));
    step_out.push_back(label_stride(label, einsum.out, out_strides));
  }
  std::vector<std::int64_t> counter(labels.size(), 0);
  std::size_t at_lhs = 0, at_rhs = 0, at_out = 0;
  while (true) {
    out[at_out] += lhs[at_lhs] * rhs[at_rhs];
    std::size_t i = labels.size();
    while (i-- > 0) {
      if (++counter[i] < extent[i]) {
        at_lhs += step_lhs[i];
        at_rhs += step_rhs[i];
        at_out += step_out[i];
        break;
      }
      const auto back = static_cast<std::size_t>(extent[i] - 1);
      at_lhs -= back * step_lhs[i];
      at_rhs -= back * step_rhs[i];
      at_out -= back * step_out[i];
      counter[i] = 0;
    }
    if (i == static_cast<std::size_t>(-1)) break;
  }
  return out;
}

Comparison compare(const DenseArray& actual, const DenseArray& expected, double tolerance) {
  Comparison result;
  if (actual.shape() != expected.shape()) {
    result.equal = false;
    result.first_mismatch =
        "shape differs, got: " + format_shape(actual.shape()) + ", expected: " + format_shape(expected.shape());
    return result;
  }
  std::size_t first = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i];
    const double e = expected[i];
    if (std::fabs(a - e) <= tolerance) continue;  // false for NaN
    if (result.mismatches++ == 0) first = i;
  }
  if (result.mismatches == 0) return result;
  result.equal = false;
  result.first_mismatch = "element " + format_index(actual.index_of(first)) + ": got " + format_value(actual[first]) +
                          ", expected " + format_value(expected[first]) + " (" + std::to_string(result.mismatches) +
                          " of " + std::to_string(actual.size()) + " elements differ)";
  return result;
}

std::string format_index(const std::vector<std::int64_t>& index) {
  std::string text = "[";
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(index[i]);
  }
  return text + "]";
}

std::string format_value(double value) {
  char buffer[64];
  const auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec != std::errc()) return std::to_string(value);
  return std::string(buffer, ptr);
}

}  // namespace podsim
