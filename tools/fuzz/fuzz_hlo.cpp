// Fuzzes `podsim import` of compiled, partitioned HLO text: parse, the default slice on a 16x16 pod, build the
// scenario (bf16 and f32 peaks given, as a v5e-like preset has them after the import's f32 override) and load it
// back. Bad input must be a podsim::Error; anything else (a nlohmann exception, a sanitizer report, a scenario the
// importer wrote that the loader refuses with anything but a podsim::Error) is a finding.
#include <map>
#include <string>

#include "models/common/error.hpp"
#include "sim/import/hlo_module.hpp"
#include "sim/import/hlo_scenario.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

PODSIM_FUZZ_ENTRY {
  const std::string text(fuzz::as_text(data, size));
  try {
    const import::HloModule module = import::parse_hlo_module(text, "fuzz.hlo");
    const auto slice = import::hlo_default_slice(module, {16, 16}, "fuzz.hlo", "--hardware");
    const auto imported =
        import::scenario_from_hlo(module, "fuzz.hlo", "tpu-v5e", slice, {{"bf16", 1.97e14}, {"int8", 3.94e14}});
    (void)load_scenario_text(imported.scenario.dump(2), "fuzz.json");
  } catch (const Error&) {
  }
  return 0;
}
