// Shardings after explicit collectives.
#include "sim/plan/collective_target.hpp"

#include <algorithm>

#include "models/common/error.hpp"

namespace podsim {
namespace {

std::vector<AxisRef>::iterator find_axis(std::vector<AxisRef>& list, const std::string& axis) {
  return std::find_if(list.begin(), list.end(), [&](const AxisRef& ref) { return ref.name == axis; });
}

}  // namespace

TensorSharding collective_target(const CollectiveOp& c, const TensorSharding& from, const std::string& shown) {
  TensorSharding to = from;
  const std::string kind(collective_kind_name(c.kind));
  for (const auto& axis : c.axes) {
    const std::string rule = kind + " over " + axis + ": ";
    switch (c.kind) {
      case CollectiveKind::all_gather: {
        bool found = false;
        for (auto& dim : to.dims) {
          const auto it = find_axis(dim.axes, axis);
          if (it == dim.axes.end()) continue;
          dim.axes.erase(it);
          found = true;
        }
        if (!found) throw VerifyError(rule + "the axis does not shard " + c.tensor + " in this plan, got: " + shown);
        break;
      }
      case CollectiveKind::reduce_scatter:
      case CollectiveKind::all_reduce: {
        const auto it = find_axis(to.unreduced, axis);
        if (it == to.unreduced.end())
          throw VerifyError(rule + c.tensor + " is not unreduced over it in this plan, got: " + shown);
        const AxisRef ref = *it;
        to.unreduced.erase(it);
        if (c.kind == CollectiveKind::reduce_scatter) to.dims[static_cast<std::size_t>(c.dim)].axes.push_back(ref);
        break;
      }
      case CollectiveKind::all_to_all: {
        auto& source = to.dims[static_cast<std::size_t>(c.from_dim)].axes;
        const auto it = find_axis(source, axis);
        if (it == source.end())
          throw VerifyError(rule + "the axis does not shard dim " + std::to_string(c.from_dim) + " of " + c.tensor +
                            " in this plan, got: " + shown);
        const AxisRef ref = *it;
        source.erase(it);
        to.dims[static_cast<std::size_t>(c.to_dim)].axes.push_back(ref);
        break;
      }
    }
  }
  return to;
}

}  // namespace podsim
