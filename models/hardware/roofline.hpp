// The roofline of one matmul on one chip (SCALING_BOOK_MODELS.md (b)9 and (d)): FLOPs with the weight
// padded to the MXU, bytes to and from HBM, arithmetic intensity, and time = max(compute, memory).
// Also the VMEM check for a tile and the critical intensities against HBM and ICI.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "models/common/bound.hpp"
#include "models/common/dtype.hpp"
#include "models/hardware/chip.hpp"
#include "models/hardware/ici.hpp"

namespace podsim {

// x[m, k] @ w[k, n] -> y[m, n]. The weight's dims are padded up to multiples of the MXU (k to mxu_rows,
// n to mxu_cols; none on chips without MXU figures); m streams through the array and is not padded.
struct MatmulRoofline {
  std::int64_t m = 0, k = 0, n = 0;
  std::int64_t k_padded = 0, n_padded = 0;
  double flops = 0;              // 2 m k n, the useful work
  double padded_flops = 0;       // 2 m k_padded n_padded, what the MXUs execute
  std::uint64_t bytes = 0;       // x read in the input dtype, w in its own, y written in the output dtype (unpadded)
  double intensity = 0;          // flops / bytes, FLOP per byte (the book's arithmetic intensity)
  double peak_flops = 0;         // the chip's peak for the compute dtype (the input's unless given), FLOP/s
  double compute_time_s = 0;     // padded_flops / peak_flops
  double memory_time_s = 0;      // bytes / HBM bandwidth
  double time_s = 0;             // max(compute_time_s, memory_time_s)
  Bound bound = Bound::compute;  // which term wins (compute or memory); a tie counts as compute-bound
};

// Roofline of x[m,k] @ w[k,n] on `chip`, inputs in `in`, output in `out`. Throws VerifyError when a dim is
// not positive or the byte count overflows, and MissingFigureError (figure "chip.peak_flops" or
// "chip.hbm_bandwidth_Bps") when the chip lacks a figure the roofline needs.
MatmulRoofline matmul_roofline(const ChipModel& chip, std::int64_t m, std::int64_t k, std::int64_t n, DType in,
                               DType out);
// The same with the weight w stored in `weight` (an int8 or int4 weight read at its own bytes, computed at the
// peak of `in`: weight-only quantization dequantizes on the way to the MXU).
// `weights`: how many k x n matrices w holds (a batched matmul, the experts of a mixture of experts: m counts every
// batch's rows, and each batch reads its own matrix).
// `compute`: the element type the MXUs run in, when not `in` (AQT-style quantized matmuls cast both operands to int8
// or fp8 on the way to the MXU): the peak is the chip's for `compute`, the bytes stay those of the stored types.
MatmulRoofline matmul_roofline(const ChipModel& chip, std::int64_t m, std::int64_t k, std::int64_t n, DType in,
                               DType out, DType weight, std::int64_t weights = 1,
                               std::optional<DType> compute = std::nullopt);

// `dim` rounded up to a multiple of `multiple` (multiple <= 0 leaves it as is).
std::int64_t pad_to_multiple(std::int64_t dim, std::int64_t multiple);

// VMEM bytes of one tile: x[tm, tk] and w[tk, tn] in `in`, y[tm, tn] in `out` (single-buffered).
std::uint64_t tile_vmem_bytes(std::int64_t tm, std::int64_t tk, std::int64_t tn, DType in, DType out);
// Whether that tile fits in one TensorCore's VMEM. Throws MissingFigureError when the chip has no VMEM figure.
bool tile_fits_vmem(const ChipModel& chip, std::int64_t tm, std::int64_t tk, std::int64_t tn, DType in, DType out);

// The book's ICI critical intensity C / W_ici, with W_ici = axes x 2 x ici.bandwidth_Bps (bidirectional
// links on each of `axes` ring axes): v5p 4.59e14 / 1.8e11 = 2550, 850 over 3 axes. FLOP per byte.
double ici_critical_intensity(const ChipModel& chip, const IciModel& ici, int axes = 1, DType dtype = DType::bf16);

}  // namespace podsim
