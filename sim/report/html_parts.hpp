// The pieces of `podsim run --report` pages (html_report.cpp for op-level runs, model_run_html.cpp for model-level
// ones): the stylesheet, table rows, and the charts both kinds of run draw (des vs book time and memory vs HBM per
// plan, a step's breakdown as one stacked bar). Every string given to them is escaped here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace podsim::report {

// The run report's stylesheet (the content of its <style> element).
extern const char* const kRunReportStyle;

// The page up to its first scenario: the doctype, the title naming `scenarios`, the run report's stylesheet then
// `extra_style`, and the heading with `subtitle` (text).
std::string run_page_head(const std::vector<std::string>& scenarios, const char* extra_style,
                          const std::string& subtitle);

// One table row; cells starting with '\x01' (html_num) are numbers (right-aligned), the marker is stripped. Cells are
// markup: escape text first.
std::string html_row(const std::vector<std::string>& cells, bool header = false, const std::string& cls = "");
// A number cell of html_row.
std::string html_num(const std::string& text);

// A scenario's heading, its description and its facts table (file, hardware, slice and wraparound, then `rows`:
// html_row markup).
struct ScenarioFacts {
  const std::string& name;
  const std::string& description;
  const std::string& file;
  const std::string& hardware;
  const std::vector<std::int64_t>& slice_shape;
  const std::vector<bool>& wraparound;
};
std::string scenario_header_html(const ScenarioFacts& facts, const std::string& rows);

// A plan name short enough for the 170 px label column of the charts (the tables show it whole).
std::string chart_label(const std::string& name);

// One plan's bars of the comparison charts.
struct PlanBars {
  std::string name;
  std::optional<double> des_time_s;  // none: not simulated (the bar says so)
  double book_time_s = 0;
  std::uint64_t memory_per_chip_bytes = 0;
  std::uint64_t hbm_bytes = 0;
  bool fits_hbm = true;
};
// Two bars per plan (des and book time) on one scale.
std::string time_bars_svg(const std::vector<PlanBars>& plans);
// One bar per plan (memory per chip, red when over) and a dashed line at each plan's HBM capacity.
std::string memory_bars_svg(const std::vector<PlanBars>& plans);

// Where a step went: compute, exposed communication, bubble, DCN (seconds that add up to the step).
struct StepParts {
  double compute_s = 0;
  double exposed_communication_s = 0;
  double bubble_s = 0;
  double dcn_s = 0;
};
// One stacked bar of `parts` on the scale of their sum, with a legend giving each part's time; `label` is the
// chart's accessible name.
std::string step_breakdown_svg(const StepParts& parts, const std::string& label);

}  // namespace podsim::report
