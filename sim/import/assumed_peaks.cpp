#include "sim/import/assumed_peaks.hpp"

#include "models/common/error.hpp"
#include "sim/import/import_error.hpp"

namespace podsim::import {

nlohmann::ordered_json hardware_with_assumed_peaks(const std::string& hardware, const std::set<std::string>& dtypes,
                                                   const std::map<std::string, double>& peak_flops,
                                                   std::vector<std::string>& assumed) {
  nlohmann::ordered_json overrides = nlohmann::ordered_json::object();
  for (const auto& dtype : dtypes) {
    if (dtype.empty() || peak_flops.count(dtype)) continue;
    const auto bf16 = peak_flops.find("bf16");
    if (bf16 == peak_flops.end())
      throw ImportOptionError(ImportOption::hardware, "the program computes in " + dtype + ", the preset " + hardware +
                                                          " has no peak FLOP/s for it nor a bf16 one to assume");
    overrides["chip"]["peak_flops"][dtype] = {
        {"value", bf16->second},
        {"source", "podsim import"},
        {"note", "assumed equal to the preset's bf16 peak: the preset has no " + dtype + " figure"}};
    assumed.push_back(dtype);
  }
  if (overrides.empty()) return hardware;
  return {{"preset", hardware}, {"overrides", overrides}};
}

std::string assumed_peak_note(const std::string& dtype) {
  return dtype + " compute runs at the preset's bf16 peak (a hardware override in the scenario)";
}

}  // namespace podsim::import
