// References to mesh axes and sub-axes `"x":(m)k` and their algebra (SHARDY.md §3, §6): size, ordering
// w.r.t. a mesh, overlap, containment, merge, and sort-and-merge of a list.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/sharding/mesh.hpp"

namespace podsim {

// `"x":(pre_size)size`: axis x of size n viewed as [pre_size, size, n/(pre_size*size)], middle dim.
struct SubAxis {
  std::int64_t pre_size = 1;
  std::int64_t size = 1;
  bool operator==(const SubAxis&) const = default;
};

struct AxisRef {
  std::string name;
  std::optional<SubAxis> sub;  // nullopt: the full axis

  bool operator==(const AxisRef&) const = default;

  bool is_sub_axis() const { return sub.has_value(); }
  // 1 for a full axis.
  std::int64_t pre_size() const { return sub ? sub->pre_size : 1; }
  // The sub-axis size, or the mesh axis size for a full axis. Throws VerifyError on an unknown axis.
  std::int64_t size(const Mesh& mesh) const;
  // pre_size * size.
  std::int64_t next_pre_size(const Mesh& mesh) const { return pre_size() * size(mesh); }
};

// `name` as an MLIR string literal: double quotes, `"` and `\` escaped, other non-printable bytes as `\XX`.
std::string quote_string(std::string_view name);

// Shardy text of a ref: `"x"` or `"x":(2)4`.
std::string to_string(const AxisRef& ref);
// Refs joined for sentences: `"X", "y":(2)2`.
std::string to_string(const std::vector<AxisRef>& refs);

// Shardy's mesh comparator: different names by mesh axis order (unknown names after known ones,
// then by name); the same name as `"a":(1)k < "a" < "a":(m)k` (m > 1), sub-axes by (pre_size, size).
bool axis_ref_less(const AxisRef& a, const AxisRef& b, const Mesh& mesh);

// Same axis and (either is the full axis, or the ranges [pre, next_pre) intersect).
bool overlaps(const AxisRef& a, const AxisRef& b, const Mesh& mesh);

// Same axis and `b`'s range [pre, next_pre) lies inside `a`'s; a full `a` contains every ref to its axis.
bool contains(const AxisRef& a, const AxisRef& b, const Mesh& mesh);

// Same axis, same pre-size and `a` no bigger than `b`: `"x":(1)2` is a prefix of `"x":(1)4` and of `"x"`.
// A ref is a prefix of itself.
bool is_prefix_of(const AxisRef& a, const AxisRef& b, const Mesh& mesh);

// Both sub-axes of one axis and a.pre * a.size == b.pre (directional: major before minor).
bool can_merge(const AxisRef& a, const AxisRef& b);

// The merged ref `"x":(a.pre)(a.size*b.size)`, or the full axis when that covers it. Requires can_merge.
AxisRef merge(const AxisRef& a, const AxisRef& b, const Mesh& mesh);

// Appends `ref` to `refs`, merging it into the last ref when can_merge(last, ref) (Shardy's addAxisOrMerge).
void add_axis_or_merge(std::vector<AxisRef>& refs, const AxisRef& ref, const Mesh& mesh);

// Sorts `refs` with axis_ref_less, then merges adjacent mergeable refs left to right; a merge that
// covers the whole axis becomes the full axis (Shardy's sortAndMergeAxes, SHARDY.md §6).
std::vector<AxisRef> sort_and_merge_axes(std::vector<AxisRef> refs, const Mesh& mesh);

// Product of the sizes of `refs` (1 for an empty list).
std::int64_t product_of_sizes(const std::vector<AxisRef>& refs, const Mesh& mesh);

}  // namespace podsim
