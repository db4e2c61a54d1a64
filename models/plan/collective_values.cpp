// Collectives on values: groups of devices along mesh axes, the rebuild of each device's block from its group under
// the new sharding, the reductions of partial sums, and the payload ledgers of the direct exchange.
#include "models/plan/collective_values.hpp"

#include <algorithm>
#include <string>
#include <string_view>

#include "models/common/error.hpp"

namespace podsim {
namespace {

// `["X", "Y"]`: the list as a value after `got:`.
std::string axes_list(const std::vector<AxisRef>& axes) {
  return "[" + to_string(axes) + "]";
}

std::string op_text(CollectiveKind kind, const std::vector<AxisRef>& axes) {
  return std::string(collective_kind_name(kind)) + " over " + to_string(axes);
}

// Size of `ref` and the distance between logical positions one step apart along it.
struct AxisStep {
  std::int64_t size = 1;
  std::int64_t stride = 1;
};

AxisStep axis_step(const AxisRef& ref, const Mesh& mesh) {
  const std::int64_t n = mesh.axis_size(ref.name);
  const std::int64_t stride = mesh.axis_stride(ref.name);
  if (!ref.sub) return {n, stride};
  const std::int64_t m = ref.sub->pre_size;
  const std::int64_t k = ref.sub->size;
  if (m < 1 || k < 1 || n % (m * k) != 0)
    throw VerifyError("sub-axis next pre-size " + std::to_string(m * k) + " doesn't divide the size of the full axis " +
                      std::to_string(n) + ": " + to_string(ref));
  return {k, stride * (n / (m * k))};
}

void check_dim(CollectiveKind kind, const ShardedValues& values, const std::vector<AxisRef>& axes, std::size_t dim) {
  if (axes.empty()) throw VerifyError(std::string(collective_kind_name(kind)) + " needs at least one axis");
  if (dim >= values.global_shape().size())
    throw VerifyError(op_text(kind, axes) + ": dim " + std::to_string(dim) + " is out of range for a tensor of rank " +
                      std::to_string(values.global_shape().size()));
}

// Axes of `dim` (none when a maximal sharding lists no dims).
const std::vector<AxisRef>& dim_axes(const TensorSharding& s, std::size_t dim) {
  static const std::vector<AxisRef> kNone;
  return dim < s.dims.size() ? s.dims[dim].axes : kNone;
}

// `axes` must end the axis list of `dim`: gathering a major axis would leave blocks that are not contiguous.
void check_minor_suffix(CollectiveKind kind, const TensorSharding& s, const std::vector<AxisRef>& axes,
                        std::size_t dim) {
  const std::vector<AxisRef>& held = dim_axes(s, dim);
  const bool suffix =
      axes.size() <= held.size() && std::equal(axes.begin(), axes.end(), held.end() - static_cast<long>(axes.size()));
  if (!suffix)
    throw VerifyError(op_text(kind, axes) + " must take the minor-most axes of dim " + std::to_string(dim) +
                      ", got: dim " + std::to_string(dim) + " sharded over " + axes_list(held));
}

// Every axis of `axes` must be unreduced; returns the unreduced axes that remain.
std::vector<AxisRef> remove_unreduced(CollectiveKind kind, const TensorSharding& s, const std::vector<AxisRef>& axes) {
  std::vector<AxisRef> remaining = s.unreduced;
  for (const AxisRef& ref : axes) {
    const auto it = std::find(remaining.begin(), remaining.end(), ref);
    if (it == remaining.end())
      throw VerifyError(op_text(kind, axes) + " needs a tensor unreduced over " + to_string(axes) +
                        ", got unreduced axes: " + axes_list(s.unreduced));
    remaining.erase(it);
  }
  return remaining;
}

bool holds(const std::vector<Range>& ranges, const std::vector<std::int64_t>& index) {
  for (std::size_t i = 0; i < index.size(); ++i)
    if (index[i] < ranges[i].begin || index[i] >= ranges[i].end) return false;
  return true;
}

// Each device's block under `next`, copied from whichever device of its group holds each element under the old
// sharding (`old_locals`, in logical order). An element no group member holds means the padded blocks of the two
// shardings do not nest, which no exchange inside the group can fix.
std::vector<DenseArray> rebuild(CollectiveKind kind, const ShardedValues& old,
                                const std::vector<DenseArray>& old_locals, const TensorSharding& next,
                                const std::vector<AxisRef>& axes) {
  const Mesh& mesh = old.mesh();
  const Shape next_local = compute_layout(old.global_shape(), old.dtype(), next, mesh).local_shape;
  std::vector<std::vector<Range>> old_ranges;
  for (std::int64_t p = 0; p < mesh.num_devices(); ++p)
    old_ranges.push_back(device_ranges(old, mesh.device_at(p)));
  std::vector<DenseArray> locals;
  for (std::int64_t p = 0; p < mesh.num_devices(); ++p) {
    const std::int64_t device = mesh.device_at(p);
    std::vector<std::int64_t> members;
    for (const std::int64_t member : collective_group(mesh, axes, device))
      members.push_back(*mesh.position_of(member));
    const std::vector<Range> ranges = shard_ranges(old.global_shape(), next, mesh, device);
    DenseArray local(next_local);
    for_each_in_block(ranges, [&](const std::vector<std::int64_t>& index) {
      const auto from = std::find_if(members.begin(), members.end(), [&](std::int64_t q) {
        return holds(old_ranges[static_cast<std::size_t>(q)], index);
      });
      if (from == members.end())
        throw VerifyError(op_text(kind, axes) + ": element " + format_index(index) + " of the new block of device " +
                          std::to_string(device) + " is held by no device of its group (the padded blocks of " +
                          format_shape(old.global_shape()) + " before and after do not nest)");
      const auto q = static_cast<std::size_t>(*from);
      std::vector<std::int64_t> source(index.size()), target(index.size());
      for (std::size_t i = 0; i < index.size(); ++i) {
        source[i] = index[i] - old_ranges[q][i].begin;
        target[i] = index[i] - ranges[i].begin;
      }
      local.at(target) = old_locals[q].at(source);
    });
    locals.push_back(std::move(local));
  }
  return locals;
}

// Each device's local array combined over its group (in group order, so every member gets the same bits).
std::vector<DenseArray> reduce_groups(const ShardedValues& values, const std::vector<AxisRef>& axes) {
  const Mesh& mesh = values.mesh();
  const Reduction reduction = values.sharding().unreduced_reduction;
  std::vector<DenseArray> reduced;
  for (std::int64_t p = 0; p < mesh.num_devices(); ++p) {
    const std::vector<std::int64_t> group = collective_group(mesh, axes, mesh.device_at(p));
    DenseArray sum = values.local(group.front());
    for (std::size_t g = 1; g < group.size(); ++g) {
      const DenseArray& part = values.local(group[g]);
      for (std::size_t i = 0; i < sum.size(); ++i) {
        if (reduction == Reduction::sum) sum[i] += part[i];
        if (reduction == Reduction::max) sum[i] = std::max(sum[i], part[i]);
        if (reduction == Reduction::min) sum[i] = std::min(sum[i], part[i]);
      }
    }
    reduced.push_back(std::move(sum));
  }
  return reduced;
}

// Every device sends `bytes` to every other device of its group, in `phase`.
void add_direct_exchange(PayloadLedger& ledger, CollectiveKind phase, const ShardedValues& values,
                         const std::vector<AxisRef>& axes, std::uint64_t bytes) {
  const Mesh& mesh = values.mesh();
  for (std::int64_t p = 0; p < mesh.num_devices(); ++p) {
    const std::int64_t device = mesh.device_at(p);
    for (const std::int64_t peer : collective_group(mesh, axes, device))
      if (peer != device) ledger.sends.push_back({phase, device, peer, bytes});
  }
}

}  // namespace

std::uint64_t PayloadLedger::bytes_sent_by(std::int64_t device) const {
  std::uint64_t bytes = 0;
  for (const PayloadSend& send : sends)
    if (send.from == device) bytes += send.bytes;
  return bytes;
}

std::uint64_t PayloadLedger::bytes_sent_by(std::int64_t device, CollectiveKind phase) const {
  std::uint64_t bytes = 0;
  for (const PayloadSend& send : sends)
    if (send.from == device && send.phase == phase) bytes += send.bytes;
  return bytes;
}

std::uint64_t PayloadLedger::total_bytes() const {
  std::uint64_t bytes = 0;
  for (const PayloadSend& send : sends)
    bytes += send.bytes;
  return bytes;
}

std::vector<std::int64_t> collective_group(const Mesh& mesh, const std::vector<AxisRef>& axes, std::int64_t device) {
  const auto position = mesh.position_of(device);
  if (!position)
    throw VerifyError("device is not in the mesh, got: " + std::to_string(device) + " (the mesh has " +
                      std::to_string(mesh.num_devices()) + " devices)");
  std::vector<AxisStep> steps;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    steps.push_back(axis_step(axes[i], mesh));
    for (std::size_t j = 0; j < i; ++j)
      if (overlaps(axes[j], axes[i], mesh))
        throw VerifyError("collective axes overlap, got: " + to_string(axes[j]) + " and " + to_string(axes[i]));
  }
  // The group's first member: the device with every coordinate along `axes` set to 0.
  std::int64_t base = *position;
  for (const AxisStep& step : steps)
    base -= (*position / step.stride) % step.size * step.stride;
  std::vector<std::int64_t> members{base};
  for (const AxisStep& step : steps) {  // major first: each axis multiplies the list, its offsets outermost
    std::vector<std::int64_t> grown;
    for (const std::int64_t member : members)
      for (std::int64_t c = 0; c < step.size; ++c)
        grown.push_back(member + c * step.stride);
    members = std::move(grown);
  }
  for (std::int64_t& member : members)
    member = mesh.device_at(member);
  return members;
}

CollectiveValues all_gather(const ShardedValues& values, const std::vector<AxisRef>& axes, std::size_t dim) {
  constexpr CollectiveKind kind = CollectiveKind::all_gather;
  check_dim(kind, values, axes, dim);
  const TensorSharding& s = values.sharding();
  std::vector<AxisRef> partial;
  for (const AxisRef& u : s.unreduced)
    for (const AxisRef& ref : axes)
      if (overlaps(u, ref, values.mesh()) && std::find(partial.begin(), partial.end(), u) == partial.end())
        partial.push_back(u);
  if (!partial.empty())
    throw VerifyError(op_text(kind, axes) + " would concatenate partial sums: the tensor is unreduced over " +
                      to_string(partial) + "; reduce it first (reduce-scatter or all-reduce)");
  check_minor_suffix(kind, s, axes, dim);

  TensorSharding next = s;
  auto& held = next.dims[dim].axes;
  held.erase(held.end() - static_cast<long>(axes.size()), held.end());
  ShardedValues result(values.global_shape(), next, values.mesh(), rebuild(kind, values, values.locals(), next, axes),
                       values.dtype());
  PayloadLedger ledger{kind, {}};
  add_direct_exchange(ledger, kind, values, axes, dtype_bytes(values.dtype(), element_count(values.local_shape())));
  return {std::move(result), std::move(ledger)};
}

CollectiveValues reduce_scatter(const ShardedValues& values, const std::vector<AxisRef>& axes, std::size_t dim) {
  constexpr CollectiveKind kind = CollectiveKind::reduce_scatter;
  check_dim(kind, values, axes, dim);
  const TensorSharding& s = values.sharding();
  TensorSharding next = s;
  next.unreduced = remove_unreduced(kind, s, axes);
  next.dims[dim].axes.insert(next.dims[dim].axes.end(), axes.begin(), axes.end());
  ShardedValues result(values.global_shape(), next, values.mesh(),
                       rebuild(kind, values, reduce_groups(values, axes), next, axes), values.dtype());
  PayloadLedger ledger{kind, {}};
  add_direct_exchange(ledger, kind, values, axes, dtype_bytes(values.dtype(), element_count(result.local_shape())));
  return {std::move(result), std::move(ledger)};
}

CollectiveValues all_reduce(const ShardedValues& values, const std::vector<AxisRef>& axes) {
  constexpr CollectiveKind kind = CollectiveKind::all_reduce;
  if (axes.empty()) throw VerifyError("all-reduce needs at least one axis");
  TensorSharding next = values.sharding();
  next.unreduced = remove_unreduced(kind, values.sharding(), axes);
  ShardedValues result(values.global_shape(), next, values.mesh(), reduce_groups(values, axes), values.dtype());
  const auto n = static_cast<std::uint64_t>(collective_group(values.mesh(), axes, values.mesh().device_at(0)).size());
  const std::uint64_t elements = element_count(values.local_shape());
  const std::uint64_t chunk = dtype_bytes(values.dtype(), elements / n + (elements % n != 0 ? 1 : 0));
  PayloadLedger ledger{kind, {}};
  add_direct_exchange(ledger, CollectiveKind::reduce_scatter, values, axes, chunk);
  add_direct_exchange(ledger, CollectiveKind::all_gather, values, axes, chunk);
  return {std::move(result), std::move(ledger)};
}

CollectiveValues all_to_all(const ShardedValues& values, const std::vector<AxisRef>& axes, std::size_t from_dim,
                            std::size_t to_dim) {
  constexpr CollectiveKind kind = CollectiveKind::all_to_all;
  check_dim(kind, values, axes, from_dim);
  check_dim(kind, values, axes, to_dim);
  if (from_dim == to_dim)
    throw VerifyError(op_text(kind, axes) + " must move the axes to another dim, got: from dim " +
                      std::to_string(from_dim) + " to dim " + std::to_string(to_dim));
  const TensorSharding& s = values.sharding();
  check_minor_suffix(kind, s, axes, from_dim);

  TensorSharding next = s;
  auto& from = next.dims[from_dim].axes;
  from.erase(from.end() - static_cast<long>(axes.size()), from.end());
  next.dims[to_dim].axes.insert(next.dims[to_dim].axes.end(), axes.begin(), axes.end());
  ShardedValues result(values.global_shape(), next, values.mesh(), rebuild(kind, values, values.locals(), next, axes),
                       values.dtype());
  Shape chunk = values.local_shape();
  chunk[to_dim] = result.local_shape()[to_dim];
  PayloadLedger ledger{kind, {}};
  add_direct_exchange(ledger, kind, values, axes, dtype_bytes(values.dtype(), element_count(chunk)));
  return {std::move(result), std::move(ledger)};
}

}  // namespace podsim
