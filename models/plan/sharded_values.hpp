// The values of a sharded tensor in functional mode: one local array per device of a mesh, padded to the local
// shape of its TensorSharding. Distributing, assembling and the per-device local einsum are pure functions, so a
// plan's result can be assembled and compared with a dense reference.
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/dtype.hpp"
#include "models/common/shape.hpp"
#include "models/plan/dense_array.hpp"
#include "models/plan/einsum.hpp"
#include "models/sharding/layout.hpp"
#include "models/sharding/mesh.hpp"
#include "models/sharding/sharding.hpp"

namespace podsim {

class ShardedValues {
 public:
  // `locals` holds one array per device in logical (row-major) mesh order, each of the local shape of `sharding`
  // (padding included). `dtype` only sizes payloads; the values are doubles. Throws VerifyError when the mesh is
  // empty, the sharding fails Shardy's verifier or does not fit the shape (compute_layout), an inline mesh differs
  // from `mesh`, or a local array has the wrong count or shape.
  ShardedValues(Shape global_shape, TensorSharding sharding, Mesh mesh, std::vector<DenseArray> locals,
                DType dtype = DType::f32);

  const Shape& global_shape() const { return global_shape_; }
  const TensorSharding& sharding() const { return sharding_; }
  const Mesh& mesh() const { return mesh_; }
  DType dtype() const { return dtype_; }
  // Local shape of every device (ceil(dim / shards)).
  const Shape& local_shape() const { return local_shape_; }
  // Local arrays in logical mesh order: locals()[p] belongs to device mesh().device_at(p).
  const std::vector<DenseArray>& locals() const { return locals_; }
  // The local array of device id `device`. Throws VerifyError if the device is not in the mesh.
  const DenseArray& local(std::int64_t device) const;

 private:
  Shape global_shape_;
  TensorSharding sharding_;
  Mesh mesh_;
  DType dtype_;
  Shape local_shape_;
  std::vector<DenseArray> locals_;
};

// Splits `global` by `sharding` on `mesh`: each device gets the block shard_ranges() names, padding elements zero.
// `sharding` must not be unreduced (a dense array is a finished sum). Throws VerifyError like the constructor, and
// `cannot distribute a finished array as unreduced over ...` for unreduced axes.
// The block of `values` that device id `device` holds, in global coordinates (shard_ranges of its sharding).
std::vector<Range> device_ranges(const ShardedValues& values, std::int64_t device);

// Calls `f(index)` for every global index of the block `ranges`, in row-major order (not at all for an empty block).
template <typename F>
void for_each_in_block(const std::vector<Range>& ranges, F&& f) {
  for (const Range& r : ranges)
    if (r.begin >= r.end) return;
  std::vector<std::int64_t> index;
  for (const Range& r : ranges)
    index.push_back(r.begin);
  while (true) {
    f(static_cast<const std::vector<std::int64_t>&>(index));
    std::size_t i = ranges.size();
    while (i-- > 0) {
      if (++index[i] < ranges[i].end) break;
      index[i] = ranges[i].begin;
    }
    if (i == static_cast<std::size_t>(-1)) return;
  }
}

ShardedValues distribute(const DenseArray& global, const TensorSharding& sharding, const Mesh& mesh,
                         DType dtype = DType::f32);

// Rebuilds the dense global array. Every element must be held by at least one device, and every device holding it
// must hold the same value; padding is ignored. Throws VerifyError `cannot assemble a tensor that is unreduced over
// "X": its local arrays are partial sums; reduce it first (all-reduce or reduce-scatter)` and
// `replicas disagree at element [i, j]: device d holds v, device e holds w`.
DenseArray assemble(const ShardedValues& values);

// Each device's local einsum: the output block of device d under `out_sharding` (its shard_ranges), summed over
// the contracted indices d holds. The caller (the planner) derives `out_sharding`, including the unreduced axes
// that a sharded contracting dim leaves. Throws VerifyError when the operands live on different meshes, an operand
// does not hold a free or batch range the output block needs, the operands hold different ranges of a contracting
// label on one device, or both operands are unreduced over one axis (a product of two partial sums).
ShardedValues local_matmul(const Einsum& einsum, const ShardedValues& lhs, const ShardedValues& rhs,
                           const TensorSharding& out_sharding);

}  // namespace podsim
