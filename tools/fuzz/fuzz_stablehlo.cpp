// Fuzzes `podsim import` of StableHLO + Shardy text: parse, place the mesh on a v5e-like 16x16 pod, build the
// scenario and load it back (what `podsim import` then `podsim run` read). Bad input must be a podsim::Error;
// anything else (a nlohmann exception, a sanitizer report, a scenario the importer wrote that the loader refuses
// with anything but a podsim::Error) is a finding.
#include <string>

#include "models/common/error.hpp"
#include "sim/import/import_scenario.hpp"
#include "sim/import/stablehlo_module.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

PODSIM_FUZZ_ENTRY {
  const std::string text(fuzz::as_text(data, size));
  try {
    const import::ImportedModule module = import::parse_stablehlo_module(text, "fuzz.mlir");
    const auto slice = import::default_slice(module, {16, 16}, "--hardware");
    const auto scenario =
        import::scenario_from_module(module, "fuzz.mlir", "tpu-v5e", slice, {{"bf16", 1.97e14}, {"int8", 3.94e14}});
    (void)load_scenario_text(scenario.dump(2), "fuzz.json");
  } catch (const Error&) {
  }
  return 0;
}
