// The assumed peaks of assumed_peaks.hpp.
#include "sim/import/assumed_peaks.hpp"

#include "sim/import/import_error.hpp"

namespace podsim::import {

std::vector<AssumedPeak> assumed_peaks(const std::string& hardware, const std::set<std::string>& dtypes,
                                       const std::map<std::string, double>& peak_flops) {
  std::vector<AssumedPeak> assumed;
  for (const auto& dtype : dtypes) {
    if (dtype.empty() || peak_flops.count(dtype)) continue;
    const auto bf16 = peak_flops.find("bf16");
    if (bf16 == peak_flops.end())
      throw ImportOptionError(ImportOption::hardware, "the program computes in " + dtype + ", the preset " + hardware +
                                                          " has no peak FLOP/s for it nor a bf16 one to assume");
    assumed.push_back({dtype, bf16->second});
  }
  return assumed;
}

std::string assumed_peak_note(const std::string& dtype) {
  return dtype + " compute runs at the preset's bf16 peak (a hardware override in the scenario)";
}

}  // namespace podsim::import
