#include "models/model/workload.hpp"

namespace podsim {

std::uint64_t Workload::tokens_per_step() const {
  switch (mode) {
    case WorkloadMode::train:
      return batch_tokens;
    case WorkloadMode::prefill:
      return static_cast<std::uint64_t>(batch) * static_cast<std::uint64_t>(context);
    case WorkloadMode::decode:
      return static_cast<std::uint64_t>(batch);
  }
  return 0;
}

}  // namespace podsim
