// Canonical Shardy text (printers.cc and the attribute assembly formats, as SHARDY.md §5 records them).
#include "models/sharding/shardy_print.hpp"

#include <cctype>
#include <vector>

#include "models/sharding/axis_ref.hpp"

namespace podsim {

namespace {

std::string join_axis_refs(const std::vector<AxisRef>& refs) {
  std::string text;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    if (i > 0) text += ", ";
    text += to_string(refs[i]);
  }
  return text;
}

bool is_bare_identifier(const std::string& name) {
  if (name.empty()) return false;
  const auto first = static_cast<unsigned char>(name.front());
  if (!std::isalpha(first) && first != '_') return false;
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (!std::isalnum(byte) && c != '_' && c != '$' && c != '.') return false;
  }
  return true;
}

}  // namespace

std::string print_shardy_mesh(const Mesh& mesh) {
  std::string text = "<[";
  for (std::size_t i = 0; i < mesh.axes.size(); ++i) {
    if (i > 0) text += ", ";
    text += quote_string(mesh.axes[i].name) + "=" + std::to_string(mesh.axes[i].size);
  }
  text += "]";
  if (!mesh.device_ids.empty()) {
    text += ", device_ids=[";
    for (std::size_t i = 0; i < mesh.device_ids.size(); ++i) {
      if (i > 0) text += ", ";
      text += std::to_string(mesh.device_ids[i]);
    }
    text += "]";
  }
  return text + ">";
}

std::string print_dim_sharding(const DimSharding& dim) {
  std::string text = "{";
  text += join_axis_refs(dim.axes);
  if (!dim.is_closed) text += dim.axes.empty() ? "?" : ", ?";
  text += "}";
  if (dim.priority) {
    text += 'p';
    text += std::to_string(*dim.priority);
  }
  return text;
}

std::string print_symbol_ref(const std::string& name) {
  std::string text = "@";
  text += is_bare_identifier(name) ? name : quote_string(name);
  return text;
}

std::string print_shardy_sharding(const TensorSharding& sharding) {
  std::string text = "<";
  if (sharding.inline_mesh) {
    text += "mesh";
    text += print_shardy_mesh(*sharding.inline_mesh);
  } else {
    text += print_symbol_ref(sharding.mesh_name);
  }
  text += ", [";
  for (std::size_t i = 0; i < sharding.dims.size(); ++i) {
    if (i > 0) text += ", ";
    text += print_dim_sharding(sharding.dims[i]);
  }
  text += "]";
  if (!sharding.replicated.empty()) text += ", replicated={" + join_axis_refs(sharding.replicated) + "}";
  if (!sharding.unreduced.empty()) {
    text += ", unreduced=";
    if (sharding.unreduced_reduction == Reduction::max) text += "max";
    if (sharding.unreduced_reduction == Reduction::min) text += "min";
    text += '{';
    text += join_axis_refs(sharding.unreduced);
    text += '}';
  }
  return text + ">";
}

}  // namespace podsim
