// `podsim shard` output: JSON (schema podsim/1) and a readable summary.
#include "sim/report/shard_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/common/units.hpp"
#include "models/sharding/shardy_print.hpp"

namespace podsim::report {
namespace {

nlohmann::json mesh_json(const NamedMesh& named) {
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& axis : named.mesh.axes)
    axes.push_back({{"name", axis.name}, {"size", axis.size}});
  nlohmann::json out = {{"name", named.name},
                        {"axes", axes},
                        {"num_devices", named.mesh.num_devices()},
                        {"shardy", print_shardy_mesh(named.mesh)}};
  if (!named.mesh.device_ids.empty()) out["device_ids"] = named.mesh.device_ids;
  if (named.mesh.is_empty()) out["kind"] = "empty";
  if (named.mesh.is_maximal()) out["kind"] = "maximal";
  return out;
}

std::string mesh_text(const NamedMesh& named) {
  std::string axes;
  for (const auto& axis : named.mesh.axes)
    axes += fmt::format("{}{}={}", axes.empty() ? "" : ", ", axis.name, axis.size);
  std::string kind;
  if (named.mesh.is_empty()) kind = " (empty mesh)";
  if (named.mesh.is_maximal()) kind = fmt::format(" (maximal mesh on device {})", named.mesh.device_ids.front());
  std::string text = fmt::format("mesh @{}: {}{}, {} devices\n", named.name, axes.empty() ? "no axes" : axes, kind,
                                 named.mesh.num_devices());
  if (!named.mesh.device_ids.empty() && !named.mesh.axes.empty())
    text += fmt::format("  device order: {}\n", fmt::join(named.mesh.device_ids, ", "));
  return text;
}

std::string dims_text(const std::vector<std::int64_t>& dims) {
  return fmt::format("[{}]", fmt::join(dims, ", "));
}

}  // namespace

nlohmann::json shard_answer_json(const ShardAnswer& answer) {
  nlohmann::json out = {{"schema", "podsim/1"}};
  nlohmann::json meshes = nlohmann::json::array();
  for (const auto& named : answer.meshes.meshes())
    meshes.push_back(mesh_json(named));
  out["meshes"] = meshes;
  if (!answer.parsed) return out;
  const Layout& layout = answer.layout;
  out["mesh"] = answer.mesh_name;
  out["notation"] = notation_name(answer.parsed->notation);
  out["shape"] = answer.shape;
  out["dtype"] = dtype_name(answer.dtype);
  out["local_shape"] = layout.local_shape;
  out["padded_shape"] = layout.padded_shape;
  out["shards_per_dim"] = layout.shards_per_dim;
  out["bytes_per_device"] = layout.bytes_per_device;
  out["global_bytes"] = layout.global_bytes;
  out["total_bytes"] = layout.total_bytes;
  out["num_devices"] = layout.num_devices;
  out["replication_factor"] = layout.replication_factor;
  out["memory_ratio"] = layout.memory_ratio;
  nlohmann::json printed = {{"shardy", answer.printed.shardy}};
  printed["book"] = answer.printed.book ? nlohmann::json(*answer.printed.book) : nlohmann::json(nullptr);
  printed["pspec"] = answer.printed.pspec ? nlohmann::json(*answer.printed.pspec) : nlohmann::json(nullptr);
  if (!answer.printed.book) printed["book_error"] = answer.printed.book_error;
  if (!answer.printed.pspec) printed["pspec_error"] = answer.printed.pspec_error;
  out["printed"] = printed;
  if (!answer.devices.empty()) {
    nlohmann::json by_device = nlohmann::json::object();
    for (const auto& device : answer.devices)
      by_device[std::to_string(device.device)] = device.shard_index;
    out["shard_index_by_device"] = by_device;
  }
  return out;
}

std::string shard_answer_text(const ShardAnswer& answer) {
  std::string text;
  for (const auto& named : answer.meshes.meshes())
    text += mesh_text(named);
  if (!answer.parsed) return text;
  const Layout& layout = answer.layout;
  const auto& printed = answer.printed;
  const auto& inline_mesh = answer.parsed->sharding.inline_mesh;
  text += fmt::format("tensor: {}{} on {}\n", dtype_name(answer.dtype), dims_text(answer.shape),
                      inline_mesh ? "inline mesh " + print_shardy_mesh(*inline_mesh) : "mesh @" + answer.mesh_name);
  text += fmt::format("  shardy:            {}\n", printed.shardy);
  text += fmt::format("  book:              {}\n", printed.book ? *printed.book : "(" + printed.book_error + ")");
  text += fmt::format("  partition spec:    {}\n", printed.pspec ? *printed.pspec : "(" + printed.pspec_error + ")");
  text += fmt::format("  shards per dim:    {}\n", dims_text(layout.shards_per_dim));
  text += fmt::format("  local shape:       {}\n", dims_text(layout.local_shape));
  if (layout.padded_shape != layout.global_shape)
    text += fmt::format("  padded shape:      {} (non-divisible dims padded up)\n", dims_text(layout.padded_shape));
  text += fmt::format("  bytes per device:  {} ({})\n", layout.bytes_per_device, format_bytes(layout.bytes_per_device));
  text += fmt::format("  total bytes:       {} ({}) over {} devices\n", layout.total_bytes,
                      format_bytes(layout.total_bytes), layout.num_devices);
  text += fmt::format("  one copy:          {} ({})\n", layout.global_bytes, format_bytes(layout.global_bytes));
  text += fmt::format("  replication:       {}x (total / one copy = {:.6g})\n", layout.replication_factor,
                      layout.memory_ratio);
  if (!answer.devices.empty()) {
    text += "  shard index by device:\n";
    for (const auto& device : answer.devices)
      text += fmt::format("    device {:>4}: {}\n", device.device, dims_text(device.shard_index));
  }
  return text;
}

}  // namespace podsim::report
