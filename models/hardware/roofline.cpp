// Matmul roofline on one chip, tile VMEM footprint, and the ICI critical intensity.
#include "models/hardware/roofline.hpp"

#include <algorithm>
#include <string>

#include "models/common/error.hpp"
#include "models/hardware/missing_figure.hpp"

namespace podsim {
namespace {

std::uint64_t checked_elements(std::uint64_t a, std::int64_t b, const char* what) {
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b), &product))
    throw VerifyError(std::string(what) + " element count overflows 64 bits, got: " + std::to_string(a) + " x " +
                      std::to_string(b));
  return product;
}

std::uint64_t checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) throw VerifyError("matmul byte count overflows 64 bits");
  return sum;
}

void require_positive(std::int64_t value, const char* name) {
  if (value <= 0)
    throw VerifyError(std::string("matmul dim ") + name + " must be positive, got: " + std::to_string(value));
}

}  // namespace

std::int64_t pad_to_multiple(std::int64_t dim, std::int64_t multiple) {
  if (multiple <= 0) return dim;
  return (dim + multiple - 1) / multiple * multiple;
}

MatmulRoofline matmul_roofline(const ChipModel& chip, std::int64_t m, std::int64_t k, std::int64_t n, DType in,
                               DType out) {
  return matmul_roofline(chip, m, k, n, in, out, in);
}

MatmulRoofline matmul_roofline(const ChipModel& chip, std::int64_t m, std::int64_t k, std::int64_t n, DType in,
                               DType out, DType weight, std::int64_t weights, std::optional<DType> compute) {
  require_positive(weights, "weights");
  require_positive(m, "m");
  require_positive(k, "k");
  require_positive(n, "n");
  MatmulRoofline r;
  r.m = m;
  r.k = k;
  r.n = n;
  r.k_padded = chip.has_mxu() ? pad_to_multiple(k, chip.mxu_rows) : k;
  r.n_padded = chip.has_mxu() ? pad_to_multiple(n, chip.mxu_cols) : n;
  r.flops = 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
  r.padded_flops = 2.0 * static_cast<double>(m) * static_cast<double>(r.k_padded) * static_cast<double>(r.n_padded);
  const std::uint64_t w_elements = checked_elements(checked_elements(k, n, "w"), weights, "w");
  r.bytes = checked_add(checked_add(dtype_bytes(in, checked_elements(m, k, "x")), dtype_bytes(weight, w_elements)),
                        dtype_bytes(out, checked_elements(m, n, "y")));
  r.intensity = r.flops / static_cast<double>(r.bytes);
  r.peak_flops = chip.peak_flops(compute.value_or(in));
  r.compute_time_s = r.padded_flops / r.peak_flops;
  r.memory_time_s = hbm_load_time(static_cast<double>(r.bytes), chip);
  r.time_s = std::max(r.compute_time_s, r.memory_time_s);
  r.bound = r.compute_time_s >= r.memory_time_s ? Bound::compute : Bound::memory;
  return r;
}

std::uint64_t tile_vmem_bytes(std::int64_t tm, std::int64_t tk, std::int64_t tn, DType in, DType out) {
  require_positive(tm, "tm");
  require_positive(tk, "tk");
  require_positive(tn, "tn");
  return checked_add(checked_add(dtype_bytes(in, checked_elements(tm, tk, "x tile")),
                                 dtype_bytes(in, checked_elements(tk, tn, "w tile"))),
                     dtype_bytes(out, checked_elements(tm, tn, "y tile")));
}

bool tile_fits_vmem(const ChipModel& chip, std::int64_t tm, std::int64_t tk, std::int64_t tn, DType in, DType out) {
  if (chip.vmem_bytes_per_core == 0)
    throw MissingFigureError("chip.vmem_bytes_per_core", "chip \"" + chip.name + "\" has no VMEM figure");
  return tile_vmem_bytes(tm, tk, tn, in, out) <= chip.vmem_bytes_per_core;
}

double ici_critical_intensity(const ChipModel& chip, const IciModel& ici, int axes, DType dtype) {
  if (!ici.present())
    throw MissingFigureError(ici.links_per_chip > 0 ? "ici.bandwidth_Bps" : "ici.links_per_chip",
                             "chip \"" + chip.name + "\" has no ICI figures");
  if (axes <= 0) throw VerifyError("ici axes must be positive, got: " + std::to_string(axes));
  return chip.peak_flops(dtype) / (axes * ici.bidirectional_Bps());
}

}  // namespace podsim
