// Every shipped scenario: the peak memory a plan reports is the maximum of the memory counters its Chrome trace
// carries, on the chip and at the moment the report names. Time and memory come from one timeline.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/report/chrome_trace.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/scenario/scenario_json.hpp"

namespace podsim {
namespace {

namespace fs = std::filesystem;

TEST(MemoryTrace, ReportedPeakIsTheMaximumOfTheTraceCounters) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(PODSIM_SOURCE_DIR) / "scenarios"))
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 10u);
  for (const auto& file : files) {
    const ScenarioSpec spec = load_scenario(file);
    if (spec.model) continue;  // a model-level scenario is planned (podsim plan), not run
    const ScenarioRun run = run_scenario(spec);
    std::stringstream out;
    report::write_chrome_trace(run, out);
    const auto trace = nlohmann::json::parse(out.str());
    std::map<int, std::uint64_t> max_bytes;  // per pid
    std::map<int, std::pair<std::string, double>> where;
    for (const auto& e : trace.at("traceEvents")) {
      if (e.at("ph") != "C") continue;
      const int pid = e.at("pid").get<int>();
      const auto bytes = e.at("args").at("bytes").get<std::uint64_t>();
      if (bytes > max_bytes[pid]) {
        max_bytes[pid] = bytes;
        where[pid] = {e.at("name").get<std::string>(), e.at("ts").get<double>()};
      }
    }
    for (std::size_t i = 0; i < run.plans.size(); ++i) {
      const PlanRun& plan = run.plans[i];
      const int pid = static_cast<int>(i) + 1;
      EXPECT_EQ(max_bytes[pid], plan.memory_per_chip_bytes) << file << " plan " << plan.name;
      EXPECT_EQ(where[pid].first, "memory chip " + std::to_string(plan.peak_chip)) << file << " plan " << plan.name;
      EXPECT_DOUBLE_EQ(where[pid].second, plan.peak_time_s * 1e6) << file << " plan " << plan.name;
      EXPECT_EQ(plan.fits_hbm, plan.hbm_bytes == 0 || plan.memory_per_chip_bytes <= plan.hbm_bytes) << file;
    }
  }
}

}  // namespace
}  // namespace podsim
