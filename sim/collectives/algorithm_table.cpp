// Lookups in the algorithm table: a row by its value or its name, and the choice `auto` makes per axis.
#include "sim/collectives/algorithm_table.hpp"

#include <string>

#include "models/common/error.hpp"

namespace podsim {

std::int32_t AlgorithmTraits::phase_steps(std::int32_t n) const {
  switch (steps) {
    case StepCount::one:
      return 1;
    case StepCount::half_n:
      return n < 2 ? 0 : n / 2;
    case StepCount::n_minus_1:
      return n < 2 ? 0 : n - 1;
  }
  return 0;
}

const AlgorithmTraits& algorithm_traits(Algorithm algorithm) {
  for (const AlgorithmTraits& row : kAlgorithms)
    if (row.algorithm == algorithm) return row;
  throw InternalError("the algorithm table has no row for " + std::string(kAlgorithmNames.name(algorithm)));
}

std::string_view algorithm_name(Algorithm algorithm) {
  return kAlgorithmNames.name(algorithm);
}

Algorithm parse_algorithm(std::string_view text) {
  return kAlgorithmNames.parse(text);
}

Algorithm resolve_algorithm(Algorithm requested, CollectiveKind op, const AxisGroups& axis) {
  if (requested != Algorithm::automatic) return requested;
  const AutoChoice choice = op == CollectiveKind::all_to_all ? AutoChoice::all_to_all
                            : axis.wraparound                ? AutoChoice::wrapped_axis
                                                             : AutoChoice::open_axis;
  for (const AlgorithmTraits& row : kAlgorithms)
    if (row.automatic == choice) return row.algorithm;
  throw InternalError("the algorithm table has no automatic choice for an axis of " +
                      std::string(collective_kind_name(op)));
}

}  // namespace podsim
