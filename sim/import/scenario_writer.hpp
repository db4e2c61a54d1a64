// The one writer of `podsim import`: an ImportedProgram (imported_program.hpp), from either reader, as scenario JSON
// (docs/scenario-format.md). The only place in sim/import that spells a scenario key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/import/assumed_peaks.hpp"
#include "sim/import/imported_program.hpp"

namespace podsim::import {

// A scenario as the writer writes it (the readers' results name this type, not the JSON library).
using ScenarioJson = nlohmann::ordered_json;

// Which reader read the module: the scenario's `source.format`.
enum class ImportFormat { stablehlo_shardy, hlo_partitioned };

// What the scenario says around the program: where it came from and what it runs on.
struct ScenarioFrame {
  std::string file;  // the module's path as given; the scenario's name is its stem ("imported" when none)
  ImportFormat format = ImportFormat::stablehlo_shardy;
  std::string description;
  std::string hardware;                               // the preset's name
  std::vector<AssumedPeak> assumed_peaks;             // written as the preset's overrides
  std::vector<std::int64_t> slice;                    // the slice's shape (wraparound `auto`: the preset's rule)
  std::vector<std::vector<int>> axis_dims;            // the slice dims each of the program's mesh axes covers
  std::vector<ImportedApproximation> approximations;  // the scenario's `source.approximations`, in order
};

// The scenario: name, description, source (file, format, the frame's approximations), hardware, slice, mesh,
// tensors and program, in that order. An elementwise op's flops_per_element is written as the reader has always
// written it (StableHLO: an integer when whole; partitioned HLO: a number, before `out`), so that a module imports to
// the same bytes as before the readers shared this writer.
ScenarioJson scenario_json(const ImportedProgram& program, const ScenarioFrame& frame);

// The approximations of a scenario this writer wrote (its `source.approximations`) as `podsim import` prints them:
// one line each, `  FILE:LINE: OP: HOW` (`  FILE: OP: HOW` for one of the whole module, line 0), after a count line
// (`3 approximations (docs/import.md):`); "" when there are none.
std::string approximations_text(const ScenarioJson& scenario, const std::string& file);

}  // namespace podsim::import
