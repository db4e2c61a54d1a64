// The import tests' shared pieces: their module texts under tests/import/data, a StableHLO module read from there,
// the error a StableHLO text gets, and a tensor's per-device shape in an imported scenario.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "models/common/error.hpp"
#include "models/sharding/layout.hpp"
#include "sim/import/stablehlo_module.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace podsim::import::fixtures {

inline std::string data_path(const std::string& name) {
  return std::string(PODSIM_TEST_DATA_DIR) + "/data/" + name;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline ImportedModule read_module(const std::string& name) {
  return parse_stablehlo_module(read_text(data_path(name)), name);
}

// The error message `parse_stablehlo_module` throws for `text` (named "m.mlir"), or "no error".
inline std::string stablehlo_error_of(const std::string& text) {
  try {
    parse_stablehlo_module(text, "m.mlir");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

inline std::vector<std::int64_t> local_shape(const ScenarioSpec& spec, const std::string& tensor) {
  for (const auto& t : spec.tensors)
    if (t.name == tensor) return compute_layout(t.shape, t.dtype, t.sharding.sharding(), spec.mesh.mesh).local_shape;
  ADD_FAILURE() << "no tensor " << tensor;
  return {};
}

}  // namespace podsim::import::fixtures
