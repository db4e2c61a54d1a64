// The builder behind scenario_from_hlo (hlo_scenario.hpp), shared by the files that implement it, one per role:
// hlo_scenario.cpp (values, tensors, ops, the instruction table and the result), hlo_collectives.cpp (collectives,
// the default slice), hlo_compute.cpp (dots, convolutions, fusions and other bytes-only instructions),
// hlo_control_flow.cpp (call and while, inlined and unrolled) and hlo_build_helpers.cpp. Internal to sim/import.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/common/error.hpp"
#include "sim/import/hlo_module.hpp"
#include "sim/import/hlo_scenario.hpp"
#include "sim/import/imported_program.hpp"

namespace podsim::import::hlo_build {

// The most instructions read with loops unrolled and calls inlined (each becomes at most a few scenario ops), and
// the deepest nesting of calls and loops.
inline constexpr std::int64_t kMaxInstructions = 100000;
inline constexpr int kMaxCallDepth = 16;

// The mesh axes the builder names the slice dims by.
inline constexpr const char* kAxisNames[] = {"X", "Y", "Z"};

// Opcode families (hlo_build_helpers.cpp): arithmetic (one flop per result element), data movement (bytes only),
// collectives podsim runs.
const std::set<std::string>& arithmetic_opcodes();
const std::set<std::string>& data_movement_opcodes();
const std::set<std::string>& collective_opcodes();
bool is_arithmetic(const std::string& opcode);
bool is_data_movement(const std::string& opcode);
bool is_collective(const std::string& opcode);
// podsim's dtype for an HLO element type (module_scan.hpp's table); `approximated` says when only the byte size is
// kept. Empty: refused.
std::string podsim_dtype(const std::string& element, bool& approximated);
// Bytes per element of a podsim dtype name (0.5 for int4).
double element_bytes(const std::string& dtype);
// `{{0,1},{2,3}}`, cut after 200 characters.
std::string groups_text(const std::vector<std::vector<std::int64_t>>& groups);
// `f32[8,16]`.
std::string array_text(const std::string& element, const std::vector<std::int64_t>& dims);
// A matmul op of the program.
ImportedOp matmul_op(const std::string& name, const std::string& lhs, const std::string& rhs, const std::string& einsum,
                     const std::string& out);
// a x b, or -1 when it overflows.
std::int64_t times(std::int64_t a, std::int64_t b);
// A count of FLOPs, without a fraction.
std::string flops_text(double flops);
// `<@mesh, [{}, {"X", "Y"}, {}]>`: dim `sharded` of a rank-`rank` tensor over `axes`.
std::string dim_sharding(std::size_t rank, std::size_t sharded, const std::vector<std::string>& axes);
// `<@mesh, [{}, {}], unreduced={"X"}>`.
std::string unreduced_sharding(std::size_t rank, const std::vector<std::string>& axes);
// The one dim of a collective's `dimensions={D}`; nullopt when absent or not one integer.
std::optional<std::int64_t> collective_dim(const HloInstruction& ins);
// The result shape of an all-gather(-start) of one operand.
const HloShape& gather_result(const HloInstruction& ins);

// An HLO value of the ENTRY computation.
struct Value {
  HloShape shape;
  std::string tensor;                // the scenario tensor holding it; empty: none
  std::string sharding;              // the tensor's Shardy sharding; empty: replicated with the per-device shape
  std::vector<std::int64_t> global;  // with a sharding: the tensor's global shape
  std::string storage;               // without a tensor: a tensor holding its bytes (a view's source), or empty
  std::string holder;                // without either: a tensor whose buffer stands for it in podsim's memory
  std::vector<std::string> deps;     // the scenario ops that must end before it can be read
  std::vector<Value> elements;       // a tuple's elements
  bool replicated() const { return !tensor.empty() && sharding.empty(); }
  // The tensor a stand-in for this value is a view of (docs/import.md, "Stand-ins"); empty: none, so a stand-in is
  // transient.
  const std::string& held_by() const { return !tensor.empty() ? tensor : !storage.empty() ? storage : holder; }
};

// A declared tensor that stands in for a value of the module: a view of the tensor holding the value (`view_of`),
// or, when none holds it (`view_of` empty), transient.
struct StandIn {
  std::string view_of;
};

class Builder {
 public:
  Builder(const HloModule& module, std::string file, const std::vector<std::int64_t>& slice,
          const std::map<std::string, double>& peak_flops)
      : module_(module), file_(std::move(file)), slice_(slice), peak_flops_(peak_flops) {}

  HloImport build(const std::string& hardware);

 private:
  [[noreturn]] void fail(const HloInstruction& ins, std::size_t col, const std::string& message) const {
    throw InputError(file_ + ":" + std::to_string(ins.line) + ":" + std::to_string(col), message);
  }
  [[noreturn]] void fail_at(const HloInstruction& ins, const std::string& key, const std::string& message) const {
    const auto it = ins.attribute_column.find(key);
    fail(ins, it == ins.attribute_column.end() ? ins.column : it->second, message);
  }
  void note(const HloInstruction& ins, const std::string& how) {
    if (quiet_) return;  // a loop body's later iterations: its first listed the same approximations
    notes_.push_back({ins.opcode, ins.name, ins.line, how});
  }

  std::string dtype_of(const HloInstruction& ins, const HloShape& shape);
  double bytes_of(const HloInstruction& ins, const HloShape& shape);
  std::string new_tensor(const std::string& hint);
  std::string new_op(const std::string& hint);
  std::string declare(const HloInstruction& ins, const std::string& hint, const HloShape& shape,
                      const std::string& sharding = "", const std::optional<StandIn>& standin = std::nullopt);
  std::string readable(const HloInstruction& ins, const Value& v, const std::string& hint,
                       std::vector<std::string>& after);
  const Value& operand(const HloInstruction& ins, std::size_t k) const;
  std::vector<std::string> axes_of(const HloInstruction& ins);
  void push(ImportedOp op, const std::vector<std::string>& after);
  void compute_dtype(const std::string& dtype) { compute_dtypes_.insert(dtype); }
  // A name hint inside a called computation or loop body: prefixed with the scope, unless it is made from an op's
  // name that has it already.
  std::string scoped(const std::string& hint) const { return hint.rfind(scope_, 0) == 0 ? hint : scope_ + hint; }

  // hlo_scenario.cpp: an instruction read by the handler instruction_table() maps its opcode to.
  using Handler = void (Builder::*)(const HloInstruction&);
  static const std::map<std::string, Handler, std::less<>>& instruction_table();
  void instruction(const HloInstruction& ins);
  void input(const HloInstruction& ins);
  void tuple(const HloInstruction& ins);
  void get_tuple_element(const HloInstruction& ins);
  void alias(const HloInstruction& ins);
  void top_level_dot(const HloInstruction& ins);
  void top_level_convolution(const HloInstruction& ins);
  void bytes_only(const HloInstruction& ins);
  // hlo_control_flow.cpp: a `call` inlined, a `while` unrolled its known trip count times.
  void call(const HloInstruction& ins);
  void loop(const HloInstruction& ins);
  const HloComputation& callee(const HloInstruction& ins, const std::string& key) const;
  Value inline_computation(const HloInstruction& caller, const HloComputation& computation,
                           const std::vector<Value>& args, const std::string& scope);
  void collective(const HloInstruction& ins);
  void collective_permute(const HloInstruction& ins, const HloShape& result);
  void dot(const HloInstruction& ins, const HloInstruction* inner, const std::map<std::string, HloShape>* shapes,
           const std::vector<std::string>& after);
  void convolution(const HloInstruction& ins, const std::map<std::string, HloShape>* shapes,
                   const std::vector<std::string>& after);
  void fusion(const HloInstruction& ins);
  void memory_op(const HloInstruction& ins, double flops_per_element, const std::vector<std::string>& inner_ops);
  void fused_products(const HloInstruction& fusion, const std::string& callee, int depth, std::set<std::string>& seen,
                      const std::vector<std::string>& after, std::vector<std::string>& ops, double& flops_per_element);

  const HloModule& module_;
  std::string file_;
  std::vector<std::int64_t> slice_;
  std::map<std::string, double> peak_flops_;
  std::int64_t devices_ = 1;
  // The typed program (imported_program.hpp) that scenario_writer.hpp writes: the declared tensors and the ops, in
  // order; the mesh (one axis per slice dim) and the approximations once the ENTRY computation is read.
  ImportedProgram program_;
  std::map<std::string, Value> values_;
  std::set<std::string> tensor_names_, op_names_, noted_types_;
  std::set<std::string> compute_dtypes_;
  std::vector<HloImportNote> notes_;
  // ENTRY values an all-gather reads -> the layout it gathers (global shape, sharding): a parameter is declared in
  // it, an op whose result is written from a stand-in declares the stand-in in it.
  std::map<std::string, std::pair<std::vector<std::int64_t>, std::string>> gather_views_;
  // While a fusion's own computation is read: its parameters' names -> the fusion's operand values.
  std::map<std::string, const Value*> fused_params_;
  // While a called computation or loop body is read: the prefix of its ops' and tensors' names (`while.3.`), how
  // deep calls nest, whether notes are kept, and how many instructions have been read in all (bounded).
  std::string scope_;
  int depth_ = 0;
  bool quiet_ = false;
  std::int64_t walked_ = 0;
  // The values of constants in called computations and loop bodies, read once however often they are called.
  std::map<const HloInstruction*, Value> constants_;
  // While a loop body is read: the ops of this iteration so far, and the last ops of the previous one (those no op
  // of it waits for), which the iteration's first ops wait for: iterations run one after another.
  bool in_iteration_ = false;
  std::set<std::string> iteration_ops_;
  std::vector<std::string> iteration_after_;
};

}  // namespace podsim::import::hlo_build
