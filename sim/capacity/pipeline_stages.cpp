// Per-stage work of a pipelined training step from the layer program's per-op times.
#include "sim/capacity/pipeline_stages.hpp"

#include <string>

#include "models/common/error.hpp"

namespace podsim {
namespace {

void add(StepBreakdown& to, const StepBreakdown& part, double times) {
  to.compute_s += part.compute_s * times;
  to.hbm_s += part.hbm_s * times;
  to.ici_s += part.ici_s * times;
  to.dcn_s += part.dcn_s * times;
  to.bubble_s += part.bubble_s * times;
}

std::vector<double> totals(const std::vector<StepBreakdown>& parts) {
  std::vector<double> out;
  for (const auto& part : parts)
    out.push_back(part.total());
  return out;
}

}  // namespace

std::vector<double> StageWork::forward_s() const {
  return totals(forward);
}

std::vector<double> StageWork::backward_s() const {
  return totals(backward);
}

StageWork stage_work(const ModelProgram& model, const std::vector<StepBreakdown>& op_time, std::int64_t layers,
                     std::int64_t stages) {
  if (op_time.size() != model.roles.size() || model.repeats.size() != model.roles.size())
    throw VerifyError("stage work: one time per op of the program (" + std::to_string(model.roles.size()) +
                      "), got: " + std::to_string(op_time.size()));
  if (stages < 1 || layers % stages != 0)
    throw VerifyError("layers (" + std::to_string(layers) + ") must be a multiple of the pipeline stages (" +
                      std::to_string(stages) + ")");
  const auto per_stage = static_cast<double>(layers / stages);
  const auto p = static_cast<std::size_t>(stages);
  StageWork work{std::vector<StepBreakdown>(p), std::vector<StepBreakdown>(p), std::vector<StepBreakdown>(p)};
  for (std::size_t i = 0; i < op_time.size(); ++i) {
    const ModelOpRole role = model.roles[i];
    const StepBreakdown& t = op_time[i];
    // The stages the op runs on and how many times per microbatch (forward, backward) or per step (tail).
    std::size_t first = 0, last = p;
    double times = 1;
    if (role.place == ModelPlace::first) last = 1;
    if (role.place == ModelPlace::last) first = p - 1;
    if (role.place == ModelPlace::layer)
      times = role.phase == ModelPhase::step ? static_cast<double>(model.repeats[i]) / static_cast<double>(stages)
                                             : per_stage;
    else if (role.phase == ModelPhase::step)
      times = static_cast<double>(model.repeats[i]);
    for (std::size_t s = first; s < last; ++s) {
      switch (role.phase) {
        case ModelPhase::forward:
          add(work.forward[s], t, times);
          break;
        case ModelPhase::backward:
          add(work.backward[s], t, times);
          break;
        case ModelPhase::step:
          add(work.tail[s], t, times);
          break;
      }
    }
  }
  return work;
}

}  // namespace podsim
