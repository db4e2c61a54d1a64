// Fuzzes the trace readers of a serving scenario's traffic (CSV, the Azure trace's columns, JSON Lines): every row
// read or a located error; the rows a reader accepts then pass or fail the traffic's verifier, never crash it.
#include <string>

#include "models/common/error.hpp"
#include "models/serving/traffic.hpp"
#include "sim/scenario/serving_trace_json.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

PODSIM_FUZZ_ENTRY {
  const auto text = fuzz::as_text(data, size);
  for (const bool json_lines : {false, true}) {
    try {
      TrafficSpec traffic;
      traffic.arrival = TraceArrivals{parse_serving_trace(text, json_lines, "fuzz.trace")};
      verify_traffic(traffic);
    } catch (const Error&) {
    }
  }
  return 0;
}
