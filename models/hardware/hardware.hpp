// A whole hardware description: the chip, its ICI, how slices of it wrap around, the full pod's shape and
// the data-centre network bandwidth per chip. Built from a preset (configs/*.json) by sim/scenario.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/hardware/calibration.hpp"
#include "models/hardware/chip.hpp"
#include "models/hardware/ici.hpp"
#include "models/topology/wraparound.hpp"

namespace podsim {

struct HardwareSpec {
  std::string name;  // preset name, e.g. "tpu-v5e"
  ChipModel chip;
  IciModel ici;  // links_per_chip == 0 for chips without ICI figures (GPUs)
  WrapRule wrap_rule = WrapRule::never;
  bool twist = false;  // a slice may be a twisted torus (the preset's slice.twist; docs/topology.md, "Twisted tori")
  std::vector<std::int64_t> pod_shape;  // the full pod in chips per dimension, e.g. {16, 16}; empty = none
  // Generations built of 4x4x4 cubes (preset `slice.pod_chips`, `slice.largest_slice`; docs/topology.md, "Shapes"):
  // the pod's chips (0 = the product of pod_shape) and the largest single slice offered (empty = none published).
  std::int64_t pod_chips = 0;
  std::vector<std::int64_t> largest_slice;
  double dcn_bandwidth_Bps = 0;  // data-centre network egress per chip; 0 = no figure
  double dcn_latency_s = 0;  // one DCN transfer's latency (NIC to NIC); 0 = no figure (docs/overlap-pipeline-dcn.md)
  std::int64_t chips_per_host = 0;  // chips sharing one host's NIC; 0 = no figure (one host per slice)
  // Host offload (docs/hardware-model.md, "Host link"): bytes per second one chip moves to or from its host's memory,
  // each direction (the preset's `host.offload_Bps`); 0 = no figure (a plan that offloads is then refused).
  double host_offload_Bps = 0;
  // Measured-machine corrections the des applies (models/hardware/calibration.hpp); nullopt = uncalibrated.
  std::optional<Calibration> calibration;
};

// The DCN figures one evaluation runs with.
struct DcnFigures {
  double bandwidth_per_chip_Bps = 0;
  double latency_s = 0;
};

// The one precedence of DCN figures (docs/overlap-pipeline-dcn.md): a figure the user gives (the scenario's `dcn`, a
// command's flag) first; else, for the des (`simulated`), the calibration's; else the preset's. The closed form never
// takes the calibration's (it models the published figures).
inline DcnFigures dcn_figures(const HardwareSpec& hw, const std::optional<double>& user_bandwidth_Bps,
                              const std::optional<double>& user_latency_s, bool simulated) {
  const Calibration* measured = simulated && hw.calibration ? &*hw.calibration : nullptr;
  DcnFigures out{hw.dcn_bandwidth_Bps, hw.dcn_latency_s};
  if (measured && measured->dcn_bandwidth_Bps) out.bandwidth_per_chip_Bps = *measured->dcn_bandwidth_Bps;
  if (measured && measured->dcn_latency_s) out.latency_s = *measured->dcn_latency_s;
  if (user_bandwidth_Bps) out.bandwidth_per_chip_Bps = *user_bandwidth_Bps;
  if (user_latency_s) out.latency_s = *user_latency_s;
  return out;
}

}  // namespace podsim
