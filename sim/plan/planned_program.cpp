// Small queries over a planned program.
#include "sim/plan/planned_program.hpp"

namespace podsim {

std::vector<int> PlannedOp::created(const std::vector<PlannedBuffer>& buffers) const {
  std::vector<int> ids;
  for (const auto& step : steps)
    if (step.writes >= 0 && buffers[static_cast<std::size_t>(step.writes)].op == index) ids.push_back(step.writes);
  return ids;
}

std::vector<int> PlannedProgram::tensor_versions() const {
  std::vector<int> ids;
  for (std::size_t b = 0; b < buffers.size(); ++b)
    if (buffers[b].role != PlannedBuffer::Role::temporary) ids.push_back(static_cast<int>(b));
  return ids;
}

}  // namespace podsim
