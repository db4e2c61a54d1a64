// `podsim sweep ... --report FILE.html` and `podsim sweep report DIR... --report FILE.html` (docs/sweeps.md,
// "Report"): one self-contained page of a sweep's records (inline CSS, SVG and one small script; nothing fetched):
// the Pareto front of step time against chips (or cost per million tokens when priced), per swept parameter the
// times and memory per chip of every plan with what fits HBM, the failed points with their errors, and a table of
// every plan of every point that sorts by any column when its header is clicked.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/report/sweep_report_data.hpp"

namespace podsim::report {

inline constexpr std::size_t kSweepTableRowsShown = 1000;  // rows the table shows before "show all"
inline constexpr std::size_t kSweepRowsListed = 100;       // rows of the front and failed-points lists

// The table of all points as the page's script receives it: column names, each column's kind (how the script shows
// and sorts it: "int", "value" (a swept value), "text", "s", "bytes", "bool" (no in red), "mark" (yes or
// empty), "usd"), and the rows, one per plan
// of every point that ran and one per failed point, in point order, cells as JSON values (null: none).
struct SweepTable {
  std::vector<std::string> columns;
  std::vector<std::string> kinds;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
};
SweepTable sweep_table(const SweepReportData& data);

// Writes the page. `source` names the records (the results.jsonl files) in its header.
void write_sweep_html(const SweepReportData& data, const std::string& source, std::ostream& out);

// JSON text safe inside a <script> element: every '<' written as \u003c, so no "</script>" or "<!--" can occur.
std::string script_json(const nlohmann::ordered_json& value);

}  // namespace podsim::report
