// One accelerator chip as the roofline sees it: TensorCores and their MXUs (systolic arrays), the peak
// FLOP/s per element type, on-core VMEM and the chip's HBM. All values SI (bytes, B/s, Hz, FLOP/s).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "models/common/dtype.hpp"
#include "models/hardware/missing_figure.hpp"

namespace podsim {

struct ChipModel {
  std::string name;     // preset name, used in error messages
  int tensorcores = 0;  // per chip; 0 when the preset gives none (GPUs)
  // MXU geometry; 0 when the chip has no MXU figures (GPUs), which turns MXU padding off.
  int mxu_rows = 0;
  int mxu_cols = 0;
  int mxus_per_core = 0;                        // MXUs in each TensorCore (not per chip)
  double mxu_clock_Hz = 0;                      // clock of the MXUs
  std::map<DType, double> peak_flops_by_dtype;  // per chip, FLOP/s (integer OP/s for int8/int4)
  std::uint64_t vmem_bytes_per_core = 0;        // 0 when unknown
  std::uint64_t hbm_bytes = 0;                  // per chip
  double hbm_bandwidth_Bps = 0;                 // per chip
  double power_W = 0;                           // watts the chip draws (the preset's source says which); 0 = none

  bool has_mxu() const { return mxu_rows > 0 && mxu_cols > 0; }
  // Peak FLOP/s per chip for `dtype`. Throws MissingFigureError (figure "chip.peak_flops") `chip "tpu-v5e"
  // has no peak FLOP/s figure for f32 (has: bf16, int8)`.
  double peak_flops(DType dtype) const;
  // Peak from the MXU geometry: tensorcores x mxus_per_core x rows x cols x 2 (multiply-add) x clock.
  // Throws MissingFigureError (the first missing MXU figure) when the chip has no MXU figures.
  double mxu_peak_flops() const;
  // Critical arithmetic intensity against HBM, FLOP per byte: peak_flops(dtype) / hbm_bandwidth_Bps.
  double hbm_critical_intensity(DType dtype = DType::bf16) const;
  // Seconds to reduce one byte of `dtype` (one add per element at the chip's peak for the dtype, or its bf16 peak
  // when the preset has none for the dtype); 0 when the chip has neither figure. The one figure lowering and
  // `podsim collective` use for reductions.
  double reduction_s_per_byte(DType dtype) const;
};

// Time to stream `bytes` from HBM at the chip's HBM bandwidth: bytes / hbm_bandwidth_Bps, in seconds.
double hbm_load_time(double bytes, const ChipModel& chip);

}  // namespace podsim
