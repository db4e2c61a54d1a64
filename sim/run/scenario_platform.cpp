// Scenario -> slice, mesh mapping and engine network.
#include "sim/run/scenario_platform.hpp"

#include "models/common/error.hpp"
#include "sim/engine/slice_network.hpp"

namespace podsim {

ScenarioPlatform build_platform(const ScenarioSpec& spec) {
  ScenarioPlatform platform;
  platform.slice = std::make_shared<Slice>(spec.one_slice());
  try {
    const auto [mesh, dims] = spec.in_slice_mesh();  // the whole mesh on one slice
    platform.mapping = std::make_shared<MeshMapping>(mesh, *platform.slice, dims);
  } catch (const Error& e) {
    throw InputError(spec.source_file + ": /mesh", e.what());
  }
  // The des simulates the hardware's calibration when it has one (docs/hardware-model.md, "Calibration"): its hop
  // latency and DCN figures replace the preset's (not a figure the scenario sets itself), its transfer costs go to
  // the engine. The book's figures (topology()) stay the preset's.
  const std::optional<Calibration>& calibration = spec.hardware.spec.calibration;
  IciModel ici = spec.hardware.spec.ici;
  if (calibration && calibration->hop_latency_s) ici.hop_latency_s = *calibration->hop_latency_s;
  if (ici.present() && spec.slice_count > 1) {
    platform.slices = spec.slice_count;
    platform.dcn_bandwidth_Bps = spec.dcn_bandwidth_or_preset();
    platform.dcn_latency_s = spec.dcn_latency_or_preset();
    const HardwareSpec& hw = spec.hardware.spec;
    const DcnFigures simulated = dcn_figures(hw, spec.dcn_bandwidth_Bps, spec.dcn_latency_s, true);
    const DcnLinks dcn{simulated.bandwidth_per_chip_Bps, simulated.latency_s,
                       hw.chips_per_host > 0 ? hw.chips_per_host : platform.slice->num_chips()};
    try {
      platform.network =
          multi_slice_network(*platform.slice, platform.slices, ici, dcn, platform.chip_flops, spec.options.routing);
    } catch (const Error& e) {
      throw InputError(spec.source_file + ": /slice", e.what());
    }
  } else if (ici.present()) {
    platform.network = slice_network(*platform.slice, ici, platform.chip_flops, spec.options.routing);
  } else {
    // No ICI figures (a GPU preset): chips without links; a program that moves data is rejected when planned.
    platform.network.num_chips = static_cast<std::int32_t>(platform.slice->num_chips());
    platform.network.chip_flops = platform.chip_flops;
    platform.network.route = [](std::int32_t, std::int32_t) { return std::vector<std::int32_t>{}; };
  }
  if (calibration) platform.network.transfer = {calibration->collective_step_s, calibration->link_efficiency};
  platform.calibration = calibration;
  return platform;
}

}  // namespace podsim
