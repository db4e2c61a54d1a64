// Fuzzes the scenario loader from text (parse -> verify, no lowering, no simulation): bad input must be a
// podsim::Error; anything else (a nlohmann exception, a sanitizer report) is a finding.
#include <string>

#include "models/common/error.hpp"
#include "sim/scenario/scenario_json.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

PODSIM_FUZZ_ENTRY {
  const std::string text(fuzz::as_text(data, size));
  try {
    (void)load_scenario_text(text, "fuzz.json");
  } catch (const Error&) {
  }
  return 0;
}
