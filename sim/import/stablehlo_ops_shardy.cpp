// Shardy's ops inside a function: `sdy.sharding_constraint` and `sdy.reshard`, a reshard to the given sharding
// (`sdy.constant` is read with the constants, stablehlo_ops_elementwise.cpp).
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string>

#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "models/sharding/shardy_parse.hpp"
#include "models/sharding/shardy_print.hpp"
#include "sim/import/stablehlo_reader.hpp"

namespace podsim::import::stablehlo_read {

// `sdy.sharding_constraint %v <@mesh, ...>` (or `sdy.reshard`): a reshard of the value to the constraint.
void StablehloReader::read_sharding_constraint(OpLine& op_line) {
  need(op_line, 1);
  SsaValue& in = operand(op_line, 0);
  const std::size_t s = line_.find('<', op_line.operands[0].second);
  if (s == std::string::npos || s > op_line.type_colon)
    fail(op_line.op_at, "malformed " + op_line.op + ": no sharding");
  const std::string to = read_sharding_text(s, in.shape.size());
  materialize(in, op_line.operands[0].second);
  ImportedOp op;
  op.kind = ImportedOpKind::reshard;
  op.name = op_line.name;
  op.lhs = in.tensor;
  op.sharding = to;
  op.after = after_of({&in}, {});
  add_op(op_line, op);
  SsaValue v = derived(op_line, parse_shardy_sharding(to));
  v.tensor = v.writer = op_line.name;
  v.dtype = in.dtype;
  define(op_line, v);
  return;
}

}  // namespace podsim::import::stablehlo_read
