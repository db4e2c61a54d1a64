// `podsim import`'s reader of StableHLO modules with Shardy shardings (docs/import.md): the text JAX prints for
// `jax.jit(f).lower(...).as_text()`. It reads the subset podsim can simulate (one `sdy.mesh`, the @main function's
// arguments and results with their `sdy.sharding`, `dot_general`, elementwise ops, reductions, layout and
// data-movement ops, constants, calls of private functions (inlined), `stablehlo.while` whose condition folds to a
// constant (unrolled), `sdy.sharding_constraint`, `return`) into typed values, with the list of what it
// approximated, as an ImportedProgram (imported_program.hpp); import_scenario.hpp turns it into a scenario.
#pragma once

#include <string>
#include <string_view>

#include "sim/import/imported_program.hpp"

namespace podsim::import {

// The StableHLO reader's result is the typed program both readers fill.
using ImportedModule = ImportedProgram;

// Reads `text` (the module; `file` names it in errors). Throws InputError located `FILE:LINE:COL` (1-based) for
// anything outside the subset: `FILE:12:10: unsupported op "stablehlo.sort"` (every such op is refused, never
// dropped), a loop whose trip count is a run-time value, a malformed or mismatching sharding (`FILE:3:60: malformed
// sharding: column 14: ...`), an unknown value, an unsupported element type, a result whose sharding cannot be derived
// (`FILE:9:10: stablehlo.reshape: cannot derive the result's sharding ...`), a missing or second `sdy.mesh`, a public
// function other than @main, calls and loops nested deeper than 16, a loop of more than 10000 iterations, more than
// 100000 ops or 2000000 lines read with calls inlined and loops unrolled, or a module without @main. Never crashes or
// hangs on hostile input.
ImportedModule parse_stablehlo_module(std::string_view text, const std::string& file, const std::string& entry = {});

}  // namespace podsim::import
