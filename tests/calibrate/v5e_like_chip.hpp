// The calibration tests' chip, with round figures to work expectations out by hand.
#pragma once

#include "models/hardware/hardware.hpp"

namespace podsim::test {

// A v5e-like chip: 1.97e14 bf16 FLOP/s, 8.1e11 B/s of HBM; 4 links of 4.5e10 B/s, 1 us per hop; wraps only on 16.
inline HardwareSpec v5e_like_chip() {
  HardwareSpec hw;
  hw.name = "v5e-like";
  hw.chip.name = "v5e-like";
  hw.chip.tensorcores = 1;
  hw.chip.mxu_rows = hw.chip.mxu_cols = 128;
  hw.chip.mxus_per_core = 4;
  hw.chip.peak_flops_by_dtype[DType::bf16] = 1.97e14;
  hw.chip.hbm_bandwidth_Bps = 8.1e11;
  hw.ici.links_per_chip = 4;
  hw.ici.bandwidth_Bps = 4.5e10;
  hw.ici.hop_latency_s = 1e-6;
  hw.wrap_rule = WrapRule::full_pod_axis;
  hw.pod_shape = {16, 16};
  return hw;
}

}  // namespace podsim::test
