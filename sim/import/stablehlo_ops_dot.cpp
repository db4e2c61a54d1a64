// StableHLO `dot_general` and `dot` (docs/import.md, "The einsum of a dot_general"): a podsim matmul with the einsum
// the dimension numbers give, its result sharded by the planner's natural rule (natural_out_sharding).
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "models/plan/natural_out_sharding.hpp"
#include "models/sharding/shardy_parse.hpp"
#include "models/sharding/shardy_print.hpp"
#include "sim/import/dot_dims.hpp"
#include "sim/import/stablehlo_reader.hpp"

namespace podsim::import::stablehlo_read {

// `stablehlo.dot_general` (and `stablehlo.dot` of rank-2 operands): a matmul of the einsum its dims give
// (dot_dims.hpp).
void StablehloReader::read_dot(OpLine& op_line) {
  need(op_line, 2);
  SsaValue& lhs = operand(op_line, 0);
  SsaValue& rhs = operand(op_line, 1);
  auto dim_lists = [&](const std::string& key) -> std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> {
    const std::size_t k = line_.find(key + " = [", op_line.op_end);
    if (k == std::string::npos || k > op_line.type_colon) return {};
    const std::size_t l_open = k + key.size() + 3;
    const std::size_t l_close = line_.find(']', l_open);
    const std::size_t x = l_close == std::string::npos ? l_close : line_.find("x [", l_close);
    if (l_close == std::string::npos || x != skip_space(line_, l_close + 1)) fail(k, "malformed " + key);
    const std::size_t r_close = line_.find(']', x + 3);
    if (r_close == std::string::npos) fail(k, "malformed " + key);
    try {
      return {parse_int_list(line_.substr(l_open + 1, l_close - l_open - 1)),
              parse_int_list(line_.substr(x + 3, r_close - x - 3))};
    } catch (const std::exception&) {
      fail(k, "malformed " + key);
    }
  };
  const auto batch = dim_lists("batching_dims");
  auto contract = dim_lists("contracting_dims");
  if (op_line.op == "stablehlo.dot") {  // a matrix product: lhs dim 1 with rhs dim 0
    if (lhs.shape.size() != 2 || rhs.shape.size() != 2)
      fail(op_line.op_at, "stablehlo.dot is read for rank-2 operands only");
    contract = {{1}, {0}};
  }
  // Labels: the lhs dims in order (A, B, ...), a paired rhs dim takes its lhs dim's label, the rhs's free dims
  // the next letters. Output order (StableHLO's): batch dims, lhs free dims, rhs free dims.
  if (lhs.shape.size() + rhs.shape.size() > 26) fail(op_line.op_at, "dot_general has more than 26 dims");
  DotDims paired(lhs.shape, rhs.shape);
  for (const auto& [pairs, role] :
       {std::pair{&std::as_const(batch), DotRole::batch}, std::pair{&std::as_const(contract), DotRole::contracting}})
    switch (paired.pair(pairs->first, pairs->second, role)) {
      case DotDimsProblem::none:
        break;
      case DotDimsProblem::lengths_differ:
        fail(op_line.op_at, "dot_general dimension lists differ in length");
      case DotDimsProblem::out_of_range_or_repeated:
        fail(op_line.op_at, "dot_general dimension out of range or repeated");
      case DotDimsProblem::sizes_differ:
        fail(op_line.op_at, "dot_general paired dimensions differ in size");
    }
  const Einsum einsum = paired.einsum();
  const std::vector<std::int64_t> computed = paired.result_shape();
  if (computed != op_line.out.shape) fail(op_line.type_at, "the result type does not match the dot_general's dims");
  // The result's sharding as Shardy would propagate it, by the planner's rule (natural_out_sharding); the
  // contracting dims' axes are summed over, which podsim plans.
  const TensorSharding propagated = natural_out_sharding(einsum, lhs.sharding, rhs.sharding, *mesh_);
  materialize(lhs, op_line.operands[0].second);
  materialize(rhs, op_line.operands[1].second);
  ImportedOp op;
  op.kind = ImportedOpKind::matmul;
  op.name = op_line.name;
  op.lhs = lhs.tensor;
  op.rhs = rhs.tensor;
  op.einsum = to_string(einsum);
  op.sharding = op_line.value_sharding;
  op.after = after_of({&lhs, &rhs}, {});
  const std::string lhs_dtype = lhs.dtype;
  TensorSharding result = given(op_line).value_or(propagated);
  // A module that reduces partial sums itself (Shardy's explicit sdy.all_reduce, sdy.reduce_scatter): the axes of
  // the contracting dims stay unreduced in the result, for those ops to reduce.
  std::vector<AxisRef> partial;
  if (explicit_reductions_)
    for (const auto& [labels, sharding] :
         {std::pair{&einsum.lhs, &lhs.sharding}, std::pair{&einsum.rhs, &rhs.sharding}})
      for (std::size_t d = 0; d < labels->size(); ++d)
        if (einsum.out.find((*labels)[d]) == std::string::npos)
          for (const auto& axis : sharding->dims[d].axes)
            if (std::find(partial.begin(), partial.end(), axis) == partial.end() &&
                std::find(result.unreduced.begin(), result.unreduced.end(), axis) == result.unreduced.end())
              partial.push_back(axis);
  if (!partial.empty()) {
    result.unreduced.insert(result.unreduced.end(), partial.begin(), partial.end());
    op.sharding = print_shardy_sharding(result);
    approximate(op_line.op, line_no_,
                "out_sharding " + op.sharding + ": its partial sums over " + to_string(partial) +
                    " are left to the module's explicit reduction");
  }
  const int index = add_op(op_line, op);
  SsaValue v = derived(op_line, result);
  v.tensor = v.writer = op_line.name;
  v.dtype = lhs_dtype;
  if (op.sharding.empty()) {
    v.pending = index;
    pinned_[index] = print_shardy_sharding(propagated);
  }
  define(op_line, v);
  return;
}

}  // namespace podsim::import::stablehlo_read
