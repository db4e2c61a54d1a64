// Names of op kinds and evaluation models, and look-ups by name in a ScenarioSpec.
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

std::string_view op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::matmul:
      return "matmul";
    case OpKind::all_gather:
      return "all_gather";
    case OpKind::reduce_scatter:
      return "reduce_scatter";
    case OpKind::all_reduce:
      return "all_reduce";
    case OpKind::all_to_all:
      return "all_to_all";
    case OpKind::reshard:
      return "reshard";
    case OpKind::load:
      return "load";
    case OpKind::send:
      return "send";
    case OpKind::elementwise:
      return "elementwise";
  }
  return "?";
}

std::string_view eval_model_name(EvalModel model) {
  return model == EvalModel::des ? "des" : "book";
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
