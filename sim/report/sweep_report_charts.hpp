// The SVG charts of the sweep report (sweep_report_html.hpp): a figure against one swept parameter, and the Pareto
// front of step time against chips or cost. Marks that land within a few pixels of one another (same plan, same fit)
// are drawn once, with a coarser grid until a chart holds at most kSweepMarksPerChart, so a 10,000-point sweep keeps
// a page of a few megabytes that draws in a second; each chart says how many it drew.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/report/sweep_report_data.hpp"

namespace podsim::report {

inline constexpr std::size_t kSweepMarksPerChart = 2500;

// What a parameter chart puts on its y axis.
// What a parameter chart plots: step times, memory per chip, or a goal's expected days to train and cost.
enum class SweepQuantity { des_time, book_time, memory, days_to_train, goal_cost };

struct SweepChart {
  std::string svg;
  std::size_t placed = 0;  // marks (plans of points) with a value to place
  std::size_t drawn = 0;   // SVG marks drawn for them
  double cell_px = 0;      // marks closer than this on both axes were drawn once (0: every mark drawn)
};

// The colour of a series (a plan, or a rank of model-level candidates); red stays for "does not fit".
const char* sweep_series_colour(std::size_t series);

// `quantity` of every mark against the parameter `parameter` (index into data.pointers): numbers on a linear or
// logarithmic axis, anything else (chip names, meshes) one band per value in order of first appearance. A dot fits
// HBM, a cross does not; a strip under the axis says, per value, whether every mark, some or none fit; the memory
// chart has a dashed line at each HBM capacity per chip.
SweepChart parameter_chart(const SweepReportData& data, std::size_t parameter, SweepQuantity quantity);

// Step time against `cost` of every mark that fits HBM, the front (pareto_front) drawn over them as a staircase.
SweepChart pareto_chart(const SweepReportData& data, ParetoCost cost, const std::vector<std::size_t>& front);

// The legend the page shows once above the charts: series colours, marks, the fit strip, the HBM line.
std::string sweep_legend_svg(const SweepReportData& data);

}  // namespace podsim::report
