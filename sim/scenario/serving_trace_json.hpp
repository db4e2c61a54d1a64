// The trace files of a serving scenario's traffic (docs/serving.md, "Scenario"): CSV with a header (arrival_s,
// prompt_tokens, output_tokens, or the Azure LLM inference trace's TIMESTAMP, ContextTokens, GeneratedTokens) or JSON
// Lines. The scenario loader reads them through here; so does the fuzz harness.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/serving/traffic.hpp"

namespace podsim {

// The rows of a trace's text, `name` its file (for messages), JSON Lines when `json_lines`. Throws InputError at
// /workload/traffic/trace naming the file's line, the column and the value of a bad row (the loader adds the scenario).
std::vector<TraceRow> parse_serving_trace(std::string_view text, bool json_lines, const std::string& name);

}  // namespace podsim
