// Scenario -> slice, mesh mapping and engine network.
#include "sim/run/scenario_platform.hpp"

#include "models/common/error.hpp"
#include "sim/engine/slice_network.hpp"

namespace podsim {

ScenarioPlatform build_platform(const ScenarioSpec& spec) {
  ScenarioPlatform platform;
  platform.slice = std::make_shared<Slice>(spec.slice_shape, spec.wraparound);
  try {
    platform.mapping = std::make_shared<MeshMapping>(spec.mesh.mesh, *platform.slice, spec.mesh.axis_dims);
  } catch (const Error& e) {
    throw InputError(spec.source_file + ": /mesh", e.what());
  }
  const IciModel& ici = spec.hardware.spec.ici;
  if (ici.present()) {
    platform.network = slice_network(*platform.slice, ici, platform.chip_flops);
  } else {
    // No ICI figures (a GPU preset): chips without links; a program that moves data is rejected when planned.
    platform.network.num_chips = static_cast<std::int32_t>(platform.slice->num_chips());
    platform.network.chip_flops = platform.chip_flops;
    platform.network.route = [](std::int32_t, std::int32_t) { return std::vector<std::int32_t>{}; };
  }
  return platform;
}

}  // namespace podsim
