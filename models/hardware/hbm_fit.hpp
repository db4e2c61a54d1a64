// Whether memory per chip fits a chip's HBM: the one rule every report, check, search and run applies (issue 32). A
// chip with no HBM figure (0: a preset that gives none) holds anything.
#pragma once

#include <cstdint>

namespace podsim {

constexpr bool fits_hbm(std::uint64_t bytes_per_chip, std::uint64_t hbm_bytes) {
  return hbm_bytes == 0 || bytes_per_chip <= hbm_bytes;
}

// The bytes per chip over HBM: 0 when they fit.
constexpr std::uint64_t bytes_over_hbm(std::uint64_t bytes_per_chip, std::uint64_t hbm_bytes) {
  return fits_hbm(bytes_per_chip, hbm_bytes) ? 0 : bytes_per_chip - hbm_bytes;
}

}  // namespace podsim
