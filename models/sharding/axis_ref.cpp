// Axis-ref algebra, following Shardy's AxisRefAttr (dialect.cc) as SHARDY.md §3 records it.
#include "models/sharding/axis_ref.hpp"

#include <tuple>

namespace podsim {

std::int64_t AxisRef::size(const Mesh& mesh) const {
  if (sub) return sub->size;
  return mesh.axis_size(name);
}

std::string to_string(const AxisRef& ref) {
  std::string text = "\"" + ref.name + "\"";
  if (ref.sub) text += ":(" + std::to_string(ref.sub->pre_size) + ")" + std::to_string(ref.sub->size);
  return text;
}

bool axis_ref_less(const AxisRef& a, const AxisRef& b, const Mesh& mesh) {
  if (a.name != b.name) {
    const auto ia = mesh.axis_index(a.name);
    const auto ib = mesh.axis_index(b.name);
    if (ia && ib) return *ia < *ib;
    if (ia || ib) return ia.has_value();  // known axes before unknown ones
    return a.name < b.name;
  }
  // Same name: "a":(1)k < "a" < "a":(m)k for m > 1.
  if (!a.sub && !b.sub) return false;
  if (!a.sub) return b.sub->pre_size > 1;
  if (!b.sub) return a.sub->pre_size == 1;
  return std::tie(a.sub->pre_size, a.sub->size) < std::tie(b.sub->pre_size, b.sub->size);
}

bool overlaps(const AxisRef& a, const AxisRef& b, const Mesh& mesh) {
  if (a.name != b.name) return false;
  if (!a.sub || !b.sub) return true;
  return a.pre_size() < b.next_pre_size(mesh) && b.pre_size() < a.next_pre_size(mesh);
}

bool can_merge(const AxisRef& a, const AxisRef& b) {
  return a.sub && b.sub && a.name == b.name && a.sub->pre_size * a.sub->size == b.sub->pre_size;
}

AxisRef merge(const AxisRef& a, const AxisRef& b, const Mesh& mesh) {
  const std::int64_t size = a.sub->size * b.sub->size;
  if (a.sub->pre_size == 1 && size == mesh.axis_size(a.name)) return AxisRef{a.name, std::nullopt};
  return AxisRef{a.name, SubAxis{a.sub->pre_size, size}};
}

std::int64_t product_of_sizes(const std::vector<AxisRef>& refs, const Mesh& mesh) {
  std::int64_t product = 1;
  for (const auto& ref : refs) product *= ref.size(mesh);
  return product;
}

}  // namespace podsim
