// Check lines for `podsim check`.
#include "sim/report/check_report.hpp"

#include <fmt/format.h>

#include "sim/report/run_report.hpp"

namespace podsim::report {

std::string check_lines(const ScenarioRun& run) {
  std::string text;
  for (const auto& check : run.checks) {
    std::string tolerance;
    if (std::holds_alternative<double>(check.target))
      tolerance =
          check.abs_tol > 0 ? fmt::format(" (abs {:g})", check.abs_tol) : fmt::format(" (rel {:g})", check.rel_tol);
    text += fmt::format("{}  {}: {} = {}, expected {}{}{}\n", check.passed ? "PASS" : "FAIL", run.file,
                        check.description, check_value_text(check.value), check_value_text(check.target), tolerance,
                        check.source.empty() ? "" : "  [" + check.source + "]");
  }
  return text;
}

}  // namespace podsim::report
