#include "models/model/parallelism.hpp"

#include "models/common/error.hpp"

namespace podsim {

std::int64_t Parallelism::degree(ParallelKind kind, const Mesh& mesh) const {
  std::int64_t product = 1;
  for (const auto& axis : of(kind))
    product *= mesh.axis_size(axis);
  return product;
}

std::string Parallelism::to_string() const {
  std::string text;
  for (std::size_t k = 0; k < kParallelKinds; ++k) {
    if (axes[k].empty()) continue;
    if (!text.empty()) text += ' ';
    text += std::string(kParallelKindNames.name(static_cast<ParallelKind>(k))) + '=';
    for (std::size_t i = 0; i < axes[k].size(); ++i)
      text += (i > 0 ? "," : "") + axes[k][i];
  }
  return text.empty() ? "replicated" : text;
}

namespace {

std::string axis_list(const Mesh& mesh) {
  std::string text;
  for (const auto& axis : mesh.axes)
    text += (text.empty() ? "\"" : ", \"") + axis.name + "\"";
  return text;
}

}  // namespace

void verify_parallelism(const Parallelism& parallelism, const Mesh& mesh) {
  std::vector<int> owner(mesh.axes.size(), -1);
  for (std::size_t k = 0; k < kParallelKinds; ++k) {
    const auto kind_name = std::string(kParallelKindNames.name(static_cast<ParallelKind>(k)));
    for (const auto& axis : parallelism.axes[k]) {
      const auto index = mesh.axis_index(axis);
      if (!index)
        throw VerifyError(kind_name + ": unknown mesh axis, got: \"" + axis + "\" (axes: " + axis_list(mesh) + ")");
      if (owner[*index] >= 0) {
        const auto first = std::string(kParallelKindNames.name(static_cast<ParallelKind>(owner[*index])));
        throw VerifyError("mesh axis \"" + axis + "\" is assigned twice: to " + first + " and to " + kind_name);
      }
      owner[*index] = static_cast<int>(k);
    }
  }
}

}  // namespace podsim
