// Fuzzes the measurement CSV readers of `podsim validate` and `podsim calibrate`: podsim's own format
// (read_measurements) and the accelerator-microbenchmarks tables (read_microbenchmark_table).
#include <string>

#include "models/common/error.hpp"
#include "sim/calibrate/measurement.hpp"
#include "sim/calibrate/microbenchmark_table.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

PODSIM_FUZZ_ENTRY {
  const auto text = fuzz::as_text(data, size);
  try {
    read_measurements(text, "fuzz.csv");
  } catch (const Error&) {
  }
  // A matmul table and a collective one (which needs the slice it ran on).
  for (const char* benchmark : {"single_host_naive_matmul", "all_gather"}) {
    try {
      MicrobenchmarkOptions options;
      options.benchmark = benchmark;
      options.slice = Shape{4, 4};
      read_microbenchmark_table(text, "fuzz.csv", options);
    } catch (const Error&) {
    }
  }
  return 0;
}
