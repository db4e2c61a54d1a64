// From an imported StableHLO module (stablehlo_module.hpp) to scenario JSON (docs/scenario-format.md, through the
// one writer, scenario_writer.hpp) that
// `podsim check` and `podsim run` accept: the module's mesh laid on a slice, @main's arguments as tensors, its
// ops as the program. podsim plans the collectives itself.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/import/scenario_writer.hpp"
#include "sim/import/stablehlo_module.hpp"

namespace podsim::import {

// The slice dims each mesh axis covers (consecutive dims, in order, whose sizes multiply to the axis size; an
// axis of size 1 covers none, dims of size 1 may be skipped). Throws ImportOptionError on the slice when the mesh
// does not fit: `the mesh <["x"=4, "y"=2]> does not fit the slice (axis "x"=4 ...), got: 2x2`.
std::vector<std::vector<int>> map_mesh_to_slice(const ImportedModule& module, const std::vector<std::int64_t>& slice);

// The default slice for the mesh on a generation whose full pod is `pod_shape` (empty: no pod shape): one slice
// dim per mesh axis of size > 1, in order, padded with 1s to the pod's rank. Throws InputError at `where` when the
// mesh has more such axes than the pod has dims or an axis is longer than its pod dim.
std::vector<std::int64_t> default_slice(const ImportedModule& module, const std::vector<std::int64_t>& pod_shape,
                                        const std::string& where);

// The scenario: `name` from the file's stem, the description naming `file`, `hardware` the preset name, the slice
// and its mesh mapping (map_mesh_to_slice), tensors and program, and `source` (the file, the format
// "stablehlo-shardy" and the approximations list). `peak_flops`, the preset's peak FLOP/s by podsim dtype name
// when given (not empty): a dtype of the module's tensors that it lacks runs at its bf16 peak, through a hardware
// override the approximations list (assumed_peaks.hpp). Throws as map_mesh_to_slice and
// assumed_peaks; written by scenario_writer.hpp.
ScenarioJson scenario_from_module(const ImportedModule& module, const std::string& file, const std::string& hardware,
                                  const std::vector<std::int64_t>& slice,
                                  const std::map<std::string, double>& peak_flops = {});

}  // namespace podsim::import
