// Summary helpers of SimulationResult.
#include "sim/engine/simulation_result.hpp"

#include <algorithm>

namespace podsim {

std::uint64_t SimulationResult::max_link_bytes() const {
  std::uint64_t best = 0;
  for (const LinkUsage& link : links)
    best = std::max(best, link.bytes);
  return best;
}

std::uint64_t SimulationResult::total_link_bytes() const {
  std::uint64_t total = 0;
  for (const LinkUsage& link : links)
    total += link.bytes;
  return total;
}

double SimulationResult::max_link_utilisation() const {
  if (makespan_s <= 0) return 0;
  double busiest = 0;
  for (const LinkUsage& link : links)
    busiest = std::max(busiest, link.busy_s);
  return busiest / makespan_s;
}

}  // namespace podsim
