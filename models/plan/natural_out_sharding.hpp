// The sharding a two-operand einsum's result takes from its operands when nothing asks for another: the layout the
// local matmul produces (the planner's rule 1, docs/matmul-cases.md) and the one Shardy's propagation gives a
// dot_general's result (`podsim import`, docs/import.md). One rule for both, so that an imported module and a
// planned scenario agree on where a matmul's result lives.
#pragma once

#include "models/plan/einsum.hpp"
#include "models/sharding/mesh.hpp"
#include "models/sharding/sharding.hpp"

namespace podsim {

// Each output dim keeps the axes of the operand dim its label comes from: the lhs's, or the rhs's for a batch label
// the lhs leaves unsharded; an axis that overlaps one an earlier output dim took ends that dim's axes. Contracting
// labels leave no dim (their axes are the local product's partial sums: unreduced, which the caller adds). The
// result is on lhs's mesh, with no replicated or unreduced axes. `lhs` and `rhs` must have one dim sharding per
// label of einsum.lhs and einsum.rhs.
TensorSharding natural_out_sharding(const Einsum& einsum, const TensorSharding& lhs, const TensorSharding& rhs,
                                    const Mesh& mesh);

}  // namespace podsim
