// `podsim run --report FILE.html`: one self-contained HTML page (inline CSS and SVG; no scripts, fonts, images or
// links to anything outside the file) with each scenario's header, its plan comparison with bar charts of des vs
// book time and memory vs HBM capacity, per-plan op, memory and busiest-link tables, and the checks.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/run/run_result.hpp"

namespace podsim::report {

// Writes the page for every scenario in `runs` (of one level), in order; model-level runs get their own page
// (write_model_run_html). `first_extra` (markup) goes under the first scenario's facts: what its failures cost
// (failures_html), when the run was given some.
void write_html_report(const std::vector<ScenarioRun>& runs, std::ostream& out, const std::string& first_extra = {});

// `text` with &, <, >, " and ' replaced by character references (safe in element text and quoted attributes).
std::string html_escape(std::string_view text);

// html_escape, short for the page writers' markup.
inline std::string esc(std::string_view text) {
  return html_escape(text);
}

}  // namespace podsim::report
