// Fuzzes the sweep file reader (load_sweep_text): the parameters, ranges, combine and filter of a sweep file, its
// points counted, and the first points resolved and filtered as a sweep would run them. A relative `base` is read
// from the working folder; the reader reads regular files only, bounded.
#include <algorithm>
#include <cstddef>
#include <string>

#include "models/common/error.hpp"
#include "sim/sweep/sweep_filter.hpp"
#include "sim/sweep/sweep_points.hpp"
#include "sim/sweep/sweep_spec.hpp"
#include "tools/fuzz/fuzz_support.hpp"

using namespace podsim;

PODSIM_FUZZ_ENTRY {
  try {
    const SweepSpec spec = load_sweep_text(std::string(fuzz::as_text(data, size)), "fuzz.json");
    const std::size_t points = point_count(spec);
    for (std::size_t point = 0; point < std::min<std::size_t>(points, 4); ++point) {
      try {
        const auto resolved = resolve_point(spec, point);
        point_params(spec, point);
        point_selected(spec, resolved);
      } catch (const Error&) {  // a point's own error (a pointer an earlier parameter removed) fails that point only
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
