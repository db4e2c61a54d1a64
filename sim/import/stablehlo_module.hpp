// `podsim import`'s reader of StableHLO modules with Shardy shardings (docs/import.md): the text JAX prints for
// `jax.jit(f).lower(...).as_text()`. It reads the subset podsim can simulate (one `sdy.mesh`, the @main function's
// arguments and results with their `sdy.sharding`, `dot_general`, elementwise ops, reductions, layout and
// data-movement ops, constants, calls of private functions (inlined), `stablehlo.while` whose condition folds to a
// constant (unrolled), `sdy.sharding_constraint`, `return`) into typed values, with the list of what it
// approximated; import_scenario.hpp turns them into scenario JSON.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace podsim::import {

// One function argument: a program input of the scenario.
struct ImportedTensor {
  std::string name;                 // scenario tensor name (`arg0` for `%arg0`)
  std::vector<std::int64_t> shape;  // global shape; empty for a scalar
  std::string dtype;                // podsim dtype name: bf16, f32, f16, int8, fp8_e4m3, fp8_e5m2
  std::string sharding;             // Shardy text `<@mesh, [...]>`; empty = replicated
  std::string view_of;              // a stand-in for this tensor's bytes in another shape or type (no memory)
  bool transient = false;           // in memory only while ops read it (docs/scenario-format.md, "Tensors")
};

// One construct the import approximated (docs/import.md, "Approximations"): the op as the module names it, its
// 1-based line, and how it was approximated.
struct ImportedApproximation {
  std::string op;  // e.g. "stablehlo.reshape"
  int line = 0;
  std::string how;
};

enum class ImportedOpKind { matmul, elementwise, reshard, load };

// One op of the scenario's program, in module order.
struct ImportedOp {
  ImportedOpKind kind = ImportedOpKind::elementwise;
  std::string name;                // op name, also its result tensor's name (`v3` for `%3`)
  std::string stablehlo_op;        // e.g. "stablehlo.dot_general", "stablehlo.tanh", "sdy.sharding_constraint"
  int line = 0;                    // 1-based line in the module text
  std::string lhs, rhs;            // matmul operands; elementwise/reshard/load: lhs is the input tensor
  std::string einsum;              // matmul only: `BD,DF->BF`
  std::string sharding;            // matmul: out_sharding (may be empty); reshard: the target sharding
  std::string out;                 // the tensor the op writes; empty = `name`
  double flops_per_element = 1;    // elementwise only
  std::vector<std::string> after;  // ops this one waits for beyond the tensors it reads (see docs/import.md)
};

// The subset of a module podsim reads.
struct ImportedModule {
  std::string mesh_name;                                   // `mesh` of `sdy.mesh @mesh = ...`
  std::vector<std::pair<std::string, std::int64_t>> axes;  // the mesh's axes, major to minor
  std::vector<std::int64_t> device_ids;                    // Shardy's explicit device order; empty = iota
  std::vector<ImportedTensor> tensors;                     // @main's arguments
  std::vector<ImportedOp> ops;                             // module order
  std::vector<std::string> results;                        // tensor names @main returns
  std::vector<ImportedApproximation> approximations;       // in module order
};

// Reads `text` (the module; `file` names it in errors). Throws InputError located `FILE:LINE:COL` (1-based) for
// anything outside the subset: `FILE:12:10: unsupported op "stablehlo.sort"` (every such op is refused, never
// dropped), a loop whose trip count is a run-time value, a malformed or mismatching sharding (`FILE:3:60: malformed
// sharding: column 14: ...`), an unknown value, an unsupported element type, a result whose sharding cannot be derived
// (`FILE:9:10: stablehlo.reshape: cannot derive the result's sharding ...`), a missing or second `sdy.mesh`, a public
// function other than @main, calls and loops nested deeper than 16, a loop of more than 10000 iterations, more than
// 100000 ops or 2000000 lines read with calls inlined and loops unrolled, or a module without @main. Never crashes or
// hangs on hostile input.
ImportedModule parse_stablehlo_module(std::string_view text, const std::string& file);

}  // namespace podsim::import
