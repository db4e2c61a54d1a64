// Reaching a required sharding from the result of a local matmul (rule 5 of docs/matmul-cases.md): partial
// sums are reduce-scattered into the dim that wants their axis or all-reduced, axes that change dims move
// by all-to-all, axes the target drops are all-gathered, axes it adds from nowhere are sliced locally.
#include <algorithm>
#include <string>

#include "models/common/error.hpp"
#include "models/plan/matmul_plan.hpp"
#include "models/sharding/layout.hpp"

namespace podsim {
namespace {

using Axes = std::vector<AxisRef>;

bool has_exact(const Axes& axes, const AxisRef& ref) {
  return std::find(axes.begin(), axes.end(), ref) != axes.end();
}

bool overlaps_any(const Axes& axes, const AxisRef& ref, const Mesh& mesh) {
  return std::any_of(axes.begin(), axes.end(), [&](const AxisRef& a) { return overlaps(a, ref, mesh); });
}

// The greedy planner of plan_resharding: `cur_` walks from the source to the target one step at a time.
class Resharder {
 public:
  Resharder(const std::vector<std::int64_t>& shape, const TensorSharding& from, const TensorSharding& to, DType dtype,
            const Mesh& mesh, PlannedCollective::Operand operand, std::string_view labels,
            std::vector<std::string>* notes)
      : shape_(shape), cur_(from), dtype_(dtype), mesh_(mesh), operand_(operand), labels_(labels), notes_(notes) {
    for (const auto& dim : to.dims)
      target_.push_back(dim.axes);
    target_unreduced_ = to.unreduced;
  }

  std::vector<PlannedCollective> run() {
    // Each step removes an axis from a surplus or adds one to a dim; the bound only guards against a bug.
    const std::size_t bound = 4 * (mesh_.axes.size() + 1) * (target_.size() + 1) + 16;
    for (std::size_t step = 0; !done(); ++step) {
      if (step > bound) throw VerifyError("internal: resharding did not converge");
      if (slice() || reduce_scatter() || all_reduce() || all_to_all() || all_gather_surplus() || unblock()) continue;
      throw VerifyError("internal: resharding found no step");
    }
    return std::move(steps_);
  }

 private:
  std::size_t rank() const { return target_.size(); }
  Axes& cur(std::size_t d) { return cur_.dims[d].axes; }

  // Length of the common prefix of the current and the target axes of dim d.
  std::size_t kept(std::size_t d) {
    const Axes& c = cur(d);
    const Axes& t = target_[d];
    std::size_t i = 0;
    while (i < c.size() && i < t.size() && c[i] == t[i])
      ++i;
    return i;
  }
  bool has_surplus(std::size_t d) { return kept(d) < cur(d).size(); }
  // The next axis the target adds to dim d, when the dim holds no surplus.
  const AxisRef* next_needed(std::size_t d) {
    if (has_surplus(d) || cur(d).size() >= target_[d].size()) return nullptr;
    return &target_[d][cur(d).size()];
  }
  // The dim other than `d` where the target puts exactly `ref`, or -1.
  int target_dim_of(const AxisRef& ref, std::size_t d) const {
    for (std::size_t e = 0; e < rank(); ++e)
      if (e != d && has_exact(target_[e], ref)) return static_cast<int>(e);
    return -1;
  }
  bool in_target_dims(const AxisRef& ref) const {
    return std::any_of(target_.begin(), target_.end(), [&](const Axes& t) { return has_exact(t, ref); });
  }
  bool is_free(const AxisRef& ref) {
    for (std::size_t d = 0; d < rank(); ++d)
      if (overlaps_any(cur(d), ref, mesh_)) return false;
    return !overlaps_any(cur_.unreduced, ref, mesh_);
  }

  bool done() {
    for (std::size_t d = 0; d < rank(); ++d)
      if (cur(d) != target_[d]) return false;
    return cur_.unreduced.size() == target_unreduced_.size() &&
           std::all_of(cur_.unreduced.begin(), cur_.unreduced.end(),
                       [&](const AxisRef& a) { return has_exact(target_unreduced_, a); });
  }

  std::string dim_name(std::size_t d) const {
    std::string text = "dim " + std::to_string(d);
    if (d < labels_.size()) text += std::string(" (") + labels_[d] + ")";
    return text;
  }
  std::uint64_t bytes(const TensorSharding& s) const {
    return compute_layout(shape_, dtype_, s, mesh_).bytes_per_device;
  }

  // Removes explicitly replicated refs that now shard the tensor (a slice).
  void drop_replicated(const AxisRef& ref) {
    auto& r = cur_.replicated;
    r.erase(std::remove_if(r.begin(), r.end(), [&](const AxisRef& a) { return overlaps(a, ref, mesh_); }), r.end());
  }
  void drop_unreduced(const Axes& axes) {
    auto& u = cur_.unreduced;
    u.erase(std::remove_if(u.begin(), u.end(), [&](const AxisRef& a) { return has_exact(axes, a); }), u.end());
  }

  void record(CollectiveKind kind, const Axes& axes, int dim, int to_dim, const TensorSharding& before,
              std::string reason) {
    PlannedCollective c;
    c.kind = kind;
    c.operand = operand_;
    c.axes = axes;
    c.dim = dim;
    c.to_dim = to_dim;
    c.before = before;
    c.after = cur_;
    c.group_size = static_cast<std::uint64_t>(product_of_sizes(axes, mesh_));
    switch (kind) {
      case CollectiveKind::all_gather:
        c.array_bytes = bytes(c.after);
        break;
      case CollectiveKind::reduce_scatter:
      case CollectiveKind::all_reduce:
        c.array_bytes = bytes(c.before);
        break;
      case CollectiveKind::all_to_all:
        c.array_bytes = bytes(c.before) * c.group_size;
        break;
    }
    c.reason = std::move(reason);
    steps_.push_back(std::move(c));
  }

  // A target axis that nothing holds: each device keeps its block of the replicated value.
  bool slice() {
    for (std::size_t d = 0; d < rank(); ++d) {
      const AxisRef* next = next_needed(d);
      if (!next || !is_free(*next)) continue;
      const AxisRef ref = *next;
      cur(d).push_back(ref);
      drop_replicated(ref);
      if (notes_)
        notes_->push_back("local slice of " + std::string(operand_name(operand_)) + " " + dim_name(d) + " over " +
                          axes_text({ref}) + ": no communication");
      return true;
    }
    return false;
  }

  // Partial sums over the axes the target shards dim d by next: sum and keep one block each.
  bool reduce_scatter() {
    for (std::size_t d = 0; d < rank(); ++d) {
      const AxisRef* next = next_needed(d);
      if (!next || !has_exact(cur_.unreduced, *next)) continue;
      Axes run;
      for (std::size_t i = cur(d).size(); i < target_[d].size() && has_exact(cur_.unreduced, target_[d][i]); ++i)
        run.push_back(target_[d][i]);
      const TensorSharding before = cur_;
      drop_unreduced(run);
      cur(d).insert(cur(d).end(), run.begin(), run.end());
      record(CollectiveKind::reduce_scatter, run, static_cast<int>(d), -1, before,
             "reduce-scatter the partial sums over " + axes_text(run) + " into " + dim_name(d) +
                 ": the required sharding shards it over " + axes_text(run));
      return true;
    }
    return false;
  }

  // Partial sums over axes the target neither shards nor keeps unreduced.
  bool all_reduce() {
    Axes axes;
    for (const auto& a : cur_.unreduced)
      if (!has_exact(target_unreduced_, a) && !in_target_dims(a)) axes.push_back(a);
    if (axes.empty()) return false;
    const TensorSharding before = cur_;
    drop_unreduced(axes);
    record(CollectiveKind::all_reduce, axes, -1, -1, before,
           "all-reduce the partial sums over " + axes_text(axes) +
               ": the required sharding neither shards over nor keeps unreduced " + axes_text(axes));
    return true;
  }

  // The minor axis of a surplus that the target wants next on another dim.
  bool all_to_all() {
    for (std::size_t d = 0; d < rank(); ++d) {
      if (!has_surplus(d)) continue;
      const AxisRef ref = cur(d).back();
      const int e = target_dim_of(ref, d);
      if (e < 0) continue;
      const AxisRef* next = next_needed(static_cast<std::size_t>(e));
      if (!next || !(*next == ref)) continue;
      const TensorSharding before = cur_;
      cur(d).pop_back();
      cur(static_cast<std::size_t>(e)).push_back(ref);
      record(CollectiveKind::all_to_all, {ref}, static_cast<int>(d), e, before,
             "all-to-all over " + axes_text({ref}) + " from " + dim_name(d) + " to " +
                 dim_name(static_cast<std::size_t>(e)) + ": the required sharding moves " + axes_text({ref}) +
                 " between them");
      return true;
    }
    return false;
  }

  // The trailing axes of a surplus that the target does not put on another dim.
  bool all_gather_surplus() {
    for (std::size_t d = 0; d < rank(); ++d) {
      const std::size_t keep = kept(d);
      std::size_t start = cur(d).size();
      while (start > keep && target_dim_of(cur(d)[start - 1], d) < 0)
        --start;
      if (start == cur(d).size()) continue;
      gather(d, start,
             ": the required sharding does not shard it over " + axes_text(Axes(cur(d).begin() + start, cur(d).end())));
      return true;
    }
    return false;
  }

  // Every surplus ends in an axis bound for a dim that is not ready for it (e.g. two dims swap axes):
  // gather it here; the destination slices it again without communication.
  bool unblock() {
    for (std::size_t d = 0; d < rank(); ++d) {
      if (!has_surplus(d)) continue;
      const auto e = static_cast<std::size_t>(target_dim_of(cur(d).back(), d));
      gather(d, cur(d).size() - 1,
             ": " + axes_text({cur(d).back()}) + " moves to " + dim_name(e) +
                 ", which is not ready for it; it is sliced there again without communication");
      return true;
    }
    return false;
  }

  void gather(std::size_t d, std::size_t start, const std::string& why) {
    const Axes axes(cur(d).begin() + static_cast<std::ptrdiff_t>(start), cur(d).end());
    const TensorSharding before = cur_;
    cur(d).resize(start);
    record(CollectiveKind::all_gather, axes, static_cast<int>(d), -1, before,
           "all-gather " + dim_name(d) + " over " + axes_text(axes) + why);
  }

  const std::vector<std::int64_t>& shape_;
  TensorSharding cur_;
  DType dtype_;
  const Mesh& mesh_;
  PlannedCollective::Operand operand_;
  std::string_view labels_;
  std::vector<std::string>* notes_;
  std::vector<Axes> target_;
  Axes target_unreduced_;
  std::vector<PlannedCollective> steps_;
};

}  // namespace

std::vector<PlannedCollective> plan_resharding(const std::vector<std::int64_t>& shape, const TensorSharding& from,
                                               const TensorSharding& to, DType dtype, const Mesh& mesh,
                                               PlannedCollective::Operand operand, std::string_view labels,
                                               std::vector<std::string>* notes) {
  if (from.dims.size() != shape.size() || to.dims.size() != shape.size())
    throw VerifyError("resharding needs one dim sharding per dim, got: " + std::to_string(from.dims.size()) + " and " +
                      std::to_string(to.dims.size()) + " for rank " + std::to_string(shape.size()));
  for (const auto& a : to.unreduced)
    if (!has_exact(from.unreduced, a))
      throw VerifyError("axis " + axes_text({a}) +
                        " is unreduced in the target but the source holds no partial sums over it, got: source "
                        "unreduced " +
                        (from.unreduced.empty() ? std::string("none") : axes_text(from.unreduced)));
  return Resharder(shape, from, to, dtype, mesh, operand, labels, notes).run();
}

}  // namespace podsim
