// Names of op kinds and evaluation models, and look-ups by name in a ScenarioSpec.
#include "sim/scenario/scenario_spec.hpp"

namespace podsim {

std::string_view op_kind_name(OpKind kind) {
  return kOpKindNames.name(kind);
}

std::pair<Mesh, std::vector<std::vector<int>>> ScenarioSpec::in_slice_mesh() const {
  if (slice_count <= 1) return {mesh.mesh, mesh.axis_dims};
  Mesh in_slice;
  std::vector<std::vector<int>> dims;
  for (std::size_t i = 0; i < mesh.mesh.axes.size(); ++i) {
    if (mesh.mesh.axes[i].name == kSliceAxisName) continue;
    in_slice.axes.push_back(mesh.mesh.axes[i]);
    if (i < mesh.axis_dims.size()) dims.push_back(mesh.axis_dims[i]);
  }
  return {in_slice, dims};
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

std::optional<double> chip_hour_price(const std::optional<double>& every,
                                      const std::vector<std::pair<std::string, double>>& per_preset,
                                      std::string_view preset) {
  for (const auto& [name, price] : per_preset)
    if (name == preset) return price;
  return per_preset.empty() ? every : std::nullopt;
}

std::optional<double> chip_hour_price(const ScenarioSpec& spec, std::string_view preset) {
  return chip_hour_price(spec.price_per_chip_hour, spec.price_per_preset, preset);
}

bool priced(const ScenarioSpec& spec) {
  return spec.price_per_chip_hour.has_value() || !spec.price_per_preset.empty();
}

}  // namespace podsim
