// Shardy's tensor-sharding checks (verifyTensorShardingAttr, verifyAxisRefList, verifySubAxes in
// verifiers.cc) in the order and wording SHARDY.md §4 records.
#include "models/sharding/sharding_verify.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "models/sharding/axis_ref.hpp"
#include "models/sharding/shardy_print.hpp"

namespace podsim {

namespace {

__extension__ typedef __int128 Int128;  // m*k of arbitrary int64 sub-axis numbers, without overflow

std::string to_decimal(Int128 value) {
  if (value == 0) return "0";
  const bool negative = value < 0;
  std::string digits;
  while (value != 0) {
    const int digit = static_cast<int>(value % 10);
    digits += static_cast<char>('0' + (digit < 0 ? -digit : digit));
    value /= 10;
  }
  if (negative) digits += '-';
  std::reverse(digits.begin(), digits.end());
  return digits;
}

// State shared by all axis lists of one sharding: the refs seen so far (any list) and the sub-axes
// per axis name.
class ShardingChecker {
 public:
  explicit ShardingChecker(const Mesh& mesh) : mesh_(mesh) {}

  // verifyAxisRefList: unknown name, duplicate ref (across all lists), mergeable adjacent sub-axes.
  void check_list(const std::vector<AxisRef>& refs) {
    const AxisRef* prev = nullptr;
    for (const auto& ref : refs) {
      if (!mesh_.axis_index(ref.name)) throw VerifyError("unknown axis name: " + quote_string(ref.name));
      if (std::find(seen_.begin(), seen_.end(), ref) != seen_.end())
        throw VerifyError("duplicate axis ref: " + to_string(ref));
      seen_.push_back(ref);
      if (ref.is_sub_axis()) {
        sub_axes_[ref.name].push_back(ref);
        if (prev && can_merge(*prev, ref))
          throw VerifyError("two consecutive sub-axes can be merged: " + to_string(*prev) + ", " + to_string(ref));
      }
      prev = &ref;
    }
  }

  // Replicated / unreduced list: ordered w.r.t. the mesh, then check_list. Shardy's comparator is
  // undefined for two different unknown names; reaching that pair reports the list's first unknown name.
  void check_sorted_list(const std::vector<AxisRef>& refs, const char* what) {
    for (std::size_t i = 1; i < refs.size(); ++i) {
      const AxisRef& prev = refs[i - 1];
      const AxisRef& next = refs[i];
      if (prev.name != next.name && !mesh_.axis_index(prev.name) && !mesh_.axis_index(next.name)) break;
      if (axis_ref_less(next, prev, mesh_)) throw VerifyError(std::string(what) + " axes are not ordered w.r.t. mesh");
    }
    check_list(refs);
  }

  // verifySubAxes for every axis name with sub-axes, in mesh axis order (Shardy iterates a hash map).
  void check_sub_axes() {
    for (const auto& axis : mesh_.axes) {
      const auto it = sub_axes_.find(axis.name);
      if (it == sub_axes_.end()) continue;
      std::vector<AxisRef> subs = it->second;
      std::sort(subs.begin(), subs.end(),
                [&](const AxisRef& a, const AxisRef& b) { return axis_ref_less(a, b, mesh_); });
      check_sub_axes_of(axis, subs);
    }
  }

 private:
  void check_sub_axes_of(const MeshAxis& axis, const std::vector<AxisRef>& subs) {
    if (std::find(seen_.begin(), seen_.end(), AxisRef{axis.name, std::nullopt}) != seen_.end())
      throw VerifyError("both sub-axis and full-axis are used for axis name: " + quote_string(axis.name));
    const AxisRef* prev = nullptr;
    for (const auto& ref : subs) {
      const SubAxis& sub = *ref.sub;
      if (sub.pre_size < 1) throw VerifyError("sub-axis pre-size must be at least 1: " + to_string(ref));
      if (sub.size <= 1) throw VerifyError("sub-axis sizes must be greater than 1: " + to_string(ref));
      const Int128 next_pre_size = static_cast<Int128>(sub.pre_size) * sub.size;
      if (static_cast<Int128>(axis.size) % next_pre_size != 0)
        throw VerifyError("sub-axis next pre-size " + to_decimal(next_pre_size) +
                          " doesn't divide the size of the full axis " + std::to_string(axis.size) + ": " +
                          to_string(ref));
      if (sub.size == axis.size) throw VerifyError("sub-axis size is equal to the full axis size: " + to_string(ref));
      const std::int64_t prev_next_pre_size = prev ? prev->sub->pre_size * prev->sub->size : 1;
      if (prev_next_pre_size > sub.pre_size)
        throw VerifyError("overlapping sub-axes: " + to_string(*prev) + ", " + to_string(ref));
      prev = &ref;
    }
  }

  const Mesh& mesh_;
  std::vector<AxisRef> seen_;
  std::map<std::string, std::vector<AxisRef>> sub_axes_;
};

}  // namespace

void verify_sharding(const TensorSharding& sharding, const MeshTable& meshes, std::optional<std::size_t> rank) {
  // Shardy verifies an inline mesh when it builds the attribute, before the sharding itself.
  if (sharding.inline_mesh) verify_mesh(*sharding.inline_mesh);
  const Mesh* mesh = resolve_mesh(sharding, meshes);
  if (!mesh) throw VerifyError("unknown mesh: " + print_symbol_ref(sharding.mesh_name));

  const bool all_dims_empty =
      std::all_of(sharding.dims.begin(), sharding.dims.end(), [](const DimSharding& d) { return d.axes.empty(); });
  if (mesh->is_maximal() || (!rank && all_dims_empty)) {
    if (!sharding.dims.empty() || !sharding.replicated.empty() || !sharding.unreduced.empty())
      throw VerifyError("a maximal sharding can only have a sharding with rank 0 and no replicated or unreduced axes.");
    return;
  }
  if (!rank) throw VerifyError("shardings don't match number of values: 1 shardings vs 0 values");
  if (sharding.dims.size() != *rank)
    throw VerifyError("sharding doesn't match tensor rank: " + std::to_string(sharding.dims.size()) +
                      " != " + std::to_string(*rank));

  ShardingChecker checker(*mesh);
  for (std::size_t i = 0; i < sharding.dims.size(); ++i) {
    const DimSharding& dim = sharding.dims[i];
    if (dim.priority) {
      if (*dim.priority < 0) throw VerifyError("dim " + std::to_string(i) + " has a negative priority");
      if (dim.is_closed && dim.axes.empty())
        throw VerifyError("dim " + std::to_string(i) + " is empty and closed but has a priority");
    }
    checker.check_list(dim.axes);
  }
  checker.check_sorted_list(sharding.replicated, "replicated");
  checker.check_sorted_list(sharding.unreduced, "unreduced");
  checker.check_sub_axes();
}

}  // namespace podsim
