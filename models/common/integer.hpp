// Integer helpers that cannot overflow where a naive form would.
#pragma once

#include <cstdint>

namespace podsim {

// ceil(a / b) for b > 0, without the overflow of (a + b - 1) / b near 2^64.
constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

}  // namespace podsim
