// Local shapes, padding, bytes and the device -> shard map of SHARDY.md §7 (getLocalType, getShardIndex,
// getDivisiblePaddedType). Products use 128-bit arithmetic and throw instead of wrapping.
#include "models/sharding/layout.hpp"

#include <limits>
#include <string>

#include "models/common/error.hpp"

namespace podsim {
namespace {

__extension__ typedef unsigned __int128 Wide;  // __extension__: no -Wpedantic warning

std::string to_text(Wide value) {
  if (value == 0) return "0";
  std::string digits;
  for (; value > 0; value /= 10)
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
  return digits;
}

std::int64_t checked_int64(Wide value, const std::string& what) {
  if (value > static_cast<Wide>(std::numeric_limits<std::int64_t>::max()))
    throw VerifyError(what + " overflows 64 bits, got: " + to_text(value));
  return static_cast<std::int64_t>(value);
}

std::uint64_t checked_uint64(Wide value, const std::string& what) {
  if (value > static_cast<Wide>(std::numeric_limits<std::uint64_t>::max()))
    throw VerifyError(what + " overflows 64 bits, got: " + to_text(value));
  return static_cast<std::uint64_t>(value);
}

// A dim list that matches the tensor: one entry per dim, or none on a maximal mesh (Shardy's rule).
void check_rank(std::size_t rank, const TensorSharding& s, const Mesh& mesh) {
  if (s.dims.empty() && mesh.is_maximal()) return;
  if (s.dims.size() != rank)
    throw VerifyError("sharding doesn't match tensor rank: " + std::to_string(s.dims.size()) +
                      " != " + std::to_string(rank));
}

// Product of the axis sizes of dim `i`, at least 1 for any axis sizes a verified sharding can have.
std::int64_t sharded_size(const TensorSharding& s, std::size_t i, const Mesh& mesh) {
  if (i >= s.dims.size()) return 1;
  Wide product = 1;
  for (const auto& ref : s.dims[i].axes) {
    const std::int64_t size = ref.size(mesh);
    if (size < 1) throw VerifyError("dim " + std::to_string(i) + " has an axis of size < 1, got: " + to_string(ref));
    product *= static_cast<Wide>(size);
    checked_int64(product, "sharded size of dim " + std::to_string(i));
  }
  return static_cast<std::int64_t>(product);
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

// Coordinate of logical position `position` along `ref` (a full axis or a sub-axis "x":(m)k).
std::int64_t coordinate(const AxisRef& ref, const Mesh& mesh, std::int64_t position) {
  const std::int64_t n = mesh.axis_size(ref.name);
  const std::int64_t stride = mesh.axis_stride(ref.name);
  if (!ref.sub) return (position / stride) % n;
  const std::int64_t m = ref.sub->pre_size;
  const std::int64_t k = ref.sub->size;
  if (m < 1 || k < 1 || n % (m * k) != 0)
    throw VerifyError("sub-axis next pre-size " + std::to_string(m * k) + " doesn't divide the size of the full axis " +
                      std::to_string(n) + ": " + to_string(ref));
  return (position / (stride * (n / (m * k)))) % k;
}

}  // namespace

Layout compute_layout(const std::vector<std::int64_t>& shape, DType dtype, const TensorSharding& s, const Mesh& mesh) {
  check_rank(shape.size(), s, mesh);
  Layout layout;
  layout.global_shape = shape;
  Wide local_elements = 1;
  Wide global_elements = 1;
  Wide shard_product = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const std::int64_t dim = shape[i];
    if (dim < 0) throw VerifyError("dim " + std::to_string(i) + " has a negative size, got: " + std::to_string(dim));
    const std::int64_t shards = sharded_size(s, i, mesh);
    const std::int64_t local = ceil_div(dim, shards);
    layout.shards_per_dim.push_back(shards);
    layout.local_shape.push_back(local);
    layout.padded_shape.push_back(
        checked_int64(static_cast<Wide>(local) * static_cast<Wide>(shards), "padded size of dim " + std::to_string(i)));
    // Each factor is below 2^63, so checking after every step keeps the 128-bit products exact.
    local_elements *= static_cast<Wide>(local);
    global_elements *= static_cast<Wide>(dim);
    shard_product *= static_cast<Wide>(shards);
    checked_uint64(local_elements, "element count of the local shard");
    checked_uint64(global_elements, "element count of the tensor");
    checked_int64(shard_product, "product of the sharded sizes");
  }
  layout.bytes_per_device = dtype_bytes(dtype, static_cast<std::uint64_t>(local_elements));
  layout.global_bytes = dtype_bytes(dtype, static_cast<std::uint64_t>(global_elements));
  layout.num_devices = mesh.num_devices();
  layout.total_bytes =
      checked_uint64(static_cast<Wide>(layout.bytes_per_device) * static_cast<Wide>(layout.num_devices), "total bytes");
  const auto shards = static_cast<std::int64_t>(shard_product);
  if (layout.num_devices % shards != 0)
    throw VerifyError("product of the sharded sizes must divide the number of devices, got: " + std::to_string(shards) +
                      " and " + std::to_string(layout.num_devices) + " devices");
  layout.replication_factor = layout.num_devices / shards;
  if (layout.global_bytes > 0)
    layout.memory_ratio = static_cast<double>(layout.total_bytes) / static_cast<double>(layout.global_bytes);
  return layout;
}

std::vector<std::int64_t> shard_index(const TensorSharding& s, const Mesh& mesh, std::int64_t device) {
  const auto position = mesh.position_of(device);
  if (!position)
    throw VerifyError("device is not in the mesh, got: " + std::to_string(device) + " (the mesh has " +
                      std::to_string(mesh.num_devices()) + " devices)");
  std::vector<std::int64_t> index;
  index.reserve(s.dims.size());
  for (const auto& dim : s.dims) {
    std::int64_t value = 0;
    for (const auto& ref : dim.axes)
      value = value * ref.size(mesh) + coordinate(ref, mesh, *position);
    index.push_back(value);
  }
  return index;
}

std::vector<Range> shard_ranges(const std::vector<std::int64_t>& shape, const TensorSharding& s, const Mesh& mesh,
                                std::int64_t device) {
  check_rank(shape.size(), s, mesh);
  const std::vector<std::int64_t> index = shard_index(s, mesh, device);
  std::vector<Range> ranges;
  ranges.reserve(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const std::int64_t dim = shape[i];
    if (dim < 0) throw VerifyError("dim " + std::to_string(i) + " has a negative size, got: " + std::to_string(dim));
    const std::int64_t local = ceil_div(dim, sharded_size(s, i, mesh));
    const auto clip = [dim](Wide value) {
      return value > static_cast<Wide>(dim) ? dim : static_cast<std::int64_t>(value);
    };
    const std::int64_t idx = i < index.size() ? index[i] : 0;
    ranges.push_back({clip(static_cast<Wide>(idx) * static_cast<Wide>(local)),
                      clip(static_cast<Wide>(idx + 1) * static_cast<Wide>(local))});
  }
  return ranges;
}

}  // namespace podsim
