// Parallelism as a plan (docs/parallelism.md): which mesh axes each kind of parallelism uses. podsim derives every
// tensor's sharding from it (Megatron's conventions for tensor parallelism, ZeRO-3 / FSDP's for fully sharded data
// parallelism), so an assignment and a hand-written plan meet in the same planned program. Pipeline axes split the
// layers into stages (docs/overlap-pipeline-dcn.md); the other kinds apply within a stage.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/common/enum_names.hpp"
#include "models/sharding/mesh.hpp"

namespace podsim {

enum class ParallelKind { data, fsdp, tensor, sequence, expert, pipeline };

inline constexpr std::size_t kParallelKinds = 6;

inline constexpr EnumNames<ParallelKind, kParallelKinds> kParallelKindNames{"parallelism kind",
                                                                            {{
                                                                                {"data", ParallelKind::data},
                                                                                {"fsdp", ParallelKind::fsdp},
                                                                                {"tensor", ParallelKind::tensor},
                                                                                {"sequence", ParallelKind::sequence},
                                                                                {"expert", ParallelKind::expert},
                                                                                {"pipeline", ParallelKind::pipeline},
                                                                            }}};

// Mesh axis names per kind; an axis appears under one kind at most, and a kind's axes are listed major to minor.
struct Parallelism {
  std::array<std::vector<std::string>, kParallelKinds> axes;

  const std::vector<std::string>& of(ParallelKind kind) const { return axes[static_cast<std::size_t>(kind)]; }
  std::vector<std::string>& of(ParallelKind kind) { return axes[static_cast<std::size_t>(kind)]; }

  // Product of the sizes of `kind`'s axes on `mesh` (1 for none). The axes must be on the mesh.
  std::int64_t degree(ParallelKind kind, const Mesh& mesh) const;

  // `data=X fsdp=Y,Z tensor=W` (kinds in enum order, those with axes only; "replicated" for none).
  std::string to_string() const;
};

// Throws VerifyError: an axis not on the mesh (`unknown mesh axis, got: "W" (axes: "X", "Y")`), an axis under two
// kinds or twice under one (`mesh axis "X" is assigned twice: to data and to tensor`). Pipeline axes are verified
// like the others; what they need of the model (layers that divide into the stages) is verify_parallel_fit's.
void verify_parallelism(const Parallelism& parallelism, const Mesh& mesh);

}  // namespace podsim
