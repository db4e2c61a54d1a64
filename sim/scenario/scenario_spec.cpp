// Names of op kinds and evaluation models, and look-ups by name in a ScenarioSpec.
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

std::string_view op_kind_name(OpKind kind) {
  return kOpKindNames.name(kind);
}

const ScenarioTensor* ScenarioSpec::find_tensor(std::string_view wanted) const {
  for (const auto& t : tensors)
    if (t.name == wanted) return &t;
  return nullptr;
}

const ScenarioOp* ScenarioSpec::find_op(std::string_view wanted) const {
  for (const auto& op : program)
    if (op.name == wanted) return &op;
  return nullptr;
}

const ScenarioPlan* ScenarioSpec::find_plan(std::string_view wanted) const {
  for (const auto& plan : plans)
    if (plan.name == wanted) return &plan;
  return nullptr;
}

}  // namespace podsim
