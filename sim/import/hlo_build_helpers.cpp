// The small helpers of partitioned HLO's builder (hlo_builder.hpp): opcode families, dtypes, and the text of
// shapes, groups and shardings in notes and stand-ins.
#include <algorithm>
#include <charconv>
#include <iomanip>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>

#include "models/common/dtype.hpp"
#include "models/common/error.hpp"
#include "models/common/shape.hpp"
#include "sim/import/hlo_builder.hpp"
#include "sim/import/module_scan.hpp"

namespace podsim::import::hlo_build {
namespace {

// Ops read as arithmetic: one flop per element of the result each (at top level, or counted in a fusion).
const std::set<std::string> kArithmeticOpcodes = {"add",
                                                  "subtract",
                                                  "multiply",
                                                  "divide",
                                                  "maximum",
                                                  "minimum",
                                                  "power",
                                                  "remainder",
                                                  "exponential",
                                                  "exponential-minus-one",
                                                  "log",
                                                  "log-plus-one",
                                                  "tanh",
                                                  "logistic",
                                                  "sqrt",
                                                  "rsqrt",
                                                  "cbrt",
                                                  "sine",
                                                  "cosine",
                                                  "tan",
                                                  "negate",
                                                  "abs",
                                                  "sign",
                                                  "floor",
                                                  "ceil",
                                                  "round-nearest-afz",
                                                  "round-nearest-even",
                                                  "compare",
                                                  "select",
                                                  "and",
                                                  "or",
                                                  "xor",
                                                  "not",
                                                  "clamp",
                                                  "atan2",
                                                  "erf",
                                                  "reduce",
                                                  "reduce-window",
                                                  "is-finite",
                                                  "shift-left",
                                                  "shift-right-logical",
                                                  "shift-right-arithmetic",
                                                  "popcnt"};
// Ops read as data movement: bytes in and out, no flops.
const std::set<std::string> kDataMovementOpcodes = {"copy",
                                                    "transpose",
                                                    "convert",
                                                    "broadcast",
                                                    "slice",
                                                    "concatenate",
                                                    "pad",
                                                    "dynamic-slice",
                                                    "dynamic-update-slice",
                                                    "reverse",
                                                    "gather",
                                                    "scatter",
                                                    "select-and-scatter",
                                                    "sort",
                                                    "reduce-precision",
                                                    "bitcast-convert"};
const std::set<std::string> kCollectiveOpcodes = {
    "all-gather",       "all-reduce",       "reduce-scatter",     "all-to-all",
    "all-gather-start", "all-reduce-start", "collective-permute", "collective-permute-start"};

}  // namespace

const std::set<std::string>& arithmetic_opcodes() {
  return kArithmeticOpcodes;
}
const std::set<std::string>& data_movement_opcodes() {
  return kDataMovementOpcodes;
}
const std::set<std::string>& collective_opcodes() {
  return kCollectiveOpcodes;
}
bool is_arithmetic(const std::string& opcode) {
  return kArithmeticOpcodes.count(opcode) > 0;
}
bool is_data_movement(const std::string& opcode) {
  return kDataMovementOpcodes.count(opcode) > 0;
}
bool is_collective(const std::string& opcode) {
  return kCollectiveOpcodes.count(opcode) > 0;
}

// podsim's dtype for an HLO element type (module_scan.hpp's table); `approximated` says when only the byte size is
// kept. Empty: refused.
std::string podsim_dtype(const std::string& element, bool& approximated) {
  const auto type = scan::element_type(scan::Dialect::hlo, element);
  approximated = !type.exact;
  return type.dtype;
}

// Bytes per element of a podsim dtype name (0.5 for int4), from models/common/dtype.
double element_bytes(const std::string& dtype) {
  return dtype_bits(parse_dtype(dtype)) / 8.0;
}

std::string groups_text(const std::vector<std::vector<std::int64_t>>& groups) {
  std::string out = "{";
  for (std::size_t g = 0; g < groups.size(); ++g) {
    out += g ? ",{" : "{";
    for (std::size_t k = 0; k < groups[g].size(); ++k)
      out += (k ? "," : "") + std::to_string(groups[g][k]);
    out += "}";
    if (out.size() > 200) return out + ",...}";
  }
  return out + "}";
}

std::string array_text(const std::string& element, const std::vector<std::int64_t>& dims) {
  std::string out = element + "[";
  for (std::size_t i = 0; i < dims.size(); ++i)
    out += (i ? "," : "") + std::to_string(dims[i]);
  return out + "]";
}

ImportedOp matmul_op(const std::string& name, const std::string& lhs, const std::string& rhs, const std::string& einsum,
                     const std::string& out) {
  ImportedOp op;
  op.kind = ImportedOpKind::matmul;
  op.name = name;
  op.lhs = lhs;
  op.rhs = rhs;
  op.einsum = einsum;
  op.out = out;
  return op;
}

// a x b for a dim and a group size (both >= 0); -1 (no dim's size) when it overflows.
std::int64_t times(std::int64_t a, std::int64_t b) {
  if (b != 0 && a > std::numeric_limits<std::int64_t>::max() / b) return -1;
  return a * b;
}

// A count of FLOPs, without a fraction.
std::string flops_text(double flops) {
  std::ostringstream out;
  out << std::setprecision(15) << flops;
  return out.str();
}

std::string axes_list(const std::vector<std::string>& axes) {
  std::string list;
  for (const auto& a : axes)
    list += (list.empty() ? "\"" : ", \"") + a + "\"";
  return list;
}

// `<@mesh, [{}, {"X", "Y"}, {}]>`: dim `sharded` of a rank-`rank` tensor over `axes`.
std::string dim_sharding(std::size_t rank, std::size_t sharded, const std::vector<std::string>& axes) {
  std::string s = "<@mesh, [";
  for (std::size_t i = 0; i < rank; ++i)
    s += std::string(i ? ", " : "") + (i == sharded ? "{" + axes_list(axes) + "}" : "{}");
  return s + "]>";
}

// `<@mesh, [{}, {}], unreduced={"X"}>`.
std::string unreduced_sharding(std::size_t rank, const std::vector<std::string>& axes) {
  std::string s = "<@mesh, [";
  for (std::size_t i = 0; i < rank; ++i)
    s += i ? ", {}" : "{}";
  return s + "], unreduced={" + axes_list(axes) + "}>";
}

// The one dim of a collective's `dimensions={D}`; nullopt when absent or not one integer.
std::optional<std::int64_t> collective_dim(const HloInstruction& ins) {
  const auto it = ins.attributes.find("dimensions");
  if (it == ins.attributes.end()) return std::nullopt;
  const std::string& text = it->second;
  if (text.size() < 3 || text.front() != '{' || text.back() != '}') return std::nullopt;
  std::int64_t v = 0;
  const char* b = text.data() + 1;
  const char* e = text.data() + text.size() - 1;
  const auto [end, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || end != e || v < 0) return std::nullopt;
  return v;
}

// The result shape of an all-gather(-start) of one operand.
const HloShape& gather_result(const HloInstruction& ins) {
  if (ins.opcode == "all-gather-start" && ins.shape.tuple && ins.shape.elements.size() >= 2)
    return ins.shape.elements[1];
  return ins.shape;
}

}  // namespace podsim::import::hlo_build
