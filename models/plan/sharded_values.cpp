// Per-device values of a sharded tensor: construction checks, distribute / assemble against the dense array, and
// the local einsum each device computes on the blocks it holds.
#include "models/plan/sharded_values.hpp"

#include <map>
#include <optional>
#include <string>

#include "models/common/error.hpp"
#include "models/sharding/sharding_verify.hpp"

namespace podsim {
namespace {

std::string range_text(const Range& r) {
  return "[" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ")";
}

// The index of `global` inside a block that starts at `ranges[i].begin`.
std::vector<std::int64_t> local_index(const std::vector<std::int64_t>& global, const std::vector<Range>& ranges) {
  std::vector<std::int64_t> local(global.size());
  for (std::size_t i = 0; i < global.size(); ++i)
    local[i] = global[i] - ranges[i].begin;
  return local;
}

// True when `inner` is empty or lies inside `outer`.
bool inside(const Range& inner, const Range& outer) {
  return inner.begin >= inner.end || (inner.begin >= outer.begin && inner.end <= outer.end);
}

// Size of every label of the einsum, from the operands' global shapes.
std::map<char, std::int64_t> label_sizes(const Einsum& einsum, const Shape& lhs, const Shape& rhs) {
  std::map<char, std::int64_t> sizes;
  auto read = [&](const std::string& labels, const Shape& shape, const char* name) {
    if (shape.size() != labels.size())
      throw VerifyError("local matmul " + to_string(einsum) + ": the " + name + " operand has shape " +
                        format_shape(shape) + ", which does not match its " + std::to_string(labels.size()) +
                        " subscripts");
    for (std::size_t i = 0; i < labels.size(); ++i) {
      const auto [it, inserted] = sizes.emplace(labels[i], shape[i]);
      if (!inserted && it->second != shape[i])
        throw VerifyError("local matmul " + to_string(einsum) + ": label '" + labels[i] + "' has size " +
                          std::to_string(it->second) + " in the left operand and " + std::to_string(shape[i]) +
                          " in the right");
    }
  };
  read(einsum.lhs, lhs, "left");
  read(einsum.rhs, rhs, "right");
  return sizes;
}

// Range of `label` in an operand's block (nullopt when the operand lacks the label).
std::optional<Range> label_range(char label, const std::string& labels, const std::vector<Range>& ranges) {
  const auto pos = labels.find(label);
  if (pos == std::string::npos) return std::nullopt;
  return ranges[pos];
}

// Picks the operand's index out of the index over all einsum labels.
std::vector<std::int64_t> operand_index(const std::string& labels, const std::string& all_labels,
                                        const std::vector<std::int64_t>& all_index,
                                        const std::vector<Range>& operand_ranges) {
  std::vector<std::int64_t> index(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i)
    index[i] = all_index[all_labels.find(labels[i])] - operand_ranges[i].begin;
  return index;
}

}  // namespace

ShardedValues::ShardedValues(Shape global_shape, TensorSharding sharding, Mesh mesh, std::vector<DenseArray> locals,
                             DType dtype)
    : global_shape_(std::move(global_shape)),
      sharding_(std::move(sharding)),
      mesh_(std::move(mesh)),
      dtype_(dtype),
      locals_(std::move(locals)) {
  if (mesh_.num_devices() < 1) throw VerifyError("sharded values need a mesh with at least one device, got: <[]>");
  if (sharding_.inline_mesh && *sharding_.inline_mesh != mesh_)
    throw VerifyError("the sharding's inline mesh is not the mesh the values live on");
  MeshTable meshes;
  if (!sharding_.inline_mesh) meshes.add(sharding_.mesh_name, mesh_);
  verify_sharding(sharding_, meshes, global_shape_.size());
  local_shape_ = compute_layout(global_shape_, dtype_, sharding_, mesh_).local_shape;
  const auto devices = static_cast<std::size_t>(mesh_.num_devices());
  if (locals_.size() != devices)
    throw VerifyError("sharded values need one local array per device: the mesh has " + std::to_string(devices) +
                      " devices, got: " + std::to_string(locals_.size()));
  for (std::size_t p = 0; p < devices; ++p)
    if (locals_[p].shape() != local_shape_)
      throw VerifyError("local array of device " + std::to_string(mesh_.device_at(static_cast<std::int64_t>(p))) +
                        " must have the local shape " + format_shape(local_shape_) +
                        ", got: " + format_shape(locals_[p].shape()));
}

const DenseArray& ShardedValues::local(std::int64_t device) const {
  const auto position = mesh_.position_of(device);
  if (!position)
    throw VerifyError("device is not in the mesh, got: " + std::to_string(device) + " (the mesh has " +
                      std::to_string(mesh_.num_devices()) + " devices)");
  return locals_[static_cast<std::size_t>(*position)];
}

std::vector<Range> device_ranges(const ShardedValues& values, std::int64_t device) {
  return shard_ranges(values.global_shape(), values.sharding(), values.mesh(), device);
}

ShardedValues distribute(const DenseArray& global, const TensorSharding& sharding, const Mesh& mesh, DType dtype) {
  if (!sharding.unreduced.empty())
    throw VerifyError("cannot distribute a finished array as unreduced over " + to_string(sharding.unreduced) +
                      ": unreduced local arrays are partial sums that a local product makes");
  const Layout layout = compute_layout(global.shape(), dtype, sharding, mesh);
  std::vector<DenseArray> locals;
  for (std::int64_t p = 0; p < mesh.num_devices(); ++p) {
    const std::vector<Range> ranges = shard_ranges(global.shape(), sharding, mesh, mesh.device_at(p));
    DenseArray local(layout.local_shape);
    for_each_in_block(ranges, [&](const std::vector<std::int64_t>& index) {
      local.at(local_index(index, ranges)) = global.at(index);
    });
    locals.push_back(std::move(local));
  }
  return ShardedValues(global.shape(), sharding, mesh, std::move(locals), dtype);
}

DenseArray assemble(const ShardedValues& values) {
  const TensorSharding& s = values.sharding();
  if (!s.unreduced.empty())
    throw VerifyError("cannot assemble a tensor that is unreduced over " + to_string(s.unreduced) +
                      ": its local arrays are partial sums; reduce it first (all-reduce or reduce-scatter)");
  DenseArray out(values.global_shape());
  std::vector<std::int64_t> holder(out.size(), -1);  // device that first supplied each element
  const Mesh& mesh = values.mesh();
  for (std::int64_t p = 0; p < mesh.num_devices(); ++p) {
    const std::int64_t device = mesh.device_at(p);
    const std::vector<Range> ranges = device_ranges(values, device);
    const DenseArray& local = values.locals()[static_cast<std::size_t>(p)];
    for_each_in_block(ranges, [&](const std::vector<std::int64_t>& index) {
      const std::size_t flat = out.offset(index);
      const double value = local.at(local_index(index, ranges));
      if (holder[flat] < 0) {
        holder[flat] = device;
        out[flat] = value;
      } else if (!(out[flat] == value)) {
        throw VerifyError("replicas disagree at element " + format_index(index) + ": device " +
                          std::to_string(holder[flat]) + " holds " + format_value(out[flat]) + ", device " +
                          std::to_string(device) + " holds " + format_value(value));
      }
    });
  }
  for (std::size_t flat = 0; flat < out.size(); ++flat)
    if (holder[flat] < 0)
      throw VerifyError("element " + format_index(out.index_of(flat)) + " is held by no device of the mesh");
  return out;
}

ShardedValues local_matmul(const Einsum& einsum, const ShardedValues& lhs, const ShardedValues& rhs,
                           const TensorSharding& out_sharding) {
  const std::string where = "local matmul " + to_string(einsum) + ": ";
  if (lhs.mesh() != rhs.mesh()) throw VerifyError(where + "the operands live on different meshes");
  const Mesh& mesh = lhs.mesh();
  for (const AxisRef& a : lhs.sharding().unreduced)
    for (const AxisRef& b : rhs.sharding().unreduced)
      if (overlaps(a, b, mesh))
        throw VerifyError(where + "both operands are unreduced over " + to_string(a) +
                          ": the local product of two partial sums is not a partial sum of the product");

  const std::map<char, std::int64_t> sizes = label_sizes(einsum, lhs.global_shape(), rhs.global_shape());
  Shape out_shape;
  for (const char label : einsum.out)
    out_shape.push_back(sizes.at(label));
  const Shape out_local_shape = compute_layout(out_shape, lhs.dtype(), out_sharding, mesh).local_shape;
  const std::string labels = einsum.labels();

  std::vector<DenseArray> locals;
  for (std::int64_t p = 0; p < mesh.num_devices(); ++p) {
    const std::int64_t device = mesh.device_at(p);
    const std::vector<Range> out_ranges = shard_ranges(out_shape, out_sharding, mesh, device);
    const std::vector<Range> lhs_ranges = device_ranges(lhs, device);
    const std::vector<Range> rhs_ranges = device_ranges(rhs, device);
    // The device iterates over its output block and the contracted indices both operands hold.
    std::vector<Range> label_ranges;
    for (const char label : labels) {
      const auto in_lhs = label_range(label, einsum.lhs, lhs_ranges);
      const auto in_rhs = label_range(label, einsum.rhs, rhs_ranges);
      if (einsum.role(label) == LabelRole::contracting) {
        if (*in_lhs != *in_rhs)
          throw VerifyError(where + "device " + std::to_string(device) + " holds " + range_text(*in_lhs) +
                            " of contracting label '" + label + "' in the left operand but " + range_text(*in_rhs) +
                            " in the right");
        label_ranges.push_back(*in_lhs);
        continue;
      }
      const Range needed = *label_range(label, einsum.out, out_ranges);
      for (const auto& [held, name] : {std::pair{in_lhs, "left"}, std::pair{in_rhs, "right"}})
        if (held && !inside(needed, *held))
          throw VerifyError(where + "the output block of device " + std::to_string(device) + " needs " +
                            range_text(needed) + " of label '" + label + "' but the " + name + " operand holds " +
                            range_text(*held));
      label_ranges.push_back(needed);
    }
    DenseArray local(out_local_shape);
    const DenseArray& a = lhs.locals()[static_cast<std::size_t>(p)];
    const DenseArray& b = rhs.locals()[static_cast<std::size_t>(p)];
    for_each_in_block(label_ranges, [&](const std::vector<std::int64_t>& index) {
      local.at(operand_index(einsum.out, labels, index, out_ranges)) +=
          a.at(operand_index(einsum.lhs, labels, index, lhs_ranges)) *
          b.at(operand_index(einsum.rhs, labels, index, rhs_ranges));
    });
    locals.push_back(std::move(local));
  }
  return ShardedValues(out_shape, out_sharding, mesh, std::move(locals), lhs.dtype());
}

}  // namespace podsim
