// The one typed result both readers of `podsim import` fill (docs/import.md): the mesh, the tensors, the ops in
// module order and what was approximated. StableHLO's reader fills it from the module (stablehlo_module.hpp),
// partitioned HLO's builder from the instructions (hlo_scenario.hpp); scenario_writer.hpp alone turns it into
// scenario JSON, so no reader spells a scenario key.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace podsim::import {

// A tensor of the scenario: a program input, an op's result, or a stand-in for a value's bytes.
struct ImportedTensor {
  std::string name;                 // scenario tensor name (`arg0` for `%arg0`)
  std::vector<std::int64_t> shape;  // global shape; empty for a scalar
  std::string dtype;                // podsim dtype name: bf16, f32, f16, int8, int4, fp8_e4m3, fp8_e5m2
  std::string sharding;             // Shardy text `<@mesh, [...]>`; empty = replicated
  std::string view_of;              // a stand-in for this tensor's bytes in another shape or type (no memory)
  bool transient = false;           // in memory only while ops read it (docs/scenario-format.md, "Tensors")
};

// One construct the import approximated (docs/import.md, "Approximations"): the op as the module names it, its
// 1-based line (0: the whole module), and how it was approximated.
struct ImportedApproximation {
  std::string op;  // e.g. "stablehlo.reshape", "all-to-all %a2a", "module"
  int line = 0;
  std::string how;
};

// The scenario op kinds an import writes (docs/scenario-format.md, "Program").
enum class ImportedOpKind {
  matmul,
  elementwise,
  reshard,
  load,
  all_gather,
  all_reduce,
  reduce_scatter,
  all_to_all,
  send
};

// One op of the scenario's program, in module order. Each kind reads the fields its comment names.
struct ImportedOp {
  ImportedOpKind kind = ImportedOpKind::elementwise;
  std::string name;               // op name, also its result tensor's name unless `out` is given (`v3` for `%3`)
  std::string stablehlo_op;       // StableHLO: the module's op, e.g. "stablehlo.dot_general" (for notes and tests)
  int line = 0;                   // 1-based line in the module text (StableHLO)
  std::string lhs, rhs;           // matmul operands; every other kind but send: lhs is the tensor it reads
  std::string einsum;             // matmul: `BD,DF->BF`
  std::string sharding;           // matmul: out_sharding (may be empty); reshard: the target sharding
  std::string out;                // the tensor the op writes; empty = `name`
  double flops_per_element = 1;   // elementwise
  std::vector<std::string> axes;  // collectives: the mesh axes
  std::int64_t dim = 0;           // reduce_scatter: the dim; all_to_all: the source dim
  std::int64_t to_dim = 0;        // all_to_all: the destination dim
  std::int64_t from_chip = 0, to_chip = 0, bytes = 0;  // send
  std::vector<std::string> after;  // ops this one waits for beyond the tensors it reads (see docs/import.md)
};

// What a reader read: the mesh, the tensors and the program.
struct ImportedProgram {
  std::string mesh_name;                                   // `mesh` of `sdy.mesh @mesh = ...`
  std::vector<std::pair<std::string, std::int64_t>> axes;  // the mesh's axes, major to minor
  std::vector<std::int64_t> device_ids;                    // Shardy's explicit device order; empty = iota
  std::vector<ImportedTensor> tensors;                     // declared tensors, in order
  std::vector<ImportedOp> ops;                             // module order
  std::vector<std::string> results;                        // tensor names @main returns (StableHLO)
  std::vector<ImportedApproximation> approximations;       // in module order (StableHLO; HLO keeps its notes)
};

}  // namespace podsim::import
