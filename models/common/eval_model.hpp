// The two evaluators podsim reports side by side (DESIGN.md): `des`, the hop-by-hop simulation of a concrete
// schedule, and `book`, the closed forms of the scaling book.
#pragma once

#include <string_view>

#include "models/common/enum_names.hpp"

namespace podsim {

enum class EvalModel { des, book };

inline constexpr EnumNames<EvalModel, 2> kEvalModelNames{"model",
                                                         {{{"des", EvalModel::des}, {"book", EvalModel::book}}}};

// "des", "book".
inline std::string_view eval_model_name(EvalModel model) {
  return kEvalModelNames.name(model);
}

}  // namespace podsim
