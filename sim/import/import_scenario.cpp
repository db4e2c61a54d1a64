// Scenario JSON from an imported module: see import_scenario.hpp.
#include "sim/import/import_scenario.hpp"

#include <filesystem>
#include <set>

#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "sim/import/assumed_peaks.hpp"
#include "sim/import/import_error.hpp"
#include "sim/import/slice_placement.hpp"

namespace podsim::import {
namespace {

std::string mesh_text(const ImportedModule& module) {
  std::string out;
  for (const auto& [name, size] : module.axes)
    out += (out.empty() ? "\"" : ", \"") + name + "\"=" + std::to_string(size);
  return "<[" + out + "]>";
}

}  // namespace

std::vector<std::vector<int>> map_mesh_to_slice(const ImportedModule& module, const std::vector<std::int64_t>& slice,
                                                const std::string& where) {
  const auto no_fit = [&](const std::string& why) {
    return InputError(
        where, "the mesh " + mesh_text(module) + " does not fit the slice (" + why + "), got: " + format_dims(slice));
  };
  std::vector<std::vector<int>> dims;
  std::size_t d = 0;
  for (const auto& [name, size] : module.axes) {
    dims.emplace_back();
    if (size == 1) continue;
    while (d < slice.size() && slice[d] == 1)
      ++d;
    std::int64_t product = 1;
    while (d < slice.size() && product < size) {
      product *= slice[d];
      dims.back().push_back(static_cast<int>(d++));
    }
    if (product != size)
      throw no_fit("axis \"" + name + "\"=" + std::to_string(size) + " does not cover whole slice dims");
  }
  for (; d < slice.size(); ++d)
    if (slice[d] != 1) throw no_fit("slice dim " + std::to_string(d) + " is not covered by any mesh axis");
  return dims;
}

std::vector<std::int64_t> default_slice(const ImportedModule& module, const std::vector<std::int64_t>& pod_shape,
                                        const std::string& where) {
  std::vector<std::int64_t> slice;
  for (const auto& [name, size] : module.axes)
    if (size > 1) slice.push_back(size);
  const std::size_t rank = slice_rank(pod_shape, std::max<std::size_t>(slice.size(), 1));
  const std::size_t axes = slice.size();
  const Placement placement = place_on_pod(slice, pod_shape, rank);
  if (placement == Placement::too_many_dims)
    throw InputError(where, "the mesh " + mesh_text(module) + " has " + std::to_string(axes) +
                                " axes of size > 1 but the generation's slices have " + std::to_string(rank) +
                                " dims; give --slice");
  if (placement == Placement::longer_than_pod)
    throw InputError(where, "the mesh " + mesh_text(module) + " does not fit the generation's pod " +
                                format_dims(pod_shape) + " as the slice " + format_dims(slice) + "; give --slice");
  return slice;
}

nlohmann::ordered_json scenario_from_module(const ImportedModule& module, const std::string& file,
                                            const std::string& hardware, const std::vector<std::int64_t>& slice,
                                            const std::map<std::string, double>& peak_flops) {
  const auto dims = map_mesh_to_slice(module, slice, import_option_name(ImportOption::slice));
  std::vector<ImportedApproximation> notes = module.approximations;
  nlohmann::ordered_json hardware_value = hardware;
  if (!peak_flops.empty()) {
    std::set<std::string> dtypes;
    for (const auto& t : module.tensors)
      dtypes.insert(t.dtype);
    std::vector<std::string> assumed;
    hardware_value = hardware_with_assumed_peaks(hardware, dtypes, peak_flops, assumed);
    for (const auto& dtype : assumed)
      notes.push_back({"module", 0, assumed_peak_note(dtype)});
  }
  nlohmann::ordered_json doc;
  std::string name = std::filesystem::path(file).stem().string();
  doc["name"] = name.empty() ? "imported" : name;
  doc["description"] = "Imported by podsim import from " + file +
                       " (StableHLO with Shardy shardings, docs/import.md): " + std::to_string(module.tensors.size()) +
                       " tensors, " + std::to_string(module.ops.size()) + " ops, " + std::to_string(notes.size()) +
                       " approximations (see source).";
  nlohmann::ordered_json approximations = nlohmann::ordered_json::array();
  for (const auto& a : notes)
    approximations.push_back({{"op", a.op}, {"line", a.line}, {"how", a.how}});
  doc["source"] = {{"file", file}, {"format", "stablehlo-shardy"}, {"approximations", approximations}};
  doc["hardware"] = hardware_value;
  doc["slice"] = {{"shape", slice}, {"wraparound", "auto"}};
  nlohmann::ordered_json axes = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < module.axes.size(); ++i)
    axes.push_back({{"name", module.axes[i].first}, {"size", module.axes[i].second}, {"dims", dims[i]}});
  doc["mesh"] = {{"name", module.mesh_name}, {"axes", axes}};
  if (!module.device_ids.empty()) doc["mesh"]["device_ids"] = module.device_ids;
  // Tensors and ops are collected in plain vectors and made JSON once: adding to an ordered_json with
  // JSON_DIAGNOSTICS resets the parent of every element it holds, which made a large module's import quadratic.
  nlohmann::ordered_json::object_t tensors;
  for (const auto& t : module.tensors) {
    nlohmann::ordered_json tensor = {{"shape", t.shape}, {"dtype", t.dtype}};
    if (!t.sharding.empty()) tensor["sharding"] = t.sharding;
    if (!t.view_of.empty()) tensor["view_of"] = t.view_of;
    if (t.transient) tensor["transient"] = true;
    tensors.emplace_back(t.name, std::move(tensor));  // the reader's names are unique
  }
  doc["tensors"] = nlohmann::ordered_json(std::move(tensors));
  nlohmann::ordered_json::array_t program;
  for (const auto& op : module.ops) {
    nlohmann::ordered_json j;
    const std::string out = op.out.empty() ? op.name : op.out;
    switch (op.kind) {
      case ImportedOpKind::matmul:
        j = {{"op", "matmul"}, {"name", op.name},     {"lhs", op.lhs},
             {"rhs", op.rhs},  {"einsum", op.einsum}, {"out", out}};
        if (!op.sharding.empty()) j["out_sharding"] = op.sharding;
        break;
      case ImportedOpKind::elementwise:
        j = {{"op", "elementwise"}, {"name", op.name}, {"tensor", op.lhs}, {"out", out}};
        if (op.flops_per_element == static_cast<double>(static_cast<long long>(op.flops_per_element)))
          j["flops_per_element"] = static_cast<long long>(op.flops_per_element);
        else
          j["flops_per_element"] = op.flops_per_element;
        break;
      case ImportedOpKind::reshard:
        j = {{"op", "reshard"}, {"name", op.name}, {"tensor", op.lhs}, {"to", op.sharding}, {"out", out}};
        break;
      case ImportedOpKind::load:
        j = {{"op", "load"}, {"name", op.name}, {"tensor", op.lhs}};
        break;
    }
    if (!op.after.empty()) j["after"] = op.after;
    program.push_back(std::move(j));
  }
  doc["program"] = nlohmann::ordered_json(std::move(program));
  return doc;
}

std::string approximations_text(const nlohmann::ordered_json& scenario, const std::string& file) {
  const auto& list = scenario.at("source").at("approximations");
  if (list.empty()) return "";
  std::string out =
      std::to_string(list.size()) + " approximation" + (list.size() == 1 ? "" : "s") + " (docs/import.md):\n";
  for (const auto& a : list) {
    const int line = a.at("line").get<int>();
    out += "  " + file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " +
           a.at("op").get<std::string>() + ": " + a.at("how").get<std::string>() + "\n";
  }
  return out;
}

}  // namespace podsim::import
