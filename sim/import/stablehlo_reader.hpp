// The reader behind parse_stablehlo_module (stablehlo_module.hpp), shared by the files that implement it:
// stablehlo_parse.cpp (the module, its mesh, functions, values and returns), stablehlo_op_line.cpp (an op line
// parsed into an OpLine, and the table from op name to handler), one file per family of ops (the handlers, listed
// below), and stablehlo_control_flow.cpp (`stablehlo.while`, unrolled; calls; ops of several results). Internal to
// sim/import.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/common/error.hpp"
#include "models/sharding/shardy_parse.hpp"
#include "sim/import/stablehlo_module.hpp"

namespace podsim::import::stablehlo_read {

// The deepest nesting of calls and loops, the most lines read with calls inlined and loops unrolled, the most
// scenario ops (as partitioned HLO's instructions, hlo_builder.hpp), and the most iterations of one loop.
inline constexpr int kMaxCallDepth = 16;
inline constexpr std::size_t kMaxLinesRead = 2000000;
inline constexpr std::size_t kMaxOps = 100000;
inline constexpr std::int64_t kMaxIterations = 10000;

// A tensor type: shape, the module's element type and podsim's dtype for it ("" when podsim has none).
struct TensorType {
  std::vector<std::int64_t> shape;
  std::string element;
  std::string dtype;
  std::size_t element_at = 0;  // column of the element type
};

// A value of the function being read.
struct SsaValue {
  std::string tensor;  // scenario tensor holding it; empty until materialized (constants, layout results)
  std::string name;    // the scenario name it gets when materialized
  std::vector<std::int64_t> shape;
  std::string element;  // the module's element type
  std::string dtype;    // podsim dtype ("" when none: refused if it must become a tensor)
  TensorSharding sharding;
  int pending = -1;                    // a matmul whose out_sharding `sharding` assumes but the scenario does not fix
  std::string writer;                  // the op whose `out` is `tensor` (empty: an argument or a declared tensor)
  std::vector<std::string> deps;       // ops a reader must wait for besides `writer`
  bool constant = false;               // computed from constants only
  std::optional<std::int64_t> scalar;  // a constant integer of one element: its value (a loop counter, a bound)
  std::string source;  // without a tensor: the tensor whose bytes it is in another shape or type (a layout result)
  std::string stablehlo_op;  // the op that defined it, for notes
  int line = 0;
};

// The values visible where an op is read: its own region's, then the enclosing regions' (a loop body reads the
// values of the function around it). A function's body has no parent: functions are isolated.
struct Scope {
  std::map<std::string, SsaValue> values;
  Scope* parent = nullptr;
  SsaValue* find(const std::string& ssa) {
    for (Scope* s = this; s; s = s->parent)
      if (const auto it = s->values.find(ssa); it != s->values.end()) return &it->second;
    return nullptr;
  }
};

struct Function {
  std::string name;
  std::size_t sig = 0, end = 0;  // line indices: the signature and its closing `}`
};

class StablehloReader;
struct OpLine;

// A row of the reader's op table (stablehlo_op_line.cpp): the handler of an op name, whether the op may have several
// results, and whether it reads its own line's syntax (a while's loop arguments) instead of operands and types.
struct OpEntry {
  void (StablehloReader::*handler)(OpLine&) = nullptr;
  bool several_results = false;
  bool own_syntax = false;
  bool generic = false;  // printed in the generic form (`"stablehlo.all_reduce"(%x) <{...}>`)
};

// One op line as parsed before its handler runs: `%r:N = OP OPERANDS ATTRIBUTES : TYPES`, and where it is read.
struct OpLine {
  std::string ssa;                    // the result's SSA name, without `:N`
  std::size_t results = 1;            // N of `%r:N`
  std::string op;                     // the op name, e.g. "stablehlo.add"
  std::size_t op_at = 0, op_end = 0;  // columns of the op name and just past it
  std::string name;                   // the scenario name of the result: the prefix, then tensor_name(ssa)
  const OpEntry* entry = nullptr;     // the op's row of the table
  std::vector<std::pair<std::string, std::size_t>> operands;  // each `%name` before the types, with its column
  std::size_t type_colon = 0;                                 // column of the ` : ` before the types
  std::vector<std::size_t> result_types;                      // column of each result type
  std::size_t type_at = 0;                                    // column of the first result type
  TensorType out;                                             // the first result's type
  std::string value_sharding;                                 // the result's `sdy.sharding_per_value` text; empty: none
  Scope* scope = nullptr;                                     // the values visible where the op is read
  std::string prefix;                                         // the prefix of scenario names in this region
  int depth = 0;                                              // calls and loops around the op
  std::size_t end = 0;                                        // the line index where the op's region ends
};

// A signature's argument list between `open` and `close` (`(` and past its `)`): each argument's SSA name ("" when
// malformed), and the column range of its text.
struct Argument {
  std::string ssa;
  std::size_t col = 0, end = 0;
};

// What an `sdy.manual_computation` line says (stablehlo_manual.cpp): its operands, the column ranges of its
// in_shardings and out_shardings, its manual axes and its body's arguments.
struct ManualHeader {
  std::vector<SsaValue*> operands;
  std::vector<std::pair<std::size_t, std::size_t>> in_parts, out_parts;
  std::set<std::string> manual;
  std::vector<Argument> args;
};

struct CollectiveAttrs;

class StablehloReader {
 public:
  StablehloReader(std::string_view text, std::string file, std::string entry)
      : text_(text), file_(std::move(file)), requested_entry_(std::move(entry)) {}

  ImportedModule read();
  // `FILE:LINE` of the line being read.
  std::string where() const { return file_ + ":" + std::to_string(line_no_); }

 private:
  [[noreturn]] void fail(std::size_t col, const std::string& message) const {
    throw InputError(file_ + ":" + std::to_string(line_no_) + ":" + std::to_string(col + 1), message);
  }
  void set_line(std::size_t index) {
    cur_ = index;
    line_ = lines_[index];
    line_no_ = static_cast<int>(index) + 1;
  }
  void read_mesh(std::size_t at);
  const Function& entry_function() const;
  void read_signature(std::size_t at, Scope& scope);
  // Reads lines [first, end) in `scope`, names of its values prefixed by `prefix`: a function's body (@main's when
  // `main`, whose return read_return reads) or a region. Returns the values the closing return returns; throws
  // `OWNER has no return` without one.
  std::vector<SsaValue> run_lines(std::size_t first, std::size_t end, Scope& scope, const std::string& prefix,
                                  int depth, bool main, const std::string& owner);
  // stablehlo_op_line.cpp: an op line, parsed into an OpLine and read by the handler op_table() maps its name to.
  void read_op(std::size_t at, Scope& scope, const std::string& prefix, int depth, std::size_t end);
  static const std::map<std::string, OpEntry, std::less<>>& op_table();
  OpLine read_op_head(std::size_t at, Scope& scope, const std::string& prefix);
  void read_op_types(OpLine& op_line);
  // What handlers share: the operand count check, an operand's value, a value no op writes (a constant, a layout
  // result) with the line's result type, an op added to the program (its index), the line's given sharding, the
  // result's binding.
  void need(const OpLine& op_line, std::size_t n) const;
  SsaValue& operand(const OpLine& op_line, std::size_t k) const;
  SsaValue derived(const OpLine& op_line, const TensorSharding& sharding) const;
  int add_op(const OpLine& op_line, ImportedOp op);
  std::optional<TensorSharding> given(const OpLine& op_line) const;
  // Binds the line's result to `v` where the op is read.
  void define(const OpLine& op_line, const SsaValue& v) { op_line.scope->values[op_line.ssa] = v; }
  // The handlers, one file per family of ops: stablehlo_ops_elementwise.cpp (elementwise ops, constants),
  // stablehlo_ops_dot.cpp (dot_general, dot), stablehlo_ops_layout.cpp (reshapes, transposes, broadcasts,
  // converts; slices, pads, concatenates; dynamic_update_slice), stablehlo_ops_reduce.cpp (reduce),
  // stablehlo_ops_shardy.cpp (sdy.sharding_constraint), stablehlo_control_flow.cpp (while, call,
  // optimization_barrier).
  void read_elementwise(OpLine& op_line);
  void read_constant(OpLine& op_line);
  void read_dot(OpLine& op_line);
  void read_layout(OpLine& op_line);
  void read_data_movement(OpLine& op_line);
  void read_dynamic_update_slice(OpLine& op_line);
  void read_reduce(OpLine& op_line);
  void read_sharding_constraint(OpLine& op_line);
  // stablehlo_ops_collectives.cpp: Shardy's explicit collectives (sdy.all_gather, all_slice, all_reduce,
  // reduce_scatter, all_to_all, collective_permute) and what they share.
  void read_sdy_collective(OpLine& op_line);
  void read_collective_permute(OpLine& op_line);
  std::vector<DimSharding> read_collective_axes(const OpLine& op_line, std::vector<std::pair<int, int>>* moves);
  TensorSharding read_out_sharding(const OpLine& op_line, std::size_t rank);
  void sends_for(OpLine& op_line, SsaValue& in, const TensorSharding& to, const std::string& why);
  void reduction_sends(OpLine& op_line, SsaValue& in, const std::vector<AxisRef>& axes, const TensorSharding& out,
                       bool gather);
  // stablehlo_manual.cpp: `sdy.manual_computation` (shard_map), its body read per device; stablehlo_collectives.cpp:
  // the StableHLO collectives of such a body, over the mesh axes of their replica groups.
  void read_manual_computation(OpLine& op_line);
  ManualHeader read_manual_header(const OpLine& op_line);
  void bind_manual_arguments(OpLine& op_line, const ManualHeader& h, Scope& body);
  std::vector<SsaValue> manual_results(const OpLine& op_line, const ManualHeader& h, std::vector<SsaValue>& results,
                                       std::size_t body_close);
  void read_stablehlo_collective(OpLine& op_line);
  CollectiveAttrs read_collective_head(OpLine& op_line);
  std::size_t collective_attr_at(const CollectiveAttrs& attrs, const std::string& key);
  std::int64_t collective_int(const OpLine& op_line, const CollectiveAttrs& attrs, const std::string& key);
  std::pair<std::vector<std::vector<std::int64_t>>, std::size_t> collective_groups(const OpLine& op_line,
                                                                                   const CollectiveAttrs& attrs,
                                                                                   const std::string& key);
  std::vector<std::string> collective_axes(const OpLine& op_line, const CollectiveAttrs& attrs);
  void read_reducing_collective(OpLine& op_line, SsaValue& in, const CollectiveAttrs& attrs);
  void read_permute_pairs(OpLine& op_line, SsaValue& in, const CollectiveAttrs& attrs);
  std::vector<std::string> axes_of_groups(const std::vector<std::vector<std::int64_t>>& groups, std::size_t at,
                                          const std::string& what);
  std::string stand_in(const OpLine& op_line, SsaValue& in, const std::vector<std::int64_t>& shape,
                       const TensorSharding& sharding);
  void read_while_op(OpLine& op_line);
  void read_call(OpLine& op_line);
  void read_optimization_barrier(OpLine& op_line);
  void read_return(std::size_t at, Scope& scope);
  // stablehlo_control_flow.cpp: `%r:N = stablehlo.while(...)` with its regions, which end before `end`; `op_end` is
  // where the op name ends.
  void read_while(std::size_t op_at, std::size_t op_end, const std::string& ssa, std::size_t results, Scope& scope,
                  const std::string& name, int depth, std::size_t end);
  // stablehlo_control_flow.cpp: orders the ops [first, end) of a loop iteration after `previous` (the last ops of
  // the iteration before, indices into module_.ops) where nothing else orders them; returns the iteration's last ops.
  std::vector<std::size_t> order_iteration(std::size_t first, const std::vector<std::size_t>& previous);
  std::string read_sharding_text(std::size_t at, std::size_t rank);
  TensorType read_tensor_type(std::size_t at) const;
  std::string need_dtype(const TensorType& type, std::size_t at, const std::string& what);
  SsaValue& value(std::size_t at, const std::string& ssa, Scope& scope) const;
  std::size_t find_top(std::string_view what, std::size_t from) const;
  void approximate(const std::string& op, int line, const std::string& how) {
    if (quiet_ == 0) module_.approximations.push_back({op, line, how});
  }
  void materialize(SsaValue& v, std::size_t at);
  // The tensor holding `v`'s bytes once materialized: the tensor a view stands for, else its own.
  std::string storage_of(const SsaValue& v) const;
  void pin(int matmul, const std::string& why);
  TensorSharding replicated(std::size_t rank) const;
  std::vector<std::string> after_of(const std::vector<const SsaValue*>& read,
                                    const std::vector<const SsaValue*>& waited);

  std::string_view text_;
  std::string file_;
  std::string requested_entry_;  // --function NAME; empty: @main, else the only public function
  std::vector<std::string> lines_;
  std::size_t cur_ = 0;
  std::string line_;  // the current line, `loc(...)` suffixes kept (columns stay those of the file)
  int line_no_ = 0;
  std::map<std::string, Function> functions_;
  std::vector<std::string> public_;  // the public functions, in module order
  std::optional<Mesh> mesh_;
  ImportedModule module_;
  std::vector<std::string> result_shardings_;          // per result of @main; empty = none
  std::set<std::string> names_;                        // scenario tensor and op names in use
  std::map<int, std::string> pinned_;                  // matmul index -> the out_sharding pin() gives it
  std::set<std::string> materialized_;                 // values declared as tensors by materialize()
  std::map<std::string, std::string> views_;           // a declared view -> the tensor it stands for
  std::map<std::string, std::string> constant_names_;  // `LINE:SHARDING` of a constant -> its tensor's name
  std::size_t steps_ = 0;                              // lines read, calls inlined and loops unrolled included
  int folding_ = 0;        // > 0 while a loop condition is read: every op must fold to a constant
  int quiet_ = 0;          // > 0 while a loop's second and later iterations are read: approximations are listed once
  bool returned_ = false;  // @main's return was read
  // The module reduces partial sums itself (it has sdy.all_reduce or sdy.reduce_scatter, Shardy's explicit
  // collectives): a dot's and a reduce's partial sums stay unreduced for those ops (docs/import.md).
  bool explicit_reductions_ = false;
  std::string entry_;                               // the entry function's name
  std::vector<std::set<std::string>> manual_axes_;  // the manual axes of each enclosing manual region
};

// Line scanning helpers (stablehlo_parse.cpp), module_scan.hpp's scanner with MLIR's brackets.
// Position after the bracket matching the one at `open` (`<`, `(`, `[`, `{`), skipping quoted strings; npos if
// the line ends first.
std::size_t match_close(const std::string& s, std::size_t open);
std::size_t skip_space(const std::string& s, std::size_t i);
bool is_ident(char c);
// The end of the SSA name at `i` (`%` then an identifier, with a result number `#N` of an op of several results).
std::size_t ssa_end(const std::string& s, std::size_t i);
// A scenario name for an SSA value: `%arg0` -> `arg0`, `%3` -> `v3`, `%3#1` -> `v3_1`.
std::string tensor_name(const std::string& ssa);
// Net count of `{` minus `}` on a line, outside quoted strings.
int brace_delta(const std::string& s);
// Splits [from, to) of the line at top-level commas; returns [start, end) of the parts (spaces skipped).
std::vector<std::pair<std::size_t, std::size_t>> split_top(const std::string& s, std::size_t from, std::size_t to);
std::int64_t product(const std::vector<std::int64_t>& v, std::size_t from = 0, std::size_t to = std::string::npos);
// The integer a `dense<...>` constant of one element starts with (`7`, `-1`, `true`, `false`); nullopt otherwise.
std::optional<std::int64_t> integer_literal(const std::string& s);
// `1, 2, 3` -> {1, 2, 3}; throws std::exception on a part that is not an integer.
std::vector<std::int64_t> parse_int_list(const std::string& s);
// The function name after `@` in `line` from `from`, with the position of `@` (npos when none).
std::pair<std::string, std::size_t> symbol_at(const std::string& line, std::size_t from);
// The arguments of the list between `open` and `close` (Argument above).
std::vector<Argument> signature_arguments(const std::string& line, std::size_t open, std::size_t close);
// Whether the module's element type is an integer (`i32`, `si64`, `ui8`, `i1`).
bool is_integer_element(const std::string& element);
// stablehlo_control_flow.cpp: the integer an elementwise op computes from integer constants `args` (a loop counter
// and its bound), `direction` the comparison's (`LT`); nullopt when an argument is unknown, the op is not one
// folded, or the result would overflow.
std::optional<std::int64_t> fold_integer(const std::string& op, const std::string& direction,
                                         const std::vector<std::optional<std::int64_t>>& args);

}  // namespace podsim::import::stablehlo_read
