#include "sim/run/candidate_result.hpp"

namespace podsim {

std::int64_t Candidate::chips() const {
  std::int64_t product = 1;
  for (const auto dim : slice)
    product *= dim;
  return product * slices;
}

}  // namespace podsim
