// Scenario JSON from an imported module: see import_scenario.hpp.
#include "sim/import/import_scenario.hpp"

#include <set>

#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "sim/import/assumed_peaks.hpp"
#include "sim/import/import_error.hpp"
#include "sim/import/scenario_writer.hpp"
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

std::vector<std::vector<int>> map_mesh_to_slice(const ImportedModule& module, const std::vector<std::int64_t>& slice) {
  const auto no_fit = [&](const std::string& why) {
    return ImportOptionError(ImportOption::slice, "the mesh " + mesh_text(module) + " does not fit the slice (" + why +
                                                      "), got: " + format_dims(slice));
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

ScenarioJson scenario_from_module(const ImportedModule& module, const std::string& file, const std::string& hardware,
                                  const std::vector<std::int64_t>& slice,
                                  const std::map<std::string, double>& peak_flops) {
  ScenarioFrame frame;
  frame.file = file;
  frame.format = ImportFormat::stablehlo_shardy;
  frame.hardware = hardware;
  frame.slice = slice;
  frame.axis_dims = map_mesh_to_slice(module, slice);
  frame.approximations = module.approximations;
  if (!peak_flops.empty()) {
    std::set<std::string> dtypes;
    for (const auto& t : module.tensors)
      dtypes.insert(t.dtype);
    frame.assumed_peaks = assumed_peaks(hardware, dtypes, peak_flops);
    for (const auto& peak : frame.assumed_peaks)
      frame.approximations.push_back({"module", 0, assumed_peak_note(peak.dtype)});
  }
  frame.description = "Imported by podsim import from " + file +
                      " (StableHLO with Shardy shardings, docs/import.md): " + std::to_string(module.tensors.size()) +
                      " tensors, " + std::to_string(module.ops.size()) + " ops, " +
                      std::to_string(frame.approximations.size()) + " approximations (see source).";
  return scenario_json(module, frame);
}

}  // namespace podsim::import
