// What a failure costs a step (`podsim run SCENARIO --failed-links A,B`, docs/topology.md "What a failure costs a
// step"): each plan's des step on the slice with its failures against the same scenario's on the whole slice, as a
// text block and the "failures" object of the run's JSON.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "models/topology/slice_failures.hpp"
#include "sim/run/run_result.hpp"

namespace podsim::report {

// {"failed_links": [names as given], "failed_chips": [ids], "spare_cubes", "replaced_cubes": [cube ids], "plans":
// [{"name", "step_s", "whole_step_s", "cost_fraction"}]}: per plan of `failed` (the run with the failures), its step
// and the step of the plan of the same name in `whole` (the run without them), and step / whole - 1 (null when the
// whole step is 0).
nlohmann::json failures_json(const FailureRequest& request, const ScenarioRun& failed, const ScenarioRun& whole);

// `failures: 1 failed link: ici.x+.7` and one line per plan, `  plan ag: step 1.305 ms against 652.4 us on the whole
// slice (+100%)`.
std::string failures_text(const FailureRequest& request, const ScenarioRun& failed, const ScenarioRun& whole);

// The same for `podsim run --report`: a heading, the failures, and a table of each plan's step with them, on the whole
// slice, and the difference.
std::string failures_html(const FailureRequest& request, const ScenarioRun& failed, const ScenarioRun& whole);

}  // namespace podsim::report
