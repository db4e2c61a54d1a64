// Axis-ref algebra, following Shardy's AxisRefAttr (dialect.cc) and sortAndMergeAxes (utils.cc) as
// SHARDY.md §3 and §6 record them.
#include "models/sharding/axis_ref.hpp"

#include <algorithm>
#include <tuple>

namespace podsim {

namespace {

// a * b, or nullopt when it does not fit in int64 (text may carry any int64 sub-axis numbers).
std::optional<std::int64_t> checked_product(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

}  // namespace

std::int64_t AxisRef::size(const Mesh& mesh) const {
  if (sub) return sub->size;
  return mesh.axis_size(name);
}

std::string quote_string(std::string_view name) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string text = "\"";
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      text += '\\';
      text += c;
    } else if (byte >= 0x20 && byte < 0x7f) {
      text += c;
    } else {
      text += '\\';
      text += kHex[byte >> 4];
      text += kHex[byte & 0xf];
    }
  }
  return text + "\"";
}

std::string to_string(const AxisRef& ref) {
  std::string text = quote_string(ref.name);
  if (ref.sub) text += ":(" + std::to_string(ref.sub->pre_size) + ")" + std::to_string(ref.sub->size);
  return text;
}

std::string to_string(const std::vector<AxisRef>& refs) {
  std::string text;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    if (i) text += ", ";
    text += to_string(refs[i]);
  }
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

bool contains(const AxisRef& a, const AxisRef& b, const Mesh& mesh) {
  if (a.name != b.name) return false;
  if (!a.sub) return true;
  if (!b.sub) return false;  // a valid sub-axis is smaller than its full axis
  return a.pre_size() <= b.pre_size() && b.next_pre_size(mesh) <= a.next_pre_size(mesh);
}

bool is_prefix_of(const AxisRef& a, const AxisRef& b, const Mesh& mesh) {
  return a.name == b.name && a.pre_size() == b.pre_size() && a.next_pre_size(mesh) <= b.next_pre_size(mesh);
}

bool can_merge(const AxisRef& a, const AxisRef& b) {
  if (!a.sub || !b.sub || a.name != b.name) return false;
  const auto next = checked_product(a.sub->pre_size, a.sub->size);
  return next && *next == b.sub->pre_size;
}

AxisRef merge(const AxisRef& a, const AxisRef& b, const Mesh& mesh) {
  const std::int64_t size = a.sub->size * b.sub->size;
  if (a.sub->pre_size == 1 && size == mesh.axis_size(a.name)) return AxisRef{a.name, std::nullopt};
  return AxisRef{a.name, SubAxis{a.sub->pre_size, size}};
}

void add_axis_or_merge(std::vector<AxisRef>& refs, const AxisRef& ref, const Mesh& mesh) {
  if (!refs.empty() && can_merge(refs.back(), ref)) {
    refs.back() = merge(refs.back(), ref, mesh);
  } else {
    refs.push_back(ref);
  }
}

std::vector<AxisRef> sort_and_merge_axes(std::vector<AxisRef> refs, const Mesh& mesh) {
  std::sort(refs.begin(), refs.end(), [&](const AxisRef& a, const AxisRef& b) { return axis_ref_less(a, b, mesh); });
  std::vector<AxisRef> merged;
  merged.reserve(refs.size());
  for (const auto& ref : refs)
    add_axis_or_merge(merged, ref, mesh);
  return merged;
}

std::int64_t product_of_sizes(const std::vector<AxisRef>& refs, const Mesh& mesh) {
  std::int64_t product = 1;
  for (const auto& ref : refs)
    product *= ref.size(mesh);
  return product;
}

}  // namespace podsim
