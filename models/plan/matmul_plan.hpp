// The sharded-matmul case analysis of the scaling book (SCALING_BOOK_MODELS.md §(c)): which collectives a
// two-operand einsum needs on its operands before the local matmul and on its result to reach the layout the
// consumer requires. docs/matmul-cases.md states every rule, every choice and every rejection.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/common/collective_kind.hpp"
#include "models/common/dtype.hpp"
#include "models/plan/einsum.hpp"
#include "models/sharding/axis_ref.hpp"
#include "models/sharding/mesh.hpp"
#include "models/sharding/sharding.hpp"

namespace podsim {

// One collective the plan needs, on one tensor of the matmul.
struct PlannedCollective {
  CollectiveKind kind = CollectiveKind::all_gather;
  enum class Operand { lhs, rhs, out } operand = Operand::out;
  std::vector<AxisRef> axes;  // the mesh axes it runs over, major to minor
  // all-gather: the dim un-sharded; reduce-scatter: the dim scattered into; all-to-all: the source dim;
  // -1 for all-reduce.
  int dim = -1;
  int to_dim = -1;               // all-to-all: the destination dim
  TensorSharding before, after;  // the operand's sharding around it
  // The book's V for the cost model (models/cost/collective_cost.hpp), padding included: all-gather: bytes
  // per device after the gather; reduce-scatter and all-reduce: bytes per device before (the unreduced
  // local array); all-to-all: bytes per device x group size.
  std::uint64_t array_bytes = 0;
  std::uint64_t group_size = 1;  // product of the axes' sizes
  std::string reason;            // the rule that asked for it, with the labels and axes involved
};

// "lhs", "rhs", "out".
std::string_view operand_name(PlannedCollective::Operand operand);

struct MatmulPlan {
  int matmul_case = 1;                    // 1..4 as the scaling book numbers them (the highest that applied)
  std::vector<PlannedCollective> before;  // on the operands, before the local matmul
  std::vector<PlannedCollective> after;   // on the result, to reach the required output sharding
  std::vector<std::string> notes;         // steps without communication (local slices), in order
  TensorSharding lhs, rhs;                // operand shardings the local matmul runs on
  TensorSharding local_out;               // what the local matmul produces (may carry unreduced axes {U_X})
  TensorSharding out;                     // final output sharding (= required, when given)
  std::vector<std::int64_t> out_shape;    // global shape of the output
  std::vector<std::int64_t> local_lhs_shape, local_rhs_shape, local_out_shape;  // per device, padded (ceil)
  double local_flops = 0;             // 2 x product over all labels of the local size of that label
  std::uint64_t m = 0, k = 0, n = 0;  // the local matmul as one m x k x n GEMM (batch folded into m)
  std::uint64_t batch = 1;            // the product of the local batch dims: the rhs holds `batch` k x n matrices
};

// Plans `lhs . rhs` by `einsum` on `mesh`. lhs_shape / rhs_shape are global shapes; lhs / rhs the operand
// shardings (verified again here); required_out the sharding the consumer needs, or nullopt for the natural
// output of the local matmul with its partial sums all-reduced. Throws VerifyError naming the rule and the
// value for: a shape or sharding whose rank disagrees with the subscripts, a label whose size differs
// between the operands, operands (or the required output) on different meshes, an operand that carries
// unreduced axes, a required output that fails verify_sharding (e.g. one axis on two dims) and a required
// output that cannot be reached (an unreduced axis the local product does not leave unreduced).
MatmulPlan plan_matmul(const Einsum& einsum, const std::vector<std::int64_t>& lhs_shape, const TensorSharding& lhs,
                       const std::vector<std::int64_t>& rhs_shape, const TensorSharding& rhs, DType dtype,
                       const Mesh& mesh, const std::optional<TensorSharding>& required_out);

// The collectives that turn a tensor of global `shape` sharded `from` into `to` (both on `mesh`, same rank):
// reduce-scatter, all-reduce, all-gather and all-to-all, plus local slices (no communication) appended to
// `notes` when it is not null. `labels` names the dims in reasons (one letter per dim; empty: dim numbers).
// The collectives are tagged with `operand`. Throws VerifyError when `from` or `to` has not one dim sharding
// per dim of `shape`, or when `to` keeps an axis unreduced that `from` does not hold unreduced.
std::vector<PlannedCollective> plan_resharding(const std::vector<std::int64_t>& shape, const TensorSharding& from,
                                               const TensorSharding& to, DType dtype, const Mesh& mesh,
                                               PlannedCollective::Operand operand, std::string_view labels,
                                               std::vector<std::string>* notes);

// Axes as the book writes a subscript: `X`, `XY` for one-letter full axes, else `{data,model}` (sub-axes as
// `"x":(1)2`).
std::string axes_text(const std::vector<AxisRef>& axes);

}  // namespace podsim
