// Names of collective operations and algorithms, as users write them, and small shared helpers.
#include "sim/collectives/collective.hpp"

#include "sim/collectives/phase.hpp"

namespace podsim {

std::string_view algorithm_name(Algorithm algorithm) {
  return kAlgorithmNames.name(algorithm);
}

Algorithm parse_algorithm(std::string_view text) {
  return kAlgorithmNames.parse(text);
}

std::int32_t phase_steps(Algorithm algorithm, std::int32_t n) {
  if (n < 2) return 0;
  switch (algorithm) {
    case Algorithm::bidirectional:
      return n / 2;
    case Algorithm::direct:
      return 1;
    default:
      return n - 1;
  }
}

std::vector<ChipId> reversed(const std::vector<ChipId>& chips) {
  return {chips.rbegin(), chips.rend()};
}

}  // namespace podsim
