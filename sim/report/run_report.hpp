// Writers for `podsim run`: a scenario's plans, simulated (des) and closed-form (book) side by side, as an aligned
// text report, the versioned JSON object ("schema": "podsim/1", see docs/report-format.md) and a per-op CSV.
// The Chrome trace and the HTML report have their own files (chrome_trace.hpp, html_report.hpp). Each entry point
// takes a run of either level; a model-level run's (RunLevel::model) figures are written by model_run_report.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/run/run_result.hpp"

namespace podsim::report {

// The plans a reader should look at first. Both compare PlanRun::step_time_s (the simulated makespan; a model-level
// plan's step time in force); ties go to the plan listed first. nullopt when there is no plan (fastest) or no plan fits
// in HBM (fastest_fitting).
struct PlanComparison {
  std::optional<std::size_t> fastest;
  std::optional<std::size_t> fastest_fitting;
};
PlanComparison compare_plans(const ScenarioRun& run);

// des / book, or nullopt when the book time is not positive.
// `16 MiB`.
std::string bytes_text(std::uint64_t bytes);
// `1.234`, or `-` without a ratio.
std::string ratio_text(std::optional<double> ratio);
// The ops an op shared links with, as the text and HTML reports list them: `a, b, c`, at most kSharedOpsShown names,
// then `and 990 more` (the JSON lists them all).
inline constexpr std::size_t kSharedOpsShown = 12;
std::string shared_ops_text(const std::vector<std::string>& ops);
// `128x8192`, or `-` for rank 0.
std::string shape_text(const std::vector<std::int64_t>& shape);
// The value, or JSON null when there is none.
nlohmann::json optional_number(std::optional<double> value);

std::optional<double> des_over_book(double des_time_s, double book_time_s);

// "all-gather X (V=32 MiB)", axes joined by ",", "all-reduce X,Y (V=1 GiB)".
std::string collective_summary(const CollectiveRun& collective);
// The op's collectives, "; "-separated ("" when it has none).
std::string collectives_summary(const OpRun& op);

// A memory table's tensor: "h (mm)" (written by op mm), "h_in (view of h)", "t (transient)", or the bare name.
std::string tensor_label(const TensorMemory& tensor);

// "fits", "DOES NOT FIT by 3.2 GiB", or "capacity unknown" when the capacity is 0.
std::string fit_text(std::uint64_t used_bytes, std::uint64_t capacity_bytes);
// For a working set against VMEM: "fits", or "streamed in tiles (exceeds VMEM by 128 MiB)": an op whose operands
// do not fit VMEM at once is tiled through it, which the roofline's HBM traffic already counts.
std::string vmem_fit_text(std::uint64_t working_set_bytes, std::uint64_t vmem_bytes);

// Up to `count` links of the plan that carried bytes, most bytes first (ties: higher utilisation, then name).
std::vector<const LinkLoad*> busiest_links(const PlanRun& plan, std::size_t count);

// A check's value or target as text: "0.00123" (6 significant digits), "true", "[2, 4]".
std::string check_value_text(const std::variant<double, bool, std::vector<std::int64_t>>& value);
// "exact", "rel 0.05", "abs 1e-09", "rel 0.05, abs 1e-09".
std::string tolerance_text(const CheckResult& check);

// The human report of one scenario (fits in 120 columns except for long names and descriptions).
std::string run_report_text(const ScenarioRun& run);
// Several scenarios, one after the other, separated by a blank line.
std::string run_report_text(const std::vector<ScenarioRun>& runs);

// The JSON object of one scenario: {"schema": "podsim/1", "scenario", "plans", "comparison", "checks",
// "checks_passed"}; see docs/report-format.md and docs/report.schema.json. A model-level run's: {"schema", "level":
// "model", "scenario", "plans", "comparison"}.
nlohmann::json run_report_json(const ScenarioRun& run);
// One scenario: its object as above. Several (or none): {"schema": "podsim/1", "scenarios": [object, ...],
// "checks_passed": all of them passed}, without "checks_passed" when every run is model-level.
nlohmann::json run_report_json(const std::vector<ScenarioRun>& runs);

// One row per (scenario, plan, op) under the header
// scenario,plan,op,kind,des_time_s,book_time_s,ratio,bound,flops,bytes_sent,collectives,exposed_communication_s
// (RFC 4180 quoting); runs of one level, model-level ones with their own columns (write_model_run_csv).
void write_run_csv(const std::vector<ScenarioRun>& runs, std::ostream& out);

// `field` as one CSV field: quoted (with "" for ") when it holds a comma, a quote, CR or LF; as is otherwise. Text
// that a spreadsheet would run as a formula (beginning with =, +, -, @, a tab or CR, and not a plain number such as
// -1.5) is prefixed with ' first.
std::string csv_field(std::string_view field);

}  // namespace podsim::report
