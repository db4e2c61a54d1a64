// ChipModel's derived figures: per-dtype peak lookup, MXU peak from geometry, HBM roofline quantities.
#include "models/hardware/chip.hpp"

#include "models/hardware/missing_figure.hpp"

namespace podsim {

double ChipModel::peak_flops(DType dtype) const {
  const auto it = peak_flops_by_dtype.find(dtype);
  if (it != peak_flops_by_dtype.end()) return it->second;
  std::string has;
  for (const auto& [known, flops] : peak_flops_by_dtype)
    has += (has.empty() ? "" : ", ") + std::string(dtype_name(known));
  throw MissingFigureError("chip.peak_flops", "chip \"" + name + "\" has no peak FLOP/s figure for " +
                                                  std::string(dtype_name(dtype)) +
                                                  " (has: " + (has.empty() ? "none" : has) + ")");
}

double ChipModel::mxu_peak_flops() const {
  const char* missing = tensorcores <= 0     ? "chip.tensorcores"
                        : mxu_rows <= 0      ? "chip.mxu_rows"
                        : mxu_cols <= 0      ? "chip.mxu_cols"
                        : mxus_per_core <= 0 ? "chip.mxus_per_core"
                        : mxu_clock_Hz <= 0  ? "chip.mxu_clock_Hz"
                                             : nullptr;
  if (missing != nullptr)
    throw MissingFigureError(
        missing,
        "chip \"" + name + "\" has no MXU figures (tensorcores, mxu_rows, mxu_cols, mxus_per_core, " + "mxu_clock_Hz)");
  return static_cast<double>(tensorcores) * mxus_per_core * mxu_rows * mxu_cols * 2.0 * mxu_clock_Hz;
}

double ChipModel::reduction_s_per_byte(DType dtype) const {
  auto found = peak_flops_by_dtype.find(dtype);
  if (found == peak_flops_by_dtype.end()) found = peak_flops_by_dtype.find(DType::bf16);
  if (found == peak_flops_by_dtype.end() || !(found->second > 0)) return 0;
  return 8.0 / dtype_bits(dtype) / found->second;
}

double ChipModel::hbm_critical_intensity(DType dtype) const {
  if (hbm_bandwidth_Bps <= 0)
    throw MissingFigureError("chip.hbm_bandwidth_Bps", "chip \"" + name + "\" has no HBM bandwidth figure");
  return peak_flops(dtype) / hbm_bandwidth_Bps;
}

double hbm_load_time(double bytes, const ChipModel& chip) {
  if (chip.hbm_bandwidth_Bps <= 0)
    throw MissingFigureError("chip.hbm_bandwidth_Bps", "chip \"" + chip.name + "\" has no HBM bandwidth figure");
  return bytes / chip.hbm_bandwidth_Bps;
}

}  // namespace podsim
